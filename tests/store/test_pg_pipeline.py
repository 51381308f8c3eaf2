"""The PostgreSQL writer's round trips: a unit's `send`s go out with its next statement or at its end,
and a group's BEGIN brings the change counter.

A real throwaway cluster. What must hold: a queued statement costs its unit no wait of its own; later
statements of the unit see it; its error fails its own unit (before the unit's next statement runs,
or at the unit's end) and leaves the store as it was, while the other units of the group land.
"""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from trusted_memory.errors import StoreError
from trusted_memory.store.postgres.db import PgStore

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]

BAD = "INSERT INTO events(ts, actor, kind, subject, detail) VALUES (1, 'system', NULL, 'bad', '{}')"  # kind NOT NULL


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def committed(dsn: str) -> list[str]:
    """The test's events another connection sees (only committed rows)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT subject FROM events WHERE kind = 'pipe-test' ORDER BY id").fetchall()
    return [str(r[0]) for r in rows]


def counter(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'change_counter'").fetchone()
    assert row is not None
    return int(row[0])


async def test_a_sent_statement_is_not_waited_for_and_later_statements_see_it(pg_store: tuple[PgStore, str]) -> None:
    store, dsn = pg_store
    async with store.write() as tx:
        started = time.monotonic()
        await tx.conn.send("SELECT pg_sleep(1.0)")  # a slow statement whose result nobody reads
        await tx.events.record("system", "pipe-test", "queued")
        queued_s = time.monotonic() - started
        async with tx.conn.execute("SELECT count(*) FROM events WHERE kind = 'pipe-test'") as cur:
            row = await cur.fetchone()
        waited_s = time.monotonic() - started
    assert queued_s < 1.0 <= waited_s  # the read waited for the queue ahead of it, the sends did not
    assert row[0] == 1
    assert committed(dsn) == ["queued"]


async def test_a_sent_statements_error_fails_the_unit_before_its_next_statement(
    pg_store: tuple[PgStore, str],
) -> None:
    store, dsn = pg_store
    before = counter(dsn)
    reached = False
    with pytest.raises(StoreError, match="kind"):
        async with store.write() as tx:
            await tx.events.record("system", "pipe-test", "first")
            await tx.conn.send(BAD)
            await tx.conn.execute("SELECT 1")
            reached = True  # pragma: no cover - the SELECT raises the queued INSERT's error
    assert not reached
    assert committed(dsn) == [] and counter(dsn) == before
    async with store.write() as tx:  # the writer goes on
        await tx.events.record("system", "pipe-test", "after")
    assert committed(dsn) == ["after"]


async def test_an_error_queued_last_fails_its_own_unit_and_the_group_lands(pg_store: tuple[PgStore, str]) -> None:
    store, dsn = pg_store
    before = counter(dsn)
    release = asyncio.Event()

    async def good(i: int) -> str:
        async with store.write() as tx:
            await tx.events.record("system", "pipe-test", f"ok{i}")
            if i == 0:
                await release.wait()  # the group's first unit waits, so the others queue behind it
        return f"ok{i}"

    async def bad() -> str:
        async with store.write() as tx:
            await tx.events.record("system", "pipe-test", "bad-1")
            await tx.conn.send(BAD)  # nothing of the unit reads after it: the error comes at the unit's end
        return "unreachable"  # pragma: no cover

    async def let_them_queue() -> None:
        for _ in range(5):
            await asyncio.sleep(0)
        release.set()

    results = await asyncio.gather(good(0), bad(), good(1), bad(), good(2), let_them_queue(), return_exceptions=True)
    assert results[0:5:2] == ["ok0", "ok1", "ok2"]
    assert all(isinstance(r, StoreError) and "kind" in r.message for r in results[1:5:2])
    assert sorted(committed(dsn)) == ["ok0", "ok1", "ok2"]  # nothing of the failing units
    assert counter(dsn) == before + 1  # one group, one COMMIT


async def test_an_exception_in_the_unit_discards_what_it_queued(pg_store: tuple[PgStore, str]) -> None:
    store, dsn = pg_store
    with pytest.raises(RuntimeError, match="changed its mind"):
        async with store.write() as tx:
            await tx.events.record("system", "pipe-test", "queued-then-dropped")
            raise RuntimeError("changed its mind")
    assert committed(dsn) == []
    async with store.write() as tx:
        await tx.events.record("system", "pipe-test", "kept")
    assert committed(dsn) == ["kept"]


async def test_a_unit_reads_the_counter_of_every_server_s_latest_commit(pg_store: tuple[PgStore, str]) -> None:
    # The counter comes with the group's BEGIN, under the write lock: another server's commit just
    # before it is counted, though its NOTIFY may not have arrived yet.
    store, dsn = pg_store
    other = await PgStore.open(dsn)
    try:
        for k in range(3):
            async with other.write() as tx:
                await tx.events.record("system", "pipe-test", f"other-{k}")
            async with store.write() as tx:
                seen = await tx.change_counter()
                await tx.events.record("system", "pipe-test", f"mine-{k}")
            assert seen == counter(dsn) - 1  # what the other server committed, before this unit's own commit
    finally:
        await other.close()
