"""The repositories' connection interface over a psycopg 3 async connection.

The repositories write SQLite's dialect. Most of it is also PostgreSQL's; what is not, and is
mechanical, is rewritten here once per statement text (the texts are a bounded set, so the rewrite
is cached): `?` placeholders, `INSERT OR IGNORE`/`OR REPLACE`, SQLite's planner hints, `char()`,
`json_extract` of one field, a truncating integer quotient, and a few fixed fragments
(tests/store/test_pg_translate.py shows each).
What is not mechanical (full-text search, JSON functions, PRAGMAs) is written per backend in the
repository that needs it, keyed on `Connection.dialect`.

On the writer, `send` and `send_many` queue a statement whose result nobody reads in psycopg's
pipeline mode instead of waiting for it: the queue goes out with the unit's next `execute` (whose
result its caller waits for anyway) or at the unit's end, so a unit costs a round trip per
statement it reads from, not per statement. An error of a queued statement is raised there, still
inside the unit, which then rolls back to its savepoint as before.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable, Sequence
from contextlib import AsyncExitStack
from functools import lru_cache
from typing import Any, ClassVar

import psycopg
from psycopg.rows import RowMaker

Params = Iterable[Any]

# The primary key each table's `INSERT OR REPLACE` replaces on (the schema's, in schema.py).
REPLACE_KEYS: dict[str, tuple[str, ...]] = {
    "vectors": ("atom_num",),
    "associations": ("src", "dst", "kind"),
    "embedding_cache": ("hash", "space"),
    "user_model": ("owner", "field_path"),
    "meta": ("key",),
}
_OR_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+)\s*\(([^)]*)\)", re.IGNORECASE)
_OR_IGNORE = re.compile(r"INSERT OR IGNORE INTO", re.IGNORECASE)
_HINTS = re.compile(r"\s+(?:INDEXED BY \w+|NOT INDEXED)\b", re.IGNORECASE)
_CHAR = re.compile(r"\bchar\((\d+)\)", re.IGNORECASE)
_JSON_FIELD = re.compile(r"json_extract\((\w+), '\$\.(\w+)'\)")
_WHOLE_QUOTIENT = re.compile(r"CAST\((\w+) / \? AS INTEGER\)")  # SQLite truncates; PostgreSQL would round
# Fragments whose PostgreSQL form is not a pattern, one for one.
_FRAGMENTS = (
    ("EXISTS (SELECT 1 FROM json_each(atoms.tags) WHERE json_each.value = ?)", "jsonb_exists(atoms.tags::jsonb, ?)"),
    ("substr(subject, -12) IS substr(?, -12) AND +subject IS ?", "right(subject, 12) = right(?, 12) AND subject = ?"),
    ("MAX(confidence, ?)", "GREATEST(confidence, ?)"),
    ("CAST(value AS INTEGER)", "value::bigint"),
)


# Tables whose integer key an import may give explicitly (SQLite's INTEGER PRIMARY KEY then goes on from
# the largest key; a PostgreSQL identity would not, so its sequence is moved past it).
_EXPLICIT_KEY = re.compile(
    r"INSERT (?:OR \w+ )?INTO (events|facts|session_notes|session_turns|nudges_shown)\(id,", re.IGNORECASE
)


@lru_cache(maxsize=1024)
def explicit_key_table(sql: str) -> str | None:
    """The table whose identity this statement sets explicitly, if any."""
    found = _EXPLICIT_KEY.search(sql)
    return found.group(1) if found else None


def _sync_identity(table: str) -> str:
    return f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST((SELECT MAX(id) FROM {table}), 1))"


def _placeholders(sql: str) -> str:
    """`?` becomes `%s` and a literal `%` becomes `%%`, outside quoted strings and names."""
    out: list[str] = []
    quote = ""
    for ch in sql:
        if quote:
            if ch == quote:
                quote = ""
            out.append("%%" if ch == "%" else ch)
        elif ch in ("'", '"'):
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch)
    return "".join(out)


def _before_returning(text: str, clause: str) -> str:
    """`text` with `clause` added where PostgreSQL wants it: before a RETURNING, else at the end."""
    returning = _RETURNING.search(text)
    if returning is None:
        return text + clause
    return text[: returning.start()] + clause + text[returning.start() :]


_RETURNING = re.compile(r"\s+RETURNING\s", re.IGNORECASE)


@lru_cache(maxsize=4096)
def translate(sql: str) -> str:
    """The PostgreSQL text of a repository statement written in SQLite's dialect."""
    text = sql
    replace = _OR_REPLACE.search(text)
    if replace:
        table, columns = replace.group(1), [c.strip() for c in replace.group(2).split(",")]
        keys = REPLACE_KEYS[table]
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in keys)
        text = _OR_REPLACE.sub(f"INSERT INTO {table}({', '.join(columns)})", text, count=1)
        text = _before_returning(
            text, f" ON CONFLICT ({', '.join(keys)}) " + (f"DO UPDATE SET {updates}" if updates else "DO NOTHING")
        )
    elif _OR_IGNORE.search(text):
        text = _before_returning(_OR_IGNORE.sub("INSERT INTO", text, count=1), " ON CONFLICT DO NOTHING")
    text = _HINTS.sub("", text)
    text = _CHAR.sub(r"chr(\1)", text)
    text = _JSON_FIELD.sub(r"(\1::jsonb ->> '\2')", text)
    text = _WHOLE_QUOTIENT.sub(r"floor(\1 / ?)::bigint", text)
    for sqlite, postgres in _FRAGMENTS:
        text = text.replace(sqlite, postgres)
    return _placeholders(text)


