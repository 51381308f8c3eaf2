"""Open the store a process's settings name: the SQLite file (default) or a PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

from ..config import StoreSettings
from ..errors import ConfigError
from .base import Store
from .db import SqliteStore

BACKENDS = ("sqlite", "postgres")


async def open_store(backend: str, *, path: Path, dsn: str, limits: StoreSettings | None = None) -> Store:
    """The store of `backend`, its schema brought up to date (`limits`: a PostgreSQL writer's session limits)."""
    if backend == "postgres":
        try:
            from .postgres.db import PgStore  # psycopg is an extra: only a PostgreSQL store needs it
        except ImportError as exc:
            raise ConfigError(
                "store.backend = 'postgres' needs the postgres extra: pip install 'trusted-memory[postgres]'"
            ) from exc
        return await PgStore.open(dsn, limits=limits or StoreSettings())
    if backend != "sqlite":
        raise ConfigError(f"store.backend must be one of {', '.join(BACKENDS)} (got {backend!r})")
    return await SqliteStore.open(path)
