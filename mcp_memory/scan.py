"""Pure content scanner: reports hidden Unicode, look-alike words, injection markers and secrets.

Every write to memory is scanned (DESIGN.md §3); callers decide whether a finding rejects a fact
or quarantines an atom. The scanner only reports. It is tuned for the write path: ASCII text skips
the Unicode checks, and every injection or credential pattern is gated by plain substring tests on
the lower-cased text, so a typical 2 KB note costs tens of microseconds. Patterns compile lazily on
first use so that importing this module stays cheap.

Details never echo a secret; at most the public prefix of a key format ("sk-…") is shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["KINDS", "Finding", "describe", "normalize_for_dedup", "scan", "strip_invisible"]

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


# --- hidden Unicode -------------------------------------------------------------------------------

# Every general-category Cf character of Unicode 14 (Python 3.11), minus the Arabic/Syriac/Kaithi
# "prepended concatenation marks" (U+0600-0605, 06DD, 070F, 0890-0891, 08E2, 110BD, 110CD), which
# render visibly. Plus invisible non-Cf characters used to hide text: combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels and variation selectors (legitimate only singly after a base).
_SUSPICIOUS = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_BIDI_CODEPOINTS = frozenset((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
# A subdivision flag (England, Scotland, Wales): black flag, 2-6 tag letters/digits, cancel tag.
_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")


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
    if i == 0 or i + 1 >= len(text):
        return False
    j = i - 1
    if j > 0 and text[j] in "\ufe0e\ufe0f":
        j -= 1
    prev, nxt = text[j], text[i + 1]
    if cp == 0x200D and _is_emoji(prev) and _is_emoji(nxt):
        return True
    return _is_joining_script(prev) and _is_joining_script(nxt)


def _hidden_chars(text: str, *, for_strip: bool = False) -> list[tuple[str, int]]:
    """Return (kind, offset) for each hidden character that is not a legitimate use."""
    out: list[tuple[str, int]] = []
    pos = 0
    while (m := _SUSPICIOUS.search(text, pos)) is not None:
        i = m.start()
        cp = ord(text[i])
        pos = i + 1
        if 0xE0000 <= cp <= 0xE007F:
            run = _TAG_RUN.match(text, i)
            end = run.end() if run is not None else i + 1
            pos = end
            if not (i > 0 and text[i - 1] == "\U0001f3f4" and _FLAG_TAGS.fullmatch(text, i, end)):
                out.extend((TAGS, k) for k in range(i, end))
        elif cp in _BIDI_CODEPOINTS:
            out.append((BIDI, i))
        elif _is_variation_selector(cp):
            # One selector after a visible base picks a glyph (emoji/text style, CJK variants);
            # runs of them carry no glyph meaning and are a known byte-smuggling channel.
            prev = text[i - 1] if i else ""
            if not prev or prev.isspace() or _SUSPICIOUS.match(prev) is not None:
                out.append((INVISIBLE, i))
        elif cp in (0x200C, 0x200D) and _legit_joiner(text, i, cp):
            continue
        elif cp == 0xFEFF and i == 0 and not for_strip:
            continue  # a leading byte-order mark is an encoding artefact, not a hiding place
        else:
            out.append((INVISIBLE, i))
    return out


def _char_label(ch: str) -> str:
    return f"{unicodedata.name(ch, 'format character').lower()} U+{ord(ch):04X}"


def _hidden_findings(text: str) -> list[Finding]:
    chars = _hidden_chars(text)
    findings: list[Finding] = []
    k = 0
    while k < len(chars):
        kind, start = chars[k]
        end = start + 1
        while k + 1 < len(chars) and chars[k + 1] == (kind, end):
            k += 1
            end += 1
        k += 1
        if kind == TAGS:
            hidden = "".join(chr(ord(c) - 0xE0000) for c in text[start:end])
            safe = "".join(c for c in hidden if c.isprintable() and c.isascii())
            shown = safe[:40] + ("…" if len(safe) > 40 else "")
            if _credential_findings(safe):
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
    if text.isascii() or _SUSPICIOUS.search(text) is None:
        return text
    drop = {i for _, i in _hidden_chars(text, for_strip=True)}
    return "".join(ch for i, ch in enumerate(text) if i not in drop)


# --- confusable mixed script ----------------------------------------------------------------------

# Cyrillic and Greek letters that render like Latin ones (a subset of Unicode confusables.txt).
_CONFUSABLE_MAP = str.maketrans(
    "аеорсухіјѕһԁԛԝӏѵүАВЕКМНОРСТХІЈЅҮԚԜҺӀ" "αγικνορυχϲϳΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijshdqwlvyABEKMHOPCTXIJSYQWHI" "ayikvopuxcjABEZHIKMNOPTYX",
)
_LOOKALIKES = frozenset(chr(cp) for cp in _CONFUSABLE_MAP)
# A Latin letter touching a Cyrillic/Greek one (either order): every mixed word contains one.
_SCRIPT_SEAM = re.compile(
    "[A-Za-z\u00c0-\u024f\u1e00-\u1eff][\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff]"
    "|[\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff][A-Za-z\u00c0-\u024f\u1e00-\u1eff]"
)


def _is_latin_letter(ch: str) -> bool:
    cp = ord(ch)
    return ch.isalpha() and (cp < 0x250 or 0x1E00 <= cp <= 0x1EFF)


def _confusable_findings(text: str) -> list[Finding]:
    findings: list[Finding] = []
    pos = 0
    while (m := _SCRIPT_SEAM.search(text, pos)) is not None:
        start, end = m.start(), m.end()
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        while end < len(text) and text[end].isalpha():
            end += 1
        pos = end
        word = text[start:end]
        if not any(_is_latin_letter(c) for c in word) or not any(c in _LOOKALIKES for c in word):
            continue  # e.g. "10μs" or "Δt": Greek symbols next to Latin that nobody mistakes
        script = "Cyrillic" if any(0x0400 <= ord(c) <= 0x052F for c in word) else "Greek"
        looks = word.translate(_CONFUSABLE_MAP)[:32]
        detail = f"word mixing Latin and {script} look-alike letters (reads as {looks!r}) at offset {start}"
        findings.append(Finding(CONFUSABLE, detail, start, end))
    return findings


# --- pattern rules ---------------------------------------------------------------------------------

_Check = Callable[[re.Match[str]], bool]
_WORD_BYTES = bytes(b if chr(b).isalnum() else 0x20 for b in range(256))


class _Text:
    """One scan's views of the text: lower-cased copy, word set and cached pivot offsets."""

    __slots__ = ("text", "low", "_words", "_seen")

    def __init__(self, text: str, low: str) -> None:
        self.text = text
        self.low = low
        self._words: set[str] | None = None
        self._seen: dict[str, list[int]] = {}

    @property
    def words(self) -> set[str]:
        """The set of alphanumeric runs in the lower-cased text ("db_password" gives "db", "password")."""
        if self._words is None:
            if self.low.isascii():  # bytes.translate + split is ~3x faster than a regex split
                self._words = set(self.low.encode("ascii").translate(_WORD_BYTES).decode("ascii").split())
            else:
                self._words = set(_NON_ALNUM.split(self.low))
        return self._words

    def find(self, pivot: str) -> list[int]:
        """Return every offset of ``pivot`` (a lower-case substring) in the text."""
        found = self._seen.get(pivot)
        if found is None:
            found = []
            i = self.low.find(pivot)
            while i != -1:
                found.append(i)
                i = self.low.find(pivot, i + 1)
            self._seen[pivot] = found
        return found


