"""The size cap: when a write would pass `max_size_mb`, evict until the store is back under it.

Eviction order: expired quarantine, then the rest of the quarantine (its retention is 0), then
live atoms by lowest retention (confidence decayed by time since last use). Pinned and critical
live atoms are never evicted. Every eviction is an event with actor `system`.

Because those are never evicted, the agent may make them fill at most PROTECTED_SHARE of the cap:
past it, an agent pin or `critical` atom is refused, so the protected atoms cannot crowd out every
later write.
"""

from __future__ import annotations

import asyncio
import logging

from ..config import Settings
from ..errors import CapacityExceeded
from ..ranking import retention
from ..store.base import Store, now

log = logging.getLogger(__name__)

MB = 1024 * 1024
HEADROOM = 0.95  # evict to 95 % so the next writes do not evict again at once
BATCH_SHARE = 0.02
PROTECTED_SHARE = 0.20
# What one live atom takes on disk besides its text (row, indexes, FTS rows, vector, its events):
# about 1.7 KiB measured with the built-in embedder; its text counts three times (row, FTS, event).
PROTECTED_ATOM_BYTES = 2048
PROTECTED_TEXT_FACTOR = 3


def protected_bytes(count: int, chars: int) -> int:
    """The estimated size of `count` protected atoms holding `chars` characters of text."""
    return count * PROTECTED_ATOM_BYTES + chars * PROTECTED_TEXT_FACTOR


def _eviction_order(
    row: tuple[int, str, str, float, float, float | None, float | None, str], ts: float, half_life_days: float
) -> tuple[int, float]:
    """Sort key of an eviction candidate at time `ts`: lowest first is evicted first."""
    _, _, status, confidence, created, recalled, expires, _owner = row
    if status == "quarantined":
        return (0 if expires is not None and expires <= ts else 1, 0.0)
    return (
        2,
        retention(
            confidence=confidence,
            created_at=created,
            last_recalled_at=recalled,
            now=ts,
            half_life_days=half_life_days,
            trusted=True,
            pinned=False,
        ),
    )


class StoreBudget:
    """Keeps the whole store (database and WAL) under its configured size."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._lock = asyncio.Lock()

    @property
    def cap_bytes(self) -> int:
        """The configured cap in bytes."""
        return int(self._settings.max_size_mb * MB)

    def check_protected(self, count: int, chars: int, adding_chars: int) -> None:
        """Refuse one more agent-protected atom (pinned or critical) past PROTECTED_SHARE of the cap.

        `count` and `chars` are what the store's protected atoms hold now (AtomsRepo.protected_usage).
        """
        limit = int(self.cap_bytes * PROTECTED_SHARE)
        if protected_bytes(count + 1, chars + adding_chars) <= limit:
            return
        raise CapacityExceeded(
            f"agents may fill at most {PROTECTED_SHARE:.0%} of the store cap ({limit / MB:.2f} of "
            f"{self._settings.max_size_mb:g} MB) with pinned or critical atoms, which are never evicted, and "
            f"{count:,} already take that room. Store this one unpinned, with importance high or lower; or ask "
            "the user to unpin some (`trusted-memory-admin unpin ID`) or to raise max_size_mb."
        )

    async def make_room(self, incoming_bytes: int = 2048) -> int:
        """Before a write: evict if it would pass the cap; returns how many atoms were evicted."""
        fits = self.cap_bytes - incoming_bytes  # far below it, PostgreSQL answers from a bound (used_bytes)
        if await self._store.used_bytes(limit=fits) <= fits:
            return 0
        # The WAL counts too, and folding it back into the database loses nothing: try that first.
        await self._store.release_space()
        if await self._store.used_bytes() <= fits:
            return 0
        async with self._lock:
            return await self._evict_to(int(self.cap_bytes * HEADROOM) - incoming_bytes)

    async def settle(self) -> None:
        """After a write: if its WAL frames took the store past the cap, fold the WAL back now.

        The check before a write estimates what the write adds; one that also merges FTS segments
        can add more, and until the next write's check that excess would stay in the WAL.
        """
        if await self._store.used_bytes(limit=self.cap_bytes) > self.cap_bytes:
            await self._store.release_space()

    async def _evict_to(self, target: int) -> int:
        evicted = 0
        while (used := await self._store.used_bytes()) > target:
            async with self._store.read() as rx:
                candidates = await rx.atoms.eviction_candidates()
            if not candidates:
                raise CapacityExceeded(
                    f"the memory store is full ({used / MB:.1f} of {self._settings.max_size_mb:g} MB) and holds only "
                    "pinned or critical atoms; unpin or forget some with trusted-memory-admin, or raise max_size_mb"
                )
            ts = now()
            half_life = self._settings.recall.half_life_days
            ranked = sorted((_eviction_order(row, ts, half_life), row) for row in candidates)
            batch = ranked[: max(20, int(len(ranked) * BATCH_SHARE))]
            async with self._store.write() as tx:
                await tx.atoms.delete_many([row[1] for _, row in batch])
                for (_, score), (_, atom_id, status, *_rest, owner) in batch:
                    await tx.events.record(
                        "system",
                        "atom_evicted",
                        f"atom:{atom_id}",
                        {
                            "status": status,
                            "retention": round(score, 6),
                            "reason": f"store over {self._settings.max_size_mb:g} MB",
                        },
                        owner=owner,  # eviction acts for nobody; what it took was this person's
                    )
            evicted += len(batch)
            await self._store.release_space()
        if evicted:
            log.warning("evicted %d atom(s) to keep the store under %g MB", evicted, self._settings.max_size_mb)
        return evicted
