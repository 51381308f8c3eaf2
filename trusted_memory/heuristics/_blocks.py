"""Delimited blocks: fences, code spans, tags, bracket markers, BEGIN/END lines and ===/--- markers.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``). Whatever the delimiter's
name, a delimited block is not the user's own typing, so it is cut. One left-to-right pass: the first
opener wins and nothing inside its block is read as another opener. Each opener's closer is looked up
in an index built in one pass, and the scan resumes after the closer, so the cost is linear in the
text (every pattern is bounded; none can backtrack over the rest of the message).

Fail closed: an opener whose closer never comes cuts everything after it, and a closer whose opener
is missing (truncation, nesting) cuts everything before it.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from typing import Literal

Kind = Literal["tagged", "marker", "fenced", "code_span"]

MAX_SPAN_CHARS = 500  # a backtick pair further apart than this is two stray backticks, not a span
_TAG_NAME = r"[A-Za-z][\w:.-]{0,63}"
_BRACKET_NAME = r"[A-Za-z][\w .-]{0,40}"
_LINE_END = r"[^\n]{0,160}+(?=\n|\Z)"  # marker lines are short; a longer line is prose that starts like one

# Every alternative starts with one of these characters (line openers with their line's "\n"): the
# leading lookahead lets the regex engine skip ahead to them instead of trying each alternative at
# every position, which made plain prose five times slower to scan.
_OPENER = re.compile(
    rf"""(?=[`~<\[\n])(?:
    (?P<fence>`{{3,}}+|~{{3,}}+)
  | (?P<span>`[^`\n]{{1,{MAX_SPAN_CHARS}}}+`)
  | (?P<comment><!--)
  | (?P<tag><(?P<tag_close>/)?(?P<tag_name>{_TAG_NAME})(?=[\s/>])(?P<tag_rest>[^<>]{{0,1024}}+)>)
  | (?P<bracket>\[(?P<bracket_close>/)?(?P<bracket_name>{_BRACKET_NAME})\](?!\())
  | (?P<begin>\n[ \t]*+[-=#*<>\[( ]*+(?P<begin_word>BEGIN|START|END)\b(?P<begin_name>{_LINE_END}))
  | (?P<rule>\n[ \t]*+(?P<rule_char>[=-])(?P=rule_char){{2,}}+(?P<rule_label>{_LINE_END}))
    )""",
    re.VERBOSE,
)
# Every closer, found once up front; an opener then finds its own with a binary search.
_CLOSER = re.compile(
    rf"""(?=[<\[\n])(?:
    </(?P<tag>{_TAG_NAME})\s{{0,64}}+>
  | \[/(?P<bracket>{_BRACKET_NAME})\]
  | \n[ \t]*+[-=#*<>\[( ]*+END\b(?P<end>{_LINE_END})
  | \n[ \t]*+(?P<rule>[=-])(?P=rule){{2,}}+{_LINE_END}
    )""",
    re.VERBOSE,
)
# HTML elements that never have content: the tag itself is cut, nothing after it.
_VOID = frozenset(
    ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr")
)
# Names that appear unpaired in tracebacks and reprs ("in <module>", "Foo.<init>"): without a closer
# only the token is cut. A host's wrapper is never one of these, so truncation still fails closed.
_CODE_TOKENS = frozenset(
    ("module", "lambda", "listcomp", "dictcomp", "setcomp", "genexpr", "string", "stdin", "locals", "init", "clinit")
)
# An unpaired [NAME] marker is only a wrapper when its name says so ("[x]" and "[WIP]" are prose).
_FOREIGN_WORD = re.compile(
    r"output|result|response|\blogs?\b|stdout|stderr|paste|copied|quote|e-?mail|document|\bfile|web|page|search"
    r"|untrusted|content|tool|transcript|attachment|retrieved|source|forwarded",
    re.IGNORECASE,
)
_FORWARDED = re.compile(r"\b(?:original|forwarded)\s+message\b", re.IGNORECASE)


def _name(text: str) -> str:
    """A delimiter's name for matching opener and closer: letters and digits only, case-folded."""
    return "".join(c for c in text.casefold() if c.isalnum()).removeprefix("of")


class _Closers:
    """Where each closer is, by (kind, name), in text order."""

    def __init__(self, text: str) -> None:
        self._at: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        for m in _CLOSER.finditer(text):
            kind = m.lastgroup or ""
            value = m.group(kind)
            name = value if kind == "rule" else _name(value)
            self._at[kind, name].append((m.start(), m.end()))
            if kind == "end":
                self._at["end", "*"].append((m.start(), m.end()))  # for an opener without a name

    def after(self, kind: str, name: str, pos: int) -> int | None:
        """The end of the first closer of this kind and name that starts at or after ``pos``."""
        spans = self._at.get((kind, name))
        if not spans:
            return None
        i = bisect.bisect_left(spans, (pos, -1))
        return spans[i][1] if i < len(spans) else None


def cut_blocks(text: str) -> tuple[str, set[Kind]]:
    """The text with every delimited block replaced by a line break, and the kinds that were cut."""
    text = "\n" + text  # line openers match from their line's "\n", the first line's included
    closers = _Closers(text)
    kept: list[str] = []
    removed: set[Kind] = set()
    pos = 0
    while (m := _OPENER.search(text, pos)) is not None:
        before = text[pos : m.start()]
        gap = "\n"  # a cut block also ends the sentence around it: no clause spans the gap
        kind: Kind
        end: int | None
        if m.group("fence") is not None:
            kind, found = "fenced", text.find(m.group("fence"), m.end())
            end = None if found < 0 else found + len(m.group("fence"))
        elif m.group("span") is not None:
            if not any(c.isspace() for c in m.group("span")):
                kept.append(text[pos : m.end()])  # `ruff`: a single identifier is the user's word
                pos = m.end()
                continue
            kind, end = "code_span", m.end()
        elif m.group("comment") is not None:
            kind, found = "tagged", text.find("-->", m.end())
            end = None if found < 0 else found + 3
        elif m.group("tag") is not None:
            kind, name = "tagged", m.group("tag_name").casefold()
            if m.group("tag_close"):
                kept, removed, pos = [], removed | {kind}, m.end()  # stray close: what precedes it is foreign
                continue
            end = closers.after("tag", _name(name), m.end())
            glued = text[m.start() - 1].isalnum() and name.isalnum()
            if name in _VOID or m.group("tag_rest").rstrip().endswith("/"):
                end, gap = m.end(), " "
            elif end is None and (glued or name in _CODE_TOKENS):
                end, gap = m.end(), " "  # "List<String>", "in <module>": a type parameter or frame name
        elif m.group("bracket") is not None:
            kind, name = "marker", _name(m.group("bracket_name"))
            if m.group("bracket_close"):
                kept, removed, pos = [], removed | {kind}, m.end()
                continue
            end = closers.after("bracket", name, m.end())
            if end is None and not _FOREIGN_WORD.search(m.group("bracket_name")):
                kept.append(text[pos : m.end()])  # "[WIP]", "[x]": brackets in prose, not a wrapper
                pos = m.end()
                continue
        elif m.group("begin") is not None:
            kind, name = "marker", _name(m.group("begin_name"))
            if m.group("begin_word") == "END":
                kept, removed, pos = [], removed | {kind}, m.end()
                continue
            end = closers.after("end", name or "*", m.end()) or closers.after("end", "", m.end())
        else:
            kind = "marker"
            forwarded = _FORWARDED.search(m.group("rule_label")) is not None
            end = None if forwarded else closers.after("rule", m.group("rule_char"), m.end())
        removed.add(kind)
        if end is None:  # never closed: everything after the opener is foreign
            kept.append(before)
            return "".join(kept).removeprefix("\n"), removed
        kept.append(before + gap)
        pos = end
    kept.append(text[pos:])
    return "".join(kept).removeprefix("\n"), removed