class _Rule:
    """A labelled regex, gated by words/substrings and run only in windows around its pivots.

    Searching a whole text with dozens of case-insensitive alternations costs ~50 ns per character
    each, so a rule runs only if every group in ``words`` meets the text's word set (or one of
    ``subs`` occurs), and then only around occurrences of its pivots (``at``, by default the first
    word group plus ``subs``): every match must contain a pivot, start at most ``back`` characters
    before it and end within ``ahead`` after it; an ``anchored`` rule's matches start at a pivot.
    Patterns run on the lower-cased text unless ``on_text``, and compile on first use so that
    importing the module stays cheap.
    """

    __slots__ = (
        "label", "words", "subs", "at", "source", "anchored", "back", "ahead", "on_text", "flags", "check", "_regex",
    )

    def __init__(
        self,
        label: str,
        source: str,
        *,
        words: tuple[str, ...] = (),
        subs: tuple[str, ...] = (),
        at: tuple[str, ...] = (),
        anchored: bool = False,
        back: int = 0,
        ahead: int = 300,
        on_text: bool = False,
        flags: int = re.MULTILINE,
        check: _Check | None = None,
    ) -> None:
        self.label = label
        self.source = source
        self.words = tuple(frozenset(group.split()) for group in words)
        self.subs = subs
        self.at = at or (*(words[0].split() if words else ()), *subs)
        self.anchored = anchored
        self.back = back
        self.ahead = ahead
        self.on_text = on_text
        self.flags = flags
        self.check = check
        self._regex: re.Pattern[str] | None = None

    def matches(self, t: _Text) -> list[re.Match[str]]:
        """Return the accepted matches (offsets are shared by the text and its lower-cased copy)."""
        if not any(s in t.low for s in self.subs) and not (
            self.words and all(not group.isdisjoint(t.words) for group in self.words)
        ):
            return []
        starts = sorted(p for pivot in self.at for p in t.find(pivot))
        if not starts:
            return []
        if self._regex is None:
            self._regex = re.compile(self.source, self.flags)
        hay = t.text if self.on_text else t.low
        out: list[re.Match[str]] = []
        if self.anchored:  # every match starts at a pivot: try only those offsets
            done = 0
            for p in starts:
                if p >= done and (m := self._regex.match(hay, p, min(p + self.ahead, len(hay)))) is not None:
                    if m.end() > m.start() and (self.check is None or self.check(m)):
                        out.append(m)
                        done = m.end()
            return out
        lo, hi = max(0, starts[0] - self.back), starts[0] + self.ahead
        for p in [*starts[1:], -1]:
            if p != -1 and p - self.back <= hi:  # overlapping windows are searched once
                hi = p + self.ahead
                continue
            for m in self._regex.finditer(hay, lo, min(hi, len(hay))):
                if m.end() > m.start() and (self.check is None or self.check(m)):
                    out.append(m)
            if p != -1:
                lo, hi = max(0, p - self.back), p + self.ahead
        return out


def _add(findings: list[Finding], kind: str, detail: str, start: int, end: int) -> None:
    # Several rules often match one phrase; the first (most specific) one wins.
    for f in findings:
        if f.kind == kind and f.start < end and start < f.end:
            return
    findings.append(Finding(kind, detail, start, end))


# --- prompt injection ------------------------------------------------------------------------------

_TEMPORAL = frozenset(
    "previous previously prior above earlier preceding foregoing former original initial your safety "
    "developer ethical".split()
)
_STRONG_NOUNS = ("instruction", "prompt", "directive", "guideline", "guardrail", "programming")


def _override_check(m: re.Match[str]) -> bool:
    # "ignore all instructions" is an attack; "ignore all messages from dependabot" or "override all
    # rules" is ordinary talk unless a word like "previous"/"your" points at the agent's own setup.
    if m.group("noun").startswith(_STRONG_NOUNS):
        return True
    return not _TEMPORAL.isdisjoint(m.group().replace("'", " ").split())


def _safety_check(m: re.Match[str]) -> bool:
    # "disable the content filters on the router" is a chore; "disable your safety filters" is not.
    if not m.group().startswith(("disable", "turn", "deactivate", "remove", "switch", "lift", "drop")):
        return True
    return not {"your", "its", "ai", "model"}.isdisjoint(m.group().split())


