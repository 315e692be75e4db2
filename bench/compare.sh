#!/usr/bin/env bash
# Side-by-side figures: end to end through each adapter against the official
# Python SDK and a floor, decode, the typed model, memory, and stress
# (bench/stress.sh). Prints Markdown tables.
#
#   bench/compare.sh            # everything (about 2 minutes on 2 cores, plus the stress runs)
#   ROUNDS=5 bench/compare.sh   # more end-to-end rounds (default 3)
#
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: target/ at the repo root)
#   BENCH_VENV        the Python SDK's virtualenv (default: target/bench-venv,
#                     git-ignored; created and filled with `pip install
#                     claude-agent-sdk` on first use)
#   PYTHON            the interpreter that creates it (default: python3, 3.10+)
#   E2E_BYTES         bytes per end-to-end run (default 100000000)
#   STREAM_BYTES      bytes for the bounded-memory run (default 1000000000)
#   SKIP_PYTHON=1     leave the Python SDK out
#   SKIP_STRESS=1     leave out the stress table (bench/stress.sh, which
#                     reads its own variables)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

ROUNDS=${ROUNDS:-3}
E2E_BYTES=${E2E_BYTES:-100000000}
STREAM_BYTES=${STREAM_BYTES:-1000000000}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
VENV=${BENCH_VENV:-$ROOT/target/bench-venv}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

say() { printf '==> %s\n' "$*" >&2; }

say "building (release)"
cargo build --release -p claude-proto-bench --bins --quiet

if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
  if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating the Python SDK virtualenv in $VENV"
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check claude-agent-sdk
  fi
  SDK_VERSION=$("$VENV/bin/python" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)')
  say "claude-agent-sdk $SDK_VERSION"
fi

TRANSCRIPT=$WORK/transcript.ndjson
"$BIN/gen-transcript" "$TRANSCRIPT" 2>"$WORK/census.txt"
head -n 1 "$WORK/census.txt" >&2

RESULTS=$WORK/results.txt
: >"$RESULTS"

# Interleaved rounds: every contender once per round, so noise from other
# processes on a shared machine hits them alike.
ADAPTERS=(floor tokio blocking async-std smol smol-global)
for round in $(seq 1 "$ROUNDS"); do
  say "end to end, round $round/$ROUNDS"
  for adapter in "${ADAPTERS[@]}"; do
    echo "round=$round $("$BIN/bench-e2e" "$adapter" "$BIN/bench-cli" "$TRANSCRIPT" "$E2E_BYTES")" >>"$RESULTS"
  done
  if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
    echo "round=$round $("$VENV/bin/python" bench/py/sdk_e2e.py "$BIN/bench-cli" "$TRANSCRIPT" "$E2E_BYTES")" >>"$RESULTS"
  fi
done

say "decode ratios (interleaved rounds, core only)"
"$BIN/bench-decode" 15 >>"$RESULTS"

say "typed model against Value, per class, both key orders"
"$BIN/bench-typed" 15 >"$WORK/typed.md"

say "memory: $STREAM_BYTES bytes through a slow consumer"
"$BIN/bench-mem" stream "$BIN/bench-cli" "$TRANSCRIPT" "$STREAM_BYTES" >>"$RESULTS"
say "memory: one 100 MB line, 1 MiB limit"
"$BIN/bench-mem" huge-line "$BIN/bench-cli" "$TRANSCRIPT" 100000000 >>"$RESULTS"
say "memory: 1000 idle sessions"
"$BIN/bench-mem" idle 1000 >>"$RESULTS"

# Tables. (python3 for the arithmetic only; any 3.x will do.)
"${PYTHON:-python3}" - "$RESULTS" <<'PY'
import statistics, sys
rows = [dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        for line in open(sys.argv[1]) if "=" in line]
e2e = {}
for r in rows:
    if "adapter" in r and "msgs_per_s" in r:
        e2e.setdefault(r["adapter"], []).append(r)
med = lambda rs, k: statistics.median(float(x[k]) for x in rs)
print("\n### End to end (median of %d interleaved rounds)\n" % max(len(v) for v in e2e.values()))
py = med(e2e["python-sdk"], "msgs_per_s") if "python-sdk" in e2e else None
print("| reader | messages/s | MB/s | peak RSS | × Python SDK |")
print("|---|---:|---:|---:|---:|")
for name, rs in e2e.items():
    m = med(rs, "msgs_per_s")
    ratio = "%.1f×" % (m / py) if py else "n/a"
    print("| %s | %s | %.0f | %.1f MiB | %s |" % (name, f"{m:,.0f}", med(rs, "mb_per_s"),
          med(rs, "peak_rss") / 2**20, ratio))
print("\n(%s messages, %s bytes per run)" % (e2e["floor"][0]["messages"], e2e["floor"][0]["bytes"]))
dec = [r for r in rows if "decoder" in r]
if dec:
    print("\n### Core decode (64 KiB chunks, median of interleaved rounds)\n")
    print("| decoder | MB/s | messages/s |")
    print("|---|---:|---:|")
    for r in dec:
        print("| %s | %s | %s |" % (r["decoder"], r["mb_per_s"], f"{float(r['msgs_per_s']):,.0f}"))
    rat = next(r for r in rows if "session/Value" in r)
    print("\nsession / Value: %s×; session / IgnoredAny floor: %s; session+parse / Value: %s×"
          % (rat["session/Value"], rat["session/floor"], rat["typed/Value"]))
print("\n### Memory\n")
print("| figure | result |")
print("|---|---|")
for r in rows:
    f = r.get("figure")
    if f == "stream":
        print("| %s bytes (%s messages) through the tokio adapter, slow consumer | peak RSS %s MiB (%s MiB before start); RSS each tenth: %s MiB |"
              % (f"{int(r['bytes']):,}", f"{int(r['messages']):,}", r["peak_rss_mib"], r["base_rss_mib"], r["samples_mib"].replace(",", ", ")))
    elif f == "huge_line":
        print("| one %s-byte line, %s-byte limit | peak RSS +%s MiB (%s → %s MiB), reported %s time(s), %s messages after it |"
              % (f"{int(r['line_bytes']):,}", f"{int(r['limit_bytes']):,}", r["delta_mib"], r["peak_without_mib"], r["peak_with_mib"], r["too_long_reported"], r["messages"]))
    elif f == "idle":
        print("| %s idle tokio sessions (in-memory pipes) | %s KiB per session |" % (r["sessions"], r["per_session_kib"]))
    elif f == "idle_core":
        print("| %s idle core `Session`s | %s KiB per session |" % (r["sessions"], r["per_session_kib"]))
PY

printf '\n### Typed model against `Value` (`bench-typed 15`)\n\n'
cat "$WORK/typed.md"

if [[ "${SKIP_STRESS:-0}" != 1 ]]; then
  bench/stress.sh
fi
