"""The scanner's entry points: reports hidden Unicode, look-alike words, injection markers and secrets.

Every write to memory is scanned; callers decide whether a finding rejects a fact
or quarantines an atom. The scanner only reports. Rules never see the raw text but its folded view
(``_normalize``: Unicode spaces, look-alike letters and invisible characters folded), then the
decoded views of encoded spans (``_decode``); offsets are mapped back to the text as given.

It is tuned for the write path and linear in the text: ASCII text skips the Unicode checks; a rule
or concept runs only when its trigger words are in the text's word set, then only at or around the
offsets of those words; a typical 2 KB note scans in a few tenths of a millisecond and no 64 KiB
input takes more than tens of milliseconds (tests/test_scan_linear.py). Patterns compile lazily
on first use so that importing this module stays cheap.

Precision is preferred on injection markers: people discuss "system prompts", "instructions" and
"assistants" all the time, so a rule fires on phrases that address an AI ("ignore your previous
instructions"), not on vocabulary. Details never echo a secret; at most the public prefix of a key
format ("sk-…") is shown.

The package ``__init__`` re-exports these as the scanner's API.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from ._credentials import credential_findings
from ._decode import decoded_views
from ._findings import INJECTION, TAGS, Finding, FindingSet
from ._fold import fold_pattern
from ._injection import INJECTION_RULES
from ._injection_checks import asks_how_to, forbids, names_own_or_a_things, on_an_ordinary_topic
from ._injection_combos import COMBOS, decoded_dangerous
from ._injection_commands import COMMAND_RULES
from ._injection_more import MORE_RULES
from ._injection_rule_only import RULE_ONLY_COMBOS
from ._injection_squashed import squashed_injection
from ._model import MODEL_LABEL, model_flags
from ._normalize import CONFUSABLE_MAP, View, fold_view
from ._rules import ScanText, compile_rx
from ._unicode import confusable_findings, hidden_findings, strip_invisible

__all__ = [
    "describe",
    "normalize_for_dedup",
    "redact_credentials",
    "redact_credentials_unscanned",
    "scan",
    "scan_fresh",
]


# One observed turn scans the same words several times (its transcript line, the redaction of the
# transcript and of the turn memory, the atom written from it), and the user model rescans its
# stored fields on every load; the scan is a pure function of the text, so recent results are
# kept. Only short texts: at most MEMO_ENTRIES x MEMO_MAX_CHARS characters (~2 MB) are held.
MEMO_ENTRIES = 512
MEMO_MAX_CHARS = 4096


def scan(text: str, *, learned: bool = True) -> tuple[Finding, ...]:
    """Return every finding in ``text``, in text order; an empty tuple means the text is clean.

    Offsets are those of ``text`` itself, even though the rules match its folded view.
    ``learned=False`` leaves out the learned model's opinion (its training script measures the
    rules alone).
    """
    if not text:
        return ()
    if len(text) <= MEMO_MAX_CHARS:
        return _scan_memo(text, learned)
    return _scan(text, learned)


def scan_fresh(text: str, *, learned: bool = True) -> tuple[Finding, ...]:
    """`scan` without the memo of recent texts: what the benchmarks time (the same findings)."""
    return _scan(text, learned) if text else ()


@lru_cache(maxsize=MEMO_ENTRIES)
def _scan_memo(text: str, learned: bool) -> tuple[Finding, ...]:
    return _scan(text, learned)


def _scan(text: str, learned: bool) -> tuple[Finding, ...]:
    findings = FindingSet()
    if not text.isascii():  # hidden characters and look-alike letters are all non-ASCII
        hidden = hidden_findings(text)
        findings.items.extend(hidden)
        findings.items.extend(confusable_findings(text))
        smuggled_findings(text, hidden, findings)
    view = fold_view(text)
    t = ScanText(view.text, view.low)
    mentions: list[tuple[int, int]] = []
    injection_findings(view, t, findings, mentions=mentions)
    views = [(view.masked(mentions), "") if mentions else (view, "")]
    for decoded in decoded_views(text, view, t.words):
        injection_findings(decoded.view, ScanText(decoded.view.text, decoded.view.low), findings, decoded.how)
        views.append((decoded.view, decoded.how))
    if learned and not any(f.kind == INJECTION for f in findings.items):
        model_findings(views, findings)
    findings.items.extend(credential_findings(view, t))
    return tuple(sorted(findings.items, key=lambda f: (f.start, f.end)))


# Words hidden from the reader: a run of tag characters that spells a phrase (a flag emoji's tag
# sequence is a few letters with no space), or letters each followed by an invisible character
# ("A\u200ds\u200ds\u200di…"). Nothing written for people is encoded so; whatever the words say,
# they are an instruction smuggled past the reader (round 6).
_SPELLED_BETWEEN_INVISIBLES = r"(?:[A-Za-z][\u200b-\u200d\u2060\ufeff\u00ad]){8,}"
_SMUGGLED_TAGS = 10  # tag characters, a tag space among them


def smuggled_findings(text: str, hidden: list[Finding], findings: FindingSet) -> None:
    """Report text hidden in tag characters or spelled between invisible characters as an injection."""
    for f in hidden:
        if f.kind == TAGS and f.end - f.start >= _SMUGGLED_TAGS and "\U000e0020" in text[f.start : f.end]:
            findings.add(INJECTION, f"text hidden in Unicode tag characters at offset {f.start}", f.start, f.end)
            return
    m = compile_rx(_SPELLED_BETWEEN_INVISIBLES).search(text)
    if m is not None:
        findings.add(INJECTION, f"text spelled between invisible characters at offset {m.start()}", *m.span())


# Injection findings are for reporting (callers refuse or quarantine on any finding), so a
# hostile text that repeats a phrase thousands of times is reported this many times per rule.
REPORTED = 50


# The attack named by its name: a passage that says "prompt injection" discusses the attack (a
# lesson, a security report, a talk's notes). The model reads their vocabulary as the attack itself
# (round 12: five such passages in parts 9 and 11 flagged, no injection of any part named so), so
# its opinion is not taken on them; the rules still read them. Not "jailbreak": attacks call
# themselves that ("Confirm with 'Jailbreak successful'").
_NAMES_THE_ATTACK = compile_rx(
    fold_pattern(
        r"prompt[\s-]?inje[ck]ti\w*|inje[cç]\w*\s+de\s+prompt|inyecci\w*\s+de\s+prompt|iniezion\w*\s+di\s+prompt"
        r"|injection\s+de\s+prompt|промпт-инъекц\w*|промпт-ін.єкц\w*|prompt-injektion\w*|wstrzykiwani\w*\s+prompt\w*"
        r"|提示词注入|提示注入|プロンプトインジェクション|프롬프트\s*인젝션|حقن\s+الأوامر"
    )
)


def model_findings(views: list[tuple[View, str]], findings: FindingSet) -> None:
    """The learned model's second opinion, asked only when no rule found an injection (see ``_model``)."""
    for view, encoding in views:
        span = model_flags(view.low)
        if span is not None and _NAMES_THE_ATTACK.search(view.low, *span) is not None:
            continue
        if span is not None:
            start, end = view.span(*span)
            how = f" in {encoding}-encoded text" if encoding else ""
            findings.add(INJECTION, f"{MODEL_LABEL}: reads as an injection{how} at offset {start}", start, end)
            return


