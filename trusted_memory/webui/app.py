"""The review desk's Starlette app: routes, the guard in front, static files; no CORS, no inline script."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..services.admin import AdminService
from ..services.admin.insights import AdminInsights
from ..services.people import PeopleDirectory
from . import actions, pages
from .context import Action, Desk, action, as_person
from .rendering import Renderer, environment
from .security import Gate, Guard

STATIC = str(Path(__file__).with_name("static"))

POSTS: tuple[tuple[str, Action], ...] = (
    ("/atom/{atom_id}/approve", actions.approve),
    ("/atom/{atom_id}/approve-edited", actions.approve_edited),
    ("/atom/{atom_id}/forget", actions.forget),
    ("/atom/{atom_id}/pin", actions.pin),
    ("/atom/{atom_id}/unpin", actions.unpin),
    ("/pending/{review_id}/confirm", actions.confirm),
    ("/pending/{review_id}/reject", actions.reject),
    ("/prune", actions.prune),
    ("/episode/{key}/promote", actions.promote_episode),
    ("/facts/add", actions.fact_add),
    ("/facts/edit", actions.fact_edit),
    ("/facts/remove", actions.fact_remove),
)


def build_app(admin: AdminService, insights: AdminInsights, gate: Gate, *, autoescape: bool = True) -> Starlette:
    """The desk for one store; `gate` holds its login token, its sessions and the person it acts for."""
    directory = PeopleDirectory(admin.runtime.store)
    desk = Desk(admin, insights, gate, Renderer(environment(autoescape=autoescape)), directory)

    def page(path: str, handler: pages.Page) -> Route:
        async def endpoint(request: Request) -> Response:
            return await as_person(desk, request, lambda: handler(desk, request))

        return Route(path, endpoint, methods=["GET"])

    routes: list[BaseRoute] = [
        page("/login", pages.login),
        page("/", pages.review),
        page("/browse", pages.browse),
        page("/atom/{atom_id}", pages.atom),
        page("/episode/{key}", pages.episode),
        page("/session/{session_id}", pages.session),
        page("/dashboard", pages.dashboard),
        page("/user", pages.user),
        page("/audit", pages.audit),
        *[Route(path, action(desk, run), methods=["POST"]) for path, run in POSTS],
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(Guard, gate=gate)])
