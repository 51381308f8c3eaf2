"""The SQLite store: one file shared by many processes (WAL, busy timeout, BEGIN IMMEDIATE writes).

A process writes through one connection. Concurrent writers of a process are committed together
(group commit, Store.write): one BEGIN IMMEDIATE ... COMMIT holds them all, each unit of work runs
alone in its own SAVEPOINT, so no unit sees another's half-done work and a failing one is rolled
back by itself, and every caller returns only after the COMMIT holding its write. Other processes are kept out by
SQLite's own locking: every write transaction starts with BEGIN IMMEDIATE, so a writer waits
(busy_timeout, then a few retries) instead of failing half-way through. That wait runs in a worker
thread; once the lock is held, the transaction's statements run in the loop's thread (conn.py).
An aiosqlite connection serves the long statements that may wait on other processes: migrations,
checkpoints, VACUUM and the integrity check.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import aiosqlite

from ..errors import MemoryServerError, MigrationError, StoreBusy, StoreCorrupt, StoreError
from .base import Reader, Store, Tx
from .conn import Connection, SyncReader, SyncWriter
from .group import GROUP_MAX_UNITS, Group
from .migrations import MIGRATIONS, Migration

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
BEGIN_RETRIES = 4
WAL_RETRIES = 10
REPAIR_HINT = (
    "restore a backup of the store, or run `trusted-memory-admin doctor --repair` (it keeps a copy of the damaged file)"
)


@contextmanager
def map_sqlite_errors(path: Path) -> Iterator[None]:
    """Translate sqlite3 errors into the store's own errors, most specific first."""
    try:
        yield
    except MemoryServerError:
        raise
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise StoreBusy(
                f"the memory store {path} stayed busy (another process held the write lock); retry the call"
            ) from exc
        if "malformed" in text or "not a database" in text:
            raise StoreCorrupt(f"the memory store {path} is damaged ({text}); {REPAIR_HINT}") from exc
        raise StoreError(f"the memory store {path} failed: {text}") from exc
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "malformed" in text or "not a database" in text or "encrypted" in text:
            raise StoreCorrupt(f"the memory store {path} is damaged ({text}); {REPAIR_HINT}") from exc
        raise StoreError(f"the memory store {path} failed: {text}") from exc


async def _switch_to_wal(conn: aiosqlite.Connection) -> aiosqlite.Row | None:
    """Set WAL mode, waiting out another process that is creating the same fresh file.

    Changing the journal mode needs an exclusive lock and SQLite may refuse it at once without
    calling the busy handler, so two servers opening a brand-new store together must retry.
    """
    for attempt in range(WAL_RETRIES + 1):
        try:
            async with conn.execute("PRAGMA journal_mode = WAL") as cur:
                return await cur.fetchone()
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or attempt == WAL_RETRIES:
                raise
            await asyncio.sleep(0.02 * (2 ** min(attempt, 5)) * (1 + random.random()))
    return None


