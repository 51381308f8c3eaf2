"""note_category: a line filed into a session-note category."""

from __future__ import annotations

import pytest

from trusted_memory.heuristics import (
    note_category,
)


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("We decided to use JWT for auth", "decision"),
        ("we'll use redis for the queue", "decision"),
        ("The repo uses FastAPI and the deadline is Friday", "context"),
        ("The app is deployed on fly.io", "context"),
        ("Fixed the flaky upload test", "progress"),
        ("All tests passing now", "progress"),
        ("merged the PR", "progress"),
        ("The build is failing with TypeError", "issue"),
        ("Still broken after the fix", "issue"),
        ("Blocked on the API key from ops", "issue"),
        ("why is the build failing?", "issue"),
        ("Turns out the cause was a stale cache", "learnings"),
        ("TIL pytest has --lf", "learnings"),
        ("note to self: the staging db resets nightly", "learnings"),
        ("ok", None),
        ("thanks!", None),
        ("what should we name it?", None),
        ("sounds good to me", None),
    ],
)
def test_note_category(line: str, category: str | None) -> None:
    assert note_category(line) == category
