"""A group commit's bookkeeping, shared by both backends' Store.write."""

from __future__ import annotations

import asyncio

# Units of work one COMMIT may hold: bounds how long the group's first caller waits under a stream of writers.
GROUP_MAX_UNITS = 64


class Group:
    """Concurrent units of work committed by one transaction (see SqliteStore.write)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.done: asyncio.Future[None] = loop.create_future()
        self.body = asyncio.Lock()  # units run one at a time on the one write connection
        self.open = True  # new writers may still join
        self.begun = False
        self.members = 0  # writers that joined
        self.active = 0  # joined and not yet through their unit
        self.units = 0  # savepoints opened
        self.landed = 0  # units released into the transaction
        self.failed: str | None = None  # SQLite rolled the transaction back under a unit
        self.counter: int | None = None  # meta.change_counter as read under the write lock (PostgreSQL)
