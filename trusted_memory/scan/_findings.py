"""What the scanner reports: the finding kinds, the ``Finding`` record, and de-duplicated collection."""

from __future__ import annotations

from dataclasses import dataclass

INVISIBLE = "invisible_unicode"
BIDI = "bidi_control"
TAGS = "tag_characters"
CONFUSABLE = "confusable_mixed_script"
INJECTION = "prompt_injection"
CREDENTIAL = "credential"
KINDS = (INVISIBLE, BIDI, TAGS, CONFUSABLE, INJECTION, CREDENTIAL)


@dataclass(frozen=True, slots=True)
class Finding:
    """One suspicious span of scanned text: its kind, a safe human-readable detail and offsets."""

    kind: str
    detail: str
    start: int
    end: int


def add_finding(findings: list[Finding], kind: str, detail: str, start: int, end: int) -> None:
    # Several rules often match one phrase; the first (most specific) one wins.
    for f in findings:
        if f.kind == kind and f.start < end and start < f.end:
            return
    findings.append(Finding(kind, detail, start, end))
