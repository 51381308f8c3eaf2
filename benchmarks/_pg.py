"""A PostgreSQL cluster for the benchmarks that compare backends, and the CPU its processes spend.

The cluster is started in a temp folder on 127.0.0.1 (a random port) with PostgreSQL's defaults,
fsync on, except `synchronous_commit = off`: a COMMIT then returns before its WAL reaches the disk,
so a power loss may lose the last commits but never corrupts the database, which is what the SQLite
store's `synchronous = NORMAL` in WAL mode promises too (--pg-sync on measures the stricter default).
As root, initdb and pg_ctl run as the `postgres` user (the server refuses root).

The PostgreSQL server's CPU is not in the MCP server's /proc figure, so `cpu_seconds(db)` sums it
for one database: utime + stime of the backends connected to it and of the autovacuum workers
vacuuming it (by process title), so that whatever else the cluster serves is not counted. Left out:
the shared WAL writer, checkpointer and background writer, and a backend that exits during a phase
(the store's connections are pooled and stay open). Without a name: the whole cluster, reaped
children included (the postmaster's cutime + cstime).
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def find_bindir() -> Path:
    """The newest installed PostgreSQL's bin folder (Debian's layout, then PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise SystemExit("PostgreSQL is not installed (no initdb under /usr/lib/postgresql nor on PATH)")
    return Path(initdb).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One throwaway cluster; `new_database()` gives each store its own database."""

    def __init__(self, synchronous_commit: bool = False, keep: Path | None = None) -> None:
        """A cluster in a new temp folder, removed afterwards; or, with `keep`, the one in that folder
        (started there if it is not running), left running so its databases serve the next run."""
        self.bindir = find_bindir()
        self.keep = keep
        self.root = keep or Path(tempfile.mkdtemp(prefix="trusted-memory-bench-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.synchronous_commit = synchronous_commit
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def __enter__(self) -> Cluster:
        pidfile = self.data / "postmaster.pid"
        if self.keep is not None and pidfile.is_file():
            self.port = int(pidfile.read_text().split("\n")[3])  # running already (line 4: its port)
            return self
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            os.chown(self.root, pwd.getpwnam("postgres").pw_uid, -1)
        if not self.data.is_dir():
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200 "
            f"-c synchronous_commit={'on' if self.synchronous_commit else 'off'}"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.keep is not None:
            return
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def settings(self) -> str:
        """The non-default settings, for results tables."""
        return f"synchronous_commit={'on' if self.synchronous_commit else 'off'}, fsync on"

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def sql(self, statement: str, dbname: str = "postgres") -> list[tuple[object, ...]]:
        """Run one statement outside any transaction; its rows."""
        import psycopg

        with psycopg.connect(self.dsn(dbname), autocommit=True) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def new_database(self) -> str:
        name = f"bench_{uuid.uuid4().hex[:12]}"
        self.sql(f"CREATE DATABASE {name}")
        return name

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def cpu_seconds(self, dbname: str | None = None) -> float:
        """utime + stime so far of the processes serving database `dbname` (its backends and autovacuum
        workers, by their process titles); without a name, of the whole server: the postmaster, its
        live children and the reaped ones."""
        master = self.postmaster_pid()
        fields = _stat(master)
        total = 0 if dbname else sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
        name = re.escape(dbname or "")
        title = re.compile(rf"^postgres: (?:\S+ {name}|autovacuum worker {name})(?: |$)")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == master:
                continue
            try:
                child = _stat(int(entry.name))
                if int(child[1]) != master:  # ppid
                    continue
                if dbname and not title.match((entry / "cmdline").read_bytes().decode(errors="replace")):
                    continue
            except OSError:
                continue
            total += int(child[11]) + int(child[12])
        return total / CLK_TCK


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (field 3 onwards)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
