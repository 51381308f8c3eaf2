"""Several `trusted-memory` stdio servers and the admin CLI on ONE store: nothing acknowledged is lost.

    python stress/multi_server.py [--ops 10000] [--servers 4] [--seed 7] [--max-seconds 900]
                                  [--admin-interval 1.0] [--home DIR] [--bin DIR] [--postgres [--dsn DSN]]

N installed `trusted-memory` servers are started over stdio, each driven by its own SDK
`mcp.Client` task in this one asyncio program, all on one fresh store. Together they run --ops
mixed `memory` calls: add_atom (source user_said, a unique "[sK-NNNNN] I ..." text with a made-up
keyword), facts add/replace/remove on target env (cap raised through MCP_MEMORY_FACTS__ENV_CAP),
observe (one session per server), search_atoms (for another server's acknowledged atom),
context, and forget_atom of the server's own atoms. Meanwhile `trusted-memory-admin` runs every
--admin-interval seconds (stats, atoms list, pin, facts show, export, doctor), as a person would.

Every acknowledged write (a success result) is recorded. Afterwards:
  - every acknowledged atom is in `trusted-memory-admin --json atoms list --status all`, live, same
    text; every forgotten one is gone; every atom the admin pinned is pinned;
  - the env facts are exactly what the acknowledged adds/replaces/removes left, as the admin CLI
    and as every server's own `read` sees them;
  - each session's turn count equals its acknowledged observe calls (read through another server);
  - each server's search_atoms finds the latest and one earlier atom of every other server;
  - no error text containing "locked" or "busy" ever reached a caller (server or admin CLI), nor, on
    PostgreSQL, "deadlock detected", "could not serialize" or a lost connection;
  - `trusted-memory-admin doctor` is clean at the end.
With --postgres the store is a fresh PostgreSQL database instead of the folder's SQLite file: on a
throwaway cluster (tests/postgres_cluster.py), or on the server --dsn names (the run creates its
database there and drops it when the run passes); every server and admin CLI child gets it through
MCP_MEMORY_STORE__BACKEND / MCP_MEMORY_STORE__DSN.
Prints markdown tables; exits 1 on any violation. Bounded: --ops calls, --max-seconds for the op
phase, 60 s per call, 120 s per admin command; every child is stopped on the way out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    admin_json,
    bin_dir,
    child_env,
    error_kind,
    is_lock_error,
    machine,
    run_admin,
    table,
    token,
    use_postgres,
)
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.session import IncomingMessage

CALL_TIMEOUT_S = 60.0
ADMIN_TIMEOUT_S = 120.0
ENV_CAP = "100000000"
# Servers and the admin CLI share these settings (the doctor checks the facts against the caps).
EXTRA_ENV = {"MCP_MEMORY_FACTS__ENV_CAP": ENV_CAP}
# Relative weights of the server-side operations (writes: add_atom, add, replace, remove, observe, forget_atom).
WEIGHTS = {
    "add_atom": 30,
    "add": 16,
    "replace": 8,
    "remove": 6,
    "observe": 10,
    "search_atoms": 14,
    "context": 8,
    "forget_atom": 8,
}
WRITE_ACTIONS = ("add_atom", "add", "replace", "remove", "observe", "forget_atom")
ADMIN_CYCLE = ("stats", "atoms_list", "pin", "facts_show", "export", "pin", "doctor")
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
    "gitlab",
    "vault",
    "consul",
    "nomad",
    "kubernetes",
    "helm",
    "traefik",
    "caddy",
    "sentry",
    "celery",
    "rabbitmq",
    "elasticsearch",
    "kibana",
    "minio",
    "airflow",
    "spark",
    "flink",
    "dask",
    "ray",
    "pandas",
    "polars",
    "duckdb",
    "sqlite",
    "mysql",
    "mongodb",
    "cassandra",
    "etcd",
    "zookeeper",
    "haproxy",
    "envoy",
    "istio",
    "linkerd",
    "argo",
    "flux",
    "tekton",
    "bazel",
    "gradle",
    "maven",
    "cargo",
    "poetry",
    "npm",
    "pnpm",
    "yarn",
    "webpack",
    "vite",
    "esbuild",
    "rollup",
    "babel",
    "eslint",
    "prettier",
    "ruff",
    "black",
    "mypy",
    "pyright",
    "pytest",
    "tox",
    "nox",
]
VERBS = ("prefer", "like", "use", "chose", "rely on", "keep")
PLACES = ("staging", "production", "my laptop", "the build box", "the homelab", "CI", "the dev container")


@dataclass
class Ledger:
    """What one server's caller was told succeeded, and what went wrong."""

    index: int
    atoms: dict[str, str] = field(default_factory=dict)  # acknowledged live atoms: id -> text
    keep: list[str] = field(default_factory=list)  # ids never forgotten (the admin may pin them)
    temp: list[str] = field(default_factory=list)  # own ids that forget_atom may take
    forgotten: dict[str, str] = field(default_factory=dict)  # acknowledged forgets: id -> text
    facts: dict[str, str] = field(default_factory=dict)  # live env facts: tag -> content
    observes: int = 0
    acked: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    lock_errors: int = 0
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    searches: int = 0
    searches_found: int = 0

    @property
    def name(self) -> str:
        return f"s{self.index}"

    @property
    def session(self) -> str:
        return f"stress-{self.name}"

    def error(self, where: str, text: str) -> None:
        kind = error_kind(where, text)
        self.errors[kind] += 1
        self.samples.setdefault(kind, text[:400])
        if is_lock_error(text):
            self.lock_errors += 1


