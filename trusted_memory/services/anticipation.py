"""Predictive recall and anaphora: load what the user is about to ask for, resolve "it" and "that".

Follow-up intents come from two places: the heuristic follow-up table (inline, microseconds) and,
when a memory LLM is configured, a prediction made in the background after each observed turn and
stored on the session for the next `context`. Neither ever waits on the model.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ..config import Settings
from ..grounding import check_grounded
from ..llm.base import LLMStats, MemoryLLM, NullLLM, drop_jobs, run_job, runs_background_jobs, settled
from ..model import TURN_TYPE, Session
from ..queries import AtomFilter
from ..store.base import Store, now
from ..text import content_terms
from ..usermodel import UserModel
from .background import Background
from .recall import RecallService
from .recall_types import Hit, RecallQuery, RecallResult, query_excerpt
from .user_state import UserStateService, model_lines

log = logging.getLogger(__name__)

ANAPHORA_WINDOW_S = 7 * 86400.0  # "recent" trusted atoms: the last week
PREDICTED_DISCOUNT = 0.85  # a predicted hit ranks below a literal hit of the same score
# A guessed query is generic ("how to run the tests"): only a clear match is worth the room.
PREDICTED_MIN_RELEVANCE = 0.3
INTENT_K = 3
TARGETED_TYPES = ("convention", "file", "error")


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the first pronoun of a message most likely refers to."""

    pronoun: str
    atom_id: str
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class Anticipated:
    """The literal query's hits merged with predicted-intent and type-targeted hits."""

    hits: list[Hit]
    intents: tuple[str, ...]
    predicted_ids: frozenset[str]
    fell_back: bool


def _discounted(hit: Hit, why: str) -> Hit:
    return dataclasses.replace(hit, score=round(hit.score * PREDICTED_DISCOUNT, 4), matched=why)