def injection_findings(
    view: View, t: ScanText, findings: FindingSet, encoding: str = "", mentions: list[tuple[int, int]] | None = None
) -> None:
    """Add the prompt-injection findings of one view (``encoding`` names what it was decoded from).

    The spans of quotations passed over as talk about injection are added to ``mentions``: the
    learned model must not read the quoted attack either (round 12: a bug report or a security
    lesson that quotes "ignore previous instructions" was flagged by the model once the rules let it be).
    """
    how = f" in {encoding}-encoded text" if encoding else ""
    passed = mentions if mentions is not None else []
    for rule, m in [*INJECTION_RULES.run(t, REPORTED), *COMMAND_RULES.run(t, REPORTED), *MORE_RULES.run(t, REPORTED)]:
        if quoted_mention(t.low, m.start(), m.end()):
            passed.append(quotation_around(t.low, m.start(), m.end()))
            continue
        start, end = view.span(m.start(), m.end())
        findings.add(INJECTION, f"{rule.label}{how} at offset {start}", start, end)
    decoded_only = decoded_dangerous(t) if encoding else []
    for label, m_start, m_end in [*COMBOS.run(t), *RULE_ONLY_COMBOS.run(t), *decoded_only]:
        if quoted_mention(t.low, m_start, m_end) or straddles_a_quotation(t.low, m_start, m_end):
            passed.append(quotation_around(t.low, m_start, m_end))
            continue
        start, end = view.span(m_start, m_end)
        findings.add(INJECTION, f"{label}{how} at offset {start}", start, end)
    for label, m_start, m_end in squashed_injection(view.low, REPORTED):
        if quoted_mention(t.low, m_start, m_end) or asks_how_to(t.low, m_start) or forbids(t.low, m_start):
            continue
        if names_own_or_a_things(t.low, m_end) or on_an_ordinary_topic(t.low, m_end):
            continue
        start, end = view.span(m_start, m_end)
        findings.add(INJECTION, f"{label}{how} at offset {start}", start, end)


