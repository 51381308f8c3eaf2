"""SIGKILL the server mid-write, and the admin CLI mid-import: acknowledged writes survive, the
store stays clean, and an import is all or nothing.

    python stress/kill9.py [--rounds 5] [--import-rounds 3] [--entities 6000] [--seed 11]
                           [--min-acked 20] [--max-acked 400] [--window 4] [--home DIR] [--bin DIR]
                           [--peers 0] [--postgres [--dsn DSN]]

Server rounds (one store, accumulating): `trusted-memory` is started over stdio by this script (so the
pid is the server's own) and spoken to in raw JSON-RPC with up to --window calls in flight:
add_atom (user_said, unique text), facts add / replace / remove on target env. After a random
number of acknowledged writes (--min-acked..--max-acked) plus a random 0-30 ms, the server gets
SIGKILL. Calls in flight at that moment have no known outcome (either is accepted); every
acknowledged one must hold. Then:
  - `trusted-memory-admin doctor` exits 0 (WAL recovery leaves no damage or inconsistency);
  - every acknowledged atom is listed with its text, every acknowledged fact change is reflected,
    in-flight ones are fully applied or not at all, and no fact appears that nobody wrote;
  - a restarted server answers: stats, a new add_atom, and a search that finds it.
With --peers N, N more servers add atoms on the same store through each round: each must get no
error, 3 acknowledgements within 15 s of the kill (not stalled behind the dead server's open
transaction), exit 0 when stopped, and keep every atom it was told about.
Import rounds (a separate store): `trusted-memory-admin import FILE --yes` of a reference-graph file
of --entities entities (default 6000: a transaction of ~1.5 s here) is killed at a random moment
while its write transaction is open (another connection's BEGIN IMMEDIATE finds the write lock
held); afterwards the file's atoms are all there or none, the import event exists exactly when they
are, doctor is clean, and re-running the import completes it.
With --postgres each store is a fresh PostgreSQL database (on a throwaway cluster, or on the server
--dsn names), passed to every server and admin CLI child; "holds the write lock" is then "holds the
store's advisory write lock" (pg_locks), and recovery is PostgreSQL ending the killed client's
backend, which rolls its open transaction back. Any error a caller gets, "deadlock detected", "could
not serialize" and a lost connection included, is a violation.
Prints markdown tables; exits 1 on any violation. Bounded: 60 s per round of writes, 30 s per
response, 120 s per admin command; every child is reaped in `finally`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _common
from _common import (
    RawStdioServer,
    ServerGone,
    admin_json,
    bin_dir,
    child_env,
    machine,
    run_admin,
    stop_process,
    table,
    token,
    tool_result,
    use_postgres,
)

ROUND_SECONDS = 60.0
RESPONSE_TIMEOUT_S = 30.0
PEER_GRACE_S = 15.0  # how long after a kill each peer has to get 3 more acknowledgements
ADMIN_TIMEOUT_S = 120.0
IMPORT_TIMEOUT_S = 300.0
# Every process on the store shares these settings (the facts cap is raised so adds never run out).
EXTRA_ENV = {"MCP_MEMORY_FACTS__ENV_CAP": "100000000"}
NOUNS = [
    "kafka",
    "redis",
    "postgres",
    "nginx",
    "docker",
    "terraform",
    "grafana",
    "jenkins",
    "vault",
    "consul",
    "helm",
    "caddy",
    "sentry",
    "celery",
    "minio",
    "airflow",
    "spark",
    "dask",
    "polars",
    "duckdb",
    "sqlite",
    "mysql",
    "etcd",
    "envoy",
    "argo",
    "bazel",
    "gradle",
    "cargo",
    "poetry",
    "vite",
    "rollup",
    "eslint",
    "ruff",
    "mypy",
    "pytest",
    "tox",
]


@dataclass
class Op:
    """One write in flight: what it would change if it committed."""

    action: str
    text: str = ""  # add_atom text, or the facts content it writes
    tag: str = ""  # facts: the tag of the entry it adds / replaces / removes
    new_tag: str = ""  # replace: the tag of the new content
    old: str = ""  # replace/remove: the content before


@dataclass
class Model:
    """What the store must hold after acknowledged writes (and may hold after unknown ones)."""

    atoms: dict[str, str] = field(default_factory=dict)  # acknowledged: id -> text
    facts: dict[str, str] = field(default_factory=dict)  # acknowledged live facts: tag -> content
    gone: set[str] = field(default_factory=set)  # contents acknowledged replaced/removed
    unknown: list[Op] = field(default_factory=list)  # in flight when the server died
    busy: set[str] = field(default_factory=set)  # fact tags with a call in flight


class Writer:
    """Drives one server with a window of pipelined writes until it dies (or the round ends)."""

    def __init__(self, server: RawStdioServer, model: Model, rng: random.Random, round_no: int, window: int) -> None:
        self.server, self.model, self.rng, self.round, self.window = server, model, rng, round_no, window
        self.inflight: dict[int, Op] = {}
        self.acked = 0
        self.errors: list[str] = []
        self.seq = 0

    def _fact(self, tag: str) -> str:
        a, b, c = self.rng.sample(NOUNS, 3)
        return f"{tag} {token('k9fact', tag)} {a} {b} {c} port {self.rng.randint(1024, 65000)}"

    def _send_one(self) -> None:
        self.seq += 1
        tag = f"[r{self.round}-{self.seq:05d}]"
        free = [t for t in self.model.facts if t not in self.model.busy]
        roll = self.rng.random()
        if roll < 0.45:
            text = (
                f"{tag} I {self.rng.choice(('prefer', 'use', 'like'))} {self.rng.choice(NOUNS)} "
                f"({token('k9atom', tag)})"
            )
            op, args = Op("add_atom", text=text), {"action": "add_atom", "content": text, "source": "user_said"}
        elif roll < 0.75 or len(free) < 3:
            text = self._fact(tag)
            op, args = Op("add", text=text, tag=tag), {"action": "add", "target": "env", "content": text}
        elif roll < 0.9:
            old_tag = self.rng.choice(free)
            text = self._fact(tag)
            op = Op("replace", text=text, tag=old_tag, new_tag=tag, old=self.model.facts[old_tag])
            args = {"action": "replace", "target": "env", "old_text": old_tag, "content": text}
        else:
            old_tag = self.rng.choice(free)
            op = Op("remove", tag=old_tag, old=self.model.facts[old_tag])
            args = {"action": "remove", "target": "env", "old_text": old_tag}
        if op.action in ("replace", "remove"):
            self.model.busy.add(op.tag)
        rid = self.server.send("tools/call", {"name": "memory", "arguments": args})
        self.inflight[rid] = op

    def _settle(self, op: Op, msg: dict[str, Any]) -> None:
        is_error, data, text = tool_result(msg)
        m = self.model
        m.busy.discard(op.tag)
        expected = {"add_atom": "added", "add": "added", "replace": "replaced", "remove": "removed"}[op.action]
        if is_error or data.get("status") != expected:
            self.errors.append(f"{op.action}: {text[:200] if is_error else data.get('status')}")
            return
        self.acked += 1
        if op.action == "add_atom":
            m.atoms[data["atom"]["id"]] = op.text
        elif op.action == "add":
            m.facts[op.tag] = op.text
        elif op.action == "replace":
            m.gone.add(m.facts.pop(op.tag))
            m.facts[op.new_tag] = op.text
        else:
            m.gone.add(m.facts.pop(op.tag))

    def run(self, reached_at: int, reached: threading.Event, deadline: float) -> None:
        """Write until the server's stdout closes; sets `reached` after `reached_at` acknowledgements."""
        try:
            while time.monotonic() < deadline:
                while len(self.inflight) < self.window:
                    self._send_one()
                msg = self.server.receive(RESPONSE_TIMEOUT_S)
                op = self.inflight.pop(msg.get("id"), None)  # type: ignore[arg-type]
                if op is not None:
                    self._settle(op, msg)
                    if self.acked >= reached_at:
                        reached.set()
        except ServerGone:
            pass
        # Whatever was in flight when the server died may or may not have committed.
        self.model.unknown.extend(self.inflight.values())
        self.model.busy.clear()