class Driver:
    """Runs one server's share of the operations through its SDK client."""

    def __init__(self, client: Client, ledger: Ledger, ledgers: list[Ledger], seed: int) -> None:
        self.client = client
        self.ledger = ledger
        self.ledgers = ledgers
        self.rng = random.Random(seed * 1000 + ledger.index)

    async def call(self, action: str, arguments: dict[str, Any], *, count: bool = True) -> dict[str, Any] | None:
        """Call `memory`; a success returns the structured result, anything else is recorded as an error."""
        led = self.ledger
        if count:
            led.calls[action] += 1
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(
                self.client.call_tool("memory", {"action": action, **arguments}), CALL_TIMEOUT_S
            )
        except Exception as exc:
            led.error(action, f"{type(exc).__name__}: {exc}")
            return None
        finally:
            if count:
                led.latency[action].append(time.perf_counter() - started)
        if result.is_error:
            led.error(action, "".join(getattr(c, "text", "") for c in result.content))
            return None
        return result.structured_content or {}

    def expect(self, action: str, data: dict[str, Any], status: str) -> bool:
        """A success with an unexpected status is an anomaly, counted like an error."""
        if data.get("status") == status:
            return True
        self.ledger.error(action, f"unexpected status {data.get('status')!r}: {data.get('message')}")
        return False

    def fact_text(self, i: int) -> str:
        a, b, c = self.rng.sample(NOUNS, 3)
        return (
            f"[{self.ledger.name}-{i:05d}] {token('fact', self.ledger.index, i)} {a} {b} {c} "
            f"port {self.rng.randint(1024, 65000)}"
        )

    async def run(self, ops: int, deadline: float) -> int:
        """Do `ops` operations (fewer if the deadline passes first); returns how many ran."""
        actions, weights = list(WEIGHTS), list(WEIGHTS.values())
        for i in range(ops):
            if time.monotonic() > deadline:
                return i
            action = self.rng.choices(actions, weights)[0]
            if action in ("replace", "remove") and not self.ledger.facts:
                action = "add"
            if action == "forget_atom" and not self.ledger.temp:
                action = "add_atom"
            await getattr(self, f"op_{action}")(i)
        return ops

    async def op_add_atom(self, i: int) -> None:
        led = self.ledger
        kind = "temp" if i % 3 == 0 else "keep"
        a, b = self.rng.sample(NOUNS, 2)
        text = (
            f"[{led.name}-{i:05d}] I {self.rng.choice(VERBS)} {a} over {b} on {self.rng.choice(PLACES)} "
            f"({kind} {token('atom', led.index, i)})"
        )
        data = await self.call("add_atom", {"content": text, "source": "user_said", "atom_type": "preference"})
        if data is None or not self.expect("add_atom", data, "added"):
            return
        atom = data["atom"]
        if atom.get("status") != "live" or atom.get("text") != text:
            led.error("add_atom", f"stored as {atom.get('status')!r} with text {atom.get('text')!r}")
            return
        led.atoms[atom["id"]] = text
        (led.temp if kind == "temp" else led.keep).append(atom["id"])
        led.acked["add_atom"] += 1

    async def op_add(self, i: int) -> None:
        text = self.fact_text(i)
        data = await self.call("add", {"target": "env", "content": text})
        if data is not None and self.expect("add", data, "added"):
            self.ledger.facts[f"[{self.ledger.name}-{i:05d}]"] = text
            self.ledger.acked["add"] += 1

    async def op_replace(self, i: int) -> None:
        led = self.ledger
        old = self.rng.choice(list(led.facts))
        text = self.fact_text(i)
        data = await self.call("replace", {"target": "env", "old_text": old, "content": text})
        if data is not None and self.expect("replace", data, "replaced"):
            del led.facts[old]
            led.facts[f"[{led.name}-{i:05d}]"] = text
            led.acked["replace"] += 1

    async def op_remove(self, i: int) -> None:
        led = self.ledger
        old = self.rng.choice(list(led.facts))
        data = await self.call("remove", {"target": "env", "old_text": old})
        if data is not None and self.expect("remove", data, "removed"):
            del led.facts[old]
            led.acked["remove"] += 1

    async def op_observe(self, i: int) -> None:
        led = self.ledger
        a = self.rng.choice(NOUNS)
        message = f"[{led.name}-{i:05d}] today we looked at the {a} set-up together ({token('obs', led.index, i)})"
        data = await self.call(
            "observe",
            {"session_id": led.session, "user_message": message, "assistant_reply": f"Reviewed the {a} configuration."},
        )
        if data is None or not self.expect("observe", data, "ok"):
            return
        led.observes += 1
        led.acked["observe"] += 1
        turns = (data.get("session") or {}).get("turns")
        if turns != led.observes:
            led.error("observe", f"session reports {turns} turns after {led.observes} acknowledged observes")

    async def op_search_atoms(self, i: int) -> None:
        # Look for an atom another server has acknowledged: it committed before this call began.
        others = [led for led in self.ledgers if led is not self.ledger and led.keep]
        if not others:
            await self.call("search_atoms", {"query": f"which {self.rng.choice(NOUNS)} set-up do I prefer"})
            return
        other = self.rng.choice(others)
        atom_id = self.rng.choice(other.keep[-50:])
        word = other.atoms[atom_id].rsplit(" ", 1)[1].rstrip(")")
        data = await self.call("search_atoms", {"query": word})
        if data is not None:
            self.ledger.searches += 1
            self.ledger.searches_found += atom_id in {h["id"] for h in data.get("hits", [])}

    async def op_context(self, i: int) -> None:
        data = await self.call(
            "context", {"message": f"what do I use {self.rng.choice(NOUNS)} for?", "session_id": self.ledger.session}
        )
        if data is not None:
            self.expect("context", data, "ok")

    async def op_forget_atom(self, i: int) -> None:
        led = self.ledger
        atom_id = led.temp.pop(self.rng.randrange(len(led.temp)))
        data = await self.call("forget_atom", {"id": atom_id})
        if data is not None and self.expect("forget_atom", data, "removed"):
            led.forgotten[atom_id] = led.atoms.pop(atom_id)
            led.acked["forget_atom"] += 1


