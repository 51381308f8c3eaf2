"""Read-only SQL for the review desk's dashboard and browse pages: counts, daily series, links.

Each query is one aggregate over an indexed column or a bounded window, so a page stays fast at
tens of thousands of atoms (benchmarks/webui_pages.py measures it).
"""

from __future__ import annotations

import builtins

from ..model import Atom
from ..people import restricting_viewer
from .atoms import atom_from_row, visibility_sql
from .conn import Connection
from .events import kind_sql, owned_events_sql
from .recall import link_kind_sql, link_weight_sql

DAY_S = 86400.0


def _and(clause: tuple[str, list[object]] | None) -> tuple[str, list[object]]:
    """` AND clause` and its parameters, or nothing when the acting person sees every row."""
    return (f" AND {clause[0]}", clause[1]) if clause is not None else ("", [])


def _owner(table: str) -> tuple[str, list[object]] | None:
    """Rows of `table` that are the acting person's own (in a team's store; None: every row)."""
    viewer = restricting_viewer()
    return (f"{table}.owner = ?", [viewer.name]) if viewer is not None else None


def _private_recall() -> tuple[str, list[object]] | None:
    """Atoms only the acting person could have recalled: their own `user`-scope ones. A shared atom's
    latest recall may be another person's, and a day of it would tell of that person's activity."""
    viewer = restricting_viewer()
    return ("atoms.owner = ? AND atoms.scope = 'user'", [viewer.name]) if viewer is not None else None


class InsightsRepo:
    """Aggregates over atoms, events and sessions for the human's dashboard.

    In a team's store each figure is the acting person's: counts of atoms over what they may see
    (visibility_sql), activity (events, recalls, scan findings) over their own records only.
    """

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def atom_counts(self) -> builtins.list[tuple[str, str, str, int]]:
        """(type, status, source_class, count) over every atom the acting person may see."""
        visible = visibility_sql()
        where = f" WHERE {visible[0]}" if visible else ""
        async with self._conn.execute(
            f"SELECT type, status, source_class, COUNT(*) FROM atoms{where} GROUP BY type, status, source_class",
            visible[1] if visible else [],
        ) as cur:
            return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in await cur.fetchall()]

    async def created_per_day(self, since: float) -> builtins.list[tuple[int, int]]:
        """(day number since the epoch, atoms created that day) for atoms still stored, from `since`."""
        seen, params = _and(visibility_sql())
        async with self._conn.execute(
            f"SELECT CAST(created_at / ? AS INTEGER) AS day, COUNT(*) FROM atoms WHERE created_at >= ?{seen} "
            "GROUP BY day ORDER BY day",
            (DAY_S, since, *params),
        ) as cur:
            return [(int(r[0]), int(r[1])) for r in await cur.fetchall()]

    async def count_before(self, ts: float) -> int:
        """Atoms stored now that were created before `ts` (the base of the growth curve)."""
        seen, params = _and(visibility_sql())
        async with self._conn.execute(f"SELECT COUNT(*) FROM atoms WHERE created_at < ?{seen}", (ts, *params)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def events_per_day(self, kinds: builtins.list[str], since: float) -> builtins.list[tuple[str, int, int]]:
        """(kind, day number, count) of the given event kinds from `since`."""
        if not kinds:
            return []
        mine, params = _and(owned_events_sql())
        async with self._conn.execute(
            f"SELECT kind, CAST(ts / ? AS INTEGER) AS day, COUNT(*) FROM events "
            f"WHERE {kind_sql(kinds)} AND ts >= ?{mine} GROUP BY kind, day ORDER BY day",
            (DAY_S, *kinds, since, *params),
        ) as cur:
            return [(str(r[0]), int(r[1]), int(r[2])) for r in await cur.fetchall()]

    async def recalled_per_day(self, since: float) -> builtins.list[tuple[int, int]]:
        """(day number, atoms whose latest recall fell on that day) from `since`.

        The store keeps a recall count and the latest recall time per atom, not a log of every
        recall, so this is what can be said per day without writing on every search.
        """
        mine, params = _and(_private_recall())
        async with self._conn.execute(
            "SELECT CAST(last_recalled_at / ? AS INTEGER) AS day, COUNT(*) FROM atoms "
            f"WHERE last_recalled_at >= ?{mine} GROUP BY day ORDER BY day",
            (DAY_S, since, *params),
        ) as cur:
            return [(int(r[0]), int(r[1])) for r in await cur.fetchall()]

    async def quarantine_findings(self, limit: int) -> builtins.list[str]:
        """The scan-finding summaries of the latest `limit` quarantine events (the atoms may be gone)."""
        mine, params = _and(owned_events_sql())
        async with self._conn.execute(
            "SELECT json_extract(detail, '$.findings') FROM events "
            f"WHERE {kind_sql(['atom_quarantined'])} AND json_extract(detail, '$.findings') IS NOT NULL{mine} "
            "ORDER BY id DESC LIMIT ?",
            ("atom_quarantined", *params, limit),
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def links(self, atom_id: str, limit: int) -> builtins.list[tuple[Atom, str, float]]:
        """The atoms associated with one atom that the acting person may see, strongest first: (atom, kind, weight)."""
        visible = visibility_sql()
        seen = f" WHERE {visible[0]}" if visible else ""
        async with self._conn.execute(
            "WITH me AS (SELECT num FROM atoms WHERE id = ?), "
            f"pairs AS (SELECT dst AS other, {link_kind_sql()} AS kind, {link_weight_sql()} AS weight "
            "FROM associations WHERE src = (SELECT num FROM me) "
            f"UNION ALL SELECT src, {link_kind_sql()}, {link_weight_sql()} "
            "FROM associations WHERE dst = (SELECT num FROM me)) "
            "SELECT atoms.*, pairs.kind AS link_kind, pairs.weight AS link_weight "
            f"FROM pairs JOIN atoms ON atoms.num = pairs.other{seen} ORDER BY pairs.weight DESC LIMIT ?",
            (atom_id, *(visible[1] if visible else []), limit),
        ) as cur:
            return [(atom_from_row(r), str(r["link_kind"]), float(r["link_weight"])) for r in await cur.fetchall()]

    async def held_count(self, now: float) -> int:
        """The acting person's quarantined atoms still inside their review window (the desk's queue length)."""
        mine, params = _and(_owner("atoms"))
        async with self._conn.execute(
            "SELECT COUNT(*) FROM atoms WHERE status = 'quarantined' AND (expires_at IS NULL OR expires_at > ?)" + mine,
            (now, *params),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def expired_count(self, now: float) -> int:
        """The acting person's quarantined atoms and pending inferences past their review window (to prune)."""
        atoms_mine, atoms_params = _and(_owner("atoms"))
        pending_mine, pending_params = _and(_owner("pending_reviews"))
        async with self._conn.execute(
            f"SELECT (SELECT COUNT(*) FROM atoms WHERE status = 'quarantined' AND expires_at <= ?{atoms_mine}) "
            f"+ (SELECT COUNT(*) FROM pending_reviews WHERE expires_at <= ?{pending_mine})",
            (now, *atoms_params, now, *pending_params),
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def session_count(self) -> int:
        """How many sessions the store knows (the acting person's, in a team's store)."""
        mine = _owner("sessions")
        async with self._conn.execute(
            "SELECT COUNT(*) FROM sessions" + (f" WHERE {mine[0]}" if mine else ""), mine[1] if mine else []
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0
