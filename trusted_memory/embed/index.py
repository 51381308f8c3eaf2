"""The in-memory vector index: a contiguous float32 matrix, refreshed incrementally.

Vectors are stored on disk as int8 with one scale per vector (a quarter of float32's size; the
cosine error this adds is far below the ranking's resolution) and held here as float32 so a
query is BLAS matrix-vector products over blocks of rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

# Rows per block of a search. Several queries share each block while it is in cache, so a batch
# reads the matrix from memory once; a block is 2 MB at 512 dimensions. Every query is a plain
# matrix-vector product per block, whatever the batch: one sgemm over the batch would be no
# faster here, and its cosines differ from the single query's in the last bit.
BLOCK_ROWS = 1024


def quantize(vector: Vector) -> tuple[float, bytes]:
    """Store a vector as int8 with one scale: (scale, bytes)."""
    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    if peak == 0.0:
        return 0.0, bytes(vector.size)
    scale = peak / 127.0
    return scale, np.round(vector / scale).astype(np.int8).tobytes()


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


class VectorIndex:
    """Atom vectors of one embedding space, addressed by atom num."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.clear()

    def __len__(self) -> int:
        return len(self._pos)

    def clear(self) -> None:
        """Drop everything (before a full rebuild)."""
        self._matrix: Vector = np.zeros((0, self.dims), dtype=np.float32)
        self._nums: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._pos: dict[int, int] = {}
        self.seq = 0

    def _grow(self, extra: int) -> None:
        need = self._size + extra
        if need <= len(self._matrix):
            return
        capacity = max(need, 2 * len(self._matrix), 256)
        matrix = np.zeros((capacity, self.dims), dtype=np.float32)
        nums = np.full(capacity, -1, dtype=np.int64)
        matrix[: self._size] = self._matrix[: self._size]
        nums[: self._size] = self._nums[: self._size]
        self._matrix, self._nums = matrix, nums

    def upsert(self, nums: Sequence[int], vectors: Vector, seq: int | None = None) -> None:
        """Add or replace vectors (rows of `vectors` in the order of `nums`)."""
        self._grow(len(nums))
        if not self._pos.keys() & set(nums) and len(set(nums)) == len(nums):
            # All new: one block copy instead of a Python loop over rows.
            end = self._size + len(nums)
            self._matrix[self._size : end] = vectors
            self._nums[self._size : end] = nums
            self._pos.update((num, self._size + i) for i, num in enumerate(nums))
            self._size = end
            if seq is not None:
                self.seq = max(self.seq, seq)
            return
        for num, vector in zip(nums, vectors, strict=True):
            row = self._pos.get(num)
            if row is None:
                row = self._size
                self._size += 1
                self._pos[num] = row
                self._nums[row] = num
            self._matrix[row] = vector
        if seq is not None:
            self.seq = max(self.seq, seq)

    def remove(self, nums: Sequence[int]) -> None:
        """Forget vectors (their rows are zeroed; they can never score above 0)."""
        for num in nums:
            row = self._pos.pop(num, None)
            if row is not None:
                self._matrix[row] = 0.0
                self._nums[row] = -1

    def vector(self, num: int) -> Vector | None:
        """The stored vector of an atom."""
        row = self._pos.get(num)
        return None if row is None else self._matrix[row]

    def nums(self) -> list[int]:
        """Every atom num in the index."""
        return list(self._pos)

    def search(self, query: Vector, k: int, allowed: Mask | None = None) -> list[tuple[int, float]]:
        """The k best (num, cosine) pairs, optionally only among rows where `allowed` is true."""
        return self.search_many(query[None, :], [k], [allowed])[0]

    def search_many(
        self,
        queries: Vector,
        ks: Sequence[int],
        allowed: Sequence[Mask | None] | None = None,
    ) -> list[list[tuple[int, float]]]:
        """`search` for each row of `queries` (with its own k and mask), in one pass over the matrix."""
        return self.best(self.scores(queries), ks, allowed)

    def scores(self, queries: Vector) -> Vector:
        """The cosine of each query (row) with every stored row, block by block: (queries, rows).

        It only reads the index, and numpy lets go of the GIL while it multiplies, so a caller may
        run it in a worker thread and do other work meanwhile, as long as nothing writes the index.
        """
        size = self._size
        scores = np.empty((len(queries), size), dtype=np.float32)
        for start in range(0, size, BLOCK_ROWS):
            stop = min(start + BLOCK_ROWS, size)
            block = self._matrix[start:stop]
            for row in range(len(queries)):
                np.matmul(block, queries[row], out=scores[row, start:stop])
        return scores

    def best(
        self,
        scores: Vector,
        ks: Sequence[int],
        allowed: Sequence[Mask | None] | None = None,
    ) -> list[list[tuple[int, float]]]:
        """The k best (num, cosine) pairs of each row of `scores`, only among rows its mask allows."""
        live = self._nums[: scores.shape[1]] >= 0
        out = []
        for row, k in enumerate(ks):
            mask = None if allowed is None else allowed[row]
            out.append(self._top(scores[row], live if mask is None else live & mask, k))
        return out

    def _top(self, scores: Vector, valid: Mask, k: int) -> list[tuple[int, float]]:
        """The k best valid rows of one query's scores, best first, as (num, cosine).

        Equal scores go by row (the earlier stored first), so the best k are a prefix of one fixed
        order: the best k among rows a filter admits are the first k admitted of a longer list.
        """
        if k <= 0:
            return []
        count = int(np.count_nonzero(valid))
        k = min(k, count)
        if k == 0:
            return []
        if count < len(scores):
            scores = np.where(valid, scores, -np.inf)
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        better = np.flatnonzero(scores > kth)
        top = np.concatenate((better, np.flatnonzero(scores == kth)[: k - len(better)]))
        top = top[np.lexsort((top, -scores[top]))]
        return list(zip(self._nums[top].tolist(), scores[top].tolist(), strict=True))

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
