"""Recall: hybrid keyword + vector search over trusted atoms, ranked by relevance and retention.

numpy and the embedder load on first use (or in the background right after start-up), never on
the handshake path: importing numpy alone costs about as much as the whole start-up budget.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EmbedderError, InvalidInput
from ..model import Atom, FactEntry
from ..ranking import (
    EXPANSION_DISCOUNT, RankWeights, composite, keyword_part, relevance, retention, vector_part,
)
from ..store.atoms import AtomFilter
from ..store.db import Reader, Store, Tx, now
from ..store.recall import RankFields, quote_fts
from ..text import content_terms, stem
from ..trust import is_trusted
from .background import Background

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..embed.base import Embedder
    from ..embed.index import VectorIndex

log = logging.getLogger(__name__)

EMBEDDER_BACKOFF_S = 30.0
DRAIN_BATCH = 256
HIT_OVERHEAD_CHARS = 60  # id, type, source and age around each hit's text
DUPLICATE_COSINE = 0.92
FULL_CHECK_EVERY_S = 30.0
MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 12
COLLAPSE_SPARE = 6  # whole rows fetched beyond k, to stand in for near-duplicates dropped
TEXT_VECTOR_CACHE = 4096


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """One search: the text, how many results, and the filters applied before the top-k cut."""

    text: str
    k: int = 10
    filters: AtomFilter = field(default_factory=AtomFilter)
    budget_chars: int | None = None
    expand: bool = True
    mode: str = "hybrid"
    touch: bool = True  # count this as a recall (refreshes retention); measurement passes False


@dataclass(frozen=True, slots=True)
class Hit:
    """One recalled atom with its scores and why it matched."""

    atom: Atom
    score: float
    relevance: float
    retention: float
    matched: str


@dataclass(frozen=True, slots=True)
class RecallResult:
    """What a search returned, and how."""

    hits: tuple[Hit, ...]
    mode: str
    candidates: int
    truncated: bool
    collapsed: int


@dataclass(slots=True)
class _Candidate:
    num: int
    keyword: float = 0.0
    cosine: float = 0.0
    linked: str | None = None
    link_score: float = 0.0


@dataclass(frozen=True, slots=True)
class _Scored:
    num: int
    score: float
    relevance: float
    retention: float
    linked: str


@dataclass(slots=True)
class EmbedderHealth:
    """Failures of the embedder, and until when vector recall is paused."""

    failures: int = 0
    down_until: float = 0.0
    last_error: str = ""

    def available(self) -> bool:
        """True unless the embedder failed within the back-off window."""
        return time.monotonic() >= self.down_until

    def failed(self, exc: Exception) -> None:
        """Count a failure and pause vector recall for the back-off window."""
        self.failures += 1
        self.down_until = time.monotonic() + EMBEDDER_BACKOFF_S
        self.last_error = str(exc)
        log.warning("embedder failed (%s); keyword-only recall for %.0f s", exc, EMBEDDER_BACKOFF_S)


def build_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (imports numpy: call off the handshake path)."""
    conf = settings.embedding
    if conf.provider == "hash":
        from ..embed.hashing import HashingEmbedder  # lazy: numpy stays off the start-up path

        return HashingEmbedder(conf.dims)
    if conf.provider == "http":
        from ..embed.openai_http import OpenAIEmbedder  # lazy: as above

        return OpenAIEmbedder(conf)
    from ..embed.local import LocalEmbedder  # lazy: the neural extra is heavy

    return LocalEmbedder(conf)


