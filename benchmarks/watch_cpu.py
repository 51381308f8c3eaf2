"""What the resource-change watcher costs an idle server: CPU seconds per minute, with and without a subscriber.

Starts the installed `trusted-memory` over stdio on a fresh store, lets it settle, then measures the
server process's CPU time (utime + stime of all its threads, /proc/<pid>/stat) over an idle window
three times: with no subscriber (the floor: the watcher sleeps on an event), with one
`subscriptions/listen` stream open and nothing changing (one change-counter read per
`server.watch_interval_s`), and with the stream open while another process (the admin CLI) adds a
fact every few seconds (each change is rendered and compared once).

    .venv/bin/python benchmarks/watch_cpu.py [--seconds 30] [--interval 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, today
from server_cpu import cpu_seconds, server_pid

BIN = Path(sys.executable).parent


async def idle(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return cpu_seconds(pid) - before


async def run(seconds: float, interval: float) -> dict[str, object]:
    from mcp import Client, StdioServerParameters

    home = Path(tempfile.mkdtemp()) / "home"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home.parent),
        "MCP_MEMORY_HOME": str(home),
        "MCP_MEMORY_SERVER__WATCH_INTERVAL_S": str(interval),
    }
    params = StdioServerParameters(command=str(BIN / "trusted-memory"), args=[], env=env)
    out: dict[str, object] = {"date": today(), "machine": machine(), "seconds": seconds, "interval_s": interval}
    updates: list[str] = []
    async with Client(params) as client:
        pid = server_pid()
        await asyncio.sleep(2.0)  # start-up work (warm-up, background jobs) out of the window
        out["no_subscriber_cpu_s"] = await idle(pid, seconds)
        async with client.listen(resource_subscriptions=("memory://facts/user",)) as sub:

            async def drain() -> None:
                async for event in sub:
                    updates.append(str(event))

            reader = asyncio.create_task(drain())
            out["subscribed_idle_cpu_s"] = await idle(pid, seconds)
            before, started, n = cpu_seconds(pid), time.monotonic(), 0
            while time.monotonic() - started < seconds:
                n += 1
                await asyncio.to_thread(
                    subprocess.run,
                    [str(BIN / "trusted-memory-admin"), "facts", "add", "user", f"Benchmark fact number {n}"],
                    env=env,
                    check=True,
                    capture_output=True,
                )
                await asyncio.sleep(max(0.0, 3.0 - (time.monotonic() - started) % 3.0))
            await asyncio.sleep(interval * 2)
            out["subscribed_changing_cpu_s"] = cpu_seconds(pid) - before
            out["changes_made"], out["updates_received"] = n, len(updates)
            reader.cancel()
    for key in ("no_subscriber_cpu_s", "subscribed_idle_cpu_s", "subscribed_changing_cpu_s"):
        out[key.replace("_cpu_s", "_cpu_ms_per_min")] = round(float(out[key]) * 1000 * 60 / seconds, 1)  # type: ignore[arg-type]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.seconds, args.interval)), indent=2))


if __name__ == "__main__":
    main()
