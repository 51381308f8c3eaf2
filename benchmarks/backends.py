"""The SQLite and the PostgreSQL backend side by side, in one run: server_cpu.py's phases on each.

    python benchmarks/backends.py [--sizes 10000,100000] [--n 200] [--mode legacy] [--pg-sync]
                                  [--pg-keep DIR] [--json FILE]

For each size, the cached seeded store of recall_latency.py (the one server_cpu.py copies) and a
PostgreSQL database seeded the same way (recall_latency.seed into it: the same generated memories,
vectors and semantic links; then VACUUM ANALYZE, as autovacuum would leave a database in use; with
--pg-keep the cluster and that database are kept for the next run, as the SQLite stores are).
Each run then gets its own copy: SQLite's a copy of the folder, PostgreSQL's `CREATE DATABASE ...
TEMPLATE`. The two servers run one after the other, SQLite first, the same phases with the same
calls (server_cpu.run_size: tools/list floor, search_atoms, add_atom, observe, floor again), each
on a freshly spawned installed `trusted-memory` over stdio.

Reported per size and backend: p50 / p95 wall ms and the MCP server's CPU ms per call (utime +
stime from /proc/<pid>/stat, background work the calls started included), and for PostgreSQL the
database server's CPU ms per call as well (the postgres processes serving the run's database, _pg.py), since
on SQLite that work is done inside the MCP server. Targets (issue 17): PostgreSQL's search_atoms
p50 and CPU per call ≤ 2 × SQLite's, add_atom and observe CPU ≤ 2 × SQLite's; the CPU compared is
the MCP server's plus the database server's. The cluster is _pg.py's (synchronous_commit off, the
durability of SQLite's synchronous = NORMAL; --pg-sync for on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from _common import machine, percentile, table, today
from _pg import Cluster
from recall_latency import SEED_VERSION, SERVER, seed, seeded_store
from server_cpu import LINK_WINDOW, run_size, scratch_store

CALLS = ("tools/list (floor)", "search_atoms", "add_atom", "observe")
MULTIPLE = 2.0  # PostgreSQL ≤ 2 × SQLite
P50_TARGET = ("search_atoms",)
CPU_TARGET = ("search_atoms", "add_atom", "observe")


async def seed_into(cluster: Cluster, size: int, name: str, work: Path) -> None:
    """A database `name` seeded as the SQLite store of this size is (recall_latency.seed), then analysed.

    Seeded under another name and renamed when done: a run stopped while seeding leaves no database
    that a later run would take for the seeded one.
    """
    partial = f"{name}_partial"
    cluster.sql(f"DROP DATABASE IF EXISTS {partial}")
    cluster.sql(f"CREATE DATABASE {partial}")
    store_env = {"MCP_MEMORY_STORE__BACKEND": "postgres", "MCP_MEMORY_STORE__DSN": cluster.dsn(partial)}
    stats = await seed(work / f"seed-pg-{size}", size, LINK_WINDOW, store_env)  # inside both()'s loop
    print(f"seeded {name}: {stats}", file=sys.stderr)
    cluster.sql("VACUUM ANALYZE", partial)
    cluster.sql(f"ALTER DATABASE {partial} RENAME TO {name}")


async def both(cluster: Cluster, size: int, n: int, mode: str, work: Path, before: Path | None) -> list[dict[str, Any]]:
    """One size on SQLite, then on PostgreSQL (first with the `before` server, if given)."""
    template = None
    if size:
        template = f"seed_{size}_v{SEED_VERSION}"
        if not cluster.sql(f"SELECT 1 FROM pg_database WHERE datname = '{template}'"):
            await seed_into(cluster, size, template, work)
    out = []
    home = scratch_store(size, False, work)  # a fresh copy again: the migration opened the first
    result = await run_size(home, size, n, mode)
    result["backend"] = "sqlite"
    out.append(result)
    shutil.rmtree(home, ignore_errors=True)

    for backend, server in (("postgres before", before), ("postgres", SERVER)):
        if server is None:
            continue
        name = f"{template}_run" if template else cluster.new_database()
        if template:
            cluster.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # left by a run that failed
            cluster.sql(f"CREATE DATABASE {name} TEMPLATE {template}")
        home = work / f"pg-{size}"
        home.mkdir(mode=0o700)
        store_env = {"MCP_MEMORY_STORE__BACKEND": "postgres", "MCP_MEMORY_STORE__DSN": cluster.dsn(name)}
        result = await run_size(home, size, n, mode, store_env, partial(cluster.cpu_seconds, name), server)
        result["backend"] = backend
        out.append(result)
        shutil.rmtree(home, ignore_errors=True)
        cluster.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    if template and cluster.keep is None:
        cluster.sql(f"DROP DATABASE IF EXISTS {template} WITH (FORCE)")
    return out


def figures(result: dict[str, Any], call: str) -> dict[str, float]:
    ph = result["phases"][call]
    server = ph["cpu_s"] / ph["n"] * 1000
    database = ph.get("other_cpu_s", 0.0) / ph["n"] * 1000
    return {
        "n": ph["n"],
        "p50": percentile(ph["lat"], 50),
        "p95": percentile(ph["lat"], 95),
        "server": server,
        "database": database,
        "cpu": server + database,
    }


def verdict(call: str, pg: dict[str, float], lite: dict[str, float]) -> str:
    parts = []
    if call in P50_TARGET:
        ratio = pg["p50"] / lite["p50"]
        parts.append(f"p50 {ratio:.2f}× {'✅' if ratio <= MULTIPLE else '❌'}")
    if call in CPU_TARGET:
        ratio = pg["cpu"] / lite["cpu"]
        parts.append(f"CPU {ratio:.2f}× {'✅' if ratio <= MULTIPLE else '❌'}")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--n", type=int, default=200, help="calls per phase")
    parser.add_argument("--mode", default="legacy", help="mcp.Client mode: legacy or auto")
    parser.add_argument("--pg-sync", action="store_true", help="synchronous_commit on (default off)")
    parser.add_argument(
        "--pg-keep",
        type=Path,
        help="a folder for a PostgreSQL cluster kept running between runs, with its migrated seeded stores "
        "(started there if not running); without it, a throwaway cluster",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="also run PostgreSQL with this `trusted-memory` (another checkout's), before this one's",
    )
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-backends-"))
    results: list[dict[str, Any]] = []
    try:
        with Cluster(synchronous_commit=args.pg_sync, keep=args.pg_keep) as cluster:
            version = cluster.sql("SHOW server_version")[0][0]
            sync, fsync = cluster.sql("SHOW synchronous_commit")[0][0], cluster.sql("SHOW fsync")[0][0]
            for size in sizes:
                # The cached SQLite store is seeded by its own asyncio.run: before both()'s loop starts.
                seeded_store(size, False, LINK_WINDOW)
                results += asyncio.run(both(cluster, size, args.n, args.mode, work, args.before))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results))

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"## PostgreSQL beside SQLite — {machine()}, PostgreSQL {version}, {today()}, load avg {load}\n")
    print(
        f"stdio, mcp.Client mode={args.mode}; n = {args.n} calls per phase; server CPU = the MCP server's "
        "utime+stime per call (/proc/<pid>/stat, all threads); db CPU = the utime+stime per call of the "
        f"PostgreSQL processes serving the run's database (_pg.py); cluster: synchronous_commit={sync}, fsync {fsync}\n"
    )
    rows = []
    for size in sizes:
        lite = next(r for r in results if r["size"] == size and r["backend"] == "sqlite")
        for call in CALLS:
            a = figures(lite, call)
            for r in (r for r in results if r["size"] == size):
                b = figures(r, call)
                pg = r["backend"] != "sqlite"
                rows.append(
                    (
                        f"{size:,}",
                        call,
                        r["backend"],
                        f"{b['p50']:.2f}",
                        f"{b['p95']:.2f}",
                        f"{b['server']:.2f}",
                        f"{b['database']:.2f}" if pg else "(in server)",
                        f"{b['cpu']:.2f}",
                        verdict(call, b, a) if pg and call != CALLS[0] else "",
                    )
                )
    print(
        table(
            (
                "atoms",
                "call",
                "backend",
                "p50 ms",
                "p95 ms",
                "server CPU ms/call",
                "db CPU ms/call",
                "total CPU ms/call",
                "÷ SQLite (target ≤ 2×)",
            ),
            rows,
        )
    )


if __name__ == "__main__":
    main()
