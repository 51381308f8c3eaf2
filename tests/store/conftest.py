"""Fixtures the store tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from postgres_cluster import Cluster

from trusted_memory.store.postgres.db import PgStore


@pytest.fixture
async def pg_store(pg_cluster: Cluster) -> AsyncIterator[tuple[PgStore, str]]:
    """A PostgreSQL store on a fresh database of the session's throwaway cluster, and that database's DSN."""
    name = pg_cluster.new_database()
    store = await PgStore.open(pg_cluster.dsn(name))
    try:
        yield store, pg_cluster.dsn(name)
    finally:
        await store.close()
        pg_cluster.drop_database(name)