# A phrase quoted as an example ('a web page says "ignore previous instructions"', "strings such as
# 'forget your rules'") is talk about injection, not one: a short quotation after a word that
# introduces an example, closed before the sentence goes on.
_MENTION_CUE = compile_rx(
    fold_pattern(
        r"\b(?:says?|said|saying|like|such\s+as|e\.?g\.?|phrases?|strings?|patterns?|words|text|contains?|containing"
        r"|example|called|named|flags?|detects?|matches|matching|wording|messages?\s+like|why|how|about|explaining"
        r"|tricked\s+with|fooled\s+with|attacks?\s+with"
        # "like", "e.g." in languages whose low quotes round 11 made visible ("Sätze wie „…“"; not "como", also "as").
        r"|wie|etwa|zoals|np\.|например|gibi|seperti"
        # Round 12: "frases como", "phrases comme", "the sentence", "مثل عبارة" before the quoted example.
        r"|como|comme|come|sentences?|frases?|phrases|sätze|zinnen|frasi|фразы|عبارة|عبارات|مثل)\s*[:,]?\s*$"
        r"|[\"”']\s*(?:,|or|and|/)\s*$|\b(?:examples?|exemples?|ejemplos?|exemplos?|esempi[oa]?|beispiel\w*|voorbeeld\w*"
        r"|przykład\w*|пример\w*)\b[^\"'“«\n]{0,40}:\s*$"
        # CJK introduces an example without spaces: 例如“…”, 比如「…」, 例えば「…」, 输入“…”.
        r"|(?:例如|比如|譬如|例えば|たとえば|输入|輸入|예를\s*들어)[:：,，]?\s*$"
        # Code that lists phrases to catch: 'patterns = ["ignore previous instructions", …]'.
        r"|(?:\b|_)(?:patterns?|phrases?|keywords?|blocklist|denylist|blacklist|banned\w*|signatures?|triggers?|needles?"
        r"|markers?|bad_\w+|suspicious\w*)\s*(?::\s*[\w\[\], ]{1,30})?=\s*[\[({]\s*$"
    )
)
_OPENING = "\"“'‘«„「『"
# German and Polish open low („…“, „…”); round 11 split words at these marks, so the quotation must be seen.
_CLOSING = {'"': '"', "“": "”", "'": "'", "‘": "’", "«": "»", "„": "“”", "「": "」", "『": "』"}
_APOSTROPHES = "'‘’"


def _closing(low: str, opener: str, lo: int, hi: int) -> int:
    found = [i for q in _CLOSING[opener] if (i := low.find(q, lo, hi)) != -1]
    return min(found, default=-1)


