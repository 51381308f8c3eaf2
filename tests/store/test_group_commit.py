"""Group commit: concurrent writers of one process share one COMMIT, each in its own savepoint (real SQLite)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from trusted_memory.errors import InvalidInput, StoreError
from trusted_memory.store.db import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the store's writer is asyncio's (asyncio.Lock, futures)


def outside(path: Path, sql: str) -> list[tuple[object, ...]]:
    """What another connection (another process, in effect) sees: only committed rows."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.execute(sql))
    finally:
        conn.close()


def counter(path: Path) -> int:
    return int(outside(path, "SELECT value FROM meta WHERE key = 'change_counter'")[0][0])


def subjects(path: Path) -> set[str]:
    return {str(r[0]) for r in outside(path, "SELECT subject FROM events WHERE kind = 'group-test'")}


async def test_concurrent_writers_share_one_commit_and_each_returns_committed(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        seen_committed: list[bool] = []

        async def one(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"w{i}")
            # Acknowledged means committed: another connection sees it the moment write() returns.
            seen_committed.append(f"w{i}" in subjects(path))

        await asyncio.gather(*(one(i) for i in range(12)))
        assert seen_committed == [True] * 12
        assert subjects(path) == {f"w{i}" for i in range(12)}
        assert counter(path) == before + 1  # one transaction for the twelve, not twelve
        assert store.last_write_counter == before + 1
        # A lone writer afterwards opens (and commits) a group of its own.
        async with store.write() as tx:
            await tx.events.append("system", "group-test", "alone")
        assert counter(path) == before + 2 and "alone" in subjects(path)
    finally:
        await store.close()


async def test_a_failing_unit_rolls_back_alone_and_gets_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)

        async def good(i: int) -> str:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"ok{i}")
            return f"ok{i}"

        async def bad() -> str:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "bad-1")
                await tx.events.append("system", "group-test", "bad-2")
                raise InvalidInput("this unit changed its mind")
            return "unreachable"  # pragma: no cover

        results = await asyncio.gather(good(0), bad(), good(1), bad(), good(2), return_exceptions=True)
        assert results[0::2] == ["ok0", "ok1", "ok2"]
        assert all(isinstance(r, InvalidInput) and "changed its mind" in r.message for r in results[1::2])
        assert subjects(path) == {"ok0", "ok1", "ok2"}  # nothing of the failing units, all of the others
        assert counter(path) == before + 1
    finally:
        await store.close()


async def test_a_group_of_only_failures_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)

        async def bad(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"bad{i}")
                raise InvalidInput("no")

        results = await asyncio.gather(*(bad(i) for i in range(3)), return_exceptions=True)
        assert all(isinstance(r, InvalidInput) for r in results)
        assert subjects(path) == set() and counter(path) == before
        assert not outside(path, "SELECT 1 FROM events WHERE subject LIKE 'bad%'")
    finally:
        await store.close()


async def test_a_transaction_lost_under_a_unit_fails_every_unit_of_its_group(tmp_path: Path) -> None:
    # SQLite may abandon the whole transaction under a statement (disk full, I/O error): then the
    # earlier units of the group are gone too, and each of their callers must hear it, not a success.
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)

        async def good(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"ok{i}")

        async def abandoned() -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "lost")
                await tx.conn.execute("ROLLBACK")  # what SQLite does itself on such an error
                raise sqlite3.OperationalError("disk I/O error")

        results = await asyncio.gather(good(0), abandoned(), good(1), return_exceptions=True)
        # ok0 shared the lost transaction: its caller is told, never acknowledged. The writer that
        # came after the loss did not join that group; it opened the next one and landed.
        assert isinstance(results[0], StoreError) and "retry the call" in results[0].message, results
        assert isinstance(results[1], StoreError) and "disk I/O error" in results[1].message, results
        assert results[2] is None
        assert subjects(path) == {"ok1"} and counter(path) == before + 1
    finally:
        await store.close()


async def test_a_caller_cancelled_while_waiting_for_the_commit_does_not_stall_the_store(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:

        async def one(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"w{i}")

        tasks = [asyncio.ensure_future(one(i)) for i in range(4)]
        await asyncio.sleep(0)  # each has run its unit and now waits for the group's COMMIT
        tasks[0].cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        assert isinstance(done[0], asyncio.CancelledError) and done[1:] == [None, None, None]
        # The cancelled caller was never told it succeeded; its unit was in the group all the same.
        assert subjects(path) == {"w0", "w1", "w2", "w3"}
        async with asyncio.timeout(5):
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "next")
        assert "next" in subjects(path)
    finally:
        await store.close()


async def test_a_unit_sees_the_earlier_units_of_its_group(tmp_path: Path) -> None:
    # Units run one after another inside one transaction: the later one sees what the earlier left.
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        seen: list[int] = []

        async def one(i: int) -> None:
            async with store.write() as tx:
                async with tx.conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'group-test'") as cur:
                    row = await cur.fetchone()
                seen.append(int(row[0]))
                await tx.events.append("system", "group-test", f"w{i}")

        await asyncio.gather(*(one(i) for i in range(5)))
        assert seen == [0, 1, 2, 3, 4]
    finally:
        await store.close()


async def test_other_processes_writers_interleave_with_groups(tmp_path: Path) -> None:
    # Two stores on one file (as two server processes): groups of each wait out the other's lock.
    path = tmp_path / "memory.db"
    first, second = await Store.open(path), await Store.open(path)
    try:

        async def one(store: Store, name: str) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", name)

        async def hold_then_release() -> None:
            # The second process holds the write lock for a while: the first one's writers queue
            # up behind it (waiting off the loop) and then land together.
            async with second.write() as tx:
                await tx.events.append("system", "group-test", "held")
                await asyncio.sleep(0.3)

        holder = asyncio.ensure_future(hold_then_release())
        await asyncio.sleep(0.05)
        await asyncio.gather(*(one(first, f"a{i}") for i in range(6)), *(one(second, f"b{i}") for i in range(3)))
        await holder
        assert subjects(path) == {"held", *(f"a{i}" for i in range(6)), *(f"b{i}" for i in range(3))}
    finally:
        await first.close()
        await second.close()
