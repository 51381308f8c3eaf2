"""Row counts across the store, for the admin's `stats` (one snapshot, one query per table).

In a team's store the counts are the acting person's: the atoms they may see, and their own
pending inferences, sessions (with their turns and notes) and episodes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..people import restricting_viewer
from .atoms import visibility_sql
from .conn import Connection


@dataclass(frozen=True, slots=True)
class StoreCounts:
    """How many of each kind of record the store holds."""

    atoms: tuple[tuple[str, str, str, int], ...]  # (type, status, source class, count), sorted
    pending: int
    turns: int  # transcript turns (user and assistant) still held for open sessions
    sessions: int
    open_sessions: int
    notes: int
    episodes: int
    held_episodes: int


async def _one(conn: Connection, sql: str, params: tuple[object, ...] = ()) -> tuple[int, ...]:
    async with conn.execute(sql, params) as cur:
        row = await cur.fetchone()
    return tuple(int(v or 0) for v in row) if row else (0,)


async def count_records(conn: Connection) -> StoreCounts:
    """Count atoms by type, status and source, and every other record kind (the acting person's, in a team)."""
    visible = visibility_sql()
    async with conn.execute(
        "SELECT type, status, source_class, COUNT(*) FROM atoms"
        + (f" WHERE {visible[0]}" if visible else "")
        + " GROUP BY type, status, source_class ORDER BY type, status, source_class",
        visible[1] if visible else [],
    ) as cur:
        atoms = tuple((str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in await cur.fetchall())
    viewer = restricting_viewer()
    mine, of_mine, who = (
        (" WHERE owner = ?", " WHERE owner = ?", (viewer.name,)) if viewer is not None else ("", "", ())
    )
    sessions, open_sessions = await _one(
        conn, f"SELECT COUNT(*), SUM(CASE WHEN ended_at IS NULL THEN 1 ELSE 0 END) FROM sessions{mine}", who
    )
    episodes, held = await _one(
        conn, f"SELECT COUNT(*), SUM(CASE WHEN status = 'held' THEN 1 ELSE 0 END) FROM episodes{mine}", who
    )
    return StoreCounts(
        atoms=atoms,
        pending=(await _one(conn, f"SELECT COUNT(*) FROM pending_reviews{mine}", who))[0],
        turns=(await _one(conn, f"SELECT COUNT(*) FROM session_turns{of_mine}", who))[0],
        sessions=sessions,
        open_sessions=open_sessions,
        notes=(await _one(conn, f"SELECT COUNT(*) FROM session_notes{of_mine}", who))[0],
        episodes=episodes,
        held_episodes=held,
    )
