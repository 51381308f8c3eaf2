"""The append-only event log."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from trusted_memory.model import Atom
from trusted_memory.store.db import SqliteStore as Store
from trusted_memory.store.events import kind_sql, subject_sql
from trusted_memory.text import preview

pytestmark = pytest.mark.anyio


async def test_events_are_append_only(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    async with store.write() as tx:
        await tx.events.append("agent", "fact_added", "fact:1", {"content": "x"})
    await store.close()
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE events SET kind = 'forged'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM events")
    finally:
        conn.close()


async def _add_atom(store: Store, atom_id: str, text: str) -> None:
    atom = Atom(
        id=atom_id,
        type="turn",
        text=text,
        source_class="user_said",
        confidence=0.7,
        importance="medium",
        pinned=False,
        tags=(),
        scope="user",
        status="live",
        created_at=1.0,
        updated_at=1.0,
        session_id="s",
        turn=1,
    )
    async with store.write() as tx:
        await tx.atoms.insert(atom, text.lower())
        detail = {"type": "turn", "source_class": "user_said", "preview": preview(text, 80)}
        await tx.events.append("agent", "atom_added", f"atom:{atom_id}", detail)


async def test_an_added_atoms_preview_is_read_from_the_atom_and_kept_when_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    long = "I moved to   Denver last spring,\nand my sister followed a few months later " + "because " * 8
    await _add_atom(store, "a" * 32, long)
    await _add_atom(store, "b" * 32, "a short one")
    want = {"type": "turn", "source_class": "user_said", "preview": preview(long, 80)}
    async with store.read() as rx:
        before = await rx.events.list(kind="atom_added")
    assert before[0].detail == want and before[1].detail["preview"] == "a short one"
    raw = sqlite3.connect(path)
    try:
        stored = [json.loads(r[0]) for r in raw.execute("SELECT detail FROM events ORDER BY id")]
    finally:
        raw.close()
    assert all("preview" not in d for d in stored)  # not a second copy of the atom's text
    async with store.write() as tx:
        await tx.atoms.delete("a" * 32)  # forget
        await tx.atoms.delete_many(["b" * 32])  # eviction
    async with store.read() as rx:
        after = await rx.events.list(kind="atom_added")
        assert after == before
        assert await rx.events.get(before[0].id) == before[0]
        assert await rx.events.find_same(before[0]) == before[0].id
    await store.close()


async def test_a_preview_that_is_not_the_atoms_own_is_stored_as_given(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    await _add_atom(store, "c" * 32, "what the atom says")
    async with store.write() as tx:
        await tx.events.append("admin", "atom_added", f"atom:{'c' * 32}", {"preview": "something else"})
        await tx.events.append("admin", "atom_added", f"atom:{'d' * 32}", {"preview": "no such atom"})
    async with store.read() as rx:
        assert [e.detail["preview"] for e in await rx.events.list(kind="atom_added")] == [
            "what the atom says",
            "something else",
            "no such atom",
        ]
    await store.close()


async def test_event_look_ups_use_the_smaller_indexes(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await (await Store.open(path)).close()
    conn = sqlite3.connect(path)
    try:

        def plan(sql: str, params: tuple[object, ...]) -> str:
            return " ".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))

        rare = f"SELECT * FROM events WHERE id > ? AND {kind_sql(['atom_evicted'])} ORDER BY id DESC LIMIT 5"
        assert "events_kind" in plan(rare, (0, "atom_evicted"))
        common = f"SELECT * FROM events WHERE id > ? AND {kind_sql(['atom_added'])} ORDER BY id DESC LIMIT 5"
        assert "events_kind" not in plan(common, (0, "atom_added"))  # most rows are this kind: walk ids
        by_subject = f"SELECT * FROM events WHERE {subject_sql()} ORDER BY id DESC LIMIT 5"
        assert "events_subject" in plan(by_subject, ("atom:" + "a" * 32,) * 2)
    finally:
        conn.close()
