"""SQL for the memory-LLM call counters: outcomes by job, shared by every process on the store."""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from .conn import Connection


@dataclass(frozen=True, slots=True)
class LLMCallCount:
    """How often one job ended in one outcome, and the last error it gave."""

    job: str
    outcome: str
    count: int
    last_at: float
    last_error: str | None


class LLMCallsRepo:
    """Rows of llm_calls."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def add(self, job: str, outcome: str, n: int, error: str | None, ts: float) -> None:
        """Count `n` more outcomes; a new error replaces the kept one."""
        await self._conn.send(
            "INSERT INTO llm_calls(job, outcome, count, last_at, last_error) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(job, outcome) DO UPDATE SET count = count + excluded.count, "
            "last_at = excluded.last_at, last_error = COALESCE(excluded.last_error, last_error)",
            (job, outcome, n, ts, error),
        )

    async def counts(self) -> builtins.list[LLMCallCount]:
        """Every (job, outcome) counter, by job then outcome."""
        async with self._conn.execute(
            "SELECT job, outcome, count, last_at, last_error FROM llm_calls ORDER BY job, outcome"
        ) as cur:
            return [
                LLMCallCount(str(r[0]), str(r[1]), int(r[2]), float(r[3]), None if r[4] is None else str(r[4]))
                for r in await cur.fetchall()
            ]
