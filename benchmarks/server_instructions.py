"""Instructions per call of the real server over stdio, counted by callgrind (what load does not move).

    python benchmarks/server_instructions.py [--before OTHER/.venv/bin/trusted-memory]
                                             [--size 10000] [--n 200] [--calls search_atoms,add_atom,observe]

Each server runs under `valgrind --tool=callgrind` (PYTHONHASHSEED=0) on its own copy of
recall_latency.py's seeded store, twice per kind of call: after its warm-up (stats, 20 searches,
settled) its counters are zeroed (`callgrind_control -z`, acted on during the NUDGES `tools/list`
calls that follow it), then it serves n calls (or none), waits
IDLE_S for the background work they start, and exits; callgrind counts from the zeroing to the exit.
Instructions per call are (with calls − without) / n: the idle wait and the shutdown cancel out, and
start-up is not counted at all, whose count moves by hundreds of millions from run to run (OpenBLAS's
threads spin-wait while the index's sketches are computed at load). Under valgrind's ~50× slow-down
the server's timers still tick (the change watcher polls every second), so the counts carry a little
idle work per call. The workloads are server_cpu.py's: its questions, new memories and observed turns.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, table, today
from recall_latency import SERVER, queries, seeded_store
from server_cpu import LINK_WINDOW, SESSIONS, UNCAPPED_MB, WARM_SEARCHES, child_pids, new_memories, settle
from session_latency import turns

IDLE_S = 3.0
NUDGES = 5
CALLS = ("search_atoms", "add_atom", "observe")


def _counted(out: Path) -> int:
    """The instruction total of the dump callgrind writes when the server exits."""
    for _ in range(600):  # the client may return before valgrind has written it
        for dump in sorted(out.parent.glob(out.name + "*"), key=lambda p: p.stat().st_mtime, reverse=True):
            for line in dump.read_text(errors="replace").splitlines():
                if line.startswith("totals:"):
                    return int(line.split()[1])
        time.sleep(0.1)
    raise SystemExit(f"callgrind wrote no counts to {out}")


def _arguments(kind: str, n: int, size: int) -> list[dict[str, Any]]:
    if kind == "search_atoms":
        return [{"action": "search_atoms", "query": q} for q in queries(n + WARM_SEARCHES)[WARM_SEARCHES:]]
    if kind == "add_atom":
        return [
            {
                "action": "add_atom",
                "content": m["text"],
                "source": "user_said",
                "atom_type": m["type"],
                "tags": m["tags"],
            }
            for m in new_memories(size, n)
        ]
    return [
        {"action": "observe", "session_id": t["session_id"], "user_message": t["user_message"],
         "assistant_reply": t["assistant_reply"]}
        for t in turns(n, SESSIONS, seed=29)
    ]  # fmt: skip


async def _run(name: str, server: Path, calls: list[dict[str, Any]], work: Path, seeded: Path | None) -> int:
    """Instructions one server spends from the zeroing after its warm-up to its exit, serving `calls`."""
    from mcp import Client, StdioServerParameters

    home = work / name
    shutil.rmtree(home, ignore_errors=True)
    if seeded is not None:
        shutil.copytree(seeded, home)
    else:
        home.mkdir(parents=True)
    out = work / f"{name}.callgrind"
    params = StdioServerParameters(
        command="valgrind",
        args=[
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            f"--vgdb-prefix={work / name}-vgdb",
            str(server.parent / "python"),
            str(server),
        ],
        env={
            "PATH": os.environ["PATH"],
            "MCP_MEMORY_HOME": str(home),
            "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "1000000",
            "MCP_MEMORY_MAX_SIZE_MB": str(UNCAPPED_MB),
            "PYTHONHASHSEED": "0",
        },
        cwd=str(home),
    )
    async with Client(params, mode="legacy") as client:
        pid = child_pids(f"--callgrind-out-file={out}".encode())[0]
        await client.call_tool("memory", {"action": "stats"})
        for q in queries(WARM_SEARCHES):
            await client.call_tool("memory", {"action": "search_atoms", "query": q})
        await settle(pid, limit_s=300.0)
        # The FIFOs callgrind_control talks through are named by the prefix (else by each side's TMPDIR).
        control = [*("callgrind_control", f"--vgdb-prefix={work / name}-vgdb", "-z", str(pid))]
        done = subprocess.run(control, check=True, capture_output=True, text=True)
        if "OK" not in done.stdout or "Error" in done.stdout + done.stderr:  # its exit code is 0 either way
            raise SystemExit(f"callgrind_control did not zero {pid}: {done.stdout} {done.stderr}")
        for _ in range(NUDGES):  # the tool zeroes when the program next runs: the same few calls in every run
            await client.list_tools(cache_mode="bypass")
        for args in calls:
            result = await client.call_tool("memory", args)
            if result.is_error:
                raise SystemExit(f"{args['action']} failed: {result.content}")
        await asyncio.sleep(IDLE_S)
    return _counted(out)


def count(name: str, server: Path, kind: str, n: int, size: int, work: Path, seeded: Path | None) -> float:
    """Instructions per call of `kind` for one server: (with n calls − without) / n."""
    calls = _arguments(kind, n, size)
    idle = asyncio.run(_run(f"{name}-{kind}-idle", server, [], work, seeded))
    busy = asyncio.run(_run(f"{name}-{kind}", server, calls, work, seeded))
    return (busy - idle) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="another checkout's trusted-memory script, counted first")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--n", type=int, default=200, help="calls counted per kind and server")
    parser.add_argument("--calls", default="search_atoms", help=f"comma-separated, of {', '.join(CALLS)}")
    args = parser.parse_args()
    kinds = [k for k in args.calls.split(",") if k]
    if unknown := set(kinds) - set(CALLS):
        raise SystemExit(f"unknown calls {sorted(unknown)}")
    servers = {"before": args.before, "after": SERVER} if args.before else {"this": SERVER}
    seeded = seeded_store(args.size, False, LINK_WINDOW)[0] if args.size else None
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-instructions-"))
    try:
        counts = {
            (name, kind): count(name, server, kind, args.n, args.size, work, seeded)
            for kind in kinds
            for name, server in servers.items()
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"## Server instructions per call (callgrind), {args.size:,} atoms — {machine()}, {today()}\n")
    print(f"n = {args.n} calls per kind and server; {', '.join(f'{k}: {v}' for k, v in servers.items())}\n")
    rows = []
    for kind in kinds:
        row = [kind, *(f"{counts[(name, kind)] / 1e6:,.2f} M" for name in servers)]
        if args.before:
            before, after = counts[("before", kind)], counts[("after", kind)]
            row.append(f"{(after - before) / before * 100:+.1f} %")
        rows.append(row)
    print(table(["call", *servers, *(["after vs before"] if args.before else [])], rows))


if __name__ == "__main__":
    main()