def _actor_check(m: re.Match[str]) -> bool:
    # "the assistant must always use British spelling" is a preference: for "assistant"/"agent" only
    # the hijack verbs count; "the AI must always …" addresses a model in the third person.
    return bool(m.group("hijack")) or m.group("actor").split()[-1] not in ("assistant", "assistants", "agent", "agents")


_QUALIFIERS = frozenset(
    "vorherigen bisherigen obigen alle allen deine ihre vorigen früheren vorhergehenden ursprünglichen "
    "todas todos anteriores previas tus sus toutes tous précédentes precedentes antérieures vos tes "
    "tutte tutti precedenti tue sue suas tuas все всё предыдущие прошлые свои твои ваши системные "
    "вышеуказанные прежние".split()
)
_CJK_QUALIFIERS = ("之前", "以前", "先前", "上面", "上述", "所有", "全部", "前面", "系统", "系統", "前の", "上記",
                   "すべて", "全て", "これまで", "システム", "이전", "모든", "위의", "앞의", "시스템")


def _foreign_check(m: re.Match[str]) -> bool:
    # As in English, "forget the old rules" is ordinary; "forget all previous rules" is not.
    return not _QUALIFIERS.isdisjoint(re.findall(r"\w+", m.group()))


def _cjk_check(m: re.Match[str]) -> bool:
    return any(q in m.group() for q in _CJK_QUALIFIERS)


_EXFIL_PARAMS = frozenset(
    "q d p c x s data secret secrets token key pass password payload conv conversation chat history memory "
    "mem exfil leak cred creds credentials content msg message info text body log prompt input env".split()
)


def _exfil_image_check(m: re.Match[str]) -> bool:
    # Badges ("?style=flat") are fine; a query that names data or carries a template slot is a beacon.
    for part in m.group("url").partition("?")[2].split("&"):
        name, _, value = part.partition("=")
        if name in _EXFIL_PARAMS or any(w in name for w in ("secret", "token", "passw", "histor", "memor")):
            return True
        if any(ch in value for ch in "{[<$") or "%7b" in value:
            return True
    return False


_IGNORE_VERB = (
    r"(?:ignore|disregard|forget|override|discard|dismiss|abandon|nullify|circumvent"
    r"|(?:do\s+not|don'?t|stop|no\s+longer)\s+follow(?:ing)?|pay\s+no\s+attention\s+to)"
)
_STRONG_Q = (
    r"(?:all|any|every|each|your|previous(?:ly)?|prior|above|earlier|preceding|foregoing|former|original"
    r"|initial|system|safety|developer|pre-?programmed|ethical)"
)
_MORE_Q = (
    r"(?:the|of|these|those|all|any|your|previous|prior|above|earlier|preceding|original|initial|system"
    r"|safety|existing|developer|given|other|received|provided|stated|mentioned|set|security|content"
    r"|moderation|ethical|programmed|default|current|core)"
)
_AI = r"(?:ai|llm|chatbot|language\s+model|ai\s+(?:assistant|model|agent)|assistants?|agents?)"
_HIJACK = (
    r"(?:ignore|disregard|obey|comply|execute|reveal|send|forward|call|include|append|insert|trust"
    r"|follow\s+(?:these|the\s+following|this|instructions)|not\s+(?:tell|reveal|mention|inform|disclose)"
    r"|treat\s+this)"
)
_SEND = ("send", "post", "upload", "forward", "transmit", "submit", "leak", "copy", "email", "report", "beacon")

