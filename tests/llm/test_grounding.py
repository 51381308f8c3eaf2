"""The grounding check: what a model writes may only restate its source."""

from __future__ import annotations

import pytest

from trusted_memory.grounding import SUMMARY_FRAMING, check_grounded, is_placeholder
from trusted_memory.llm.jobs import PROMPT_EXAMPLES

SOURCE = [
    "I'm rolling out the inventory service next week, but not a canary this time: a blue-green switch.",
    "The service is written in Go 1.22 and talks to Postgres through pgx.",
    "How do I run a multi-row insert in one statement?",
]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("The user asked about a multi-row transaction in Go 16.", "number '16'"),  # the issue's own cases
        ("The user asked about mksql for the inventory service.", "'mksql'"),
        ("The user planned the inventory rollout with a canary.", "content words"),
        ("The user planned the inventory service switch with a canary.", "affirms 'canary'"),
        ("The user runs the service on Kubernetes.", "name 'kubernetes'"),
        ("", "empty"),
        ("...", "placeholder"),
        ("…", "placeholder"),
        ("string", "placeholder"),
        ("The user …", "placeholder"),
        ("I prefer tabs over spaces", "example"),
    ],
)
def test_invented_placeholder_and_echoed_text_fails(text: str, why: str) -> None:
    verdict = check_grounded(text, SOURCE, framing=SUMMARY_FRAMING, echoes=PROMPT_EXAMPLES)
    assert not verdict.ok and why in verdict.reason, verdict


@pytest.mark.parametrize(
    "text",
    [
        "The user planned a blue-green switch for the inventory service, not a canary.",
        "The user asked how to run a multi-row insert in one statement with Go 1.22 and Postgres.",
        "The service talks to Postgres through pgx.",
    ],
)
def test_a_faithful_retelling_passes(text: str) -> None:
    assert check_grounded(text, SOURCE, framing=SUMMARY_FRAMING, echoes=PROMPT_EXAMPLES).ok


def test_an_example_the_user_really_said_is_not_an_echo() -> None:
    assert check_grounded(
        "I prefer tabs over spaces", ["Honestly, I prefer tabs over spaces."], echoes=PROMPT_EXAMPLES
    ).ok


def test_a_negated_statement_of_what_the_user_affirmed_fails() -> None:
    verdict = check_grounded("I do not use Postgres", ["I use Postgres for billing."])
    assert not verdict.ok and "negates" in verdict.reason


@pytest.mark.parametrize("text", ["", "  ", "...", "[...]", "<project> …", "N/A", "TODO"])
def test_placeholders(text: str) -> None:
    assert is_placeholder(text)


def test_real_short_text_is_not_a_placeholder() -> None:
    assert not is_placeholder("staging deploy") and not is_placeholder("I use pgx.")
