"""The bundled word-meaning table behind the default embedder's semantic part.

``data/lexicon.npz`` maps the 30,000 most common English words, then ~10,000 words of widely used
package names, to 128-dimensional int8 vectors taken from a sentence-embedding model: distilled word
by word, then fitted so that a text's weighted sum of them approximates the model's embedding of the
whole text (see ``data/LEXICON.md`` for its sources, licences and the scripts that rebuild it). It is package data,
not a download: every install has the same table, so every process still embeds the same text to
the same vector.

A text's semantic vector is the rank-weighted sum of its words' vectors: rarer words (later in the
frequency-ordered table) weigh more, as in Model2Vec's Zipf weighting; a row's length (fitted) is
the word's weight on top of its rank. Words not in the table
(names, most non-English words, identifiers) contribute nothing here; the hashed features carry them.
"""

from __future__ import annotations

import math
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from importlib import resources

import numpy as np
import numpy.typing as npt

__all__ = ["LEXICON_DIMS", "Lexicon", "lexicon"]

LEXICON_DIMS = 128  # width of the stored vectors; a prefix of them is a valid smaller space (PCA order)
_RESOURCE = "lexicon.npz"


class Lexicon:
    """Word -> weighted meaning vector, read once from the package data."""

    def __init__(self, words: list[str], vectors: npt.NDArray[np.int8]) -> None:
        """Index ``words`` (most frequent first) against the rows of ``vectors``."""
        if len(words) != vectors.shape[0]:
            raise ValueError(f"lexicon has {len(words)} words but {vectors.shape[0]} vectors")
        # Word -> row without a dict of 40,000 str keys (~4 MB with the words): the words' hashes in
        # order, each with its row, and the words in one string to confirm a match (~1 MB in all).
        hashes = np.fromiter(map(hash, words), dtype=np.int64, count=len(words))
        by_hash = np.argsort(hashes, kind="stable")
        self._hashes = array("q", hashes[by_hash].tobytes())
        self._by_hash = array("i", by_hash.astype(np.int32).tobytes())
        self._text = "\n".join(words)
        ends = np.cumsum(np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1)
        # Word i is text[starts[i] : starts[i + 1] - 1].
        self._starts = array("i", np.concatenate(([0], ends)).astype(np.int32).tobytes())
        # Kept as int8 (5 MB, not 40 as float64): a text touches only a few rows.
        self._vectors = vectors
        # Rank weighting (log of the frequency rank): common words say little.
        self._weights = np.log(np.arange(len(words), dtype=np.float64) + 2.0) / 127.0

    def __len__(self) -> int:
        """How many words the table holds (their rows are their frequency ranks, most common first)."""
        return len(self._starts) - 1

    @classmethod
    def load(cls) -> Lexicon:
        """Read the table shipped in ``trusted_memory/embed/data``."""
        with resources.files(__package__).joinpath("data", _RESOURCE).open("rb") as fh:
            with np.load(fh, allow_pickle=False) as data:
                words = str(data["words"]).split("\n")
                vectors = np.asarray(data["vectors"], dtype=np.int8)
        return cls(words, vectors)

    def rows(self, words: Iterable[str]) -> list[int]:
        """The table rows of the given words that are in it (repeats kept: they count again)."""
        return [row for row in map(self.row, words) if row is not None]

    def row(self, word: str) -> int | None:
        """The table row of a word, or None if it is not in the table."""
        key = hash(word)
        hashes, starts = self._hashes, self._starts
        at = bisect_left(hashes, key)
        while at < len(hashes) and hashes[at] == key:  # equal hashes: the word itself decides
            row = self._by_hash[at]
            if self._text[starts[row] : starts[row + 1] - 1] == word:
                return row
            at += 1
        return None

    def embed_rows(self, rows: list[int], dims: int) -> npt.NDArray[np.float64]:
        """The L2-normalised weighted sum of ``rows``' first ``dims`` components (zeros if none)."""
        if not rows:
            return np.zeros(dims, dtype=np.float64)
        total: npt.NDArray[np.float64] = (self._vectors[rows, :dims] * self._weights[rows, None]).sum(axis=0)
        norm = math.sqrt(float(total @ total))
        return total / norm if norm > 0 else total


_LOCK = threading.Lock()
_LOADED: Lexicon | None = None


def lexicon() -> Lexicon:
    """The process-wide table, read once (~80 ms, by the background warm-up: never at the handshake)."""
    global _LOADED
    if _LOADED is None:
        with _LOCK:
            if _LOADED is None:
                _LOADED = Lexicon.load()
    return _LOADED
