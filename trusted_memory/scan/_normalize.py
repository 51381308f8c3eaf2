"""The folded view every rule matches against, and the map from its offsets back to the text.

Attackers spell phrases so that they read the same but compare differently: no-break or
ideographic spaces between words, fullwidth or mathematical letters, small capitals, Cyrillic
look-alikes inside Latin words, zero-width characters or soft hyphens inside words, combining
accents on every letter, text hidden in Unicode tag characters. Rules therefore never see the
raw text but a folded copy of it:

* every Unicode space becomes " " and line/paragraph separators become "\\n";
* format characters (Cf), combining marks (Mn/Me) and other invisible fillers are removed;
* tag characters U+E0020-E007E become the ASCII they encode (so a smuggled phrase is matched);
* NFKD compatibility decomposition, minus the marks, then NFC: fullwidth, mathematical and
  circled letters become ASCII, accents go ("règles" → "regles", "İ" → "I"), Hangul recomposes;
* small capitals and a few Latin look-alikes (ɑ, ɡ, ı) become their ASCII letters;
* in a word that mixes Latin with Cyrillic/Greek letters, the look-alikes become Latin.

Lexicon words and regex sources are folded the same way (``fold_pattern``), so a rule can be
written with natural spelling. The hidden-character and look-alike checks still run on the raw
text and report what they find there; the fold only decides what the words say.

Folding can drop or expand characters, so a ``View`` keeps the way back: ``span(start, end)``
turns offsets of the folded text into offsets of the scanned text, which is what a ``Finding``
reports (and what ``redact_credentials`` cuts).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from itertools import chain, repeat

from ._fold import FOLD
from ._rules import compile_rx, lower_aligned

Mapper = Callable[[int, int], tuple[int, int]]

# Cyrillic and Greek letters that render like Latin ones (a subset of Unicode confusables.txt).
CONFUSABLE_MAP = str.maketrans(
    "аеорсухіјѕһԁԛԝӏѵүАВЕКМНОРСТХІЈЅҮԚԜҺӀαγικνορυχϲϳΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijshdqwlvyABEKMHOPCTXIJSYQWHIayikvopuxcjABEZHIKMNOPTYX",
)
# A Latin letter touching a Cyrillic/Greek one (either order): every mixed word contains one.
SCRIPT_SEAM = (
    "[A-Za-z\u00c0-\u024f\u1e00-\u1eff][\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff]"
    "|[\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff][A-Za-z\u00c0-\u024f\u1e00-\u1eff]"
)


def _unmix_words(folded: str) -> str:
    # Only words that mix scripts are mapped: "Привет" stays Russian, "рауpal" becomes "paypal".
    seam = compile_rx(SCRIPT_SEAM)
    m = seam.search(folded)
    if m is None:
        return folded
    parts: list[str] = []
    done = 0
    while m is not None:
        start, end = m.start(), m.end()
        floor, ceiling = max(done, start - 64), min(len(folded), end + 64)  # words, not 64k-letter runs
        while start > floor and folded[start - 1].isalpha():
            start -= 1
        while end < ceiling and folded[end].isalpha():
            end += 1
        parts.append(folded[done:start])
        parts.append(folded[start:end].translate(CONFUSABLE_MAP))
        done = end
        m = seam.search(folded, end)
    parts.append(folded[done:])
    return "".join(parts)


class View:
    """A text as the rules see it: folded (``text``), lower-cased (``low``), and the way back.

    ``span`` maps offsets of the view to offsets of the text it was made from; a decoded view
    (see ``_decode``) maps onto the encoded span it came from.
    """

    __slots__ = ("_index", "_mapper", "_source", "low", "text")

    def __init__(self, text: str, low: str, source: str | None = None, mapper: Mapper | None = None) -> None:
        self.text = text
        self.low = low
        self._source = source  # the unfolded text, when folding changed character counts
        self._index: _BlockIndex | None = None
        self._mapper = mapper

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The offsets in the scanned text of the view's characters ``start:end``."""
        if self._source is not None:
            index = self._index
            if index is None:
                index = self._index = _BlockIndex(self._source)
            start, end = index.source_offset(start), index.source_offset(max(start, end - 1)) + 1
        if self._mapper is not None:
            start, end = self._mapper(start, end)
        return start, end

    def masked(self, spans: list[tuple[int, int]]) -> View:
        """The same view with the characters of ``spans`` blanked out; offsets are unchanged."""
        text, low = list(self.text), list(self.low)
        for start, end in spans:
            text[start:end] = low[start:end] = " " * (end - start)
        return View("".join(text), "".join(low), self._source, self._mapper)


_BLOCK = 512
_FEW_LOOKUPS = 64


class _BlockIndex:
    """Maps folded offsets to source offsets: folded lengths per block of 512 source characters.

    Built only when a finding needs mapping; one lookup is a bisect and at most one block walked,
    so a text with many findings costs O(n + findings × 512), not a 64k-entry list per scan.
    """

    __slots__ = ("_full", "_lookups", "_source", "_starts")

    def __init__(self, source: str) -> None:
        self._source = source
        self._starts = [0]  # folded offset at the start of each block
        for b in range(0, len(source), _BLOCK):
            self._starts.append(self._starts[-1] + len(source[b : b + _BLOCK].translate(FOLD)))
        self._lookups = 0
        self._full: list[int] | None = None

    def source_offset(self, folded: int) -> int:
        """The offset of the source character that folded character ``folded`` came from."""
        self._lookups += 1
        if self._lookups > _FEW_LOOKUPS:  # many findings (a repeated key): one full index is cheaper
            if self._full is None:
                self._full = _full_index(self._source)
            return self._full[min(folded, len(self._full) - 1)]
        k = bisect_right(self._starts, folded) - 1
        if k >= len(self._starts) - 1:
            return len(self._source)
        pos, base = self._starts[k], k * _BLOCK
        for j, ch in enumerate(self._source[base : base + _BLOCK]):
            pos += len(FOLD[ord(ch)]) if ord(ch) >= 0x80 else 1
            if folded < pos:
                return base + j
        return min(base + _BLOCK, len(self._source))


def _full_index(source: str) -> list[int]:
    # For each folded character the offset of its source character, plus one entry past the end.
    lengths = [len(FOLD[o]) if o >= 0x80 else 1 for o in map(ord, source)]
    index = list(chain.from_iterable(map(repeat, range(len(source)), lengths)))
    index.append(len(source))
    return index


def fold_view(text: str, mapper: Mapper | None = None) -> View:
    """The folded, lower-cased view of ``text``; ``mapper`` maps its offsets further back."""
    if text.isascii():
        return View(text, text.lower(), None, mapper)
    folded = _unmix_words(text.translate(FOLD))
    # Equal lengths can still hide a drop and an expansion that cancel out; the index handles both.
    source = None if len(folded) == len(text) and _one_to_one(text) else text
    return View(folded, lower_aligned(folded), source, mapper)


def _one_to_one(text: str) -> bool:
    # Every character folded to exactly one character (the table is warm: text.translate just ran).
    return all(len(FOLD[ord(c)]) == 1 for c in set(text) if ord(c) >= 0x80)
