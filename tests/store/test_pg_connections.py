"""PostgreSQL connections the server drops between calls (a restart or failover, pg_terminate_backend,
an idle timeout): the next call opens a new one instead of failing, and so does every call after it."""

from __future__ import annotations

import psycopg
import pytest

from trusted_memory.store.postgres.db import PgStore

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def terminate_others(dsn: str) -> int:
    """End every other backend of the database, as a restart or an administrator would."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


async def subjects(store: PgStore) -> list[str]:
    async with store.read() as rx:
        async with rx.conn.execute("SELECT subject FROM events WHERE kind = 'conn-test' ORDER BY id") as cur:
            return [str(r[0]) for r in await cur.fetchall()]


async def test_writes_go_on_after_the_server_dropped_the_writer_connection(pg_store: tuple[PgStore, str]) -> None:
    store, dsn = pg_store
    async with store.write() as tx:
        await tx.events.append("system", "conn-test", "before")
    assert terminate_others(dsn) >= 2  # the writer and the listener, at least
    for k in range(3):
        async with store.write() as tx:
            await tx.events.append("system", "conn-test", f"after-{k}")
    assert await subjects(store) == ["before", "after-0", "after-1", "after-2"]


async def test_snapshot_reads_go_on_after_the_server_dropped_the_pooled_connections(
    pg_store: tuple[PgStore, str],
) -> None:
    store, dsn = pg_store
    async with store.write() as tx:
        await tx.events.append("system", "conn-test", "kept")
    assert await subjects(store) == ["kept"]  # a pooled reader connection now exists
    terminate_others(dsn)
    for _ in range(3):
        assert await subjects(store) == ["kept"]
