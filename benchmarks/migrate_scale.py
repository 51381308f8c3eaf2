"""Wall time and CPU of `trusted-memory-admin migrate` at 10k and 100k atoms, both directions (issue 17).

The source is the cached seeded store of recall_latency.py (atoms with their `atom_added` events,
vectors and semantic links; seeded under $TMPDIR/trusted-memory-bench/ if missing). Each size runs:

- `export` of the SQLite store to a file: the floor (a migration exports the source once, and the
  target once more to count what landed);
- `migrate --to postgresql://…` into an empty database of a throwaway cluster (_pg.py);
- `migrate --to FOLDER` from that database back into an empty SQLite store.

CPU is the admin process's own (utime + stime of the child, from wait4) and the PostgreSQL
cluster's (every backend the run started, reaped ones included: the postmaster's cutime + cstime
and its live children). `--admin PATH` runs another installation's `trusted-memory-admin` (a
checkout of the base commit, to compare in the same run); `--rounds` alternates them.

    .venv/bin/python benchmarks/migrate_scale.py --sizes 10000 100000 --admin /tmp/base/.venv/bin/trusted-memory-admin
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, table, today
from _pg import Cluster
from recall_latency import seeded_store
from server_cpu import LINK_WINDOW

HERE_ADMIN = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "trusted-memory-admin"


def timed(admin: str, args: list[str], env: dict[str, str], cluster: Cluster) -> dict[str, Any]:
    """Wall time, the admin process's CPU and the cluster's CPU of one admin command."""
    before = os.times()  # the reaped child's utime + stime show in children_*, read as a difference
    pg_before = cluster.cpu_seconds()
    started = time.perf_counter()
    done = subprocess.run([admin, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall_s": wall, "cpu_s": cpu, "pg_cpu_s": cluster.cpu_seconds() - pg_before, "stdout": done.stdout}


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_MEMORY_")}
    env["MCP_MEMORY_HOME"] = str(home)
    env["MCP_MEMORY_MAX_SIZE_MB"] = "100000"  # the 100k store is past the default cap: measure copying, not eviction
    env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def one_round(admin: str, size: int, source: Path, cluster: Cluster, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"size": size, "admin": admin}
    out["export"] = timed(admin, ["export", str(work / "floor.jsonl")], base_env(source), cluster)
    database = cluster.new_database()
    url = f"postgresql://postgres@127.0.0.1:{cluster.port}/{database}"
    to_pg = timed(admin, ["migrate", "--to", url, "--yes", "--json"], base_env(source), cluster)
    report = json.loads(to_pg.pop("stdout"))
    to_pg["ok"], to_pg["atoms"] = report["ok"], report["landed"].get("atom", 0)
    out["to_pg"] = to_pg
    back = work / f"back-{size}"
    shutil.rmtree(back, ignore_errors=True)
    env = {**base_env(work / "pg-home"), "MCP_MEMORY_STORE__BACKEND": "postgres", "MCP_MEMORY_STORE__DSN": url}
    to_sqlite = timed(admin, ["migrate", "--to", str(back), "--yes", "--json"], env, cluster)
    report = json.loads(to_sqlite.pop("stdout"))
    to_sqlite["ok"], to_sqlite["atoms"] = report["ok"], report["landed"].get("atom", 0)
    out["to_sqlite"] = to_sqlite
    out["export"].pop("stdout")
    cluster.sql(f"DROP DATABASE {database} WITH (FORCE)")
    shutil.rmtree(back, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--admin", action="append", default=[], help="another trusted-memory-admin to compare")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()
    admins = [str(HERE_ADMIN), *args.admin]
    results: list[dict[str, Any]] = []
    with Cluster() as cluster, tempfile.TemporaryDirectory(prefix="trusted-memory-migrate-bench-") as scratch:
        work = Path(scratch)
        for size in args.sizes:
            source, _, _ = seeded_store(size, False, LINK_WINDOW)
            for _ in range(args.rounds):
                for admin in reversed(admins) if len(results) % 2 else admins:
                    results.append(one_round(admin, size, source, cluster, work))
                    print(json.dumps(results[-1]), flush=True)
        settings = cluster.settings
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"\n{machine()}, {today()}; PostgreSQL {settings}\n")
    rows = []
    for r in results:
        for step in ("export", "to_pg", "to_sqlite"):
            s = r[step]
            rows.append(
                (
                    f"{r['size']:,}",
                    r["admin"],
                    step,
                    f"{s['wall_s']:.1f}",
                    f"{s['cpu_s']:.1f}",
                    f"{s['pg_cpu_s']:.1f}",
                    str(s.get("ok", "")),
                )
            )
    print(table(("atoms", "admin", "step", "wall s", "admin CPU s", "PostgreSQL CPU s", "ok"), rows))


if __name__ == "__main__":
    main()