@dataclass
class AdminLog:
    """The admin CLI's calls during the run."""

    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    lock_errors: int = 0
    pinned: set[str] = field(default_factory=set)
    seconds: list[float] = field(default_factory=list)
    doctor_findings: Counter[str] = field(default_factory=Counter)  # problems a mid-run doctor reported

    def error(self, where: str, text: str) -> None:
        kind = error_kind(f"admin {where}", text)
        self.errors[kind] += 1
        self.samples.setdefault(kind, text[:400])
        if is_lock_error(text):
            self.lock_errors += 1


async def admin_call(bin_path: Path, home: Path, *args: str) -> tuple[int, str, str]:
    """One `trusted-memory-admin` run as an asyncio subprocess (killed if it outlives its timeout)."""
    proc = await asyncio.create_subprocess_exec(
        str(bin_path / "trusted-memory-admin"),
        "--home",
        str(home),
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=child_env(home, EXTRA_ENV),
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), ADMIN_TIMEOUT_S)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


async def admin_loop(
    bin_path: Path,
    home: Path,
    work: Path,
    ledgers: list[Ledger],
    log: AdminLog,
    done: asyncio.Event,
    interval: float,
    rng: random.Random,
) -> None:
    """Run admin commands one after another until the servers finish (each bounded in time)."""
    step = 0
    while not done.is_set():
        what = ADMIN_CYCLE[step % len(ADMIN_CYCLE)]
        step += 1
        args: tuple[str, ...]
        if what == "stats":
            args = ("--json", "stats")
        elif what == "atoms_list":
            args = ("--json", "atoms", "list", "--status", "all", "--limit", "500")
        elif what == "facts_show":
            args = ("--json", "facts", "show", "env")
        elif what == "export":
            args = ("export", str(work / "export-during-run.jsonl"))
        elif what == "doctor":
            args = ("doctor",)
        else:
            candidates = [a for led in ledgers for a in led.keep[-200:] if a not in log.pinned]
            if candidates:
                args = ("--json", "pin", rng.choice(candidates))
            else:
                what, args = "stats", ("--json", "stats")
        log.calls[what] += 1
        started = time.perf_counter()
        try:
            code, out, err = await admin_call(bin_path, home, *args)
        except TimeoutError:
            log.error(what, f"timed out after {ADMIN_TIMEOUT_S}s")
            continue
        log.seconds.append(time.perf_counter() - started)
        if what == "doctor" and code == 1 and "problems remain" in out:
            # A finding about the store, not an error handed to a caller: reported on its own.
            log.doctor_findings.update(doctor_problems(out))
        elif code != 0:
            log.error(what, (err.strip() or out.strip() or f"exit {code}").splitlines()[-1])
        elif is_lock_error(err):
            log.lock_errors += 1
        elif what == "pin":
            log.pinned.add(args[-1])
        try:
            await asyncio.wait_for(done.wait(), interval)
        except TimeoutError:
            pass


