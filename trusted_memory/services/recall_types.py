"""The values recall works with: queries, hits, results, the per-query plan of a search batch, and
the pure helpers that explain and budget hits. No I/O here; services/recall.py does the searching.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import operator
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..config import Settings
from ..model import Atom
from ..people import restricting_viewer
from ..queries import AtomFilter
from ..ranking import fused_keyword_weight, keyword_share, word_overlap
from ..text import content_terms, content_words, negated, stem

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..embed.base import Embedder

log = logging.getLogger(__name__)

EMBEDDER_BACKOFF_S = 30.0
HIT_OVERHEAD_CHARS = 60  # id, type, source and age around each hit's text
DUPLICATE_COSINE = 0.92
DUPLICATE_WORDS = 0.9  # ...and share this much of their content words (Jaccard): same meaning is not enough
MAX_QUERY_CHARS = 2000
_EXCERPT_GAP = " … "


def query_excerpt(message: str, limit: int = MAX_QUERY_CHARS) -> str:
    """A message as a search query: whole when it fits, else its start and its end, each cut at a space.

    A search the agent composes must fit (a longer one is refused), but the `context` block searches
    with the user's own message, which may be long: its question is usually at the start or the
    end, with pasted material in between, so both ends stand in for it.
    """
    text = message.strip()
    if len(text) <= limit:
        return text
    half = (limit - len(_EXCERPT_GAP)) // 2
    head, tail = text[:half], text[-half:]
    # Whole words only: a cut word would search for a word nobody wrote.
    words = head.rsplit(None, 1)
    head = words[0] if len(words) > 1 else head
    words = tail.split(None, 1)
    tail = words[-1] if len(words) > 1 else tail
    return f"{head.rstrip()}{_EXCERPT_GAP}{tail.lstrip()}"


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """One search: the text, how many results, and the filters applied before the top-k cut."""

    text: str
    k: int = 10
    filters: AtomFilter = field(default_factory=AtomFilter)
    budget_chars: int | None = None
    expand: bool = True
    mode: str = "hybrid"
    touch: bool = True  # count this as a recall (statistics, eviction); measurement passes False


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
class Candidate:
    num: int
    keyword: float = 0.0
    cosine: float = 0.0
    linked: str | None = None
    link_score: float = 0.0


class Scored(NamedTuple):
    num: int
    score: float
    relevance: float
    retention: float
    linked: str


@dataclass(slots=True)
class Plan:
    """One query of a search batch: what it searches with, and what it has found so far."""

    query: RecallQuery
    text: str
    terms: list[str]
    filters: AtomFilter
    narrowed: bool
    fetch: int
    vector_on: bool
    has_vector: bool = False
    candidates: dict[int, Candidate] = field(default_factory=dict)
    best_keyword: float = 0.0
    information: float = 0.0  # the query's BM25 information (ranking.query_information); 0 when not fused
    said_between: tuple[float, float] | None = None  # a question about a time ("last May"): its span
    scored: list[Scored] = field(default_factory=list)
    query_terms: list[tuple[str, str]] | None = None

    def keyword_weight(self, hybrid_weight: float) -> float:
        """The keyword share of relevance: the configured one when both signals ran, else all of it.

        A single signal (keyword mode, vector mode, or keyword recall while the embedder is down)
        is weighed on its own, so relevance still spans 0-1 and retention does not outweigh it.
        """
        if self.query.mode == "vector":
            return 0.0
        if self.query.mode == "keyword" or not self.has_vector:
            return 1.0
        # Fused: the weight follows how much of the query its best keyword match covers (none: 0).
        return fused_keyword_weight(hybrid_weight, keyword_share(self.best_keyword, self.information))

    def why(self, num: int, text: str) -> str:
        """Why an atom matched this query (worked out only for the hits returned)."""
        cand = self.candidates.get(num) or Candidate(num)
        if cand.linked is not None:
            return cand.linked
        parts = []
        if cand.keyword > 0:
            if self.query_terms is None:
                self.query_terms = stemmed(self.text)
            words = matched_stems(self.query_terms, text)
            parts.append("keywords: " + ", ".join(words) if words else "keywords")
        if cand.cosine > 0:
            parts.append(f"meaning (cosine {cand.cosine:.2f})")
        return " + ".join(parts) or "weak match"


by_score = operator.attrgetter("score")
# One result place in this many may go to a list's best hit that fusion ranked lower (keep_leaders).
LEADER_SHARE = 5


def list_leaders(candidates: dict[int, Candidate]) -> list[int]:
    """The first hit of the keyword list and of the vector list (each at most once)."""
    keyword = cosine = 0.0
    by_keyword = by_cosine = -1
    for cand in candidates.values():
        if cand.keyword > keyword:
            keyword, by_keyword = cand.keyword, cand.num
        if cand.cosine > cosine:
            cosine, by_cosine = cand.cosine, cand.num
    return [num for num in dict.fromkeys((by_keyword, by_cosine)) if num >= 0]


def keep_leaders(scored: list[Scored], leaders: Sequence[int], k: int) -> None:
    """Move the leaders that fell below the first k of a score-sorted list into its last places.

    Fusion may rank a memory under ten others that one list alone ranked first; each list's best
    is then still shown (in score order, so scores stay monotonic), in place of the weakest of the
    others. At most one place in LEADER_SHARE is given up this way, so a short list (k < 5) stays
    the fused one. A leader that missed min_score or is no longer live is not in `scored`.
    """
    room = k // LEADER_SHARE
    if len(scored) <= k or not room or not leaders:
        return
    head = scored[:k]
    outside = set(leaders).difference(item.num for item in head)
    if not outside:
        return  # the usual case: both are shown already
    lifted = [item for item in scored[k:] if item.num in outside][:room]
    if not lifted:
        return
    # The weakest hits of the first k that are no leader make way; every lifted one scores below them.
    dropped: set[int] = set()
    for item in reversed(head):
        if len(dropped) == len(lifted):
            break
        if item.num not in leaders:
            dropped.add(item.num)
    gone = dropped | {item.num for item in lifted}
    scored[:] = [
        *(item for item in head if item.num not in dropped),
        *lifted,
        *(item for item in head if item.num in dropped),
        *(item for item in scored[k:] if item.num not in gone),
    ]


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
        # lazy: numpy stays off the start-up path
        from ..embed.hashing import HashingEmbedder

        return HashingEmbedder(conf.dims)
    if conf.provider == "http":
        from ..embed.openai_http import OpenAIEmbedder  # lazy: as above

        return OpenAIEmbedder(conf)
    from ..embed.local import LocalEmbedder  # lazy: the neural extra is heavy

    return LocalEmbedder(conf)


def narrows(f: AtomFilter) -> bool:
    """Whether the filter (or, in a team's store, the acting person's view) excludes some live atoms."""
    return bool(
        f.types or f.exclude_types or f.tags or f.project is not None or f.scope or f.source_class or f.since or f.until
    ) or (restricting_viewer() is not None)


# Stemming is pure and the same few thousand words recur in queries and hits.
_stem = functools.lru_cache(maxsize=16384)(stem)


def stemmed(text: str) -> list[tuple[str, str]]:
    return [(term, _stem(term)) for term in content_terms(text)]


def matched_stems(query_terms: list[tuple[str, str]], text: str) -> list[str]:
    # content_words is memoised (the duplicate check reads the same hits): no second tokenisation.
    stems = {_stem(word) for word in content_words(text)}
    return [term for term, stemmed in query_terms if stemmed in stems]


def within_budget(hits: list[Hit], budget: int) -> tuple[list[Hit], bool]:
    out: list[Hit] = []
    used = 0
    for hit in hits:
        cost = len(hit.atom.text) + HIT_OVERHEAD_CHARS
        if used + cost > budget:
            if not out and budget > HIT_OVERHEAD_CHARS + 20:
                room = budget - HIT_OVERHEAD_CHARS
                cut = hit.atom.text[: room - 1].rstrip() + "…"
                out.append(Hit(with_text(hit.atom, cut), hit.score, hit.relevance, hit.retention, hit.matched))
            return out, True
        used += cost
        out.append(hit)
    return out, False


def with_text(atom: Atom, text: str) -> Atom:
    return dataclasses.replace(atom, text=text)


def says_the_same(a: str, b: str) -> bool:
    """Whether two texts already close in vector also say the same: nearly the same content words
    and no negation (negations are stop words, invisible to word sets and vectors alike)."""
    return word_overlap(content_words(a), content_words(b)) >= DUPLICATE_WORDS and not negated(a) and not negated(b)


def collapse_duplicates(
    hits: list[tuple[Scored, Atom]],
    vectors: list[npt.NDArray[np.float32] | None],
    k: int,
) -> tuple[list[tuple[Scored, Atom]], int]:
    """The best k hits, dropping near-duplicates of a better hit.

    A near-duplicate has the same text, or nearly the same vector *and* nearly the same content
    words: "we deploy ... every Friday" and "we deploy ... every Thursday" are 0.97 alike to an
    embedder with a sense of meaning, yet the change is the point and both must be seen. A negated
    statement is only ever a duplicate of the same text: "I eat meat" and "I don't eat meat" have
    the same content words and the same vector (negations are stop words).
    """
    kept: list[tuple[Scored, Atom]] = []
    kept_rows: list[int] = []  # positions in `hits` of the kept hits that have a vector
    seen_text: set[str] = set()
    collapsed = 0
    present = [i for i, vec in enumerate(vectors) if vec is not None]
    # All pairwise cosines at once: one small product instead of a dot per pair.
    sims: dict[int, list[float]] = {}
    if present:
        import numpy as np  # lazy: start-up path (already loaded by the embedder here)

        matrix = np.stack([vec for vec in vectors if vec is not None])
        sims = dict(zip(present, (matrix @ matrix.T).tolist(), strict=True))
    column = {i: j for j, i in enumerate(present)}
    for pos, (item, atom) in enumerate(hits):
        if len(kept) >= k:
            break
        key = " ".join(atom.text.casefold().split()).strip(" .!?")
        duplicate = key in seen_text
        row = sims.get(pos)
        if not duplicate and row is not None:
            duplicate = any(
                row[column[other]] >= DUPLICATE_COSINE and says_the_same(atom.text, hits[other][1].text)
                for other in kept_rows
            )
        if duplicate:
            collapsed += 1
            continue
        seen_text.add(key)
        kept.append((item, atom))
        if row is not None:
            kept_rows.append(pos)
    return kept, collapsed
