"""The PostgreSQL store: one database shared by many servers, on one machine or many.

Reads take a connection from a small pool; a snapshot read is a REPEATABLE READ, READ ONLY
transaction. Writes run on one connection per process and are committed together as on SQLite
(group commit, see SqliteStore.write): concurrent units of work join one transaction, each alone
in its own SAVEPOINT, and every caller returns only after the COMMIT holding its write. Across
processes, every write transaction first takes one transaction-scoped advisory lock, so writers
of all servers take turns exactly as SQLite's BEGIN IMMEDIATE makes them: the services' read-then-
write steps (dedup, caps, the vector sequence) stay correct without SERIALIZABLE retries, and no
deadlock or serialization failure can reach a caller. The COMMIT of a group moves
`meta.change_counter` on and sends it with NOTIFY; every server LISTENs, which wakes its resource
watcher at once instead of polling (`changes`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.numeric import FloatLoader
from psycopg_pool import AsyncConnectionPool

from ...config import StoreSettings
from ...dsn import redacted
from ...errors import MemoryServerError, MigrationError, StoreBusy, StoreError
from ..base import Reader, Store, Tx
from ..group import GROUP_MAX_UNITS, Group
from ..migrations import Migration
from .conn import PgConnection
from .schema import MIGRATIONS

log = logging.getLogger(__name__)

CHANNEL = "trusted_memory_changes"
# Advisory lock keys (any two fixed 64-bit numbers no other application of the database uses).
WRITE_LOCK = 0x746D656D_77726974  # "tmem" "writ"
MIGRATE_LOCK = 0x746D656D_6D696772  # "tmem" "migr"
COUNTER_SQL = "SELECT value FROM meta WHERE key = 'change_counter'"
POOL_SIZE = 4
CONNECT_TIMEOUT_S = 10
# used_bytes' bound (see there). A relation's file grows at most about twice the WAL its rows and
# index entries were logged with (a B-tree page splits half full); what grows without proportional
# WAL (a relation's first pages, a B-tree root split, a free space map's first pages, a heap's next
# page before rows fill it) is a few pages per relation: PAGE_SLACK_* of them, once per measurement.
GROWTH_PER_WAL_BYTE = 2
PAGE = 8192
PAGE_SLACK_PER_TABLE = 6  # heap, TOAST table and index, free space and visibility maps
PAGE_SLACK_PER_INDEX = 2  # first page or a root split
REMEASURE_COMMITS = 200  # commits (of any server) after which the bound is measured again ...
REMEASURE_S = 30.0  # ... or seconds: growth the WAL does not show cannot pile up
# The bytes and the WAL position they were measured at (the position first: what commits while the
# relations are summed is counted twice, never missed), and the relation counts for the slack.
# The tables of size_bytes (and the count of their indexes), from pg_class: the pg_stat_user_* views
# also read every relation's statistics (0.8 instead of 0.5 ms of the database's CPU at 10k atoms).
_TABLE = "relkind IN ('r', 'm', 'p')"
MEASURE_SQL = (
    "SELECT pg_current_wal_insert_lsn() - '0/0'; "
    f"SELECT COALESCE(SUM(pg_total_relation_size(oid)) FILTER (WHERE {_TABLE}), 0), "
    f"COUNT(*) FILTER (WHERE {_TABLE}), COUNT(*) FILTER (WHERE relkind = 'i') "
    "FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())"
)


@contextmanager
def map_pg_errors(location: str) -> Iterator[None]:
    """Translate psycopg errors into the store's own errors."""
    try:
        yield
    except MemoryServerError:
        raise
    except (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled) as exc:
        raise StoreBusy(f"the memory store {location} stayed busy ({exc}); retry the call") from exc
    except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure) as exc:
        # OperationalErrors too, but the server is there: it rolled the transaction back, and a retry
        # may pass. (The write lock makes writers take turns, so neither should ever happen.)
        raise StoreBusy(f"the memory store {location} rolled back a write transaction ({exc}); retry the call") from exc
    except psycopg.OperationalError as exc:
        raise StoreError(
            f"the memory store {location} is unreachable ({exc}); check that PostgreSQL runs and store.dsn, "
            "then retry the call"
        ) from exc
    except psycopg.Error as exc:
        raise StoreError(f"the memory store {location} failed: {exc}") from exc


def _floats(conn: psycopg.AsyncConnection[Any]) -> None:
    """Read NUMERIC results (a literal like 1.0 makes one) as floats, as SQLite's REAL: never Decimal."""
    conn.adapters.register_loader("numeric", FloatLoader)


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    _floats(conn)


