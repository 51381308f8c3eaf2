"""Where the real server's resident memory goes, over stdio, after a warm-up and after n searches.

    python benchmarks/server_memory.py [--server OTHER/.venv/bin/trusted-memory] [--size 100000]
                                       [--n 200] [--tracemalloc]

The server is the console script's own interpreter running `trusted_memory.cli.serve.main` through a
small launcher (written to the scratch TMPDIR) that, on SIGUSR1, writes what it holds to a JSON file:
/proc/self/status and smaps_rollup (anonymous, file-backed, transparent huge pages), glibc's
`mallinfo2` (heap in use and free, blocks mapped on their own: numpy's large arrays), SQLite's own
`sqlite3_memory_used` (page caches and statements of every connection), the vector index's arrays
(found through the garbage collector: bytes allocated and bytes of the rows in use) and, with
--tracemalloc (which inflates RSS by its own bookkeeping, so its run's RSS is not the figure), the
top allocating files. The store is a copy of recall_latency.py's seeded store of that size; the
workload is server_cpu.py's (stats, 20 warm-up searches, settled; then n searches, settled).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, table, today
from recall_latency import SERVER, queries
from server_cpu import LINK_WINDOW, UNCAPPED_MB, WARM_SEARCHES, child_pids, scratch_store, settle

LAUNCHER = r"""
import ctypes, gc, json, os, signal, sys
TRACE = os.environ.get("MEMORY_PROBE_TRACE") == "1"
if TRACE:
    import tracemalloc
    tracemalloc.start(1)

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

def _kb(text, keys):
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in keys:
            out[key.strip()] = int(value.split()[0])
    return out

def _sqlite_used():
    for line in open("/proc/self/maps"):
        if "libsqlite3" in line:
            lib = ctypes.CDLL(line.split()[-1])
            lib.sqlite3_memory_used.restype = ctypes.c_int64
            return lib.sqlite3_memory_used()
    return None

def _index():
    arrays = {}
    for obj in gc.get_objects():
        if type(obj).__name__ == "VectorIndex":
            rows = len(obj._nums) if hasattr(obj, "_nums") else 0
            used = getattr(obj, "_size", 0)
            for name, value in vars(obj).items():
                if hasattr(value, "nbytes"):
                    per_row = value.nbytes / rows if rows and value.shape and rows in value.shape else None
                    arrays[name] = {"allocated": int(value.nbytes),
                                    "in_use": int(per_row * used) if per_row else int(value.nbytes)}
    return arrays

def report(*_):
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    out = {
        "status": _kb(open("/proc/self/status").read(), {"VmRSS", "VmHWM", "RssAnon", "RssFile"}),
        "smaps": _kb(open("/proc/self/smaps_rollup").read(), {"Rss", "Pss", "Anonymous", "AnonHugePages"}),
        "malloc": {"heap": info.arena, "heap_in_use": info.uordblks, "heap_free": info.fordblks,
                   "mapped_blocks": info.hblkhd},
        "sqlite_used": _sqlite_used(),
        "index": _index(),
        "modules": len(sys.modules),
    }
    if TRACE:
        stats = tracemalloc.take_snapshot().statistics("filename")
        out["traced_total"] = sum(s.size for s in stats)
        out["traced_top"] = [[s.traceback[0].filename, s.size] for s in stats[:15]]
    path = os.environ["MEMORY_PROBE_OUT"]
    with open(path + ".tmp", "w") as f:
        json.dump(out, f)
    os.replace(path + ".tmp", path)

