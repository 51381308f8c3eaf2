"""Server CPU per call of two servers measured at the same time: another checkout's and this one's.

    python benchmarks/server_cpu_ab.py --before OTHER/.venv/bin/trusted-memory
                                       [--sizes 0,10000,100000] [--n 300] [--json FILE]

server_cpu.py measures one server per run, and on this shared machine the load moves a run's CPU
per call by a third from one run to the next: more than a change of a few percent. Here both
servers run at once, each on its own copy of the same seeded store (recall_latency.py's cache), and
each phase interleaves their calls in blocks of BLOCK (who goes first alternates), so both see the
same load. The phases and the workload are server_cpu.py's: the floor (`tools/list`, half before
and half after the rest), search_atoms, add_atom of new memories, observe over 10 sessions. CPU per
call is each server's utime + stime (all threads, /proc) over the phase, after waiting for the
background work its calls started.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

from _common import machine, table, today
from recall_latency import SERVER, queries, seeded_store
from server_cpu import (
    LINK_WINDOW,
    SESSIONS,
    UNCAPPED_MB,
    WARM_SEARCHES,
    child_pids,
    cpu_seconds,
    memory_kb,
    new_memories,
    settle,
)
from session_latency import turns

T = TypeVar("T")
BLOCK = 10
FLOOR = "tools/list (floor)"
CALLS = (FLOOR, "search_atoms", "add_atom", "observe")


def child_pid(command: Path) -> int:
    """The pid of this process's child running `command` (one per command at a time)."""
    found = child_pids(str(command).encode())
    if not found:
        raise SystemExit(f"no child process runs {command}")
    return found[0]