def check_store(bin_path: Path, home: Path, model: Model) -> tuple[list[str], dict[str, int]]:
    """Compare the store with the model; fold in-flight outcomes into it. Returns (violations, counts)."""
    problems: list[str] = []
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
    texts = {a["id"]: a["text"] for a in listed}
    missing_atoms = [i for i, t in model.atoms.items() if texts.get(i) != t]
    problems += [f"acknowledged atom {i} missing" for i in missing_atoms[:10]]
    shown = admin_json(bin_path, home, "facts", "show", "env", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)
    actual = {e["content"] for e in shown[0]["entries"]}
    # An entry that an in-flight replace/remove targeted may be gone: that call is judged below.
    targeted = {op.tag for op in model.unknown if op.action in ("replace", "remove")}
    missing_facts = [t for tag, t in model.facts.items() if t not in actual and tag not in targeted]
    resurrected = [t for t in model.gone if t in actual]
    problems += [f"acknowledged fact missing: {t}" for t in missing_facts[:10]]
    problems += [f"acknowledged remove/replace undone: {t}" for t in resurrected[:10]]
    applied = 0
    for op in model.unknown:
        if op.action == "add_atom":
            committed = op.text in texts.values()
            if committed:
                model.atoms[next(i for i, t in texts.items() if t == op.text)] = op.text
        elif op.action == "add":
            committed = op.text in actual
            if committed:
                model.facts[op.tag] = op.text
        elif op.action == "replace":
            before, after = op.old in actual, op.text in actual
            if before == after:
                problems.append(f"in-flight replace half applied: old {before}, new {after}: {op.old}")
            committed = after
            if committed:
                model.gone.add(model.facts.pop(op.tag))
                model.facts[op.new_tag] = op.text
        else:
            committed = op.old not in actual
            if committed:
                model.gone.add(model.facts.pop(op.tag))
        applied += committed
    expected = set(model.facts.values())
    phantoms = sorted(actual - expected)
    problems += [f"fact nobody acknowledged or had in flight: {t}" for t in phantoms[:10]]
    counts = {
        "atoms": len(model.atoms),
        "facts": len(expected),
        "in_flight": len(model.unknown),
        "in_flight_applied": applied,
        "missing": len(missing_atoms) + len(missing_facts) + len(resurrected),
    }
    model.unknown.clear()
    return problems, counts


