"""Issue 14, finding 8: no adversarial input up to the observe size limit makes a heuristic call slow.

The inputs are the benchmark's (tests/data/pathological_inputs.json; `python
benchmarks/pathological_inputs.py` prints the figures, far below 250 ms each). The bound here is
generous so a loaded machine never fails it, and still catches a quadratic pattern: the two inputs
from the issue took 10 s and 110 s of CPU in extract before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from trusted_memory.heuristics import attribute, extract, note_category, one_line, summarize_turns
from trusted_memory.heuristics.anticipation import first_pronoun, follow_up_intents, next_step
from trusted_memory.heuristics.user_state import infer_user_state, states_style

BOUND_S = 2.0
DATA = json.loads((Path(__file__).parents[1] / "data" / "pathological_inputs.json").read_text())


def _build(entry: dict[str, object]) -> str:
    parts: list[list[object]] = entry["parts"]  # type: ignore[assignment]
    text = "".join(str(part) * int(str(count)) for part, count in parts)
    return text.encode()[: int(DATA["max_bytes"])].decode(errors="ignore")


CALLS: dict[str, Callable[[str], object]] = {
    "attribute": attribute,
    "extract": extract,
    "note_category": note_category,
    "summarize_turns": lambda t: summarize_turns([("user", t), ("assistant", t)]),
    "one_line": one_line,
    "states_style": states_style,
    "infer_user_state": lambda t: infer_user_state([t] * 5, [t], None),
    "follow_up_intents": lambda t: follow_up_intents(t, [t], 3),
    "first_pronoun": first_pronoun,
    "next_step": lambda t: next_step([t]),
}


@pytest.mark.parametrize("entry", [pytest.param(e, id=str(e["name"])) for e in DATA["inputs"]])
def test_no_heuristic_call_is_slow_on_adversarial_input(entry: dict[str, object]) -> None:
    text = _build(entry)
    assert len(text.encode()) <= DATA["max_bytes"]
    slow = {}
    for name, fn in CALLS.items():
        started = time.process_time()
        fn(text)
        spent = time.process_time() - started
        if spent > BOUND_S:
            slow[name] = round(spent, 2)
    assert not slow, f"CPU seconds over {BOUND_S}: {slow}"


def test_the_inputs_reach_the_size_limit() -> None:
    sizes = [len(_build(e).encode()) for e in DATA["inputs"]]
    assert max(sizes) == DATA["max_bytes"] and len(sizes) >= 30
