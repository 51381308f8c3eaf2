"""`trusted-memory-admin`: the human operator's CLI over the same store the servers share.

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
from typing import Any

from .. import VERSION
from ..config import Settings, load_settings
from ..errors import InvalidInput, MemoryServerError
from ..model import EVENT_KINDS, STORED_ATOM_TYPES, TARGETS
from ..people import acting_as, check_person_name
from ..queries import AtomFilter
from ..services.admin import AdminService
from ..services.facts import preview as _preview
from ..services.people import PeopleDirectory
from ..services.runtime import open_runtime
from ..trust import is_trusted
from .anticipation_commands import add_anticipation_commands
from .chat_commands import add_chat_commands
from .episode_commands import add_episode_commands
from .gate import cancelled as _cancelled
from .gate import confirm as _confirm
from .gate import for_person as _for_person
from .gate import require_person as _require_person
from .llm_stats import llm_stats_json, print_llm_stats
from .output import age, counted, emit_json, fields, iso, safe, say, table
from .people_commands import add_people_commands
from .recall_commands import add_recall_commands
from .review_commands import (
    atom_json,
    cmd_confirm,
    cmd_pending,
    cmd_promote,
    cmd_quarantine,
    cmd_reject,
    cmd_triage,
    report_atom,
    short_id,
    show_atom,
)
from .store_commands import cmd_doctor, cmd_export, cmd_import, cmd_migrate
from .ui_command import add_ui_command

Command = Callable[[AdminService, argparse.Namespace], Awaitable[int]]
Direct = Callable[[Settings, argparse.Namespace], Coroutine[Any, Any, int]]

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


# --- shared helpers ---------------------------------------------------------------------------


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
    """Print sizes and counts of the store: atoms by type and trust, turns, queues, episodes, sessions."""
    stats, counts = await admin.stats(), await admin.counts()
    by_type: dict[str, dict[str, int]] = {}
    by_source: dict[str, int] = {}
    for atom_type, status, source, n in counts.atoms:
        trust = "quarantined" if status != "live" else ("trusted" if is_trusted(source) else "untrusted")
        cell = by_type.setdefault(atom_type, {"trusted": 0, "quarantined": 0, "untrusted": 0})
        cell[trust] += n
        by_source[source] = by_source.get(source, 0) + n
    totals = {k: sum(c[k] for c in by_type.values()) for k in ("trusted", "quarantined", "untrusted")}
    if args.json:
        emit_json(
            {
                "path": stats.path,
                "size_bytes": stats.size_bytes,
                "events": stats.events,
                "change_counter": stats.change_counter,
                "counted_for": stats.counted_for,
                "atoms": {"total": sum(totals.values()), **totals, "by_type": by_type, "by_source": by_source},
                "quarantine": totals["quarantined"],
                "pending_reviews": counts.pending,
                "transcript_turns": counts.turns,
                "sessions": counts.sessions,
                "open_sessions": counts.open_sessions,
                "session_notes": counts.notes,
                "episodes": counts.episodes,
                "held_episodes": counts.held_episodes,
                "facts": [
                    {"target": u.target, "used": u.used, "cap": u.cap, "pct": u.pct, "entries": u.entries}
                    for u in stats.facts
                ],
                "llm": llm_stats_json(stats),
            }
        )
        return 0
    fields(
        [
            ("store", stats.path),
            *([("counted for", f"{stats.counted_for}: what they may see")] if stats.counted_for else []),
            ("size", f"{stats.size_bytes:,} bytes" + (" (the whole store's)" if stats.counted_for else "")),
            ("events", f"{stats.events:,}" + (" about their own records" if stats.counted_for else "")),
            (
                "atoms",
                f"{sum(totals.values()):,}: {totals['trusted']:,} trusted, {totals['quarantined']:,} quarantined",
            ),
            ("pending", counted(counts.pending, "review") + " waiting for you"),
            ("sessions", f"{counts.sessions:,} ({counts.open_sessions:,} open), {counted(counts.notes, 'note')}"),
            ("turns", f"{counts.turns:,} in the transcripts of open sessions"),
            ("episodes", f"{counts.episodes:,} ({counts.held_episodes:,} held for review)"),
        ]
    )
    print()
    show_untrusted = totals["untrusted"] > 0
    table(
        ("atom type", "trusted", "quarantined", *(("untrusted",) if show_untrusted else ())),
        [
            (t, f"{c['trusted']:,}", f"{c['quarantined']:,}", *((f"{c['untrusted']:,}",) if show_untrusted else ()))
            for t, c in sorted(by_type.items())
        ],
        flexible=("atom type",),
    )
    if by_source:
        say("by source: " + ", ".join(f"{s} {n:,}" for s, n in sorted(by_source.items(), key=lambda kv: -kv[1])))
    print()
    table(
        ("facts", "entries", "used", "cap", "pct"),
        [(u.target, u.entries, f"{u.used:,}", f"{u.cap:,}", f"{u.pct}%") for u in stats.facts],
    )
    print_llm_stats(stats)
    return 0


async def cmd_facts_show(admin: AdminService, args: argparse.Namespace) -> int:
    """Print the facts of one or both targets."""
    targets = [args.target] if args.target else list(TARGETS)
    views = [await admin.facts(t) for t in targets]
    if args.json:
        emit_json(
            [
                {
                    "target": v.target,
                    "used": v.usage.used,
                    "cap": v.usage.cap,
                    "entries": [
                        {
                            "index": i,
                            "id": e.id,
                            "content": e.content,
                            "key": e.key,
                            "pinned": e.pinned,
                            "keywords": list(e.keywords),
                        }
                        for i, e in enumerate(v.entries, start=1)
                    ],
                }
                for v in views
            ]
        )
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
        AtomFilter(status=status, types=args.type or (), tags=args.tag or (), project=args.project),
        limit=args.limit,
    )
    if args.json:
        emit_json([atom_json(a) for a in atoms])
        return 0
    if any(a.status != "live" for a in atoms):
        say(
            "UNTRUSTED: rows with status quarantined are content from untrusted sources held for review; "
            "they are not memory."
        )
    table(
        ("id", "type", "status", "source", "age", "text"),
        [(short_id(a.id), a.type, a.status, a.source_class, age(a.created_at), _preview(a.text)) for a in atoms],
    )
    return 0


async def cmd_atoms_show(admin: AdminService, args: argparse.Namespace) -> int:
    """Print every field of one atom (an id prefix of 6+ characters works)."""
    atom = await admin.atom(args.id)
    if args.json:
        emit_json(atom_json(atom))
    else:
        show_atom(atom)
    return 0


async def cmd_forget(admin: AdminService, args: argparse.Namespace) -> int:
    """Delete an atom, pinned or not (asks first; the text stays in the audit log)."""
    _require_person(args, "forget")
    atom = await admin.atom(args.id)
    if not args.yes:
        with _for_person(args):
            show_atom(atom)
            if not _confirm(args, f"Forget atom {short_id(atom.id)}? It is deleted (its text stays in the audit log)."):
                return _cancelled()
    gone = await admin.forget(atom.id)
    return report_atom(args, gone, f"forgot atom {gone.id}.")


async def cmd_pin(admin: AdminService, args: argparse.Namespace) -> int:
    """Pin a live atom so it is never evicted."""
    atom = await admin.pin(args.id)
    return report_atom(args, atom, f"pinned atom {atom.id}.")


async def cmd_unpin(admin: AdminService, args: argparse.Namespace) -> int:
    """Unpin an atom so it can be forgotten or evicted (asks first)."""
    _require_person(args, "unpin")
    atom = await admin.atom(args.id)
    if not atom.pinned:
        return report_atom(args, atom, f"atom {atom.id} is not pinned; nothing changed.")
    if not args.yes:
        with _for_person(args):
            show_atom(atom)
            if not _confirm(args, f"Unpin atom {short_id(atom.id)}? It can then be forgotten or evicted."):
                return _cancelled()
    unpinned = await admin.unpin(atom.id)
    return report_atom(args, unpinned, f"unpinned atom {unpinned.id}.")


# --- housekeeping and audit -------------------------------------------------------------------


async def cmd_prune(admin: AdminService, args: argparse.Namespace) -> int:
    """Delete quarantined atoms and pending inferences whose review window has passed."""
    report = await admin.prune()
    if args.json:
        emit_json(dataclasses.asdict(report))
    else:
        print(
            f"pruned {counted(report.quarantine_expired, 'expired quarantined atom')} and "
            f"{counted(report.pending_expired, 'expired pending review')}."
        )
    return 0


async def cmd_audit(admin: AdminService, args: argparse.Namespace) -> int:
    """Show the audit log, newest last."""
    since = parse_since(args.since) if args.since else None
    events = await admin.audit(kind=args.kind, actor=args.actor, subject=args.subject, since=since, limit=args.limit)
    if args.json:
        emit_json([dataclasses.asdict(e) for e in events])
        return 0
    table(
        ("id", "time", "actor", "kind", "subject", "detail"),
        [
            (
                e.id,
                iso(e.ts),
                e.actor,
                e.kind,
                e.subject,
                _preview(json.dumps(e.detail, ensure_ascii=False, sort_keys=True), 60),
            )
            for e in events
        ],
        flexible=("subject", "detail"),
    )
    return 0


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
    # (`trusted-memory-admin --json stats`); main() fills in the real defaults afterwards.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home", default=argparse.SUPPRESS, help="store folder (default ~/.mcp-memory, or MCP_MEMORY_HOME)"
    )
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    common.add_argument(
        "--as",
        dest="as_person",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="in a team's store, act as this person: a member sees and reviews only their own; an admin, the team",
    )
    gated = argparse.ArgumentParser(add_help=False)
    gated.add_argument("--yes", "-y", action="store_true", help="do not ask (needed when stdin is not a terminal)")

    parser = argparse.ArgumentParser(
        prog="trusted-memory-admin",
        parents=[common],
        description="Inspect and govern the trusted-memory store. Only a human runs this.",
    )
    parser.add_argument("--version", action="version", version=f"trusted-memory-admin {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, run: Command, *, person: bool = False) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name, parents=[common, gated] if person else [common], help=help_text, description=help_text
        )
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
    listing.add_argument("--type", action="append", choices=STORED_ATOM_TYPES, help="repeatable")
    listing.add_argument("--tag", action="append", help="repeatable; every tag must match")
    listing.add_argument("--project")
    listing.add_argument("--status", choices=("live", "quarantined", "all"), default="live")
    listing.add_argument("--limit", type=_positive, default=50)
    listing.set_defaults(run=cmd_atoms_list)
    one = atoms_commands.add_parser("show", parents=[common], help="every field of one atom")
    one.add_argument("id", help="atom id, or an unambiguous prefix of 6+ characters")
    one.set_defaults(run=cmd_atoms_show)

    # Command groups in their own modules register themselves: one line each.
    add_recall_commands(atoms_commands, commands, common)
    add_episode_commands(commands, common, gated)
    add_anticipation_commands(commands, common)
    add_chat_commands(commands, common, gated)
    add_people_commands(commands, common)
    command("quarantine", "list quarantined (untrusted) atoms", cmd_quarantine).add_argument(
        "--limit", type=_positive, default=200
    )
    command("promote", "approve a quarantined atom as trusted memory", cmd_promote, person=True).add_argument("id")
    command("forget", "delete an atom", cmd_forget, person=True).add_argument("id")
    command("pin", "pin a live atom (never evicted)", cmd_pin).add_argument("id")
    command("unpin", "unpin an atom", cmd_unpin, person=True).add_argument("id")
    command("pending", "list inferences waiting for review", cmd_pending)
    command("confirm", "apply a pending inference to the user model", cmd_confirm, person=True).add_argument("id")
    command("reject", "drop a pending inference", cmd_reject).add_argument("id")
    command("triage", "review the quarantine and pending queues one item at a time", cmd_triage)
    command("prune", "delete expired quarantine and pending reviews", cmd_prune)
    add_ui_command(commands, common)

    audit = command("audit", "show the audit log", cmd_audit)
    audit.epilog = "event kinds: " + ", ".join(EVENT_KINDS)
    audit.add_argument("--kind", metavar="KIND", help="only events of this kind (listed below)")
    audit.add_argument("--actor", choices=("agent", "admin", "system"))
    audit.add_argument("--subject", help="e.g. atom:ID or fact:3")
    audit.add_argument("--since", help="ISO date/time, epoch seconds, or an age such as 7d")
    audit.add_argument("--limit", type=_positive, default=50)

    exporting = command("export", "write the whole store as JSONL (with --as MEMBER: what they may see)", cmd_export)
    exporting.add_argument("file", nargs="?", help="output file (default: stdout, also '-')")
    importing = command(
        "import", "import an export or a reference memory-server graph (JSONL)", cmd_import, person=True
    )
    importing.add_argument("file")
    migrating = command(
        "migrate",
        "copy the whole store into an empty one on the other backend (SQLite <-> PostgreSQL)",
        cmd_migrate,
        person=True,
    )
    migrating.add_argument(
        "--to",
        required=True,
        metavar="TARGET",
        help="postgresql://USER@HOST:PORT/DB (its password from ~/.pgpass or PGPASSWORD), or a SQLite store's folder",
    )
    importing.add_argument(
        "--trust-graph",
        action="store_true",
        help="a reference graph is your own: store its atoms as approved memory, not in quarantine for review",
    )

    doctor = commands.add_parser(
        "doctor",
        parents=[common, gated],
        help="check the store's health",
        description="Check integrity, schema and consistency of the store.",
    )
    doctor.add_argument(
        "--repair",
        action="store_true",
        help="fix what can be fixed; a damaged file is set aside and salvaged into a fresh "
        "store (stop the servers using the store first); asks first on a terminal, needs --yes without one",
    )
    doctor.set_defaults(direct=cmd_doctor)
    return parser


def _check_home(settings: Settings) -> None:
    """Refuse a store folder whose parent does not exist: that is a mistyped path, not a new store.

    A PostgreSQL store lives in its database, so there the folder (config.toml only) may be absent.
    """
    home = settings.home
    if settings.store.backend == "sqlite" and not home.exists() and not home.parent.is_dir():
        raise InvalidInput(
            f"the store folder {home} does not exist, and neither does {home.parent}; check --home or "
            f"MCP_MEMORY_HOME (a new store is created only inside an existing folder)"
        )


async def _run(settings: Settings, command: Command, args: argparse.Namespace) -> int:
    async with open_runtime(settings) as runtime:
        if args.as_person is None:
            return await command(AdminService(runtime), args)
        viewer = await PeopleDirectory(runtime.store).viewer_named(check_person_name(args.as_person))
        if viewer is None:
            raise InvalidInput(
                f"no person {args.as_person!r} with a live token; `trusted-memory-admin users list` shows who there is"
            )
        # An admin at the desk reviews the team: they act as the operator, who sees every row.
        with acting_as(viewer if not viewer.is_admin else None):
            return await command(AdminService(runtime), args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one admin command; domain errors become a one-line message and exit code 1."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (
        ("home", None),
        ("json", False),
        ("debug", False),
        ("yes", False),
        ("direct", None),
        ("as_person", None),
    ):
        if not hasattr(args, name):
            setattr(args, name, default)
    try:
        settings = load_settings(overrides={"home": args.home})
        _check_home(settings)
        if args.direct is not None:
            direct: Direct = args.direct
            return asyncio.run(direct(settings, args))
        return asyncio.run(_run(settings, args.run, args))
    except MemoryServerError as exc:
        if args.debug:
            raise
        print(f"trusted-memory-admin: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ntrusted-memory-admin: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
