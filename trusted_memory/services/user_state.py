"""The user-state model: inferred in the background from the user's own words, applied or queued.

Inference reads only trusted atoms and the user's recent messages (never tool output, never an
agent-relayed session in strict mode). What the user said plainly about technology and focus
applies directly; style guesses, anything relayed, and any change to a field a human confirmed go
to the pending-review queue, which only `trusted-memory-admin confirm` empties into the model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..config import Settings
from ..grounding import check_grounded
from ..llm.base import LLMStats, MemoryLLM, NullLLM, run_job, runs_background_jobs
from ..model import Session
from ..queries import AtomFilter
from ..store.base import Store, Tx, now
from ..trust import is_trusted
from ..usermodel import MAX_EVIDENCE_CHARS, Inference, UserModel, load_model, normalize, route
from .atoms import AtomsService
from .background import Background

log = logging.getLogger(__name__)

RECENT_MESSAGES = 12
TRUSTED_ATOMS = 60
_FOCUS_TYPES = ("goal", "decision", "error")
_SOURCE_TYPES = ("preference", "convention", "goal", "decision", "error", "fact", "intent")
_RANK = {"stated": 0, "measured": 1, "guessed": 2}


@dataclass(frozen=True, slots=True)
class InferenceReport:
    """What one inference pass changed."""

    applied: tuple[str, ...]
    queued: tuple[str, ...]
    considered: int


def model_lines(model: UserModel) -> list[str]:
    """The model as `path = value` lines (for prompts)."""
    return [f"{path} = {item.value}" for path, item in sorted(model.fields.items())]


class UserStateService:
    """Load the user model; infer and apply or queue updates to it."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        atoms: AtomsService,
        llm: MemoryLLM | None = None,
        stats: LLMStats | None = None,
        background: Background | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        self._atoms = atoms
        self._llm = llm or NullLLM()
        self._stats = stats or LLMStats()
        self._background = background or Background()

    async def model(self) -> UserModel:
        """The stored model, re-validated and re-scanned (bad fields dropped)."""
        async with self._store.read() as rx:
            rows = await rx.pending.model_fields()
        model = load_model(rows)
        if model.dropped:
            log.warning(
                "user model: dropped %d stored field(s) that failed validation: %s",
                len(model.dropped),
                ", ".join(model.dropped),
            )
        return model

    def schedule(self, session: Session, extracted_types: Sequence[str], message: str = "") -> bool:
        """After a turn, in the background: infer every N turns, when the focus changed, or when the
        message states how the user wants answers (so "keep it short" applies from the next turn).
        True if anything was started. Nothing here waits on the store: the turn's reply does not."""
        conf = self._settings.features
        if not conf.user_state:
            return False
        due = session.turns % conf.user_state_turn_interval == 0 or any(t in _FOCUS_TYPES for t in extracted_types)
        self._background.spawn(lambda: self._maybe_infer(session, message, due), "user_state")
        return True

    async def _maybe_infer(self, session: Session, message: str, due: bool) -> None:
        from ..heuristics.user_state import states_style  # lazy: compiled rule tables stay off the start-up path

        if not due and message and not session.relayed:
            due = states_style(message)
        if not due and session.project is not None:
            due = (await self.model()).get("current_focus.project") != session.project  # a new project
        if due:
            await self.infer(session.id)

    async def settle(self, timeout_s: float = 10.0) -> None:
        """Wait for running inferences (tests, end of session)."""
        await self._background.wait("user_state", timeout_s)

    async def infer(self, session_id: str | None = None) -> InferenceReport:
        """One inference pass over trusted atoms and the session's recent user messages."""
        from ..heuristics.user_state import infer_user_state  # lazy: compiled rule tables stay off the start-up path

        session = None
        messages: list[str] = []
        async with self._store.read() as rx:
            if session_id:
                session = await rx.sessions.get(session_id)
                if session is not None and not session.relayed:
                    messages = await rx.sessions.user_lines(session.id, RECENT_MESSAGES, owner=session.owner)
            atoms = await rx.atoms.texts(AtomFilter(types=_SOURCE_TYPES), now=now(), limit=TRUSTED_ATOMS)
            rejected = await rx.events.rejected_inferences()
        memories = [text for text, source in atoms if is_trusted(source)][::-1]
        inferences = infer_user_state(messages, memories, session.project if session else None)
        model = await self.model()
        inferences += await self._llm_inferences(model, memories, messages)
        best: dict[str, Inference] = {}
        for item in inferences:
            held = best.get(item.path)
            if held is None or (_RANK[item.kind], -item.confidence) < (_RANK[held.kind], -held.confidence):
                best[item.path] = item
        relayed = session.relayed if session else False
        decided: list[tuple[str, Inference, str]] = []
        for item in best.values():
            value = normalize(item.path, item.value)
            if value is None or (item.path, value) in rejected:
                continue  # a rejected inference is not proposed again
            evidence = item.evidence[:MAX_EVIDENCE_CHARS]
            inference = Inference(item.path, value, evidence, item.confidence, item.kind)
            decision = route(inference, model.fields.get(item.path), relayed=relayed)
            if decision in ("apply", "review"):
                decided.append((decision, inference, value))
        applied: list[str] = []
        queued: list[str] = []
        if not decided:
            return InferenceReport((), (), len(best))
        # One write transaction for the whole pass (it refreshes on every few turns of every session).
        async with self._store.write() as tx:
            for verdict, item, value in decided:
                if verdict == "apply" and await _apply(tx, item.path, value, item.evidence):
                    applied.append(item.path)
                elif (
                    verdict == "review"
                    and await self._atoms.propose_in(
                        tx, item.path, value, evidence=item.evidence, confidence=item.confidence
                    )
                    is not None
                ):
                    queued.append(item.path)
        # The next atom write's link search need not re-read the store for this write's sake.
        self._atoms.note_write_without_atoms()
        return InferenceReport(tuple(applied), tuple(queued), len(best))

    async def _llm_inferences(self, model: UserModel, memories: list[str], messages: list[str]) -> list[Inference]:
        if not runs_background_jobs(self._llm):
            return []
        from ..llm.anticipation_jobs import UserStateOut, user_state_prompt  # lazy: pydantic models, LLM path only

        out = await run_job(
            self._llm,
            *user_state_prompt(model_lines(model), memories, messages),
            UserStateOut,
            timeout_s=self._settings.llm.timeout_s,
            stats=self._stats,
            job="user_state",
            key="user_state",  # a newer refresh supersedes a waiting one
            settle_s=self._settings.llm.settle_s,
        )
        if out is None:
            return []
        sources = [_plain(t) for t in (*memories, *messages)]
        inferences = []
        dropped, last = 0, ""
        for update in out.updates:
            if update.confidence < 0.5:
                continue
            # Style fields take a closed set of words; anything else must come from the user's text.
            if not update.field_path.startswith("style."):
                verdict = check_grounded(update.value, [*memories, *messages], min_share=0.6)
                if not verdict.ok:
                    dropped, last = dropped + 1, f"{update.field_path}: {verdict.reason}"
                    continue
            # "Stated" must be checkable: the quoted evidence has to be in the user's own words.
            quote = _plain(update.evidence)
            grounded = update.stated and len(quote) >= 4 and any(quote in s for s in sources)
            inferences.append(
                Inference(
                    update.field_path,
                    update.value,
                    update.evidence,
                    update.confidence,
                    "stated" if grounded else "guessed",
                )
            )
        if dropped:
            await self._stats.record("user_state", "ungrounded", dropped, error=last)
        return inferences


async def _apply(tx: Tx, path: str, value: str, evidence: str) -> bool:
    changed = await tx.pending.set_observed(path, value, source_class="user_said", evidence=evidence, ts=now())
    if changed:
        await tx.events.record(
            "system",
            "user_model_updated",
            f"user_model:{path}",
            {"field_path": path, "value": value, "evidence": evidence},
        )
    return changed


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
