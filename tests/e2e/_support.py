"""Helpers for the end-to-end tests: locate the installed scripts, run servers, clean up."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from postgres_cluster import store_env_for

BIN = Path(sys.executable).parent
START_DEADLINE_S = 20.0
STOP_TIMEOUT_S = 10.0


# A raw streamable-HTTP initialize, for tests that look at the status code before any session exists.
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}},
}


def console_script(name: str) -> Path:
    """The installed console script `name` next to this interpreter, or skip the test."""
    path = BIN / name
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.skip(f"console script {name!r} is not installed next to {sys.executable} (pip install -e .)")
    return path


def child_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment for a child server: PATH, an isolated HOME, and the store folder."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home.parent), "MCP_MEMORY_HOME": str(home)}
    env.update(store_env_for(home))  # the folder's store on the test's backend (conftest.store_env)
    env.update(extra or {})
    return env


def free_port(host: str = "127.0.0.1") -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def is_listening(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def stop(proc: subprocess.Popen[Any]) -> None:
    """Terminate a child, wait for it, kill it if it hangs; never leaves a zombie behind."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT_S)


@dataclass
class Served:
    """A running `trusted-memory serve` child."""

    proc: subprocess.Popen[bytes]
    host: str
    port: int
    stdout_path: Path
    stderr_path: Path

    @property
    def base(self) -> str:
        """The server's base URL."""
        return f"http://{self.host}:{self.port}"

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far."""
        return self.stderr_path.read_text(errors="replace")

    def stdout(self) -> str:
        """Everything the server wrote to stdout so far."""
        return self.stdout_path.read_text(errors="replace")


@contextmanager
def serve(
    workdir: Path,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    host: str = "127.0.0.1",
) -> Iterator[Served]:
    """Run `trusted-memory serve --host H --port P <args>` until it listens; stop it on exit."""
    exe = console_script("trusted-memory")
    port = free_port(host)
    workdir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = workdir / "stdout.txt", workdir / "stderr.txt"
    home = workdir / "home"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [str(exe), "serve", "--host", host, "--port", str(port), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=workdir,
            env=child_env(home, env),
        )
    served = Served(proc, host, port, out_path, err_path)
    try:
        deadline = time.monotonic() + START_DEADLINE_S
        while not is_listening(port, host):
            if proc.poll() is not None:
                pytest.fail(f"trusted-memory serve exited with {proc.returncode} before listening:\n{served.stderr()}")
            if time.monotonic() > deadline:
                pytest.fail(
                    f"trusted-memory serve did not listen on {port} within {START_DEADLINE_S}s:\n{served.stderr()}"
                )
            time.sleep(0.05)
        yield served
    finally:
        stop(proc)
