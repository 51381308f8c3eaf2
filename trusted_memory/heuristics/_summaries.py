"""Summaries: third-person episode summaries, one-line buffer summaries, and spotting replies posing as summaries.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trusted_memory.text import content_terms, fold

from ._extract import MAX_ATOM_CHARS, MAX_EXTRACT_CHARS, MAX_SENTENCE_CHARS
from ._rules import ATOM_KINDS, IMPERATIVE, classify
from ._sentences import LEAD, normalize_clause, split_sentences
from ._untrusted import FENCE, strip_untrusted

# --- episode summaries ------------------------------------------------------------------------------

_GREETING = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|thx|ty|ok|okay|cool|great|nice|sure|bye|good (?:morning|night|evening"
    r"|afternoon)|yes|no|yep|nope|perfect|awesome|lol|got it|sounds good|that works|ok that works|cheers"
    r"|welcome|you're welcome|np|no problem)\b[\s\w!.,']{0,20}$"
)
_PAST = {
    "is": "was",
    "are": "were",
    "am": "was",
    "'m": "was",
    "have": "had",
    "has": "had",
    "do": "did",
    "does": "did",
    "go": "went",
    "make": "made",
    "get": "got",
    "keep": "kept",
    "run": "ran",
    "write": "wrote",
    "build": "built",
    "choose": "chose",
    "find": "found",
    "think": "thought",
    "take": "took",
    "give": "gave",
    "can": "could",
    "will": "would",
    "'ll": "would",
    "can't": "couldn't",
    "don't": "didn't",
    "doesn't": "didn't",
    "isn't": "wasn't",
    "aren't": "weren't",
    "won't": "wouldn't",
    "feel": "felt",
    "say": "said",
    "see": "saw",
    "know": "knew",
    "send": "sent",
    "spend": "spent",
    "lose": "lost",
    "set": "set",
    "put": "put",
    "read": "read",
    "let": "let",
    "shut": "shut",
    "split": "split",
    "leave": "left",
    "mean": "meant",
    "buy": "bought",
    "bring": "brought",
    "teach": "taught",
    "sell": "sold",
    "tell": "told",
    "hold": "held",
    "stand": "stood",
    "understand": "understood",
    "begin": "began",
    "rewrite": "rewrote",
    "drive": "drove",
    "speak": "spoke",
    "grow": "grew",
    "show": "showed",
}
# Verbs that double their final consonant in the past tense (prefer → preferred).
_DOUBLE = frozenset(
    (
        "prefer",
        "plan",
        "stop",
        "ship",
        "drop",
        "commit",
        "admit",
        "refer",
        "submit",
        "permit",
        "control",
        "swap",
        "step",
        "map",
        "log",
        "tag",
        "plug",
        "scan",
        "skip",
        "chat",
        "pin",
        "ban",
        "zip",
    )
)
_OUTCOME = re.compile(
    r"^(?:(?:i|we)(?:'ve| have)?\s+(?:just\s+|now\s+|also\s+|successfully\s+)?)?(fixed|added|updated|implemented"
    r"|created|wrote|refactored|removed|renamed|moved|changed|replaced|ran|tested|installed|configured"
    r"|set up|deployed|merged|migrated|converted|cleaned up|found|identified|traced|resolved|rewrote"
    r"|split|extracted|optimi[sz]ed|improved|documented|bumped|upgraded|reverted|patched|enabled|disabled"
    r"|switched|verified|confirmed|committed|pushed|tracked down|narrowed|wired|added)\b\s+(\S.*)",
    re.IGNORECASE,
)
_ASK_PREFIX = re.compile(
    r"^(?:please|kindly|can you|could you|would you|will you|can u|could u|i need you to|i want you to"
    r"|i'd like you to|i would like you to|help me)\s+(?:please\s+)?",
    re.IGNORECASE,
)


# Verbs already in the simple past: "I went" stays "went", never "wented".
_ALREADY_PAST = frozenset(_PAST.values()) | frozenset(
    """ate became began bit blew bought brought caught chose came cost cut dealt did drank drew drove fell fed
    fought flew forgot froze got gave grew hung had heard hid hit held hurt kept knew laid led left lent lost
    made meant met paid put quit ran rang read rode rose said sat saw sold sent set shook shot shut sang sank
    slept slid spoke spent spun split stood stole stuck struck swam swore swung taught tore told thought threw
    understood woke wore won wept wrote was were went""".split()  # noqa: SIM905 - a word list reads better as prose
)


def _past(verb: str) -> str:
    """The simple past of a verb (a table for the irregular ones, rules for the rest)."""
    if verb in _PAST:
        return _PAST[verb]
    if verb in _ALREADY_PAST or verb.endswith("ed"):
        return verb
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if verb in _DOUBLE:
        return verb + verb[-1] + "ed"
    if verb.endswith("s") and verb[:-1] in _PAST:
        return _PAST[verb[:-1]]
    return verb + "ed"


_PERSON_WORD = re.compile(r"\b(?:i|we|you)'(?:m|ve|d|ll|re)\b|\b[a-z]+\b", re.IGNORECASE)
_AS_USER = {
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "we": "they",
    "us": "them",
    "our": "their",
    "ours": "theirs",
    "myself": "themselves",
    "ourselves": "themselves",
    "i'm": "they were",
    "i've": "they had",
    "i'd": "they would",
    "i'll": "they would",
    "we're": "they were",
    "we've": "they had",
    "we'd": "they would",
    "we'll": "they would",
    "you": "the assistant",
    "your": "the assistant's",
    "yours": "the assistant's",
    "yourself": "the assistant",
    "you're": "the assistant was",
    "you've": "the assistant had",
    "you'd": "the assistant would",
    "you'll": "the assistant would",
}
_AS_ASSISTANT = {
    "i": "it",
    "me": "it",
    "my": "its",
    "mine": "its",
    "myself": "itself",
    "we": "they",
    "us": "them",
    "our": "their",
    "i'm": "it was",
    "i've": "it had",
    "i'd": "it would",
    "i'll": "it would",
    "you": "the user",
    "your": "the user's",
    "yours": "the user's",
    "yourself": "the user",
    "you're": "the user was",
    "you've": "the user had",
    "you'd": "the user would",
    "you'll": "the user would",
}


def _person(text: str, speaker: str) -> str:
    """Rewrite first- and second-person words for a third-person account by ``speaker``."""
    table = _AS_USER if speaker == "user" else _AS_ASSISTANT
    return _PERSON_WORD.sub(lambda m: table.get(m.group(0).lower().replace("\u2019", "'"), m.group(0)), text)


def _user_point(sentence: str) -> str | None:
    """One third-person past-tense line for a user sentence, or None when it says nothing durable."""
    # Match on the normalised form, but write the summary from the user's own casing.
    raw = " ".join(LEAD.sub("", sentence).split()).rstrip(".!")
    low = normalize_clause(raw)
    if not low or _GREETING.match(low) or len(content_terms(low)) < 2:
        return None
    how = re.match(r"^how (?:do|can|should|would|could) (?:i|we) (.+?)\??$", raw, re.IGNORECASE)
    if how:
        return f"The user asked how to {_person(how.group(1), 'user')}"
    what = re.match(r"^(?:what|which)(?:\s+is|'s|\s+are) (.+?)\??$", raw, re.IGNORECASE)
    if what:
        return f"The user asked about {_person(what.group(1), 'user')}"
    ask = _ASK_PREFIX.match(raw)
    body = raw[ask.end() :].strip() if ask else raw
    if body.endswith("?") and not ask:
        return None
    body = body.rstrip("?").strip()
    blow = normalize_clause(body)
    if ask or IMPERATIVE.match(blow):
        if blow and IMPERATIVE.match(blow) and not blow.startswith(("let's", "don't", "never mind", "nvm")):
            return f"The user asked to {_person(body[:1].lower() + body[1:], 'user')}"
        return None
    lets = re.match(r"^let(?:'s|\s+us)\s+(.+)$", body, re.IGNORECASE)
    if lets:
        return f"They agreed to {_person(lets.group(1), 'user')}"
    if classify(blow).kind not in ATOM_KINDS:
        return None
    be = re.match(r"^(i|we)(?:'m|'re|\s+am|\s+are)\s+(.+)$", body, re.IGNORECASE)
    if be:
        subject, verb = ("The user", "was") if be.group(1).lower() == "i" else ("They", "were")
        return f"{subject} {verb} {_person(be.group(2), 'user')}"
    first = re.match(
        r"^(i|we)('ve|'d|'ll|\s+have|\s+would|\s+will)?\s+((?:(?:really|also|just|still|always|usually|never"
        r"|don't|do not|do|actually|definitely)\s+)*)([\w']+)\b(.*)$",
        body,
        re.IGNORECASE,
    )
    if first is None:
        return f"The user said {_person(body[:1].lower() + body[1:], 'user')}"
    subject = "The user" if first.group(1).lower() == "i" else "They"
    aux = (first.group(2) or "").strip().lower()
    adverbs = first.group(3).lower().split()
    verb, rest = first.group(4), _person(first.group(5), "user")
    if aux in ("'d", "would", "'ll", "will"):
        return f"{subject} would {' '.join(adverbs + [verb])}{rest}"
    if "don't" in adverbs or "not" in adverbs:
        kept = [a for a in adverbs if a not in ("do", "don't", "not")]
        return f"{subject} {' '.join(kept + ['did not', verb])}{rest}"
    kept = [a for a in adverbs if a != "do"]
    return f"{subject} {' '.join(kept + [_past(verb.lower())])}{rest}"


def _assistant_point(sentence: str) -> str | None:
    """A "The assistant fixed …" line when the assistant reports an outcome, else None."""
    raw = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", sentence).strip().rstrip(".!:")
    m = _OUTCOME.match(raw)
    if not m or len(content_terms(m.group(2))) < 1 or raw.endswith("?"):
        return None
    return f"The assistant {m.group(1).lower()} {_person(m.group(2), 'assistant')}"


def _fit(sentences: Sequence[str], max_bytes: int) -> str | None:
    """Join whole sentences up to ``max_bytes`` of UTF-8; cut the first at a word if even it is too long."""
    out: list[str] = []
    used = 0
    for s in sentences:
        size = len(s.encode()) + (1 if out else 0)
        if used + size > max_bytes:
            break
        out.append(s)
        used += size
    if out:
        return " ".join(out)
    if not sentences or max_bytes < 8:
        return None
    budget = max_bytes - len("…".encode())
    cut = sentences[0].encode()[:budget].decode(errors="ignore")
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def summarize_turns(turns: Sequence[tuple[str, str]], max_bytes: int = 2048) -> str | None:
    """A third-person, past-tense episode summary of a session, ≤ max_bytes; None if nothing is worth keeping."""
    points: list[str] = []
    seen: set[str] = set()
    for role, text in turns:
        prose = strip_untrusted(text)
        taken = 0
        for sentence in split_sentences(prose[:MAX_EXTRACT_CHARS]):
            if taken >= 4:
                break
            if len(sentence) > MAX_SENTENCE_CHARS:
                continue  # pasted rather than typed, as for extraction
            point = _user_point(sentence) if role == "user" else _assistant_point(sentence)
            if point is None:
                continue
            point = " ".join(point.split())
            if len(point) > MAX_ATOM_CHARS:
                point = point[: MAX_ATOM_CHARS - 1].rsplit(" ", 1)[0] + "…"
            key = fold(point)
            if key in seen or looks_like_turn_or_refusal(point):
                continue  # a point that reads like a reply would get the whole summary rejected
            seen.add(key)
            points.append(point[:1].upper() + point[1:].rstrip(".,;: ") + ".")
            taken += 1
    if not points:
        return None
    # After the first mention, consecutive user points read better with "they".
    for i in range(1, len(points)):
        if points[i].startswith("The user ") and points[i - 1].startswith(("The user ", "They ")):
            rest = points[i][len("The user ") :]
            points[i] = "They were " + rest[4:] if rest.startswith("was ") else "They " + rest
    return _fit(points, max_bytes)


# --- one-line summaries and reply detection ---------------------------------------------------------


def one_line(text: str, limit: int = 100) -> str:
    """The first meaningful sentence of a text on one line, cut at a word boundary with "…"."""
    without_code = FENCE.sub("\n", text)
    # The buffer line comes from the first line; a long message needs no more than its start read.
    head = (without_code if without_code.strip() else text)[: limit * 40]
    lines = [ln.strip() for ln in head.splitlines()]
    lines = [ln for ln in lines if ln and any(c.isalnum() for c in ln) and not ln.startswith(("```", "~~~"))]
    if not lines:
        return ""
    sentences = split_sentences(" ".join(lines[0].split()))
    if not sentences:
        return ""
    # Skip a leading "Thanks!" or "Ok." when something follows on the same line.
    line = next((s for s in sentences if not _GREETING.match(normalize_clause(s))), sentences[0])
    if len(line) <= limit:
        return line
    cut = line[: max(1, limit - 1)]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


_REPLY_START = re.compile(
    r"^(?:sure|certainly|of course|absolutely|okay|ok|great|happy to|i'd be happy|i would be happy|i can't"
    r"|i cannot|i can not|i'm sorry|i am sorry|sorry|as an ai|as a language model|here is|here's|here are"
    r"|i'm unable|i am unable|i won't|unfortunately|thanks|thank you|hello|hi|hey|no problem|got it"
    r"|let me|i apologi[sz]e|understood|alright|i understand|good question|great question|i'll|i will"
    r"|below is|this summary)\b"
)
_REPLY_ANY = re.compile(
    r"\b(?:as an ai|language model|i can't (?:help|assist|do that|provide)|i cannot (?:help|assist|provide)"
    r"|i'm not able to|i am not able to|i'm unable to|let me know|feel free|is there anything else"
    r"|would you like|hope this helps|you|your|you're|you've|yours)\b"
)


def looks_like_turn_or_refusal(summary: str) -> bool:
    """True when a supposed summary reads like a chat reply or a refusal rather than a summary."""
    low = normalize_clause(summary.strip().strip("\"'*# "))
    if not low:
        return True
    if _REPLY_START.match(low) or _REPLY_ANY.search(low):
        return True
    # A question anywhere means the model is talking to someone, not recording what happened.
    return re.search(r"\?(?:\s|$)", low) is not None
