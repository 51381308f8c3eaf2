"""`--as NAME import` of a session whose id another person holds (issue 17, migration 21), through
the installed admin command, on either backend.

Bob brings the memory of his one-person store into the team's: its session is "default", the id
Alice's host uses too. It lands as Bob's own session, with its buffer, notes and episode, beside
Alice's, which stays as it was; before, it was skipped as already present (the counts showed it)
and so was its episode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trusted_memory.people import acting_as
from trusted_memory.services.agent import AgentService
from trusted_memory.services.people import PeopleDirectory
from trusted_memory.services.runtime import Runtime

from ._support import body, export, run_script, with_runtime

pytestmark = pytest.mark.e2e

ALICE_TURNS = (
    ("We decided the offsite is in Lisbon in May.", "I booked the venue in Lisbon."),
    ("The offsite budget is 40k euros.", "I noted the budget."),
    ("Let's send the Lisbon invitations on Friday.", "I drafted the invitations."),
)
BOB_TURNS = (
    ("I am rewriting the parser in Rust this week.", "I set up the Rust crate."),
    ("We decided to keep the old parser behind a flag.", "I added the parser flag."),
    ("Next the benchmarks for the new parser.", "I wrote the parser benchmarks."),
)


def _converse(home: Path, name: str, turns: tuple[tuple[str, str], ...]) -> None:
    async def go(rt: Runtime) -> None:
        with acting_as(await PeopleDirectory(rt.store).viewer_named(name)):
            agent = AgentService(rt)
            for user, reply in turns:
                await agent.observe("default", user, assistant_reply=reply)
            assert (await agent.end_session("default")).episode is not None

    with_runtime(home, go)


def _admin(home: Path, *args: str) -> Any:
    done = run_script(home, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def _kinds(rows: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["kind"] in kinds]


def test_a_members_import_of_a_session_id_another_person_holds_is_their_own(tmp_path: Path) -> None:
    solo = tmp_path / "solo"
    _converse(solo, "local", BOB_TURNS)
    file = tmp_path / "bob.jsonl"
    export(solo, file)
    team = tmp_path / "team"
    for name in ("alice", "bob"):
        _admin(team, "users", "add", name)
    _converse(team, "alice", ALICE_TURNS)
    alice_before = body(export(team, tmp_path / "alice-before.jsonl", "--as", "alice"))

    report = _admin(team, "--as", "bob", "--json", "import", str(file), "--yes")
    assert report["added"]["session"] == 1 and report["added"]["episode"] == 1, report
    assert "session" not in report["skipped"] and "episode" not in report["skipped"], report

    bobs = body(export(team, tmp_path / "bob-after.jsonl", "--as", "bob"))
    sessions = _kinds(bobs, "session")
    assert [(s["id"], s["owner"]) for s in sessions] == [("default", "bob")]
    assert any("parser" in line for line in sessions[0]["buffer"])
    assert {n["owner"] for n in _kinds(bobs, "session_note")} <= {"bob"}
    episodes = _kinds(bobs, "episode")
    assert [(e["session_id"], e["owner"]) for e in episodes] == [("default", "bob")]
    assert "lisbon" not in json.dumps(_kinds(bobs, "session", "session_note", "episode")).lower()
    # Alice's session and episode of the same id are as they were.
    alice_after = body(export(team, tmp_path / "alice-after.jsonl", "--as", "alice"))
    keep = ("session", "session_note", "episode")
    assert _kinds(alice_after, *keep) == _kinds(alice_before, *keep)
    assert "parser" not in json.dumps(_kinds(alice_after, *keep)).lower()
