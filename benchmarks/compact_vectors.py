"""Could the index keep its rows smaller in memory and still return exactly what it returns now?

    python benchmarks/compact_vectors.py [--size 100000] [--n 300] [--k 40]

The index keeps every vector as 512 int8 codes (~49 MiB at 100k atoms); its second stage scores a
sketch-picked shortlist exactly (5,000+ rows at 100k) and keeps the best `k` (a search's fetch: 40).
A smaller form in memory (4-bit or 3-bit codes with a scale per row or per part, or the meaning part
kept as int8 and only the hashed part narrowed) gives each shortlisted row an estimate and a sure
bound on its error: |exact − estimate| <= the residual's norm × the query's norm (Cauchy-Schwarz),
per part, times the row's 1 / norm. A row whose estimate plus bound falls below the k-th best
estimate minus bound cannot be among the best k; every other row would have to be read back from the
store (its exact int8 codes) to return the same rows and cosines as now. This prints, per form, how
many shortlisted rows survive that test (to be re-read per search), and what re-reading M vectors
from the store costs (one statement, decoded), on a copy of recall_latency.py's seeded store.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import time
from collections.abc import Sequence

import numpy as np
from _common import machine, table, today
from recall_latency import queries, seeded_store
from server_cpu import LINK_WINDOW

from trusted_memory.embed.hashing import HashingEmbedder
from trusted_memory.embed.index import RERANK_MIN, RERANK_PER_K, RERANK_SHARE, VectorIndex
from trusted_memory.store.vector_codec import decode_many

Part = tuple[slice, np.ndarray, np.ndarray]  # dims, estimated codes of those dims, residual norm per row


def narrowed(codes: np.ndarray, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes rounded to 2 × levels + 1 values with one scale per row (0 stays 0), and each row's residual norm."""
    peak = np.abs(codes).max(axis=1, keepdims=True)
    scale = np.where(peak > 0, peak / levels, 1.0)
    estimate = np.clip(np.round(codes / scale), -levels, levels) * scale
    return estimate, np.linalg.norm(codes - estimate, axis=1)


def forms(codes: np.ndarray, lexical: int) -> dict[str, list[Part]]:
    """The compact forms measured: whole rows, each part on its own, the meaning part kept exact."""
    out: dict[str, list[Part]] = {}
    whole, meaning = slice(0, codes.shape[1]), slice(lexical, codes.shape[1])
    for name, levels, bits in (("4-bit", 7, 4), ("3-bit", 3, 3)):
        estimate, residual = narrowed(codes, levels)
        row_bytes, lexical_bytes = codes.shape[1] * bits // 8, lexical * bits // 8
        out[f"{name} rows, a scale a row ({row_bytes + 8} B a row)"] = [(whole, estimate, residual)]
        lex, lex_residual = narrowed(codes[:, :lexical], levels)
        sem, sem_residual = narrowed(codes[:, lexical:], levels)
        out[f"{name}, a scale per part ({row_bytes + 16} B)"] = [
            (slice(0, lexical), lex, lex_residual),
            (meaning, sem, sem_residual),
        ]
        out[f"int8 meaning part + {name} hashed part ({codes.shape[1] - lexical + lexical_bytes + 8} B)"] = [
            (slice(0, lexical), lex, lex_residual),
            (meaning, codes[:, lexical:], np.zeros(len(codes))),
        ]
    return out


def survivors(
    index: VectorIndex, codes: np.ndarray, inv: np.ndarray, parts: Sequence[Part], q: np.ndarray, k: int
) -> tuple[int, int]:
    """(rows of the shortlist, rows that may still be among the best k) for one query."""
    distance = index.prepare(q[None, :]).distance
    assert distance is not None
    d = distance[0]
    wanted = max(RERANK_MIN, RERANK_PER_K * 10, len(d) // RERANK_SHARE)
    rows = np.flatnonzero(d <= np.partition(d, wanted - 1)[wanted - 1])
    exact = (codes[rows] @ q) * inv[rows]
    estimate = np.zeros(len(rows))
    bound = np.zeros(len(rows))
    for dims, approx, residual in parts:
        block = approx[rows] if approx.shape[1] == dims.stop - dims.start else approx[rows][:, dims]
        estimate += block @ q[dims]
        bound += residual[rows] * float(np.linalg.norm(q[dims]))
    estimate *= inv[rows]
    bound *= inv[rows]
    assert np.all(np.abs(estimate - exact) <= bound + 1e-5), "the bound must hold"
    floor = np.partition(estimate - bound, -k)[-k]
    return len(rows), int(np.count_nonzero(estimate + bound >= floor))


def reread_ms(db: sqlite3.Connection, nums: list[int], m: int, rounds: int = 200) -> float:
    """CPU ms to read and decode M random stored vectors in one statement (the store's warm pages)."""
    rng = random.Random(5)
    started = time.process_time()
    for _ in range(rounds):
        pick = sorted(rng.sample(nums, m))
        rows = db.execute(
            "SELECT atom_num, vec FROM vectors WHERE atom_num IN (SELECT value FROM json_each(?))", (json.dumps(pick),)
        ).fetchall()
        decode_many([bytes(r[1]) for r in rows])
    return (time.process_time() - started) / rounds * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--n", type=int, default=300, help="questions")
    parser.add_argument("--k", type=int, default=40, help="rows a search keeps from the vector stage (its fetch)")
    args = parser.parse_args()
    home, _, _ = seeded_store(args.size, False, LINK_WINDOW)
    db = sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True)
    stored = db.execute("SELECT atom_num, vec FROM vectors ORDER BY seq").fetchall()
    nums = [int(r[0]) for r in stored]
    index = VectorIndex(512)
    index.upsert_codes(nums, decode_many([bytes(r[1]) for r in stored]))
    codes = np.frombuffer(b"".join(decode_many([bytes(r[1]) for r in stored])), dtype=np.int8)
    codes = codes.reshape(len(nums), 512).astype(np.float32)
    norms = np.linalg.norm(codes, axis=1)
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0).astype(np.float32)
    embedder = HashingEmbedder(512)
    lexical = 512 - 512 // 4
    qs = embedder.embed_sync(queries(args.n))
    print(f"# Compact rows against exact results, {args.size:,} atoms, {today()}, {machine()}\n")
    rows = []
    for name, parts in forms(codes, lexical).items():
        counts = [survivors(index, codes, inv, parts, q, args.k) for q in qs]
        left = np.array([c[1] for c in counts])
        shortlist = np.median([c[0] for c in counts])
        rows.append([name, f"{shortlist:.0f}", f"{np.median(left):.0f}", f"{np.percentile(left, 90):.0f}", left.max()])
    print(table(["form", "shortlist rows (median)", "rows to re-read: median", "p90", "max"], rows))
    print()
    print(
        table(
            ["vectors re-read per statement", "CPU ms"], [[m, f"{reread_ms(db, nums, m):.3f}"] for m in (40, 128, 256)]
        )
    )


if __name__ == "__main__":
    main()
