"""A small learned second opinion on prompt injection: logistic regression over hashed n-grams.

Hand-written rules generalise poorly to wording they have not seen (first-sight catch rates of
new batches were 42-85 %), so beside them a linear model scores the folded text from hashed
features: words, word bigrams and character 3-5-grams (character n-grams carry scripts without
spaces and inflected languages). The weights are trained offline by
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

__all__ = ["MODEL_LABEL", "features", "injection_score", "model_flags"]

MODEL_LABEL = "learned injection model"
BITS = 16  # 65,536 hashed buckets (2^17 and 2^18 scored no better out of author)
CHAR_SIZES = (3, 4, 5)
WINDOW = 800  # characters per scored window; training texts are mostly shorter
STRIDE = 400
MIN_SEGMENT = 160  # a long text is scored per line; shorter lines are joined to the next
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: spreads the polynomial hash's high bits
_PRIME = np.uint64(1_000_003)
_SHIFT = np.uint64(64 - BITS)
_SALTS = {n: np.uint64(0x51ED270B27F4A3C1 * n & 0xFFFFFFFFFFFFFFFF) for n in (1, 2, *CHAR_SIZES)}
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def _bucket(h: npt.NDArray[np.uint64], n: int) -> npt.NDArray[np.int64]:
    with np.errstate(over="ignore"):
        mixed = (h ^ _SALTS[n]) * _MIX
    return (mixed >> _SHIFT).astype(np.int64)


def features(low: str) -> npt.NDArray[np.int64]:
    """The hashed feature buckets of a lower-cased, folded text (one entry per occurrence)."""
    text = " " + _SPACES.sub(" ", low).strip() + " "
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    parts: list[npt.NDArray[np.int64]] = []
    with np.errstate(over="ignore"):
        for n in CHAR_SIZES:
            if len(cps) < n:
                continue
            h = np.zeros(len(cps) - n + 1, dtype=np.uint64)
            for k in range(n):
                h = h * _PRIME + cps[k : len(cps) - n + 1 + k]
            parts.append(_bucket(h, n))
        words = np.array([zlib.crc32(w.encode("utf-8", "surrogatepass")) for w in _WORD.findall(text)], dtype=np.uint64)
        if len(words):
            parts.append(_bucket(words, 1))
        if len(words) > 1:
            parts.append(_bucket(words[:-1] * _PRIME + words[1:], 2))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


@cache
def _weights() -> tuple[npt.NDArray[np.float32], float, float]:
    with resources.files(__package__).joinpath("data/injection_model.npz").open("rb") as f:
        data = np.load(f)
        weights = data["weights"].astype(np.float32)
        bias = float(data["bias"])
        threshold = float(data["threshold"])
    if len(weights) != 1 << BITS:
        raise ConfigError(f"injection_model.npz has {len(weights)} weights, expected {1 << BITS}: retrain it")
    return weights, bias, threshold


def _logit(low: str, weights: npt.NDArray[np.float32], bias: float) -> float:
    buckets = features(low)
    if not len(buckets):
        return bias
    # Each occurrence counts 1/sqrt(n): the same scaling the training script gives its rows.
    return bias + float(weights[buckets].sum()) / float(np.sqrt(len(buckets)))


def _segments(low: str) -> list[tuple[int, int]]:
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
    weights, bias, _ = _weights()
    if len(low) <= WINDOW:
        return _logit(low, weights, bias), 0, len(low)
    return max((_logit(low[a:b], weights, bias), a, b) for a, b in _segments(low))


def injection_score(low: str) -> float:
    """The model's logit for the folded text: the whole text, or the highest of its segments when long."""
    return _best(low)[0]


def model_flags(low: str) -> tuple[int, int] | None:
    """The span (start, end) of the highest-scoring segment if the model calls it injection, else None."""
    score, start, end = _best(low)
    return (start, end) if score >= _weights()[2] else None
