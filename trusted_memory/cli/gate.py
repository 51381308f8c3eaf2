"""Confirmation for human-gated admin commands: ask on a terminal, refuse without one unless --yes."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator

from ..errors import TrustRefused
from .output import ask_yes_no, interactive


def require_person(args: argparse.Namespace, what: str) -> None:
    """Refuse a human-gated command when nobody can answer the question and --yes was not given."""
    if getattr(args, "yes", False) or interactive():
        return
    raise TrustRefused(
        f"{what} needs a person to confirm it, and stdin is not a terminal; "
        "run it in a terminal, or pass --yes in scripts"
    )


def confirm(args: argparse.Namespace, question: str) -> bool:
    """Ask a yes/no question (default no) unless --yes was given."""
    if getattr(args, "yes", False):
        return True
    return ask_yes_no(question)


@contextlib.contextmanager
def for_person(args: argparse.Namespace) -> Iterator[None]:
    """Send what is shown to the person to stderr under --json, so stdout stays one JSON document."""
    if not args.json:
        yield
        return
    with contextlib.redirect_stdout(sys.stderr):
        yield


def cancelled() -> int:
    """Say nothing changed; the exit code of a declined confirmation."""
    print("cancelled; nothing changed", file=sys.stderr)
    return 1
