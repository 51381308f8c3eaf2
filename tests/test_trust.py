"""The trust rules, as a pure table."""

from __future__ import annotations

import pytest

from trusted_memory.model import TAINTED_SOURCES, TRUSTED_SOURCES
from trusted_memory.trust import AGENT_DECLARABLE, is_trusted, place, trust_boost


@pytest.mark.parametrize("source", TRUSTED_SOURCES)
def test_trusted_sources(source: str) -> None:
    assert is_trusted(source) and trust_boost(source) == 1.0
    assert place(source, scan_failed=False, strict_agent_writes=False).status == "live"


@pytest.mark.parametrize("source", TAINTED_SOURCES)
def test_tainted_sources_are_quarantined(source: str) -> None:
    assert not is_trusted(source) and trust_boost(source) == 0.0
    placement = place(source, scan_failed=False, strict_agent_writes=False)
    assert placement.quarantined and placement.reason == "tainted"


def test_scan_failure_wins_even_for_trusted_sources() -> None:
    placement = place("user_said", scan_failed=True, strict_agent_writes=False)
    assert placement.quarantined and placement.reason == "scan_rejected"


def test_strict_mode_holds_every_agent_write() -> None:
    placement = place("user_said", scan_failed=False, strict_agent_writes=True)
    assert placement.quarantined and placement.reason == "strict_mode"


def test_agent_cannot_declare_user_approved() -> None:
    assert "user_approved" not in AGENT_DECLARABLE
    assert "user_said" in AGENT_DECLARABLE
