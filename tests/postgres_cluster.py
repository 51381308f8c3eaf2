"""A throwaway PostgreSQL cluster for the tests: initdb in a temp dir, 127.0.0.1, a random port.

PostgreSQL refuses to run as root, so as root the cluster's files belong to the `postgres` user
and initdb/pg_ctl run as that user (runuser). Each test gets its own database, copied from a
template the store's schema was created in once, and dropped after the test.
"""

from __future__ import annotations

import asyncio
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ENABLE_ENV = "TRUSTED_MEMORY_POSTGRES"  # 1: the suite runs on PostgreSQL too (the CI stage sets it)
TEMPLATE = "tmem_template"


def find_bindir() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian's layout, then PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One running cluster; `dsn(db)` names a database in it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="tmem-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if self.as_root:
            uid = pwd.getpwnam("postgres").pw_uid
            os.chown(self.root, uid, -1)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(sql)

    def prepare_template(self) -> None:
        """A database with the store's schema, which each test's database copies."""
        from trusted_memory.store.postgres.db import PgStore

        self.admin(f"CREATE DATABASE {TEMPLATE}")

        async def migrate() -> None:
            store = await PgStore.open(self.dsn(TEMPLATE))
            await store.close()

        asyncio.run(migrate())

    def new_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:16]}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
        return name

    def drop_database(self, name: str) -> None:
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Databases:
    """The databases of one test on PostgreSQL: each store folder the test uses is its own database
    (as each folder is its own SQLite file), created on first use and dropped after the test."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.by_home: dict[str, str] = {}

    def for_home(self, home: Path) -> str:
        key = os.path.abspath(home)
        if key not in self.by_home:
            self.by_home[key] = self.cluster.new_database()
        return self.by_home[key]

    def drop_all(self) -> None:
        for name in self.by_home.values():
            self.cluster.drop_database(name)
        self.by_home.clear()


CURRENT: Databases | None = None  # set by conftest.store_env while a test runs on PostgreSQL


def store_env_for(home: Path) -> dict[str, str]:
    """The environment naming the store of a store folder: {} on SQLite (the folder holds it)."""
    if CURRENT is None:
        return {}
    return {
        "MCP_MEMORY_STORE__BACKEND": "postgres",
        "MCP_MEMORY_STORE__DSN": CURRENT.cluster.dsn(CURRENT.for_home(home)),
    }


@contextmanager
def environ_for(home: Path) -> Iterator[None]:
    """os.environ naming the store of `home` (for code that reads the environment, like the CLI's main)."""
    saved = {k: os.environ.get(k) for k in ("MCP_MEMORY_STORE__BACKEND", "MCP_MEMORY_STORE__DSN")}
    os.environ.update(store_env_for(home))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def databases_of_test(cluster: Cluster, home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A test on PostgreSQL: its store folders become databases of `cluster` (dropped after), and the
    environment (returned, and set in os.environ) names the database of `home`."""
    global CURRENT
    databases = CURRENT = Databases(cluster)
    env = store_env_for(home)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    try:
        yield env
    finally:
        CURRENT = None
        databases.drop_all()
