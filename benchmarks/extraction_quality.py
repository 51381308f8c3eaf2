"""Quality of the rule-based atom extractor (llm.provider = none) on the labelled message set.

    python benchmarks/extraction_quality.py [--set tests/data/extraction_set.jsonl] [--quiet]

Every message of the set goes through `trusted_memory.heuristics.extract`. An extracted atom matches
an expected one when the types agree (decision ~ convention ~ fact and goal ~ intent count as equal)
and every `contains` word occurs in its text, case-insensitively.

precision       extracted atoms that match some expected atom / all extracted atoms
recall          expected atoms matched by some extracted atom / all expected atoms
false-extract   expect-nothing messages that produced any atom / all expect-nothing messages

Prints a markdown table, the time per message, then every miss and every unexpected atom.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import ROOT, load_jsonl, machine, table, today

from trusted_memory.heuristics import Extracted, extract

SET = ROOT / "tests" / "data" / "extraction_set.jsonl"
_SAME = {"decision": "rule", "convention": "rule", "fact": "rule", "goal": "aim", "intent": "aim"}


def matches(atom: Extracted, expected: dict[str, object]) -> bool:
    """Whether an extracted atom satisfies one expected {type, contains} entry."""
    kind = str(expected["type"])
    if _SAME.get(atom.type, atom.type) != _SAME.get(kind, kind):
        return False
    text = atom.text.casefold()
    return all(str(word).casefold() in text for word in expected["contains"])  # type: ignore[attr-defined]


def evaluate(path: Path) -> tuple[dict[str, float], list[str], float]:
    """Scores, a list of human-readable misses, and microseconds per message."""
    rows = load_jsonl(path)
    extracted = hit_atoms = expected_n = found_n = empty_n = false_n = 0
    misses: list[str] = []
    started = time.perf_counter()
    results = [extract(str(row["message"])) for row in rows]
    per_message_us = (time.perf_counter() - started) / max(1, len(rows)) * 1e6
    for row, atoms in zip(rows, results):
        expected: list[dict[str, object]] = row["expected"]  # type: ignore[assignment]
        message = " ".join(str(row["message"]).split())[:90]
        extracted += len(atoms)
        for atom in atoms:
            if any(matches(atom, e) for e in expected):
                hit_atoms += 1
            else:
                misses.append(f"- extra   [{atom.type}] {atom.text!r}  ← {message!r}")
        for e in expected:
            expected_n += 1
            if any(matches(atom, e) for atom in atoms):
                found_n += 1
            else:
                misses.append(f"- missed  [{e['type']}] {e['contains']}  ← {message!r}")
        if not expected:
            empty_n += 1
            false_n += bool(atoms)
    scores = {
        "messages": float(len(rows)),
        "expect_nothing": float(empty_n),
        "precision": hit_atoms / extracted if extracted else 1.0,
        "recall": found_n / expected_n if expected_n else 1.0,
        "false_extraction": false_n / empty_n if empty_n else 0.0,
    }
    return scores, misses, per_message_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=SET, help="a JSONL file of {message, expected}")
    parser.add_argument("--quiet", action="store_true", help="only the table")
    args = parser.parse_args()
    scores, misses, us = evaluate(args.set)
    print(f"Extraction quality (heuristic, no model) — {machine()}, {today()}\n")
    print(
        table(
            ("messages", "expect nothing", "precision", "recall", "false-extraction rate", "µs/message"),
            [
                (
                    int(scores["messages"]),
                    int(scores["expect_nothing"]),
                    scores["precision"],
                    scores["recall"],
                    scores["false_extraction"],
                    f"{us:.0f}",
                )
            ],
        )
    )
    if not args.quiet and misses:
        print(f"\n{len(misses)} misses and unexpected atoms:\n")
        print("\n".join(misses))


if __name__ == "__main__":
    main()
