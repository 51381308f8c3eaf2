"""Runs the server over stdio, SSE or streamable HTTP, refusing unsafe network set-ups."""

from __future__ import annotations

import asyncio
import ipaddress
import logging

import anyio
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from ..config import Settings
from ..errors import ConfigError
from ..services.runtime import check_store
from .app import build_server
from .state import AppState
from .stdio import stdio_streams

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_network(settings: Settings, *, team: bool = False) -> None:
    """Refuse a bind that other machines could reach unless bearer tokens guard it (a static one, or people's)."""
    server = settings.server
    if server.transport != "stdio" and not is_loopback(server.host) and not server.token and not team:
        raise ConfigError(
            f"refusing to serve {server.transport} on {server.host}: other machines could reach "
            "the memory without credentials. Set a bearer token (--token or MCP_MEMORY_SERVER__TOKEN), "
            "add people with tokens (trusted-memory-admin users add NAME), or bind 127.0.0.1."
        )


def _security(host: str) -> TransportSecuritySettings | None:
    # The SDK protects exactly 127.0.0.1, localhost and ::1 by itself. Any other named host
    # (another loopback address such as 127.0.0.2 included) keeps the same Host/Origin
    # allow-list, widened to that host; a wildcard bind cannot know its public names, so
    # there the bearer token is the guard.
    if host in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::", ""):
        return None
    name = f"[{host}]" if ":" in host else host
    return TransportSecuritySettings(
        allowed_hosts=[f"{name}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=[f"http://{name}:*", f"https://{name}:*", "http://127.0.0.1:*", "http://localhost:*"],
    )


async def _serve_stdio(mcp: MCPServer[AppState], max_line_bytes: int) -> None:
    # MCPServer.run_stdio_async with our thread-free transport (stdio.py) in place of the SDK's.
    lowlevel = mcp._lowlevel_server
    async with stdio_streams(max_line_bytes) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def serve(settings: Settings) -> None:
    """Serve until the transport closes (stdio) or the process is stopped (HTTP, SSE)."""
    # Inside the transport the store opens in the SDK's task group, where an error would surface
    # as an exception group and a traceback; opening it once here gives the operator one line.
    # Only an existing store can hold people; a refused bind must not create one (a file: a database
    # exists before the server, and its tables are created on first open either way).
    existing = settings.store.backend == "postgres" or settings.db_path.exists()
    team = existing and asyncio.run(check_store(settings))
    check_network(settings, team=team)
    if not existing:
        asyncio.run(check_store(settings))
    mcp = build_server(settings, team=team)
    server = settings.server
    body_limit = server.max_body_kb * 1024
    if server.transport == "stdio":
        anyio.run(_serve_stdio, mcp, body_limit)
        return
    log.warning(
        "trusted-memory serving %s on %s:%s (store %s)",
        server.transport,
        server.host,
        server.port,
        settings.store_location,
    )
    if server.transport == "http":
        mcp.run(
            "streamable-http",
            host=server.host,
            port=server.port,
            max_request_body_size=body_limit,
            transport_security=_security(server.host),
        )
    else:
        mcp.run(
            "sse",
            host=server.host,
            port=server.port,
            max_request_body_size=body_limit,
            transport_security=_security(server.host),
        )
