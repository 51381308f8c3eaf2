"""What each action of the `memory` tool does: one handler per action, over the agent service.

A handler takes the action's validated parameters (params.py) and returns the one result shape
(results.py); the registry in actions.py pairs them up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from ..errors import InvalidInput, NotFound, TrustRefused
from ..model import TARGETS
from ..queries import AtomFilter
from ..services.agent import AgentService
from ..services.atoms import AtomDraft, AtomWrite
from ..services.facts import FactWrite
from ..services.recall_types import Hit, RecallQuery
from ..services.session import ToolEvent
from ..services.stats import llm_jobs
from ..services.turns import dated_text, said_on
from ..timefmt import age
from .params import (
    AddAtomParams,
    AddParams,
    ConsolidateParams,
    ContextParams,
    EndSessionParams,
    GatedParams,
    IdParams,
    ListAtomsParams,
    ListQuarantineParams,
    NoParams,
    ObserveParams,
    ReadParams,
    RemoveParams,
    ReplaceParams,
    ReviewIdParams,
    SearchAtomsParams,
    SearchParams,
)
from .results import (
    QUARANTINE_NOTICE,
    RECALL_NOTICE,
    HitOut,
    MemoryResult,
    atom_out,
    episode_out,
    fact_out,
    pending_out,
    session_out,
    stats_out,
    usage_out,
)

Handler = Callable[[AgentService, Any], Awaitable[MemoryResult]]

_RELATIVE_AGE = re.compile(r"^([0-9]{1,6})([hdwmy])$")  # ASCII digits only: str.isdigit() admits '²'


def _write_result(action: str, write: FactWrite) -> MemoryResult:
    return MemoryResult(
        action=action,
        status=write.status,
        message=write.message,
        target=write.target,
        entry=fact_out(write.entry, write.index) if write.entry is not None else None,
        usage=[usage_out(write.usage)],
        warning=write.usage.warning,
    )


async def add_fact(agent: AgentService, p: AddParams) -> MemoryResult:
    """Add a facts entry (or update the one its key names)."""
    write = await agent.add_fact(p.target, p.content, key=p.key, pinned=p.pinned, keywords=p.keywords)
    return _write_result("add", write)


async def replace_fact(agent: AgentService, p: ReplaceParams) -> MemoryResult:
    """Rewrite the facts entry old_text names."""
    return _write_result("replace", await agent.replace_fact(p.target, p.old_text, p.content))


async def remove_fact(agent: AgentService, p: RemoveParams) -> MemoryResult:
    """Delete the facts entry old_text names."""
    return _write_result("remove", await agent.remove_fact(p.target, p.old_text))


async def read_facts(agent: AgentService, p: ReadParams) -> MemoryResult:
    """The facts entries of one target or both, with usage against their caps."""
    targets = (p.target,) if p.target else TARGETS
    views = [await agent.read_facts(t) for t in targets]
    entries = [fact_out(e, i) for v in views for i, e in enumerate(v.entries, start=1)]
    warnings = [v.usage.warning for v in views if v.usage.warning]
    return MemoryResult(
        action="read",
        status="ok",
        message=f"{len(entries)} facts entr{'y' if len(entries) == 1 else 'ies'} in {', '.join(targets)}.",
        target=p.target,
        entries=entries,
        usage=[usage_out(v.usage) for v in views],
        rendered="\n\n".join(v.rendered for v in views),
        warning=" ".join(warnings) or None,
    )


async def consolidate(agent: AgentService, p: ConsolidateParams) -> MemoryResult:
    """Merge redundant entries of a facts target."""
    result = await agent.consolidate(p.target)
    view = await agent.read_facts(p.target)
    return MemoryResult(
        action="consolidate",
        status="merged" if result.merged else "unchanged",
        message=result.message + ".",
        target=p.target,
        usage=[usage_out(view.usage)],
        rendered=view.rendered,
    )


async def stats(agent: AgentService, p: NoParams) -> MemoryResult:
    """Store size, event count and facts usage."""
    stats = await agent.stats()
    jobs = llm_jobs(stats.llm_calls)
    model = ""
    if jobs:
        ok = sum(j.ok for j in jobs)
        ungrounded = sum(j.outcomes.get("ungrounded", 0) for j in jobs)
        model = (
            f" Memory model: {ok} of {sum(j.calls for j in jobs)} calls answered validly, "
            f"{ungrounded} item(s) discarded as ungrounded."
        )
    return MemoryResult(
        action="stats",
        status="ok",
        message=(
            f"store {stats.path}: {stats.size_bytes:,} bytes, {stats.events:,} events.{model}"
            if stats.counted_for is None
            else f"store {stats.path}: {stats.size_bytes:,} bytes (the whole store's, shared by the team); "
            f"{stats.events:,} events about {stats.counted_for}'s own records."
        ),
        usage=[usage_out(u) for u in stats.facts],
        stats=stats_out(stats),
    )


def _atom_write_result(write: AtomWrite) -> MemoryResult:
    return MemoryResult(action="add_atom", status=write.status, message=write.message, atom=atom_out(write.atom))


async def add_atom(agent: AgentService, p: AddAtomParams) -> MemoryResult:
    """Remember one atom; a quarantined one is reported by id only."""
    draft = AtomDraft(
        content=p.content,
        source=p.source,
        atom_type=p.atom_type,
        confidence=p.confidence,
        importance=p.importance,
        tags=p.tags or (),
        why=p.why,
        how_to_apply=p.how_to_apply,
        pinned=bool(p.pinned),
        scope=p.scope,
        project=p.project,
        session_id=p.session_id,
        turn=p.turn,
    )
    write = await agent.add_atom(draft)
    result = _atom_write_result(write)
    if write.atom.status == "quarantined":
        # The caller learns the id and why, not a copy of untrusted text presented as memory.
        result.atom = None
        result.notice = f"quarantined atom id: {write.atom.id}"
    return result


async def view(agent: AgentService, p: IdParams) -> MemoryResult:
    """One trusted atom, or else the episode the id (or session id) names."""
    try:
        atom = await agent.view_atom(p.id)
    except (NotFound, InvalidInput) as missing:
        try:
            episode = await agent.view_episode(p.id)  # an episode id, or the session id it summarises
        except NotFound:
            raise NotFound(f"no atom or episode {p.id!r}; search to find ids") from missing
        return MemoryResult(
            action="view",
            status="ok",
            message=f"episode {episode.id}",
            episode=episode_out(episode),
            notice=RECALL_NOTICE,
        )
    return MemoryResult(
        action="view", status="ok", message=f"atom {atom.id}", atom=atom_out(atom), notice=RECALL_NOTICE
    )


async def forget_atom(agent: AgentService, p: IdParams) -> MemoryResult:
    """Delete an atom."""
    atom = await agent.forget_atom(p.id)
    return MemoryResult(action="forget_atom", status="removed", message=f"forgot atom {atom.id}.")


async def pin_atom(agent: AgentService, p: IdParams) -> MemoryResult:
    """Pin a trusted atom."""
    atom = await agent.pin_atom(p.id)
    return MemoryResult(action="pin_atom", status="pinned", message=f"atom {atom.id} is pinned.", atom=atom_out(atom))


async def list_atoms(agent: AgentService, p: ListAtomsParams) -> MemoryResult:
    """Trusted atoms, filtered, newest first."""
    f = AtomFilter(
        types=tuple(p.types or ()), tags=tuple(t.lower() for t in p.tags or ()), project=p.project, scope=p.scope
    )
    atoms = await agent.list_atoms(f, limit=p.limit)
    return MemoryResult(
        action="list_atoms",
        status="ok",
        message=f"{len(atoms)} trusted atom(s), newest first.",
        atoms=[atom_out(a) for a in atoms],
        notice=RECALL_NOTICE,
    )


async def list_quarantine(agent: AgentService, p: ListQuarantineParams) -> MemoryResult:
    """Quarantined atoms, labelled as untrusted."""
    atoms = await agent.list_quarantine(limit=p.limit)
    return MemoryResult(
        action="list_quarantine",
        status="ok",
        message=f"{len(atoms)} quarantined atom(s) awaiting human review.",
        atoms=[atom_out(a) for a in atoms],
        notice=QUARANTINE_NOTICE,
    )


async def list_pending(agent: AgentService, p: NoParams) -> MemoryResult:
    """Inferences about the user awaiting the user's confirmation."""
    items = await agent.list_pending()
    return MemoryResult(
        action="list_pending_review",
        status="ok",
        message=f"{len(items)} inference(s) about the user awaiting review; only the user can confirm them "
        "(`trusted-memory-admin confirm <id>`), you may reject them.",
        pending=[pending_out(i) for i in items],
    )


