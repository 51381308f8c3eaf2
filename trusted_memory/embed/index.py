"""The in-memory vector index: int8 rows as stored on disk, a bit sketch of each, searched in two stages.

Vectors are stored on disk as int8 with one scale per vector (a quarter of float32's size; the
cosine error this adds is far below the ranking's resolution), and the index holds them the same
way: 512 bytes a row at 512 dimensions instead of 2 KiB, so 100k atoms take ~51 MB, not ~200. The
cosine of a row with a unit query is its int8 codes times the query, divided by the codes' norm
(the scale cancels out); no float32 copy of the matrix is ever made.

Scoring every row of a large index that way costs ~0.2 ns a multiply-add (~20 ms at 100k rows),
so a search has two stages once the index passes EXACT_ROWS:

1. each row also keeps a 512-bit sketch: the signs of the vector under a fixed random projection
   (SimHash). The Hamming distance of two sketches estimates the angle of the two vectors; all the
   sketch distances of a query are a few XOR + popcount passes over 64 bytes a row (~0.6 ms at 100k);
2. the rows with the smallest distances (a shortlist of at least RERANK_MIN rows, RERANK_PER_K
   per result asked for and 1/RERANK_SHARE of the index) are scored exactly as above, and the best
   of them are returned with their exact cosines.

Up to EXACT_ROWS rows every row is scored exactly. On benchmarks/recall_latency.py's stores (many
near-duplicate texts: the hardest case for a sketch) `search_atoms` returns 99.7 % of the hits of
exact scoring at 10k atoms and 98.4 % at 100k (benchmarks/RESULTS.md, issue 13).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]
Codes = npt.NDArray[np.int8]

SKETCH_BITS = 512
_WORDS = SKETCH_BITS // 64
_SKETCH_SEED = 0x5EED_0B17  # the projection only has to be the same within one process
# Up to this many rows every row is scored exactly (int8 products, ~0.35 ms at 4,096 rows).
EXACT_ROWS = 4096
RERANK_MIN = 2048
RERANK_PER_K = 8
RERANK_SHARE = 20
# Rows per block of exact scoring and of sketching: bounds each temporary float32 block to 2 MB, so
# loading a large index does not leave the heap holding big freed blocks.
BLOCK_ROWS = 1024
RESERVE_SPARE = 8  # a reserved index has room for 1/RESERVE_SPARE more rows before it grows again
SMALL_ROWS = 512  # up to this many rows, scoring is one gather and one BLAS product
_FAR = SKETCH_BITS + 1  # the distance given to rows a search may not return


def quantize(vector: Vector) -> tuple[float, bytes]:
    """Store a vector as int8 with one scale: (scale, bytes)."""
    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    if peak == 0.0:
        return 0.0, bytes(vector.size)
    scale = peak / 127.0
    return scale, np.round(vector / scale).astype(np.int8).tobytes()


def with_context(own: Vector, context: Vector, weight: float) -> Vector:
    """A unit vector of a text read after another: its own plus `weight` of the other's, renormalised."""
    mixed = (own + np.float32(weight) * context).astype(np.float32)
    norm = float(np.linalg.norm(mixed))
    return mixed / np.float32(norm) if norm > 0 else own


def dequantize_many(scales: Sequence[float], blobs: Sequence[bytes], dims: int) -> Vector:
    """Rebuild many unit vectors at once (loading an index of 100k vectors row by row takes seconds)."""
    matrix = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), dims).astype(np.float32)
    matrix *= np.asarray(scales, dtype=np.float32)[:, None]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


def dequantize(scale: float, blob: bytes) -> Vector:
    """Rebuild a unit vector from its int8 form."""
    vec = np.frombuffer(blob, dtype=np.int8).astype(np.float32) * np.float32(scale)
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


def _quantize_rows(vectors: Vector) -> Codes:
    """int8 codes of many vectors, each with its own scale (as `quantize` stores them)."""
    peak = np.max(np.abs(vectors), axis=1, keepdims=True) if vectors.size else np.zeros((len(vectors), 1))
    scale = np.where(peak > 0, peak / 127.0, 1.0)
    return np.round(vectors / scale).astype(np.int8)


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(words: npt.NDArray[np.uint64], out: npt.NDArray[np.uint8]) -> None:
    """Set bits of each 64-bit word (numpy >= 2 has it built in; a byte table otherwise)."""
    counter = getattr(np, "bitwise_count", None)
    if counter is not None:
        counter(words, out=out)
    else:  # pragma: no cover - numpy < 2
        out[:] = _POPCOUNT8[words.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)


def release_freed_memory() -> None:
    """Give memory freed after a large load back to the OS (glibc keeps freed heap blocks otherwise).

    Loading 100k rows frees ~25 MB of row objects and scratch blocks that glibc's heap would keep
    for reuse, counted in the server's RSS for as long as it runs. Elsewhere this does nothing.
    """
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return
    trim(0)