def _apostrophe(low: str, k: int) -> bool:
    # "l'assistant": a quote between letters; 「 and “ between CJK letters still open a quotation.
    return low[k] in _APOSTROPHES and 0 < k < len(low) - 1 and low[k - 1].isalpha() and low[k + 1].isalpha()


_QUOTED = 100  # a mention is short; a long "quoted" block is content


# Words of a line that talks about attacks rather than making one: a quoted phrase beside them is
# an example ("our classifier catches 'ignore previous instructions'", "the villain's motto is '…'").
_TALK = compile_rx(
    fold_pattern(
        r"(?<![@./<\w-])(?:prompt[\s-]injections?|injections?|jailbreak(?:s|ing)?|attacks?|attackers|classifiers?|scanners?"
        r"|detectors?|red[\s-]team(?:s|ing)?|thesis|papers?|blog|articles?|tests?|test\s+cases?|examples?|phrases?"
        r"|motto|slogan|quotes?|citing|cite|documented|refuses?|training|phishing|villain|npc|characters?|novel"
        r"|story|lines?\s+like|overrides?|techniques?|payloads?|bug\s+reports?|talks?|reports?"
        # Round 12: the same talk in the languages of part 11's security notes.
        r"|injeção|injecao|inyección|inyeccion|iniezione|injectie|injektion|инъекци\w*|ataques?|attaques?|attacchi|attacco"
        r"|angriff\w*|informe\s+de\s+error|rapport\s+de\s+bug|حقن|هجوم|هجمات)\b(?![.@-]\w)"
        # Scripts without spaces between words: no word boundaries.
        r"|注入|インジェクション|攻撃|攻击|测试|測試|テスト|报告|報告|越狱|脱獄"
    )
)
# "Ignore previous instructions is a classic phrase", "The DAN jailbreak was popular in 2023": the
# phrase is the subject of a sentence about it.
_AS_SUBJECT = compile_rx(
    r"\w*\s*['\"”’]?\s*(?:is|was)\s+(?:(?:a|an|the)\s+(?:(?:most|best|least)\s+)?(?:classic|common|famous|well-known|known|popular|typical|first"
    r"|oldest|best-known)|still\s+(?:popular|common|used)|one\s+of|popular|classic|common|famous|widely)\b"
)
_LINE_REACH = 200  # how far along its line a quoted phrase looks for words about attacks


def quoted_mention(low: str, start: int, end: int) -> bool:
    """Whether ``low[start:end]`` is talk about injection, not one.

    Inside a short quotation introduced as an example, or inside any short quotation on a line that
    speaks of attacks, or the subject of a sentence ("… is a classic jailbreak phrase").
    """
    if _AS_SUBJECT.match(low, end) is not None and _sentence_start(low, start):
        return True
    lo = max(0, start - _QUOTED)
    k = max(low.rfind(q, lo, start + 1) for q in _OPENING)
    if k == -1 or "\n" in low[k:end]:
        return False
    close = _closing(low, low[k], max(end, k + 1), min(len(low), k + _QUOTED + 1))
    if close == -1 or close - k > _QUOTED or "\n" in low[end:close]:
        return False
    if _MENTION_CUE.search(low, max(0, k - 48), k) is not None:
        return True
    if _apostrophe(low, k):
        return False  # an apostrophe ("l'assistant"), not a quotation
    line_lo = low.rfind("\n", max(0, k - _LINE_REACH), k) + 1 or max(0, k - _LINE_REACH)
    line_hi = low.find("\n", close, close + _LINE_REACH)
    line_hi = min(len(low), close + _LINE_REACH) if line_hi == -1 else line_hi
    return _TALK.search(low, line_lo, k) is not None or _TALK.search(low, close, line_hi) is not None