async def reject_pending(agent: AgentService, p: ReviewIdParams) -> MemoryResult:
    """Reject an inference about the user."""
    item = await agent.reject_pending(p.review_id)
    return MemoryResult(action="reject_pending_review", status="removed", message=f"rejected pending review {item.id}.")


def _timestamp(name: str, value: str | None) -> float | None:
    """An ISO-8601 date/time, or a relative age like '7d', '12h', '2w', as epoch seconds."""
    if value is None:
        return None
    text = value.strip().lower()
    units = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400, "y": 365 * 86400}
    relative = _RELATIVE_AGE.match(text)
    if relative:
        return time.time() - int(relative.group(1)) * units[relative.group(2)]
    try:
        parsed = datetime.fromisoformat(text.upper() if "t" in text else text)
    except (ValueError, OverflowError) as exc:
        raise InvalidInput(
            f"{name} must be an ISO date like 2026-03-01 or an age like 7d / 12h; got {value!r}"
        ) from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _turn_time(value: str | None) -> float | None:
    """A turn's ISO 8601 time as epoch seconds; without a zone it is the speaker's local time."""
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except (ValueError, OverflowError, OSError) as exc:
        raise InvalidInput(
            f"timestamp must be an ISO 8601 time like 2023-05-08T14:30:00 (the turn's own time); got {value!r}"
        ) from exc


