"""`trusted-memory serve` over streamable HTTP and SSE on loopback: SDK clients, auth, host checks, limits."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from ._support import INITIALIZE, MCP_HEADERS, Served, child_env, console_script, free_port, is_listening, serve

pytestmark = pytest.mark.e2e

TOKEN = "secret123"
MAX_BODY = 1024 * 1024  # server.max_body_kb = 1024 by default


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("http"), ["--transport", "http"]) as served:
        yield served


@pytest.fixture(scope="module")
def sse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("sse"), ["--transport", "sse"]) as served:
        yield served


@pytest.fixture(scope="module")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("token"), ["--transport", "http", "--token", TOKEN]) as served:
        yield served


async def _round_trip(client: Client, content: str) -> None:
    added = await client.call_tool("memory", {"action": "add", "target": "env", "content": content})
    assert not added.is_error, added.content
    assert added.structured_content is not None and added.structured_content["status"] == "added"
    read = await client.call_tool("memory", {"action": "read", "target": "env"})
    assert read.structured_content is not None
    assert content in [e["content"] for e in read.structured_content["entries"]]


def _oversized_body(size: int = MAX_BODY + 64 * 1024) -> bytes:
    prefix = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
    suffix = b'"}}'
    return prefix + b"a" * (size - len(prefix) - len(suffix)) + suffix


# --- SDK clients -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_streamable_http_round_trip(http_server: Served, mode: str) -> None:
    async with Client(f"{http_server.base}/mcp", mode=mode) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["memory"]
        await _round_trip(client, f"Deploys with the {mode} HTTP client")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sse_round_trip(sse_server: Served, mode: str) -> None:
    async with Client(sse_client(f"{sse_server.base}/sse"), mode=mode) as client:
        await _round_trip(client, f"Streams over SSE with the {mode} client")
    # SSE enters the lifespan per connection; a second connection still sees the same store.
    async with Client(sse_client(f"{sse_server.base}/sse"), mode=mode) as client:
        read = await client.call_tool("memory", {"action": "read", "target": "env"})
        assert f"Streams over SSE with the {mode} client" in read.structured_content["rendered"]


# --- bearer token ------------------------------------------------------------------------------


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}"])
def test_token_required_on_http(token_server: Served, authorization: str | None) -> None:
    headers = dict(MCP_HEADERS)
    if authorization:
        headers["Authorization"] = authorization
    r = httpx2.post(f"{token_server.base}/mcp", json=INITIALIZE, headers=headers, timeout=10)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer ")


def test_raw_request_with_token_is_accepted(token_server: Served) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    r = httpx2.post(f"{token_server.base}/mcp", json=INITIALIZE, headers=headers, timeout=10)
    assert r.status_code == 200
    assert '"serverInfo"' in r.text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_client_with_token(token_server: Served, mode: str) -> None:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
        follow_redirects=True,
    )
    transport = streamable_http_client(f"{token_server.base}/mcp", http_client=http)
    async with http, Client(transport, mode=mode) as client:
        await _round_trip(client, f"Authenticated {mode} client was here")


@pytest.mark.anyio
async def test_token_required_on_sse(tmp_path: Path) -> None:
    with serve(tmp_path, ["--transport", "sse", "--token", TOKEN]) as served:
        with httpx2.Client(timeout=10) as http:
            assert http.get(f"{served.base}/sse").status_code == 401
            assert http.post(f"{served.base}/messages/?session_id=0", json=INITIALIZE).status_code == 401
        async with Client(sse_client(f"{served.base}/sse", headers={"Authorization": f"Bearer {TOKEN}"})) as client:
            await _round_trip(client, "Authenticated SSE client was here")


# Where an OAuth client looks for metadata (RFC 9728 protected resource, RFC 8414 / OIDC server).
OAUTH_METADATA = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource/sse",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)


def assert_no_oauth_is_advertised(base: str, unauthorized: httpx2.Response) -> None:
    """A static bearer token is not OAuth: the 401 names no metadata, and none is served."""
    assert unauthorized.status_code == 401
    challenge = unauthorized.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and "resource_metadata" not in challenge, challenge
    with httpx2.Client(timeout=10) as http:
        for path in OAUTH_METADATA:
            assert http.get(f"{base}{path}").status_code == 404, path


def test_token_mode_advertises_no_oauth_metadata_on_http(token_server: Served) -> None:
    r = httpx2.post(f"{token_server.base}/mcp", json=INITIALIZE, headers=MCP_HEADERS, timeout=10)
    assert_no_oauth_is_advertised(token_server.base, r)


def test_token_mode_advertises_no_oauth_metadata_on_sse(tmp_path: Path) -> None:
    with serve(tmp_path, ["--transport", "sse", "--token", TOKEN]) as served:
        assert_no_oauth_is_advertised(served.base, httpx2.get(f"{served.base}/sse", timeout=10))
        r = httpx2.post(f"{served.base}/messages/?session_id=0", json=INITIALIZE, timeout=10)
        assert_no_oauth_is_advertised(served.base, r)


# --- DNS rebinding protection ------------------------------------------------------------------


def test_bad_host_header_is_421(http_server: Served) -> None:
    r = httpx2.post(
        f"{http_server.base}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Host": "evil.example"}, timeout=10
    )
    assert r.status_code == 421


@pytest.mark.parametrize(
    ("origin", "status"),
    [("http://evil.example", 403), ("http://localhost.evil.example", 403), (None, 200)],
    ids=["evil", "lookalike", "own"],
)
def test_origin_is_checked(http_server: Served, origin: str | None, status: int) -> None:
    origin = origin or f"http://localhost:{http_server.port}"
    r = httpx2.post(f"{http_server.base}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Origin": origin}, timeout=10)
    assert r.status_code == status, r.text


def test_bad_host_header_is_421_on_sse(sse_server: Served) -> None:
    with (
        httpx2.Client(timeout=10) as http,
        http.stream(
            "GET",
            f"{sse_server.base}/sse",
            headers={"Host": "evil.example"},
        ) as r,
    ):
        assert r.status_code == 421


def _loopback_alias() -> str:
    """127.0.0.2 where this machine routes the whole 127/8 block to loopback (Linux), else skip."""
    try:
        free_port("127.0.0.2")
    except OSError:
        pytest.skip("127.0.0.2 is not a usable loopback address here")
    return "127.0.0.2"


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_other_loopback_addresses_keep_host_and_origin_checks(tmp_path: Path, transport: str) -> None:
    # The SDK only protects 127.0.0.1/localhost/::1 by itself; 127.0.0.2 is loopback too, so it
    # needs no token, and must not lose DNS-rebinding protection.
    host = _loopback_alias()
    with serve(tmp_path, ["--transport", transport], host=host) as served:
        path = "/mcp" if transport == "http" else "/sse"
        with httpx2.Client(timeout=10) as http:
            for extra, status in (({"Host": "evil.example"}, 421), ({"Origin": "http://evil.example"}, 403)):
                with http.stream(
                    "POST" if transport == "http" else "GET",
                    f"{served.base}{path}",
                    json=INITIALIZE if transport == "http" else None,
                    headers={**MCP_HEADERS, **extra},
                ) as r:
                    assert r.status_code == status, extra
            if transport == "http":
                r = http.post(f"{served.base}{path}", json=INITIALIZE, headers=MCP_HEADERS)
                assert r.status_code == 200, r.text


# --- request size limit ------------------------------------------------------------------------


def test_oversized_body_is_413(http_server: Served) -> None:
    body = _oversized_body()
    r = httpx2.post(f"{http_server.base}/mcp", content=body, headers=MCP_HEADERS, timeout=30)
    assert r.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit must hold while streaming too
        for i in range(0, len(body), 64 * 1024):
            yield body[i : i + 64 * 1024]

    r = httpx2.post(f"{http_server.base}/mcp", content=chunks(), headers=MCP_HEADERS, timeout=30)
    assert r.status_code == 413


def test_body_under_the_limit_is_not_413(http_server: Served) -> None:
    # No session id, so the SDK answers 400; what matters is that the size check let it through.
    r = httpx2.post(
        f"{http_server.base}/mcp", content=_oversized_body(MAX_BODY - 4096), headers=MCP_HEADERS, timeout=30
    )
    assert r.status_code == 400
    assert "session" in r.text.lower()


def test_oversized_body_is_413_with_token(token_server: Served) -> None:
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    r = httpx2.post(f"{token_server.base}/mcp", content=_oversized_body(), headers=headers, timeout=30)
    assert r.status_code == 413


def test_oversized_body_is_413_on_sse(sse_server: Served) -> None:
    with httpx2.Client(timeout=30) as http, http.stream("GET", f"{sse_server.base}/sse") as stream:
        assert stream.status_code == 200
        endpoint = next(line[5:].strip() for line in stream.iter_lines() if line.startswith("data:"))
        r = http.post(
            f"{sse_server.base}{endpoint}", content=_oversized_body(), headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 413


# --- refusing unsafe binds ---------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_wildcard_bind_without_token_is_refused(tmp_path: Path, transport: str) -> None:
    exe = console_script("trusted-memory")
    port = free_port()
    done = subprocess.run(
        [str(exe), "serve", "--transport", transport, "--host", "0.0.0.0", "--port", str(port)],
        env=child_env(tmp_path / "home"),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    err = done.stderr.decode()
    assert "refusing to serve" in err and "0.0.0.0" in err and "token" in err, err
    assert "Traceback" not in err
    assert not is_listening(port)
    assert not (tmp_path / "home").exists()  # refused before the store was opened
