"""Two OS processes write the facts tier of one store at once: no lock errors, nothing lost."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ._support import stop

pytestmark = pytest.mark.e2e

OPS = 500
WRITERS = ("alpha", "bravo")
START_DEADLINE_S = 20.0
RUN_TIMEOUT_S = 60.0

# One writer: opens the store like the server does, waits for the starting gun, then does OPS
# facts writes (mostly adds, every 5th a replace, every 7th a remove of its own entries) and
# prints what was acknowledged. Content is tagged "[<name>-<n>]" so events can be attributed.
WRITER = r"""
import asyncio, json, sys, time
from pathlib import Path

from trusted_memory.config import load_settings
from trusted_memory.errors import MemoryServerError
from trusted_memory.services.agent import AgentService
from trusted_memory.services.runtime import open_runtime

name, home, workdir, ops = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])


async def main() -> None:
    settings = load_settings(
        environ={"MCP_MEMORY_HOME": home, "MCP_MEMORY_FACTS__ENV_CAP": "1000000"}, cwd=workdir,
    )
    acked = {"fact_added": 0, "fact_replaced": 0, "fact_removed": 0}
    errors, live = [], {}
    async with open_runtime(settings) as runtime:
        agent = AgentService(runtime)
        (workdir / f"{name}.ready").touch()
        while not (workdir / "go").exists():
            time.sleep(0.002)
        started = time.perf_counter()
        for i in range(ops):
            try:
                if i % 7 == 6 and live:
                    victim = next(iter(live))
                    write = await agent.remove_fact("env", live[victim])
                    assert write.status == "removed", write
                    del live[victim]
                    acked["fact_removed"] += 1
                elif i % 5 == 4 and live:
                    victim = next(reversed(live))
                    new = f"[{name}-{i:04d}] rewrote entry {victim} of {name}"
                    write = await agent.replace_fact("env", live[victim], new)
                    assert write.status == "replaced", write
                    live[victim] = new
                    acked["fact_replaced"] += 1
                else:
                    content = f"[{name}-{i:04d}] {name} note number {i}"
                    write = await agent.add_fact("env", content)
                    assert write.status == "added", write
                    live[i] = content
                    acked["fact_added"] += 1
            except (MemoryServerError, AssertionError) as exc:
                errors.append(f"op {i}: {type(exc).__name__}: {exc}")
        elapsed = time.perf_counter() - started
    print(json.dumps({"name": name, "acked": acked, "errors": errors,
                      "live": sorted(live.values()), "seconds": round(elapsed, 3)}))


asyncio.run(main())
"""


def _owner(detail: dict[str, Any]) -> str | None:
    text = detail.get("content") or detail.get("old_content") or ""
    for name in WRITERS:
        if text.startswith(f"[{name}-"):
            return name
    return None


def test_two_processes_write_one_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        for name in WRITERS:
            procs[name] = subprocess.Popen(
                [sys.executable, "-c", WRITER, name, str(home), str(tmp_path), str(OPS)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=tmp_path,
            )
        # Both open the store (and race the migration), then start writing on the same signal.
        deadline = time.monotonic() + START_DEADLINE_S
        while not all((tmp_path / f"{n}.ready").exists() for n in WRITERS):
            failed = {n: p.returncode for n, p in procs.items() if p.poll() is not None}
            if failed:  # stop the others first: reading a live writer's output would wait forever
                for proc in procs.values():
                    stop(proc)
                raise AssertionError(
                    f"writers exited before starting: {failed}; {[p.communicate(timeout=10) for p in procs.values()]}"
                )
            assert time.monotonic() < deadline, "writers did not open the store in time"
            time.sleep(0.01)
        (tmp_path / "go").touch()
        summaries: dict[str, dict[str, Any]] = {}
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
            assert proc.returncode == 0, f"{name} failed:\n{err}"
            summaries[name] = json.loads(out)
    finally:
        for proc in procs.values():
            stop(proc)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()

    for name, summary in summaries.items():
        assert not [e for e in summary["errors"] if "locked" in e or "busy" in e], summary["errors"]
        assert summary["errors"] == [], f"{name}: {summary['errors'][:5]}"
        assert sum(summary["acked"].values()) == OPS

    with sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True) as db:
        events = db.execute(
            "SELECT kind, detail FROM events WHERE kind IN ('fact_added', 'fact_replaced', 'fact_removed')"
        ).fetchall()
        facts = {row[0] for row in db.execute("SELECT content FROM facts WHERE target = 'env'")}
    db.close()

    seen: dict[str, Counter[str]] = {name: Counter() for name in WRITERS}
    for kind, detail in events:
        owner = _owner(json.loads(detail))
        assert owner is not None, detail
        seen[owner][kind] += 1
    for name in WRITERS:
        assert dict(seen[name]) == {k: v for k, v in summaries[name]["acked"].items() if v}, name

    expected = {content for s in summaries.values() for content in s["live"]}
    assert facts == expected
