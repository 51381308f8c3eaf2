"""Admin commands that review what the agent may not trust by itself: quarantine, pending inferences,
triage. Approving raises trust, so each asks the person at the terminal first (or needs --yes)."""

from __future__ import annotations

import argparse
import dataclasses

from ..errors import MemoryServerError, TrustRefused
from ..model import Atom, PendingReview
from ..services.admin import AdminService
from ..services.facts import preview
from ..trust import is_trusted
from .gate import cancelled, confirm, for_person, require_person
from .output import age, ask, emit_json, fields, interactive, iso, safe, say, table, until

UNTRUSTED = "UNTRUSTED: quarantined content from an untrusted source, shown as data for review; it is not memory."
UNVERIFIED = "UNVERIFIED: inferences about the user, not confirmed; they are not part of the user model."


def short_id(atom_id: str) -> str:
    """The first 12 characters of an id: unique in practice, and short enough for a table."""
    return atom_id[:12]


def atom_json(atom: Atom) -> dict[str, object]:
    """Every field of an atom, plus whether it is trusted memory."""
    return {**dataclasses.asdict(atom), "untrusted": atom.status != "live" or not is_trusted(atom.source_class)}


def pending_json(item: PendingReview) -> dict[str, object]:
    """Every field of a pending review."""
    return dataclasses.asdict(item)


def show_atom(atom: Atom) -> None:
    """Print every field of an atom; untrusted content is labelled as such first."""
    if atom.status != "live" or not is_trusted(atom.source_class):
        say(UNTRUSTED)
    status = atom.status + (f" ({atom.quarantine_reason})" if atom.quarantine_reason else "")
    fields(
        [
            ("id", atom.id),
            ("type", atom.type),
            ("status", status),
            ("source", atom.source_class),
            *([("findings", atom.findings)] if atom.findings else []),
            *([("expires", f"{iso(atom.expires_at)} ({until(atom.expires_at)})")] if atom.expires_at else []),
            ("confidence", f"{atom.confidence:g}"),
            ("importance", atom.importance),
            ("pinned", "yes" if atom.pinned else "no"),
            ("scope", atom.scope),
            ("project", atom.project),
            ("tags", ", ".join(atom.tags)),
            ("session", atom.session_id),
            ("turn", atom.turn),
            ("related", ", ".join(atom.related)),
            ("created", f"{iso(atom.created_at)} ({age(atom.created_at)} ago)"),
            ("updated", iso(atom.updated_at)),
            (
                "recalled",
                f"{atom.recall_count} times"
                + (f", last {iso(atom.last_recalled_at)}" if atom.last_recalled_at else ""),
            ),
            ("why", atom.why),
            ("how_to_apply", atom.how_to_apply),
            ("text", atom.text),
        ]
    )


def show_pending(item: PendingReview) -> None:
    """Print every field of a pending review, labelled as unconfirmed."""
    say(UNVERIFIED)
    fields(
        [
            ("id", item.id),
            ("field", item.field_path),
            ("value", item.value),
            ("confidence", f"{item.confidence:g}"),
            ("evidence", item.evidence),
            ("created", f"{iso(item.created_at)} ({age(item.created_at)} ago)"),
            ("expires", f"{iso(item.expires_at)} ({until(item.expires_at)})"),
        ]
    )


async def cmd_quarantine(admin: AdminService, args: argparse.Namespace) -> int:
    """List quarantined atoms with why they are held and when they expire."""
    atoms = await admin.quarantine(limit=args.limit)
    if args.json:
        emit_json([atom_json(a) for a in atoms])
        return 0
    say(UNTRUSTED)
    table(
        ("id", "type", "source", "reason", "findings", "expires", "text"),
        [
            (
                short_id(a.id),
                a.type,
                a.source_class,
                a.quarantine_reason,
                preview(a.findings or "", 40),
                until(a.expires_at),
                preview(a.text, 50),
            )
            for a in atoms
        ],
        flexible=("findings", "text"),
    )
    if atoms:
        say("approve with `trusted-memory-admin promote ID`, drop with `forget ID`, or walk them with `triage`")
    return 0


async def cmd_promote(admin: AdminService, args: argparse.Namespace) -> int:
    """Release a quarantined atom as trusted, human-approved memory (asks first)."""
    require_person(args, "promote")
    atom = await admin.atom(args.id)
    if atom.status == "live" and is_trusted(atom.source_class):
        return report_atom(args, atom, f"atom {atom.id} is already trusted memory; nothing changed.")
    if not args.yes:
        with for_person(args):
            show_atom(atom)
            if not confirm(args, f"Promote atom {short_id(atom.id)} to trusted memory?"):
                return cancelled()
    promoted = await admin.promote(atom.id)
    return report_atom(args, promoted, f"promoted atom {promoted.id}: live, source {promoted.source_class}.")


