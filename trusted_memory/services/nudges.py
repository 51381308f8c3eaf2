"""Proactive nudges (opt-in): open questions, stale goals, blockers and drift, from trusted data.

At most `features.nudges_per_day` are shown in any 24 hours, one per `context`, each kind at most
once per `features.nudge_cooldown_hours`, and the same subject not again within a week. Showing a
nudge in `context` records it; `preview` (the admin CLI's `nudges`) records nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..config import Settings
from ..queries import AtomFilter
from ..store.base import Store, now
from ..text import content_terms
from ..timefmt import age
from ..trust import is_trusted
from ..usermodel import UserModel
from .facts import preview as preview_text

DAY = 86400.0
SUBJECT_QUIET_S = 7 * DAY
QUESTION_MIN_AGE_S = DAY
GOAL_STALE_S = 14 * DAY
BLOCKER_MIN_AGE_S = DAY
DRIFT_TURNS = 6
CANDIDATE_TTL_S = 60.0
KINDS = ("blocker", "open_question", "stale_goal", "drift")  # priority order


@dataclass(frozen=True, slots=True)
class Nudge:
    """One thing worth raising with the user."""

    kind: str
    subject: str
    text: str


@dataclass(frozen=True, slots=True)
class NudgePreview:
    """Every candidate, and which would be shown now (nothing is recorded)."""

    candidates: tuple[Nudge, ...]
    due: tuple[Nudge, ...]
    shown_today: int
    per_day: int


class NudgeService:
    """Find, cap and record proactive nudges."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._stored: tuple[float, list[Nudge]] = (-CANDIDATE_TTL_S, [])

    async def _from_store(self, ts: float) -> list[Nudge]:
        """Open questions and stale goals; they change on the scale of days, so a minute-old list will do."""
        if ts - self._stored[0] < CANDIDATE_TTL_S:
            return self._stored[1]
        out: list[Nudge] = []
        async with self._store.read() as rx:
            questions = await rx.atoms.list(
                AtomFilter(types=("question",), until=ts - QUESTION_MIN_AGE_S), now=ts, limit=5
            )
            goals = await rx.atoms.list(AtomFilter(types=("goal",), until=ts - GOAL_STALE_S), now=ts, limit=20)
        for atom in questions:
            if is_trusted(atom.source_class):
                out.append(
                    Nudge(
                        "open_question",
                        atom.id,
                        f"open question from {age(atom.created_at)}: {preview_text(atom.text, 160)}",
                    )
                )
        for atom in goals:
            touched = max(atom.updated_at, atom.last_recalled_at or 0.0)
            if is_trusted(atom.source_class) and ts - touched >= GOAL_STALE_S:
                out.append(
                    Nudge(
                        "stale_goal",
                        atom.id,
                        f"goal set {age(atom.created_at)}, not touched since: "
                        f"{preview_text(atom.text, 160)} — still on?",
                    )
                )
        self._stored = (ts, out)
        return out

    async def candidates(self, model: UserModel, recent_user: Sequence[str] = ()) -> list[Nudge]:
        """Every nudge the trusted data supports right now, by priority."""
        ts = now()
        out: list[Nudge] = []
        blocker = model.fields.get("current_focus.blocker")
        if blocker is not None and ts - blocker.updated_at >= BLOCKER_MIN_AGE_S:
            out.append(
                Nudge(
                    "blocker",
                    "current_focus.blocker",
                    f"blocker noted {age(blocker.updated_at)}: {preview_text(blocker.value, 160)} — solved yet?",
                )
            )
        out += await self._from_store(ts)
        task = model.get("current_focus.task")
        if task and len(recent_user) >= DRIFT_TURNS:
            focus_terms = set(content_terms(task))
            if focus_terms and not any(focus_terms & set(content_terms(m)) for m in recent_user[-DRIFT_TURNS:]):
                out.append(
                    Nudge(
                        "drift",
                        f"drift:{task}",
                        f'the stated focus was "{preview_text(task, 100)}"; '
                        f"the last {DRIFT_TURNS} messages are about something else",
                    )
                )
        return sorted(out, key=lambda n: KINDS.index(n.kind))

    async def _due(self, found: list[Nudge], ts: float) -> tuple[list[Nudge], int]:
        async with self._store.read() as rx:
            return self._filter(found, await rx.nudges.shown_since(self._lookback(ts)), ts)

    def _lookback(self, ts: float) -> float:
        return ts - max(SUBJECT_QUIET_S, self._settings.features.nudge_cooldown_hours * 3600)

    def _filter(self, found: list[Nudge], shown: list[tuple[str, str, float]], ts: float) -> tuple[list[Nudge], int]:
        """The nudges still due given what was shown: the daily cap, the kind's cool-down, a quiet week per subject."""
        conf = self._settings.features
        today = sum(1 for _, _, at in shown if at >= ts - DAY)
        if today >= conf.nudges_per_day:
            return [], today
        cooling = {kind for kind, _, at in shown if at >= ts - conf.nudge_cooldown_hours * 3600}
        quiet = {subject for _, subject, at in shown if at >= ts - SUBJECT_QUIET_S}
        return [n for n in found if n.kind not in cooling and n.subject not in quiet], today

    async def preview(self, model: UserModel, recent_user: Sequence[str] = ()) -> NudgePreview:
        """What would be shown, without consuming anything."""
        found = await self.candidates(model, recent_user)
        due, today = await self._due(found, now())
        return NudgePreview(tuple(found), tuple(due), today, self._settings.features.nudges_per_day)

    async def take(self, model: UserModel, session_id: str | None, recent_user: Sequence[str] = ()) -> Nudge | None:
        """The next due nudge, recorded as shown; None when nudges are off or nothing is due."""
        if not self._settings.features.nudges:
            return None
        ts = now()
        due, _ = await self._due(await self.candidates(model, recent_user), ts)
        if not due:
            return None
        nudge = due[0]
        async with self._store.write() as tx:
            # Another server may have shown one meanwhile: check again under the write lock.
            if nudge not in self._filter([nudge], await tx.nudges.shown_since(self._lookback(ts)), ts)[0]:
                return None
            await tx.nudges.record(nudge.kind, nudge.subject, session_id, ts)
            await tx.nudges.forget_before(ts - 2 * SUBJECT_QUIET_S)
            await tx.events.record("system", "nudge_shown", nudge.subject, {"kind": nudge.kind, "text": nudge.text})
        return nudge
