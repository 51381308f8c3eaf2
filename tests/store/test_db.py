"""The store's file and connections: private files, WAL, reopening, damage, rollback, concurrency."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from trusted_memory.errors import InvalidInput, StoreCorrupt
from trusted_memory.store.base import now
from trusted_memory.store.db import SqliteStore as Store
from trusted_memory.store.migrations import MIGRATIONS

pytestmark = pytest.mark.anyio


async def test_creates_private_folder_and_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "memory.db"
    store = await Store.open(path)
    try:
        async with store.write() as tx:
            await tx.events.append("system", "hello")
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        for suffix in ("-wal", "-shm"):
            side = Path(f"{path}{suffix}")
            if side.exists():
                assert stat.S_IMODE(side.stat().st_mode) & 0o077 == 0
    finally:
        await store.close()


async def test_wal_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    await store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1].version
    finally:
        conn.close()


async def test_reopen_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    for _ in range(3):
        store = await Store.open(path)
        await store.close()


async def test_garbage_file_is_reported_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(b"this is not a database, just junk bytes" * 100)
    with pytest.raises(StoreCorrupt) as err:
        await Store.open(path)
    assert "doctor --repair" in err.value.message and str(path) in err.value.message


async def test_failed_write_rolls_back_everything(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "memory.db")
    try:
        with pytest.raises(InvalidInput):
            async with store.write() as tx:
                await tx.facts.insert("user", "kept?", key=None, pinned=False, keywords=(), ts=now())
                await tx.events.append("agent", "fact_added")
                raise InvalidInput("boom")
        async with store.read() as rx:
            assert await rx.facts.list("user") == []
            assert await rx.events.count() == 0
            assert await rx.change_counter() == 0
    finally:
        await store.close()


async def test_change_counter_counts_commits(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "memory.db")
    try:
        for _ in range(3):
            async with store.write() as tx:
                await tx.events.append("system", "tick")
        async with store.read() as rx:
            assert await rx.change_counter() == 3
    finally:
        await store.close()


async def test_two_connections_see_each_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    a, b = await Store.open(path), await Store.open(path)
    try:
        async with a.write() as tx:
            await tx.facts.insert("env", "from a", key=None, pinned=False, keywords=(), ts=now())
        async with b.read() as rx:
            assert [f.content for f in await rx.facts.list("env")] == ["from a"]
            assert await rx.change_counter() == 1
    finally:
        await a.close()
        await b.close()


OPEN_FRESH = """
import asyncio, pathlib, sys
from trusted_memory.store.db import SqliteStore as Store

async def main() -> None:
    store = await Store.open(pathlib.Path(sys.argv[1]) / "memory.db")
    await store.close()

asyncio.run(main())
"""


def test_several_processes_can_create_the_same_fresh_store(tmp_path: Path) -> None:
    # Servers started together race to create the folder, switch it to WAL and migrate it.
    for round_ in range(4):
        home = tmp_path / f"home{round_}"
        procs = [
            subprocess.Popen([sys.executable, "-c", OPEN_FRESH, str(home)], stderr=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        errors = [err for p in procs for err in [p.communicate(timeout=60)[1]] if p.returncode]
        assert errors == []
        with sqlite3.connect(home / "memory.db") as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS[-1].version
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_used_bytes_far_below_a_limit_is_a_bound_from_the_files(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "memory.db")
    try:
        for round_ in range(3):
            # New pages first land in the WAL only, past the database file's end, until a checkpoint.
            async with store.write() as tx:
                for i in range(200):
                    await tx.events.append("system", "tick", subject=f"{round_}-{i} " + "x" * 300)
            exact = await store.used_bytes()
            measured = store.measurements
            bound = await store.used_bytes(limit=10**12)
            assert store.measurements == measured, "far from the limit, no page count is read"
            assert bound >= exact
            # Where the bound passes the limit, the pages are counted: the exact figure.
            assert await store.used_bytes(limit=bound - 1) == exact
            assert store.measurements == measured + 1
    finally:
        await store.close()
