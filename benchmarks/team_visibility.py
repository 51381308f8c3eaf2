"""What a person's view costs a search: search_atoms CPU per call as one person of a four-person team
store, against the same store and queries searched as nobody (no visibility clause), interleaved.

    python benchmarks/team_visibility.py [N]     # N atom writes, a quarter by each of four people
"""

from __future__ import annotations

import asyncio
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from trusted_memory.config import load_settings
from trusted_memory.people import Viewer, acting_as
from trusted_memory.services.agent import AgentService
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.recall_types import RecallQuery
from trusted_memory.services.runtime import open_runtime
from trusted_memory.services.wiring import build_services

WORDS = [
    "deploy",
    "billing",
    "postgres",
    "cutover",
    "runbook",
    "review",
    "merge",
    "squash",
    "tabs",
    "spaces",
    "python",
    "rust",
    "docker",
    "kube",
    "staging",
    "prod",
    "region",
    "eu",
    "west",
    "lunch",
    "dentist",
    "therapist",
    "flight",
    "hotel",
    "budget",
    "invoice",
    "sprint",
    "retro",
    "standup",
]
PEOPLE = [Viewer(name, "member", frozenset({"atlas"}), team=True) for name in ("alice", "bob", "carol", "dave")]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main(n: int) -> None:
    home = Path(tempfile.mkdtemp())
    rng = random.Random(7)
    async with open_runtime(load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=home)) as rt:
        agent, atoms = AgentService(rt), build_services(rt).atoms
        written = 0
        for i in range(n):
            scope = rng.choice(["user", "user", "project", "global"])
            if scope == "global":
                continue  # an agent's global write would only wait for an admin
            text = " ".join(rng.choice(WORDS) for _ in range(8)) + f" item {i}"
            with acting_as(PEOPLE[i % 4]):
                await atoms.add(AtomDraft(text, "user_said", project="atlas" if scope == "project" else None))
            written += 1
        await rt.recall.drain_queue()
        queries = [" ".join(rng.choice(WORDS) for _ in range(4)) for _ in range(200)]
        for label, viewer in [("as nobody", None), ("as alice", PEOPLE[0])] * 2:
            with acting_as(viewer):
                for query in queries[:20]:
                    await agent.search_atoms(RecallQuery(query, touch=False))
                c0, t0 = cpu(), time.perf_counter()
                for query in queries:
                    await agent.search_atoms(RecallQuery(query, touch=False))
                c1, t1 = cpu(), time.perf_counter()
            per = len(queries)
            print(
                f"{label:10s} {written:,} atoms: CPU {1000 * (c1 - c0) / per:.2f} ms/call, "
                f"wall {1000 * (t1 - t0) / per:.2f} ms/call"
            )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 8000))
