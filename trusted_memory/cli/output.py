"""Terminal output for the admin CLI, on `rich`: width-aware tables, a progress bar, prompts; JSON for scripts.

Memory holds text from untrusted sources, so everything shown to a person passes through `safe()`:
control, format (bidi, zero-width) and other invisible characters are printed as visible `<U+XXXX>`
marks, so stored text can neither drive the terminal nor hide words from the reviewer. Rich's markup,
emoji codes and highlighting are off on every console here, and cells are `Text` objects, so stored
text such as `[bold]` or `:smile:` is printed as written, never interpreted.

A console is made per call, on the stream as it is then (tests capture it; `--json` sends what is
meant for the person to stderr). Rich takes the width from the terminal, else `COLUMNS`, else 80.
"""

from __future__ import annotations

import json
import sys
import time
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, TextIO

from rich import box
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, TaskProgressColumn, TextColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress
from rich.prompt import Confirm, Prompt
from rich.table import Table
from rich.text import Text

# Categories that render as nothing (or as terminal commands) rather than as a visible glyph.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"))


def console(stream: TextIO | None = None) -> Console:
    """A console on `stream` (default: stdout as it is now) that interprets nothing in what it prints."""
    return Console(file=stream or sys.stdout, markup=False, emoji=False, highlight=False)


def show(renderable: RenderableType, out: TextIO | None = None) -> None:
    """Print a rich renderable to `out` (default stdout), without the padding rich leaves at line ends."""
    con = console(out)
    with con.capture() as captured:
        con.print(renderable)
    stream = out or sys.stdout
    stream.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def say(text: str, out: TextIO | None = None) -> None:
    """Print a message for a person, wrapped at word boundaries to the console's width."""
    show(Text(safe(text, keep_newlines=True)), out)


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


# Flexible columns give up width first, down to this (then to 6); only then do the others, down to their header.
_FLEX_MIN = 12


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    out: TextIO | None = None,
    *,
    flexible: Sequence[str] = (),
) -> None:
    """Print rows as a table no wider than the console, cutting nothing.

    When the rows are too wide, the `flexible` columns (default: the last) narrow first and wrap
    their words inside the column; if that is not enough, the widest other columns narrow and wrap
    too. Columns that fit keep each row's value on one line. When a flexible column would be left
    too narrow to read, each row is printed as its own block of `name  value` lines instead.
    """
    flex = set(flexible) or {headers[-1]}
    cells = [[_cell(v) for v in row] for row in rows]
    natural = [max([cell_len(h), *(r[i].cell_len for r in cells)]) for i, h in enumerate(headers)]
    # Each column carries one space of padding, and a one-space divider sits between columns.
    room = console(out).width - (2 * len(headers) - 1)
    widths = list(natural)
    for flex_floor in (_FLEX_MIN, 6):
        floors = [min(n, max(flex_floor, cell_len(h))) if h in flex else n for h, n in zip(headers, natural)]
        _narrow(widths, floors, room)
    _narrow(widths, [min(n, max(cell_len(h), 4)) for h, n in zip(headers, natural)], room)
    if cells and any(w < min(n, _FLEX_MIN) for h, w, n in zip(headers, widths, natural) if h in flex):
        # Too narrow for columns to be read: one block of `name  value` lines per row instead.
        for i, row in enumerate(cells):
            if i:
                print(file=out or sys.stdout)
            _blocks(headers, row, out)
        return
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")
    for header, width, full in zip(headers, widths, natural):
        grid.add_column(header, width=width, no_wrap=width >= full, overflow="fold")
    for row in cells:
        grid.add_row(*row)
    show(grid, out)
    if not cells:
        print("(none)", file=out or sys.stdout)


def _blocks(headers: Sequence[str], row: Sequence[Text], out: TextIO | None) -> None:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for header, cell in zip(headers, row):
        grid.add_row(Text(header), cell)
    show(grid, out)


def _narrow(widths: list[int], floors: Sequence[int], room: int) -> None:
    """Take width from the widest column still above its floor, one cell at a time, until all fit `room`."""
    while sum(widths) > room:
        above = [i for i, (w, f) in enumerate(zip(widths, floors)) if w > f]
        if not above:
            return
        widest = max(above, key=lambda i: widths[i])
        widths[widest] -= 1


def _cell(value: object) -> Text:
    return Text("" if value is None else safe(" ".join(str(value).split())))


def fields(pairs: Iterable[tuple[str, object]], out: TextIO | None = None) -> None:
    """Print `name  value` lines, aligned; long and multi-line values wrap under their value column."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for name, value in pairs:
        grid.add_row(Text(name), Text("" if value is None else safe(str(value), keep_newlines=True)))
    show(grid, out)


# Record kinds whose plural is not the noun plus "s" (export and import count by kind).
_PLURALS = {"pending": "pending reviews", "user_model": "user-model fields"}
_SINGULARS = {"pending": "pending review", "user_model": "user-model field"}


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, pluralised: "1 atom", "1,199 atoms", "2 pending reviews"."""
    if n == 1:
        return f"1 {_SINGULARS.get(noun, noun)}"
    plural = _PLURALS.get(noun)
    if plural is None:
        if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
            plural = noun[:-1] + "ies"
        elif noun.endswith(("s", "x", "ch", "sh")):
            plural = noun + "es"
        else:
            plural = noun + "s"
    return f"{n:,} {plural}"


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


def ask(prompt: str, choices: Sequence[str]) -> str | None:
    """Ask the person at the terminal until they give one of `choices` (any case); None at end of input."""
    question = Prompt(Text(prompt), console=console(), choices=list(choices), case_sensitive=False, show_choices=False)
    # Plain messages: the console interprets no markup, so rich's own styled defaults would show their tags.
    question.prompt_suffix = "? "
    question.illegal_choice_message = f"answer one of: {', '.join(choices)}"
    try:
        return question().strip().lower()
    except EOFError:
        print()
        return None


def ask_yes_no(question: str) -> bool:
    """A yes/no question, default no; end of input is no."""
    confirm = Confirm(Text(question), console=console())
    confirm.validate_error_message = "answer y or n"
    try:
        return confirm(default=False)
    except EOFError:
        print()
        return False


class Progress:
    """A progress bar on stderr (rich), drawn only on a terminal; start/advance/close may repeat."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._console = console(stream or sys.stderr)
        self.enabled = self._console.is_terminal
        self._bar: RichProgress | None = None
        self._task: Any = None

    def start(self, total: int, label: str) -> None:
        """Begin a bar of `total` steps (ending any bar still drawn)."""
        self.close()
        if not self.enabled:
            return
        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TimeRemainingColumn(),
            console=self._console,
        )
        self._task = self._bar.add_task(label, total=max(total, 1))
        self._bar.start()

    def advance(self, step: int = 1) -> None:
        """Count `step` more items done."""
        if self._bar is not None:
            self._bar.advance(self._task, step)

    def close(self) -> None:
        """End the bar, leaving its last state on screen."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
