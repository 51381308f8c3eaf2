"""The direct path of `tools/call` (server/calls.py) answers byte for byte as the SDK's tool path does.

One installed `trusted-memory` on a pipe, one request at a time: each call is sent twice, once
plain (the direct path serves it) and once with an empty `_meta` (which the direct path leaves to
the SDK's tool layers), and the two `result`s must be the same bytes on the wire. The calls are
reads and refusals, so the first does not change what the second sees.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ._support import child_env, console_script

pytestmark = pytest.mark.e2e


class Pipe:
    """A JSON-RPC session over the server's stdin and stdout, one request answered before the next."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None) -> bytes:
        """The raw response line to one request."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.notify_raw(json.dumps(message))
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        assert line, "the server closed stdout"
        assert json.loads(line)["id"] == self._next_id, line
        return line

    def notify_raw(self, text: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(text.encode() + b"\n")
        self._process.stdin.flush()

    def result_bytes(self, line: bytes) -> bytes:
        """The response's `result` (or `error`) as it was on the wire, without its envelope."""
        head = b'{"jsonrpc":"2.0","id":' + str(self._next_id).encode() + b","
        assert line.startswith(head), line
        return line[len(head) :]


@contextmanager
def piped(tmp_path: Path, *, initialised: bool = True) -> Iterator[Pipe]:
    """The installed server on a pipe; initialised as a 2025-11-25 client unless told not to."""
    with subprocess.Popen(
        [str(console_script("trusted-memory"))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(tmp_path / "home", {"MCP_MEMORY_AGENT_WRITES_PER_MINUTE": "100000"}),
        cwd=tmp_path,
    ) as process:
        pipe = Pipe(process)
        if initialised:
            pipe.send(
                "initialize",
                {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}},
            )
            pipe.notify_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        try:
            yield pipe
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)


SETUP: list[dict[str, Any]] = [
    {"action": "add", "target": "env", "content": "Uses fish shell and Neovim"},
    {"action": "add_atom", "content": "I drink my café au lait ☕ at 7, naïvely early", "source": "user_said"},
    {
        "action": "add_atom",
        "content": "My sister Ana moved to Denver last May",
        "source": "user_said",
        "tags": ["family"],
    },
    {
        "action": "observe",
        "session_id": "s1",
        "user_message": "Been painting watercolours a lot lately, gonna try oils next",
        "assistant_reply": "Oils are a nice step up.",
    },
]

# Reads and refusals: each is sent twice and must come back the same both times.
PAIRED: list[dict[str, Any]] = [
    {"action": "stats"},
    {"action": "list_pending_review"},
    {"action": "list_atoms"},
    {"action": "list_atoms", "tags": '["family"]'},  # a list sent as JSON text: the SDK decodes it
    {"action": "search_atoms", "query": "café"},
    {"action": "search_atoms", "query": "where does my sister live", "k": 3},
    {"action": "search", "query": "painting"},
    {"action": "nope"},  # an unknown action
    {"action": "search_atoms", "query": "x", "kk": 3, "\n\n": 1},  # unknown parameters
    {"action": "search_atoms", "query": "x", "k": "ten"},  # a bad type
    {"action": "search_atoms"},  # a required parameter missing
    {"action": "add", "target": "user"},  # a write refused before it writes
    {"action": 42},  # not a string: the SDK's argument model refuses it on both paths
    {"query": "no action at all"},
]


def test_every_call_is_answered_the_same_on_both_paths(tmp_path: Path) -> None:
    with piped(tmp_path) as pipe:
        for arguments in SETUP:
            line = pipe.send("tools/call", {"name": "memory", "arguments": arguments})
            assert b'"isError":false' in line, line
        for arguments in PAIRED:
            direct = pipe.result_bytes(pipe.send("tools/call", {"name": "memory", "arguments": arguments}))
            sdk = pipe.result_bytes(pipe.send("tools/call", {"name": "memory", "arguments": arguments, "_meta": {}}))
            assert direct == sdk, arguments
        # What the SDK alone answers is still the SDK's: an unknown tool, arguments that are not an object.
        for params in ({"name": "nope", "arguments": {}}, {"name": "memory", "arguments": ["stats"]}):
            line = pipe.send("tools/call", params)
            assert b'"isError":true' in line or b'"error":{' in line, line


def test_a_call_before_initialize_is_refused_as_the_sdk_refuses_it(tmp_path: Path) -> None:
    with piped(tmp_path, initialised=False) as pipe:
        plain = pipe.result_bytes(pipe.send("tools/call", {"name": "memory", "arguments": {"action": "stats"}}))
        other = pipe.result_bytes(
            pipe.send("tools/call", {"name": "memory", "arguments": {"action": "stats"}, "_meta": {}})
        )
    assert plain == other and plain.startswith(b'"error":{'), plain
