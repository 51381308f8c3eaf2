"""CPU time of the heuristic text paths and the scanner on adversarial inputs up to the observe size limit.

    python benchmarks/pathological_inputs.py [--only SUBSTRING] [--repeat N] [--no-scan]

Each input of tests/data/pathological_inputs.json (its parts repeated, cut to 64 KiB of UTF-8) goes
through every function `observe` runs on a user message, one call each, timed with
`time.process_time` (CPU, so a busy neighbour on the shared VM does not count):

strip        heuristics.strip_untrusted(text)
extract      heuristics.extract(text)                       (strips again, splits, classifies)
note         heuristics.note_category(text)                 (observe calls it per sentence; one line is the worst case)
summary      heuristics.summarize_turns([user, assistant])  (the same text as both turns)
one_line     heuristics.one_line(text)
user model   states_style + infer_user_state + follow_up_intents + first_pronoun + next_step
scan         scan.scan(text)                                (the scanner, measured here, owned elsewhere)

Target (issue 14): no single call over 250 ms of CPU; the heuristic calls should be far below.
With --repeat N each cell is the minimum of N runs. Prints a markdown table and the worst cell.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, machine, table, today

from trusted_memory.heuristics import extract, note_category, one_line, strip_untrusted, summarize_turns
from trusted_memory.heuristics.anticipation import first_pronoun, follow_up_intents, next_step
from trusted_memory.heuristics.user_state import infer_user_state, states_style
from trusted_memory.scan import scan_fresh as scan  # timed: no memo

INPUTS = ROOT / "tests" / "data" / "pathological_inputs.json"
TARGET_MS = 250.0


def load(path: Path = INPUTS) -> list[tuple[str, str]]:
    """(name, text) for every input: parts concatenated, cut to the size limit at a character boundary."""
    data = json.loads(path.read_text())
    limit = int(data["max_bytes"])
    out = []
    for entry in data["inputs"]:
        text = "".join(str(part) * int(count) for part, count in entry["parts"])
        out.append((str(entry["name"]), text.encode()[:limit].decode(errors="ignore")))
    return out


def _user_model(text: str) -> object:
    states_style(text)
    infer_user_state([text] * 5, [], None)  # five messages: the measured patterns run too
    follow_up_intents(text, [text], 3)
    first_pronoun(text)
    return next_step([text])


CALLS: dict[str, Callable[[str], object]] = {
    "strip": strip_untrusted,
    "extract": extract,
    "note": note_category,
    "summary": lambda t: summarize_turns([("user", t), ("assistant", t)]),
    "one_line": one_line,
    "user model": _user_model,
}


def cpu_ms(fn: Callable[[str], object], text: str, repeat: int) -> float:
    """The least CPU milliseconds of `repeat` calls."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn(text)
        best = min(best, (time.process_time() - started) * 1000)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only inputs whose name contains this")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the minimum is shown")
    parser.add_argument("--no-scan", action="store_true", help="skip the scanner column")
    args = parser.parse_args()
    calls = dict(CALLS)
    if not args.no_scan:
        calls["scan"] = scan
    rows = []
    worst = (0.0, "", "")
    for name, text in load():
        if args.only not in name:
            continue
        cells = {label: cpu_ms(fn, text, args.repeat) for label, fn in calls.items()}
        heuristics = max(v for k, v in cells.items() if k != "scan")
        for label, ms in cells.items():
            if ms > worst[0]:
                worst = (ms, name, label)
        rows.append((name, len(text), *(f"{cells[k]:.1f}" for k in calls), f"{heuristics:.1f}"))
    print(f"Pathological inputs, CPU ms per call — {machine()}, {today()}\n")
    print(table(("input", "chars", *calls, "max heuristic"), rows))
    verdict = "✅" if worst[0] <= TARGET_MS else "❌"
    print(f"\nworst call: {worst[0]:.1f} ms ({worst[2]} on {worst[1]!r}); target ≤ {TARGET_MS:.0f} ms {verdict}")


if __name__ == "__main__":
    main()
