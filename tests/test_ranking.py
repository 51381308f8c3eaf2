"""Ranking: how keyword evidence is read when it is fused with meaning, and each query's keyword weight."""

from __future__ import annotations

import pytest

from trusted_memory.queries import AtomFilter
from trusted_memory.ranking import (
    KEYWORD_PIVOT,
    KEYWORD_WEIGHT_BOUNDS,
    fused_keyword,
    fused_keyword_weight,
    keyword_part,
    keyword_share,
    query_information,
)
from trusted_memory.services.recall_types import (
    LEADER_SHARE,
    Candidate,
    Plan,
    RecallQuery,
    Scored,
    keep_leaders,
    list_leaders,
)


def test_fused_keyword_evidence_is_half_relative_half_absolute() -> None:
    information = query_information([1, 400], 1000)  # one rare term, one common
    best = 0.9 * information
    # The best match of the query counts fully on the relative half, by its share on the other.
    assert fused_keyword(best, best, information) == pytest.approx(0.5 + 0.5 * 0.9)
    # A match half as strong as the best: half of each reading.
    half = best / 2
    assert fused_keyword(half, best, information) == pytest.approx(
        0.5 * keyword_part(half, best) + 0.5 * keyword_share(half, information)
    )
    # A weak best match (a common word only) is not full evidence, as the relative reading alone would say.
    weak = 0.1 * information
    assert fused_keyword(weak, weak, information) == pytest.approx(0.55)
    assert fused_keyword(0.0, best, information) == 0.0


def test_a_query_whose_rare_words_a_memory_holds_leans_on_keywords() -> None:
    configured = 0.4
    assert fused_keyword_weight(configured, KEYWORD_PIVOT) == pytest.approx(configured)
    rare_name_matched = fused_keyword_weight(configured, 1.0)
    common_words_only = fused_keyword_weight(configured, 0.05)
    assert common_words_only < configured < rare_name_matched
    assert rare_name_matched == pytest.approx(configured + 0.4 * (1.0 - KEYWORD_PIVOT))
    # Always strictly between the bounds: both signals stay in play.
    low, high = KEYWORD_WEIGHT_BOUNDS
    assert fused_keyword_weight(0.95, 1.0) == high
    assert fused_keyword_weight(0.05, 0.0) == low


def test_one_signal_alone_keeps_its_weight() -> None:
    # keyword_weight 1.0 and 0.0 are how a client asks for keyword-only or vector-only ranking.
    assert fused_keyword_weight(1.0, 0.0) == 1.0
    assert fused_keyword_weight(0.0, 1.0) == 0.0


def test_a_plan_weighs_keywords_by_its_best_match() -> None:
    plan = Plan(
        RecallQuery("which lumberyard had the cherry"), "q", ["lumberyard", "cherry"], AtomFilter(), False, 40, True
    )
    plan.has_vector = True
    assert plan.keyword_weight(0.4) == pytest.approx(fused_keyword_weight(0.4, 0.0))  # nothing matched yet
    plan.information = 10.0
    plan.best_keyword = 9.0
    assert plan.keyword_weight(0.4) == pytest.approx(fused_keyword_weight(0.4, 0.9))
    assert plan.keyword_weight(1.0) == 1.0
    plan.has_vector = False  # the embedder is down: keyword evidence alone
    assert plan.keyword_weight(0.4) == 1.0
    vector_only = Plan(RecallQuery("x", mode="vector"), "x", ["x"], AtomFilter(), False, 40, True, has_vector=True)
    assert vector_only.keyword_weight(0.4) == 0.0


def scored_list(n: int) -> list[Scored]:
    return [Scored(num, 1.0 - num / 100, 0.5, 0.5, "") for num in range(n)]


def test_each_list_s_best_keeps_a_place_in_the_results() -> None:
    candidates = {
        1: Candidate(1, keyword=2.0, cosine=0.3),
        15: Candidate(15, keyword=9.0),
        20: Candidate(20, cosine=0.8),
    }
    assert list_leaders(candidates) == [15, 20]
    assert list_leaders({3: Candidate(3, keyword=4.0, cosine=0.9)}) == [3]  # one memory leads both lists
    assert list_leaders({3: Candidate(3)}) == []
    items = scored_list(30)
    keep_leaders(items, [15, 20], 10)
    # The two leaders take the last places (in score order); the eight best others keep theirs.
    assert [item.num for item in items[:10]] == [0, 1, 2, 3, 4, 5, 6, 7, 15, 20]
    assert [item.num for item in items[10:13]] == [8, 9, 10]  # the displaced come next
    assert sorted(item.num for item in items) == list(range(30))  # nothing is lost
    # A leader already in the first k moves nowhere.
    items = scored_list(30)
    keep_leaders(items, [3, 12], 10)
    assert [item.num for item in items[:10]] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 12]


def test_short_result_lists_give_up_at_most_one_place_in_five() -> None:
    for k, lifted in ((LEADER_SHARE - 1, 0), (LEADER_SHARE, 1), (2 * LEADER_SHARE, 2)):
        items = scored_list(30)
        keep_leaders(items, [25, 28], k)
        assert [item.num for item in items[:k]] == [*range(k - lifted), 25, 28][:k]
    items = scored_list(5)
    keep_leaders(items, [25], 10)  # fewer hits than places: nothing to do
    assert [item.num for item in items] == [0, 1, 2, 3, 4]
