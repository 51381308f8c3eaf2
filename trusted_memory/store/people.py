"""SQL for the people of a team's store and their project memberships (people.py says what they mean)."""

from __future__ import annotations

import builtins

from ..people import Person, Viewer
from .conn import Connection


class PeopleRepo:
    """Rows of people and project_members."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def add(self, name: str, role: str, token_hash: str, ts: float) -> bool:
        """Add a person; False when the name is taken (revoked people keep theirs, for the audit log)."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO people(name, role, token_hash, created_at) VALUES (?, ?, ?, ?)",
            (name, role, token_hash, ts),
        )
        return bool(cur.rowcount > 0)

    async def get(self, name: str) -> Person | None:
        """One person, revoked or not."""
        async with self._conn.execute(
            "SELECT name, role, created_at, revoked_at FROM people WHERE name = ?", (name,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return Person(str(row[0]), str(row[1]), tuple(await self.projects_of(name)), float(row[2]), row[3])

    async def list(self) -> builtins.list[Person]:
        """Everyone, in name order."""
        async with self._conn.execute("SELECT name FROM people ORDER BY name") as cur:
            names = [str(r[0]) for r in await cur.fetchall()]
        return [p for p in [await self.get(n) for n in names] if p is not None]

    async def revoke(self, name: str, ts: float) -> bool:
        """Refuse this person's token from now on; False when there is no such unrevoked person."""
        cur = await self._conn.execute(
            "UPDATE people SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (ts, name)
        )
        return bool(cur.rowcount > 0)

    async def grant(self, name: str, project: str) -> bool:
        """Make a person a member of a project; False when they are one already."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO project_members(person, project) VALUES (?, ?)", (name, project)
        )
        return bool(cur.rowcount > 0)

    async def ungrant(self, name: str, project: str) -> bool:
        """End a membership; False when there was none."""
        cur = await self._conn.execute("DELETE FROM project_members WHERE person = ? AND project = ?", (name, project))
        return bool(cur.rowcount > 0)

    async def projects_of(self, name: str) -> builtins.list[str]:
        """The projects a person is a member of, in name order."""
        async with self._conn.execute(
            "SELECT project FROM project_members WHERE person = ? ORDER BY project", (name,)
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def active_count(self) -> int:
        """How many people hold a token that is not revoked."""
        async with self._conn.execute("SELECT COUNT(*) FROM people WHERE revoked_at IS NULL") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def viewer_by_token_hash(self, token_hash: str) -> Viewer | None:
        """The unrevoked person holding this token, as a call sees them; None for any other token."""
        async with self._conn.execute(
            "SELECT name, role FROM people WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return Viewer(str(row[0]), str(row[1]), frozenset(await self.projects_of(str(row[0]))), team=True)

    async def viewer(self, name: str) -> Viewer | None:
        """An unrevoked person by name, as a call sees them."""
        person = await self.get(name)
        if person is None or person.revoked_at is not None:
            return None
        return Viewer(person.name, person.role, frozenset(person.projects), team=True)
