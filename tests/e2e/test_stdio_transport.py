"""The stdio transport of the installed `trusted-memory` (server/stdio.py) at the byte level.

Pipes are served by our own transport on the event loop's pipes: one JSON-RPC message a line, a
line that is not one skipped without an answer, a last line without its newline still served, and
every request read before end of input answered before the server exits. A regular file as stdin
falls back to the SDK's transport, whose session cancels what is still running at end of input
(so only the framing is checked there).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ._support import child_env, console_script

pytestmark = pytest.mark.e2e


def _rpc(request_id: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return json.dumps(message)


SESSION = "\n".join(
    [
        "this line is not JSON-RPC",
        _rpc(
            1,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}},
        ),
        _rpc(None, "notifications/initialized"),
        _rpc(
            2, "tools/call", {"name": "memory", "arguments": {"action": "add", "target": "env", "content": "Uses fish"}}
        ),
        _rpc(3, "ping"),  # the last line, without its newline
    ]
)


def _responses(stdout: bytes) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for line in stdout.decode().splitlines():
        message = json.loads(line)  # every stdout line is one JSON-RPC message
        assert message["jsonrpc"] == "2.0", line
        out[message["id"]] = message
    return out


def _check(responses: dict[int, dict[str, Any]]) -> None:
    assert sorted(responses) == [1, 2, 3]  # nothing answers the junk line; nothing is lost at end of input
    assert responses[1]["result"]["serverInfo"]["name"] == "trusted-memory"
    assert responses[2]["result"]["structuredContent"]["status"] == "added"
    assert responses[3]["result"] == {}


def test_a_piped_session_is_framed_and_answered_in_full(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(console_script("trusted-memory"))],
        input=SESSION.encode(),
        env=child_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    _check(_responses(done.stdout))


# The SDK's fallback transport answers a request still running at end of input with 'Connection
# closed'; an add on PostgreSQL runs longer than the input lasts.
@pytest.mark.sqlite_only
def test_a_regular_file_as_stdin_falls_back_to_the_sdk_transport(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text(SESSION)
    with requests.open("rb") as stdin:
        done = subprocess.run(
            [str(console_script("trusted-memory"))],
            stdin=stdin,
            env=child_env(tmp_path / "home"),
            cwd=tmp_path,
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    answered = _responses(done.stdout)  # only JSON-RPC on stdout, and nothing for the junk line
    assert set(answered) <= {1, 2, 3} and answered, done.stderr.decode()
    assert all("result" in message for message in answered.values()), answered


def _serve_and_measure(tmp_path: Path, chunks: list[bytes], env: dict[str, str] | None = None) -> tuple[bytes, int]:
    """Feed the installed server these bytes through a pipe; its stdout and its peak RSS (KiB)."""
    import os
    import threading

    tmp_path.mkdir(exist_ok=True)
    child = subprocess.Popen(
        [str(console_script("trusted-memory"))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**child_env(tmp_path / "home"), **(env or {})},
        cwd=tmp_path,
    )
    assert child.stdin is not None and child.stdout is not None
    collected: list[bytes] = []
    reader = threading.Thread(target=lambda: collected.append(child.stdout.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    for chunk in chunks:
        child.stdin.write(chunk)
    child.stdin.close()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    reader.join(timeout=30)
    child.stdout.close()
    assert child.returncode == 0
    return b"".join(collected), usage.ru_maxrss


INITIALIZE = _rpc(
    1,
    "initialize",
    {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}},
)


def test_a_message_over_the_limit_is_answered_with_its_id_and_the_session_goes_on(tmp_path: Path) -> None:
    content = "x" * (80 * 1024)  # over a 64 KiB limit
    too_big = _rpc(
        2, "tools/call", {"name": "memory", "arguments": {"action": "add", "target": "env", "content": content}}
    )
    session = "\n".join(
        [
            INITIALIZE,
            _rpc(None, "notifications/initialized"),
            too_big,
            _rpc(
                3,
                "tools/call",
                {"name": "memory", "arguments": {"action": "add", "target": "env", "content": "Uses fish"}},
            ),
            _rpc(4, "ping"),
        ]
    )
    stdout, _ = _serve_and_measure(
        tmp_path,
        [session.encode()[i : i + 7000] for i in range(0, len(session), 7000)],
        {"MCP_MEMORY_SERVER__MAX_BODY_KB": "64"},
    )
    answered = _responses(stdout)
    assert sorted(answered) == [1, 2, 3, 4]
    refusal = answered[2]["error"]
    assert refusal["code"] == -32600 and "64 KiB" in refusal["message"] and "max_body_kb" in refusal["message"]
    assert refusal["data"]["size_bytes"] > 80 * 1024
    assert answered[3]["result"]["structuredContent"]["status"] == "added"  # the session went on
    assert answered[4]["result"] == {}


def test_a_line_that_never_ends_is_not_buffered(tmp_path: Path) -> None:
    # 96 MiB with no newline, then a ping: the server drops the bytes as they come (default limit 1 MiB).
    block = b"a" * (1024 * 1024)
    ping = (_rpc(2, "ping") + "\n").encode()
    _, idle_kib = _serve_and_measure(tmp_path / "idle", [(INITIALIZE + "\n").encode(), ping])
    stdout, peak_kib = _serve_and_measure(
        tmp_path / "long", [(INITIALIZE + "\n").encode(), *([block] * 96), b"\n", ping]
    )
    lines = [json.loads(line) for line in stdout.decode().splitlines()]
    unknown = [m for m in lines if m.get("id") is None]
    assert len(unknown) == 1 and unknown[0]["error"]["data"]["size_bytes"] == 96 * 1024 * 1024 + 1
    assert {m["id"] for m in lines if m.get("id") is not None} == {1, 2}
    # Holding the line would add 96 MiB or more (copies aside) to what the same session costs without it.
    assert peak_kib - idle_kib < 32 * 1024, (idle_kib, peak_kib)
