"""Removing what the user did not write: tool output, documents, code, quotes, logs and pasted runs.

Part of the rule-based memory brain (see ``trusted_memory.heuristics``).
"""

from __future__ import annotations

import re

from trusted_memory.scan import strip_invisible

_BLOCK_TAGS = (
    r"tool_output|tool_outputs|tool_result|tool_results|tool_use|tool_call|function_results|function_calls"
    r"|function_call|function_result|document|documents|file|web|web_page|search_results|search_result"
    r"|system-reminder|system_reminder|system|context|attachment|email|output|stdout|stderr|result"
    r"|results|pasted|clipboard|retrieved|source|quote|blockquote|transcript|webpage|page|html"
)
_BLOCK = re.compile(rf"<({_BLOCK_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
# An opening tag whose block never closes: everything after it is foreign.
_UNCLOSED = re.compile(rf"<(?:{_BLOCK_TAGS})\b[^>]*>.*", re.IGNORECASE | re.DOTALL)
# A closing tag without its opening one (nesting, truncation): what precedes it is foreign.
_STRAY_CLOSE = re.compile(rf"^.*</(?:{_BLOCK_TAGS})\s*>", re.IGNORECASE | re.DOTALL)
FENCE = re.compile(r"(`{3,}|~{3,}).*?(?:\1|\Z)", re.DOTALL)
_QUOTED = re.compile(r"^[ \t]*>.*$|^[ \t]*On .{4,120} wrote:[ \t]*$", re.MULTILINE)
_FORWARDED = re.compile(
    r"^[ \t]*-{2,}\s*(?:Original|Forwarded) Message\s*-{2,}.*", re.MULTILINE | re.DOTALL | re.IGNORECASE
)
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


def _is_code_line(line: str) -> bool:
    """A line that looks like code, a log record or a stack frame rather than prose."""
    if not line.strip() or _BULLET.match(line):
        return False
    if _CODE_LINE.match(line):
        return True
    # Symbol-dense lines (JSON, paths and punctuation soup) are pasted, not written.
    return len(line) >= 12 and len(_SYMBOL.findall(line)) > 0.25 * len(line)


def _drop_pasted_runs(text: str) -> str:
    """Drop runs of two or more code/log-like lines; one stray line may be the user's own."""
    if "\n" not in text:
        return text  # a run needs two lines (a lone traceback header is not worth a pass)
    lines = text.split("\n")
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
    return "\n".join(keep)


def strip_untrusted(message: str) -> str:
    """Remove content the user did not author (tool output, documents, code, quotes, logs); keep their prose."""
    text = strip_invisible(message).replace("\r\n", "\n")
    text = _BLOCK.sub("\n", text)
    text = _STRAY_CLOSE.sub("\n", text)
    text = _UNCLOSED.sub("\n", text)
    text = FENCE.sub("\n", text)
    text = _FORWARDED.sub("\n", text)
    text = _QUOTED.sub("", text)
    text = _drop_pasted_runs(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
