"""How an atom's int8 vector is laid out in `vectors.vec`: dense, or its non-zero codes behind a bitmap.

The hashing embedder's vectors are ~30 % zeros, nearly all in the first 384 dimensions (its hashed
part: a text's words fill a few of them), while the meaning part after them is dense. Storing the
non-zero codes of a prefix behind a bitmap of which dimensions they fill, and the rest as they are,
takes ~400 bytes instead of 512 for the same codes: ~110 bytes a vector, ~140 an observed turn.
Lossless: the same int8 codes come back, so nothing that ranks by them changes.

A sparse blob is `0x80, dims and prefix (each uint16 little-endian), the prefix's bitmap (ceil(prefix
/ 8) bytes, dimension i is bit i % 8 of byte i // 8), the prefix's non-zero codes in order, the codes
after the prefix`. The prefix is chosen per vector to make the blob shortest. Quantized codes lie in
[-127, 127], so a dense blob never starts with 0x80 (-128), except one from outside (an import):
such a blob is always stored sparse, so a stored blob that starts with 0x80 is sparse. Blobs stored
before this layout are dense and read as they are; every reader gets dense bytes back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["SPARSE_MARK", "decode", "decode_many", "encode"]

SPARSE_MARK = 0x80
_HEADER = 5  # the mark, dims and prefix
_MAX_DIMS = 0xFFFF
_BLOCK = 64

_Parts = tuple[int, int, bytes, bytes, bytes]  # dims, prefix, bitmap, the prefix's non-zero codes, the rest


def _best_prefix(blob: bytes) -> tuple[int, int]:
    """(prefix, stored size) that makes the sparse blob shortest: a bitmap byte costs 1, a zero saves 1.

    Prefixes are whole 64-dimension blocks (or every dimension), so a load meets few shapes. Counted
    with bytes methods: this runs on every write, where a numpy call per step costs more than the work."""
    dims = len(blob)
    best, best_size, zeros = 0, _HEADER + dims, 0
    for end in range(_BLOCK, dims + 1, _BLOCK):
        zeros += blob.count(0, end - _BLOCK, end)
        size = _HEADER + end // 8 + dims - zeros
        if size < best_size:
            best, best_size = end, size
    if dims % _BLOCK:
        size = _HEADER + (dims + 7) // 8 + dims - blob.count(0)
        if size < best_size:
            best, best_size = dims, size
    return best, best_size


def encode(blob: bytes) -> bytes:
    """The stored form of a dense int8 vector: sparse when that is shorter (or the blob starts with 0x80)."""
    dims = len(blob)
    if dims == 0 or dims > _MAX_DIMS:
        return blob
    prefix, size = _best_prefix(blob)
    if size >= dims and blob[0] != SPARSE_MARK:
        return blob
    head = blob[:prefix]
    bitmap = np.packbits(np.frombuffer(head, dtype=np.uint8) != 0, bitorder="little")
    return b"".join(
        (
            bytes((SPARSE_MARK,)),
            dims.to_bytes(2, "little"),
            prefix.to_bytes(2, "little"),
            bytes(bitmap.tobytes()),
            head.replace(b"\0", b""),  # the prefix's non-zero codes, in order
            blob[prefix:],
        )
    )


def _parts(blob: bytes) -> _Parts | None:
    """The parts of a well-formed sparse blob, None for a dense one."""
    if len(blob) < _HEADER or blob[0] != SPARSE_MARK:
        return None
    dims, prefix = int.from_bytes(blob[1:3], "little"), int.from_bytes(blob[3:5], "little")
    width = (prefix + 7) // 8
    rest = len(blob) - _HEADER - width - (dims - prefix)
    if prefix > dims or rest < 0:
        return None
    body = blob[_HEADER + width :]
    return dims, prefix, blob[_HEADER : _HEADER + width], body[:rest], body[rest:]


def decode(blob: bytes) -> bytes:
    """The dense int8 bytes of a stored vector (one written before this layout comes back as it is)."""
    return decode_many([blob])[0]


def decode_many(blobs: Sequence[bytes]) -> list[bytes]:
    """Dense bytes of many stored vectors; the sparse ones of one shape are expanded in one numpy pass
    (an index load reads tens of thousands of rows)."""
    out: list[bytes] = list(blobs)
    if len(blobs) == 1:  # a write's own vector: no grouping
        parts = _parts(blobs[0])
        if parts is not None:
            out[0] = _expand(parts) or blobs[0]
        return out
    groups: dict[tuple[int, int], list[tuple[int, _Parts]]] = {}
    for i, blob in enumerate(blobs):
        parts = _parts(blob)
        if parts is not None:
            groups.setdefault((parts[0], parts[1]), []).append((i, parts))
    for (dims, prefix), rows in groups.items():
        bitmaps = np.frombuffer(b"".join(p[2] for _, p in rows), dtype=np.uint8).reshape(len(rows), -1)
        mask = np.unpackbits(bitmaps, axis=1, count=prefix, bitorder="little").astype(bool)
        counts = np.fromiter((len(p[3]) for _, p in rows), dtype=np.int64, count=len(rows))
        fits = mask.sum(axis=1) == counts  # else a dense blob from outside that starts with 0x80: as stored
        dense = np.zeros((len(rows), dims), dtype=np.int8)
        good = [r for r, ok in zip(rows, fits, strict=True) if ok]
        if not good:
            continue
        head = dense[: len(good), :prefix]
        head[mask[fits]] = np.frombuffer(b"".join(p[3] for _, p in good), dtype=np.int8)
        if prefix < dims:
            dense[: len(good), prefix:] = np.frombuffer(b"".join(p[4] for _, p in good), dtype=np.int8).reshape(
                len(good), dims - prefix
            )
        for (i, _), row in zip(good, dense, strict=False):
            out[i] = row.tobytes()
    return out


def _expand(parts: _Parts) -> bytes | None:
    """The dense bytes of one sparse blob's parts, None if they do not fit together."""
    _, prefix, bitmap, codes, rest = parts
    mask = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), count=prefix, bitorder="little").view(np.bool_)
    head = np.zeros(prefix, dtype=np.int8)
    if int(np.count_nonzero(mask)) != len(codes):
        return None
    head[mask] = np.frombuffer(codes, dtype=np.int8)
    return bytes(head.tobytes()) + rest