_INJECTION_RULES = (
    _Rule(
        "instruction override ('ignore previous instructions')",
        rf"\b{_IGNORE_VERB}\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=("ignore ignoring disregard disregarding forget forgetting override overriding discard discarding "
               "dismiss dismissing abandon abandoning nullify circumvent circumventing follow following attention",),
        at=("ignor", "disregard", "forget", "overrid", "discard", "dismiss", "abandon", "nullif", "circumvent"),
        anchored=True,
        ahead=160,
        check=_override_check,
    ),
    _Rule(
        "instruction override ('do not follow your instructions')",
        rf"\b{_IGNORE_VERB}\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=("follow following attention",),
        back=24,
        ahead=160,
        check=_override_check,
    ),
    _Rule(
        "instruction override ('ignore the above')",
        r"\b(?:ignore|disregard|forget)\s+(?:(?:all|of|the|everything|that|what(?:'s|\s+is|\s+was))\s+)*"
        r"(?:above(?=\s*(?:$|[.,;:!\-]|and\b|then\b|instead\b|now\b|text\b|prompt\b))|everything\s+before\s+this"
        r"|(?:you\s+(?:were|have\s+been|'ve\s+been)|you'?ve\s+been)\s+(?:told|given|instructed)"
        r"|(?:your|the)\s+(?:training|programming))",
        words=("ignore disregard forget",),
        anchored=True,
        ahead=120,
    ),
    _Rule(
        "instruction override ('previous instructions are void')",
        r"\b(?:previous|prior|above|earlier|preceding|original|initial|system|safety|your)\s+"
        r"(?:instructions|prompts?|directives|guardrails|programming)\s+(?:are|were|have\s+been|has\s+been|should\s+be"
        r"|must\s+be|can\s+be|is)\s+(?:now\s+|hereby\s+)?(?:ignored|void|null|cancell?ed|revoked|obsolete|overridd?en"
        r"|disregarded|invalid|superseded|replaced|lifted|suspended|disabled|deactivated|no\s+longer\s+(?:valid|apply))",
        words=("instructions prompt prompts directives guardrails programming",),
        at=("instructions", "prompt", "directives", "guardrails", "programming"),
        back=30,
        ahead=120,
    ),
    _Rule(
        "role reassignment ('you are now …')",
        r"\b(?:you\s+are|you're)\s+(?:now\s+(?:(?:an?|the|my)\s+)?(?:\w+\s+){0,2}?(?:ai|assistant|bot|chatbot|model"
        r"|character|persona|entity|hacker|dan|unrestricted|unfiltered|uncensored|jailbroken|evil|liberated"
        r"|unshackled|in\s+\w+\s+mode|free\s+(?:from|of))\b|no\s+longer\s+(?:an?\s+ai|an?\s+assistant|bound|restricted"
        r"|limited|constrained|required\s+to\s+follow)|not\s+bound\s+by)",
        words=("now longer bound", "you"),
        at=("you",),
        anchored=True,
        ahead=100,
    ),
    _Rule(
        "injected instructions ('new instructions:')",
        r"(?:^|[.!?]\s+|[-=*#>\[(]\s*)(?:here\s+are\s+)?(?:your\s+)?(?:new|real|actual|true|secret|hidden)\s+"
        r"(?:system\s+)?instructions?\s*(?::|-{1,2}\s|are\s*:)"
        r"|\byour\s+(?:new|real|actual|true)\s+(?:instructions|directives?|objective|orders)\s+(?:are|is)\b",
        words=("instruction instructions directive directives objective orders",),
        at=("instruction", "directive", "objective", "orders"),
        back=60,
        ahead=40,
    ),
    _Rule(
        "fake system-prompt marker",
        r"(?-i:\b(?:BEGIN|END)\s+(?:OF\s+)?(?:THE\s+)?SYSTEM\s+(?:PROMPT|MESSAGE|INSTRUCTIONS?)\b)"
        r"|[-=#*\[<(]\s*(?:begin|end)\s+(?:of\s+)?(?:the\s+)?system\s+(?:prompt|message|instructions?)\b"
        r"|\b(?:new|updated|real|actual|hidden|secret|true)\s+system\s+prompt\s*(?::|follows\b)"
        r"|\bsystem\s+(?:prompt\s+)?override\s*:",
        words=("system", "prompt message instruction instructions override"),
        back=30,
        ahead=50,
        on_text=True,
        flags=re.IGNORECASE | re.MULTILINE,
    ),
    _Rule(
        "prompt extraction ('reveal your system prompt')",
        r"\b(?:reveal|print|show|display|output|repeat|leak|dump|tell\s+me|give\s+me|share|expose|disclose|recite"
        r"|write\s+out|echo|paste)\s+(?:me\s+|us\s+)?(?:(?:your|its)\s+(?:(?:full|entire|complete|original|initial"
        r"|hidden|secret|exact|verbatim|current|internal|real)\s+)*(?:system\s+|developer\s+|hidden\s+|initial\s+)?"
        r"(?:prompt|instructions|guidelines|rules|directives|configuration|programming)"
        r"|the\s+(?:(?:full|entire|complete|exact|verbatim|hidden|secret|original|initial)\s+)*"
        r"(?:system|developer|hidden|secret|initial)\s+(?:prompt|instructions))\b"
        r"|\bwhat\s+(?:is|are|were)\s+your\s+(?:(?:system|original|initial|hidden|secret)\s+)*"
        r"(?:prompt|instructions|directives)\b",
        words=("prompt instructions guidelines rules directives configuration programming",
               "reveal print show display output repeat leak dump tell give share expose disclose recite write "
               "echo paste what"),
        at=("reveal", "print", "show", "display", "output", "repeat", "leak", "dump", "tell", "give", "share",
            "expose", "disclose", "recite", "write", "echo", "paste", "what"),
        anchored=True,
        ahead=120,
    ),
    _Rule(
        "safety override ('bypass your safety filters')",
        r"\b(?:override|bypass|circumvent|ignore|disregard|disable|turn\s+off|deactivate|remove|switch\s+off|lift"
        r"|drop)\s+(?:(?:your|its|all|any|the|of|these|built-in|internal|ai|model)\s+)*(?:safety|ethical|ethics"
        r"|content|moderation|alignment)\s+(?:filters?|guardrails?|guidelines|restrictions|protocols?|measures"
        r"|training|rules|constraints|policies|principles)\b"
        r"|\b(?:override|bypass|circumvent)\s+(?:(?:your|its|all|any|the)\s+)*(?:guardrails|programming"
        r"|alignment|safeguards)\b",
        words=("safety ethical ethics content moderation alignment guardrails programming safeguards",
               "override bypass circumvent ignore disregard disable turn deactivate remove switch lift drop"),
        at=("override", "bypass", "circumvent", "ignore", "disregard", "disable", "turn", "deactivate", "remove",
            "switch", "lift", "drop"),
        anchored=True,
        ahead=120,
        check=_safety_check,
    ),
    _Rule(
        "chat-template role tag",
        r"<\|\s*(?:im_start|im_end|im_sep|system|assistant|user|begin_of_text|start_header_id|end_header_id"
        r"|eot_id)\s*\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>"
        r"|</?(?:system|system[_-](?:prompt|message|instructions?|override|reminder)|instructions?"
        r"|admin[_-]?(?:instructions?|override|message)|developer[_-](?:message|instructions?))\s*>",
        words=("system instruction instructions admin developer inst sys im assistant user turn eot begin header",),
        at=("<", "[inst", "[/inst"),
        ahead=40,
    ),
    _Rule(
        "fake role header ('### system:')",
        r"^[ \t]*#{1,6}[ \t]*(?:system(?:\s+prompt)?|assistant|instructions?|response)[ \t]*:",
        subs=("system:", "system :", "assistant:", "assistant :", "instruction:", "instructions:", "response:",
              "prompt:", "prompt :"),
        back=20,
        ahead=20,
    ),
    _Rule(
        "fake role turn ('assistant:' / 'system:' at line start)",
        r"^[ \t]*(?:system|assistant)[ \t]*:[ \t]*(?:you\b|your\b|ignore|disregard|forget|new\b|from\s+now"
        r"|override|i\s+(?:am|will|have|must)\b|sure\b|certainly|okay\b|ok\b|understood|as\s+an?\b|the\s+user\b"
        r"|always\b|never\b|do\s+not\b|don't\b|please\b|important|attention)",
        subs=("system:", "system :", "assistant:", "assistant :"),
        back=20,
        ahead=40,
    ),
    _Rule(
        "fake role turn (Human:/Assistant: transcript)",
        r"^[ \t]*(?:human|user)[ \t]*:[^\n]*\n(?:[^\n]*\n){0,20}?[ \t]*assistant[ \t]*:",
        words=("human user", "assistant"),
        back=10,
        ahead=3000,
    ),
    _Rule(
        "fake authority header ('SYSTEM OVERRIDE:')",
        r"^[ \t]*[\[(]?(?:system|admin|administrator|developer|root)\s+(?:override|message|notice|alert"
        r"|instructions?|update|command|directive)[\])]?[ \t]*:",
        words=("system admin administrator developer root",
               "override message notice alert instruction instructions update command directive"),
        back=4,
        ahead=40,
    ),
    _Rule(
        "jailbreak persona (developer mode)",
        r"\b(?:you\s+are|you're|are\s+now|now\s+in|act\s+in|respond\s+in|answer\s+in|simulate|stay\s+in)\s+(?:now\s+)?"
        r"(?:in\s+)?(?:developer|dev)\s+mode\b|\b(?:ai|assistant|chatgpt|claude|gpt|model|llm)\s+(?:with|in)\s+"
        r"(?:developer|dev)\s+mode\b|\b(?:developer|dev)\s+mode\s+output\b",
        words=("mode", "developer dev"),
        back=40,
        ahead=30,
    ),
    _Rule(
        "jailbreak marker",
        r"\bjailbr(?:eak|oken)\s+(?:mode|prompt|enabled|activated|successful|complete|ai|assistant|model)\b"
        r"|\b(?:you\s+are|you're|are\s+now|you\s+have\s+been|you've\s+been)\s+(?:now\s+)?jailbr(?:eak|oken)(?:ed)?\b"
        r"|\b(?:this\s+is\s+a|initiate|initiating|activate|enable|begin)\s+(?:the\s+)?jailbreak\b",
        words=("jailbreak jailbroken jailbreaked",),
        at=("jailbr",),
        back=30,
        ahead=40,
    ),
    _Rule(
        "jailbreak persona (DAN)",
        r"(?-i:\bDo\s+Anything\s+Now\b|\bDAN\s+(?:mode|prompt|jailbreak)\b)"
        r"|\bstands\s+for\s+[\"'“]?do\s+anything\s+now|\b(?:you|dan)\s+(?:can|will|could)\s+(?:now\s+)?do\s+anything"
        r"\s+now|\b(?:you\s+are|you're|act\s+as|acting\s+as|become|pretend\s+to\s+be|roleplay\s+as)\s+(?:now\s+)?"
        r"(?-i:DAN)\b",
        words=("dan anything",),
        back=40,
        ahead=40,
        on_text=True,
        flags=re.IGNORECASE | re.MULTILINE,
    ),
    _Rule(
        "jailbreak persona ('act as an unrestricted AI')",
        r"\b(?:act|behave|respond|answer|reply|operate|roleplay|role-play)\s+(?:as|like)\s+(?:if\s+you\s+(?:are|were)\s+)?"
        r"(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|unaligned|unbound|evil|jailbroken|rogue|amoral|unethical)\b"
        r"|\bpretend\s+(?:that\s+)?(?:you\s+)?(?:are|have|to\s+be)\s+(?:an?\s+)?(?:(?:ai|assistant|model|chatbot)\s+)?"
        r"(?:with\s+)?(?:no\s+(?:restrictions|rules|limits|filters|guidelines|guardrails)|unrestricted|unfiltered"
        r"|uncensored|evil|jailbroken)"
        r"|\b(?:without|no)\s+(?:any\s+)?(?:ethical|moral)\s+(?:restrictions|guidelines|filters|limitations"
        r"|constraints|boundaries)\b",
        words=("unrestricted unfiltered uncensored unaligned unbound jailbroken amoral unethical evil rogue "
               "restrictions rules limits filters guidelines guardrails ethical moral",
               "act behave respond answer reply operate roleplay role pretend without no"),
        back=60,
        ahead=40,
    ),
    _Rule("exfiltration instruction ('exfiltrate')", r"\bexfiltrate\b", words=("exfiltrate",), ahead=12),
    _Rule(
        "exfiltration instruction ('send … to http…')",
        r"(?:^|[.!?;:]\s+|\b(?:please|then|also|now|always|immediately|silently|quietly|secretly|must|should)\s+)"
        r"(?:send|post|upload|forward|transmit|submit|leak|copy|email|report|beacon)\s+(?:(?:the|all|this|these"
        r"|every|any|your|my|its|their|everything|of|user'?s?|entire|full|whole|current|complete)\s+)+[^\n]{0,80}?"
        r"\bto\s+(?:https?://|ftp://|wss?://|(?:this|the|my|our|an?|following)\s+(?:url|endpoint|webhook|server"
        r"|address))"
        r"|\b(?:send|post|upload|forward|transmit|submit|leak|copy|email|report)\w*\s+[^\n]{0,60}?\b(?:conversation"
        r"|chat\s+(?:log|history)|memories|secrets?|api\s*keys?|credentials?|passwords?|env(?:ironment)?\s+var\w*"
        r"|\.env|ssh\s+keys?|transcript|system\s+prompt|cookies?)\b[^\n]{0,60}?\bto\s+(?:https?://|ftp://|wss?://)",
        words=("http https ftp ws wss url endpoint webhook server address",
               "send sends post posts upload uploads forward forwards transmit submit leak copy email report beacon"),
        at=("http", "ftp:", "ws:", "wss:", "url", "endpoint", "webhook", "server", "address"),
        back=220,
        ahead=20,
    ),
    _Rule(
        "memory-tool instruction (promote/confirm/approve)",
        r"\b(?:promote_atom|promote_episode|confirm_pending(?:_review)?|approve_atom|release_quarantine"
        r"|user_approved)\b",
        words=("promote confirm approve release approved",),
        at=("promote_", "confirm_pending", "approve_atom", "release_quarantine", "user_approved"),
        back=1,
        ahead=30,
    ),
    _Rule(
        "tool-call instruction ('call the memory tool')",
        r"\b(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+|your\s+)?(?:memory|mcp|admin)\s+tool\b"
        r"|\b(?:use|call|invoke)\s+(?:the\s+|a\s+|your\s+)?(?:\w+\s+)?tool\s+(?:to|and)\s+(?:promote|approve"
        r"|confirm|mark|elevate|trust|release|unquarantine|exfiltrate)\b",
        words=("tool",),
        back=40,
        ahead=40,
    ),
    _Rule(
        "trust escalation ('mark this as user-approved')",
        r"\b(?:mark|flag|tag|label|store|save|record|remember|treat)\s+(?:this|it|these|that|the\s+(?:memory|atom"
        r"|fact|entry|note))\s+(?:as|with)\s+(?:source\s*[=:]?\s*)?(?:trusted|user[\s_-]?(?:approved|said))\b",
        words=("trusted approved said", "mark flag tag label store save record remember treat"),
        back=60,
        ahead=10,
    ),
    _Rule(
        "concealment instruction ('without telling the user')",
        r"\b(?:without|don't|do\s+not|never)\s+(?:asking|telling|informing|notifying|alerting|tell|inform|notify"
        r"|alert|let)\s+(?:the|your)\s+user\b",
        words=("user", "without don do never"),
        back=40,
        ahead=6,
    ),
    _Rule(
        "AI-addressed directive ('IMPORTANT: the AI must')",
        r"\b(?:important|attention|urgent|critical|notice)\s*[:!]+\s*(?:(?:the|all|any)\s+)?(?:ai|assistant|model"
        r"|agent|llm|chatbot|language\s+model|claude|gpt|chatgpt|copilot)s?\s+(?:must|shall|needs?\s+to|has\s+to"
        r"|(?:is|are)\s+required\s+to)\b"
        r"|\b(?:important|attention|urgent|critical|notice)\s*[:!]+\s*you\s+must\s+(?:now\s+|always\s+|never\s+)?"
        rf"{_HIJACK}",
        words=("important attention urgent critical notice", "must shall required need needs has"),
        anchored=True,
        ahead=80,
    ),
    _Rule(
        "AI-addressed directive ('the AI must always')",
        rf"\b(?:the|this|any|every|all)\s+(?P<actor>{_AI})\s+(?:must|shall|(?:is|are)\s+required\s+to)\s+"
        rf"(?:(?:always|never|now|immediately|henceforth|from\s+now\s+on)\b\s*(?P<hijack>{_HIJACK})?"
        rf"|(?P<direct>{_HIJACK}))",
        words=("must shall required", "ai llm chatbot model assistant assistants agent agents"),
        back=40,
        ahead=60,
        check=lambda m: bool(m.group("direct")) or _actor_check(m),
    ),
    _Rule(
        "AI-addressed trigger ('when you read this')",
        r"\bwhen\s+(?:you|an?\s+(?:ai|assistant|model|agent|llm)|the\s+(?:ai|assistant|model|agent|llm))\s+"
        r"(?:reads?|sees?|process(?:es)?|encounters?|loads?|retrieves?|recalls?|finds?|parses?)\s+(?:this|these)\b"
        r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|large\s+language\s+model|ai\s+assistant|chatbot"
        r"|ai\s+agent|automated\s+agent)\b"
        r"|\bnote\s+to\s+(?:the\s+|any\s+|all\s+)?(?:ai|assistant|llm|language\s+model|ai\s+agent)s?\b",
        words=("when if note", "this these ai llm assistant assistants agent chatbot model"),
        anchored=True,
        ahead=60,
    ),
    _Rule(
        "AI-addressed trigger ('AI reading this')",
        r"\b(?:ai|llms?|assistants?|agents?|language\s+models?)\s+(?:reading|processing|parsing)\s+this\b",
        words=("reading processing parsing", "ai llm llms assistant assistants agent agents model models"),
        back=24,
        ahead=20,
    ),
    _Rule(
        "markdown-image exfiltration (data in an image URL)",
        r"(?:!\[[^\]\n]{0,200}\]\(\s*<?|<img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?)(?P<url>(?:https?:)?//[^)\s\"'>]{1,800})",
        subs=("![", "<img"),
        ahead=1400,
        check=_exfil_image_check,
    ),
    _Rule(
        "instruction override (German)",
        r"\b(?:ignorier(?:e|en)?|vergiss|vergessen\s+sie|missachte(?:n)?)\s+(?:\w+\s+){0,4}?(?:anweisungen"
        r"|instruktionen|befehle|vorgaben|regeln|anordnungen)\b",
        words=("ignoriere ignorieren ignorier vergiss vergessen missachte missachten",),
        at=("ignorier", "vergiss", "vergessen", "missacht"),
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (Romance languages)",
        r"\b(?:ignora|ignorar|ignore|ignorez|ignorer|ignorate|olvida|olvide|olvidar|oublie|oubliez|oublier"
        r"|dimentica|dimenticate|esqueça|esquece|esquecer|desconsidera|desconsidere|no\s+sigas)\s+(?:\w+\s+){0,4}?"
        r"(?:instrucciones|instruç(?:ões|oes)|instrucoes|istruzioni|instructions|consignes|indicaciones|directivas"
        r"|reglas|regole|regras|règles|orientações|indicazioni)\b",
        words=("ignora ignorar ignore ignorez ignorer ignorate olvida olvide olvidar oublie oubliez oublier dimentica "
               "dimenticate esqueça esquece esquecer desconsidera desconsidere sigas",
               "instrucciones instruções instrucoes istruzioni instructions consignes indicaciones directivas reglas "
               "regole regras règles orientações indicazioni"),
        at=("ignor", "olvid", "oubli", "dimentic", "esque", "desconsider", "no sigas"),
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (Russian)",
        r"(?:проигнорируй|игнорируй|забудь|не\s+обращай\s+внимания\s+на)(?:те)?\s+(?:\w+\s+){0,4}?"
        r"(?:инструкци|указани|правил|команд|промпт)\w*",
        subs=("игнор", "забудь", "не обращай"),
        back=4,
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (CJK)",
        r"(?:忽略|无视|無視|忘记|忘記|忽視|不要遵守)[^。！？\n]{0,12}?(?:指令|指示|提示|规则|規則|说明|說明|命令)"
        r"|(?:指示|命令|ルール|プロンプト|指令)[^。！？\n]{0,12}?(?:無視|忘れ)"
        r"|(?:지시|명령|지침|규칙|프롬프트)[^.!?\n]{0,12}?(?:무시|잊어)",
        subs=("忽略", "无视", "無視", "忘记", "忘記", "忽視", "不要遵守", "忘れ", "무시", "잊어"),
        back=20,
        ahead=30,
        check=_cjk_check,
    ),
)

