"""`trusted-memory-admin --as MEMBER export` writes only what that person may see (issue 17).

Alice and Bob share a team store and the project `atlas`. Each has a private atom, a facts entry,
an ended session with its episode, an open session (buffer, transcript, a nudge shown in it), a
user-model field, a pending guess and a chat import. Bob's export holds his own records and the
project atom Alice shared; nothing else of hers, by text or by id. The operator's export (and an
admin's) holds both people and re-imports record for record.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from trusted_memory.people import acting_as
from trusted_memory.services.admin import AdminService
from trusted_memory.services.admin.chat_import import apply_chats, plan_chats
from trusted_memory.services.admin.chats import load_chats
from trusted_memory.services.agent import AgentService
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.people import PeopleDirectory
from trusted_memory.services.runtime import Runtime
from trusted_memory.services.wiring import build_services

from ._support import ALL_KINDS, as_imported, body, export, records, run_script, with_runtime

# A word only each person's records carry, so a leak shows up as text wherever it went.
MARK = {"alice": "zanzibar", "bob": "kilimanjaro"}
SHARED = "The atlas release train leaves every Thursday at noon."


def _chat_file(folder: Path, name: str) -> Path:
    mark = MARK[name]
    lines = [
        {"conversation": f"{name}-chat", "time": 1746266400 + i * 60, "role": role, "text": text}
        for i, (role, text) in enumerate(
            [
                ("user", f"I keep the {mark} field notes in a paper notebook."),
                ("assistant", "A paper notebook survives a dead battery."),
            ]
        )
    ]
    path = folder / f"{name}-chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def _populate(rt: Runtime, chats: dict[str, Path]) -> dict[str, set[str]]:
    """Each person's records, written as that person; returns the ids of each one's pending guesses."""
    services, agent, admin = build_services(rt), AgentService(rt), AdminService(rt)
    guesses: dict[str, set[str]] = {}
    confirm: list[str] = []
    for name, mark in MARK.items():
        viewer = await PeopleDirectory(rt.store).viewer_named(name)
        assert viewer is not None and viewer.team
        with acting_as(viewer):
            await agent.add_fact("user", f"{name.title()} names every branch after the {mark} trip", key="branches")
            await agent.add_atom(AtomDraft(f"{name.title()} keeps a private list of {mark} offsite ideas", "user_said"))
            if name == "alice":
                await agent.add_atom(AtomDraft(SHARED, "user_said", scope="project", project="atlas"))
            ended = f"{name}-ended"
            for i, text in enumerate(
                [
                    f"We decided to move the {mark} service to Postgres 16 next Friday.",
                    f"The {mark} cutover must finish by 06:00 and I want blue-green deploys.",
                    f"I will write the {mark} runbook for the cutover tomorrow.",
                ]
            ):
                await services.sessions.observe(ended, text, assistant_reply="Noted.", said_at=1746000000 + 60 * i)
            assert (await services.sessions.end_session(ended)).episode is not None
            opened = f"{name}-open"
            await services.sessions.observe(
                opened,
                f"I decided to automate the {mark} password rotation next sprint.",
                assistant_reply="I'll treat the rotation job as the next task.",
                said_at=time.time() - 600,
            )
            async with rt.store.write() as tx:
                await tx.nudges.record("follow_up", f"{mark} rotation", opened, time.time() - 300)
            field = await services.atoms.propose(
                "style.verbosity", "concise", evidence=f"short {mark} replies", confidence=0.6
            )
            guess = await services.atoms.propose(
                "focus.current", f"the {mark} migration", evidence=f"mentioned {mark}", confidence=0.5
            )
            assert field is not None and guess is not None
            confirm.append(field.id)
            guesses[name] = {field.id, guess.id}
            await apply_chats(rt, await plan_chats(rt, load_chats(chats[name])))
    for review_id in confirm:
        await admin.confirm(review_id)  # the operator confirms: the field stays its owner's
    await rt.recall.drain_queue()
    return guesses


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, dict[str, set[str]]]:
    home = tmp_path / "team"
    for name, role in (("alice", "member"), ("bob", "member"), ("dana", "admin")):
        done = run_script(home, "users", "add", name, "--role", role, "--project", "atlas")
        assert done.returncode == 0, done.stderr
    chats = {name: _chat_file(tmp_path, name) for name in MARK}
    return home, with_runtime(home, lambda rt: _populate(rt, chats))


def _ids_of(rows: list[dict[str, Any]], owner: str) -> set[str]:
    """The string ids of every record of this owner in an export (atoms, sessions, episodes, pending)."""
    return {str(r["id"]) for r in rows if r.get("owner") == owner and isinstance(r.get("id"), str)}


def _kinds(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    return counts


@pytest.mark.e2e
def test_a_members_export_holds_none_of_another_persons_records(
    team: tuple[Path, dict[str, set[str]]], tmp_path: Path
) -> None:
    home, guesses = team
    everyone = records(export(home, tmp_path / "operator.jsonl"))[1:]
    alice_ids = _ids_of(everyone, "alice") | guesses["alice"]
    shared = [r for r in everyone if r["kind"] == "atom" and r["text"] == SHARED]
    assert len(shared) == 1 and shared[0]["owner"] == "alice"
    shared_id = shared[0]["id"]
    alice_ids.discard(shared_id)
    assert len(alice_ids) >= 6  # her atoms, two sessions, an episode, two guesses at least

    text = export(home, tmp_path / "bob.jsonl", "--as", "bob")
    header, *rows = records(text)
    assert header["kind"] == "header"
    # The project atom Alice shared with atlas is Bob's to see, so it is his to export; take it, its
    # vector and its links out, and nothing of Alice's is left: not her word, name or any of her ids.
    rest = [
        r
        for r in rows
        if shared_id not in (r.get("id"), r.get("atom_id"), r.get("src"), r.get("dst"))
        and not (r["kind"] == "event" and r.get("subject") == f"atom:{shared_id}")
    ]
    assert len(rest) <= len(rows) - 2  # the shared atom and its vector at least
    leftover = "\n".join(json.dumps(r) for r in rest)
    assert MARK["alice"] not in leftover
    assert "alice" not in leftover
    assert [i for i in alice_ids if i in leftover] == []
    assert {r["owner"] for r in rows if "owner" in r} == {"bob", "alice"}
    assert {r["owner"] for r in rest if "owner" in r} == {"bob"}
    # And it is Bob's view, unaltered: every kind of his records, each line as the operator's export has it.
    counts = _kinds(rows)
    # Bob has a record of every kind: his export is not merely empty.
    assert [k for k in sorted(ALL_KINDS) if not counts.get(k)] == []
    mine = [json.dumps(r, sort_keys=True) for r in rows]
    theirs = {json.dumps(r, sort_keys=True) for r in everyone}
    assert [r for r in mine if r not in theirs] == []
    assert MARK["bob"] in leftover and any(i in leftover for i in guesses["bob"])  # his open guess at least

    # Alice's export is the mirror image.
    alice = "\n".join(json.dumps(r) for r in records(export(home, tmp_path / "alice.jsonl", "--as", "alice"))[1:])
    assert MARK["bob"] not in alice and '"bob' not in alice and MARK["alice"] in alice


@pytest.mark.e2e
def test_the_operators_and_an_admins_export_hold_both_and_reimport_losslessly(
    team: tuple[Path, dict[str, set[str]]], tmp_path: Path
) -> None:
    home, _ = team
    first = export(home, tmp_path / "operator.jsonl")
    admin = export(home, tmp_path / "dana.jsonl", "--as", "dana")
    assert body(admin) == body(first)  # an admin acts as the operator
    for name, mark in MARK.items():
        assert mark in first
        owned = _kinds([r for r in body(first) if r.get("owner") == name])
        assert all(owned.get(k) for k in ("fact", "atom", "pending", "user_model", "session", "episode")), owned
    target = tmp_path / "target"
    done = run_script(target, "import", str(tmp_path / "operator.jsonl"), "--yes")
    assert done.returncode == 0, done.stderr
    got, want = body(export(target, tmp_path / "again.jsonl")), as_imported(body(first))
    for g, w in zip(got, want, strict=False):
        assert g == w, [(k, g.get(k), w.get(k)) for k in set(g) | set(w) if g.get(k) != w.get(k)]
    assert len(got) == len(want)


@pytest.mark.e2e
def test_a_members_export_imports_into_an_empty_store(team: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    home, _ = team
    export(home, tmp_path / "bob.jsonl", "--as", "bob")
    target = tmp_path / "bobs"
    done = run_script(target, "import", str(tmp_path / "bob.jsonl"), "--yes")
    assert done.returncode == 0, done.stderr
    landed = export(target, tmp_path / "landed.jsonl")
    assert MARK["bob"] in landed and MARK["alice"] not in landed


def test_a_member_cannot_migrate_the_team_store(team: tuple[Path, dict[str, set[str]]], tmp_path: Path) -> None:
    home, _ = team
    target = tmp_path / "copy"
    done = run_script(home, "--as", "bob", "migrate", "--to", str(target), "--yes")
    assert done.returncode == 1 and "migrate copies the whole store" in done.stderr, done.stderr
    assert not target.exists()
