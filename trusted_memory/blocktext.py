"""Stored text inside a rendered memory block: one entry per line, no tag, heading or item of its own.

The `context` block, the prompts and the text resources are read by a model as structure: a line
that starts with `## ` is a section, `- ` an item, `</memory>` the end of the data. Stored text is
only ever data inside one attributed entry, so before it is rendered its line breaks are collapsed
into a visible mark (the entry stays one line), control characters are dropped, anything that reads
as a `<memory>` tag is defused (whatever its case, spacing, entity encoding, full-width or look-alike
brackets and hidden characters), and a stored line that has to start a line has its leading list or
heading marker escaped.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .scan import normalize_for_dedup

BREAK_MARK = " ⏎ "
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
# Brackets a reader takes for "<" or ">" that NFKC leaves alone.
_BRACKETS = str.maketrans(
    {
        "‹": "<",
        "«": "<",
        "〈": "<",
        "⟨": "<",
        "❮": "<",
        "❬": "<",
        "˂": "<",
        "ᐸ": "<",
        "⋖": "<",
        "›": ">",
        "»": ">",
        "〉": ">",
        "⟩": ">",
        "❯": ">",
        "❭": ">",
        "˃": ">",
        "ᐳ": ">",
        "⋗": ">",
        "⁄": "/",
        "∕": "/",
        "⧸": "/",
    }
)
# "<", "/" and ">" as written in HTML entities (also double-escaped), URL and JS/JSON escapes.
_ENTITY = r"&(?:amp;)*"
_OPEN = rf"(?:<|{_ENTITY}(?:lt;?|#0*60;?|#x0*3c;?)|%3c|\\u003c|\\x3c)"
_SLASH = rf"(?:/|{_ENTITY}(?:sol;|#0*47;?|#x0*2f;?)|%2f|\\u002f|\\/)"
_CLOSE = rf"(?:>|{_ENTITY}(?:gt;?|#0*62;?|#x0*3e;?)|%3e|\\u003e)"
_TAG = re.compile(rf"{_OPEN}\s*(?P<slash>{_SLASH}\s*)?memory(?![a-z0-9_])(?P<close>\s*{_CLOSE})?", re.IGNORECASE)
# What starts a heading, a list item, a quote, a table row or a tag in Markdown-ish text.
_MARKER = re.compile(r"(?:[#\-*+>|=~`_\[<•‣◦▪●○■□◆◇▶►➢➤→]|\d{1,9}[.)](?:\s|$))")


@functools.lru_cache(maxsize=8192)
def _fold(ch: str) -> str:
    """One character as a reader would see it: compatibility form, no marks, no hidden characters."""
    out = []
    for c in unicodedata.normalize("NFKD", ch.translate(_BRACKETS)):
        if unicodedata.category(c) in ("Mn", "Me", "Cf", "Cc"):
            continue
        if c.isalpha():
            c = normalize_for_dedup(c) or ""  # look-alike letters ("о" Cyrillic), invisible fillers
        out.append(c.translate(_BRACKETS))
    return "".join(out)


def _folded(text: str) -> tuple[str, list[int]]:
    """The folded text, and for each of its characters the index of the character it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        folded = _fold(ch)
        chars.append(folded)
        origin.extend([i] * len(folded))
    return "".join(chars), origin


def _neutral(match: re.Match[str]) -> str:
    return "[" + ("/" if match.group("slash") else "") + "memory" + ("]" if match.group("close") else "")


def defused(text: str) -> str:
    """The text with nothing left that a reader could take for a `<memory>` or `</memory>` tag."""
    for _ in range(3):  # a replacement cannot form a new tag, but the neighbours of one might
        if text.isascii():
            replaced = _TAG.sub(_neutral, text)
        else:
            folded, origin = _folded(text)
            spans = [(origin[m.start()], origin[m.end() - 1] + 1, _neutral(m)) for m in _TAG.finditer(folded)]
            replaced = text
            for start, end, neutral in reversed(spans):
                replaced = replaced[:start] + neutral + replaced[end:]
        if replaced == text:
            return text
        text = replaced
    return text


def inline(text: str) -> str:
    """Stored text as part of one entry line: breaks collapsed to a visible mark, controls dropped, defused."""
    parts = [part.strip() for part in text.splitlines()]
    flat = BREAK_MARK.join(part for part in parts if part)
    return defused(_CONTROLS.sub("", flat.replace("\t", " ")))


def stored_line(text: str) -> str:
    """Stored text that must start a line: inline, and a leading heading or item marker escaped."""
    flat = inline(text).lstrip()
    # Judged as a reader sees it, so a full-width "＃" or a hidden character first changes nothing.
    if _MARKER.match(_folded(flat[:16])[0].lstrip()):
        return "\\" + flat
    return flat
