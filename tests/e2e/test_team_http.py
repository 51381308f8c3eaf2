"""A team's store over streamable HTTP: each person's bearer token, what each one's agent sees, revocation.

The installed `trusted-memory serve` and `trusted-memory-admin` run as a team would run them; the
clients are the SDK's, each sending its person's token.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ._support import INITIALIZE, MCP_HEADERS, Served, child_env, console_script, serve

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SECRET = "my dentist appointment is on the 14th at 9am, the clinic on Harbour Street"


def admin(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(console_script("trusted-memory-admin")), "--home", str(home), *args],
        env=child_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def add_person(home: Path, name: str, *extra: str) -> str:
    done = admin(home, "--json", "users", "add", name, *extra)
    assert done.returncode == 0, done.stderr
    token = json.loads(done.stdout)["token"]
    assert token.startswith("tmem_") and len(token) > 40
    return str(token)


class Team:
    def __init__(self, served: Served, home: Path, tokens: dict[str, str]) -> None:
        self.served, self.home, self.tokens = served, home, tokens

    @asynccontextmanager
    async def client(self, name: str) -> AsyncIterator[Client]:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {self.tokens[name]}"}, timeout=httpx2.Timeout(30.0, read=300.0)
        )
        async with http, Client(streamable_http_client(f"{self.served.base}/mcp", http_client=http)) as client:
            yield client

    def status(self, authorization: str | None) -> int:
        headers = dict(MCP_HEADERS)
        if authorization:
            headers["Authorization"] = authorization
        return httpx2.post(f"{self.served.base}/mcp", json=INITIALIZE, headers=headers, timeout=10).status_code


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    home = tmp_path / "home"
    home.mkdir()
    tokens = {
        "alice": add_person(home, "alice", "--project", "atlas"),
        "bob": add_person(home, "bob"),
        "carol": add_person(home, "carol", "--role", "admin", "--project", "atlas"),
    }
    with serve(tmp_path, ["--transport", "http"]) as served:  # no --token: the store's people decide
        yield Team(served, home, tokens)


async def call(client: Client, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def refused(client: Client, **arguments: Any) -> str:
    result = await client.call_tool("memory", arguments)
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


async def test_each_persons_memory_stays_theirs_over_http(team: Team) -> None:
    assert team.status(None) == 401
    assert team.status("Bearer tmem_not-a-real-token") == 401
    async with team.client("alice") as alice:
        mine = await call(alice, action="add_atom", content=SECRET, source="user_said")
        secret_id = mine["atom"]["id"]
        await call(alice, action="add", target="user", content="Alice's partner is called Sam")
        shared = await call(
            alice,
            action="add_atom",
            content="atlas releases are cut on wednesdays",
            source="user_said",
            project="atlas",
        )
        assert shared["status"] == "added"
        found = await call(alice, action="search_atoms", query="when is the dentist appointment")
        assert any(h["id"] == secret_id for h in found["hits"])

    for other in ("bob", "carol"):
        async with team.client(other) as agent:
            found = await call(agent, action="search_atoms", query="when is the dentist appointment at the clinic")
            assert all(h["id"] != secret_id for h in found["hits"])
            both = await call(agent, action="search", query="dentist appointment Harbour Street partner Sam")
            assert "dentist" not in json.dumps(both) and "Sam" not in json.dumps(both)
            block = await call(agent, action="context", message="remind me about the dentist appointment")
            assert "dentist" not in json.dumps(block)
            assert "no atom" in await refused(agent, action="view", id=secret_id)
            facts = await call(agent, action="read", target="user")
            assert "Sam" not in json.dumps(facts)
            with pytest.raises(Exception, match="no atom"):
                await agent.read_resource(f"memory://atoms/{secret_id}")
            text = json.dumps((await agent.read_resource("memory://facts/user")).model_dump())
            assert "Sam" not in text
            prompt = await agent.get_prompt("memory_context", {"message": "the dentist appointment?"})
            assert "dentist" not in json.dumps(prompt.model_dump())
            atlas = await call(agent, action="search_atoms", query="when are atlas releases cut")
            # Carol is a member of atlas and sees its shared memory; Bob is not.
            assert any("wednesdays" in h["text"] for h in atlas["hits"]) == (other == "carol")


async def test_a_global_write_waits_for_an_admin_and_a_revoked_token_is_refused(team: Team) -> None:
    async with team.client("alice") as alice:
        write = await call(
            alice,
            action="add_atom",
            content="we review every pull request within a day",
            source="user_said",
            scope="global",
        )
        assert write["status"] == "quarantined" and "an admin approves" in write["message"]
        atom_id = write["notice"].removeprefix("quarantined atom id: ")
        # An agent cannot approve it, not even an admin's agent: only the admin CLI can.
        assert "trusted-memory-admin" in await refused(alice, action="promote_atom", id=atom_id)
    bob_try = admin(team.home, "--as", "bob", "promote", atom_id, "--yes")
    assert bob_try.returncode == 1
    # A member reviews only their own quarantine: Bob does not even see Alice's write.
    assert "no atom" in bob_try.stderr or "only an admin" in bob_try.stderr, bob_try.stderr
    alice_try = admin(team.home, "--as", "alice", "promote", atom_id, "--yes")
    assert alice_try.returncode == 1 and "only an admin approves team-wide memory" in alice_try.stderr
    carol = admin(team.home, "--as", "carol", "promote", atom_id, "--yes")
    assert carol.returncode == 0, carol.stderr
    async with team.client("bob") as bob:
        found = await call(bob, action="search_atoms", query="how fast do we review pull requests")
        assert any(h["id"] == atom_id for h in found["hits"])

    assert team.status(f"Bearer {team.tokens['alice']}") == 200
    revoked = admin(team.home, "users", "revoke", "alice")
    assert revoked.returncode == 0, revoked.stderr
    # The server keeps running; Alice's very next request is refused, Bob's still works.
    assert team.status(f"Bearer {team.tokens['alice']}") == 401
    assert team.status(f"Bearer {team.tokens['bob']}") == 200
    listed = json.loads(admin(team.home, "--json", "users", "list").stdout)
    assert {p["name"]: p["revoked"] is not None for p in listed} == {"alice": True, "bob": False, "carol": False}
    assert all("token" not in p for p in listed)
