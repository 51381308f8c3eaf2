"""Wiring: opens the store and builds the services one process needs, from the settings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from ..config import Settings
from ..llm.base import LLMStats, MemoryLLM, NullLLM
from ..store.backends import open_store
from ..store.base import Store, now
from .background import Background
from .budget import StoreBudget
from .limits import WriteRateLimiter
from .recall import RecallService


@dataclass(frozen=True, slots=True)
class Runtime:
    """Everything opened for one process: settings, the store, recall, the memory LLM, background work."""

    settings: Settings
    store: Store
    recall: RecallService
    llm: MemoryLLM
    llm_stats: LLMStats
    background: Background
    budget: StoreBudget
    writes: WriteRateLimiter


def build_llm(settings: Settings) -> MemoryLLM:
    """The memory LLM the settings name; `sampling` is supplied per call by the server."""
    conf = settings.llm
    if conf.provider == "http":
        from ..llm.openai_http import OpenAIChatLLM  # lazy: httpx costs ~60 ms of start-up

        return OpenAIChatLLM(
            conf.base_url,
            conf.model,
            api_key=conf.api_key,
            timeout_s=conf.timeout_s,
            max_tokens=conf.max_tokens,
            temperature=conf.temperature,
            stream=conf.stream,
        )
    return NullLLM()


ERROR_CHARS = 300
# Counts are written together, at most this long after the first of them: a write per model
# outcome (three a turn) would queue behind and in front of observe's own writes.
STATS_FLUSH_S = 1.0


class StoreStatsSink:
    """Keeps the memory-LLM counters in the store, where the admin CLI and doctor read them."""

    def __init__(self, store: Store, background: Background) -> None:
        self._store = store
        self._background = background
        self._pending: list[tuple[str, str, int, str | None, float]] = []
        self._scheduled = False

    async def __call__(self, job: str, outcome: str, n: int, error: str | None) -> None:
        self._pending.append((job, outcome, n, error[:ERROR_CHARS] if error else None, now()))
        if not self._scheduled:
            self._scheduled = True
            self._background.spawn(self._later, "llm_stats")

    async def _later(self) -> None:
        await asyncio.sleep(STATS_FLUSH_S)
        await self.flush()

    async def flush(self) -> None:
        """Write every buffered count in one transaction."""
        pending, self._pending, self._scheduled = self._pending, [], False
        if not pending:
            return
        async with self._store.write() as tx:
            for job, outcome, n, error, ts in pending:
                await tx.llm_calls.add(job, outcome, n, error, ts)


async def open_settings_store(settings: Settings) -> Store:
    """The store the settings name (`store.backend`: the SQLite file in the home folder, or PostgreSQL)."""
    return await open_store(
        settings.store.backend, path=settings.db_path, dsn=settings.store.dsn, limits=settings.store
    )


@asynccontextmanager
async def open_runtime(settings: Settings, *, warm_up: bool = False) -> AsyncIterator[Runtime]:
    """Open the store named by the settings (optionally warming recall in the background)."""
    store = await open_settings_store(settings)
    background = Background()
    recall = RecallService(store, settings, background=background)
    llm = build_llm(settings)
    llm_stats = LLMStats(sink=None if isinstance(llm, NullLLM) else StoreStatsSink(store, background))
    try:
        if warm_up:
            recall.start_background()
        yield Runtime(
            settings,
            store,
            recall,
            llm,
            llm_stats,
            background,
            StoreBudget(store, settings),
            WriteRateLimiter(settings.agent_writes_per_minute),
        )
    finally:
        try:
            await background.drain(timeout_s=2.0)
            await llm_stats.flush()
            await recall.close()
            closer = getattr(llm, "aclose", None)
            if closer is not None:
                await closer()
        finally:
            await store.close()


async def check_store(settings: Settings) -> bool:
    """Open and close the store once, so a bad home or a damaged file fails before serving.

    Returns whether the store is a team's (it holds people with live tokens): then HTTP requires a token.
    """
    store = await open_settings_store(settings)
    try:
        async with store.read() as rx:
            return await rx.people.active_count() > 0
    finally:
        await store.close()