class AnticipationService:
    """Intents, predictive recall and pronoun resolution for `context`."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        recall: RecallService,
        user_state: UserStateService,
        llm: MemoryLLM | None = None,
        stats: LLMStats | None = None,
        background: Background | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        self._recall = recall
        self._user_state = user_state
        self._llm = llm or NullLLM()
        self._stats = stats or LLMStats()
        self._background = background or Background()

    # intents -----------------------------------------------------------------------------------
    def intents(self, message: str, recent: Sequence[str], model: UserModel, session: Session | None) -> list[str]:
        """Up to `features.predictive_intents` likely follow-ups: the model's prediction first."""
        limit = self._settings.features.predictive_intents
        if limit <= 0:
            return []
        from ..heuristics.anticipation import follow_up_intents  # lazy: compiled rule tables stay off the start-up path

        intents: list[str] = []
        if session is not None and session.predicted and session.predicted_turn in (session.turns - 1, session.turns):
            intents.extend(session.predicted)
        focus = model.get("current_focus.blocker") or model.get("current_focus.task")
        if focus and set(content_terms(focus)) & set(content_terms(message)):
            intents.append(focus)  # the message is about the current task: its notes come next
        intents.extend(follow_up_intents(message, recent, limit))
        unique: dict[str, str] = {}
        for intent in intents:
            unique.setdefault(intent.lower(), intent)
        return list(unique.values())[:limit]

    def schedule_prediction(self, session: Session, message: str) -> bool:
        """After a turn, have the memory LLM predict the next intents in the background."""
        if not runs_background_jobs(self._llm) or self._settings.features.predictive_intents <= 0:
            return False
        self._background.spawn(lambda: self._predict(session, message), "predict")
        return True

    def session_ended(self, session: Session) -> None:
        """A prediction for a session that ended is for a turn that will not come: stop it."""
        drop_jobs(self._llm, f"predict:{session.key}", "the session ended")

    async def settle(self, timeout_s: float = 10.0) -> None:
        """Wait for running predictions (tests)."""
        await self._background.wait("predict", timeout_s)

    async def _predict(self, session: Session, message: str) -> None:
        from ..llm.anticipation_jobs import IntentsOut, intents_prompt  # lazy: pydantic models, LLM path only
        from ..llm.jobs import PROMPT_EXAMPLES

        key = f"predict:{session.key}"  # the next turn's prediction supersedes this one while it waits
        # It settles before its prompt is read: a prediction the next turn supersedes costs no
        # store reads either.
        if not await settled(self._llm, "predict", key, self._settings.llm.settle_s, self._stats):
            return
        async with self._store.read() as rx:
            recent = (await rx.sessions.user_lines(session.id, 4, owner=session.owner))[
                :-1
            ]  # the last one is this message
        model = await self._user_state.model()
        out = await run_job(
            self._llm,
            *intents_prompt(message, recent, model_lines(model)),
            IntentsOut,
            timeout_s=self._settings.llm.timeout_s,
            stats=self._stats,
            job="predict",
            key=key,
        )
        if out is None or not out.intents:
            return
        # A follow-up is a guessed search query, held to the same rule: no names or numbers the
        # conversation does not have, few new words, no placeholders or echoes of the prompt.
        sources = [message, *recent, *model_lines(model)]
        verdicts = [(i, check_grounded(i, sources, min_share=0.8, echoes=PROMPT_EXAMPLES)) for i in out.intents]
        kept = [i for i, v in verdicts if v.ok]
        failed = [v for _, v in verdicts if not v.ok]
        if failed:
            await self._stats.record("predict", "ungrounded", len(failed), error=failed[0].reason)
        if not kept:
            return
        await self._stats.record("predict", "kept", len(kept))
        async with self._store.write() as tx:
            limit = self._settings.features.predictive_intents
            await tx.sessions.set_predicted(session.id, kept[:limit], session.turns, owner=session.owner)

    # recall ------------------------------------------------------------------------------------
    async def recall(self, literal: RecallQuery, intents: Sequence[str], project: str | None) -> Anticipated:
        """The literal query unioned with each intent's and the type-targeted recall, deduplicated and
        re-ranked; if any of the extra searches fails, the literal results alone."""
        # The literal query is the user's message, which may be longer than a search may be: its
        # start and end stand in for it rather than the whole block failing.
        literal = dataclasses.replace(literal, text=query_excerpt(literal.text))
        # The extra queries search by meaning only: a guessed query's generic words ("run", "tests")
        # match thousands of rows in the keyword index, and the hashed vectors carry the words anyway.
        extra = [
            RecallQuery(i, k=INTENT_K, budget_chars=literal.budget_chars, touch=False, mode="vector") for i in intents
        ]
        if self._settings.features.predictive_intents > 0:
            extra.append(
                RecallQuery(
                    literal.text,
                    k=INTENT_K,
                    budget_chars=literal.budget_chars,
                    touch=False,
                    mode="vector",
                    filters=AtomFilter(types=TARGETED_TYPES),
                )
            )
        try:
            results = await self._search_many([literal, *extra])
        except Exception:
            log.exception("predictive recall failed; using the literal query only")
            return Anticipated(list((await self._recall.search(literal)).hits), (), frozenset(), True)
        literal_hits = list(results[0].hits)
        seen = {h.atom.id for h in literal_hits}
        labels = [f"predicted: {i}" for i in intents] + ["type-targeted"]
        # Each extra query's best new hit is kept (up to a third of k), so a prediction is never
        # crowded out by weak literal matches; the rest of the slots go by score.
        picks: list[Hit] = []
        others: list[Hit] = []
        for label, result in zip(labels, results[1:], strict=False):
            fresh = [
                h
                for h in result.hits
                if h.atom.id not in seen
                and h.relevance >= PREDICTED_MIN_RELEVANCE
                and not (h.atom.scope == "project" and h.atom.project not in (None, project))
            ]
            for i, hit in enumerate(fresh):
                seen.add(hit.atom.id)
                (picks if i == 0 else others).append(_discounted(hit, label))
        reserved = sorted(picks, key=lambda h: h.score, reverse=True)[: max(1, literal.k // 3)]
        rest = sorted(
            [*literal_hits, *others, *(p for p in picks if p not in reserved)], key=lambda h: h.score, reverse=True
        )[: max(0, literal.k - len(reserved))]
        ranked = sorted([*rest, *reserved], key=lambda h: h.score, reverse=True)
        predicted = frozenset(h.atom.id for h in ranked) - {h.atom.id for h in literal_hits}
        return Anticipated(ranked, tuple(intents), predicted, False)

    async def _search_many(self, queries: list[RecallQuery]) -> list[RecallResult]:
        return await self._recall.search_many(queries)

    # anaphora ----------------------------------------------------------------------------------
    async def resolve(self, message: str, previous: str | None) -> Resolution | None:
        """The recent trusted atom the first pronoun most likely means, if its match clears min_score."""
        if not self._settings.features.anaphora:
            return None
        from ..heuristics.anticipation import first_pronoun  # lazy: compiled rule tables stay off the start-up path

        pronoun = first_pronoun(message)
        if pronoun is None:
            return None
        query = query_excerpt(f"{previous or ''} {message}")
        if not content_terms(query):
            return None  # nothing but function words: no evidence to resolve against
        result = await self._recall.search(
            RecallQuery(
                query,
                k=1,
                expand=False,
                touch=False,
                filters=AtomFilter(since=now() - ANAPHORA_WINDOW_S, exclude_types=(TURN_TYPE,)),
            )
        )
        if not result.hits or result.hits[0].relevance < self._settings.recall.min_score:
            return None
        top = result.hits[0]
        return Resolution(pronoun, top.atom.id, top.atom.text, top.relevance)
