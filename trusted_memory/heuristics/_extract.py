"""Extraction: one user message into typed, tidied, tagged atoms.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from trusted_memory.scan import scan
from trusted_memory.text import STOP_WORDS, content_terms, fold, tokenize

from ._rules import ATOM_KINDS, COMMAND, IMPERATIVE, NEUTRAL, QUESTION, REQUEST, ClauseHit, classify_raw
from ._sentences import (
    CLAUSE_SPLIT,
    DEICTIC,
    EXPLICIT,
    HYPOTHETICAL,
    LABEL,
    LEAD,
    PRONOUN_START,
    RULE_SCOPE,
    SELF_NOTE,
    SHARED_VERBS,
    STRONG_HYPOTHETICAL,
    SUBORDINATE,
    normalize_clause,
    split_sentences,
)
from ._untrusted import strip_untrusted

MAX_ATOM_CHARS = 300
# Work bounds (issue 14: one 64 KiB message held the server for 38 s). A sentence longer than this
# is pasted rather than typed, and its atom would be cut to MAX_ATOM_CHARS anyway: it is skipped.
MAX_SENTENCE_CHARS = 600
# Clause splits per sentence; the rest of a longer enumeration stays in its last clause.
MAX_CLAUSES = 16
# Attributed text read per message: past this the message is a document, not a chat turn.
MAX_EXTRACT_CHARS = 16 * 1024


@dataclass(frozen=True, slots=True)
class Extracted:
    """One atom found in a user message: its type, self-contained text, confidence and tags."""

    type: str
    text: str
    confidence: float
    tags: tuple[str, ...]


_SENSITIVE = re.compile(
    r"\b(?:password|passcode|passphrase|pin|ssn|social security|credit card|card number|cvv|iban|api key"
    r"|private key|secret key|access token)\b"
)
_SUBJECT = re.compile(r"^(i|we)\s")
# A clause that starts with its verb lost its subject ("need to find a gift"); the user is meant.
_BARE_VERB = re.compile(r"^(?:need|want|have|plan|hoping|trying|decided|chose|picked|agreed)\b")


# --- text and tags ----------------------------------------------------------------------------------

_FILLER = re.compile(r"\b(?:btw|tbh|lol|lmao|haha+|pls|plz|please|fyi|imo|imho|fwiw|ngl|rn|tho)\b", re.IGNORECASE)
_EMOTICONS = (":)", ":D", ":P", ";)", ":-)")
_FIRST_PERSON = re.compile(r"\bi(?=\b|')")

_TAGS: dict[str, str] = {}
for _tag, _words in {
    "testing": "pytest unittest vitest jest mocha test tests testing tdd coverage e2e",
    "python": "python pytest django flask fastapi pip poetry uv ruff black mypy sqlalchemy alembic pandas venv",
    "javascript": "javascript js node npm pnpm yarn react next vue svelte typescript ts tailwind vite",
    "docker": "docker dockerfile compose container containers",
    "kubernetes": "kubernetes k8s helm kubectl",
    "database": "postgres postgresql mysql sqlite redis mongodb mongo db database sql orm orms migrations",
    "ci": "ci cd pipeline jenkins circleci actions",
    "deploy": "deploy deployed deploys deployment heroku fly aws gcp azure terraform vercel netlify staging prod",
    "git": "git commit commits pr prs merge squash branch rebase",
    "style": "tabs spaces indentation formatting naming snake_case camelcase lint linting linter flake8 style",
    "editor": "vim neovim vscode emacs editor ide jetbrains",
    "family": "wife husband partner sister brother mom mum dad mother father kids son daughter parents family "
    "grandma grandpa aunt uncle cousin niece nephew baby twins",
    "pets": "dog cat pet puppy kitten",
    "health": "allergic allergy vegetarian vegan diet gluten lactose diabetic",
    "work": "job manager boss coworker colleague standup on-call oncall meeting meetings hospital startup",
    "rust": "rust cargo",
    "go": "golang",
}.items():
    for _w in _words.split():
        _TAGS.setdefault(_w, _tag)


def _tags(tokens: Sequence[str]) -> tuple[str, ...]:
    """Up to four topic tags from a fixed keyword map, in order of first mention."""
    out: list[str] = []
    for token in tokens:
        tag = _TAGS.get(token)
        if tag is not None and tag not in out:
            out.append(tag)
            if len(out) == 4:
                break
    return tuple(out)


def _tidy(text: str) -> str:
    """Clean an atom's text: no fillers or trailing punctuation, "I" capitalised, first letter upper."""
    text = LEAD.sub("", text.strip())
    text = " ".join(_FILLER.sub(" ", text).split())
    while True:
        trimmed = text.rstrip(" \t,.;:!-–—")
        for emoticon in _EMOTICONS:
            trimmed = trimmed.removesuffix(emoticon)
        while trimmed and ("\U0001f300" <= trimmed[-1] <= "\U0001faff" or "\u2600" <= trimmed[-1] <= "\u27bf"):
            trimmed = trimmed[:-1]  # a trailing emoji is tone, not content
        if trimmed == text:
            break
        text = trimmed
    text = _FIRST_PERSON.sub("I", text)
    if len(text) > MAX_ATOM_CHARS:
        cut = text[: MAX_ATOM_CHARS - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;: ") + "…"
    return text[:1].upper() + text[1:]


# --- extraction -------------------------------------------------------------------------------------

_DATE = re.compile(
    r"\bby\s+(?:the\s+)?(?:end of|next|this|tomorrow|tonight|eod|eow|eom|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*"
    r"|dec\w*|q[1-4]|\d)|\b(?:this|next)\s+(?:year|quarter|month|week|summer|winter|spring|fall|autumn)\b"
    r"|\bgoal\b|\bdeadline\b"
)


@dataclass(slots=True)
class _Clause:
    """A piece of a sentence with the separator before it and how it was classified."""

    sep: str
    raw: str
    hit: ClauseHit


def _clauses(sentence: str) -> list[_Clause]:
    """Split a sentence at conjunctions and commas where a new clause starts; re-join the rest."""
    pieces = CLAUSE_SPLIT.split(sentence, maxsplit=MAX_CLAUSES - 1)
    first = pieces[0]
    out = [_Clause("", first, classify_raw(normalize_clause(first), first))]
    for k in range(1, len(pieces) - 1, 2):
        sep, raw = pieces[k], pieces[k + 1]
        if not raw.strip():
            out[-1].raw += sep + raw
            continue
        norm = normalize_clause(raw)
        hit = classify_raw(norm, raw)
        cur = out[-1]
        new = hit.kind in ATOM_KINDS or hit.kind in (QUESTION, REQUEST) or bool(PRONOUN_START.match(norm))
        conj = fold(sep).strip(" ,")
        if not new and conj in ("", "and"):
            # "we use X and deploy to Y": the second verb shares the first clause's subject.
            subject = _SUBJECT.match(normalize_clause(cur.raw))
            first_word = norm.split(" ", 1)[0]
            if subject and first_word in SHARED_VERBS:
                prefixed = f"{subject.group(1)} {raw.strip()}"
                shared = classify_raw(normalize_clause(prefixed), prefixed)
                if shared.kind in ATOM_KINDS:
                    new, hit, raw = True, shared, ("We " if subject.group(1) == "we" else "I ") + raw.strip()
        if not new and hit.kind in (COMMAND, REQUEST) and conj != "and" and cur.hit.kind not in ("", "convention"):
            new = True  # "I'm a PM, so keep it simple": the tail is a request, not part of the fact
        if new and conj == "and" and len(cur.raw.split()) < 3 and norm.startswith("i"):
            new = False  # "my partner and I are …" is one subject, not two clauses
        if new:
            out.append(_Clause(sep, raw, hit))
        else:
            cur.raw += sep + raw
            if cur.hit.kind == NEUTRAL:
                cur.hit = classify_raw(normalize_clause(cur.raw), cur.raw)
    return out


def _sentence_atoms(sentence: str) -> list[tuple[str, str, float]]:
    """The (type, text, confidence) atoms of one sentence."""
    text = sentence.strip()
    note = SELF_NOTE.match(text)
    if note:
        rest = text[note.end() :].strip()
        return [("note", rest, 0.75)] if len(content_terms(rest)) >= 2 else []
    text = LEAD.sub("", text)
    label = LABEL.match(text) if ":" in text else None
    if label and not IMPERATIVE.match(normalize_clause(label.group("label"))):
        text = text[label.end() :]
    explicit = bool(EXPLICIT.match(text))
    text = EXPLICIT.sub("", text) if explicit else text
    scope = RULE_SCOPE.match(text)
    if scope:
        text = text[scope.end() :]
    low = normalize_clause(text)
    if not low:
        return []
    only_conventions = False
    if HYPOTHETICAL.match(low):
        if not low.startswith("if ") or STRONG_HYPOTHETICAL.search(low):
            return []
        only_conventions = True  # "if the build fails, we never merge" is still a rule
    clauses = _clauses(text)
    if scope:
        for c in clauses:
            # Under "from now on" an instruction is a standing rule, not a one-off request.
            if c.hit.kind in (COMMAND, REQUEST, NEUTRAL) and len(content_terms(c.raw)) >= 2:
                c.hit = ClauseHit("convention", 0.8)
    out: list[tuple[str, str, float]] = []
    made: dict[int, int] = {}  # clause index → its atom in ``out``
    scoped = False  # "From now on," is written once, onto the first atom
    for i, c in enumerate(clauses):
        kind = c.hit.kind
        if kind not in ATOM_KINDS or (only_conventions and kind != "convention"):
            continue
        body = c.raw
        prev = clauses[i - 1] if i else None
        if prev is not None and prev.hit.kind in (NEUTRAL, *ATOM_KINDS):
            resolve = DEICTIC.search(normalize_clause(body)) is not None
            condition = prev.hit.kind == NEUTRAL and SUBORDINATE.match(normalize_clause(prev.raw)) is not None
            if resolve or condition:
                if i - 1 in made:  # the earlier atom absorbs this one, keeping its type and text
                    kind, earlier, _ = out.pop(made.pop(i - 1))
                    body = earlier + c.sep + body
                else:
                    body = prev.raw + c.sep + body
        elif DEICTIC.search(normalize_clause(body)):
            continue  # "let's keep it that way": the pronoun points at something this message never names
        confidence = c.hit.confidence
        if kind == "intent" and _DATE.search(fold(body)):
            kind = "goal"
        if kind == "note" or explicit:
            confidence = max(confidence, 0.7)
        if scope and not scoped:
            body = scope.group(0).strip().rstrip(",:") + ", " + body.lstrip()
            scoped = True
        if _BARE_VERB.match(normalize_clause(body)):
            body = "I " + body.lstrip()
        made[i] = len(out)
        out.append((kind, body, confidence))
    if explicit and not out and not clauses[0].hit.kind:
        out.append(("note", text, 0.7))
    return out


def extract(message: str) -> list[Extracted]:
    """Atoms stated by the user in one message; [] for questions, requests, chit-chat and pasted content."""
    prose = strip_untrusted(message)
    if not prose:
        return []
    found: list[Extracted] = []
    seen: set[str] = set()
    for sentence in split_sentences(prose[:MAX_EXTRACT_CHARS]):
        if len(sentence) > MAX_SENTENCE_CHARS:
            continue
        for kind, body, confidence in _sentence_atoms(sentence):
            text = _tidy(body)
            key = fold(text)
            tokens = tokenize(text)
            if key in seen or len({t for t in tokens if t not in STOP_WORDS}) < 2 or _SENSITIVE.search(key):
                continue
            if scan(text):
                continue  # never let an injection or a credential become a memory
            seen.add(key)
            if len(text) > 200:
                confidence -= 0.1
            found.append(Extracted(kind, text, round(min(0.95, max(0.3, confidence)), 2), _tags(tokens)))
    return found