class RecallService:
    """The recall engine of one process: its embedder, its in-memory index, and search."""

    def __init__(self, store: Store, settings: Settings, embedder: Embedder | None = None,
                 background: Background | None = None) -> None:
        self._store = store
        self._settings = settings
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._counter = -1
        self._last_full_check = 0.0
        self._lock = asyncio.Lock()
        self._touches: set[int] = set()
        self._background = background or Background()
        self._flush_task: asyncio.Task[Any] | None = None
        self._text_vectors: dict[str, npt.NDArray[np.float32]] = {}  # facts entries are re-compared often
        self._drain_task: asyncio.Task[Any] | None = None
        self.health = EmbedderHealth()
        self.weights = RankWeights(
            relevance_weight=settings.recall.relevance_weight,
            keyword_weight=settings.recall.keyword_weight,
            half_life_days=settings.recall.half_life_days,
            min_score=settings.recall.min_score,
        )

    # lifecycle -------------------------------------------------------------------------------
    def embedder(self) -> Embedder:
        """The embedder, built on first use."""
        if self._embedder is None:
            self._embedder = build_embedder(self._settings)
        return self._embedder

    def _index_obj(self) -> VectorIndex:
        if self._index is None:
            from ..embed.index import VectorIndex  # lazy: numpy

            self._index = VectorIndex(self.embedder().space.dims)
        return self._index

    async def warm_up(self) -> None:
        """Load numpy and the embedder off the event loop, adopt the space, fill the index."""
        await asyncio.to_thread(self.embedder)
        await self.adopt_space()
        await self.drain_queue()
        async with self._store.read() as rx:
            await self._refresh(rx)

    def start_background(self) -> None:
        """Warm up in the background so the first search does not pay for it."""
        self._background.spawn(self.warm_up)

    async def close(self) -> None:
        """Finish background work and flush pending recall statistics."""
        await self._background.cancel()
        await self.flush_touches()
        closer = getattr(self._embedder, "aclose", None)
        if closer is not None:
            await closer()

    async def adopt_space(self) -> int:
        """Make the configured embedding space current; returns how many atoms must be re-embedded."""
        fingerprint = self.embedder().space.fingerprint()
        async with self._store.read() as rx:
            if await rx.recall.space() == fingerprint:
                return 0
        async with self._store.write() as tx:
            if await tx.recall.space() == fingerprint:
                return 0
            queued = await tx.recall.switch_space(fingerprint)
            await tx.events.append("system", "embedding_space_changed", None, {"space": fingerprint, "queued": queued})
        if self._index is not None:
            self._index.clear()
        return queued

    async def drain_queue(self, progress: Any = None) -> int:
        """Embed every live atom waiting for a vector; returns how many were embedded."""
        done = 0
        space = self.embedder().space.fingerprint()
        while True:
            async with self._store.read() as rx:
                batch = await rx.recall.queued(self._settings.embedding.batch_size or DRAIN_BATCH)
            if not batch:
                return done
            vectors = await self._embed([text for _, text in batch])
            if vectors is None:
                return done
            from ..embed.index import quantize  # lazy: numpy

            rows = [(num, space, *quantize(vec)) for (num, _), vec in zip(batch, vectors, strict=True)]
            async with self._store.write() as tx:
                await tx.recall.put_vectors(rows)
            done += len(rows)
            if progress is not None:
                progress(len(rows))

    async def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32] | None:
        """Vectors for texts, or None while the embedder is failing (callers degrade)."""
        if not self.health.available():
            return None
        embedder = self.embedder()
        try:
            if embedder.space.provider == "hash":
                return await embedder.embed_batch(list(texts))  # computing beats a cache look-up
            return await self._embed_cached(embedder, texts)
        except EmbedderError as exc:
            self.health.failed(exc)
            return None

    async def _embed_cached(self, embedder: Embedder, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Remote embeddings through the store's content-hash cache: each text is sent once."""
        import numpy as np  # lazy: start-up path

        from ..embed.index import dequantize, quantize  # lazy: numpy

        space = embedder.space.fingerprint()
        hashes = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        async with self._store.read() as rx:
            cached = await rx.recall.cached_vectors(space, sorted(set(hashes)))
        missing = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}.items())
        if missing:
            fresh = await embedder.embed_batch([t for _, t in missing])
            rows = [(h, *quantize(vec)) for (h, _), vec in zip(missing, fresh, strict=True)]
            async with self._store.write() as tx:
                await tx.recall.cache_vectors(space, rows)
            cached.update({h: (scale, blob) for h, scale, blob in rows})
        return np.stack([dequantize(*cached[h]) for h in hashes])

    # writes ----------------------------------------------------------------------------------
    async def vector_for(self, text: str) -> tuple[str, float, bytes, npt.NDArray[np.float32]] | None:
        """Embed a text for storing with its atom: (space, scale, blob, vector), or None if down."""
        vectors = await self._embed([text])
        if vectors is None:
            return None
        from ..embed.index import quantize  # lazy: numpy

        scale, blob = quantize(vectors[0])
        return self.embedder().space.fingerprint(), scale, blob, vectors[0]

    async def index_written(
        self, tx: Tx, num: int, vector: tuple[str, float, bytes, npt.NDArray[np.float32]] | None,
        session_id: str | None,
    ) -> None:
        """Inside the atom's write transaction: store its vector and its associations."""
        links: list[tuple[int, int, str, float]] = []
        if session_id:
            for previous in await tx.recall.recent_in_session(session_id, num, limit=1):
                links.append((num, previous, "temporal", 1.0))
            for same_task in await tx.recall.recent_in_session(session_id, num, limit=5):
                links.append((num, same_task, "task", 0.5))
        if vector is not None:
            space, scale, blob, vec = vector
            await tx.recall.put_vectors([(num, space, scale, blob)])
            # Link against everything stored so far, not only what the last search loaded.
            await self._refresh(tx)
            if self._index is not None and len(self._index):
                for other, cosine in self._index.search(vec, 4):
                    if other != num and cosine > 0.3:
                        links.append((num, other, "semantic", round(cosine, 4)))
        if links:
            # The in-memory index may still hold atoms another process (or this one) just forgot.
            live = await tx.recall.live_nums([dst for _, dst, _, _ in links])
            links = [link for link in links if link[1] in live]
            if links:
                await tx.recall.link(links[:8])

    # search ----------------------------------------------------------------------------------
    async def _refresh(self, rx: Reader) -> None:
        """Bring the in-memory index up to date with what any process has written."""
        counter = await rx.change_counter()
        if counter == self._counter or self._embedder is None:
            return
        index = self._index_obj()
        space = self.embedder().space.fingerprint()
        from ..embed.index import dequantize_many  # lazy: numpy

        monotonic = time.monotonic()
        if monotonic - self._last_full_check > FULL_CHECK_EVERY_S:
            self._last_full_check = monotonic
            if await rx.recall.vector_count(space) < len(index):
                index.clear()  # atoms were deleted or quarantined elsewhere: rebuild
        while True:
            rows = await rx.recall.vectors_since(space, index.seq)
            if not rows:
                break
            matrix = dequantize_many([r[2] for r in rows], [r[3] for r in rows], index.dims)
            index.upsert([num for num, _, _, _ in rows], matrix, seq=rows[-1][1])
        self._counter = counter
        # Atoms written while the embedder was down (or by a process without one) wait in the
        # queue; whoever notices embeds them, in the background.
        if (self._drain_task is None or self._drain_task.done()) and await rx.recall.queue_size():
            self._drain_task = self._background.spawn(self.drain_queue)

    async def search(self, query: RecallQuery) -> RecallResult:
        """Hybrid search of trusted atoms, filtered before the cut, bounded by the budget."""
        text = query.text.strip()
        if not text:
            raise InvalidInput("query is empty; say what to look for")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is {len(text):,} characters; keep it under {MAX_QUERY_CHARS:,}")
        if not 1 <= query.k <= 100:
            raise InvalidInput(f"k must be between 1 and 100; got {query.k}")
        filters = dataclasses.replace(query.filters, status="live")
        narrowed = _narrows(query.filters)
        budget = query.budget_chars or self._settings.recall.budget_chars
        fetch = query.k * self._settings.recall.overfetch
        # A long message ORs many terms, and FTS cost grows with every matching row: the first
        # MAX_QUERY_TERMS content words carry the question.
        terms = (content_terms(text) or [t for t in text.lower().split() if t])[:MAX_QUERY_TERMS]
        if query.mode not in ("hybrid", "keyword", "vector"):
            raise InvalidInput(f"mode must be hybrid, keyword or vector; got {query.mode!r}")
        vector_on = self.health.available() and query.mode != "keyword"
        query_vec = None
        if vector_on:
            vectors = await self._embed([text])
            query_vec = vectors[0] if vectors is not None else None
        ts = now()
        # No snapshot transaction: each statement reads committed data, and every hit is re-checked
        # against its atom row, so a write landing in between can only add or drop a candidate.
        async with self._lock, self._store.read(snapshot=False) as rx:
            if query_vec is not None:
                await self._refresh(rx)
            candidates: dict[int, _Candidate] = {}
            if query.mode != "vector":
                for num, score in await rx.recall.keyword(quote_fts(terms), filters, now=ts, limit=fetch, narrowed=narrowed):
                    candidates.setdefault(num, _Candidate(num)).keyword = score
            if query_vec is not None and self._index is not None and len(self._index):
                allowed = None
                if narrowed:
                    allowed = self._index.mask(await rx.recall.allowed_nums(filters, now=ts))
                for num, cosine in self._index.search(query_vec, fetch, allowed):
                    candidates.setdefault(num, _Candidate(num)).cosine = cosine
            best_keyword = max((c.keyword for c in candidates.values()), default=0.0)
            scored = self._score(candidates, await rx.recall.rank_fields(list(candidates)), best_keyword, ts)
            if query.expand and scored:
                scored += await self._expand(rx, scored, candidates, filters, best_keyword, ts)
            scored.sort(key=lambda item: item.score, reverse=True)
            # Whole rows only for the hits that can be returned (with room for collapsed duplicates).
            top = scored[: query.k + COLLAPSE_SPARE]
            atoms = await rx.recall.atoms_by_num([item.num for item in top])
        hits = [(Hit(atoms[i.num], round(i.score, 4), round(i.relevance, 4), round(i.retention, 4), i.linked), i.num)
                for i in top if i.num in atoms]
        kept, collapsed = self._collapse(hits, query.k)
        # Why a hit matched is worked out only for the hits returned.
        explained = [dataclasses.replace(h, matched=h.matched or _why(candidates.get(n) or _Candidate(n), text, h.atom.text))
                     for h, n in kept[: query.k]]
        result_hits, truncated = _within_budget(explained, budget)
        if query.touch:
            self._remember_touches([num for h, num in kept[: len(result_hits)]])
        mode = query.mode if query_vec is not None or query.mode == "keyword" else "keyword"
        return RecallResult(tuple(result_hits), mode, len(candidates), truncated, collapsed)

    def _score(self, candidates: dict[int, _Candidate], fields: dict[int, RankFields], best_keyword: float,
               ts: float) -> list[_Scored]:
        """Relevance, retention and the composite of every candidate still live and trusted."""
        scored: list[_Scored] = []
        stale: list[int] = []
        for num, cand in candidates.items():
            row = fields.get(num)
            if row is None or row[0] != "live" or not is_trusted(row[1]):
                stale.append(num)
                continue
            rel = relevance(keyword_part(cand.keyword, best_keyword), vector_part(cand.cosine), self.weights.keyword_weight)
            if cand.linked is not None:
                rel = max(rel, cand.link_score)
            if rel < self.weights.min_score:
                continue
            _, _, confidence, created, recalled, pinned, _, _ = row
            ret = retention(confidence=confidence, created_at=created, last_recalled_at=recalled, now=ts,
                            half_life_days=self.weights.half_life_days, trusted=True, pinned=bool(pinned))
            scored.append(_Scored(num, composite(rel, ret, self.weights.relevance_weight), rel, ret, cand.linked or ""))
        if stale and self._index is not None:
            self._index.remove(stale)  # forgotten or quarantined since the index loaded them
        return scored

    async def _expand(
        self, rx: Reader, scored: list[_Scored], candidates: dict[int, _Candidate],
        filters: AtomFilter, best_keyword: float, ts: float,
    ) -> list[_Scored]:
        """The associated atoms of the best hits, one hop, at a discounted score."""
        top = sorted(scored, key=lambda item: item.score, reverse=True)[:3]
        links = await rx.recall.neighbours([item.num for item in top])
        extra: dict[int, _Candidate] = {}
        by_num = {item.num: item for item in top}
        already = {item.num for item in scored}
        ids = await rx.recall.ids_of([item.num for item in top]) if links else {}
        for src, dst, kind, weight in links:
            if dst in already:
                continue
            score = by_num[src].relevance * EXPANSION_DISCOUNT * min(1.0, weight)
            if dst in extra and extra[dst].link_score >= score:
                continue
            # A candidate that missed min_score on its own may still come in through its link.
            own = candidates.get(dst, _Candidate(dst))
            extra[dst] = _Candidate(dst, own.keyword, own.cosine, f"linked ({kind}) to {ids.get(src, '?')[:8]}", score)
        if not extra:
            return []
        fields = await rx.recall.rank_fields(list(extra))
        if _narrows(filters):
            allowed = set(await rx.recall.allowed_nums(filters, now=ts))
            fields = {n: f for n, f in fields.items() if n in allowed}
        return self._score(extra, fields, best_keyword, ts)

    def _collapse(self, hits: list[tuple[Hit, int]], k: int) -> tuple[list[tuple[Hit, int]], int]:
        """The best k hits, dropping near-duplicates of a better hit (same words, or nearly the same vector)."""
        kept: list[tuple[Hit, int]] = []
        seen_text: set[str] = set()
        collapsed = 0
        for hit, num in hits:
            if len(kept) >= k:
                break
            key = " ".join(hit.atom.text.casefold().split()).strip(" .!?")
            vec = self._index.vector(num) if self._index is not None else None
            duplicate = key in seen_text
            if not duplicate and vec is not None and self._index is not None:
                for _, other in kept:
                    other_vec = self._index.vector(other)
                    if other_vec is not None and float(vec @ other_vec) >= DUPLICATE_COSINE:
                        duplicate = True
                        break
            if duplicate:
                collapsed += 1
                continue
            seen_text.add(key)
            kept.append((hit, num))
        return kept, collapsed

    async def similarities(self, text: str, others: Sequence[str]) -> list[float] | None:
        """Cosine of `text` against each of `others`, or None while the embedder is unavailable."""
        if not others:
            return []
        missing = [t for t in dict.fromkeys([text, *others]) if t not in self._text_vectors]
        if missing:
            vectors = await self._embed(missing)
            if vectors is None:
                return None
            if len(self._text_vectors) + len(missing) > TEXT_VECTOR_CACHE:
                self._text_vectors.clear()
            self._text_vectors.update(zip(missing, vectors, strict=True))
        query = self._text_vectors.get(text)
        if query is None:
            return None
        import numpy as np  # lazy: start-up path (already loaded by the embedder here)

        known = [o for o in others if o in self._text_vectors]
        scores = dict(zip(known, (np.stack([self._text_vectors[o] for o in known]) @ query).tolist(), strict=True)) if known else {}
        return [float(scores.get(o, 0.0)) for o in others]

    async def search_facts(self, query: str, limit: int = 5) -> list[tuple[FactEntry, int, float, str]]:
        """Facts entries that match a query, as (entry, one-based index, score, matched words)."""
        terms = content_terms(query)
        stems = {stem(t) for t in terms}
        async with self._store.read() as rx:
            entries = await rx.facts.list()
        if not entries:
            return []
        # The entry vectors are the ones merge-on-write already cached.
        cosines = await self.similarities(query, [e.content for e in entries])
        scored: list[tuple[FactEntry, int, float, str]] = []
        position: dict[str, int] = {}
        for i, entry in enumerate(entries):
            position[entry.target] = position.get(entry.target, 0) + 1
            words = [t for t in content_terms(entry.content) if stem(t) in stems]
            overlap = len({stem(w) for w in words}) / len(stems) if stems else 0.0
            cosine = cosines[i] if cosines is not None else 0.0
            score = relevance(overlap, vector_part(cosine), self.weights.keyword_weight)
            if score >= self.weights.min_score:
                why = ("keywords: " + ", ".join(words)) if words else f"meaning (cosine {cosine:.2f})"
                scored.append((entry, position[entry.target], round(score, 4), why))
        scored.sort(key=lambda item: item[2], reverse=True)
        return scored[:limit]

    # recall statistics ------------------------------------------------------------------------
    def _remember_touches(self, nums: Sequence[int]) -> None:
        if not nums:
            return
        self._touches.update(nums)
        if self._flush_task is None or self._flush_task.done():
            self._flush_task = self._background.spawn(self.flush_touches)

    async def flush_touches(self) -> None:
        """Write pending last-recalled / recall-count updates (batched, after the reply)."""
        if not self._touches:
            return
        nums, self._touches = sorted(self._touches), set()
        async with self._store.write() as tx:
            await tx.recall.touch(nums, now())


