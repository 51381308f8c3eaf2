"""Relative time in what people say, resolved against when they said it."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from trusted_memory.timeref import asks_when, label_refs, query_range, resolve

MONDAY = datetime(2023, 5, 8, 14, 0)  # a Monday


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I went to the support group yesterday", "yesterday = 2023-05-07"),
        ("saw her last friday", "last friday = 2023-05-05"),
        ("we met on Friday", "on Friday = 2023-05-05"),  # past tense: the Friday before
        ("gonna see mom on Sunday", "on Sunday = 2023-05-14"),  # future: the coming Sunday
        ("a couple of days ago", "a couple of days ago = 2023-05-06"),
        ("two weeks ago we moved", "two weeks ago = 2023-04-24..2023-04-30"),
        ("next month I start a new job", "next month = 2023-06"),
        ("last summer was rough", "last summer = 2022-06-01..2022-08-31"),
        ("in March I started painting", "in March = 2023-03"),
        ("I'll do it this weekend", "this weekend = 2023-05-13..2023-05-14"),
        ("the interview is on the 24th", "on the 24th = 2023-05-24"),
        ("my birthday is June 3", "June 3 = 2023-06-03"),
        ("since 2021 I've been vegan", "since 2021 = 2021"),
    ],
)
def test_phrases_resolve_against_the_moment_they_were_said(text: str, label: str) -> None:
    assert label_refs(resolve(text, MONDAY)) == f" ({label})"


@pytest.mark.parametrize("text", ["Friday's standup is cancelled", "i monitor the sat data", "we may go", "ok"])
def test_words_that_only_look_like_dates_resolve_to_nothing(text: str) -> None:
    assert resolve(text, MONDAY) == []


def test_a_question_names_a_span_and_when_questions_are_recognised() -> None:
    asked = datetime(2026, 12, 1, 9, 0)
    assert query_range("what did I do last May?", asked) == (date(2026, 5, 1), date(2026, 5, 31))
    assert query_range("what happened two weeks ago", asked) == (date(2026, 11, 16), date(2026, 11, 22))
    assert query_range("what's my sister's name?", asked) is None
    assert asks_when("when did I start painting?") and not asks_when("what did I paint?")


def test_resolving_is_linear_on_long_text() -> None:
    import time

    text = "last friday and yesterday, on the 3rd of May 2023; " * 2000
    started = time.process_time()
    refs = resolve(text, MONDAY)
    assert refs and time.process_time() - started < 1.0
