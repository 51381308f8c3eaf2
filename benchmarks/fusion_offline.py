"""Fusion rules tried offline on the candidate lists `fusion_eval.py --dump` wrote.

    python benchmarks/fusion_eval.py --dump /tmp/fusion.jsonl
    python benchmarks/fusion_offline.py /tmp/fusion.jsonl [--iters 150]

Each dumped question holds every candidate the hybrid scored (first-stage hits and linked
neighbours, after min_score) with its BM25, cosine, ranks in each list, link flag, retention,
length, and whether it holds an evidence turn. Re-sorting them by the product's own score gives
the hybrid's R@10 exactly; every rule here re-sorts the same lists:

- ceilings: keyword-only / vector-only order of the list, and either of the two (the most any
  re-ordering of their top 10s can find);
- reserved places: the fused order, but the keyword list's top `a` and the vector list's top `b`
  always inside the top 10 (the "union of the two lists, fusion only re-orders" rule);
- a rank bonus (reciprocal-rank fusion added to the score) and a length prior;
- a learned fusion: a linear scorer over per-candidate features, fitted listwise (softmax over a
  question's candidates, Adam, L2) with cross-validation across sets: fit on three conversation
  sets and the main one-line set, test on the fourth and on the held-out one-line set.

numpy only; nothing here is imported by the product.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

SETS = ("conv", "ho", "ho2", "ho3", "ho4", "ho5", "ho6", "ho7", "line", "lineho")
CONVERSATIONS = ("conv", "ho", "ho2", "ho3", "ho4", "ho5")
COSINE_FLOOR, COSINE_FULL = 0.1, 0.6  # the hash space's reading (EmbeddingSpace)
Question = dict[str, Any]
Row = dict[str, Any]


def rank(rows: Sequence[Row], order: Sequence[int], evidence: set[str], by_turns: bool) -> int | None:
    """Rank of the first evidence hit in the first ten of `order` (distinct turns, as the benchmark counts)."""
    seen: set[str] = set()
    for pos, i in enumerate(order[:10], start=1):
        turns = set(rows[i]["turns"])
        if turns & evidence:
            return len(seen) + 1 if by_turns else pos
        seen |= turns
    return None


def found(q: Question, order: Sequence[int]) -> bool:
    return rank(q["rows"], order, set(q["evidence"]), q["turn_rank"]) is not None


def by_key(q: Question, key: Callable[[Question, Row], float]) -> list[int]:
    keys = [key(q, r) for r in q["rows"]]
    return sorted(range(len(keys)), key=lambda i: -keys[i])


def r10(questions: Sequence[Question], order_of: Callable[[Question], list[int]]) -> dict[str, float]:
    out = {}
    for name in SETS:
        qs = [q for q in questions if q["set"] == name]
        if qs:
            out[name] = sum(found(q, order_of(q)) for q in qs) / len(qs)
    return out


def line(tag: str, result: dict[str, float]) -> str:
    return f"{tag:34s} " + " ".join(f"{s} {v:.3f}" for s, v in result.items())


def reserved(q: Question, a: int, b: int) -> list[int]:
    """The fused order with keyword's top a and vector's top b moved into the top 10 (fused order kept)."""
    rows = q["rows"]
    order = by_key(q, lambda _, r: r["score"])
    must = [i for i in order if 0 < rows[i]["kw_rank"] <= a or 0 < rows[i]["vec_rank"] <= b]
    top = order[:10]
    extra = [i for i in must if i not in top]
    if not extra:
        return order
    keep = [i for i in top if i in must]
    others = [i for i in top if i not in must][: max(0, 10 - len(keep) - len(extra))]
    chosen = set(keep) | set(others) | set(extra)
    return [i for i in order if i in chosen] + [i for i in order if i not in chosen]


FEATURES = ("kp", "sh", "v", "kr", "vr", "link", "rel", "ret", "wkp", "wv", "len", "score", "kw3", "vec3", "kpv")


def features(q: Question, r: Row) -> list[float]:
    kp = r["kw"] / q["best_kw"] if q["best_kw"] > 0 else 0.0
    sh = min(1.0, r["kw"] / q["info"]) if q["info"] > 0 else 0.0
    v = max(0.0, min(1.0, (r["cos"] - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)))
    w = q["w"]
    return [
        kp,
        sh,
        v,
        1 / r["kw_rank"] if r["kw_rank"] else 0.0,
        1 / r["vec_rank"] if r["vec_rank"] else 0.0,
        float(r["link"]),
        r["rel"],
        r["ret"],
        w * kp,
        (1 - w) * v,
        math.log1p(r["len"]) / 6,
        r["score"],
        1.0 if 0 < r["kw_rank"] <= 3 else 0.0,
        1.0 if 0 < r["vec_rank"] <= 3 else 0.0,
        kp * v,
    ]


def matrices(questions: Sequence[Question]) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for q in questions:
        evidence = set(q["evidence"])
        x = np.array([features(q, r) for r in q["rows"]]).reshape(-1, len(FEATURES))
        y = np.array([1.0 if set(r["turns"]) & evidence else 0.0 for r in q["rows"]])
        out.append((x, y))
    return out


def fit(data: Sequence[tuple[np.ndarray, np.ndarray]], cols: list[int], iters: int, l2: float = 1e-3) -> np.ndarray:
    """Listwise softmax fit (Adam) of a linear scorer over standardised features; returns raw-scale weights."""
    usable = [(x[:, cols], y) for x, y in data if y.sum() > 0]
    stacked = np.vstack([x for x, _ in usable])
    mu, sd = stacked.mean(0), stacked.std(0) + 1e-9
    usable = [((x - mu) / sd, y) for x, y in usable]
    w = np.zeros(len(cols))
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, iters + 1):
        g = np.zeros_like(w)
        for x, y in usable:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            g += x.T @ (p - y / y.sum())
        g = g / len(usable) + l2 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return np.asarray(w / sd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dump", type=Path)
    parser.add_argument("--iters", type=int, default=150)
    args = parser.parse_args()
    questions: list[Question] = [json.loads(ln) for ln in args.dump.read_text().splitlines() if ln.strip()]
    print(line("hybrid (the product's score)", r10(questions, lambda q: by_key(q, lambda _, r: r["score"]))))
    print(line("keyword order of the list", r10(questions, lambda q: by_key(q, lambda _, r: r["kw"]))))
    print(line("vector order of the list", r10(questions, lambda q: by_key(q, lambda _, r: r["cos"]))))
    either = {
        name: sum(
            any(
                found(q, [i for i in by_key(q, lambda _, r, k=k: r[k]) if q["rows"][i][k] > 0])  # type: ignore[misc]
                for k in ("kw", "cos")
            )
            for q in questions
            if q["set"] == name
        )
        / max(1, sum(q["set"] == name for q in questions))
        for name in SETS
    }
    print(line("ceiling: keyword or vector top 10", either))
    for a, b in ((0, 1), (0, 3), (1, 1), (1, 3), (2, 2), (3, 3), (5, 5)):
        print(line(f"reserved: keyword {a}, vector {b}", r10(questions, lambda q, a=a, b=b: reserved(q, a, b))))  # type: ignore[misc]
    for k, gain in ((5, 0.5), (5, 1.0), (10, 1.0), (30, 1.0), (10, 2.0)):

        def rrf(q: Question, r: Row, k: int = k, gain: float = gain) -> float:
            bonus = sum(1 / (k + r[key]) for key in ("kw_rank", "vec_rank") if r[key])
            return float(r["score"] + gain * bonus)

        print(line(f"score + {gain} x RRF(k={k})", r10(questions, lambda q, f=rrf: by_key(q, f))))  # type: ignore[misc]
    for beta in (0.02, 0.05, 0.08):
        print(
            line(
                f"score + {beta} x ln(1 + chars)",
                r10(questions, lambda q, b=beta: by_key(q, lambda _, r: r["score"] + b * math.log1p(r["len"]))),  # type: ignore[misc]
            )
        )
    data = matrices(questions)
    for subset in (FEATURES, ("score", "len", "kr", "vr"), ("kp", "sh", "v", "link", "len", "kr", "vr", "ret")):
        cols = [FEATURES.index(f) for f in subset]
        print(f"learned fusion over {', '.join(subset)}:")
        for held in CONVERSATIONS:
            train = [d for d, q in zip(data, questions, strict=True) if q["set"] in {*CONVERSATIONS, "line"} - {held}]
            w = fit(train, cols, args.iters)

            def learned(q: Question, w: np.ndarray = w, cols: list[int] = cols) -> list[int]:
                if not q["rows"]:
                    return []
                s = np.array([features(q, r) for r in q["rows"]])[:, cols] @ w
                return [int(i) for i in np.argsort(-s, kind="stable")]

            result = r10(questions, learned)
            print(line(f"  fold: test {held} + lineho", result) + "  w " + " ".join(f"{x:.2f}" for x in w))


if __name__ == "__main__":
    main()
