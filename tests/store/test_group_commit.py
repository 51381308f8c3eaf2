"""Group commit: writers queued behind an open write transaction share its COMMIT, each in its own savepoint.

Real SQLite files; a unit that awaits an event stands for one that waits (another process's lock, a
slow statement): only then do writers queue, and only queued writers form a group.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from trusted_memory.errors import InvalidInput, StoreError
from trusted_memory.store.db import SqliteStore as Store

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


async def queue_behind(first: asyncio.Event) -> None:
    """Let every task started so far run up to where it waits (the lock, or the first unit's event)."""
    for _ in range(5):
        await asyncio.sleep(0)
    first.set()


async def test_writers_queued_behind_an_open_transaction_share_its_commit(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        seen_committed: list[bool] = []
        release = asyncio.Event()

        async def one(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"w{i}")
                if i == 0:
                    await release.wait()  # the first unit waits (as for another process's lock)
            # Acknowledged means committed: another connection sees it the moment write() returns.
            seen_committed.append(f"w{i}" in subjects(path))

        await asyncio.gather(*(one(i) for i in range(12)), queue_behind(release))
        assert seen_committed == [True] * 12
        assert subjects(path) == {f"w{i}" for i in range(12)}
        assert counter(path) == before + 1  # one transaction for the twelve, not twelve
        assert store.last_write_counter == before + 1
        # Writers that never wait for one another are committed one by one, at once.
        for i in range(3):
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"alone{i}")
            assert f"alone{i}" in subjects(path)
        assert counter(path) == before + 4
    finally:
        await store.close()


async def test_a_failing_unit_rolls_back_alone_and_gets_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        release = asyncio.Event()

        async def good(i: int) -> str:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"ok{i}")
                if i == 0:
                    await release.wait()
            return f"ok{i}"

        async def bad() -> str:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "bad-1")
                await tx.events.append("system", "group-test", "bad-2")
                raise InvalidInput("this unit changed its mind")
            return "unreachable"  # pragma: no cover

        results = await asyncio.gather(
            good(0), bad(), good(1), bad(), good(2), queue_behind(release), return_exceptions=True
        )
        assert results[0:5:2] == ["ok0", "ok1", "ok2"]
        assert all(isinstance(r, InvalidInput) and "changed its mind" in r.message for r in results[1:5:2])
        assert subjects(path) == {"ok0", "ok1", "ok2"}  # nothing of the failing units, all of the others
        assert counter(path) == before + 1  # and they were one group
    finally:
        await store.close()


async def test_a_group_of_only_failures_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        release = asyncio.Event()

        async def bad(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"bad{i}")
                if i == 0:
                    await release.wait()
                raise InvalidInput("no")

        results = await asyncio.gather(*(bad(i) for i in range(3)), queue_behind(release), return_exceptions=True)
        assert all(isinstance(r, InvalidInput) for r in results[:3])
        assert subjects(path) == set() and counter(path) == before
    finally:
        await store.close()


async def test_a_transaction_lost_under_a_unit_fails_every_unit_of_its_group(tmp_path: Path) -> None:
    # SQLite may abandon the whole transaction under a statement (disk full, I/O error): then the
    # earlier units of the group are gone too, and each of their callers must hear it, not a success.
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        release = asyncio.Event()

        async def good(i: int) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"ok{i}")
                if i == 0:
                    await release.wait()

        async def abandoned() -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "lost")
                await tx.conn.execute("ROLLBACK")  # what SQLite does itself on such an error
                raise sqlite3.OperationalError("disk I/O error")

        results = await asyncio.gather(good(0), abandoned(), good(1), queue_behind(release), return_exceptions=True)
        # ok0 shared the lost transaction, ok1 was queued in it: both callers are told, neither acknowledged.
        assert isinstance(results[0], StoreError) and "retry the call" in results[0].message, results
        assert isinstance(results[1], StoreError) and "disk I/O error" in results[1].message, results
        assert isinstance(results[2], StoreError) and "retry the call" in results[2].message, results
        assert subjects(path) == set() and counter(path) == before
        # The store is usable again at once.
        async with asyncio.timeout(5):
            async with store.write() as tx:
                await tx.events.append("system", "group-test", "after")
        assert subjects(path) == {"after"} and counter(path) == before + 1
    finally:
        await store.close()


async def test_cancelled_callers_neither_stall_nor_split_a_group(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await Store.open(path)
    try:
        before = counter(path)
        first, third = asyncio.Event(), asyncio.Event()

        async def one(i: int, wait: asyncio.Event | None = None) -> None:
            async with store.write() as tx:
                await tx.events.append("system", "group-test", f"w{i}")
                if wait is not None:
                    await wait.wait()

        tasks = [
            asyncio.ensure_future(one(0, first)),
            asyncio.ensure_future(one(1)),  # will be cancelled while queued: never runs
            asyncio.ensure_future(one(2, third)),
            asyncio.ensure_future(one(3)),
        ]
        for _ in range(5):
            await asyncio.sleep(0)
        tasks[1].cancel()
        first.set()
        for _ in range(5):
            await asyncio.sleep(0)
        # w0 is through its unit and waits for the COMMIT; w2's unit is still running.
        tasks[0].cancel()
        third.set()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        assert isinstance(done[0], asyncio.CancelledError) and isinstance(done[1], asyncio.CancelledError)
        assert done[2:] == [None, None]
        # w0's caller left before the COMMIT (so was never told it succeeded); its unit committed
        # with the group all the same. w1 never ran.
        assert subjects(path) == {"w0", "w2", "w3"} and counter(path) == before + 1
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
        before = counter(path)
        release = asyncio.Event()

        async def one(i: int) -> None:
            async with store.write() as tx:
                async with tx.conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'group-test'") as cur:
                    row = await cur.fetchone()
                seen.append(int(row[0]))
                await tx.events.append("system", "group-test", f"w{i}")
                if i == 0:
                    await release.wait()

        await asyncio.gather(*(one(i) for i in range(5)), queue_behind(release))
        assert seen == [0, 1, 2, 3, 4] and counter(path) == before + 1
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

        before = counter(path)
        holder = asyncio.ensure_future(hold_then_release())
        await asyncio.sleep(0.05)
        await asyncio.gather(*(one(first, f"a{i}") for i in range(6)), *(one(second, f"b{i}") for i in range(3)))
        await holder
        assert subjects(path) == {"held", *(f"a{i}" for i in range(6)), *(f"b{i}" for i in range(3))}
        # The six writers queued behind the other process's lock landed in one transaction, and
        # the three behind the holder's open one in its transaction: two commits for ten writes.
        assert counter(path) == before + 2
    finally:
        await first.close()
        await second.close()
