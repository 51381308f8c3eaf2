"""Four installed servers on one PostgreSQL database, the admin CLI beside them, and a fifth server
SIGKILLed mid-write: nothing acknowledged is lost, no error reaches a caller, and every server finds
the others' atoms on its next search. A fast version of `stress/multi_server.py --postgres` plus
`stress/kill9.py --postgres --peers N` (issue 17, Reliability).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_cluster import Cluster, databases_of_test

from .test_reliability import (
    NOUNS,
    Ledger,
    RawServer,
    admin,
    admin_during,
    admin_json,
    drive,
    is_lock_error,
    stdio_clients,
    word,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

SERVERS = ("a", "b", "c", "d")
OPS_PER_SERVER = 60
KILL_AFTER = (30, 60)  # the killed server's acknowledged writes before its SIGKILL
# PostgreSQL's words for a deadlock, a serialization failure, a lock timeout, and the store's for a lost
# connection: none of them may reach a caller.
PG_ERROR_WORDS = ("deadlock", "could not serialize", "serialization", "lock timeout", "unreachable", "connection")


@pytest.fixture
def store_env(pg_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """This module runs on PostgreSQL alone: the store folder is a fresh database of the run's cluster."""
    with databases_of_test(pg_cluster, tmp_path / "home", monkeypatch) as env:
        yield env


class Victim:
    """A server adding atoms with 4 calls in flight until it is SIGKILLed after `kill_after` acknowledgements."""

    def __init__(self, home: Path, stderr: Path, kill_after: int, rng: random.Random) -> None:
        self.server = RawServer(home, stderr)
        self.kill_after = kill_after
        self.rng = rng
        self.acked: dict[str, str] = {}
        self.in_flight: dict[int, str] = {}
        self.errors: list[str] = []
        self.killed_at: float | None = None

    def run(self) -> None:
        """(In a thread.) Write until the server's stdout closes; bounded by 2000 sends."""
        server = self.server
        server.initialize()
        for seq in range(2000):
            while len(self.in_flight) < 4:
                slot = len(self.in_flight)
                content = f"[v-{seq:04d}-{slot}] I run {self.rng.choice(NOUNS)} ({word('v', seq, slot)})"
                args = {"action": "add_atom", "content": content, "source": "user_said"}
                self.in_flight[server.send("tools/call", {"name": "memory", "arguments": args})] = content
            msg = server.receive()
            if msg is None:
                return
            content_or_none = self.in_flight.pop(msg.get("id"), None)  # type: ignore[arg-type]
            if content_or_none is None:
                continue
            result = msg.get("result", {})
            if "error" in msg or result.get("isError"):
                self.errors.append(f"victim add_atom: {msg}")
                continue
            self.acked[result["structuredContent"]["atom"]["id"]] = content_or_none
            if len(self.acked) == self.kill_after:
                time.sleep(self.rng.uniform(0.0, 0.01))
                self.killed_at = time.monotonic()
                os.kill(server.proc.pid, signal.SIGKILL)


@pytest.mark.anyio
async def test_four_servers_and_a_sigkill_on_one_postgres_database_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rng = random.Random(17)
    ledgers = [Ledger(name) for name in SERVERS]
    admin_errors: list[str] = []
    pinned: set[str] = set()
    victim = Victim(home, tmp_path / "victim.stderr", rng.randint(*KILL_AFTER), rng)
    async with stdio_clients(tmp_path, home, SERVERS) as clients:
        done = asyncio.Event()
        admin_task = asyncio.create_task(admin_during(home, ledgers, done, admin_errors, pinned))
        victim_thread = threading.Thread(target=victim.run, daemon=True)
        try:
            victim_thread.start()
            await asyncio.gather(
                *(
                    drive(client, led, ledgers[(k + 1) % len(ledgers)], 100 + k, ops=OPS_PER_SERVER)
                    for k, (client, led) in enumerate(zip(clients, ledgers))
                )
            )
            await asyncio.to_thread(victim_thread.join, 60)
        finally:
            done.set()
            await admin_task
            if victim.server.proc.poll() is None:
                os.kill(victim.server.proc.pid, signal.SIGKILL)
            victim.server.close()
        assert victim.killed_at is not None and victim.server.proc.returncode == -signal.SIGKILL

        # After the kill every server still writes, and on its next search finds each other server's
        # latest and first atom, and the killed server's last acknowledged one.
        last_victim = list(victim.acked)[-1]
        expected_facts = {t for led in ledgers for t in led.facts.values()}
        for client, led in zip(clients, ledgers):
            after = await client.call_tool(
                "memory",
                {"action": "add_atom", "content": f"After the kill {led.name} still uses tox", "source": "user_said"},
            )
            assert not after.is_error and after.structured_content["status"] == "added", after
            led.atoms[after.structured_content["atom"]["id"]] = f"After the kill {led.name} still uses tox"
            targets = [(o.keep[-1], o.atoms[o.keep[-1]]) for o in ledgers if o is not led]
            targets += [(o.keep[0], o.atoms[o.keep[0]]) for o in ledgers if o is not led]
            targets.append((last_victim, victim.acked[last_victim]))
            for atom_id, text in targets:
                query = text.rsplit(" ", 1)[1].rstrip(")")
                found = await client.call_tool("memory", {"action": "search_atoms", "query": query})
                assert atom_id in {h["id"] for h in found.structured_content["hits"]}, (led.name, query)
            read = await client.call_tool("memory", {"action": "read", "target": "env"})
            assert {e["content"] for e in read.structured_content["entries"]} == expected_facts

    errors = [e for led in ledgers for e in led.errors] + admin_errors + victim.errors
    assert not [e for e in errors if is_lock_error(e) or any(w in e.lower() for w in PG_ERROR_WORDS)], errors
    assert errors == []
    assert all(found for led in ledgers for found in led.searches)
    assert sum(len(led.searches) for led in ledgers) > 10

    stored = {a["id"]: a for a in admin_json(home, "atoms", "list", "--status", "all", "--limit", "100000")}
    for led in ledgers:
        for atom_id, text in led.atoms.items():
            assert stored[atom_id]["text"] == text and stored[atom_id]["status"] == "live"
        assert not led.forgotten & set(stored)
    for atom_id, text in victim.acked.items():
        assert stored[atom_id]["text"] == text
    # An add in flight at the kill landed whole or not at all: there is no atom nobody sent.
    sent = set(victim.acked.values()) | set(victim.in_flight.values())
    assert {a["text"] for a in stored.values() if a["text"].startswith("[v-")} <= sent
    assert pinned and all(stored[a]["pinned"] for a in pinned)
    shown = admin_json(home, "facts", "show", "env")
    assert {e["content"] for e in shown[0]["entries"]} == expected_facts
    doctor = admin(home, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    for name in SERVERS:
        stderr = (tmp_path / f"{name}.stderr").read_text()
        assert "Traceback" not in stderr and not is_lock_error(stderr), stderr[-2000:]
