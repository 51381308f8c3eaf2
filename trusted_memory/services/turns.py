"""Turn memories: every user turn kept in the user's own words, so a fact said in passing is found later.

The rule-based extractor recognises a few shapes of statement; people mention most things in
passing ("btw my sister just moved to Denver"). So besides the typed atoms, observe keeps the user's
turn itself (indirect content stripped, credentials redacted) as an atom of type `turn`, with its
session, turn number, time and project. It is an atom, not a table of its own, so that the one
recall index, the size cap and eviction, export, forget and stats all cover it without a second
code path; typed atoms outrank it for the same evidence (recall weighs turns a little lower).

A short answer ("yes, twice last week", "the blue one") means nothing without the assistant's
question; that question is kept beside it as the turn's `cue`: indexed, so the answer is found
through its question, and shown labelled as the assistant's words, never as the user's.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..model import Atom
from ..timeref import TimeRef, resolve

__all__ = ["CUE_MAX_CHARS", "correction_of", "cue_for", "dated_text", "is_trivial", "said_on", "time_refs"]

CUE_MAX_CHARS = 300
SHORT_ANSWER_WORDS = 12
# Chat that carries nothing to remember on its own: thanks, greetings, acknowledgements, laughter.
_FILLER = frozenset(
    """
    ok okay k kk okey alright right sure cool nice great awesome perfect good fine thanks thank thx ty tysm
    you u much so very lol lmao haha hahaha hehe omg wow yay yeah yep yup yes no nope nah hi hey hello
    hiya yo morning evening night good gm gn bye cya later sounds got it will do done noted ah oh hmm
    please pls plz welcome cheers ta mate love it is that this a the and just really totally true
    there all everyone guys again
    """.split()  # noqa: SIM905 - a word list reads better as prose
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_QUESTION = re.compile(r"[^.!?\n]*\?")


def is_trivial(text: str, cue: str | None) -> bool:
    """True for turns with nothing to remember ("thanks!", "ok", "hi there"), unless they answer a question."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return True
    if cue is not None:
        return False  # "yes" answers something: kept with its question
    return all(w in _FILLER for w in words)


def cue_for(user_text: str, previous_assistant: str | None) -> str | None:
    """The assistant's question a short user turn answers, or None."""
    if not previous_assistant or len(_WORD.findall(user_text)) > SHORT_ANSWER_WORDS:
        return None
    questions = _QUESTION.findall(previous_assistant)
    if not questions:
        return None
    question = " ".join(questions[-1].split())
    return question if len(question) <= CUE_MAX_CHARS else "…" + question[-(CUE_MAX_CHARS - 1) :]


def time_refs(text: str, said_at: datetime) -> tuple[tuple[str, str], ...]:
    """(phrase, resolved date) for the relative time in a turn, as kept with the memory."""
    refs: list[TimeRef] = resolve(text, said_at)
    out: list[tuple[str, str]] = []
    for ref in refs:
        pair = (ref.phrase, ref.label)
        if ref.phrase.lower() != ref.label and pair not in out:
            out.append(pair)
    return tuple(out)


def dated_text(atom: Atom) -> str:
    """The memory's words with the dates its relative time means: "… yesterday (yesterday = 2023-05-07)"."""
    if not atom.dates:
        return atom.text
    return f"{atom.text} ({'; '.join(f'{phrase} = {label}' for phrase, label in atom.dates)})"


def said_on(atom: Atom) -> str:
    """The local calendar day the memory was said (or stored), as 2023-05-08."""
    return datetime.fromtimestamp(atom.created_at).date().isoformat()


# "actually it's Thursday, not Friday", "scratch that, we went with the blue one", "correction: …"
_CORRECTION = re.compile(
    r"^\W*(?:actually|correction|scratch that|wait,? no|no wait|sorry,? i meant|i meant|my bad|update|oops|"
    r"turns out|change of plans?)\b[\s,:;.!-]*|\b\w+,? not (?:on |the )?\w+\s*[.!]*$",
    re.IGNORECASE,
)


def correction_of(text: str) -> str | None:
    """The corrected statement when a turn corrects an earlier one ("actually …"), else None."""
    m = _CORRECTION.search(text)
    if m is None:
        return None
    rest = text[m.end() :] if m.start() == 0 else text
    return rest.strip() or None
