"""Per-turn memory: observe a turn, render the budgeted context block, end a session.

`observe` never waits on an LLM: the heuristic extractor runs inline (well under a millisecond)
and, when a memory LLM is configured, its extraction runs in the background after the reply.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import anyio

from ..config import Settings
from ..errors import InvalidInput, MemoryServerError, NotFound
from ..grounding import check_grounded
from ..heuristics import Extracted, extract, note_category, one_line, strip_untrusted
from ..llm.base import LLMStats, MemoryLLM, NullLLM, run_job
from ..llm.jobs import PROMPT_EXAMPLES, RECENT_TURNS, ExtractionOut, extraction_prompt
from ..model import ATOM_TYPES, RELAYED_REASON, TURN_TYPE, Actor, Session, SessionNote
from ..people import LOCAL, Viewer, acting_as
from ..projects import project_name
from ..scan import redact_credentials, redact_credentials_unscanned, scan
from ..store.base import Store, now
from .anticipation import AnticipationService
from .atoms import NOTE_TEXT_MAX, AtomDraft, AtomsService, AtomWrite, footprint
from .background import Background
from .context import ContextBlock, ContextService
from .episodes import EndResult, EpisodesService, sentences
from .facts import preview
from .host_events import classify_tool
from .resume import ResumeService
from .turns import correction_of, cue_for, is_trivial, time_refs
from .user_state import UserStateService

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024
MAX_TURN_TEXT_BYTES = 4096
MAX_TOOL_EVENTS = 50
MAX_NOTES_PER_TURN = 5
# Below this many characters the rules cost well under a millisecond; a thread hop costs more.
OFF_LOOP_CHARS = 4096
IDLE_BATCH = 20  # idle sessions ended per pass (each may summarise a transcript)
IDLE_CHECK_EVERY_S = 3600.0
# A session this process observed this recently is not idle, whatever its turns' own times say
# (a replay with `said_at` dates its turns in the past while it is being observed).
IDLE_GRACE_S = 600.0
EARLIEST_TURN = 631152000.0  # 1990-01-01
DAY_S = 86400.0
# A raw turn is a weaker memory than a typed one recognised in it (extraction gives 0.7-0.9).
TURN_CONFIDENCE = 0.7
_SESSION_ID = re.compile(r"^[\w.:@/+-]{1,128}$")
# Tool activity that brings content from outside the user's own words into the session.
_INDIRECT_KINDS = {"network", "web", "fetch", "browser", "search", "mcp", "subagent", "agent", "email"}
_INDIRECT_TOOL = re.compile(r"web|fetch|brows|search|http|curl|wget|scrap|mcp__|subagent|task|agent|mail", re.I)


@dataclass(frozen=True, slots=True)
class ToolEvent:
    """One tool call the host reports with a turn (what it touched, not its output)."""

    tool: str
    kind: str | None = None
    url: str | None = None
    path: str | None = None
    server: str | None = None


@dataclass(frozen=True, slots=True)
class ObserveResult:
    """What one observed turn changed."""

    session: Session
    buffer_lines: tuple[str, ...]
    notes_added: int
    atoms: tuple[AtomWrite, ...]
    untrusted_reason: str | None
    llm_pending: bool


def check_session_id(session_id: str) -> str:
    """Validate a host's conversation id."""
    session_id = session_id.strip()
    if not _SESSION_ID.match(session_id):
        raise InvalidInput("session_id must be 1-128 letters, digits or . : @ / + - _ (the host's conversation id)")
    return session_id


def _check_text(name: str, text: str | None, *, required: bool) -> str:
    text = (text or "").strip()
    if required and not text:
        raise InvalidInput(f"{name} is empty; pass the user's message for this turn")
    if len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise InvalidInput(f"{name} is over {MAX_MESSAGE_BYTES // 1024} KiB; pass the message itself, not attachments")
    return text


def clip_bytes(text: str, limit: int = MAX_TURN_TEXT_BYTES) -> str:
    """At most `limit` UTF-8 bytes of text."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", errors="ignore") + "…"


def indirect_reason(events: Sequence[ToolEvent], project: str | None) -> str | None:
    """Why a turn's tool activity makes the session untrusted, or None."""
    for event in events:
        known = classify_tool(event.tool, {})
        if not known.report and known.scheduled is None and not event.url and not event.server:
            continue  # this server's own memory tool, or a local todo tool: nothing came in from outside
        kind = (event.kind or "").lower()
        if kind in _INDIRECT_KINDS or event.url or event.server or _INDIRECT_TOOL.search(event.tool):
            return f"tool {event.tool!r} brought in {kind or 'outside'} content"
        if (
            event.path
            and project
            and event.path.startswith("/")
            and not event.path.startswith(project.rstrip("/") + "/")
        ):
            return f"tool {event.tool!r} read {event.path} outside the project"
    return None


