"""Is a model's text grounded in its source? Pure checks, run before anything a model wrote is kept.

A memory model may only restate: a summary retells the transcript, a merged fact joins the entries
it merges, an extracted atom repeats the user's message. So every number and every named thing in
its text must occur in the source, nearly every content word too (a stem or a spelling of it), and
a word the source only ever negates ("not a canary") may not come back affirmed ("with a canary").
Placeholders ("...", "string"), echoes of the prompt's own examples and empty text never pass.

The checks are lexical on purpose: they cannot judge a paraphrase, so they refuse it, and the
caller falls back to the rule-based text, which is built from the source itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .text import STOP_WORDS, fold, stem, tokenize

__all__ = ["SUMMARY_FRAMING", "Verdict", "check_grounded", "is_placeholder"]

# Words a third-person summary uses to tell what happened, whatever the session was about.
SUMMARY_FRAMING = frozenset(
    [
        "user",
        "assistant",
        "session",
        "conversation",
        "asked",
        "ask",
        "asks",
        "wanted",
        "want",
        "wants",
        "discussed",
        "discuss",
        "talked",
        "mentioned",
        "mention",
        "explained",
        "explain",
        "helped",
        "help",
        "suggested",
        "suggest",
        "decided",
        "decide",
        "said",
        "say",
        "says",
        "noted",
        "note",
        "agreed",
        "agree",
        "confirmed",
        "confirm",
        "requested",
        "request",
        "topic",
        "question",
        "questions",
        "answer",
        "answered",
        "described",
        "describe",
        "shared",
        "share",
        "provided",
        "provide",
        "gave",
        "covered",
        "cover",
        "left",
        "open",
        "outcome",
        "goal",
        "goals",
        "next",
        "step",
        "steps",
        "plan",
        "planned",
        "also",
        "later",
        "then",
        "first",
        "finally",
        "issue",
        "issues",
        "looked",
        "look",
        "worked",
        "work",
        "went",
        "chose",
        "choose",
        "stated",
        "state",
        "kept",
        "keep",
        "set",
        "made",
        "make",
        "got",
        "put",
        "used",
    ]
)
# Whole answers that are a template's filler, not content.
_PLACEHOLDER_WORDS = frozenset(
    [
        "string",
        "text",
        "example",
        "value",
        "summary",
        "content",
        "query",
        "intent",
        "item",
        "none",
        "null",
        "nil",
        "n/a",
        "na",
        "tbd",
        "todo",
        "placeholder",
        "lorem",
        "ipsum",
        "foo",
        "bar",
        "baz",
        "xxx",
        "yyy",
    ]
)
_NO_CONTENT = re.compile(r"^[\W_]*$")
_ELLIPSIS = re.compile(r"\.\.\.|…")
_TEMPLATE = re.compile(r"<[^<>]{1,40}>|\{[^{}]{0,40}\}|\[[^\[\]]{0,40}\]")
_NEGATORS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "without",
        "nor",
        "neither",
        "cannot",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "arent",
        "wasnt",
        "werent",
        "cant",
        "wont",
        "shouldnt",
        "wouldnt",
        "couldnt",
        "hasnt",
        "havent",
        "hadnt",
    ]
)
# How far a negation reaches: "not a blue-green canary" negates the next few words.
_NEGATION_REACH = 3
_CLAUSE = re.compile(r"[,.;:!?()\n]+|\s(?:but|and|or|instead|rather)\s", re.IGNORECASE)
_WORD = re.compile(r"[\w'’]+(?:[./+#-][\w'’]+)*")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a text passed, and if not, why (naming the first offending word, never the text)."""

    ok: bool
    reason: str = ""


PASS = Verdict(True)


def is_placeholder(text: str) -> bool:
    """Empty, punctuation only, a template word, or mostly ellipses and <slots>."""
    stripped = text.strip()
    if _NO_CONTENT.match(stripped):
        return True
    if fold(stripped).strip(" .…!?'\"") in _PLACEHOLDER_WORDS:
        return True
    unfilled = _TEMPLATE.sub(" ", _ELLIPSIS.sub(" ", stripped))
    words = [t for t in tokenize(unfilled) if t not in STOP_WORDS]
    # "The user …", "<project> deploy steps": a template with its slots left empty.
    return (bool(_ELLIPSIS.search(stripped)) or bool(_TEMPLATE.search(stripped))) and len(words) < 3


