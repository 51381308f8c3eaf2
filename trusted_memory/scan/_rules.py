"""The pattern-rule engine the injection and credential scanners share.

A rule is a labelled regex gated by trigger words and run only around its pivots, so a typical
note costs a set intersection rather than dozens of full-text regex searches. Patterns compile
lazily on first use so that importing the scanner stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from ._fold import fold_pattern


@cache
def compile_rx(source: str, flags: int = 0) -> re.Pattern[str]:
    # Compiling every pattern at import would cost milliseconds; each compiles on its first use.
    return re.compile(source, flags)


_Check = Callable[[re.Match[str]], bool]
# UTF-8 lead bytes of U+3000-U+DFFF and U+F000-U+FFFF (kana, CJK, Hangul, compatibility ideographs).
# Testing bytes avoids a regex class whose BMP ranges would take ~10 ms to compile.
_NOT_CJK_LEAD = bytes(b for b in range(256) if not (0xE3 <= b <= 0xED or b == 0xEF))
# ASCII punctuation and spaces become separators; UTF-8 bytes of other scripts stay inside words.
_WORD_BYTES = bytes(0x20 if b < 0x80 and not chr(b).isalnum() else b for b in range(256))
# Punctuation of other scripts that sits against a word ("¡Ignora", "«забудь»", "ተከተል።"): without it as
# a separator the word is not the gate term, and the rule never looks (round 11).
_MARKS = str.maketrans(dict.fromkeys("«»„“”‘’‚‹›¿¡·…—–።፦፣፤፥", " "))


class ScanText:
    """One scan's views of the text: lower-cased copy, word set and cached pivot offsets."""

    __slots__ = ("_cjk", "_seen", "_utf8", "_words", "low", "text")

    def __init__(self, text: str, low: str) -> None:
        self.text = text
        self.low = low
        self._utf8: bytes | None = None
        self._words: set[bytes] | None = None
        self._seen: dict[str, list[int]] = {}
        self._cjk: bool | None = None

    @property
    def has_cjk(self) -> bool:
        """Whether the text has kana, CJK ideographs or Hangul (whose rules match without spaces)."""
        if self._cjk is None:
            self._cjk = not self.low.isascii() and bool(self.utf8.translate(None, _NOT_CJK_LEAD))
        return self._cjk

    @property
    def utf8(self) -> bytes:
        """The lower-cased text as UTF-8 (lone surrogates kept, so any str encodes)."""
        if self._utf8 is None:
            self._utf8 = self.low.encode("utf-8", "surrogatepass")
        return self._utf8

    @property
    def words(self) -> set[bytes]:
        """The UTF-8 words of the lower-cased text, split at punctuation ("db_password": db, password; "¡ignora")."""
        if self._words is None:  # bytes.translate + split is ~3x faster than a regex split
            utf8 = self.utf8 if self.low.isascii() else self.low.translate(_MARKS).encode("utf-8", "surrogatepass")
            self._words = set(utf8.translate(_WORD_BYTES).split())
        return self._words

    def find(self, pivot: str) -> list[int]:
        """Return every offset of ``pivot`` (a lower-case substring) in the text."""
        found = self._seen.get(pivot)
        if found is None:
            # str.find is fastest for the usual few occurrences; thousands ("." or "sk-" repeated)
            # are collected by one regex pass (non-overlapping, which is all a pivot needs).
            if self.low.count(pivot) <= 64:
                found = []
                i = self.low.find(pivot)
                while i != -1:
                    found.append(i)
                    i = self.low.find(pivot, i + 1)
            else:
                found = [m.start() for m in compile_rx(re.escape(pivot)).finditer(self.low)]
            self._seen[pivot] = found
        return found


