"""A person's `stats` count their own events, over the real in-memory MCP client (issue 17, migration 20).

Events name their owner when they are written, so what Bob did stays counted as his after the
record it was about is gone, and nothing Bob does moves Alice's figures.
"""

from __future__ import annotations

import pytest

from trusted_memory.config import Settings
from trusted_memory.services.admin.people import PeopleAdmin
from trusted_memory.services.runtime import open_runtime

from .test_team_stats import memory, person, stats

pytestmark = pytest.mark.anyio


async def test_a_forgotten_atoms_events_still_count_for_its_owner_alone(settings: Settings) -> None:
    async with open_runtime(settings) as rt:
        people = PeopleAdmin(rt.store)
        await people.add("alice")
        await people.add("bob")
    # One client at a time: a client's requests act for the person its context names when it calls.
    async with person(settings, "alice") as alice:
        await memory(alice, action="add_atom", content="Alice books the atlas rooms on Mondays", source="user_said")
        alice_before = await stats(alice)
    async with person(settings, "bob") as bob:
        start = await stats(bob)
        added = await memory(bob, action="add_atom", content="Bob keeps the demo keys in locker 14", source="user_said")
        with_atom = await stats(bob)
        await memory(bob, action="forget_atom", id=added["atom"]["id"])
        forgotten = await stats(bob)
    async with person(settings, "alice") as alice:
        alice_after = await stats(alice)
    assert with_atom["events"] == start["events"] + 1  # atom_added
    assert forgotten["events"] == with_atom["events"] + 1  # atom_forgotten; atom_added still counts
    assert alice_after["events"] == alice_before["events"]
