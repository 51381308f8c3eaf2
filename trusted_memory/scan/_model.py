"""A small learned second opinion on prompt injection: logistic regression over hashed n-grams and concepts.

Hand-written rules generalise poorly to wording they have not seen (first-sight catch rates of
new batches were 42-85 %), so beside them a linear model scores the folded text from hashed
features: words, their first four letters (round 6: inflections and compounds), word bigrams and
character 2-5-grams (character n-grams carry scripts without spaces and inflected languages), plus
one feature per scanner concept whose gate word (or raw pattern) occurs
(``_concepts``: "dismiss", "remember", "secrets", "ai vocative" … each a set of terms in many
languages), so what the model learns about an idea in one language carries to the others; out
of author that raised the model's catch rate more than n-gram tuning or word-meaning vectors
(see the training script). The weights are trained offline by
``scripts/train_injection_model.py`` (scikit-learn there only) on the scanner corpus and shipped
as ``data/injection_model.npz``; here they are only read with numpy, so a text always gets the
same score. The training script reports leave-one-author-out figures and picks the threshold.

Linear and bounded: features are computed with numpy over the code points (no per-character
Python loop); a text longer than ``WINDOW`` is scored per line (short lines joined, long ones in
overlapping windows) and the highest segment counts, so a paragraph of injection inside a long
page is not diluted by the page; the number of segments is linear in the text.
"""

from __future__ import annotations

import re
import zlib
from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from ..errors import ConfigError
from ._injection_combos import COMBOS
from ._rules import ScanText

__all__ = [
    "CONCEPTS",
    "CONCEPT_SCALE",
    "MODEL_LABEL",
    "concept_names",
    "feature_blocks",
    "features",
    "injection_score",
    "model_flags",
    "ngram_values",
    "segments",
]

MODEL_LABEL = "learned injection model"
BITS = 16  # 65,536 hashed buckets (2^17 and 2^18 scored no better out of author)
CHAR_SIZES = (2, 3, 4, 5)
PREFIX = 4  # letters of a word kept as its prefix feature (3 and 5 scored lower out of author)
WINDOW = 800  # characters per scored window; training texts are mostly shorter
STRIDE = 400
MIN_SEGMENT = 160  # a long text is scored per line; shorter lines are joined to the next
# Below this many characters the model stays silent: with a handful of n-grams one word weighs like a
# sentence ("AI", "assistant", "hi AI" scored over the threshold), and the corpora's injections that
# short (nine, all CJK) are the rules' to catch.
MIN_CHARS = 16
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: spreads the polynomial hash's high bits
_PRIME = np.uint64(1_000_003)
_SHIFT = np.uint64(64 - BITS)
# Salts per n-gram kind: 1 and 2 words and word bigrams, 2-5 character n-grams, 6 word prefixes.
_SALTS = {n: np.uint64(0x51ED270B27F4A3C1 * n & 0xFFFFFFFFFFFFFFFF) for n in (1, 2, *CHAR_SIZES, 6)}
CONCEPTS = tuple(COMBOS.names())  # the concept features, in the training script's column order
CONCEPT_SCALE = 0.3  # a concept feature's value in training (the n-gram features sum to about 1)
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def _bucket(h: npt.NDArray[np.uint64], n: int) -> npt.NDArray[np.int64]:
    mixed = (h ^ _SALTS[n]) * _MIX  # wraps around: called under errstate(over="ignore")
    return (mixed >> _SHIFT).astype(np.int64)