# Letter-spaced, punctuated or leetspeak variants ("I g n o r e  a l l  p r e v i o u s …",
# "ignore_previous_instructions", "1gn0re") are matched on a squashed copy: lower-cased, look-alikes
# and digits mapped to letters, everything else removed. Only long phrases are used there, since
# word boundaries are gone.
_SQUASH_MAP = str.maketrans("013457@$", "oieastas")
_NON_ALNUM = re.compile(r"[\W_]+")  # removes exactly the characters that are not str.isalnum()
_SQUASH_DELETE = bytes(b for b in range(128) if not chr(b).isalnum() and chr(b) not in "@$")
_SQUASHED = _Rule(
    "instruction override (obfuscated with spacing or punctuation)",
    r"(?:ignore|disregard|forget|override|bypass|discard)(?:all|any|every|of|the|your|these|those|everything)*"
    r"(?:previous|prior|above|earlier|preceding|system|safety|original|initial|your)+"
    r"(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|programming|commands)"
    r"|(?:reveal|print|show|output|repeat|leak|dump|display)(?:me)?(?:your(?:full|entire|hidden|secret|initial"
    r"|original)*(?:systemprompt|instructions|prompt)|the(?:full|entire|hidden|secret|initial|original)*"
    r"systemprompt)"
    r"|youarenow(?:dan|unrestricted|jailbroken|unfiltered|uncensored|indevelopermode|freefrom)"
    r"|jailbreakmode|developermodeenabled",
    subs=("ignor", "disregard", "forget", "overrid", "bypass", "discard", "reveal", "print", "show", "output",
          "repeat", "leak", "dump", "display", "youarenow", "jailbreakmode", "developermodeenabled"),
    anchored=True,
    ahead=160,
    flags=0,
)


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):  # e.g. "İ" lowers to two code points; keep offsets aligned
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low


