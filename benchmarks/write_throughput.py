"""Write throughput (atoms/s, facts adds/s) and store bytes per atom, in process and over MCP stdio.

    python benchmarks/write_throughput.py [--atoms 10000] [--checkpoints 1000,10000]
                                          [--stdio-atoms 1000] [--mode legacy]

(a) in process: AtomsService.add, one atom per call (each its own write transaction), on a runtime
    warmed up the way the server warms it (real hashing embedder, vectors stored with the atom).
    Throughput is reported per range (0 → 1k, 1k → 10k). Then one search refreshes the in-memory
    index and a few hundred more adds are timed: with a populated index every add also searches it
    for semantic links (`RecallService.index_written`).
(b) store size at each checkpoint: memory.db + WAL after `PRAGMA wal_checkpoint(TRUNCATE)`, and a
    VACUUMed copy, with the per-table breakdown from sqlite's dbstat; atoms per 100 MiB derived.
(c) over stdio (installed `trusted-memory`, mcp.Client in --mode): `add_atom` calls into a fresh store
    and into a copy of the 10k store, and facts `add` calls until the facts caps are ~85% full.
Memories are distinct conversational texts (see _common.conversational_memories).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    DATA,
    conversational_memories,
    load_jsonl,
    machine,
    percentile,
    table,
    today,
)

from trusted_memory.config import Settings, load_settings
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.recall_types import RecallQuery
from trusted_memory.services.runtime import open_runtime

SERVER = Path(sys.executable).parent / "trusted-memory"
MIB_100 = 100 * 1024 * 1024
WARM_INDEX_ADDS = 300
# dbstat object name prefix -> group shown in the size table (first match wins).
GROUPS = (
    ("atoms_fts", "FTS5 (atoms_fts_*)"),
    ("vectors", "vectors (+ index)"),
    ("associations", "associations (+ index)"),
    ("events", "events (+ indexes)"),
    ("sqlite_autoindex_atoms", "atoms indexes"),
    ("atoms_", "atoms indexes"),
    ("atoms", "atoms table"),
)


def settings_for(home: Path) -> Settings:
    """Default settings over a store folder (no config file, no inherited MCP_MEMORY_* variables)."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=home)


def draft(memory: dict[str, Any]) -> AtomDraft:
    """The draft an agent would send for a memory the user stated."""
    return AtomDraft(
        content=str(memory["text"]), source="user_said", atom_type=str(memory["type"]), tags=tuple(memory["tags"])
    )


async def link_rows(runtime: Any) -> int:
    """How many association rows the store holds."""
    async with runtime.store.read() as rx, rx.conn.execute("SELECT COUNT(*) FROM associations") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


# --- store size ------------------------------------------------------------------------------------


def store_size(db: Path, atoms: int, scratch: Path) -> dict[str, Any]:
    """Bytes of db + WAL after a TRUNCATE checkpoint, and of a VACUUMed copy, with a dbstat breakdown."""
    conn = sqlite3.connect(db)
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        wal = Path(f"{db}-wal")
        checkpointed = db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
        groups = _dbstat(conn)
        copy = scratch / "vacuum.db"
        copy.unlink(missing_ok=True)
        conn.execute(f"VACUUM INTO '{copy}'")  # a compacted copy; the live store keeps growing
    finally:
        conn.close()
    vconn = sqlite3.connect(copy)
    try:
        vgroups = _dbstat(vconn)
    finally:
        vconn.close()
    vacuumed = copy.stat().st_size
    copy.unlink()
    return {
        "atoms": atoms,
        "checkpointed": checkpointed,
        "busy": busy,
        "vacuumed": vacuumed,
        "groups": groups,
        "vgroups": vgroups,
    }


def _dbstat(conn: sqlite3.Connection) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError:
        return out  # sqlite built without the dbstat virtual table
    for name, size in rows:
        group = next((g for prefix, g in GROUPS if name.startswith(prefix)), "other (schema, facts, meta…)")
        out[group] = out.get(group, 0) + int(size)
    return out


# --- (a) in process --------------------------------------------------------------------------------


