"""Unicode tricks: hidden (invisible, bidi, tag) characters and words mixing look-alike scripts.

Both checks only apply to non-ASCII text. ``strip_invisible`` and the look-alike map are also
used to fold text for de-duplication.
"""

from __future__ import annotations

import re
import unicodedata

from ._credentials import credential_findings
from ._findings import BIDI, CONFUSABLE, INVISIBLE, TAGS, Finding
from ._normalize import CONFUSABLE_MAP, SCRIPT_SEAM, fold_view
from ._rules import compile_rx

# --- hidden Unicode -------------------------------------------------------------------------------

# Every general-category Cf character of Unicode 14 (Python 3.11), minus the Arabic/Syriac/Kaithi
# "prepended concatenation marks" (U+0600-0605, 06DD, 070F, 0890-0891, 08E2, 110BD, 110CD), which
# render visibly. Plus invisible non-Cf characters used to hide text: combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels and variation selectors (legitimate only singly after a base).
_BMP_CLASS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
)
_SUSPICIOUS = (
    f"[{_BMP_CLASS}\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Without astral ranges the class compiles to a bitmap lookup: ~5x faster on non-Latin text.
_SUSPICIOUS_BMP = f"[{_BMP_CLASS}]"


def _suspicious(text: str) -> re.Pattern[str]:
    # UTF-16 is longer than two bytes a character only if the text has astral (non-BMP) characters.
    astral = len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)
    return compile_rx(_SUSPICIOUS if astral else _SUSPICIOUS_BMP)


_BIDI_CODEPOINTS = frozenset((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))
_TAG_RUN = "[\U000e0000-\U000e007f]+"
_TAG_TO_ASCII = {cp: cp - 0xE0000 for cp in range(0xE0000, 0xE0080)}
# A subdivision flag (England, Scotland, Wales): black flag, 2-6 tag letters/digits, cancel tag.
_FLAG_TAGS = "[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f"


# LRM, RLM and ALM are the intended way to place a Latin word or a number in Hebrew or Arabic text.
_MARKS = frozenset((0x061C, 0x200E, 0x200F))
_RIGHT_TO_LEFT = "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]"


def _beside_right_to_left(text: str, i: int) -> bool:
    # A mark directly before or after a Hebrew/Arabic character (or its punctuation) is typography.
    rtl = compile_rx(_RIGHT_TO_LEFT)
    return any(0 <= j < len(text) and rtl.match(text, j) is not None for j in (i - 1, i + 1))


def _is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _is_emoji(ch: str) -> bool:
    # Approximates Extended_Pictographic, which unicodedata does not expose.
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2190 <= cp <= 0x2BFF
        or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)
    )


def _is_joining_script(ch: str) -> bool:
    # Arabic-script (Persian, Urdu) and Indic text use ZWNJ/ZWJ as ordinary spelling.
    cp = ord(ch)
    return 0x0600 <= cp <= 0x08FF or 0x0900 <= cp <= 0x0DFF or 0xFB50 <= cp <= 0xFDFF or 0xFE70 <= cp <= 0xFEFC


def _legit_joiner(text: str, i: int, cp: int) -> bool:
    if i == 0:
        return False
    j = i - 1
    if j > 0 and text[j] in "\ufe0e\ufe0f":
        j -= 1
    prev, nxt = text[j], text[i + 1] if i + 1 < len(text) else ""
    if cp == 0x200D and nxt and _is_emoji(prev) and _is_emoji(nxt):
        return True
    # Malayalam chillu letters end a word in virama + ZWJ, so only the letter before must be in-script.
    return _is_joining_script(prev)


def _hyphenation_point(text: str, i: int) -> bool:
    # Only one soft hyphen, between two letters: runs of them, or one between words, hide nothing
    # a reader would miss but are no typography either. Matching folds it away in any case.
    return 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()