def answers_again(bin_path: Path, home: Path, model: Model, work: Path, round_no: int) -> list[str]:
    """A restarted server does its handshake, a read, a write, and finds that write."""
    problems: list[str] = []
    with (work / f"restart-{round_no}.stderr").open("wb") as err:
        server = RawStdioServer(bin_path, home, err, extra_env=EXTRA_ENV)
        try:
            server.initialize()
            is_error, _, text = server.call({"action": "stats"})
            if is_error:
                problems.append(f"stats after restart: {text[:200]}")
            word = token("k9probe", round_no)
            content = f"[probe-{round_no}] I keep backups of the {word} notebook"
            is_error, data, text = server.call({"action": "add_atom", "content": content, "source": "user_said"})
            if is_error:
                problems.append(f"add_atom after restart: {text[:200]}")
            else:
                model.atoms[data["atom"]["id"]] = content
                is_error, data, text = server.call({"action": "search_atoms", "query": word})
                if is_error or content not in [h["text"] for h in data.get("hits", [])]:
                    problems.append(f"search after restart did not find the new atom: {text[:200]}")
        except (ServerGone, TimeoutError) as exc:
            problems.append(f"restarted server did not answer: {exc}")
        finally:
            server.close()
        if server.proc.returncode != 0:
            problems.append(f"restarted server exited {server.proc.returncode} on a clean shutdown")
    return problems


