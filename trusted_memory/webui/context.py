"""What every page handler shares: the admin services, the gate, the templates, flash messages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ..errors import MemoryServerError
from ..services.admin import AdminService
from ..services.admin.insights import AdminInsights
from .rendering import Renderer
from .security import Gate, refusal, session_of

MAX_FIELDS = 20
MAX_PART_BYTES = 256 * 1024
MAX_FLASHES = 8

Flash = tuple[str, str]  # (kind: ok | error, text)
Action = Callable[["Desk", Request, FormData], Awaitable[str]]


@dataclass
class Desk:
    """The web desk's state for one `trusted-memory-admin ui` process."""

    admin: AdminService
    insights: AdminInsights
    gate: Gate
    renderer: Renderer
    flashes: dict[str, list[Flash]] = field(default_factory=dict)

    def flash(self, request: Request, kind: str, text: str) -> None:
        """Keep a message for the session's next page."""
        session = session_of(self.gate, request.headers)
        if session is not None:
            queue = self.flashes.setdefault(session, [])
            queue.append((kind, text))
            del queue[:-MAX_FLASHES]

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """A page with the session's CSRF token and its pending messages."""
        session = session_of(self.gate, request.headers)
        request.scope["desk"] = {
            "csrf": self.gate.csrf_of(session) or "",
            "flashes": self.flashes.pop(session, []) if session else [],
        }
        return self.renderer.page(request, name, status, **context)


def safe_next(value: object, default: str = "/") -> str:
    """A redirect target inside the desk: a path starting with one '/', nothing else."""
    text = value if isinstance(value, str) else ""
    if not text.startswith("/") or text.startswith("//") or "\\" in text or any(ord(c) < 32 for c in text):
        return default
    return text


def action(desk: Desk, run: Action) -> Callable[[Request], Awaitable[Response]]:
    """A state-changing endpoint: CSRF-checked form, one admin call, a message, a redirect (303).

    Every POST route is built by this function (app.py), so none can skip the CSRF check.
    """

    async def endpoint(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=MAX_FIELDS, max_part_size=MAX_PART_BYTES)
        sent = form.get("csrf") or request.headers.get("x-csrf-token")
        session = session_of(desk.gate, request.headers)
        if not desk.gate.check_csrf(session, sent if isinstance(sent, str) else None):
            return refusal(403, "Refused", "the form's CSRF token is missing or stale; reload the page and try again.")
        try:
            message = await run(desk, request, form)
        except MemoryServerError as exc:
            desk.flash(request, "error", exc.message)
        else:
            desk.flash(request, "ok", message)
        return RedirectResponse(safe_next(form.get("next")), status_code=303)

    return endpoint
