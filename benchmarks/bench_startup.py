"""Startup and round-trip latency of the installed `trusted-memory` over stdio.

    python benchmarks/bench_startup.py [--runs 5] [--ops 200]

Measures (a) process start -> initialize done through the SDK client (legacy `initialize` and
auto `server/discover`), (b) import cost from `python -X importtime` (our own modules vs the SDK),
and (c) p50/p95 of facts `add` and `read` calls on a fresh store. Prints a markdown report.
Run it with the interpreter of the venv where trusted-memory is installed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

SERVER = Path(sys.executable).parent / "trusted-memory"
TARGET_START_S = 0.7
TARGET_ADD_P50_MS = 3.0
_IMPORTTIME_RE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class Sample:
    """Timings of one measurement, in milliseconds."""

    label: str
    values: tuple[float, ...]

    def pct(self, q: float) -> float:
        """The q-th percentile (nearest rank)."""
        ordered = sorted(self.values)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]

    @property
    def median(self) -> float:
        """The median."""
        return statistics.median(self.values)


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "MCP_MEMORY_HOME": str(home), **extra}


def _params(home: Path, **extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(SERVER), args=[], env=_env(home, **extra), cwd=str(home.parent))


# --- (a) process start -> initialize ------------------------------------------------------------


async def _time_to_initialize(home: Path, mode: str) -> float:
    started = time.perf_counter()
    async with Client(_params(home), mode=mode) as client:
        ready = time.perf_counter()
        assert client.server_info is not None
    return (ready - started) * 1000


_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 10.0


def _children_cpu_ms(name: str) -> float:
    """CPU time (user + system) so far of this process's children whose command line mentions `name`."""
    total = 0.0
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for pid in (task / "children").read_text().split():
            try:
                if name in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    total += (int(fields[11]) + int(fields[12])) * _TICK_MS
            except OSError:  # gone meanwhile
                continue
    return total


async def _cpu_to_initialize(home: Path, mode: str) -> float:
    """The server's own CPU time from exec to a completed handshake (not affected by other load)."""
    async with Client(_params(home), mode=mode) as client:
        assert client.server_info is not None
        return _children_cpu_ms("trusted-memory")


