"""Heuristic anticipation: likely follow-up intents, the first pronoun of a message, next steps.

The follow-up table is a small map of what people usually ask next after a kind of activity
(finishing code → testing, reviewing, shipping; an error → how it was fixed before). It is written
for how people work in general, not for any one benchmark, and the memory LLM replaces it when
one is configured.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text import content_terms

# Characters read per text: the follow-up patterns look at what the message is about, which its
# start says; a 64 KiB paste would otherwise cost ~65 ms of pattern matching per call.
MAX_TEXT_CHARS = 4096

# (what the message is about, follow-up queries the user is likely to need next)
_FOLLOW_UPS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), intents)
    for pattern, intents in (
        (
            r"\b(?:finished|done with|wrote|implemented|added|refactor(?:ed|ing)?|changed|updated|rewrote|fixed"
            r"|merged)\b"
            r"[^.!?]{0,60}\b(?:code|function|module|class|feature|endpoint|component|file|handler|service|tests?|bug|pr"
            r"|branch|api|refactor(?:ing)?|migration|implementation|script|ticket|fix|patch|changes?)\b",
            ("how to run the tests", "code review and commit conventions", "how to deploy or release it"),
        ),
        (
            r"\b(?:error|exception|traceback|stack trace|crash(?:es|ed|ing)?|fail(?:s|ed|ing|ure)?|broken|bug|segfault"
            r"|timeout|doesn'?t work|won'?t (?:start|build|run))\b",
            ("how this error was fixed before", "known problems and workarounds", "how to run the tests"),
        ),
        (
            r"\b(?:deploy(?:ing|ed|ment)?|release|ship(?:ping)?|rollout|go live|production|staging)\b",
            ("deployment steps and environments", "rollback procedure", "release checklist"),
        ),
        (
            r"\b(?:new project|set ?up|bootstrap|scaffold"
            r"|start(?:ing)? (?:a|the) (?:new )?(?:project|repo|service|app))\b",
            ("project conventions and preferred stack", "repository layout and file locations"),
        ),
        (
            r"\b(?:pull request|\bpr\b|code review|review (?:my|the|this))\b",
            ("code review and commit conventions", "how to run the tests"),
        ),
        (
            r"\b(?:database|schema|migration|query|sql|postgres|mysql|sqlite)\b",
            ("database conventions and migration steps", "connection settings and credentials location"),
        ),
        (
            r"\b(?:meeting|call|interview|1:1|one-on-one|standup|sync) (?:with|about|tomorrow|today|later)\b",
            ("notes about the people involved", "open questions and agenda"),
        ),
        (
            r"\b(?:trip|travel(?:ling|ing)?|flight|vacation|holiday|hotel|visit(?:ing)?)\b",
            ("travel preferences", "dates and bookings"),
        ),
        (
            r"\b(?:dinner|lunch|cook(?:ing)?|recipe|restaurant|meal|groceries)\b",
            ("food preferences and allergies", "favourite restaurants"),
        ),
        (
            r"\b(?:gift|present|birthday|anniversary)\b",
            ("birthdays and important dates", "gift ideas and what they like"),
        ),
        (
            r"\b(?:email|message|write|draft|letter|post|reply) (?:to|for)\b",
            ("writing style preferences", "who the recipient is"),
        ),
        (
            r"\b(?:plan|schedule|calendar|deadline|due|this week|next week|tomorrow)\b",
            ("deadlines and schedule", "current goals and priorities"),
        ),
        (
            r"\b(?:buy|purchase|budget|price|cost|subscription|pay)\b",
            ("budget and spending preferences", "what was bought or decided before"),
        ),
        (
            r"\b(?:workout|gym|run(?:ning)?|exercise|training|diet|sleep|doctor|health)\b",
            ("health and fitness goals", "medical notes and appointments"),
        ),
    )
)
_CONTINUE = re.compile(
    r"^(?:ok(?:ay)?|great|thanks|thank you|nice|cool|perfect|done|got it|next|and now|now)\b", re.IGNORECASE
)

PRONOUNS = ("it", "that", "this", "they", "them", "those", "these", "he", "she", "him", "her")
# After these words "that" introduces a clause ("I think that…"), it is not a pronoun.
_COMPLEMENTIZER_BEFORE = {
    "think",
    "said",
    "say",
    "says",
    "know",
    "sure",
    "so",
    "such",
    "believe",
    "mean",
    "hope",
    "guess",
    "realize",
    "realise",
    "than",
    "because",
    "now",
    "given",
    "assuming",
    "thought",
    "knew",
    "noticed",
    "seems",
    "means",
    "true",
}
# A determiner ("that file") is followed by a noun; a pronoun by a verb, a preposition or nothing.
_PRONOUN_NEXT = {
    "is",
    "was",
    "are",
    "were",
    "will",
    "would",
    "can",
    "could",
    "should",
    "does",
    "did",
    "do",
    "has",
    "had",
    "have",
    "may",
    "might",
    "must",
    "works",
    "worked",
    "work",
    "broke",
    "breaks",
    "failed",
    "fails",
    "again",
    "too",
    "also",
    "still",
    "now",
    "then",
    "for",
    "to",
    "in",
    "on",
    "at",
    "with",
    "from",
    "up",
    "out",
    "back",
    "down",
    "off",
    "over",
    "into",
    "about",
    "like",
    "or",
    "and",
    "but",
    "so",
    "if",
    "when",
    "before",
    "after",
    "because",
    "please",
    "already",
    "happen",
    "happened",
    "happening",
    "go",
    "went",
    "going",
    "run",
    "ran",
    "running",
    "use",
    "used",
    "get",
    "got",
    "one",
    "yesterday",
    "today",
    "tomorrow",
    "tonight",
    "earlier",
    "later",
    "soon",
    "once",
    "twice",
    "myself",
    "yet",
}
_WORD = re.compile(r"[A-Za-z']+|[.!?,;:]")


def follow_up_intents(message: str, recent: Sequence[str], limit: int) -> list[str]:
    """Up to `limit` queries for what the user is likely to ask next, most likely first.

    A message that only acknowledges ("ok, next") continues the previous topic.
    """
    if limit <= 0:
        return []
    message = message[:MAX_TEXT_CHARS]
    subject = message
    if _CONTINUE.match(message.strip()) and len(content_terms(message)) <= 2 and recent:
        subject = recent[-1][:MAX_TEXT_CHARS]
    intents: list[str] = []
    for pattern, follow_ups in _FOLLOW_UPS:
        if pattern.search(subject):
            intents.extend(f for f in follow_ups if f not in intents)
    if subject is not message:
        terms = content_terms(subject)[:8]
        if terms:
            intents.insert(0, " ".join(terms))
    return intents[:limit]


def first_pronoun(message: str) -> str | None:
    """The first word of the message used as a pronoun ("it", "that" …), or None."""
    lowered = [str(w).lower() for w in _WORD.findall(message[:MAX_TEXT_CHARS])]
    for i, word in enumerate(lowered):
        if word not in PRONOUNS and word not in ("it's", "that's", "they're"):
            continue
        base: str = word.split("'")[0]
        previous = lowered[i - 1] if i > 0 else ""
        following = lowered[i + 1] if i + 1 < len(lowered) else ""
        if base in ("it", "they", "them", "he", "she", "him") or "'" in word:
            return base
        if base == "that" and previous in _COMPLEMENTIZER_BEFORE:
            continue
        if not following or not following[0].isalpha() or following in _PRONOUN_NEXT:
            return base
    return None


_NEXT_STEP = re.compile(
    r"\b(?:next(?: step)?(?: is| will be|,)?|then|tomorrow|todo:?|to do:?|still need to|still have to|remaining:?|"
    r"i'?ll|we'?ll|i will|we will|plan is to|going to)\s+([^.!?\n]{6,140})",
    re.IGNORECASE,
)


_SUBJECT = re.compile(r"^(?:i|we)(?:'ll| will| am going to| are going to| need to| have to)?\s+", re.IGNORECASE)


def next_step(texts: Sequence[str]) -> str | None:
    """The latest stated next step in `texts` (oldest first), e.g. "next I'll wire up the API"."""
    for text in reversed(texts):
        matches = list(_NEXT_STEP.finditer(text[-MAX_TEXT_CHARS:]))  # the latest step is near the end
        if matches:
            step = " ".join(matches[-1].group(1).split()).strip(" ,;:")
            return _SUBJECT.sub("", step) or step
    return None
