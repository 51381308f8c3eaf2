"""Terminal output for the admin CLI: tables for people, JSON for scripts, a progress bar, prompts.

Memory holds text from untrusted sources, so everything shown to a person passes through `safe()`:
control, format (bidi, zero-width) and other invisible characters are printed as visible `<U+XXXX>`
marks, so stored text can neither drive the terminal nor hide words from the reviewer.
"""

from __future__ import annotations

import json
import sys
import time
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, TextIO

# Categories that render as nothing (or as terminal commands) rather than as a visible glyph.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"))


def emit_json(data: Any, out: TextIO | None = None) -> None:
    """Print `data` as one JSON document."""
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str), file=out or sys.stdout)


def safe(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every invisible or control character shown as a visible `<U+XXXX>` mark."""
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in text:
        if (
            (keep_newlines and ch in "\n\t")
            or (ch.isascii() and ch.isprintable())
            or unicodedata.category(ch) not in _HIDDEN_CATEGORIES
        ):
            out.append(ch)
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


def table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], out: TextIO | None = None, max_width: int = 70
) -> None:
    """Print rows as an aligned plain-text table, cutting long cells."""
    cells = [[_cell(v, max_width) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    stream = out or sys.stdout
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(), file=stream)
    print("  ".join("-" * w for w in widths), file=stream)
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip(), file=stream)
    if not cells:
        print("(none)", file=stream)


def _cell(value: object, limit: int) -> str:
    text = "" if value is None else safe(" ".join(str(value).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fields(pairs: Iterable[tuple[str, object]], out: TextIO | None = None) -> None:
    """Print `name  value` lines, aligned; multi-line values are indented under their name."""
    rows = [(name, "" if value is None else safe(str(value), keep_newlines=True)) for name, value in pairs]
    width = max((len(name) for name, _ in rows), default=0)
    stream = out or sys.stdout
    for name, value in rows:
        lines = value.split("\n") or [""]
        print(f"{name.ljust(width)}  {lines[0]}".rstrip(), file=stream)
        for line in lines[1:]:
            print(f"{' ' * width}  {line}".rstrip(), file=stream)


def iso(ts: float | None) -> str:
    """A timestamp as local ISO 8601 with its UTC offset, to the second."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


def span(seconds: float) -> str:
    """A duration in its largest whole unit: 45s, 12m, 3h, 9d."""
    seconds = abs(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def age(ts: float | None, now: float | None = None) -> str:
    """How long ago `ts` was, short form ("3d")."""
    if ts is None:
        return ""
    return span((time.time() if now is None else now) - ts)


def until(ts: float | None, now: float | None = None) -> str:
    """How long until `ts` ("in 6d"), or how long since it passed ("3h ago")."""
    if ts is None:
        return "never"
    delta = ts - (time.time() if now is None else now)
    return f"in {span(delta)}" if delta > 0 else f"{span(delta)} ago"


def interactive() -> bool:
    """True when a person can answer questions on stdin."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # stdin closed
        return False


def ask(prompt: str) -> str | None:
    """Read one answer from the person at the terminal (lower-cased); None at end of input."""
    try:
        return input(prompt).strip().lower()
    except EOFError:
        print()
        return None


class Progress:
    """A one-line progress bar on stderr, drawn only on a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.total = 1
        self.label = ""
        self.done = 0
        self._drawn = 0.0

    def start(self, total: int, label: str) -> None:
        """Begin a bar of `total` steps."""
        self.total, self.label, self.done, self._drawn = max(total, 1), label, 0, 0.0
        self._draw()

    def advance(self, step: int = 1) -> None:
        """Count `step` more items done and redraw (at most ~20 times a second)."""
        self.done += step
        if self.enabled and (self.done >= self.total or time.monotonic() - self._drawn > 0.05):
            self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        self._drawn = time.monotonic()
        filled = int(30 * min(self.done, self.total) / self.total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled and self.label:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
            self.label = ""