class Row(tuple[Any, ...]):
    """A result row read by position or by column name, as sqlite3.Row is."""

    __slots__ = ()
    names: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self.names)


@lru_cache(maxsize=1024)
def _row_class(names: tuple[str, ...]) -> type[Row]:
    return type("ResultRow", (Row,), {"__slots__": (), "names": {n: i for i, n in enumerate(names)}})


def _returns_rows(cursor: psycopg.AsyncCursor[Any]) -> bool:
    """Whether the cursor's current result holds rows (a SELECT or RETURNING, not a bare INSERT)."""
    res = cursor.pgresult
    return res is not None and res.status in _ROW_STATUSES


_ROW_STATUSES = frozenset((psycopg.pq.ExecStatus.TUPLES_OK, psycopg.pq.ExecStatus.SINGLE_TUPLE))


def row_factory(cursor: psycopg.AsyncCursor[Any]) -> RowMaker[Row]:
    """Rows of one result: a Row subclass that knows the result's column names.

    The names are read from the result itself: `cursor.description` would build a Column object
    per column on every statement, which at a search's seven statements was a visible share of it.
    """
    res = cursor.pgresult
    if res is None or res.status not in _ROW_STATUSES:
        return _row_class(())
    return _row_class(tuple((res.fname(i) or b"").decode() for i in range(res.nfields)))


class Cursor:
    """What repositories read from a cursor."""

    def __init__(self, cursor: psycopg.AsyncCursor[Row]) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    async def fetchone(self) -> Any:
        return await self._cursor.fetchone() if _returns_rows(self._cursor) else None

    async def fetchall(self) -> list[Any]:
        return await self._cursor.fetchall() if _returns_rows(self._cursor) else []


class Statement:
    """`await conn.execute(...)` and `async with conn.execute(...) as cur`, as the SQLite side offers."""

    def __init__(self, owner: PgConnection, sql: str, parameters: Params) -> None:
        self._owner, self._sql, self._parameters = owner, sql, tuple(parameters)
        self._cursor: psycopg.AsyncCursor[Row] | None = None

    async def _run(self) -> Cursor:
        owner = self._owner
        cursor = owner.raw.cursor(row_factory=row_factory)
        self._cursor = cursor
        if owner.queued:
            # Behind queued statements: this one joins their flight, and the caller gets its result.
            await owner.enqueue(cursor, self._sql, self._parameters)
            await owner.flush()
            return Cursor(cursor)
        await cursor.execute(translate(self._sql), self._parameters or None)
        table = explicit_key_table(self._sql)
        if table is not None:
            await owner.raw.execute(_sync_identity(table))
        return Cursor(cursor)

    def __await__(self) -> Generator[Any, None, Cursor]:
        return self._run().__await__()

    async def __aenter__(self) -> Cursor:
        return await self._run()

    async def __aexit__(self, *exc: object) -> None:
        if self._cursor is not None:
            await self._cursor.close()


