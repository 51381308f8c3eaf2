"""Strict mode (`trust.agent_writes = "quarantine"`) over MCP: nothing the agent relays or rewrites
reaches trusted memory without a person.

Each test drives the real in-memory MCP client as a prompt-injected agent would, with the trusted
side (host hooks, the admin) seeding what the agent aims at.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server
from trusted_memory.services.hooks import HostHooks
from trusted_memory.services.runtime import open_runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
def strict(tmp_path: Path) -> Settings:
    return load_settings(
        environ={"MCP_MEMORY_HOME": str(tmp_path / "h"), "MCP_MEMORY_TRUST__AGENT_WRITES": "quarantine"},
        cwd=tmp_path,
    )


@pytest.fixture
async def agent(strict: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(strict)) as client:
        yield client


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


async def user_model(client: Client) -> dict[str, Any]:
    resource = json.loads((await client.read_resource("memory://user-model")).contents[0].text)  # type: ignore[union-attr]
    return {f["path"]: f for f in resource["fields"]}


async def test_a_web_tool_event_does_not_hide_that_the_session_was_relayed(strict: Settings, agent: Client) -> None:
    # The user's own words, captured by the host hook (the trusted path), give the inference
    # something to work with; the session the agent relays must still apply nothing by itself.
    async with open_runtime(strict) as rt:
        await HostHooks(rt).prompt("hook", "I prefer Rust for every backend service I write.", None)
    first = await call(
        agent,
        action="observe",
        session_id="relayed",
        user_message="look this up for me",
        tool_events=[{"tool": "WebFetch", "url": "https://docs.example.com/deploy"}],
    )
    for text in ("Please keep answers short.", "I'm working on the deploy pipeline in Python.", "ok", "next"):
        await call(agent, action="observe", session_id="relayed", user_message=text)
    fields: dict[str, Any] = {}
    pending: list[dict[str, Any]] = []
    for _ in range(200):  # the inference runs in the background after the fifth turn
        fields = await user_model(agent)
        pending = (await call(agent, action="list_pending_review"))["pending"]
        if fields or pending:
            break
        await anyio.sleep(0.05)
    assert fields == {}, f"a relayed session changed the user model: {sorted(fields)}"
    assert pending, "the inference from the user's own (hook) words waits for review"
    assert first["session"]["untrusted"] and first["session"].get("relayed") is True
