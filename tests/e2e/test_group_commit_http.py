"""Many HTTP clients writing at once into one server (group commit), then SIGKILL: nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from ._support import child_env, console_script, serve

pytestmark = pytest.mark.e2e

CLIENTS = 8
KILL_AFTER_ACKS = 60
ENV = {"MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "1000000", "MCP_MEMORY_FACTS__ENV_CAP": "10000000"}


async def writer(
    url: str, index: int, acked: dict[str, str], facts: list[str], refused: list[str], enough: asyncio.Event
) -> None:
    """Add atoms and env facts back to back until the server dies; record each acknowledgement."""
    with contextlib.suppress(Exception):  # the server's death ends the client, in whatever way it notices
        async with Client(url, mode="legacy") as client:
            for i in range(10_000):
                if i % 3 == 2:
                    content = f"[g{index}-{i:04d}] service g{index}x{i} listens on port {1024 + i}"
                    args = {"action": "add", "target": "env", "content": content}
                else:
                    content = f"I keep notebook g{index}n{i} for the team (writer {index}, item {i})"
                    args = {"action": "add_atom", "content": content, "source": "user_said"}
                async with asyncio.timeout(30):
                    result = await client.call_tool("memory", args)
                data = result.structured_content or {}
                if result.is_error or data.get("status") != "added":
                    refused.append(f"{args['action']}: {result.content}")
                    return
                if args["action"] == "add":
                    facts.append(content)
                else:
                    acked[data["atom"]["id"]] = content
                if len(acked) + len(facts) >= KILL_AFTER_ACKS:
                    enough.set()


def admin_json(home: Path, *args: str) -> object:
    done = subprocess.run(
        [str(console_script("trusted-memory-admin")), "--home", str(home), "--json", *args],
        capture_output=True,
        text=True,
        env=child_env(home, ENV),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.anyio
async def test_concurrent_http_writers_lose_no_acknowledged_write_to_sigkill(tmp_path: Path) -> None:
    acked: dict[str, str] = {}
    facts: list[str] = []
    refused: list[str] = []
    enough = asyncio.Event()
    with serve(tmp_path, ["--transport", "http"], env=ENV) as served:
        home = tmp_path / "home"
        url = f"{served.base}/mcp"
        tasks = [asyncio.ensure_future(writer(url, i, acked, facts, refused, enough)) for i in range(CLIENTS)]
        async with asyncio.timeout(120):
            await enough.wait()
        os.kill(served.proc.pid, signal.SIGKILL)  # mid-load: every client has a write in flight
        served.proc.wait(timeout=10)
        async with asyncio.timeout(60):
            await asyncio.gather(*tasks)
    assert not refused, refused  # before the kill, every write was accepted
    assert served.proc.returncode == -signal.SIGKILL
    assert len(acked) + len(facts) >= KILL_AFTER_ACKS

    listed = admin_json(home, "atoms", "list", "--status", "all", "--limit", "100000")
    stored = {a["id"]: (a["text"], a["status"]) for a in listed}  # type: ignore[union-attr]
    missing = [text for atom_id, text in acked.items() if stored.get(atom_id) != (text, "live")]
    assert not missing, f"{len(missing)} acknowledged atoms lost, e.g. {missing[:3]}"
    shown = admin_json(home, "facts", "show", "env")
    entries = {e["content"] for e in shown[0]["entries"]}  # type: ignore[index]
    assert not [f for f in facts if f not in entries]
    # The store is sound after the kill (a half-written group would show here or in a lost write above).
    doctor = admin_json(home, "doctor")
    assert isinstance(doctor, dict) and doctor["ok"] and not doctor["integrity"], doctor