def _hit_out(hit: Hit) -> HitOut:
    return HitOut(
        kind="atom",
        id=hit.atom.id,
        type=hit.atom.type,
        text=dated_text(hit.atom),
        source_class=hit.atom.source_class,
        age=age(hit.atom.created_at),
        score=hit.score,
        matched=hit.matched,
        said=said_on(hit.atom),
        in_reply_to=hit.atom.cue,
    )


async def search_atoms(agent: AgentService, p: SearchAtomsParams) -> MemoryResult:
    """Hybrid search of trusted atoms, with filters."""
    filters = AtomFilter(
        types=tuple(t.strip().lower() for t in p.types or ()),
        tags=tuple(t.strip().lower() for t in p.tags or ()),
        project=p.project,
        scope=p.scope,
        since=_timestamp("since", p.since),
        until=_timestamp("until", p.until),
    )
    result = await agent.search_atoms(RecallQuery(p.query, k=p.k, filters=filters, budget_chars=p.budget_chars))
    return MemoryResult(
        action="search_atoms",
        status="ok",
        message=f"{len(result.hits)} memor{'y' if len(result.hits) == 1 else 'ies'} found ({result.mode} recall).",
        hits=[_hit_out(h) for h in result.hits],
        mode=result.mode,
        truncated=result.truncated,
        notice=RECALL_NOTICE,
    )


