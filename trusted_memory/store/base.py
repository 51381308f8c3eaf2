"""What every store backend offers the services: snapshots to read, units of work to write.

Two backends implement it: SQLite (db.py, one file shared by the processes of one machine) and
PostgreSQL (postgres/db.py, one database shared by servers on many machines). Services see only
this interface and the repositories; which backend runs is a setting (`store.backend`).
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager

from .atoms import AtomsRepo
from .conn import Connection
from .events import EventsRepo
from .facts import FactsRepo
from .llm_calls import LLMCallsRepo
from .nudges import NudgesRepo
from .pending import PendingRepo
from .people import PeopleRepo
from .recall import RecallRepo
from .sessions import SessionsRepo
from .transfer import TransferRepo


class Reader:
    """Read access to every table, inside one consistent snapshot."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.facts = FactsRepo(conn)
        self.events = EventsRepo(conn)
        self.atoms = AtomsRepo(conn)
        self.pending = PendingRepo(conn)
        self.recall = RecallRepo(conn)
        self.sessions = SessionsRepo(conn)
        self.nudges = NudgesRepo(conn)
        self.transfer = TransferRepo(conn)
        self.llm_calls = LLMCallsRepo(conn)
        self.people = PeopleRepo(conn)

    async def change_counter(self) -> int:
        """How many write transactions the store has committed, across all processes."""
        async with self.conn.execute("SELECT value FROM meta WHERE key = 'change_counter'") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def schema_version(self) -> int:
        """The store's schema version (both backends number their schemas alike)."""
        sql = (
            "SELECT value FROM meta WHERE key = 'schema_version'"
            if self.conn.dialect == "postgres"
            else "PRAGMA user_version"
        )
        async with self.conn.execute(sql) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0


class Tx(Reader):
    """A write transaction; every change records an event."""

    def __init__(self, conn: Connection, *, counter: int | None = None) -> None:
        super().__init__(conn)
        self._counter = counter

    async def change_counter(self) -> int:
        """The change counter, as the backend read it when it took the write lock (else read now).

        Every writer holds the store's write lock, and the counter moves only when a transaction
        commits: until this one does, it is the value read under the lock.
        """
        if self._counter is not None:
            return self._counter
        return await super().change_counter()


class Store(ABC):
    """One process's handle on the shared store, whichever backend holds it."""

    backend: str
    # meta.change_counter as this process's latest write committed it (see RecallService).
    last_write_counter: int | None = None
    last_write_units = 0  # how many units (Store.write bodies) that commit held

    @property
    @abstractmethod
    def location(self) -> str:
        """Where the store is, for people: a file path, or a database without its password."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connections; a later use fails."""

    @abstractmethod
    def read(self, *, snapshot: bool = True) -> AbstractAsyncContextManager[Reader]:
        """Read access; with `snapshot`, every statement sees one state."""

    @abstractmethod
    def write(self) -> AbstractAsyncContextManager[Tx]:
        """A unit of work: all of it lands, or (on any error) none of it does; it returns once committed."""

    @abstractmethod
    async def used_bytes(self, *, limit: int | None = None) -> int:
        """Bytes the store's data holds (what the size cap counts).

        With `limit`, a backend whose measurement is costly may answer with an upper bound instead,
        whenever that bound is at most `limit`: "does it fit under `limit`" stays exact, and far
        from the cap it is cheap.
        """

    @abstractmethod
    async def release_space(self) -> None:
        """Give freed space back after eviction."""

    @abstractmethod
    async def compact(self) -> None:
        """Rewrite the store without free space and optimise its search indexes."""

    @abstractmethod
    async def size_bytes(self) -> int:
        """Bytes the store takes where it lives."""

    @abstractmethod
    async def integrity_check(self) -> list[str]:
        """The backend's consistency check: an empty list means the store is sound."""

    async def changes(self, interval_s: float) -> AsyncIterator[None]:
        """Yields whenever another process may have written (a file sends no signal: every interval)."""
        while True:
            await asyncio.sleep(interval_s)
            yield


def now() -> float:
    """Wall-clock seconds since the epoch; the store's one clock."""
    return time.time()
