"""Wiring: opens the store and builds the services one process needs, from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from ..config import Settings
from ..store.db import Store
from .recall import RecallService


@dataclass(frozen=True, slots=True)
class Runtime:
    """Everything opened for one process: settings, the store, and its recall engine."""

    settings: Settings
    store: Store
    recall: RecallService


@asynccontextmanager
async def open_runtime(settings: Settings, *, warm_up: bool = False) -> AsyncIterator[Runtime]:
    """Open the store named by the settings (optionally warming recall in the background)."""
    store = await Store.open(settings.db_path)
    recall = RecallService(store, settings)
    try:
        if warm_up:
            recall.start_background()
        yield Runtime(settings, store, recall)
    finally:
        try:
            await recall.close()
        finally:
            await store.close()


async def check_store(settings: Settings) -> None:
    """Open and close the store once, so a bad home or a damaged file fails before serving."""
    store = await Store.open(settings.db_path)
    await store.close()