def _squashed_injection(low: str, ascii_only: bool, findings: list[Finding]) -> None:
    if ascii_only:
        squashed = low.encode("ascii").translate(None, _SQUASH_DELETE).decode("ascii").translate(_SQUASH_MAP)
    else:
        squashed = _NON_ALNUM.sub("", low.translate(_CONFUSABLE_MAP).translate(_SQUASH_MAP))
    hits = _SQUASHED.matches(_Text(squashed, squashed))
    if not hits:
        return
    kept = [i for i, c in enumerate(low) if c.isalnum() or c in "@$"]
    for m in hits:
        start, end = kept[m.start()], kept[m.end() - 1] + 1
        _add(findings, INJECTION, f"{_SQUASHED.label} at offset {start}", start, end)


# --- credentials -----------------------------------------------------------------------------------

_PLACEHOLDER_WORDS = ("your", "example", "changeme", "change_me", "placeholder", "redacted", "dummy", "sample",
                      "xxxx", "****", "...", "…", "replace", "insert", "todo", "here>", "_here", "password",
                      "passwd", "notreal", "not_real", "not-real")


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    if not value or value[0] in "<{$%[(*#" or len(set(low)) <= 2:
        return True
    return any(w in low for w in _PLACEHOLDER_WORDS)


def _token_check(m: re.Match[str]) -> bool:
    # Real tokens are random: they mix letters and digits; slugs and "YOUR_TOKEN_HERE" do not.
    value = m.group("val")
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and not _is_placeholder(value)


