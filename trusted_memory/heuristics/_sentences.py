"""Sentences and clauses: splitting prose, normalising a clause, and the openers the rules look past.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import functools
import re

from trusted_memory.text import fold

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+|;\s+|\s+[-–—]{1,2}\s+")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|approx|mr|mrs|ms|dr|st|no|cf|fig)\.)$", re.IGNORECASE)
CLAUSE_SPLIT = re.compile(
    r"(\s*,\s*(?:and|but|so|plus|though|although)?\s*|\s+(?:and|but|so|plus|though|although|whereas)\s+)", re.IGNORECASE
)


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences, re-joining breaks after abbreviations such as "e.g."."""
    out: list[str] = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        tail = text[max(pos, m.start() - 8) : m.start()]
        if "\n" not in m.group(0) and _ABBREV.search(tail):
            continue
        out.append(text[pos : m.start()].strip())
        pos = m.end()
    out.append(text[pos:].strip())
    return [s for s in out if s]


@functools.lru_cache(maxsize=1024)
def normalize_clause(text: str) -> str:
    """Lower-case a clause and spell out the contractions and chat shorthand the rules expect."""
    s = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0)], fold(text).replace("`", ""))
    return " ".join(s.split())


_SHORTHAND = {
    "i am": "i'm",
    "im": "i'm",
    "ive": "i've",
    "i have been": "i've been",
    "we are": "we're",
    "id rather": "i'd rather",
    "i would rather": "i'd rather",
    "i would like": "i'd like",
    "do not": "don't",
    "dont": "don't",
    "cannot": "can't",
    "can not": "can't",
    "cant": "can't",
    "lets": "let's",
    "let us": "let's",
    "wanna": "want to",
    "gonna": "going to",
    "gotta": "have to",
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "we will": "we'll",
    "i will": "i'll",
    "favorite": "favourite",
    "fave": "favourite",
}
_SHORTHAND_RE = re.compile(
    r"(?<![\w'])(?:" + "|".join(re.escape(k) for k in sorted(_SHORTHAND, key=len, reverse=True)) + r")(?![\w'])"
)

# Discourse openers carry no content; removed from the text too.
LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|also|and|but|plus|oh|ah|hmm+|um+|uh+|ugh+|yeah|yep|yes|no|nope|right|alright"
    r"|cool|great|nice|sure|btw|by the way|fyi|fwiw|tbh|honestly|actually|basically|anyway|anyways|lol|haha"
    r"|hey|hi|hello|ps|just so you know|for the record|heads up|as you know|oh and|one more thing|fun fact"
    r"|side note|now|lately|recently|currently|also note|quick note|just fyi|in general|generally speaking"
    r"|for context|for reference|just a heads up|a heads up)\b[\s,:!.\-]*)+",
    re.IGNORECASE,
)
# Hedges soften a statement; kept in the text, removed for matching, confidence lowered.
HEDGE = re.compile(r"^(?:i think|i guess|i believe|i suppose|i feel like|probably|maybe|i'd say|imo|imho)\b[\s,]*")
# "Remember that …" is removed here rather than in LEAD: it also marks the rest as worth keeping as a note.
EXPLICIT = re.compile(
    r"^(?:please\s+)?(?:(?:remember|keep in mind|note)(?:\s+that\b|\s*:)"
    r"|for future reference\b|for the record\b)[\s,:]*",
    re.IGNORECASE,
)
LABEL = re.compile(
    r"^(?P<label>[a-z][\w' -]{0,40}?\b(?:context|note|fyi|update|heads up|reminder|important|background|info"
    r"|btw|ps|side note|for the record|tl;?dr|summary|edit)\b[\w' -]{0,30}?):\s+",
    re.IGNORECASE,
)
SELF_NOTE = re.compile(
    r"^(?:note to self|til|today i learned|lesson learned|lessons learned)\b[\s:,\-]*", re.IGNORECASE
)
RULE_SCOPE = re.compile(
    r"^(?:from now on|going forward|from here on(?: out)?|moving forward|in (?:this|our|the) "
    r"(?:repo|repository|project|codebase|team|company|monorepo))\b[\s,:]*",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    r"^(?:if|suppose|supposing|imagine|assuming|assume|hypothetically|what if|let's say|say we|in case"
    r"|even if|were i|had i|i wonder|i was wondering|i'm wondering)\b"
)
STRONG_HYPOTHETICAL = re.compile(r"\b(?:were|would|could|might|'d|should)\b|\?")
SUBORDINATE = re.compile(
    r"^(?:when|whenever|if|before|after|once|unless|until|while|every time|each time|in|on|for|from now on"
    r"|going forward)\b"
)
PRONOUN_START = re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|he|she|they|it|it's|you|let's)\b")
DEICTIC = re.compile(
    r"\b(?:it(?!\s+(?:when|if|whenever)\b)|them|him|her)\b|\b(?:this|that|these|those)\b(?=\s*(?:$|[,.;:!?)]|(?:is|was|are|were|way|one"
    r"|ones|thing|stuff|again|too|instead|for|to|in|on|with|at|from|by|as|so|because|but|and|or|will|would"
    r"|should|could|can|might|must)\b))"
)
# Verbs that can follow "and" with the subject left out ("we use X and deploy to Y").
SHARED_VERBS = frozenset(
    (
        "use",
        "uses",
        "deploy",
        "deploys",
        "host",
        "hosts",
        "run",
        "runs",
        "prefer",
        "like",
        "love",
        "hate",
        "live",
        "work",
        "keep",
        "store",
        "ship",
        "release",
        "write",
        "always",
        "never",
        "usually",
        "switched",
        "moved",
        "decided",
        "chose",
        "picked",
    )
)
