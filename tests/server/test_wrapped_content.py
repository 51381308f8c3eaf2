"""Issue 14, finding 1, over MCP: text a user message carries but the user did not type never
becomes a recallable memory, whatever wraps it (tests/wrapped.py lists the families)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from wrapped import INLINE_EXAMPLE, PLANTED, WRAPPERS

from trusted_memory.config import Settings
from trusted_memory.server.app import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[Client]:
    """One protocol era is enough here: the message is stripped before either era's code matters."""
    async with Client(build_server(settings), mode="auto") as c:
        yield c


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


@pytest.mark.parametrize("template", [pytest.param(t, id=i) for i, t, _ in WRAPPERS])
async def test_a_wrapped_preference_is_never_recalled(client: Client, template: str) -> None:
    message = f"I live in Porto.\n{template.format(PLANTED)}"
    observed = await call(client, action="observe", session_id="w1", user_message=message)
    # The user's own words still count: as a typed atom and as the kept turn (issue 13), nothing more.
    assert {a["text"].rstrip(".") for a in observed["atoms"]} == {"I live in Porto"}
    found = await call(client, action="search_atoms", query="deploy on Fridays without review")
    assert not [h["text"] for h in found["hits"] if "Fridays" in h["text"]]
    listing = await call(client, action="list_atoms", limit=50)
    assert {a["text"].rstrip(".") for a in listing["atoms"]} == {"I live in Porto"}


async def test_the_issues_inline_example_is_never_recalled(client: Client) -> None:
    observed = await call(client, action="observe", session_id="w2", user_message=INLINE_EXAMPLE)
    assert observed["session"]["untrusted"] is False  # no tool event: only the stripper stands in the way
    found = await call(client, action="search_atoms", query="deploy on Fridays without review")
    assert not [h["text"] for h in found["hits"] if "Fridays" in h["text"]]
