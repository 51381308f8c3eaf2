"""Keeping only what the user typed: tool output, documents, code, quotes, e-mail and pastes are cut.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``). Fail closed: text the
stripper cannot attribute to the user's own typing never reaches the extractor, so it can never
become a live ``user_said`` memory. A missed preference costs one repetition; a planted one would
be recalled in every later session.

Three passes, each linear in the message: delimited blocks (``_blocks``), then line rules (quotes,
attributions, e-mail headers, labels, indentation), then runs of code- or log-like lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from trusted_memory.scan import strip_invisible

from ._blocks import cut_blocks

Foreign = Literal["tagged", "marker", "fenced", "code_span", "indented", "quoted", "email", "labelled", "pasted"]

# Kept for one_line: the buffer line drops fenced code but needs nothing else cut.
FENCE = re.compile(r"(`{3,}|~{3,}).*?(?:\1|\Z)", re.DOTALL)
# An entity-encoded tag is still a tag ("&lt;tool_output&gt;" in HTML-escaped tool results).
_ANGLE_ENTITY = re.compile(r"&(?:(lt)|gt|#0{0,4}6([02])|#x0{0,4}3([ce]));", re.IGNORECASE)
_QUOTE = re.compile(r"^[ \t]*>")
# "On Tue, 3 May 2024, Bob wrote:" and its translations: a reply's quoted original follows.
_ATTRIBUTION = re.compile(
    r"\b(?:wrote|writes|schrieb|a écrit|escribió|escreveu|ha scritto|schreef|skrev|kirjoitti|napisał|написал"
    r"|написала)[ \t]*:$",
    re.IGNORECASE,
)
MAX_ATTRIBUTION_CHARS = 240
_EMAIL = re.compile(
    r"^[ \t]*(?:(?:from|subject|reply-to|message-id|return-path|in-reply-to)[ \t]*:[ \t]*\S"
    r"|-{2,}[ \t]*(?:original|forwarded)[ \t]+message\b)",
    re.IGNORECASE,
)
_OUTPUT_NOUN = r"(?:output|outputs|results?|response|logs?|stdout|stderr|traceback|stack[ \t]?trace|transcript)"
_FOREIGN_NOUN = re.compile(
    r"\b(?:log|logs|output|outputs|error|errors|traceback|stack[ \t]?trace|stacktrace|result|results|response"
    r"|dump|transcript|e-?mail|mail|message|reply|page|article|document|doc|docs|text|content|contents|thread"
    r"|conversation|comment|ticket|description|what[ \t]+(?:it|they|he|she|the[ \t]+\w+)[ \t]+(?:said|says"
    r"|printed|prints|returned|returns|wrote|writes|shows|showed))\b",
    re.IGNORECASE,
)
# Labels that introduce someone else's text. What follows has no end marker, so the rest of the
# message is cut (fail closed). The user's own code ("here's my function:") is not a label. Each
# pattern reads only the label (the line up to its first colon), so a line costs a few searches.
_OUTPUT_HEADING = re.compile(
    rf"(?:\#{{1,6}}[ \t]*|\*\*|__)?(?:[\w-]++[ \t]++){{0,2}}{_OUTPUT_NOUN}[*_]*", re.IGNORECASE
)
_PASTED = re.compile(r"\b(?:pasted|copied|forwarded|quoting|excerpt|cited)\b", re.IGNORECASE)
_HERE = re.compile(r"\bhere(?:'s|’s|[ \t]+is|[ \t]+are)\b", re.IGNORECASE)
_IT_SAID = re.compile(
    r"\b(?:it|this|that|the[ \t]+\w+)[ \t]+(?:printed|prints|says|said|returned|returns|outputs|output|shows"
    r"|showed|gave|gives|replied|wrote|writes)\b",
    re.IGNORECASE,
)
_I_GOT = re.compile(
    r"\b(?:i|we)[ \t]+(?:got|get|see|saw|am[ \t]+getting|keep[ \t]+getting|are[ \t]+getting|received)[ \t]+"
    r"(?:this|these|the[ \t]+following)\b",
    re.IGNORECASE,
)
_OUTPUT_WORDS = frozenset(
    ("output", "outputs", "result", "results", "response", "log", "logs", "stdout", "stderr", "traceback", "trace")
    + ("stacktrace", "transcript")
)
MAX_LABEL_CHARS = 240


def _is_label(line: str) -> bool:
    """A line that introduces pasted, forwarded or program output ("Tool output:", "Pasted from X:")."""
    head, colon, _ = line.partition(":")
    head = head.strip()
    if len(head) > MAX_LABEL_CHARS:
        return False
    last = head.rsplit(None, 1)[-1].strip("*_").casefold() if head else ""
    if last in _OUTPUT_WORDS and _OUTPUT_HEADING.fullmatch(head):
        return True  # "Tool output:", "## Tool output", "**Result**"
    if not colon:
        return False
    if _PASTED.search(head) or _IT_SAID.search(head) or _I_GOT.search(head):
        return True
    here = _HERE.search(head)
    return here is not None and _FOREIGN_NOUN.search(head, here.end()) is not None


_CODE_LINE = re.compile(
    r"""^(?:
        [ ]{4,}\S | \t
      | Traceback\ \(most | \s*File\ ".*",\ line\ \d | \s*at\ [\w.$<>]+\s*\( | \s*\^{2,}
      | \[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d | \[?\d\d:\d\d:\d\d
      | \[?(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL|CRITICAL)\b
      | [$#%]\ \S | >>>\ | \.\.\.\ \S | [\w.]+(?:Error|Exception|Warning)\b.*:\s
      | def\ \w+\s*\( | class\ \w+\s*[(:{] | import\ [\w.]+ | from\ [\w.]+\ import\ | (?:const|let|var)\ \w+\s*=
      | function\s*\w*\s*\( | (?:fn|func)\ \w+\s*\( | pub\ (?:fn|struct|enum|mod)\b | package\ [\w.]+\s*;?\s*$
      | (?:if|elif|else|for|while|try|except|with)\b.*[:{]\s*$ | return\b.*[;)\]]\s*$
      | \s*(?:\#include|//|/\*|\*/|<!--)
      | .*[{};]\s*$ | \s*[})\]]+[;,]?\s*$
      | (?:npm|yarn|pnpm|pip|cargo)\ (?:ERR|WARN|error)
    )""",
    re.VERBOSE,
)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+\w")
_SYMBOL = re.compile(r"[^\w\s.,'!?-]|_")


@dataclass(frozen=True, slots=True)
class Attributed:
    """What of a message the user typed, and which kinds of foreign content were cut from it."""

    text: str
    removed: frozenset[Foreign]

    @property
    def indirect(self) -> bool:
        """True when the message carried content the user did not type (a paste, a quote, tool output)."""
        return bool(self.removed)


def _unescape_angles(m: re.Match[str]) -> str:
    return "<" if m.group(1) or m.group(2) == "0" or (m.group(3) or "").lower() == "c" else ">"


def _indented(line: str) -> bool:
    """Four spaces or a tab before the text: a code or output block, unless it is a nested list item."""
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)]
    return bool(body) and ("\t" in lead or len(lead) >= 4) and not _BULLET.match(line)


def _cut_lines(text: str) -> tuple[list[str], set[Foreign]]:
    """Drop quoted and indented lines; cut the rest of the message at an attribution, header or label."""
    lines = text.split("\n")
    keep: list[str] = []
    removed: set[Foreign] = set()
    for i, line in enumerate(lines):
        # Cheap gates first: most lines of a long message start with a letter and hold no colon.
        lead = line[:1] in (" ", "\t", ">")
        if lead and _QUOTE.match(line):
            removed.add("quoted")
            continue
        if ":" in line or "--" in line:
            end = line.rstrip()
            if end.endswith(":") and len(end) <= MAX_ATTRIBUTION_CHARS and _ATTRIBUTION.search(end):
                removed.add("quoted")
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                if j < len(lines) and not _QUOTE.match(lines[j]):
                    break  # the original follows unquoted (top-posting): nothing after this line is the user's
                continue
            if _EMAIL.match(line):
                removed.add("email")
                break  # headers start a forwarded or pasted e-mail, which runs to the end
        if _is_label(line):
            removed.add("labelled")
            break
        if lead and _indented(line):
            removed.add("indented")
            continue
        keep.append(line)
    return keep, removed


def _is_code_line(line: str) -> bool:
    """A line that looks like code, a log record or a stack frame rather than prose."""
    if not line.strip() or _BULLET.match(line):
        return False
    if _CODE_LINE.match(line):
        return True
    # Symbol-dense lines (JSON, paths and punctuation soup) are pasted, not written.
    return len(line) >= 12 and len(_SYMBOL.findall(line)) > 0.25 * len(line)


def _drop_pasted_runs(lines: list[str]) -> list[str]:
    """Drop runs of two or more code/log-like lines; one stray line may be the user's own."""
    if len(lines) < 2:
        return lines  # a run needs two lines (a lone traceback header is not worth a pass)
    flags = [_is_code_line(line) for line in lines]
    keep: list[str] = []
    i = 0
    while i < len(lines):
        if not flags[i]:
            keep.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and flags[j]:
            j += 1
        if j - i < 2 and not lines[i].lstrip().startswith("Traceback"):
            keep.extend(lines[i:j])
        i = j
    return keep


# An observed turn reads the same words several times (its message, the extractor's pass over the
# user's words, the next turn's look at this reply), and the result depends on the text alone.
MEMO_ENTRIES = 256
MEMO_MAX_CHARS = 4096


def attribute(message: str) -> Attributed:
    """The part of a message the user typed, and which kinds of foreign content were cut from it."""
    return _attribute_memo(message) if len(message) <= MEMO_MAX_CHARS else _attribute(message)


@lru_cache(maxsize=MEMO_ENTRIES)
def _attribute_memo(message: str) -> Attributed:
    return _attribute(message)


def _attribute(message: str) -> Attributed:
    text = strip_invisible(message).replace("\r\n", "\n").replace("\r", "\n")
    text = _ANGLE_ENTITY.sub(_unescape_angles, text)
    text, removed = cut_blocks(text)
    lines, cut = _cut_lines(text)
    kept = _drop_pasted_runs(lines)
    foreign: set[Foreign] = {*removed, *cut}
    if len(kept) < len(lines):
        foreign.add("pasted")
    # One space between words: later patterns never meet a long run of blanks to backtrack over.
    joined = "\n".join(" ".join(line.split()) for line in kept)
    return Attributed(re.sub(r"\n{3,}", "\n\n", joined).strip(), frozenset(foreign))


def strip_untrusted(message: str) -> str:
    """Only what the user typed: tool output, documents, code, quotes, e-mail and pastes are cut."""
    return attribute(message).text
