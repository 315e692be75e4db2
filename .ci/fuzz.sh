#!/usr/bin/env bash
# The fuzz targets as CI runs them: built for a smoke run, not a campaign,
# then the committed seeds replayed and a 30 s smoke run per target.
#
# Usage: bash .ci/fuzz.sh build   # cargo-fuzz if missing, then the build
#        bash .ci/fuzz.sh run     # replay and smoke (builds first if needed)
#
# Stable toolchain, so no sanitizer (see fuzz/README.md); the fuzz crate is
# a workspace of its own with its own target dir (fuzz/target).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(framing session roundtrip transcript mcp_bridge json_schema)
# Opt-level 0, line tables and debug assertions (the fuzz profile's
# opt-level 3 and debug = 1 are for long runs by hand). Opt-level 1 took
# 4 min 12 s to build, opt-level 0 takes about 1 min 20 s; the targets
# then run 2 to 5 times fewer inputs a second, but with overflow checks
# and debug assertions on, so a wrap the optimised build would hide fails
# here, and a crash names its line. Build and run must agree, or the run
# builds again.
flags=(-s none -a)
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=line-tables-only

case "${1:-}" in
  build)
    if ! cargo fuzz --version >/dev/null 2>&1; then
      cargo install cargo-fuzz --locked
    fi
    cargo fuzz build "${flags[@]}"
    ;;
  run)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for target in "${targets[@]}"; do
      cargo fuzz run "${flags[@]}" "$target" "fuzz/seeds/$target" -- -runs=0
    done
    # The smoke runs, two at a time: each fuzzes on one core for its
    # 30 s, so the two cores give every target its time in half the wall
    # clock. New inputs go to the temporary directory; a crash leaves its
    # input in fuzz/artifacts/$target and fails the script (after both
    # lanes, with the failing target's output).
    smoke() {
      for target in "$@"; do
        mkdir -p "$tmp/$target"
        if ! cargo fuzz run "${flags[@]}" "$target" "$tmp/$target" "fuzz/seeds/$target" \
          -- -max_total_time=30 >"$tmp/$target.log" 2>&1; then
          echo "fuzz target $target failed:"
          cat "$tmp/$target.log"
          return 1
        fi
        tail -n 3 "$tmp/$target.log"
      done
    }
    smoke "${targets[@]:0:3}" >"$tmp/lane-1.log" 2>&1 &
    lane_1=$!
    smoke "${targets[@]:3}" >"$tmp/lane-2.log" 2>&1 &
    lane_2=$!
    failed=0
    wait "$lane_1" || failed=1
    wait "$lane_2" || failed=1
    cat "$tmp/lane-1.log" "$tmp/lane-2.log"
    exit "$failed"
    ;;
  *)
    echo "usage: bash $0 build|run" >&2
    exit 2
    ;;
esac
