"""Store health checks for `trusted-memory-admin doctor`, and the repairs that are safe to automate.

A check is a small entry in CHECKS: an `inspect` function that reads one snapshot and returns
one line per problem, and optionally a `repair` that fixes them (every change an event with actor
admin). Tables added later append their own checks to the list. Repairs that the admin side
already implements (prune) go through it; the caller hands in the admin service's constructor,
because only the admin CLI may build that service.

A file SQLite cannot read (or one that fails its integrity check) is never repaired in place:
with `repair`, the damaged file is set aside as `memory.db.corrupt-<timestamp>` and whatever rows
can still be read are salvaged into a fresh store at the original path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from ...config import Settings
from ...errors import StoreCorrupt
from ...model import Atom
from ...queries import AtomFilter
from ...store.base import Reader, now
from ...store.db import SqliteStore
from ...store.migrations import MIGRATIONS
from ...store.salvage import TableSalvage, copy_rows, set_aside
from ...trust import is_trusted
from ...usermodel import load_model
from ..runtime import Runtime, open_runtime
from .transfer import ProgressSink

PAGE = 1000


class PruneCounts(Protocol):
    """What a prune removed (services.admin.PruneReport)."""

    @property
    def quarantine_expired(self) -> int:
        """Expired quarantined atoms deleted."""

    @property
    def pending_expired(self) -> int:
        """Expired pending inferences deleted."""


class Housekeeping(Protocol):
    """The admin-side operations repairs reuse (services.admin.AdminService provides them)."""

    async def prune(self) -> PruneCounts:
        """Delete expired quarantine and pending reviews, one admin event each."""


HousekeepingFactory = Callable[[Runtime], Housekeeping]
Inspect = Callable[[Reader, Settings, float], Awaitable[list[str]]]
Repair = Callable[[Runtime, Housekeeping], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class Check:
    """One consistency check: what it looks for, and how (if at all) it repairs."""

    name: str
    description: str
    inspect: Inspect
    repair: Repair | None = None
    hint: str = ""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What one check found, and what is left after any repair."""

    name: str
    description: str
    found: tuple[str, ...]
    remaining: tuple[str, ...]
    repaired: int
    hint: str


@dataclass(frozen=True, slots=True)
class SalvageResult:
    """Where the damaged file went and what was recovered from it."""

    damaged_copy: str
    tables: tuple[TableSalvage, ...]

    @property
    def copied(self) -> int:
        """Rows recovered, over all tables."""
        return sum(t.copied for t in self.tables)


