"""Query values the outer layers build and the store answers, so server/ and cli/ need not import store/."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["AtomFilter"]


@dataclass(frozen=True, slots=True)
class AtomFilter:
    """Which atoms a listing returns; every field narrows it."""

    status: str | None = "live"
    types: Sequence[str] = ()
    exclude_types: Sequence[str] = ()
    tags: Sequence[str] = ()
    project: str | None = None
    scope: str | None = None
    source_class: str | None = None
    since: float | None = None
    until: float | None = None
    include_expired: bool = False
