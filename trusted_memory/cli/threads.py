"""Process set-up shared by the entry points."""

from __future__ import annotations

import os

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)
SERVER_MALLOC_ARENAS = 2


def single_threaded_blas() -> None:
    """One BLAS thread unless the user chose otherwise: the vector work is small products, and on a
    many-core host extra BLAS threads would only spin beside the event loop and SQLite's thread.
    Takes effect only before numpy is first imported (cli/__init__.py calls it)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def fewer_malloc_arenas(arenas: int = SERVER_MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas (unless MALLOC_ARENA_MAX chose): True if the cap was set.

    Nothing set it before: glibc allows 8 per core, and each thread that allocates (the event loop,
    SQLite's thread, the worker threads) gets an arena of its own whose freed blocks it keeps. With
    two, the server at 100k memories ends its benchmark ~2 MB smaller (benchmarks/RESULTS.md, issue
    13, seventh pass); the threads mostly take turns under the GIL, so they seldom wait for one.
    Must run before the threads start. Elsewhere than glibc this does nothing.
    """
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))
