"""Quick baseline: recall@k of HashingEmbedder cosine alone over the recall benchmark set.

Usage: python benchmarks/data/quick_vector_eval.py [--dims 512]
Not the real benchmark (no BM25, no fusion, no recency): a floor for the lead to beat.
A question counts as a hit at k when any of its labelled answers is in the top k.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import cast

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # run from a checkout without installing

from trusted_memory.embed.hashing import HashingEmbedder  # noqa: E402


def load(name: str) -> list[dict[str, object]]:
    """Read one JSONL file of the set."""
    with open(HERE / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    """Embed memories and questions, rank by cosine, print recall@1/5/10 and MRR."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dims", type=int, default=512)
    args = parser.parse_args()
    mems = load("recall_memories.jsonl")
    qs = load("recall_questions.jsonl")
    emb = HashingEmbedder(args.dims)
    t0 = time.perf_counter()
    mvec = emb.embed_sync([str(m["text"]) for m in mems])
    t1 = time.perf_counter()
    qvec = emb.embed_sync([str(q["question"]) for q in qs])
    t2 = time.perf_counter()
    order = np.argsort(-(qvec @ mvec.T), axis=1, kind="stable")
    ids = np.array([m["id"] for m in mems])
    ks = (1, 5, 10)
    hits: dict[str, dict[int, int]] = defaultdict(lambda: dict.fromkeys(ks, 0))
    rr: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for q, row in zip(qs, order):
        answers = set(cast(list[str], q["answers"]))
        ranked = ids[row]
        first = next((i for i, mid in enumerate(ranked) if mid in answers), None)
        for group in ("all", str(q["kind"])):
            count[group] += 1
            rr[group] += 0.0 if first is None else 1.0 / (first + 1)
            for k in ks:
                hits[group][k] += first is not None and first < k
    print(
        f"HashingEmbedder dims={args.dims}: {len(mems)} memories in {(t1 - t0) * 1e3:.0f} ms, "
        f"{len(qs)} questions in {(t2 - t1) * 1e3:.0f} ms"
    )
    print(f"{'group':<11}{'n':>5}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'MRR':>8}")
    for group in ["all"] + sorted(g for g in count if g != "all"):
        n = count[group]
        cells = "".join(f"{hits[group][k] / n:>8.3f}" for k in ks)
        print(f"{group:<11}{n:>5}{cells}{rr[group] / n:>8.3f}")


if __name__ == "__main__":
    main()