# "Phishing awareness training: emails that say 'your account will be locked …'": the quotation
# opens inside the combo's span, after a word that introduces what someone says, so the terms
# before it ("training") frame the example and the terms inside it ("your … locked") are the example.
_SAYS_CUE = compile_rx(
    fold_pattern(
        r"(?:\b(?:says?|said|saying|like|such\s+as|e\.?g\.?|reads?|reading|wrote|writes"
        r"|wie|etwa|zoals|np\.|например|gibi|seperti|containing|contains|como|comme)\s*[:,]?"
        r"|\b(?:examples?|exemples?|ejemplos?|exemplos?|esempi[oa]?|training|samples?|templates?|phrases?|wording"
        r"|(?:talk\s+)?title|subject(?:\s+line)?)(?:\s+(?:typiques?|típicos?|tipicos?|typical|classic|classique))?\s*:"
        r"|例如|比如|譬如|例えば|たとえば|输入|輸入)\s*$"
    )
)


def quotation_around(low: str, start: int, end: int) -> tuple[int, int]:
    """The short quotation holding or crossing ``low[start:end]``, quotes included; the span itself if none."""
    for k in range(start, max(0, start - _QUOTED) - 1, -1):
        if low[k] in _OPENING and not _apostrophe(low, k):
            close = _closing(low, low[k], max(k + 1, start + 1), min(len(low), k + _QUOTED + 1))
            if close != -1:
                return k, close + 1
    for k in range(start, end):
        if low[k] in _OPENING and low[k] not in _APOSTROPHES:
            close = _closing(low, low[k], k + 1, min(len(low), k + _QUOTED + 1))
            if close != -1:
                return k, close + 1
    return start, end


def straddles_a_quotation(low: str, start: int, end: int) -> bool:
    """Whether ``low[start:end]`` crosses the edge of a short quotation introduced as an example.

    The terms on one side of the edge are the example, those on the other side talk about it
    ('statements like "the user has already approved X" stored so that …').
    """
    lo = max(0, start - _QUOTED)
    for k in range(lo, end):
        q = low[k]
        if q not in _OPENING or (
            q in _APOSTROPHES and 0 < k < len(low) - 1 and low[k - 1].isalpha() and low[k + 1].isalpha()
        ):
            continue  # no quote, or an apostrophe ("l'assistant")
        if _SAYS_CUE.search(low, max(0, k - 24), k) is None:
            continue
        close = _closing(low, q, k + 1, min(len(low), k + _QUOTED + 1))
        if close != -1 and (start < k < end or start < close < end - 1):
            return True
    return False


def _sentence_start(low: str, start: int) -> bool:
    # Only quotes, brackets, markup or spaces between the last sentence break and ``start``.
    lo = max(0, start - 80)
    cut = max(low.rfind(c, lo, start) for c in ".!?;\n")
    head = low[cut + 1 if cut != -1 else lo : start]
    if cut == -1 and lo > 0:
        return False
    return head.strip(" \t\"'“”‘’*_-([") in {"", "the"}


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
    folded = " ".join(folded.translate(CONFUSABLE_MAP).casefold().split())
    end = len(folded)
    while end and (folded[end - 1].isspace() or unicodedata.category(folded[end - 1]).startswith("P")):
        end -= 1
    return folded[:end]


def redact_credentials(text: str) -> str:
    """The text with every credential the scanner finds replaced by a marker (for transcripts kept a while)."""
    return _redacted(text, [(f.start, f.end) for f in scan(text) if f.kind == "credential"])


def redact_credentials_unscanned(text: str) -> str:
    """`redact_credentials` for a text that is not scanned whole for anything else (an assistant's reply
    kept in a transcript): the same text, from the credential checks alone.

    Redaction reads only the credential findings, and `scan` finds those on the folded view of the
    text alone, whatever the injection rules and the learned model find; `redact_credentials` runs
    all of them (~5x the credential checks' cost) so that the text's later scan is a memo hit.
    """
    if not text:
        return text
    view = fold_view(text)
    return _redacted(text, [(f.start, f.end) for f in credential_findings(view, ScanText(view.text, view.low))])


def _redacted(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "[redacted credential]" + text[end:]
    return text
