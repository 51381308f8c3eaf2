"""Drive trusted-memory from Python: start the server over stdio, store two memories, search them.

Usage: python clients/python/memory_client.py [--home DIR]

The `trusted-memory` command must be on PATH (`pip install trusted-memory`). Without --home the
script uses $MCP_MEMORY_HOME or ~/.mcp-memory, the store every host shares, so it writes two
demo memories there; pass --home /tmp/memory-demo to try it on a scratch store.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

FACT = "Prefers tabs over spaces when writing Python"
ATOM = "Decided to use SQLite with WAL mode for the Python billing service"
QUERY = "which database does the Python service use"


async def call(client: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call the `memory` tool; fail loudly on a tool error."""
    result = await client.call_tool("memory", arguments)
    if result.is_error:
        text = "".join(getattr(c, "text", "") for c in result.content)
        raise SystemExit(f"memory {arguments['action']} failed: {text}")
    return result.structured_content or {}


async def main(home: Path) -> None:
    params = StdioServerParameters(
        command="trusted-memory",
        args=[],
        # The server process inherits almost nothing: pass the store folder and PATH explicitly.
        env={"MCP_MEMORY_HOME": str(home), "PATH": os.environ.get("PATH", "")},
    )
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            actions = tool.input_schema["properties"]["action"]["enum"]
            print(f"tool: {tool.name} ({len(actions)} actions: {', '.join(actions)})")

        fact = await call(client, {"action": "add", "target": "user", "content": FACT})
        print(f"add fact: {fact['status']}: {fact['message']}")

        atom = await call(client, {"action": "add_atom", "content": ATOM, "source": "user_said"})
        print(f"add atom: {atom['status']}: {atom['message']}")

        found = await call(client, {"action": "search", "query": QUERY})
        print(f"search {QUERY!r}: {found['message']}")
        for hit in found.get("hits", []):
            print(f"  - [{hit['kind']}] {hit['text']}  (score {hit['score']:.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_home = os.environ.get("MCP_MEMORY_HOME", "~/.mcp-memory")
    parser.add_argument("--home", default=default_home, help=f"store folder (default {default_home})")
    home = Path(parser.parse_args().home).expanduser().resolve()
    if shutil.which("trusted-memory") is None:
        sys.exit("trusted-memory is not on PATH; install it with `pip install trusted-memory` (or activate its venv).")
    print(f"store: {home}")
    asyncio.run(main(home))
