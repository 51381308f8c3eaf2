"""Obfuscated overrides: letter-spaced, punctuated or leetspeak phrases, matched on a squashed copy."""

from __future__ import annotations

from bisect import bisect_right

from ._rules import Rule, ScanText, compile_rx

_KEPT = r"[^\x00-\x7f]|[A-Za-z0-9@$]"  # what the squashed copy keeps of the lower-cased text

# Letter-spaced, punctuated or leetspeak variants ("I g n o r e  a l l  p r e v i o u s …",
# "ignore_previous_instructions", "1gn0re a11") are matched on a squashed copy: lower-cased, look-alikes
# mapped to Latin, everything but letters and digits removed. Only long phrases are used there, since
# word boundaries are gone; their letters accept the usual digit stand-ins (1gn0re).
_LEET = str.maketrans({"a": "[a4]", "e": "[e3]", "i": "[i1]", "l": "[l1]", "o": "[o0]", "s": "[s5]", "t": "[t7]"})
_UNLEET = str.maketrans("013457", "oieast")  # only to find pivots; the regex itself accepts both
_SQUASH_DELETE = bytes(b for b in range(128) if not chr(b).isalnum() and chr(b) not in "@$")
_SQUASHED = Rule(
    "instruction override (obfuscated with spacing or punctuation)",
    (
        r"(?:ignore|disregard|forget|override|bypass|discard)(?:all|any|every|of|the|your|these|those|everything)*"
        r"(?:previous|prior|above|earlier|preceding|system|safety|original|initial|your)+"
        r"(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|programming|commands)"
        r"|(?:reveal|print|show|output|repeat|leak|dump|display)(?:me)?(?:your(?:full|entire|hidden|secret|initial"
        r"|original)*(?:systemprompt|instructions|prompt)|the(?:full|entire|hidden|secret|initial|original)*"
        r"systemprompt)"
        r"|youarenow(?:dan|unrestricted|jailbroken|unfiltered|uncensored|indevelopermode|freefrom)"
        r"|jailbreakmode"
    ).translate(_LEET),
    subs=(
        "ignor",
        "disregard",
        "forget",
        "overrid",
        "bypass",
        "discard",
        "reveal",
        "print",
        "show",
        "output",
        "repeat",
        "leak",
        "dump",
        "display",
        "youarenow",
        "jailbreakmode",
    ),
    anchored=True,
    ahead=160,
    on_text=True,
    flags=0,
)


def _unleet(text: str) -> str:
    if text.isascii():
        return text.translate(_UNLEET)
    for digit, letter in zip("013457", "oieast", strict=True):
        text = text.replace(digit, letter)
    return text


_SQUASHED_NOUNS = (
    "instruct",
    "prompt",
    "rules",
    "directive",
    "guideline",
    "guardrail",
    "programming",
    "command",
    "youarenow",
    "jailbreakmode",
)


def squashed_injection(low: str, limit: int | None = None) -> list[tuple[str, int, int]]:
    """(label, start, end) of each obfuscated override in a lower-cased view (offsets of that view)."""
    # Only ASCII separators are removed (bytes.translate is fast; str.translate is not, off ASCII).
    raw = low.encode("utf-8", "surrogatepass").translate(None, _SQUASH_DELETE)
    squashed = raw.decode("utf-8", "surrogatepass").replace("@", "a").replace("$", "s")
    view = _unleet(squashed)
    if not any(stem in view for stem in _SQUASHED_NOUNS):  # cheap pre-check before 17 pivot searches
        return []
    hits = _SQUASHED.matches(ScanText(squashed, view), limit)
    if not hits:
        return []
    kept = _KeptIndex(low)
    return [(_SQUASHED.label, kept.offset(m.start()), kept.offset(m.end() - 1) + 1) for m in hits]


class _KeptIndex:
    """Maps offsets of the squashed copy back to the lower-cased text, per block of 1024 characters."""

    def __init__(self, low: str) -> None:
        self._low = low
        self._counts = [0]  # kept characters before each block
        for b in range(0, len(low), 1024):
            block = low[b : b + 1024].encode("utf-8", "surrogatepass").translate(None, _SQUASH_DELETE)
            self._counts.append(self._counts[-1] + len(block.decode("utf-8", "surrogatepass")))

    def offset(self, squashed: int) -> int:
        """The offset in the text of the kept character at ``squashed``."""
        k = bisect_right(self._counts, squashed) - 1
        base, seen = k * 1024, self._counts[k]
        for m in compile_rx(_KEPT).finditer(self._low, base, base + 1024):
            if seen == squashed:
                return m.start()
            seen += 1
        return len(self._low)