def _named(text: str) -> set[str]:
    """Folded tokens that name something: numbers, identifiers, capitalised words past a sentence start."""
    named: set[str] = set()
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        for i, word in enumerate(_WORD.findall(sentence)):
            folded = [t for t in tokenize(word) if t not in STOP_WORDS]
            if not folded:
                continue
            identifier = any(c.isdigit() for c in word) or re.search(r"\w[._/+#-]\w", word) is not None
            inner_caps = any(c.isupper() for c in word[1:])
            if identifier or inner_caps or (i > 0 and word[0].isupper() and word.upper() != "I"):
                named.update(folded)
    return named


def _polarity(text: str) -> dict[str, tuple[bool, bool]]:
    """Per content word: (seen affirmed, seen negated). A negation ends with its clause."""
    seen: dict[str, tuple[bool, bool]] = {}
    for clause in _CLAUSE.split(text):
        reach = 0
        for token in tokenize(clause):
            if token in _NEGATORS:
                reach = _NEGATION_REACH
                continue
            if token in STOP_WORDS:
                continue
            plain, negated = seen.get(token, (False, False))
            seen[token] = (plain or reach == 0, negated or reach > 0)
            reach = max(0, reach - 1)
    return seen


# Word families the stemmer keeps apart ("announce", "announcement"): a long shared start counts.
PREFIX = 6


def _known(term: str, words: set[str], stems: set[str], prefixes: set[str]) -> bool:
    if term in words or not term.isalpha():
        return term in words
    root = stem(term)
    return root in stems or (len(root) >= PREFIX and root[:PREFIX] in prefixes)


def check_grounded(
    text: str,
    sources: Iterable[str],
    *,
    min_share: float = 0.8,
    framing: frozenset[str] = frozenset(),
    echoes: Sequence[str] = (),
) -> Verdict:
    """Does `text` only restate `sources`?

    `min_share`: the part of its content words (less `framing` words) that must occur in the
    sources; numbers and named things must all occur. `echoes`: the prompt's own examples, refused
    unless the sources say them too.
    """
    if not text.strip():
        return Verdict(False, "empty")
    if is_placeholder(text):
        return Verdict(False, "a placeholder, not content")
    source_text = "\n".join(sources)
    source_tokens = tokenize(source_text)
    words = set(source_tokens)
    stems = {stem(w) for w in words if w.isalpha()}
    prefixes = {w[:PREFIX] for w in stems if len(w) >= PREFIX}
    folded = " ".join(tokenize(text))
    for example in echoes:
        echo = " ".join(tokenize(example))
        if echo and echo in folded and echo not in " ".join(source_tokens):
            return Verdict(False, "repeats an example from the prompt")
    for term in sorted(_named(text)):
        if not _known(term, words, stems, prefixes):
            kind = "number" if any(c.isdigit() for c in term) else "name"
            return Verdict(False, f"the {kind} {term!r} is not in the source")
    tokens = tokenize(text)
    terms = [t for t in dict.fromkeys(tokens) if t not in STOP_WORDS and t not in framing and t not in _NEGATORS]
    if not terms:
        return Verdict(False, "no content words") if not framing else PASS
    unknown = [t for t in terms if not _known(t, words, stems, prefixes)]
    if len(terms) - len(unknown) < min_share * len(terms):
        share = f"{len(unknown)} of {len(terms)} content words"
        return Verdict(False, f"{share} are not in the source, e.g. {unknown[0]!r}")
    said, source_said = _polarity(text), _polarity(source_text)
    for term, (plain, negated) in said.items():
        if term not in source_said:
            continue
        source_plain, source_negated = source_said[term]
        if plain and not negated and source_negated and not source_plain:
            return Verdict(False, f"affirms {term!r}, which the source only negates")
        if negated and not plain and source_plain and not source_negated:
            return Verdict(False, f"negates {term!r}, which the source affirms")
    return PASS
