#!/usr/bin/env bash
# What the end-to-end tests run beside our code, each pinned:
# - the real Claude Code CLI (tests/peer): tests/tests/real_cli*.rs run it
#   offline against a loopback Messages API stand-in;
# - the TypeScript Agent SDK's declarations (tests/peer/sdk): the drift
#   test reads its sdk.d.ts and sdk-tools.d.ts, the CLI's wire types for
#   the CLI version pinned above. Declarations only: tests/peer/sdk/.npmrc
#   leaves out the SDK's platform packages (a second CLI binary) and its
#   peer dependencies;
# - the Python SDK in target/side-by-side-venv (examples/py/requirements.txt):
#   tests/tests/side_by_side.rs runs examples/py/side_by_side.py with it.
# With CI set, the tests that need one fail if it is missing.
#
# Usage: bash .ci/peers.sh   (then CLAUDE_BIN and SIDE_BY_SIDE_PYTHON, as
# .ci/run sets them)
set -euo pipefail
cd "$(dirname "$0")/.."

npm ci --prefix tests/peer --no-audit --no-fund
tests/peer/node_modules/.bin/claude --version
npm ci --prefix tests/peer/sdk --no-audit --no-fund
python3 -m venv target/side-by-side-venv
target/side-by-side-venv/bin/pip install --quiet --disable-pip-version-check -r examples/py/requirements.txt
target/side-by-side-venv/bin/python -c 'import claude_agent_sdk as sdk; print("claude-agent-sdk", sdk.__version__)'
