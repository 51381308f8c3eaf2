"""Every test here runs on each store backend (see the root conftest's store_env)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _on_each_backend(store_env: dict[str, str]) -> None:
    """Brings store_env (and with it the backend parameter) into every test of this folder."""