def _api_key_check(m: re.Match[str]) -> bool:
    # "sk-hynix-memory-chip-prices-2024" is a slug: real key bodies are rarely hyphen-separated words.
    value = m.group("val")
    return _token_check(m) and value.count("-") <= len(value) // 8


def _no_placeholder_check(m: re.Match[str]) -> bool:
    return not _is_placeholder(m.group("val"))


def _secretish(value: str) -> bool:
    value = value.rstrip(".,;:)]}>!?")
    if len(value) < 8 or _is_placeholder(value) or "(" in value:
        return False  # getpass(), os.getenv("X"): code that fetches a secret, not a secret
    if value.startswith(("/", "~", "./", "../", "file:")) or "://" in value:
        return False
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts):
        return False  # settings.DB_PASSWORD
    if value.isidentifier() and value.isupper():
        return False  # DB_PASSWORD: a reference to an environment variable
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "-_." for c in value)
    classes = lower + upper + digit + symbol
    return (digit and (lower or upper)) or classes >= 3 or (len(value) >= 24 and classes >= 2)


def _assignment_check(m: re.Match[str]) -> bool:
    return _secretish(m.group("val"))


def _url_password_check(m: re.Match[str]) -> bool:
    value = m.group("val")
    return not value.isdigit() and not _is_placeholder(value) and value.lower() not in ("pass", "pwd", "secret")


