"""The PostgreSQL store's size bound (PgStore.used_bytes): measured once, then raised by the WAL
every commit of any server writes, so that the budget's "does it fit" stays true without summing
every relation at every write.

A real throwaway cluster: two stores on one database stand for two servers.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator

import psycopg
import pytest
from postgres_cluster import Cluster

from trusted_memory.store.postgres.db import CHANNEL, PgStore

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]
FAR = 1 << 40  # a limit no bound reaches: the answer is the bound whenever one is kept


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def two_servers(pg_cluster: Cluster) -> AsyncIterator[tuple[PgStore, PgStore, str]]:
    name = pg_cluster.new_database()
    dsn = pg_cluster.dsn(name)
    first = await PgStore.open(dsn)
    second = await PgStore.open(dsn)
    try:
        yield first, second, dsn
    finally:
        await first.close()
        await second.close()
        pg_cluster.drop_database(name)


async def write_events(store: PgStore, count: int, chars: int) -> None:
    for i in range(count):
        async with store.write() as tx:
            await tx.events.record("system", "size-test", f"row:{i}", {"blob": secrets.token_hex(chars // 2)})


async def until(condition: object, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if await condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)


async def test_the_bound_covers_this_servers_own_writes(two_servers: tuple[PgStore, PgStore, str]) -> None:
    store, _, _ = two_servers
    await store.used_bytes()  # the measurement the bound starts from
    measured = store.measurements
    for round_ in range(20):
        await write_events(store, 5, 3000)
        bound = await store.used_bytes(limit=FAR)
        assert bound >= await store.size_bytes(), f"round {round_}"
    assert store.measurements == measured  # 100 commits, no sum of the relations


async def test_another_servers_commits_raise_the_bound_through_their_notifications(
    two_servers: tuple[PgStore, PgStore, str],
) -> None:
    first, second, _ = two_servers
    start = await first.used_bytes()
    # About 2.5 MB of rows (TOASTed; random hex compresses little), more than the bound's slack.
    await write_events(second, 60, 40_000)
    exact = await second.size_bytes()
    assert exact > start + 2_000_000

    async def covered() -> bool:
        return await first.used_bytes(limit=FAR) >= exact

    await until(covered)
    assert await first.used_bytes(limit=FAR) >= exact
    assert first.measurements == 1  # raised by the other server's WAL positions, not measured again


async def test_a_notification_without_a_wal_position_makes_the_next_check_measure(
    two_servers: tuple[PgStore, PgStore, str],
) -> None:
    first, second, dsn = two_servers
    await first.used_bytes()
    await write_events(second, 1, 100)
    await asyncio.sleep(0.5)
    await first.used_bytes(limit=FAR)
    assert first.measurements == 1
    # A server of an older version sends only its change counter.
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps(10**9)))

    async def measured() -> bool:
        await first.used_bytes(limit=FAR)
        return first.measurements == 2

    await until(measured)
    assert first.measurements == 2
