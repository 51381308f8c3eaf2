"""Source-class rules: what may become trusted memory, and what must wait for a human. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from .model import SOURCE_CLASSES, TAINTED_SOURCES, TRUSTED_SOURCES

AGENT_DECLARABLE: tuple[str, ...] = ("user_said", *TAINTED_SOURCES)
"""`user_approved` is set only by a human promoting or confirming, never declared by the agent."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a new atom lands: live memory, or quarantine with a reason."""

    status: str
    reason: str | None

    @property
    def quarantined(self) -> bool:
        """True when the atom waits for human review."""
        return self.status == "quarantined"


LIVE = Placement("live", None)
# Why an agent's write to the team's global memory waits (services/atoms.py): an admin approves it.
TEAM_REVIEW = "team_review"


def is_trusted(source_class: str) -> bool:
    """True for the source classes whose content may be recalled."""
    return source_class in TRUSTED_SOURCES


def is_known_source(source_class: str) -> bool:
    """True for a source class of the closed vocabulary."""
    return source_class in SOURCE_CLASSES


def place(source_class: str, *, scan_failed: bool, strict_agent_writes: bool) -> Placement:
    """Decide where an agent-declared write lands.

    Order matters: a scan failure is reported as such even for trusted sources, so that a
    false positive can be reviewed; strict mode holds every agent-declared write.
    """
    if scan_failed:
        return Placement("quarantined", "scan_rejected")
    if not is_trusted(source_class):
        return Placement("quarantined", "tainted")
    if strict_agent_writes:
        return Placement("quarantined", "strict_mode")
    return LIVE


def trust_boost(source_class: str) -> float:
    """The retention multiplier of a source class: 1 for trusted memory, 0 for tainted."""
    return 1.0 if is_trusted(source_class) else 0.0
