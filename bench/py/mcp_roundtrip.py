"""The official Python SDK (claude-agent-sdk) serving the in-process MCP
server of bench-mcp (calc, one tool add) to bench-mcp-cli, which makes the
tool calls and times them from the CLI's side.

    python mcp_roundtrip.py BENCH_MCP_CLI

BENCH_MCP_CALLS and BENCH_MCP_WARMUP reach the stand-in through the
environment. Prints the turn's result text (the CLI's figures, one line of
JSON) with "variant": "python" added, like bench-mcp.
"""

import asyncio
import json
import sys

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ResultMessage,
    create_sdk_mcp_server,
    query,
)
from claude_agent_sdk import tool


@tool("add", "Adds two numbers and returns the sum.", {"a": float, "b": float})
async def add(args):
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


async def run(cli: str) -> str:
    calc = create_sdk_mcp_server("calc", "1.0.0", [add])
    options = ClaudeAgentOptions(cli_path=cli, mcp_servers={"calc": calc})
    text = None
    async for message in query(
        prompt="What is 2 + 3? Use the add tool of the calc server.", options=options
    ):
        if isinstance(message, ResultMessage):
            text = message.result
    if text is None:
        raise SystemExit("mcp_roundtrip.py: the turn has no result text")
    return text


def main() -> None:
    figures = json.loads(asyncio.run(run(sys.argv[1])))
    figures["variant"] = "python"
    print(json.dumps(figures, sort_keys=True, separators=(",", ":")))


if __name__ == "__main__":
    main()
