"""What the scanner reports: the finding kinds, the ``Finding`` record, and de-duplicated collection."""

from __future__ import annotations

from bisect import bisect_left
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


class FindingSet:
    """The findings of one scan; of overlapping spans of one kind the first (most specific) is kept.

    Accepted spans of a kind never overlap, so an overlap test looks only at the two neighbours
    of a new span in start order: adding n findings costs O(n log n), not O(n²), which matters
    for a hostile text that repeats a phrase thousands of times.
    """

    __slots__ = ("_spans", "items")

    def __init__(self) -> None:
        self.items: list[Finding] = []
        self._spans: dict[str, tuple[list[int], list[int]]] = {}

    def add(self, kind: str, detail: str, start: int, end: int) -> None:
        """Add a finding unless a kept finding of the same kind overlaps it."""
        starts, ends = self._spans.setdefault(kind, ([], []))
        i = bisect_left(starts, start)
        if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
            return
        starts.insert(i, start)
        ends.insert(i, end)
        self.items.append(Finding(kind, detail, start, end))