class Peer:
    """Another server on the store (--peers), adding atoms one call at a time while a round's server is
    killed: the dead server's open transaction must not stall it, nor hand it an error."""

    def __init__(self, bin_path: Path, home: Path, err: Any, name: str) -> None:
        self.server = RawStdioServer(bin_path, home, err, extra_env=EXTRA_ENV)
        self.name = name
        self.acked: dict[str, str] = {}
        self.ack_times: list[float] = []
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.stop = threading.Event()

    def start(self) -> None:
        self.server.initialize()
        self.thread.start()

    def _run(self) -> None:
        seq = 0
        try:
            while not self.stop.is_set():
                seq += 1
                text = f"[{self.name}-{seq:05d}] I use {NOUNS[seq % len(NOUNS)]} ({token('k9peer', self.name, seq)})"
                is_error, data, reply = self.server.call(
                    {"action": "add_atom", "content": text, "source": "user_said"}, timeout=RESPONSE_TIMEOUT_S
                )
                if is_error or data.get("status") != "added":
                    self.errors.append(f"add_atom: {reply[:200] if is_error else data.get('status')}")
                    continue
                self.acked[data["atom"]["id"]] = text
                self.ack_times.append(time.monotonic())
        except (ServerGone, TimeoutError) as exc:
            self.errors.append(f"peer {self.name} stopped answering: {exc}")

    def acks_after(self, moment: float) -> int:
        return sum(1 for t in list(self.ack_times) if t > moment)

    def finish(self) -> int | None:
        """Stop writing, shut the server down cleanly; its exit code."""
        self.stop.set()
        self.thread.join(timeout=RESPONSE_TIMEOUT_S + 5)
        self.server.close()
        return self.server.proc.returncode


def kill_when(
    server: RawStdioServer,
    reached: threading.Event,
    stop: threading.Event,
    delay: float,
    started: float,
    killed_at: list[float],
) -> None:
    """(In a thread) SIGKILL the server `delay` seconds after `reached` is set, unless stopped first."""
    while not stop.is_set():
        if reached.wait(0.05):
            time.sleep(delay)
            killed_at.append(time.monotonic() - started)
            server.kill9()
            return


def server_rounds(
    args: argparse.Namespace, bin_path: Path, home: Path, work: Path, rng: random.Random
) -> tuple[list[tuple[Any, ...]], list[str]]:
    model = Model()
    rows: list[tuple[Any, ...]] = []
    violations: list[str] = []
    for round_no in range(1, args.rounds + 1):
        target = rng.randint(args.min_acked, args.max_acked)
        delay = rng.uniform(0.0, 0.03)
        reached = threading.Event()
        stop_killer = threading.Event()
        killed_at: list[float] = []
        peers: list[Peer] = []
        peer_problems: list[str] = []
        server: RawStdioServer | None = None
        thread: threading.Thread | None = None
        with ExitStack() as files:
            try:
                # The peers first (their processes start side by side), so the round's server is killed
                # while they write, and its timings do not count their start-up.
                for k in range(args.peers):
                    peer_err = files.enter_context((work / f"peer-{round_no}-{k + 1}.stderr").open("wb"))
                    peers.append(Peer(bin_path, home, peer_err, f"p{round_no}.{k + 1}"))
                for peer in peers:
                    peer.start()
                err = files.enter_context((work / f"server-{round_no}.stderr").open("wb"))
                server = RawStdioServer(bin_path, home, err, extra_env=EXTRA_ENV)
                spawned = time.monotonic()
                thread = threading.Thread(
                    target=kill_when,
                    args=(server, reached, stop_killer, delay, spawned, killed_at),
                    daemon=True,
                )
                writer = Writer(server, model, rng, round_no, args.window)
                server.initialize()
                thread.start()
                writer.run(target, reached, time.monotonic() + ROUND_SECONDS)
                # The peers go on writing after the kill: each must get acknowledgements past it.
                if killed_at and peers:
                    moment = spawned + killed_at[0]
                    wait_until = time.monotonic() + PEER_GRACE_S
                    while time.monotonic() < wait_until and any(p.acks_after(moment) < 3 for p in peers):
                        time.sleep(0.05)
                    peer_problems += [
                        f"peer {p.name} had {p.acks_after(moment)} acknowledgement(s) in {PEER_GRACE_S:.0f} s "
                        "after the kill (stalled behind the dead server?)"
                        for p in peers
                        if p.acks_after(moment) < 3
                    ]
            finally:
                stop_killer.set()
                if thread is not None and thread.is_alive():
                    thread.join(timeout=5)
                if server is not None:
                    if not killed_at:
                        server.kill9()  # the round ran out of time: still a crash, never a clean stop
                    server.close()
                for peer in peers:
                    peer.stop.set()
                for peer in peers:
                    peer_code = peer.finish()
                    if peer_code != 0:
                        peer_problems.append(f"peer {peer.name} exited {peer_code} on a clean shutdown")
        assert server is not None
        code = server.proc.returncode
        problems: list[str] = []
        if code != -signal.SIGKILL:
            problems.append(f"server ended with {code}, not by our SIGKILL")
        problems += [f"error returned: {e}" for e in writer.errors[:5]]
        for peer in peers:
            problems += [f"peer {peer.name} error returned: {e}" for e in peer.errors[:5]]
            model.atoms.update(peer.acked)  # check_store below finds every acknowledged peer atom too
        problems += peer_problems
        doctor = run_admin(bin_path, home, "doctor", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)
        if doctor.returncode != 0:
            problems.append(
                "doctor after the crash: "
                + " / ".join(
                    line.strip()
                    for line in doctor.stdout.splitlines()
                    if "FAIL" in line or "DAMAGED" in line or "problem" in line
                )[:300]
            )
        in_flight = len(model.unknown)
        store_problems, counts = check_store(bin_path, home, model)
        problems += store_problems
        problems += answers_again(bin_path, home, model, work, round_no)
        violations += [f"round {round_no}: {p}" for p in problems]
        rows.append(
            (
                round_no,
                writer.acked,
                in_flight,
                counts["in_flight_applied"],
                f"{killed_at[0] * 1000:.0f}" if killed_at else "timeout",
                counts["missing"],
                "clean" if doctor.returncode == 0 else "PROBLEMS",
                "yes" if not any("restart" in p for p in problems) else "NO",
                "ok" if not problems else f"{len(problems)} problem(s)",
            )
            + (
                (
                    sum(len(p.acked) for p in peers),
                    sum(p.acks_after(spawned + killed_at[0]) for p in peers) if killed_at else 0,
                )
                if peers
                else ()
            )
        )
    return rows, violations


