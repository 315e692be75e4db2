"""The job of examples/examples/side_by_side.rs, with the Python SDK.

A realistic agent: a permission callback that denies `sudo` and rewrites
what Write writes, a PreToolUse hook that denies destructive Bash commands,
an in-process MCP tool (calc's add), three streamed turns printing the text
as it streams, each tool call and its result, and each turn's own cost;
Ctrl-C interrupting a turn from a task of its own; a model and permission
mode switch between turns; the session resumed by a new CLI process; and a
one-shot question.

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
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args):
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


async def review(tool_name, tool_input, context):
    if tool_name == "Bash" and "sudo" in tool_input.get("command", ""):
        return PermissionResultDeny(message="no sudo here")
    if tool_name == "Write":
        reviewed = {**tool_input, "content": "[reviewed] " + tool_input["content"]}
        return PermissionResultAllow(updated_input=reviewed)
    return PermissionResultAllow()


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


async def turn(client, prompt, spent):
    await client.query(prompt)
    async for message in client.receive_response():
        if isinstance(message, StreamEvent):
            delta = message.event.get("delta", {})
            if delta.get("type") == "text_delta":
                print(delta["text"], end="", flush=True)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolUseBlock):
                    print(f"\n[tool] {block.name} {block.input}")
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    print(f"[result] {block.content} (error: {block.is_error})")
        elif isinstance(message, ResultMessage):
            print(f"\n[cost] ${message.total_cost_usd - spent:.4f}")
            return message


async def run(prompts):
    options = ClaudeAgentOptions(
        cli_path=os.environ.get("CLAUDE_BIN"),
        include_partial_messages=True,
        can_use_tool=review,
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_rm_rf])]},
        mcp_servers={"calc": create_sdk_mcp_server("calc", "1.0.0", [add])},
    )
    async with ClaudeSDKClient(options) as client:
        # Ctrl-C interrupts the turn, from a task of its own.
        asyncio.get_running_loop().add_signal_handler(
            signal.SIGINT, lambda: asyncio.create_task(client.interrupt())
        )
        result = await turn(client, prompts[0], 0)
        await client.set_model("claude-haiku-4-5")
        await client.set_permission_mode("acceptEdits")
        result = await turn(client, prompts[1], result.total_cost_usd)
        result = await turn(client, prompts[2], result.total_cost_usd)
    resumed = ClaudeAgentOptions(
        cli_path=os.environ.get("CLAUDE_BIN"),
        include_partial_messages=True,
        resume=result.session_id,
    )
    async with ClaudeSDKClient(resumed) as client:
        await turn(client, prompts[3], 0)
    one_shot = ClaudeAgentOptions(cli_path=os.environ.get("CLAUDE_BIN"))
    async for message in query(prompt=prompts[4], options=one_shot):
        if isinstance(message, ResultMessage):
            print(message.result)


# side-by-side: end


PROMPTS = [
    "Add 2 and 3 with the calc tool, clean up my home directory, "
    "reboot the machine, and write a note about it.",
    "Write another note.",
    "Tell me a long story.",
    "What did we do?",
    "What is 6 times 7?",
]

if __name__ == "__main__":
    asyncio.run(run(PROMPTS))
