"""Issue 3's promise, end to end: over stdio a web atom stays quarantined until a human promotes it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from ._support import child_env, console_script

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def call(client: Client, **arguments: Any) -> Any:
    return await client.call_tool("memory", arguments)


async def test_web_atom_needs_the_admin_cli_to_become_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = StdioServerParameters(command=str(console_script("trusted-memory")), env=child_env(home))
    async with Client(server) as client:
        added = await call(client, action="add_atom", content="The quarterly review moved to Thursday", source="web")
        assert added.structured_content["status"] == "quarantined"
        atom_id = added.structured_content["notice"].split()[-1]
        for listing in (
            await call(client, action="list_atoms"),
            await call(client, action="search_atoms", query="quarterly review Thursday"),
        ):
            assert atom_id not in str(listing.structured_content)
        assert (await call(client, action="view", id=atom_id)).is_error
        quarantine = await call(client, action="list_quarantine")
        assert [a["id"] for a in quarantine.structured_content["atoms"]] == [atom_id]
        refused = await call(client, action="promote_atom", id=atom_id)
        assert refused.is_error and f"trusted-memory-admin promote {atom_id}" in refused.content[0].text  # type: ignore[union-attr]

    admin = console_script("trusted-memory-admin")
    no_tty = subprocess.run(
        [str(admin), "promote", atom_id],
        env=child_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert no_tty.returncode == 1 and "--yes" in no_tty.stderr
    done = subprocess.run(
        [str(admin), "promote", atom_id, "--yes"],
        env=child_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    async with Client(server) as client:
        viewed = await call(client, action="view", id=atom_id)
        assert viewed.structured_content["atom"]["source_class"] == "user_approved"
        found = await call(client, action="search_atoms", query="when is the quarterly review?")
        assert found.structured_content["hits"][0]["id"] == atom_id
