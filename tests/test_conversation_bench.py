"""benchmarks/conversation_recall.py, run end to end on one tiny synthetic conversation: the
instrument must not break silently (its numbers are the benchmark's; here only that it measures)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # the script imports its sibling _common as scripts do
    try:
        return importlib.import_module("conversation_recall")
    finally:
        sys.path.remove(str(BENCHMARKS))


def synthetic(bench: ModuleType) -> Any:
    def session(n: int, day: str, pairs: list[tuple[str, str]]) -> dict[str, Any]:
        turns = []
        for i, (user, assistant) in enumerate(pairs):
            turns.append({"id": f"syn-s{n:02d}-t{2 * i + 1:02d}", "role": "user", "time": day, "text": user})
            turns.append({"id": f"syn-s{n:02d}-t{2 * i + 2:02d}", "role": "assistant", "time": day, "text": assistant})
        return {"session": n, "started_at": day, "turns": turns}

    doc = {
        "id": "syn",
        "user": "Ana",
        "about": "a synthetic conversation",
        "sessions": [
            session(
                1,
                "2024-03-01T10:00:00",
                [
                    ("hi! my sister Marta just moved to Denver for a nursing job", "Big move! How is she finding it?"),
                    ("she loves it. the snow not so much lol", "Ha, it takes getting used to."),
                    ("I always drink oat milk in my coffee, never cow's milk", "Noted: oat milk."),
                ],
            ),
            session(
                2,
                "2024-03-09T18:30:00",
                [
                    ("I decided to learn the cello this spring", "Lovely. Have you found a teacher?"),
                    ("yes, twice a week at the community music school", "That is a good pace."),
                    ("ok thanks!", "Any time."),
                ],
            ),
        ],
    }
    questions = [
        {"id": "syn-q1", "question": "where did Marta move to?", "evidence": ["syn-s01-t01"], "kind": "person"},
        {
            "id": "syn-q2",
            "question": "what milk do I take in coffee?",
            "evidence": ["syn-s01-t05"],
            "kind": "preference",
        },
        {"id": "syn-q3", "question": "which instrument am I learning?", "evidence": ["syn-s02-t01"], "kind": "plan"},
    ]
    return bench.parse_conversation(doc, questions)


def test_the_matcher_rules(bench: ModuleType) -> None:
    bench.check_matcher()


def test_ranks_count_distinct_turns_and_the_merge_adds_only_new_turns(bench: ModuleType) -> None:
    def hit(kind: str, hid: str, *turns: str) -> dict[str, Any]:
        return {"kind": kind, "id": hid, "turns": dict.fromkeys(turns, "turn")}

    hits = [hit("atom", "a", "t1"), hit("atom", "b", "t1"), hit("episode", "e", "t2", "t3"), hit("atom", "c", "t4")]
    assert bench.rank_of(hits, ["t3"]) == (2, 3, "turn")  # t1 counts once; t2 and t3 share a rank
    assert bench.rank_of(hits, ["t4"]) == (4, 4, "turn")
    assert bench.rank_of(hits, ["t9"]) == (None, None, None)
    merged = bench.merge(hits[:1], [hit("atom", "a", "t1"), hit("episode", "e", "t1"), hit("episode", "f", "t5")])
    assert [h["id"] for h in merged] == ["a", "f"]


def test_parse_rejects_evidence_that_is_not_a_user_turn(bench: ModuleType) -> None:
    doc = {
        "id": "x",
        "sessions": [{"session": 1, "turns": [{"id": "x-s01-t01", "role": "user", "time": "", "text": "hi"}]}],
    }
    with pytest.raises(ValueError, match="not a user turn"):
        bench.parse_conversation(doc, [{"id": "q", "question": "?", "evidence": ["x-s01-t02"], "kind": "event"}])


@pytest.mark.anyio
async def test_every_mode_runs_through_the_tool_and_finds_plain_evidence(bench: ModuleType, tmp_path: Path) -> None:
    conv = synthetic(bench)
    assert [t.number for t in conv.turns] == [1, 3, 5, 1, 3, 5]
    assert conv.turns[0].session_id == "syn-s01" and conv.turns[0].reply == "Big move! How is she finding it?"
    run = await bench.run_conversation(conv, bench.MODES, bench.RunConfig(), tmp_path)
    by_mode: dict[str, dict[str, Any]] = {}
    for r in run.results:
        by_mode.setdefault(r.mode, {})[r.id] = r
    assert sorted(by_mode) == sorted(bench.MODES) and all(len(v) == 3 for v in by_mode.values())
    # Every turn stored, each hit mapped back through its atom id; a plainly worded question is found.
    assert run.loads["verbatim"].statuses["added"] == 6 and run.loads["verbatim"].counts["atoms_live"] == 6
    for mode in ("verbatim", "keyword", "hybrid"):
        assert by_mode[mode]["syn-q1"].rank == 1, mode
        assert by_mode[mode]["syn-q1"].evidence_rule == "atom_id"
    assert [r.rank for r in by_mode["hybrid"].values()] == [r.rank for r in by_mode["verbatim"].values()]
    assert run.keyword_weights["keyword"] == 1.0 and run.keyword_weights["vector"] == 0.0
    # observe: six turns observed, two sessions ended; every hit is mapped by one of the rules.
    observe = run.loads["observe"]
    assert observe.calls == 6 and observe.end_calls == 2 and not observe.errors and observe.timestamps in (True, False)
    rules = {rule for r in by_mode["observe"].values() for h in r.hits for rule in h["turns"].values()}
    assert rules <= {"turn", "span6", "content60"}
    text = bench.report(
        [conv], bench.MODES, run.results, {k: [v] for k, v in run.loads.items()}, {}, "hash", bench.RunConfig()
    )
    assert "| verbatim |" in text and "Per kind" in text and "turn times passed as `timestamp`" in text


@pytest.mark.parametrize(
    ("folder", "min_questions"),
    [
        ("conversations", 400),
        ("conversations_heldout", 150),
        ("conversations_heldout2", 150),
        ("conversations_heldout3", 150),
        ("conversations_heldout4", 150),
        ("conversations_heldout5", 150),
        ("conversations_heldout6", 150),
        ("conversations_heldout7", 150),
        ("conversations_heldout8", 150),
        ("conversations_heldout9", 150),
    ],
)
def test_each_committed_set_loads_with_the_shape_the_issue_asks(
    bench: ModuleType, folder: str, min_questions: int
) -> None:
    conversations = bench.load_conversations(BENCHMARKS / "data" / folder)
    assert len(conversations) >= (6 if folder == "conversations" else 3)
    assert sum(len(conv.questions) for conv in conversations) >= min_questions
