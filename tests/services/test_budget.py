"""The size cap: eviction order, what is never evicted, and that every eviction is an event."""

from __future__ import annotations

import dataclasses

import pytest

from trusted_memory.config import Settings
from trusted_memory.queries import AtomFilter
from trusted_memory.services.atoms import WRITE_FOOTPRINT, AtomDraft, AtomsService
from trusted_memory.services.budget import StoreBudget
from trusted_memory.services.runtime import Runtime
from trusted_memory.store.base import now

pytestmark = pytest.mark.anyio
MB = 1024 * 1024


def capped(settings: Settings, mb: float) -> Settings:
    return dataclasses.replace(settings, max_size_mb=mb)


async def test_writes_past_the_cap_evict_in_order_and_keep_the_store_under_it(
    runtime: Runtime, settings: Settings
) -> None:
    # A PostgreSQL store starts larger (each table and index holds pages of its own): 1.5 MB above that.
    postgres = settings.store.backend == "postgres"
    small = capped(settings, 1.5 + (await runtime.store.used_bytes() / MB if postgres else 0.0))
    # A write there may also add a page to each relation it touches (the atom, its indexes, vector, event).
    footprint = 24 * 8192 if postgres else WRITE_FOOTPRINT
    budget = StoreBudget(runtime.store, small)
    atoms = AtomsService(runtime.store, small, runtime.recall, budget)
    keep_pinned = (
        await atoms.add(AtomDraft(content="My blood type is O negative", source="user_said", pinned=True))
    ).atom
    keep_critical = (
        await atoms.add(AtomDraft(content="I am allergic to penicillin", source="user_said", importance="critical"))
    ).atom
    web = (await atoms.add(AtomDraft(content="A web page said the launch moved to May", source="web"))).atom
    first_live = (
        await atoms.add(AtomDraft(content="Note zero: the very first ordinary memory", source="user_said"))
    ).atom
    peak = 0
    for i in range(1500):
        text = f"Ordinary memory number {i}: on day {i % 365} I walked {i % 17} km and read chapter {i} of a novel"
        await atoms.add(AtomDraft(content=text, source="user_said"))
        peak = max(peak, await runtime.store.used_bytes())
    # The cap is checked before each write, so the store can pass it by what one write adds, WAL
    # frames included: WRITE_FOOTPRINT, or a little more when an FTS segment merge rewrites pages.
    assert peak <= small.max_size_mb * MB + 2 * footprint
    async with runtime.store.read() as rx:
        survivors = {
            a.id for a in await rx.atoms.list(AtomFilter(status=None, include_expired=True), now=now(), limit=5000)
        }
        evictions = await rx.events.list(kind="atom_evicted", limit=100_000)
    assert evictions, "the cap was reached"
    assert {keep_pinned.id, keep_critical.id} <= survivors
    assert web.id not in survivors and first_live.id not in survivors  # quarantine and the stalest go first
    assert evictions[0].subject == f"atom:{web.id}" and all(e.actor == "system" for e in evictions)


async def test_a_store_of_only_pinned_atoms_refuses_clearly(runtime: Runtime, settings: Settings) -> None:
    tiny = capped(settings, 1.0)
    atoms = AtomsService(runtime.store, tiny, runtime.recall, StoreBudget(runtime.store, tiny))
    with pytest.raises(Exception, match="pinned or critical"):
        for i in range(3000):
            await atoms.add(
                AtomDraft(
                    content=f"Pinned fact {i}: keep this one forever please {i * 7}", source="user_said", pinned=True
                )
            )


@pytest.mark.postgres_only  # SQLite measures at every check; PostgreSQL answers from a bound far from the cap
async def test_the_bound_far_from_the_cap_never_lets_the_store_run_past_it(
    runtime: Runtime, settings: Settings
) -> None:
    store = runtime.store
    # Room for the bound to answer for a while (its slack is a few pages per relation, ~1.5 MB here).
    small = capped(settings, 4.0 + await store.size_bytes() / MB)
    footprint = 24 * 8192
    budget = StoreBudget(store, small)
    atoms = AtomsService(store, small, runtime.recall, budget)
    far = small.max_size_mb * MB - 2 * MB  # below it, the bound (slack included) is under the cap
    far_writes, far_measurements, peak = 0, 0, 0
    for i in range(1000):
        # Notes of ~2,000 characters: the cap is reached in a few hundred writes.
        text = f"Note {i}: " + " ".join(f"word{(i * 7919 + j * 104729) % 99991}" for j in range(200))
        measured = store.measurements  # type: ignore[attr-defined]
        await atoms.add(AtomDraft(content=text, source="user_said", atom_type="note"))
        # Measured beside the budget (size_bytes keeps no figure), so the budget's bound is not refreshed.
        size = await store.size_bytes()
        peak = max(peak, size)
        if size < far:
            far_writes += 1
            far_measurements += store.measurements - measured  # type: ignore[attr-defined]
    async with store.read() as rx:
        evictions = await rx.events.list(kind="atom_evicted", limit=100_000)
    assert evictions, "the cap was reached"
    assert peak <= small.max_size_mb * MB + 2 * footprint
    # And the bound did answer: far from the cap, writes measured almost nothing (near it, each does).
    assert far_writes > 50 and far_measurements <= far_writes / 10, (far_writes, far_measurements)
