"""The lifespan state every handler reads, and the one runtime per process that backs it.

Its own module so that app.py (which registers the handlers) and sampling.py (a resolver that
reads the state too) both import it without importing each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from ..config import Settings
from ..errors import StoreBusy
from ..services.agent import AgentService
from ..services.runtime import open_runtime


@dataclass(frozen=True, slots=True)
class AppState:
    """What every request handler reads from the lifespan."""

    agent: AgentService
    settings: Settings


class SharedRuntime:
    """Opens the store once per process however many times the transport enters the lifespan.

    stdio and streamable HTTP enter the lifespan once, but SSE enters it per connection; sharing
    one runtime keeps one connection (and later one in-memory index) per process.
    """

    def __init__(
        self,
        settings: Settings,
        watcher: Callable[[AgentService], AbstractAsyncContextManager[None]] | None = None,
    ) -> None:
        self._settings = settings
        self._watcher = watcher  # runs while the runtime is open (the resource change watcher)
        self._users = 0
        self._stack: AsyncExitStack | None = None
        self._state: AppState | None = None
        self._lock = asyncio.Lock()

    def current(self) -> AppState:
        """The open runtime; static resources reach it here because they get no request context."""
        if self._state is None:
            raise StoreBusy("the memory store is not open yet; retry once the session is initialised")
        return self._state

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[AppState]:
        """Use the runtime, opening it on first use and closing it after the last."""
        async with self._lock:
            if self._state is None:
                stack = AsyncExitStack()
                runtime = await stack.enter_async_context(open_runtime(self._settings, warm_up=True))
                state = AppState(AgentService(runtime), self._settings)
                if self._watcher is not None:
                    await stack.enter_async_context(self._watcher(state.agent))
                self._stack, self._state = stack, state
            self._users += 1
            state = self._state
        try:
            yield state
        finally:
            async with self._lock:
                self._users -= 1
                if self._users == 0 and self._stack is not None:
                    stack, self._stack, self._state = self._stack, None, None
                    await stack.aclose()