def _hidden_chars(text: str, *, for_strip: bool = False) -> list[tuple[str, int, int]]:
    """Return (kind, start, end) for each run of hidden characters that are not a legitimate use."""
    out: list[tuple[str, int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if out and out[-1][0] == kind and out[-1][2] == start:
            out[-1] = (kind, out[-1][1], end)  # adjacent characters of one kind are one run
        else:
            out.append((kind, start, end))

    pos = 0
    search = _suspicious(text).search
    while (m := search(text, pos)) is not None:
        i = m.start()
        cp = ord(text[i])
        pos = i + 1
        if 0xE0000 <= cp <= 0xE007F:
            run = compile_rx(_TAG_RUN).match(text, i)
            end = run.end() if run is not None else i + 1
            pos = end
            if not (i > 0 and text[i - 1] == "\U0001f3f4" and compile_rx(_FLAG_TAGS).fullmatch(text, i, end)):
                add(TAGS, i, end)
        elif cp in _BIDI_CODEPOINTS:
            if not (cp in _MARKS and _beside_right_to_left(text, i)):
                add(BIDI, i, i + 1)
        elif _is_variation_selector(cp):
            # One selector after a visible base picks a glyph (emoji/text style, CJK variants);
            # runs of them carry no glyph meaning and are a known byte-smuggling channel.
            prev = text[i - 1] if i else ""
            if not prev or prev.isspace() or compile_rx(_SUSPICIOUS).match(prev) is not None:
                add(INVISIBLE, i, i + 1)
        elif cp in (0x200C, 0x200D) and _legit_joiner(text, i, cp):
            continue
        elif cp == 0xFEFF and i == 0 and not for_strip:
            continue  # a leading byte-order mark is an encoding artefact, not a hiding place
        elif cp == 0x00AD and not for_strip and _hyphenation_point(text, i):
            continue  # a soft hyphen between letters is a hyphenation point (CMS and PDF exports)
        elif cp == 0x200B and not for_strip and _lone_beside_space(text, i):
            continue  # one zero-width space next to a space (copied from a web page) splits no word
        else:
            add(INVISIBLE, i, i + 1)
    return out


def _lone_beside_space(text: str, i: int) -> bool:
    before = text[i - 1] if i else " "
    after = text[i + 1] if i + 1 < len(text) else " "
    if before == "\u200b" or after == "\u200b":
        return False
    return (before.isspace() and not after.isspace() and after.isprintable()) or (
        after.isspace() and before.isprintable() and not before.isspace()
    )


def _char_label(ch: str) -> str:
    return f"{unicodedata.name(ch, 'format character').lower()} U+{ord(ch):04X}"


# Findings reported one by one per check; past this, one finding sums up the rest, because a
# hostile text can hide a character between every pair of letters (32k findings of 64 KiB).
MAX_REPORTED = 200


def hidden_findings(text: str) -> list[Finding]:
    runs = _hidden_chars(text)
    findings: list[Finding] = []
    for k, (kind, start, end) in enumerate(runs):
        if len(findings) == MAX_REPORTED:
            rest = sum(e - s for _, s, e in runs[k:])
            detail = f"{rest} more hidden characters from offset {start} to {runs[-1][2] - 1}"
            findings.append(Finding(kind, detail, start, runs[-1][2]))
            break
        if kind == TAGS:
            hidden = text[start:end].translate(_TAG_TO_ASCII)
            safe = compile_rx("[^\x20-\x7e]+").sub("", hidden)
            shown = safe[:40] + ("…" if len(safe) > 40 else "")
            if credential_findings(fold_view(safe)):
                shown = "[a credential]"
            detail = f"{end - start} tag characters hiding ASCII text {shown!r} at offset {start}"
        elif end - start == 1:
            detail = f"{_char_label(text[start])} at offset {start}"
        else:
            noun = "bidi controls" if kind == BIDI else "invisible characters"
            detail = f"{end - start} {noun} ({_char_label(text[start])}, …) at offset {start}"
        findings.append(Finding(kind, detail, start, end))
    return findings


def strip_invisible(text: str) -> str:
    """Remove invisible, bidi and tag characters, keeping emoji ZWJ/flag sequences and script joiners."""
    if text.isascii() or _suspicious(text).search(text) is None:
        return text
    kept, done = [], 0
    for _, start, end in _hidden_chars(text, for_strip=True):
        kept.append(text[done:start])
        done = end
    kept.append(text[done:])
    return "".join(kept)


# --- confusable mixed script ----------------------------------------------------------------------

_LOOKALIKES = frozenset(chr(cp) for cp in CONFUSABLE_MAP)
_REACH = 64


def _is_latin_letter(ch: str) -> bool:
    cp = ord(ch)
    return ch.isalpha() and (cp < 0x250 or 0x1E00 <= cp <= 0x1EFF)


# A text that names the trick ("a Cyrillic 'а'", "homoglyph attack", "IDN homograph") shows its
# look-alike word to the reader on purpose: a lesson, a support question, a slide. Injections
# spelled with look-alikes are still read through the folded view by every injection rule.
_NAMES_THE_TRICK = (
    r"\b(?:cyrillic|greek|homoglyphs?|homographs?|confusables?|look-?alikes?|mixed[\s-]script|idn)\b"
    r"|кирилл|латиниц"
)


def confusable_findings(text: str) -> list[Finding]:
    findings: list[Finding] = []
    pos = 0
    seam = compile_rx(SCRIPT_SEAM)
    while (m := seam.search(text, pos)) is not None:
        start, end = m.start(), m.end()
        if len(findings) == MAX_REPORTED:
            detail = f"more words mixing Latin with Cyrillic or Greek letters after offset {start}"
            findings.append(Finding(CONFUSABLE, detail, start, len(text)))
            break
        # A "word" of thousands of letters is no word anyone reads: look at most 64 letters each way.
        floor, ceiling = max(0, start - _REACH), min(len(text), end + _REACH)
        while start > floor and text[start - 1].isalpha():
            start -= 1
        while end < ceiling and text[end].isalpha():
            end += 1
        pos = end
        word = text[start:end]
        if not any(_is_latin_letter(c) for c in word) or not any(c in _LOOKALIKES for c in word):
            continue  # e.g. "10μs" or "Δt": Greek symbols next to Latin that nobody mistakes
        if not findings and compile_rx(_NAMES_THE_TRICK, re.IGNORECASE).search(text) is not None:
            return []  # looked for once, at the first look-alike word
        script = "Cyrillic" if any(0x0400 <= ord(c) <= 0x052F for c in word) else "Greek"
        looks = word.translate(CONFUSABLE_MAP)[:32]
        detail = f"word mixing Latin and {script} look-alike letters (reads as {looks!r}) at offset {start}"
        findings.append(Finding(CONFUSABLE, detail, start, end))
    return findings
