"""The desk's door: a one-time login token, session cookies, CSRF tokens, Host/Origin checks, headers.

The page is the human gate, so it is the attack surface: another local user's process, a web page
in the same browser (CSRF, DNS rebinding), or stored text written by an attacker (XSS). Hence:
- the server binds 127.0.0.1 and answers only to Host 127.0.0.1:PORT or localhost:PORT (rebinding);
- the URL the CLI prints carries a random token that works once and becomes an HttpOnly,
  SameSite=Strict session cookie; every other request without that cookie is refused;
- a state-changing request needs its own origin in Origin and the session's CSRF token;
- every response carries a strict Content-Security-Policy (no inline script) and no CORS header.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

from starlette.datastructures import Headers
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD"})
PUBLIC_PATHS = ("/login", "/static/")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # same-origin (not no-referrer): with no-referrer a browser sends `Origin: null` on a form POST.
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
MAX_SESSIONS = 16
MAX_BODY_BYTES = 512 * 1024  # the largest form is one edited atom (4,000 characters) or facts entry


@dataclass
class Gate:
    """The login token (usable once) and the sessions it opened, each with its CSRF token."""

    port: int
    # The person of a team's store this desk acts for (`trusted-memory-admin --as NAME ui`); None: the
    # operator, who sees every row. Re-checked on every request (webui/context.py::as_person).
    person: str | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    used: bool = False
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> CSRF token

    @property
    def cookie_name(self) -> str:
        """The session cookie's name; the port keeps two desks on one machine apart."""
        return f"tm_desk_{self.port}"

    @property
    def origins(self) -> frozenset[str]:
        """The origins this desk is served from."""
        return frozenset({f"http://127.0.0.1:{self.port}", f"http://localhost:{self.port}"})

    @property
    def hosts(self) -> frozenset[str]:
        """The Host header values this desk answers to."""
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    def login_url(self) -> str:
        """The URL the CLI prints: it logs one browser in, once."""
        return f"http://127.0.0.1:{self.port}/login?token={self.token}"

    def exchange(self, token: str) -> str | None:
        """A new session id for the right, unused token; None otherwise (the token works once)."""
        if self.used or not secrets.compare_digest(token.encode(), self.token.encode()):
            return None
        self.used = True
        session = secrets.token_urlsafe(32)
        self.sessions[session] = secrets.token_urlsafe(32)
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.pop(next(iter(self.sessions)))
        return session

    def csrf_of(self, session: str | None) -> str | None:
        """The CSRF token of a live session, or None."""
        if not session:
            return None
        for known, csrf in self.sessions.items():
            if secrets.compare_digest(known.encode(), session.encode()):
                return csrf
        return None

    def check_csrf(self, session: str | None, sent: str | None) -> bool:
        """True when `sent` is the CSRF token of this live session."""
        csrf = self.csrf_of(session)
        return csrf is not None and sent is not None and secrets.compare_digest(csrf.encode(), sent.encode())

    def session_cookie(self, session: str) -> str:
        """The Set-Cookie value: HttpOnly, SameSite=Strict, the whole desk."""
        return f"{self.cookie_name}={session}; HttpOnly; SameSite=Strict; Path=/"


def session_of(gate: Gate, headers: Headers) -> str | None:
    """The session id the request's cookie carries, or None."""
    raw = headers.get("cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # a malformed cookie header is no session, not a server error
        return None
    morsel = jar.get(gate.cookie_name)
    return morsel.value if morsel else None


def refusal(status: int, title: str, detail: str) -> Response:
    """A small plain page saying why a request was refused and what to do."""
    body = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{detail}</p>"
    return HTMLResponse(body, status_code=status)


class Guard:
    """ASGI middleware in front of every route: Host, session, Origin; adds the security headers."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *[(k, v) for k, v in message.get("headers", []) if k.lower() != b"access-control-allow-origin"],
                    *SECURITY_HEADERS,
                ]
            await send(message)

        refused = self.refuse(scope)
        if refused is not None:
            await refused(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def refuse(self, scope: Scope) -> Response | None:
        """The response that refuses this request, or None to let it through."""
        headers = Headers(scope=scope)
        if headers.get("host", "") not in self.gate.hosts:
            # DNS rebinding: a page on another name that resolves to 127.0.0.1 must not reach the desk.
            return PlainTextResponse("this desk answers only to 127.0.0.1 or localhost", status_code=421)
        method = scope["method"]
        if method not in SAFE_METHODS:
            if method not in ("POST",):
                return PlainTextResponse("method not allowed", status_code=405)
            length = headers.get("content-length")
            if length is None or not length.isdigit() or int(length) > MAX_BODY_BYTES:
                return PlainTextResponse("a change is a form of at most 512 KiB, with its length", status_code=413)
            origin = headers.get("origin")
            if origin not in self.gate.origins:
                return refusal(
                    403, "Refused", "a change must come from this desk's own page (Origin missing or foreign)."
                )
        path: str = scope["path"]
        if path.startswith(PUBLIC_PATHS):
            return None
        if self.gate.csrf_of(session_of(self.gate, headers)) is None:
            return refusal(
                401,
                "Log in first",
                "Open the URL that <code>trusted-memory-admin ui</code> printed (it works once), "
                "or start <code>trusted-memory-admin ui</code> again for a new one.",
            )
        return None
