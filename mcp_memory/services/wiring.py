"""Builds the use-case services of one runtime once, for whichever front end needs them."""

from __future__ import annotations

from dataclasses import dataclass

from .atoms import AtomsService
from .episodes import EpisodesService
from .facts import FactsService
from .runtime import Runtime
from .session import SessionService


@dataclass(frozen=True, slots=True)
class Services:
    """The services over one runtime."""

    facts: FactsService
    atoms: AtomsService
    episodes: EpisodesService
    sessions: SessionService


def build_services(runtime: Runtime) -> Services:
    """Wire facts, atoms, episodes and sessions over the runtime's store, recall and LLM."""
    facts = FactsService(runtime.store, runtime.settings.facts, runtime.recall.similarities,
                         runtime.llm, runtime.llm_stats, runtime.settings.llm.timeout_s)
    atoms = AtomsService(runtime.store, runtime.settings, runtime.recall, runtime.budget)
    episodes = EpisodesService(runtime.store, runtime.settings, runtime.recall, atoms, runtime.llm, runtime.llm_stats)
    sessions = SessionService(runtime.store, runtime.settings, runtime.recall, atoms, facts, episodes,
                              runtime.llm, runtime.llm_stats, runtime.background)
    return Services(facts, atoms, episodes, sessions)
