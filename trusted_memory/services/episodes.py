"""Episodes: one summary per finished session, with provenance, recall and near-duplicate control."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import InvalidInput, NotFound, TrustRefused
from ..grounding import SUMMARY_FRAMING, check_grounded
from ..heuristics import looks_like_turn_or_refusal, summarize_turns
from ..llm.base import LLMStats, MemoryLLM, run_job
from ..llm.jobs import PROMPT_EXAMPLES, EpisodeOut, clip_transcript, episode_prompt
from ..model import MODEL_SUMMARY, SESSION_SUMMARY, Actor, Episode, Session
from ..ranking import keyword_part, relevance
from ..scan import scan
from ..store.base import Store, now
from ..text import content_terms
from .atoms import AtomDraft, AtomsService, new_id
from .recall import RecallService
from .recall_types import DUPLICATE_COSINE, query_excerpt, says_the_same

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MIN_TURNS = 3
RULES_RESERVE_S = 0.5  # the rule-based summary, its embedding and the writes, measured well under this
SUMMARY_MAX_BYTES = 2048
MAX_REFLECTION_FACTS = 3
MAX_REFLECTION_NOTES = 2
DAY = 86400.0
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_KEY_RE = re.compile(r"^[a-z][a-z0-9_.]{0,48}$")


@dataclass(frozen=True, slots=True)
class EpisodeHit:
    """An episode that matches a query."""

    episode: Episode
    score: float
    matched: str


@dataclass(frozen=True, slots=True)
class EndResult:
    """What ending a session produced."""

    session_id: str
    episode: Episode | None
    reason: str
    proposals: int
    notes: int


def cut_at_sentence(text: str, max_bytes: int = SUMMARY_MAX_BYTES) -> str:
    """Shorten to at most `max_bytes` UTF-8 bytes, ending at a sentence end when there is one."""
    text = " ".join(text.split())
    if len(text.encode("utf-8")) <= max_bytes:
        return text
    clipped = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    ends = [m.end() for m in _SENTENCE_END.finditer(clipped)]
    return clipped[: ends[-1]] if ends else clipped.rsplit(" ", 1)[0]


class EpisodesService:
    """Summarise finished sessions and recall what happened in them."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        recall: RecallService,
        atoms: AtomsService,
        llm: MemoryLLM,
        stats: LLMStats,
    ) -> None:
        self._store = store
        self._settings = settings
        self._recall = recall
        self._atoms = atoms
        self._llm = llm
        self._stats = stats

    async def end_session(self, session: Session, *, actor: Actor = "agent") -> EndResult:
        """Write the session's episode (≥ 3 turns), reflect, and close the session."""
        started = time.monotonic()
        async with self._store.read() as rx:
            turns = await rx.sessions.turns(session.id, owner=session.owner)
            existing = await rx.sessions.episode(session.id, owner=session.owner)
        if existing is not None:
            return EndResult(session.id, existing, "the session already has an episode", 0, 0)
        if session.turns < MIN_TURNS:
            await self._close(session, None, f"{session.turns} turn(s): under {MIN_TURNS}, no episode")
            return EndResult(session.id, None, f"only {session.turns} turn(s); episodes need {MIN_TURNS}", 0, 0)
        clipped = clip_transcript(turns)
        # The caller waits on this one: it goes ahead of background jobs, and its limit includes
        # the wait, so end_session never takes longer than one llm.timeout_s.
        limit = self._settings.llm.timeout_s
        # What is left of one limit once the rule-based path has its reserve: the whole call, model
        # wait included, stays within llm.timeout_s.
        budget = max(0.05, limit - min(RULES_RESERVE_S, limit / 10) - (time.monotonic() - started))
        out = await run_job(
            self._llm,
            *episode_prompt(clipped),
            EpisodeOut,
            timeout_s=budget,
            stats=self._stats,
            job="episode",
            foreground=True,
        )
        out = await self._grounded(out, [t for _, t in clipped], [t for role, t in clipped if role == "user"])
        summary = out.summary if out is not None and out.summary else None
        by_model = summary is not None
        if summary is None:
            summary = summarize_turns(clipped, SUMMARY_MAX_BYTES)
        if not summary or looks_like_turn_or_refusal(summary) or scan(summary):
            await self._close(session, None, "nothing worth keeping")
            return EndResult(session.id, None, "nothing worth keeping in this session", 0, 0)
        summary = cut_at_sentence(summary)
        vector = await self._recall.vector_for(summary)
        if vector is not None and await self._is_duplicate(vector[3], summary):
            await self._close(session, None, "near-duplicate of an earlier episode")
            return EndResult(session.id, None, "a near-duplicate of an earlier episode", 0, 0)
        ts = now()
        # The episode is dated when its session happened: a replayed or imported history keeps its
        # own dates (its last turn's time), while retention and expiry count from now.
        happened = min(session.last_at, ts)
        ttl = self._settings.sessions.episode_ttl_days
        episode = Episode(
            id=new_id(),
            session_id=session.id,
            project=session.project,
            summary=summary,
            status="held" if session.untrusted else "live",
            source_class="agent_generated" if session.untrusted else MODEL_SUMMARY if by_model else SESSION_SUMMARY,
            turns=session.turns,
            created_at=happened,
            expires_at=ts + ttl * DAY if ttl else None,
            owner=session.owner,
        )
        async with self._store.write() as tx:
            await tx.sessions.add_episode(episode, vector[1] if vector else None, vector[2] if vector else None)
            await tx.events.record(
                actor,
                "episode_held" if session.untrusted else "episode_added",
                f"episode:{episode.id}",
                {"session_id": session.id, "turns": session.turns, "reason": session.untrusted_reason},
                owner=session.owner,
            )
            for gone in await tx.sessions.evict_episodes(self._settings.sessions.max_episodes, ts):
                await tx.events.record(
                    "system", "episode_evicted", f"episode:{gone.id}", {"session_id": gone.session_id}, owner=gone.owner
                )
        proposals, notes = await self._reflect(session, out)
        await self._close(session, episode, "episode written")
        reason = (
            "held for review: the session touched indirect content "
            f"({session.untrusted_reason}); `trusted-memory-admin episodes promote {episode.id}` releases it"
            if session.untrusted
            else "episode written"
        )
        return EndResult(session.id, episode, reason, proposals, notes)

    async def prompt_for(self, session_id: str) -> tuple[str, str] | None:
        """The episode prompt of a session that would get an episode now, else None."""
        async with self._store.read() as rx:
            session = await rx.sessions.get(session_id.strip())
            if (
                session is None
                or session.turns < MIN_TURNS
                or await rx.sessions.episode(session.id, owner=session.owner) is not None
            ):
                return None
            turns = await rx.sessions.turns(session.id, owner=session.owner)
        return episode_prompt(clip_transcript(turns))

    async def _grounded(
        self, out: EpisodeOut | None, transcript: list[str], user_turns: list[str]
    ) -> EpisodeOut | None:
        """The answer with everything the transcript does not bear out discarded (and counted).

        The summary must retell the transcript; profile facts must come from the user's own turns;
        notes from the transcript. What fails falls back to the rules (the summary) or is dropped.
        """
        if out is None:
            return None
        kept, dropped, last = 0, 0, ""
        summary = out.summary
        verdict = check_grounded(summary, transcript, framing=SUMMARY_FRAMING, echoes=PROMPT_EXAMPLES)
        if not verdict.ok or looks_like_turn_or_refusal(summary):
            dropped, last, summary = 1, f"summary: {verdict.reason or 'reads like a turn or a refusal'}", ""
        else:
            kept += 1
        facts = []
        for fact in out.facts:
            verdict = check_grounded(fact.value, user_turns, echoes=("neovim",))
            if verdict.ok:
                facts.append(fact)
            else:
                dropped, last = dropped + 1, f"profile fact: {verdict.reason}"
        notes = []
        for note in out.notes:
            verdict = check_grounded(note.text, transcript, echoes=PROMPT_EXAMPLES)
            if verdict.ok:
                notes.append(note)
            else:
                dropped, last = dropped + 1, f"note: {verdict.reason}"
        kept += len(facts) + len(notes)
        if kept:
            await self._stats.record("episode", "kept", kept)
        if dropped:
            await self._stats.record("episode", "ungrounded", dropped, error=last)
        return out.model_copy(update={"summary": summary, "facts": facts, "notes": notes})

    async def _reflect(self, session: Session, out: EpisodeOut | None) -> tuple[int, int]:
        """Durable facts the LLM noticed wait for the user; its notes wait in quarantine."""
        if out is None:
            return 0, 0
        proposals = 0
        for fact in out.facts[:MAX_REFLECTION_FACTS]:
            key = fact.key.strip().lower().replace(" ", "_")
            if not _KEY_RE.match(key):
                continue
            if await self._atoms.propose(
                f"profile.{key}", fact.value, evidence=f"session {session.id}", confidence=0.6
            ):
                proposals += 1
        notes = 0
        for note in out.notes[:MAX_REFLECTION_NOTES]:
            write = await self._atoms.add(
                AtomDraft(
                    content=note.text[:300],
                    source="inferred",
                    atom_type="note",
                    tags=tuple(note.tags[:4]),
                    session_id=session.id,
                    project=session.project,
                ),
                actor="system",
            )
            notes += write.status != "existing"
        return proposals, notes

    async def _close(self, session: Session, episode: Episode | None, why: str) -> None:
        async with self._store.write() as tx:
            await tx.sessions.end(session.id, now(), owner=session.owner)
            await tx.events.record(
                "system",
                "session_ended",
                f"session:{session.id}",
                {"episode": episode.id if episode else None, "why": why},
                owner=session.owner,
            )

    async def _vectors(self) -> tuple[list[str], npt.NDArray[np.float32] | None]:
        async with self._store.read() as rx:
            rows = await rx.sessions.episode_vectors()
        if not rows:
            return [], None
        import numpy as np  # lazy: numpy stays off the start-up path

        from ..embed.index import dequantize  # lazy: numpy

        return [r[0] for r in rows], np.stack([dequantize(scale, blob) for _, scale, blob in rows])

    async def _is_duplicate(self, vector: npt.NDArray[np.float32], summary: str) -> bool:
        """An episode already kept says the same: nearly the same vector and nearly the same words.

        Meaning alone is not enough: two sessions on one topic read alike to an embedder with a
        sense of meaning, yet each has its own outcome.
        """
        ids, matrix = await self._vectors()
        if matrix is None:
            return False
        cosines = (matrix @ vector).tolist()
        for i in (i for i, cosine in enumerate(cosines) if cosine >= DUPLICATE_COSINE):
            async with self._store.read() as rx:
                other = await rx.sessions.episode(ids[i])
            # The very same text is a copy even when negated; otherwise the words must agree too.
            if other is not None and (
                " ".join(summary.split()) == " ".join(other.summary.split()) or says_the_same(summary, other.summary)
            ):
                return True
        return False

    async def search(self, query: str, k: int = 3) -> list[EpisodeHit]:
        """Live episodes matching a query: keyword and meaning, fused like atom recall."""
        query = query_excerpt(query)  # `context` passes the user's whole message
        ts = now()
        async with self._store.read() as rx:
            keyword = dict(await rx.sessions.search_episodes(content_terms(query), ts, limit=k * 4))
        cosines: dict[str, float] = {}
        vectors = await self._recall.vector_for(query)
        if vectors is not None:
            ids, matrix = await self._vectors()
            if matrix is not None:
                cosines = {i: float(c) for i, c in zip(ids, matrix @ vectors[3], strict=True)}
        best = max(keyword.values(), default=0.0)
        weights = self._recall.weights
        scored = []
        for episode_id in set(keyword) | {i for i, c in cosines.items() if c > 0}:
            rel = relevance(
                keyword_part(keyword.get(episode_id, 0.0), best),
                weights.vector_part(cosines.get(episode_id, 0.0)),
                weights.keyword_weight,
            )
            if rel >= weights.min_score:
                scored.append((episode_id, rel))
        scored.sort(key=lambda item: item[1], reverse=True)
        hits = []
        async with self._store.read() as rx:
            for episode_id, rel in scored:
                episode = await rx.sessions.episode(episode_id)
                if episode is None or episode.status != "live" or (episode.expires_at and episode.expires_at <= ts):
                    continue
                why = "keywords" if episode_id in keyword else f"meaning (cosine {cosines.get(episode_id, 0):.2f})"
                hits.append(EpisodeHit(episode, round(rel, 4), why))
                if len(hits) >= k:
                    break
        return hits

    async def view(self, key: str) -> Episode:
        """A live episode by id or session id."""
        key = key.strip()
        if not key or len(key) > 128:
            raise InvalidInput("give an episode id or a session id")
        async with self._store.read() as rx:
            episode = await rx.sessions.episode(key)
        if episode is None:
            raise NotFound(f"no episode {key}")
        if episode.status != "live":
            raise TrustRefused(
                f"episode {episode.id} is held for review (its session touched indirect content); only the "
                f"user can release it: `trusted-memory-admin episodes promote {episode.id}`"
            )
        return episode

    async def listing(self, *, include_held: bool = False, limit: int = 50) -> list[Episode]:
        """Episodes, newest first (held ones only when asked)."""
        async with self._store.read() as rx:
            return await rx.sessions.episodes(status=None if include_held else "live", limit=limit, now=now())


def sentences(text: str) -> list[str]:
    """Split prose into sentences (for note categorisation)."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip() for p in parts if len(p.strip()) > 3]
