"""Reliability of the installed commands on one store: concurrent servers, SIGKILL, rebuilt vectors,
a damaged file. Fast versions of stress/multi_server.py and stress/kill9.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import backdoor
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from ._support import child_env, console_script, stop

pytestmark = pytest.mark.e2e

OPS_PER_SERVER = 150
CALL_TIMEOUT_S = 30.0
ADMIN_TIMEOUT_S = 60.0
# Every process on a test store shares these settings: the env facts cap is raised so adds never run out.
EXTRA_ENV = {"MCP_MEMORY_FACTS__ENV_CAP": "10000000"}
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


def word(*parts: object) -> str:
    """A made-up keyword unique to `parts`, with few character n-grams shared with other words."""
    rng = random.Random(repr(parts))
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(6))


def admin(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed `trusted-memory-admin` on the store."""
    return subprocess.run(
        [str(console_script("trusted-memory-admin")), "--home", str(home), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=child_env(home, EXTRA_ENV),
        timeout=ADMIN_TIMEOUT_S,
        check=False,
    )


def admin_json(home: Path, *args: str) -> Any:
    done = admin(home, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def is_lock_error(text: str) -> bool:
    return "locked" in text.lower() or "busy" in text.lower()


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@asynccontextmanager
async def stdio_clients(tmp_path: Path, home: Path, names: tuple[str, ...]) -> AsyncIterator[list[Client]]:
    """One SDK client per name, each on its own `trusted-memory` child, all on `home`."""
    exe = console_script("trusted-memory")
    async with AsyncExitStack() as stack:
        clients = []
        for name in names:
            errlog = stack.enter_context((tmp_path / f"{name}.stderr").open("w"))
            params = StdioServerParameters(command=str(exe), args=[], env=child_env(home, EXTRA_ENV), cwd=str(tmp_path))
            clients.append(await stack.enter_async_context(Client(stdio_client(params, errlog=errlog))))
        yield clients


# --- two servers, one store ---------------------------------------------------------------------


class Ledger:
    """What one server's caller was told succeeded (and every error it got)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.atoms: dict[str, str] = {}
        self.keep: list[str] = []
        self.temp: list[str] = []
        self.forgotten: set[str] = set()
        self.facts: dict[str, str] = {}
        self.observes = 0
        self.errors: list[str] = []
        self.searches: list[bool] = []


async def drive(client: Client, led: Ledger, other: Ledger, seed: int, *, ops: int = OPS_PER_SERVER) -> None:
    """`ops` mixed calls; only successes enter the ledger."""
    rng = random.Random(seed)

    async def call(action: str, **arguments: Any) -> dict[str, Any] | None:
        result = await asyncio.wait_for(client.call_tool("memory", {"action": action, **arguments}), CALL_TIMEOUT_S)
        if result.is_error:
            led.errors.append(f"{action}: {text_of(result)}")
            return None
        return result.structured_content or {}

    def fact(i: int) -> str:
        a, b, c = rng.sample(NOUNS, 3)
        return f"[{led.name}-{i:03d}] {word('fact', led.name, i)} {a} {b} {c} port {rng.randint(1024, 65000)}"

    for i in range(ops):
        roll = rng.random()
        if roll < 0.3 or (roll >= 0.9 and not led.temp):
            kind = "temp" if i % 3 == 0 else "keep"
            text = (
                f"[{led.name}-{i:03d}] I prefer {rng.choice(NOUNS)} on the build box "
                f"({kind} {word('atom', led.name, i)})"
            )
            data = await call("add_atom", content=text, source="user_said")
            if data is not None and data["status"] == "added":
                led.atoms[data["atom"]["id"]] = text
                (led.temp if kind == "temp" else led.keep).append(data["atom"]["id"])
        elif roll < 0.45 or (roll < 0.6 and not led.facts):
            text = fact(i)
            data = await call("add", target="env", content=text)
            if data is not None and data["status"] == "added":
                led.facts[f"[{led.name}-{i:03d}]"] = text
        elif roll < 0.52:
            old, text = rng.choice(list(led.facts)), fact(i)
            if await call("replace", target="env", old_text=old, content=text) is not None:
                del led.facts[old]
                led.facts[f"[{led.name}-{i:03d}]"] = text
        elif roll < 0.6:
            old = rng.choice(list(led.facts))
            if await call("remove", target="env", old_text=old) is not None:
                del led.facts[old]
        elif roll < 0.7:
            data = await call(
                "observe",
                session_id=f"rel-{led.name}",
                user_message=f"[{led.name}-{i:03d}] we tuned {rng.choice(NOUNS)} today",
            )
            if data is not None:
                led.observes += 1
        elif roll < 0.8:
            if other.keep:  # acknowledged by the other server before this call began: it must be found
                atom_id = rng.choice(other.keep)
                data = await call("search_atoms", query=other.atoms[atom_id].rsplit(" ", 1)[1].rstrip(")"))
                led.searches.append(data is not None and atom_id in {h["id"] for h in data["hits"]})
        elif roll < 0.9:
            await call("context", message=f"what do I use {rng.choice(NOUNS)} for?", session_id=f"rel-{led.name}")
        else:
            atom_id = led.temp.pop(rng.randrange(len(led.temp)))
            if await call("forget_atom", id=atom_id) is not None:
                del led.atoms[atom_id]
                led.forgotten.add(atom_id)


async def admin_during(
    home: Path, ledgers: list[Ledger], done: asyncio.Event, log: list[str], pinned: set[str]
) -> None:
    """The admin CLI, as a person would run it, while the servers write."""
    exe = str(console_script("trusted-memory-admin"))
    step = 0
    # At least one full round (stats, list, pin) even if the servers finish first on a slow machine.
    while (not done.is_set() or step < 3) and step < 20:
        keep = [a for led in ledgers for a in led.keep if a not in pinned]
        choices: list[tuple[str, ...]] = [
            ("--json", "stats"),
            ("--json", "atoms", "list", "--status", "all"),
            ("--json", "pin", keep[-1]) if keep else ("--json", "facts", "show", "env"),
        ]
        args = choices[step % 3]
        step += 1
        proc = await asyncio.create_subprocess_exec(
            exe,
            "--home",
            str(home),
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=child_env(home, EXTRA_ENV),
        )
        try:
            _, err = await asyncio.wait_for(proc.communicate(), ADMIN_TIMEOUT_S)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if proc.returncode != 0 or is_lock_error(err.decode()):
            log.append(f"admin {' '.join(args)}: exit {proc.returncode}: {err.decode()[-300:]}")
        elif args[1] == "pin":
            pinned.add(args[2])


@pytest.mark.anyio
async def test_two_servers_and_the_admin_cli_lose_no_acknowledged_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ledgers = [Ledger("a"), Ledger("b")]
    admin_errors: list[str] = []
    pinned: set[str] = set()
    async with stdio_clients(tmp_path, home, ("a", "b")) as clients:
        done = asyncio.Event()
        admin_task = asyncio.create_task(admin_during(home, ledgers, done, admin_errors, pinned))
        try:
            await asyncio.gather(
                drive(clients[0], ledgers[0], ledgers[1], 1), drive(clients[1], ledgers[1], ledgers[0], 2)
            )
        finally:
            done.set()
            await admin_task

        expected_facts = {t for led in ledgers for t in led.facts.values()}
        for k, (client, led) in enumerate(zip(clients, ledgers)):
            other = ledgers[1 - k]
            # Each server sees the other's latest atom, its facts, and its session.
            for atom_id in (other.keep[-1], other.keep[0]):
                query = other.atoms[atom_id].rsplit(" ", 1)[1].rstrip(")")
                found = await client.call_tool("memory", {"action": "search_atoms", "query": query})
                assert atom_id in {h["id"] for h in found.structured_content["hits"]}, (led.name, query)
            read = await client.call_tool("memory", {"action": "read", "target": "env"})
            assert {e["content"] for e in read.structured_content["entries"]} == expected_facts
            session = await client.read_resource(f"memory://sessions/rel-{other.name}")
            assert json.loads(session.contents[0].text)["session"]["turns"] == other.observes  # type: ignore[union-attr]

    errors = [e for led in ledgers for e in led.errors] + admin_errors
    assert not [e for e in errors if is_lock_error(e)], errors
    assert errors == []
    assert all(found for led in ledgers for found in led.searches)
    assert sum(len(led.searches) for led in ledgers) > 10

    stored = {a["id"]: a for a in admin_json(home, "atoms", "list", "--status", "all", "--limit", "100000")}
    for led in ledgers:
        assert len(led.atoms) > 20
        for atom_id, text in led.atoms.items():
            assert stored[atom_id]["text"] == text and stored[atom_id]["status"] == "live"
        assert not led.forgotten & set(stored)
    assert pinned and all(stored[a]["pinned"] for a in pinned)
    shown = admin_json(home, "facts", "show", "env")
    assert {e["content"] for e in shown[0]["entries"]} == expected_facts
    for led in ledgers:
        stderr = (tmp_path / f"{led.name}.stderr").read_text()
        assert "Traceback" not in stderr and not is_lock_error(stderr), stderr[-2000:]


@pytest.mark.anyio
async def test_forgetting_an_atom_leaves_no_association_to_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with stdio_clients(tmp_path, home, ("a",)) as (client,):
        first = await client.call_tool(
            "memory",
            {"action": "add_atom", "content": "I prefer pytest over unittest for Python tests", "source": "user_said"},
        )
        # A later atom, so the forgotten one's row number is not reused by the next insert.
        await client.call_tool(
            "memory", {"action": "add_atom", "content": "Deploys happen on Fridays", "source": "user_said"}
        )
        await client.call_tool("memory", {"action": "search_atoms", "query": "pytest"})  # loads the in-memory index
        await client.call_tool("memory", {"action": "forget_atom", "id": first.structured_content["atom"]["id"]})
        await client.call_tool(
            "memory",
            {"action": "add_atom", "content": "I prefer pytest over nose for Python tests", "source": "user_said"},
        )
    done = admin(home, "doctor")
    assert done.returncode == 0, done.stdout


# --- SIGKILL ------------------------------------------------------------------------------------


class RawServer:
    """`trusted-memory` started here (its pid is ours to kill), spoken to in raw JSON-RPC lines."""

    def __init__(self, home: Path, stderr: Path) -> None:
        with stderr.open("wb") as err:
            self.proc = subprocess.Popen(
                [str(console_script("trusted-memory"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=child_env(home, EXTRA_ENV),
                cwd=home.parent,
            )
        self.buffer = b""
        self.next_id = 0

    def send(self, method: str, params: Mapping[str, Any] | None = None, *, notify: bool = False) -> int:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}
        if not notify:
            msg["id"] = self.next_id
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return self.next_id

    def receive(self, timeout: float = CALL_TIMEOUT_S) -> dict[str, Any] | None:
        """The next message, or None once the server's stdout is closed."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            assert time.monotonic() < deadline, "the server did not answer in time"
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        rid = self.send(method, params)
        while True:
            msg = self.receive()
            assert msg is not None, "the server closed its stdout"
            if msg.get("id") == rid:
                return msg

    def initialize(self) -> None:
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "reliability-test", "version": "1"},
            },
        )
        self.send("notifications/initialized", notify=True)

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):  # a killed server's pipe: nothing left to flush to
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        finally:
            stop(self.proc)
            if self.proc.stdout is not None:
                self.proc.stdout.close()


