"""Scoring of recall candidates: relevance fusion, retention decay, the composite. Pure.

retention = confidence × 0.5^(age_days / half_life) × trust_boost, where age runs from the later of
when the memory was said and its last recall (eviction passes both; search passes no recall, so
a ranking does not depend on earlier searches) and pinned memories do not decay.
composite = relevance_weight × relevance + (1 − relevance_weight) × retention.
relevance = w × keyword + (1 − w) × vector, w per query (fused_keyword_weight).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

DAY = 86400.0
# Default reading of cosines when an embedder says nothing else (EmbeddingSpace): close paraphrases
# rarely pass ~0.6, so scaling by this puts vector evidence on the same 0–1 footing as
# max-normalised BM25.
COSINE_FULL_SCALE = 0.6
EXPANSION_DISCOUNT = 0.5
# Fused keyword evidence (see fused_keyword): the share of it read relative to the query's best match.
RELATIVE_KEYWORD_SHARE = 0.5
# How a query's keyword weight follows its best keyword match (see fused_keyword_weight): the configured
# weight holds for a query whose best match covers KEYWORD_PIVOT of its information, and each tenth more
# (or less) moves it by a tenth of KEYWORD_WEIGHT_GAIN, within KEYWORD_WEIGHT_BOUNDS.
KEYWORD_PIVOT = 0.375
KEYWORD_WEIGHT_GAIN = 0.4
KEYWORD_WEIGHT_BOUNDS = (0.05, 0.95)


@dataclass(frozen=True, slots=True)
class RankWeights:
    """The configurable knobs of ranking."""

    relevance_weight: float = 0.8
    keyword_weight: float = 0.4
    half_life_days: float = 30.0
    min_score: float = 0.12
    cosine_floor: float = 0.0  # from the embedder's space: how its cosines read
    cosine_full: float = COSINE_FULL_SCALE

    def vector_part(self, cosine: float) -> float:
        """A cosine of this space mapped to 0–1 evidence."""
        return vector_part(cosine, self.cosine_floor, self.cosine_full)


def keyword_part(score: float, best: float) -> float:
    """BM25 relative to the best keyword match of this query (0–1)."""
    return score / best if best > 0 else 0.0


def query_information(doc_counts: Sequence[int], total: int) -> float:
    """What a memory matching every term of the query once would score in BM25 (the sum of their IDFs).

    FTS5's BM25 gives each matched term idf = ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6) times a
    term-frequency part that is 1 for one occurrence in a memory of average length. Dividing a BM25
    score by this sum reads it on an absolute scale: the share of the query's information the memory
    matches. A match on the one rare name in a question then counts fully, a match on a common word
    barely — which "relative to this query's best match" cannot tell apart.
    """
    n_docs = max(total, 1)
    return sum(max(1e-6, math.log((n_docs - n + 0.5) / (n + 0.5))) for n in doc_counts)


def keyword_share(score: float, information: float) -> float:
    """BM25 as the share of the query's information matched (0–1)."""
    return min(1.0, score / information) if information > 0 else 0.0


def fused_keyword(score: float, best: float, information: float) -> float:
    """Keyword evidence fused with meaning: half its share of the query's information, half relative
    to the query's best match.

    The share alone reads a memory matching one of a question's two rare words as weak as one matching
    a common word of five, and vector evidence then outweighs the best keyword hits of a chat question
    ("which lumberyard did I say I'd get the cherry from?"); relative alone, a question whose words no
    memory shares still calls its best accidental match full evidence. Measured on the conversation sets
    with `hash`, hybrid R@10 +1 to +2.5 points over the share alone; one-line sets within a point.
    """
    return RELATIVE_KEYWORD_SHARE * keyword_part(score, best) + (1.0 - RELATIVE_KEYWORD_SHARE) * keyword_share(
        score, information
    )


def fused_keyword_weight(configured: float, best_share: float) -> float:
    """A query's keyword weight: the configured one, moved by how much of it its best keyword match covers.

    A question whose rare words a memory holds (a name, "lumberyard") is answered by keyword; one that
    shares only common words with every memory (a paraphrase) by meaning. `best_share` is the best
    candidate's keyword_share. A configured 0 or 1 (one signal alone) is kept as it is.
    """
    if not 0.0 < configured < 1.0:
        return configured
    low, high = KEYWORD_WEIGHT_BOUNDS
    return max(low, min(high, configured + KEYWORD_WEIGHT_GAIN * (best_share - KEYWORD_PIVOT)))


def vector_part(cosine: float, floor: float = 0.0, full: float = COSINE_FULL_SCALE) -> float:
    """Cosine similarity mapped to 0–1: nothing at ``floor`` (unrelated texts), all from ``full``."""
    return max(0.0, min(1.0, (cosine - floor) / (full - floor)))


def relevance(keyword: float, vector: float, keyword_weight: float) -> float:
    """Weighted sum of the normalised keyword and vector evidence."""
    return keyword_weight * keyword + (1.0 - keyword_weight) * vector


def retention(
    *,
    confidence: float,
    created_at: float,
    last_recalled_at: float | None,
    now: float,
    half_life_days: float,
    trusted: bool,
    pinned: bool,
) -> float:
    """How strongly a memory is still held: confidence decayed by time since last use."""
    if not trusted:
        return 0.0
    if pinned:
        return confidence
    last_use = max(created_at, last_recalled_at or 0.0)
    age_days = max(0.0, now - last_use) / DAY
    return float(confidence * 0.5 ** (age_days / half_life_days))


def composite(relevance_score: float, retention_score: float, relevance_weight: float) -> float:
    """The final ranking score."""
    return relevance_weight * relevance_score + (1.0 - relevance_weight) * retention_score


def word_overlap(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Jaccard overlap of two word sets (1.0 when both are empty: nothing tells them apart)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0