@dataclass(frozen=True, slots=True)
class DoctorReport:
    """The outcome of one doctor run."""

    path: str
    latest_schema: int
    schema_version: int | None = None
    damaged: str | None = None
    integrity: tuple[str, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    salvage: SalvageResult | None = None

    @property
    def ok(self) -> bool:
        """True when the store is readable, sound and no check has a problem left."""
        if self.schema_version is None:
            return False
        if self.integrity or self.schema_version != self.latest_schema:
            return False
        return not any(c.remaining for c in self.checks)


async def _all_atoms(rx: Reader, ts: float) -> list[Atom]:
    everything = AtomFilter(status=None, include_expired=True)
    out: list[Atom] = []
    while batch := await rx.atoms.list(everything, now=ts, limit=PAGE, offset=len(out), newest_first=False):
        out.extend(batch)
    return out


def _dangling(atoms: list[Atom]) -> dict[str, list[str]]:
    ids = {a.id for a in atoms}
    out: dict[str, list[str]] = {}
    for atom in atoms:
        missing = [r for r in atom.related if r not in ids]
        if missing:
            out[atom.id] = missing
    return out


async def inspect_related(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Atoms whose related ids point at atoms that no longer exist."""
    return [
        f"atom {atom_id} links to missing atom(s) {', '.join(missing)}"
        for atom_id, missing in _dangling(await _all_atoms(rx, ts)).items()
    ]


async def repair_related(runtime: Runtime, admin: Housekeeping) -> int:
    """Drop dangling related ids, one event per atom."""
    async with runtime.store.write() as tx:
        dangling = _dangling(await _all_atoms(tx, now()))
        for atom_id, missing in dangling.items():
            atom = await tx.atoms.get(atom_id)
            assert atom is not None
            await tx.atoms.set_related(atom_id, [r for r in atom.related if r not in missing])
            await tx.events.append(
                "admin", "atom_related_repaired", f"atom:{atom_id}", {"dropped": missing}, owner=atom.owner
            )
    return len(dangling)


async def inspect_expired_quarantine(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Quarantined atoms whose review window has passed but are still stored."""
    return [f"quarantined atom {a.id} expired (review window over)" for a in await rx.atoms.expired_quarantine(ts)]


async def inspect_expired_pending(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Pending inferences past their expiry that are still queued."""
    return [
        f"pending review {p.id} ({p.field_path}) expired"
        for p in await rx.pending.list(now=ts, include_expired=True)
        if p.expires_at <= ts
    ]


async def repair_expired_quarantine(runtime: Runtime, admin: Housekeeping) -> int:
    """Prune expired quarantine (prune records one event per item)."""
    return (await admin.prune()).quarantine_expired


async def repair_expired_pending(runtime: Runtime, admin: Housekeeping) -> int:
    """Prune expired pending inferences."""
    return (await admin.prune()).pending_expired


async def inspect_live_untrusted(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Live atoms with an untrusted source class: something bypassed the trust boundary."""
    return [
        f"live atom {a.id} has untrusted source {a.source_class!r}"
        for a in await _all_atoms(rx, ts)
        if a.status == "live" and not is_trusted(a.source_class)
    ]


async def inspect_user_model(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """User-model fields that fail validation or the scanner (written by something other than this code)."""
    dropped = load_model(await rx.pending.model_fields()).dropped
    return [f"user-model field {path!r} fails validation; context ignores it" for path in dropped]


async def repair_user_model(runtime: Runtime, admin: Housekeeping) -> int:
    """Delete the user-model fields that fail validation, one admin event each."""
    async with runtime.store.write() as tx:
        rows = await tx.pending.model_fields()
        bad = {path: value for path, value, *_ in rows if path in load_model(rows).dropped}
        for path, value in bad.items():
            await tx.pending.delete_field(path)
            await tx.events.append("admin", "user_model_field_dropped", f"user_model:{path}", {"value": value})
    return len(bad)


async def inspect_facts_caps(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Facts targets holding more than their cap (after an import or a lowered cap)."""
    entries = await rx.facts.list()
    out = []
    for target, cap in (("user", settings.facts.user_cap), ("env", settings.facts.env_cap)):
        used = sum(len(e.content) for e in entries if e.target == target)
        if used > cap:
            out.append(f"{target} facts hold {used:,} chars, over the cap of {cap:,}")
    return out


async def inspect_fts(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """The keyword index holds exactly the live atoms."""
    missing, extra = await rx.recall.fts_mismatch()
    out = []
    if missing:
        out.append(f"{len(missing)} live atom(s) missing from the keyword index")
    if extra:
        out.append(f"{len(extra)} keyword-index row(s) for atoms that are gone or quarantined")
    return out


async def repair_fts(runtime: Runtime, admin: Housekeeping) -> int:
    """Rebuild the keyword index from the live atoms."""
    async with runtime.store.write() as tx:
        count = await tx.recall.rebuild_fts()
        await tx.events.append("admin", "fts_rebuilt", None, {"indexed": count})
    return 1


async def inspect_vectors(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """Stored vectors belong to live atoms, and every live atom has a vector or waits for one."""
    space = await rx.recall.space()
    orphans, unembedded, stale_queue, links = await rx.recall.vector_problems(space)
    out = []
    if orphans:
        out.append(f"{orphans} vector(s) of atoms that are gone or quarantined")
    if unembedded:
        out.append(f"{unembedded} live atom(s) with no vector in space {space or '(none)'} and not queued")
    if stale_queue:
        out.append(f"{stale_queue} embed-queue row(s) for atoms that are gone")
    if links:
        out.append(f"{links} association(s) pointing at missing atoms")
    return out


async def repair_vectors(runtime: Runtime, admin: Housekeeping) -> int:
    """Drop orphaned vectors and links, queue live atoms for embedding, and embed them now."""
    await runtime.recall.adopt_space()
    async with runtime.store.write() as tx:
        changed = await tx.recall.repair_vectors(await tx.recall.space())
        await tx.events.append("admin", "vectors_repaired", None, {"changed": changed})
    await runtime.recall.drain_queue()
    return changed


# A model that has had this many calls without one valid answer is not going to start answering.
LLM_SILENT_AFTER = 5


async def inspect_memory_llm(rx: Reader, settings: Settings, ts: float) -> list[str]:
    """A configured memory model that never answered validly (each job, then all together)."""
    if settings.llm.provider == "none":
        return []
    from ..stats import llm_jobs  # lazy: only this check needs it

    jobs = llm_jobs(tuple(await rx.llm_calls.counts()))
    calls, ok = sum(j.calls for j in jobs), sum(j.ok for j in jobs)
    if calls < LLM_SILENT_AFTER or ok:
        return []
    last = next((j.last_error for j in reversed(jobs) if j.last_error), None)
    why = ", ".join(
        f"{n} {outcome}" for j in jobs for outcome, n in sorted(j.outcomes.items()) if outcome not in ("kept",)
    )
    return [
        f"the memory model ({settings.llm.provider} {settings.llm.model or ''}".rstrip()
        + f") answered none of {calls} calls validly ({why}); last error: {last or 'none recorded'}"
    ]


CHECKS: list[Check] = [
    Check(
        "fts",
        "the keyword index holds exactly the live atoms",
        inspect_fts,
        repair_fts,
        "--repair rebuilds it from the stored text",
    ),
    Check(
        "vectors",
        "vectors, embed queue and links match the live atoms",
        inspect_vectors,
        repair_vectors,
        "--repair drops orphans and re-embeds from the stored text",
    ),
    Check(
        "related",
        "atom links point at existing atoms",
        inspect_related,
        repair_related,
        "--repair drops the dangling ids",
    ),
    Check(
        "expired_quarantine",
        "no quarantined atom past its review window",
        inspect_expired_quarantine,
        repair_expired_quarantine,
        "--repair (or `prune`) deletes them",
    ),
    Check(
        "expired_pending",
        "no pending inference past its expiry",
        inspect_expired_pending,
        repair_expired_pending,
        "--repair (or `prune`) deletes them",
    ),
    Check(
        "live_untrusted",
        "live memory holds only trusted sources",
        inspect_live_untrusted,
        None,
        "review each with `atoms show ID`, then `forget ID`",
    ),
    Check(
        "user_model",
        "user-model fields valid and scan-clean",
        inspect_user_model,
        repair_user_model,
        "run `trusted-memory-admin doctor --repair` to delete them",
    ),
    Check(
        "facts_caps",
        "facts targets within their caps",
        inspect_facts_caps,
        None,
        "remove entries with `facts remove TARGET TEXT`",
    ),
    Check(
        "memory_llm",
        "the memory model, when configured, answers validly",
        inspect_memory_llm,
        None,
        "check llm.base_url, llm.model and llm.timeout_s (or set llm.provider = none); memory falls back to rules",
    ),
]


async def diagnose(
    runtime: Runtime,
    admin: Housekeeping,
    *,
    repair: bool,
    progress: ProgressSink | None = None,
) -> DoctorReport:
    """Check an opened store (integrity, schema, every entry of CHECKS), repairing what it may."""
    store = runtime.store
    latest = MIGRATIONS[-1].version
    if progress:
        progress.start(len(CHECKS) + 1, "doctor")
    integrity = tuple(await store.integrity_check())
    async with store.read() as rx:
        version = await rx.schema_version()
    if progress:
        progress.advance()
    report = DoctorReport(store.location, latest, version, integrity=integrity)
    if integrity:
        # Checks would read damaged pages; the only sound repair is a salvage.
        if progress:
            progress.close()
        return report
    results = []
    for check in CHECKS:
        async with store.read() as rx:
            found = await check.inspect(rx, runtime.settings, now())
        remaining, repaired = found, 0
        if repair and found and check.repair is not None:
            repaired = await check.repair(runtime, admin)
            async with store.read() as rx:
                remaining = await check.inspect(rx, runtime.settings, now())
        results.append(CheckResult(check.name, check.description, tuple(found), tuple(remaining), repaired, check.hint))
        if progress:
            progress.advance()
    if progress:
        progress.close()
    return replace(report, checks=tuple(results))


async def salvage(settings: Settings) -> SalvageResult:
    """Set the damaged file aside and copy what rows it still yields into a fresh store."""
    path = settings.db_path
    aside = set_aside(path)
    fresh = await SqliteStore.open(path)  # creates the file and its schema
    await fresh.close()
    tables = tuple(await asyncio.to_thread(copy_rows, aside, path))
    async with open_runtime(settings) as runtime, runtime.store.write() as tx:
        await tx.events.append(
            "admin",
            "store_salvaged",
            f"store:{path.name}",
            {
                "damaged_copy": str(aside),
                "tables": {
                    t.table: {"copied": t.copied, "read_errors": t.read_errors, "rejected": t.rejected} for t in tables
                },
            },
        )
    return SalvageResult(str(aside), tables)


async def run_doctor(
    settings: Settings,
    housekeeping: HousekeepingFactory,
    *,
    repair: bool,
    progress: ProgressSink | None = None,
) -> DoctorReport:
    """Open the store and diagnose it; with `repair`, fix what can be fixed, salvaging a damaged file."""
    latest = MIGRATIONS[-1].version
    try:
        async with open_runtime(settings) as runtime:
            report = await diagnose(runtime, housekeeping(runtime), repair=repair, progress=progress)
    except StoreCorrupt as exc:
        if progress:
            progress.close()
        report = DoctorReport(settings.store_location, latest, damaged=exc.message)
    else:
        if not report.integrity:
            return report
        report = replace(report, damaged=f"the {settings.store.backend} store's integrity check failed")
    if not repair or settings.store.backend != "sqlite":
        # A PostgreSQL database is repaired by PostgreSQL's own tools (and its backups), not by copying rows.
        return report
    rescued = await salvage(settings)
    async with open_runtime(settings) as runtime:
        after = await diagnose(runtime, housekeeping(runtime), repair=True, progress=progress)
    return replace(after, damaged=report.damaged, salvage=rescued)
