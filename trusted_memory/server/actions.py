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
        return ", ".join(f"{name}*" if info.is_required() else name for name, info in self.params.model_fields.items())

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


HUMAN_ONLY = "human-only: refused, names the admin command for the user"


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
            "save a durable fact about the user or their environment",
            handlers.add_fact,
            True,
        ),
        Action(
            "replace",
            ReplaceParams,
            "rewrite the entry old_text names",
            handlers.replace_fact,
            True,
        ),
        Action("remove", RemoveParams, "delete the entry old_text names", handlers.remove_fact, True),
        Action("read", ReadParams, "the facts, with usage", handlers.read_facts, False),
        Action("stats", NoParams, "store size and usage", handlers.stats, False),
        Action(
            "consolidate",
            ConsolidateParams,
            "merge redundant entries",
            handlers.consolidate,
            True,
        ),
        Action(
            "observe",
            ObserveParams,
            "record a turn after you reply",
            handlers.observe,
            True,
        ),
        Action(
            "context",
            ContextParams,
            "the memory block for the user's message",
            handlers.context,
            False,
        ),
        Action(
            "end_session",
            EndSessionParams,
            "summarise a finished session",
            handlers.end_session,
            True,
        ),
        Action(
            "search",
            SearchParams,
            "search facts, episodes and atoms",
            handlers.search,
            False,
        ),
        Action(
            "search_atoms",
            SearchAtomsParams,
            "search atoms, with filters",
            handlers.search_atoms,
            False,
        ),
        Action(
            "add_atom",
            AddAtomParams,
            "remember one small typed memory; declare its source honestly",
            handlers.add_atom,
            True,
        ),
        Action("view", IdParams, "one atom, or an episode by id or session id", handlers.view, False),
        Action(
            "list_atoms",
            ListAtomsParams,
            "atoms, newest first",
            handlers.list_atoms,
            False,
        ),
        Action(
            "forget_atom",
            IdParams,
            "delete an atom",
            handlers.forget_atom,
            True,
        ),
        Action("pin_atom", IdParams, "never evict an atom", handlers.pin_atom, True),
        Action(
            "list_quarantine",
            ListQuarantineParams,
            "UNTRUSTED atoms awaiting human review",
            handlers.list_quarantine,
            False,
        ),
        Action(
            "list_pending_review",
            NoParams,
            "inferences about the user awaiting their review",
            handlers.list_pending,
            False,
        ),
        Action("reject_pending_review", ReviewIdParams, "reject one", handlers.reject_pending, True),
        Action(
            "promote_atom",
            GatedParams,
            HUMAN_ONLY,
            handlers.gated("promote_atom", "trusted-memory-admin promote {}"),
            False,
        ),
        Action(
            "confirm_pending_review",
            GatedParams,
            HUMAN_ONLY,
            handlers.gated("confirm_pending_review", "trusted-memory-admin confirm {}"),
            False,
        ),
        Action(
            "promote_episode",
            GatedParams,
            HUMAN_ONLY,
            handlers.gated("promote_episode", "trusted-memory-admin episodes promote {}"),
            False,
        ),
    )
}


def describe_actions() -> str:
    """One line per action, `name(parameters): purpose`; actions that differ only in name share a line."""
    lines: list[tuple[list[str], str]] = []
    for a in ACTIONS.values():
        rest = f"({a.signature()}): {a.summary}"
        if lines and lines[-1][1] == rest:
            lines[-1][0].append(a.name)
        else:
            lines.append(([a.name], rest))
    return "\n".join(f"- {'/'.join(names)}{rest}" for names, rest in lines)