async def inproc(home: Path, total: int, checkpoints: list[int], scratch: Path) -> dict[str, Any]:
    """Add `total` atoms one by one; time ranges between checkpoints and measure the store at each."""
    settings = settings_for(home)
    memories = list(conversational_memories(total + WARM_INDEX_ADDS, seed=23))
    ranges: list[dict[str, Any]] = []
    sizes: list[dict[str, Any]] = []
    statuses: dict[str, int] = {}
    async with open_runtime(settings) as runtime:
        await runtime.recall.warm_up()  # as the server does at start (empty store: empty index)
        atoms = AtomsService(runtime.store, settings, runtime.recall)
        done = 0
        for stop in checkpoints:
            lat: list[float] = []
            started = time.perf_counter()
            for memory in memories[done:stop]:
                t = time.perf_counter()
                write = await atoms.add(draft(memory))
                lat.append((time.perf_counter() - t) * 1000)
                statuses[write.status] = statuses.get(write.status, 0) + 1
            elapsed = time.perf_counter() - started
            ranges.append({"label": f"{done:,} → {stop:,}", "n": len(lat), "s": elapsed, "lat": lat})
            done = stop
            await runtime.recall.flush_touches()
            sizes.append(await asyncio.to_thread(store_size, settings.db_path, stop, scratch))
        links_cold = await link_rows(runtime)
        # One search loads every stored vector into the in-memory index; from then on each add
        # also searches that index for its semantic links.
        await runtime.recall.search(RecallQuery("what does my sister do for a living?"))
        lat = []
        started = time.perf_counter()
        for memory in memories[done : done + WARM_INDEX_ADDS]:
            t = time.perf_counter()
            await atoms.add(draft(memory))
            lat.append((time.perf_counter() - t) * 1000)
        ranges.append(
            {
                "label": f"{done:,} → {done + WARM_INDEX_ADDS:,}, index loaded",
                "n": len(lat),
                "s": time.perf_counter() - started,
                "lat": lat,
            }
        )
        links_warm = await link_rows(runtime)
    return {
        "ranges": ranges,
        "sizes": sizes,
        "statuses": statuses,
        "links_cold": links_cold,
        "links_warm": links_warm - links_cold,
    }


# --- (c) over stdio --------------------------------------------------------------------------------


def _params(home: Path) -> Any:
    from mcp import StdioServerParameters

    home.mkdir(mode=0o700, parents=True, exist_ok=True)  # the server's working directory
    return StdioServerParameters(
        command=str(SERVER),
        args=[],
        env={"PATH": os.environ["PATH"], "MCP_MEMORY_HOME": str(home)},
        cwd=str(home),
    )


async def stdio_atoms(home: Path, mode: str, n: int, seed: int) -> dict[str, Any]:
    """n `add_atom` calls, one after another."""
    from mcp import Client

    memories = list(conversational_memories(n, seed=seed))
    lat: list[float] = []
    statuses: dict[str, int] = {}
    async with Client(_params(home), mode=mode) as client:
        await client.call_tool("memory", {"action": "stats"})  # warm-up: lazy imports, schema caches
        started = time.perf_counter()
        for memory in memories:
            t = time.perf_counter()
            result = await client.call_tool(
                "memory",
                {
                    "action": "add_atom",
                    "content": memory["text"],
                    "source": "user_said",
                    "atom_type": memory["type"],
                    "tags": memory["tags"],
                },
            )
            lat.append((time.perf_counter() - t) * 1000)
            if result.is_error:
                raise SystemExit(f"add_atom failed: {result.content}")
            status = str((result.structured_content or {}).get("status"))
            statuses[status] = statuses.get(status, 0) + 1
        elapsed = time.perf_counter() - started
    return {"n": n, "s": elapsed, "lat": lat, "statuses": statuses}


async def stdio_facts(home: Path, mode: str) -> dict[str, Any]:
    """Facts `add` calls (distinct short memories, alternating targets) until the caps are ~85% full."""
    from mcp import Client

    caps = {"user": settings_for(home).facts.user_cap, "env": settings_for(home).facts.env_cap}
    texts = [str(m["text"]) for m in load_jsonl(DATA / "recall_memories.jsonl") if len(str(m["text"])) <= 90]
    used = {"user": 0, "env": 0}
    lat: list[float] = []
    statuses: dict[str, int] = {}
    async with Client(_params(home), mode=mode) as client:
        await client.call_tool("memory", {"action": "stats"})
        started = time.perf_counter()
        for i, text in enumerate(texts):
            target = "user" if i % 3 == 0 else "env"
            if used[target] + len(text) > 0.85 * caps[target]:
                if all(used[t] + 90 > 0.85 * caps[t] for t in caps):
                    break
                continue
            t = time.perf_counter()
            result = await client.call_tool("memory", {"action": "add", "target": target, "content": text})
            lat.append((time.perf_counter() - t) * 1000)
            if result.is_error:
                raise SystemExit(f"facts add failed: {result.content}")
            data = result.structured_content or {}
            statuses[str(data.get("status"))] = statuses.get(str(data.get("status")), 0) + 1
            for usage in data.get("usage", []):
                used[usage["target"]] = usage["used"]
        elapsed = time.perf_counter() - started
    return {"n": len(lat), "s": elapsed, "lat": lat, "statuses": statuses, "used": used, "caps": caps}


# --- report ----------------------------------------------------------------------------------------


