"""Background work that must never delay a reply nor crash the server."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class Background:
    """Tasks started after a reply (warm-up, embedding, recall statistics, LLM jobs)."""

    def __init__(self) -> None:
        self._tasks: dict[asyncio.Task[Any], str] = {}
        self._last: dict[str, float] = {}

    def spawn(self, work: Callable[[], Awaitable[Any]], kind: str = "misc") -> asyncio.Task[Any]:
        """Run `work` soon; failures are logged, never raised. `kind` lets callers wait for some."""
        task = asyncio.get_running_loop().create_task(self._guarded(work))
        self._tasks[task] = kind
        task.add_done_callback(lambda done: self._tasks.pop(done, None))
        return task

    def spawn_once(self, kind: str, work: Callable[[], Awaitable[Any]], *, every_s: float) -> None:
        """Run `work` unless a task of this kind is running or ran less than `every_s` ago."""
        now = time.monotonic()
        if any(k == kind for k in self._tasks.values()) or now - self._last.get(kind, -every_s) < every_s:
            return
        self._last[kind] = now
        self.spawn(work, kind)

    async def wait(self, kind: str, timeout_s: float) -> None:
        """Wait (up to `timeout_s`) for the pending tasks of one kind; they keep running after that."""
        tasks = [t for t, k in self._tasks.items() if k == kind]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)

    async def _guarded(self, work: Callable[[], Awaitable[Any]]) -> None:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("background memory work failed")

    async def drain(self, timeout_s: float = 5.0) -> None:
        """Let pending work finish (up to `timeout_s`), then cancel what is left."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout_s)
        await self.cancel()

    async def cancel(self) -> None:
        """Cancel every pending task and wait for them to stop."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
