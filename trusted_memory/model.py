"""Domain values shared by every layer: plain frozen dataclasses and the closed vocabularies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Target = Literal["user", "env"]
TARGETS: tuple[Target, ...] = ("user", "env")
Actor = Literal["agent", "admin", "system"]

ATOM_TYPES: tuple[str, ...] = (
    "preference",
    "intent",
    "fact",
    "decision",
    "goal",
    "convention",
    "file",
    "error",
    "question",
    "reference",
    "note",
)
FALLBACK_ATOM_TYPE = "observation"
# A user turn kept in the user's own words: formed by observe, never declared by an agent.
TURN_TYPE = "turn"
STORED_ATOM_TYPES: tuple[str, ...] = (*ATOM_TYPES, FALLBACK_ATOM_TYPE, TURN_TYPE)
IMPORTANCE_LEVELS: tuple[str, ...] = ("critical", "high", "medium", "low")
SCOPES: tuple[str, ...] = ("user", "project", "global")
TRUSTED_SOURCES: tuple[str, ...] = ("user_said", "user_approved")
TAINTED_SOURCES: tuple[str, ...] = (
    "inferred",
    "tool_output",
    "file_read",
    "web",
    "mcp",
    "subagent",
    "agent_generated",
)
SOURCE_CLASSES: tuple[str, ...] = TRUSTED_SOURCES + TAINTED_SOURCES
AtomStatus = Literal["live", "quarantined"]
QuarantineReason = Literal["tainted", "scan_rejected", "strict_mode"]


@dataclass(frozen=True, slots=True)
class FactEntry:
    """One entry of a facts target."""

    id: int
    target: Target
    content: str
    key: str | None = None
    pinned: bool = False
    keywords: tuple[str, ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0
    owner: str = "local"  # facts are always their owner's alone (people.py)


@dataclass(frozen=True, slots=True)
class Atom:
    """A small typed memory with its provenance."""

    id: str
    type: str
    text: str
    source_class: str
    confidence: float
    importance: str
    pinned: bool
    tags: tuple[str, ...]
    scope: str
    status: AtomStatus
    created_at: float
    updated_at: float
    why: str | None = None
    how_to_apply: str | None = None
    project: str | None = None
    session_id: str | None = None
    turn: int | None = None
    related: tuple[str, ...] = ()
    quarantine_reason: str | None = None
    findings: str | None = None
    expires_at: float | None = None
    last_recalled_at: float | None = None
    recall_count: int = 0
    cue: str | None = None  # the assistant's question a turn answers: shown as the assistant's, never the user's
    dates: tuple[tuple[str, str], ...] = ()  # (phrase, resolved date) for relative time in the text
    owner: str = "local"  # the person it belongs to (people.py); its scope says who else sees it

    @property
    def embedding_input(self) -> str:
        """What the embedder sees: the words, and the question they answer (store/recall.py::queued agrees)."""
        return f"{self.text}\n{self.cue}" if self.cue else self.text


@dataclass(frozen=True, slots=True)
class PendingReview:
    """A speculative inference about the user, waiting for a human to confirm or reject it."""

    id: str
    field_path: str
    value: str
    evidence: str
    confidence: float
    created_at: float
    updated_at: float
    expires_at: float
    owner: str = "local"  # the person it is about (people.py)


@dataclass(frozen=True, slots=True)
class Event:
    """One row of the append-only audit log."""

    id: int
    ts: float
    actor: Actor
    kind: str
    subject: str | None
    detail: dict[str, object] = field(default_factory=dict)
    # Whose event it is (migration 20): the person it was written for, or the owner of the record acted on.
    owner: str = "local"


NOTE_CATEGORIES: tuple[str, ...] = ("decision", "context", "progress", "issue", "learnings")


# Why strict mode marks a session untrusted when no other reason came first.
RELAYED_REASON = "strict mode: the turns were relayed by the agent, not a host hook"


@dataclass(frozen=True, slots=True)
class Session:
    """One host conversation as the memory sees it."""

    id: str
    project: str | None
    untrusted: bool
    untrusted_reason: str | None
    turns: int
    started_at: float
    last_at: float
    ended_at: float | None = None
    frozen_facts: str | None = None
    resumed_turn: int | None = None  # the turn at which the session resumed after a break
    resume_gap_s: float | None = None
    resumed_from: str | None = None  # the session whose state "where you left off" describes
    predicted: tuple[str, ...] = ()  # follow-up intents the memory LLM predicted after `predicted_turn`
    predicted_turn: int | None = None
    # Strict mode: some turn was relayed by the agent rather than a host hook. Kept apart from
    # `untrusted` (which keeps its first reason), so a web tool event cannot hide it.
    relayed: bool = False
    owner: str = "local"  # the person whose conversation it is (people.py)

    @property
    def key(self) -> str:
        """The session as one string unique in the store (see session_key)."""
        return session_key(self.id, self.owner)


def session_key(session_id: str, owner: str) -> str:
    """A session as one string unique in the store (a session is its owner's id): the id, and for a
    person the '#' and name that no session id can hold."""
    return session_id if owner == "local" else f"{session_id}#{owner}"


def split_session_key(key: str) -> tuple[str, str | None]:
    """The session id and owner a session_key names; a bare id names no owner."""
    session_id, sep, owner = key.partition("#")
    return (session_id, owner) if sep and owner else (key, None)


@dataclass(frozen=True, slots=True)
class SessionNote:
    """A categorised note of a session."""

    id: int
    session_id: str
    category: str
    text: str
    created_at: float
    # Whose session it is in (migration 21: a session is its owner's id, not the store's).
    owner: str = "local"


# The source of a live episode: a summary written from the user's and the assistant's turns (by
# the memory LLM or the heuristics), so never the user's own statement. A held episode is
# `agent_generated`; one a person promoted is `user_approved`. An episode's trust is its status.
SESSION_SUMMARY = "session_summary"
# A summary the memory model wrote (and that passed the grounding check against the transcript):
# labelled as the model's retelling, so neither it nor a reader takes it for the rule-based one.
MODEL_SUMMARY = "model_summary"
LIVE_EPISODE_SOURCES: tuple[str, ...] = (SESSION_SUMMARY, MODEL_SUMMARY, "user_approved")


@dataclass(frozen=True, slots=True)
class Episode:
    """The summary of one finished session, with its provenance."""

    id: str
    session_id: str
    project: str | None
    summary: str
    status: str
    source_class: str
    turns: int
    created_at: float
    expires_at: float | None = None
    owner: str = "local"  # the person whose session it summarises (people.py)


# Every kind of audit event the code records (`trusted-memory-admin audit --kind`); tests/cli checks
# that each kind the code passes to `events.append` is listed here.
EVENT_KINDS = (
    *(f"atom_{k}" for k in ("added", "quarantined", "promoted", "superseded", "pinned", "unpinned", "forgotten")),
    *(f"atom_{k}" for k in ("evicted", "related_repaired")),
    "quarantine_expired",
    *(f"fact_{k}" for k in ("added", "updated", "replaced", "removed", "merged", "consolidated")),
    *(f"pending_{k}" for k in ("added", "refreshed", "confirmed", "rejected", "expired", "evicted")),
    "user_model_updated",
    "user_model_field_dropped",
    "turn_observed",
    "reply_observed",
    "prompt_scheduled",
    *(f"session_{k}" for k in ("untrusted", "relayed", "ended")),
    *(f"episode_{k}" for k in ("added", "held", "promoted", "evicted")),
    "nudge_shown",
    "embedding_space_changed",
    "reindex_requested",
    "vectors_repaired",
    "fts_rebuilt",
    "store_compacted",
    "store_salvaged",
    *(f"person_{k}" for k in ("added", "revoked", "granted", "ungranted")),
    "import",
    "chat_imported",
    "imported_event",
)
