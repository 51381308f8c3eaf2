"""Return after a break: where the user left off, and the most likely next step.

Built from trusted data only: the previous session's notes when that session never touched
indirect content (otherwise only the user's own lines), its live episode, the user model's current
focus, and open goals. The memory LLM may phrase it for the prompt; `context` never waits on it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..config import Settings
from ..grounding import SUMMARY_FRAMING, check_grounded
from ..llm.base import LLMStats, MemoryLLM, NullLLM, run_job, runs_background_jobs
from ..model import Session
from ..queries import AtomFilter
from ..store.base import Reader, Store, now
from ..timefmt import age
from ..trust import is_trusted
from ..usermodel import UserModel
from .facts import preview
from .user_state import model_lines

RESUME_TIMEOUT_S = 5.0
_NOTE_CATEGORIES = ("progress", "decision", "issue")


@dataclass(frozen=True, slots=True)
class Recap:
    """The "where you left off" block."""

    session_id: str
    project: str | None
    last_active: float
    gap_s: float
    left_off: tuple[str, ...]
    next_step: str | None

    def lines(self) -> list[str]:
        """The recap as block lines."""
        where = f" on {self.project}" if self.project else ""
        out = [f"- last active {age(self.last_active)} ago{where} (a {_gap(self.gap_s)} break)"]
        out += [f"- {line}" for line in self.left_off]
        if self.next_step:
            out.append(f"- next likely step: {self.next_step}")
        return out


def _gap(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours:.0f}-hour" if hours < 48 else f"{hours / 24:.0f}-day"


class ResumeService:
    """Detect a resume after a break and recap the session it resumes."""

    def __init__(
        self, store: Store, settings: Settings, llm: MemoryLLM | None = None, stats: LLMStats | None = None
    ) -> None:
        self._store = store
        self._settings = settings
        self._llm = llm or NullLLM()
        self._stats = stats or LLMStats()

    @property
    def break_s(self) -> float:
        """How long a gap counts as a break."""
        return self._settings.features.break_hours * 3600

    async def detect(
        self, session_id: str, session: Session | None, ts: float, rx: Reader | None = None
    ) -> tuple[str, float] | None:
        """(session to recap, gap) when this turn comes after a break; None otherwise.

        A known session resumes itself; a new one resumes the most recently active other session
        (read through `rx` when given: the caller's transaction).
        """
        if session is not None and session.turns > 0:
            gap = ts - session.last_at
            return (session.id, gap) if gap >= self.break_s else None
        if rx is not None:
            latest = await rx.sessions.latest_other(session_id)
        else:
            async with self._store.read() as snapshot:
                latest = await snapshot.sessions.latest_other(session_id)
        if latest is None:
            return None
        gap = ts - latest.last_at
        return (latest.id, gap) if gap >= self.break_s else None

    async def for_context(self, session_id: str, session: Session | None, model: UserModel) -> Recap | None:
        """The recap to show in this `context`, if the session is at its resume turn (or resuming now)."""
        if not self._settings.features.return_after_break:
            return None
        if session is not None and session.resumed_turn is not None and session.resumed_turn == session.turns:
            source, gap = session.resumed_from or session.id, session.resume_gap_s or 0.0
        else:
            found = await self.detect(session_id, session, now())
            if found is None:
                return None
            source, gap = found
        return await self.recap(source, gap, model)

    async def at_start(self, session_id: str, project: str | None, model: UserModel) -> Recap | None:
        """The recap for a session start: this session's own state when it resumes (or was compacted),
        else the last session of the same project, whatever the gap; None without either."""
        if not self._settings.features.return_after_break:
            return None
        async with self._store.read() as rx:
            session = await rx.sessions.get(session_id)
            source = session if session is not None and session.turns > 0 else None
            if source is None and project:
                source = await rx.sessions.latest_other(session_id, project=project)
        if source is None:
            return None
        return await self.recap(source.id, max(0.0, now() - source.last_at), model)

    async def latest(self, session_id: str | None, model: UserModel) -> Recap | None:
        """The recap for the `return_after_break` prompt: what this session resumes (or, without one,
        the most recently active session), whatever the gap."""
        async with self._store.read() as rx:
            session = await rx.sessions.get(session_id) if session_id else None
            other = await rx.sessions.latest_other(session_id or "")
        if session is not None and session.resumed_turn == session.turns and session.resumed_from:
            return await self.recap(session.resumed_from, session.resume_gap_s or 0.0, model)
        source = session if session is not None and session.turns > 0 else other
        if source is None:
            return None
        recap = await self.recap(source.id, max(0.0, now() - source.last_at), model)
        if recap is not None and recap.next_step is None and source.resumed_from and source.resumed_from != source.id:
            # A session that picked up an earlier one and has stated no step of its own yet: the
            # step the earlier one left is still the likeliest next.
            earlier = await self.recap(source.resumed_from, 0.0, model)
            if earlier is not None and earlier.next_step:
                recap = dataclasses.replace(recap, next_step=earlier.next_step)
        return recap

    async def recap(self, source_id: str, gap_s: float, model: UserModel) -> Recap | None:
        """Where the user left off in `source_id`, from trusted data only (`model` as loaded, so a
        field that failed validation never reaches the recap)."""
        from ..heuristics.anticipation import next_step  # lazy: compiled rule tables stay off the start-up path

        async with self._store.read() as rx:
            source = await rx.sessions.get(source_id)
            if source is None:
                return None
            episode = await rx.sessions.episode(source.id)
            notes = [] if source.untrusted else await rx.sessions.notes(source.id)
            # In strict mode even the user's lines were relayed by the agent: not the user's word.
            own = [] if source.relayed else await rx.sessions.user_lines(source.id, 6)
            goals = await rx.atoms.list(AtomFilter(types=("goal",)), now=now(), limit=3)
        left_off: list[str] = []
        if episode is not None and episode.status == "live":
            left_off.append(f"last session: {preview(episode.summary, 300)}")
        picked = [n for n in notes if n.category in _NOTE_CATEGORIES][-3:]
        left_off += [f"{n.category}: {preview(n.text, 200)}" for n in picked]
        if not left_off and own:
            left_off += [f"you said: {preview(line, 200)}" for line in own[-2:]]
        step = next_step([*(n.text for n in notes), *own])
        if step is None:
            blocker, task = model.get("current_focus.blocker"), model.get("current_focus.task")
            step = f"unblock: {blocker}" if blocker else task
        if step is None:
            open_goals = [g for g in goals if is_trusted(g.source_class)]
            step = f"goal: {open_goals[0].text}" if open_goals else None
        if not left_off and step is None:
            return None
        return Recap(source.id, source.project, source.last_at, gap_s, tuple(left_off), step)

    async def phrased(self, recap: Recap, model: UserModel) -> Recap:
        """The recap in the memory LLM's words when one is configured (short timeout, else as built)."""
        if not runs_background_jobs(self._llm):
            return recap
        from ..llm.anticipation_jobs import ResumeOut, resume_prompt  # lazy: pydantic models, LLM path only

        out = await run_job(
            self._llm,
            *resume_prompt([*recap.left_off, f"next: {recap.next_step or ''}"], model_lines(model)),
            ResumeOut,
            timeout_s=min(RESUME_TIMEOUT_S, self._settings.llm.timeout_s),
            stats=self._stats,
            job="resume",
            foreground=True,
        )
        if out is None:
            return recap
        notes = [*recap.left_off, recap.next_step or ""]
        for text in (out.left_off, out.next_step):
            verdict = check_grounded(text, notes, framing=SUMMARY_FRAMING) if text else None
            if verdict is not None and not verdict.ok:
                await self._stats.record("resume", "ungrounded", error=verdict.reason)
                return recap
        return Recap(
            recap.session_id,
            recap.project,
            recap.last_active,
            recap.gap_s,
            (out.left_off,),
            out.next_step or recap.next_step,
        )
