"""SQL for the facts tier."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence

import aiosqlite

from ..model import FactEntry, Target
from ..people import acting_owner, restricting_viewer
from .conn import Connection


def _fact(row: aiosqlite.Row) -> FactEntry:
    return FactEntry(
        id=row["id"],
        target=row["target"],
        content=row["content"],
        key=row["key"],
        pinned=bool(row["pinned"]),
        keywords=() if row["keywords"] == "[]" else tuple(json.loads(row["keywords"])),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        owner=row["owner"],
    )


class FactsRepo:
    """Rows of the facts table, in insertion order per target."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def list(self, target: Target | None = None) -> builtins.list[FactEntry]:
        """Entries of one target (or all), oldest first; in a team's store, the acting person's only."""
        params: tuple[str, ...] = ()
        mine = restricting_viewer() is not None
        if target is None:
            sql = (
                "SELECT * FROM facts WHERE owner = ? ORDER BY target, id"
                if mine
                else "SELECT * FROM facts ORDER BY target, id"
            )
            params = (acting_owner(),) if mine else ()
        else:
            sql = f"SELECT * FROM facts WHERE target = ?{' AND owner = ?' if mine else ''} ORDER BY id"
            params = (target, acting_owner()) if mine else (target,)
        async with self._conn.execute(sql, params) as cur:
            return [_fact(r) for r in await cur.fetchall()]

    async def insert(
        self,
        target: Target,
        content: str,
        *,
        key: str | None,
        pinned: bool,
        keywords: Sequence[str],
        ts: float,
        owner: str | None = None,
    ) -> FactEntry:
        """Add an entry at the end of its target: the acting person's, or the owner an import names."""
        owner = owner or acting_owner()
        async with self._conn.execute(
            "INSERT INTO facts(target, key, content, pinned, keywords, created_at, updated_at, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (target, key, content, int(pinned), json.dumps(list(keywords), ensure_ascii=False), ts, ts, owner),
        ) as cur:
            row = await cur.fetchone()
        return FactEntry(
            id=int(row[0]),
            target=target,
            content=content,
            key=key,
            pinned=pinned,
            keywords=tuple(keywords),
            created_at=ts,
            updated_at=ts,
            owner=owner,
        )

    async def insert_raw(self, entry: FactEntry) -> bool:
        """Insert an entry with its original id (import); False if that id already exists."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO facts(id, target, key, content, pinned, keywords, created_at, updated_at, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.id,
                entry.target,
                entry.key,
                entry.content,
                int(entry.pinned),
                json.dumps(list(entry.keywords), ensure_ascii=False),
                entry.created_at,
                entry.updated_at,
                entry.owner,
            ),
        )
        return bool(cur.rowcount > 0)

    async def update(
        self,
        entry_id: int,
        *,
        content: str,
        pinned: bool,
        keywords: Sequence[str],
        ts: float,
    ) -> None:
        """Rewrite an entry in place (it keeps its position and key)."""
        await self._conn.send(
            "UPDATE facts SET content = ?, pinned = ?, keywords = ?, updated_at = ? WHERE id = ?",
            (content, int(pinned), json.dumps(list(keywords), ensure_ascii=False), ts, entry_id),
        )

    async def delete(self, entry_id: int) -> None:
        """Remove an entry."""
        await self._conn.send("DELETE FROM facts WHERE id = ?", (entry_id,))
