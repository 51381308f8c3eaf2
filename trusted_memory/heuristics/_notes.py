"""Session notes: filing one line into a note category (decision, context, progress, issue, learnings).

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import re

from trusted_memory.text import content_terms

from ._rules import ERR_TOKEN
from ._sentences import normalize_clause

# A note is one line, previewed at 300 characters; its category comes from its start.
MAX_NOTE_CHARS = 1000

_NOTE_LEARN = re.compile(
    r"\b(?:turns out|turned out|til|today i learned|i learned|we learned|learned that|learnt|lessons? learned"
    r"|the (?:root )?cause (?:was|is)|root cause|note to self|it was because|was caused by|realized|realised"
    r"|found out|the trick (?:is|was)|gotcha|the fix (?:is|was) to|apparently|it seems that)\b"
)
_NOTE_DECISION = re.compile(
    r"\b(?:decided|decide to|chose|chosen|we'll use|will use|going with|go with|agreed|settled on|let's use"
    r"|switched to|switching to|picked|opted|decision|we'll go|sticking with)\b"
)
_NOTE_PROGRESS = re.compile(
    r"\b(?:done|finished|completed|fixed|implemented|merged|passing|passes|pass now|shipped|released|resolved"
    r"|landed|added|works now|working now|green|closed|refactored|migrated|set up|published|upgraded"
    r"|(?:i|we|just|successfully|has been|have)\s+deployed)\b"
)
_NOTE_ISSUE = re.compile(
    r"\b(?:error|errors|exception|traceback|fail|fails|failing|failed|failure|broken|breaks|broke|blocked"
    r"|blocker|blocking|bug|bugs|crash|crashes|crashed|regression|flaky|timeout|timed out|doesn't work"
    r"|not working|stuck|issue|issues|problem|wrong|panic|segfault|oom|leak|can't|won't)\b"
)
_NOTE_NEGATED = re.compile(r"\b(?:not|n't|still|never|no longer|yet|again)\b")
_NOTE_CONTEXT = re.compile(
    r"\b(?:uses|using|we use|is written in|runs on|deployed (?:on|to)|hosted|deadline|due|requirement|requires"
    r"|must support|constraint|the repo|the project|our stack|is on port|version|lives in|the team|customer"
    r"|client|budget|depends on|backed by|background|for context|we have|there are|there is|the api|the app)\b"
)


def note_category(text: str) -> str | None:
    """The session-note category of one line: decision, context, progress, issue, learnings, or None."""
    text = text[:MAX_NOTE_CHARS]
    low = normalize_clause(text)
    if not low or len(content_terms(low)) < 2:
        return None
    issue = _NOTE_ISSUE.search(low) is not None or ERR_TOKEN.search(text) is not None
    if _NOTE_LEARN.search(low):
        return "learnings"
    if low.endswith("?"):
        return "issue" if issue else None  # a question is only worth a note when it names a problem
    if _NOTE_DECISION.search(low):
        return "decision"
    if _NOTE_PROGRESS.search(low) and not _NOTE_NEGATED.search(low):
        return "progress"
    if issue:
        return "issue"
    if _NOTE_CONTEXT.search(low):
        return "context"
    return None