def doctor_problems(report: str) -> list[str]:
    """The problem lines of a `doctor` report, numbers folded (e.g. 'vectors: N association(s) ...')."""
    lines = report.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith(("[FAIL]", "DAMAGED")):
            check = line.split()[1].rstrip(":")
            detail = lines[i + 1].strip() if i + 1 < len(lines) else ""
            out.append(error_kind(check, detail))
    return out or ["(problems remain)"]


@dataclass
class Verdict:
    """The after-run checks."""

    missing: Counter[str] = field(default_factory=Counter)
    details: list[str] = field(default_factory=list)
    visibility_passed: int = 0
    visibility_total: int = 0
    doctor_ok: bool = False

    def miss(self, kind: str, detail: str) -> None:
        self.missing[kind] += 1
        if len(self.details) < 30:
            self.details.append(f"{kind}: {detail}")


async def verify(
    bin_path: Path, home: Path, clients: list[Client], ledgers: list[Ledger], log: AdminLog, rng: random.Random
) -> Verdict:
    """Compare the store with what every caller was told."""
    v = Verdict()
    listed = admin_json(
        bin_path,
        home,
        "atoms",
        "list",
        "--status",
        "all",
        "--limit",
        "1000000",
        timeout=ADMIN_TIMEOUT_S,
        extra_env=EXTRA_ENV,
    )
    stored = {a["id"]: a for a in listed}
    for led in ledgers:
        for atom_id, text in led.atoms.items():
            atom = stored.get(atom_id)
            if atom is None:
                v.miss("atom missing", f"{led.name} {atom_id} {text}")
            elif atom["status"] != "live" or atom["text"] != text:
                v.miss("atom changed", f"{led.name} {atom_id}: {atom['status']} {atom['text']!r}")
        for atom_id, text in led.forgotten.items():
            if atom_id in stored:
                v.miss("forgotten atom still present", f"{led.name} {atom_id} {text}")
    for atom_id in log.pinned:
        if atom_id not in stored or not stored[atom_id]["pinned"]:
            v.miss("pin lost", atom_id)

    expected = {text for led in ledgers for text in led.facts.values()}
    shown = admin_json(bin_path, home, "facts", "show", "env", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)
    actual = {e["content"] for e in shown[0]["entries"]}
    for text in sorted(expected - actual):
        v.miss("fact missing", text)
    for text in sorted(actual - expected):
        v.miss("fact not removed/replaced", text)

    for led, client in zip(ledgers, clients):
        # The facts as each server reads them, and a session as another server reads it.
        v.visibility_total += 1
        read = await client.call_tool("memory", {"action": "read", "target": "env"})
        seen = {e["content"] for e in (read.structured_content or {}).get("entries", [])}
        if not read.is_error and seen == expected:
            v.visibility_passed += 1
        else:
            v.details.append(f"visibility: {led.name} reads {len(seen)} env facts, expected {len(expected)}")
    for k, led in enumerate(ledgers):
        reader = clients[(k + 1) % len(clients)]
        resource = await reader.read_resource(f"memory://sessions/{led.session}")
        turns = json.loads(resource.contents[0].text)["session"]["turns"]  # type: ignore[union-attr]
        if turns != led.observes:
            v.miss("observe turns", f"{led.session}: {turns} turns, {led.observes} acknowledged")

    for led, client in zip(ledgers, clients):
        for other in ledgers:
            if other is led or not other.keep:
                continue
            picks = [other.keep[-1]] + ([rng.choice(other.keep[:-1])] if len(other.keep) > 1 else [])
            for atom_id in picks:
                v.visibility_total += 1
                word = other.atoms[atom_id].rsplit(" ", 1)[1].rstrip(")")
                result = await client.call_tool("memory", {"action": "search_atoms", "query": word})
                hits = {h["id"] for h in (result.structured_content or {}).get("hits", [])}
                if not result.is_error and atom_id in hits:
                    v.visibility_passed += 1
                else:
                    v.details.append(f"visibility: {led.name} cannot find {other.name}'s {atom_id} ({word})")
    return v


