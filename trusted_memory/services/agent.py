"""The agent-side service: everything the MCP server may do, and nothing that raises trust.

The server is built on this object alone. It has no way to promote an atom, confirm an
inference, unpin, or change a source class; those live in services/admin/, which only the
admin CLI constructs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence

from ..errors import TrustRefused
from ..heuristics import strip_untrusted
from ..llm.base import MemoryLLM
from ..llm.jobs import extraction_prompt
from ..model import TARGETS, Atom, Episode, FactEntry, PendingReview, Session, SessionNote, Target
from ..queries import AtomFilter
from ..usermodel import UserModel
from .atoms import AtomDraft, AtomWrite
from .context import ContextBlock
from .episodes import EndResult, EpisodeHit
from .facts import ConsolidateResult, FactsView, FactWrite, check_target
from .people import PeopleDirectory
from .recall_types import RecallQuery, RecallResult
from .resume import Recap
from .runtime import Runtime
from .session import ObserveResult, ToolEvent, check_session_id
from .stats import StoreStats, store_stats
from .wiring import build_services

AUTO_CONSOLIDATE_EVERY_S = 60.0  # a target near its cap is tidied at most once a minute, not on every add

# What strict mode refuses the agent, and what to offer instead. Every other agent action either
# only reads, or lands where a person reviews it (quarantine, held episodes, pending reviews).
STRICT_REFUSALS: dict[str, str] = {
    "add": 'add facts. Ask the user to run `trusted-memory-admin facts add TARGET "TEXT"`, '
    "or store it with add_atom for review.",
    "replace": "rewrite facts. Ask the user to run `trusted-memory-admin facts remove TARGET TEXT` and "
    '`trusted-memory-admin facts add TARGET "TEXT"`, or store the correction with add_atom for review.',
    "remove": "remove facts. Ask the user to run `trusted-memory-admin facts remove TARGET TEXT`.",
    "consolidate": "consolidate facts (a merge rewrites and deletes entries). "
    "Ask the user to run `trusted-memory-admin consolidate TARGET`.",
    "forget_atom": "forget trusted atoms. Ask the user to run `trusted-memory-admin forget ID`.",
    "pin_atom": "pin atoms (a pin changes how trusted memory is kept, and only the user can undo it). "
    "Ask the user to run `trusted-memory-admin pin ID`.",
    "reject_pending_review": "reject inferences about the user (a rejection is permanent: it is never "
    "proposed again). Ask the user to run `trusted-memory-admin reject ID`, or `triage`.",
}


class AgentService:
    """Use cases open to the agent through MCP."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        services = build_services(runtime)
        self._facts = services.facts
        self._atoms = services.atoms
        self._episodes = services.episodes
        self._sessions = services.sessions
        self._user_state = services.user_state
        self._resume = services.resume

    def directory(self, static_token: str | None = None) -> PeopleDirectory:
        """Who requests act for: the server resolves each request's person here (people.py)."""
        return PeopleDirectory(self._runtime.store, static_token)

    @property
    def strict(self) -> bool:
        """True in strict mode (`trust.agent_writes = quarantine`)."""
        return self._runtime.settings.trust.agent_writes == "quarantine"

    def _refuse_in_strict_mode(self, action: str) -> None:
        # Strict mode: nothing the agent says counts as the user's word, and trusted memory has no
        # review queue for rewrites or deletions, so every agent change to it is refused and the
        # user is told the admin command that does it (STRICT_REFUSALS; SECURITY.md has the table).
        if self.strict:
            raise TrustRefused(
                f"this store is in strict mode (trust.agent_writes = quarantine): agents cannot "
                f"{STRICT_REFUSALS[action]}"
            )

    async def add_fact(
        self,
        target: str,
        content: str,
        *,
        key: str | None = None,
        pinned: bool | None = None,
        keywords: Sequence[str] | None = None,
    ) -> FactWrite:
        """Add (or upsert by key) a facts entry.

        A target past `facts.consolidate_at_pct` is tidied in the background.
        """
        self._runtime.writes.take("add")
        self._refuse_in_strict_mode("add")
        write = await self._facts.add(check_target(target), content, key=key, pinned=pinned, keywords=keywords)
        full = write.usage.pct >= self._runtime.settings.facts.consolidate_at_pct
        if write.status in ("added", "updated") and full and not self.strict:
            self._runtime.background.spawn_once(
                f"consolidate:{write.target}",
                lambda: self._facts.consolidate(write.target, actor="system"),
                every_s=AUTO_CONSOLIDATE_EVERY_S,
            )
        return write

    async def consolidate(self, target: str) -> ConsolidateResult:
        """Merge redundant entries of a facts target."""
        self._runtime.writes.take("consolidate")
        self._refuse_in_strict_mode("consolidate")
        return await self._facts.consolidate(check_target(target))

    async def replace_fact(self, target: str, old_text: str, content: str) -> FactWrite:
        """Rewrite the entry that `old_text` names."""
        self._runtime.writes.take("replace")
        self._refuse_in_strict_mode("replace")
        return await self._facts.replace(check_target(target), old_text, content)

    async def remove_fact(self, target: str, old_text: str) -> FactWrite:
        """Remove the entry that `old_text` names."""
        self._runtime.writes.take("remove")
        self._refuse_in_strict_mode("remove")
        return await self._facts.remove(check_target(target), old_text)

    async def read_facts(self, target: Target) -> FactsView:
        """Entries of one target, rendered."""
        return await self._facts.view(target)

    async def stats(self) -> StoreStats:
        """Sizes and counts of the store."""
        return await store_stats(self._runtime, self._facts)

    def store_changes(self, interval_s: float) -> AsyncIterator[None]:
        """Yields whenever another process may have written (see Store.changes)."""
        return self._runtime.store.changes(interval_s)

    async def change_counter(self) -> int:
        """How many write transactions the store has committed, in any process (one indexed read)."""
        async with self._runtime.store.read(snapshot=False) as rx:
            return await rx.change_counter()

    async def add_atom(self, draft: AtomDraft) -> AtomWrite:
        """Store an atom where the trust rules place it (live or quarantine)."""
        self._runtime.writes.take("add_atom")
        return await self._atoms.add(draft)

    async def view_atom(self, atom_id: str) -> Atom:
        """A live atom by id."""
        return await self._atoms.view(atom_id)

    async def forget_atom(self, atom_id: str) -> Atom:
        """Delete an unpinned atom (in strict mode, only one still in quarantine)."""
        self._runtime.writes.take("forget_atom")
        refusal = STRICT_REFUSALS["forget_atom"] if self.strict else None
        return await self._atoms.forget(atom_id, refuse_trusted=refusal)

    async def pin_atom(self, atom_id: str) -> Atom:
        """Pin a live atom."""
        self._runtime.writes.take("pin_atom")
        self._refuse_in_strict_mode("pin_atom")
        return await self._atoms.pin(atom_id)

    async def list_atoms(self, f: AtomFilter, *, limit: int = 50) -> list[Atom]:
        """Trusted atoms matching a filter."""
        return await self._atoms.list_live(f, limit=limit)

    async def list_quarantine(self, *, limit: int = 50) -> list[Atom]:
        """Quarantined atoms (untrusted data) awaiting human review."""
        return await self._atoms.list_quarantine(limit=limit)

    async def list_pending(self) -> list[PendingReview]:
        """Inferences about the user awaiting human review."""
        return await self._atoms.list_pending()

    async def reject_pending(self, review_id: str) -> PendingReview:
        """Drop an inference about the user."""
        self._runtime.writes.take("reject_pending_review")
        self._refuse_in_strict_mode("reject_pending_review")
        return await self._atoms.reject_pending(review_id)

    async def search_atoms(self, query: RecallQuery) -> RecallResult:
        """Hybrid recall over trusted atoms."""
        return await self._runtime.recall.search(query)

    async def search_facts(self, query: str, limit: int = 5) -> list[tuple[FactEntry, int, float, str]]:
        """Facts entries matching a query."""
        return await self._runtime.recall.search_facts(query, limit)

    def default_budget(self) -> int:
        """The configured character budget of recall replies."""
        return self._runtime.settings.recall.budget_chars

    async def observe(
        self,
        session_id: str,
        user_message: str,
        *,
        assistant_reply: str | None = None,
        tool_events: Sequence[ToolEvent] = (),
        project: str | None = None,
        said_at: float | None = None,
    ) -> ObserveResult:
        """Record one turn of a session (atoms from the user's words are agent-declared `user_said`)."""
        self._runtime.writes.take("observe")
        return await self._sessions.observe(
            session_id,
            user_message,
            assistant_reply=assistant_reply,
            tool_events=tool_events,
            project=project,
            said_at=said_at,
        )

    async def context(
        self,
        message: str,
        *,
        session_id: str | None = None,
        project: str | None = None,
        budget_chars: int | None = None,
    ) -> ContextBlock:
        """The budgeted memory block for a message."""
        return await self._sessions.context(message, session_id=session_id, project=project, budget_chars=budget_chars)

    async def end_session(self, session_id: str) -> EndResult:
        """Summarise and close a session."""
        self._runtime.writes.take("end_session")
        return await self._sessions.end_session(session_id)

    async def search_episodes(self, query: str, k: int = 3) -> list[EpisodeHit]:
        """Live episodes matching a query."""
        return await self._episodes.search(query, k)

    async def view_episode(self, key: str) -> Episode:
        """A live episode by id or session id."""
        return await self._episodes.view(key)

    async def episodes(self, limit: int = 50) -> list[Episode]:
        """Live episodes, newest first."""
        return await self._episodes.listing(limit=limit)

    async def session_notes(self, session_id: str) -> tuple[Session, list[str], list[SessionNote]]:
        """A session's buffer and notes."""
        return await self._sessions.notes(session_id)

    async def user_model(self) -> UserModel:
        """The user model as it applies now (validated on load; pending inferences not included)."""
        return await self._user_state.model()

    async def return_after_break(self, session_id: str | None = None) -> Recap | None:
        """Where the user left off, in the memory LLM's words when one is configured."""
        model = await self._user_state.model()
        recap = await self._resume.latest(check_session_id(session_id) if session_id else None, model)
        if recap is None:
            return None
        return await self._resume.phrased(recap, model)

    def with_llm(self, llm: MemoryLLM) -> AgentService:
        """The same service, with this call's memory LLM (the host's sampled answer)."""
        return AgentService(dataclasses.replace(self._runtime, llm=llm))

    async def job_prompt(
        self,
        action: str,
        *,
        user_message: str | None,
        session_id: str | None,
        target: str | None,
    ) -> tuple[str, str] | None:
        """The (system, user) prompt of the memory-LLM job an action would run, or None if it runs none."""
        if action == "observe" and user_message:
            return extraction_prompt(strip_untrusted(user_message), [])
        if action == "end_session" and session_id:
            return await self._episodes.prompt_for(session_id)
        if action == "consolidate" and target in TARGETS and not self.strict:  # refused: ask the host nothing
            return await self._facts.consolidation_prompt_for(check_target(target))
        return None
