"""Statements and round trips per call on the PostgreSQL backend, counted in the driver.

    python benchmarks/pg_round_trips.py [--turns 100] [--warm 20] [--adds 100] [--json FILE]

Runs in process (AgentService over a runtime, no MCP transport) against a throwaway cluster
(benchmarks/_pg.py) and one fresh database. Every connection the process opens (the writer, the
readers' pool, the listener) has libpq's protocol trace on, so what is counted is what went to the
server: a round trip is a message the client then waits on (`Query` of the simple protocol, `Sync`
of the extended one, which also ends a pipeline), a statement is an `Execute` or one statement of a
`Query`'s text. Background work the calls start (the user model, recall statistics) is counted:
each phase waits until the process's background tasks are done.

The workload is server_cpu.py's: observe over 10 sessions (session_latency.py's turns), add_atom of
conversational memories. Run it with another install's python to count that version (the script
only needs `trusted_memory` importable).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from _common import conversational_memories
from _pg import Cluster
from session_latency import turns

# libpq's trace: "F" (frontend) lines name the message type in their third field.
_MESSAGE = re.compile(r"^F\t\d+\t(\w+)(?:\t(.*))?$")


def count(trace: Path, start: int) -> tuple[Counter[str], int]:
    """Messages the client sent since byte `start` of the trace, and the trace's size now."""
    data = trace.read_bytes()
    counts: Counter[str] = Counter()
    for line in data[start:].decode("utf-8", errors="replace").splitlines():
        found = _MESSAGE.match(line)
        if not found:
            continue
        kind = found.group(1)
        counts[kind] += 1
        if kind == "Query":
            # The text is quoted; its statements are separated by "; " (the store writes them so).
            counts["statements_in_query"] += max(1, (found.group(2) or "").count("; ") + 1)
    return counts, len(data)


async def settle() -> None:
    """Until every task but this one is done (what the calls started in the background)."""
    for _ in range(400):
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        if not [t for t in others if "listen" not in (t.get_name() or "")]:
            return
        await asyncio.sleep(0.025)


async def run(dsn: str, home: Path, trace: Path, n_turns: int, warm: int, n_adds: int) -> dict[str, Any]:
    import psycopg
    from psycopg import pq

    from trusted_memory.config import load_settings
    from trusted_memory.services.agent import AgentService
    from trusted_memory.services.runtime import open_runtime

    out = trace.open("ab", buffering=0)
    connect = psycopg.AsyncConnection.connect.__func__  # type: ignore[attr-defined]

    async def traced(cls: Any, *args: Any, **kwargs: Any) -> Any:
        conn = await connect(cls, *args, **kwargs)
        conn.pgconn.trace(out.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        return conn

    psycopg.AsyncConnection.connect = classmethod(traced)  # type: ignore[method-assign,assignment]
    environ = {
        "MCP_MEMORY_HOME": str(home),
        "MCP_MEMORY_STORE__BACKEND": "postgres",
        "MCP_MEMORY_STORE__DSN": dsn,
        "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "100000",
    }
    settings = load_settings(environ=environ, cwd=home)
    work = turns(warm + n_turns, 10)
    memories = list(conversational_memories(n_adds + 100, seed=71))[100:]
    result: dict[str, Any] = {}
    async with open_runtime(settings) as runtime:
        agent = AgentService(runtime)
        await runtime.recall.warm_up()
        for t in work[:warm]:
            await agent.observe(t["session_id"], t["user_message"], assistant_reply=t["assistant_reply"])
        await settle()

        async def phase(name: str, calls: list[Any], one: Any) -> None:
            _, start = count(trace, 0)
            for item in calls:
                await one(item)
            await settle()
            counts, _ = count(trace, start)
            n = len(calls)
            result[name] = {
                "calls": n,
                "round_trips": (counts["Query"] + counts["Sync"]) / n,
                "statements": (counts["Execute"] + counts["statements_in_query"]) / n,
                "messages": {k: v / n for k, v in sorted(counts.items())},
            }

        async def observe(t: dict[str, str]) -> None:
            await agent.observe(t["session_id"], t["user_message"], assistant_reply=t["assistant_reply"])

        async def add(m: dict[str, Any]) -> None:
            from trusted_memory.services.atoms import AtomDraft

            await agent.add_atom(AtomDraft(m["text"], "user_said", atom_type=m["type"], tags=m["tags"]))

        await phase("observe", work[warm:], observe)
        await phase("add_atom", memories, add)
    out.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--adds", type=int, default=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with Cluster() as cluster, tempfile.TemporaryDirectory(prefix="tm-pg-rt-") as scratch:
        dsn = cluster.dsn(cluster.new_database())
        trace = Path(scratch) / "trace"
        trace.touch()
        result = asyncio.run(run(dsn, Path(scratch) / "home", trace, args.turns, args.warm, args.adds))
    import trusted_memory

    result["trusted_memory"] = os.path.dirname(trusted_memory.__file__)
    print(f"trusted_memory from {result['trusted_memory']}")
    for name in ("observe", "add_atom"):
        r = result[name]
        print(
            f"{name:9} {r['calls']} calls: {r['round_trips']:.2f} round trips, {r['statements']:.2f} statements a call"
        )
        print("          messages a call: " + ", ".join(f"{k} {v:.2f}" for k, v in r["messages"].items()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