def pct(values: list[float], q: float) -> float:
    """The q-quantile of `values` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(args: argparse.Namespace) -> int:
    if not args.postgres:
        return await run(args)
    pg = use_postgres(args.dsn)
    code = 1
    try:
        code = await run(args)
        return code
    finally:
        pg.finish(keep=bool(code or args.keep))


async def run(args: argparse.Namespace) -> int:
    bin_path = bin_dir(args.bin)
    work = Path(args.home).parent if args.home else Path(tempfile.mkdtemp(prefix="trusted-memory-stress-"))
    home = Path(args.home) if args.home else work / "home"
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    ledgers = [Ledger(k + 1) for k in range(args.servers)]
    share = [args.ops // args.servers + (1 if k < args.ops % args.servers else 0) for k in range(args.servers)]
    log = AdminLog()
    transport_errors: list[str] = []
    verdict = Verdict()
    elapsed = 0.0
    ran = [0] * args.servers
    print(f"store {home}; {args.servers} servers, {args.ops} ops; {machine()}", file=sys.stderr)

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            transport_errors.append(repr(message))

    async with AsyncExitStack() as stack:
        clients: list[Client] = []
        for led in ledgers:
            errlog = stack.enter_context((work / f"server-{led.name}.stderr").open("w"))
            params = StdioServerParameters(
                command=str(bin_path / "trusted-memory"),
                args=[],
                cwd=str(work),
                env=child_env(home, EXTRA_ENV),
            )
            clients.append(
                await stack.enter_async_context(Client(stdio_client(params, errlog=errlog), message_handler=on_message))
            )
        drivers = [Driver(c, led, ledgers, args.seed) for c, led in zip(clients, ledgers)]
        done = asyncio.Event()
        admin = asyncio.create_task(admin_loop(bin_path, home, work, ledgers, log, done, args.admin_interval, rng))
        started = time.monotonic()
        deadline = started + args.max_seconds
        try:
            ran = list(await asyncio.gather(*(d.run(n, deadline) for d, n in zip(drivers, share))))
            elapsed = time.monotonic() - started
        finally:
            done.set()
            await admin
        verdict = await verify(bin_path, home, clients, ledgers, log, rng)
    doctor = run_admin(bin_path, home, "doctor", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)
    verdict.doctor_ok = doctor.returncode == 0

    # --- report ---------------------------------------------------------------------------------
    total_ops = sum(ran)
    acked_writes = sum(sum(led.acked.values()) for led in ledgers) + len(log.pinned)
    errors: Counter[str] = Counter()
    samples: dict[str, str] = {}
    for led in ledgers:
        errors.update(led.errors)
        samples.update(led.samples)
    errors.update(log.errors)
    samples.update(log.samples)
    locked = sum(led.lock_errors for led in ledgers) + log.lock_errors
    tracebacks = logged_locks = 0
    for led in ledgers:
        text = (work / f"server-{led.name}.stderr").read_text(errors="replace")
        tracebacks += text.count("Traceback")
        logged_locks += sum(1 for line in text.splitlines() if is_lock_error(line))
    missing = sum(verdict.missing.values())
    searches = sum(led.searches for led in ledgers)
    found = sum(led.searches_found for led in ledgers)

    print(f"\n### multi_server: {args.servers} stdio servers + admin CLI on one store\n")
    print(f"{machine()}; seed {args.seed}; store {home}\n")
    print(
        table(
            (
                "servers",
                "ops",
                "seconds",
                "ops/s",
                "acknowledged writes",
                "missing",
                "errors",
                "lock/deadlock/serialization/connection errors seen",
                "cross-server visibility checks",
            ),
            [
                (
                    args.servers,
                    total_ops,
                    f"{elapsed:.1f}",
                    f"{total_ops / elapsed:.0f}" if elapsed else "-",
                    acked_writes,
                    missing,
                    sum(errors.values()),
                    locked,
                    f"{verdict.visibility_passed}/{verdict.visibility_total}",
                )
            ],
        )
    )
    print()
    acked = Counter[str]()
    for led in ledgers:
        acked.update(led.acked)
    print(
        table(
            ("acknowledged", *WRITE_ACTIONS, "admin pin"),
            [("writes", *(acked[a] for a in WRITE_ACTIONS), len(log.pinned))],
        )
    )
    print()
    calls = Counter[str]()
    lat: dict[str, list[float]] = defaultdict(list)
    for led in ledgers:
        calls.update(led.calls)
        for action, values in led.latency.items():
            lat[action].extend(values)
    print(
        table(
            ("action", "calls", "p50 ms", "p95 ms", "max ms"),
            [
                (
                    a,
                    calls[a],
                    f"{pct(lat[a], 0.5) * 1000:.1f}",
                    f"{pct(lat[a], 0.95) * 1000:.1f}",
                    f"{max(lat[a], default=0) * 1000:.0f}",
                )
                for a in WEIGHTS
                if calls[a]
            ],
        )
    )
    print()
    print(
        table(
            ("admin command", "runs"),
            [(c, n) for c, n in sorted(log.calls.items())]
            + [("(median s per run)", f"{statistics.median(log.seconds):.2f}" if log.seconds else "-")],
        )
    )
    print()
    print(f"searches for another server's acknowledged atom during the run: {found}/{searches} found")
    print(
        f"doctor at the end: {'clean' if verdict.doctor_ok else 'PROBLEMS (below)'}; server stderr tracebacks: "
        f"{tracebacks}; server stderr lines about locks: {logged_locks}; non-protocol stdout lines: "
        f"{len(transport_errors)}"
    )
    if log.doctor_findings:
        runs = log.calls["doctor"]
        print(
            f"doctor during the run reported problems {sum(log.doctor_findings.values())} time(s) in {runs} run(s): "
            + "; ".join(f"{k} (x{n})" for k, n in log.doctor_findings.items())
        )
    if not verdict.doctor_ok:
        print("doctor at the end: " + "; ".join(doctor_problems(doctor.stdout)))
    if errors:
        print()
        print(
            table(
                ("errors by kind", "count", "sample"),
                [(k, n, samples.get(k, "")[:160]) for k, n in errors.most_common()],
            )
        )
    if verdict.missing:
        print()
        print(table(("missing by kind", "count"), list(verdict.missing.items())))
    for line in verdict.details[:30]:
        print(f"  - {line}")

    violations = []
    if missing:
        violations.append(f"{missing} acknowledged write(s) not reflected")
    if locked:
        violations.append(f"lock, deadlock, serialization or connection errors reached a caller {locked} time(s)")
    if sum(errors.values()):
        violations.append(f"{sum(errors.values())} error(s)")
    if verdict.visibility_passed != verdict.visibility_total:
        violations.append("cross-server visibility failed")
    if not verdict.doctor_ok:
        violations.append("doctor not clean")
    if transport_errors or tracebacks:
        violations.append("server wrote tracebacks or non-protocol output")
    if total_ops < args.ops:
        violations.append(f"only {total_ops} of {args.ops} ops ran within --max-seconds {args.max_seconds}")
    print()
    print("VIOLATIONS: " + "; ".join(violations) if violations else "OK: no violations.")
    if not args.keep and not args.home and not violations:
        shutil.rmtree(work, ignore_errors=True)
    elif violations:
        print(f"(store and server logs kept in {work})")
    return 1 if violations else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000, help="total memory calls across all servers")
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-seconds", type=float, default=900.0, help="bound of the op phase")
    parser.add_argument("--admin-interval", type=float, default=1.0, help="pause between admin CLI runs (s)")
    parser.add_argument("--home", help="store folder (default: a fresh temporary one)")
    parser.add_argument("--bin", help="folder of the installed console scripts (default: next to python)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store")
    parser.add_argument("--postgres", action="store_true", help="store on PostgreSQL (a throwaway cluster, or --dsn)")
    parser.add_argument("--dsn", help="with --postgres: a PostgreSQL server to create the run's database on")
    args = parser.parse_args(argv)
    if args.dsn and not args.postgres:
        parser.error("--dsn goes with --postgres")
    if args.servers < 2 or args.ops < args.servers:
        parser.error("need --servers >= 2 and --ops >= --servers")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
