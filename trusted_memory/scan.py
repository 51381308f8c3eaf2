"""Pure content scanner: reports hidden Unicode, look-alike words, injection markers and secrets.

Every write to memory is scanned (DESIGN.md §3); callers decide whether a finding rejects a fact
or quarantines an atom. The scanner only reports, and it is tuned for the write path: ASCII text
skips the Unicode checks; a rule runs only when its trigger words are in the text's word set, and
then only at or around the offsets of those words, so a typical 2 KB note scans in well under
0.1 ms. Patterns compile lazily on first use so that importing this module stays cheap.

Precision is preferred on injection markers: people discuss "system prompts", "instructions" and
"assistants" all the time, so a rule fires on phrases that address an AI ("ignore your previous
instructions"), not on vocabulary. Details never echo a secret; at most the public prefix of a key
format ("sk-…") is shown.

This module is the public facade; the checks live in scan_unicode (hidden characters, look-alike
scripts), scan_injection (+ scan_injection_checks) and scan_credentials, all built on the shared
rule engine in scan_rules and the ``Finding`` record in scan_findings.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .scan_credentials import _credential_findings
from .scan_findings import INJECTION, KINDS, Finding, _add
from .scan_injection import _INJECTION_RULES, _squashed_injection
from .scan_rules import _lower, _Text
from .scan_unicode import (
    _CONFUSABLE_MAP,
    _confusable_findings,
    _hidden_findings,
    strip_invisible,
)

__all__ = ["KINDS", "Finding", "describe", "normalize_for_dedup", "redact_credentials", "scan", "strip_invisible"]


def scan(text: str) -> tuple[Finding, ...]:
    """Return every finding in ``text``, in text order; an empty tuple means the text is clean."""
    if not text:
        return ()
    findings: list[Finding] = []
    if not text.isascii():  # hidden characters and look-alike letters are all non-ASCII
        findings.extend(_hidden_findings(text))
        findings.extend(_confusable_findings(text))
    low = _lower(text)
    t = _Text(text, low)
    for rule, m in _INJECTION_RULES.run(t):
        _add(findings, INJECTION, f"{rule.label} at offset {m.start()}", m.start(), m.end())
    _squashed_injection(low, findings)
    findings.extend(_credential_findings(text, t))
    findings.sort(key=lambda f: (f.start, f.end))
    return tuple(findings)


def describe(findings: Sequence[Finding]) -> str:
    """Summarise findings on one line (first detail per kind, with a count of the rest), ≤200 chars."""
    if not findings:
        return "no findings"
    by_kind: dict[str, list[Finding]] = {}
    for f in findings:
        by_kind.setdefault(f.kind, []).append(f)
    parts = []
    for kind, group in by_kind.items():
        more = f" (+{len(group) - 1} more)" if len(group) > 1 else ""
        parts.append(f"{kind}: {group[0].detail}{more}")
    line = " ".join("; ".join(parts).split())  # details are single-line, but never trust that
    return line if len(line) <= 200 else line[:199] + "…"


def normalize_for_dedup(text: str) -> str:
    """Fold a text so invisible-character and homoglyph variants compare equal to the plain text."""
    folded = strip_invisible(unicodedata.normalize("NFKC", text))
    folded = " ".join(folded.translate(_CONFUSABLE_MAP).casefold().split())
    end = len(folded)
    while end and (folded[end - 1].isspace() or unicodedata.category(folded[end - 1]).startswith("P")):
        end -= 1
    return folded[:end]


def redact_credentials(text: str) -> str:
    """The text with every credential the scanner finds replaced by a marker (for transcripts kept a while)."""
    spans = [(f.start, f.end) for f in scan(text) if f.kind == "credential"]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "[redacted credential]" + text[end:]
    return text
