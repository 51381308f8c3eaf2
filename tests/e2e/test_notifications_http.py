"""Resource subscriptions over streamable HTTP, both protocol eras: the installed server, the SDK client,
and a change made by another process (the admin CLI)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

from ._support import child_env, console_script, serve

pytestmark = pytest.mark.e2e


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_subscriptions_work_over_streamable_http(tmp_path: Path, mode: str) -> None:
    updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    admin = console_script("trusted-memory-admin")
    with serve(tmp_path, ["--transport", "http"], env={"MCP_MEMORY_SERVER__WATCH_INTERVAL_S": "0.2"}) as served:
        async with Client(f"{served.base}/mcp", mode=mode, message_handler=on_message) as client:

            async def change() -> None:
                proc = await asyncio.create_subprocess_exec(
                    str(admin),
                    "facts",
                    "add",
                    "user",
                    "I review pull requests in the morning",
                    env=child_env(tmp_path / "home"),
                    stdout=asyncio.subprocess.DEVNULL,
                )
                assert await proc.wait() == 0

            if mode == "legacy":
                await client.subscribe_resource("memory://facts/user")
                await change()
                assert await asyncio.wait_for(updates.get(), 20) == "memory://facts/user"
            else:
                async with client.listen(resource_subscriptions=("memory://facts/user",)) as sub:
                    await change()
                    event = await asyncio.wait_for(sub.__anext__(), 20)
                    assert getattr(event, "uri", None) == "memory://facts/user"
