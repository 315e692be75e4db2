#!/usr/bin/env bash
# The declared minimum Rust version (1.85, the workspace's rust-version)
# proven: the library crates build with every feature and pass their own
# tests with Debian bookworm's packaged Rust 1.85 (rustc-web, pinned), which
# installs beside the rustup toolchain as /usr/bin/cargo and /usr/bin/rustc.
#
# By hand: CI builds the packaged crates with 1.85 instead, outside the
# workspace (.ci/release-check.sh), and runs the core's, the host's, the
# process crate's, the test kit's and the sessions crate's tests with 1.85
# for Windows (.ci/wine.sh). This runs every library crate's tests with
# 1.85 on Linux, after a change that might depend on a newer std.
#
# Left out: claude-proto-rmcp (rmcp needs Rust 1.88, its own declared
# minimum, which no package of this distribution offers), and the tests,
# examples and bench packages, which depend on it.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=rust-1.85.sh
source .ci/rust-1.85.sh
packages=("${library_packages[@]}")
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
# A target directory of its own: artifacts of two compilers do not mix.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/msrv"
case "$CARGO_TARGET_DIR" in
  /*) ;;
  *) CARGO_TARGET_DIR="$PWD/$CARGO_TARGET_DIR" ;;
esac
# The test kit's tests run the real CLI offline where CLAUDE_BIN names it
# (.ci/run installs it in tests/peer and sets it; with CI set, a missing
# CLI fails them), and its doctests find its binary through
# CLAUDE_PROTO_TESTKIT_CLI: the one this compiler builds for its tests, not
# the one .ci/run's earlier build left (and may have removed).
if [ -z "${CLAUDE_BIN:-}" ] && [ -x tests/peer/node_modules/.bin/claude ]; then
  export CLAUDE_BIN="$PWD/tests/peer/node_modules/.bin/claude"
fi
export CLAUDE_PROTO_TESTKIT_CLI="$CARGO_TARGET_DIR/debug/claude-proto-testkit-cli"
/usr/bin/cargo build --locked "${packages[@]}" --all-features
/usr/bin/cargo test --locked "${packages[@]}"
