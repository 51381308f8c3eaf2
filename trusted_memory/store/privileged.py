"""Trust-raising SQL: promote, unpin, confirm. Only services/admin/ may import this module."""

from __future__ import annotations

from ..model import PendingReview
from .conn import Connection
from .events import keep_previews


class PrivilegedOps:
    """Writes that raise trust or release memory from human control."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def promote_atom(self, atom_id: str, ts: float) -> None:
        """Release an atom from quarantine as human-approved memory."""
        await self._conn.execute(
            "UPDATE atoms SET status = 'live', source_class = 'user_approved', quarantine_reason = NULL, "
            "findings = NULL, expires_at = NULL, updated_at = ? WHERE id = ?",
            (ts, atom_id),
        )

    async def edit_quarantined_text(self, atom_id: str, text: str, digest: bytes, ts: float) -> None:
        """Replace a quarantined atom's text with the reviewer's edit (before it is promoted)."""
        async with self._conn.execute("SELECT text FROM atoms WHERE id = ?", (atom_id,)) as cur:
            row = await cur.fetchone()
        if row is not None:  # any event that rebuilds its preview from this text keeps it as it was
            await keep_previews(self._conn, [(atom_id, str(row[0]))])
        await self._conn.execute(
            "UPDATE atoms SET text = ?, norm = ?, updated_at = ? WHERE id = ? AND status = 'quarantined'",
            (text, digest, ts, atom_id),
        )

    async def unpin_atom(self, atom_id: str, ts: float) -> None:
        """Let an atom be forgotten or evicted again."""
        await self._conn.execute("UPDATE atoms SET pinned = 0, updated_at = ? WHERE id = ?", (ts, atom_id))

    async def confirm_pending(self, item: PendingReview, ts: float) -> None:
        """Apply a pending inference to the user model and drop it from the queue."""
        await self._conn.execute(
            "INSERT INTO user_model(field_path, value, source_class, updated_at, evidence, owner) "
            "VALUES (?, ?, 'user_approved', ?, ?, ?) "
            "ON CONFLICT(owner, field_path) DO UPDATE SET value = excluded.value, "
            "source_class = excluded.source_class, updated_at = excluded.updated_at, evidence = excluded.evidence",
            (item.field_path, item.value, ts, item.evidence, item.owner),
        )
        await self._conn.execute("DELETE FROM pending_reviews WHERE id = ?", (item.id,))

    async def set_user_model(
        self, field_path: str, value: str, source_class: str, ts: float, evidence: str = "", owner: str = "local"
    ) -> None:
        """Write a user-model field of one person as-is (import)."""
        await self._conn.execute(
            "INSERT OR REPLACE INTO user_model(field_path, value, source_class, updated_at, evidence, owner) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (field_path, value, source_class, ts, evidence, owner),
        )

    async def promote_episode(self, episode_id: str) -> None:
        """Release a held (untrusted) episode into recall as human-approved."""
        await self._conn.execute(
            "UPDATE episodes SET status = 'live', source_class = 'user_approved' WHERE id = ?",
            (episode_id,),
        )
