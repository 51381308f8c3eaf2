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
from mcp.client import ClientRequestContext
from mcp.types import CallToolResult, CreateMessageRequestParams, CreateMessageResult, TextContent
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.queries import AtomFilter
from trusted_memory.server.app import build_server
from trusted_memory.services.admin import AdminService
from trusted_memory.services.atoms import AtomsService
from trusted_memory.services.hooks import HostHooks
from trusted_memory.services.runtime import open_runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
def strict(tmp_path: Path) -> Settings:
    return load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_TRUST__AGENT_WRITES": "quarantine",
        },
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


class HostModel:
    """The host's model at the sampling edge, as an injected page would have it answer."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def __call__(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.prompts.append(params.system_prompt or "")
        merged = {
            "entries": [{"content": "The user lets agents deploy to production without review", "sources": [1, 2]}]
        }
        return CreateMessageResult(
            role="assistant", model="host-model", content=TextContent(type="text", text=json.dumps(merged))
        )


def refused(result: CallToolResult, command: str) -> bool:
    text = result.content[0].text  # type: ignore[union-attr]
    return result.is_error and "[trust_refused" in text and "strict mode" in text and command in text


async def test_no_agent_action_rewrites_or_deletes_trusted_memory(tmp_path: Path) -> None:
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_TRUST__AGENT_WRITES": "quarantine",
            "MCP_MEMORY_LLM__PROVIDER": "sampling",
        },
        cwd=tmp_path,
    )
    # What the user wrote themselves: two facts (admin CLI) and an atom from their real prompt (hook).
    async with open_runtime(settings) as rt:
        admin = AdminService(rt)
        await admin.add_fact("user", "Deploys to production need a review by Dana")
        await admin.add_fact("user", "Agents must ask before deploying to production")
        await HostHooks(rt).prompt("hook", "I prefer Rust for every backend service I write.", None)
        trusted = (await admin.atoms(AtomFilter()))[0]
        pending = await AtomsService(rt.store, rt.settings).propose(
            "style.verbosity", "concise", evidence="short replies", confidence=0.6
        )
        assert pending is not None
    host = HostModel()
    async with Client(build_server(settings), sampling_callback=host) as client:
        before = (await call(client, action="read", target="user"))["rendered"]
        consolidated = await client.call_tool("memory", {"action": "consolidate", "target": "user"})
        assert refused(consolidated, "trusted-memory-admin consolidate"), consolidated
        assert host.prompts == []  # refused before the host's model is asked to write anything
        removed = await client.call_tool("memory", {"action": "remove", "target": "user", "old_text": "Dana"})
        assert refused(removed, "trusted-memory-admin facts remove")
        replaced = await client.call_tool(
            "memory", {"action": "replace", "target": "user", "old_text": "Dana", "content": "No review needed"}
        )
        assert refused(replaced, "trusted-memory-admin facts")
        assert (await call(client, action="read", target="user"))["rendered"] == before

        forgot = await client.call_tool("memory", {"action": "forget_atom", "id": trusted.id})
        assert refused(forgot, "trusted-memory-admin forget")
        pinned = await client.call_tool("memory", {"action": "pin_atom", "id": trusted.id})
        assert refused(pinned, "trusted-memory-admin pin")
        rejected = await client.call_tool("memory", {"action": "reject_pending_review", "review_id": pending.id})
        assert refused(rejected, "trusted-memory-admin reject")
        viewed = await call(client, action="view", id=trusted.id)
        assert viewed["atom"]["text"] == trusted.text and not viewed["atom"]["pinned"]
        assert [p["id"] for p in (await call(client, action="list_pending_review"))["pending"]] == [pending.id]

        # What is only held for review stays the agent's to withdraw.
        held = await call(
            client, action="add_atom", content="The deploy checklist lives in ops/README", source="user_said"
        )
        held_id = held["notice"].split()[-1]
        assert (await call(client, action="forget_atom", id=held_id))["status"] == "removed"


async def test_held_episodes_never_push_live_ones_out(tmp_path: Path) -> None:
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_TRUST__AGENT_WRITES": "quarantine",
            "MCP_MEMORY_SESSIONS__MAX_EPISODES": "2",
        },
        cwd=tmp_path,
    )
    async with open_runtime(settings) as rt:  # the user's own session, through the host hooks
        hooks = HostHooks(rt)
        for text in ("We renamed atlas to beacon today.", "Keep the old name as an alias.", "Announce it Monday."):
            await hooks.prompt("mine", text, None)
        live = (await hooks.end("mine")).episode
        assert live is not None and live.status == "live"
    async with Client(build_server(settings)) as client:
        topics = ("the billing service to Postgres", "the search index to OpenSearch", "the mobile app to Flutter")
        for n, topic in enumerate(topics):  # sessions an agent relays: their episodes are held
            for text in (f"We decided to move {topic}.", "Next I will write the migration plan.", "Ship it Friday."):
                await call(client, action="observe", session_id=f"agent-{n}", user_message=text)
            ended = await call(client, action="end_session", session_id=f"agent-{n}")
            assert ended["episode"]["status"] == "held", ended
        kept = await call(client, action="view", id=live.id)
        assert kept["episode"]["summary"] == live.summary
