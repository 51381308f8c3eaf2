"""The desk's decisions (POST): each is one AdminService call, so it leaves the CLI's audit event."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request

from ..errors import InvalidInput
from .context import Desk


def _text(form: FormData, name: str, *, required: bool = True) -> str:
    value = form.get(name)
    text = value if isinstance(value, str) else ""
    if required and not text.strip():
        raise InvalidInput(f"{name} is empty; fill it in and submit again")
    return text


async def approve(desk: Desk, request: Request, form: FormData) -> str:
    """`promote`: release a quarantined atom as approved memory."""
    atom = await desk.admin.promote(request.path_params["atom_id"])
    return f"approved atom {atom.id[:12]}: live, source {atom.source_class}."


async def approve_edited(desk: Desk, request: Request, form: FormData) -> str:
    """Edit-then-approve: promote with the reviewer's corrected text."""
    atom = await desk.admin.promote_edited(request.path_params["atom_id"], _text(form, "text"))
    return f"approved atom {atom.id[:12]} with your edit."


async def forget(desk: Desk, request: Request, form: FormData) -> str:
    """`forget` (and reject on the desk): delete an atom; its text stays in the audit log."""
    atom = await desk.admin.forget(request.path_params["atom_id"])
    return f"forgot atom {atom.id[:12]}."


async def pin(desk: Desk, request: Request, form: FormData) -> str:
    """`pin`: never evicted."""
    atom = await desk.admin.pin(request.path_params["atom_id"])
    return f"pinned atom {atom.id[:12]}."


async def unpin(desk: Desk, request: Request, form: FormData) -> str:
    """`unpin`: may be forgotten or evicted again."""
    atom = await desk.admin.unpin(request.path_params["atom_id"])
    return f"unpinned atom {atom.id[:12]}."


async def confirm(desk: Desk, request: Request, form: FormData) -> str:
    """`confirm`: apply a pending inference to the user model."""
    item = await desk.admin.confirm(request.path_params["review_id"])
    return f"confirmed {item.field_path} = {item.value!r}; it is now part of the user model."


async def reject(desk: Desk, request: Request, form: FormData) -> str:
    """`reject`: drop a pending inference."""
    item = await desk.admin.reject(request.path_params["review_id"])
    return f"rejected {item.field_path} = {item.value!r}."


async def prune(desk: Desk, request: Request, form: FormData) -> str:
    """`prune`: reject every quarantined atom and pending inference whose review window has passed."""
    report = await desk.admin.prune()
    return (
        f"rejected {report.quarantine_expired} expired quarantined atom(s) "
        f"and {report.pending_expired} expired inference(s)."
    )


async def promote_episode(desk: Desk, request: Request, form: FormData) -> str:
    """`episodes promote`: release a held episode into recall."""
    episode = await desk.admin.promote_episode(request.path_params["key"])
    return f"approved episode {episode.id[:12]}."


async def fact_add(desk: Desk, request: Request, form: FormData) -> str:
    """`facts add`."""
    key = _text(form, "key", required=False).strip() or None
    write = await desk.admin.add_fact(
        _text(form, "target"), _text(form, "content"), key=key, pinned=form.get("pinned") == "on"
    )
    return write.message


async def fact_edit(desk: Desk, request: Request, form: FormData) -> str:
    """Edit a facts entry in place (the agent's `replace`, as the operator)."""
    write = await desk.admin.replace_fact(_text(form, "target"), _text(form, "old_text"), _text(form, "content"))
    return write.message


async def fact_remove(desk: Desk, request: Request, form: FormData) -> str:
    """`facts remove`."""
    write = await desk.admin.remove_fact(_text(form, "target"), _text(form, "old_text"))
    return write.message
