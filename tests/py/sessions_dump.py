"""Prints, as one JSON document, what the Python SDK reads from a config
directory: every session of a project (list_sessions), each session's
info, messages, subagents and their messages, and the listing across all
projects. tests/tests/sessions_side_by_side.rs diffs it against ours.

usage: CLAUDE_CONFIG_DIR=... sessions_dump.py PROJECT_DIR
"""

import dataclasses
import json
import sys

from claude_agent_sdk import (
    get_session_info,
    get_session_messages,
    get_subagent_messages,
    list_sessions,
    list_subagents,
)


def plain(value):
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value


def main():
    directory = sys.argv[1]
    listed = list_sessions(directory=directory, include_worktrees=False)
    sessions = {}
    for info in listed:
        sid = info.session_id
        agents = list_subagents(sid, directory=directory)
        sessions[sid] = {
            "info": plain(get_session_info(sid, directory=directory)),
            "messages": [plain(m) for m in get_session_messages(sid, directory=directory)],
            "page": [plain(m) for m in get_session_messages(sid, directory=directory, limit=2, offset=1)],
            "subagents": {
                a: [plain(m) for m in get_subagent_messages(sid, a, directory=directory)]
                for a in agents
            },
        }
    out = {
        "list": [plain(i) for i in listed],
        "list_all": [plain(i) for i in list_sessions()],
        "page": [plain(i) for i in list_sessions(directory=directory, limit=2, offset=1, include_worktrees=False)],
        "sessions": sessions,
    }
    json.dump(out, sys.stdout, sort_keys=True, ensure_ascii=False)


if __name__ == "__main__":
    main()
