"""One shared server under a team's load: N concurrent MCP clients over streamable HTTP.

    python benchmarks/team_load.py [--clients 1,16] [--calls 60] [--rate 0] [--seed 11] [--mode legacy]
                                   [--bin DIR] [--json FILE] [--profile FILE]

For each N in --clients, a fresh store and a fresh installed `trusted-memory serve --transport http`
on a free loopback port (rate limit on agent writes raised so no call is refused). N SDK clients
(`mcp.Client` over streamable HTTP, --mode) connect, then run two phases, all clients at once:

1. floor: 10 `tools/list` calls per client (cache bypassed): transport and SDK dispatch, no store;
2. load: --calls mixed `memory` calls per client: add_atom (35 %), observe (25 %, one session per
   client), search_atoms (25 %, for an atom another client already had acknowledged), facts add
   on target env (15 %); each text unique. Back to back by default (every client always has a call
   in flight: the server's capacity); --rate R paces each client at R calls/s with exponential gaps
   (agents that think between calls: the latency a team sees below capacity).

Reported per N and per call kind: p50 / p95 wall ms; the server's CPU ms per call of each phase
(utime + stime of the server process, all threads, from /proc/<pid>/stat, before and after the
phase once the server's CPU time stops moving, divided by the phase's calls); errors. Afterwards
the server is stopped and the store is checked through the installed admin CLI: every acknowledged
atom is there, live, with its text; every acknowledged env fact is there; each session's turn count
equals its acknowledged observes. Anything missing is a lost write.

Target (issue 17), on each backend: at N = 16, write p50 (add_atom, observe, add) ≤ 4 × the N = 1
write p50, write p95 ≤ 100 ms, 0 errors, 0 lost. --backends sqlite,postgres runs every N on each,
one after the other (PostgreSQL: a fresh database per N in a cluster of _pg.py, whose processes'
CPU is reported beside the server's; --pg-keep DIR keeps that cluster between runs). This 2-core
machine is shared, so compare the write figures with
the floor of the same run. "writes per commit" = acknowledged writes / committed write
transactions (meta.change_counter): above 1 when concurrent writes were committed together.
--profile FILE samples the server of the last N with py-spy (if installed), idle stacks included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from _common import machine, percentile, table, today
from _pg import Cluster

CLK_TCK = os.sysconf("SC_CLK_TCK")
FLOOR_CALLS = 10
CALL_TIMEOUT_S = 60.0
WEIGHTS = {"add_atom": 35, "observe": 25, "search_atoms": 25, "add": 15}
WRITES = ("add_atom", "observe", "add")
NOUNS = [
    "kafka",
    "redis",
    "postgres",
    "nginx",
    "docker",
    "terraform",
    "ansible",
    "grafana",
    "prometheus",
    "jenkins",
    "vault",
    "consul",
    "nomad",
    "helm",
    "traefik",
    "caddy",
    "sentry",
    "celery",
    "rabbitmq",
    "minio",
    "airflow",
    "spark",
    "flink",
    "dask",
    "polars",
    "duckdb",
    "sqlite",
    "mysql",
    "mongodb",
    "cassandra",
    "etcd",
    "haproxy",
    "envoy",
    "istio",
    "argo",
    "flux",
    "bazel",
    "gradle",
    "maven",
    "cargo",
    "poetry",
    "pnpm",
    "vite",
]
PLACES = ("staging", "production", "my laptop", "the build box", "CI", "the dev container")


def bin_dir(explicit: str | None) -> Path:
    """The folder holding the installed console scripts: --bin, else next to this interpreter, else PATH."""
    if explicit:
        return Path(explicit)
    here = Path(sys.executable).parent
    if (here / "trusted-memory").is_file():
        return here
    found = shutil.which("trusted-memory")
    if found is None:
        sys.exit("trusted-memory is not installed next to this interpreter nor on PATH (pip install -e .)")
    return Path(found).parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads (/proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


async def settle(pid: int, quiet_s: float = 0.3, limit_s: float = 60.0) -> None:
    """Wait until the server's CPU time stops moving (what the calls started in the background is done)."""
    deadline = time.monotonic() + limit_s
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(quiet_s)
        current = cpu_seconds(pid)
        if current == last:
            return
        last = current


