"""How memory states time to a model: ISO timestamps and coarse ages. Pure."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def iso_utc(ts: float) -> str:
    """An epoch timestamp as ISO-8601 UTC, to the second."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def age(ts: float, now: float | None = None) -> str:
    """A coarse human age: '5m', '3h', '12d', '2y' (or 'now')."""
    seconds = max(0.0, (time.time() if now is None else now) - ts)
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"
