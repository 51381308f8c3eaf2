"""The stored layout of int8 vectors: the same codes come back, in fewer bytes when many are zero."""

from __future__ import annotations

import numpy as np

from trusted_memory.store.vector_codec import SPARSE_MARK, decode, decode_many, encode


def test_every_vector_comes_back_as_it_was() -> None:
    rng = np.random.default_rng(7)
    blobs = []
    for i in range(400):
        dims = int(rng.integers(1, 700))
        codes = rng.integers(-128, 128, dims).astype(np.int8)
        codes[rng.random(dims) < rng.random()] = 0
        if i % 5 == 0:
            codes[0] = -128  # 0x80 first: never a quantized code, but a file may bring one
        blobs.append(codes.tobytes())
    stored = [encode(b) for b in blobs]
    assert [decode(s) for s in stored] == blobs
    assert decode_many(stored) == blobs


def test_a_vector_with_many_zeros_is_stored_smaller() -> None:
    codes = np.zeros(512, dtype=np.int8)
    codes[::3] = 5  # a third filled, like the hashing embedder's words
    blob = codes.tobytes()
    stored = encode(blob)
    assert stored[0] == SPARSE_MARK and len(stored) == 5 + 64 + 171
    assert decode(stored) == blob


def test_only_the_part_with_zeros_is_stored_behind_a_bitmap() -> None:
    codes = np.full(512, 9, dtype=np.int8)
    codes[:384:2] = 0  # the hashed part half empty, the meaning part after it dense
    stored = encode(codes.tobytes())
    assert len(stored) == 5 + 48 + 192 + 128
    assert decode(stored) == codes.tobytes()


def test_dense_vectors_and_those_stored_before_are_read_as_they_are() -> None:
    dense = np.arange(1, 129, dtype=np.int8).tobytes()  # no zeros: sparse would be longer
    assert encode(dense) == dense
    assert decode(dense) == dense
    assert decode_many([dense, encode(bytes(64)), dense]) == [dense, bytes(64), dense]


def test_a_dense_blob_from_outside_that_looks_sparse_is_read_as_stored() -> None:
    odd = bytes([SPARSE_MARK, 4, 0, 4, 0, 0b1111, 7])  # says 4 codes follow, holds 1
    assert decode(odd) == odd
    assert decode_many([odd, odd, encode(bytes(8))]) == [odd, odd, bytes(8)]