_CS = re.MULTILINE  # credential formats are case-sensitive: "AKIA…", not "akia…"
_CI = re.IGNORECASE | re.MULTILINE
_CREDENTIAL_RULES = (
    _Rule(
        "PEM private key block (-----BEGIN … PRIVATE KEY-----)",
        r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,10000}?-----END [A-Z ]{0,20}PRIVATE KEY(?: BLOCK)?-----)?",
        words=("private", "key"), at=("private key",), back=30, ahead=10100, on_text=True, flags=_CS,
    ),
    _Rule(
        "Anthropic API key (sk-ant-…)",
        r"(?<![A-Za-z0-9])sk-ant-(?:(?:api|admin)\d\d-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-ant-",), anchored=True, ahead=400, on_text=True, flags=_CS, check=_api_key_check,
    ),
    _Rule(
        "OpenAI-style API key (sk-…)",
        r"(?<![A-Za-z0-9])sk-(?:(?:proj|svcacct|admin)-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-",), anchored=True, ahead=400, on_text=True, flags=_CS, check=_api_key_check,
    ),
    _Rule(
        "Stripe live key (sk_live_…/rk_live_…)",
        r"(?<![A-Za-z0-9])[sr]k_live_(?P<val>[A-Za-z0-9]{16,})",
        words=("live", "sk rk"), at=("k_live_",), back=1, ahead=300, on_text=True, flags=_CS, check=_token_check,
    ),
    _Rule(
        "GitHub token (gh?_…)",
        r"(?<![A-Za-z0-9_])gh[pousr]_(?P<val>[A-Za-z0-9]{36,})(?![A-Za-z0-9])",
        words=("ghp gho ghu ghs ghr",), at=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), anchored=True, ahead=300, on_text=True, flags=_CS, check=_token_check,
    ),
    _Rule(
        "GitHub fine-grained token (github_pat_…)",
        r"(?<![A-Za-z0-9_])github_pat_(?P<val>[A-Za-z0-9_]{22,})",
        words=("github", "pat"), at=("github_pat_",), ahead=300, on_text=True, flags=_CS, check=_token_check,
    ),
    _Rule(
        "AWS access key id (AKIA…/ASIA…)",
        r"(?<![A-Z0-9])(?P<val>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])",
        subs=("akia", "asia"), ahead=30, on_text=True, flags=_CS, check=_no_placeholder_check,
    ),
    _Rule(
        "AWS secret access key (aws_secret_access_key=…)",
        r"aws_secret_access_key[\"']?\s*(?:=|:|=>)\s*[\"']?(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        words=("aws", "secret"), at=("aws_secret_access_key",), ahead=120, on_text=True, flags=_CI,
        check=_no_placeholder_check,
    ),
    _Rule(
        "Slack token (xox?-…)",
        r"(?<![A-Za-z0-9])xox[baprse]-(?P<val>[A-Za-z0-9-]{10,})",
        words=("xoxb xoxa xoxp xoxr xoxs xoxe",), at=("xox",), ahead=300, on_text=True, flags=_CS,
        check=_token_check,
    ),
    _Rule(
        "Slack webhook URL (hooks.slack.com/…)",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<val>[A-Za-z0-9_/-]{20,})",
        words=("hooks", "slack"), at=("hooks.slack.com",), back=8, ahead=300, on_text=True, flags=_CS,
        check=_no_placeholder_check,
    ),
    _Rule(
        "Google API key (AIza…)",
        r"(?<![A-Za-z0-9_-])(?P<val>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])",
        subs=("aiza",), ahead=60, on_text=True, flags=_CS, check=_no_placeholder_check,
    ),
    _Rule(
        "JSON Web Token (eyJ…)",
        r"(?<![A-Za-z0-9_-])(?P<val>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        subs=("eyj",), ahead=4000, on_text=True, flags=_CS, check=_no_placeholder_check,
    ),
    _Rule(
        "bearer token (Bearer …)",
        r"\bbearer\s+(?P<val>[A-Za-z0-9\-._~+/]{16,}=*)",
        words=("bearer",), anchored=True, ahead=2000, on_text=True, flags=_CI, check=_token_check,
    ),
    _Rule(
        "password in a connection URL (scheme://user:…@host)",
        r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,64}:(?P<val>[^\s/@]{4,128})@[\w.\[-]",
        subs=("://",), back=22, ahead=220, on_text=True, flags=_CI, check=_url_password_check,
    ),
    _Rule(
        "secret assignment ({key}=…)",
        r"(?<![\w-])(?P<key>[\w.-]{0,40}?(?:password|passwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key"
        r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|client[_-]?secret|secret[_-]?key|token))"
        r"[\"']?\s*(?:=|:=|:|=>)\s*[\"']?(?P<val>[^\s\"'`,;]{8,})",
        words=("password passwd passphrase secret key apikey token",), at=("pass", "secret", "key", "token"),
        back=44, ahead=400, on_text=True, flags=_CI, check=_assignment_check,
    ),
    _Rule(
        "password stated in text (password is …)",
        r"\b(?:password|passcode|passphrase|passwort)\s+(?:is|was)\s+[\"'“‘]?(?P<val>[^\s\"'”’]{8,})",
        words=("password passcode passphrase passwort",), at=("pass",), ahead=200, on_text=True, flags=_CI,
        check=_assignment_check,
    ),
)


def _credential_findings(text: str, t: _Text | None = None) -> list[Finding]:
    t = _Text(text, _lower(text)) if t is None else t
    findings: list[Finding] = []
    for rule in _CREDENTIAL_RULES:
        for m in rule.matches(t):
            label = rule.label.replace("{key}", m.group("key")[:40]) if "{key}" in rule.label else rule.label
            # Rules run most specific first, so "API_KEY=sk-…" is reported once, as an OpenAI key.
            _add(findings, CREDENTIAL, f"{label} at offset {m.start()}", m.start(), m.end())
    return findings


# --- public API ------------------------------------------------------------------------------------


def scan(text: str) -> tuple[Finding, ...]:
    """Return every finding in ``text``, in text order; an empty tuple means the text is clean."""
    if not text:
        return ()
    findings: list[Finding] = []
    ascii_only = text.isascii()
    if not ascii_only:  # hidden characters and look-alike letters are all non-ASCII
        findings.extend(_hidden_findings(text))
        findings.extend(_confusable_findings(text))
    low = _lower(text)
    t = _Text(text, low)
    for rule in _INJECTION_RULES:
        for m in rule.matches(t):
            _add(findings, INJECTION, f"{rule.label} at offset {m.start()}", m.start(), m.end())
    _squashed_injection(low, ascii_only, findings)
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
