"""Domain errors reach the client as what they are: a tool error tagged by kind, a resource error never "not found"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS
from postgres_cluster import store_env_for

from trusted_memory.config import load_settings
from trusted_memory.errors import (
    InvalidInput,
    MemoryServerError,
    NotFound,
    RateLimited,
    StoreBusy,
    StoreCorrupt,
    StoreError,
)
from trusted_memory.server.app import build_server
from trusted_memory.server.mcp_errors import TAG, mcp_error
from trusted_memory.services.agent import AgentService

pytestmark = pytest.mark.anyio


def kind_of(text: str) -> tuple[str, bool]:
    """The kind and retryable flag a client reads from a tool error's text."""
    found = TAG.match(text.removeprefix("Error executing tool memory: "))
    assert found, text
    return found["kind"], found["retryable"] is not None


async def test_a_rate_limit_and_bad_input_are_told_apart(tmp_path: Path) -> None:
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "2",
        },
        cwd=tmp_path,
    )
    async with Client(build_server(settings)) as client:
        texts: list[str] = []
        for i in range(4):
            result = await client.call_tool("memory", {"action": "add", "target": "env", "content": f"fact {i}"})
            if result.is_error:
                texts.append(result.content[0].text)  # type: ignore[union-attr]
        bad = await client.call_tool("memory", {"action": "add", "target": "user"})
    assert texts and "too many memory writes" in texts[0]
    assert kind_of(texts[0]) == ("rate_limited", True)
    assert bad.is_error and "content is required" in bad.content[0].text  # type: ignore[union-attr]
    assert kind_of(bad.content[0].text) == ("invalid_input", False)  # type: ignore[union-attr]


async def test_every_domain_error_of_a_tool_keeps_its_message_behind_its_kind(client: Client) -> None:
    unknown = await client.call_tool("memory", {"action": "view", "id": "f" * 32})
    assert kind_of(unknown.content[0].text) == ("not_found", False)  # type: ignore[union-attr]
    refused = await client.call_tool("memory", {"action": "promote_atom", "id": "abc123"})
    text = refused.content[0].text  # type: ignore[union-attr]
    assert kind_of(text) == ("trust_refused", False) and "trusted-memory-admin promote abc123" in text


@pytest.mark.parametrize(
    ("error", "kind", "retryable"),
    [
        # what store/db.py raises when another process holds the write lock past the timeout
        (
            StoreBusy("the memory store /x stayed busy (another process held the write lock); retry the call"),
            "store_busy",
            True,
        ),
        (StoreError("the memory store /x could not be written (disk I/O error)"), "store_failed", False),
        (StoreBusy("the memory store is not open yet; retry once the session is initialised"), "store_busy", True),
        (
            StoreCorrupt("the memory store /x is damaged (database disk image is malformed); restore a backup"),
            "store_damaged",
            False,
        ),
    ],
    ids=["stayed-busy", "store-error", "not-open", "damaged"],
)
async def test_a_resource_on_a_failing_store_is_not_reported_as_not_found(
    client: Client, monkeypatch: pytest.MonkeyPatch, error: MemoryServerError, kind: str, retryable: bool
) -> None:
    async def failing(*args: Any, **kwargs: Any) -> Any:
        raise error

    for method in ("view_atom", "view_episode", "session_notes", "stats"):
        monkeypatch.setattr(AgentService, method, failing)
    for uri in ("memory://atoms/" + "a" * 32, "memory://episodes/s1", "memory://sessions/s1", "memory://stats"):
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
        assert caught.value.code == INTERNAL_ERROR, uri
        assert caught.value.data == {"kind": kind, "retryable": retryable}, uri
        assert caught.value.message == error.message, uri


async def test_only_a_missing_thing_is_a_missing_resource(client: Client) -> None:
    with pytest.raises(MCPError) as missing:
        await client.read_resource("memory://sessions/never-seen")
    assert missing.value.code == INVALID_PARAMS and "kind" not in (missing.value.data or {})


async def test_a_prompt_error_keeps_its_message_and_kind(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    async def busy(*args: Any, **kwargs: Any) -> Any:
        raise StoreBusy("the memory store stayed busy; retry the call")

    monkeypatch.setattr(AgentService, "context", busy)
    with pytest.raises(MCPError) as caught:
        await client.get_prompt("memory_context", {"message": "anything"})
    assert caught.value.message == "the memory store stayed busy; retry the call"
    assert caught.value.data == {"kind": "store_busy", "retryable": True}


def test_the_mapping_is_by_kind_per_surface() -> None:
    limited = mcp_error(RateLimited("slow down"), "tool")
    assert isinstance(limited, ToolError) and str(limited) == "[rate_limited, retryable] slow down"
    assert str(mcp_error(InvalidInput("bad id"), "tool")) == "[invalid_input] bad id"
    assert isinstance(mcp_error(NotFound("no atom"), "resource"), ResourceNotFoundError)
    for surface in ("resource", "prompt"):
        bad = mcp_error(InvalidInput("bad id"), surface)
        assert isinstance(bad, MCPError) and bad.code == INVALID_PARAMS
        assert bad.data == {"kind": "invalid_input", "retryable": False}
    damaged = mcp_error(StoreCorrupt("damaged"), "resource")
    assert isinstance(damaged, MCPError) and damaged.code == INTERNAL_ERROR and damaged.message == "damaged"