def test_sigkill_mid_write_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rng = random.Random(5)
    acked_atoms: dict[str, str] = {}
    facts: dict[str, str] = {}
    gone: set[str] = set()
    in_flight: dict[int, tuple[str, str, str]] = {}  # request id -> (action, tag, content)
    kill_after = rng.randint(40, 80)
    server = RawServer(home, tmp_path / "killed.stderr")
    try:
        server.initialize()
        acked, seq = 0, 0
        for _ in range(2000):  # bounded: the kill comes after ~60 acknowledgements
            while len(in_flight) < 4 and acked < kill_after:  # busy until the kill lands mid-write; then only read
                seq += 1
                tag = f"[k-{seq:04d}]"
                free = [t for t in facts if t not in {f[1] for f in in_flight.values()}]
                if seq % 2:
                    content = f"{tag} I use {rng.choice(NOUNS)} at work ({word('k', seq)})"
                    args = {"action": "add_atom", "content": content, "source": "user_said"}
                    op = ("add_atom", tag, content)
                elif seq % 6 == 0 and free:
                    old = rng.choice(free)
                    content = f"{tag} {word('kf', seq)} {' '.join(rng.sample(NOUNS, 3))}"
                    args = {"action": "replace", "target": "env", "old_text": old, "content": content}
                    op = ("replace", old, content)
                else:
                    content = f"{tag} {word('kf', seq)} {' '.join(rng.sample(NOUNS, 3))}"
                    args = {"action": "add", "target": "env", "content": content}
                    op = ("add", tag, content)
                in_flight[server.send("tools/call", {"name": "memory", "arguments": args})] = op
            msg = server.receive()
            if msg is None:
                break
            op = in_flight.pop(msg.get("id"), None)  # type: ignore[arg-type]
            if op is None:
                continue
            result = msg["result"]
            assert not result.get("isError"), result
            action, tag, content = op
            if action == "add_atom":
                acked_atoms[result["structuredContent"]["atom"]["id"]] = content
            elif action == "add":
                facts[tag] = content
            else:
                gone.add(facts.pop(tag))
                facts[content.split(" ", 1)[0]] = content
            acked += 1
            if acked == kill_after:
                time.sleep(rng.uniform(0.0, 0.01))
                os.kill(server.proc.pid, signal.SIGKILL)
        else:
            pytest.fail("the loop ended before the server died")
    finally:
        if server.proc.poll() is None:
            os.kill(server.proc.pid, signal.SIGKILL)
        server.close()
    assert server.proc.returncode == -signal.SIGKILL
    assert acked >= kill_after

    doctor = admin(home, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    stored = {a["id"]: a["text"] for a in admin_json(home, "atoms", "list", "--status", "all", "--limit", "100000")}
    for atom_id, text in acked_atoms.items():
        assert stored.get(atom_id) == text
    actual = {e["content"] for e in admin_json(home, "facts", "show", "env")[0]["entries"]}
    assert not gone & actual
    # What was in flight at the kill committed whole or not at all; everything else is as acknowledged.
    replaced_in_flight = {facts[tag]: content for action, tag, content in in_flight.values() if action == "replace"}
    for old, new in replaced_in_flight.items():
        assert (old in actual) != (new in actual), (old, new)
    assert set(facts.values()) - set(replaced_in_flight) <= actual
    extra = actual - set(facts.values())
    assert extra <= {content for _, _, content in in_flight.values()}

    again = RawServer(home, tmp_path / "restarted.stderr")
    try:
        again.initialize()
        reply = again.request(
            "tools/call",
            {
                "name": "memory",
                "arguments": {
                    "action": "add_atom",
                    "content": "After the crash I still prefer tox",
                    "source": "user_said",
                },
            },
        )
        assert reply["result"]["structuredContent"]["status"] == "added"
        found = again.request(
            "tools/call", {"name": "memory", "arguments": {"action": "search_atoms", "query": "tox crash"}}
        )
        assert "After the crash I still prefer tox" in [h["text"] for h in found["result"]["structuredContent"]["hits"]]
    finally:
        again.close()
    assert again.proc.returncode == 0


# --- repair paths -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_deleted_vector_index_is_rebuilt_from_the_stored_text(tmp_path: Path) -> None:
    home = tmp_path / "home"
    stored = "I prefer pytest over unittest"
    query = "which test framework do I like?"
    async with stdio_clients(tmp_path, home, ("before",)) as (client,):
        for content in (
            stored,
            "Deploys run on Fridays after the standup",
            "The billing service uses Postgres 16",
            "My editor is neovim",
            "Build artefacts go to the dist folder",
        ):
            r = await client.call_tool("memory", {"action": "add_atom", "content": content, "source": "user_said"})
            assert not r.is_error, text_of(r)
        found = await client.call_tool("memory", {"action": "search_atoms", "query": query})
        assert [h["text"] for h in found.structured_content["hits"]] == [stored]  # found by meaning only

    assert backdoor.query(home, "SELECT count(*) FROM vectors") == [(5,)]
    backdoor.execute(home, "DELETE FROM vectors")
    async with stdio_clients(tmp_path, home, ("deleted",)) as (client,):
        found = await client.call_tool("memory", {"action": "search_atoms", "query": query})
        assert found.structured_content["hits"] == []  # no keyword overlap: the paraphrase needs vectors
    assert admin(home, "doctor").returncode == 1

    repaired = admin(home, "doctor", "--repair", "--yes")
    assert repaired.returncode == 0, repaired.stdout
    assert "[fixed]  vectors" in repaired.stdout
    async with stdio_clients(tmp_path, home, ("after",)) as (client,):
        found = await client.call_tool("memory", {"action": "search_atoms", "query": query})
        assert [h["text"] for h in found.structured_content["hits"]] == [stored]
    assert admin(home, "doctor").returncode == 0


def _damage(db: Path, how: str) -> None:
    size = db.stat().st_size
    if how == "junk":
        db.write_bytes(random.Random(3).randbytes(size))
        return
    with sqlite3.connect(db) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        atoms_root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'atoms'").fetchone()[0]
    conn.close()
    # After the 100-byte header: the schema page itself, or the atoms table's page in the middle.
    offset, length = (100, page - 100) if how == "schema page" else ((atoms_root - 1) * page, page)
    with db.open("r+b") as fh:
        fh.seek(offset)
        fh.write(b"\xde\xad\xbe\xef" * (length // 4))


@pytest.mark.sqlite_only  # it damages the SQLite file's pages
@pytest.mark.anyio
@pytest.mark.parametrize("how", ["junk", "schema page", "atoms page"])
async def test_a_damaged_file_names_the_repair_and_is_never_replaced(tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    async with stdio_clients(tmp_path, home, ("seed",)) as (client,):
        for k in range(3):
            r = await client.call_tool(
                "memory", {"action": "add_atom", "content": f"I keep notebook {k} in the attic", "source": "user_said"}
            )
            assert not r.is_error
    db = home / "memory.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _damage(db, how)
    damaged = db.read_bytes()

    started = await asyncio.to_thread(
        subprocess.run,
        [str(console_script("trusted-memory"))],
        input="",
        capture_output=True,
        text=True,
        env=child_env(home, EXTRA_ENV),
        cwd=tmp_path,
        timeout=ADMIN_TIMEOUT_S,
        check=False,
    )
    if started.returncode != 0:
        assert "doctor --repair" in started.stderr, started.stderr
        assert "Traceback" not in started.stderr
    else:
        # Damage past the pages read at start-up surfaces on the first call that touches it:
        # as an error naming the repair, never as an empty answer.
        assert how == "atoms page", started.stderr
        async with stdio_clients(tmp_path, home, ("damaged",)) as (client,):
            listed = await client.call_tool("memory", {"action": "list_atoms"})
            assert listed.is_error, listed.structured_content
            assert "doctor --repair" in text_of(listed)
    assert db.read_bytes() == damaged  # not replaced, not "repaired" behind the user's back
    assert sorted(p.name for p in home.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["memory.db"]
