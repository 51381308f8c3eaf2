"""SQL for the log of proactive nudges shown (caps and cool-downs are counted from it)."""

from __future__ import annotations

import builtins

from .conn import Connection


class NudgesRepo:
    """Rows of nudges_shown."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def shown_since(self, since: float) -> builtins.list[tuple[str, str, float]]:
        """(kind, subject, shown_at) of every nudge shown since `since`, newest first."""
        async with self._conn.execute(
            "SELECT kind, subject, shown_at FROM nudges_shown WHERE shown_at >= ? ORDER BY shown_at DESC",
            (since,),
        ) as cur:
            return [(str(r[0]), str(r[1]), float(r[2])) for r in await cur.fetchall()]

    async def record(self, kind: str, subject: str, session_id: str | None, ts: float) -> None:
        """Count a nudge as shown."""
        await self._conn.send(
            "INSERT INTO nudges_shown(kind, subject, session_id, shown_at) VALUES (?, ?, ?, ?)",
            (kind, subject, session_id, ts),
        )

    async def forget_before(self, ts: float) -> int:
        """Drop log rows older than any cool-down can look back."""
        cur = await self._conn.execute("DELETE FROM nudges_shown WHERE shown_at < ?", (ts,))
        return max(int(cur.rowcount), 0)
