#!/usr/bin/env bash
# Runs tests while every core is kept busy, several times, and reports each
# failure: a test that waits on a race it can lose, or on elapsed time,
# fails here long before it fails CI by chance.
#
# Usage: bash .ci/under-load.sh [-n ROUNDS] [-l HOGS] [-- CARGO_TEST_ARGS...]
#   -n ROUNDS  how many times to run the tests (default 3)
#   -l HOGS    how many busy processes to run meanwhile (default: twice
#              the number of cores; 0 when the load is other work, as in CI)
#   CARGO_TEST_ARGS  what `cargo test` runs (default: --workspace)
#
# Examples:
#   bash .ci/under-load.sh                       # the whole suite, 3 times
#   bash .ci/under-load.sh -n 5 -- -p claude-proto-tests --test real_cli_blocking
#
# The tests are built first, without the load (the build is not what is
# tested); then the load starts and each round runs them. Each round's
# output goes to target/under-load/round-N.log; the failing tests of each
# round are printed at the end. Exits 1 if any round failed. The busy
# processes are plain shell loops (no package to install), ended when the
# script ends, however it ends.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3
hogs=$(($(nproc 2>/dev/null || echo 2) * 2))
while [ $# -gt 0 ]; do
  case "$1" in
    -n) rounds="$2"; shift 2 ;;
    -l) hogs="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument: $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  set -- --workspace
fi

logs=target/under-load
mkdir -p "$logs"

echo "==> building: cargo test --no-run $*"
cargo test --no-run "$@" 2>&1 | tail -n 3

pids=()
stop_load() {
  if [ ${#pids[@]} -gt 0 ]; then
    kill "${pids[@]}" 2>/dev/null || :
    wait "${pids[@]}" 2>/dev/null || :
    pids=()
  fi
}
trap stop_load EXIT
for _ in $(seq "$hogs"); do
  sh -c 'while :; do :; done' &
  pids+=("$!")
done
echo "==> $hogs busy processes on $(nproc) cores; $rounds rounds of: cargo test $*"

failed_rounds=0
summary=""
for round in $(seq "$rounds"); do
  log="$logs/round-$round.log"
  start=$(date +%s)
  if cargo test --no-fail-fast "$@" >"$log" 2>&1; then
    status=passed
  else
    status=FAILED
    failed_rounds=$((failed_rounds + 1))
  fi
  took=$(($(date +%s) - start))
  # `test name ... FAILED` lines, and binaries that failed as a whole.
  failures=$(grep -E '^test .* \.\.\. FAILED$|^error: test failed|^error: [0-9]+ targets? failed' "$log" || :)
  line="round $round: $status in ${took}s (log: $log)"
  echo "$line"
  summary+="$line"$'\n'
  if [ -n "$failures" ]; then
    echo "$failures" | sed 's/^/    /'
    summary+="$(echo "$failures" | sed 's/^/    /')"$'\n'
  fi
  if [ "$status" = FAILED ]; then
    # What each failing test printed (a CI machine's logs are not kept),
    # or the log's end if no test failed (a build or harness failure).
    if grep -q '^---- .* stdout ----$' "$log"; then
      awk '/^---- .* stdout ----$/ {on = 1} /^failures:$/ {on = 0} on' "$log" | head -n 400
    else
      tail -n 60 "$log"
    fi
  fi
done
stop_load

echo
echo "==> under load: $((rounds - failed_rounds)) of $rounds rounds passed"
printf '%s' "$summary"
[ "$failed_rounds" -eq 0 ]