def _narrows(f: AtomFilter) -> bool:
    return bool(f.types or f.tags or f.project is not None or f.scope or f.source_class or f.since or f.until)


def _why(cand: _Candidate, query: str, text: str) -> str:
    if cand.linked is not None:
        return cand.linked
    parts = []
    if cand.keyword > 0:
        words = matched_terms(query, text)
        parts.append("keywords: " + ", ".join(words) if words else "keywords")
    if cand.cosine > 0:
        parts.append(f"meaning (cosine {cand.cosine:.2f})")
    return " + ".join(parts) or "weak match"


def matched_terms(query: str, text: str) -> list[str]:
    """Query words (by stem) that the text contains: the keyword part of 'why it matched'."""
    stems = {stem(t) for t in content_terms(text)}
    return [t for t in content_terms(query) if stem(t) in stems]


def _within_budget(hits: list[Hit], budget: int) -> tuple[list[Hit], bool]:
    out: list[Hit] = []
    used = 0
    for hit in hits:
        cost = len(hit.atom.text) + HIT_OVERHEAD_CHARS
        if used + cost > budget:
            if not out and budget > HIT_OVERHEAD_CHARS + 20:
                room = budget - HIT_OVERHEAD_CHARS
                cut = hit.atom.text[: room - 1].rstrip() + "…"
                out.append(Hit(_with_text(hit.atom, cut), hit.score, hit.relevance, hit.retention, hit.matched))
            return out, True
        used += cost
        out.append(hit)
    return out, False


def _with_text(atom: Atom, text: str) -> Atom:
    return dataclasses.replace(atom, text=text)
