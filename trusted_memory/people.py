"""Who a call acts for, and what that person may see.

A store used by one person has one implicit owner, `local`: stdio, the hook and the admin CLI act
as it, and every record belongs to it, so nothing changes for a single user. A team's store holds
people (`trusted-memory-admin users add`), each with a bearer token for the HTTP transports. Every
record carries its owner's name; the scope of an atom says who else sees it:

- `user`: its owner only (an admin's agent does not see another person's private memory either);
- `project`: its owner and the members of its project;
- `global`: everyone. In a team store an agent's write to `global` waits for an admin's approval.

What waits in quarantine is seen by its owner only (and by the operator at the admin desk).

The person a call acts for travels in a context variable, set once at the edge (the MCP server's
handlers, the admin CLI) and read by the store when it builds a query, so no query can forget it.
Work that acts for nobody (the embedding worker, maintenance) sees everything and returns nothing
to anyone; its writes, if any, belong to `local`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .errors import InvalidInput

LOCAL = "local"
ROLES: tuple[str, ...] = ("admin", "member")
NAME_RULE = re.compile(r"[a-z][a-z0-9._-]{0,39}")
TOKEN_PREFIX = "tmem_"


@dataclass(frozen=True, slots=True)
class Viewer:
    """One person as a call sees them: name, role, the projects they belong to, whether the store is a team's."""

    name: str
    role: str = "admin"
    projects: frozenset[str] = frozenset()
    team: bool = False

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def sees(self, owner: str, scope: str, project: str | None, status: str = "live") -> bool:
        """Whether a record of this owner, scope, project and status is visible to this person.

        Quarantined records are their owner's alone: what waits for review reaches nobody else's agent.
        """
        if owner == self.name:
            return True
        if status != "live":
            return False
        return scope == "global" or (scope == "project" and project is not None and project in self.projects)

    def may_share_with(self, project: str) -> bool:
        """Whether this person may write to a project's shared memory (the implicit owner of a store may)."""
        return not self.team or self.name == LOCAL or project in self.projects


@dataclass(frozen=True, slots=True)
class Person:
    """One person as the admin lists them (never their token: only its hash is stored)."""

    name: str
    role: str
    projects: tuple[str, ...]
    created_at: float
    revoked_at: float | None


_acting: ContextVar[Viewer | None] = ContextVar("trusted_memory_viewer", default=None)


def acting_viewer() -> Viewer | None:
    """The person the current call acts for; None for work that acts for nobody."""
    return _acting.get()


def restricting_viewer() -> Viewer | None:
    """The person whose view narrows what a query returns: only in a team's store (elsewhere every row is theirs)."""
    viewer = _acting.get()
    return viewer if viewer is not None and viewer.team else None


def acting_owner() -> str:
    """The owner a write made now belongs to."""
    viewer = _acting.get()
    return viewer.name if viewer is not None else LOCAL


def owner_or_acting(owner: str | None) -> str:
    """The owner a caller names (a record's own, e.g. its session's), else the acting person's."""
    return acting_owner() if owner is None else owner


@contextmanager
def acting_as(viewer: Viewer | None) -> Iterator[None]:
    """Run the block as this person (None: as nobody, seeing everything)."""
    token = _acting.set(viewer)
    try:
        yield
    finally:
        _acting.reset(token)


def check_person_name(name: str) -> str:
    """A person's name as stored: lower-case, a letter first, up to 40 of a-z 0-9 . _ -."""
    cleaned = name.strip().lower()
    if not NAME_RULE.fullmatch(cleaned):
        raise InvalidInput(
            f"{name[:60]!r} is not a usable name: use 1-40 characters of a-z, 0-9, '.', '_' or '-', "
            "starting with a letter"
        )
    return cleaned