async def run_size(
    servers: dict[str, Path], size: int, n: int, work: Path, seeded: Path | None
) -> dict[str, dict[str, float]]:
    """The phases of one size, both servers interleaved; {server: {call: CPU ms per call, ...}}."""
    from mcp import Client, StdioServerParameters

    homes: dict[str, Path] = {}
    for name in servers:
        home = work / f"{name}-{size}"
        shutil.rmtree(home, ignore_errors=True)
        if seeded is not None:
            shutil.copytree(seeded, home)
        else:
            home.mkdir(mode=0o700, parents=True)
        homes[name] = home
    qs = queries(n + WARM_SEARCHES)
    memories = new_memories(size, n)
    work_turns = turns(n, SESSIONS, seed=29)
    out: dict[str, dict[str, float]] = {name: {} for name in servers}
    async with AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        pids: dict[str, int] = {}
        for name, command in servers.items():
            params = StdioServerParameters(
                command=str(command),
                args=[],
                env={
                    "PATH": os.environ["PATH"],
                    "MCP_MEMORY_HOME": str(homes[name]),
                    "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "1000000",
                    "MCP_MEMORY_MAX_SIZE_MB": str(UNCAPPED_MB),
                },
                cwd=str(homes[name]),
            )
            clients[name] = await stack.enter_async_context(Client(params, mode="legacy"))
            pids[name] = child_pid(command)

        async def call(name: str, args: dict[str, Any]) -> None:
            result = await clients[name].call_tool("memory", args)
            if result.is_error:
                raise SystemExit(f"{name}: {args['action']} failed: {result.content}")

        async def floor(name: str, _: int) -> None:
            await clients[name].list_tools(cache_mode="bypass")

        async def phase(label: str, items: Sequence[T], one: Callable[[str, T], Awaitable[None]]) -> None:
            for name in servers:
                await settle(pids[name])
            before = {name: cpu_seconds(pids[name]) for name in servers}
            for start in range(0, len(items), BLOCK):
                order = list(servers) if (start // BLOCK) % 2 == 0 else list(servers)[::-1]
                for name in order:
                    for item in items[start : start + BLOCK]:
                        await one(name, item)
            for name in servers:
                await settle(pids[name])  # what the calls started in the background is theirs
            for name in servers:
                spent = (cpu_seconds(pids[name]) - before[name]) * 1000
                done = out[name].get(f"{label} cpu_ms", 0.0), out[name].get(f"{label} n", 0.0)
                out[name][f"{label} cpu_ms"] = done[0] + spent
                out[name][f"{label} n"] = done[1] + len(items)

        for name in servers:
            await call(name, {"action": "stats"})
            for q in qs[:WARM_SEARCHES]:
                await call(name, {"action": "search_atoms", "query": q})
        for name in servers:
            await settle(pids[name], quiet_s=0.5, limit_s=120.0)
        await phase(FLOOR, range(n // 2), floor)
        await phase(
            "search_atoms", qs[WARM_SEARCHES:], lambda name, q: call(name, {"action": "search_atoms", "query": q})
        )
        await phase(
            "add_atom",
            memories,
            lambda name, m: call(
                name,
                {
                    "action": "add_atom",
                    "content": m["text"],
                    "source": "user_said",
                    "atom_type": m["type"],
                    "tags": m["tags"],
                },
            ),
        )
        await phase(
            "observe",
            work_turns,
            lambda name, t: call(
                name,
                {
                    "action": "observe",
                    "session_id": t["session_id"],
                    "user_message": t["user_message"],
                    "assistant_reply": t["assistant_reply"],
                },
            ),
        )
        await phase(FLOOR, range(n - n // 2), floor)
        for name in servers:
            mem = memory_kb(pids[name])
            out[name]["rss_end_mb"], out[name]["hwm_mb"] = mem["VmRSS"] / 1024, mem["VmHWM"] / 1024
    for home in homes.values():
        shutil.rmtree(home, ignore_errors=True)
    return {
        name: {
            **{c: row[f"{c} cpu_ms"] / row[f"{c} n"] for c in CALLS},
            "rss_end_mb": row["rss_end_mb"],
            "hwm_mb": row["hwm_mb"],
        }
        for name, row in out.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the other checkout's trusted-memory script")
    parser.add_argument("--sizes", default="0,10000,100000")
    parser.add_argument("--n", type=int, default=300, help="calls per phase and server")
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    args = parser.parse_args()
    if args.before.resolve() == SERVER.resolve():
        raise SystemExit("--before names this checkout's own server; give the other checkout's")
    servers = {"before": args.before, "after": SERVER}
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-cpu-ab-"))
    load_start = os.getloadavg()
    started = time.monotonic()
    try:
        # Seeding runs its own event loop, so every store is seeded (or found cached) before ours.
        seeded = {size: seeded_store(size, False, LINK_WINDOW)[0] if size else None for size in sizes}
        results = {size: asyncio.run(run_size(servers, size, args.n, work, seeded[size])) for size in sizes}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_end = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps({"results": results, "load": [load_start, load_end]}))

    print(f"## Server CPU per call, two servers at once — {machine()}, {today()}\n")
    print(
        f"before: {args.before}; after: {SERVER}; n = {args.n} calls per phase and server, interleaved in "
        f"blocks of {BLOCK}; load avg {load_start[0]:.1f} at the start, {load_end[0]:.1f} at the end; "
        f"{(time.monotonic() - started) / 60:.1f} min\n"
    )
    rows = []
    for size, result in results.items():
        before, after = result["before"], result["after"]
        for c in CALLS:
            rows.append(
                (
                    f"{size:,}",
                    c,
                    f"{before[c]:.2f}",
                    f"{after[c]:.2f}",
                    f"{after[c] - before[c]:+.2f}",
                    f"{before[c] / before[FLOOR]:.2f}",
                    f"{after[c] / after[FLOOR]:.2f}",
                )
            )
        rows.append(
            (
                f"{size:,}",
                "RSS at end / peak, MB",
                f"{before['rss_end_mb']:.1f} / {before['hwm_mb']:.1f}",
                f"{after['rss_end_mb']:.1f} / {after['hwm_mb']:.1f}",
                "",
                "",
                "",
            )
        )
    print(
        table(
            ("atoms", "call", "before CPU ms", "after CPU ms", "after − before", "before ÷ floor", "after ÷ floor"),
            rows,
        )
    )


if __name__ == "__main__":
    main()
