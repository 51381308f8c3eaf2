"""Schema migrations: a failed one leaves the previous version, a newer schema is refused."""

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
