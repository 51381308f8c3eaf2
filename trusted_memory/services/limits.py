"""Write-rate cap: a runaway agent cannot churn the store (a token bucket per process)."""

from __future__ import annotations

import time

from ..errors import RateLimited


class WriteRateLimiter:
    """Allows `per_minute` agent writes a minute, in bursts of up to that many."""

    def __init__(self, per_minute: int) -> None:
        self._capacity = float(per_minute)
        self._tokens = float(per_minute)
        self._rate = per_minute / 60.0
        self._last = time.monotonic()

    def take(self, action: str) -> None:
        """Spend one write, or refuse with how long to wait."""
        now = time.monotonic()
        self._tokens = min(self._capacity, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1.0:
            wait = (1.0 - self._tokens) / self._rate
            raise RateLimited(
                f"too many memory writes: more than {int(self._capacity)} a minute from this server. {action} was "
                f"not done; wait {wait:.1f} s, and store only what the user will need again."
            )
        self._tokens -= 1.0
