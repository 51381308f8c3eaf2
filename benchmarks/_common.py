"""Shared helpers of the benchmark scripts: machine facts, stores with seeded memories, tables."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def machine() -> str:
    """One line naming this machine, for results tables."""
    cpu = platform.processor() or platform.machine()
    return f"{platform.system()} {platform.machine()} ({cpu}), {os.cpu_count()} cores, Python {platform.python_version()}"


def today() -> str:
    """The date for results tables."""
    return time.strftime("%Y-%m-%d")


def load_jsonl(path: Path) -> list[dict[str, object]]:
    """Every JSON object of a JSONL file."""
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def backdate(db_path: Path, created: dict[str, float]) -> None:
    """Set atoms' creation times (benchmark set-up only: the product never rewrites history)."""
    conn = sqlite3.connect(db_path)
    try:
        conn.executemany("UPDATE atoms SET created_at = ?, updated_at = ? WHERE id = ?",
                         [(ts, ts, atom_id) for atom_id, ts in created.items()])
        conn.commit()
    finally:
        conn.close()


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row) + " |")
    return "\n".join(lines)


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]