signal.signal(signal.SIGUSR1, report)
from trusted_memory.cli.serve import main
sys.exit(main())
"""


def interpreter_of(script: Path) -> str:
    """The Python a console script runs with (its shebang line)."""
    first = script.read_text().splitlines()[0]
    if not first.startswith("#!"):
        raise SystemExit(f"{script} has no shebang line")
    return first[2:].strip()


async def probe(server: Path, home: Path, n: int, trace: bool, work: Path) -> dict[str, Any]:
    """Spawn the server through the launcher, run the workload, and read its reports."""
    from mcp import Client, StdioServerParameters

    launcher = work / "trusted-memory-memory-probe.py"  # the name server_cpu.child_pids looks for
    launcher.write_text(LAUNCHER)
    out_file = work / "memory-report.json"
    params = StdioServerParameters(
        command=interpreter_of(server),
        args=[str(launcher)],
        env={
            "PATH": os.environ["PATH"],
            "MCP_MEMORY_HOME": str(home),
            "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "1000000",
            "MCP_MEMORY_MAX_SIZE_MB": str(UNCAPPED_MB),
            "MEMORY_PROBE_OUT": str(out_file),
            "MEMORY_PROBE_TRACE": "1" if trace else "0",
        },
        cwd=str(home),
    )
    qs = queries(n + WARM_SEARCHES)
    reports: dict[str, Any] = {}
    async with Client(params, mode="legacy") as client:
        found = child_pids(b"trusted-memory-memory-probe")
        if len(found) != 1:
            raise SystemExit(f"expected one probed server, found {found}")
        pid = found[0]

        async def snapshot(name: str) -> None:
            out_file.unlink(missing_ok=True)
            os.kill(pid, signal.SIGUSR1)
            for _ in range(600):
                await asyncio.sleep(0.05)
                if out_file.exists():
                    reports[name] = json.loads(out_file.read_text())
                    return
            raise SystemExit("the server wrote no report")

        await client.call_tool("memory", {"action": "stats"})
        for q in qs[:WARM_SEARCHES]:
            await client.call_tool("memory", {"action": "search_atoms", "query": q})
        await settle(pid, quiet_s=0.5, limit_s=120.0)
        await snapshot("warm")
        for q in qs[WARM_SEARCHES:]:
            await client.call_tool("memory", {"action": "search_atoms", "query": q})
        await settle(pid)
        await snapshot(f"after {n} searches")
    return reports


def _mb(value: float | None) -> str:
    """Bytes as MiB (the unit of server_cpu.py's RSS figures: kB / 1024)."""
    return "" if value is None else f"{value / 2**20:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", type=Path, default=SERVER, help="the trusted-memory console script to probe")
    parser.add_argument("--size", type=int, default=100_000, help="seeded store size (0: empty store)")
    parser.add_argument("--n", type=int, default=200, help="searches after the warm-up")
    parser.add_argument("--tracemalloc", action="store_true", help="also list the top allocating files")
    parser.add_argument("--json", type=Path, help="write the reports here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="server-memory-") as tmp:
        work = Path(tmp)
        home = scratch_store(args.size, False, work)
        reports = asyncio.run(probe(args.server.resolve(), home, args.n, args.tracemalloc, work))
        shutil.rmtree(home, ignore_errors=True)
    print(f"# Server memory at {args.size:,} atoms, {today()}, {machine()} (link window {LINK_WINDOW})\n")
    rows = []
    for name, rep in reports.items():
        status, smaps, malloc = rep["status"], rep["smaps"], rep["malloc"]
        index = rep["index"]
        rows.append(
            [
                name,
                _mb(status["VmRSS"] * 1024),
                _mb(status["RssAnon"] * 1024),
                _mb(status["RssFile"] * 1024),
                _mb(smaps.get("AnonHugePages", 0) * 1024),
                f"{_mb(malloc['heap_in_use'])} / {_mb(malloc['heap_free'])}",
                _mb(malloc["mapped_blocks"]),
                _mb(rep["sqlite_used"]),
                " ".join(f"{k} {_mb(v['in_use'])}/{_mb(v['allocated'])}" for k, v in sorted(index.items())),
            ]
        )
    headers = [
        "when",
        "RSS MiB",
        "anon",
        "file",
        "THP",
        "heap in use / free",
        "mapped blocks",
        "SQLite",
        "index arrays in use / allocated",
    ]
    print(table(headers, rows))
    for name, rep in reports.items():
        if "traced_top" in rep:
            print(f"\ntracemalloc, {name}: {_mb(rep['traced_total'])} MiB traced")
            for filename, size in rep["traced_top"]:
                print(f"  {_mb(size):>6} MiB  {filename}")
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))


if __name__ == "__main__":
    main()