@dataclass(frozen=True, slots=True)
class Scores:
    """What the index worked out for a batch of queries, before any top-k cut (see VectorIndex.prepare).

    Small indexes: the exact cosine of every row (`exact`, queries x rows). Large ones: the sketch
    distance of every row (`distance`), the exact cosines being worked out on each shortlist.
    """

    queries: Vector
    rows: int
    exact: Vector | None = None
    distance: npt.NDArray[np.uint16] | None = None

    def __len__(self) -> int:
        return len(self.queries)

    def row(self, i: int) -> Scores:
        """The scores of query i alone."""
        return Scores(
            self.queries[i : i + 1],
            self.rows,
            None if self.exact is None else self.exact[i : i + 1],
            None if self.distance is None else self.distance[i : i + 1],
        )


class VectorIndex:
    """Atom vectors of one embedding space, addressed by atom num."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        rng = np.random.default_rng(_SKETCH_SEED)
        self._projection: Vector = rng.standard_normal((dims, SKETCH_BITS)).astype(np.float32)
        self.clear()

    def __len__(self) -> int:
        return self._count

    def clear(self) -> None:
        """Drop everything (before a full rebuild)."""
        self._codes: Codes = np.zeros((0, self.dims), dtype=np.int8)
        self._inv: Vector = np.zeros(0, dtype=np.float32)  # 1 / norm of each row's codes (0: no row)
        self._sketch: npt.NDArray[np.uint64] = np.zeros((_WORDS, 0), dtype=np.uint64)  # one row per word
        self._nums: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._row_of: npt.NDArray[np.int32] = np.full(0, -1, dtype=np.int32)  # num -> row, -1 for none
        self._size = 0  # rows in use, removed ones included
        self._count = 0  # rows holding a vector
        self.seq = 0

    # storage ----------------------------------------------------------------------------------
    def _grow(self, extra: int, *, exact: bool = False) -> None:
        need = self._size + extra
        if need <= len(self._nums):
            return
        capacity = need if exact else max(need, len(self._nums) + len(self._nums) // 2, 256)
        codes = np.zeros((capacity, self.dims), dtype=np.int8)
        codes[: self._size] = self._codes[: self._size]
        inv = np.zeros(capacity, dtype=np.float32)
        inv[: self._size] = self._inv[: self._size]
        sketch = np.zeros((_WORDS, capacity), dtype=np.uint64)
        sketch[:, : self._size] = self._sketch[:, : self._size]
        nums = np.full(capacity, -1, dtype=np.int64)
        nums[: self._size] = self._nums[: self._size]
        self._codes, self._inv, self._sketch, self._nums = codes, inv, sketch, nums

    def reserve(self, rows: int) -> None:
        """Make room for `rows` rows in all, and an eighth more for the writes that follow (a bulk load
        that knows its size, before its first chunk).

        Grown chunk by chunk, a load of 100k rows copies the matrix each time it grows by half and
        holds the old and the new copy at once: ~90 MB of int8 rows at the last step, for ~51 MB kept.
        Room never written to is never touched, so it costs address space, not memory.
        """
        if rows > self._size:
            self._grow(rows + rows // RESERVE_SPARE - self._size, exact=True)

    def _row(self, num: int) -> int:
        return int(self._row_of[num]) if 0 <= num < len(self._row_of) else -1

    def _sketch_of(self, vectors: npt.NDArray[np.float32] | Codes) -> npt.NDArray[np.uint64]:
        """The sketches of vectors (or of int8 codes: the scale does not change a sign), as (words, n)."""
        out = np.empty((_WORDS, len(vectors)), dtype=np.uint64)
        for start in range(0, len(vectors), BLOCK_ROWS):
            block = np.asarray(vectors[start : start + BLOCK_ROWS], dtype=np.float32)
            bits = np.packbits(block @ self._projection > 0, axis=1)
            out[:, start : start + len(block)] = np.ascontiguousarray(bits).view(np.uint64).T
        return out

    def _put(self, nums: Sequence[int], codes: Codes, seq: int | None) -> None:
        """Add or replace rows (codes in the order of `nums`; a num given twice keeps its last row)."""
        if len(nums):
            squares = np.einsum("ij,ij->i", codes, codes, dtype=np.int32)  # ≤ dims · 127², no float copy
            norms = np.sqrt(squares.astype(np.float32))
            inv = np.divide(np.float32(1.0), norms, out=np.zeros_like(norms), where=norms > 0)
            sketch = self._sketch_of(codes)
            self._grow(len(nums))
            top = max(nums)
            if top >= len(self._row_of):
                grown = np.full(max(top + 1, 2 * len(self._row_of), 1024), -1, dtype=np.int32)
                grown[: len(self._row_of)] = self._row_of
                self._row_of = grown
            keys = np.asarray(nums, dtype=np.int64)
            if (self._row_of[keys] < 0).all() and len(np.unique(keys)) == len(keys):
                # All new (loading the index, or a write): one block copy instead of a loop over rows.
                start, end = self._size, self._size + len(keys)
                self._codes[start:end] = codes
                self._inv[start:end] = inv
                self._sketch[:, start:end] = sketch
                self._nums[start:end] = keys
                self._row_of[keys] = np.arange(start, end, dtype=np.int32)
                self._size, self._count = end, self._count + len(keys)
                nums = ()
            for i, num in enumerate(nums):
                row = self._row(num)
                if row < 0:
                    row = self._size
                    self._size += 1
                    self._count += 1
                    self._row_of[num] = row
                    self._nums[row] = num
                self._codes[row] = codes[i]
                self._inv[row] = inv[i]
                self._sketch[:, row] = sketch[:, i]
        if seq is not None:
            self.seq = max(self.seq, seq)

    def upsert(self, nums: Sequence[int], vectors: Vector, seq: int | None = None) -> None:
        """Add or replace vectors (rows of `vectors` in the order of `nums`), stored as int8."""
        self._put(nums, _quantize_rows(np.asarray(vectors, dtype=np.float32)), seq)

    def upsert_codes(self, nums: Sequence[int], blobs: Sequence[bytes], seq: int | None = None) -> None:
        """Add or replace vectors given as stored: int8 blobs (see `quantize`; the scales are not needed)."""
        codes = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), self.dims)
        self._put(nums, codes, seq)

    def remove(self, nums: Sequence[int]) -> None:
        """Forget vectors (their rows stay, empty: they are never returned again)."""
        for num in nums:
            row = self._row(num)
            if row >= 0:
                self._row_of[num] = -1
                self._nums[row] = -1
                self._inv[row] = 0.0
                self._count -= 1

    def vector(self, num: int) -> Vector | None:
        """The stored vector of an atom, as a unit float32 vector."""
        row = self._row(num)
        if row < 0:
            return None
        out: Vector = self._codes[row].astype(np.float32) * self._inv[row]
        return out

    def vectors(self, nums: Sequence[int]) -> list[Vector | None]:
        """`vector` of each atom (None where there is none), read in one pass: the same values."""
        rows = [self._row(num) for num in nums]
        present = [row for row in rows if row >= 0]
        if not present:
            return [None] * len(rows)
        matrix = self._codes[present].astype(np.float32) * self._inv[present][:, None]
        found = iter(matrix)
        return [next(found) if row >= 0 else None for row in rows]

    def nums(self) -> list[int]:
        """Every atom num in the index."""
        nums: list[int] = self._nums[: self._size][self._nums[: self._size] >= 0].tolist()
        return nums

    # search -----------------------------------------------------------------------------------
    def search(
        self, query: Vector, k: int, allowed: Mask | None = None, *, shortlist: int | None = None
    ) -> list[tuple[int, float]]:
        """The k best (num, cosine) pairs, optionally only among rows where `allowed` is true.

        `shortlist` sets how many rows past EXACT_ROWS are scored exactly (default: as for a search);
        a caller after a few strong neighbours only (write-time links) can ask for fewer.
        """
        return self.best(self.prepare(query[None, :]), [k], [allowed], shortlist=shortlist)[0]

    def search_many(
        self,
        queries: Vector,
        ks: Sequence[int],
        allowed: Sequence[Mask | None] | None = None,
    ) -> list[list[tuple[int, float]]]:
        """`search` for each row of `queries` (with its own k and mask), sharing one pass over the index."""
        return self.best(self.prepare(queries), ks, allowed)

    def prepare(self, queries: Vector) -> Scores:
        """The first stage of a search for each query (unit rows): exact cosines or sketch distances.

        It only reads the index, and numpy lets go of the GIL while it works, so a caller may run it
        in a worker thread and do other work meanwhile, as long as nothing writes the index.
        """
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        size = self._size
        if size <= EXACT_ROWS:
            return Scores(queries, size, exact=self._cosines(np.arange(size), queries))
        qsk = self._sketch_of(queries)
        distance = np.zeros((len(queries), size), dtype=np.uint16)
        word = np.empty(size, dtype=np.uint64)
        count = np.empty(size, dtype=np.uint8)
        for q in range(len(queries)):
            for w in range(_WORDS):
                np.bitwise_xor(self._sketch[w, :size], qsk[w, q], out=word)
                _popcount(word, count)
                distance[q] += count
        return Scores(queries, size, distance=distance)

    def _cosines(self, rows: npt.NDArray[np.intp], queries: Vector) -> Vector:
        """Exact cosines (queries x rows) of these rows (ascending) with unit queries."""
        out = np.empty((len(queries), len(rows)), dtype=np.float32)
        if len(rows) <= SMALL_ROWS:  # a short list: one small float block, one product per query
            small = self._codes[rows].astype(np.float32)
            small_inv = self._inv[rows]
            for q in range(len(queries)):
                np.multiply(small @ queries[q], small_inv, out=out[q])
            return out
        for start in range(0, len(rows), BLOCK_ROWS):
            chunk = rows[start : start + BLOCK_ROWS]
            if len(chunk) and chunk[-1] - chunk[0] + 1 == len(chunk):
                block = self._codes[chunk[0] : chunk[-1] + 1]  # a run of rows: no copy
            else:
                block = self._codes[chunk]
            inv = self._inv[chunk]
            for q in range(len(queries)):
                np.multiply(np.einsum("ij,j->i", block, queries[q]), inv, out=out[q, start : start + len(chunk)])
        return out

    def best(
        self,
        scores: Scores,
        ks: Sequence[int],
        allowed: Sequence[Mask | None] | None = None,
        *,
        shortlist: int | None = None,
    ) -> list[list[tuple[int, float]]]:
        """The k best (num, cosine) pairs of each query of `scores`, only among rows its mask allows."""
        rows = scores.rows
        # Rows are only emptied by `remove`; while none is, every row is live (no mask to build: at
        # 100k rows the mask and the distances it hides were ~0.1 ms of each write's link search).
        live = self._nums[:rows] >= 0 if self._count < rows else None
        out = []
        for q, k in enumerate(ks):
            mask = None if allowed is None else allowed[q]
            valid = live if mask is None else mask[:rows] if live is None else live & mask[:rows]
            if scores.exact is not None:
                out.append(self._top(scores.exact[q], valid, np.arange(rows), k))
            else:
                assert scores.distance is not None
                out.append(self._reranked(scores.queries[q], scores.distance[q], valid, k, shortlist))
        return out

    def _reranked(
        self, query: Vector, distance: npt.NDArray[np.uint16], valid: Mask | None, k: int, shortlist: int | None
    ) -> list[tuple[int, float]]:
        """The k best valid rows (None: all) by exact cosine among the shortlist of nearest sketches."""
        if k <= 0:
            return []
        if shortlist is None:
            wanted = max(RERANK_MIN, RERANK_PER_K * k, len(distance) // RERANK_SHARE)
        else:
            wanted = max(shortlist, k)
        if (len(distance) if valid is None else int(np.count_nonzero(valid))) <= wanted:
            rows = np.arange(len(distance)) if valid is None else np.flatnonzero(valid)
        else:
            far = distance if valid is None else np.where(valid, distance, _FAR)
            # Every row within the distance that reaches `wanted` rows (ties included), in row order:
            # which rows make the list does not depend on how they are stored. That distance is the
            # wanted-th smallest (more than `wanted` rows are valid, so it is a valid row's): a
            # partial sort finds it in ~50 µs at 100k rows, a histogram of all the distances in ~140.
            cut = int(np.partition(far, wanted - 1)[wanted - 1])
            rows = np.flatnonzero(far <= cut)
        if not len(rows):
            return []
        cosines = self._cosines(rows, query[None, :])[0]
        return self._top(cosines, None, rows, k)

    def _top(self, scores: Vector, valid: Mask | None, rows: npt.NDArray[np.intp], k: int) -> list[tuple[int, float]]:
        """The k best valid entries (None: all) of one query's scores (scores[i] is row rows[i]), best first.

        Equal scores go by row (the earlier stored first), so the best k are a prefix of one fixed
        order: the best k among rows a filter admits are the first k admitted of a longer list.
        """
        if k <= 0:
            return []
        count = len(scores) if valid is None else int(np.count_nonzero(valid))
        k = min(k, count)
        if k == 0:
            return []
        if count < len(scores):
            assert valid is not None
            scores = np.where(valid, scores, -np.inf)
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        better = np.flatnonzero(scores > kth)
        top = np.concatenate((better, np.flatnonzero(scores == kth)[: k - len(better)]))
        top = top[np.lexsort((top, -scores[top]))]
        return list(zip(self._nums[rows[top]].tolist(), scores[top].tolist(), strict=True))

    def mask(self, nums: Sequence[int]) -> Mask:
        """A row mask admitting only these atom nums."""
        wanted = np.fromiter(nums, dtype=np.int64)
        stored = self._nums[: self._size]
        if not wanted.size:
            return np.zeros(self._size, dtype=bool)
        # A lookup table over the num range (what np.isin(kind="table") does), without its checks.
        lookup = np.zeros(int(max(wanted.max(), stored.max(initial=0))) + 1, dtype=bool)
        lookup[wanted[wanted >= 0]] = True
        return lookup[np.maximum(stored, 0)] & (stored >= 0)
