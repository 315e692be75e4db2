#!/usr/bin/env bash
# Every Debian package the CI steps use, in one apt transaction, beside
# the lint, so that no later step waits on apt (or on another's apt lock).
# Each step's own script still installs what it finds missing, so this
# script only saves time: PostgreSQL (.ci/postgres.sh),
# Rust 1.85 with its std sources and clippy (.ci/rust-1.85.sh, for the
# release check, cross.sh and wine.sh), mingw-w64 and Wine (.ci/wine.sh).
#
# Usage: bash .ci/debian-packages.sh   (root, or sudo)
set -euo pipefail
cd "$(dirname "$0")/.."

rust_185_version=$(sed -n 's/^rust_185_version=//p' .ci/rust-1.85.sh)
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

wanted=()
command -v pg_ctlcluster >/dev/null 2>&1 || wanted+=(postgresql)
if ! /usr/bin/cargo --version 2>/dev/null | grep -q '^cargo 1\.85\.'; then
  wanted+=("rustc-web=$rust_185_version" "cargo-web=$rust_185_version"
    "libstd-rust-web-dev=$rust_185_version")
fi
[ -f /usr/lib/rustlib/src/rust/library/Cargo.lock ] || wanted+=("rust-web-src=$rust_185_version")
[ -x /usr/bin/cargo-clippy ] || wanted+=("rust-web-clippy=$rust_185_version")
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || wanted+=(gcc-mingw-w64-x86-64-win32)
[ -x /usr/lib/wine/wine64 ] || wanted+=(wine64)

if [ ${#wanted[@]} -eq 0 ]; then
  echo "every Debian package is installed"
  exit 0
fi
echo "installing: ${wanted[*]}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# A pinned version gone from the archive fails the transaction: each
# step's script then installs what it needs its own way.
if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=600 -y -qq \
  --no-install-recommends "${wanted[@]}"; then
  echo "not installed here: each step's script installs what it needs"
fi
