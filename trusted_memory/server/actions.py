"""The `memory` tool's actions: the registry of what each action takes and which handler runs it.

The action enum, the tool description, the input schema and the parameter errors are all derived
from this registry and each action's parameter model (params.py), so the tool never advertises an
action that is not implemented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInput
from . import handlers
from .handlers import Handler
from .params import (
    ActionParams,
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


@dataclass(frozen=True, slots=True)
class Action:
    """One action of the `memory` tool."""

    name: str
    params: type[ActionParams]
    summary: str
    run: Handler
    writes: bool

    def signature(self) -> str:
        """The action's parameters as the model should read them, e.g. `target*, content*, key`."""
        return (
            ", ".join(f"{name}*" if info.is_required() else name for name, info in self.params.model_fields.items())
            or "no parameters"
        )

    def parse(self, provided: dict[str, Any]) -> ActionParams:
        """Validate the provided parameters, or fail naming what this action takes."""
        try:
            return self.params.model_validate(provided)
        except ValidationError as exc:
            problems = "; ".join(_problem(err) for err in exc.errors())
            raise InvalidInput(
                f"action={self.name} got bad parameters ({problems}). "
                f"action={self.name} takes: {self.signature()} (* = required)."
            ) from exc


def _problem(err: Any) -> str:
    where = ".".join(str(p) for p in err.get("loc", ())) or "parameters"
    kind = err.get("type")
    if kind == "missing":
        return f"{where} is required"
    if kind == "extra_forbidden":
        return f"{where} does not belong to this action"
    return f"{where}: {err.get('msg', 'invalid')}"


ACTIONS: dict[str, Action] = {
    a.name: a
    for a in (
        Action(
            "add",
            AddParams,
            "store a durable fact about the user (target=user) or the environment/project (target=env); "
            "key= upserts a profile field",
            handlers.add_fact,
            True,
        ),
        Action(
            "replace",
            ReplaceParams,
            "rewrite the entry that old_text (a unique substring) names",
            handlers.replace_fact,
            True,
        ),
        Action("remove", RemoveParams, "delete the entry that old_text names", handlers.remove_fact, True),
        Action("read", ReadParams, "show the facts entries with usage against their caps", handlers.read_facts, False),
        Action("stats", NoParams, "store size, event count and facts usage", handlers.stats, False),
        Action(
            "consolidate",
            ConsolidateParams,
            "merge redundant entries of a facts target (runs by itself at 80% of a cap); nothing is dropped",
            handlers.consolidate,
            True,
        ),
        Action(
            "observe",
            ObserveParams,
            "record one turn (call after every user message): buffer line, session notes, memories from the "
            "user's own words; report tool_events that fetched web/MCP/sub-agent content",
            handlers.observe,
            True,
        ),
        Action(
            "context",
            ContextParams,
            "the budgeted memory block for the user's message: facts, this session, style and focus, where they "
            "left off, earlier sessions, relevant and likely-next memories, index",
            handlers.context,
            False,
        ),
        Action(
            "end_session",
            EndSessionParams,
            "summarise a finished session (≥ 3 turns) into an episode",
            handlers.end_session,
            True,
        ),
        Action(
            "search",
            SearchParams,
            "search everything remembered (facts, episodes and atoms) for a question or topic",
            handlers.search,
            False,
        ),
        Action(
            "search_atoms",
            SearchAtomsParams,
            "hybrid keyword + meaning search of trusted atoms, "
            "with filters (types, tags, project, scope, since, until)",
            handlers.search_atoms,
            False,
        ),
        Action(
            "add_atom",
            AddAtomParams,
            "remember one small typed memory; declare source honestly: 'user_said' only for the user's own words "
            "(web, file_read, tool_output, mcp, subagent, inferred, agent_generated go to quarantine for human review)",
            handlers.add_atom,
            True,
        ),
        Action(
            "view", IdParams, "show one trusted atom, or an episode (by its id or session id)", handlers.view, False
        ),
        Action(
            "list_atoms",
            ListAtomsParams,
            "list trusted atoms, filtered by types, tags, project or scope, newest first",
            handlers.list_atoms,
            False,
        ),
        Action(
            "forget_atom",
            IdParams,
            "delete an atom (pinned atoms need the user to unpin them first)",
            handlers.forget_atom,
            True,
        ),
        Action("pin_atom", IdParams, "pin a trusted atom so it is never evicted", handlers.pin_atom, True),
        Action(
            "list_quarantine",
            ListQuarantineParams,
            "list quarantined atoms: UNTRUSTED data awaiting human review",
            handlers.list_quarantine,
            False,
        ),
        Action(
            "list_pending_review",
            NoParams,
            "list inferences about the user awaiting the user's confirmation",
            handlers.list_pending,
            False,
        ),
        Action(
            "reject_pending_review", ReviewIdParams, "reject an inference about the user", handlers.reject_pending, True
        ),
        Action(
            "promote_atom",
            GatedParams,
            "human-only: always refused, names the admin command to give the user",
            handlers.gated("promote_atom", "trusted-memory-admin promote {}"),
            False,
        ),
        Action(
            "confirm_pending_review",
            GatedParams,
            "human-only: always refused, names the admin command to give the user",
            handlers.gated("confirm_pending_review", "trusted-memory-admin confirm {}"),
            False,
        ),
        Action(
            "promote_episode",
            GatedParams,
            "human-only: always refused, names the admin command to give the user",
            handlers.gated("promote_episode", "trusted-memory-admin episodes promote {}"),
            False,
        ),
    )
}


def describe_actions() -> str:
    """One line per action: name, parameters, purpose."""
    return "\n".join(f"- {a.name}({a.signature()}): {a.summary}" for a in ACTIONS.values())
