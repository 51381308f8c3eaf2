"""Latency of the `search_atoms` path at 1k / 10k / 100k atoms, in process and over MCP stdio.

    python benchmarks/recall_latency.py [--sizes 1000,10000,100000] [--queries 300] [--fresh]
                                        [--modes legacy,auto] [--blas-threads default,1]
                                        [--no-stdio] [--no-inproc]

Stores are seeded with distinct conversational memories (benchmarks/data/recall_memories.jsonl as
templates, names/places/numbers varied): atoms are built by the product's `build_atom` (validation,
content scan, trust placement), inserted with `tx.atoms.insert` in a few large transactions (plus
the `atom_added` event the product writes), embedded by `RecallService.drain_queue` (real embedder,
real vector rows), and linked like `RecallService.index_written` does (top-4 with link evidence > 0.5 among
earlier atoms; to bound seeding time only the previous --link-window atoms are searched). Seeded
stores are cached under $TMPDIR/trusted-memory-bench/ by size; --fresh rebuilds them.

(a) in process: a fresh interpreter opens the runtime (no background warm-up) and times
    `RecallService.search(RecallQuery(q))`; the first query (numpy import, embedder, index load) is
    reported as "cold". Then the batch the `context` action sends with predictive recall is timed
    both ways: `search_many` of 4 queries (the question at k=10; two other questions standing in for
    predicted follow-up intents and the question filtered to the targeted types, k=3, touch=False),
    and the same 4 queries as 4 `search` calls. Their hits/reply and budget columns count all 4 results.
(b) over stdio: the installed `trusted-memory` script through `mcp.Client(StdioServerParameters)`, calling
    memory(action="search_atoms", query=q); spawn → initialized → first search answered is reported,
    and the reply size is the structured-content JSON in bytes.
Queries are the questions of benchmarks/data/recall_questions.jsonl (cycled, shuffled, seeded).
--blas-threads runs every measurement once per setting: `default` leaves OpenBLAS to pick its
thread count (what the product does today), a number sets OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS in the measured process (diagnostic: see the report).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
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
from trusted_memory.embed.hashing import HashingEmbedder
from trusted_memory.queries import AtomFilter
from trusted_memory.ranking import RankWeights
from trusted_memory.services.atoms import AtomDraft, build_atom
from trusted_memory.services.facts import preview
from trusted_memory.services.recall import SEMANTIC_LINK_EVIDENCE
from trusted_memory.services.recall_types import (
    HIT_OVERHEAD_CHARS,
    RecallQuery,
    RecallResult,
)
from trusted_memory.services.runtime import open_runtime
from trusted_memory.store.db import SqliteStore as Store

SERVER = Path(sys.executable).parent / "trusted-memory"
CACHE = Path(tempfile.gettempdir()) / "trusted-memory-bench"
SEED_VERSION = 3  # 2: hash:v2 vectors, links on the space's own cosine scale; 3: hash:v3 vectors
DAY = 86400.0
INSERT_CHUNK = 10_000
WARM_QUERIES = 20
TARGETS = {("stdio", 10_000): 5.0, ("stdio", 100_000): 30.0, ("in process", 10_000): 2.0}
BATCH_K = 3  # k of the predicted-intent and type-targeted queries (services/anticipation.py INTENT_K)
TARGETED_TYPES = ("convention", "file", "error")


def settings_for(home: Path, store_env: dict[str, str] | None = None) -> Settings:
    """Default settings over a store folder (no config file, no inherited MCP_MEMORY_* variables);
    `store_env` may name another store (backends.py: a PostgreSQL database)."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home), **(store_env or {})}, cwd=home)


def queries(n: int, seed: int = 11) -> list[str]:
    """n questions from the recall set, shuffled and cycled."""
    qs = [str(q["question"]) for q in load_jsonl(DATA / "recall_questions.jsonl")]
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        rng.shuffle(qs)
        out.extend(qs)
    return out[:n]


# --- seeding -------------------------------------------------------------------------------------


