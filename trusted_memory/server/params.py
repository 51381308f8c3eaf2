"""The `memory` tool's parameters: each declared once, and one pydantic model per action.

A parameter is a named type below that carries its JSON type, its bounds and its description.
The action models combine them; an action states only its own default or a tighter bound. The
tool's input schema and signature (schema.py) and the parameter errors (actions.py) are derived
from these models, so there is no second copy to drift.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from ..model import ATOM_TYPES, IMPORTANCE_LEVELS, SCOPES, Target
from ..trust import AGENT_DECLARABLE

MAX_TURN = 10**9

# The vocabularies come from the model, so the published enums cannot drift from what the store takes.
SourceName = Literal[AGENT_DECLARABLE]  # type: ignore[valid-type]
ScopeName = Literal[SCOPES]  # type: ignore[valid-type]
ImportanceName = Literal[IMPORTANCE_LEVELS]  # type: ignore[valid-type]
AtomTypeName = Literal[ATOM_TYPES]  # type: ignore[valid-type]

# --- the parameters, each declared once ----------------------------------------------------------

TargetParam: TypeAlias = Annotated[
    Target,
    Field(description="user: who the user is, what they prefer; env: their machine, projects, conventions"),
]
Content: TypeAlias = Annotated[str, Field(description="one self-contained statement (≤ 2,048 bytes)")]
OldText: TypeAlias = Annotated[str, Field(description="a unique part of the entry")]
Key: TypeAlias = Annotated[
    str,
    Field(description="profile field (e.g. 'editor'): replaces that field's entry"),
]
Pinned: TypeAlias = Annotated[bool, Field(description="always shown; never evicted")]
Keywords: TypeAlias = Annotated[list[str], Field(description="show only when the message has one of these words")]
AtomId: TypeAlias = Annotated[str, Field(description="atom id")]
Source: TypeAlias = Annotated[
    SourceName,
    Field(description="where it came from: user_said only for the user's own words; the rest is quarantined"),
]
AtomType: TypeAlias = Annotated[AtomTypeName, Field(description="default fact")]
Confidence: TypeAlias = Annotated[float, Field(ge=0, le=1, description="default 0.8")]
Importance: TypeAlias = Annotated[ImportanceName, Field(description="default medium")]
Tags: TypeAlias = Annotated[list[str], Field(description="short labels")]
Why: TypeAlias = Annotated[str, Field(description="why it matters to the user")]
HowToApply: TypeAlias = Annotated[str, Field(description="how to act on it")]
Scope: TypeAlias = Annotated[ScopeName, Field(description="default user; project needs project=")]
Project: TypeAlias = Annotated[
    str, Field(description="project name or path (a path counts as its git root's folder name)")
]
SessionId: TypeAlias = Annotated[str, Field(description="the conversation's id")]
Turn: TypeAlias = Annotated[int, Field(ge=0, le=MAX_TURN, description="turn number in the session")]
Types: TypeAlias = Annotated[list[str], Field(description="atom types to include")]
Limit: TypeAlias = Annotated[int, Field(ge=1, le=200, description="at most this many")]
ReviewId: TypeAlias = Annotated[str, Field(description="id from list_pending_review")]
Query: TypeAlias = Annotated[str, Field(description="what to look for")]
K: TypeAlias = Annotated[int, Field(ge=1, le=50, description="results, default 10")]
Since: TypeAlias = Annotated[str, Field(description="created after: ISO date or age like 7d")]
Timestamp: TypeAlias = Annotated[str, Field(description="when it was said (ISO 8601), default now")]
Until: TypeAlias = Annotated[str, Field(description="created before: ISO date or age")]
Budget: TypeAlias = Annotated[int, Field(ge=200, description="reply size in characters")]
UserMessage: TypeAlias = Annotated[str, Field(description="the user's message, verbatim")]
AssistantReply: TypeAlias = Annotated[str, Field(description="your reply")]
Message: TypeAlias = Annotated[str, Field(description="the user's message")]


class ActionParams(BaseModel):
    """Base of every action's parameters: unknown parameters are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class ToolEventParams(ActionParams):
    """One tool the agent used this turn; web, MCP or sub-agent content marks the session untrusted."""

    tool: str = Field(max_length=200)
    kind: str | None = Field(default=None, max_length=40)
    url: str | None = Field(default=None, max_length=2048)
    path: str | None = Field(default=None, max_length=4096)
    server: str | None = Field(default=None, max_length=200)


ToolEvents: TypeAlias = Annotated[
    list[ToolEventParams],
    Field(description="tools used this turn; web, MCP or sub-agent content marks the session untrusted"),
]

# --- one model per action ------------------------------------------------------------------------


class AddParams(ActionParams):
    target: TargetParam
    content: Content
    key: Key | None = None
    pinned: Pinned | None = None
    keywords: Keywords | None = None


class ReplaceParams(ActionParams):
    target: TargetParam
    old_text: OldText
    content: Content


class RemoveParams(ActionParams):
    target: TargetParam
    old_text: OldText


class ReadParams(ActionParams):
    target: TargetParam | None = None


class NoParams(ActionParams):
    pass


class ConsolidateParams(ActionParams):
    target: TargetParam


class AddAtomParams(ActionParams):
    content: Content
    source: Source
    atom_type: AtomType | None = None
    confidence: Confidence | None = None
    importance: Importance | None = None
    tags: Tags | None = None
    why: Why | None = None
    how_to_apply: HowToApply | None = None
    pinned: Pinned | None = None
    scope: Scope | None = None
    project: Project | None = None
    session_id: SessionId | None = None
    turn: Turn | None = None


class IdParams(ActionParams):
    id: AtomId


class ListAtomsParams(ActionParams):
    types: Types | None = None
    tags: Tags | None = None
    project: Project | None = None
    scope: Scope | None = None
    limit: Limit = 20


class ListQuarantineParams(ActionParams):
    limit: Limit = 20


class SearchAtomsParams(ActionParams):
    query: Query
    k: K = 10
    types: Types | None = None
    tags: Tags | None = None
    project: Project | None = None
    scope: Scope | None = None
    since: Since | None = None
    until: Until | None = None
    budget_chars: Budget | None = Field(default=None, le=20_000)


class SearchParams(ActionParams):
    query: Query
    k: K = 10
    project: Project | None = None
    budget_chars: Budget | None = Field(default=None, le=20_000)


class ObserveParams(ActionParams):
    session_id: SessionId
    user_message: UserMessage
    assistant_reply: AssistantReply | None = None
    tool_events: ToolEvents | None = None
    project: Project | None = None
    timestamp: Timestamp | None = None


class ContextParams(ActionParams):
    message: Message
    session_id: SessionId | None = None
    project: Project | None = None
    budget_chars: Budget | None = Field(default=None, le=50_000)


class EndSessionParams(ActionParams):
    session_id: SessionId


class ReviewIdParams(ActionParams):
    review_id: ReviewId


class GatedParams(ActionParams):
    id: AtomId | None = None
    review_id: ReviewId | None = None
    session_id: SessionId | None = None
