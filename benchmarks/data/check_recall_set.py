"""Validate the recall benchmark set and print its statistics.

Usage: python benchmarks/data/check_recall_set.py  (exit status 1 on any problem)
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEMORY_TYPES = {
    "preference",
    "fact",
    "decision",
    "goal",
    "convention",
    "intent",
    "file",
    "error",
    "question",
    "reference",
    "note",
}
KINDS = {"paraphrase", "lexical", "temporal", "multi"}
MIN_MEMORIES = 520
MIN_QUESTIONS = 520
MIN_LOW_OVERLAP = 0.40

# A standard English stop-word list (NLTK-like) plus contraction fragments; "content word"
# means any other lower-cased word token.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "let's",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
    ]
)
_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def content_words(text: str) -> set[str]:
    """Lower-cased non-stop-word tokens of ``text`` (possessive 's dropped)."""
    words = set()
    for w in _WORD_RE.findall(text.replace("\u2019", "'").lower()):
        if w.endswith("'s"):
            w = w[:-2]
        if w not in STOP_WORDS:
            words.add(w)
    return words


def load(name: str) -> list[dict[str, object]]:
    """Read one JSONL file of the set."""
    with open(HERE / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> int:
    """Validate both files, print stats, return the exit status."""
    mems = load("recall_memories.jsonl")
    qs = load("recall_questions.jsonl")
    problems: list[str] = []
    mem_by_id = {str(m["id"]): m for m in mems}
    if len(mem_by_id) != len(mems):
        problems.append("duplicate memory ids")
    if len({q["id"] for q in qs}) != len(qs):
        problems.append("duplicate question ids")
    if len({str(m["text"]).strip().lower() for m in mems}) != len(mems):
        problems.append("duplicate memory texts")
    for m in mems:
        n_words = len(str(m["text"]).split())
        if m["type"] not in MEMORY_TYPES:
            problems.append(f"{m['id']}: bad type {m['type']!r}")
        if not isinstance(m["days_ago"], int) or not 0 <= m["days_ago"] <= 400:
            problems.append(f"{m['id']}: days_ago out of range")
        if not isinstance(m["tags"], list):
            problems.append(f"{m['id']}: tags must be a list")
        if not 6 <= n_words <= 70:
            problems.append(f"{m['id']}: {n_words} words")
    low = 0
    overlaps: list[int] = []
    per_kind: Counter[str] = Counter()
    low_per_kind: Counter[str] = Counter()
    for q in qs:
        answers = q["answers"]
        assert isinstance(answers, list)
        if not 1 <= len(answers) <= 2:
            problems.append(f"{q['id']}: {len(answers)} answers")
        if q["kind"] not in KINDS:
            problems.append(f"{q['id']}: bad kind {q['kind']!r}")
        missing = [a for a in answers if a not in mem_by_id]
        if missing:
            problems.append(f"{q['id']}: unknown answers {missing}")
            continue
        qw = content_words(str(q["question"]))
        # Overlap with the best-matching answer: the question is low-overlap only if it
        # shares at most one content word with every labelled answer.
        ov = max(len(qw & content_words(str(mem_by_id[a]["text"]))) for a in answers)
        overlaps.append(ov)
        per_kind[str(q["kind"])] += 1
        if ov <= 1:
            low += 1
            low_per_kind[str(q["kind"])] += 1
    frac = low / len(qs) if qs else 0.0
    if len(mems) < MIN_MEMORIES:
        problems.append(f"only {len(mems)} memories (< {MIN_MEMORIES})")
    if len(qs) < MIN_QUESTIONS:
        problems.append(f"only {len(qs)} questions (< {MIN_QUESTIONS})")
    if frac < MIN_LOW_OVERLAP:
        problems.append(f"low-overlap fraction {frac:.1%} < {MIN_LOW_OVERLAP:.0%}")
    answered = {a for q in qs for a in q["answers"]}  # type: ignore[attr-defined]
    lengths = sorted(len(str(m["text"]).split()) for m in mems)
    print(
        f"memories: {len(mems)}  (answer of some question: {len(answered)}, distractor-only: "
        f"{len(mems) - len(answered)})"
    )
    print(f"memory words: min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}")
    print("memory types: " + ", ".join(f"{k} {v}" for k, v in Counter(m["type"] for m in mems).most_common()))
    print(f"questions: {len(qs)}  kinds: " + ", ".join(f"{k} {v}" for k, v in per_kind.most_common()))
    print(f"multi-answer questions: {sum(len(q['answers']) > 1 for q in qs)}")  # type: ignore[arg-type]
    print(f"low-overlap (<= 1 shared content word): {low}/{len(qs)} = {frac:.1%}")
    print("  by kind: " + ", ".join(f"{k} {low_per_kind[k]}/{v}" for k, v in per_kind.most_common()))
    print("content-word overlap histogram: " + ", ".join(f"{k}:{v}" for k, v in sorted(Counter(overlaps).items())))
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