def token(rng: random.Random) -> str:
    """A made-up keyword no other text holds (search_atoms looks for it)."""
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(4))


@dataclass
class Ledger:
    """What one client was told succeeded, and how long each call took."""

    index: int
    atoms: dict[str, str] = field(default_factory=dict)  # acknowledged atom id -> text
    keywords: dict[str, str] = field(default_factory=dict)  # atom id -> its made-up keyword
    facts: list[str] = field(default_factory=list)
    observes: int = 0
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    found: int = 0
    searched: int = 0

    @property
    def session(self) -> str:
        return f"team-c{self.index}"


class Driver:
    def __init__(self, client: Any, led: Ledger, ledgers: list[Ledger], seed: int, rate: float) -> None:
        self.client, self.led, self.ledgers = client, led, ledgers
        self.rng = random.Random(seed * 1000 + led.index)
        self.rate = rate  # calls per second of this client (0: back to back)

    async def call(self, kind: str, args: dict[str, Any]) -> dict[str, Any] | None:
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(self.client.call_tool("memory", args), CALL_TIMEOUT_S)
        except Exception as exc:  # a transport failure is an error of this call, not the run's end
            self.led.errors[kind] += 1
            self.led.samples.setdefault(kind, f"{type(exc).__name__}: {exc}"[:300])
            return None
        finally:
            self.led.latency[kind].append((time.perf_counter() - started) * 1000)
        if result.is_error:
            self.led.errors[kind] += 1
            self.led.samples.setdefault(kind, "".join(getattr(c, "text", "") for c in result.content)[:300])
            return None
        data: dict[str, Any] = result.structured_content or {}
        return data

    def unexpected(self, kind: str, data: dict[str, Any], status: str) -> bool:
        if data.get("status") == status:
            return False
        self.led.errors[kind] += 1
        self.led.samples.setdefault(kind, f"status {data.get('status')!r}: {data.get('message')}"[:300])
        return True

    async def floor(self) -> None:
        for _ in range(FLOOR_CALLS):
            started = time.perf_counter()
            await self.client.list_tools(cache_mode="bypass")
            self.led.latency["tools/list (floor)"].append((time.perf_counter() - started) * 1000)

    async def run(self, calls: int) -> None:
        kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
        for i in range(calls):
            if self.rate:  # an agent thinks between calls: exponential gaps, as independent people
                await asyncio.sleep(self.rng.expovariate(self.rate))
            await getattr(self, f"op_{self.rng.choices(kinds, weights)[0]}")(i)

    async def op_add_atom(self, i: int) -> None:
        a, b = self.rng.sample(NOUNS, 2)
        word = token(self.rng)
        text = f"I prefer {a} over {b} on {self.rng.choice(PLACES)} (c{self.led.index}-{i:03d} {word})"
        data = await self.call("add_atom", {"action": "add_atom", "content": text, "source": "user_said"})
        if data is None or self.unexpected("add_atom", data, "added"):
            return
        atom = data["atom"]
        self.led.atoms[atom["id"]] = text
        self.led.keywords[atom["id"]] = word

    async def op_observe(self, i: int) -> None:
        a = self.rng.choice(NOUNS)
        data = await self.call(
            "observe",
            {
                "action": "observe",
                "session_id": self.led.session,
                "user_message": f"today we looked at the {a} set-up together (c{self.led.index}-{i:03d})",
                "assistant_reply": f"Reviewed the {a} configuration.",
            },
        )
        if data is not None and not self.unexpected("observe", data, "ok"):
            self.led.observes += 1

    async def op_search_atoms(self, i: int) -> None:
        others = [led for led in self.ledgers if led.keywords and (led is not self.led or len(self.ledgers) == 1)]
        if not others:
            await self.call("search_atoms", {"action": "search_atoms", "query": f"which {self.rng.choice(NOUNS)}"})
            return
        other = self.rng.choice(others)
        atom_id = self.rng.choice(list(other.keywords))
        data = await self.call("search_atoms", {"action": "search_atoms", "query": other.keywords[atom_id]})
        if data is not None:
            self.led.searched += 1
            self.led.found += atom_id in {h["id"] for h in data.get("hits", [])}

    async def op_add(self, i: int) -> None:
        a, b = self.rng.sample(NOUNS, 2)
        text = f"[c{self.led.index}-{i:03d}] {a} talks to {b} on port {self.rng.randint(1024, 65000)}"
        data = await self.call("add", {"action": "add", "target": "env", "content": text})
        if data is not None and not self.unexpected("add", data, "added"):
            self.led.facts.append(text)


