"""Schema migrations: a failed one leaves the previous version, a newer schema is refused, data survives."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trusted_memory.errors import MigrationError
from trusted_memory.store.db import SqliteStore as Store
from trusted_memory.store.migrations import MIGRATIONS, Migration

pytestmark = pytest.mark.anyio


async def test_failed_migration_leaves_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    broken = Migration(MIGRATIONS[-1].version + 1, "broken", ("CREATE TABLE half_done (x)", "NOT SQL AT ALL"))
    with pytest.raises(MigrationError, match="broken"):
        await Store.open(path, (*MIGRATIONS, broken))
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1].version
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    finally:
        conn.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 999")
    conn.commit()
    conn.close()
    with pytest.raises(MigrationError, match="newer"):
        await Store.open(path)


async def test_links_keep_their_kind_and_weight_through_the_compact_form(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    before = tuple(m for m in MIGRATIONS if m.version < 13)
    await (await Store.open(path, before)).close()
    conn = sqlite3.connect(path)
    for i in (1, 2, 3):
        conn.execute(
            "INSERT INTO atoms(num, id, type, text, norm, source_class, confidence, importance, scope, status, "
            "created_at, updated_at, session_id) VALUES (?, ?, 'note', ?, ?, 'user_said', 1, 'medium', 'user', "
            "'live', 0, 0, 's')",
            (i, f"a{i}", f"text {i}", f"text {i}"),
        )
    conn.execute(
        "INSERT INTO associations(src, dst, kind, weight) VALUES (2, 1, 'temporal', 1.0), "
        "(3, 1, 'task', 0.5), (3, 2, 'semantic', 0.4321)"
    )
    conn.commit()
    conn.close()
    store = await Store.open(path)
    async with store.read() as rx:
        links = await rx.recall.neighbours([3])
        assert [(this, other, kind, weight) for this, other, kind, weight, _ in links] == [
            (3, 1, "task", 0.5),
            (3, 2, "semantic", 0.4321),
        ]
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM atoms WHERE num = 1")  # the cleanup trigger still knows the table
    conn.commit()
    conn.close()
    store = await Store.open(path)
    async with store.read() as rx:
        assert [(t, o, k) for t, o, k, _, _ in await rx.recall.neighbours([2, 3])] == [
            (3, 2, "semantic"),
            (2, 3, "semantic"),
        ]
    await store.close()


async def test_notes_and_events_survive_the_smaller_indexes(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    before = tuple(m for m in MIGRATIONS if m.version < 17)
    await (await Store.open(path, before)).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO sessions(id, started_at, last_at) VALUES ('s1', 0, 0)")
    conn.execute(
        "INSERT INTO session_notes(id, session_id, category, text, created_at) VALUES "
        "(4, 's1', 'decision', 'we use Postgres', 1.5), (9, 's1', 'issue', 'the CI is flaky', 2.5)"
    )
    old_detail = '{"preview": "an old atom", "source_class": "user_said", "type": "note"}'
    conn.execute(
        "INSERT INTO events(id, ts, actor, kind, subject, detail) VALUES "
        "(1, 1.0, 'agent', 'atom_added', 'atom:00ff', ?), (2, 2.0, 'agent', 'turn_observed', 'session:s1', "
        "'{\"turn\": 1}'), (3, 3.0, 'system', 'atom_evicted', 'atom:00ff', '{}')",
        (old_detail,),
    )
    conn.commit()
    conn.close()
    store = await Store.open(path)
    async with store.write() as tx:
        assert [(n.id, n.category, n.text, n.created_at) for n in await tx.sessions.notes("s1")] == [
            (4, "decision", "we use Postgres", 1.5),
            (9, "issue", "the CI is flaky", 2.5),
        ]
        # A note the session has is still not stored twice, without the unique index.
        added = await tx.sessions.add_notes(
            "s1",
            [("decision", "we use Postgres"), ("context", "new"), ("context", "new")],
            3.0,
            max_notes=10,
            max_chars=999,
        )
        assert added == 1
        # Events appended before keep their preview inline and are found by kind and subject.
        assert [e.id for e in await tx.events.list(subject="atom:00ff")] == [1, 3]
        assert [e.id for e in await tx.events.list(kind="atom_evicted")] == [3]
        assert [e.id for e in await tx.events.list(kind="turn_observed")] == [2]
        assert await tx.events.count("atom_evicted") == 1
        first = await tx.events.get(1)
        assert first is not None and first.detail["preview"] == "an old atom"
    await store.close()
    conn = sqlite3.connect(path)
    try:
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'session_notes'")}
        assert indexes == {"session_notes", "session_notes_session"}
    finally:
        conn.close()