def _lat_row(path: str, label: str, m: dict[str, Any]) -> tuple[object, ...]:
    lat = m["lat"]
    return (
        path,
        label,
        m["n"],
        f"{m['n'] / m['s']:.0f}",
        f"{percentile(lat, 50):.2f}",
        f"{percentile(lat, 95):.2f}",
        f"{statistics.fmean(lat):.2f}",
        f"{max(lat):.1f}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--atoms", type=int, default=10_000, help="atoms added in process")
    parser.add_argument("--checkpoints", default="1000,10000", help="store sizes measured on the way")
    parser.add_argument("--stdio-atoms", type=int, default=1000, help="add_atom calls per stdio run")
    parser.add_argument("--mode", default="legacy", help="mcp.Client mode: legacy or auto")
    parser.add_argument("--no-stdio", action="store_true")
    args = parser.parse_args()
    checkpoints = sorted({int(c) for c in args.checkpoints.split(",") if c and int(c) <= args.atoms} | {args.atoms})
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-writes-"))
    try:
        a = asyncio.run(inproc(work / "inproc", args.atoms, checkpoints, work))
        rows = [_lat_row("in process, AtomsService.add", r["label"], r) for r in a["ranges"]]
        if not args.no_stdio:
            fresh = asyncio.run(stdio_atoms(work / "stdio-fresh", args.mode, args.stdio_atoms, seed=31))
            rows.append(_lat_row(f"stdio `add_atom` ({args.mode})", f"0 → {args.stdio_atoms:,}", fresh))
            big = work / "stdio-big"
            big.mkdir()
            src = work / "inproc" / "memory.db"
            with sqlite3.connect(src) as conn:  # a consistent copy of the in-process store
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            shutil.copy(src, big / "memory.db")
            base = args.atoms + WARM_INDEX_ADDS
            grown = asyncio.run(stdio_atoms(big, args.mode, args.stdio_atoms // 2, seed=41))
            rows.append(
                _lat_row(
                    f"stdio `add_atom` ({args.mode})",
                    f"{base:,} → {base + args.stdio_atoms // 2:,}, index loaded at start",
                    grown,
                )
            )
            facts = asyncio.run(stdio_facts(work / "stdio-facts", args.mode))
            used = ", ".join(f"{t} {facts['used'][t]:,}/{facts['caps'][t]:,}" for t in facts["caps"])
            rows.append(_lat_row(f"stdio facts `add` ({args.mode})", f"0 → {facts['n']} entries ({used} chars)", facts))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"## Write throughput and store size — {machine()}, {today()}, load avg {load}\n")
    print("Throughput (each call one write transaction; atoms/s = calls / wall time of the range; latencies ms)\n")
    print(table(("path", "range", "calls", "per s", "p50", "p95", "mean", "max"), rows))
    statuses = ", ".join(f"{k} {v:,}" for k, v in sorted(a["statuses"].items()))
    print(
        f"\nIn-process statuses: {statuses}. Semantic links made during the first {args.atoms:,} adds "
        f"(index as warmed at start): {a['links_cold']:,}; during the {WARM_INDEX_ADDS} adds after one search: "
        f"{a['links_warm']:,} (both directions).\n"
    )
    size_rows = []
    for s in a["sizes"]:
        n = s["atoms"]
        size_rows.append(
            (
                f"{n:,}",
                f"{s['checkpointed'] / 1e6:.2f}",
                f"{s['checkpointed'] / n:,.0f}",
                f"{MIB_100 * n / s['checkpointed']:,.0f}",
                f"{s['vacuumed'] / 1e6:.2f}",
                f"{s['vacuumed'] / n:,.0f}",
                f"{MIB_100 * n / s['vacuumed']:,.0f}",
            )
        )
    print(
        "Store size (db + WAL after `PRAGMA wal_checkpoint(TRUNCATE)`; then a `VACUUM INTO` copy; "
        "100 MiB = the default max_size_mb)\n"
    )
    print(
        table(
            (
                "atoms",
                "MB",
                "bytes/atom",
                "atoms per 100 MiB",
                "MB vacuumed",
                "bytes/atom vacuumed",
                "atoms per 100 MiB vacuumed",
            ),
            size_rows,
        )
    )
    names = sorted(
        {g for s in a["sizes"] for g in s["groups"]} | {g for s in a["sizes"] for g in s["vgroups"]},
        key=lambda g: -a["sizes"][-1]["vgroups"].get(g, 0),
    )
    if names:
        print("\nBytes per atom by table (dbstat page bytes; checkpointed / vacuumed)\n")
        header = ["table group"] + [f"{s['atoms']:,} atoms" for s in a["sizes"]]
        body = [
            [g]
            + [
                f"{s['groups'].get(g, 0) / s['atoms']:,.0f} / {s['vgroups'].get(g, 0) / s['atoms']:,.0f}"
                for s in a["sizes"]
            ]
            for g in names
        ]
        print(table(header, body))


if __name__ == "__main__":
    main()
