"""The fixtures every browser test shares: one Chromium per test, and a fresh home folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from ._support import CHROMIUM, CHROMIUM_ARGS, require_browser


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    require_browser()
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"
