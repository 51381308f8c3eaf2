"""Each person's events are their own (issue 17, migration 20), through the installed admin command.

Alice and Bob are members of one team's store. What Bob does leaves events that are Bob's: his
user model's, and those of a record he has since deleted, count in his `stats` and travel in his
`--as bob export`, and in neither of Alice's. Importing is per person too: Alice's import of a chat
Bob imported first is not skipped, and tells her nothing of his; `--as bob import` of a file naming
Alice as owner creates Bob's records, never Alice's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trusted_memory.people import acting_as
from trusted_memory.services.agent import AgentService
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.people import PeopleDirectory
from trusted_memory.services.runtime import Runtime

from ._support import body, export, records, run_script, with_runtime

pytestmark = pytest.mark.e2e

BOB_SAYS = (
    "I write all my services in Rust and deploy them with Kubernetes",
    "I use neovim as my editor every day",
)


def _team(home: Path, *people: tuple[str, str]) -> None:
    for name, project in people:
        done = run_script(home, "users", "add", name, "--project", project)
        assert done.returncode == 0, done.stderr


def _admin(home: Path, *args: str) -> Any:
    done = run_script(home, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def _events(home: Path, tmp_path: Path, who: str) -> list[dict[str, Any]]:
    rows = records(export(home, tmp_path / f"{who}.jsonl", "--as", who))[1:]
    return [r for r in rows if r["kind"] == "event"]


def _say(home: Path, name: str, texts: tuple[str, ...]) -> list[str]:
    """Atoms written by `name`'s agent; returns their ids."""

    async def go(rt: Runtime) -> list[str]:
        viewer = await PeopleDirectory(rt.store).viewer_named(name)
        assert viewer is not None and viewer.team
        with acting_as(viewer):
            return [(await AgentService(rt).add_atom(AtomDraft(text, "user_said"))).atom.id for text in texts]

    return with_runtime(home, go)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "team"
    _team(path, ("alice", "atlas"), ("bob", "atlas"))
    return path


def test_a_persons_user_model_events_are_in_their_stats_and_export_only(home: Path, tmp_path: Path) -> None:
    _say(home, "bob", BOB_SAYS)
    _say(home, "alice", ("Alice keeps the offsite budget in a spreadsheet",))
    before = {who: _admin(home, "--as", who, "--json", "stats")["events"] for who in ("alice", "bob")}
    inferred = _admin(home, "--as", "bob", "--json", "model", "--infer")
    applied = inferred["inference"]["applied"]
    assert "technical.languages" in applied, inferred
    after = {who: _admin(home, "--as", who, "--json", "stats")["events"] for who in ("alice", "bob")}
    assert after["bob"] == before["bob"] + len(applied)
    assert after["alice"] == before["alice"]
    bobs = [e for e in _events(home, tmp_path, "bob") if e["subject"].startswith("user_model:")]
    assert sorted(e["subject"] for e in bobs) == sorted(f"user_model:{path}" for path in applied)
    assert {e["owner"] for e in bobs} == {"bob"}
    assert [e for e in _events(home, tmp_path, "alice") if e["subject"].startswith("user_model:")] == []


def test_the_events_of_a_deleted_record_stay_its_owners(home: Path, tmp_path: Path) -> None:
    (gone,) = _say(home, "bob", ("Bob parks the atlas demo laptop in locker 14",))
    _admin(home, "--as", "bob", "forget", gone, "--yes")
    kinds = [e["event_kind"] for e in _events(home, tmp_path, "bob") if e["subject"] == f"atom:{gone}"]
    assert kinds == ["atom_added", "atom_forgotten"]
    assert [e for e in _events(home, tmp_path, "alice") if e["subject"] == f"atom:{gone}"] == []
    # stats count the same events the export holds.
    assert _admin(home, "--as", "bob", "--json", "stats")["events"] == len(_events(home, tmp_path, "bob"))
    # The operator forgetting Bob's atom leaves Bob's event too.
    (second,) = _say(home, "bob", ("Bob's spare badge is in the atlas drawer",))
    _admin(home, "forget", second, "--yes")
    forgotten = [e for e in _events(home, tmp_path, "bob") if e["subject"] == f"atom:{second}"]
    assert [e["event_kind"] for e in forgotten] == ["atom_added", "atom_forgotten"]


