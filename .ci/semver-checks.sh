#!/usr/bin/env bash
# The published crates' API against a baseline, with cargo-semver-checks
# (installed from crates.io if missing): a break that the version in
# Cargo.toml does not allow fails (RELEASING.md, step 3).
#
# Usage: bash .ci/semver-checks.sh [REV]
# - without REV: against each crate's last version on crates.io;
# - with REV (a tag such as v0.1.0, or any git revision): against the
#   crates as they were at REV, before anything is published.
#
# By hand, before a release: not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo semver-checks --version >/dev/null 2>&1; then
  cargo install cargo-semver-checks --locked
fi
# The packages that are not published: cargo-semver-checks would look
# for them on crates.io.
args=(--workspace --exclude claude-proto-tests --exclude claude-proto-compile-errors
  --exclude claude-proto-bench --exclude claude-proto-examples)
if [ $# -gt 0 ]; then
  args+=(--baseline-rev "$1")
fi
cargo semver-checks check-release "${args[@]}"
