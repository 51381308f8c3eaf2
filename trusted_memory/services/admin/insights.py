"""What the review desk shows beside the decisions: dashboard figures, sessions, links, user-model evidence.

Read-only: every change the web desk makes goes through AdminService, so it leaves the same audit
events as the CLI. Only cli/ and webui/ use this module (tests/test_architecture.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...errors import InvalidInput
from ...model import TRUSTED_SOURCES, Atom, Session, SessionNote, session_key, split_session_key
from ...people import LOCAL, acting_viewer
from ...store.base import now
from ...store.insights import DAY_S, InsightsRepo
from ..runtime import Runtime

# Event kinds that count as writes, and those that count as evictions, on the per-day charts.
WRITE_KINDS = ("atom_added", "atom_quarantined", "fact_added", "turn_observed", "episode_added")
EVICTION_KINDS = ("atom_evicted", "episode_evicted", "pending_evicted", "quarantine_expired")
# `describe` in scan/ writes "kind: detail (+n more); kind: detail"; the rule is the part before ':'.
_RULE = re.compile(r"(?:^|;\s*)([a-z][a-z0-9_\-]*):")
FINDINGS_WINDOW = 5000


@dataclass(frozen=True, slots=True)
class DayCount:
    """One day of a daily series (`day` is days since the epoch, UTC)."""

    day: int
    count: int


@dataclass(frozen=True, slots=True)
class Dashboard:
    """The figures of the dashboard page."""

    size_bytes: int
    cap_bytes: int
    by_type: dict[str, int]
    by_trust: dict[str, int]
    by_source: dict[str, int]
    growth: tuple[DayCount, ...]
    writes: tuple[DayCount, ...]
    recalls: tuple[DayCount, ...]
    evictions: dict[str, int]
    evictions_per_day: tuple[DayCount, ...]
    findings_by_rule: dict[str, int]
    sessions: int
    days: int


@dataclass(frozen=True, slots=True)
class ModelFieldView:
    """One stored user-model field with its evidence and how it got there."""

    path: str
    value: str
    source_class: str
    updated_at: float
    evidence: str

    @property
    def how(self) -> str:
        """'confirmed' when a person approved it, 'stated' when the user said it, else 'observed'."""
        if self.source_class == "user_approved":
            return "confirmed"
        return "stated" if self.source_class == "user_said" else "observed"


@dataclass(frozen=True, slots=True)
class SessionView:
    """One session with what the store kept of it."""

    session: Session
    turns: tuple[tuple[str, str], ...]
    notes: tuple[SessionNote, ...]


def rules_of(findings: str) -> list[str]:
    """The rule names in one findings summary ("injection: ...; credential: ..." -> two rules)."""
    return _RULE.findall(findings)


def _series(pairs: list[tuple[int, int]], first: int, last: int) -> tuple[DayCount, ...]:
    counts = dict(pairs)
    return tuple(DayCount(d, counts.get(d, 0)) for d in range(first, last + 1))


class AdminInsights:
    """Read-only views for the human: the dashboard, sessions, an atom's links, the user model's evidence."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._store = runtime.store

    async def dashboard(self, *, days: int = 30) -> Dashboard:
        """Store size against its cap, counts, and daily series over the last `days` days."""
        if not 1 <= days <= 366:
            days = 30
        today = int(now() // DAY_S)
        first = today - days + 1
        since = first * DAY_S
        async with self._store.read() as rx:
            repo = InsightsRepo(rx.conn)
            counts = await repo.atom_counts()
            base = await repo.count_before(since)
            created = await repo.created_per_day(since)
            events = await repo.events_per_day([*WRITE_KINDS, *EVICTION_KINDS], since)
            recalled = await repo.recalled_per_day(since)
            findings = await repo.quarantine_findings(FINDINGS_WINDOW)
            sessions = await repo.session_count()
            evicted_total = {kind: await rx.events.count(kind, owned=True) for kind in EVICTION_KINDS}
        by_type: Counter[str] = Counter()
        by_trust: Counter[str] = Counter()
        by_source: Counter[str] = Counter()
        for atom_type, status, source, n in counts:
            by_type[atom_type] += n
            by_source[source] += n
            trusted = status == "live" and source in TRUSTED_SOURCES
            by_trust["quarantined" if status != "live" else "trusted" if trusted else "live, indirect"] += n
        running, growth = base, []
        for point in _series(created, first, today):
            running += point.count
            growth.append(DayCount(point.day, running))
        writes: Counter[int] = Counter()
        evictions: Counter[int] = Counter()
        for kind, day, n in events:
            (writes if kind in WRITE_KINDS else evictions)[day] += n
        rules: Counter[str] = Counter()
        for line in findings:
            rules.update(set(rules_of(line)))
        return Dashboard(
            size_bytes=await self._store.used_bytes(),
            cap_bytes=self._runtime.budget.cap_bytes,
            by_type=dict(by_type.most_common()),
            by_trust=dict(by_trust.most_common()),
            by_source=dict(by_source.most_common()),
            growth=tuple(growth),
            writes=_series(list(writes.items()), first, today),
            recalls=_series(recalled, first, today),
            evictions=evicted_total,
            evictions_per_day=_series(list(evictions.items()), first, today),
            findings_by_rule=dict(rules.most_common()),
            sessions=sessions,
            days=days,
        )

    async def held(self) -> int:
        """How many quarantined atoms wait for review."""
        async with self._store.read() as rx:
            return await InsightsRepo(rx.conn).held_count(now())

    async def expired(self) -> int:
        """How many held items a prune would reject now."""
        async with self._store.read() as rx:
            return await InsightsRepo(rx.conn).expired_count(now())

    async def links(self, atom_id: str, *, limit: int = 30) -> list[tuple[Atom, str, float]]:
        """Atoms associated with this one (temporal, task, semantic), strongest first."""
        async with self._store.read() as rx:
            return await InsightsRepo(rx.conn).links(atom_id, limit)

    async def sessions(self, *, limit: int = 50) -> list[Session]:
        """The most recently active sessions."""
        async with self._store.read() as rx:
            return await rx.sessions.list(limit=limit)

    async def session(self, key: str) -> SessionView | None:
        """One session (by its key, `Session.key`) with its kept transcript and notes, or None.

        A bare id is the implicit owner's session; when no such session exists and several people hold
        one of that id, which of them is meant is asked for rather than guessed."""
        session_id, owner = split_session_key(key)
        async with self._store.read() as rx:
            if owner is None and acting_viewer() is None:
                owners = await rx.sessions.owners(session_id)
                if len(owners) > 1 and LOCAL not in owners:
                    keys = ", ".join(session_key(session_id, o) for o in owners)
                    raise InvalidInput(f"several people have a session {session_id!r}: name one of {keys}")
            session = await rx.sessions.get(session_id, owner=owner)
            if session is None:
                return None
            turns = await rx.sessions.turns(session.id, owner=session.owner)
            notes = await rx.sessions.notes(session.id, owner=session.owner)
        return SessionView(session, tuple(turns), tuple(notes))

    async def model_fields(self) -> list[ModelFieldView]:
        """Every stored user-model field with its evidence."""
        async with self._store.read() as rx:
            rows = await rx.pending.model_fields()
        return [ModelFieldView(*row) for row in rows]
