"""One model call in flight per backend, a bounded line of waiting jobs, stale jobs dropped.

A local model server answers one request at a time; sending it three at once only makes each wait
in its queue, where a client-side time limit keeps counting. So jobs wait here instead, and each
job's time limit starts when its own call does. Rules:

- a background job (turn extraction, follow-up prediction, user-state inference) carries a key,
  e.g. `extract:<session>`; a newer job with the same key supersedes a waiting one (the older
  turn's extraction is stale once the next turn arrived);
- a keyed background job first settles for `settle_s`: a newer job with its key arriving meanwhile
  supersedes it before it ever reaches the model, so turns observed in a burst (a replay, an import,
  a host flushing several turns) cost the model one call, not one per turn, and leave the machine's
  cores to the calls a user waits on;
- at most `MAX_WAITING` background jobs wait; past that the oldest waiting one is dropped;
- a foreground job (a caller is waiting on it: the episode at `end_session`, a merge judgement)
  goes ahead of every background job and preempts a background call in flight, so the caller's
  whole wait is bounded by its own deadline.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import anyio

__all__ = ["MAX_WAITING", "Dropped", "Gate", "gate_for"]

T = TypeVar("T")
MAX_WAITING = 8


class Dropped(Exception):
    """The job never ran, or was stopped: superseded, crowded out or preempted."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass(eq=False)
class _Ticket:
    job: str
    key: str | None
    foreground: bool
    granted: asyncio.Future[None]
    superseded: asyncio.Future[str] | None = None  # set while the job settles; resolved with why it went
    scope: anyio.CancelScope | None = None
    dropped: str | None = None
    done: bool = field(default=False)


class Gate:
    """The call slot of one backend (see the module docstring)."""

    def __init__(self, max_waiting: int = MAX_WAITING) -> None:
        self._max_waiting = max_waiting
        self._current: _Ticket | None = None
        self._waiting: list[_Ticket] = []
        self._settling: dict[str, _Ticket] = {}

    @property
    def waiting(self) -> int:
        """How many jobs wait for the slot."""
        return len(self._waiting)

    async def run(
        self,
        job: str,
        call: Callable[[], Awaitable[T]],
        *,
        timeout_s: float,
        key: str | None = None,
        foreground: bool = False,
        settle_s: float = 0.0,
    ) -> T:
        """Run `call` when the slot is free; raise Dropped or TimeoutError.

        A background job's `timeout_s` counts from when its call starts; a foreground job's counts
        from now, its wait included. A keyed background job waits `settle_s` first (see above).
        """
        ticket = _Ticket(job, key, foreground, asyncio.get_running_loop().create_future())
        if not foreground and key is not None and settle_s > 0:
            await self._settle(ticket, key, settle_s)
        if foreground:
            with anyio.fail_after(timeout_s):
                await self._acquire(ticket)
                return await self._call(ticket, call)
        await self._acquire(ticket)
        with anyio.fail_after(timeout_s):
            return await self._call(ticket, call)

    async def _call(self, ticket: _Ticket, call: Callable[[], Awaitable[T]]) -> T:
        try:
            with anyio.CancelScope() as scope:
                ticket.scope = scope
                return await call()
            raise Dropped(ticket.dropped or "stopped")  # only reached when the scope was cancelled
        finally:
            self._release(ticket)

    def drop(self, key: str, why: str) -> int:
        """Stop every job with `key`: settling, waiting or in flight (e.g. a session's prediction once
        the session ended). How many were stopped."""
        stopped = int(self._supersede_settling(key, why))
        for waiting in [t for t in self._waiting if t.key == key]:
            self._drop(waiting, why)
            stopped += 1
        current = self._current
        if current is not None and current.key == key and current.scope is not None and not current.scope.cancel_called:
            current.dropped = why
            current.scope.cancel()
            stopped += 1
        return stopped

    async def settle(self, job: str, key: str, settle_s: float) -> None:
        """Wait `settle_s` unless a newer job with `key` comes first (then raise Dropped): for a
        caller with work to do before it builds its prompt, which a superseded job can skip."""
        ticket = _Ticket(job, key, False, asyncio.get_running_loop().create_future())
        await self._settle(ticket, key, settle_s)

    async def _settle(self, ticket: _Ticket, key: str, settle_s: float) -> None:
        self._supersede_settling(key, f"superseded by a newer {ticket.job} job")
        ticket.superseded = asyncio.get_running_loop().create_future()
        self._settling[key] = ticket
        try:
            await asyncio.wait({ticket.superseded}, timeout=settle_s)
        finally:
            if self._settling.get(key) is ticket:
                del self._settling[key]
        if ticket.superseded.done():
            raise Dropped(ticket.superseded.result())

    def _supersede_settling(self, key: str, why: str) -> bool:
        """End the settling wait of the job with `key`, if one is settling; whether one was."""
        settling = self._settling.get(key)
        if settling is None or settling.superseded is None or settling.superseded.done():
            return False
        settling.superseded.set_result(why)
        return True

    async def _acquire(self, ticket: _Ticket) -> None:
        if self._current is None and not self._waiting:
            self._current = ticket
            return
        if ticket.key is not None:
            for older in [t for t in self._waiting if t.key == ticket.key]:
                self._drop(older, f"superseded by a newer {ticket.job} job")
        if ticket.foreground:
            at = next((i for i, t in enumerate(self._waiting) if not t.foreground), len(self._waiting))
            self._waiting.insert(at, ticket)
            current = self._current
            if current is not None and not current.foreground and current.scope is not None:
                current.dropped = f"preempted by the {ticket.job} job a caller waits on"
                current.scope.cancel()
        else:
            background = [t for t in self._waiting if not t.foreground]
            if len(background) >= self._max_waiting:
                self._drop(background[0], f"more than {self._max_waiting} model jobs were waiting")
            self._waiting.append(ticket)
        try:
            await ticket.granted
        except BaseException:
            if ticket in self._waiting:
                self._waiting.remove(ticket)
            elif self._current is ticket:
                self._release(ticket)
            raise

    def _drop(self, ticket: _Ticket, why: str) -> None:
        self._waiting.remove(ticket)
        if not ticket.granted.done():
            ticket.granted.set_exception(Dropped(why))

    def _release(self, ticket: _Ticket) -> None:
        if self._current is not ticket:
            return
        self._current = None
        while self._waiting:
            nxt = self._waiting.pop(0)
            if not nxt.granted.done():
                self._current = nxt
                nxt.granted.set_result(None)
                return


# One gate per backend object and event loop: a backend is one model server.
_GATES: weakref.WeakKeyDictionary[object, tuple[asyncio.AbstractEventLoop, Gate]] = weakref.WeakKeyDictionary()


def gate_for(backend: object) -> Gate:
    """The gate of `backend` in the running loop."""
    loop = asyncio.get_running_loop()
    entry = _GATES.get(backend)
    if entry is None or entry[0] is not loop:
        entry = (loop, Gate())
        _GATES[backend] = entry
    return entry[1]
