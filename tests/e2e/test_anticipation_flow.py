"""Issue 6's scripted conversation, end to end over stdio with no LLM: a predicted follow-up is loaded
before it is asked, a pronoun is resolved, and a style guess waits in pending review until the
admin CLI confirms it."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from ._support import child_env, console_script

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


async def turn(client: Client, session: str, message: str) -> Any:
    """What a host does for a user message: context for it, then observe it."""
    block = await call(client, action="context", session_id=session, message=message)
    await call(client, action="observe", session_id=session, user_message=message, assistant_reply="Okay.")
    return block


async def test_scripted_conversation_over_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = StdioServerParameters(command=str(console_script("trusted-memory")), env=child_env(home))
    async with Client(server) as client:
        rule = await call(
            client,
            action="add_atom",
            atom_type="convention",
            source="user_said",
            content="Run the test suite with make test-all; it needs the db container up first.",
        )
        migration = await call(
            client,
            action="add_atom",
            atom_type="decision",
            source="user_said",
            content="We decided to move the billing service to Postgres 16 next sprint.",
        )
        for text in ("My sister Anna lives in Lisbon.", "I prefer dark roast coffee.", "We adopted a cat named Miso."):
            await call(client, action="add_atom", content=text, source="user_said")

        # A predicted follow-up's memory is in context before the follow-up is asked.
        block = await turn(client, "conv", "done refactoring the auth module")
        assert "how to run the tests" in block["intents"] and "make test-all" in block["rendered"]
        assert rule["atom"]["id"][:8] in block["rendered"]

        # A pronoun is resolved against recent trusted memories.
        await turn(client, "conv", "ok now the billing service migration")
        block = await turn(client, "conv", "when is that happening")
        assert block["resolved"] == f'"that" -> #{migration["atom"]["id"]}'

        # Short messages suggest a concise style: a guess, so it waits for the user.
        for message in ("ship it", "fix lint"):
            await turn(client, "conv", message)
        pending: list[dict[str, Any]] = []
        for _ in range(100):  # the inference runs in the background after the fifth turn
            pending = (await call(client, action="list_pending_review"))["pending"]
            if any(p["field_path"] == "style.verbosity" for p in pending):
                break
            await asyncio.sleep(0.05)
        guess = next(p for p in pending if p["field_path"] == "style.verbosity")
        assert guess["value"] == "concise"
        refused = await client.call_tool("memory", {"action": "confirm_pending_review", "review_id": guess["id"]})
        assert refused.is_error and "trusted-memory-admin confirm" in refused.content[0].text  # type: ignore[union-attr]
        block = await call(client, action="context", session_id="conv", message="what next")
        assert "verbosity" not in block["rendered"]

    admin = console_script("trusted-memory-admin")
    done = subprocess.run(
        [str(admin), "confirm", "--yes", guess["id"]],
        env=child_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    async with Client(server) as client:
        model = json.loads((await client.read_resource("memory://user-model")).contents[0].text)  # type: ignore[union-attr]
        verbosity = next(f for f in model["fields"] if f["path"] == "style.verbosity")
        assert (verbosity["value"], verbosity["source_class"]) == ("concise", "user_approved")
        block = await call(client, action="context", session_id="conv", message="what next")
        assert "- verbosity: concise (confirmed by the user)" in block["rendered"]
