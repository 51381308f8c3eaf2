"""`mcp-memory-admin`: the human operator's CLI over the same store the servers share.

Commands that raise trust or destroy memory (promote, confirm, unpin, forget, import, triage) ask
the person at the terminal first; without a terminal they refuse unless `--yes` is given, so a
script (or an agent running shell commands) cannot approve memory by accident.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..config import Settings, load_settings
from ..errors import InvalidInput, MemoryServerError, TrustRefused
from ..model import ATOM_TYPES, FALLBACK_ATOM_TYPE, TARGETS, Atom, PendingReview
from ..services.admin import AdminService
from ..services.doctor import DoctorReport, run_doctor
from ..services.facts import preview as _preview
from ..services.runtime import open_runtime
from ..services.transfer import ImportReport, apply_import, export_jsonl, parse_import
from ..store.atoms import AtomFilter
from ..trust import is_trusted
from .anticipation_commands import add_anticipation_commands
from .episode_commands import add_episode_commands
from .gate import cancelled as _cancelled
from .gate import confirm as _confirm
from .gate import for_person as _for_person
from .gate import require_person as _require_person
from .output import Progress, age, ask, emit_json, fields, interactive, iso, safe, table, until
from .recall_commands import add_recall_commands
from .threads import single_threaded_blas

Command = Callable[[AdminService, argparse.Namespace], Awaitable[int]]
Direct = Callable[[Settings, argparse.Namespace], Coroutine[Any, Any, int]]

UNTRUSTED = "UNTRUSTED: quarantined content from an untrusted source, shown as data for review; it is not memory."
UNVERIFIED = "UNVERIFIED: inferences about the user, not confirmed; they are not part of the user model."
_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


# --- shared helpers ---------------------------------------------------------------------------


def _short(atom_id: str) -> str:
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
        print(UNTRUSTED)
    status = atom.status + (f" ({atom.quarantine_reason})" if atom.quarantine_reason else "")
    fields([
        ("id", atom.id), ("type", atom.type), ("status", status), ("source", atom.source_class),
        *([("findings", atom.findings)] if atom.findings else []),
        *([("expires", f"{iso(atom.expires_at)} ({until(atom.expires_at)})")] if atom.expires_at else []),
        ("confidence", f"{atom.confidence:g}"), ("importance", atom.importance),
        ("pinned", "yes" if atom.pinned else "no"), ("scope", atom.scope), ("project", atom.project),
        ("tags", ", ".join(atom.tags)), ("session", atom.session_id),
        ("turn", atom.turn), ("related", ", ".join(atom.related)),
        ("created", f"{iso(atom.created_at)} ({age(atom.created_at)} ago)"), ("updated", iso(atom.updated_at)),
        ("recalled", f"{atom.recall_count} times" + (f", last {iso(atom.last_recalled_at)}" if atom.last_recalled_at else "")),
        ("why", atom.why), ("how_to_apply", atom.how_to_apply), ("text", atom.text),
    ])


def show_pending(item: PendingReview) -> None:
    """Print every field of a pending review, labelled as unconfirmed."""
    print(UNVERIFIED)
    fields([
        ("id", item.id), ("field", item.field_path), ("value", item.value),
        ("confidence", f"{item.confidence:g}"), ("evidence", item.evidence),
        ("created", f"{iso(item.created_at)} ({age(item.created_at)} ago)"),
        ("expires", f"{iso(item.expires_at)} ({until(item.expires_at)})"),
    ])


def parse_since(text: str, now: float | None = None) -> float:
    """Epoch seconds from an ISO date/time, epoch seconds, or an age such as 7d, 12h, 30m."""
    value = text.strip()
    ts = time.time() if now is None else now
    match = _RELATIVE.match(value.lower())
    if match:
        return ts - float(match.group(1)) * _UNITS[match.group(2)]
    try:
        epoch = float(value)
    except ValueError:
        pass
    else:
        if math.isfinite(epoch):
            return epoch
    try:
        return datetime.fromisoformat(value).timestamp()  # a naive value is local time
    except ValueError:
        raise InvalidInput(
            f"--since {text!r} is not a time: give an ISO date or time (2025-01-31, 2025-01-31T09:00), "
            "epoch seconds, or an age such as 7d, 12h or 30m"
        ) from None


# --- stats and facts --------------------------------------------------------------------------


async def cmd_stats(admin: AdminService, args: argparse.Namespace) -> int:
    """Print sizes and counts of the store."""
    stats = await admin.stats()
    if args.json:
        emit_json({
            "path": stats.path, "size_bytes": stats.size_bytes, "events": stats.events,
            "change_counter": stats.change_counter,
            "facts": [{"target": u.target, "used": u.used, "cap": u.cap, "pct": u.pct, "entries": u.entries} for u in stats.facts],
        })
        return 0
    print(f"store   {stats.path}")
    print(f"size    {stats.size_bytes:,} bytes")
    print(f"events  {stats.events:,}")
    table(("facts", "entries", "used", "cap", "pct"), [(u.target, u.entries, u.used, u.cap, f"{u.pct}%") for u in stats.facts])
    return 0


async def cmd_facts_show(admin: AdminService, args: argparse.Namespace) -> int:
    """Print the facts of one or both targets."""
    targets = [args.target] if args.target else list(TARGETS)
    views = [await admin.facts(t) for t in targets]
    if args.json:
        emit_json([
            {"target": v.target, "used": v.usage.used, "cap": v.usage.cap,
             "entries": [{"index": i, "id": e.id, "content": e.content, "key": e.key, "pinned": e.pinned,
                          "keywords": list(e.keywords)} for i, e in enumerate(v.entries, start=1)]}
            for v in views
        ])
        return 0
    for view in views:
        print(safe(view.rendered, keep_newlines=True))
        print()
    return 0


async def cmd_facts_add(admin: AdminService, args: argparse.Namespace) -> int:
    """Add a facts entry as the operator."""
    write = await admin.add_fact(args.target, args.content, key=args.key, pinned=args.pinned, keywords=args.keyword)
    _report(write.status, write.index, write.message, args.json)
    return 0


async def cmd_facts_remove(admin: AdminService, args: argparse.Namespace) -> int:
    """Remove a facts entry as the operator."""
    write = await admin.remove_fact(args.target, args.old_text)
    _report(write.status, write.index, write.message, args.json)
    return 0


def _report(status: str, index: int, message: str, as_json: bool) -> None:
    if as_json:
        emit_json({"status": status, "index": index, "message": message})
    else:
        print(message)


# --- atoms ------------------------------------------------------------------------------------


async def cmd_atoms_list(admin: AdminService, args: argparse.Namespace) -> int:
    """List atoms by type, tag, project and status, newest first."""
    status = None if args.status == "all" else args.status
    atoms = await admin.atoms(
        AtomFilter(status=status, types=args.type or (), tags=args.tag or (), project=args.project), limit=args.limit,
    )
    if args.json:
        emit_json([atom_json(a) for a in atoms])
        return 0
    if any(a.status != "live" for a in atoms):
        print("UNTRUSTED: rows with status quarantined are content from untrusted sources held for review; "
              "they are not memory.")
    table(("id", "type", "status", "source", "age", "text"),
          [(_short(a.id), a.type, a.status, a.source_class, age(a.created_at), _preview(a.text)) for a in atoms])
    return 0


async def cmd_atoms_show(admin: AdminService, args: argparse.Namespace) -> int:
    """Print every field of one atom (an id prefix of 6+ characters works)."""
    atom = await admin.atom(args.id)
    if args.json:
        emit_json(atom_json(atom))
    else:
        show_atom(atom)
    return 0


async def cmd_quarantine(admin: AdminService, args: argparse.Namespace) -> int:
    """List quarantined atoms with why they are held and when they expire."""
    atoms = await admin.quarantine(limit=args.limit)
    if args.json:
        emit_json([atom_json(a) for a in atoms])
        return 0
    print(UNTRUSTED)
    table(("id", "type", "source", "reason", "findings", "expires", "text"),
          [(_short(a.id), a.type, a.source_class, a.quarantine_reason, _preview(a.findings or "", 40),
            until(a.expires_at), _preview(a.text, 50)) for a in atoms])
    if atoms:
        print("approve with `mcp-memory-admin promote ID`, drop with `forget ID`, or walk them with `triage`")
    return 0


async def cmd_promote(admin: AdminService, args: argparse.Namespace) -> int:
    """Release a quarantined atom as trusted, human-approved memory (asks first)."""
    _require_person(args, "promote")
    atom = await admin.atom(args.id)
    if atom.status == "live" and is_trusted(atom.source_class):
        return _done(args, atom, f"atom {atom.id} is already trusted memory; nothing changed.")
    if not args.yes:
        with _for_person(args):
            show_atom(atom)
            if not _confirm(args, f"Promote atom {_short(atom.id)} to trusted memory?"):
                return _cancelled()
    promoted = await admin.promote(atom.id)
    return _done(args, promoted, f"promoted atom {promoted.id}: live, source {promoted.source_class}.")


async def cmd_forget(admin: AdminService, args: argparse.Namespace) -> int:
    """Delete an atom, pinned or not (asks first; the text stays in the audit log)."""
    _require_person(args, "forget")
    atom = await admin.atom(args.id)
    if not args.yes:
        with _for_person(args):
            show_atom(atom)
            if not _confirm(args, f"Forget atom {_short(atom.id)}? It is deleted (its text stays in the audit log)."):
                return _cancelled()
    gone = await admin.forget(atom.id)
    return _done(args, gone, f"forgot atom {gone.id}.")


async def cmd_pin(admin: AdminService, args: argparse.Namespace) -> int:
    """Pin a live atom so it is never evicted."""
    atom = await admin.pin(args.id)
    return _done(args, atom, f"pinned atom {atom.id}.")


async def cmd_unpin(admin: AdminService, args: argparse.Namespace) -> int:
    """Unpin an atom so it can be forgotten or evicted (asks first)."""
    _require_person(args, "unpin")
    atom = await admin.atom(args.id)
    if not atom.pinned:
        return _done(args, atom, f"atom {atom.id} is not pinned; nothing changed.")
    if not args.yes:
        with _for_person(args):
            show_atom(atom)
            if not _confirm(args, f"Unpin atom {_short(atom.id)}? It can then be forgotten or evicted."):
                return _cancelled()
    unpinned = await admin.unpin(atom.id)
    return _done(args, unpinned, f"unpinned atom {unpinned.id}.")


def _done(args: argparse.Namespace, atom: Atom, message: str) -> int:
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
    print(UNVERIFIED)
    table(("id", "field", "value", "conf", "age", "expires", "evidence"),
          [(_short(p.id), p.field_path, _preview(p.value, 40), f"{p.confidence:.2f}", age(p.created_at),
            until(p.expires_at), _preview(p.evidence, 40)) for p in items])
    if items:
        print("apply with `mcp-memory-admin confirm ID`, drop with `reject ID`, or walk them with `triage`")
    return 0


async def cmd_confirm(admin: AdminService, args: argparse.Namespace) -> int:
    """Apply a pending inference to the user model (asks first)."""
    _require_person(args, "confirm")
    item = await admin.pending_item(args.id)
    if not args.yes:
        with _for_person(args):
            show_pending(item)
            if not _confirm(args, f"Apply {item.field_path} = {_preview(item.value, 40)!r} to the user model?"):
                return _cancelled()
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

_CHOICES = {"a": "approve", "approve": "approve", "r": "reject", "reject": "reject",
            "s": "skip", "skip": "skip", "q": "quit", "quit": "quit"}


def _choose() -> str:
    while True:
        answer = ask("[a]pprove / [r]eject / [s]kip / [q]uit? ")
        if answer is None:
            return "quit"
        if answer in _CHOICES:
            return _CHOICES[answer]
        print("answer a, r, s or q")


async def cmd_triage(admin: AdminService, args: argparse.Namespace) -> int:
    """Walk the quarantine queue, then the pending queue, deciding item by item."""
    if not interactive():
        raise TrustRefused(
            "triage asks a person about each item and needs a terminal (stdin is not a TTY); in scripts "
            "use `quarantine` / `pending` with `promote --yes`, `confirm --yes`, `forget --yes` or `reject`"
        )
    queue: list[Atom | PendingReview] = [*await admin.quarantine(limit=100_000), *await admin.pending()]
    with _for_person(args):
        counts = await _walk(admin, queue)
    if args.json:
        emit_json(counts)
    else:
        print(f"\ntriage: approved {counts['approved']}, rejected {counts['rejected']}, "
              f"skipped {counts['skipped']}, not reviewed {counts['not_reviewed']}.")
    return 0


async def _walk(admin: AdminService, queue: list[Atom | PendingReview]) -> dict[str, int]:
    """Show each item, ask, act; returns what was decided."""
    counts = {"approved": 0, "rejected": 0, "skipped": 0, "not_reviewed": 0}
    if not queue:
        print("nothing to triage: the quarantine and pending queues are empty.")
    for n, item in enumerate(queue, start=1):
        print(f"\n── {n}/{len(queue)} " + ("quarantined atom" if isinstance(item, Atom) else "pending review") + " " + "─" * 30)
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


# --- housekeeping and audit -------------------------------------------------------------------


async def cmd_prune(admin: AdminService, args: argparse.Namespace) -> int:
    """Delete quarantined atoms and pending inferences whose review window has passed."""
    report = await admin.prune()
    if args.json:
        emit_json(dataclasses.asdict(report))
    else:
        print(f"pruned {report.quarantine_expired} expired quarantined atom(s) and "
              f"{report.pending_expired} expired pending review(s).")
    return 0


async def cmd_audit(admin: AdminService, args: argparse.Namespace) -> int:
    """Show the audit log, newest last."""
    since = parse_since(args.since) if args.since else None
    events = await admin.audit(kind=args.kind, actor=args.actor, subject=args.subject, since=since, limit=args.limit)
    if args.json:
        emit_json([dataclasses.asdict(e) for e in events])
        return 0
    table(("id", "time", "actor", "kind", "subject", "detail"),
          [(e.id, iso(e.ts), e.actor, e.kind, e.subject,
            _preview(json.dumps(e.detail, ensure_ascii=False, sort_keys=True), 60)) for e in events])
    return 0


# --- export and import ------------------------------------------------------------------------


async def cmd_export(admin: AdminService, args: argparse.Namespace) -> int:
    """Write the whole store as JSONL to FILE (created 0600) or to stdout."""
    progress = Progress()
    if args.file in (None, "-"):
        # On a terminal the records themselves show progress; a bar would tear through them.
        report = await export_jsonl(admin.runtime, sys.stdout.write, None if sys.stdout.isatty() else progress)
        sys.stdout.flush()
        target, out = "stdout", sys.stderr
    else:
        path = Path(args.file)
        # Write beside the target and rename, so an interrupted export never leaves half a file.
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError as exc:
            raise InvalidInput(f"cannot write {path}: {exc.strerror}") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                report = await export_jsonl(admin.runtime, fh.write, progress)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        target, out = str(path), sys.stdout
    total = sum(report.counts.values())
    if args.json and out is sys.stdout:
        emit_json({"file": target, "records": total, **report.counts,
                   "schema_version": report.schema_version, "exported_at": report.exported_at})
    else:
        detail = ", ".join(f"{n} {kind}" for kind, n in report.counts.items())
        print(f"exported {total} records to {target} ({detail}).", file=out)
    return 0


async def cmd_import(admin: AdminService, args: argparse.Namespace) -> int:
    """Import an mcp-memory export or a reference memory-server graph (asks first)."""
    _require_person(args, "import")
    path = Path(args.file)
    try:
        with path.open("rb") as fh:
            plan = parse_import(fh, str(path))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc
    counts = plan.counts()
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "no records"
    label = "mcp-memory export" if plan.format == "mcp-memory" else "reference memory-server graph"
    if not args.yes:
        with _for_person(args):
            print(f"{path}: {label} with {summary}.")
            if not _confirm(args, f"Import it into the memory store {admin.runtime.store.path}?"):
                return _cancelled()
    report = await apply_import(admin.runtime, plan, Progress())
    _print_import(report, args.json)
    return 0


def _print_import(report: ImportReport, as_json: bool) -> None:
    if as_json:
        emit_json(dataclasses.asdict(report))
        return
    def listed(counts: dict[str, int]) -> str:
        return ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "nothing"

    print(f"imported {report.source} ({report.format}): added {listed(report.added)}; "
          f"skipped {listed(report.skipped)} (already present).")
    for reason, n in report.quarantined.items():
        print(f"held {n} atom(s) in quarantine ({reason}); review them with `mcp-memory-admin quarantine`.")
    if report.dropped:
        print(f"dropped {report.dropped} pending review(s) that the content scanner flagged.")
    if report.renumbered:
        print(f"renumbered {report.renumbered} record(s) whose id was taken by a different one.")
    for warning in report.warnings:
        print(f"warning: {warning}")


# --- doctor -----------------------------------------------------------------------------------


async def cmd_doctor(settings: Settings, args: argparse.Namespace) -> int:
    """Check the store (and with --repair fix it); exit 1 while problems remain."""
    report = await run_doctor(settings, AdminService, repair=args.repair, progress=Progress())
    if args.json:
        emit_json({**dataclasses.asdict(report), "ok": report.ok})
    else:
        _print_doctor(report, args.repair)
    return 0 if report.ok else 1


def _print_doctor(report: DoctorReport, repair: bool) -> None:
    print(f"store      {report.path}")
    if report.damaged:
        print(f"DAMAGED    {report.damaged}")
        for line in report.integrity[:10] if report.salvage is None else ():
            print(f"           {safe(line)}")
    if report.salvage is not None:
        print(f"salvaged   {report.salvage.copied} row(s) into a fresh store; the damaged file is kept at "
              f"{report.salvage.damaged_copy}")
        table(("table", "copied", "read errors", "rejected", "note"),
              [(t.table, t.copied, t.read_errors, t.rejected, t.error or "") for t in report.salvage.tables])
    elif report.damaged:
        print("           nothing was changed; `mcp-memory-admin doctor --repair` sets the damaged file aside "
              "and salvages what it can into a fresh store (stop the servers using it first)")
        print("problems remain.")
        return
    if report.schema_version is not None:
        current = "current" if report.schema_version == report.latest_schema else f"expected {report.latest_schema}"
        print(f"schema     {report.schema_version} ({current})")
    print("integrity  " + ("ok" if not report.integrity else f"FAILED: {'; '.join(report.integrity[:5])}"))
    for check in report.checks:
        if not check.found:
            print(f"[ok]     {check.name}: {check.description}")
            continue
        fixed = f", repaired {check.repaired}" if check.repaired else ""
        mark = "[fixed]" if not check.remaining else "[FAIL] "
        print(f"{mark}  {check.name}: {len(check.found)} problem(s){fixed}")
        for line in (check.remaining or check.found)[:20]:
            print(f"           {safe(line)}")
        if len(check.remaining or check.found) > 20:
            print(f"           … and {len(check.remaining or check.found) - 20} more")
        if check.remaining and check.hint and not (repair and "--repair" in check.hint):
            print(f"           fix: {check.hint}")
    print("healthy." if report.ok else "problems remain.")


# --- the parser -------------------------------------------------------------------------------


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The admin CLI's argument parser."""
    # SUPPRESS keeps a subcommand's defaults from overwriting options given before the command
    # (`mcp-memory-admin --json stats`); main() fills in the real defaults afterwards.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS, help="store folder (default ~/.mcp-memory, or MCP_MEMORY_HOME)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    gated = argparse.ArgumentParser(add_help=False)
    gated.add_argument("--yes", "-y", action="store_true", help="do not ask (needed when stdin is not a terminal)")

    parser = argparse.ArgumentParser(
        prog="mcp-memory-admin", parents=[common],
        description="Inspect and govern the mcp-memory store. Only a human runs this.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-memory-admin {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, run: Command, *, person: bool = False) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, parents=[common, gated] if person else [common], help=help_text,
                                  description=help_text)
        sub.set_defaults(run=run)
        return sub

    command("stats", "store size and counts", cmd_stats)

    facts = commands.add_parser("facts", parents=[common], help="show, add or remove facts entries")
    facts_commands = facts.add_subparsers(dest="facts_command", required=True, metavar="show|add|remove")
    show = facts_commands.add_parser("show", parents=[common], help="print the facts")
    show.add_argument("target", nargs="?", choices=TARGETS)
    show.set_defaults(run=cmd_facts_show)
    add = facts_commands.add_parser("add", parents=[common], help="add an entry")
    add.add_argument("target", choices=TARGETS)
    add.add_argument("content")
    add.add_argument("--key")
    add.add_argument("--pinned", action="store_true")
    add.add_argument("--keyword", action="append", help="contextual keyword (repeatable)")
    add.set_defaults(run=cmd_facts_add)
    remove = facts_commands.add_parser("remove", parents=[common], help="remove the entry old_text names")
    remove.add_argument("target", choices=TARGETS)
    remove.add_argument("old_text")
    remove.set_defaults(run=cmd_facts_remove)

    atoms = commands.add_parser("atoms", parents=[common], help="list atoms or show one")
    atoms_commands = atoms.add_subparsers(dest="atoms_command", required=True, metavar="list|show|search")
    listing = atoms_commands.add_parser("list", parents=[common], help="list atoms, newest first")
    listing.add_argument("--type", action="append", choices=(*ATOM_TYPES, FALLBACK_ATOM_TYPE), help="repeatable")
    listing.add_argument("--tag", action="append", help="repeatable; every tag must match")
    listing.add_argument("--project")
    listing.add_argument("--status", choices=("live", "quarantined", "all"), default="live")
    listing.add_argument("--limit", type=_positive, default=50)
    listing.set_defaults(run=cmd_atoms_list)
    one = atoms_commands.add_parser("show", parents=[common], help="every field of one atom")
    one.add_argument("id", help="atom id, or an unambiguous prefix of 6+ characters")
    one.set_defaults(run=cmd_atoms_show)

    add_recall_commands(atoms_commands, commands, common)
    add_episode_commands(commands, common, gated)
    add_anticipation_commands(commands, common)
    command("quarantine", "list quarantined (untrusted) atoms", cmd_quarantine).add_argument(
        "--limit", type=_positive, default=200)
    command("promote", "approve a quarantined atom as trusted memory", cmd_promote, person=True).add_argument("id")
    command("forget", "delete an atom", cmd_forget, person=True).add_argument("id")
    command("pin", "pin a live atom (never evicted)", cmd_pin).add_argument("id")
    command("unpin", "unpin an atom", cmd_unpin, person=True).add_argument("id")
    command("pending", "list inferences waiting for review", cmd_pending)
    command("confirm", "apply a pending inference to the user model", cmd_confirm, person=True).add_argument("id")
    command("reject", "drop a pending inference", cmd_reject).add_argument("id")
    command("triage", "review the quarantine and pending queues one item at a time", cmd_triage)
    command("prune", "delete expired quarantine and pending reviews", cmd_prune)

    audit = command("audit", "show the audit log", cmd_audit)
    audit.add_argument("--kind")
    audit.add_argument("--actor", choices=("agent", "admin", "system"))
    audit.add_argument("--subject", help="e.g. atom:ID or fact:3")
    audit.add_argument("--since", help="ISO date/time, epoch seconds, or an age such as 7d")
    audit.add_argument("--limit", type=_positive, default=50)

    command("export", "write the whole store as JSONL", cmd_export).add_argument(
        "file", nargs="?", help="output file (default: stdout, also '-')")
    command("import", "import an export or a reference memory-server graph (JSONL)", cmd_import,
            person=True).add_argument("file")

    doctor = commands.add_parser("doctor", parents=[common], help="check the store's health",
                                 description="Check integrity, schema and consistency of the store.")
    doctor.add_argument("--repair", action="store_true",
                        help="fix what can be fixed; a damaged file is set aside and salvaged into a fresh "
                             "store (stop the servers using the store first)")
    doctor.set_defaults(direct=cmd_doctor)
    return parser


async def _run(settings: Settings, command: Command, args: argparse.Namespace) -> int:
    async with open_runtime(settings) as runtime:
        return await command(AdminService(runtime), args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one admin command; domain errors become a one-line message and exit code 1."""
    parser = build_parser()
    args = parser.parse_args(argv)
    single_threaded_blas()
    for name, default in (("home", None), ("json", False), ("debug", False), ("yes", False), ("direct", None)):
        if not hasattr(args, name):
            setattr(args, name, default)
    try:
        settings = load_settings(overrides={"home": args.home})
        if args.direct is not None:
            direct: Direct = args.direct
            return asyncio.run(direct(settings, args))
        return asyncio.run(_run(settings, args.run, args))
    except MemoryServerError as exc:
        if args.debug:
            raise
        print(f"mcp-memory-admin: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nmcp-memory-admin: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
