"""Shared helpers of the stress scripts: installed commands, child environments, a raw stdio
JSON-RPC client whose server pid we own, error classification and markdown tables.

Imported as `from _common import ...` (the scripts run as `python stress/<name>.py`, which puts
this folder on sys.path), like benchmarks/_common.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

LEGACY_PROTOCOL = "2025-11-25"
STOP_TIMEOUT_S = 10.0
_HEX = re.compile(r"\b[0-9a-f]{6,64}\b")
_NUM = re.compile(r"\d+")
_PATH = re.compile(r"/\S+")
# Contention and lost-connection words: SQLite's "database is locked"/"busy", PostgreSQL's "deadlock
# detected", "could not serialize access", "canceling statement due to lock timeout", and the store's
# "is unreachable" / "rolled back a write transaction" (a dropped or broken server connection).
LOCK_WORDS = (
    "locked",
    "busy",
    "deadlock",
    "could not serialize",
    "serialization",
    "lock timeout",
    "unreachable",
    "rolled back a write transaction",
    "connection",
)
STORE_KEYS = ("MCP_MEMORY_STORE__BACKEND", "MCP_MEMORY_STORE__DSN")


def bin_dir(explicit: str | None = None) -> Path:
    """The folder holding the installed console scripts: --bin, else next to this interpreter."""
    if explicit:
        return Path(explicit)
    here = Path(sys.executable).parent
    if (here / "trusted-memory").is_file():
        return here
    found = shutil.which("trusted-memory")
    if found is None:
        sys.exit("trusted-memory is not installed next to this interpreter nor on PATH (pip install -e .)")
    return Path(found).parent


class PgStores:
    """PostgreSQL databases for the stores of a run: each store folder gets its own fresh database (as
    each folder is its own SQLite file), made on first use through `server_dsn` and dropped by `drop_all`.

    `server_dsn` is a libpq string (key=value) naming a database to connect to with CREATEDB rights: a
    throwaway cluster's (`start_cluster`) or one given with --dsn.
    """

    def __init__(self, server_dsn: str, cluster: Any = None) -> None:
        self.server_dsn = server_dsn
        self.cluster = cluster  # a tests/postgres_cluster.Cluster this run started, or None
        self.by_home: dict[str, str] = {}

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.server_dsn, autocommit=True) as conn:
            conn.execute(sql)

    def dsn(self, home: Path) -> str:
        """The DSN of the database holding the store of `home` (created on first use)."""
        import psycopg.conninfo

        key = os.path.abspath(home)
        if key not in self.by_home:
            name = f"tmem_stress_{os.getpid()}_{len(self.by_home)}_{int(time.time())}"
            self._admin(f"CREATE DATABASE {name}")
            self.by_home[key] = psycopg.conninfo.make_conninfo(self.server_dsn, dbname=name)
        return self.by_home[key]

    def env(self, home: Path) -> dict[str, str]:
        """The store settings a child on `home` needs."""
        return {STORE_KEYS[0]: "postgres", STORE_KEYS[1]: self.dsn(home)}

    def version(self) -> str:
        import psycopg

        with psycopg.connect(self.server_dsn, autocommit=True) as conn:
            row = conn.execute("SHOW server_version").fetchone()
        return f"PostgreSQL {row[0] if row else '?'}"

    def drop_all(self) -> None:
        """Drop this run's databases (kept when a run fails, so they can be looked at)."""
        import psycopg.conninfo

        for dsn in self.by_home.values():
            name = psycopg.conninfo.conninfo_to_dict(dsn)["dbname"]
            self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self.by_home.clear()

    def finish(self, *, keep: bool) -> None:
        """After the run: drop its databases unless `keep`; stop a throwaway cluster (always), keeping
        its server log when `keep`."""
        if self.cluster is None:
            if keep:
                from trusted_memory.dsn import redacted  # never print a password

                print(f"(databases kept: {', '.join(redacted(d) for d in self.by_home.values())})")
            else:
                self.drop_all()
            return
        if keep:
            saved = Path(tempfile.mkdtemp(prefix="trusted-memory-pg-log-")) / "postgresql.log"
            shutil.copyfile(self.cluster.root / "log", saved)
            print(f"(the throwaway cluster is removed; its server log is kept in {saved})")
        self.cluster.stop()
        self.cluster = None


# Set by a script's --postgres: every child then gets its store folder's database (see child_env).
PG: PgStores | None = None


def use_postgres(dsn: str | None) -> PgStores:
    """Run the stores on PostgreSQL: the server `dsn` names, else a throwaway PG cluster
    (tests/postgres_cluster.py: initdb in a temp dir, 127.0.0.1, a random port; as root, the postgres user)."""
    global PG
    if dsn:
        import psycopg.conninfo

        PG = PgStores(psycopg.conninfo.make_conninfo(dsn))
        return PG
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from postgres_cluster import Cluster, find_bindir

    bindir = find_bindir()
    if bindir is None:
        sys.exit(
            "--postgres without --dsn needs PostgreSQL installed (initdb, pg_ctl), e.g. apt-get install postgresql"
        )
    cluster = Cluster(bindir)
    cluster.start()
    PG = PgStores(cluster.dsn(), cluster)
    return PG


def child_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment for a child: PATH, an isolated HOME, the shared store folder and, with
    --postgres, the folder's database."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home.parent),
        "MCP_MEMORY_HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
    }
    if PG is not None:
        env.update(PG.env(home))
    env.update(extra or {})
    return env


