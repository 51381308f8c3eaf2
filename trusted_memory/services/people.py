"""Who a request acts for: the person behind a bearer token, or the store's implicit owner."""

from __future__ import annotations

import hashlib
import hmac

from ..people import LOCAL, Viewer
from ..store.base import Store


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256, so a copy of the file holds no usable token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class PeopleDirectory:
    """Looks a token up on every request, so a revoked token fails on its very next one."""

    def __init__(self, store: Store, static_token: str | None = None) -> None:
        self._store = store
        self._static = static_token

    async def viewer_for_token(self, token: str) -> Viewer | None:
        """The person a bearer token belongs to (the configured static token is the implicit owner's)."""
        if self._static and hmac.compare_digest(token.encode(), self._static.encode()):
            return await self.local_viewer()
        async with self._store.read(snapshot=False) as rx:
            return await rx.people.viewer_by_token_hash(token_hash(token))

    async def viewer_named(self, name: str) -> Viewer | None:
        """An unrevoked person by name; the implicit owner for `local`."""
        if name == LOCAL:
            return await self.local_viewer()
        async with self._store.read(snapshot=False) as rx:
            return await rx.people.viewer(name)

    async def local_viewer(self) -> Viewer:
        """The implicit owner: an admin, and in a store with people, one person of the team."""
        async with self._store.read(snapshot=False) as rx:
            team = await rx.people.active_count() > 0
        return Viewer(LOCAL, "admin", frozenset(), team=team)
