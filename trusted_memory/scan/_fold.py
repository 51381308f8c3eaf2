"""Character folding: what each code point reads as, for matching (see ``_normalize``).

The table is computed lazily per code point and cached, so folding a text is one C-level
``str.translate`` call once the characters it uses have been seen.
"""

from __future__ import annotations

import unicodedata

_LINE_BREAKS = {0x2028: "\n", 0x2029: "\n", 0x85: "\n"}
# Invisible letters (category Lo) that render as nothing: Hangul fillers and the Khmer inherent vowels.
_INVISIBLE_LETTERS = frozenset((0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0))
_EXTRA_LOOKALIKES = {"ɑ": "a", "ɡ": "g", "ı": "i", "ȷ": "j", "ɩ": "i", "ʋ": "u", "ɒ": "a"}


def _small_capitals() -> dict[str, str]:
    # "LATIN LETTER SMALL CAPITAL R" etc. live in IPA Extensions, Phonetic Extensions and Latin Extended-D.
    out: dict[str, str] = {}
    for lo, hi in ((0x0250, 0x02AF), (0x1D00, 0x1DBF), (0xA720, 0xA7FF)):
        for cp in range(lo, hi + 1):
            name = unicodedata.name(chr(cp), "")
            if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == len("LATIN LETTER SMALL CAPITAL X"):
                out[chr(cp)] = name[-1].lower()
    return out


def _fold_char(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x80:
        return ch
    if 0xE0020 <= cp <= 0xE007E:
        return chr(cp - 0xE0000)  # a tag character spells the ASCII character it shadows
    if ch in _LOOKALIKE_LETTERS:
        return _LOOKALIKE_LETTERS[ch]
    if cp in _LINE_BREAKS:
        return _LINE_BREAKS[cp]
    category = unicodedata.category(ch)
    if category == "Zs":
        return " "
    if category in ("Cf", "Mn", "Me") or cp in _INVISIBLE_LETTERS:
        return ""
    decomposed = unicodedata.normalize("NFKD", ch)
    if decomposed == ch:
        return ch
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me"))
    # NFKD of a few symbols yields spaces or tag-like marks; fold those results once more.
    return unicodedata.normalize("NFC", "".join(_fold_char(c) if c != ch else c for c in kept))


class _FoldTable(dict[int, str]):
    """A ``str.translate`` table that computes each code point's fold on first sight."""

    # A hostile client can send every code point once; past this many entries the cache restarts.
    LIMIT = 100_000

    def __missing__(self, cp: int) -> str:
        if len(self) > self.LIMIT:
            self.clear()
        value = _fold_char(chr(cp))
        self[cp] = value
        return value


_LOOKALIKE_LETTERS = {**_small_capitals(), **_EXTRA_LOOKALIKES}
FOLD = _FoldTable()


def fold_pattern(source: str) -> str:
    """Fold the non-ASCII characters of a lexicon word or regex source the way texts are folded."""
    return source if source.isascii() else source.translate(FOLD)
