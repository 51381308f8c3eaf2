"""Helpers for the desk's HTTP tests: seed a store through the services, drive the real app over ASGI."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.model import Atom, PendingReview
from trusted_memory.services.admin import AdminService
from trusted_memory.services.admin.insights import AdminInsights
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime
from trusted_memory.webui import Gate, build_app

START_DEADLINE_S = 20.0
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN = {"origin": BASE}
XSS_PROBES = (
    "<script>alert('xss-script')</script>",
    "<a href=\"javascript:alert('xss-link')\">docs</a>",
    "\"><img src=x onerror=alert('xss-img')>",
)


def settings_for(home: Path) -> Settings:
    """Settings of a store folder, ignoring the developer's environment and project file (but for the
    store backend the test runs on, see conftest.store_env)."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home)}, cwd=home.parent)


async def add_atom(rt: Runtime, content: str, source: str = "user_said", **kw: Any) -> Atom:
    """Store an atom through the agent-side service (a `web` source lands in quarantine)."""
    return (await AtomsService(rt.store, rt.settings).add(AtomDraft(content, source, **kw))).atom


async def propose(rt: Runtime, field_path: str, value: str, evidence: str = "said so twice") -> PendingReview:
    """Queue a pending inference about the user."""
    item = await AtomsService(rt.store, rt.settings).propose(field_path, value, evidence=evidence, confidence=0.6)
    assert item is not None
    return item


@asynccontextmanager
async def desk(
    rt: Runtime, *, login: bool = True, autoescape: bool = True, person: str | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, Gate]]:
    """The real desk app over ASGI, optionally logged in with its one-time token; with `person`, the
    desk `trusted-memory-admin --as PERSON ui` serves."""
    gate = Gate(PORT, person=person)
    admin = AdminService(rt)
    # The product's own default unless a test asks for the broken build: a default that changed
    # to no escaping must fail these tests, not be overridden by them.
    app = build_app(admin, AdminInsights(rt), gate, **({} if autoescape else {"autoescape": False}))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
        if login:
            done = await client.get(f"/login?token={gate.token}")
            assert done.status_code == 303, done.text
        yield client, gate


def csrf_of(html: str) -> str:
    """The CSRF token a rendered page carries."""
    match = re.search(r'name="csrf" value="([^"]+)"', html) or re.search(r'data-csrf="([^"]+)"', html)
    assert match, "the page carries no CSRF token"
    return match.group(1)


async def post(client: httpx.AsyncClient, path: str, data: dict[str, str] | None = None) -> httpx.Response:
    """Submit a desk form as the browser would: own Origin, the page's CSRF token."""
    page = await client.get("/")
    return await client.post(path, data={"csrf": csrf_of(page.text), **(data or {})}, headers=ORIGIN)


@contextmanager
def running_ui(home: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The installed `trusted-memory-admin ui --no-browser` in a child process: (process, login URL)."""
    exe = Path(sys.executable).parent / "trusted-memory-admin"
    if not exe.is_file():
        pytest.skip(f"trusted-memory-admin is not installed next to {sys.executable} (pip install -e .)")
    env = {"PATH": os.environ["PATH"], "HOME": str(home.parent), "MCP_MEMORY_HOME": str(home), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        [str(exe), "ui", "--no-browser", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=home.parent,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_DEADLINE_S)
        line = proc.stdout.readline() if ready else ""
        match = re.search(r"(http://127\.0\.0\.1:\d+/login\?token=\S+)", line)
        if not match:
            proc.kill()
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"`ui` printed no login URL within {START_DEADLINE_S}s: {line!r}\n{err}")
        yield proc, match.group(1)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
