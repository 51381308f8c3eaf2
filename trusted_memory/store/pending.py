"""SQL for the pending-review queue and the confirmed user-model fields (read side)."""

from __future__ import annotations

import builtins

import aiosqlite

from ..model import PendingReview
from ..people import acting_owner, restricting_viewer
from .conn import Connection


def _pending(row: aiosqlite.Row) -> PendingReview:
    return PendingReview(
        id=row["id"],
        field_path=row["field_path"],
        value=row["value"],
        evidence=row["evidence"],
        confidence=row["confidence"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        expires_at=row["expires_at"],
        owner=row["owner"],
    )


class PendingRepo:
    """Rows of pending_reviews, and reads of user_model."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def get(self, review_id: str) -> PendingReview | None:
        """One pending inference."""
        async with self._conn.execute("SELECT * FROM pending_reviews WHERE id = ?", (review_id,)) as cur:
            row = await cur.fetchone()
        viewer = restricting_viewer()
        return _pending(row) if row and (viewer is None or row["owner"] == viewer.name) else None

    async def find(self, field_path: str, value: str) -> PendingReview | None:
        """The acting person's pending inference with this field and value, if any."""
        async with self._conn.execute(
            "SELECT * FROM pending_reviews WHERE owner = ? AND field_path = ? AND value = ?",
            (acting_owner(), field_path, value),
        ) as cur:
            row = await cur.fetchone()
        return _pending(row) if row else None

    async def list(self, *, now: float, include_expired: bool = False) -> builtins.list[PendingReview]:
        """Pending inferences, oldest first (in a team's store, about the acting person only)."""
        clauses: builtins.list[str] = []
        params: builtins.list[object] = []
        if not include_expired:
            clauses.append("expires_at > ?")
            params.append(now)
        if restricting_viewer() is not None:
            clauses.append("owner = ?")
            params.append(acting_owner())
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        async with self._conn.execute(f"SELECT * FROM pending_reviews{where} ORDER BY updated_at, id", params) as cur:
            return [_pending(r) for r in await cur.fetchall()]

    async def insert(self, item: PendingReview) -> bool:
        """Store a pending inference; False if its id exists already (import)."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO pending_reviews"
            "(id, field_path, value, evidence, confidence, created_at, updated_at, expires_at, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item.id,
                item.field_path,
                item.value,
                item.evidence,
                item.confidence,
                item.created_at,
                item.updated_at,
                item.expires_at,
                item.owner,
            ),
        )
        return bool(cur.rowcount > 0)

    async def refresh(self, review_id: str, *, evidence: str, confidence: float, ts: float, expires_at: float) -> None:
        """Re-inferred: keep it longer, with the newest evidence."""
        await self._conn.send(
            "UPDATE pending_reviews SET evidence = ?, confidence = MAX(confidence, ?), updated_at = ?, expires_at = ? "
            "WHERE id = ?",
            (evidence, confidence, ts, expires_at, review_id),
        )

    async def delete(self, review_id: str) -> None:
        """Drop a pending inference."""
        await self._conn.send("DELETE FROM pending_reviews WHERE id = ?", (review_id,))

    async def model_fields(self) -> builtins.list[tuple[str, str, str, float, str]]:
        """The acting person's user-model fields as (path, value, source_class, updated_at, evidence)."""
        async with self._conn.execute(
            "SELECT field_path, value, source_class, updated_at, evidence FROM user_model WHERE owner = ? "
            "ORDER BY field_path",
            (acting_owner(),),
        ) as cur:
            return [(r[0], r[1], r[2], r[3], r[4]) for r in await cur.fetchall()]

    async def model_fields_of_everyone(self) -> builtins.list[tuple[str, str, str, str, float, str]]:
        """Every person's user-model fields as (owner, path, value, source_class, updated_at, evidence): export."""
        async with self._conn.execute(
            "SELECT owner, field_path, value, source_class, updated_at, evidence FROM user_model "
            "ORDER BY owner, field_path",
        ) as cur:
            return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in await cur.fetchall()]

    async def model_fields_seen(self) -> builtins.list[tuple[str, str, str, str, float, str]]:
        """model_fields_of_everyone as the acting person sees it: in a team's store, their own fields only."""
        viewer = restricting_viewer()
        mine = " WHERE owner = ?" if viewer is not None else ""
        async with self._conn.execute(
            f"SELECT owner, field_path, value, source_class, updated_at, evidence FROM user_model{mine} "
            "ORDER BY owner, field_path",
            (viewer.name,) if viewer is not None else (),
        ) as cur:
            return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in await cur.fetchall()]

    async def set_observed(self, field_path: str, value: str, *, source_class: str, evidence: str, ts: float) -> bool:
        """Apply a direct inference; never over a field a human confirmed. True if it changed."""
        cur = await self._conn.execute(
            "INSERT INTO user_model(field_path, value, source_class, updated_at, evidence, owner) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(owner, field_path) DO UPDATE SET value = excluded.value, "
            "source_class = excluded.source_class, updated_at = excluded.updated_at, evidence = excluded.evidence "
            "WHERE user_model.source_class != 'user_approved' AND user_model.value != excluded.value",
            (field_path, value, source_class, ts, evidence, acting_owner()),
        )
        return bool(cur.rowcount > 0)

    async def delete_field(self, field_path: str) -> None:
        """Drop a user-model field (repair of a field that fails validation)."""
        await self._conn.send("DELETE FROM user_model WHERE owner = ? AND field_path = ?", (acting_owner(), field_path))

    async def user_model(self) -> dict[str, tuple[str, str, float]]:
        """Every stored field as path -> (value, source_class, updated_at)."""
        return {path: (value, source, ts) for path, value, source, ts, _ in await self.model_fields()}