def is_lock_error(text: str) -> bool:
    """True when an error text says the store was locked, busy, deadlocked, could not serialize, or lost
    its connection (what must never reach a caller, on either backend)."""
    low = text.lower()
    return any(word in low for word in LOCK_WORDS)


def error_kind(where: str, text: str) -> str:
    """A short class for an error message: ids, numbers and paths folded, so equal causes count together."""
    first = text.strip().splitlines()[0] if text.strip() else "(empty)"
    first = first.removeprefix("Error executing tool memory: ")
    folded = _NUM.sub("N", _HEX.sub("<id>", _PATH.sub("<path>", first)))
    return f"{where}: {folded[:110]}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table."""
    lines = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    """One line about this machine (cores, Python, and the store: SQLite's version or PostgreSQL's)."""
    import platform
    import sqlite3

    store = PG.version() if PG is not None else f"SQLite {sqlite3.sqlite_version}"
    return (
        f"{os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}, {store}"
    )


def run_admin(
    bin_path: Path, home: Path, *args: str, timeout: float = 120.0, extra_env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `trusted-memory-admin ARGS` on the store to completion (bounded by `timeout`)."""
    return subprocess.run(
        [str(bin_path / "trusted-memory-admin"), "--home", str(home), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=child_env(home, extra_env),
        timeout=timeout,
        check=False,
    )


def admin_json(
    bin_path: Path, home: Path, *args: str, timeout: float = 120.0, extra_env: Mapping[str, str] | None = None
) -> Any:
    """`trusted-memory-admin --json ARGS`, parsed; raises RuntimeError naming stderr on failure."""
    done = run_admin(bin_path, home, "--json", *args, timeout=timeout, extra_env=extra_env)
    if done.returncode != 0:
        raise RuntimeError(f"trusted-memory-admin {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


class ServerGone(Exception):
    """The server's stdout closed (it exited or was killed)."""


class RawStdioServer:
    """`trusted-memory` started by us (so its pid is ours to kill), spoken to in raw JSON-RPC lines.

    The SDK client hides the child process; a crash test needs the pid and must survive the pipe
    closing under it, so this client is a few dozen lines over os.read/select instead.
    """

    def __init__(
        self,
        bin_path: Path,
        home: Path,
        stderr: IO[bytes],
        *,
        extra_env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            [str(bin_path / "trusted-memory")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=child_env(home, extra_env),
            cwd=cwd or home.parent,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._out = self.proc.stdout.fileno()
        self._buffer = b""
        self._next_id = 0
        self.closed = False

    @property
    def pid(self) -> int:
        """The server's process id (the console script execs Python directly)."""
        return self.proc.pid

    def send(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> int:
        """Write one request (or notification); returns its id."""
        self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            msg["id"] = self._next_id
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ServerGone(str(exc)) from exc
        return self._next_id

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next JSON-RPC message from the server; ServerGone at EOF, TimeoutError after `timeout`."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no message from the server within {timeout}s")
            ready, _, _ = select.select([self._out], [], [], min(left, 0.5))
            if not ready:
                continue
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise ServerGone("stdout closed")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def response(self, request_id: int, timeout: float) -> dict[str, Any]:
        """Wait for the response to `request_id`, skipping notifications and server requests."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self.receive(max(0.01, deadline - time.monotonic()))
            if msg.get("id") == request_id and ("result" in msg or "error" in msg):
                return msg

    def initialize(self, timeout: float = 30.0) -> dict[str, Any]:
        """The MCP handshake."""
        rid = self.send(
            "initialize",
            {
                "protocolVersion": LEGACY_PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "trusted-memory-stress", "version": "1"},
            },
        )
        reply = self.response(rid, timeout)
        self.send("notifications/initialized", notify=True)
        return reply

    def call(self, arguments: dict[str, Any], timeout: float = 30.0) -> tuple[bool, dict[str, Any], str]:
        """Call the `memory` tool: (is_error, structured content, text)."""
        rid = self.send("tools/call", {"name": "memory", "arguments": arguments})
        return tool_result(self.response(rid, timeout))

    def kill9(self) -> None:
        """SIGKILL the server: no cleanup, no flush, no atexit."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        """Close stdin (a clean stdio shutdown), then terminate/kill if it lingers; always reaps."""
        if self.closed:
            return
        self.closed = True
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_TIMEOUT_S)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def tool_result(msg: dict[str, Any]) -> tuple[bool, dict[str, Any], str]:
    """(is_error, structured content, text) of a tools/call response."""
    if "error" in msg:
        return True, {}, str(msg["error"].get("message", msg["error"]))
    result = msg["result"]
    text = "".join(c.get("text", "") for c in result.get("content", []))
    return bool(result.get("isError")), result.get("structuredContent") or {}, text


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """Terminate a child, kill it if it hangs, and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT_S)


_CONSONANTS, _VOWELS = "bcdfghjklmnpqrstvwxz", "aeiou"


def token(*parts: object) -> str:
    """A made-up twelve-letter word for `parts` (e.g. "zoluceresika"): a keyword no other memory contains.

    Hash-derived, so tokens share few character n-grams and the hashing embedder keeps distinct
    texts apart (a facts add merges into an entry whose cosine passes 0.7).
    """
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return "".join(_CONSONANTS[b % 20] + _VOWELS[b // 20 % 5] for b in digest[:6])
