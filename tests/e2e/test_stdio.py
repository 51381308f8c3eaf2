"""The installed `trusted-memory` command over stdio, driven by the real SDK client."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.session import IncomingMessage

from trusted_memory.server.actions import ACTIONS

from ._support import child_env, console_script

pytestmark = pytest.mark.e2e

# Made-up credentials in the formats the scanner knows (no placeholder words, so they count as real).
FAKE_OPENAI_KEY = "sk-proj-" + "Qx7vR2mK9pL4wN8tZ3bY6cH1dF5gJ0sA"
FAKE_AWS_KEY = "AKIA" + "Z7Q3N5X2R8W4T6Y1"


@asynccontextmanager
async def stdio_server(
    tmp_path: Path,
    *,
    mode: str = "auto",
    extra_env: Mapping[str, str] | None = None,
    command: str | None = None,
    args: list[str] | None = None,
) -> AsyncIterator[Client]:
    """A connected SDK client on a fresh `trusted-memory` child; fails the test on any non-protocol stdout line."""
    exe = console_script("trusted-memory")
    params = StdioServerParameters(
        command=command or str(exe),
        args=args or [],
        env=child_env(tmp_path / "home", extra_env),
        cwd=str(tmp_path),
    )
    transport_errors: list[Exception] = []

    async def on_message(message: IncomingMessage) -> None:
        # A stdout line that is not JSON-RPC reaches the client as an Exception item.
        if isinstance(message, Exception):
            transport_errors.append(message)

    with (tmp_path / "server-stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, message_handler=on_message) as client:
            yield client
    assert transport_errors == [], f"server wrote non-protocol output on stdout: {transport_errors!r}"


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_tool_list_is_the_action_registry(tmp_path: Path) -> None:
    async with stdio_server(tmp_path) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == ["memory"]
        action = tools[0].input_schema["properties"]["action"]
        assert action["type"] == "string"
        assert len(action["enum"]) == len(set(action["enum"]))
        assert set(action["enum"]) == set(ACTIONS)
        assert tools[0].input_schema["required"] == ["action"]
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"memory://facts/user", "memory://facts/env", "memory://stats"} <= uris


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_add_then_read_round_trip(tmp_path: Path, mode: str) -> None:
    async with stdio_server(tmp_path, mode=mode) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.protocol_version == expected
        added = await client.call_tool(
            "memory", {"action": "add", "target": "user", "content": "Prefers tabs over spaces"}
        )
        assert not added.is_error, _text(added)
        assert added.structured_content is not None
        assert added.structured_content["status"] == "added"

        read = await client.call_tool("memory", {"action": "read"})
        assert not read.is_error, _text(read)
        data = read.structured_content
        assert data is not None
        assert [e["content"] for e in data["entries"]] == ["Prefers tabs over spaces"]
        assert "Prefers tabs over spaces" in data["rendered"]
        assert {u["target"] for u in data["usage"]} == {"user", "env"}

        resource = await client.read_resource("memory://facts/user")
        assert "Prefers tabs over spaces" in resource.contents[0].text  # type: ignore[union-attr]

    # The store outlives the process: a second server reads what the first wrote.
    async with stdio_server(tmp_path, mode=mode) as client:
        read = await client.call_tool("memory", {"action": "read", "target": "user"})
        assert [e["content"] for e in read.structured_content["entries"]] == ["Prefers tabs over spaces"]


@pytest.mark.anyio
async def test_overflowing_the_cap_lists_the_entries(tmp_path: Path) -> None:
    async with stdio_server(tmp_path, extra_env={"MCP_MEMORY_FACTS__USER_CAP": "200"}) as client:
        first, second = "Works mostly in Rust and Python", "Lives in Lisbon, timezone Europe/Lisbon"
        for content in (first, second):
            r = await client.call_tool("memory", {"action": "add", "target": "user", "content": content})
            assert not r.is_error, _text(r)
        r = await client.call_tool("memory", {"action": "add", "target": "user", "content": "x" * 150})
        assert r.is_error
        text = _text(r)
        assert "of 200 chars" in text
        assert f"#1 ({len(first)} chars) '{first}'" in text
        assert re.search(r"#2 \(\d+ chars\) 'Lives in Lisbon", text), text
        assert "action=remove" in text
        read = await client.call_tool("memory", {"action": "read", "target": "user"})
        assert len(read.structured_content["entries"]) == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("secret", "kind"),
    [(FAKE_OPENAI_KEY, "OpenAI-style API key"), (FAKE_AWS_KEY, "AWS access key id")],
    ids=["openai", "aws"],
)
async def test_credentials_are_refused_naming_what_was_found(tmp_path: Path, secret: str, kind: str) -> None:
    async with stdio_server(tmp_path) as client:
        r = await client.call_tool(
            "memory",
            {"action": "add", "target": "env", "content": f"deploy with key {secret} please"},
        )
        assert r.is_error
        text = _text(r)
        assert "credential" in text and kind in text, text
        assert secret not in text  # the refusal never echoes the secret
        read = await client.call_tool("memory", {"action": "read"})
        assert read.structured_content["entries"] == []


@pytest.mark.anyio
async def test_python_dash_m_serves(tmp_path: Path) -> None:
    async with stdio_server(tmp_path, mode="legacy", command=sys.executable, args=["-m", "trusted_memory"]) as client:
        assert client.server_info is not None and client.server_info.name == "trusted-memory"
        assert [t.name for t in (await client.list_tools()).tools] == ["memory"]


@pytest.mark.sqlite_only  # the flag's folder holds the store only on SQLite (memory.db)
@pytest.mark.anyio
@pytest.mark.parametrize("where", ["before", "after"])
async def test_home_flag_wins_before_or_after_serve(tmp_path: Path, where: str) -> None:
    exe = console_script("trusted-memory")
    flag_home = tmp_path / "flag-home"
    args = ["--home", str(flag_home), "serve"] if where == "before" else ["serve", "--home", str(flag_home)]
    async with stdio_server(tmp_path, command=str(exe), args=args) as client:
        r = await client.call_tool("memory", {"action": "add", "target": "user", "content": "Uses the flag's store"})
        assert not r.is_error, _text(r)
    assert (flag_home / "memory.db").is_file()
    assert not (tmp_path / "home").exists()  # MCP_MEMORY_HOME lost to the flag


def _rpc(msg_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        message["id"] = msg_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


@pytest.mark.sqlite_only  # it reads the first migration's log; a test database is a copy of a migrated one
@pytest.mark.anyio
async def test_stdout_carries_only_protocol_and_logs_go_to_stderr(tmp_path: Path) -> None:
    """Raw pipe check: with INFO logging on, every stdout line is JSON-RPC and the logs are on stderr."""
    exe = console_script("trusted-memory")
    env = child_env(tmp_path / "home", {"MCP_MEMORY_LOG_LEVEL": "INFO"})
    requests = [
        _rpc(
            1,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}},
        ),
        _rpc(None, "notifications/initialized"),
        _rpc(
            2, "tools/call", {"name": "memory", "arguments": {"action": "add", "target": "env", "content": "Uses zsh"}}
        ),
        _rpc(3, "tools/call", {"name": "memory", "arguments": {"action": "read"}}),
    ]
    responses: dict[int, dict[str, Any]] = {}
    async with await anyio.open_process([str(exe)], env=env, cwd=tmp_path) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        stderr_chunks: list[bytes] = []

        async def drain_stderr() -> None:
            assert proc.stderr is not None
            async for chunk in proc.stderr:
                stderr_chunks.append(chunk)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(drain_stderr)
                # Requests in flight together run concurrently (MCP gives no order between them),
                # so the read goes out once the add has answered.
                for request in requests[:3]:
                    await proc.stdin.send(request)
                buffer = b""
                async for chunk in proc.stdout:
                    buffer += chunk
                    while b"\n" in buffer:
                        line, buffer = buffer.split(b"\n", 1)
                        message = json.loads(line)  # a non-JSON line fails the test here
                        assert message.get("jsonrpc") == "2.0", line
                        if "id" in message:
                            responses[message["id"]] = message
                            if message["id"] == 2:
                                await proc.stdin.send(requests[3])
                    if {1, 2, 3} <= responses.keys():
                        break
                await proc.stdin.aclose()  # EOF on stdin ends a stdio server
                rest = b""
                async for chunk in proc.stdout:
                    rest += chunk
                assert (buffer + rest).strip() == b"", f"stray bytes on stdout: {(buffer + rest)!r}"
                assert await proc.wait() == 0
    stderr = b"".join(stderr_chunks).decode(errors="replace")
    assert responses[1]["result"]["serverInfo"]["name"] == "trusted-memory"
    assert responses[2]["result"]["structuredContent"]["status"] == "added"
    assert [e["content"] for e in responses[3]["result"]["structuredContent"]["entries"]] == ["Uses zsh"]
    assert "migration" in stderr, stderr  # the INFO log line (store migrated) went to stderr, not stdout


def test_bad_setting_fails_on_stderr_with_nothing_on_stdout(tmp_path: Path) -> None:
    exe = console_script("trusted-memory")
    env = child_env(tmp_path / "home", {"MCP_MEMORY_SERVER__PORT": "notanumber"})
    done = subprocess.run(
        [str(exe)], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, check=False
    )
    assert done.returncode == 2
    assert done.stdout == b""
    err = done.stderr.decode()
    assert "server.port" in err and "notanumber" in err
    assert "Traceback" not in err
    assert not (tmp_path / "home" / "memory.db").exists()  # refused before touching the store


@pytest.mark.sqlite_only  # an unwritable folder fails the SQLite file; a PostgreSQL store lives in its database
def test_unopenable_store_fails_with_a_message(tmp_path: Path) -> None:
    exe = console_script("trusted-memory")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the store folder's parent should be")
    env = child_env(tmp_path / "home", {"MCP_MEMORY_HOME": str(blocker / "home")})
    done = subprocess.run(
        [str(exe)], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, check=False
    )
    assert done.stdout == b""
    err = done.stderr.decode()
    assert "cannot create the memory store" in err
    assert "Traceback" not in err, err
    assert done.returncode == 2
