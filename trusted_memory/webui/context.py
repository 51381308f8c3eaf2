"""What every page handler shares: the admin services, the gate, the templates, flash messages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ..errors import MemoryServerError
from ..people import Viewer, acting_as
from ..services.admin import AdminService
from ..services.admin.insights import AdminInsights
from ..services.people import PeopleDirectory
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
    directory: PeopleDirectory
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
        person: Viewer | None = request.scope.get("desk_person")
        request.scope["desk"] = {
            "csrf": self.gate.csrf_of(session) or "",
            "flashes": self.flashes.pop(session, []) if session else [],
            "person": person,
        }
        return self.renderer.page(request, name, status, **context)


async def as_person(desk: Desk, request: Request, handle: Callable[[], Awaitable[Response]]) -> Response:
    """Run one request as the desk's person, looked up again now: a revoked person is refused at once,
    and a change of their projects holds from the next request. The operator's desk runs as nobody
    (every row); an admin's too, since an admin reviews the team."""
    if desk.gate.person is None:
        return await handle()
    viewer = await desk.directory.viewer_named(desk.gate.person)
    if viewer is None:
        return refusal(
            401,
            "Access revoked",
            f"{desk.gate.person} no longer has a live token on this store, so this desk shows nothing; "
            "ask an admin, then start <code>trusted-memory-admin --as NAME ui</code> again.",
        )
    request.scope["desk_person"] = viewer
    with acting_as(None if viewer.is_admin else viewer):
        return await handle()


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

        async def decide() -> Response:
            try:
                message = await run(desk, request, form)
            except MemoryServerError as exc:
                desk.flash(request, "error", exc.message)
            else:
                desk.flash(request, "ok", message)
            return RedirectResponse(safe_next(form.get("next")), status_code=303)

        # The acting person is checked on the server for every change, whatever the page offered.
        return await as_person(desk, request, decide)

    return endpoint
