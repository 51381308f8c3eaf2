"""observe / context / end_session / consolidate, the session resources and the prompt, over MCP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client, MCPError

pytestmark = pytest.mark.anyio


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


async def test_observe_then_search_and_context(client: Client) -> None:
    observed = await call(
        client,
        action="observe",
        session_id="t1",
        user_message="I prefer pytest over unittest and we deploy with Docker",
        assistant_reply="Noted: pytest and Docker.",
    )
    assert observed["session"]["turns"] == 1 and observed["session"]["untrusted"] is False
    assert {a["source_class"] for a in observed["atoms"]} == {"user_said"}
    found = await call(client, action="search_atoms", query="which test framework?")
    assert "pytest" in found["hits"][0]["text"]
    block = await call(
        client, action="context", message="which test framework do I use?", session_id="t1", budget_chars=1500
    )
    assert block["rendered"].startswith("<memory") and "pytest" in block["rendered"]
    assert len(block["rendered"]) <= 1500 and set(block["sections"]) >= {"facts", "atoms", "index"}


async def test_tool_events_mark_the_session_untrusted(client: Client) -> None:
    observed = await call(
        client,
        action="observe",
        session_id="t2",
        user_message="read this page for me",
        tool_events=[{"tool": "fetch", "kind": "network", "url": "https://example.com"}],
    )
    assert observed["session"]["untrusted"] is True and "untrusted" in observed["message"]
    bad = await client.call_tool(
        "memory",
        {
            "action": "observe",
            "session_id": "t2",
            "user_message": "x",
            "tool_events": [{"tool": "fetch", "secret": "y"}],
        },
    )
    assert bad.is_error and "tool_events" in bad.content[0].text  # type: ignore[union-attr]


async def test_end_session_episode_resources_and_prompt(client: Client) -> None:
    for user, reply in (
        ("I want to rename the atlas service to beacon.", "I renamed the package."),
        ("We decided to keep the old name as an alias for a month.", "I added the alias."),
        ("Let's announce the rename on Monday.", "I drafted the announcement."),
    ):
        await call(client, action="observe", session_id="t3", user_message=user, assistant_reply=reply)
    ended = await call(client, action="end_session", session_id="t3")
    assert ended["status"] == "ok" and ended["episode"]["status"] == "live"
    episode_id = ended["episode"]["id"]
    viewed = await call(client, action="view", id="t3")
    assert viewed["episode"]["id"] == episode_id
    found = await call(client, action="search", query="what did we decide about renaming atlas?")
    assert any(h["kind"] == "episode" and h["id"] == episode_id for h in found["hits"])
    listing = json.loads((await client.read_resource("memory://episodes")).contents[0].text)  # type: ignore[union-attr]
    assert [e["id"] for e in listing["episodes"]] == [episode_id]
    one = json.loads((await client.read_resource("memory://episodes/t3")).contents[0].text)  # type: ignore[union-attr]
    assert one["episode"]["session_id"] == "t3"
    session = json.loads((await client.read_resource("memory://sessions/t3")).contents[0].text)  # type: ignore[union-attr]
    assert session["session"]["ended"] is True and len(session["buffer"]) == 6
    with pytest.raises(MCPError):
        await client.read_resource("memory://sessions/never-seen")
    prompt = await client.get_prompt("memory_context", {"message": "when do we announce the beacon rename?"})
    assert "beacon" in prompt.messages[0].content.text  # type: ignore[union-attr]


async def test_short_session_is_skipped_and_gated_episode_promotion(client: Client) -> None:
    await call(client, action="observe", session_id="t4", user_message="hi there")
    ended = await call(client, action="end_session", session_id="t4")
    assert ended["status"] == "skipped" and "episode" not in ended
    refused = await client.call_tool("memory", {"action": "promote_episode", "id": "t4"})
    assert refused.is_error and "trusted-memory-admin episodes promote t4" in refused.content[0].text  # type: ignore[union-attr]


async def test_consolidate_action(client: Client) -> None:
    await call(client, action="add", target="env", content="The API runs on port 8080")
    await call(client, action="add", target="env", content="Staging deploys need a VPN")
    result = await call(client, action="consolidate", target="env")
    assert result["status"] == "unchanged" and "no redundant entries" in result["message"]


async def test_an_episode_is_never_attributed_to_the_user(client: Client) -> None:
    # The summary retells the assistant's claims too; labelled user_said, "the assistant fixed the
    # deploy script so it always deploys with --force" would read as the user's own statement.
    for user, reply in (
        ("The deploy script keeps failing on staging.", "I fixed the deploy script so it always deploys with --force."),
        ("We decided to run the deploy from CI only.", "I moved the deploy job into the CI pipeline."),
        ("Next we need to document the rollback steps.", "I drafted the rollback section of the runbook."),
    ):
        await call(client, action="observe", session_id="t5", user_message=user, assistant_reply=reply)
    ended = (await call(client, action="end_session", session_id="t5"))["episode"]
    assert ended["status"] == "live"
    found = await call(client, action="search", query="how do we deploy and roll back?")
    hits = [h for h in found["hits"] if h["kind"] == "episode"]
    listing = json.loads((await client.read_resource("memory://episodes")).contents[0].text)  # type: ignore[union-attr]
    labels = {
        "end_session": ended["source_class"],
        "view": (await call(client, action="view", id="t5"))["episode"]["source_class"],
        "memory://episodes": listing["episodes"][0]["source_class"],
        "search": hits[0]["source_class"] if hits else None,
    }
    assert labels == dict.fromkeys(labels, "session_summary"), labels
