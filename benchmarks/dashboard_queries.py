"""CPU of each query behind the review desk's dashboard, for the operator and for one person, in process.

    python benchmarks/dashboard_queries.py HOME [--as NAME] [--calls 10]

HOME is a store folder, such as the team store webui_pages.py seeds (`--team`: under
`$TMPDIR/trusted-memory-bench-webui/10000-200-team/home`). Each query of `AdminInsights.dashboard`
and the `stats` event count runs `--calls` times, as nobody (the operator) and as NAME, alternately
twice. Reported: `time.process_time` per call, in ms. Only the store's read connection runs, so the
figures leave out the page's rendering and HTTP: webui_pages.py measures those.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from trusted_memory.config import load_settings
from trusted_memory.people import Viewer, acting_as
from trusted_memory.services.admin.insights import EVICTION_KINDS, FINDINGS_WINDOW, WRITE_KINDS
from trusted_memory.services.people import PeopleDirectory
from trusted_memory.services.runtime import open_runtime
from trusted_memory.store.base import Reader, now
from trusted_memory.store.insights import DAY_S, InsightsRepo


def _queries(repo: InsightsRepo, rx: Reader, since: float) -> dict[str, Callable[[], Awaitable[object]]]:
    """The dashboard's reads (services/admin/insights.py, AdminInsights.dashboard) and the stats event count."""
    return {
        "atom_counts": repo.atom_counts,
        "count_before": lambda: repo.count_before(since),
        "created_per_day": lambda: repo.created_per_day(since),
        "events_per_day": lambda: repo.events_per_day([*WRITE_KINDS, *EVICTION_KINDS], since),
        "recalled_per_day": lambda: repo.recalled_per_day(since),
        "quarantine_findings": lambda: repo.quarantine_findings(FINDINGS_WINDOW),
        "evicted counts": lambda: asyncio.gather(*(rx.events.count(k, owned=True) for k in EVICTION_KINDS)),
        "stats event count": lambda: rx.events.count(owned=True),
    }


async def main(home: Path, name: str, calls: int) -> None:
    settings = load_settings(environ={"MCP_MEMORY_HOME": str(home)}, cwd=home)
    async with open_runtime(settings) as runtime:
        person = await PeopleDirectory(runtime.store).viewer_named(name)
        assert person is not None, f"no person {name!r} in {home}"
        since = (int(now() // DAY_S) - 29) * DAY_S
        who: list[tuple[str, Viewer | None]] = [("operator", None), (name, person)] * 2
        for label, viewer in who:
            with acting_as(viewer):
                async with runtime.store.read() as rx:
                    queries = _queries(InsightsRepo(rx.conn), rx, since)
                    cells = []
                    for query, run in queries.items():
                        start = time.process_time()
                        for _ in range(calls):
                            await run()
                        cells.append(f"{query} {(time.process_time() - start) * 1000 / calls:.1f}")
            print(f"{label}: " + "; ".join(cells))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("home", type=Path)
    parser.add_argument("--as", dest="person", default="bob")
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(main(args.home, args.person, args.calls))