# --- the admin CLI killed mid-import ------------------------------------------------------------


def graph_file(path: Path, marker: str, entities: int) -> None:
    """A reference memory-server graph: `entities` entities of one observation each."""
    with path.open("w", encoding="utf-8") as fh:
        for k in range(entities):
            name = f"{marker}-{k:05d}"
            fh.write(
                json.dumps(
                    {
                        "type": "entity",
                        "name": name,
                        "entityType": "service",
                        "observations": [f"runs {NOUNS[k % len(NOUNS)]} ({token(marker, k)})"],
                    }
                )
                + "\n"
            )


class WriteLockProbe:
    """Tells whether some process holds the store's write lock (is inside a write transaction).

    It tries BEGIN IMMEDIATE without waiting and rolls straight back; a writer that collides
    with the probe just waits a moment on its busy timeout.
    """

    def __init__(self, home: Path) -> None:
        self.conn = sqlite3.connect(str(home / "memory.db"), timeout=0, isolation_level=None)

    def held(self) -> bool:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return True
            raise
        self.conn.execute("ROLLBACK")
        return False

    def close(self) -> None:
        self.conn.close()


class PgWriteLockProbe:
    """The same question on PostgreSQL: does any backend hold the store's advisory write lock?

    Every write transaction of the store takes it first (PgStore.write), so it is held exactly while a
    write transaction is open; looking at pg_locks takes no lock and never gets in a writer's way.
    """

    def __init__(self, dsn: str) -> None:
        import psycopg

        from trusted_memory.store.postgres.db import WRITE_LOCK

        self.conn = psycopg.connect(dsn, autocommit=True)
        # An advisory lock on one bigint key shows in pg_locks as classid (high half), objid (low half), objsubid 1.
        self.key = (WRITE_LOCK >> 32, WRITE_LOCK & 0xFFFFFFFF)

    def held(self) -> bool:
        row = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
            "AND classid::bigint = %s AND objid::bigint = %s "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
            self.key,
        ).fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        self.conn.close()


def write_lock_probe(home: Path) -> WriteLockProbe | PgWriteLockProbe:
    """The probe for the store of `home` on the run's backend."""
    if _common.PG is not None:
        return PgWriteLockProbe(_common.PG.dsn(home))
    return WriteLockProbe(home)


