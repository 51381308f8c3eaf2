"""Statistics shared by the agent and admin sides.

In a team's store a person's statistics count only what that person may see: their own events (each
event names its owner), their facts. The store's size stays, as the whole store's (the cap everyone shares);
the write counter and the memory model's call counters, which count everyone's activity, are left
out of a person's figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..people import restricting_viewer
from ..store.llm_calls import LLMCallCount
from .facts import FactsService, TargetUsage
from .runtime import Runtime


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Sizes and counts: of the whole store, or (`counted_for` a person) of what that person may see.

    `size_bytes` is always the whole store's; `change_counter` is None and `llm_calls` empty for a person.
    """

    path: str
    size_bytes: int
    facts: tuple[TargetUsage, ...]
    events: int
    change_counter: int | None
    llm_provider: str = "none"
    llm_calls: tuple[LLMCallCount, ...] = ()
    counted_for: str | None = None


async def store_stats(runtime: Runtime, facts: FactsService) -> StoreStats:
    """Collect the statistics the acting person may see (the whole store's for the operator)."""
    usage = await facts.usage()
    viewer = restricting_viewer()
    await runtime.llm_stats.flush()  # this process's latest model outcomes, not a second behind
    async with runtime.store.read() as rx:
        events = await rx.events.count(owned=True)
        counter = await rx.change_counter() if viewer is None else None
        llm_calls = await rx.llm_calls.counts() if viewer is None else []
    return StoreStats(
        path=runtime.store.location,
        size_bytes=await runtime.store.size_bytes(),
        facts=tuple(usage),
        events=events,
        change_counter=counter,
        llm_provider=runtime.settings.llm.provider,
        llm_calls=tuple(llm_calls),
        counted_for=viewer.name if viewer is not None else None,
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