def check_said_at(said_at: float) -> float:
    """A turn's time: not in the future (a day's slack for clocks and zones), not before 1990."""
    if not math.isfinite(said_at) or said_at < EARLIEST_TURN or said_at > now() + DAY_S:
        raise InvalidInput("timestamp must be an ISO 8601 time between 1990 and now (the turn's own time)")
    return said_at


@dataclass(frozen=True, slots=True)
class TurnText:
    """What the rules read off one turn: buffer lines, notes, the transcript, the user's own words, atoms."""

    lines: list[str]
    notes: list[tuple[str, str]]
    transcript: list[tuple[str, str]]
    own_words: str
    extracted: list[Extracted]


def _read_turn(user_message: str, reply: str, clock: str) -> TurnText:
    own_words, reply_own = strip_untrusted(user_message), strip_untrusted(reply)  # once each
    # The words are scanned, not the line: its "HH:MM assistant" prefix is the server's own, and
    # the learned model read some clock-and-role prefixes as a forged transcript turn (round 8).
    scanned: set[str] = set()
    lines = []
    for role, said in (("user", user_message), ("assistant", reply)):
        if said:
            scanned.add(body := one_line(said))
            if not scan(body):
                lines.append(f"{clock} {role} {body}")
    notes: list[tuple[str, str]] = []
    for sentence in sentences(f"{own_words}\n{reply_own}"):
        category = note_category(sentence)
        text = preview(sentence, 300)
        if category and not scan(text) and (category, text) not in notes:
            scanned.add(text)
            notes.append((category, text))
    # The user's words are scanned whole again as their turn memory (the memo answers then); the
    # reply is not, so unless one of the scans above read it whole, only its credentials are looked for.
    transcript = [("user", clip_bytes(redact_credentials(own_words)))]
    if reply:
        redact = redact_credentials if reply_own in scanned else redact_credentials_unscanned
        transcript.append(("assistant", clip_bytes(redact(reply_own))))
    return TurnText(lines, notes, transcript, own_words, extract(own_words))


async def read_turn(user_message: str, reply: str, clock: str) -> TurnText:
    """Read a turn; a long one in a worker thread, so one big message does not stall other clients."""
    if len(user_message) + len(reply) < OFF_LOOP_CHARS:
        return _read_turn(user_message, reply, clock)
    return await anyio.to_thread.run_sync(_read_turn, user_message, reply, clock)


def _extracted_draft(
    item: Extracted, session: Session, said_at: float | None, dates: tuple[tuple[str, str], ...]
) -> AtomDraft:
    scoped = session.project is not None and item.type in ("convention", "file", "error", "decision")
    return AtomDraft(
        content=item.text,
        source="user_said",
        atom_type=item.type,
        confidence=item.confidence,
        tags=item.tags,
        session_id=session.id,
        turn=session.turns,
        project=session.project,
        scope="project" if scoped else "user",
        said_at=said_at,
        dates=dates,
    )


def _turn_text(own_words: str) -> str:
    """The user's turn as it is kept: their own words, credentials redacted, at most NOTE_TEXT_MAX."""
    return redact_credentials(own_words).strip()[:NOTE_TEXT_MAX].strip()


def _turn_draft(
    text: str, previous_reply: str | None, session: Session, said_at: float, dates: tuple[tuple[str, str], ...]
) -> AtomDraft | None:
    """The user's turn in their own words, unless it carries nothing to remember."""
    cue = cue_for(text, strip_untrusted(previous_reply) if previous_reply else None)
    if not text or is_trivial(text, cue):
        return None
    return AtomDraft(
        content=text,
        source="user_said",
        confidence=TURN_CONFIDENCE,
        session_id=session.id,
        turn=session.turns,
        project=session.project,
        scope="user",
        said_at=said_at,
        turn_memory=True,
        cue=cue,
        dates=dates,
    )


def _clock(ts: float) -> str:
    return time.strftime("%H:%M", time.localtime(ts))


