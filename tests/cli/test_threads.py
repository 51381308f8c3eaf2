"""The server's process set-up: malloc arenas."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

# Count glibc's arenas (malloc_info writes one <heap nr=...> per arena) after eight threads allocated.
_PROBE = textwrap.dedent(
    """
    import ctypes, sys, tempfile, threading
    from trusted_memory.cli.threads import fewer_malloc_arenas
    if sys.argv[1] == "cap":
        assert fewer_malloc_arenas(1)
    def work():
        keep = [bytearray(4096) for _ in range(2000)]
        barrier.wait()
        del keep
    barrier = threading.Barrier(8)
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    with tempfile.NamedTemporaryFile("r") as out:
        handle = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, ctypes.c_void_p(handle))
        libc.fclose(ctypes.c_void_p(handle))
        print(out.read().count("<heap nr="))
    """
)


def _arenas(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    run = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, env=env, check=True)
    return int(run.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_server_caps_malloc_arenas_before_its_threads_start() -> None:
    assert _arenas("default") > 1  # each allocating thread took an arena of its own
    assert _arenas("cap") == 1


def test_a_chosen_malloc_arena_max_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from trusted_memory.cli.threads import fewer_malloc_arenas

    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert fewer_malloc_arenas() is False


# Record OPENBLAS_NUM_THREADS at the moment numpy is first imported (the only moment numpy reads it).
_BLAS_PROBE = textwrap.dedent(
    """
    import importlib, os, sys
    seen = []
    class Watch:
        def find_spec(self, name, path=None, target=None):
            if name == "numpy" and not seen:
                seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
            return None
    sys.meta_path.insert(0, Watch())
    importlib.import_module(sys.argv[1])
    print(seen)
    """
)


@pytest.mark.parametrize("entry", ["trusted_memory.cli.serve", "trusted_memory.cli.admin", "trusted_memory.cli.hook"])
def test_every_entry_point_sets_one_blas_thread_before_numpy_is_imported(entry: str) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    run = subprocess.run(
        [sys.executable, "-c", _BLAS_PROBE, entry], capture_output=True, text=True, env=env, check=True
    )
    assert run.stdout.strip() in ("['1']", "[]")  # [] : this entry point does not import numpy at all