async def seed(home: Path, size: int, window: int, store_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Build a store of `size` atoms at `home` (or in the empty store `store_env` names); returns
    seeding timings and counts."""
    shutil.rmtree(home, ignore_errors=True)
    settings = settings_for(home, store_env)
    stats: dict[str, Any] = {"size": size, "version": SEED_VERSION, "link_window": window}
    started = time.perf_counter()
    async with open_runtime(settings) as runtime:
        await runtime.recall.adopt_space()  # empty store: nothing queued, the space is recorded
        t = time.perf_counter()
        now_ts = time.time()
        built = []
        for memory in conversational_memories(size):
            atom, norm = build_atom(
                AtomDraft(
                    content=str(memory["text"]),
                    source="user_said",
                    atom_type=str(memory["type"]),
                    tags=tuple(memory["tags"]),
                ),
                settings,
                strict=False,
            )
            ts = now_ts - float(memory["days_ago"]) * DAY
            built.append((dataclasses.replace(atom, created_at=ts, updated_at=ts), norm))
        built.sort(key=lambda item: item[0].created_at)  # nums grow with time, as in real use
        stats["build_s"] = time.perf_counter() - t
        t = time.perf_counter()
        for start in range(0, len(built), INSERT_CHUNK):
            async with runtime.store.write() as tx:
                for atom, norm in built[start : start + INSERT_CHUNK]:
                    await tx.atoms.insert(atom, norm)
                    kind = "atom_quarantined" if atom.status == "quarantined" else "atom_added"
                    await tx.events.append(
                        "agent",
                        kind,
                        f"atom:{atom.id}",
                        {
                            "type": atom.type,
                            "source_class": atom.source_class,
                            "reason": atom.quarantine_reason,
                            "findings": atom.findings,
                            "preview": preview(atom.text, 80),
                        },
                    )
        stats["insert_s"] = time.perf_counter() - t
        stats["quarantined"] = sum(1 for a, _ in built if a.status == "quarantined")
        t = time.perf_counter()
        stats["embedded"] = await runtime.recall.drain_queue()
        stats["embed_s"] = time.perf_counter() - t
        t = time.perf_counter()
        stats["links"] = await link_semantic(runtime.store, window)
        stats["links_s"] = time.perf_counter() - t
    stats["total_s"] = time.perf_counter() - started
    stats["db_bytes"] = sum(p.stat().st_size for p in home.glob("memory.db*"))
    home.mkdir(parents=True, exist_ok=True)
    (home / "seeded.json").write_text(json.dumps(stats))
    return stats


async def link_semantic(store: Store, window: int) -> int:
    """Semantic associations as index_written makes them, searching the previous `window` atoms."""
    import numpy as np

    from trusted_memory.embed.index import dequantize

    rows: list[tuple[int, int, float, bytes]] = []
    async with store.read() as rx:
        space = await rx.recall.space()
        seq = 0
        while batch := await rx.recall.vectors_since(space, seq):
            rows.extend(batch)
            seq = batch[-1][1]
    rows.sort()
    nums = [r[0] for r in rows]
    mat = np.stack([dequantize(scale, blob) for _, _, scale, blob in rows]) if rows else np.zeros((0, 1), np.float32)
    embedder_space = HashingEmbedder().space  # the store's space: the benchmark seeds with the default
    weights = RankWeights(cosine_floor=embedder_space.cosine_floor, cosine_full=embedder_space.cosine_full)
    links: list[tuple[int, int, str, float]] = []
    block = 512
    for start in range(0, len(rows), block):
        stop = min(start + block, len(rows))
        lo = max(0, start - window)
        sims = mat[start:stop] @ mat[lo:stop].T
        later = np.arange(lo, stop)[None, :] >= np.arange(start, stop)[:, None]
        sims[later] = -np.inf  # only atoms that existed when this one was written
        k = min(4, sims.shape[1])
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for r, cols in enumerate(top):
            for c in cols:
                if weights.vector_part(float(sims[r, c])) > SEMANTIC_LINK_EVIDENCE:
                    links.append((nums[start + r], nums[lo + c], "semantic", round(float(sims[r, c]), 4)))
    for start in range(0, len(links), 50_000):
        async with store.write() as tx:
            await tx.recall.link(links[start : start + 50_000])
    return len(links)


def seeded_store(size: int, fresh: bool, window: int) -> tuple[Path, dict[str, Any], bool]:
    """The cached store of this size (seeding it if missing, stale or --fresh); (home, stats, cached)."""
    home = CACHE / f"recall-{size}"
    meta = home / "seeded.json"
    if not fresh and meta.is_file():
        stats = json.loads(meta.read_text())
        if stats.get("version") == SEED_VERSION and stats.get("link_window") == window:
            return home, stats, True
    return home, asyncio.run(seed(home, size, window)), False


# --- (a) in process (child interpreter, so the cold query really is cold) -------------------------


async def inproc(home: Path, n: int) -> dict[str, Any]:
    """Time RecallService.search on an opened runtime (the first call is the cold one), then 4-query batches."""
    settings = settings_for(home)
    qs = queries(n + WARM_QUERIES + 1)
    async with open_runtime(settings) as runtime:
        t = time.perf_counter()
        await runtime.recall.search(RecallQuery(qs[0]))
        cold = (time.perf_counter() - t) * 1000
        for q in qs[1 : WARM_QUERIES + 1]:
            await runtime.recall.search(RecallQuery(q))
        lat, hits, used, modes = [], [], [], set()
        cpu = time.process_time()
        for q in qs[WARM_QUERIES + 1 :]:
            t = time.perf_counter()
            result = await runtime.recall.search(RecallQuery(q))
            lat.append((time.perf_counter() - t) * 1000)
            hits.append(len(result.hits))
            used.append(sum(len(h.atom.text) + HIT_OVERHEAD_CHARS for h in result.hits))
            modes.add(result.mode)
        cpu_ms = (time.process_time() - cpu) / n * 1000  # all threads of this process (aiosqlite, BLAS)
        single = {"cold_ms": cold, "lat": lat, "hits": hits, "used": used, "modes": sorted(modes), "cpu_ms": cpu_ms}
        batches = [batch(qs, i) for i in range(WARM_QUERIES + 1, len(qs))]

        async def one_by_one(queries: list[RecallQuery]) -> list[RecallResult]:
            return [await runtime.recall.search(q) for q in queries]

        # Alternated, so both see the same machine load.
        many, sequential = _batch_stats(), _batch_stats()
        for b in batches[:WARM_QUERIES]:
            await runtime.recall.search_many(b)
            await one_by_one(b)
        for b in batches:
            await _timed(many, runtime.recall.search_many(b))
            await _timed(sequential, one_by_one(b))
    return {"single": single, "many": _finish(many, len(batches)), "sequential": _finish(sequential, len(batches))}


def batch(qs: list[str], i: int) -> list[RecallQuery]:
    """The 4 queries of a predictive-recall `context` call around question i."""
    others = (qs[(i * 7 + 3) % len(qs)], qs[(i * 13 + 5) % len(qs)])
    return [
        RecallQuery(qs[i]),
        *(RecallQuery(o, k=BATCH_K, touch=False) for o in others),
        RecallQuery(qs[i], k=BATCH_K, touch=False, filters=AtomFilter(types=TARGETED_TYPES)),
    ]


def _batch_stats() -> dict[str, Any]:
    return {"lat": [], "hits": [], "used": [], "modes": set(), "cpu": 0.0}


async def _timed(stats: dict[str, Any], call: Awaitable[list[RecallResult]]) -> None:
    cpu, t = time.process_time(), time.perf_counter()
    results = await call
    stats["lat"].append((time.perf_counter() - t) * 1000)
    stats["cpu"] += time.process_time() - cpu
    stats["hits"].append(sum(len(r.hits) for r in results))
    stats["used"].extend(sum(len(h.atom.text) + HIT_OVERHEAD_CHARS for h in r.hits) for r in results)
    stats["modes"].update(r.mode for r in results)


def _finish(stats: dict[str, Any], calls: int) -> dict[str, Any]:
    return {
        "cold_ms": None,
        "lat": stats["lat"],
        "hits": stats["hits"],
        "used": stats["used"],
        "modes": sorted(stats["modes"]),
        "cpu_ms": stats["cpu"] / calls * 1000,
    }


def blas_env(threads: str) -> dict[str, str]:
    """Environment variables that pin the BLAS thread count ({} for the library default)."""
    if threads == "default":
        return {}
    return {name: threads for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def run_inproc(home: Path, n: int, threads: str) -> dict[str, Any]:
    """Run `inproc` in a fresh interpreter and return its measurements."""
    done = subprocess.run(
        [sys.executable, __file__, "--child-inproc", str(home), "--queries", str(n)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **blas_env(threads)},
    )
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


# --- (b) over MCP stdio ---------------------------------------------------------------------------


async def stdio(home: Path, mode: str, n: int, threads: str) -> dict[str, Any]:
    """Time memory(action=search_atoms) calls against a freshly spawned `trusted-memory`."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=str(SERVER),
        args=[],
        env={"PATH": os.environ["PATH"], "MCP_MEMORY_HOME": str(home), **blas_env(threads)},
        cwd=str(home),
    )
    qs = queries(n + WARM_QUERIES + 1)
    t0 = time.perf_counter()
    async with Client(params, mode=mode) as client:
        initialized = time.perf_counter()
        first = await client.call_tool("memory", {"action": "search_atoms", "query": qs[0]})
        answered = time.perf_counter()
        if first.is_error:
            raise SystemExit(f"search_atoms failed: {first.content}")
        for q in qs[1 : WARM_QUERIES + 1]:
            await client.call_tool("memory", {"action": "search_atoms", "query": q})
        lat, hits, used, sizes, modes = [], [], [], [], set()
        for q in qs[WARM_QUERIES + 1 :]:
            t = time.perf_counter()
            result = await client.call_tool("memory", {"action": "search_atoms", "query": q})
            lat.append((time.perf_counter() - t) * 1000)
            if result.is_error:
                raise SystemExit(f"search_atoms failed: {result.content}")
            data = result.structured_content or {}
            sizes.append(len(json.dumps(data, ensure_ascii=False).encode()))
            found = data.get("hits", [])
            hits.append(len(found))
            used.append(sum(len(h["text"]) + HIT_OVERHEAD_CHARS for h in found))
            modes.add(str(data.get("mode")))
        floor = []
        for _ in range(100):  # a request that never reaches our code: the transport + SDK floor
            t = time.perf_counter()
            await client.list_tools(cache_mode="bypass")
            floor.append((time.perf_counter() - t) * 1000)
    return {
        "floor_ms": percentile(floor, 50),
        "init_ms": (initialized - t0) * 1000,
        "first_ms": (answered - t0) * 1000,
        "cold_ms": (answered - initialized) * 1000,
        "lat": lat,
        "hits": hits,
        "used": used,
        "bytes": sizes,
        "modes": sorted(modes),
    }


