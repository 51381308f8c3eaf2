"""Read-only SQL for the review desk's dashboard and browse pages: counts, daily series, links.

Each query is one aggregate over an indexed column or a bounded window, so a page stays fast at
tens of thousands of atoms (benchmarks/webui_pages.py measures it).
"""

from __future__ import annotations

import builtins

from ..model import Atom
from .atoms import atom_from_row
from .conn import Connection
from .events import kind_sql
from .recall import link_kind_sql, link_weight_sql

DAY_S = 86400.0


class InsightsRepo:
    """Aggregates over atoms, events and sessions for the human's dashboard."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def atom_counts(self) -> builtins.list[tuple[str, str, str, int]]:
        """(type, status, source_class, count) over every atom."""
        async with self._conn.execute(
            "SELECT type, status, source_class, COUNT(*) FROM atoms GROUP BY type, status, source_class"
        ) as cur:
            return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in await cur.fetchall()]

    async def created_per_day(self, since: float) -> builtins.list[tuple[int, int]]:
        """(day number since the epoch, atoms created that day) for atoms still stored, from `since`."""
        async with self._conn.execute(
            "SELECT CAST(created_at / ? AS INTEGER) AS day, COUNT(*) FROM atoms WHERE created_at >= ? "
            "GROUP BY day ORDER BY day",
            (DAY_S, since),
        ) as cur:
            return [(int(r[0]), int(r[1])) for r in await cur.fetchall()]

    async def count_before(self, ts: float) -> int:
        """Atoms stored now that were created before `ts` (the base of the growth curve)."""
        async with self._conn.execute("SELECT COUNT(*) FROM atoms WHERE created_at < ?", (ts,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def events_per_day(self, kinds: builtins.list[str], since: float) -> builtins.list[tuple[str, int, int]]:
        """(kind, day number, count) of the given event kinds from `since`."""
        if not kinds:
            return []
        async with self._conn.execute(
            f"SELECT kind, CAST(ts / ? AS INTEGER) AS day, COUNT(*) FROM events "
            f"WHERE {kind_sql(kinds)} AND ts >= ? GROUP BY kind, day ORDER BY day",
            (DAY_S, *kinds, since),
        ) as cur:
            return [(str(r[0]), int(r[1]), int(r[2])) for r in await cur.fetchall()]

    async def recalled_per_day(self, since: float) -> builtins.list[tuple[int, int]]:
        """(day number, atoms whose latest recall fell on that day) from `since`.

        The store keeps a recall count and the latest recall time per atom, not a log of every
        recall, so this is what can be said per day without writing on every search.
        """
        async with self._conn.execute(
            "SELECT CAST(last_recalled_at / ? AS INTEGER) AS day, COUNT(*) FROM atoms "
            "WHERE last_recalled_at >= ? GROUP BY day ORDER BY day",
            (DAY_S, since),
        ) as cur:
            return [(int(r[0]), int(r[1])) for r in await cur.fetchall()]

    async def quarantine_findings(self, limit: int) -> builtins.list[str]:
        """The scan-finding summaries of the latest `limit` quarantine events (the atoms may be gone)."""
        async with self._conn.execute(
            "SELECT json_extract(detail, '$.findings') FROM events "
            f"WHERE {kind_sql(['atom_quarantined'])} AND json_extract(detail, '$.findings') IS NOT NULL "
            "ORDER BY id DESC LIMIT ?",
            ("atom_quarantined", limit),
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def links(self, atom_id: str, limit: int) -> builtins.list[tuple[Atom, str, float]]:
        """The atoms associated with one atom, strongest first: (atom, kind, weight)."""
        async with self._conn.execute(
            "WITH me AS (SELECT num FROM atoms WHERE id = ?), "
            f"pairs AS (SELECT dst AS other, {link_kind_sql()} AS kind, {link_weight_sql()} AS weight "
            "FROM associations WHERE src = (SELECT num FROM me) "
            f"UNION ALL SELECT src, {link_kind_sql()}, {link_weight_sql()} "
            "FROM associations WHERE dst = (SELECT num FROM me)) "
            "SELECT atoms.*, pairs.kind AS link_kind, pairs.weight AS link_weight "
            "FROM pairs JOIN atoms ON atoms.num = pairs.other ORDER BY pairs.weight DESC LIMIT ?",
            (atom_id, limit),
        ) as cur:
            return [(atom_from_row(r), str(r["link_kind"]), float(r["link_weight"])) for r in await cur.fetchall()]

    async def held_count(self, now: float) -> int:
        """Quarantined atoms still inside their review window (the desk's queue length)."""
        async with self._conn.execute(
            "SELECT COUNT(*) FROM atoms WHERE status = 'quarantined' AND (expires_at IS NULL OR expires_at > ?)",
            (now,),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def expired_count(self, now: float) -> int:
        """Quarantined atoms and pending inferences past their review window (what prune deletes)."""
        async with self._conn.execute(
            "SELECT (SELECT COUNT(*) FROM atoms WHERE status = 'quarantined' AND expires_at <= ?) "
            "+ (SELECT COUNT(*) FROM pending_reviews WHERE expires_at <= ?)",
            (now, now),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def session_count(self) -> int:
        """How many sessions the store knows."""
        async with self._conn.execute("SELECT COUNT(*) FROM sessions") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0
