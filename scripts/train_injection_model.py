"""Train the scanner's learned injection model and report how it generalises to a new author.

Run from the repository root in a venv with scikit-learn (a training-only dependency; the product
reads the weights with numpy): ``python scripts/train_injection_model.py [--write]``.

The tuning parts of tests/data/scanner/ were written by different authors (``AUTHORS``; a part
not yet written is left out). Leave one author out: train on the others, score it, for each; the
threshold is the lowest score at which the model, added to the rules, flags at most
``BENIGN_BUDGET`` more of the pooled benign texts of the left-out authors (so it is chosen on texts the
model never saw, never on a test part). Prints per-author figures for rules alone and rules + model at
that threshold. ``--write`` then trains on all parts and writes
trusted_memory/scan/data/injection_model.npz (n-gram weights as float16, concept names and
weights, bias, threshold).

Positives are the injections; negatives are the benign texts and the credentials (a config line
with a key is not an injection), plus ordinary user text from the recall and extraction data sets
(``ORDINARY``, always in training, never scored): out of author it raised the model's catch rate
at the same threshold rule (e.g. 29 % -> 32 % on heldout2). Features are those of
``trusted_memory.scan.feature_blocks`` (hashed n-grams) and ``concept_names`` (one column per scanner
concept present, value ``CONCEPT_SCALE``) on the scanner's folded view, so training and scanning
see the same text. Round 4 measured, leave one author out over five authors (heldout3 the only
one no rule was fitted to): concept features raised the model alone on heldout3 from 25 % to
37 % of injections at the same benign rule; mean-pooled word-meaning vectors from the bundled
lexicon (English only) added nothing (19-23 %), max pooling lowered it, so they are not used;
concept-pair features changed nothing at seven authors. The figures per author are in
benchmarks/RESULTS.md ("Round 4"). Round 5 (ten authors): the character and word blocks scaled
apart, character 2-grams and C 24 -> 64 raised the mean out-of-author catch rate of the five authors
the injection rules were not fitted to from 67.9 % to 73.3 % at the same benign rule; 2^18 buckets,
word trigrams and shorter windows did not help; log(1 + count) values (``ngram_values``) keep runs of one
character from scoring by repetition ("Round 5"). Round 6 (eleven authors): word prefixes of four
letters and the pattern-gated concepts raised the model alone from 59.5 % to 65.8 % of the seven
newest authors' injections; concept features from real term matches, concept pairs, skip-bigrams,
equal author weights and naive-Bayes scaling did not help ("Round 6"). Round 7 (twelve authors):
word-meaning features from the bundled lexicon, per-script thresholds and a MiniLM sentence-embedding
head, each scored against these out-of-author scores, did not raise the catch rate ("Round 7").
Round 8 (thirteen authors): the same design retrained; benign budgets of 0.15-0.5 % compared on the
same scores, 0.25 % kept ("Round 8"). Round 9 (fourteen authors): the same design retrained; the
non-ASCII texts' larger share of injections gives no language bias at the threshold and per-script
thresholds do not help; 0.25 % kept ("Round 9"). Round 10 (fifteen authors): concept features scaled by
sqrt(160 / length) like the n-grams, and ``--segments`` (every segment of a long negative as another
negative row), each lowered the newest authors' out-of-author catch rate at the same benign rule, so
neither is the default ("Round 10"); ``--out`` writes the weights elsewhere for such comparisons.
Left-out texts are scored as the scanner scores them (``scanner_scores``: a long text by its best
segment), so the threshold holds for long documents too. ``--dump PATH`` keeps the out-of-author
scores for a look at other thresholds.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trusted_memory.scan import (  # noqa: E402
    BITS,
    CONCEPT_SCALE,
    CONCEPTS,
    WINDOW,
    concept_names,
    feature_blocks,
    fold_view,
    ngram_values,
    scan,
    segments,
)

DATA = ROOT / "tests" / "data" / "scanner"
AUTHORS = {
    "corpus": DATA / "corpus.json",
    "former_heldout": DATA / "corpus_former_heldout.json",
    "extra": DATA / "corpus_extra.json",
    "heldout2": DATA / "corpus_heldout2.json",
    "heldout3": DATA / "corpus_heldout3.json",
    "round4_a": DATA / "corpus_round4_a.json",
    "round4_b": DATA / "corpus_round4_b.json",
    "heldout4": DATA / "corpus_heldout4.json",
    "round5_a": DATA / "corpus_round5_a.json",
    "round5_b": DATA / "corpus_round5_b.json",
    "heldout5": DATA / "corpus_heldout5.json",
    "heldout6": DATA / "corpus_heldout6.json",
    "heldout7": DATA / "corpus_heldout7.json",
    "heldout8": DATA / "corpus_heldout8.json",
    "heldout9": DATA / "corpus_heldout9.json",
    "heldout10": DATA / "corpus_heldout10.json",
    "heldout11": DATA / "corpus_heldout11.json",
    "heldout12": DATA / "corpus_heldout12.json",
}
AUTHORS = {name: path for name, path in AUTHORS.items() if path.exists()}
COLUMN = {name: (1 << BITS) + k for k, name in enumerate(CONCEPTS)}
# Ordinary user text, in training as negatives only (never scored): what people ask a memory to keep
# and say in conversations. It lets the model learn that "remember …" and "from now on …" are normal.
ORDINARY = (
    ROOT / "benchmarks" / "data" / "recall_memories.jsonl",
    ROOT / "tests" / "data" / "extraction_set.jsonl",
    ROOT / "benchmarks" / "data" / "conversations",
)
OUT = ROOT / "trusted_memory" / "scan" / "data" / "injection_model.npz"
C = 64.0  # inverse regularisation (out of author, nine authors, blocks scaled apart: 24 -> 64 +1 point, 200 no more)
BENIGN_BUDGET = 0.0025  # share of the pooled benign texts the model may add to the rules' flags, out of author


def row(text: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    low = fold_view(text).low
    concept_cols = np.array([COLUMN[name] for name in concept_names(low)], dtype=np.int64)
    cols, vals = [concept_cols], [np.full(len(concept_cols), CONCEPT_SCALE)]
    for block in feature_blocks(low):  # character n-grams, then words: each scaled by its own length
        if len(block):
            block_cols, block_vals = ngram_values(block)
            cols.append(block_cols)
            vals.append(block_vals)
    # A word bucket may equal a character bucket: the matrix sums duplicate entries, as the scanner does.
    return np.concatenate(cols), np.concatenate(vals)


def matrix(texts: list[str]) -> csr_matrix:
    indptr, indices, values = [0], [], []
    for text in texts:
        cols, vals = row(text)
        indices.append(cols)
        values.append(vals)
        indptr.append(indptr[-1] + len(cols))
    shape = (len(texts), (1 << BITS) + len(CONCEPTS))
    out = csr_matrix((np.concatenate(values), np.concatenate(indices), indptr), shape=shape)
    out.sum_duplicates()
    return out


def load(path: Path) -> list[tuple[str, str, int, bool]]:
    """(list, text, label, caught or flagged by the rules) per item."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for lst in ("credentials", "injections", "benign"):
        for item in data[lst]:
            found = scan(item["text"], learned=False)
            if lst == "injections":
                rule = any(f.kind == "prompt_injection" for f in found)
            else:
                rule = bool(found) if lst == "benign" else False
            out.append((lst, item["text"], int(lst == "injections"), rule))
    return out


