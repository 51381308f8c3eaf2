"""The append-only audit log."""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Mapping

import aiosqlite

from ..model import Actor, Event
from .conn import Connection


def _event(row: aiosqlite.Row) -> Event:
    return Event(
        id=row["id"],
        ts=row["ts"],
        actor=row["actor"],
        kind=row["kind"],
        subject=row["subject"],
        detail=json.loads(row["detail"]),
    )


class EventsRepo:
    """SQL for the events table."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def append(
        self,
        actor: Actor,
        kind: str,
        subject: str | None = None,
        detail: Mapping[str, object] | None = None,
        ts: float | None = None,
    ) -> int:
        """Record one event; returns its id."""
        cur = await self._conn.execute(
            "INSERT INTO events(ts, actor, kind, subject, detail) VALUES (?, ?, ?, ?, ?)",
            (
                time.time() if ts is None else ts,
                actor,
                kind,
                subject,
                json.dumps(dict(detail or {}), ensure_ascii=False, sort_keys=True),
            ),
        )
        return int(cur.lastrowid or 0)

    async def insert_raw(self, event: Event) -> bool:
        """Insert an event with its original id (import); False if that id already exists."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO events(id, ts, actor, kind, subject, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (
                event.id,
                event.ts,
                event.actor,
                event.kind,
                event.subject,
                json.dumps(event.detail, ensure_ascii=False, sort_keys=True),
            ),
        )
        return bool(cur.rowcount > 0)

    async def get(self, event_id: int) -> Event | None:
        """One event by id."""
        async with self._conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)) as cur:
            row = await cur.fetchone()
        return _event(row) if row else None

    async def find_same(self, event: Event) -> int | None:
        """The id of an event with the same time, actor, kind, subject and detail (import dedup)."""
        async with self._conn.execute(
            "SELECT id FROM events WHERE kind = ? AND ts = ? AND actor = ? AND subject IS ? AND detail = ? LIMIT 1",
            (
                event.kind,
                event.ts,
                event.actor,
                event.subject,
                json.dumps(event.detail, ensure_ascii=False, sort_keys=True),
            ),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else None

    async def list(
        self,
        *,
        kind: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        since: float | None = None,
        limit: int = 100,
        after_id: int = 0,
        newest: bool = False,
    ) -> builtins.list[Event]:
        """Events matching every given filter, oldest first (with `newest`, the last `limit` of them)."""
        clauses: builtins.list[str] = ["id > ?"]
        params: builtins.list[object] = [after_id]
        if kind:
            clauses.append("kind = ?")
            params.append(kind)
        if actor:
            clauses.append("actor = ?")
            params.append(actor)
        if subject:
            clauses.append("subject = ?")
            params.append(subject)
        if since is not None:
            clauses.append("ts >= ?")
            params.append(since)
        order = "DESC" if newest else "ASC"
        sql = f"SELECT * FROM events WHERE {' AND '.join(clauses)} ORDER BY id {order} LIMIT ?"
        async with self._conn.execute(sql, (*params, limit)) as cur:
            events = [_event(r) for r in await cur.fetchall()]
        return events[::-1] if newest else events

    async def count(self, kind: str | None = None) -> int:
        """How many events there are (of one kind)."""
        sql, params = (
            ("SELECT COUNT(*) FROM events WHERE kind = ?", (kind,)) if kind else ("SELECT COUNT(*) FROM events", ())
        )
        async with self._conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def rejected_inferences(self) -> set[tuple[str, str]]:
        """(field_path, value) of every inference about the user a person rejected."""
        async with self._conn.execute(
            "SELECT json_extract(detail, '$.field_path'), json_extract(detail, '$.value') FROM events "
            "WHERE kind = 'pending_rejected'",
        ) as cur:
            return {(str(r[0]), str(r[1])) for r in await cur.fetchall() if r[0] is not None}
