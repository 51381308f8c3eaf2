"""Small limits an agent hits through MCP: each one answers with a way forward, never a dead end.

The protected share of the store cap, long `context` messages, and string arguments that happen to
look like JSON.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import backdoor
import pytest
from mcp import Client
from postgres_cluster import store_env_for

from trusted_memory.config import load_settings
from trusted_memory.server.app import build_server

pytestmark = pytest.mark.anyio


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


@pytest.fixture
async def small(tmp_path: Path) -> AsyncIterator[Client]:
    """A server over a 1 MB store."""
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_MAX_SIZE_MB": "1",
        },
        cwd=tmp_path,
    )
    async with Client(build_server(settings)) as client:
        yield client


async def test_agent_pins_and_critical_atoms_have_a_bounded_share_of_the_cap(small: Client) -> None:
    refusal = ""
    for i in range(400):  # on a 1 MB store, pinned atoms alone would fill the cap after about 600
        result = await small.call_tool(
            "memory",
            {
                "action": "add_atom",
                "content": f"Keep forever, item {i}: the release checklist step {i * 7} matters",
                "source": "user_said",
                "pinned": i % 2 == 0,
                "importance": "critical" if i % 2 else "high",
            },
        )
        if result.is_error:
            refusal = result.content[0].text  # type: ignore[union-attr]
            break
    assert "[capacity_exceeded" in refusal and "20%" in refusal and "unpinned" in refusal, refusal
    # Past the share, ordinary memories still land, and pinning one is refused the same way.
    plain = await call(small, action="add_atom", content="The staging database is called kestrel", source="user_said")
    assert plain["status"] == "added"
    pin = await small.call_tool("memory", {"action": "pin_atom", "id": plain["atom"]["id"]})
    assert pin.is_error and "20%" in pin.content[0].text  # type: ignore[union-attr]


async def test_quarantined_critical_atoms_are_evicted_like_any_quarantine(tmp_path: Path) -> None:
    # Anyone can declare `critical` on untrusted text; that must not make the text permanent.
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_MAX_SIZE_MB": "1",
        },
        cwd=tmp_path,
    )
    async with Client(build_server(settings)) as client:
        for i in range(260):  # about 1 MB of quarantined notes: past the cap
            page = " ".join(f"vendor plan {i}-{j} changed on day {(i * j) % 365}." for j in range(100))
            result = await call(
                client, action="add_atom", content=page, source="web", atom_type="note", importance="critical"
            )
            if i == 0:
                first = result["notice"].split()[-1]
    assert backdoor.query(settings.home, "SELECT count(*) FROM atoms WHERE id = ?", (first,)) == [(0,)]
    assert backdoor.query(settings.home, "SELECT count(*) FROM events WHERE kind = 'atom_evicted'")[0][0] > 0


async def test_context_takes_a_long_message_by_its_start_and_end(client: Client) -> None:
    await call(client, action="add_atom", content="I deploy the shop with terraform", source="user_said")
    await call(client, action="add_atom", content="Rollbacks go through the blue-green switch", source="user_said")
    pasted = "\n".join(f"2026-03-01T10:{i % 60:02d}:00 INFO worker {i} heartbeat ok" for i in range(120))
    message = f"How do I deploy the shop with terraform? Here is the log:\n{pasted}\nAnd how do rollbacks work?"
    assert len(message) > 4000
    block = await call(client, action="context", message=message, session_id="long")
    assert "terraform" in block["rendered"]


async def test_a_string_that_looks_like_json_stays_a_string(client: Client) -> None:
    for text in ('["x"]', '{"a": 1}', "[1, 2, 3]"):
        added = await call(client, action="add_atom", content=text, source="user_said", atom_type="note")
        assert added["atom"]["text"] == text
    observed = await call(client, action="observe", session_id="s", user_message='["keep", "this"]')
    assert observed["session"]["turns"] == 1
    # A real list where a string belongs is still refused, naming the action's parameters.
    wrong = await client.call_tool("memory", {"action": "add_atom", "content": ["x"], "source": "user_said"})
    assert wrong.is_error and "action=add_atom" in wrong.content[0].text  # type: ignore[union-attr]
