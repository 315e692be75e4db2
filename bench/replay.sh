#!/usr/bin/env bash
# Replaying a 100 MB cassette as fast as possible, through each adapter,
# against the end-to-end figure (bench-e2e against bench-cli) measured in
# the same run, alternately. Prints Markdown tables.
#
#   bench/replay.sh             # 5 rounds, then the memory check (about a minute)
#   ROUNDS=9 bench/replay.sh
#
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: target/ at the repo root)
#   ROUNDS            alternating rounds (default 5)
#   REPLAY_BYTES      size of the cassette (default 104857600, gen-cassette's)
#   E2E_BYTES         bytes per bench-e2e run (default 100000000, as compare.sh)
#   BIG_BYTES         the larger cassette of the memory check (default 314572800)
#   SKIP_BIG=1        leave the memory check out
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

ROUNDS=${ROUNDS:-5}
REPLAY_BYTES=${REPLAY_BYTES:-104857600}
E2E_BYTES=${E2E_BYTES:-100000000}
BIG_BYTES=${BIG_BYTES:-314572800}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

say() { printf '==> %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

say "building (release)"
cargo build --release -p claude-proto-bench --bins --quiet
# The tokio-child row spawns the testkit's CLI binary, found next to
# bench-replay-e2e.
cargo build --release -p claude-proto-testkit --bin claude-proto-testkit-cli --quiet

TRANSCRIPT=$WORK/transcript.ndjson
"$BIN/gen-transcript" "$TRANSCRIPT" 2>/dev/null
CASSETTE=$WORK/replay.cassette.ndjson
"$BIN/gen-cassette" "$CASSETTE" "$REPLAY_BYTES"

RESULTS=$WORK/results.txt
: >"$RESULTS"
echo "load_before=$(load | tr ' ' ,)" >>"$RESULTS"
for round in $(seq 1 "$ROUNDS"); do
  say "round $round/$ROUNDS (load $(load))"
  for adapter in tokio blocking; do
    echo "round=$round $("$BIN/bench-e2e" "$adapter" "$BIN/bench-cli" "$TRANSCRIPT" "$E2E_BYTES")" >>"$RESULTS"
    echo "round=$round $("$BIN/bench-replay-e2e" "$adapter" "$CASSETTE")" >>"$RESULTS"
  done
  echo "round=$round $("$BIN/bench-replay-e2e" tokio-child "$CASSETTE")" >>"$RESULTS"
done
echo "load_after=$(load | tr ' ' ,)" >>"$RESULTS"

if [[ "${SKIP_BIG:-0}" != 1 ]]; then
  BIG=$WORK/big.cassette.ndjson
  "$BIN/gen-cassette" "$BIG" "$BIG_BYTES"
  # With the testkit's default report budget (the program's lines are kept
  # up to 16 MiB) and with none kept (the streaming alone).
  for keep in default 0; do
    for adapter in tokio blocking; do
      say "memory: $adapter, report budget $keep"
      for cassette in "$CASSETTE" "$BIG"; do
        if [[ $keep == default ]]; then
          echo "keep=$keep $("$BIN/bench-replay-e2e" "$adapter" "$cassette")" >>"$RESULTS"
        else
          echo "keep=$keep $(BENCH_REPLAY_KEEP=$keep "$BIN/bench-replay-e2e" "$adapter" "$cassette")" >>"$RESULTS"
        fi
      done
    done
  done
  rm -f "$BIG"
fi

# Tables. (python3 for the arithmetic only; any 3.x will do.)
python3 - "$RESULTS" <<'PY'
import statistics, sys
lines = [l.split() for l in open(sys.argv[1])]
loads = {l[0].split("=")[0]: l[0].split("=")[1].replace(",", " ") for l in lines if l and l[0].startswith("load_")}
rows = [dict(kv.split("=", 1) for kv in l if "=" in kv) for l in lines if l and not l[0].startswith("load_")]
timed = [r for r in rows if "round" in r]
by = {}
for r in timed:
    by.setdefault(r["adapter"], []).append(r)
med = lambda rs, k: statistics.median(float(x[k]) for x in rs)
rounds = max(len(v) for v in by.values())
print("\n### Replay against end to end (median of %d alternating rounds)\n" % rounds)
print("Load average (1, 5, 15 min) before: %s; after: %s.\n" % (loads.get("load_before"), loads.get("load_after")))
print("| adapter | bench-e2e messages/s | replay messages/s | replay / e2e | replay MB/s | replay peak RSS | rounds at ≥ 0.5 |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, e2e_name in [("tokio", "tokio"), ("blocking", "blocking"), ("tokio-child", "tokio")]:
    rep = by.get("replay-" + name)
    e2e = by.get(e2e_name)
    if not rep or not e2e:
        continue
    # Each replay run against the bench-e2e run of its own round.
    e2e_of = {r["round"]: float(r["msgs_per_s"]) for r in e2e}
    ratios = [float(r["msgs_per_s"]) / e2e_of[r["round"]] for r in rep if r["round"] in e2e_of]
    m, e = med(rep, "msgs_per_s"), med(e2e, "msgs_per_s")
    print("| %s | %s | %s | %.2f | %.0f | %.1f MiB | %d of %d |" % (
        name, f"{e:,.0f}", f"{m:,.0f}", m / e, med(rep, "mb_per_s"),
        med(rep, "peak_rss") / 2**20, sum(x >= 0.5 for x in ratios), len(ratios)))
r0 = by["replay-tokio"][0]
e0 = by["tokio"][0]
print("\n(replay: %s messages, %s turns, a %s-byte cassette; bench-e2e: %s messages, %s bytes. "
      "tokio-child is held against bench-e2e tokio; its RSS is the program's, not the replaying child's.)"
      % (r0["messages"], r0["turns"], r0["bytes"], e0["messages"], e0["bytes"]))
mem = [r for r in rows if "keep" in r]
if mem:
    print("\n### Memory: the cassette is streamed\n")
    print("| adapter | report budget | cassette bytes | messages | peak RSS |")
    print("|---|---|---:|---:|---:|")
    for r in mem:
        keep = "16 MiB (default)" if r["keep"] == "default" else r["keep"]
        print("| %s | %s | %s | %s | %.1f MiB |" % (r["adapter"][len("replay-"):], keep,
              f"{int(r['bytes']):,}", f"{int(r['messages']):,}", float(r["peak_rss"]) / 2**20))
PY
