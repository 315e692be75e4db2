#!/usr/bin/env bash
# Memory under stress, every adapter: peak RSS of the reading process over
# its RSS at start, one process per adapter and scenario (bench-stress).
# Prints a Markdown table. Called by compare.sh; runs alone too:
#
#   bench/stress.sh
#
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: target/ at the repo root)
#   STRESS_ADAPTERS   default "tokio blocking async-std smol"
#   STRESS_SCENARIOS  default "flood refusals deadline"
#   FLOOD_FLAGS       default "--lines 40 --line-bytes 8388608 --pause-secs 5"
#   REFUSALS_FLAGS    default "--requests 500000 --id-bytes 150" (~160 MB of answers)
#   DEADLINE_FLAGS    default "--deadline-secs 1" (a CLI writing 8 KiB lines through the grace)
#   STRESS_TIMEOUT    seconds before a run counts as hung (default 120)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
ADAPTERS=${STRESS_ADAPTERS:-tokio blocking async-std smol}
SCENARIOS=${STRESS_SCENARIOS:-flood refusals deadline}
FLOOD_FLAGS=${FLOOD_FLAGS:---lines 40 --line-bytes 8388608 --pause-secs 5}
REFUSALS_FLAGS=${REFUSALS_FLAGS:---requests 500000 --id-bytes 150}
DEADLINE_FLAGS=${DEADLINE_FLAGS:---deadline-secs 1}
LIMIT=${STRESS_TIMEOUT:-120}
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

cargo build --release -p claude-proto-bench --bin bench-stress --bin bench-cli --quiet

for scenario in $SCENARIOS; do
  flags=$FLOOD_FLAGS
  [[ $scenario == refusals ]] && flags=$REFUSALS_FLAGS
  [[ $scenario == deadline ]] && flags=$DEADLINE_FLAGS
  for adapter in $ADAPTERS; do
    printf '==> stress: %s %s\n' "$adapter" "$scenario" >&2
    rc=0
    # shellcheck disable=SC2086 # the flags are words
    line=$(timeout -k 5 "$LIMIT" "$BIN/bench-stress" "$adapter" "$scenario" \
      --cli "$BIN/bench-cli" $flags) || rc=$?
    echo "adapter=$adapter scenario=$scenario rc=$rc limit=$LIMIT flags=${flags// /_} $line" >>"$RESULTS"
  done
done

"${PYTHON:-python3}" - "$RESULTS" <<'PY'
import sys
rows = [dict(kv.split("=", 1) for kv in line.split() if "=" in kv) for line in open(sys.argv[1])]
print("\n### Memory under stress (peak RSS of the reading process minus its RSS at start)\n")
seen = set()
for r in rows:
    if r["scenario"] not in seen:
        seen.add(r["scenario"])
        print("- %s: `%s`" % (r["scenario"], r["flags"].replace("_", " ")))
print("\n| adapter | scenario | peak RSS delta | outcome |")
print("|---|---|---:|---|")
for r in rows:
    rc = int(r["rc"])
    if rc in (124, 137):
        delta, outcome = "n/a", "hung (killed after %s s)" % r["limit"]
    elif "delta_mib" not in r:
        delta, outcome = "n/a", "failed (exit %d)" % rc
    else:
        delta = "+%s MiB" % r["delta_mib"]
        close = "close() ok" if r["close"] == "ok" else "close() " + r["close"]
        if r["scenario"] == "flood":
            got = "%s/%s messages" % (r["messages"], r["lines"])
            held = ("CLI wrote all %.0f MiB during the pause (nothing held it back)"
                    % (int(r["lines"]) * int(r["line_bytes"]) / 2**20)
                    if r["cli_done_in_pause"] == "true"
                    else "CLI still blocked after the %.1f s pause" % float(r["paused_secs"]))
            outcome = "%s; %s; %s; %s s" % (held, got, close, r["secs"])
        elif r["scenario"] == "deadline":
            outcome = "%s; the call returned in %s s; %s; %s s in all" % (
                r["outcome"].replace("_", " "), r["turn_secs"], close, r["secs"])
        else:
            outcome = "%s/%s refused (~%.0f MB of answers); %s; %s s" % (
                r["refused"], r["requests"], int(r["answer_bytes"]) / 1e6, close, r["secs"])
    print("| %s | %s | %s | %s |" % (r["adapter"], r["scenario"], delta, outcome))
PY
