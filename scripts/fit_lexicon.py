"""Refit trusted_memory/embed/data/lexicon.npz so composed texts land where MiniLM puts them (dev-time only).

    HF_HUB_OFFLINE=1 PYTHONPATH=. python scripts/fit_lexicon.py --model DIR --prior V3.npz \
        [--sets conversations,conversations_heldout,...] [--corpus scripts/data/chat_corpus_a.jsonl ...] [--exclude SET]
        [--lam L] [--steps N] [--cache DIR] [--out PATH]

The shipped table (scripts/build_lexicon.py) embeds every word alone, as Model2Vec distils a static
model. Here, as Model2Vec's tokenlearn trains its "potion" models, the vectors are fitted so that a
text's composed vector (exactly what ``hashing.py`` computes: the rank-weighted sum of the rows of
its content words) points where the teacher (all-MiniLM-L6-v2, the same model) puts the whole text,
projected on the table's own basis (the words' centring, "all-but-the-top" removal and 128
principal directions, recomputed from the teacher here and sign-aligned to the table). The loss is
the cosine distance plus ``lam`` times the squared distance of each row from its distilled vector,
so a word seen rarely or never keeps its prior. Rows are free in length: a row's norm is the word's
learned weight on top of its rank weight. The result is written as the same int8 table (one global
scale, so the relative weights survive) with the same words in the same order.

Fitting text is unlabelled: turn texts and question texts of the conversation sets named (never
their evidence labels or answers), each long turn also split into sentences, and chat corpora
(``{"role","topic","text"}`` lines; the two the shipped table was fitted on are in
``scripts/data``). Run it where torch and sentence-transformers are installed (the project's
``local`` extra). Do not name the sets you report on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
from pathlib import Path

import numpy as np
import torch

from trusted_memory.embed.lexicon import Lexicon
from trusted_memory.text import STOP_WORDS, stem, tokenize

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "trusted_memory/embed/data/lexicon.npz"
COMMON_WORDS = 30_000  # build_lexicon.py's basis: the common words only
REMOVED_DIRECTIONS = 4
DIMS = 128
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def set_texts(name: str) -> list[str]:
    """Turn texts, their sentences (for turns of more than one) and question texts of one set."""
    out: list[str] = []
    folder = ROOT / "benchmarks/data" / name
    for path in sorted(folder.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        for session in conv["sessions"]:
            for turn in session["turns"]:
                text = turn["text"].strip()
                out.append(text)
                parts = [p for p in _SENTENCE.split(text) if len(p) > 15]
                if len(parts) > 1:
                    out.extend(parts)
    for path in sorted(folder.glob("*.questions.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return out


def corpus_texts(path: Path) -> list[str]:
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            text = str(json.loads(line)["text"]).strip()
            out.append(text)
            parts = [p for p in _SENTENCE.split(text) if len(p) > 15]
            if len(parts) > 1:
                out.extend(parts)
    return out


def teacher_vectors(model_dir: Path, texts: list[str], cache: Path) -> np.ndarray:
    """The teacher's L2-normalised embeddings of ``texts``, cached per text set."""
    key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = cache / f"teacher-{key}.npy"
    if path.exists():
        return np.load(path)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    started = time.time()
    out = model.encode(texts, batch_size=128, normalize_embeddings=True, convert_to_numpy=True)
    print(f"teacher: {len(texts)} texts in {time.time() - started:.0f} s")
    np.save(path, out)
    return np.asarray(out)


def basis(model_dir: Path, shipped_rows: np.ndarray, words: list[str], cache: Path) -> tuple[np.ndarray, np.ndarray]:
    """build_lexicon.py's mean and projection (384 -> 128), signs matched to the shipped rows."""
    vectors = teacher_vectors(model_dir, words, cache).astype(np.float64)
    base = vectors[:COMMON_WORDS]
    mean = base.mean(axis=0)
    _, _, directions = np.linalg.svd(base - mean, full_matrices=False)
    top = directions[:REMOVED_DIRECTIONS]
    keep = directions[REMOVED_DIRECTIONS : REMOVED_DIRECTIONS + DIMS]
    # Fold the top-direction removal into one linear map: x -> (x - mean)(I - T'T) K'.
    proj = (np.eye(vectors.shape[1]) - top.T @ top) @ keep.T
    projected = (vectors - mean) @ proj
    projected /= np.linalg.norm(projected, axis=1, keepdims=True)
    shipped = shipped_rows.astype(np.float64) / 127.0
    signs = np.sign((projected * shipped).sum(axis=0))
    proj *= signs
    agree = ((projected * signs) * shipped).sum(axis=1)
    print(f"basis: prior rows vs recomputed, cosine median {np.median(agree):.4f}, 1%: {np.percentile(agree, 1):.4f}")
    return mean, proj


