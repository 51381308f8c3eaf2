"""Shared fixtures: every test gets its own store folder; the MCP client is the real in-memory one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server
from trusted_memory.services.admin import AdminService
from trusted_memory.services.agent import AgentService
from trusted_memory.services.runtime import Runtime, open_runtime


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def settings(home: Path, tmp_path: Path) -> Settings:
    # Scripted models answer at once, so tests send a turn's jobs at once too; settling itself is
    # tested in tests/llm/test_gate.py and test_a_burst_of_turns_costs_the_model_one_extraction.
    return load_settings(environ={"MCP_MEMORY_HOME": str(home), "MCP_MEMORY_LLM__SETTLE_S": "0"}, cwd=tmp_path)


@pytest.fixture
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    async with open_runtime(settings) as rt:
        yield rt


@pytest.fixture
def agent(runtime: Runtime) -> AgentService:
    return AgentService(runtime)


@pytest.fixture
def admin(runtime: Runtime) -> AdminService:
    return AdminService(runtime)


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest, settings: Settings) -> AsyncIterator[Client]:
    """The in-memory MCP client over both protocol eras."""
    async with Client(build_server(settings), mode=request.param) as c:
        yield c
