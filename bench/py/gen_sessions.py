"""Writes a config directory of CLI-shaped session transcripts for the
session benchmarks: `projects/<key>/` with N small sessions (a few turns
each, titles and tags on some) and one large session of about M bytes
(turns with tool calls and big tool results). Deterministic (seed 7).

usage: gen_sessions.py CONFIG_DIR PROJECT_DIR [--sessions N] [--big-mb M]
"""

import argparse
import json
import os
import random
import re
import uuid


def sanitize(path):
    return re.sub(r"[^a-zA-Z0-9]", "-", path)


def iso(ms):
    s, ms = divmod(ms, 1000)
    import datetime

    t = datetime.datetime.fromtimestamp(s, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}Z"


class Writer:
    def __init__(self, rng, session_id, cwd, start_ms):
        self.rng = rng
        self.session_id = session_id
        self.cwd = cwd
        self.t = start_ms
        self.parent = None
        self.lines = []

    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def entry(self, kind, message, **extra):
        self.t += self.rng.randint(200, 4000)
        u = self.uid()
        e = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.330",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": u,
            "timestamp": iso(self.t),
        }
        e.update(extra)
        self.parent = u
        self.lines.append(json.dumps(e, separators=(",", ":")))
        return u

    def turn(self, prompt, answer, tools=0, tool_bytes=0):
        self.entry("user", {"role": "user", "content": prompt})
        for i in range(tools):
            call = "toolu_" + self.uid().replace("-", "")[:24]
            mid = "msg_" + self.uid().replace("-", "")[:24]
            self.entry(
                "assistant",
                {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [
                        {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": f"/src/f{i}.rs"}}
                    ],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 10, "output_tokens": 20},
                },
                requestId="req_" + self.uid()[:20],
            )
            body = "".join(
                self.rng.choice("abcdefghij klmnop\n\t\"qrstu é") for _ in range(tool_bytes)
            )
            self.entry(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": body}]},
                toolUseResult={"type": "text"},
            )
        mid = "msg_" + self.uid().replace("-", "")[:24]
        self.entry(
            "assistant",
            {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": answer}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 20},
            },
        )

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("project")
    p.add_argument("--sessions", type=int, default=10000)
    p.add_argument("--big-mb", type=int, default=100)
    a = p.parse_args()
    rng = random.Random(7)
    cwd = os.path.realpath(a.project)
    pdir = os.path.join(a.config, "projects", sanitize(cwd))
    os.makedirs(pdir, exist_ok=True)
    base = 1_750_000_000_000
    for n in range(a.sessions):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        w = Writer(rng, sid, cwd, base + n * 60_000)
        for t in range(rng.randint(1, 4)):
            w.turn(f"Please look at issue {n}-{t} and fix it", f"Done with {n}-{t}.", tools=rng.randint(0, 2), tool_bytes=300)
        if n % 7 == 0:
            w.lines.append(json.dumps({"type": "custom-title", "customTitle": f"Session {n}", "sessionId": sid}, separators=(",", ":")))
        if n % 11 == 0:
            w.lines.append(json.dumps({"type": "tag", "tag": "review", "sessionId": sid}, separators=(",", ":")))
        path = os.path.join(pdir, sid + ".jsonl")
        w.write(path)
        mtime = (base + n * 60_000) / 1000
        os.utime(path, (mtime, mtime))
    if a.big_mb > 0:
        sid = "00000000-0000-4000-8000-000000000100"
        w = Writer(rng, sid, cwd, base)
        size = 0
        t = 0
        while size < a.big_mb * 1_000_000:
            w.turn(f"Step {t}: read the files", f"Read them ({t}).", tools=3, tool_bytes=20_000)
            size = sum(len(x) + 1 for x in w.lines)
            t += 1
        w.write(os.path.join(pdir, sid + ".jsonl"))
    print(pdir)


if __name__ == "__main__":
    main()
