#!/usr/bin/env bash
# Sessions on disk against the official Python SDK: list a project's 10,001
# sessions (10,000 small ones and one of 100 MB), and read the 100 MB
# session's messages. Wall time and peak RSS of the whole process, measured
# around it with GNU time; prints a Markdown table.
#
#   bench/sessions.sh             # 6 rounds, the first a discarded warm-up (about 1 minute)
#   ROUNDS=9 bench/sessions.sh
#
# Each round runs every contender once, in turn (Python list, Rust list,
# Python read, Rust read), so noise from other jobs hits them alike; the
# table gives the median of the rounds after the first. The files are in the
# page cache after the warm-up: this measures parsing, not the disk.
#
# Environment:
#   CARGO_TARGET_DIR     where cargo builds (default: target/ at the repo root)
#   SESSIONS_DATA        the generated data (default: target/sessions-bench,
#                        made by bench/py/gen_sessions.py on first use, about
#                        35 s and 180 MB)
#   SIDE_BY_SIDE_PYTHON  a Python with the pinned SDK (default:
#                        target/side-by-side-venv/bin/python, created with
#                        examples/py/requirements.txt if missing)
#
# Needs GNU time at /usr/bin/time (the shell's `time` keyword has no peak
# RSS): on Debian, `apt-get install -y time`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

ROUNDS=${ROUNDS:-6}
(( ROUNDS >= 2 )) || { echo "ROUNDS must be at least 2 (the first is a warm-up)" >&2; exit 1; }
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
DATA=${SESSIONS_DATA:-$ROOT/target/sessions-bench}
BIG=00000000-0000-4000-8000-000000000100

say() { printf '==> %s\n' "$*" >&2; }

if [[ ! -x /usr/bin/time ]]; then
  echo "bench/sessions.sh needs GNU time at /usr/bin/time: apt-get install -y time" >&2
  exit 1
fi

PY=${SIDE_BY_SIDE_PYTHON:-$ROOT/target/side-by-side-venv/bin/python}
if [[ ! -x "$PY" ]]; then
  say "creating the Python SDK virtualenv in target/side-by-side-venv"
  python3 -m venv "$ROOT/target/side-by-side-venv"
  "$ROOT/target/side-by-side-venv/bin/pip" install --quiet --disable-pip-version-check \
    -r examples/py/requirements.txt
  PY=$ROOT/target/side-by-side-venv/bin/python
fi
say "claude-agent-sdk $("$PY" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)')"

# The data, once. The project key is the project's absolute path with every
# other character than [a-zA-Z0-9] made '-', as gen_sessions.py writes it.
PROJECT=$DATA/project
mkdir -p "$PROJECT"
PROJECT=$(cd "$PROJECT" && pwd -P)
KEY=$(printf '%s' "$PROJECT" | sed 's/[^a-zA-Z0-9]/-/g')
export CLAUDE_CONFIG_DIR=$DATA/config
if [[ ! -d "$CLAUDE_CONFIG_DIR/projects/$KEY" ]]; then
  say "generating 10,000 sessions and one of 100 MB in $DATA (about 35 s)"
  rm -rf "$DATA/config.tmp" "$CLAUDE_CONFIG_DIR"
  "$PY" bench/py/gen_sessions.py "$DATA/config.tmp" "$PROJECT" >/dev/null
  mv "$DATA/config.tmp" "$CLAUDE_CONFIG_DIR"
fi
say "data: $(find "$CLAUDE_CONFIG_DIR/projects/$KEY" -name '*.jsonl' | wc -l) transcripts," \
  "$(du -sh "$CLAUDE_CONFIG_DIR" | cut -f1)"

say "building (release)"
cargo build --release -p claude-proto-bench --bin bench-sessions --quiet
RUST=$TARGET/release/bench-sessions

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
RESULTS=$WORK/results.txt
: >"$RESULTS"

# One run: appends `round op lang count inproc_s wall_s rss_kb` to RESULTS.
run() {
  local round=$1 op=$2 lang=$3
  shift 3
  local out
  out=$(/usr/bin/time -o "$WORK/time" -f "%e %M" "$@")
  # "<lang> <op>: N items in X s"
  read -r _ _ count _ _ inproc _ <<<"$out"
  echo "$round $op $lang $count $inproc $(cat "$WORK/time")" >>"$RESULTS"
}

for round in $(seq 1 "$ROUNDS"); do
  say "round $round/$ROUNDS$([[ $round == 1 ]] && echo ' (warm-up, discarded)')"
  run "$round" list python "$PY" bench/py/sessions_bench.py list "$PROJECT"
  run "$round" list rust "$RUST" list "$PROJECT"
  run "$round" read python "$PY" bench/py/sessions_bench.py read "$BIG" "$PROJECT"
  run "$round" read rust "$RUST" read "$BIG" "$PROJECT"
done

# Both must have returned the same counts, every round.
for op in list read; do
  counts=$(awk -v op="$op" '$2 == op {print $4}' "$RESULTS" | sort -u)
  if [[ $(wc -l <<<"$counts") != 1 ]]; then
    echo "bench/sessions.sh: $op returned different item counts:" >&2
    awk -v op="$op" '$2 == op' "$RESULTS" >&2
    exit 1
  fi
done

# The median of column $4 (1-based, of RESULTS) for op $2 and lang $3, over
# the rounds after the first.
median() {
  awk -v op="$1" -v lang="$2" -v col="$3" '$1 > 1 && $2 == op && $3 == lang {print $col}' "$RESULTS" |
    sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

say "raw results (round op lang items in-process_s wall_s peak_rss_kb):"
cat "$RESULTS" >&2

echo
echo "Median of $((ROUNDS - 1)) runs after a warm-up; wall time and peak RSS of the whole process (GNU time)."
echo
echo "| operation | items | Python | Rust | speed-up | Python peak RSS | Rust peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for op in list read; do
  count=$(awk -v op="$op" '$2 == op {print $4; exit}' "$RESULTS")
  pw=$(median "$op" python 6) rw=$(median "$op" rust 6)
  pm=$(median "$op" python 7) rm=$(median "$op" rust 7)
  case $op in
    list) name="list a project's sessions (\`list_sessions\` / \`Sessions::list\`)" ;;
    read) name="read a 100 MB session (\`get_session_messages\` / \`Sessions::messages\`)" ;;
  esac
  awk -v n="$name" -v c="$count" -v pw="$pw" -v rw="$rw" -v pm="$pm" -v rm="$rm" 'BEGIN {
    printf "| %s | %d | %.2f s | %.2f s | %.1f× | %.1f MiB | %.1f MiB |\n",
      n, c, pw, rw, (rw > 0 ? pw / rw : 0), pm / 1024, rm / 1024 }'
done
echo
echo "The same runs, timed inside each process (the call alone: no interpreter start-up or imports):"
echo
echo "| operation | Python | Rust | speed-up |"
echo "|---|---:|---:|---:|"
for op in list read; do
  pi=$(median "$op" python 5) ri=$(median "$op" rust 5)
  awk -v n="$op" -v pi="$pi" -v ri="$ri" 'BEGIN {
    printf "| %s | %.2f s | %.2f s | %.1f× |\n", n, pi, ri, (ri > 0 ? pi / ri : 0) }'
done
