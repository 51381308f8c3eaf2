"""Replay conversations from a chat export through the same pipeline as `observe` (import-chats).

A person runs this on their own history, so each user message is taken as the user's words
(`trusted_path`, actor `admin`), with the time it was written; the assistant's reply goes with it as
`assistant_reply`, and each conversation ends with `end_session`, so it gets its episode as a live
session would. Nothing is trusted that observe would not trust: pasted, quoted and tool text is
stripped from the user's words, and a turn with a tool call or an attached file marks its session
untrusted, which holds the episode for review (chats.py says what counts).

Re-importing is idempotent: every turn and conversation leaves an import key (`chat_imports`), and
a key the same person already recorded is skipped (another person's keys are not looked at, and
their session of the same chat is not touched: a person's session id names them). Turns a later
export adds to a conversation imported before are replayed into a session of their own
(`<product>:<id>+<n>`, and `@<person>`), since the first one already has its episode. Each turn's key
is recorded right after its turn, so an interrupted import resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ...heuristics import extract, strip_untrusted
from ...people import LOCAL, acting_owner
from ...store.base import now
from ...timefmt import iso_utc
from ..runtime import Runtime
from ..session import indirect_reason
from ..turns import is_trivial
from ..wiring import build_services
from .chats import ChatFile, Conversation

SAMPLE = 8


@dataclass(frozen=True, slots=True)
class PlannedConversation:
    """The turns of one conversation not imported yet, and the session they go to."""

    conversation: Conversation
    session_id: str
    turns: tuple[int, ...]  # indexes into conversation.turns
    untrusted: str | None  # why observe's rules will mark the session untrusted, if they will


@dataclass(frozen=True, slots=True)
class ChatPlan:
    """What an import would do, before anything is written."""

    file: ChatFile
    planned: tuple[PlannedConversation, ...]
    already: int  # turns already imported (skipped)

    @property
    def turns(self) -> int:
        """How many turns would be replayed."""
        return sum(len(p.turns) for p in self.planned)


@dataclass(frozen=True, slots=True)
class Preview:
    """What a dry run shows: what would be formed (by the same rules observe applies), and a sample."""

    conversations: int
    turns: int
    already_imported: int
    typed_atoms: dict[str, int]
    turn_memories: int
    untrusted_sessions: int
    episodes_at_most: int
    sample: tuple[tuple[str, str, str], ...]  # (date, type, text)


@dataclass(frozen=True, slots=True)
class ChatReport:
    """What an import did."""

    source: str
    format: str
    conversations: int
    turns: int
    already_imported: int
    atoms: dict[str, int] = field(default_factory=dict)  # write status -> count
    episodes_live: int = 0
    episodes_held: int = 0
    untrusted_sessions: int = 0
    seconds: float = 0.0


async def plan_chats(runtime: Runtime, chats: ChatFile) -> ChatPlan:
    """Which turns of the file are new to the acting person (by their import keys: another person's
    import of the same chat is neither skipped nor told of)."""
    person = acting_owner()
    keys = [t.key for c in chats.conversations for t in c.turns] + [c.key for c in chats.conversations]
    async with runtime.store.read() as rx:
        known = await rx.transfer.known_keys(keys)
    planned: list[PlannedConversation] = []
    already = 0
    for conv in chats.conversations:
        seen: set[str] = set()
        fresh: list[int] = []
        for index, turn in enumerate(conv.turns):
            if turn.key in known or turn.key in seen:
                already += 1
            else:
                fresh.append(index)
            seen.add(turn.key)
        if not fresh:
            continue
        session_id = conv.session_id(fresh[0] if conv.key in known else 0, None if person == LOCAL else person)
        events = [e for i in fresh for e in conv.turns[i].tool_events]
        planned.append(PlannedConversation(conv, session_id, tuple(fresh), indirect_reason(events, None)))
    return ChatPlan(chats, tuple(planned), already)


def preview(plan: ChatPlan, sample: int = SAMPLE) -> Preview:
    """What the import would form, read with observe's own rules, without writing anything."""
    typed: Counter[str] = Counter()
    turn_memories = 0
    shown: list[tuple[str, str, str]] = []
    for item in plan.planned:
        for index in item.turns:
            turn = item.conversation.turns[index]
            own = strip_untrusted(turn.user_text)
            date = iso_utc(turn.said_at)
            for found in extract(own):
                typed[found.type] += 1
                if len(shown) < sample:
                    shown.append((date, found.type, found.text))
            if own.strip() and not is_trivial(own, None):
                turn_memories += 1
                if len(shown) < sample:
                    shown.append((date, "turn", own.strip()))
    return Preview(
        len(plan.planned),
        plan.turns,
        plan.already,
        dict(typed.most_common()),
        turn_memories,
        sum(1 for p in plan.planned if p.untrusted),
        sum(1 for p in plan.planned if len(p.turns) >= 3),
        tuple(shown),
    )


def _import_settings(runtime: Runtime) -> Runtime:
    # The idle sweep would end a replayed session between its turns (its turns are months old), and
    # ending happens here anyway, once the conversation is in.
    settings = runtime.settings
    sessions = dataclasses.replace(settings.sessions, idle_end_days=0)
    return dataclasses.replace(runtime, settings=dataclasses.replace(settings, sessions=sessions))


async def apply_chats(
    runtime: Runtime, plan: ChatPlan, progress: Callable[[int, str], None] | None = None
) -> ChatReport:
    """Replay every planned turn through observe, end each conversation's session, record the keys."""
    started = now()
    services = build_services(_import_settings(runtime))
    store = runtime.store
    statuses: Counter[str] = Counter()
    live = held = untrusted = 0
    for item in plan.planned:
        conv = item.conversation
        for index in item.turns:
            turn = conv.turns[index]
            result = await services.sessions.observe(
                item.session_id,
                turn.user_text,
                assistant_reply=turn.reply or None,
                tool_events=turn.tool_events[:50],
                actor="admin",
                trusted_path=True,
                said_at=turn.said_at,
            )
            statuses.update(w.status for w in result.atoms)
            async with store.write() as tx:
                await tx.transfer.record_keys([(turn.key, item.session_id, now())])
            if progress is not None:
                progress(1, conv.title or conv.id)
        session = await services.sessions.session(item.session_id)
        untrusted += session.untrusted
        ended = await services.sessions.end_session(item.session_id, actor="admin")
        if ended.episode is not None:
            live += ended.episode.status == "live"
            held += ended.episode.status != "live"
        async with store.write() as tx:
            await tx.transfer.record_keys([(conv.key, item.session_id, now())])
            await tx.events.append(
                "admin",
                "chat_imported",
                f"session:{item.session_id}",
                {
                    "source": plan.file.source,
                    "format": plan.file.format,
                    "conversation": conv.id,
                    "title": conv.title,
                    "turns": len(item.turns),
                    "first_turn_at": iso_utc(conv.turns[item.turns[0]].said_at),
                },
            )
    await runtime.background.drain()
    return ChatReport(
        plan.file.source,
        plan.file.format,
        len(plan.planned),
        plan.turns,
        plan.already,
        dict(statuses),
        live,
        held,
        untrusted,
        now() - started,
    )