class PgConnection:
    """A psycopg connection with the calling convention the repositories use.

    With `pipelined` (the writer's units), `send` and `send_many` queue their statements in
    pipeline mode (see the module's docstring); otherwise they run at once, as `execute` does.
    """

    dialect = "postgres"

    def __init__(self, conn: psycopg.AsyncConnection[Any], *, pipelined: bool = False) -> None:
        self.raw = conn
        self._pipelined = pipelined
        self._pipeline: AsyncExitStack | None = None  # open while statements are queued

    @property
    def queued(self) -> bool:
        """Whether statements wait in the pipeline for the next flush."""
        return self._pipeline is not None

    def execute(self, sql: str, parameters: Params = ()) -> Statement:
        """Run one statement (awaitable, or an async context manager)."""
        return Statement(self, sql, parameters)

    async def executemany(self, sql: str, parameters: Iterable[Params]) -> Cursor:
        """Run one statement for each parameter set (one pipelined round trip)."""
        rows: Sequence[Sequence[Any]] = [tuple(p) for p in parameters]
        cursor = self.raw.cursor(row_factory=row_factory)
        if rows:
            await cursor.executemany(translate(sql), rows)
            table = explicit_key_table(sql)
            if table is not None:
                await self.raw.execute(_sync_identity(table))
            if self.queued:
                await self.flush()  # inside an open pipeline psycopg sends them but does not wait
        return Cursor(cursor)

    async def send(self, sql: str, parameters: Params = ()) -> None:
        """Run a statement whose result (rows, rowcount) the caller never reads."""
        if not self._pipelined:
            await self.execute(sql, parameters)
            return
        await self._open()
        await self.enqueue(self.raw.cursor(row_factory=row_factory), sql, tuple(parameters))

    async def send_many(self, sql: str, parameters: Iterable[Params]) -> None:
        """`send` for each parameter set."""
        rows: Sequence[Sequence[Any]] = [tuple(p) for p in parameters]
        if not rows:
            return
        if not self._pipelined:
            await self.executemany(sql, rows)
            return
        await self._open()
        cursor = self.raw.cursor(row_factory=row_factory)
        await cursor.executemany(translate(sql), rows)  # in the open pipeline: queued, not waited for
        table = explicit_key_table(sql)
        if table is not None:
            await self.raw.execute(_sync_identity(table))

    async def fetch_each(self, statements: Sequence[tuple[str, Params]]) -> list[list[Any]]:
        """Run statements in order and return each one's rows; on the writer in one round trip (pipeline
        mode: they go out behind whatever `send` queued, and the unit waits once for all of them)."""
        if not self._pipelined:
            out: list[list[Any]] = []
            for sql, parameters in statements:
                async with self.execute(sql, parameters) as cur:
                    out.append(await cur.fetchall())
            return out
        await self._open()
        cursors = []
        for sql, parameters in statements:
            cursor = self.raw.cursor(row_factory=row_factory)
            await self.enqueue(cursor, sql, tuple(parameters))
            cursors.append(cursor)
        await self.flush()
        rows = []
        for cursor in cursors:
            rows.append(await Cursor(cursor).fetchall())
            await cursor.close()
        return rows

    async def enqueue(self, cursor: psycopg.AsyncCursor[Row], sql: str, parameters: tuple[Any, ...]) -> None:
        """Queue one statement in the open pipeline (psycopg sends it without waiting for its result)."""
        await cursor.execute(translate(sql), parameters or None)
        table = explicit_key_table(sql)
        if table is not None:
            await self.raw.execute(_sync_identity(table))

    async def _open(self) -> None:
        if self._pipeline is None:
            stack = AsyncExitStack()
            await stack.enter_async_context(self.raw.pipeline())
            self._pipeline = stack

    async def flush(self) -> None:
        """Send what is queued and wait for every result; raises the first queued statement's error."""
        stack, self._pipeline = self._pipeline, None
        if stack is not None:
            await stack.aclose()

    async def abandon(self, exc: BaseException) -> None:
        """Leave pipeline mode after `exc` ended the unit: what is queued is sent, and its errors give way to `exc`."""
        stack, self._pipeline = self._pipeline, None
        if stack is not None:
            await stack.__aexit__(type(exc), exc, exc.__traceback__)