class SessionService:
    """Observe turns, render context, end sessions."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        atoms: AtomsService,
        episodes: EpisodesService,
        context: ContextService,
        user_state: UserStateService,
        anticipation: AnticipationService,
        resume: ResumeService,
        llm: MemoryLLM | None = None,
        stats: LLMStats | None = None,
        background: Background | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        self._atoms = atoms
        self._episodes = episodes
        self._context = context
        self._user_state = user_state
        self._anticipation = anticipation
        self._resume = resume
        self._llm = llm or NullLLM()
        self._stats = stats or LLMStats()
        self._background = background or Background()
        self._observed_at: dict[str, float] = {}  # Session.key -> time.monotonic() of its latest turn here

    async def session(self, session_id: str) -> Session:
        """A known session."""
        async with self._store.read() as rx:
            session = await rx.sessions.get(check_session_id(session_id))
        if session is None:
            raise NotFound(f"no session {session_id!r}; call observe with it first")
        return session

    # observe -------------------------------------------------------------------------------
    async def observe(
        self,
        session_id: str,
        user_message: str,
        *,
        assistant_reply: str | None = None,
        tool_events: Sequence[ToolEvent] = (),
        project: str | None = None,
        actor: Actor = "agent",
        trusted_path: bool = False,
        said_at: float | None = None,
    ) -> ObserveResult:
        """Record one turn: buffer line, session notes, provenance, the user's turn and atoms from their words.

        `said_at` (epoch seconds) replays history with its real dates; by default the turn is now.
        """
        session_id = check_session_id(session_id)
        user_message = _check_text("user_message", user_message, required=True)
        reply = _check_text("assistant_reply", assistant_reply, required=False)
        if len(tool_events) > MAX_TOOL_EVENTS:
            raise InvalidInput(f"at most {MAX_TOOL_EVENTS} tool_events per turn; summarise the rest")
        given = (project or "").strip() or None
        project = project_name(given)  # one naming rule for hooks and agents (projects.py)
        ts = now() if said_at is None else check_said_at(said_at)
        read = await read_turn(user_message, reply, _clock(ts))
        lines, notes, own_words = read.lines, read.notes, read.own_words
        # Strict mode: what the agent relays is not the user's word, so neither is its episode nor
        # anything inferred from it. Tracked apart from the tool-event reason, which may come first.
        relayed = not trusted_path and self._settings.trust.agent_writes == "quarantine"
        # A file read outside the project folder is judged against the folder as given, not its name.
        reason = indirect_reason(tool_events, given) or (RELAYED_REASON if relayed else None)
        conf = self._settings.sessions
        strict = False if trusted_path else None
        said = datetime.fromtimestamp(ts)
        dates = time_refs(own_words, said)
        turn_text = _turn_text(own_words)
        texts = [e.text.strip() for e in read.extracted] + ([turn_text] if turn_text else [])
        # The whole turn is one write transaction: the session's rows, its events and every atom
        # (what the extractor found, then the turn itself), so a failure leaves none of it. What can
        # wait on anything but the store runs before it: a remote embedder, the size cap.
        await self._atoms.prepare(texts)
        await self._atoms.budget.make_room(footprint(texts))
        writes: list[AtomWrite] = []
        turn_write: AtomWrite | None = None
        async with self._atoms.writing() as tx:
            # The buffer lines are queued first, so they go out with the session's statements.
            await tx.sessions.push_lines(session_id, lines, conf.buffer_lines)
            before, session, previous_reply = await tx.sessions.open_turn(session_id, project, ts)
            resumed = None
            if self._settings.features.return_after_break:
                resumed = await self._resume.detect(session_id, before, ts, tx)
            marked = resumed is not None  # the row changed after touch read it back
            if resumed is not None:
                await tx.sessions.mark_resumed(session_id, turn=session.turns, gap_s=resumed[1], source=resumed[0])
            added = await tx.sessions.add_notes(
                session_id, notes[:MAX_NOTES_PER_TURN], ts, max_notes=conf.max_notes, max_chars=conf.max_note_chars
            )
            # The extractor's context: the turns before this one (as kept: redacted, clipped).
            earlier = await tx.sessions.recent_turns(session_id, RECENT_TURNS) if self._runs_llm() else []
            await tx.sessions.add_turns(session_id, read.transcript, ts)
            if reason and not session.untrusted:
                marked = True
                await tx.sessions.mark_untrusted(session_id, reason)
                await tx.events.record("system", "session_untrusted", f"session:{session_id}", {"reason": reason})
            if relayed and not session.relayed:
                marked = True
                await tx.sessions.mark_relayed(session_id)
                await tx.events.record("system", "session_relayed", f"session:{session_id}", {"reason": RELAYED_REASON})
            await tx.events.record(actor, "turn_observed", f"session:{session_id}", {"turn": session.turns})
            if marked:
                session = await tx.sessions.get(session_id) or session
            for e in read.extracted:
                draft = _extracted_draft(e, session, ts, time_refs(e.text, said))
                writes.append(await self._atoms.add_in(tx, *self._atoms.build(draft, strict=strict), actor=actor))
            # The turn itself, after its typed atoms: a turn that only restates one is found as that atom.
            turn_draft = _turn_draft(turn_text, previous_reply, session, ts, dates)
            if turn_draft is not None:
                turn_write = await self._atoms.add_in(tx, *self._atoms.build(turn_draft, strict=strict), actor=actor)
                writes.append(turn_write)
        self._observed_at[session.key] = time.monotonic()
        self._atoms.note_turn_written(writes)
        await self._atoms.budget.settle()
        if turn_write is not None:
            corrected = correction_of(own_words)
            if corrected is not None and turn_write.status == "added":
                try:
                    await self._atoms.supersede(turn_write.atom, corrected, actor=actor)
                except MemoryServerError:
                    # The turn is stored; linking it to what it corrects only refines ranking.
                    log.warning("could not link a correction to the memory it corrects", exc_info=True)
        llm_pending = self._runs_llm()
        if llm_pending:
            recent = [f"{role.upper()}: {text}" for role, text in earlier]
            self._background.spawn(
                lambda: self._llm_extract(own_words, recent, session, actor, trusted_path, ts), "llm"
            )
        self._anticipate(
            session, own_words, [w.atom.type for w in writes if w.atom.status == "live" and w.atom.type != TURN_TYPE]
        )
        if self._settings.sessions.idle_end_days > 0:
            self._background.spawn_once("idle_sessions", self.end_idle, every_s=IDLE_CHECK_EVERY_S)
        return ObserveResult(session, tuple(lines), added, tuple(writes), session.untrusted_reason, llm_pending)

    def _runs_llm(self) -> bool:
        return not isinstance(self._llm, NullLLM)

    def _anticipate(self, session: Session, message: str, extracted_types: list[str]) -> None:
        """After a turn: refresh the user model every N turns (or on a focus change) and, with a memory
        LLM, predict the next intents, both in the background."""
        self._user_state.schedule(session, extracted_types, message)
        self._anticipation.schedule_prediction(session, message)

    async def _store_extracted(
        self,
        item: Extracted,
        session: Session,
        actor: Actor,
        trusted_path: bool,
        said_at: float | None = None,
        dates: tuple[tuple[str, str], ...] = (),
    ) -> AtomWrite:
        return await self._atoms.add(
            _extracted_draft(item, session, said_at, dates), actor=actor, strict=False if trusted_path else None
        )

    async def _llm_extract(
        self, message: str, recent: list[str], session: Session, actor: Actor, trusted_path: bool, said_at: float
    ) -> None:
        out = await run_job(
            self._llm,
            *extraction_prompt(message, recent),
            ExtractionOut,
            timeout_s=self._settings.llm.timeout_s,
            stats=self._stats,
            job="extract",
            key=f"extract:{session.key}",  # the next turn's extraction supersedes this one while it waits
            settle_s=self._settings.llm.settle_s,
        )
        if out is None:
            return
        kept, dropped, last = 0, 0, ""
        for atom in out.atoms:
            # Stored as the user's words, so the model may only restate this very message: every
            # content word must be the user's (one swapped word can invert a rule).
            verdict = check_grounded(atom.text, [message], min_share=1.0, echoes=PROMPT_EXAMPLES)
            if not verdict.ok or atom.type not in ATOM_TYPES:
                dropped, last = dropped + 1, verdict.reason or f"unknown type {atom.type!r}"
                continue
            kept += 1
            await self._store_extracted(
                Extracted(atom.type, atom.text, atom.confidence, tuple(atom.tags)),
                session,
                actor,
                trusted_path,
                said_at,
                time_refs(atom.text, datetime.fromtimestamp(said_at)),
            )
        if kept:
            await self._stats.record("extract", "kept", kept)
        if dropped:
            await self._stats.record("extract", "ungrounded", dropped, error=last)

    async def record_reply(self, session_id: str, reply: str, *, actor: Actor = "system") -> None:
        """Add the assistant's reply to a session that already saw the user's message (host hooks)."""
        session = await self.session(session_id)
        reply = _check_text("assistant_reply", reply, required=True)
        ts = now()
        body = one_line(reply)
        own = strip_untrusted(reply)
        notes = [(c, preview(t, 300)) for t in sentences(own) if (c := note_category(t)) and not scan(preview(t, 300))]
        conf = self._settings.sessions
        async with self._store.write() as tx:
            if not scan(body):  # the words, not the server's "HH:MM assistant" prefix
                await tx.sessions.push_lines(session.id, [f"{_clock(ts)} assistant {body}"], conf.buffer_lines)
            await tx.sessions.add_notes(
                session.id, notes[:MAX_NOTES_PER_TURN], ts, max_notes=conf.max_notes, max_chars=conf.max_note_chars
            )
            await tx.sessions.add_turns(session.id, [("assistant", clip_bytes(redact_credentials(own)))], ts)
            await tx.events.record(actor, "reply_observed", f"session:{session.id}", {"turn": session.turns})

    async def mark_untrusted(self, session_id: str, events: Sequence[ToolEvent], project: str | None) -> str | None:
        """Mark the session untrusted if these tool events brought in indirect content."""
        session_id = check_session_id(session_id)
        reason = indirect_reason(events, project)
        if reason is None:
            return None
        ts = now()
        async with self._store.write() as tx:
            session = await tx.sessions.touch(session_id, project_name(project), ts, turn=False)
            if not session.untrusted:
                await tx.sessions.mark_untrusted(session_id, reason)
                await tx.events.record("system", "session_untrusted", f"session:{session_id}", {"reason": reason})
        return reason

    # context -------------------------------------------------------------------------------
    async def context(
        self,
        message: str,
        *,
        session_id: str | None = None,
        project: str | None = None,
        budget_chars: int | None = None,
    ) -> ContextBlock:
        """The memory block for this message (see services/context.py)."""
        session_id = check_session_id(session_id) if session_id else None
        return await self._context.context(
            message, session_id=session_id, project=project_name(project), budget_chars=budget_chars
        )

    async def session_start(self, session_id: str, project: str | None) -> str:
        """The block for the start of a session (see services/context.py)."""
        return await self._context.session_start(check_session_id(session_id), project_name(project))

    # end -----------------------------------------------------------------------------------
    async def end_session(self, session_id: str, *, actor: Actor = "agent") -> EndResult:
        """Summarise the session into an episode (if it has ≥ 3 turns) and close it."""
        session = await self.session(session_id)
        self._anticipation.session_ended(session)
        # No wait for the background extractions: the episode job goes ahead of them and stops
        # one in flight (llm/gate.py), so the whole call stays within one llm.timeout_s.
        return await self._episodes.end_session(session, actor=actor)

    async def end_idle(self) -> int:
        """End sessions idle for `sessions.idle_end_days`: hosts often never say a conversation ended,
        and an open session keeps its transcript. Each gets its episode as end_session would."""
        days = self._settings.sessions.idle_end_days
        if days <= 0:
            return 0
        async with self._store.read() as rx:
            idle = await rx.sessions.idle(now() - days * 86400, IDLE_BATCH)
        ended = 0
        recent = time.monotonic() - IDLE_GRACE_S
        self._observed_at = {sid: at for sid, at in self._observed_at.items() if at > recent}
        for session in idle:
            if session.key in self._observed_at:
                continue
            try:
                # The sweep acts for nobody; what ending a session writes is its owner's.
                with acting_as(Viewer(session.owner, team=session.owner != LOCAL)):
                    await self._episodes.end_session(session, actor="system")
                ended += 1
            except MemoryServerError as exc:  # one bad session must not stop the others
                log.warning("could not end idle session %s: %s", session.id, exc)
        return ended

    async def notes(self, session_id: str) -> tuple[Session, list[str], list[SessionNote]]:
        """A session with its buffer and notes."""
        session = await self.session(session_id)
        async with self._store.read() as rx:
            buffer = await rx.sessions.buffer(session.id, owner=session.owner)
            return session, buffer, await rx.sessions.notes(session.id, owner=session.owner)
