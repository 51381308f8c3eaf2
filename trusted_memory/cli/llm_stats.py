"""The memory-LLM section of `trusted-memory-admin stats`: calls by job and outcome, last errors."""

from __future__ import annotations

from typing import Any

from ..services.stats import StoreStats, llm_jobs
from .output import safe, table

# Columns in the order an operator reads them: did it answer, and if not, why.
COLUMNS = (
    "ok",
    "invalid",
    "timeout",
    "dropped",
    "unavailable",
    "scan_rejected",
    "empty",
    "error",
    "ungrounded",
    "kept",
)


def llm_stats_json(stats: StoreStats) -> dict[str, Any]:
    """The section as JSON: the provider and each job's counts."""
    return {
        "provider": stats.llm_provider,
        "jobs": [
            {"job": j.job, "calls": j.calls, "outcomes": j.outcomes, "last_error": j.last_error}
            for j in llm_jobs(stats.llm_calls)
        ],
    }


def print_llm_stats(stats: StoreStats) -> None:
    """Print the section (nothing when no model call was ever made)."""
    jobs = llm_jobs(stats.llm_calls)
    if not jobs:
        print(f"memory model  {stats.llm_provider}: no calls recorded")
        return
    print(f"memory model  {stats.llm_provider}")
    # One row a job with only the outcomes that happened: ten count columns do not fit 80 columns.
    table(
        ("job", "calls", "outcomes"),
        [
            (j.job, f"{j.calls:,}", ", ".join(f"{c} {j.outcomes[c]:,}" for c in COLUMNS if j.outcomes.get(c)) or "-")
            for j in jobs
        ],
        flexible=("outcomes",),
    )
    for j in jobs:
        if j.last_error:
            print(f"last error ({j.job}): {safe(j.last_error)}")
