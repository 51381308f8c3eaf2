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
