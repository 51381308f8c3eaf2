"""Two people of a team's store whose hosts pick the same session id, through the real in-memory MCP
client (each request carries its person as test_team_stats.py's clients do): each gets a session,
buffer, notes, transcript and episode of their own, and nothing of one reaches the other. Before
migration 21 the second person's `observe` was refused with an error saying the id was another
person's, which told them it existed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from trusted_memory.config import Settings
from trusted_memory.services.admin.people import PeopleAdmin
from trusted_memory.services.runtime import open_runtime

from .test_team_stats import person

pytestmark = pytest.mark.anyio

ALICE_TURNS = (
    ("We decided the offsite is in Lisbon in May.", "I booked the venue in Lisbon."),
    ("Alice's budget for the offsite is 40k euros.", "I noted the 40k budget."),
    ("Let's send the Lisbon invitations on Friday.", "I drafted the invitations."),
)
BOB_TURNS = (
    ("I am rewriting the parser in Rust this week.", "I set up the Rust crate for the parser."),
    ("We decided to keep the old parser behind a flag.", "I added the parser flag."),
    ("Next the benchmarks for the new parser.", "I wrote the parser benchmarks."),
)


# Which person a request comes from is the auth context at the call (the in-memory server handles it
# in the caller's context), so each call sets its client's person, as the bearer middleware would.
NAMES: dict[int, str] = {}


def _as(client: Client) -> Any:
    return auth_context_var.set(AuthenticatedUser(AccessToken(token="t", client_id=NAMES[id(client)], scopes=[])))


async def memory(client: Client, **arguments: Any) -> Any:
    reset = _as(client)
    try:
        result = await client.call_tool("memory", arguments)
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        return result.structured_content
    finally:
        auth_context_var.reset(reset)


async def _resource(client: Client, uri: str) -> Any:
    reset = _as(client)
    try:
        return json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
    finally:
        auth_context_var.reset(reset)


def _words(value: Any) -> str:
    return json.dumps(value).lower()


async def test_two_people_with_one_session_id_each_get_their_own(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        people = PeopleAdmin(rt.store)
        await people.add("alice")
        await people.add("bob")
    async with person(settings, "alice") as alice, person(settings, "bob") as bob:
        NAMES.update({id(alice): "alice", id(bob): "bob"})
        for (a_user, a_reply), (b_user, b_reply) in zip(ALICE_TURNS, BOB_TURNS, strict=True):
            mine = await memory(
                alice, action="observe", session_id="default", user_message=a_user, assistant_reply=a_reply
            )
            theirs = await memory(
                bob, action="observe", session_id="default", user_message=b_user, assistant_reply=b_reply
            )
            assert mine["session"]["turns"] == theirs["session"]["turns"]
        assert mine["session"]["turns"] == 3
        for client, own, other in ((alice, "lisbon", "parser"), (bob, "parser", "lisbon")):
            session = await _resource(client, "memory://sessions/default")
            assert len(session["buffer"]) == 6 and own in _words(session) and other not in _words(session)
            block = await memory(client, action="context", message="what did we decide?", session_id="default")
            assert other not in block["rendered"].lower()
        # Alice ends hers: Bob's stays open, and ending his gives him an episode of his own.
        ended = await memory(alice, action="end_session", session_id="default")
        assert ended["status"] == "ok" and "lisbon" in ended["episode"]["summary"].lower()
        assert (await _resource(bob, "memory://sessions/default"))["session"]["ended"] is False
        his = await memory(bob, action="end_session", session_id="default")
        assert his["status"] == "ok" and his["episode"]["id"] != ended["episode"]["id"]
        for client, episode, other in ((alice, ended, "parser"), (bob, his, "lisbon")):
            viewed = await memory(client, action="view", id="default")
            assert viewed["episode"]["id"] == episode["episode"]["id"] and other not in _words(viewed)
            listing = await _resource(client, "memory://episodes")
            assert [e["id"] for e in listing["episodes"]] == [episode["episode"]["id"]]
            found = await memory(client, action="search", query="what did we decide about the offsite and the parser?")
            assert other not in _words(found["hits"])
