"""The append-only event log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trusted_memory.store.db import Store

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