# --- report --------------------------------------------------------------------------------------


def _row(size: int, path: str, m: dict[str, Any], budget: int) -> tuple[object, ...]:
    lat = m["lat"]
    target = TARGETS.get((path.split(" (")[0].split(",")[0], size))
    verdict = f"p50 ≤ {target:g} ms {'✅' if percentile(lat, 50) <= target else '❌'}" if target else ""
    over = sum(1 for u in m["used"] if u > budget)
    size_col = f"{percentile(m['bytes'], 50)} / {max(m['bytes'])}" if "bytes" in m else "—"
    return (
        f"{size:,}",
        path,
        len(lat),
        "—" if m["cold_ms"] is None else f"{m['cold_ms']:.1f}",
        f"{percentile(lat, 50):.2f}",
        f"{percentile(lat, 95):.2f}",
        f"{statistics.fmean(lat):.2f}",
        f"{m['cpu_ms']:.2f}" if "cpu_ms" in m else "—",
        f"{max(lat):.1f}",
        f"{statistics.fmean(m['hits']):.1f}",
        f"{max(m['used'])} ({over} over)",
        size_col,
        "/".join(m["modes"]),
        verdict,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300, help="timed queries per size and path (≥ 200)")
    parser.add_argument("--modes", default="legacy,auto", help="mcp.Client modes for the stdio runs")
    parser.add_argument("--blas-threads", default="default,1", help="BLAS thread settings to measure")
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached seeded stores")
    parser.add_argument("--link-window", type=int, default=4096, help="earlier atoms searched for seed links")
    parser.add_argument("--no-stdio", action="store_true")
    parser.add_argument("--no-inproc", action="store_true")
    parser.add_argument("--child-inproc", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_inproc:
        print(json.dumps(asyncio.run(inproc(args.child_inproc, args.queries))))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    budget = settings_for(CACHE).recall.budget_chars
    seed_rows, lat_rows, start_rows = [], [], []
    for size in sizes:
        home, st, cached = seeded_store(size, args.fresh, args.link_window)
        seed_rows.append(
            (
                f"{size:,}",
                "cached" if cached else "built now",
                f"{st['build_s']:.1f}",
                f"{st['insert_s']:.1f}",
                f"{st['embedded']:,} in {st['embed_s']:.1f}",
                f"{st['links']:,} in {st['links_s']:.1f}",
                f"{st['total_s']:.1f}",
                st["quarantined"],
                f"{st['db_bytes'] / 1e6:.1f}",
            )
        )
        for threads in [t for t in args.blas_threads.split(",") if t]:
            blas = "" if threads == "default" else f", BLAS {threads} thread"
            if not args.no_inproc:
                measured = run_inproc(home, args.queries, threads)
                lat_rows.append(_row(size, f"in process{blas}", measured["single"], budget))
                lat_rows.append(_row(size, f"search_many ×4 (in process{blas})", measured["many"], budget))
                lat_rows.append(_row(size, f"4 × search (in process{blas})", measured["sequential"], budget))
            if not args.no_stdio:
                for mode in modes:
                    m = asyncio.run(stdio(home, mode, args.queries, threads))
                    lat_rows.append(_row(size, f"stdio ({mode}{blas})", m, budget))
                    start_rows.append(
                        (
                            f"{size:,}",
                            mode + blas,
                            f"{m['init_ms']:.0f}",
                            f"{m['first_ms']:.0f}",
                            f"{m['cold_ms']:.0f}",
                            f"{m['floor_ms']:.2f}",
                        )
                    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"## Recall latency (`search_atoms`, k=10, budget {budget} chars) — {machine()}, {today()}, load avg {load}\n"
    )
    print(
        "Seeding (seconds; build = build_atom incl. content scan; insert = tx.atoms.insert + event in "
        f"{INSERT_CHUNK:,}-atom transactions; embed = RecallService.drain_queue; links = semantic associations)\n"
    )
    print(
        table(
            ("atoms", "store", "build s", "insert s", "embed s", "links s", "total s", "quarantined", "db MB"),
            seed_rows,
        )
    )
    print(
        f"\nLatency (ms; {WARM_QUERIES} warm-up queries not timed; cold = first query of a fresh process, "
        "over stdio measured from `initialized`; CPU/query = process CPU time of all its threads, in process only; "
        "budget used = Σ(len(text) + 60) per reply)\n"
    )
    print(
        table(
            (
                "atoms",
                "path",
                "n",
                "cold",
                "p50",
                "p95",
                "mean",
                "CPU/query",
                "max",
                "hits/reply",
                "budget used max",
                "reply bytes p50 / max",
                "recall mode",
                "target",
            ),
            lat_rows,
        )
    )
    if start_rows:
        print("\nServer start (ms from spawn), and the stdio floor (p50 of 100 uncached `tools/list` calls)\n")
        print(
            table(
                (
                    "atoms",
                    "client mode",
                    "→ initialized",
                    "→ first search answered",
                    "first search alone",
                    "tools/list p50 ms",
                ),
                start_rows,
            )
        )


if __name__ == "__main__":
    main()
