"""Resource subscriptions over both protocol eras: a subscriber hears when the facts, the user model
or the pending queue change, whichever process made the change (this server, another server, the
admin CLI), and list changes are not advertised because the lists never change."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server
from trusted_memory.server.notify import WATCHED
from trusted_memory.services.atoms import AtomsService
from trusted_memory.services.runtime import open_runtime

MODES = ["auto", "legacy"]
WAIT_S = 20.0  # generous on a loaded 2-core machine; the watcher checks every 0.1 s here
BIN = Path(sys.executable).parent


def fast_settings(home: Path, tmp_path: Path) -> Settings:
    return load_settings(
        environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home), "MCP_MEMORY_SERVER__WATCH_INTERVAL_S": "0.1"},
        cwd=tmp_path,
    )


class Watch:
    """The resource-updated notifications one client receives, however its era subscribes."""

    def __init__(self) -> None:
        self.updates: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            await self.updates.put(str(message.params.uri))

    async def next(self) -> str:
        return await asyncio.wait_for(self.updates.get(), WAIT_S)

    async def until(self, *uris: str) -> list[str]:
        """Updates in arrival order until every one of `uris` has arrived."""
        seen: list[str] = []
        while not set(uris) <= set(seen):
            seen.append(await self.next())
        return seen


@asynccontextmanager
async def subscribed(target: Any, mode: str, uris: tuple[str, ...]) -> AsyncIterator[tuple[Client, Watch]]:
    """A client subscribed to `uris`: `subscriptions/listen` at 2026-07-28, `resources/subscribe` before."""
    watch = Watch()
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(Client(target, mode=mode, message_handler=watch.on_message))
        if mode == "legacy":
            for uri in uris:
                await client.subscribe_resource(uri)
        else:
            sub = await stack.enter_async_context(client.listen(resource_subscriptions=uris))
            assert sub.honored.resource_subscriptions == list(uris)
        yield client, watch


async def add_fact(client: Client, target: str, content: str) -> None:
    result = await client.call_tool("memory", {"action": "add", "target": target, "content": content})
    assert not result.is_error, result.content


async def admin(home: Path, *args: str) -> str:
    """Run the installed admin CLI as its own process (without blocking this loop)."""
    script = BIN / "trusted-memory-admin"
    if not script.is_file():
        pytest.skip("trusted-memory-admin is not installed next to this interpreter")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home.parent),
        "MCP_MEMORY_HOME": str(home),
        **store_env_for(home),
        "LANG": "C.UTF-8",
    }
    proc = await asyncio.create_subprocess_exec(
        str(script), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    return out.decode()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_capabilities_advertise_subscriptions_and_no_list_changes(settings: Settings, mode: str) -> None:
    async with Client(build_server(settings), mode=mode) as client:
        caps = client.server_capabilities
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        assert caps is not None and caps.resources is not None and caps.tools is not None
        assert caps.resources.subscribe is True
        # The resource, tool and prompt lists are fixed: no list-changed notification would ever come.
        assert not caps.resources.list_changed and not caps.tools.list_changed
        assert caps.prompts is not None and not caps.prompts.list_changed


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_subscriber_hears_of_the_facts_it_watches_and_nothing_else(
    home: Path, tmp_path: Path, mode: str
) -> None:
    async with subscribed(build_server(fast_settings(home, tmp_path)), mode, ("memory://facts/env",)) as (c, watch):
        await add_fact(c, "user", "I use vim")  # a resource this client did not subscribe to
        atom = {"action": "add_atom", "content": "The build runs on Fridays", "source": "user_said"}
        assert not (await c.call_tool("memory", atom)).is_error  # no watched resource changes
        await add_fact(c, "env", "The repo uses pytest")
        assert await watch.next() == "memory://facts/env"  # the first and only update is the env one
        text = (await c.read_resource("memory://facts/env")).contents[0]
        assert "pytest" in getattr(text, "text", "")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_changes_by_the_admin_cli_and_other_connections_reach_a_subscriber(
    home: Path, tmp_path: Path, mode: str
) -> None:
    settings = fast_settings(home, tmp_path)
    async with subscribed(build_server(settings), mode, WATCHED) as (_, watch):
        await admin(home, "facts", "add", "user", "I prefer short answers")  # another process
        assert await watch.until("memory://facts/user") == ["memory://facts/user"]

        # Another connection to the same file (as another server process would hold) queues an inference.
        async with open_runtime(settings) as other:
            item = await AtomsService(other.store, other.settings).propose(
                "style.verbosity", "concise", evidence="said so twice", confidence=0.7
            )
        assert item is not None
        assert await watch.until("memory://pending") == ["memory://pending"]

        # A human confirms it with the admin CLI: the user model and the queue both change.
        await admin(home, "confirm", "--yes", item.id)
        assert set(await watch.until("memory://user-model", "memory://pending")) == {
            "memory://user-model",
            "memory://pending",
        }


@pytest.mark.anyio
@pytest.mark.postgres_only  # SQLite sends no signal: there the watcher checks every interval
async def test_on_postgres_a_commit_wakes_the_watcher_without_polling(home: Path, tmp_path: Path) -> None:
    # An hour between checks: a notification that arrives within seconds came from NOTIFY.
    settings = load_settings(
        environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home), "MCP_MEMORY_SERVER__WATCH_INTERVAL_S": "60"},
        cwd=tmp_path,
    )
    async with subscribed(build_server(settings), "auto", WATCHED) as (_, watch):
        await admin(home, "facts", "add", "user", "I prefer short answers")  # another process
        assert await watch.until("memory://facts/user") == ["memory://facts/user"]


@pytest.mark.anyio
async def test_legacy_subscribe_to_a_resource_that_never_notifies_is_refused(settings: Settings) -> None:
    async with Client(build_server(settings), mode="legacy") as client:
        with pytest.raises(MCPError, match=r"memory://stats does not send change notifications.*memory://pending"):
            await client.subscribe_resource("memory://stats")
        await client.subscribe_resource("memory://pending")
        await client.unsubscribe_resource("memory://pending")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_write_by_another_server_process_reaches_a_subscriber(home: Path, mode: str) -> None:
    """Two installed `trusted-memory` stdio servers on one store: B's write reaches A's subscriber."""
    script = BIN / "trusted-memory"
    if not script.is_file():
        pytest.skip("trusted-memory is not installed next to this interpreter")
    env = {"PATH": os.environ["PATH"], "HOME": str(home.parent), "MCP_MEMORY_HOME": str(home), **store_env_for(home)}
    params = StdioServerParameters(
        command=str(script), args=[], env={**env, "MCP_MEMORY_SERVER__WATCH_INTERVAL_S": "0.2"}
    )
    async with subscribed(params, mode, ("memory://facts/user",)) as (_, watch):
        async with Client(StdioServerParameters(command=str(script), args=[], env=env)) as other:
            await add_fact(other, "user", "My timezone is Europe/Berlin")
        assert await watch.next() == "memory://facts/user"
