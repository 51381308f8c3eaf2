"""Latency of the per-turn session actions `observe` and `context`, in process and over MCP stdio.

    python benchmarks/session_latency.py [--sizes 10000] [--n 200] [--sessions 10] [--modes legacy,auto]
                                         [--blas-threads default] [--fresh] [--no-stdio] [--no-inproc]
                                         [--profile] [--surfaces default|all]

Stores are the seeded, cached ones of recall_latency.py ($TMPDIR/trusted-memory-bench/recall-<size>,
built there if missing); every measurement runs on its own scratch copy, so the cached store stays
pristine and each path sees the same starting state. No LLM is configured (the default).

Workload: n timed turns spread round-robin over --sessions sessions. Each turn is what a host does on
a user message: `context` {message, session_id} for the message, then `observe` {session_id,
user_message, assistant_reply} with a short reply. User messages are distinct and conversational:
first-person statements (recall_memories.jsonl templates, varied as `conversational_memories` does,
but not the verbatim templates the store already holds), questions from recall_questions.jsonl, and
statements followed by a question, in rotation.

(a) in process: a fresh interpreter opens the runtime (no background warm-up) and times
    AgentService.context / AgentService.observe.
(b) over stdio: the installed `trusted-memory` script through `mcp.Client(StdioServerParameters)`, calling
    memory(action="context" | "observe", ...).
The first turn of a fresh process is reported as "cold" (context first: numpy import, embedder,
index load; then the first observe), then WARM_TURNS untimed turns, then the n timed turns.
`context` reply size is len(rendered) in characters (must be ≤ the budget, default
sessions.context_budget_chars) and, over stdio, the structured-content JSON in bytes.
--blas-threads runs every measurement once per setting (`default`: OpenBLAS picks its thread count, as
the product does; a number pins OPENBLAS/OMP/MKL_NUM_THREADS in the measured process).
--surfaces all also turns on the opt-in surfaces of `context` (proactive nudges), through a config.toml
in the scratch store: every anticipation surface is then on (user model, style and state blocks,
predicted intents, type-targeted recall, anaphora, return after break, nudges).
--profile adds a cProfile of the in-process timed turns (main thread; SQLite runs in aiosqlite's
thread and shows up as event-loop wait; profiling inflates that run's in-process figures).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import subprocess
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
from recall_latency import (  # seeding + cache shared with recall_latency
    CACHE,
    SERVER,
    blas_env,
    seeded_store,
    settings_for,
)

from trusted_memory.services.agent import AgentService
from trusted_memory.services.runtime import open_runtime

WARM_TURNS = 20
TARGET_MS = {10_000: 10.0}  # stdio p50 of both actions (issue 5)
ALL_SURFACES_CONTEXT_MS = {10_000: 15.0}  # stdio p50 of `context` with every surface on (issue 6)
ALL_SURFACES_CONFIG = "[features]\nnudges = true\n"
REPLIES = (
    "Got it, I'll keep that in mind.",
    "Noted — thanks for telling me.",
    "Let me check what I remember about that.",
    "Sure. Here's what I found.",
    "Okay, I've made a note of it.",
    "Good question — one moment.",
    "Thanks, that helps.",
    "Understood.",
)


# --- workload ------------------------------------------------------------------------------------


def turns(count: int, sessions: int, seed: int = 23) -> list[dict[str, str]]:
    """`count` distinct turns {session_id, user_message, assistant_reply}, round-robin over sessions."""
    templates = len(load_jsonl(DATA / "recall_memories.jsonl"))
    statements = [str(m["text"]) for m in conversational_memories(templates + count, seed=seed)][templates:]
    questions = [str(q["question"]) for q in load_jsonl(DATA / "recall_questions.jsonl")]
    rng = random.Random(seed)
    rng.shuffle(questions)
    out: list[dict[str, str]] = []
    for i in range(count):
        question = questions[i % len(questions)]
        if i >= len(questions):  # only past 567 turns: keep the message distinct anyway
            question = f"{question} (asking again, turn {i})"
        question = question[0].upper() + question[1:]
        kind = i % 3
        message = statements[i] if kind == 0 else question if kind == 1 else f"{statements[i]} {question}"
        out.append(
            {
                "session_id": f"bench-session-{i % sessions:02d}",
                "user_message": message,
                "assistant_reply": REPLIES[rng.randrange(len(REPLIES))],
            }
        )
    return out


def scratch_copy(home: Path, into: Path, surfaces: str = "default") -> Path:
    """A copy of the cached store that this measurement may change (with every surface on for `all`)."""
    dest = into / "store"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(home, dest)
    if surfaces == "all":
        (dest / "config.toml").write_text(ALL_SURFACES_CONFIG)
    return dest


# --- (a) in process (child interpreter, so the cold turn really is cold) ---------------------------


async def inproc(home: Path, n: int, sessions: int, profile: bool) -> dict[str, Any]:
    """Time AgentService.context / observe on an opened runtime."""
    settings = settings_for(home)
    work = turns(n + WARM_TURNS + 1, sessions)
    prof = {"context": cProfile.Profile(), "observe": cProfile.Profile()} if profile else None
    async with open_runtime(settings) as runtime:
        agent = AgentService(runtime)
        budget = runtime.settings.sessions.context_budget_chars

        async def turn(t: dict[str, str], timed: bool) -> tuple[float, float, int, int]:
            p = prof if timed else None
            t0 = time.perf_counter()
            if p:
                p["context"].enable()
            block = await agent.context(t["user_message"], session_id=t["session_id"])
            if p:
                p["context"].disable()
            t1 = time.perf_counter()
            if p:
                p["observe"].enable()
            result = await agent.observe(t["session_id"], t["user_message"], assistant_reply=t["assistant_reply"])
            if p:
                p["observe"].disable()
            t2 = time.perf_counter()
            added = sum(1 for w in result.atoms if w.status == "added")
            return (t1 - t0) * 1000, (t2 - t1) * 1000, len(block.rendered), added

        cold_ctx, cold_obs, _, _ = await turn(work[0], False)
        for t in work[1 : WARM_TURNS + 1]:
            await turn(t, False)
        ctx, obs, chars, added = [], [], [], []
        cpu = time.process_time()
        for t in work[WARM_TURNS + 1 :]:
            c, o, size, a = await turn(t, True)
            ctx.append(c)
            obs.append(o)
            chars.append(size)
            added.append(a)
        cpu_ms = (time.process_time() - cpu) / n * 1000  # per turn (context + observe), all threads
    out: dict[str, Any] = {
        "context": {"cold_ms": cold_ctx, "lat": ctx, "chars": chars, "budget": budget},
        "observe": {"cold_ms": cold_obs, "lat": obs, "added": added},
        "cpu_turn_ms": cpu_ms,
    }
    if prof:
        out["profile"] = {name: _profile_text(p) for name, p in prof.items()}
    return out


def _profile_text(p: cProfile.Profile, top: int = 25) -> str:
    buf = io.StringIO()
    stats = pstats.Stats(p, stream=buf)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def run_inproc(home: Path, n: int, sessions: int, profile: bool, threads: str) -> dict[str, Any]:
    """Run `inproc` in a fresh interpreter and return its measurements."""
    cmd = [sys.executable, __file__, "--child-inproc", str(home), "--n", str(n), "--sessions", str(sessions)]
    done = subprocess.run(
        cmd + (["--profile"] if profile else []),
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **blas_env(threads)},
    )
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


# --- (b) over MCP stdio ---------------------------------------------------------------------------


async def stdio(home: Path, mode: str, n: int, sessions: int, threads: str) -> dict[str, Any]:
    """Time memory(action=context / observe) against a freshly spawned `trusted-memory`."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=str(SERVER),
        args=[],
        env={"PATH": os.environ["PATH"], "MCP_MEMORY_HOME": str(home), **blas_env(threads)},
        cwd=str(home),
    )
    work = turns(n + WARM_TURNS + 1, sessions)

    async def call(args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool("memory", args)
        if result.is_error:
            raise SystemExit(f"{args['action']} failed: {result.content}")
        data: dict[str, Any] = result.structured_content or {}
        return data

    async def turn(t: dict[str, str]) -> tuple[float, float, dict[str, Any], dict[str, Any]]:
        t0 = time.perf_counter()
        ctx = await call({"action": "context", "message": t["user_message"], "session_id": t["session_id"]})
        t1 = time.perf_counter()
        obs = await call(
            {
                "action": "observe",
                "session_id": t["session_id"],
                "user_message": t["user_message"],
                "assistant_reply": t["assistant_reply"],
            }
        )
        t2 = time.perf_counter()
        return (t1 - t0) * 1000, (t2 - t1) * 1000, ctx, obs

    t_spawn = time.perf_counter()
    async with Client(params, mode=mode) as client:
        initialized = time.perf_counter()
        cold_ctx, cold_obs, _, _ = await turn(work[0])
        budget = settings_for(home).sessions.context_budget_chars  # what the server read: same home, no config
        for t in work[1 : WARM_TURNS + 1]:
            await turn(t)
        ctx, obs, chars, nbytes, added = [], [], [], [], []
        for t in work[WARM_TURNS + 1 :]:
            c, o, cdata, odata = await turn(t)
            ctx.append(c)
            obs.append(o)
            chars.append(len(cdata.get("rendered") or ""))
            nbytes.append(len(json.dumps(cdata, ensure_ascii=False).encode()))
            added.append(len(odata.get("atoms") or []))
        floor = []
        for _ in range(100):  # a request that never reaches our code: the transport + SDK floor
            t0 = time.perf_counter()
            await client.list_tools(cache_mode="bypass")
            floor.append((time.perf_counter() - t0) * 1000)
    return {
        "context": {"cold_ms": cold_ctx, "lat": ctx, "chars": chars, "bytes": nbytes, "budget": budget},
        "observe": {"cold_ms": cold_obs, "lat": obs, "added": added},
        "init_ms": (initialized - t_spawn) * 1000,
        "floor_ms": percentile(floor, 50),
    }


# --- report --------------------------------------------------------------------------------------


def _rows(size: int, path: str, m: dict[str, Any], surfaces: str) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for action in ("observe", "context"):
        a = m[action]
        lat = a["lat"]
        target = TARGET_MS.get(size) if path.startswith("stdio") else None
        if surfaces == "all" and action == "context" and path.startswith("stdio"):
            target = ALL_SURFACES_CONTEXT_MS.get(size)
        verdict = f"p50 ≤ {target:g} ms {'✅' if percentile(lat, 50) <= target else '❌'}" if target else ""
        if action == "context":
            over = sum(1 for c in a["chars"] if c > a["budget"])
            reply = f"{percentile(a['chars'], 50):,} / {max(a['chars']):,} chars ({over} over {a['budget']:,})"
            if "bytes" in a:
                reply += f"; JSON {percentile(a['bytes'], 50):,} / {max(a['bytes']):,} B"
        else:
            reply = f"{statistics.fmean(a['added']):.2f} atoms added/turn"
        rows.append(
            (
                f"{size:,}",
                path,
                action,
                len(lat),
                f"{a['cold_ms']:.1f}",
                f"{percentile(lat, 50):.2f}",
                f"{percentile(lat, 95):.2f}",
                f"{statistics.fmean(lat):.2f}",
                f"{max(lat):.1f}",
                reply,
                verdict,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--n", type=int, default=200, help="timed turns (context + observe) per size and path")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--modes", default="legacy,auto", help="mcp.Client modes for the stdio runs")
    parser.add_argument("--blas-threads", default="default", help="BLAS thread settings to measure, e.g. default,1")
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached seeded stores")
    parser.add_argument("--link-window", type=int, default=4096, help="as recall_latency.py (part of the cache key)")
    parser.add_argument("--no-stdio", action="store_true")
    parser.add_argument("--no-inproc", action="store_true")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the in-process turns")
    parser.add_argument(
        "--surfaces",
        choices=("default", "all"),
        default="default",
        help="all: also the opt-in surfaces of context (nudges)",
    )
    parser.add_argument("--child-inproc", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_inproc:
        print(json.dumps(asyncio.run(inproc(args.child_inproc, args.n, args.sessions, args.profile))))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    lat_rows: list[tuple[object, ...]] = []
    start_rows: list[tuple[object, ...]] = []
    profiles: list[tuple[str, dict[str, str]]] = []
    cpu_notes: list[str] = []
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="session-latency-", dir=CACHE) as tmp:
        scratch = Path(tmp)
        for size in sizes:
            home, _, cached = seeded_store(size, args.fresh, args.link_window)
            for threads in [t for t in args.blas_threads.split(",") if t]:
                blas = "" if threads == "default" else f", BLAS {threads} thread"
                if not args.no_inproc:
                    m = run_inproc(
                        scratch_copy(home, scratch, args.surfaces), args.n, args.sessions, args.profile, threads
                    )
                    lat_rows += _rows(size, f"in process{blas}", m, args.surfaces)
                    cpu_notes.append(f"{size:,}{blas}: {m['cpu_turn_ms']:.2f} ms CPU per turn in process")
                    if "profile" in m:
                        profiles.append((f"{size:,}{blas}", m["profile"]))
                if not args.no_stdio:
                    for mode in modes:
                        m = asyncio.run(
                            stdio(scratch_copy(home, scratch, args.surfaces), mode, args.n, args.sessions, threads)
                        )
                        lat_rows += _rows(size, f"stdio ({mode}{blas})", m, args.surfaces)
                        start_rows.append(
                            (
                                f"{size:,}",
                                mode + blas,
                                f"{m['init_ms']:.0f}",
                                f"{m['context']['cold_ms']:.0f}",
                                f"{m['observe']['cold_ms']:.0f}",
                                f"{m['floor_ms']:.2f}",
                            )
                        )
            print(f"[{size:,} atoms: {'cached' if cached else 'seeded now'} store {home}]", file=sys.stderr)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    surfaces = "every anticipation surface on, nudges included" if args.surfaces == "all" else "default surfaces"
    print(f"## Session latency (`context` + `observe`, no LLM, {surfaces}) — {machine()}, {today()}, load avg {load}\n")
    print(
        f"Latency in ms over {args.n} timed turns in {args.sessions} sessions after {WARM_TURNS} warm-up turns; "
        "cold = first turn of a fresh process (context first, then observe), over stdio measured from "
        f"`initialized`. {'; '.join(cpu_notes)}.\n"
    )
    print(table(("atoms", "path", "action", "n", "cold", "p50", "p95", "mean", "max", "reply", "target"), lat_rows))
    if start_rows:
        print("\nServer start (ms from spawn) and the stdio floor (p50 of 100 uncached `tools/list` calls)\n")
        print(
            table(
                ("atoms", "client mode", "→ initialized", "first context", "first observe", "tools/list p50 ms"),
                start_rows,
            )
        )
    for label, prof in profiles:
        for name, text in prof.items():
            print(f"\n### cProfile, in process, {label} atoms, `{name}` (timed turns)\n\n```\n{text.strip()}\n```")


if __name__ == "__main__":
    main()
