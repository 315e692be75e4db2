"""The Python SDK's side of the session benchmarks: lists every session of
a project, or reads one session's messages, and prints the time taken and
how many came back. Peak RSS is measured around the process by the
caller (bench/sessions.sh).

usage: sessions_bench.py list PROJECT_DIR | read SESSION_ID PROJECT_DIR
(CLAUDE_CONFIG_DIR must point at the generated config directory)
"""

import sys
import time

from claude_agent_sdk import get_session_messages, list_sessions


def main():
    what = sys.argv[1]
    start = time.perf_counter()
    if what == "list":
        n = len(list_sessions(directory=sys.argv[2], include_worktrees=False))
    else:
        n = len(get_session_messages(sys.argv[2], directory=sys.argv[3]))
    print(f"python {what}: {n} items in {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
