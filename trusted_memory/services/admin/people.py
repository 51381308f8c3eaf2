"""The people of a team's store: who holds a token, with which role, in which projects (admin only)."""

from __future__ import annotations

import secrets

from ...errors import InvalidInput, NotFound
from ...people import LOCAL, ROLES, TOKEN_PREFIX, Person, check_person_name
from ...projects import project_name
from ...store.base import Store, now
from ..people import token_hash


def _name(name: str) -> str:
    cleaned = check_person_name(name)
    if cleaned == LOCAL:
        raise InvalidInput(f"'{LOCAL}' is the store's implicit owner (stdio, hooks, this CLI); choose another name")
    return cleaned


def _project(project: str) -> str:
    cleaned = project_name(project)
    if not cleaned:
        raise InvalidInput("give a project's name or path")
    return cleaned


class PeopleAdmin:
    """Adds, lists and revokes people and their project memberships; every change is audited."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def add(self, name: str, role: str = "member", projects: tuple[str, ...] = ()) -> tuple[Person, str]:
        """A new person and their bearer token: the token is returned once and never stored."""
        name = _name(name)
        if role not in ROLES:
            raise InvalidInput(f"role must be one of {', '.join(ROLES)}; got {role!r}")
        wanted = sorted({_project(p) for p in projects})
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        async with self._store.write() as tx:
            if not await tx.people.add(name, role, token_hash(token), now()):
                raise InvalidInput(
                    f"{name} is already a person of this store; pick another name, or revoke and re-add under a new one"
                )
            for project in wanted:
                await tx.people.grant(name, project)
            await tx.events.append("admin", "person_added", f"person:{name}", {"role": role, "projects": wanted})
            person = await tx.people.get(name)
        assert person is not None
        return person, token

    async def list(self) -> list[Person]:
        """Everyone, revoked people included."""
        async with self._store.read() as rx:
            return await rx.people.list()

    async def revoke(self, name: str) -> Person:
        """Refuse the person's token from their next request on; their memories stay theirs."""
        name = check_person_name(name)
        async with self._store.write() as tx:
            if not await tx.people.revoke(name, now()):
                raise NotFound(
                    f"no person {name} with a live token; `trusted-memory-admin users list` shows who there is"
                )
            await tx.events.append("admin", "person_revoked", f"person:{name}", {})
            person = await tx.people.get(name)
        assert person is not None
        return person

    async def grant(self, name: str, project: str, *, remove: bool = False) -> Person:
        """Add a person to a project's members (or, with remove, take them off)."""
        name, project = check_person_name(name), _project(project)
        async with self._store.write() as tx:
            person = await tx.people.get(name)
            if person is None:
                raise NotFound(f"no person {name}; `trusted-memory-admin users list` shows who there is")
            changed = await (tx.people.ungrant(name, project) if remove else tx.people.grant(name, project))
            if changed:
                kind = "person_ungranted" if remove else "person_granted"
                await tx.events.append("admin", kind, f"person:{name}", {"project": project})
            person = await tx.people.get(name)
        assert person is not None
        return person