async def search(agent: AgentService, p: SearchParams) -> MemoryResult:
    """Search facts, episodes and atoms for one question, within one budget."""
    budget = p.budget_chars or agent.default_budget()
    facts = await agent.search_facts(p.query, limit=5)
    fact_hits = [
        HitOut(
            kind="fact",
            id=f"{entry.target}#{index}",
            type=f"{entry.target} fact",
            text=entry.content,
            source_class="facts",
            age=age(entry.updated_at),
            score=score,
            matched=why,
        )
        for entry, index, score, why in facts
    ]
    episode_hits = [
        HitOut(
            kind="episode",
            id=h.episode.id,
            type="episode",
            text=h.episode.summary,
            source_class=h.episode.source_class,
            age=age(h.episode.created_at),
            score=h.score,
            matched=h.matched,
        )
        for h in await agent.search_episodes(p.query, k=2)
    ]
    fact_hits += episode_hits
    spent = sum(len(h.text) + 60 for h in fact_hits)
    result = await agent.search_atoms(
        RecallQuery(
            p.query,
            k=p.k,
            filters=AtomFilter(project=p.project),
            budget_chars=max(200, budget - spent),
        )
    )
    hits = fact_hits + [_hit_out(h) for h in result.hits]
    n_facts = len(fact_hits) - len(episode_hits)
    return MemoryResult(
        action="search",
        status="ok",
        message=f"{n_facts} facts entr{'y' if n_facts == 1 else 'ies'}, "
        f"{len(episode_hits)} episode(s) and {len(result.hits)} atom(s) found.",
        hits=hits,
        mode=result.mode,
        truncated=result.truncated,
        notice=RECALL_NOTICE,
    )


async def observe(agent: AgentService, p: ObserveParams) -> MemoryResult:
    """Record one turn of the conversation."""
    events = [ToolEvent(e.tool, e.kind, e.url, e.path, e.server) for e in p.tool_events or ()]
    result = await agent.observe(
        p.session_id,
        p.user_message,
        assistant_reply=p.assistant_reply,
        tool_events=events,
        project=p.project,
        said_at=_turn_time(p.timestamp),
    )
    kept = [w for w in result.atoms if w.status in ("added", "existing") and w.atom.status == "live"]
    held = [w for w in result.atoms if w.atom.status != "live"]
    memories = f"{len(kept)} memor{'y' if len(kept) == 1 else 'ies'}"
    message = f"turn {result.session.turns} observed; {memories} from the user's words"
    if held:
        message += f", {len(held)} held for review"
    if result.untrusted_reason:
        message += f"; session marked untrusted ({result.untrusted_reason})"
    return MemoryResult(
        action="observe",
        status="ok",
        message=message + ".",
        session=session_out(result.session),
        atoms=[atom_out(w.atom) for w in kept],
        buffer=list(result.buffer_lines),
    )


async def context(agent: AgentService, p: ContextParams) -> MemoryResult:
    """The budgeted memory block for the user's message."""
    block = await agent.context(p.message, session_id=p.session_id, project=p.project, budget_chars=p.budget_chars)
    return MemoryResult(
        action="context",
        status="ok",
        message=f"memory block of {len(block.rendered):,} chars (budget {block.budget:,}).",
        rendered=block.rendered,
        sections=block.sections,
        notice=RECALL_NOTICE,
        intents=list(block.intents) or None,
        resolved=(f'"{block.resolution.pronoun}" -> #{block.resolution.atom_id}' if block.resolution else None),
        recap=block.recap.lines() if block.recap else None,
        nudge=block.nudge.text if block.nudge else None,
    )


async def end_session(agent: AgentService, p: EndSessionParams) -> MemoryResult:
    """Summarise a finished session into an episode."""
    result = await agent.end_session(p.session_id)
    return MemoryResult(
        action="end_session",
        status="ok" if result.episode else "skipped",
        message=result.reason + ".",
        episode=episode_out(result.episode) if result.episode else None,
    )


# Only an id-shaped value is echoed into the command the user is asked to run.
_SAFE_ID = re.compile(r"^[\w.:@/+-]{1,128}$")


def gated(action: str, command: str) -> Handler:
    """A handler that always refuses a human-only action, naming the admin command to give the user."""

    async def refuse(agent: AgentService, p: GatedParams) -> MemoryResult:
        target = next((t.strip() for t in (p.id, p.review_id, p.session_id) if t and _SAFE_ID.match(t.strip())), "<id>")
        raise TrustRefused(
            f"{action} is reserved for the user: it raises untrusted content to trusted memory, so no agent "
            f"may do it. Ask the user to run `{command.format(target)}` in a terminal."
        )

    return refuse
