"""Store-wide statistics shared by the agent and admin sides."""

from __future__ import annotations

from dataclasses import dataclass

from .facts import FactsService, TargetUsage
from .runtime import Runtime


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Sizes and counts of the whole store."""

    path: str
    size_bytes: int
    facts: tuple[TargetUsage, ...]
    events: int
    change_counter: int


async def store_stats(runtime: Runtime, facts: FactsService) -> StoreStats:
    """Collect the store's statistics."""
    usage = await facts.usage()
    async with runtime.store.read() as rx:
        events = await rx.events.count()
        counter = await rx.change_counter()
    return StoreStats(
        path=str(runtime.store.path),
        size_bytes=await runtime.store.size_bytes(),
        facts=tuple(usage),
        events=events,
        change_counter=counter,
    )