def _import_cpu(code: str) -> float:
    """CPU time a fresh interpreter spends to run `code`, read inside it before its exit and teardown."""
    probe = f"{code}\nimport os\nt = os.times()\nprint((t.user + t.system) * 1000)"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def _wall(cmd: Sequence[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def measure_startup(workdir: Path, runs: int) -> list[Sample]:
    """Start -> initialize over stdio in both client modes, plus bare interpreter and import baselines."""
    home = workdir / "startup-home"
    anyio.run(_time_to_initialize, home, "legacy")  # creates the store and warms the page cache
    walls = (
        ("wall `python -c pass`", "pass"),
        ("wall `python -c 'import mcp.server'`", "import mcp.server"),
        ("wall `python -c 'import trusted_memory.cli.serve'`", "import trusted_memory.cli.serve"),
    )
    values: dict[str, list[float]] = {}
    # Interleaved, one of each per run: on a shared machine every row then sees the same load, so the
    # ratio of the handshake to the SDK's import (the figure the README quotes) is measured fairly.
    for _ in range(runs):
        for mode in ("legacy", "auto"):
            label = f"spawn `trusted-memory` → initialized (Client mode={mode})"
            values.setdefault(label, []).append(anyio.run(_time_to_initialize, home, mode))
        for label, code in walls:
            values.setdefault(label, []).append(_wall([sys.executable, "-c", code]))
        if Path("/proc/self/task").is_dir():
            cpu = anyio.run(_cpu_to_initialize, home, "legacy")
            values.setdefault("CPU: `trusted-memory` exec → initialized (legacy)", []).append(cpu)
            values.setdefault("CPU: `python -c 'import mcp.server'`, before exit", []).append(
                _import_cpu("import mcp.server")
            )
    return [Sample(label, tuple(v)) for label, v in values.items()]


# --- (b) -X importtime ---------------------------------------------------------------------------


def _importtime(code: str) -> dict[str, int]:
    """Self time (µs) of every module a `python -c code` imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    selfs: dict[str, int] = {}
    for line in done.stderr.splitlines():
        match = _IMPORTTIME_RE.match(line)
        if match:
            selfs[match.group(4)] = selfs.get(match.group(4), 0) + int(match.group(1))
    return selfs


@dataclass(frozen=True, slots=True)
class ImportCost:
    """Import costs in ms, medians over runs."""

    serve_total: float
    sdk_total: float
    own: float
    extra: float
    serve_modules: int
    sdk_modules: int
    own_modules: int
    extra_names: tuple[str, ...]


def measure_imports(runs: int) -> ImportCost:
    """Import cost of `trusted_memory.cli.serve` vs `mcp.server`, and the share that is ours."""
    serve_total, sdk_total, own, extra = [], [], [], []
    counts = (0, 0, 0)
    extra_names: set[str] = set()
    for _ in range(runs):
        base = set(_importtime("pass"))
        serve = {k: v for k, v in _importtime("import trusted_memory.cli.serve").items() if k not in base}
        sdk = {k: v for k, v in _importtime("import mcp.server").items() if k not in base}
        ours = {k: v for k, v in serve.items() if k == "trusted_memory" or k.startswith("trusted_memory.")}
        theirs = {k: v for k, v in serve.items() if k not in sdk and k not in ours}
        serve_total.append(sum(serve.values()) / 1000)
        sdk_total.append(sum(sdk.values()) / 1000)
        own.append(sum(ours.values()) / 1000)
        extra.append(sum(theirs.values()) / 1000)
        counts = (len(serve), len(sdk), len(ours))
        extra_names |= {k.split(".")[0] for k in theirs}
    return ImportCost(
        statistics.median(serve_total),
        statistics.median(sdk_total),
        statistics.median(own),
        statistics.median(extra),
        *counts,
        tuple(sorted(extra_names)),
    )


# --- (c) round trips -----------------------------------------------------------------------------


async def _round_trips(home: Path, mode: str, ops: int) -> tuple[Sample, ...]:
    params = _params(home, MCP_MEMORY_FACTS__ENV_CAP="100000000")
    lists: list[float] = []
    stats: list[float] = []
    adds: list[float] = []
    reads: list[float] = []
    async with Client(params, mode=mode) as client:
        for _ in range(5):  # warm up: first calls pay for lazy imports and schema caches
            await client.call_tool("memory", {"action": "stats"})
        # Floors: a request that never reaches our code (transport + SDK), and a read-only tool call.
        for _ in range(ops):
            started = time.perf_counter()
            await client.list_tools()
            lists.append((time.perf_counter() - started) * 1000)
        for _ in range(ops):
            started = time.perf_counter()
            await client.call_tool("memory", {"action": "stats"})
            stats.append((time.perf_counter() - started) * 1000)
        for i in range(ops):
            started = time.perf_counter()
            result = await client.call_tool(
                "memory",
                {"action": "add", "target": "env", "content": f"bench fact number {i} for {mode}"},
            )
            adds.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                raise SystemExit(f"add failed: {result.content}")
        for _ in range(ops):
            started = time.perf_counter()
            result = await client.call_tool("memory", {"action": "read"})
            reads.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                raise SystemExit(f"read failed: {result.content}")
    return (
        Sample(f"`tools/list`, SDK floor (mode={mode})", tuple(lists)),
        Sample(f"`stats` tool call (mode={mode})", tuple(stats)),
        Sample(f"facts `add`, 0→{ops} entries (mode={mode})", tuple(adds)),
        Sample(f"facts `read`, {ops} entries (mode={mode})", tuple(reads)),
    )


def measure_round_trips(workdir: Path, ops: int) -> list[Sample]:
    """p50/p95 of add and read calls over stdio, on a fresh store per client mode."""
    out: list[Sample] = []
    for mode in ("legacy", "auto"):
        out.extend(anyio.run(_round_trips, workdir / f"rt-{mode}", mode, ops))
    return out


# --- report --------------------------------------------------------------------------------------


def _verdict(value: float, target: float) -> str:
    return "✅" if value <= target else "❌"


def report(runs: int, ops: int, startup: list[Sample], imports: ImportCost, trips: list[Sample]) -> str:
    """The markdown report."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines = [
        f"## trusted-memory startup benchmark — {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"- machine: `{platform.platform()}`, {os.cpu_count()} CPUs, load average {load}",
        f"- python: {platform.python_implementation()} {platform.python_version()} (`{sys.executable}`)",
        f"- runs: {runs} (startup, imports), ops: {ops} (round trips)",
        "",
        "### (a) start → initialize over stdio",
        "",
        "| measurement | median ms | min ms | target |",
        "|---|---:|---:|---|",
    ]
    for s in startup:
        target = ""
        if s.label.startswith("spawn"):
            target = f"≤ {TARGET_START_S * 1000:.0f} ms {_verdict(s.median, TARGET_START_S * 1000)}"
        lines.append(f"| {s.label} | {s.median:.0f} | {min(s.values):.0f} | {target} |")
    # The README states start-up as this ratio: milliseconds depend on the machine and its load, the
    # ratio to the SDK's own import (measured in the same run, on the same machine) much less.
    floor = next(s for s in startup if s.label.startswith("wall") and "import mcp.server" in s.label)
    lines += [""] + [
        f"- ratio, wall, {s.label.split('(')[-1].rstrip(')')}: handshake / `import mcp.server` = "
        f"{s.median / floor.median:.2f}"
        for s in startup
        if s.label.startswith("spawn")
    ]
    cpu = [s for s in startup if s.label.startswith("CPU")]
    if len(cpu) == 2:
        lines.append(
            f"- ratio, CPU (what the README quotes; other load barely moves it): handshake / `import mcp.server` "
            f"= {cpu[0].median / cpu[1].median:.2f}"
        )
    lines += [
        "",
        (
            "Wall times include interpreter start-up and exit (tearing down ~550 modules); the "
            "spawn → initialized rows stop the clock at the handshake, before the server exits."
        ),
    ]
    lines += [
        "",
        "### (b) import cost (`-X importtime`, self times summed, medians)",
        "",
        "| measurement | ms | modules |",
        "|---|---:|---:|",
        f"| `import trusted_memory.cli.serve`, total | {imports.serve_total:.0f} | {imports.serve_modules} |",
        f"| `import mcp.server`, total | {imports.sdk_total:.0f} | {imports.sdk_modules} |",
        f"| our own modules (`trusted_memory.*`) | {imports.own:.1f} | {imports.own_modules} |",
        f"| other modules the SDK does not import ({', '.join(imports.extra_names) or 'none'}) "
        f"| {imports.extra:.1f} | |",
        "",
        "### (c) round trips over stdio (fresh store)",
        "",
        "| call | p50 ms | p95 ms | min ms | max ms | target |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for s in trips:
        target = (
            f"p50 ≤ {TARGET_ADD_P50_MS:.0f} ms {_verdict(s.pct(50), TARGET_ADD_P50_MS)}" if "`add`" in s.label else ""
        )
        lines.append(
            f"| {s.label} | {s.pct(50):.2f} | {s.pct(95):.2f} | {min(s.values):.2f} | {max(s.values):.2f} | {target} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every measurement and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="process starts per startup measurement")
    parser.add_argument("--ops", type=int, default=200, help="calls per round-trip measurement")
    args = parser.parse_args(argv)
    if not SERVER.is_file():
        print(f"{SERVER} not found: install trusted-memory into this interpreter's environment", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="trusted-memory-bench-") as tmp:
        workdir = Path(tmp)
        startup = measure_startup(workdir, args.runs)
        imports = measure_imports(args.runs)
        trips = measure_round_trips(workdir, args.ops)
    print(report(args.runs, args.ops, startup, imports, trips))
    return 0


if __name__ == "__main__":
    sys.exit(main())
