"""The `context` block never repeats the message it is for, even when the caller observed it first."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

pytestmark = pytest.mark.anyio


async def call(client: Client, **args: Any) -> dict[str, Any]:
    result = await client.call_tool("memory", args)
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


async def test_a_block_asked_for_after_observe_does_not_echo_the_turn(client: Client) -> None:
    await call(client, action="observe", session_id="s-echo", user_message="We run the payment workers on Kubernetes.")
    said = "I prefer the ledger- prefix for every queue name."
    observed = await call(client, action="observe", session_id="s-echo", user_message=said)
    assert observed["status"] == "ok"
    block = (await call(client, action="context", session_id="s-echo", message=said))["rendered"]
    assert "Kubernetes" in block and "ledger-" not in block  # neither its buffer line nor its atoms
    other = await call(client, action="context", session_id="s-echo", message="Which prefix do queues get?")
    assert "ledger-" in other["rendered"]  # for any other message it is memory like the rest
