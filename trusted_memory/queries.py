"""Query values the outer layers build and the store answers, so server/ and cli/ need not import store/."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .projects import project_name

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

    def __post_init__(self) -> None:
        # The one project naming rule (projects.py): a path or a differently-cased name finds the same atoms.
        object.__setattr__(self, "project", project_name(self.project))
