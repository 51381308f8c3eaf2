"""The desk's pages (GET): review desk, browse and search, one item, dashboard, user model, audit."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import InvalidInput, MemoryServerError, NotFound
from ..model import SCOPES, STORED_ATOM_TYPES, TARGETS, TURN_TYPE, session_key
from ..queries import AtomFilter
from ..services.recall_types import MAX_QUERY_CHARS, RecallQuery
from . import charts
from .context import Desk
from .security import session_of

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
DESK_CARDS = 50
LIST_LIMITS = (25, 50, 100, 200)
Page = Callable[[Desk, Request], Awaitable[Response]]
TABS = ("atoms", "turns", "facts", "episodes", "sessions")


def parse_time(name: str, text: str) -> float | None:
    """Epoch seconds from an ISO date/time or an age such as 7d; None when empty."""
    value = text.strip()
    if not value:
        return None
    match = _RELATIVE.match(value.lower())
    if match:
        return time.time() - float(match.group(1)) * _UNITS[match.group(2)]
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        raise InvalidInput(f"{name} {value!r} is not a time: give a date (2025-01-31) or an age such as 7d") from None


def _limit(text: str | None, default: int = 50) -> int:
    try:
        value = int(text or default)
    except ValueError:
        return default
    return value if value in LIST_LIMITS else default


async def login(desk: Desk, request: Request) -> Response:
    """Exchange the one-time token for a session cookie."""
    session = desk.gate.exchange(request.query_params.get("token", ""))
    if session is None:
        if desk.gate.csrf_of(session_of(desk.gate, request.headers)) is not None:
            return RedirectResponse("/", status_code=303)  # already logged in: the token stays spent
        return desk.render(request, "refused.html", 403, title="This login link is spent or wrong")
    response = RedirectResponse("/", status_code=303)
    response.headers["set-cookie"] = desk.gate.session_cookie(session)
    return response


async def review(desk: Desk, request: Request) -> Response:
    """The review desk: quarantined atoms and pending inferences as cards."""
    atoms = await desk.admin.quarantine(limit=DESK_CARDS)  # a screenful; the next show as these are decided
    pending = await desk.admin.pending()
    sessions = {}
    for key in {session_key(a.session_id, a.owner) for a in atoms if a.session_id}:
        view = await desk.insights.session(key)
        if view is not None:
            sessions[key] = view.session
    expired_count = await desk.insights.expired()
    episodes = [e for e in await desk.admin.episodes(include_held=True, limit=200) if e.status != "live"]
    return desk.render(
        request,
        "desk.html",
        atoms=atoms,
        held_total=await desk.insights.held(),
        pending=pending,
        sessions=sessions,
        expired_count=expired_count,
        episodes=episodes[:DESK_CARDS],
    )


async def browse(desk: Desk, request: Request) -> Response:
    """Atoms and turns (listed or searched), facts, episodes, sessions."""
    params = request.query_params
    tab = params.get("tab", "atoms")
    tab = tab if tab in TABS else "atoms"
    limit = _limit(params.get("limit"))
    context: dict[str, Any] = {
        "tab": tab,
        "limit": limit,
        "params": params,
        "types": STORED_ATOM_TYPES,
        "scopes": SCOPES,
        "limits": LIST_LIMITS,
        "error": None,
        "hits": None,
        "atoms": [],
    }
    if tab == "facts":
        context["views"] = [await desk.admin.facts(t) for t in TARGETS]
    elif tab == "episodes":
        context["episodes"] = await desk.admin.episodes(include_held=True, limit=limit)
    elif tab == "sessions":
        context["sessions"] = await desk.insights.sessions(limit=limit)
    else:
        try:
            await _atoms_tab(desk, params, tab, limit, context)
        except MemoryServerError as exc:
            context["error"] = exc.message
    return desk.render(request, "browse.html", **context)


async def _atoms_tab(desk: Desk, params: QueryParams, tab: str, limit: int, context: dict[str, Any]) -> None:
    get = params.get
    picked = get("type") or ""
    types = [picked] if picked in STORED_ATOM_TYPES else []
    if tab == "turns":
        types = [TURN_TYPE]
    tags = [t for t in (get("tag") or "").replace(",", " ").split() if t]
    scope = get("scope") if get("scope") in SCOPES else None
    project = (get("project") or "").strip() or None
    since, until = parse_time("since", get("since") or ""), parse_time("until", get("until") or "")
    query = (get("q") or "").strip()
    if query:
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"the search is {len(query):,} characters; {MAX_QUERY_CHARS:,} at most")
        filters = AtomFilter(types=types, tags=tags, project=project, scope=scope, since=since, until=until)
        # The agent's own hybrid search; touch=False so looking does not count as a recall.
        context["hits"] = (
            await desk.admin.search(RecallQuery(query, k=min(limit, 50), filters=filters, touch=False))
        ).hits
        return
    status = get("status") if get("status") in ("live", "quarantined") else None if get("status") == "all" else "live"
    filters = AtomFilter(
        status=status,
        types=types,
        tags=tags,
        project=project,
        scope=scope,
        since=since,
        until=until,
        include_expired=status != "live",
    )
    context["atoms"] = await desk.admin.atoms(filters, limit=limit)


async def atom(desk: Desk, request: Request) -> Response:
    """One atom: every field, its provenance, its links, its audit trail."""
    try:
        item = await desk.admin.atom(request.path_params["atom_id"])
    except NotFound as exc:
        return desk.render(request, "missing.html", 404, message=exc.message)
    except InvalidInput as exc:
        return desk.render(request, "missing.html", 400, message=exc.message)
    session = await desk.insights.session(session_key(item.session_id, item.owner)) if item.session_id else None
    links = await desk.insights.links(item.id)
    trail = await desk.admin.audit(subject=f"atom:{item.id}", limit=200)
    return desk.render(request, "atom.html", atom=item, session=session, links=links, history=trail)


async def episode(desk: Desk, request: Request) -> Response:
    """One episode with its session and audit trail."""
    try:
        item = await desk.admin.episode(request.path_params["key"])
    except NotFound as exc:
        return desk.render(request, "missing.html", 404, message=exc.message)
    trail = await desk.admin.audit(subject=f"episode:{item.id}", limit=100)
    return desk.render(request, "episode.html", episode=item, history=trail)


async def session(desk: Desk, request: Request) -> Response:
    """One session: its trust, kept transcript, notes and the atoms it left."""
    key = request.path_params["session_id"]
    try:
        view = await desk.insights.session(key)
    except InvalidInput as exc:
        return desk.render(request, "missing.html", 400, message=exc.message)
    if view is None:
        return desk.render(request, "missing.html", 404, message=f"no session {key}")
    # A session id is its owner's: another person's session of the same id has events of its own.
    trail = await desk.admin.audit(subject=f"session:{view.session.id}", owner=view.session.owner, limit=100)
    return desk.render(request, "session.html", view=view, history=trail)


async def dashboard(desk: Desk, request: Request) -> Response:
    """Size against the cap, counts, growth, writes and recalls per day, evictions, scan findings."""
    try:
        days = int(request.query_params.get("days", "30"))
    except ValueError:
        days = 30
    data = await desk.insights.dashboard(days=days)
    stats = await desk.admin.stats()
    figures = {
        "gauge": charts.gauge(data.size_bytes, data.cap_bytes),
        "types": charts.horizontal_bars(data.by_type),
        "trust": charts.horizontal_bars(data.by_trust),
        "sources": charts.horizontal_bars(data.by_source),
        "growth": charts.line([(d.day, d.count) for d in data.growth]),
        "writes": charts.daily_bars([(d.day, d.count) for d in data.writes]),
        "recalls": charts.daily_bars([(d.day, d.count) for d in data.recalls]),
        "evictions": charts.daily_bars([(d.day, d.count) for d in data.evictions_per_day]),
        "findings": charts.horizontal_bars(data.findings_by_rule),
    }
    return desk.render(
        request, "dashboard.html", data=data, stats=stats, figures=figures, mb=lambda n: f"{n / 1048576:.2f} MB"
    )


async def user(desk: Desk, request: Request) -> Response:
    """The user model with its evidence, and the inferences waiting for a person."""
    fields = await desk.insights.model_fields()
    model = await desk.admin.model()
    pending = await desk.admin.pending()
    return desk.render(request, "user.html", fields=fields, valid=set(model.fields), pending=pending)


async def audit(desk: Desk, request: Request) -> Response:
    """The audit log with the CLI's filters, newest last."""
    params = request.query_params
    error = None
    events = []
    actor = params.get("actor") if params.get("actor") in ("agent", "admin", "system") else None
    limit = _limit(params.get("limit"), 100)
    try:
        since = parse_time("since", params.get("since", ""))
        events = await desk.admin.audit(
            kind=(params.get("kind") or "").strip() or None,
            actor=actor,
            subject=(params.get("subject") or "").strip() or None,
            since=since if since is None or math.isfinite(since) else None,
            limit=limit,
        )
    except MemoryServerError as exc:
        error = exc.message
    return desk.render(request, "audit.html", events=events, params=params, error=error, limits=LIST_LIMITS)
