"""Which calls the direct path of `tools/call` serves (server/calls.py), and its wire form beside the SDK's.

That the two paths answer the same bytes is tests/e2e/test_direct_calls.py (the installed server
on a pipe); here: a plain call on a 2025-11-25 connection never reaches the SDK's `Tool.run`, a
2026-07-28 one and every call with the sampling resolver do, and `wire_result` is what the SDK's
per-version surface dumps for the same result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ImageContent, TextContent
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server
from trusted_memory.server.calls import DirectToolCalls, wire_result

pytestmark = pytest.mark.anyio


def _refusing_tool_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the SDK's tool path fail loudly, and record each time it is taken."""
    taken: list[str] = []

    async def run(self: Tool, arguments: dict[str, Any], *_: Any, **__: Any) -> Any:
        taken.append(str(arguments.get("action")))
        raise RuntimeError("the SDK's tool path was taken")

    monkeypatch.setattr(Tool, "run", run)
    return taken


async def test_a_plain_call_on_the_handshake_era_skips_the_sdk_tool_layers(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _refusing_tool_run(monkeypatch)
    async with Client(build_server(settings), mode="legacy") as client:
        added = await client.call_tool("memory", {"action": "add_atom", "content": "I like tea", "source": "user_said"})
        found = await client.call_tool("memory", {"action": "search_atoms", "query": "tea"})
        refused = await client.call_tool("memory", {"action": "nope"})
    assert not added.is_error and not found.is_error, (added.content, found.content)
    assert found.structured_content is not None and found.structured_content["hits"]
    assert refused.is_error and "unknown action 'nope'" in refused.content[0].text  # type: ignore[union-attr]
    assert taken == []


@pytest.mark.parametrize("mode", ["auto", "sampling"])
async def test_the_sdk_serves_the_modern_era_and_the_sampling_resolver(
    mode: Literal["auto", "sampling"], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = {"MCP_MEMORY_HOME": str(tmp_path / "h"), **store_env_for(tmp_path / "h")}
    if mode == "sampling":
        environ["MCP_MEMORY_LLM__PROVIDER"] = "sampling"
    mcp = build_server(load_settings(environ=environ, cwd=tmp_path))
    assert any(isinstance(m, DirectToolCalls) for m in mcp.middleware) == (mode != "sampling")
    taken = _refusing_tool_run(monkeypatch)
    async with Client(mcp, mode="auto" if mode == "auto" else "legacy") as client:
        result = await client.call_tool("memory", {"action": "list_pending_review"})
    assert result.is_error and taken == ["list_pending_review"]


@pytest.mark.parametrize(
    "result",
    [
        CallToolResult(
            content=[TextContent(type="text", text=json.dumps({"a": "café ☕ \u2028 \x00"}, ensure_ascii=False))],
            structured_content={"a": "café ☕ \u2028 \x00", "n": [1, 2.5, None, True], "nested": {"z": 1, "a": {}}},
        ),
        CallToolResult(content=[TextContent(type="text", text="Error executing tool memory: [x] y")], is_error=True),
        CallToolResult(content=[]),
        CallToolResult(
            content=[
                TextContent(type="text", text="t", annotations={"priority": 0.5}),  # type: ignore[arg-type]
                ImageContent(type="image", data="aGk=", mime_type="image/png"),
            ],
            structured_content={},
        ),
    ],
    ids=["unicode", "error", "empty", "other-blocks"],
)
async def test_the_wire_form_is_the_sdk_surface_dump(result: CallToolResult) -> None:
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    for version in HANDSHAKE_PROTOCOL_VERSIONS:  # every era the direct path serves
        expected = methods.serialize_server_result("tools/call", version, dumped)
        # Key order too: the wire bytes are the dict's JSON.
        assert json.dumps(wire_result(result, version)) == json.dumps(expected), version
