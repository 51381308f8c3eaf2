"""The reference memory server's JSONL graph (`@modelcontextprotocol/server-memory`) as atoms.

Each observation becomes a `fact` atom "<name>: <observation>" (a `note` past 300 characters) and
each relation an atom "<from> <relation type> <to>"; services/admin/transfer.py stores them.

Any agent with file tools can write such a graph, and nothing in it says who did. So its atoms
land in quarantine as `file_read`, for a person to review, unless the person importing passes
`--trust-graph` to say the graph is their own: then they are `user_approved` and live.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...model import Atom
from ..atoms import ATOM_TEXT_MAX, NOTE_TEXT_MAX, check_tags, new_id
from .transfer_records import BadLine, GraphAtom

GRAPH_CONFIDENCE = 0.8
_SLUG = re.compile(r"[^\w]+")


def slug(text: str) -> str:
    """A tag made from free text: lower-case words joined by '-', at most 40 characters."""
    return _SLUG.sub("-", text.strip().lower()).strip("-_")[:40].rstrip("-_")


def _graph_text(text: str) -> str:
    kind = "fact" if len(text) <= ATOM_TEXT_MAX else "note"
    if len(text) > NOTE_TEXT_MAX:
        raise BadLine(f"the atom text would be {len(text):,} characters; a note holds at most {NOTE_TEXT_MAX:,}")
    return kind


def _graph_str(body: Mapping[str, object], name: str, *, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise BadLine(f"{name!r} must be a non-empty string")
    return " ".join(value.split())


def graph_atoms(body: dict[str, object]) -> list[GraphAtom]:
    """The atoms one entity or relation line of a reference-server graph becomes."""
    kind = body.get("type")
    if kind == "entity":
        name = _graph_str(body, "name")
        entity_type = _graph_str(body, "entityType", required=False)
        observations = body.get("observations", [])
        if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
            raise BadLine("'observations' must be a list of strings")
        tags = check_tags([t for t in (slug(entity_type), slug(name)) if t])
        out = []
        for observation in observations:
            if not observation.strip():
                continue
            text = f"{name}: {observation.strip()}"
            out.append(GraphAtom(_graph_text(text), text, tags))
        return out
    if kind == "relation":
        source, target = _graph_str(body, "from"), _graph_str(body, "to")
        relation = _graph_str(body, "relationType").replace("_", " ")
        text = f"{source} {relation} {target}"
        tags = check_tags([t for t in ("relation", slug(source), slug(target)) if t])
        return [GraphAtom(_graph_text(text), text, tags)]
    raise BadLine(f"unknown record type {kind!r} (a reference-server graph holds 'entity' and 'relation' lines)")


def graph_atom(item: GraphAtom, ts: float, *, trusted: bool, quarantine_until: float) -> Atom:
    """The atom one graph observation or relation becomes: live `user_approved` when the person
    vouched for the graph (`trusted`), else quarantined `file_read` until `quarantine_until`."""
    return Atom(
        id=new_id(),
        type=item.type,
        text=item.text,
        source_class="user_approved" if trusted else "file_read",
        confidence=GRAPH_CONFIDENCE,
        importance="medium",
        pinned=False,
        tags=item.tags,
        scope="user",
        status="live" if trusted else "quarantined",
        created_at=ts,
        updated_at=ts,
        quarantine_reason=None if trusted else "tainted",
        expires_at=None if trusted else quarantine_until,
    )
