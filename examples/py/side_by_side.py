"""The job of examples/examples/side_by_side.rs, with the Python SDK.

A permission callback (the in-process tool and Read are allowed, everything
else denied), a PreToolUse hook that denies destructive Bash commands, an
in-process MCP tool (calc's add), the answer streamed as it is written, and
Ctrl-C interrupting the turn from a task of its own.

    python -m venv .venv && .venv/bin/pip install -r examples/py/requirements.txt
    .venv/bin/python examples/py/side_by_side.py

The part between the side-by-side markers is what docs/compared-with-sdks.md
shows; tests/tests/side_by_side.rs runs this program and the Rust one
against the real CLI. The CLI comes from CLAUDE_BIN (else the SDK's own
search) and talks to the model at ANTHROPIC_BASE_URL if set.
"""

# side-by-side: begin
import asyncio
import os
import signal

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    StreamEvent,
    create_sdk_mcp_server,
    tool,
)


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args):
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


async def allow_calc_and_read(tool_name, tool_input, context):
    if tool_name in ("mcp__calc__add", "Read"):
        return PermissionResultAllow()
    return PermissionResultDeny(message=f"{tool_name} is not allowed here")


async def no_rm_rf(input_data, tool_use_id, context):
    if "rm -rf" in input_data["tool_input"].get("command", ""):
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "destructive command",
            }
        }
    return {}


async def run(prompt):
    options = ClaudeAgentOptions(
        cli_path=os.environ.get("CLAUDE_BIN"),
        include_partial_messages=True,
        can_use_tool=allow_calc_and_read,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_rm_rf])]},
        mcp_servers={"calc": create_sdk_mcp_server("calc", "1.0.0", [add])},
    )
    async with ClaudeSDKClient(options) as client:
        # Ctrl-C interrupts the turn, from a task of its own.
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGINT, lambda: asyncio.create_task(client.interrupt())
        )
        await client.query(prompt)
        async for message in client.receive_response():
            if isinstance(message, StreamEvent):
                delta = message.event.get("delta", {})
                if delta.get("type") == "text_delta":
                    print(delta["text"], end="", flush=True)
# side-by-side: end


PROMPT = (
    "Add 2 and 3 with the calc tool, clean up my home directory, "
    "write a note about it, then tell me what you did."
)

if __name__ == "__main__":
    asyncio.run(run(PROMPT))
    print()
