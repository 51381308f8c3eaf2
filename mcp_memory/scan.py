"""Pure content scanner: reports hidden Unicode, look-alike words, injection markers and secrets.

Every write to memory is scanned (DESIGN.md §3); callers decide whether a finding rejects a fact
or quarantines an atom. The scanner only reports, and it is tuned for the write path: ASCII text
skips the Unicode checks; a rule runs only when its trigger words are in the text's word set, and
then only at or around the offsets of those words, so a typical 2 KB note scans in well under
0.1 ms. Patterns compile lazily on first use so that importing this module stays cheap.

Precision is preferred on injection markers: people discuss "system prompts", "instructions" and
"assistants" all the time, so a rule fires on phrases that address an AI ("ignore your previous
instructions"), not on vocabulary. Details never echo a secret; at most the public prefix of a key
format ("sk-…") is shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

__all__ = ["KINDS", "Finding", "describe", "normalize_for_dedup", "redact_credentials", "scan", "strip_invisible"]

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



@cache
def _rx(source: str, flags: int = 0) -> re.Pattern[str]:
    # Compiling every pattern at import would cost milliseconds; each compiles on its first use.
    return re.compile(source, flags)


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
    return _rx(_SUSPICIOUS if astral else _SUSPICIOUS_BMP)


_BIDI_CODEPOINTS = frozenset((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))
_TAG_RUN = "[\U000e0000-\U000e007f]+"
# A subdivision flag (England, Scotland, Wales): black flag, 2-6 tag letters/digits, cancel tag.
_FLAG_TAGS = "[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f"


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


def _hidden_chars(text: str, *, for_strip: bool = False) -> list[tuple[str, int]]:
    """Return (kind, offset) for each hidden character that is not a legitimate use."""
    out: list[tuple[str, int]] = []
    pos = 0
    search = _suspicious(text).search
    while (m := search(text, pos)) is not None:
        i = m.start()
        cp = ord(text[i])
        pos = i + 1
        if 0xE0000 <= cp <= 0xE007F:
            run = _rx(_TAG_RUN).match(text, i)
            end = run.end() if run is not None else i + 1
            pos = end
            if not (i > 0 and text[i - 1] == "\U0001f3f4" and _rx(_FLAG_TAGS).fullmatch(text, i, end)):
                out.extend((TAGS, k) for k in range(i, end))
        elif cp in _BIDI_CODEPOINTS:
            out.append((BIDI, i))
        elif _is_variation_selector(cp):
            # One selector after a visible base picks a glyph (emoji/text style, CJK variants);
            # runs of them carry no glyph meaning and are a known byte-smuggling channel.
            prev = text[i - 1] if i else ""
            if not prev or prev.isspace() or _rx(_SUSPICIOUS).match(prev) is not None:
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
    if text.isascii() or _suspicious(text).search(text) is None:
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
_SCRIPT_SEAM = (
    "[A-Za-z\u00c0-\u024f\u1e00-\u1eff][\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff]"
    "|[\u0370-\u03ff\u0400-\u052f\u1f00-\u1fff][A-Za-z\u00c0-\u024f\u1e00-\u1eff]"
)


def _is_latin_letter(ch: str) -> bool:
    cp = ord(ch)
    return ch.isalpha() and (cp < 0x250 or 0x1E00 <= cp <= 0x1EFF)


def _confusable_findings(text: str) -> list[Finding]:
    findings: list[Finding] = []
    pos = 0
    seam = _rx(_SCRIPT_SEAM)
    while (m := seam.search(text, pos)) is not None:
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
# UTF-8 lead bytes of U+3000-U+DFFF and U+F000-U+FFFF (kana, CJK, Hangul, compatibility ideographs).
# Testing bytes avoids a regex class whose BMP ranges would take ~10 ms to compile.
_NOT_CJK_LEAD = bytes(b for b in range(256) if not (0xE3 <= b <= 0xED or b == 0xEF))
# ASCII punctuation and spaces become separators; UTF-8 bytes of other scripts stay inside words.
_WORD_BYTES = bytes(0x20 if b < 0x80 and not chr(b).isalnum() else b for b in range(256))


class _Text:
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
        """The UTF-8 words of the lower-cased text, split at ASCII punctuation ("db_password": db, password)."""
        if self._words is None:  # bytes.translate + split is ~3x faster than a regex split
            self._words = set(self.utf8.translate(_WORD_BYTES).split())
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


# Windows end this far past ``ahead`` so that lookaheads and "$" never see a cut-off text.
_MARGIN = 24


class _Rule:
    """A labelled regex, gated by words/substrings and run only around its pivots.

    Searching a whole text with dozens of alternations costs ~50 ns per character each, so a rule
    runs only if every group in ``words`` meets the text's word set (or one of ``subs`` occurs), and
    then only around occurrences of its pivots (``at``; by default the first word group, matched as
    whole words, plus ``subs``). An ``anchored`` rule's matches start at a pivot; otherwise a match
    starts at most ``back`` characters before a pivot and ends within ``ahead`` after it. Patterns
    run on the lower-cased text unless ``on_text``; ``whole`` says explicit pivots are whole words.
    """

    __slots__ = (
        "_encoded", "_regex", "_whole", "ahead", "anchored", "at", "back", "check", "flags", "label", "on_text",
        "source", "subs", "words",
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
    ) -> None:
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
        self._regex: re.Pattern[str] | None = None

    def matches(self, t: _Text) -> list[re.Match[str]]:
        """Return the accepted matches (offsets are shared by the text and its lower-cased copy)."""
        for group in self.words[1:]:  # the first group (or a sub) already triggered this rule
            if group.isdisjoint(t.words):
                return []
        words = t.words
        starts = sorted(p for a in self.at if a not in self._whole or self._encoded[a] in words for p in t.find(a))
        if not starts:
            return []
        if self._regex is None:
            self._regex = _rx(self.source, self.flags)
        hay = t.text if self.on_text else t.low
        out: list[re.Match[str]] = []
        if self.anchored:  # every match starts at a pivot: try only those offsets
            done = 0
            for p in starts:
                if p < done:
                    continue
                m = self._regex.match(hay, p, min(p + self.ahead + _MARGIN, len(hay)))
                if m is not None and m.end() > m.start() and (self.check is None or self.check(m)):
                    out.append(m)
                    done = m.end()
            return out
        lo, hi = max(0, starts[0] - self.back), starts[0] + self.ahead
        for p in [*starts[1:], -1]:
            if p != -1 and p - self.back <= hi:  # overlapping windows are searched once
                hi = p + self.ahead
                continue
            for m in self._regex.finditer(hay, lo, min(hi + _MARGIN, len(hay))):
                if m.end() > m.start() and (self.check is None or self.check(m)):
                    out.append(m)
            if p != -1:
                lo, hi = max(0, p - self.back), p + self.ahead
        return out


class _RuleSet:
    """Rules in priority order, with an index from trigger words and substrings to rules.

    Asking each of ~50 rules whether it applies costs more than scanning a short text, so one set
    intersection of the text's words with all trigger words picks the few rules worth running.
    """

    __slots__ = ("_by_cjk_sub", "_by_sub", "_by_word", "_trigger_words", "rules")

    def __init__(self, *rules: _Rule) -> None:
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

    def run(self, t: _Text) -> list[tuple[_Rule, re.Match[str]]]:
        """Return (rule, match) for every accepted match of every triggered rule, in rule order."""
        active = {i for sub, i in self._by_sub if sub in t.low}
        if t.has_cjk:
            active.update(i for sub, i in self._by_cjk_sub if sub in t.low)
        for word in self._trigger_words.intersection(t.words):
            active.update(self._by_word[word])
        return [(self.rules[i], m) for i in sorted(active) for m in self.rules[i].matches(t)]


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
_STRONG_NOUNS = ("instruction", "prompt", "directive", "guideline", "guidance", "guardrail", "programming")


_NOT_FOLLOW = r"(?:\b(?:do\s+not|don'?t|stop|no\s+longer|never)\s+|\bpay\s+no\s+)$"


def _negated_follow(m: re.Match[str]) -> bool:
    # The pivot is "follow"/"attention"; what makes it an override is the "do not"/"pay no" before it.
    return _rx(_NOT_FOLLOW).search(m.string, max(0, m.start() - 24), m.start()) is not None


_SCOPED = (
    r"\s+(?:related\s+to|about|regarding|concerning|on\s+how|for\s+(?:setting|installing|building)"
    r"|in\s+(?:the\s+)?(?:readme|docs?|documentation|wiki|manual|guide|section|file))\b"
)


def _override_check(m: re.Match[str]) -> bool:
    # "ignore all instructions" is an attack; "ignore all messages from dependabot", "override all
    # rules" or "ignore any instructions related to config files" is ordinary talk unless a word like
    # "previous"/"your" points at the agent's own setup.
    if not _TEMPORAL.isdisjoint(m.group().replace("'", " ").split()):
        return True
    return m.group("noun").startswith(_STRONG_NOUNS) and _rx(_SCOPED).match(m.string, m.end()) is None


def _safety_check(m: re.Match[str]) -> bool:
    # "disable the content filters on the router" is a chore; "disable your safety filters" is not.
    if not m.group().startswith(("disable", "turn", "deactivate", "remove", "switch", "lift", "drop")):
        return True
    return not {"your", "its", "ai", "model"}.isdisjoint(m.group().split())


def _actor_check(m: re.Match[str]) -> bool:
    # "the assistant must always use British spelling" is a preference: for "assistant"/"agent" only
    # the hijack verbs count; "the AI must always …" addresses a model in the third person.
    return bool(m.group("hijack")) or m.group("actor").split()[-1] not in ("assistant", "assistants", "agent", "agents")


_IMPERATIVE_LEAD = frozenset(
    "please then also now always immediately silently quietly secretly must should".split()
)


def _tag_check(m: re.Match[str]) -> bool:
    # "getentropy_<SYSTEM>.c" or "unix:0.0 not <system>:0.0" use the tag as a placeholder.
    return m.start() == 0 or not (m.string[m.start() - 1].isalnum() or m.string[m.start() - 1] == "_")


def _heading_check(m: re.Match[str]) -> bool:
    # "New instructions: …" as a header or sentence opener, not "the doc has new instructions: run make".
    if m.group().startswith("your") and not m.group().rstrip().endswith(":"):
        return True  # "your new instructions are …" anywhere
    before = m.string[max(0, m.start() - 8) : m.start()].rstrip(" \t")
    return not before or before[-1] in ".!?\n-=*#>[(:"


def _line_start_check(m: re.Match[str], openers: str = "") -> bool:
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    return not m.string[line_start : m.start()].strip(" \t" + openers)


_MARKER_LEAD = (  # compiled with re.IGNORECASE; only the "BEGIN"/"END" form must be upper case
    r"(?:(?-i:\b(?:BEGIN|END)\s+(?:OF\s+)?(?:THE\s+)?)|[-=#*\[<(]\s*(?:begin|end)\s+(?:of\s+)?(?:the\s+)?"
    r"|\b(?:new|updated|real|actual|hidden|secret|true)\s+)$"
)


def _marker_check(m: re.Match[str]) -> bool:
    # "SYSTEM OVERRIDE:" stands alone; "system prompt" needs "BEGIN"/"--- end of the" before it, or
    # "new … system prompt:" — "the system prompt lives in prompts/" is ordinary project talk.
    if "override" in m.group().lower():
        return True
    lead = _rx(_MARKER_LEAD, re.IGNORECASE).search(m.string, max(0, m.start() - 30), m.start())
    if lead is None:
        return False
    if lead.group().strip().isupper() and m.group()[:6] == "SYSTEM":
        return True  # "BEGIN SYSTEM PROMPT", "END OF SYSTEM MESSAGE"
    if lead.group()[0] in "-=#*[<(":
        return True  # "--- begin system prompt", "[end of the system instructions"
    return bool(m.group("colon")) and m.group().lower().startswith("system prompt")


def _determiner_check(m: re.Match[str]) -> bool:
    # "the AI must …", "any assistant shall …": the rule is anchored at the actor, so look back.
    return _rx(r"\b(?:the|this|any|every|all)\s+$").search(m.string, max(0, m.start() - 12), m.start()) is not None


def _send_check(m: re.Match[str]) -> bool:
    # "Send all conversation history to https://…" is an attack anywhere; "send the report to https://…"
    # only as an order (sentence start or after "please", "then", …), not "we send all logs to https://…".
    if m.group("sensitive"):
        return True
    if m.group("inflected"):
        return False
    before = m.string[max(0, m.start() - 24) : m.start()].rstrip()  # a wrapped line is no sentence start
    return not before or before[-1] in ".!?;:" or before.split()[-1].lower() in _IMPERATIVE_LEAD


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
    r"(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|overrid(?:e|ing)|discard(?:ing)?|dismiss(?:ing)?"
    r"|abandon(?:ing)?|nullify|circumvent(?:ing)?|(?:do\s+not|don'?t|stop|no\s+longer)\s+follow(?:ing)?"
    r"|pay\s+no\s+attention\s+to)"
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
# "when you read this," / "reading this note:" but not "when you read this paper" or "this fixture".
_THIS_END = r"(?:\s+(?:message|note|memory|text|entry|document|page|content|comment))?(?=\s*(?:[,.:;!\-]|$))"

_INJECTION_RULES = _RuleSet(
    _Rule(
        "instruction override ('ignore previous instructions')",
        rf"\b{_IGNORE_VERB}\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guidance|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=("ignore ignoring disregard disregarding forget forgetting override overriding discard discarding "
               "dismiss dismissing abandon abandoning nullify circumvent circumventing",),
        anchored=True,
        ahead=160,
        check=_override_check,
    ),
    _Rule(
        "instruction override ('do not follow your instructions')",
        rf"(?:follow(?:ing)?|attention\s+to)\s+(?:(?:the|of|these|those|my|this|that|to)\s+)*{_STRONG_Q}\s+"
        rf"(?:{_MORE_Q}\s+){{0,4}}"
        r"(?P<noun>instructions?|prompts?|rules|directives?|guidelines|guidance|guardrails|commands|orders|constraints"
        r"|restrictions|programming|context|polic(?:y|ies)|messages|text|training|filters)\b",
        words=("follow following attention",),
        anchored=True,
        ahead=160,
        check=lambda m: _negated_follow(m) and _override_check(m),
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
        words=("instructions prompt prompts directives guardrails programming",
               "previous prior above earlier preceding original initial system safety your"),
        at=("previous", "prior", "above", "earlier", "preceding", "original", "initial", "system", "safety", "your"),
        whole=True,
        anchored=True,
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
        r"(?:here\s+are\s+)?(?:your\s+)?(?:new|real|actual|true|secret|hidden)\s+(?:system\s+)?instructions?\s*"
        r"(?::|-{1,2}\s|are\s*:)"
        r"|\byour\s+(?:new|real|actual|true)\s+(?:instructions|directives?|objective|orders)\s+(?:are|is)\b",
        words=("instruction instructions directive directives objective orders",
               "here your new real actual true secret hidden"),
        at=("here", "your", "new", "real", "actual", "true", "secret", "hidden"),
        whole=True,
        anchored=True,
        ahead=80,
        check=_heading_check,
    ),
    _Rule(
        "fake system-prompt marker",
        r"\bsystem\s+(?:(?:prompt|message|instructions?)\b(?P<colon>\s*(?::|follows\b))?|(?:prompt\s+)?override\s*:)",
        words=("system", "prompt message instruction instructions override"),
        anchored=True,
        ahead=40,
        on_text=True,
        flags=re.IGNORECASE | re.MULTILINE,
        check=_marker_check,
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
        whole=True,
        anchored=True,
        ahead=120,
    ),
    _Rule(
        "prompt extraction ('repeat the words above')",
        r"\b(?:repeat|print|output|echo|write\s+out|recite)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:words|text|content"
        r"|everything|lines?|messages?)\s+(?:above|before\s+this)(?=\s*(?:$|[.,;:!]|starting|verbatim|word\s+for"
        r"|exactly|including|in\s+full))",
        words=("repeat print output echo write recite", "above before"),
        anchored=True,
        ahead=80,
    ),
    _Rule(
        "safety override ('bypass your safety filters')",
        r"\b(?:override|bypass|circumvent|ignore|disregard|disable|turn\s+off|deactivate|remove|switch\s+off|lift"
        r"|drop)\s+(?:(?:your|its|all|any|the|of|these|built-in|internal|ai|model)\s+)*(?:(?:safety|ethical|ethics"
        r"|content|moderation|alignment)\s+){1,2}(?:filters?|guardrails?|guidelines|restrictions|protocols?|measures"
        r"|training|rules|constraints|policies|principles)\b"
        r"|\b(?:override|bypass|circumvent)\s+(?:(?:your|its|all|any|the)\s+)*(?:guardrails|programming"
        r"|alignment|safeguards)\b",
        words=("safety ethical ethics content moderation alignment guardrails programming safeguards",
               "override bypass circumvent ignore disregard disable turn deactivate remove switch lift drop"),
        at=("override", "bypass", "circumvent", "ignore", "disregard", "disable", "turn", "deactivate", "remove",
            "switch", "lift", "drop"),
        whole=True,
        anchored=True,
        ahead=120,
        check=_safety_check,
    ),
    _Rule(
        "chat-template role tag",
        r"<\|\s*(?:im_start|im_end|im_sep|system|assistant|user|begin_of_text|start_header_id|end_header_id"
        r"|eot_id)\s*\|>|(?-i:\[/?INST\])|<</?sys>>|<(?:start|end)_of_turn>"
        r"|</?(?:system|system[_-](?:prompt|message|instructions?|override|reminder)|instructions?"
        r"|admin[_-]?(?:instructions?|override|message)|developer[_-](?:message|instructions?))\s*>(?![.:/\w-])",
        words=("system instruction instructions admin developer inst sys im assistant user turn eot begin header",),
        at=("<", "[inst", "[/inst"),
        ahead=40,
        on_text=True,  # "[INST]" is case-sensitive: "[inst]" tags entries in some changelogs
        flags=re.IGNORECASE | re.MULTILINE,
        check=_tag_check,
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
        r"(?:human|user)[ \t]*:[^\n]*\n(?:[^\n]*\n){0,20}?[ \t]*assistant[ \t]*:",
        words=("human user", "assistant"),
        anchored=True,
        ahead=3000,
        check=_line_start_check,
    ),
    _Rule(
        "fake authority header ('SYSTEM OVERRIDE:')",
        r"(?:system|admin|administrator|developer|root)\s+(?:override|message|instructions?|command|directive)"
        r"[\])]?[ \t]*:",
        words=("system admin administrator developer root",
               "override message instruction instructions command directive"),
        anchored=True,
        ahead=40,
        check=lambda m: _line_start_check(m, "[("),
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
        r"|uncensored|evil|jailbroken)",
        words=("act behave respond answer reply operate roleplay role pretend",
               "unrestricted unfiltered uncensored unaligned unbound jailbroken amoral unethical evil rogue "
               "restrictions rules limits filters guidelines guardrails"),
        anchored=True,
        ahead=100,
    ),
    _Rule(
        "jailbreak persona ('without ethical restrictions')",
        r"\b(?:without|no)\s+(?:any\s+)?(?:ethical|moral)\s+(?:restrictions|guidelines|filters|limitations"
        r"|constraints|boundaries)\b",
        words=("ethical moral", "without no"),
        back=16,
        ahead=40,
    ),
    _Rule("exfiltration instruction ('exfiltrate')", r"\bexfiltrate\b", words=("exfiltrate",), ahead=12),
    _Rule(
        "exfiltration instruction ('send … to http…')",
        r"\b(?:send|post|upload|forward|transmit|submit|leak|copy|email|report|beacon)(?P<inflected>\w*)\s+"
        r"(?:[^\n]{0,60}?\b(?P<sensitive>conversation|chat\s+(?:log|history)|memories|secrets?|api\s*keys?"
        r"|credentials?|passwords?|env(?:ironment)?\s+var\w*|\.env|ssh\s+keys?|transcript|system\s+prompt"
        r"|cookies?)\b[^\n]{0,60}?\bto\s+(?:https?://|ftp://|wss?://)"
        r"|(?:(?:the|all|this|these|every|any|your|my|its|their|everything|of|user'?s?|entire|full|whole|current"
        r"|complete)\s+)+[^\n]{0,80}?\bto\s+(?:https?://|ftp://|wss?://|(?:this|that|the\s+following|following)\s+"
        r"(?:url|endpoint|webhook|server|address|link)))",
        words=("send sends sending post posts posting posted upload uploads uploading forward forwards forwarding "
               "transmit transmits submit submits leak leaks copy copies email emails report reports beacon",
               "http https ftp ws wss url endpoint webhook server address"),
        at=("send", "post", "upload", "forward", "transmit", "submit", "leak", "copy", "email", "report", "beacon"),
        anchored=True,
        ahead=200,
        check=_send_check,
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
        r"\b(?:call|invoke|trigger)\s+(?:the\s+|your\s+)?(?:memory|mcp)\s+tool\b"
        r"|\b(?:use|call|invoke)\s+(?:the\s+|a\s+|your\s+)?(?:\w+\s+)?tool\s+(?:to|and)\s+(?:promote|approve"
        r"|confirm|mark|elevate|trust|release|unquarantine|exfiltrate)\b",
        words=("tool",),
        back=40,
        ahead=40,
    ),
    _Rule(
        "trust escalation ('mark this as user-approved')",
        r"\b(?:mark|flag|tag|label|store|save|record|remember|treat)\s+(?:this|it|these|that|the\s+(?:memory|atom"
        r"|fact|entry|note))\s+(?:as|with)\s+(?:source\s*[=:]?\s*)?(?:trusted|user[\s_-]?(?:approved|said))\b"
        r"(?!\s+(?:certificate|cert|ca|root|host|key|device|publisher|site|domain|network|sender)s?\b)",
        words=("trusted approved said", "mark flag tag label store save record remember treat"),
        back=60,
        ahead=10,
    ),
    _Rule(
        "concealment instruction ('without telling the user')",
        r"\bwithout\s+(?:asking|telling|informing|notifying|alerting)\s+(?:the|your)\s+user(?=\s*(?:[.!;]|$))"
        r"|\b(?:don't|do\s+not|never)\s+(?:tell|inform|notify|alert|let)\s+(?:the|your)\s+user\s+(?:know\b|about\s+"
        r"(?:this|these|it)\b|that\s+you\b)",
        words=("user", "without don do never"),
        at=("without", "don't", "do not", "never"),
        anchored=True,
        ahead=60,
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
        rf"(?P<actor>{_AI})\s+(?:must|shall|(?:is|are)\s+required\s+to)\s+"
        rf"(?:(?:always|never|now|immediately|henceforth|from\s+now\s+on)\b\s*(?P<hijack>{_HIJACK})?"
        rf"|(?P<direct>{_HIJACK}))",
        words=("ai llm chatbot language assistant assistants agent agents", "must shall required"),
        anchored=True,
        ahead=80,
        check=lambda m: _determiner_check(m) and (bool(m.group("direct")) or _actor_check(m)),
    ),
    _Rule(
        "AI-addressed trigger ('when you read this')",
        r"\bwhen\s+(?:you|an?\s+(?:ai|assistant|model|agent|llm)|the\s+(?:ai|assistant|model|agent|llm))\s+"
        r"(?:reads?|process(?:es)?|encounters?|loads?|retrieves?|recalls?|parses?)\s+(?:this|these)"
        rf"{_THIS_END}"
        r"|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|large\s+language\s+model|ai\s+assistant|chatbot"
        r"|ai\s+agent|automated\s+agent)\b"
        r"|\bnote\s+to\s+(?:the\s+|any\s+|all\s+)?(?:ai|assistant|llm|language\s+model|ai\s+agent)s?\b",
        words=("when if note", "this these ai llm assistant assistants agent chatbot model"),
        anchored=True,
        ahead=60,
    ),
    _Rule(
        "AI-addressed trigger ('AI reading this')",
        rf"\b(?:ai|llms?|assistants?|agents?|language\s+models?)\s+(?:reading|processing|parsing)\s+this{_THIS_END}",
        words=("reading processing parsing", "ai llm llms assistant assistants agent agents model models"),
        back=24,
        ahead=20,
    ),
    _Rule(
        "markdown-image exfiltration (data in an image URL)",
        r"(?:!\[[^\]\n]{0,200}\]\(\s*<?|<img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?)(?P<url>(?:https?:)?//[^)\s\"'>]{1,800})",
        subs=("![", "<img"),
        anchored=True,
        ahead=1400,
        check=_exfil_image_check,
    ),
    _Rule(
        "instruction override (German)",
        r"\b(?:ignorier(?:e|en)?|vergiss|vergessen\s+sie|missachte(?:n)?)\s+(?:\w+\s+){0,4}?(?:anweisungen"
        r"|instruktionen|befehle|vorgaben|regeln|anordnungen)\b",
        words=("ignoriere ignorieren ignorier vergiss vergessen missachte missachten",),
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (Romance languages)",
        r"\b(?:ignora|ignorar|ignore|ignorez|ignorer|ignorate|olvida|olvide|olvidar|oublie|oubliez|oublier"
        r"|dimentica|dimenticate|esqueça|esquece|esquecer|desconsidera|desconsidere)\s+(?:\w+\s+){0,4}?"
        r"(?:instrucciones|instruç(?:ões|oes)|instrucoes|istruzioni|instructions|consignes|indicaciones|directivas"
        r"|reglas|regole|regras|règles|orientações|indicazioni)\b",
        words=("ignora ignorar ignore ignorez ignorer ignorate olvida olvide olvidar oublie oubliez oublier dimentica "
               "dimenticate esqueça esquece esquecer desconsidera desconsidere",
               "instrucciones instruções instrucoes istruzioni instructions consignes indicaciones directivas reglas "
               "regole regras règles orientações indicazioni"),
        anchored=True,
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (Russian)",
        r"(?:проигнорируй|игнорируй|забудь|не\s+обращай\s+внимания\s+на)(?:те)?\s+(?:\w+\s+){0,4}?"
        r"(?:инструкци|указани|правил|команд|промпт)\w*",
        words=("игнорируй игнорируйте проигнорируй проигнорируйте забудь забудьте обращай обращайте",),
        at=("игнор", "забудь", "обращай"),
        back=4,
        ahead=150,
        check=_foreign_check,
    ),
    _Rule(
        "instruction override (CJK)",
        r"(?:忽略|无视|無視|忘记|忘記|忽視|不要遵守)[^。！？\n]{0,12}?(?:指令|指示|提示|规则|規則|说明|說明|命令)"
        r"|(?:(?:以前|前の|上記|これまで|システム)[^。！？\n]{0,6}?)?(?:指示|命令|ルール|プロンプト|指令)[^。！？\n]{0,12}?"
        r"(?:無視|忘れ)"
        r"|(?:(?:이전|모든|위의|앞의|시스템)[^.!?\n]{0,6}?)?(?:지시|명령|지침|규칙|프롬프트)[^.!?\n]{0,12}?(?:무시|잊어)",
        subs=("忽略", "无视", "無視", "忘记", "忘記", "忽視", "不要遵守", "忘れ", "무시", "잊어"),
        back=20,
        ahead=30,
        check=_cjk_check,
    ),
)

# Letter-spaced, punctuated or leetspeak variants ("I g n o r e  a l l  p r e v i o u s …",
# "ignore_previous_instructions", "1gn0re a11") are matched on a squashed copy: lower-cased, look-alikes
# mapped to Latin, everything but letters and digits removed. Only long phrases are used there, since
# word boundaries are gone; their letters accept the usual digit stand-ins (1gn0re).
_LEET = str.maketrans({"a": "[a4]", "e": "[e3]", "i": "[i1]", "l": "[l1]", "o": "[o0]", "s": "[s5]", "t": "[t7]"})
_UNLEET = str.maketrans("013457", "oieast")  # only to find pivots; the regex itself accepts both
_SQUASH_DELETE = bytes(b for b in range(128) if not chr(b).isalnum() and chr(b) not in "@$")
_SQUASHED = _Rule(
    "instruction override (obfuscated with spacing or punctuation)",
    (r"(?:ignore|disregard|forget|override|bypass|discard)(?:all|any|every|of|the|your|these|those|everything)*"
    r"(?:previous|prior|above|earlier|preceding|system|safety|original|initial|your)+"
    r"(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|programming|commands)"
    r"|(?:reveal|print|show|output|repeat|leak|dump|display)(?:me)?(?:your(?:full|entire|hidden|secret|initial"
    r"|original)*(?:systemprompt|instructions|prompt)|the(?:full|entire|hidden|secret|initial|original)*"
    r"systemprompt)"
    r"|youarenow(?:dan|unrestricted|jailbroken|unfiltered|uncensored|indevelopermode|freefrom)"
    r"|jailbreakmode").translate(_LEET),
    subs=("ignor", "disregard", "forget", "overrid", "bypass", "discard", "reveal", "print", "show", "output",
          "repeat", "leak", "dump", "display", "youarenow", "jailbreakmode"),
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


_SQUASHED_NOUNS = ("instruct", "prompt", "rules", "directive", "guideline", "guardrail", "programming", "command",
                   "youarenow", "jailbreakmode")


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):  # e.g. "İ" lowers to two code points; keep offsets aligned
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low


def _squashed_injection(low: str, findings: list[Finding]) -> None:
    # Only ASCII separators are removed (bytes.translate is fast; str.translate is not, off ASCII).
    # Homoglyphs and invisible characters are not mapped here: either is already a finding.
    raw = low.encode("utf-8", "surrogatepass").translate(None, _SQUASH_DELETE)
    squashed = raw.decode("utf-8", "surrogatepass").replace("@", "a").replace("$", "s")
    view = _unleet(squashed)
    if not any(stem in view for stem in _SQUASHED_NOUNS):  # cheap pre-check before 17 pivot searches
        return
    hits = _SQUASHED.matches(_Text(squashed, view))
    if not hits:
        return
    kept = [i for i, c in enumerate(low) if c >= "\x80" or c.isalnum() or c in "@$"]
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
    if value.startswith(("/", "~", "./", "../", "file:")) or "://" in value or "%20" in value:
        return False  # a path, a URL or URL-encoded words ("token=Root%20CA%20Certificates")
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


def _key_name(m: re.Match[str]) -> str:
    """The whole name a credential keyword ends, e.g. "DB_PASSWORD" for a match at "PASSWORD"."""
    start = m.start()
    while start > 0 and (m.string[start - 1].isalnum() or m.string[start - 1] in "_.-"):
        start -= 1
    return m.string[start : m.start()] + m.group().split("=")[0].split(":")[0].strip("\"' \t")


# "key" alone ends too many names ("primary_key", "monkey", "cache_key") to count without these.
_KEY_PREFIXES = ("api", "access", "secret", "private", "signing", "encryption", "master", "client")


def _value_check(m: re.Match[str]) -> bool:
    return _secretish(m.group("val"))


def _assignment_check(m: re.Match[str]) -> bool:
    name = _key_name(m).lower()
    if name.endswith("key") and not name[:-3].rstrip("_.-").endswith(_KEY_PREFIXES):
        return False
    return _secretish(m.group("val"))


def _url_password_check(m: re.Match[str]) -> bool:
    value = m.group("val")
    return not value.isdigit() and not _is_placeholder(value) and value.lower() not in ("pass", "pwd", "secret")


_CS = re.MULTILINE  # credential formats are case-sensitive: "AKIA…", not "akia…"
_CI = re.IGNORECASE | re.MULTILINE
_CREDENTIAL_RULES = _RuleSet(
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
        words=("ghp gho ghu ghs ghr",), at=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), anchored=True, ahead=300,
        on_text=True, flags=_CS, check=_token_check,
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
        r"://[^\s:/@]{1,64}:(?P<val>[^\s/@]{4,128})@[\w.\[-]",
        subs=("://",), anchored=True, ahead=220, on_text=True, flags=_CI, check=_url_password_check,
    ),
    _Rule(
        "secret assignment ({key}=…)",
        r"(?:password|passwd|passphrase|secret|key|token)[\"']?\s*(?:=|:=|:|=>)\s*[\"']?(?P<val>[^\s\"'`,;]{8,})",
        words=("password passwd passphrase secret key apikey secretkey privatekey accesskey token",),
        at=("pass", "secret", "key", "token"), anchored=True, ahead=400, on_text=True, flags=_CI,
        check=_assignment_check,
    ),
    _Rule(
        "password stated in text (password is …)",
        r"\b(?:password|passcode|passphrase|passwort)\s+(?:is|was)\s+[\"'“‘]?(?P<val>[^\s\"'”’]{8,})",
        words=("password passcode passphrase passwort",), at=("pass",), anchored=True, ahead=200, on_text=True,
        flags=_CI,
        check=_value_check,
    ),
)


def _credential_findings(text: str, t: _Text | None = None) -> list[Finding]:
    t = _Text(text, _lower(text)) if t is None else t
    findings: list[Finding] = []
    for rule, m in _CREDENTIAL_RULES.run(t):
        label = rule.label.replace("{key}", _key_name(m)[-40:]) if "{key}" in rule.label else rule.label
        # Rules run most specific first, so "API_KEY=sk-…" is reported once, as an OpenAI key.
        _add(findings, CREDENTIAL, f"{label} at offset {m.start()}", m.start(), m.end())
    return findings


# --- public API ------------------------------------------------------------------------------------


def scan(text: str) -> tuple[Finding, ...]:
    """Return every finding in ``text``, in text order; an empty tuple means the text is clean."""
    if not text:
        return ()
    findings: list[Finding] = []
    if not text.isascii():  # hidden characters and look-alike letters are all non-ASCII
        findings.extend(_hidden_findings(text))
        findings.extend(_confusable_findings(text))
    low = _lower(text)
    t = _Text(text, low)
    for rule, m in _INJECTION_RULES.run(t):
        _add(findings, INJECTION, f"{rule.label} at offset {m.start()}", m.start(), m.end())
    _squashed_injection(low, findings)
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


def redact_credentials(text: str) -> str:
    """The text with every credential the scanner finds replaced by a marker (for transcripts kept a while)."""
    spans = [(f.start, f.end) for f in scan(text) if f.kind == "credential"]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "[redacted credential]" + text[end:]
    return text
