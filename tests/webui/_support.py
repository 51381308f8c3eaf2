"""Helpers for the desk's HTTP tests: seed a store through the services, drive the real app over ASGI."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from trusted_memory.config import Settings, load_settings
from trusted_memory.model import Atom, PendingReview
from trusted_memory.services.admin import AdminService
from trusted_memory.services.admin.insights import AdminInsights
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime
from trusted_memory.webui import Gate, build_app

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN = {"origin": BASE}
XSS_PROBES = (
    "<script>alert('xss-script')</script>",
    "<a href=\"javascript:alert('xss-link')\">docs</a>",
    '"><img src=x onerror=alert(\'xss-img\')>',
)


def settings_for(home: Path) -> Settings:
    """Settings of a store folder, ignoring the developer's environment and project file."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=home.parent)


async def add_atom(rt: Runtime, content: str, source: str = "user_said", **kw: Any) -> Atom:
    """Store an atom through the agent-side service (a `web` source lands in quarantine)."""
    return (await AtomsService(rt.store, rt.settings).add(AtomDraft(content, source, **kw))).atom


async def propose(rt: Runtime, field_path: str, value: str, evidence: str = "said so twice") -> PendingReview:
    """Queue a pending inference about the user."""
    item = await AtomsService(rt.store, rt.settings).propose(field_path, value, evidence=evidence, confidence=0.6)
    assert item is not None
    return item


@asynccontextmanager
async def desk(rt: Runtime, *, login: bool = True, autoescape: bool = True) -> AsyncIterator[tuple[httpx.AsyncClient, Gate]]:
    """The real desk app over ASGI, optionally logged in with its one-time token."""
    gate = Gate(PORT)
    admin = AdminService(rt)
    app = build_app(admin, AdminInsights(rt), gate, autoescape=autoescape)
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
