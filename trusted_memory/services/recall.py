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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EmbedderError, InvalidInput
from ..model import Atom, FactEntry
from ..ranking import (
    EXPANSION_DISCOUNT,
    RankWeights,
    composite,
    fused_keyword,
    keyword_part,
    query_information,
    relevance,
    retention,
)
from ..store.base import Reader, Store, Tx, now
from ..store.recall import RankFields
from ..text import content_terms, stem
from ..timeref import query_range
from ..trust import is_trusted
from .background import Background
from .recall_types import (
    MAX_QUERY_CHARS,
    Candidate,
    EmbedderHealth,
    Hit,
    Plan,
    RecallQuery,
    RecallResult,
    Scored,
    build_embedder,
    by_score,
    collapse_duplicates,
    keep_leaders,
    list_leaders,
    narrows,
    within_budget,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..embed.base import Embedder
    from ..embed.index import Scores, Vector, VectorIndex

log = logging.getLogger(__name__)

DRAIN_BATCH = 256
TOUCH_FLUSH_DELAY_S = 1.0  # recall statistics of the searches within this window land in one write
# A semantic link is made on write to a top-3 neighbour whose match is at least this strong (0–1
# evidence on the embedder's scale: a cosine of 0.3 for the default 0–0.6 reading).
SEMANTIC_LINK_EVIDENCE = 0.5
# Rows of a large index scored exactly for those links (see VectorIndex.search): a strong neighbour
# is near by sketch too. On recall_latency's 100k store the links made are those of exact scoring
# (1,200 of 1,200 over 300 writes, from a 128-row list); the share keeps the list growing with the store.
LINK_SHORTLIST = 256
LINK_SHORTLIST_SHARE = 200
FULL_CHECK_EVERY_S = 30.0
SESSION_LINKS = 5  # a new memory's temporal and same-task links: its session's latest live atoms
MAX_QUERY_TERMS = 12
# Document frequencies are counted up to this many atoms: a term in more says little (idf ~ ln(N/n)).
DOC_COUNT_CAP = 2000
DOC_COUNT_CACHE = 4096  # terms whose counts are kept between searches (until the store changes)
# Relevance added to a memory said within the span a question names ("last May").
SAID_THEN_BONUS = 0.15
# Relevance kept by a memory of confidence 0 (one of confidence 1 keeps all of it).
CONFIDENCE_FLOOR = 0.75
COLLAPSE_SPARE = 6  # whole rows fetched beyond k, to stand in for near-duplicates dropped
# From this many indexed vectors the index's first stage (~0.6 ms a query at 100k) runs beside the
# FTS queries in a worker thread; below it, handing it over costs more CPU than it saves time.
OVERLAP_MIN_ROWS = 65536
# Vectors read per statement when the index loads: bounds the rows held in memory at once. Each
# chunk's row objects are freed into the allocator's arenas, which keep what they cannot give back:
# at 100k vectors 2,048 a statement leave the server ~6 MB smaller than 8,192 did, its peak ~30 MB lower.
LOAD_CHUNK = 2048
# A filtered vector search checks the filter on the best `fetch × NARROW_OVERFETCH` rows, then on
# four times as many, up to NARROW_MAX_CHECKED rows, before it lists every atom the filter admits.
NARROW_OVERFETCH = 4
NARROW_MAX_CHECKED = 4096
TEXT_VECTOR_CACHE = 4096
# A memory said in a session is embedded in its context: its own vector plus this share of the vector
# of the live memory said just before it in the session, renormalised. A chat turn means what it means
# after the one before ("tabby, shes 6" after "my cat pickle ..."). On the conversation tuning set this
# lifts hybrid R@10 by ~3 points with `hash` and ~5 with MiniLM (0.3-0.7 land within noise; 1.0 drowns
# the turn's own words); memories without a session (one-line notes) are embedded alone.
CONTEXT_WEIGHT = 0.5
OWN_VECTOR_CACHE = 256  # own vectors of recent texts: the context of the next write is usually among them


class RecallService:
    """The recall engine of one process: its embedder, its in-memory index, and search."""

    def __init__(
        self, store: Store, settings: Settings, embedder: Embedder | None = None, background: Background | None = None
    ) -> None:
        self._store = store
        self._settings = settings
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._counter = -1
        self._seen_counter = -1  # the store's change counter as this search's refresh read it
        # Document counts of query terms, valid while the store's change counter is the one they were
        # counted at (at 100k atoms ~0.3 ms a search, and the same words recur in questions).
        self._doc_counts: dict[str, int] = {}
        self._doc_counts_at = -1
        self._queue_empty = False  # the embed queue, as the latest refresh found it
        self._last_full_check = 0.0
        self._lock = asyncio.Lock()
        # Recalls not yet written (num -> when), flushed in batches (recall statistics: eviction and
        # stats read them; rankings do not, see _score).
        self._touches: dict[int, float] = {}
        self._touch_counts: dict[int, int] = {}
        self._background = background or Background()
        self._flush_task: asyncio.Task[Any] | None = None
        self._text_vectors: dict[str, npt.NDArray[np.float32]] = {}  # facts entries are re-compared often
        self._own_vectors: dict[str, npt.NDArray[np.float32]] = {}  # a text's vector alone (see CONTEXT_WEIGHT)
        self._drain_task: asyncio.Task[Any] | None = None
        # Per open write transaction, the (num, seq) rows index_written put in the index before the
        # COMMIT: if the transaction rolls back they must leave it again (discard_staged).
        self._staged: dict[Tx, list[tuple[int, int]]] = {}
        self._worker: ThreadPoolExecutor | None = None  # the matrix product of large indexes
        self.health = EmbedderHealth()
        self.weights = RankWeights(
            relevance_weight=settings.recall.relevance_weight,
            keyword_weight=settings.recall.keyword_weight,
            half_life_days=settings.recall.half_life_days,
            min_score=settings.recall.min_score,
        )
        if embedder is not None:
            self._read_cosines_as(embedder)

    # lifecycle -------------------------------------------------------------------------------
    def embedder(self) -> Embedder:
        """The embedder, built on first use."""
        if self._embedder is None:
            self._embedder = build_embedder(self._settings)
            self._read_cosines_as(self._embedder)
        return self._embedder

    def _read_cosines_as(self, embedder: Embedder) -> None:
        """Rank vector evidence on the embedder's own scale (unrelated texts score differently per space)."""
        space = embedder.space
        self.weights = dataclasses.replace(self.weights, cosine_floor=space.cosine_floor, cosine_full=space.cosine_full)

    def _index_obj(self) -> VectorIndex:
        if self._index is None:
            from ..embed.index import VectorIndex  # lazy: numpy

            self._index = VectorIndex(self.embedder().space.dims)
        return self._index

    async def warm_up(self) -> None:
        """Load numpy and the embedder (and its tables) off the event loop, adopt the space, fill the index."""
        embedder = await asyncio.to_thread(self.embedder)
        load_tables = getattr(embedder, "warm_up", None)
        if callable(load_tables):
            await asyncio.to_thread(load_tables)
        await self.adopt_space()
        await self.drain_queue()
        async with self._store.read() as rx:
            await self._refresh(rx)
        from ..embed.index import release_freed_memory  # lazy: numpy

        # Reading the word table and building the index leave ~3 MB of freed scratch (decompressed
        # data, the sketch projection's float64 draw) that malloc would otherwise keep for good.
        release_freed_memory()

    def start_background(self) -> None:
        """Warm up in the background so the first search does not pay for it."""
        self._background.spawn(self.warm_up)

    async def close(self) -> None:
        """Finish background work and flush pending recall statistics."""
        await self._background.cancel()
        await self.flush_touches()
        if self._worker is not None:
            self._worker.shutdown()
            self._worker = None
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
            await tx.events.record("system", "embedding_space_changed", None, {"space": fingerprint, "queued": queued})
        if self._index is not None:
            self._index.clear()
        self._own_vectors.clear()  # vectors of the old space
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
            vectors = await self._in_context([(text, context) for _, text, context in batch])
            if vectors is None:
                return done
            from ..embed.index import quantize  # lazy: numpy

            rows = [(num, space, *quantize(vec)) for (num, _, _), vec in zip(batch, vectors, strict=True)]
            async with self._store.write() as tx:
                await tx.recall.put_vectors(rows)
            done += len(rows)
            if progress is not None:
                progress(len(rows))

    async def _embed(self, texts: Sequence[str], tx: Tx | None = None) -> npt.NDArray[np.float32] | None:
        """Vectors for texts, or None while the embedder is failing (callers degrade).

        Inside a write transaction (`tx`), the content-hash cache is read and written through it: a
        write of its own would wait for the transaction that waits for it.
        """
        if not self.health.available():
            return None
        embedder = self.embedder()
        try:
            if embedder.space.provider == "hash":
                return await embedder.embed_batch(list(texts))  # computing beats a cache look-up
            return await self._embed_cached(embedder, texts, tx)
        except EmbedderError as exc:
            self.health.failed(exc)
            return None

    async def _embed_cached(
        self, embedder: Embedder, texts: Sequence[str], tx: Tx | None = None
    ) -> npt.NDArray[np.float32]:
        """Remote embeddings through the store's content-hash cache: each text is sent once."""
        import numpy as np  # lazy: start-up path

        from ..embed.index import dequantize, quantize  # lazy: numpy

        space = embedder.space.fingerprint()
        hashes = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        if tx is not None:
            cached = await tx.recall.cached_vectors(space, sorted(set(hashes)))
        else:
            async with self._store.read() as rx:
                cached = await rx.recall.cached_vectors(space, sorted(set(hashes)))
        missing = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}.items())
        if missing:
            fresh = await embedder.embed_batch([t for _, t in missing])
            rows = [(h, *quantize(vec)) for (h, _), vec in zip(missing, fresh, strict=True)]
            if tx is not None:
                await tx.recall.cache_vectors(space, rows)
            else:
                async with self._store.write() as wx:
                    await wx.recall.cache_vectors(space, rows)
            cached.update({h: (scale, blob) for h, scale, blob in rows})
        return np.stack([dequantize(*cached[h]) for h in hashes])

    async def _in_context(
        self, items: Sequence[tuple[str, str | None]], tx: Tx | None = None
    ) -> list[npt.NDArray[np.float32]] | None:
        """Vectors of (text, context) pairs: the text's own, with CONTEXT_WEIGHT of its context's mixed in."""
        wanted = list(dict.fromkeys(t for pair in items for t in pair if t is not None))
        missing = [t for t in wanted if t not in self._own_vectors]
        if missing:
            vectors = await self._embed(missing, tx)
            if vectors is None:
                return None
            if len(self._own_vectors) + len(missing) > OWN_VECTOR_CACHE:
                self._own_vectors.clear()
            self._own_vectors.update(zip(missing, vectors, strict=True))
        # Read every vector before the cache can be cleared by a later batch.
        own = {t: self._own_vectors[t] for t in wanted if t in self._own_vectors}
        if len(own) < len(wanted):  # more distinct texts in one batch than the cache holds
            vectors = await self._embed([t for t in wanted if t not in own], tx)
            if vectors is None:
                return None
            own.update(zip([t for t in wanted if t not in own], vectors, strict=True))
        from ..embed.index import with_context  # lazy: numpy

        return [
            own[text] if context is None else with_context(own[text], own[context], CONTEXT_WEIGHT)
            for text, context in items
        ]

    # writes ----------------------------------------------------------------------------------
    async def vector_for(
        self, text: str, session_id: str | None = None
    ) -> tuple[str, float, bytes, npt.NDArray[np.float32]] | None:
        """Embed a text for storing with its atom: (space, scale, blob, vector), or None if down.

        With a session, the text is read in its context: the latest live memory of that session
        (see CONTEXT_WEIGHT); the embed queue (RecallRepo.queued) rebuilds the same vector.
        """
        context = None
        if session_id:
            async with self._store.read() as rx:
                context = await rx.recall.session_context(session_id)
        return await self._stored_vector(text, context)

    async def vector_in(
        self, tx: Tx, text: str, context: str | None
    ) -> tuple[str, float, bytes, npt.NDArray[np.float32]] | None:
        """`vector_for` inside the caller's write transaction, given the session's context as that
        transaction reads it (RecallRepo.before_write: an earlier memory of the same transaction
        included); the embedding cache, if any, is read and written through the transaction."""
        return await self._stored_vector(text, context, tx)

    async def _stored_vector(
        self, text: str, context: str | None, tx: Tx | None = None
    ) -> tuple[str, float, bytes, npt.NDArray[np.float32]] | None:
        """A text's vector in its context, with the form it is stored in: (space, scale, blob, vector)."""
        vectors = await self._in_context([(text, context)], tx)
        if vectors is None:
            return None
        from ..embed.index import quantize  # lazy: numpy

        scale, blob = quantize(vectors[0])
        return self.embedder().space.fingerprint(), scale, blob, vectors[0]

    async def prepare(self, texts: Sequence[str]) -> None:
        """Before a write transaction that will embed `texts` (vector_in): a remote embedder is asked
        now, outside the write lock. The built-in embedder computes faster than a look-up: nothing to do."""
        if texts and self.embedder().space.provider != "hash":
            await self._in_context([(text, None) for text in texts])

    async def index_written(
        self,
        tx: Tx,
        num: int,
        vector: tuple[str, float, bytes, npt.NDArray[np.float32]] | None,
        session_id: str | None,
        recent: Sequence[int] | None = None,
        stored_seq: int | None = None,
    ) -> None:
        """Inside the atom's write transaction: store its vector and its associations.

        `recent`: the session's SESSION_LINKS latest live atoms before this one, newest first, when the
        caller has read them already (RecallRepo.before_write); `stored_seq`: the vector's seq when the
        caller stored it with the atom (RecallRepo.insert_with_vector).
        """
        links: list[tuple[int, int, str, float]] = []
        if session_id:
            if recent is None:
                recent = await tx.recall.recent_in_session(session_id, num, limit=SESSION_LINKS)  # newest first
            for previous in recent[:1]:
                links.append((num, previous, "temporal", 1.0))
            for same_task in recent:
                links.append((num, same_task, "task", 0.5))
        if vector is not None:
            space, scale, blob, vec = vector
            seq = stored_seq if stored_seq is not None else await tx.recall.put_vectors([(num, space, scale, blob)])
            self._staged.setdefault(tx, []).append((num, seq))
            # Link against everything stored so far, not only what the last search loaded; this
            # transaction's own vector is loaded too (the counter has not moved yet).
            await self._refresh(tx, own=(num, blob, seq))
            if self._index is not None and len(self._index):
                shortlist = max(LINK_SHORTLIST, len(self._index) // LINK_SHORTLIST_SHARE)
                for other, cosine in self._index.search(vec, 4, shortlist=shortlist):
                    if other != num and self.weights.vector_part(cosine) > SEMANTIC_LINK_EVIDENCE:
                        links.append((num, other, "semantic", round(cosine, 4)))
        if links:
            # The in-memory index may still hold atoms another process (or this one) just forgot.
            live = await tx.recall.live_nums([dst for _, dst, _, _ in links])
            links = [link for link in links if link[1] in live][:8]
            # A same-task link to the atom just before says nothing its full-weight temporal link does
            # not (expansion keeps the strongest link to each atom): not stored (~50 bytes a turn).
            temporal = {dst for _, dst, kind, _ in links if kind == "temporal"}
            links = [link for link in links if not (link[2] == "task" and link[1] in temporal)]
            if links:
                await tx.recall.link(links)

    # search ----------------------------------------------------------------------------------
    async def _refresh(self, rx: Reader, *, own: tuple[int, bytes, int] | None = None) -> None:
        """Bring the in-memory index up to date with what any process has written.

        `own` is the (num, blob, seq) of a vector the caller's write transaction just stored: it is
        loaded even though the change counter has not moved yet.
        """
        counter = await rx.change_counter()
        self._seen_counter = counter
        if self._embedder is None or (counter == self._counter and own is None):
            return
        index = self._index
        if own is not None and index is not None and counter == self._counter and self._queue_empty:
            num, blob, seq = own
            if index.seq == seq - 1:
                # Nothing was committed since the last refresh and no vector stored before this one
                # is missing: the write's own vector is all there is to load, and it is at hand.
                index.upsert_codes([num], [blob], seq=seq)
                return
        index = self._index_obj()
        space = self.embedder().space.fingerprint()
        monotonic = time.monotonic()
        if monotonic - self._last_full_check > FULL_CHECK_EVERY_S:
            self._last_full_check = monotonic
            if await rx.recall.vector_count(space) < len(index):
                index.clear()  # atoms were deleted or quarantined elsewhere: rebuild
        loaded = 0
        while True:
            rows = await rx.recall.vectors_since(space, index.seq, limit=LOAD_CHUNK)
            if not rows:
                break
            if not loaded and not len(index) and len(rows) == LOAD_CHUNK:
                # A load into an empty index (start-up, rebuild) of more than one chunk: sized once.
                index.reserve(await rx.recall.vector_count(space))
            index.upsert_codes([num for num, _, _, _ in rows], [r[3] for r in rows], seq=rows[-1][1])
            loaded += len(rows)
        if loaded > LOAD_CHUNK:
            from ..embed.index import release_freed_memory  # lazy: numpy

            release_freed_memory()  # the load's row objects and blocks, freed but still held by malloc
        self._counter = counter
        # Atoms written while the embedder was down (or by a process without one) wait in the
        # queue; whoever notices embeds them, in the background.
        self._queue_empty = False
        if self._drain_task is None or self._drain_task.done():
            if await rx.recall.queue_size():
                self._drain_task = self._background.spawn(self.drain_queue)
            else:
                self._queue_empty = True

    def commit_staged(self, tx: Tx) -> None:
        """The write transaction `tx` committed: the vectors it put in the index are the store's now."""
        self._staged.pop(tx, None)

    def discard_staged(self, tx: Tx) -> None:
        """The write transaction `tx` rolled back: take its vectors out of the index again.

        Their nums and seqs may be given to the next write, so the index must not keep them: the rows
        leave it, and the next refresh reads again from below the first seq they took.
        """
        staged = self._staged.pop(tx, None)
        if not staged or self._index is None:
            return
        self._index.remove([num for num, _ in staged])
        self._index.seq = min(self._index.seq, min(seq for _, seq in staged) - 1)
        self._counter = -1  # whatever the counter says, the next search or write reloads from there

    def note_own_write(self) -> None:
        """After a write of this process that stored no vector but those the index already loaded.

        Every committed write moves meta.change_counter on, so the next search would re-read the
        vectors to find nothing new. If this write is the only one since the index was last brought
        up to date (the counter moved by exactly one), the index is still current.
        """
        if self._queue_empty and self._store.last_write_counter == self._counter + 1:
            self._counter += 1

    def note_indexed_write(self) -> None:
        """After a write of this process that left the index current, if that write committed alone.

        Such a write (an atom and the vector index_written loaded, or a session's turn) stores no
        other vector, deletes no atom and queues none for embedding; when its commit held only that
        unit and moved the counter by exactly one since the index was last brought up to date, the
        next write's link search need not re-read the store.
        """
        if self._store.last_write_units == 1:
            self.note_own_write()

    def note_write_without_atoms(self) -> None:
        """After a write of this process that changed no atom and no vector (the user model's rows, its
        pending reviews, their events), if that write committed alone: the index and the document
        counts are as current as they were before it (see note_own_write)."""
        if self._store.last_write_units != 1:
            return
        self.note_own_write()
        if self._store.last_write_counter == self._doc_counts_at + 1:
            self._doc_counts_at += 1

    async def search(self, query: RecallQuery) -> RecallResult:
        """Hybrid search of trusted atoms, filtered before the cut, bounded by the budget."""
        return (await self.search_many([query]))[0]

    async def search_many(self, queries: Sequence[RecallQuery]) -> list[RecallResult]:
        """Several searches sharing one embedding batch, one index refresh and one matrix product."""
        plans = [self._plan(query) for query in queries]  # every query is checked before any work
        if not plans:
            return []
        wanted = [plan for plan in plans if plan.vector_on]
        vectors = await self._embed([plan.text for plan in wanted]) if wanted else None
        ts = now()
        # No snapshot transaction: each statement reads committed data, and every hit is re-checked
        # against its atom row, so a write landing in between can only add or drop a candidate.
        async with self._lock, self._store.read(snapshot=False) as rx:
            product = None
            if vectors is not None:
                await self._refresh(rx)
                product = self._start_product(vectors)
            for plan in plans:
                if plan.query.mode != "vector":
                    for num, score in await rx.recall.keyword(
                        plan.terms, plan.filters, now=ts, limit=plan.fetch, narrowed=plan.narrowed
                    ):
                        plan.candidates.setdefault(num, Candidate(num)).keyword = score
            # One read of the rank fields serves every query (they do not depend on the query); with
            # vectors, those of the keyword candidates are read while the product is running.
            fields: dict[int, RankFields] = {}
            if product is not None:
                fields = await rx.recall.rank_fields(sorted({num for plan in plans for num in plan.candidates}))
                await self._vector_candidates(rx, wanted, product, ts)
            missing = {num for plan in plans for num in plan.candidates}.difference(fields)
            if missing:
                fields.update(await rx.recall.rank_fields(sorted(missing)))
            for plan in plans:
                plan.best_keyword = max((c.keyword for c in plan.candidates.values()), default=0.0)
                fused = 0.0 < plan.keyword_weight(self.weights.keyword_weight) < 1.0
                if fused and plan.best_keyword > 0 and self._index:
                    # Fused with meaning, keyword evidence is read on an absolute scale (see
                    # ranking.query_information); alone, it keeps its scale relative to the best match.
                    counts = await self._term_counts(rx, plan.terms)
                    plan.information = query_information(counts, len(self._index))
                plan.scored = self._score(plan, plan.candidates, fields, ts)
            await self._expand(rx, [plan for plan in plans if plan.query.expand and plan.scored], fields, ts)
            for plan in plans:
                plan.scored.sort(key=by_score, reverse=True)
                if 0.0 < plan.keyword_weight(self.weights.keyword_weight) < 1.0:
                    keep_leaders(plan.scored, list_leaders(plan.candidates), plan.query.k)
                # Whole rows only for the hits that can be returned (with room for collapsed duplicates).
                del plan.scored[plan.query.k + COLLAPSE_SPARE :]
            atoms = await rx.recall.atoms_by_num(sorted({item.num for plan in plans for item in plan.scored}))
        return [self._result(plan, atoms) for plan in plans]

    async def _term_counts(self, rx: Reader, terms: list[str]) -> list[int]:
        """In how many live atoms each term occurs (capped: see DOC_COUNT_CAP), counted once per store state.

        Only called after this search's refresh read the change counter. Counts taken just after
        a write landed are labelled with the counter before it, so the next search drops them.
        """
        if self._doc_counts_at != self._seen_counter:
            self._doc_counts.clear()
            self._doc_counts_at = self._seen_counter
        missing = [term for term in dict.fromkeys(terms) if term not in self._doc_counts]
        if missing:
            if len(self._doc_counts) + len(missing) > DOC_COUNT_CACHE:
                self._doc_counts.clear()
            self._doc_counts.update(zip(missing, await rx.recall.doc_counts(missing, DOC_COUNT_CAP), strict=True))
        return [self._doc_counts[term] for term in terms]

    def _plan(self, query: RecallQuery) -> Plan:
        """Check one query and work out what it searches with (raises InvalidInput)."""
        text = query.text.strip()
        if not text:
            raise InvalidInput("query is empty; say what to look for")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is {len(text):,} characters; keep it under {MAX_QUERY_CHARS:,}")
        if not 1 <= query.k <= 100:
            raise InvalidInput(f"k must be between 1 and 100; got {query.k}")
        if query.mode not in ("hybrid", "keyword", "vector"):
            raise InvalidInput(f"mode must be hybrid, keyword or vector; got {query.mode!r}")
        # A long message ORs many terms, and FTS cost grows with every matching row: the first
        # MAX_QUERY_TERMS content words carry the question.
        terms = (content_terms(text) or [t for t in text.lower().split() if t])[:MAX_QUERY_TERMS]
        plan = Plan(
            query,
            text,
            terms,
            dataclasses.replace(query.filters, status="live"),
            narrows(query.filters),
            query.k * self._settings.recall.overfetch,
            self.health.available() and query.mode != "keyword",
        )
        span = query_range(text, datetime.fromtimestamp(now()))
        if span is not None:
            first, last = span
            plan.said_between = (
                datetime.combine(first, datetime.min.time()).timestamp(),
                datetime.combine(last + timedelta(days=1), datetime.min.time()).timestamp(),
            )
        return plan

    def _start_product(self, vectors: npt.NDArray[np.float32]) -> Callable[[], Scores | None]:
        """Start the index's first stage for the query vectors; returns the call that collects it.

        A large index is scanned in a worker thread (numpy lets go of the GIL) while this thread
        runs the FTS queries. The loop does not yield until the scores are collected (reads run
        synchronously), so no write can reach the index meanwhile.
        """
        index = self._index
        if index is None or not len(index):
            return lambda: None
        if len(index) < OVERLAP_MIN_ROWS:
            scores = index.prepare(vectors)
            return lambda: scores
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recall-matmul")
        return self._worker.submit(index.prepare, vectors).result

    async def _vector_candidates(
        self, rx: Reader, plans: list[Plan], product: Callable[[], Scores | None], ts: float
    ) -> None:
        """Add the nearest atoms of each plan's query vector to its candidates."""
        index, scores = self._index, product()
        if index is None or scores is None:
            return  # nothing embedded in this space yet (e.g. re-embedding): keyword evidence alone
        for plan in plans:
            plan.has_vector = True
        for row, plan in enumerate(plans):
            one = scores.row(row)
            pairs = (
                await self._nearest_admitted(rx, index, one, plan, ts)
                if plan.narrowed
                else index.best(one, [plan.fetch])[0]
            )
            for num, cosine in pairs:
                plan.candidates.setdefault(num, Candidate(num)).cosine = cosine

    async def _nearest_admitted(
        self, rx: Reader, index: VectorIndex, scores: Scores, plan: Plan, ts: float
    ) -> list[tuple[int, float]]:
        """The plan's best `fetch` rows among the atoms its filter admits (scores: one row).

        Listing every atom a broad filter admits takes milliseconds (a type filter admits thousands
        of 10k), so the best few rows overall are checked first, then four times as many, and so
        on; only a filter that admits almost none of them falls back to the full list. Either way
        the result is the same: the best rows are a prefix of one fixed order (see VectorIndex; past
        its EXACT_ROWS each step ranks its own, longer shortlist, so a longer step is at least as exact).
        """
        admitted: set[int] = set()
        checked: set[int] = set()
        take = plan.fetch * NARROW_OVERFETCH
        while take <= NARROW_MAX_CHECKED:
            pairs = index.best(scores, [take])[0]
            fresh = [num for num, _ in pairs if num not in checked]
            admitted |= await rx.recall.admitted(fresh, plan.filters, now=ts)
            checked.update(fresh)
            found = [(num, cosine) for num, cosine in pairs if num in admitted]
            if len(found) >= plan.fetch or len(pairs) < take:
                return found[: plan.fetch]
            take *= 4
        mask = index.mask(await rx.recall.allowed_nums(plan.filters, now=ts))
        return index.best(scores, [plan.fetch], [mask])[0]

    def _score(
        self, plan: Plan, candidates: dict[int, Candidate], fields: dict[int, RankFields], ts: float
    ) -> list[Scored]:
        """Relevance, retention and the composite of every candidate still live and trusted."""
        scored: list[Scored] = []
        stale: list[int] = []
        weights = self.weights
        keyword_weight = plan.keyword_weight(weights.keyword_weight)
        min_score, half_life, best_keyword = weights.min_score, weights.half_life_days, plan.best_keyword
        for num, cand in candidates.items():
            row = fields.get(num)
            if row is None or row[1] != "live" or not is_trusted(row[2]):
                stale.append(num)
                continue
            keyword = (
                fused_keyword(cand.keyword, best_keyword, plan.information)
                if plan.information > 0
                else keyword_part(cand.keyword, best_keyword)
            )
            rel = relevance(keyword, weights.vector_part(cand.cosine), keyword_weight)
            if cand.linked is not None:
                # Its own match and its link to a strong hit are two pieces of evidence (noisy-or).
                rel = 1.0 - (1.0 - rel) * (1.0 - cand.link_score)
            said_then = plan.said_between is not None and plan.said_between[0] <= row[4] < plan.said_between[1]
            if said_then:
                # "What did I do last May?": what was said then is favoured, not required.
                rel = min(1.0, rel + SAID_THEN_BONUS)
            if rel < min_score:
                continue
            ret = retention(
                confidence=row[3],
                created_at=row[4],
                # Age runs from when it was said, not from its last recall: a recall would refresh
                # every hit a search returned, so what earlier questions happened to return would
                # outrank a better match said as long ago (observe over a replayed year, `local`:
                # evidence R@10 0.803 -> 0.865). Eviction still keeps what is recalled (budget.py).
                last_recalled_at=None,
                now=ts,
                half_life_days=half_life,
                trusted=True,
                # The question picked the time it is about: age does not count against what was said then.
                pinned=bool(row[6]) or said_then,
            )
            # How sure the memory is weighs a little on the score too, not only through retention (which
            # fades to nothing over months): a typed memory outranks the raw turn it came from, and a
            # memory the user corrected (its confidence halved) ranks below the correction.
            sure = CONFIDENCE_FLOOR + (1.0 - CONFIDENCE_FLOOR) * row[3]
            score = composite(rel, ret, weights.relevance_weight) * sure
            scored.append(Scored(num, score, rel, ret, cand.linked or ""))
        if stale and self._index is not None:
            self._index.remove(stale)  # forgotten or quarantined since the index loaded them
        return scored

    async def _expand(self, rx: Reader, plans: list[Plan], fields: dict[int, RankFields], ts: float) -> None:
        """Add to each plan the associated atoms of its best hits, one hop, at a discounted score."""
        if not plans:
            return
        tops = [sorted(plan.scored, key=by_score, reverse=True)[:3] for plan in plans]
        # One read of the links (and of the linked atoms' rank fields) for every plan's best hits.
        links = await rx.recall.neighbours(sorted({item.num for top in tops for item in top}))
        if not links:
            return
        linked_fields = {other: row for _, other, _, _, row in links if row is not None}
        for plan, top in zip(plans, tops, strict=True):
            extra: dict[int, Candidate] = {}
            by_num = {item.num: item for item in top}
            for src, dst, kind, weight, _ in links:
                if src not in by_num:
                    continue
                score = by_num[src].relevance * EXPANSION_DISCOUNT * min(1.0, weight)
                if dst in extra and extra[dst].link_score >= score:
                    continue
                # A candidate that missed min_score on its own may still come in through its link.
                own = plan.candidates.get(dst, Candidate(dst))
                extra[dst] = Candidate(dst, own.keyword, own.cosine, f"linked ({kind}) to {fields[src][0][:8]}", score)
            if extra and plan.narrowed:
                # Filters hold for linked atoms too. (Those they exclude are not stale: they stay indexed.)
                admitted = await rx.recall.admitted(list(extra), plan.filters, now=ts)
                extra = {num: cand for num, cand in extra.items() if num in admitted}
            if extra:
                # A hit already scored on its own is scored again with its link's evidence added.
                plan.scored = [item for item in plan.scored if item.num not in extra]
                plan.scored += self._score(plan, extra, {**fields, **linked_fields}, ts)

    def _result(self, plan: Plan, atoms: dict[int, Atom]) -> RecallResult:
        """One plan's hits: near-duplicates collapsed, explained, cut to the budget."""
        query = plan.query
        index = self._index
        found = [(item, atoms[item.num]) for item in plan.scored if item.num in atoms]
        vectors: list[Vector | None] = (
            index.vectors([item.num for item, _ in found]) if index is not None else [None] * len(found)
        )
        kept, collapsed = collapse_duplicates(found, vectors, query.k)
        hits = [
            Hit(
                atom,
                round(item.score, 4),
                round(item.relevance, 4),
                round(item.retention, 4),
                _explain(plan, item, atom.text),
            )
            for item, atom in kept
        ]
        result_hits, truncated = within_budget(hits, query.budget_chars or self._settings.recall.budget_chars)
        if query.touch:
            self._remember_touches([item.num for item, _ in kept[: len(result_hits)]])
        mode = query.mode if plan.has_vector or query.mode == "keyword" else "keyword"
        return RecallResult(tuple(result_hits), mode, len(plan.candidates), truncated, collapsed)

    async def similarities(self, text: str, others: Sequence[str]) -> list[float] | None:
        """Cosine of `text` against each of `others`, or None while the embedder is unavailable."""
        if not others:
            return []
        # Only `others` (facts entries, compared again and again) are kept: `text` is a search's
        # question or a candidate entry, mostly seen once, and keeping it filled the cache with
        # one-off questions (4,096 of them, ~9 MB) before it was dropped. An entry's vector is computed
        # again when it is first among `others`: the same vector (a remote one comes from the store).
        cached = self._text_vectors
        query = cached.get(text)
        missing = [t for t in dict.fromkeys(others) if t not in cached]
        vectors_of = {o: cached[o] for o in others if o in cached}
        fresh = missing if query is not None or text in missing else [text, *missing]
        if fresh:
            vectors = await self._embed(fresh)
            if vectors is None:
                return None
            computed = dict(zip(fresh, vectors, strict=True))
            query = computed[text] if query is None else query
            vectors_of.update((t, computed[t]) for t in missing)
            if len(cached) + len(missing) > TEXT_VECTOR_CACHE:
                cached.clear()
            cached.update((t, computed[t]) for t in missing)
        if query is None:
            return None
        import numpy as np  # lazy: start-up path (already loaded by the embedder here)

        scores = np.stack([vectors_of[o] for o in others]) @ query
        return [float(score) for score in scores.tolist()]

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
            # Without vectors (embedder down) the word overlap is the whole of the evidence.
            keyword_weight = self.weights.keyword_weight if cosines is not None else 1.0
            score = relevance(overlap, self.weights.vector_part(cosine), keyword_weight)
            if score >= self.weights.min_score:
                why = ("keywords: " + ", ".join(words)) if words else f"meaning (cosine {cosine:.2f})"
                scored.append((entry, position[entry.target], round(score, 4), why))
        scored.sort(key=lambda item: item[2], reverse=True)
        return scored[:limit]

    # recall statistics ------------------------------------------------------------------------
    def _remember_touches(self, nums: Sequence[int]) -> None:
        if not nums:
            return
        ts = now()
        for num in nums:
            self._touches[num] = ts
            self._touch_counts[num] = self._touch_counts.get(num, 0) + 1
        if self._flush_task is None or self._flush_task.done():
            self._flush_task = self._background.spawn(self._flush_touches_later)

    async def _flush_touches_later(self) -> None:
        # One write per search was ~0.8 ms of CPU (a COMMIT), as much as a third of a search at 10k;
        # the searches of a burst (a turn's context and search, a client's batch) share one. Only
        # statistics wait: close() flushes what is pending, a crash loses at most this window's.
        await asyncio.sleep(TOUCH_FLUSH_DELAY_S)
        await self.flush_touches()

    async def flush_touches(self) -> None:
        """Write pending last-recalled / recall-count updates (batched, after the reply)."""
        if not self._touches:
            return
        touched, counts = self._touches, self._touch_counts
        self._touches, self._touch_counts = {}, {}
        async with self._store.write() as tx:
            await tx.recall.touch([(num, touched[num], counts[num]) for num in sorted(touched)])
        self.note_own_write()  # recall statistics are no vectors
        if self._store.last_write_counter == self._doc_counts_at + 1:
            self._doc_counts_at += 1  # nor text: the document counts still hold


def _explain(plan: Plan, item: Scored, text: str) -> str:
    """Why a hit matched: its own evidence, and the link that added to it (if any)."""
    own = plan.why(item.num, text)
    if not item.linked:
        return own
    return item.linked if own == "weak match" else f"{own} + {item.linked}"