def _chat(folder: Path) -> Path:
    turns = [
        ("user", "I decided the kilimanjaro cutover runs on Sunday at dawn."),
        ("assistant", "Sunday at dawn it is."),
        ("user", "I will write the kilimanjaro runbook tomorrow morning."),
        ("assistant", "I'll remind you about the runbook."),
    ]
    lines = [
        {"conversation": "shared-chat", "time": 1746266400 + i * 60, "role": role, "text": text}
        for i, (role, text) in enumerate(turns)
    ]
    path = folder / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_chat_another_person_imported_is_imported_again_and_tells_nothing(home: Path, tmp_path: Path) -> None:
    chat = _chat(tmp_path)
    bob = _admin(home, "--as", "bob", "--json", "import-chats", str(chat), "--yes")
    assert bob["turns"] == 2 and bob["already_imported"] == 0, bob
    bob_before = body(export(home, tmp_path / "bob1.jsonl", "--as", "bob"))

    dry = run_script(home, "--as", "alice", "import-chats", str(chat), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "0 already imported" in dry.stdout and "bob" not in dry.stdout + dry.stderr
    alice = _admin(home, "--as", "alice", "--json", "import-chats", str(chat), "--yes")
    assert alice["turns"] == 2 and alice["already_imported"] == 0, alice
    assert "bob" not in json.dumps(alice)

    mine = body(export(home, tmp_path / "alice.jsonl", "--as", "alice"))
    sessions = [r for r in mine if r["kind"] == "session"]
    assert len(sessions) == 1 and sessions[0]["owner"] == "alice" and "bob" not in sessions[0]["id"]
    assert {r["owner"] for r in mine if r["kind"] == "import_key"} == {"alice"}
    assert any("kilimanjaro" in r.get("text", "") for r in mine if r["kind"] == "atom")
    assert "bob" not in json.dumps(mine)
    # Bob's records are as they were, and his own second import still skips everything.
    assert body(export(home, tmp_path / "bob2.jsonl", "--as", "bob")) == bob_before
    again = _admin(home, "--as", "bob", "--json", "import-chats", str(chat), "--yes")
    assert again["turns"] == 0 and again["already_imported"] == 2, again


def test_a_members_import_of_a_file_naming_another_owner_creates_only_their_records(home: Path, tmp_path: Path) -> None:
    (private,) = _say(home, "alice", ("Alice hides the zanzibar gift in the top cupboard",))
    with_runtime(home, lambda rt: _share(rt))
    alices = tmp_path / "alice.jsonl"
    export(home, alices, "--as", "alice")
    claimed = body(alices.read_text())
    assert {r["owner"] for r in claimed if "owner" in r} == {"alice"} and any(r.get("id") == private for r in claimed)

    target = tmp_path / "target"
    _team(target, ("alice", "atlas"), ("bob", "other"))
    before = body(export(target, tmp_path / "before.jsonl"))
    refused = run_script(target, "--as", "bob", "import", str(alices), "--yes")
    assert refused.returncode == 1
    assert "project 'atlas'" in refused.stderr and "users grant bob atlas" in refused.stderr, refused.stderr
    assert body(export(target, tmp_path / "unchanged.jsonl")) == before  # nothing was imported

    _admin(target, "users", "grant", "bob", "atlas")
    _admin(target, "--as", "bob", "import", str(alices), "--yes")
    landed = body(export(target, tmp_path / "after.jsonl"))
    assert [r for r in landed if r.get("owner") == "alice"] == []
    atoms = {r["id"]: r for r in landed if r["kind"] == "atom"}
    assert atoms[private]["owner"] == "bob" and atoms[private]["scope"] == "user"
    brought = [r for r in landed if r["kind"] != "event" or not r["subject"].startswith("person:")]  # users add
    assert {r["owner"] for r in brought if "owner" in r} == {"bob"}
    # Alice sees none of it: it is Bob's memory now, not hers.
    assert "zanzibar" not in json.dumps(body(export(target, tmp_path / "alice-view.jsonl", "--as", "alice")))


async def _share(rt: Runtime) -> None:
    viewer = await PeopleDirectory(rt.store).viewer_named("alice")
    with acting_as(viewer):
        agent = AgentService(rt)
        shared = AtomDraft("The atlas standup moved to 09:30", "user_said", scope="project", project="atlas")
        await agent.add_atom(shared)
        await agent.add_fact("user", "Alice reads the zanzibar digest every Monday", key="digest")


def test_an_older_files_events_take_their_records_owner_and_a_members_global_atom_waits(
    home: Path, tmp_path: Path
) -> None:
    (atom_id,) = _say(home, "bob", ("Bob books the atlas train tickets on Fridays",))
    everyone = tmp_path / "everyone.jsonl"
    export(home, everyone)
    lines = records(everyone.read_text())
    # As a file written before events named their owner: take the field out of every event.
    old = [{k: v for k, v in r.items() if not (r["kind"] == "event" and k == "owner")} for r in lines]
    older = tmp_path / "older.jsonl"
    older.write_text("".join(json.dumps(r) + "\n" for r in old))
    target = tmp_path / "target"
    _team(target, ("alice", "atlas"), ("bob", "atlas"))
    _admin(target, "import", str(older), "--yes")
    events = [r for r in records(export(target, tmp_path / "landed.jsonl"))[1:] if r["kind"] == "event"]
    assert {e["owner"] for e in events if e["subject"] == f"atom:{atom_id}"} == {"bob"}

    # A member's live `global` atom waits for an admin, as their agent's write would.
    shared = next(r for r in lines if r["kind"] == "atom" and r["id"] == atom_id)
    claimed = {**shared, "id": "ab" * 16, "text": "Everyone on the team gets Fridays off", "scope": "global"}
    member_file = tmp_path / "global.jsonl"
    member_file.write_text(json.dumps(lines[0]) + "\n" + json.dumps(claimed) + "\n")
    _admin(target, "--as", "alice", "import", str(member_file), "--yes")
    atoms = {r["id"]: r for r in body(export(target, tmp_path / "after.jsonl")) if r["kind"] == "atom"}
    held = atoms["ab" * 16]
    assert (held["owner"], held["status"], held["quarantine_reason"]) == ("alice", "quarantined", "team_review")