def _prepare_files(path: Path) -> None:
    """Create the store folder 0700 and the database file 0600 before SQLite touches them."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700, exist_ok=True)  # another process may create it too
        os.chmod(folder, 0o700)
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    os.chmod(path, 0o600)


class SqliteStore(Store):
    """The shared SQLite store of one process."""

    backend = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self._reader: SyncReader | None = None
        self._writer: SyncWriter | None = None
        # meta.change_counter as this process's latest write committed it (see RecallService).
        self.last_write_counter: int | None = None
        self.last_write_units = 0  # how many units (Store.write bodies) that commit held
        self._read_lock = asyncio.Lock()
        self._group: Group | None = None
        self.measurements = 0  # how often used_bytes read the page counts (tests, benchmarks)

    @property
    def location(self) -> str:
        """The store's file."""
        return str(self.path)

    @classmethod
    async def open(cls, path: Path, migrations: tuple[Migration, ...] = MIGRATIONS) -> SqliteStore:
        """Open (creating if needed) the store at `path` and bring its schema up to date."""
        try:
            _prepare_files(path)
        except OSError as exc:
            raise StoreError(f"cannot create the memory store at {path}: {exc}") from exc
        with map_sqlite_errors(path):
            conn = await aiosqlite.connect(str(path), isolation_level=None)
        store = cls(conn, path)
        try:
            with map_sqlite_errors(path):
                conn.row_factory = aiosqlite.Row
                await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                mode_row = await _switch_to_wal(conn)
                if mode_row is None or str(mode_row[0]).lower() != "wal":
                    raise StoreError(f"the memory store {path} could not switch to WAL mode")
                await conn.execute("PRAGMA synchronous = NORMAL")
                await conn.execute("PRAGMA foreign_keys = ON")
                if await store._pragma_int("page_count") == 0:
                    # Only an empty file can change its vacuum mode; it lets eviction return pages.
                    await conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
                await store._migrate(migrations)
                store._reader = _open_reader(path)
                store._writer = _open_writer(path)
        except BaseException:
            await conn.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connections; a later use fails."""
        if self._reader is not None:
            self._reader.close()
        if self._writer is not None:
            self._writer.close()
        await self._conn.close()

    async def _pragma_int(self, name: str, conn: Connection | None = None) -> int:
        async with (conn or self._conn).execute(f"PRAGMA {name}") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def used_bytes(self, *, limit: int | None = None) -> int:
        """Bytes the store holds: pages in use (freed pages are reused) plus the WAL; with `limit`,
        possibly an upper bound of them instead, when that bound is at most `limit`.

        The size cap asks before and after every write, almost always far below the cap. Every page
        of the database lies in its file or, until a checkpoint copies it there, in the WAL, so the
        file's size plus the WAL's bounds the pages in use: two stats answer, no statement.
        """
        if limit is not None and (bound := self._files_bound()) <= limit:
            return bound
        # Read on the read connection, not through the writer's thread.
        assert self._reader is not None, "the store is not open"
        self.measurements += 1
        async with self._read_lock:
            with map_sqlite_errors(self.path):
                # One statement; the page size of a file never changes here.
                async with self._reader.execute(
                    "SELECT page_count - freelist_count, page_size FROM pragma_page_count, pragma_freelist_count, "
                    "pragma_page_size"
                ) as cur:
                    row = await cur.fetchone()
                size = int(row[0]) * int(row[1]) if row else 0
        try:
            size += os.stat(f"{self.path}-wal").st_size
        except FileNotFoundError:
            pass
        return size

    def _files_bound(self) -> int:
        """An upper bound of used_bytes: the database file, and the WAL twice (its frames may hold
        pages past the file's end, and used_bytes counts the WAL itself too)."""
        total = 0
        for suffix, times in (("", 1), ("-wal", 2)):
            try:
                total += os.stat(f"{self.path}{suffix}").st_size * times
            except FileNotFoundError:
                pass
        return total

    async def release_space(self) -> None:
        """Return freed pages to the file system and fold the WAL back (after eviction)."""
        async with self._lock:
            with map_sqlite_errors(self.path):
                # incremental_vacuum frees one page per step: an unconsumed cursor would leave the
                # statement (and its transaction) open and block the checkpoint.
                async with self._conn.execute("PRAGMA incremental_vacuum") as cur:
                    await cur.fetchall()
                async with self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cur:
                    await cur.fetchall()

    async def compact(self) -> None:
        """Checkpoint, VACUUM (rewrites the file without free pages) and optimise the FTS indexes."""
        async with self._lock:
            with map_sqlite_errors(self.path):
                await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                await self._conn.execute("INSERT INTO atoms_fts(atoms_fts) VALUES ('optimize')")
                await self._conn.execute("INSERT INTO episodes_fts(episodes_fts) VALUES ('optimize')")
                await self._conn.execute("VACUUM")
                await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def _user_version(self) -> int:
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def _migrate(self, migrations: tuple[Migration, ...]) -> None:
        latest = migrations[-1].version if migrations else 0
        current = await self._user_version()
        if current > latest:
            raise MigrationError(
                f"the memory store {self.path} has schema version {current}, newer than this "
                f"trusted-memory understands ({latest}); upgrade trusted-memory"
            )
        for migration in migrations:
            if migration.version <= current:
                continue
            await self._begin_immediate()
            try:
                # Another process may have migrated while we waited for the write lock.
                if await self._user_version() >= migration.version:
                    await self._conn.execute("ROLLBACK")
                    continue
                for statement in migration.statements:
                    await self._conn.execute(statement)
                await self._conn.execute(f"PRAGMA user_version = {migration.version}")
                await self._conn.execute("COMMIT")
                log.info("applied migration %03d %s", migration.version, migration.name)
            except sqlite3.Error as exc:
                await self._conn.execute("ROLLBACK")
                raise MigrationError(
                    f"migration {migration.version:03d} ({migration.name}) failed on {self.path}: {exc}"
                ) from exc

    async def _begin_immediate(self) -> None:
        """Take the write lock, waiting out other writers instead of failing on them."""
        for attempt in range(BEGIN_RETRIES + 1):
            try:
                await self._begin_shielded()
                return
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc)) or attempt == BEGIN_RETRIES:
                    raise
                await asyncio.sleep(0.05 * (2**attempt) * (1 + random.random()))

    async def _begin_shielded(self) -> None:
        # aiosqlite runs the statement in its own thread: cancelling our await does not stop it.
        # A cancelled BEGIN would otherwise leave the connection inside a transaction, so let it
        # finish, roll it back, and only then pass the cancellation on.
        begin = asyncio.ensure_future(self._conn.execute("BEGIN IMMEDIATE"))
        try:
            await asyncio.shield(begin)
        except asyncio.CancelledError:
            try:
                await begin
                await self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise

    @asynccontextmanager
    async def read(self, *, snapshot: bool = True) -> AsyncIterator[Reader]:
        """Read access (on the synchronous reader); with `snapshot`, every statement sees one state."""
        assert self._reader is not None, "the store is not open"
        async with self._read_lock:
            with map_sqlite_errors(self.path):
                if not snapshot:
                    yield Reader(self._reader)
                    return
                await self._reader.execute("BEGIN")
                try:
                    yield Reader(self._reader)
                finally:
                    await self._reader.execute("COMMIT")

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """A unit of work: all of it lands, or (on any error) none of it does; it returns once committed.

        Concurrent units are committed together (group commit): the first opens one BEGIN IMMEDIATE
        transaction; writers that arrive while it is open queue up and join it, each unit alone in
        its own SAVEPOINT (so a failing one is rolled back by itself and gets its own error); the
        unit that finishes with nobody queued behind it COMMITs for all. No caller is acknowledged
        before the COMMIT that holds its write: each one waits for it, and gets its error if it fails.

        A group forms only where writers really queue: behind another process's write lock (the
        first unit waits for it off the loop), or behind a unit that awaits. A unit that never
        suspends is committed at once: a WAL COMMIT here costs microseconds (synchronous=NORMAL,
        no fsync), so holding it back for company would only add latency (benchmarks/team_load.py).
        """
        assert self._writer is not None, "the store is not open"
        group = self._group
        if group is None or not group.open:
            # Lead a new group: the store's lock is held from here until the group's COMMIT.
            await self._lock.acquire()
            group = self._group = Group(asyncio.get_running_loop())
        group.members += 1
        group.active += 1
        ok = False
        try:
            async with group.body:
                with map_sqlite_errors(self.path):
                    async with self._unit(group) as tx:
                        yield tx
                ok = True
        finally:
            group.active -= 1
            if group.active == 0:
                # Nobody queued behind this unit: commit now. No await from the check to the
                # COMMIT, so no writer can slip in between, and a cancelled caller cannot skip it.
                self._finish(group)
        if ok:
            await asyncio.shield(group.done)

    @asynccontextmanager
    async def _unit(self, group: Group) -> AsyncIterator[Tx]:
        """One unit of a group, in its own savepoint (the group's transaction is begun by its first unit)."""
        assert self._writer is not None, "the store is not open"
        writer = self._writer
        raw = writer.raw
        if group.failed is not None:
            raise StoreError(
                f"the memory store {self.path} rolled back a write transaction ({group.failed}); retry the call"
            )
        if not group.begun:
            await self._begin_write(raw)
            group.begun = True
        name = f"unit{group.members}_{group.units}"
        group.units += 1
        raw.execute(f"SAVEPOINT {name}")
        try:
            yield Tx(writer)
        except BaseException as exc:
            if raw.in_transaction:
                raw.execute(f"ROLLBACK TO {name}")
                raw.execute(f"RELEASE {name}")
            else:  # SQLite rolled the whole transaction back (e.g. disk full): the group's earlier units too
                group.failed = str(exc) or type(exc).__name__
                group.open = False
            raise
        raw.execute(f"RELEASE {name}")
        group.landed += 1
        if group.landed >= GROUP_MAX_UNITS:
            group.open = False  # bound what one COMMIT holds up: later writers start the next group

    def _finish(self, group: Group) -> None:
        """Commit a group (its last unit is through, none is queued) and let the next group begin."""
        group.open = False
        if self._group is group:
            self._group = None
        try:
            self._commit(group)
        except Exception as exc:
            group.done.set_exception(exc)
            group.done.exception()  # retrieved here: a group whose callers all left must not warn
        else:
            group.done.set_result(None)
        finally:
            self._lock.release()

    def _commit(self, group: Group) -> None:
        """COMMIT what the group's units left (a group whose every unit failed commits nothing)."""
        assert self._writer is not None, "the store is not open"
        raw = self._writer.raw
        with map_sqlite_errors(self.path):
            try:
                if group.begun and group.landed and group.failed is None:
                    raw.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_counter'")
                    counter = raw.execute("SELECT value FROM meta WHERE key = 'change_counter'").fetchone()
                    raw.execute("COMMIT")
                    self.last_write_counter = int(counter[0])
                    self.last_write_units = group.landed
                    return
            except BaseException:
                if raw.in_transaction:  # SQLite may have rolled back already (e.g. disk full)
                    raw.execute("ROLLBACK")
                raise
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            if group.failed is not None:
                raise StoreError(
                    f"the memory store {self.path} rolled back a write transaction ({group.failed}); retry the call"
                )

    async def _begin_write(self, raw: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE on the write connection, never blocking the event loop on another process.

        The lock is nearly always free: then it is taken here at once (busy timeout 0 for this one
        statement). When another process holds it, the wait (busy timeout, then jittered retries, as
        for migrations) runs in a worker thread while the loop goes on.
        """
        raw.execute("PRAGMA busy_timeout = 0")
        try:
            raw.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
        finally:
            raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        for attempt in range(BEGIN_RETRIES + 1):
            try:
                await self._begin_in_thread(raw)
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or attempt == BEGIN_RETRIES:
                    raise
                await asyncio.sleep(0.05 * (2**attempt) * (1 + random.random()))

    @staticmethod
    async def _begin_in_thread(raw: sqlite3.Connection) -> None:
        # Cancelling our await does not stop the thread's statement. A cancelled BEGIN would
        # otherwise leave the connection inside a transaction, so let it finish, roll it back,
        # and only then pass the cancellation on.
        begin = asyncio.ensure_future(asyncio.to_thread(raw.execute, "BEGIN IMMEDIATE"))
        try:
            await asyncio.shield(begin)
        except asyncio.CancelledError:
            try:
                await begin
                raw.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise

    async def size_bytes(self) -> int:
        """Bytes on disk of the database and its WAL."""
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.stat(f"{self.path}{suffix}").st_size
            except FileNotFoundError:
                pass
        return total

    async def integrity_check(self) -> list[str]:
        """SQLite's integrity check: an empty list means the file is sound."""
        async with self._lock:
            with map_sqlite_errors(self.path):
                async with self._conn.execute("PRAGMA integrity_check") as cur:
                    rows = [str(r[0]) for r in await cur.fetchall()]
        return [] if rows == ["ok"] else rows


def _open_reader(path: Path) -> SyncReader:
    """The read connection: autocommit (snapshots are explicit), rows by name, the same busy timeout."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return SyncReader(conn)


def _open_writer(path: Path) -> SyncWriter:
    """The write connection: transactions are explicit, the same pragmas as the migrating connection.

    Used from the loop's thread, and from a worker thread only while it waits for the write lock
    (the store's lock keeps the two apart).
    """
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return SyncWriter(conn)


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text
