#!/usr/bin/env python3
"""Builds fuzzing corpora from the recorded CLI transcripts.

Reads crates/claude-proto/tests/fixtures/*.ndjson (each line
{"dir":"in"|"out","line":"<NDJSON line>"}; "in" is the CLI's stdout) and
writes one file per input under fuzz/corpus/<target>/ (git-ignored):

- framing:   transcript "in" lines, whole and in windows of a few lines,
             behind the target's two header bytes (limit selector, chunk
             lengths);
- roundtrip: one line per file behind a type-selector byte: stdout lines
             (StdoutMessage), control_request bodies from the CLI
             (CliRequest) and to it (ControlRequest / InitializeRequest),
             hook inputs, user messages written by the SDK, permission
             results and hook outputs from answers;
- session:   nothing to extract (its input is a structured op list read by
             `arbitrary`); it starts from fuzz/seeds/session.

With --seeds it writes a small capped set to fuzz/seeds/ instead (what is
committed). Standard library only.
"""
import argparse
import glob
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(ROOT, "..", "crates", "claude-proto", "tests", "fixtures")

# Must match the selectors in fuzz_targets/roundtrip.rs.
STDOUT, CLI_REQUEST, CONTROL_REQUEST, USER, PERMISSION, HOOK_OUTPUT, HOOK_INPUT, INIT = range(8)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def transcripts():
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.ndjson"))):
        with open(path, encoding="utf-8") as f:
            yield os.path.basename(path), [json.loads(l) for l in f if l.strip()]


def roundtrip_inputs(records):
    for rec in records:
        line = rec["line"].encode()
        try:
            v = json.loads(rec["line"])
        except ValueError:
            continue
        if not isinstance(v, dict):
            continue
        ty = v.get("type")
        if rec["dir"] == "in":
            yield bytes([STDOUT]) + line
            if ty == "control_request" and isinstance(v.get("request"), dict):
                req = v["request"]
                yield bytes([CLI_REQUEST]) + compact(req)
                if isinstance(req.get("input"), dict) and "hook_event_name" in req["input"]:
                    yield bytes([HOOK_INPUT]) + compact(req["input"])
        else:
            if ty == "user":
                yield bytes([USER]) + line
            elif ty == "control_request" and isinstance(v.get("request"), dict):
                req = v["request"]
                yield bytes([CONTROL_REQUEST]) + compact(req)
                if req.get("subtype") == "initialize":
                    body = {k: x for k, x in req.items() if k != "subtype"}
                    yield bytes([INIT]) + compact(body)
            elif ty == "control_response":
                payload = (v.get("response") or {}).get("response")
                if isinstance(payload, dict):
                    kind = PERMISSION if "behavior" in payload else HOOK_OUTPUT
                    yield bytes([kind]) + compact(payload)


def framing_inputs(records, window):
    lines = [r["line"].encode() for r in records if r["dir"] == "in"]
    # Header: limit selector 0 (1024 bytes), three chunk lengths.
    header = bytes([0, 3, 7, 64, 200])
    for i in range(0, len(lines), window):
        yield header + b"\n".join(lines[i : i + window]) + b"\n"
    # The whole transcript, unchunked, with the largest limit.
    yield bytes([3, 0]) + b"\n".join(lines) + b"\n"


def write(dirname, data):
    os.makedirs(dirname, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(dirname, name), "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", action="store_true", help="write the small committed set to fuzz/seeds")
    args = ap.parse_args()
    out = os.path.join(ROOT, "seeds" if args.seeds else "corpus")
    max_len = 2048 if args.seeds else 1 << 20
    counts = {"framing": 0, "roundtrip": 0}
    seen_types = {}
    for _name, records in transcripts():
        for data in framing_inputs(records, window=3 if args.seeds else 8):
            if len(data) <= (4096 if args.seeds else max_len):
                if args.seeds and counts["framing"] >= 12:
                    break
                write(os.path.join(out, "framing"), data)
                counts["framing"] += 1
        for data in roundtrip_inputs(records):
            if len(data) > max_len:
                continue
            if args.seeds:
                # One example per (selector, type, subtype, hook event).
                try:
                    v = json.loads(data[1:])
                except ValueError:
                    continue
                key = (data[0], v.get("type"), v.get("subtype"), v.get("hook_event_name"))
                if seen_types.get(key, 0) >= 1:
                    continue
                seen_types[key] = seen_types.get(key, 0) + 1
            write(os.path.join(out, "roundtrip"), data)
            counts["roundtrip"] += 1
    for target, n in counts.items():
        print(f"{target}: {n} inputs in {os.path.relpath(os.path.join(out, target), os.path.join(ROOT, '..'))}")


if __name__ == "__main__":
    main()
