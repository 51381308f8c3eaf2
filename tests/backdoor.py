"""Change or read the store behind the server's back (a clock moved, a tampered row), on whichever
backend the test runs: the SQLite file in the home folder, or the PostgreSQL database conftest.store_env
named. Statements are written in SQLite's dialect, as the repositories' are."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from postgres_cluster import store_env_for


def _dsn(home: Path) -> str | None:
    return store_env_for(home).get("MCP_MEMORY_STORE__DSN")


def execute(home: Path, statement: str, params: tuple[object, ...] = ()) -> None:
    """Run one statement and commit it."""
    dsn = _dsn(home)
    if dsn is None:
        with sqlite3.connect(home / "memory.db", timeout=30) as conn:
            conn.execute(statement, params)
        return
    import psycopg

    from trusted_memory.store.postgres.conn import translate

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(translate(statement), params)  # type: ignore[arg-type]


def query(home: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """All rows of one query."""
    dsn = _dsn(home)
    if dsn is None:
        with sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True, timeout=30) as conn:
            return list(conn.execute(sql, params))
    import psycopg

    from trusted_memory.store.postgres.conn import translate

    with psycopg.connect(dsn, autocommit=True) as conn:
        return [tuple(r) for r in conn.execute(translate(sql), params).fetchall()]  # type: ignore[arg-type]