def writer_session(limits: StoreSettings) -> tuple[str, ...]:
    """The writer's session limits (StoreSettings says why each exists).

    A server whose machine vanishes (power, network) leaves its transaction open, and with it the
    write lock every server takes: by default keepalives find the dead peer in about 30 s, and no
    write transaction may sit idle for a minute (a unit waits only on the database and this
    process's own work). A writer that waits a minute for the lock gets StoreBusy, not a hang.
    """
    return (
        f"SET idle_in_transaction_session_timeout = '{round(limits.idle_in_transaction_s * 1000)}ms'",
        f"SET lock_timeout = '{round(limits.lock_timeout_s * 1000)}ms'",
        f"SET tcp_keepalives_idle = {int(limits.keepalives_idle_s)}",
        f"SET tcp_keepalives_interval = {int(limits.keepalives_interval_s)}",
        f"SET tcp_keepalives_count = {int(limits.keepalives_count)}",
    )


WRITER_SESSION = writer_session(StoreSettings())


async def _connect_writer(dsn: str, session: tuple[str, ...] = WRITER_SESSION) -> psycopg.AsyncConnection[Any]:
    conn = await _connect(dsn)
    for statement in session:
        await conn.execute(statement)
    return conn


async def _connect(dsn: str) -> psycopg.AsyncConnection[Any]:
    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    _floats(conn)
    return conn


@dataclass(frozen=True)
class Measured:
    """used_bytes' last measurement: `size` bytes at WAL position `lsn` and change counter `counter`."""

    size: int
    lsn: int
    counter: int
    at: float  # time.monotonic()
    slack: int  # bytes the relations may grow by without a proportional WAL record

    def bound(self, counter: int, lsn: int | None) -> int | None:
        """At most how many bytes the store takes now (`counter`, `lsn`: the latest commit known), or
        None when the measurement is too old to bound it."""
        if lsn is None or counter - self.counter >= REMEASURE_COMMITS or time.monotonic() - self.at >= REMEASURE_S:
            return None
        return self.size + self.slack + GROWTH_PER_WAL_BYTE * max(0, lsn - self.lsn)


