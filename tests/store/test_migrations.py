"""Schema migrations: a failed one leaves the previous version, a newer schema is refused, data survives."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trusted_memory.errors import MigrationError
from trusted_memory.store.db import Store
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
