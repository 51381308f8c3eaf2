"""The `memory` tool's parameters: each declared once, and one pydantic model per action.

A parameter is a named type below that carries its JSON type, its bounds and its description.
The action models combine them; an action states only its own default or a tighter bound. The
tool's input schema and signature (schema.py) and the parameter errors (actions.py) are derived
from these models, so there is no second copy to drift.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from ..model import IMPORTANCE_LEVELS, SCOPES, Target
from ..trust import AGENT_DECLARABLE

MAX_TURN = 10**9

# The vocabularies come from the model, so the published enums cannot drift from what the store takes.
SourceName = Literal[AGENT_DECLARABLE]  # type: ignore[valid-type]
ScopeName = Literal[SCOPES]  # type: ignore[valid-type]
ImportanceName = Literal[IMPORTANCE_LEVELS]  # type: ignore[valid-type]

# --- the parameters, each declared once ----------------------------------------------------------

TargetParam: TypeAlias = Annotated[
    Target,
    Field(
        description="facts target: 'user' (who the user is, what they prefer) or "
        "'env' (their machine, projects, conventions)"
    ),
]
Content: TypeAlias = Annotated[
    str, Field(description="the text to store (≤ 2,048 bytes), one self-contained statement")
]
OldText: TypeAlias = Annotated[
    str, Field(description="a unique substring of the entry to change (an exact whole-entry match wins)")
]
Key: TypeAlias = Annotated[
    str,
    Field(description="optional profile-field name (e.g. 'editor'); adding with an existing key replaces that entry"),
]
Pinned: TypeAlias = Annotated[bool, Field(description="always render this entry in the memory block")]
Keywords: TypeAlias = Annotated[
    list[str], Field(description="render this entry only when one of these words appears in the user's message")
]
AtomId: TypeAlias = Annotated[str, Field(description="an atom id (32 hex characters)")]
Source: TypeAlias = Annotated[
    SourceName,
    Field(
        description="where the atom's content came from: 'user_said' for the user's own words; "
        "anything read or inferred is quarantined"
    ),
]
AtomType: TypeAlias = Annotated[
    str,
    Field(description="preference, intent, fact, decision, goal, convention, file, error, question, reference or note"),
]
Confidence: TypeAlias = Annotated[float, Field(ge=0, le=1, description="0-1, how sure the memory is (default 0.8)")]
Importance: TypeAlias = Annotated[ImportanceName, Field(description="critical, high, medium (default) or low")]
Tags: TypeAlias = Annotated[list[str], Field(description="short labels for filtering")]
Why: TypeAlias = Annotated[str, Field(description="why this matters to the user")]
HowToApply: TypeAlias = Annotated[str, Field(description="how an agent should act on it")]
Scope: TypeAlias = Annotated[ScopeName, Field(description="user (default), project (needs project=) or global")]
Project: TypeAlias = Annotated[str, Field(description="the project path or name the memory belongs to")]
SessionId: TypeAlias = Annotated[str, Field(description="the host's conversation id")]
Turn: TypeAlias = Annotated[int, Field(ge=0, le=MAX_TURN, description="the turn number within the session")]
Types: TypeAlias = Annotated[list[str], Field(description="filter: atom types to include")]
Limit: TypeAlias = Annotated[int, Field(ge=1, le=200, description="how many items at most")]
ReviewId: TypeAlias = Annotated[str, Field(description="a pending-review id from list_pending_review")]
Query: TypeAlias = Annotated[str, Field(description="what to look for, in the user's words")]
K: TypeAlias = Annotated[int, Field(ge=1, le=50, description="how many results at most (default 10)")]
Since: TypeAlias = Annotated[
    str, Field(description="only memories created after this (ISO date like 2026-03-01, or an age like 7d)")
]
Timestamp: TypeAlias = Annotated[
    str, Field(description="when the turn happened (ISO 8601), to replay history with its real dates; default now")
]
Until: TypeAlias = Annotated[str, Field(description="only memories created before this (ISO date or age)")]
Budget: TypeAlias = Annotated[
    int, Field(ge=200, description="bound the reply to about this many characters (default recall.budget_chars)")
]
UserMessage: TypeAlias = Annotated[str, Field(description="the user's message this turn, verbatim")]
AssistantReply: TypeAlias = Annotated[
    str, Field(description="your reply this turn (optional; used for the session's episode)")
]
Message: TypeAlias = Annotated[str, Field(description="the user's current message")]


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
    Field(
        description="tools used this turn: [{tool, kind?, url?, path?, server?}] — "
        "web, MCP or sub-agent content marks the session untrusted"
    ),
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