def run_import(bin_path: Path, home: Path, path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(bin_path / "trusted-memory-admin"), "--home", str(home), "import", str(path), "--yes"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_env(home, EXTRA_ENV),
    )


def wait_for_transaction(
    proc: subprocess.Popen[bytes], probe: WriteLockProbe | PgWriteLockProbe, timeout: float
) -> float | None:
    """Seconds until the import holds the write lock (None if it finished first)."""
    started = time.monotonic()
    while proc.poll() is None:
        if probe.held():
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise TimeoutError("the import never took the write lock")
        time.sleep(0.003)
    return None


def imported(bin_path: Path, home: Path, marker: str, path: Path) -> tuple[int, int]:
    """(atoms of this marker in the store, import events of this file)."""
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
    atoms = sum(1 for a in listed if a["text"].startswith(f"{marker}-"))
    events = admin_json(
        bin_path,
        home,
        "audit",
        "--kind",
        "import",
        "--subject",
        f"import:{path}",
        "--limit",
        "1000",
        timeout=ADMIN_TIMEOUT_S,
        extra_env=EXTRA_ENV,
    )
    return atoms, len(events)


def import_rounds(
    args: argparse.Namespace, bin_path: Path, work: Path, rng: random.Random
) -> tuple[list[tuple[Any, ...]], list[str], str]:
    rows: list[tuple[Any, ...]] = []
    violations: list[str] = []
    # Calibrate on a scratch store: how long the import holds its write transaction.
    scratch = work / "calibrate-home"
    sample = work / "calibrate.jsonl"
    graph_file(sample, "calib", args.entities)
    run_admin(
        bin_path, scratch, "stats", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV
    )  # create it (the probe opens an existing file)
    probe = write_lock_probe(scratch)
    proc = run_import(bin_path, scratch, sample)
    try:
        began = wait_for_transaction(proc, probe, IMPORT_TIMEOUT_S)
        started = time.monotonic()
        proc.wait(timeout=IMPORT_TIMEOUT_S)
        held = time.monotonic() - started
    finally:
        probe.close()
        stop_process(proc)
        if proc.stderr is not None:
            proc.stderr.close()
    if proc.returncode != 0 or began is None:
        return rows, [f"calibration import failed (exit {proc.returncode}, lock seen: {began is not None})"], ""
    calibration = (
        f"uninterrupted import of {args.entities} entities: write lock taken after {began:.2f} s, "
        f"then {held:.2f} s to the end"
    )
    home = work / "import-home"
    run_admin(bin_path, home, "stats", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)  # create the store first
    for round_no in range(1, args.import_rounds + 1):
        marker = f"imp{round_no}"
        path = work / f"{marker}.jsonl"
        graph_file(path, marker, args.entities)
        probe = write_lock_probe(home)
        proc = run_import(bin_path, home, path)
        problems: list[str] = []
        try:
            started = time.monotonic()
            began = wait_for_transaction(proc, probe, IMPORT_TIMEOUT_S)
            time.sleep(rng.uniform(0.0, held * 0.8))
            holding = probe.held()  # checked just before the kill: the transaction is still open
            alive = proc.poll() is None
            if alive:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            killed_after = time.monotonic() - started
        finally:
            probe.close()
            stop_process(proc)
            if proc.stderr is not None:
                proc.stderr.close()
        atoms, events = imported(bin_path, home, marker, path)
        outcome = (
            "none" if atoms == 0 and events == 0 else "all" if atoms == args.entities and events == 1 else "PARTIAL"
        )
        state = (
            "finished before the kill"
            if not alive
            else "killed inside its transaction"
            if holding and outcome == "none"
            else "killed after commit"
            if outcome == "all"
            else "killed"
        )
        if outcome == "PARTIAL":
            problems.append(f"import half applied: {atoms} of {args.entities} atoms, {events} import event(s)")
        doctor = run_admin(bin_path, home, "doctor", timeout=ADMIN_TIMEOUT_S, extra_env=EXTRA_ENV)
        if doctor.returncode != 0:
            problems.append("doctor after the kill: " + doctor.stdout[-300:])
        redo = run_admin(bin_path, home, "import", str(path), "--yes", timeout=IMPORT_TIMEOUT_S, extra_env=EXTRA_ENV)
        after, _ = imported(bin_path, home, marker, path)
        if redo.returncode != 0 or after != args.entities:
            problems.append(
                f"re-import: exit {redo.returncode}, {after} of {args.entities} atoms; {redo.stderr[-200:]}"
            )
        violations += [f"import round {round_no}: {p}" for p in problems]
        rows.append(
            (
                round_no,
                args.entities,
                "-" if began is None else f"{began:.2f}",
                f"{killed_after:.2f}",
                state,
                outcome,
                atoms,
                "clean" if doctor.returncode == 0 else "PROBLEMS",
                "ok" if not problems else "; ".join(problems)[:120],
            )
        )
    return rows, violations, calibration


