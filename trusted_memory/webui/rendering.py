"""Templates: Jinja2 with autoescape always on, so stored text can only ever be text.

Nothing here marks stored text safe: no `|safe`, no Markup() of data (tests/webui checks the
templates for `|safe`). Charts are geometry computed in charts.py and drawn by the template,
so labels in them are escaped like everything else.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..model import session_key
from ..trust import is_trusted

_env: Environment | None = None


def span(seconds: float) -> str:
    """A duration in its largest whole unit: 45s, 12m, 3h, 9d."""
    seconds = abs(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def age(ts: float | None) -> str:
    """How long ago `ts` was ("3d")."""
    return "" if ts is None else span(time.time() - ts)


def until(ts: float | None) -> str:
    """How long until `ts` ("in 6d"), or since it passed ("3h ago")."""
    if ts is None:
        return "never"
    delta = ts - time.time()
    return f"in {span(delta)}" if delta > 0 else f"{span(delta)} ago"


def iso(ts: float | None) -> str:
    """Local ISO time to the second."""
    return "" if ts is None else datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


def pretty(value: object) -> str:
    """An event detail as sorted JSON (escaped by the template like any text)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def environment(*, autoescape: bool = True) -> Environment:
    """The templates' environment (autoescape is a parameter only so a test can prove it matters)."""
    env = Environment(
        loader=PackageLoader("trusted_memory.webui", "templates"),
        autoescape=autoescape,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(age=age, until=until, iso=iso, pretty=pretty, q=lambda s: quote(str(s), safe=""))
    env.globals.update(trusted=is_trusted, session_key=session_key)
    return env


class Renderer:
    """Renders a page with the request's CSRF token and flash messages."""

    def __init__(self, env: Environment) -> None:
        self.env = env

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Render template `name` as the response."""
        state = request.scope.get("desk", {})
        html = self.env.get_template(name).render(
            csrf=state.get("csrf", ""),
            flashes=state.get("flashes", []),
            person=state.get("person"),
            path=request.url.path,
            **context,
        )
        return HTMLResponse(html, status_code=status)
