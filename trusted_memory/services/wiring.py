"""Builds the use-case services of one runtime once, for whichever front end needs them."""

from __future__ import annotations

from dataclasses import dataclass

from .anticipation import AnticipationService
from .atoms import AtomsService
from .context import ContextService
from .episodes import EpisodesService
from .facts import FactsService
from .nudges import NudgeService
from .resume import ResumeService
from .runtime import Runtime
from .session import SessionService
from .user_state import UserStateService


@dataclass(frozen=True, slots=True)
class Services:
    """The services over one runtime."""

    facts: FactsService
    atoms: AtomsService
    episodes: EpisodesService
    sessions: SessionService
    user_state: UserStateService
    anticipation: AnticipationService
    resume: ResumeService
    nudges: NudgeService


def build_services(runtime: Runtime) -> Services:
    """Wire every use case over the runtime's store, recall and LLM."""
    facts = FactsService(
        runtime.store,
        runtime.settings.facts,
        runtime.recall.similarities,
        runtime.llm,
        runtime.llm_stats,
        runtime.settings.llm.timeout_s,
    )
    atoms = AtomsService(runtime.store, runtime.settings, runtime.recall, runtime.budget)
    episodes = EpisodesService(runtime.store, runtime.settings, runtime.recall, atoms, runtime.llm, runtime.llm_stats)
    user_state = UserStateService(
        runtime.store, runtime.settings, atoms, runtime.llm, runtime.llm_stats, runtime.background
    )
    anticipation = AnticipationService(
        runtime.store, runtime.settings, runtime.recall, user_state, runtime.llm, runtime.llm_stats, runtime.background
    )
    resume = ResumeService(runtime.store, runtime.settings, runtime.llm, runtime.llm_stats)
    nudges = NudgeService(runtime.store, runtime.settings)
    context = ContextService(runtime.store, runtime.settings, facts, episodes, user_state, anticipation, resume, nudges)
    sessions = SessionService(
        runtime.store,
        runtime.settings,
        atoms,
        episodes,
        context,
        user_state,
        anticipation,
        resume,
        runtime.llm,
        runtime.llm_stats,
        runtime.background,
    )
    return Services(facts, atoms, episodes, sessions, user_state, anticipation, resume, nudges)
