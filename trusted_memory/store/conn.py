"""The connection interface the repositories use, and the synchronous connections behind it.

Reads in WAL mode never wait for a lock, and each is tens of microseconds, so they run on a plain
sqlite3 connection in the loop's own thread: a search makes several statements, and an aiosqlite
thread hop per statement cost more than the statements. Write transactions do the same once they
hold the write lock (nothing inside a WAL write transaction waits for another process): an atom
write is about twenty statements, and their thread hops cost more CPU than the statements did.
Only taking the lock may wait; the store does that wait off the loop (see db.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Generator, Iterable, Sequence
from typing import Any, Protocol, cast

Params = Iterable[Any]


class Cursor(Protocol):
    """What repositories read from a cursor."""

    @property
    def rowcount(self) -> int: ...

    async def fetchone(self) -> Any: ...

    async def fetchall(self) -> Iterable[Any]: ...


class Connection(Protocol):
    """What repositories need of a connection (SQLite's synchronous ones, or PostgreSQL's)."""

    @property
    def dialect(self) -> str:
        """'sqlite' or 'postgres': the few statements that differ are written per dialect."""
        ...

    def execute(self, sql: str, parameters: Params = ...) -> Any: ...

    async def executemany(self, sql: str, parameters: Iterable[Params]) -> Any: ...

    async def send(self, sql: str, parameters: Params = ...) -> None:
        """Run a statement whose result the caller never reads.

        PostgreSQL's writer queues it with the unit's next statement instead of waiting a round trip
        for it; its error, if any, then fails the unit at that statement or at the unit's end.
        """
        ...

    async def send_many(self, sql: str, parameters: Iterable[Params]) -> None:
        """`send` for each parameter set."""
        ...

    async def fetch_each(self, statements: Sequence[tuple[str, Params]]) -> list[list[Any]]:
        """Run statements in order and return each one's rows (none for a statement without).

        PostgreSQL's writer sends them in one round trip (and what `send` queued with them): for
        reads a unit needs together, whose statements do not depend on each other's results.
        """
        ...


# Keys per `IN (...)` look-up: well under SQLite's limit of bound parameters per statement.
IN_CHUNK = 500


async def rows_in(conn: Connection, sql: str, keys: Sequence[Any]) -> list[Any]:
    """The rows of `sql` for every key, its `{keys}` replaced by placeholders, IN_CHUNK keys a statement."""
    rows: list[Any] = []
    for start in range(0, len(keys), IN_CHUNK):
        part = list(keys[start : start + IN_CHUNK])
        async with conn.execute(sql.format(keys=", ".join("?" * len(part))), part) as cur:
            rows.extend(await cur.fetchall())
    return rows


class _SyncCursor:
    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()


class _Statement:
    """`await conn.execute(...)` and `async with conn.execute(...) as cur`, like aiosqlite's."""

    def __init__(self, conn: sqlite3.Connection, sql: str, parameters: Params) -> None:
        self._conn, self._sql, self._parameters = conn, sql, tuple(parameters)
        self._cursor: sqlite3.Cursor | None = None

    def _run(self) -> _SyncCursor:
        self._cursor = self._conn.execute(self._sql, self._parameters)
        return _SyncCursor(self._cursor)

    def __await__(self) -> Generator[Any, None, _SyncCursor]:
        # A generator that never suspends: the statement runs right here, in the loop's thread.
        return self._run()
        yield  # pragma: no cover - makes this function a generator

    async def __aenter__(self) -> _SyncCursor:
        return self._run()

    async def __aexit__(self, *exc: object) -> None:
        if self._cursor is not None:
            self._cursor.close()


class SyncReader:
    """A read-only sqlite3 connection with aiosqlite's calling convention."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @property
    def raw(self) -> sqlite3.Connection:
        """The sqlite3 connection itself (the store's own transaction control)."""
        return self._conn

    def execute(self, sql: str, parameters: Params = ()) -> _Statement:
        """Run one statement synchronously (awaitable, or an async context manager)."""
        return _Statement(self._conn, sql, parameters)

    async def executemany(self, sql: str, parameters: Iterable[Params]) -> Any:
        """Reads never execute many."""
        raise sqlite3.OperationalError("the read connection does not write")

    async def send(self, sql: str, parameters: Params = ()) -> None:
        """Run one statement at once (in-process: nothing to gain by waiting)."""
        self._conn.execute(sql, tuple(parameters)).close()

    async def send_many(self, sql: str, parameters: Iterable[Params]) -> None:
        """Run one statement for each parameter set, at once."""
        await self.executemany(sql, parameters)

    async def fetch_each(self, statements: Sequence[tuple[str, Params]]) -> list[list[Any]]:
        """Run statements in order, at once; each one's rows."""
        out: list[list[Any]] = []
        for sql, parameters in statements:
            cursor = self._conn.execute(sql, tuple(parameters))
            out.append(cursor.fetchall())
            cursor.close()
        return out

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


class SyncWriter(SyncReader):
    """The write connection: statements run synchronously, inside a transaction the store opened."""

    async def executemany(self, sql: str, parameters: Iterable[Params]) -> _SyncCursor:
        """Run one statement for each parameter set."""
        return _SyncCursor(self._conn.executemany(sql, cast(Iterable[Sequence[Any]], parameters)))
