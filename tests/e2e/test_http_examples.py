"""The HTTP host configs in clients/ work against the real server, with the token they refer to."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ._support import serve

pytestmark = pytest.mark.e2e

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
TOKEN = "example-token-8f3a"


def _entry(rel: str) -> tuple[dict[str, object], dict[str, object]]:
    data = json.loads((CLIENTS / rel).read_text())
    servers = data.get("mcpServers") or data["servers"]
    return data, servers["trusted-memory"]


def test_vscode_asks_for_the_token_as_a_password() -> None:
    data, entry = _entry("vscode/mcp-http.json")
    (prompt,) = data["inputs"]
    assert prompt["type"] == "promptString" and prompt["password"] is True
    assert entry["headers"] == {"Authorization": f"Bearer ${{input:{prompt['id']}}}"}


@pytest.mark.anyio
@pytest.mark.parametrize("rel", ["http/mcp.json", "vscode/mcp-http.json"])
async def test_the_example_connects_with_its_token(tmp_path: Path, rel: str) -> None:
    _, entry = _entry(rel)
    # What the host does: substitute the variable or input the header names with the user's token.
    headers = {k: re.sub(r"\$\{[^}]+\}", TOKEN, str(v)) for k, v in dict(entry["headers"]).items()}  # type: ignore[call-overload]
    with serve(tmp_path, ["--transport", "http"], env={"MCP_MEMORY_SERVER__TOKEN": TOKEN}) as served:
        url = str(entry["url"]).replace("127.0.0.1:8765", f"{served.host}:{served.port}")
        assert httpx2.post(url, json={}, timeout=10).status_code == 401  # no header: refused
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=60.0), follow_redirects=True)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            result = await client.call_tool("memory", {"action": "stats"})
            assert not result.is_error, result.content
