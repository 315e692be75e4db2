"""The official Python SDK (claude-agent-sdk) reading the benchmark
transcript from bench-cli, counting the messages it yields.

    python sdk_e2e.py BENCH_CLI TRANSCRIPT [TOTAL_BYTES]

bench-cli repeats the transcript until it has written TOTAL_BYTES.

Prints one line of key=value pairs like bench-e2e: adapter, messages, bytes,
secs, msgs_per_s, mb_per_s, peak_rss.
"""

import asyncio
import os
import resource
import sys
import time

from claude_agent_sdk import ClaudeAgentOptions, query


async def run(cli: str, transcript: str, total: int) -> int:
    options = ClaudeAgentOptions(
        cli_path=cli,
        env={"BENCH_CLI_TRANSCRIPT": transcript, "BENCH_CLI_TOTAL_BYTES": str(total)},
        include_partial_messages=True,
        # Lines of tool output reach 200 KB; the default limit is 1 MB.
        max_buffer_size=64 * 1024 * 1024,
    )
    messages = 0
    async for _message in query(prompt="go", options=options):
        messages += 1
    return messages


def main() -> None:
    cli, transcript = sys.argv[1], sys.argv[2]
    size = max(os.path.getsize(transcript), 1)
    total = int(sys.argv[3]) if len(sys.argv) > 3 else size
    size *= -(-total // size)  # whole copies, as bench-cli writes them
    start = time.perf_counter()
    messages = asyncio.run(run(cli, transcript, size))
    secs = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        f"adapter=python-sdk messages={messages} bytes={size} secs={secs:.4f} "
        f"msgs_per_s={messages / secs:.0f} mb_per_s={size / secs / 1e6:.1f} peak_rss={peak}"
    )


if __name__ == "__main__":
    main()