def bags(texts: list[str], table: Lexicon) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(text, row, weight) triples: what hashing.py sums for each text (repeats count again)."""
    t_idx: list[int] = []
    r_idx: list[int] = []
    memo: dict[str, int | None] = {}
    for i, text in enumerate(texts):
        for token in tokenize(text):
            if token not in memo:
                row = None
                if token not in STOP_WORDS:
                    found = table.rows((token, stem(token)))
                    row = found[0] if found else None
                memo[token] = row
            row = memo[token]
            if row is not None:
                t_idx.append(i)
                r_idx.append(row)
    rows = np.array(r_idx, dtype=np.int64)
    return np.array(t_idx, dtype=np.int64), rows, np.log(rows + 2.0)


def fit(
    texts_rows: tuple[np.ndarray, np.ndarray, np.ndarray],
    targets: np.ndarray,
    prior: np.ndarray,
    *,
    lam: float,
    steps: int,
    lr: float,
    valid: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None,
) -> np.ndarray:
    torch.manual_seed(0)

    def matrix(tr: tuple[np.ndarray, np.ndarray, np.ndarray], n: int) -> torch.Tensor:
        t, r, w = tr
        return torch.sparse_coo_tensor(
            torch.tensor(np.vstack([t, r])), torch.tensor(w, dtype=torch.float32), (n, prior.shape[0])
        ).coalesce()

    x = matrix(texts_rows, targets.shape[0])
    y = torch.tensor(targets, dtype=torch.float32)
    has = torch.tensor(np.bincount(texts_rows[0], minlength=targets.shape[0]) > 0)
    v0 = torch.tensor(prior, dtype=torch.float32)
    v = v0.clone().requires_grad_(True)
    opt = torch.optim.Adam([v], lr=lr)
    xv = yv = hv = None
    if valid is not None:
        xv = matrix(valid[0], valid[1].shape[0])
        yv = torch.tensor(valid[1], dtype=torch.float32)
        hv = torch.tensor(np.bincount(valid[0][0], minlength=valid[1].shape[0]) > 0)

    def score(xm: torch.Tensor, ym: torch.Tensor, hm: torch.Tensor, table: torch.Tensor) -> float:
        with torch.no_grad():
            return float(torch.nn.functional.cosine_similarity(torch.sparse.mm(xm, table)[hm], ym[hm]).mean())

    if xv is not None and yv is not None and hv is not None:
        print(f"valid cosine before {score(xv, yv, hv, v0):.4f}")
    print(f"train cosine before {score(x, y, has, v0):.4f}")
    n = float(has.sum())
    for step in range(steps):
        opt.zero_grad()
        pred = torch.sparse.mm(x, v)
        loss = (1.0 - torch.nn.functional.cosine_similarity(pred[has], y[has])).sum() / n
        loss = loss + lam * ((v - v0) ** 2).sum() / n
        loss.backward()
        opt.step()
        if (step + 1) % 100 == 0:
            msg = f"step {step + 1}: loss {float(loss):.4f} train {score(x, y, has, v.detach()):.4f}"
            if xv is not None and yv is not None and hv is not None:
                msg += f" valid {score(xv, yv, hv, v.detach()):.4f}"
            print(msg, flush=True)
    return v.detach().numpy().astype(np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument(
        "--sets",
        default="conversations,conversations_heldout,conversations_heldout2,conversations_heldout3,"
        "conversations_heldout4,conversations_heldout5",
    )
    parser.add_argument("--corpus", type=Path, nargs="*", default=[])
    parser.add_argument("--exclude", default="", help="sets left out of the fit (leave-one-set-out)")
    parser.add_argument("--valid", default="", help="a set scored (teacher cosine) but not fitted")
    parser.add_argument("--lam", type=float, default=0.05)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/fit_lexicon_cache"))
    # Required, never the shipped file: refitting a fitted table would carry the sets it saw into a
    # leave-one-set-out fit. The distilled table is build_lexicon.py's output (or hash:v3's file:
    # git show 5d5f3a0:trusted_memory/embed/data/lexicon.npz).
    parser.add_argument("--prior", type=Path, required=True, help="the distilled (word-by-word) table")
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args()
    torch.set_num_threads(2)
    args.cache.mkdir(parents=True, exist_ok=True)
    with np.load(args.prior, allow_pickle=False) as data:
        words = str(data["words"]).split("\n")
        shipped = np.asarray(data["vectors"], dtype=np.int8)
    table = Lexicon(words, shipped)
    mean, proj = basis(args.model, shipped, words, args.cache)
    excluded = {s for s in args.exclude.split(",") if s}

    def target(batch: list[str]) -> np.ndarray:
        y = (teacher_vectors(args.model, batch, args.cache).astype(np.float64) - mean) @ proj
        return y / np.linalg.norm(y, axis=1, keepdims=True)

    # Each source is embedded (and cached) on its own, so leaving one out re-embeds nothing.
    names = [n for n in args.sets.split(",") if n and n not in excluded and n != args.valid]
    sources = [set_texts(n) for n in names] + [corpus_texts(p) for p in args.corpus]
    seen: set[str] = set()
    texts: list[str] = []
    parts: list[np.ndarray] = []
    for source in sources:
        unique = list(dict.fromkeys(source))
        keep = [i for i, t in enumerate(unique) if t not in seen]
        seen.update(unique)
        texts += [unique[i] for i in keep]
        parts.append(target(unique)[keep])
    print(f"fitting on {len(texts)} texts")

    prior = shipped.astype(np.float64) / 127.0
    valid = None
    if args.valid:
        vt = list(dict.fromkeys(set_texts(args.valid)))
        valid = (bags(vt, table), target(vt))
    fitted = fit(bags(texts, table), np.vstack(parts), prior, lam=args.lam, steps=args.steps, lr=args.lr, valid=valid)
    # One scale for every row (their lengths are their weights); a few outlying components clip.
    scale = 127.0 / np.percentile(np.abs(fitted), 99.99)
    quantised = np.clip(np.round(fitted * scale), -127, 127).astype(np.int8)
    moved = np.linalg.norm(fitted - prior, axis=1)
    norms = np.linalg.norm(fitted, axis=1)
    print(f"rows moved > 0.05: {(moved > 0.05).sum()}, norms median {np.median(norms):.3f} max {norms.max():.3f}")
    np.savez_compressed(args.out, words=np.array("\n".join(words)), vectors=quantised)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
