#!/usr/bin/env bash
# A PostgreSQL server for the session store's tests (crates/claude-proto-sessions
# tests/postgres.rs): installs Debian's postgresql if missing, starts a
# cluster, makes a role and a database for the tests, and prints their URL on
# its last line. Idempotent: a second run finds everything in place.
#
# Usage: export CLAUDE_PROTO_TEST_POSTGRES="$(bash .ci/postgres.sh | tail -n 1)"
set -euo pipefail

role=claude_proto
password=claude_proto
database=claude_proto_test

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    sudo -u postgres "$@"
  fi
}

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "installing postgresql" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=600 -y -qq postgresql >&2
fi

# The newest installed server version, and its cluster "main" (made if the
# package did not make one).
version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
if ! pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version main"; then
  as_root pg_createcluster "$version" main >&2
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}' | grep -qx online; then
  as_root pg_ctlcluster "$version" main start >&2
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')

# Wait for it to accept connections (pg_ctlcluster start already waits; this
# covers a cluster that was starting when we looked).
for _ in $(seq 1 30); do
  if as_postgres pg_isready -q -p "$port"; then break; fi
  sleep 1
done

psql_admin() {
  as_postgres psql -p "$port" -v ON_ERROR_STOP=1 -qAt "$@"
}

if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" != 1 ]; then
  psql_admin -c "CREATE ROLE $role LOGIN PASSWORD '$password'" >&2
else
  psql_admin -c "ALTER ROLE $role LOGIN PASSWORD '$password'" >&2
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
  psql_admin -c "CREATE DATABASE $database OWNER $role" >&2
fi

# Debian's default pg_hba.conf allows password (scram) logins on
# 127.0.0.1, which is what the URL uses.
echo "postgresql://$role:$password@127.0.0.1:$port/$database"
