#!/usr/bin/env python3
"""Lines of .rs under each crate's src/: total, and code (non-blank, not a
comment: // /// //! lines and /* */ blocks dropped; string contents not
special-cased). Usage: loc.py CRATES_DIR crate..."""
import os, re, sys
root = sys.argv[1]
PUB = re.compile(r'^\s*pub\s+(?:(?:async|unsafe|const|extern(?:\s+"[^"]*")?)\s+)*(fn|struct|enum|trait|type|const|static|mod|union|use)\b')
MAC = re.compile(r'#\[macro_export\]')
print("| crate | files | total lines | code lines | pub items (fn/struct/enum/trait/type/const/static/mod/union + macro_export) | pub use |")
print("|---|---:|---:|---:|---:|---:|")
T = [0]*5
for c in sys.argv[2:]:
    files = total = code = pubs = uses = 0
    for d, _, fs in os.walk(os.path.join(root, c, "src")):
        for f in sorted(fs):
            if not f.endswith(".rs"): continue
            files += 1
            in_block = False
            for line in open(os.path.join(d, f), encoding="utf-8"):
                total += 1
                s = line.strip()
                if in_block:
                    if "*/" in s: in_block = False
                    continue
                if not s or s.startswith("//"): continue
                if s.startswith("/*"):
                    if "*/" not in s: in_block = True
                    continue
                code += 1
                m = PUB.match(line)
                if m:
                    if m.group(1) == "use": uses += 1
                    else: pubs += 1
                elif MAC.search(line): pubs += 1
    for i, v in enumerate((files, total, code, pubs, uses)): T[i] += v
    print(f"| {c} | {files} | {total} | {code} | {pubs} | {uses} |")
print(f"| **total** | {T[0]} | {T[1]} | {T[2]} | {T[3]} | {T[4]} |")
