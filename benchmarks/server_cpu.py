"""Server CPU per call, latency and memory of `add_atom`, `observe` and `search_atoms` over MCP stdio.

    python benchmarks/server_cpu.py [--sizes 0,1000,10000,100000] [--n 300] [--mode legacy]
                                    [--fresh] [--fill-turns 0]

Wall-clock latency on this shared 2-core machine drifts by ±40 % from hour to hour, so every
figure is reported beside two yardsticks measured in the same run, on the same server process:

- the floor: `tools/list` over stdio, a request that never reaches our code (transport, the SDK's
  dispatch and the client's own work), as p50 wall ms and as server CPU ms per call;
- the server's CPU time per call: utime + stime of the server process (all its threads) from
  /proc/<pid>/stat, read before and after a phase of n calls, divided by n. Load from other
  processes barely moves it, unlike wall time.

For each size the cached store of recall_latency.py is copied ($TMPDIR/trusted-memory-bench/
recall-<size>, seeded there if missing; size 0 is an empty store), the installed `trusted-memory`
is spawned over stdio (`mcp.Client`, --mode), warmed up (20 searches, then it is left until its
CPU time stops moving: the background warm-up has loaded the index), and then these phases run,
each n calls (n/2 for the floor, before and after):

1. floor: `tools/list` (cache bypassed);
2. search_atoms: questions of recall_questions.jsonl, k 10, default budget (hits are touched in the
   background after the reply, as in real use: that CPU is counted);
3. add_atom: distinct conversational memories the store does not hold yet (source user_said);
4. observe: n turns over 10 sessions (session_latency.py's workload: statements, questions, both),
   with a short assistant reply; whatever the turn starts in the background is counted;
5. floor again.

Reported per size: p50 / p95 wall ms, CPU ms per call, server RSS (VmRSS) after the search phase
and at the end (VmHWM: the peak), and the store's bytes per atom: the seeded store's pages in use
after a WAL checkpoint, divided by its atoms; and the marginal bytes per atom of the add_atom phase
(pages in use after minus before, checkpointed, over the atoms it added).

--fill-turns N (in process, after the stdio runs): observes N user turns of 100-300 characters (two
or three conversational statements joined, as a user writes a turn; a short assistant reply) through
AgentService.observe into an empty store under the default 100 MiB cap, in sessions of 20 turns that
are each ended (an episode, the transcript dropped), and reports the store's size, the bytes per
observed turn and how many atoms the cap evicted (0 means all N fit).
The spawned server runs with the rate limit on agent writes raised (MCP_MEMORY_AGENT_WRITES_PER_MINUTE,
so a phase is never refused) and the size cap lifted (MCP_MEMORY_MAX_SIZE_MB: the seeded 100k store
is bigger than the default cap, and the first add would evict most of it); the cap is still checked
before every add, as always.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from _common import conversational_memories, machine, percentile, table, today
from recall_latency import SERVER, queries, seeded_store
from session_latency import REPLIES, turns

T = TypeVar("T")
WARM_SEARCHES = 20
TURNS_PER_SESSION = 20
FILL_TARGET = 50_000  # user turns under the default 100 MiB cap (issue 13)
SESSIONS = 10
LINK_WINDOW = 4096  # recall_latency.py's default: the same cached stores
CLK_TCK = os.sysconf("SC_CLK_TCK")
MIB_100 = 100 * 1024 * 1024
UNCAPPED_MB = 100_000  # the stdio runs measure calls, not eviction: a seeded 100k store is over 100 MB
# Issue 13 "Done means": CPU ms per call (flat from 0 to 100k memories where no size is named).
CPU_TARGETS: dict[str, dict[int, float]] = {
    "add_atom": {0: 2.0, 1000: 2.0, 10_000: 2.0, 100_000: 2.0},
    "observe": {0: 4.0, 1000: 4.0, 10_000: 4.0, 100_000: 4.0},
    "search_atoms": {10_000: 2.0, 100_000: 8.0},
}
RSS_TARGET_MB = {100_000: 150.0}
FLOOR_MULTIPLE = {("search_atoms", 10_000): 2.0}  # stdio p50 ≤ 2 × the tools/list floor


# --- the server process ----------------------------------------------------------------------------


def child_pids(needle: bytes) -> list[int]:
    """The pids of this process's children whose command line contains `needle`."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == me and needle in cmdline:
            found.append(int(entry.name))
    return found


