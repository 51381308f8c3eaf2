"""Resource change notifications: a subscribed client hears when the facts, the user model or the
pending queue change, whichever process changed them.

Many processes share the store (other servers, the hooks, the admin CLI), so a process cannot
learn of a change from its own calls alone. Every committed write moves `meta.change_counter`
on, in whatever process it ran. While a client is subscribed, a watcher reads that counter
every `server.watch_interval_s` (one indexed row, tens of microseconds; on PostgreSQL, on each
commit's NOTIFY instead) and, when it moved,
renders each watched resource again and compares digests: a client is told only when what it
would read has changed. A write made through this process's own `memory` tool is checked at
once. With nobody subscribed the watcher sleeps on an event and costs nothing.

The two protocol eras subscribe differently. At 2026-07-28 a client opens a
`subscriptions/listen` stream (the SDK's `ListenHandler` over the bus below); at 2025-11-25 it
sends `resources/subscribe` per URI, handled here, and is sent `notifications/resources/updated`
on its session. The resource list itself never changes (fixed URIs and templates), so no
list-changed notification is ever due; `NoListChanges` stops the modern handshake from
advertising one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated, ServerEvent
from mcp.types import (
    INVALID_PARAMS,
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)

from ..services.agent import AgentService
from ..services.context import facts_text

log = logging.getLogger(__name__)

FACTS_USER = "memory://facts/user"
FACTS_ENV = "memory://facts/env"
USER_MODEL = "memory://user-model"
PENDING = "memory://pending"
WATCHED: tuple[str, ...] = (FACTS_USER, FACTS_ENV, USER_MODEL, PENDING)


async def resource_digests(agent: AgentService) -> dict[str, str]:
    """A digest of what each watched resource would show now."""
    user_model = await agent.user_model()
    views: dict[str, Any] = {
        FACTS_USER: facts_text(await agent.read_facts("user")),
        FACTS_ENV: facts_text(await agent.read_facts("env")),
        USER_MODEL: sorted((f.path, f.value, f.source_class) for f in user_model.fields.values()),
        PENDING: [(p.id, p.field_path, p.value) for p in await agent.list_pending()],
    }
    return {uri: hashlib.blake2b(json.dumps(v).encode(), digest_size=16).hexdigest() for uri, v in views.items()}


class CountingBus(InMemorySubscriptionBus):
    """The SDK's in-process bus, counting its listeners (one per open listen stream)."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__()
        self.listeners = 0
        self._on_change = on_change

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Register a listen stream; the watcher wakes for it."""
        unsubscribe = super().subscribe(listener)
        self.listeners += 1
        self._on_change()
        done = False

        def undo() -> None:
            nonlocal done
            if not done:
                done = True
                self.listeners -= 1
                unsubscribe()

        return undo


class ChangeNotifier:
    """Watches the shared store for changes to the watched resources and tells subscribers."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.bus = CountingBus(self._wake_up)
        self._listen = ListenHandler(self.bus)
        # Legacy subscribers: one entry per session, with the URIs it subscribed to.
        self._legacy: dict[int, tuple[ServerSession, set[str]]] = {}
        self._wake = asyncio.Event()
        # The state subscribers' changes are compared against. Taken before the first subscription
        # is registered and kept through gaps with no subscriber: a change made while a client was
        # subscribing is then at worst reported once too often, never missed.
        self._digests: dict[str, str] | None = None
        self._counter: int | None = None
        self._baseline_lock = asyncio.Lock()
        self.checks = 0  # how many times the counter moved and the resources were rendered again

    def _wake_up(self) -> None:
        self._wake.set()

    @property
    def subscribed(self) -> bool:
        """Whether any client listens (a modern stream, or a legacy subscription)."""
        return self.bus.listeners > 0 or any(uris for _, uris in self._legacy.values())

    def poke(self) -> None:
        """Check now (after a write through this process), instead of at the next interval."""
        if self.subscribed:
            self._wake.set()

    async def listen(self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams) -> Any:
        """`subscriptions/listen` (2026-07-28): the SDK's handler, once the baseline is taken."""
        await self.baseline(ctx.lifespan_context.agent)
        return await self._listen(ctx, params)

    async def subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        """`resources/subscribe` (2025-11-25): remember the URI for this session."""
        uri = str(params.uri)
        if uri not in WATCHED:
            raise MCPError(
                INVALID_PARAMS, f"{uri} does not send change notifications; subscribe to one of {', '.join(WATCHED)}"
            )
        await self.baseline(ctx.lifespan_context.agent)
        _, uris = self._legacy.setdefault(id(ctx.session), (ctx.session, set()))
        uris.add(uri)
        self._wake.set()
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        """`resources/unsubscribe` (2025-11-25)."""
        entry = self._legacy.get(id(ctx.session))
        if entry is not None:
            entry[1].discard(str(params.uri))
            if not entry[1]:
                del self._legacy[id(ctx.session)]
        return EmptyResult()

    @asynccontextmanager
    async def watching(self, agent: AgentService) -> AsyncIterator[None]:
        """Run the watcher while the runtime is open."""
        task = asyncio.create_task(self._watch(agent), name="trusted-memory-change-watcher")
        try:
            yield
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def baseline(self, agent: AgentService) -> None:
        """Take the state changes are compared against, unless it is already held."""
        async with self._baseline_lock:
            if self._digests is None:
                self._counter = await agent.change_counter()
                self._digests = await resource_digests(agent)

    async def _watch(self, agent: AgentService) -> None:
        # The store says when another process may have written: each interval on SQLite, on each
        # commit's NOTIFY on PostgreSQL (no polling there).
        changes = agent.store_changes(self.interval_s)
        changed: asyncio.Future[None] | None = None
        try:
            while True:
                if not self.subscribed:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                try:
                    await self.check(agent)
                except Exception:  # a failed check must not end notifications for good; the next one retries
                    log.exception("checking the store for resource changes failed")
                self._wake.clear()
                if changed is None:
                    changed = asyncio.ensure_future(anext(changes))
                woken: asyncio.Future[bool] = asyncio.ensure_future(self._wake.wait())
                done, _ = await asyncio.wait((changed, woken), return_when=asyncio.FIRST_COMPLETED)
                woken.cancel()
                if changed in done:
                    changed = None
        finally:
            if changed is not None:
                changed.cancel()

    async def check(self, agent: AgentService) -> list[str]:
        """Notify the URIs whose content changed since the last check; returns them."""
        if self._digests is None:
            await self.baseline(agent)
            return []
        counter = await agent.change_counter()
        if counter == self._counter:
            return []
        self._counter = counter
        self.checks += 1
        digests = await resource_digests(agent)
        before, self._digests = self._digests, digests
        changed = [uri for uri in WATCHED if before.get(uri) != digests[uri]]
        for uri in changed:
            await self.bus.publish(ResourceUpdated(uri=uri))
            await self._send_legacy(uri)
        return changed

    async def _send_legacy(self, uri: str) -> None:
        for key, (session, uris) in list(self._legacy.items()):
            if uri not in uris:
                continue
            try:
                await session.send_resource_updated(uri)
            except Exception:  # the session is gone (closed stream): forget it
                log.debug("dropping the resource subscriptions of a closed session", exc_info=True)
                self._legacy.pop(key, None)


class NoListChanges:
    """Middleware that keeps the 2026-07-28 handshake from advertising list-changed notifications.

    At 2026-07-28 the SDK derives every `listChanged` flag from `subscriptions/listen` being served,
    but this server's resource, tool and prompt lists never change while it runs, so no such
    notification is ever due. `resources.subscribe` stays advertised: it is honoured. (At
    2025-11-25 the SDK already advertises no list changes.)
    """

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Pass the request on; take the list-changed flags out of a `server/discover` answer."""
        result = await call_next(ctx)
        # Inside the chain the handler's result is already the wire dict.
        if ctx.method == "server/discover" and isinstance(result, dict):
            for capability in ("resources", "tools", "prompts"):
                advertised = result.get("capabilities", {}).get(capability)
                if isinstance(advertised, dict) and "listChanged" in advertised:
                    advertised["listChanged"] = False
        return result
