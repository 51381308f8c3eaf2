"""Store-wide statistics shared by the agent and admin sides."""

from __future__ import annotations

from dataclasses import dataclass

from ..store.llm_calls import LLMCallCount
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
    llm_provider: str = "none"
    llm_calls: tuple[LLMCallCount, ...] = ()


async def store_stats(runtime: Runtime, facts: FactsService) -> StoreStats:
    """Collect the store's statistics."""
    usage = await facts.usage()
    await runtime.llm_stats.flush()  # this process's latest model outcomes, not a second behind
    async with runtime.store.read() as rx:
        events = await rx.events.count()
        counter = await rx.change_counter()
        llm_calls = await rx.llm_calls.counts()
    return StoreStats(
        path=runtime.store.location,
        size_bytes=await runtime.store.size_bytes(),
        facts=tuple(usage),
        events=events,
        change_counter=counter,
        llm_provider=runtime.settings.llm.provider,
        llm_calls=tuple(llm_calls),
    )


@dataclass(frozen=True, slots=True)
class LLMJobSummary:
    """One memory-LLM job's calls by outcome, the items kept and discarded, and its last error."""

    job: str
    calls: int
    outcomes: dict[str, int]
    last_error: str | None

    @property
    def ok(self) -> int:
        """Calls answered validly (their items may still have been discarded as ungrounded)."""
        return self.outcomes.get("ok", 0)


def llm_jobs(counts: tuple[LLMCallCount, ...]) -> list[LLMJobSummary]:
    """The counters grouped by job; `calls` counts call outcomes, not the items of answered calls."""
    from ..llm.base import ITEM_OUTCOMES  # lazy: only the stats surfaces need it

    jobs: dict[str, list[LLMCallCount]] = {}
    for c in counts:
        jobs.setdefault(c.job, []).append(c)
    out = []
    for job, rows in sorted(jobs.items()):
        errors = sorted((r for r in rows if r.last_error), key=lambda r: r.last_at)
        out.append(
            LLMJobSummary(
                job,
                sum(r.count for r in rows if r.outcome not in ITEM_OUTCOMES),
                {r.outcome: r.count for r in rows},
                errors[-1].last_error if errors else None,
            )
        )
    return out