def server_pid() -> int:
    """The pid of the `trusted-memory` child this process spawned (the only one at a time)."""
    found = child_pids(b"trusted-memory")
    if len(found) != 1:
        raise SystemExit(f"expected one trusted-memory child, found {found}")
    return found[0]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads, in seconds (/proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


async def settle(pid: int, quiet_s: float = 0.3, limit_s: float = 60.0) -> None:
    """Wait until the server's CPU time stops moving (its background work is done)."""
    deadline = time.monotonic() + limit_s
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(quiet_s)
        current = cpu_seconds(pid)
        if current == last:
            return
        last = current


# --- the store -------------------------------------------------------------------------------------


def used_bytes(db: Path) -> tuple[int, int]:
    """(pages in use × page size after a TRUNCATE checkpoint, atoms) of a store, as budget.py counts."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = pages * conn.execute("PRAGMA page_size").fetchone()[0]
        atoms = conn.execute("SELECT COUNT(*) FROM atoms").fetchone()[0]
    finally:
        conn.close()
    return int(size), int(atoms)


def scratch_store(size: int, fresh: bool, into: Path) -> Path:
    """A copy of the cached seeded store of this size (an empty folder for 0) that a run may change."""
    dest = into / f"store-{size}"
    shutil.rmtree(dest, ignore_errors=True)
    if size == 0:
        dest.mkdir(mode=0o700, parents=True)
        return dest
    home, _, _ = seeded_store(size, fresh, LINK_WINDOW)
    shutil.copytree(home, dest)
    return dest


def new_memories(size: int, n: int) -> list[dict[str, Any]]:
    """n memories distinct from the `size` the seeded store holds (the same generator, continued)."""
    return list(conversational_memories(size + n))[size:]


# --- one run over stdio ----------------------------------------------------------------------------


async def run_size(
    home: Path,
    size: int,
    n: int,
    mode: str,
    store_env: dict[str, str] | None = None,
    other_cpu: Callable[[], float] | None = None,
    server: Path = SERVER,
) -> dict[str, Any]:
    """The phases of one size against one freshly spawned server.

    `store_env` names another store than the folder's SQLite file (benchmarks/backends.py: a
    PostgreSQL database); `other_cpu` reads the CPU seconds of another process the calls make work
    (the PostgreSQL server), counted per phase beside the server's own as `other_cpu_s`; `server`
    is the console script to spawn (backends.py --before: another checkout's).
    """
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=str(server),
        args=[],
        env={
            "PATH": os.environ["PATH"],
            "MCP_MEMORY_HOME": str(home),
            "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "1000000",
            "MCP_MEMORY_MAX_SIZE_MB": str(UNCAPPED_MB),
            **(store_env or {}),
        },
        cwd=str(home),
    )
    qs = queries(n + WARM_SEARCHES)
    memories = new_memories(size, n)
    work = turns(n, SESSIONS, seed=29)
    out: dict[str, Any] = {"size": size, "phases": {}}
    db = home / "memory.db"

    async with Client(params, mode=mode) as client:
        pid = server_pid()

        async def call(args: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool("memory", args)
            if result.is_error:
                raise SystemExit(f"{args['action']} failed: {result.content}")
            data: dict[str, Any] = result.structured_content or {}
            return data

        async def phase(name: str, items: Sequence[T], one: Callable[[T], Awaitable[object]]) -> None:
            await settle(pid)
            lat: list[float] = []
            other0 = other_cpu() if other_cpu else 0.0
            cpu0 = cpu_seconds(pid)
            for item in items:
                t = time.perf_counter()
                await one(item)
                lat.append((time.perf_counter() - t) * 1000)
            await settle(pid)  # what the calls started in the background is theirs
            cpu = cpu_seconds(pid) - cpu0
            other = (other_cpu() - other0) if other_cpu else 0.0
            done = out["phases"].setdefault(name, {"lat": [], "cpu_s": 0.0, "other_cpu_s": 0.0, "n": 0})
            done["lat"] += lat
            done["cpu_s"] += cpu
            done["other_cpu_s"] += other
            done["n"] += len(lat)

        async def list_tools(_: int) -> None:
            await client.list_tools(cache_mode="bypass")

        async def search(query: str) -> None:
            await call({"action": "search_atoms", "query": query})

        async def observe(t: dict[str, str]) -> None:
            await call(
                {
                    "action": "observe",
                    "session_id": t["session_id"],
                    "user_message": t["user_message"],
                    "assistant_reply": t["assistant_reply"],
                }
            )

        await call({"action": "stats"})
        for q in qs[:WARM_SEARCHES]:
            await call({"action": "search_atoms", "query": q})
        await settle(pid, quiet_s=0.5, limit_s=120.0)
        out["rss_start_kb"] = memory_kb(pid)["VmRSS"]

        await phase("tools/list (floor)", range(n // 2), list_tools)
        await phase("search_atoms", qs[WARM_SEARCHES:], search)
        out["rss_search_kb"] = memory_kb(pid)["VmRSS"]

        sqlite = not store_env
        before, atoms_before = await asyncio.to_thread(used_bytes, db) if sqlite else (0, 0)
        statuses: dict[str, int] = {}

        async def add(memory: dict[str, Any]) -> None:
            data = await call(
                {
                    "action": "add_atom",
                    "content": memory["text"],
                    "source": "user_said",
                    "atom_type": memory["type"],
                    "tags": memory["tags"],
                }
            )
            statuses[str(data.get("status"))] = statuses.get(str(data.get("status")), 0) + 1

        await phase("add_atom", memories, add)
        after, atoms_after = await asyncio.to_thread(used_bytes, db) if sqlite else (0, 0)
        out["add_statuses"] = statuses
        out["bytes_per_added_atom"] = (after - before) / max(1, atoms_after - atoms_before)
        out["store_bytes_per_atom"] = before / atoms_before if atoms_before else None

        await phase("observe", work, observe)
        await phase("tools/list (floor)", range(n - n // 2), list_tools)
        mem = memory_kb(pid)
        out["rss_end_kb"], out["hwm_kb"] = mem["VmRSS"], mem["VmHWM"]
    return out


# --- filling a store with turns (in process) ------------------------------------------------------


def turn_texts(n: int, seed: int = 53) -> list[str]:
    """n distinct user turns of 100-300 characters: two or three statements, as a user writes a turn."""
    rng = random.Random(seed)
    pool = [str(m["text"]) for m in conversational_memories(3 * n + 1000, seed=seed)]
    rng.shuffle(pool)
    out: list[str] = []
    i = 0
    while len(out) < n and i < len(pool):
        text = pool[i]
        i += 1
        while len(text) < 100 and i < len(pool):
            text = f"{text} {pool[i]}"
            i += 1
        if len(text) <= 300:
            out.append(text)
    return out


async def fill_turns(home: Path, n: int) -> dict[str, Any]:
    """Observe n user turns (sessions of TURNS_PER_SESSION, each ended) into an empty store with the default cap."""
    from trusted_memory.config import load_settings
    from trusted_memory.queries import AtomFilter
    from trusted_memory.services.agent import AgentService
    from trusted_memory.services.runtime import open_runtime

    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    environ = {"MCP_MEMORY_HOME": str(home), "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "100000000"}
    settings = load_settings(environ=environ, cwd=home)
    texts = turn_texts(n)
    rng = random.Random(61)
    async with open_runtime(settings) as runtime:
        await runtime.recall.warm_up()
        agent = AgentService(runtime)
        started = time.perf_counter()
        cpu = time.process_time()
        for i, text in enumerate(texts):
            session = f"fill-{i // TURNS_PER_SESSION:05d}"
            await agent.observe(session, text, assistant_reply=REPLIES[rng.randrange(len(REPLIES))])
            if i % TURNS_PER_SESSION == TURNS_PER_SESSION - 1:
                await agent.end_session(session)
        elapsed = time.perf_counter() - started
        cpu_ms = (time.process_time() - cpu) / len(texts) * 1000
        await runtime.background.drain()
        async with runtime.store.read() as rx:
            evicted = await rx.events.count("atom_evicted")
            kept = await rx.atoms.count(AtomFilter(types=("turn",)), now=time.time())
            atoms = await rx.atoms.count(AtomFilter(), now=time.time())
    size, _ = used_bytes(settings.db_path)
    return {
        "turns": len(texts),
        "chars_mean": sum(map(len, texts)) / len(texts),
        "s": elapsed,
        "cpu_ms": cpu_ms,
        "evicted": evicted,
        "turns_kept": kept,
        "atoms": atoms,
        "bytes": size,
    }


# --- report ----------------------------------------------------------------------------------------


def _verdict(action: str, size: int, cpu_ms: float, p50: float, floor: float) -> str:
    parts = []
    target = CPU_TARGETS.get(action, {}).get(size)
    if target is not None:
        parts.append(f"CPU ≤ {target:g} {'✅' if cpu_ms <= target else '❌'}")
    multiple = FLOOR_MULTIPLE.get((action, size))
    if multiple is not None:
        parts.append(f"p50 ≤ {multiple:g}× floor {'✅' if p50 <= multiple * floor else '❌'}")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0,1000,10000,100000")
    parser.add_argument("--n", type=int, default=300, help="calls per phase")
    parser.add_argument("--mode", default="legacy", help="mcp.Client mode: legacy or auto")
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached seeded stores")
    parser.add_argument("--fill-turns", type=int, default=0, help="also fill an empty store with N turns")
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-cpu-"))
    results = []
    fill = None
    try:
        for size in sizes:
            home = scratch_store(size, args.fresh, work)
            results.append(asyncio.run(run_size(home, size, args.n, args.mode)))
            shutil.rmtree(home, ignore_errors=True)
        if args.fill_turns:
            fill = asyncio.run(fill_turns(work / "fill", args.fill_turns))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps({"results": results, "fill": fill}))

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"## Server CPU per call and memory — {machine()}, {today()}, load avg {load}\n")
    print(
        f"stdio, mcp.Client mode={args.mode}; n = {args.n} calls per phase; CPU = server utime+stime "
        "(/proc/<pid>/stat, all threads) per call, background work the calls started included; "
        "floor = `tools/list` in the same server, half before and half after the other phases\n"
    )
    rows = []
    for r in results:
        size = r["size"]
        floor = r["phases"]["tools/list (floor)"]
        floor_p50 = percentile(floor["lat"], 50)
        floor_cpu = floor["cpu_s"] / floor["n"] * 1000
        for action in ("tools/list (floor)", "search_atoms", "add_atom", "observe"):
            ph = r["phases"][action]
            p50, p95 = percentile(ph["lat"], 50), percentile(ph["lat"], 95)
            cpu_ms = ph["cpu_s"] / ph["n"] * 1000
            rows.append(
                (
                    f"{size:,}",
                    action,
                    ph["n"],
                    f"{p50:.2f}",
                    f"{p95:.2f}",
                    f"{p50 / floor_p50:.2f}",
                    f"{cpu_ms:.2f}",
                    f"{cpu_ms - floor_cpu:.2f}" if action != "tools/list (floor)" else "",
                    "" if action == "tools/list (floor)" else _verdict(action, size, cpu_ms, p50, floor_p50),
                )
            )
    print(
        table(
            ("atoms", "call", "n", "p50 ms", "p95 ms", "p50 ÷ floor", "CPU ms/call", "CPU − floor CPU", "target"),
            rows,
        )
    )
    mem_rows = []
    for r in results:
        size = r["size"]
        target = RSS_TARGET_MB.get(size)
        rss = r["rss_end_kb"] / 1024
        verdict = f"≤ {target:g} MB {'✅' if max(rss, r['rss_search_kb'] / 1024) <= target else '❌'}" if target else ""
        per_atom = r["store_bytes_per_atom"]
        mem_rows.append(
            (
                f"{size:,}",
                f"{r['rss_start_kb'] / 1024:.1f}",
                f"{r['rss_search_kb'] / 1024:.1f}",
                f"{rss:.1f}",
                f"{r['hwm_kb'] / 1024:.1f}",
                verdict,
                f"{per_atom:,.0f}" if per_atom else "—",
                f"{r['bytes_per_added_atom']:,.0f}",
                ", ".join(f"{k} {v}" for k, v in sorted(r["add_statuses"].items())),
            )
        )
    print("\nServer memory (MB) and store bytes per atom (pages in use after a WAL checkpoint)\n")
    print(
        table(
            (
                "atoms",
                "RSS warm",
                "RSS after searches",
                "RSS at end",
                "peak (VmHWM)",
                "target",
                "store bytes/atom",
                "bytes per added atom",
                "add_atom statuses",
            ),
            mem_rows,
        )
    )
    if fill:
        fits = fill["evicted"] == 0 and fill["bytes"] <= MIB_100
        if fill["turns"] >= FILL_TARGET or not fits:
            verdict = "✅ all fit" if fits else "❌ not all fit"
        else:  # fewer turns than the target, all kept: how many would fit at this density
            room = MIB_100 * fill["turns"] / fill["bytes"]
            verdict = f"room for ~{room:,.0f} at this density {'✅' if room >= FILL_TARGET else '❌'}"
        print(
            f"\nObserved {fill['turns']:,} user turns ({fill['chars_mean']:.0f} chars on average; sessions of "
            f"{TURNS_PER_SESSION} turns, each ended) into an empty store, default cap 100 MiB: "
            f"{fill['bytes'] / 1e6:.1f} MB in use ({fill['bytes'] / fill['turns']:,.0f} bytes per observed turn), "
            f"{fill['turns_kept']:,} turn memories and {fill['atoms'] - fill['turns_kept']:,} other atoms kept, "
            f"{fill['evicted']:,} evicted; {fill['cpu_ms']:.2f} ms CPU per observe in process — "
            f"{verdict} (target ≥ {FILL_TARGET:,} turns)."
        )


if __name__ == "__main__":
    main()