def _fold_all(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(fold_pattern(item) for item in items)


# Windows end this far past ``ahead`` so that lookaheads and "$" never see a cut-off text.
_MARGIN = 24
_MISS_BUDGET = 256


class Rule:
    """A labelled regex, gated by words/substrings and run only around its pivots.

    Searching a whole text with dozens of alternations costs ~50 ns per character each, so a rule
    runs only if every group in ``words`` meets the text's word set (or one of ``subs`` occurs), and
    then only around occurrences of its pivots (``at``; by default the first word group, matched as
    whole words, plus ``subs``). An ``anchored`` rule's matches start at a pivot; otherwise a match
    starts at most ``back`` characters before a pivot and ends within ``ahead`` after it. Patterns
    run on the lower-cased text unless ``on_text``; ``whole`` says explicit pivots are whole words.
    """

    __slots__ = (
        "_encoded",
        "_regex",
        "_whole",
        "ahead",
        "anchored",
        "at",
        "back",
        "check",
        "flags",
        "label",
        "locate",
        "on_text",
        "source",
        "subs",
        "words",
    )

    def __init__(
        self,
        label: str,
        source: str,
        *,
        words: tuple[str, ...] = (),
        subs: tuple[str, ...] = (),
        at: tuple[str, ...] = (),
        whole: bool = False,
        anchored: bool = False,
        back: int = 0,
        ahead: int = 300,
        on_text: bool = False,
        flags: int = re.MULTILINE,
        check: _Check | None = None,
        locate: str | None = None,
    ) -> None:
        # Rules match the folded view of a text (see _normalize), so their words are folded too.
        source, words, subs, at = fold_pattern(source), _fold_all(words), _fold_all(subs), _fold_all(at)
        self.label = label
        self.source = source
        self.words = tuple(frozenset(group.encode().split()) for group in words)
        self.subs = subs
        self.at = at or (*(words[0].split() if words else ()), *subs)
        # Default pivots are the trigger words, matched whole: skip str.find when the word set lacks one.
        self._whole = frozenset(at if whole else () if at else words[0].split() if words else ())
        self._encoded = {a: a.encode() for a in self._whole}
        self.anchored = anchored
        self.back = back
        self.ahead = ahead
        self.on_text = on_text
        self.flags = flags
        self.check = check
        self.locate = locate
        self._regex: re.Pattern[str] | None = None

    def matches(self, t: ScanText, limit: int | None = None) -> list[re.Match[str]]:
        """Return the accepted matches (offsets are shared by the text and its lower-cased copy).

        ``limit`` stops after that many accepted matches (reporting needs a few, redaction all).
        """
        for group in self.words[1:]:  # the first group (or a sub) already triggered this rule
            if group.isdisjoint(t.words):
                return []
        words = t.words
        if self.locate is not None:  # pivots found by a regex, for formats with no distinctive literal
            hay = t.text if self.on_text else t.low
            starts = [m.start() for m in compile_rx(self.locate, self.flags).finditer(hay)]
        else:
            starts = sorted(p for a in self.at if a not in self._whole or self._encoded[a] in words for p in t.find(a))
        if not starts:
            return []
        if self._regex is None:
            self._regex = compile_rx(self.source, self.flags)
        hay = t.text if self.on_text else t.low
        out: list[re.Match[str]] = []
        if self.anchored:  # every match starts at a pivot: try only those offsets
            done = misses = 0
            for k, p in enumerate(starts):
                if p < done:
                    continue
                if misses > _MISS_BUDGET:
                    # Thousands of pivots that lead nowhere ("ignore ignore …", "sk-sk-…") cost a
                    # Python-level match each: past a budget, one regex pass finds the rest.
                    out += self._pivot_matches(self._regex, hay, set(starts[k:]), p, limit and limit - len(out))
                    break
                m = self._regex.match(hay, p, min(p + self.ahead + _MARGIN, len(hay)))
                if m is None or m.end() == m.start():
                    misses += 1
                    continue
                if self.check is None or self.check(m):
                    out.append(m)
                    if len(out) == limit:
                        break
                    done = m.end()
                else:
                    misses += 1
                    done = m.end() if misses > _MISS_BUDGET else done
            return out
        lo, hi = max(0, starts[0] - self.back), starts[0] + self.ahead
        for p in [*starts[1:], -1]:
            if p != -1 and p - self.back <= hi:  # overlapping windows are searched once
                hi = p + self.ahead
                continue
            for m in self._regex.finditer(hay, lo, min(hi + _MARGIN, len(hay))):
                if m.end() > m.start() and (self.check is None or self.check(m)):
                    out.append(m)
                    if len(out) == limit:
                        return out
            if p != -1:
                lo, hi = max(0, p - self.back), p + self.ahead
        return out

    def _pivot_matches(
        self, regex: re.Pattern[str], hay: str, pivots: set[int], start: int, limit: int | None
    ) -> list[re.Match[str]]:
        # Accepted matches that start at a pivot, from one finditer (matches never overlap here, as
        # in the per-pivot loop, which skips pivots inside an accepted match).
        out: list[re.Match[str]] = []
        for m in regex.finditer(hay, start):
            if m.start() in pivots and m.end() > m.start() and (self.check is None or self.check(m)):
                out.append(m)
                if len(out) == limit:
                    break
        return out


class RuleSet:
    """Rules in priority order, with an index from trigger words and substrings to rules.

    Asking each of ~50 rules whether it applies costs more than scanning a short text, so one set
    intersection of the text's words with all trigger words picks the few rules worth running.
    """

    __slots__ = ("_by_cjk_sub", "_by_sub", "_by_word", "_trigger_words", "rules")

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules
        self._by_word: dict[bytes, list[int]] = {}
        self._by_sub: list[tuple[str, int]] = []
        self._by_cjk_sub: list[tuple[str, int]] = []  # searched only in text that has CJK characters
        for i, rule in enumerate(rules):
            for word in rule.words[0] if rule.words else ():
                self._by_word.setdefault(word, []).append(i)
            for sub in rule.subs:
                (self._by_cjk_sub if sub >= "\u3000" else self._by_sub).append((sub, i))
        self._trigger_words = frozenset(self._by_word)

    def run(self, t: ScanText, limit: int | None = None) -> list[tuple[Rule, re.Match[str]]]:
        """Return (rule, match) for the accepted matches of every triggered rule (at most ``limit`` each)."""
        active = {i for sub, i in self._by_sub if sub in t.low}
        if t.has_cjk:
            active.update(i for sub, i in self._by_cjk_sub if sub in t.low)
        for word in self._trigger_words.intersection(t.words):
            active.update(self._by_word[word])
        return [(self.rules[i], m) for i in sorted(active) for m in self.rules[i].matches(t, limit)]


def lower_aligned(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):  # e.g. "İ" lowers to two code points; keep offsets aligned
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low
