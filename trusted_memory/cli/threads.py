"""Process set-up shared by the entry points."""

from __future__ import annotations

import os

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded_blas() -> None:
    """One BLAS thread unless the user chose otherwise: vector search is memory-bound, and extra
    threads only fight the event loop and SQLite's thread for the cores (measured: ~2x CPU per query).
    Must run before numpy is first imported."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
