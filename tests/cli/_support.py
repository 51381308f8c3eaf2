"""Helpers for the admin CLI tests: seed a store through the services, run the real entry point."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from postgres_cluster import environ_for, store_env_for

from trusted_memory.cli.admin import main
from trusted_memory.config import Settings, load_settings
from trusted_memory.services.runtime import Runtime, open_runtime

T = TypeVar("T")
BIN = Path(sys.executable).parent

# Every kind of record the lossless export writes (besides its header).
ALL_KINDS = frozenset(
    {
        "fact",
        "atom",
        "pending",
        "user_model",
        "session",
        "session_note",
        "episode",
        "association",
        "vector",
        "nudge",
        "import_key",
        "event",
    }
)


def settings_for(home: Path) -> Settings:
    """Settings of a store folder, ignoring the developer's environment and project file (but for the
    store backend the test runs on, see conftest.store_env)."""
    return load_settings(environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home)}, cwd=home.parent)


def with_runtime(home: Path, work: Callable[[Runtime], Awaitable[T]]) -> T:
    """Open the store in `home`, run `work` on it, close it (for sync tests)."""

    async def go() -> T:
        async with open_runtime(settings_for(home)) as runtime:
            return await work(runtime)

    return asyncio.run(go())


def cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str, columns: int = 120) -> tuple[int, str, str]:
    """Run the admin CLI in-process on a console `columns` wide; returns (exit code, stdout, stderr)."""
    capsys.readouterr()
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)  # rich reads the width of a console that is not a terminal from here
    try:
        with environ_for(home):  # the store of this folder, on the test's backend
            code = main(["--home", str(home), *args])
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys: pytest.CaptureFixture[str], home: Path, *args: str, status: int = 0) -> Any:
    """Run a command with --json and parse its output; the command must exit with `status`."""
    code, out, err = cli(capsys, home, "--json", *args)
    assert code == status, err
    return json.loads(out)


def admin_script() -> Path:
    """The installed `trusted-memory-admin` next to this interpreter, or skip."""
    path = BIN / "trusted-memory-admin"
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.skip(f"trusted-memory-admin is not installed next to {sys.executable} (pip install -e .)")
    return path


def child_env(home: Path, store: dict[str, str] | None = None) -> dict[str, str]:
    """A minimal environment for a child process: PATH, an isolated HOME, the store folder, and the
    store backend (the test's, see conftest.store_env, unless `store` names another)."""
    if store is None:
        store = store_env_for(home)
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home.parent),
        "MCP_MEMORY_HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        **store,
    }


def run_script(
    home: Path, *args: str, stdin: bytes | None = None, store: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script with stdin not a terminal (`store`: see child_env)."""
    return subprocess.run(
        [str(admin_script()), *args],
        input=stdin.decode() if stdin is not None else None,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=child_env(home, store),
        timeout=60,
        check=False,
    )


class Pty:
    """The installed console script running on a pseudo-terminal, driven like a person would."""

    def __init__(self, home: Path, *args: str, columns: int = 160) -> None:
        import fcntl  # POSIX only, like the pseudo-terminal itself
        import struct
        import termios

        self.master, slave = os.openpty()
        # A terminal of 40 rows by `columns`, as a person's window would be (a new pty is 0 by 0).
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        self.proc = subprocess.Popen(
            [str(admin_script()), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            # rich sizes a "dumb" terminal at 80 columns whatever it is; NO_COLOR keeps the text greppable.
            env={**child_env(home), "TERM": "xterm-256color", "NO_COLOR": "1"},
            close_fds=True,
            start_new_session=True,
        )
        os.close(slave)
        self.output = ""
        self.seen = 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 4096)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not chunk:
            return False
        self.output += chunk.decode("utf-8", "replace")
        return True

    def expect(self, text: str, timeout: float = 20.0) -> str:
        """Wait until `text` appears after what was already matched; returns the output up to it."""
        deadline = time.monotonic() + timeout
        while text not in self.output[self.seen :]:
            if time.monotonic() > deadline or (not self._read(0.1) and text not in self.output[self.seen :]):
                raise AssertionError(f"never saw {text!r}; output so far:\n{self.output}")
        end = self.output.index(text, self.seen) + len(text)
        before, self.seen = self.output[self.seen : end], end
        return before

    def send(self, line: str) -> None:
        """Type a line and press Enter."""
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 20.0) -> tuple[int, str]:
        """Read to the end of the output; returns the exit code and the whole output."""
        deadline = time.monotonic() + timeout
        while self._read(0.1):
            if time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"the command did not finish; output:\n{self.output}")
        code = self.proc.wait(timeout=5)
        os.close(self.master)
        return code, self.output


def records(text: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL text."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def body(text: str) -> list[dict[str, Any]]:
    """The records of an export without its header and without the events this store's imports added."""
    return [
        r
        for r in records(text)[1:]
        if not (
            r["kind"] == "event" and r["actor"] == "admin" and (r["event_kind"] == "import" or "import" in r["detail"])
        )
    ]


def as_imported(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as an import stores them: each event recorded as imported, the rest as they are."""

    def one(r: dict[str, Any]) -> dict[str, Any]:
        if r["kind"] != "event" or (r["actor"], r["event_kind"]) == ("system", "imported_event"):
            return r
        claimed = {"actor": r["actor"], "kind": r["event_kind"], "detail": r["detail"]}
        return {**r, "actor": "system", "event_kind": "imported_event", "detail": claimed}

    return [one(r) for r in rows]


def export(home: Path, path: Path, *options: str) -> str:
    """Run the installed `trusted-memory-admin [OPTIONS] export PATH` (e.g. `--as bob`); the file's text."""
    done = run_script(home, *options, "export", str(path))
    assert done.returncode == 0, done.stderr
    return path.read_text()
