"""How an atom's int8 vector is laid out in `vectors.vec`: dense, or its non-zero codes behind a bitmap.

The hashing embedder's vectors are ~30 % zeros (words hash into a few of the 384 dimensions of its
hashed part), so storing the non-zero codes behind a bitmap of which dimensions they fill takes
~420 bytes instead of 512 for the same codes: ~110 bytes a vector, ~140 bytes an observed turn.
Lossless: the same int8 codes come back, so nothing that ranks by them changes.

A sparse blob is `0x80, dims (uint16 little-endian), bitmap (ceil(dims / 8) bytes, dimension i is
bit i % 8 of byte i // 8), the non-zero codes in dimension order`. Quantized codes lie in
[-127, 127], so a dense blob never starts with 0x80 (-128), except one from outside (an import):
such a blob is always stored sparse, so a blob that starts with 0x80 is always sparse. Blobs stored
before this layout are dense and read as they are; every reader gets dense bytes back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["SPARSE_MARK", "decode", "decode_many", "encode"]

SPARSE_MARK = 0x80
_HEADER = 3  # the mark and dims
_MAX_DIMS = 0xFFFF


def encode(blob: bytes) -> bytes:
    """The stored form of a dense int8 vector: sparse when that is shorter (or the blob starts with 0x80)."""
    dims = len(blob)
    if dims == 0 or dims > _MAX_DIMS:
        return blob
    codes = np.frombuffer(blob, dtype=np.int8)
    nonzero = codes != 0
    size = _HEADER + (dims + 7) // 8 + int(nonzero.sum())
    if size >= dims and blob[0] != SPARSE_MARK:
        return blob
    bitmap = np.packbits(nonzero, bitorder="little")
    return (
        bytes((SPARSE_MARK,)) + dims.to_bytes(2, "little") + bytes(bitmap.tobytes()) + bytes(codes[nonzero].tobytes())
    )


def _parts(blob: bytes) -> tuple[int, bytes, bytes] | None:
    """(dims, bitmap, codes) of a well-formed sparse blob, None for a dense one."""
    if len(blob) < _HEADER or blob[0] != SPARSE_MARK:
        return None
    dims = int.from_bytes(blob[1:3], "little")
    width = (dims + 7) // 8
    if len(blob) < _HEADER + width:
        return None
    return dims, blob[_HEADER : _HEADER + width], blob[_HEADER + width :]


def decode(blob: bytes) -> bytes:
    """The dense int8 bytes of a stored vector (one written before this layout comes back as it is)."""
    return decode_many([blob])[0]


def decode_many(blobs: Sequence[bytes]) -> list[bytes]:
    """Dense bytes of many stored vectors; the sparse ones of one width are expanded in one numpy pass
    (an index load reads tens of thousands of rows)."""
    out: list[bytes] = list(blobs)
    groups: dict[int, list[tuple[int, bytes, bytes]]] = {}
    for i, blob in enumerate(blobs):
        parts = _parts(blob)
        if parts is not None:
            groups.setdefault(parts[0], []).append((i, parts[1], parts[2]))
    for dims, rows in groups.items():
        bitmaps = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint8).reshape(len(rows), -1)
        mask = np.unpackbits(bitmaps, axis=1, count=dims, bitorder="little").astype(bool)
        lengths = np.fromiter((len(r[2]) for r in rows), dtype=np.int64, count=len(rows))
        if not np.array_equal(mask.sum(axis=1), lengths):
            # Not this layout after all (a dense blob from outside that starts with 0x80): as stored.
            for i, bitmap, codes in rows:
                one = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), count=dims, bitorder="little")
                if int(one.sum()) == len(codes):
                    out[i] = _expand(dims, one.astype(bool), codes)
            continue
        dense = np.zeros((len(rows), dims), dtype=np.int8)
        dense[mask] = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
        for (i, _, _), row in zip(rows, dense, strict=True):
            out[i] = row.tobytes()
    return out


def _expand(dims: int, mask: np.ndarray[tuple[int], np.dtype[np.bool_]], codes: bytes) -> bytes:
    dense = np.zeros(dims, dtype=np.int8)
    dense[mask] = np.frombuffer(codes, dtype=np.int8)
    return dense.tobytes()