class PgStore(Store):
    """The shared PostgreSQL store of one process."""

    backend = "postgres"

    def __init__(
        self,
        dsn: str,
        writer: psycopg.AsyncConnection[Any],
        pool: AsyncConnectionPool,
        session: tuple[str, ...] = WRITER_SESSION,
    ) -> None:
        self._dsn = dsn
        self._session = session
        self._location = redacted(dsn)
        self._writer = writer
        self._pool = pool
        self._lock = asyncio.Lock()
        self._group: Group | None = None
        self._listener: psycopg.AsyncConnection[Any] | None = None
        self._listen_task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._finishing: set[asyncio.Task[None]] = set()
        self.last_write_counter: int | None = None
        self.last_write_units = 0
        # The latest change counter this process knows of, and the WAL position after that commit
        # (its own commits and the others' NOTIFYs); used_bytes' last measurement.
        self._known_counter: int | None = None
        self._known_lsn: int | None = None
        self._used: Measured | None = None
        self.measurements = 0  # how often used_bytes summed the relations (tests, benchmarks)

    @property
    def location(self) -> str:
        """The database, without its password."""
        return self._location

    @classmethod
    async def open(
        cls, dsn: str, migrations: tuple[Migration, ...] = MIGRATIONS, *, limits: StoreSettings | None = None
    ) -> PgStore:
        """Connect to the database `dsn` names and bring its schema up to date."""
        location = redacted(dsn)
        session = writer_session(limits or StoreSettings())
        with map_pg_errors(location):
            try:
                writer = await _connect_writer(dsn, session)
            except psycopg.Error as exc:
                raise StoreError(f"cannot connect to the memory store {location}: {exc}") from exc
            pool = AsyncConnectionPool(
                dsn,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                open=False,
                configure=_configure,
                name="trusted-memory-readers",
            )
            store = cls(dsn, writer, pool, session)
            try:
                await store._migrate(migrations)
                await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
                store._listener = await _connect(dsn)
                await store._listener.execute(f"LISTEN {CHANNEL}")
                cur = await writer.execute(COUNTER_SQL)
                row = await cur.fetchone()
                store._known_counter = int(row[0]) if row else None
            except BaseException:
                await store.close()
                raise
        store._listen_task = asyncio.create_task(store._listen(), name="trusted-memory-pg-listen")
        return store

    async def close(self) -> None:
        """Close the connections; a later use fails."""
        if self._finishing:
            await asyncio.gather(*self._finishing, return_exceptions=True)
        if self._listen_task is not None:
            self._listen_task.cancel()
            with suppress(asyncio.CancelledError, psycopg.Error):
                await self._listen_task
        for conn in (self._listener, self._writer):
            if conn is not None:
                with suppress(psycopg.Error):
                    await conn.close()
        with suppress(psycopg.Error):
            await self._pool.close()

    async def _listen(self) -> None:
        assert self._listener is not None
        try:
            async for note in self._listener.notifies():
                self._saw_counter(note.payload)
                self._changed.set()
        except psycopg.Error:
            log.warning("lost the change notifications of %s; resource watchers fall back to polling", self.location)

    def _saw_counter(self, payload: str) -> None:
        """A commit's NOTIFY payload: its change counter and the WAL position after it ("COUNTER LSN").

        A payload without the position (a server of an older version) leaves its commit's growth
        unknown: the next used_bytes measures.
        """
        with suppress(ValueError):
            counter, _, lsn = payload.partition(" ")
            self._saw_commit(int(counter), int(lsn) if lsn else None)

    def _saw_commit(self, counter: int, lsn: int | None) -> None:
        if self._known_counter is None or counter > self._known_counter:
            self._known_counter = counter
        if lsn is None:
            self._used = None
        elif self._known_lsn is None or lsn > self._known_lsn:
            self._known_lsn = lsn

    async def changes(self, interval_s: float) -> AsyncIterator[None]:
        """Yields after each commit of any server (NOTIFY); every `interval_s` only if notifications stopped."""
        while True:
            if self._listen_task is not None and not self._listen_task.done():
                await self._changed.wait()
                self._changed.clear()  # before the caller looks: a commit while it looks wakes it again
            else:
                await asyncio.sleep(interval_s)
            yield

    async def _migrate(self, migrations: tuple[Migration, ...]) -> None:
        latest = migrations[-1].version if migrations else 0
        conn = self._writer
        # A session lock, so servers starting together migrate one at a time.
        await conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK,))
        try:
            current = await self._schema_version()
            if current > latest:
                raise MigrationError(
                    f"the memory store {self.location} has schema version {current}, newer than this "
                    f"trusted-memory understands ({latest}); upgrade trusted-memory"
                )
            for migration in migrations:
                if migration.version <= current:
                    continue
                try:
                    async with conn.transaction():
                        for statement in migration.statements:
                            await conn.execute(statement)
                        await conn.execute(
                            "UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(migration.version),)
                        )
                except psycopg.Error as exc:
                    raise MigrationError(
                        f"migration {migration.version:03d} ({migration.name}) failed on {self.location}: {exc}"
                    ) from exc
                log.info("applied migration %03d %s", migration.version, migration.name)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_LOCK,))

    async def _schema_version(self) -> int:
        cur = await self._writer.execute("SELECT to_regclass('meta') IS NOT NULL")
        row = await cur.fetchone()
        if not row or not row[0]:
            return 0
        cur = await self._writer.execute("SELECT value FROM meta WHERE key = 'schema_version'")
        row = await cur.fetchone()
        return int(row[0]) if row else 0

    @asynccontextmanager
    async def read(self, *, snapshot: bool = True) -> AsyncIterator[Reader]:
        """Read access on a pooled connection; with `snapshot`, one REPEATABLE READ transaction.

        A pooled connection the server dropped while it sat idle (a restart, pg_terminate_backend, an
        idle timeout) shows only when the BEGIN fails on it; nothing has run yet, so the read takes
        another connection (the pool throws the broken one away) instead of failing the call.
        """
        with map_pg_errors(self.location):
            for attempt in range(POOL_SIZE + 1):
                async with self._pool.connection() as conn:
                    if not snapshot:
                        yield Reader(PgConnection(conn))
                        return
                    try:
                        await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    except psycopg.OperationalError:
                        if not conn.broken or attempt == POOL_SIZE:
                            raise
                        continue
                    try:
                        yield Reader(PgConnection(conn))
                    finally:
                        await conn.execute("COMMIT")
                    return

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """A unit of work: all of it lands, or none of it does; it returns once committed.

        Concurrent units share one transaction (see the module's docstring and SqliteStore.write).
        """
        group = self._group
        if group is None or not group.open:
            await self._lock.acquire()
            group = self._group = Group(asyncio.get_running_loop())
        group.members += 1
        group.active += 1
        ok = False
        try:
            async with group.body:
                with map_pg_errors(self.location):
                    async with self._unit(group) as tx:
                        yield tx
                ok = True
        finally:
            group.active -= 1
            if group.active == 0:
                # Nobody queued behind this unit: commit for all, in a task a cancelled caller cannot stop.
                group.open = False
                if self._group is group:
                    self._group = None
                task = asyncio.ensure_future(self._finish(group))
                self._finishing.add(task)
                task.add_done_callback(self._finishing.discard)
        if ok:
            await asyncio.shield(group.done)

    @asynccontextmanager
    async def _unit(self, group: Group) -> AsyncIterator[Tx]:
        """One unit of a group, in its own savepoint (the group's transaction is begun by its first unit)."""
        if group.failed is not None:
            raise StoreError(
                f"the memory store {self.location} rolled back a write transaction ({group.failed}); retry the call"
            )
        name = f"unit{group.units}"
        group.units += 1
        if not group.begun:
            group.begun = True  # first: if the lock fails, the group's end rolls back or resets the connection
            # One round trip (the simple query protocol runs them in order, stopping at an error), which
            # also reads the change counter under the lock: the units' index refreshes need not ask.
            group.counter = await self._begin(
                f"BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK}); SAVEPOINT {name}; {COUNTER_SQL}"
            )
            conn = self._writer
            unit = PgConnection(conn, pipelined=True)
        else:
            conn = self._writer
            unit = PgConnection(conn, pipelined=True)
            await unit.send(f"SAVEPOINT {name}")  # goes out with the unit's first statement
        try:
            yield Tx(unit, counter=group.counter)
            # What the unit queued last is sent here: its errors fail this unit, not the group's COMMIT.
            await unit.flush()
        except BaseException as exc:
            try:
                await unit.abandon(exc)
                await conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                await conn.execute(f"RELEASE SAVEPOINT {name}")
            except (psycopg.Error, asyncio.CancelledError):
                group.failed = str(exc) or type(exc).__name__
                group.open = False
            raise
        # Left open, not released: the COMMIT releases every savepoint of the group, and a later unit's
        # ROLLBACK TO its own savepoint leaves the earlier ones as they are (one round trip less a unit).
        group.landed += 1
        if group.landed >= GROUP_MAX_UNITS:
            group.open = False

    async def _begin(self, statement: str) -> int | None:
        """BEGIN a group's transaction on a live writer connection (`statement`: BEGIN and what follows it,
        ending with COUNTER_SQL); returns the change counter it read.

        The server may drop the writer between groups (a restart or failover, pg_terminate_backend, an
        idle timeout); psycopg finds out only on the next statement, this BEGIN. The group has sent
        nothing yet, so it opens a new connection and begins there, rather than failing this write
        and, with the closed connection kept, every later write of the process.
        """
        if self._writer.closed or self._writer.broken:
            await self._replace_writer()
        try:
            cur = await self._writer.execute(statement)
        except psycopg.OperationalError:
            if not (self._writer.closed or self._writer.broken):
                raise
            await self._replace_writer()
            cur = await self._writer.execute(statement)
        while cur.nextset():
            pass  # to the last statement's result: the counter
        row = await cur.fetchone()
        return int(row[0]) if row else None

    async def _replace_writer(self) -> None:
        with suppress(psycopg.Error):
            await self._writer.close()
        self._writer = await _connect_writer(self._dsn, self._session)

    async def _finish(self, group: Group) -> None:
        """Commit a group (its last unit is through, none is queued) and let the next group begin."""
        try:
            with map_pg_errors(self.location):
                await self._commit(group)
        except Exception as exc:
            group.done.set_exception(exc)
            group.done.exception()  # retrieved here: a group whose callers all left must not warn
        else:
            group.done.set_result(None)
        finally:
            self._lock.release()

    async def _commit(self, group: Group) -> None:
        conn = self._writer
        if not group.begun:
            return
        try:
            if group.landed and group.failed is None:
                # The counter, its NOTIFY and the COMMIT in one round trip (the cursor reads the first
                # result). The WAL position follows every record of the transaction but its COMMIT's.
                cur = await conn.execute(
                    "WITH moved AS (UPDATE meta SET value = (value::bigint + 1)::text "
                    "WHERE key = 'change_counter' RETURNING value), "
                    "wal AS (SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint::text AS lsn) "
                    f"SELECT value, lsn, pg_notify('{CHANNEL}', value || ' ' || lsn) FROM moved, wal; COMMIT"
                )
                row = await cur.fetchone()
                self.last_write_counter = int(row[0]) if row else None
                if row:
                    self._saw_commit(int(row[0]), int(row[1]))
                self.last_write_units = group.landed
                return
            await conn.execute("ROLLBACK")
        except BaseException:
            await self._reset_writer()
            raise
        if group.failed is not None:
            raise StoreError(
                f"the memory store {self.location} rolled back a write transaction ({group.failed}); retry the call"
            )

    async def _reset_writer(self) -> None:
        """After a failed COMMIT: roll back if the connection lives, else open a new one for the next group."""
        try:
            if self._writer.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await self._writer.execute("ROLLBACK")
        except psycopg.Error:
            with suppress(psycopg.Error):
                await self._writer.close()
            with suppress(psycopg.Error):
                self._writer = await _connect_writer(self._dsn, self._session)

    async def _scalar(self, sql: str) -> Any:
        with map_pg_errors(self.location):
            async with self._pool.connection() as conn:
                cur = await conn.execute(sql)
                row = await cur.fetchone()
        return row[0] if row else None

    async def used_bytes(self, *, limit: int | None = None) -> int:
        """Bytes the store's tables take in the database, indexes and TOAST included (size_bytes); with
        `limit`, possibly an upper bound of them instead, when that bound is at most `limit`.

        Summing the relations' sizes stats every file of the schema (1.1–1.5 ms of the database's
        CPU at 10k atoms, the largest part of a small write's), and the budget asks before and after
        every write. So a measurement is kept, with the WAL position it was taken at: while no
        commit of any server followed it, it is the answer; after commits, the bound is the
        measurement plus GROWTH_PER_WAL_BYTE × the WAL written since (every commit's NOTIFY brings
        its position) plus a few pages per relation. The budget asks with `limit` = what still fits:
        far from the cap the bound answers, near it (or after REMEASURE_COMMITS commits or
        REMEASURE_S seconds, or a VACUUM, or without notifications) the relations are summed again.
        """
        used = self._used
        listening = self._listen_task is not None and not self._listen_task.done()
        if listening and used is not None and self._known_counter is not None:
            if used.counter == self._known_counter:
                return used.size
            if limit is not None:
                bound = used.bound(self._known_counter, self._known_lsn)
                if bound is not None and bound <= limit:
                    return bound
        return await self._measure()

    async def _measure(self) -> int:
        counter = self._known_counter  # before the sum: a commit meanwhile moves it on, and counts again
        with map_pg_errors(self.location):
            async with self._pool.connection() as conn:
                cur = await conn.execute(MEASURE_SQL)
                lsn_row = await cur.fetchone()
                cur.nextset()
                row = await cur.fetchone()
        assert lsn_row is not None and row is not None
        self.measurements += 1
        size = int(row[0])
        slack = PAGE * (PAGE_SLACK_PER_TABLE * int(row[1]) + PAGE_SLACK_PER_INDEX * int(row[2]))
        self._used = Measured(size, int(lsn_row[0]), counter, time.monotonic(), slack) if counter is not None else None
        return size

    async def _maintenance(self, statement: str) -> None:
        """A statement that cannot run inside a transaction (VACUUM), on its own connection."""
        self._used = None  # a VACUUM (FULL) shrinks the files used_bytes sums, without a commit
        with map_pg_errors(self.location):
            async with self._pool.connection() as conn:
                await conn.execute(statement)

    async def release_space(self) -> None:
        """Rewrite the tables eviction empties without their dead rows (VACUUM FULL).

        PostgreSQL keeps a deleted row's space for reuse rather than shrinking the table, so without
        the rewrite the size would never fall after eviction. It runs only past the cap (before
        evicting, then after each eviction batch), and eviction leaves 5 % of headroom, so about once
        per thousands of writes; meanwhile those four tables are locked (about a second at 100 MB).
        """
        await self._maintenance("VACUUM (FULL) atoms, vectors, associations, embed_queue")

    async def compact(self) -> None:
        """VACUUM FULL (rewrites every table without free space) and refresh the planner's statistics."""
        await self._maintenance("VACUUM (FULL, ANALYZE)")

    async def size_bytes(self) -> int:
        """Bytes the store's tables take in the database, indexes and TOAST included."""
        value = await self._scalar(
            "SELECT COALESCE(SUM(pg_total_relation_size(relid)), 0) FROM pg_stat_user_tables "
            "WHERE schemaname = current_schema()"
        )
        return int(value or 0)

    async def integrity_check(self) -> list[str]:
        """Every table of the schema answers a full read (PostgreSQL's WAL keeps pages consistent itself)."""
        problems: list[str] = []
        with map_pg_errors(self.location):
            async with self._pool.connection() as conn:
                cur = await conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
                )
                for (table,) in await cur.fetchall():
                    try:
                        await conn.execute(f'SELECT count(*) FROM "{table}"')
                    except psycopg.Error as exc:
                        problems.append(f"{table}: {exc}")
        return problems