_OLD_RULES = """
import json, sys
sys.path.insert(0, ".")
from trusted_memory.scan import scan
out = {}
for path in sys.argv[1:]:
    data = json.load(open(path, encoding="utf-8"))
    out[path] = [
        any(f.kind == "prompt_injection" for f in scan(x["text"])) if lst == "injections" else bool(scan(x["text"]))
        if lst == "benign" else False
        for lst in ("credentials", "injections", "benign") for x in data[lst]
    ]
print(json.dumps(out))
"""


def rules_at(commit: str) -> dict[str, list[bool]]:
    """Per part, whether the rules as they were at ``commit`` catch (or flag) each item."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True, capture_output=True
        )
        try:
            run = subprocess.run(
                [sys.executable, "-c", _OLD_RULES, *map(str, AUTHORS.values())],
                cwd=tree,
                check=True,
                capture_output=True,
                text=True,
            )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    hits: dict[str, list[bool]] = json.loads(run.stdout)
    return {name: hits[str(path)] for name, path in AUTHORS.items()}


def ordinary_texts() -> list[tuple[str, str, int, bool]]:
    """Every string of 16+ characters in the ORDINARY files, once, as a negative training item."""
    texts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            if len(node) > 15:
                texts.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for source in ORDINARY:
        for path in sorted(source.glob("*.json")) if source.is_dir() else [source]:
            if path.suffix == ".jsonl":
                for line in path.read_text(encoding="utf-8").splitlines():
                    walk(json.loads(line).get("text") or json.loads(line).get("message"))
            else:
                walk(json.loads(path.read_text(encoding="utf-8")))
    return [("ordinary", text, 0, False) for text in dict.fromkeys(texts)]


def scanner_scores(model: LogisticRegression, texts: list[str]) -> np.ndarray[Any, Any]:
    """The model's logit per text as the scanner computes it: a long text by its best segment.

    The threshold is chosen on these, so a long benign page, which gets one chance per segment,
    counts as often as the scanner would flag it (round 5: whole-text scores set a threshold that
    flagged 9 of the long benign documents of round5_a on first sight).
    """
    out = model.decision_function(matrix(texts))
    for k, text in enumerate(texts):
        low = fold_view(text).low
        if len(low) > WINDOW:
            parts = [low[a:b] for a, b in segments(low)]
            out[k] = float(np.max(model.decision_function(matrix(parts))))
    return out


def benign_segments(items: list[tuple[str, str, int, bool]]) -> list[str]:
    """The segments the scanner scores of every long negative text (each another negative row)."""
    out = []
    for _, text, label, _ in items:
        low = fold_view(text).low
        if label == 0 and len(low) > WINDOW:
            out.extend(low[a:b] for a, b in segments(low))  # as ``scanner_scores`` scores them
    return out


def fit(items: list[tuple[str, str, int, bool]], segmented: bool = False) -> LogisticRegression:
    model = LogisticRegression(C=C, solver="liblinear", class_weight="balanced", max_iter=2000, random_state=0)
    texts = [t for _, t, _, _ in items]
    labels = [y for _, _, y, _ in items]
    if segmented:
        extra = benign_segments(items)
        texts, labels = texts + extra, labels + [0] * len(extra)
    model.fit(matrix(texts), labels)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="train on every part and write the weights")
    parser.add_argument(
        "--rules-from",
        metavar="COMMIT",
        help="score the rules as they were at COMMIT (e.g. 790493b, frozen before heldout2 was seen): the only "
        "out-of-author figure for rules + model; the threshold is still chosen with today's rules",
    )
    parser.add_argument(
        "--segments",
        action="store_true",
        help="also train on the segments of every long negative text, as the scanner scores them",
    )
    parser.add_argument("--out", metavar="PATH", default=str(OUT), help="where --write puts the weights")
    parser.add_argument("--dump", metavar="PATH", help="also pickle the parts and out-of-author scores to PATH")
    args = parser.parse_args()
    parts = {name: load(path) for name, path in AUTHORS.items()}
    ordinary = ordinary_texts()
    old = rules_at(args.rules_from) if args.rules_from else None
    scores: dict[str, np.ndarray[Any, Any]] = {}
    for name, items in parts.items():
        train = [x for other, xs in parts.items() if other != name for x in xs] + ordinary
        scores[name] = scanner_scores(fit(train, args.segments), [t for _, t, _, _ in items])
    if args.dump:
        with open(args.dump, "wb") as fh:
            pickle.dump((parts, scores), fh)
    # The threshold: over the pooled out-of-author scores, the model adds at most BENIGN_BUDGET of
    # the benign texts to those the rules flag. (Round 3 took the highest of per-author thresholds
    # at 0.5 % each; with five authors that let one hard negative of one author set it, 4.3, where
    # the pooled rule gives about 3.5: 72 % instead of 69 % of heldout3's injections, benign unchanged.)
    pooled = [
        s for name, xs in parts.items() for x, s in zip(xs, scores[name], strict=True) if x[0] == "benign" and not x[3]
    ]
    free = np.sort(pooled)[::-1]
    allowed = int(BENIGN_BUDGET * sum(x[0] == "benign" for xs in parts.values() for x in xs))
    threshold = float(free[allowed]) + 1e-6 if allowed < len(free) else float(free[-1])
    print(f"threshold (logit) {threshold:.3f}, {allowed} benign texts allowed of the pooled out-of-author scores\n")
    print(
        "| left-out author | injections | rules | model alone | rules + model | benign | rules flagged "
        "| model alone flagged | rules + model flagged |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, items in parts.items():
        if old is not None:
            items = [(lst, text, y, hit) for (lst, text, y, _), hit in zip(items, old[name], strict=True)]
        inj = [(x, s) for x, s in zip(items, scores[name], strict=True) if x[0] == "injections"]
        ben = [(x, s) for x, s in zip(items, scores[name], strict=True) if x[0] == "benign"]
        r_inj = sum(x[3] for x, _ in inj)
        m_inj = sum(x[3] or s >= threshold for x, s in inj)
        r_ben = sum(x[3] for x, _ in ben)
        m_ben = sum(x[3] or s >= threshold for x, s in ben)
        a_inj = sum(s >= threshold for _, s in inj)
        a_ben = sum(s >= threshold for _, s in ben)
        print(
            f"| {name} | {len(inj)} | {r_inj} ({r_inj / len(inj):.1%}) | {a_inj} ({a_inj / len(inj):.1%}) "
            f"| {m_inj} ({m_inj / len(inj):.1%}) | {len(ben)} | {r_ben} ({r_ben / len(ben):.1%}) "
            f"| {a_ben} ({a_ben / len(ben):.1%}) | {m_ben} ({m_ben / len(ben):.1%}) |"
        )
        for x, s in ben:
            if s >= threshold and not x[3]:
                print(f"  model flags benign ({s:.2f}): {x[1][:110]!r}")
    if args.write:
        model = fit([x for xs in parts.values() for x in xs] + ordinary, args.segments)
        out = Path(args.out)
        out.parent.mkdir(exist_ok=True)
        coef = model.coef_[0]
        np.savez_compressed(
            out,
            weights=coef[: 1 << BITS].astype(np.float16),
            concept_names=np.array("\n".join(CONCEPTS)),
            concept_weights=(coef[1 << BITS :] * CONCEPT_SCALE).astype(np.float32),
            bias=np.float32(model.intercept_[0]),
            threshold=np.float32(threshold),
        )
        print(f"\nwrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
