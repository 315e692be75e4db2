#!/usr/bin/env bash
# End to end, two builds side by side: the same transcript through every
# adapter of build A and of build B (and the Python SDK), interleaved
# round by round so machine noise hits both alike. For before/after
# figures of a change:
#
#   git worktree add /tmp/before <rev>
#   (cd /tmp/before && CARGO_TARGET_DIR=/tmp/before-target cargo build --release -p claude-proto-bench --bins)
#   cargo build --release -p claude-proto-bench --bins
#   bench/ab.sh /tmp/before-target/release target/release
#
# Environment: ROUNDS (default 5), E2E_BYTES (default 100000000),
# BENCH_VENV (the Python SDK's virtualenv; SKIP_PYTHON=1 leaves it out).
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:?usage: bench/ab.sh BIN_DIR_A BIN_DIR_B}
B=${2:?usage: bench/ab.sh BIN_DIR_A BIN_DIR_B}
ROUNDS=${ROUNDS:-5}
E2E_BYTES=${E2E_BYTES:-100000000}
VENV=${BENCH_VENV:-target/bench-venv}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$B/gen-transcript" "$WORK/t.ndjson" 2>/dev/null
RESULTS=$WORK/results.txt
ADAPTERS=(tokio blocking async-std smol smol-global)
for round in $(seq 1 "$ROUNDS"); do
  printf '==> round %s/%s\n' "$round" "$ROUNDS" >&2
  for adapter in "${ADAPTERS[@]}"; do
    for side in A B; do
      bin=$A; [[ $side == B ]] && bin=$B
      echo "side=$side $("$bin/bench-e2e" "$adapter" "$B/bench-cli" "$WORK/t.ndjson" "$E2E_BYTES")" >>"$RESULTS"
    done
  done
  if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
    echo "side=py $("$VENV/bin/python" bench/py/sdk_e2e.py "$B/bench-cli" "$WORK/t.ndjson" "$E2E_BYTES")" >>"$RESULTS"
  fi
done
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    key = ("python-sdk", "") if kv["side"] == "py" else (kv["adapter"], kv["side"])
    rows.setdefault(key, []).append((float(kv["msgs_per_s"]), int(kv["peak_rss"])))
py = statistics.median(r[0] for r in rows.get(("python-sdk", ""), [(float("nan"), 0)]))
print("| adapter | A msg/s | A peak RSS | A × SDK | B msg/s | B peak RSS | B × SDK | B / A |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for adapter in ["tokio", "blocking", "async-std", "smol", "smol-global"]:
    a, b = rows[(adapter, "A")], rows[(adapter, "B")]
    ma, mb = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
    ra, rb = statistics.median(x[1] for x in a) / 2**20, statistics.median(x[1] for x in b) / 2**20
    print(f"| {adapter} | {ma:,.0f} | {ra:.1f} MiB | {ma/py:.1f}× | {mb:,.0f} | {rb:.1f} MiB | {mb/py:.1f}× | {mb/ma:.2f} |")
print(f"\npython-sdk median: {py:,.0f} msg/s over {len(rows.get(('python-sdk', ''), []))} rounds")
PY