def main(args: argparse.Namespace) -> int:
    if not args.postgres:
        return run(args)
    pg = use_postgres(args.dsn)
    code = 1
    try:
        code = run(args)
        return code
    finally:
        pg.finish(keep=bool(code or args.keep))


def run(args: argparse.Namespace) -> int:
    bin_path = bin_dir(args.bin)
    work = Path(args.home).parent if args.home else Path(tempfile.mkdtemp(prefix="trusted-memory-kill9-"))
    home = Path(args.home) if args.home else work / "home"
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    started = time.monotonic()
    rows, violations = server_rounds(args, bin_path, home, work, rng)
    server_seconds = time.monotonic() - started
    peers = f", {args.peers} peer servers writing through each kill" if args.peers else ""
    print(f"\n### kill9: SIGKILL the stdio server mid-write ({args.rounds} rounds, one store{peers})\n")
    print(f"{machine()}; seed {args.seed}; window {args.window}; {server_seconds:.1f} s\n")
    print(
        table(
            (
                "round",
                "acknowledged writes",
                "in flight at kill",
                "in-flight applied",
                "killed after ms (from spawn)",
                "acknowledged missing",
                "doctor",
                "answers again",
                "result",
            )
            + (("peer atoms acknowledged", "of them after the kill") if args.peers else ()),
            rows,
        )
    )
    if args.import_rounds:
        started = time.monotonic()
        irows, iviolations, calibration = import_rounds(args, bin_path, work, rng)
        violations += iviolations
        print(f"\n### kill9: SIGKILL `trusted-memory-admin import` mid-transaction ({args.import_rounds} rounds)\n")
        print(f"{calibration}; {time.monotonic() - started:.1f} s\n")
        print(
            table(
                (
                    "round",
                    "entities",
                    "write lock seen at s",
                    "killed at s",
                    "state",
                    "outcome",
                    "atoms after kill",
                    "doctor",
                    "result (re-import completes)",
                ),
                irows,
            )
        )
    print()
    print("VIOLATIONS:\n  " + "\n  ".join(violations) if violations else "OK: no violations.")
    if not args.keep and not args.home and not violations:
        shutil.rmtree(work, ignore_errors=True)
    elif violations:
        print(f"(stores and logs kept in {work})")
    return 1 if violations else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="server kill rounds")
    parser.add_argument("--import-rounds", type=int, default=3, help="admin import kill rounds (0: none)")
    parser.add_argument("--entities", type=int, default=6000, help="entities in each import file")
    parser.add_argument("--min-acked", type=int, default=20)
    parser.add_argument("--max-acked", type=int, default=400)
    parser.add_argument("--window", type=int, default=4, help="calls in flight at once")
    parser.add_argument(
        "--peers", type=int, default=0, help="other servers adding atoms on the store through each kill (default 0)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--home", help="store folder of the server rounds (default: a fresh temporary one)")
    parser.add_argument("--bin", help="folder of the installed console scripts (default: next to python)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary stores")
    parser.add_argument("--postgres", action="store_true", help="stores on PostgreSQL (a throwaway cluster, or --dsn)")
    parser.add_argument("--dsn", help="with --postgres: a PostgreSQL server to create the run's databases on")
    args = parser.parse_args(argv)
    if args.dsn and not args.postgres:
        parser.error("--dsn goes with --postgres")
    return args


if __name__ == "__main__":
    sys.exit(main(parse_args()))
