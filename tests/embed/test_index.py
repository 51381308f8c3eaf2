"""The vector index's bulk load: sized once when its size is known, with the same search results."""

from __future__ import annotations

import tracemalloc

import numpy as np

from trusted_memory.embed.index import EXACT_ROWS, VectorIndex

DIMS = 512
ROWS = EXACT_ROWS * 9  # past EXACT_ROWS (the sketch stage runs too), and past several growth steps
CHUNK = 2048


def _rows(seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    codes = rng.integers(-127, 128, size=(ROWS, DIMS), dtype=np.int8)
    codes[rng.integers(0, 5, size=(ROWS, DIMS), dtype=np.int8) < 2] = 0  # as sparse as the hashed part is
    return codes


def _load(codes: np.ndarray, *, reserve: bool) -> tuple[VectorIndex, int]:
    """An index loaded chunk by chunk as a start-up does, and how far numpy's memory peaked above
    what the loaded index holds."""
    index = VectorIndex(DIMS)
    blobs = [row.tobytes() for row in codes]
    tracemalloc.start()
    try:
        if reserve:
            index.reserve(len(blobs))
        for start in range(0, len(blobs), CHUNK):
            chunk = blobs[start : start + CHUNK]
            index.upsert_codes(list(range(start + 1, start + 1 + len(chunk))), chunk)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return index, peak - held


def test_a_reserved_load_never_holds_two_copies_of_the_rows() -> None:
    codes = _rows()
    _, one_chunk = _load(codes[:CHUNK], reserve=True)  # a chunk's own temporaries (sketching, joining)
    _, grown = _load(codes, reserve=False)
    _, reserved = _load(codes, reserve=True)
    # Reserved: about one chunk's temporaries above what is kept, whatever the size of the load.
    assert reserved < 1.25 * one_chunk, (reserved, one_chunk)
    # Grown by half at a time, the last step holds the old rows (31,104 here) beside the new block.
    assert grown > reserved + 0.5 * codes.nbytes, (grown, reserved)


def test_a_reserved_load_finds_the_same_rows() -> None:
    codes = _rows()
    grown, _ = _load(codes, reserve=False)
    reserved, _ = _load(codes, reserve=True)
    assert len(grown) == len(reserved) == ROWS
    rng = np.random.default_rng(3)
    queries = rng.standard_normal((20, DIMS)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    assert reserved.search_many(queries, [10] * 20) == grown.search_many(queries, [10] * 20)
    # Rows added past the reserved room (an eighth more) still grow the index as before.
    extra = np.ones((ROWS // 4, DIMS), dtype=np.int8)
    extra[1:, 0] = -1
    reserved.upsert_codes(list(range(ROWS + 1, ROWS + 1 + len(extra))), [row.tobytes() for row in extra])
    assert len(reserved) == ROWS + len(extra)
    hit = reserved.search(np.ones(DIMS, dtype=np.float32) / np.sqrt(DIMS), 1)
    assert hit[0][0] == ROWS + 1 and abs(hit[0][1] - 1.0) < 1e-5


def test_the_first_writes_after_a_reserved_load_do_not_copy_the_rows() -> None:
    codes = _rows()
    index, _ = _load(codes, reserve=True)
    tracemalloc.start()
    try:
        index.upsert_codes([ROWS + 1], [codes[0].tobytes()])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.05 * codes.nbytes, peak  # a row's sketch and norms, no new matrix


def test_reserving_less_than_is_held_changes_nothing() -> None:
    index = VectorIndex(DIMS)
    index.upsert_codes([1, 2], [bytes([1] * DIMS), bytes([2] * DIMS)])
    index.reserve(1)
    assert index.nums() == [1, 2]
    vec = index.vector(2)
    assert vec is not None and abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5


def _shortlisted(index: VectorIndex, query: np.ndarray, k: int, wanted: int) -> list[tuple[int, float]]:
    """The two-stage search written out: every live row within the distance of the wanted-th nearest
    sketch (ties included), scored exactly, the k best by cosine (equal cosines by row)."""
    distance = index.prepare(query[None, :]).distance
    assert distance is not None
    nums = [num for num in range(1, index.seq + 1) if index.vector(num) is not None]
    by_row = sorted(nums)  # rows were stored in num order
    far = sorted(int(distance[0][num - 1]) for num in by_row)
    cut = far[wanted - 1] if len(far) > wanted else 10**9
    kept = [num for num in by_row if distance[0][num - 1] <= cut]
    cosines = [(num, float(index.vector(num) @ query)) for num in kept]  # type: ignore[operator]
    order = sorted(range(len(kept)), key=lambda i: (-cosines[i][1], i))[:k]
    return [(cosines[i][0], cosines[i][1]) for i in order]


def test_the_shortlist_cut_and_removed_rows_match_the_search_written_out() -> None:
    codes = _rows()[: EXACT_ROWS + 2000]
    index = VectorIndex(DIMS)
    index.upsert_codes(list(range(1, len(codes) + 1)), [row.tobytes() for row in codes], seq=len(codes))
    rng = np.random.default_rng(11)
    queries = rng.standard_normal((6, DIMS)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    def check() -> None:
        for query in queries:
            for wanted in (4, 37, 300):
                got = index.search(query, 4, shortlist=wanted)
                want = _shortlisted(index, query, 4, wanted)
                assert [num for num, _ in got] == [num for num, _ in want]
                assert np.allclose([c for _, c in got], [c for _, c in want], atol=1e-5)

    check()  # every row live: no mask is built
    index.remove([int(n) for n in rng.choice(np.arange(1, len(codes) + 1), size=500, replace=False)])
    check()  # removed rows take no place in the shortlist and are never returned


def test_vectors_of_many_atoms_are_each_atom_s_vector() -> None:
    index = VectorIndex(DIMS)
    codes = _rows()[:40]
    index.upsert_codes(list(range(1, 41)), [row.tobytes() for row in codes])
    index.remove([7, 12])
    wanted = [3, 7, 40, 99, 12, 1, 3, -5]  # removed, never stored, out of range and repeated nums among them
    got = index.vectors(wanted)
    for num, vector in zip(wanted, got, strict=True):
        single = index.vector(num)
        assert (vector is None) == (single is None)
        if vector is not None and single is not None:
            assert vector.dtype == single.dtype and vector.tobytes() == single.tobytes()
    assert [vector is None for vector in got] == [False, True, False, True, True, False, False, True]
    assert index.vectors([7, 12]) == [None, None] and index.vectors([]) == []
