"""Helpers for the browser tests: the installed desk in a child process, Debian's Chromium via Playwright.

Playwright drives /usr/bin/chromium (no browser download). Where Playwright or Chromium is missing
the tests skip, except with TRUSTED_MEMORY_BROWSER_TESTS=1 (the `.ci/run` browser stage), where a
missing piece is a failure.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from trusted_memory.config import Settings, load_settings
from trusted_memory.model import Atom, PendingReview
from trusted_memory.services.admin import AdminService
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import open_runtime

CHROMIUM = "/usr/bin/chromium"
# As root (CI) Chromium needs --no-sandbox; the rest keep it off this machine's closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_DEADLINE_S = 20.0
XSS_PROBES = (
    "<script>alert('xss-script')</script>",
    "<a href=\"javascript:alert('xss-link')\">docs</a>",
    "\"><img src=x onerror=alert('xss-img')>",
)


def require_browser() -> None:
    """Skip (or, in the browser CI stage, fail) when Playwright or Chromium is not here."""
    strict = os.environ.get("TRUSTED_MEMORY_BROWSER_TESTS") == "1"
    missing = None
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[browser]')"
    if missing is None and not os.access(CHROMIUM, os.X_OK):
        missing = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if missing:
        if strict:
            pytest.fail(missing)
        pytest.skip(missing + "; the browser CI stage runs these")


def settings_for(home: Path) -> Settings:
    """Settings of a store folder, ignoring the developer's environment and project file."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=home.parent)


def child_env(home: Path) -> dict[str, str]:
    """A minimal environment for a child process: PATH, an isolated HOME, the store folder."""
    return {"PATH": os.environ["PATH"], "HOME": str(home.parent), "MCP_MEMORY_HOME": str(home), "LANG": "C.UTF-8"}


def script(name: str) -> Path:
    """An installed console script next to this interpreter, or skip."""
    path = Path(sys.executable).parent / name
    if not path.is_file():
        pytest.skip(f"{name} is not installed next to {sys.executable} (pip install -e .)")
    return path


async def add_atom(home: Path, content: str, source: str = "user_said", **kw: Any) -> Atom:
    """Store an atom through the agent-side service."""

    async def go() -> Atom:
        async with open_runtime(settings_for(home)) as rt:
            return (await AtomsService(rt.store, rt.settings).add(AtomDraft(content, source, **kw))).atom

    return await go()


async def propose(home: Path, field_path: str, value: str, evidence: str = "said so") -> PendingReview:
    """Queue a pending inference about the user."""

    async def go() -> PendingReview:
        async with open_runtime(settings_for(home)) as rt:
            item = await AtomsService(rt.store, rt.settings).propose(
                field_path, value, evidence=evidence, confidence=0.6
            )
        assert item is not None
        return item

    return await go()


async def admin_view(home: Path, atom_id: str) -> Atom | None:
    """An atom as stored now, or None."""

    async def go() -> Atom | None:
        async with open_runtime(settings_for(home)) as rt, rt.store.read() as rx:
            return await rx.atoms.get(atom_id)

    return await go()


async def audit_kinds(home: Path, subject: str) -> list[str]:
    """The event kinds of one subject, oldest first."""

    async def go() -> list[str]:
        async with open_runtime(settings_for(home)) as rt:
            return [e.kind for e in await AdminService(rt).audit(subject=subject)]

    return await go()


@contextmanager
def running_ui(home: Path, *options: str) -> Iterator[str]:
    """`trusted-memory-admin [OPTIONS] ui --no-browser` in a child process; yields the login URL it printed."""
    proc = subprocess.Popen(
        [str(script("trusted-memory-admin")), *options, "ui", "--no-browser"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=child_env(home),
        cwd=home.parent,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_DEADLINE_S)
        line = proc.stdout.readline() if ready else ""
        match = re.search(r"(http://127\.0\.0\.1:\d+/login\?token=\S+)", line)
        if not match:
            pytest.fail(f"`trusted-memory-admin ui` printed no login URL: {line!r}")
        yield match.group(1)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
