#!/usr/bin/env bash
# Round trip of one in-process MCP tool call, timed from the CLI's side
# (bench-mcp-cli), through each adapter of this crate and through the
# official Python SDK; prints a Markdown table.
#
#   bench/mcp.sh                          # 3 rounds of 2,000 calls after 200 warm-up
#   ROUNDS=5 BENCH_MCP_CALLS=5000 bench/mcp.sh
#
# Each round runs every contender once, in turn, so noise from other jobs
# hits them alike; the table gives the median over the rounds of each
# percentile, and the range.
#
# Environment:
#   CARGO_TARGET_DIR     where cargo builds (default: target/ at the repo root)
#   SIDE_BY_SIDE_PYTHON  a Python with the pinned SDK (default:
#                        target/side-by-side-venv/bin/python, created with
#                        examples/py/requirements.txt if missing)
#   BENCH_MCP_CALLS      timed calls per run (default 2000)
#   BENCH_MCP_WARMUP     untimed calls before them (default 200)
#   SKIP_PYTHON=1        leave the Python SDK out
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

ROUNDS=${ROUNDS:-3}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
export BENCH_MCP_CALLS=${BENCH_MCP_CALLS:-2000}
export BENCH_MCP_WARMUP=${BENCH_MCP_WARMUP:-200}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

say() { printf '==> %s\n' "$*" >&2; }

say "building (release)"
cargo build --release -p claude-proto-bench --bin bench-mcp --bin bench-mcp-cli --quiet

if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
  PY=${SIDE_BY_SIDE_PYTHON:-$ROOT/target/side-by-side-venv/bin/python}
  if [[ ! -x "$PY" ]]; then
    say "creating the Python SDK virtualenv in target/side-by-side-venv"
    python3 -m venv "$ROOT/target/side-by-side-venv"
    "$ROOT/target/side-by-side-venv/bin/pip" install --quiet --disable-pip-version-check \
      -r examples/py/requirements.txt
    PY=$ROOT/target/side-by-side-venv/bin/python
  fi
  say "claude-agent-sdk $("$PY" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)') on $("$PY" -c 'import platform; print(platform.python_version())')"
fi

RESULTS=$WORK/results.ndjson
VARIANTS=(tokio tokio-mt rmcp blocking)
for round in $(seq 1 "$ROUNDS"); do
  say "round $round/$ROUNDS ($BENCH_MCP_CALLS calls after $BENCH_MCP_WARMUP warm-up, each)"
  for variant in "${VARIANTS[@]}"; do
    timeout 300 "$BIN/bench-mcp" "$variant" "$BIN/bench-mcp-cli" >>"$RESULTS"
  done
  if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
    timeout 300 "$PY" bench/py/mcp_roundtrip.py "$BIN/bench-mcp-cli" >>"$RESULTS"
  fi
done

# The table. (python3 for the arithmetic only; any 3.x will do.)
"${PYTHON:-python3}" - "$RESULTS" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault(r["variant"], []).append(r)
names = {
    "tokio": "tokio, hand-written server (current-thread)",
    "tokio-mt": "tokio, hand-written server (2 workers)",
    "rmcp": "tokio + rmcp server (`RmcpEndpoint`)",
    "blocking": "blocking, hand-written server",
    "python": "Python SDK (`create_sdk_mcp_server`)",
}
med = lambda rs, k: statistics.median(r[k] for r in rs)
rng = lambda rs, k: "%.1f–%.1f" % (min(r[k] for r in rs), max(r[k] for r in rs))
py = runs.get("python")
first = next(iter(runs.values()))[0]
print("\n### In-process MCP tool call, CLI's write to answer read (µs; median of %d rounds, range in brackets)\n"
      % max(len(v) for v in runs.values()))
print("| SDK and server | p50 | p90 | p99 | max | calls over 1 ms | p50 vs Python | p99 vs Python |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, rs in runs.items():
    vs = lambda k: "%.1f×" % (med(py, k) / med(rs, k)) if py else "n/a"
    print("| %s | %.1f (%s) | %.1f | %.1f (%s) | %.1f | %s | %s | %s |" % (
        names.get(name, name), med(rs, "p50_us"), rng(rs, "p50_us"), med(rs, "p90_us"),
        med(rs, "p99_us"), rng(rs, "p99_us"), med(rs, "max_us"),
        "/".join(str(r["over_1ms"]) for r in rs), vs("p50_us"), vs("p99_us")))
print("\n(%d timed calls per run after %d warm-up; calls over 1 ms per round; \"vs Python\" is Python's figure over the row's)"
      % (first["calls"], first["warmup"]))
PY