def feature_blocks(low: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The hashed buckets of a lower-cased, folded text: character n-grams, then words, word prefixes and bigrams.

    One entry per occurrence. The two blocks are scaled apart (each by one over the square root of
    its length): character n-grams outnumber words about five to one, and scaled together they
    drowned the words; apart, the model caught more of a left-out author's injections at the same
    benign rate (benchmarks/RESULTS.md, round 5).
    """
    text = " " + _SPACES.sub(" ", low).strip() + " "
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    chars: list[npt.NDArray[np.int64]] = []
    words: list[npt.NDArray[np.int64]] = []
    with np.errstate(over="ignore"):
        # The polynomial hash of each n-gram, h_n[i] = sum of cps[i + k] * PRIME^(n-1-k) (mod 2^64),
        # extends the one of the (n-1)-gram at i: h_n[i] = h_{n-1}[i] * PRIME + cps[i + n - 1].
        h = cps
        for size in range(2, CHAR_SIZES[-1] + 1):
            if len(cps) < size:
                break
            h = h[:-1] * _PRIME + cps[size - 1 :]
            if size in CHAR_SIZES:
                chars.append(_bucket(h, size))
        found = _WORD.findall(text)
        hashed = np.array([zlib.crc32(w.encode("utf-8", "surrogatepass")) for w in found], dtype=np.uint64)
        if len(hashed):
            words.append(_bucket(hashed, 1))
            # A word's first letters stand for its inflections and compounds ("instructions",
            # "instrukce", "instruktioner"; "ignoring", "ignorujte"): out of author they raised the
            # model's catch rate at every benign budget (benchmarks/RESULTS.md, round 6).
            stems = [w[:PREFIX] for w in found]
            words.append(
                _bucket(np.array([zlib.crc32(w.encode("utf-8", "surrogatepass")) for w in stems], np.uint64), 6)
            )
        if len(hashed) > 1:
            words.append(_bucket(hashed[:-1] * _PRIME + hashed[1:], 2))
    empty = np.zeros(0, dtype=np.int64)
    return (np.concatenate(chars) if chars else empty), (np.concatenate(words) if words else empty)


def features(low: str) -> npt.NDArray[np.int64]:
    """Every hashed feature bucket of a lower-cased, folded text (both blocks of ``feature_blocks``)."""
    return np.concatenate(feature_blocks(low))


def concept_names(low: str) -> list[str]:
    """The names of the scanner concepts present in a lower-cased, folded text (the model's concept features)."""
    return COMBOS.present_names(ScanText(low, low))


class _Weights:
    __slots__ = ("bias", "concepts", "ngrams", "threshold")

    def __init__(self, ngrams: npt.NDArray[np.float32], concepts: dict[str, float], bias: float, threshold: float):
        self.ngrams = ngrams
        self.concepts = concepts
        self.bias = bias
        self.threshold = threshold


@cache
def _weights() -> _Weights:
    with resources.files(__package__).joinpath("data/injection_model.npz").open("rb") as f:
        data = np.load(f, allow_pickle=False)
        ngrams = data["weights"].astype(np.float32)
        names = str(data["concept_names"]).split("\n")
        values = data["concept_weights"].astype(np.float32)
        bias = float(data["bias"])
        threshold = float(data["threshold"])
    if len(ngrams) != 1 << BITS or len(names) != len(values):
        raise ConfigError(
            f"injection_model.npz has {len(ngrams)} n-gram weights (expected {1 << BITS}) "
            f"and {len(names)} concept names for {len(values)} weights: retrain it"
        )
    # A concept the rules no longer have simply never occurs; one the model never saw weighs 0.
    return _Weights(ngrams, dict(zip(names, map(float, values), strict=True)), bias, threshold)


def ngram_values(block: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The distinct buckets of one block and their values: log(1 + count) / sqrt(block length).

    The logarithm keeps a run of one character from scoring by sheer repetition: with plain counts
    the value of a bucket grows as the square root of the run, and 1,900 "y" read as an injection.
    """
    cols, counts = np.unique(block, return_counts=True)
    return cols, np.log1p(counts) / np.sqrt(len(block))


def _ngram_logit(low: str, w: _Weights) -> float:
    # The training script gives its rows the same values (``ngram_values``).
    logit = w.bias
    for block in feature_blocks(low):
        if len(block):
            cols, values = ngram_values(block)
            logit += float(w.ngrams[cols].astype(np.float64) @ values)
    return logit


def _concept_logit(low: str, w: _Weights) -> float:
    # Concept weights already include CONCEPT_SCALE (the training script multiplies them in).
    return sum(w.concepts.get(name, 0.0) for name in concept_names(low))


def _logit(low: str, w: _Weights) -> float:
    return _ngram_logit(low, w) + _concept_logit(low, w)


def segments(low: str) -> list[tuple[int, int]]:
    """Where to score a long text: its lines, short ones grouped up to ``MIN_SEGMENT``, long ones in windows.

    A paragraph of injection in a long page is scored on its own rather than diluted by the page.
    A group is flushed once it reaches ``MIN_SEGMENT`` or before a line that would take it past
    ``WINDOW``, so there are at most about two segments per ``MIN_SEGMENT`` characters.
    """
    out: list[tuple[int, int]] = []
    group: tuple[int, int] | None = None
    pos = 0
    while pos <= len(low):
        nl = low.find("\n", pos)
        start, end = pos, len(low) if nl == -1 else nl
        pos = end + 1
        if end - start > WINDOW:
            if group is not None:
                out.append(group)
                group = None
            out.extend((s, min(end, s + WINDOW)) for s in range(start, end - WINDOW + STRIDE, STRIDE))
            continue
        if group is not None and end - group[0] > WINDOW:
            out.append(group)
            group = None
        group = (start if group is None else group[0], end)
        if group[1] - group[0] >= MIN_SEGMENT:
            out.append(group)
            group = None
    if group is not None and group[1] > group[0]:
        out.append(group)
    return out


def _best(low: str) -> tuple[float, int, int]:
    w = _weights()
    if len(low) <= WINDOW:
        return _logit(low, w), 0, len(low)
    return max((_logit(low[a:b], w), a, b) for a, b in segments(low))


def injection_score(low: str) -> float:
    """The model's logit for the folded text: the whole text, or the highest of its segments when long."""
    return _best(low)[0]


def model_flags(low: str) -> tuple[int, int] | None:
    """The span (start, end) of the highest-scoring segment if the model calls it injection, else None.

    The same answer as comparing ``injection_score`` with the threshold, cheaper on long texts: a
    segment made of whole lines has at most the concepts of the whole text, so where its n-gram score
    plus the whole text's positive concept weights stays below the threshold, its concepts are not
    looked up (a 2 KB note then costs one concept lookup, not one per line group).
    """
    w = _weights()
    if len(low.strip()) < MIN_CHARS:
        return None
    if len(low) <= WINDOW:
        return (0, len(low)) if _logit(low, w) >= w.threshold else None
    bound = sum(max(0.0, w.concepts.get(name, 0.0)) for name in concept_names(low))
    best: tuple[float, int, int] | None = None
    for a, b in segments(low):
        score = _ngram_logit(low[a:b], w)
        whole_lines = (a == 0 or low[a - 1] == "\n") and (b == len(low) or low[b] == "\n")
        if whole_lines and score + bound < w.threshold:
            continue
        score += _concept_logit(low[a:b], w)
        if score >= w.threshold and (best is None or score > best[0]):
            best = (score, a, b)
    return None if best is None else best[1:]
