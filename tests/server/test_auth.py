"""Token mode, in process: the bearer token guards the endpoints, and no OAuth metadata is advertised."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from postgres_cluster import store_env_for

from trusted_memory.config import load_settings
from trusted_memory.server.app import build_server

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "::", "0.0.0.0"])
async def test_token_mode_answers_401_without_pointing_at_missing_metadata(tmp_path: Path, host: str) -> None:
    settings = load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "home"),
            **store_env_for(tmp_path / "home"),
            "MCP_MEMORY_SERVER__TRANSPORT": "http",
            "MCP_MEMORY_SERVER__HOST": host,
            "MCP_MEMORY_SERVER__TOKEN": "s3cret-token",
        },
        cwd=tmp_path,
    )
    mcp = build_server(settings)  # an IPv6 bind once failed here, building the OAuth issuer URL
    apps = ((mcp.streamable_http_app(host=host), "POST", "/mcp"), (mcp.sse_app(), "GET", "/sse"))
    for app, method, path in apps:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
            denied = await http.request(method, path, json=INITIALIZE, headers=HEADERS)
            assert denied.status_code == 401
            assert "resource_metadata" not in denied.headers["www-authenticate"]
            for well_known in ("/.well-known/oauth-protected-resource", f"/.well-known/oauth-protected-resource{path}"):
                assert (await http.get(well_known)).status_code == 404


def test_every_handler_runs_as_the_person_of_its_request() -> None:
    """A handler that skipped `as_caller` would act for nobody, and nobody sees every person's rows."""
    import inspect

    from trusted_memory.server import app

    lines = inspect.getsource(app).splitlines()
    wrapped = [i for i, line in enumerate(lines) if line.strip().startswith("@mcp_errors(")]
    registered = [line for line in lines if line.strip().startswith(("@mcp.resource(", "@mcp.prompt("))]
    # every resource and prompt, and the tool's one body (run_memory: its SDK forms, with the sampling
    # resolver and without, and the direct path of calls.py all call it)
    assert len(wrapped) == len(registered) + 1
    assert sum(
        "await run_memory(" in line for line in lines
    ) == 2 and "run_memory(request, None, arguments)" in inspect.getsource(app)
    assert all(lines[i + 1].strip() == "@as_caller" for i in wrapped)
