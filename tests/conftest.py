"""Shared fixtures: every test gets its own store folder; the MCP client is the real in-memory one."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client
from postgres_cluster import ENABLE_ENV, Cluster, databases_of_test, find_bindir

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server
from trusted_memory.services.admin import AdminService
from trusted_memory.services.agent import AgentService
from trusted_memory.services.runtime import Runtime, open_runtime


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def home(tmp_path: Path, store_env: dict[str, str]) -> Path:
    """The test's store folder (on PostgreSQL the store itself is the database store_env names)."""
    return tmp_path / "home"


BACKENDS = ["sqlite"] + ([pytest.param("postgres", marks=pytest.mark.postgres)] if os.environ.get(ENABLE_ENV) else [])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked sqlite_only (it reads or damages the SQLite file itself) runs on SQLite alone, one
    marked postgres_only on PostgreSQL alone; one marked postgres runs only when the PostgreSQL stage
    asks for it."""
    enabled = bool(os.environ.get(ENABLE_ENV))

    def backend(item: pytest.Item) -> str | None:
        return getattr(getattr(item, "callspec", None), "params", {}).get("store_env")

    dropped = [
        item
        for item in items
        if (not enabled and item.get_closest_marker("postgres"))
        or (item.get_closest_marker("sqlite_only") and backend(item) == "postgres")
        or (item.get_closest_marker("postgres_only") and backend(item) != "postgres")
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One throwaway PostgreSQL cluster for the whole run (started on first use)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.fail(f"{ENABLE_ENV}=1 but no PostgreSQL is installed (apt-get install postgresql)")
    cluster = Cluster(bindir)
    cluster.start()
    try:
        cluster.prepare_template()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def store_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The environment naming the test's store backend: SQLite, or (with TRUSTED_MEMORY_POSTGRES=1) a
    fresh PostgreSQL database for the store folder `home`. It is also set in os.environ, for the CLI and
    the servers tests start; another store folder of the test gets its own database (store_env_for)."""
    if request.param == "sqlite":
        monkeypatch.delenv("MCP_MEMORY_STORE__BACKEND", raising=False)
        monkeypatch.delenv("MCP_MEMORY_STORE__DSN", raising=False)
        yield {}
        return
    home = request.getfixturevalue("tmp_path") / "home"
    with databases_of_test(request.getfixturevalue("pg_cluster"), home, monkeypatch) as env:
        yield env


@pytest.fixture
def settings(home: Path, tmp_path: Path, store_env: dict[str, str]) -> Settings:
    # Scripted models answer at once, so tests send a turn's jobs at once too; settling itself is
    # tested in tests/llm/test_gate.py and test_a_burst_of_turns_costs_the_model_one_extraction.
    return load_settings(
        environ={"MCP_MEMORY_HOME": str(home), "MCP_MEMORY_LLM__SETTLE_S": "0", **store_env}, cwd=tmp_path
    )


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