def admin_json(bins: Path, home: Path, env: dict[str, str], *args: str) -> Any:
    done = subprocess.run(
        [str(bins / "trusted-memory-admin"), "--home", str(home), "--json", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"trusted-memory-admin {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def store_counts(home: Path, dsn: str | None) -> tuple[dict[str, int], int]:
    """Each session's turn count and meta.change_counter, read straight from the store (read-only)."""
    if dsn is not None:
        import psycopg

        with psycopg.connect(dsn) as pg:
            turns = {str(r[0]): int(r[1]) for r in pg.execute("SELECT id, turns FROM sessions")}
            row = pg.execute("SELECT value FROM meta WHERE key = 'change_counter'").fetchone()
            return turns, int(row[0]) if row else 0
    import sqlite3

    conn = sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True)
    try:
        turns = {str(r[0]): int(r[1]) for r in conn.execute("SELECT id, turns FROM sessions")}
        commits = int(conn.execute("SELECT value FROM meta WHERE key = 'change_counter'").fetchone()[0])
    finally:
        conn.close()
    return turns, commits


def check_store(
    bins: Path, home: Path, env: dict[str, str], ledgers: list[Ledger], dsn: str | None = None
) -> tuple[dict[str, int], int]:
    """Acknowledged writes missing from the store, per kind (read by the admin CLI after the server
    stopped), and the store's committed write transactions (meta.change_counter)."""
    listed = admin_json(bins, home, env, "atoms", "list", "--status", "all", "--limit", "100000")
    rows = listed["atoms"] if isinstance(listed, dict) else listed
    stored = {a["id"]: a for a in rows}
    facts = admin_json(bins, home, env, "facts", "show", "env")
    fact_texts = {e["content"] for view in facts for e in view["entries"]}
    lost: Counter[str] = Counter()
    for led in ledgers:
        for atom_id, text in led.atoms.items():
            got = stored.get(atom_id)
            lost["add_atom"] += got is None or got.get("text") != text or got.get("status") != "live"
        lost["add"] += sum(text not in fact_texts for text in led.facts)
    # Turn counts: one read-only query (no admin command lists a session's turns).
    turns, commits = store_counts(home, dsn)
    for led in ledgers:
        lost["observe"] += max(0, led.observes - turns.get(led.session, 0))
    return dict(lost), commits


async def run_n(
    n: int,
    calls: int,
    seed: int,
    mode: str,
    bins: Path,
    work: Path,
    rate: float,
    profile: Path | None = None,
    cluster: Cluster | None = None,
) -> dict[str, Any]:
    """One N on a fresh store: SQLite in a new folder, or with `cluster` a new PostgreSQL database."""
    from mcp import Client

    backend = "postgres" if cluster else "sqlite"
    home = work / f"home-{backend}-{n}"
    home.mkdir(mode=0o700, parents=True)
    dbname = cluster.new_database() if cluster else None
    dsn = cluster.dsn(dbname) if cluster and dbname else None
    store_env = {"MCP_MEMORY_STORE__BACKEND": "postgres", "MCP_MEMORY_STORE__DSN": dsn} if dsn else {}
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(work),
        "MCP_MEMORY_HOME": str(home),
        "MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "100000000",
        "MCP_MEMORY_FACTS__ENV_CAP": "100000000",
        "LANG": "C.UTF-8",
        **store_env,
    }
    port = free_port()
    log = (work / f"server-{backend}-{n}.log").open("wb")
    proc = subprocess.Popen(
        [str(bins / "trusted-memory"), "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        env=env,
        cwd=work,
    )
    out: dict[str, Any] = {"clients": n, "calls_per_client": calls, "backend": backend}
    db_cpu = partial(cluster.cpu_seconds, dbname) if cluster else (lambda: 0.0)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the server exited with {proc.returncode}; see {log.name}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not listen within 60 s") from None
                await asyncio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        ledgers = [Ledger(i) for i in range(n)]
        clients = [Client(url, mode=mode) for _ in range(n)]
        entered: list[Any] = []
        try:
            for c in clients:
                entered.append(await c.__aenter__())
            drivers = [Driver(c, led, ledgers, seed, rate) for c, led in zip(entered, ledgers, strict=True)]
            # Warm up: the first search loads the embedder and the index in the server.
            await drivers[0].call("warm", {"action": "search_atoms", "query": "warm up"})
            ledgers[0].latency.pop("warm", None)
            await settle(proc.pid, quiet_s=0.5, limit_s=120)
            phases: dict[str, dict[str, float]] = {}
            for name, work_of in (("floor", lambda d: d.floor()), ("load", lambda d: d.run(calls))):
                spy = start_profile(proc.pid, profile) if profile and name == "load" else None
                db0 = db_cpu()
                cpu0, t0, mine0 = cpu_seconds(proc.pid), time.perf_counter(), time.process_time()
                await asyncio.gather(*(work_of(d) for d in drivers))
                wall, mine = time.perf_counter() - t0, time.process_time() - mine0
                await settle(proc.pid)
                phases[name] = {
                    "cpu_s": cpu_seconds(proc.pid) - cpu0,
                    "db_cpu_s": db_cpu() - db0,
                    "wall_s": wall,
                    "client_cpu_s": mine,
                }
                if spy is not None:
                    spy.send_signal(signal.SIGINT)
                    spy.wait(timeout=60)
        finally:
            for c in reversed(entered):
                await c.__aexit__(None, None, None)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    lat: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    samples: dict[str, str] = {}
    for led in ledgers:
        for kind, values in led.latency.items():
            lat[kind] += values
        errors.update(led.errors)
        for k, v in led.samples.items():
            samples.setdefault(k, v)
    load_calls = sum(len(v) for k, v in lat.items() if k in WEIGHTS)
    out["latency_ms"] = dict(lat)
    out["errors"] = dict(errors)
    out["error_samples"] = samples
    out["cpu_ms_per_call"] = {
        "floor": phases["floor"]["cpu_s"] / (n * FLOOR_CALLS) * 1000,
        "load": phases["load"]["cpu_s"] / max(1, load_calls) * 1000,
    }
    out["db_cpu_ms_per_call"] = phases["load"]["db_cpu_s"] / max(1, load_calls) * 1000
    out["client_cpu_ms_per_call"] = phases["load"]["client_cpu_s"] / max(1, load_calls) * 1000
    out["load_wall_s"] = phases["load"]["wall_s"]
    out["load_calls"] = load_calls
    out["acknowledged"] = {
        "add_atom": sum(len(led.atoms) for led in ledgers),
        "observe": sum(led.observes for led in ledgers),
        "add": sum(len(led.facts) for led in ledgers),
    }
    out["search_found"] = (sum(led.found for led in ledgers), sum(led.searched for led in ledgers))
    out["lost"], out["commits"] = check_store(bins, home, env, ledgers, dsn)
    return out


def start_profile(pid: int, into: Path) -> subprocess.Popen[bytes]:
    """py-spy (if installed) sampling the server during the load phase, idle stacks included, as collapsed stacks."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    return subprocess.Popen(
        [spy, "record", "--pid", str(pid), "--idle", "--rate", "200", "--format", "raw", "--output", str(into)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def write_p50(r: dict[str, Any]) -> float:
    return percentile([v for k in WRITES for v in r["latency_ms"].get(k, [])], 50)


def write_p95(r: dict[str, Any]) -> float:
    return percentile([v for k in WRITES for v in r["latency_ms"].get(k, [])], 95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", default="1,16", help="comma-separated client counts (the first is the baseline)")
    parser.add_argument("--calls", type=int, default=60, help="mixed calls per client")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--mode", default="legacy", help="mcp.Client mode: legacy or auto")
    parser.add_argument("--bin", help="folder of the installed console scripts")
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    parser.add_argument(
        "--rate", type=float, default=0.0, help="calls per second per client, exponential gaps (0: back to back)"
    )
    parser.add_argument("--profile", type=Path, help="py-spy the server's load phase of the last N into this file")
    parser.add_argument("--backends", default="sqlite", help="comma-separated: sqlite, postgres (one after the other)")
    parser.add_argument("--pg-keep", type=Path, help="a folder for a PostgreSQL cluster kept running (see _pg.py)")
    args = parser.parse_args()
    bins = bin_dir(args.bin)
    work = Path(tempfile.mkdtemp(prefix="trusted-memory-team-"))
    results = []
    backends = [b for b in args.backends.split(",") if b]
    pg_settings = ""
    try:
        with ExitStack() as stack:
            cluster = stack.enter_context(Cluster(keep=args.pg_keep)) if "postgres" in backends else None
            if cluster is not None:
                sync, version = cluster.sql("SHOW synchronous_commit")[0][0], cluster.sql("SHOW server_version")[0][0]
                pg_settings = f"; PostgreSQL {version}, synchronous_commit={sync}"
            counts = [int(x) for x in args.clients.split(",") if x]
            for backend in backends:
                for n in counts:
                    profile = args.profile if n == counts[-1] else None
                    on = cluster if backend == "postgres" else None
                    results.append(
                        asyncio.run(run_n(n, args.calls, args.seed, args.mode, bins, work, args.rate, profile, on))
                    )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results))

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"## One shared server under a team's load — {machine()}, {today()}, load avg {load}\n")
    print(
        f"streamable HTTP, mcp.Client mode={args.mode}, {args.calls} mixed calls per client, "
        f"{f'{args.rate:g} calls/s per client (exponential gaps)' if args.rate else 'back to back'}; CPU = server "
        "utime+stime per call of the phase (/proc/<pid>/stat); db CPU = the PostgreSQL processes serving the "
        "store's database, per "
        f"call of the load phase (_pg.py); floor = tools/list, same server, same clients{pg_settings}\n"
    )
    rows = []
    for r in results:
        for kind in ("tools/list (floor)", *WEIGHTS):
            values = r["latency_ms"].get(kind, [])
            rows.append(
                (
                    r["backend"],
                    r["clients"],
                    kind,
                    len(values),
                    f"{percentile(values, 50):.1f}",
                    f"{percentile(values, 95):.1f}",
                    r["errors"].get(kind, 0),
                    r["lost"].get(kind, "") if kind in WRITES else "",
                )
            )
    print(table(("backend", "clients", "call", "n", "p50 ms", "p95 ms", "errors", "lost"), rows))
    print()
    summary = []
    for r in results:
        base = next(b for b in results if b["backend"] == r["backend"])
        found, searched = r["search_found"]
        summary.append(
            (
                r["backend"],
                r["clients"],
                f"{write_p50(r):.1f}",
                f"{write_p95(r):.1f}",
                f"{write_p50(r) / write_p50(base):.2f}",
                f"{r['cpu_ms_per_call']['floor']:.2f}",
                f"{r['cpu_ms_per_call']['load']:.2f}",
                f"{r['db_cpu_ms_per_call']:.2f}" if r["backend"] == "postgres" else "",
                f"{r['client_cpu_ms_per_call']:.2f}",
                f"{r['load_calls'] / r['load_wall_s']:.0f}",
                sum(r["errors"].values()),
                sum(r["lost"].values()),
                f"{found}/{searched}",
                f"{sum(r['acknowledged'].values()) / max(1, r['commits']):.2f}",
            )
        )
    print(
        table(
            (
                "backend",
                "clients",
                "write p50 ms",
                "write p95 ms",
                "× N=1 p50",
                "CPU ms/call floor",
                "CPU ms/call load",
                "db CPU ms/call load",
                "client CPU ms/call",
                "calls/s",
                "errors",
                "lost",
                "searches found",
                "writes per commit",
            ),
            summary,
        )
    )
    print()
    for backend in backends:
        mine = [r for r in results if r["backend"] == backend]
        base, last = mine[0], mine[-1]
        ok = (
            write_p50(last) <= 4 * write_p50(base)
            and write_p95(last) <= 100
            and not sum(last["errors"].values())
            and not any(sum(r["lost"].values()) for r in mine)
        )
        print(
            f"Target on {backend} at N={last['clients']}: write p50 ≤ 4 × N={base['clients']} p50, p95 ≤ 100 ms, "
            f"0 errors, 0 lost: {'✅' if ok else '❌'}"
        )
    for r in results:
        for kind, text in r["error_samples"].items():
            print(f"- {r['backend']} N={r['clients']} {kind} error: {text}")


if __name__ == "__main__":
    main()