def report_atom(args: argparse.Namespace, atom: Atom, message: str) -> int:
    """Print what a command did to an atom (as JSON with --json); exit code 0."""
    if args.json:
        emit_json({"message": message, "atom": atom_json(atom)})
    else:
        print(message)
    return 0


# --- pending reviews --------------------------------------------------------------------------


async def cmd_pending(admin: AdminService, args: argparse.Namespace) -> int:
    """List inferences about the user that wait for review."""
    items = await admin.pending()
    if args.json:
        emit_json([pending_json(p) for p in items])
        return 0
    say(UNVERIFIED)
    table(
        ("id", "field", "value", "conf", "age", "expires", "evidence"),
        [
            (
                short_id(p.id),
                p.field_path,
                preview(p.value, 40),
                f"{p.confidence:.2f}",
                age(p.created_at),
                until(p.expires_at),
                preview(p.evidence, 40),
            )
            for p in items
        ],
        flexible=("value", "evidence"),
    )
    if items:
        say("apply with `trusted-memory-admin confirm ID`, drop with `reject ID`, or walk them with `triage`")
    return 0


async def cmd_confirm(admin: AdminService, args: argparse.Namespace) -> int:
    """Apply a pending inference to the user model (asks first)."""
    require_person(args, "confirm")
    item = await admin.pending_item(args.id)
    if not args.yes:
        with for_person(args):
            show_pending(item)
            if not confirm(args, f"Apply {item.field_path} = {preview(item.value, 40)!r} to the user model?"):
                return cancelled()
    done = await admin.confirm(item.id)
    message = f"confirmed {done.field_path} = {done.value!r}; it is now part of the user model."
    if args.json:
        emit_json({"message": message, "pending": pending_json(done)})
    else:
        print(safe(message))
    return 0


async def cmd_reject(admin: AdminService, args: argparse.Namespace) -> int:
    """Drop a pending inference."""
    item = await admin.reject(args.id)
    message = f"rejected pending review {item.id} ({item.field_path} = {item.value!r})."
    if args.json:
        emit_json({"message": message, "pending": pending_json(item)})
    else:
        print(safe(message))
    return 0


# --- triage -----------------------------------------------------------------------------------

_CHOICES = {
    "a": "approve",
    "approve": "approve",
    "r": "reject",
    "reject": "reject",
    "s": "skip",
    "skip": "skip",
    "q": "quit",
    "quit": "quit",
}


def _choose() -> str:
    answer = ask("[a]pprove / [r]eject / [s]kip / [q]uit", list(_CHOICES))
    return "quit" if answer is None else _CHOICES[answer]


async def cmd_triage(admin: AdminService, args: argparse.Namespace) -> int:
    """Walk the quarantine queue, then the pending queue, deciding item by item."""
    if not interactive():
        raise TrustRefused(
            "triage asks a person about each item and needs a terminal (stdin is not a TTY); in scripts "
            "use `quarantine` / `pending` with `promote --yes`, `confirm --yes`, `forget --yes` or `reject`"
        )
    queue: list[Atom | PendingReview] = [*await admin.quarantine(limit=100_000), *await admin.pending()]
    with for_person(args):
        counts = await _walk(admin, queue)
    if args.json:
        emit_json(counts)
    else:
        print(
            f"\ntriage: approved {counts['approved']}, rejected {counts['rejected']}, "
            f"skipped {counts['skipped']}, not reviewed {counts['not_reviewed']}."
        )
    return 0


async def _walk(admin: AdminService, queue: list[Atom | PendingReview]) -> dict[str, int]:
    """Show each item, ask, act; returns what was decided."""
    counts = {"approved": 0, "rejected": 0, "skipped": 0, "not_reviewed": 0}
    if not queue:
        print("nothing to triage: the quarantine and pending queues are empty.")
    for n, item in enumerate(queue, start=1):
        print(
            f"\n── {n}/{len(queue)} "
            + ("quarantined atom" if isinstance(item, Atom) else "pending review")
            + " "
            + "─" * 30
        )
        if isinstance(item, Atom):
            show_atom(item)
        else:
            show_pending(item)
        choice = _choose()
        if choice == "quit":
            counts["not_reviewed"] = len(queue) - n + 1
            break
        if choice == "skip":
            counts["skipped"] += 1
            continue
        try:
            if isinstance(item, Atom):
                done = await (admin.promote(item.id) if choice == "approve" else admin.forget(item.id))
                print(f"{'promoted' if choice == 'approve' else 'forgot'} atom {done.id}.")
            else:
                await (admin.confirm(item.id) if choice == "approve" else admin.reject(item.id))
                print(f"{'confirmed' if choice == 'approve' else 'rejected'} pending review {item.id}.")
        except MemoryServerError as exc:  # changed by someone else meanwhile: say so, go on
            print(f"could not {choice} it: {exc.message}")
            counts["skipped"] += 1
            continue
        counts["approved" if choice == "approve" else "rejected"] += 1
    return counts
