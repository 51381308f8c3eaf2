"""`import-chats`: bring a Claude or ChatGPT conversation export (or a JSONL of turns) into memory."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..services.admin import AdminService
from ..services.admin.chat_import import ChatPlan, ChatReport, apply_chats, plan_chats, preview
from ..services.admin.chats import FORMATS, ChatFormat, load_chats
from ..services.facts import preview as clip
from .gate import cancelled, confirm, for_person, require_person
from .output import console, emit_json, safe, table

HELP = "import a Claude or ChatGPT conversation export (conversations.json or its zip) or a JSONL of turns"


def add_chat_commands(commands: Any, common: argparse.ArgumentParser, gated: argparse.ArgumentParser) -> None:
    """Register `import-chats`."""
    sub = commands.add_parser(
        "import-chats",
        parents=[common, gated],
        help=HELP,
        description=HELP + ". Each user message is stored as your own words with its original date; "
        "a conversation that used tools or attached files is marked untrusted (its summary is held for "
        "review). Importing the same export again skips what is already in.",
    )
    sub.add_argument(
        "file", help="conversations.json, the export .zip, or a .jsonl of {conversation, time, role, text}"
    )
    sub.add_argument("--format", choices=FORMATS, help="the export's product (detected by default)")
    sub.add_argument("--dry-run", action="store_true", help="show what would be formed, write nothing")
    sub.add_argument("--sample", type=int, default=8, help="how many memories a dry run shows (default 8)")
    sub.set_defaults(run=cmd_import_chats)


async def cmd_import_chats(admin: AdminService, args: argparse.Namespace) -> int:
    """Read the export, show what it holds, and (after confirming) replay it through observe."""
    fmt: ChatFormat | None = args.format
    chats = load_chats(Path(args.file), fmt)
    plan = await plan_chats(admin.runtime, chats)
    _print_problems(plan)
    if args.dry_run:
        shown = preview(plan, max(args.sample, 0))
        if args.json:
            emit_json({"dry_run": True, **dataclasses.asdict(shown), "problems": _problems(plan)})
        else:
            _print_plan(plan)
            _print_preview(shown)
        return 0
    require_person(args, "import-chats")
    if not args.yes:
        with for_person(args):
            _print_plan(plan)
            if plan.planned:
                # What would become the user's own words, so the person confirms the content, not a count.
                _print_preview(preview(plan, max(args.sample, 0)), dry_run=False)
            if not plan.planned:
                print("nothing new to import.")
            elif not confirm(
                args, f"Import {plan.turns:,} turn(s) as your own words into {admin.runtime.store.location}?"
            ):
                return cancelled()
    if not plan.planned:
        report = ChatReport(chats.source, chats.format, 0, 0, plan.already)
    else:
        report = await _with_progress(admin, plan, quiet=args.json)
    if args.json:
        emit_json({**dataclasses.asdict(report), "problems": _problems(plan)})
    else:
        _print_report(report, plan)
    return 1 if chats.problems and not plan.planned else 0


async def _with_progress(admin: AdminService, plan: ChatPlan, *, quiet: bool) -> ChatReport:
    # Titles are stored text: never read as rich markup or emoji codes (a "[/]" would raise).
    err = console(sys.stderr)
    bar = Progress(
        TextColumn("importing {task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("turns"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
    )
    with bar:
        task = bar.add_task("", total=plan.turns)

        def step(n: int, title: str) -> None:
            bar.update(task, advance=n, description=clip(safe(title), 30))

        return await apply_chats(admin.runtime, plan, step)


def _problems(plan: ChatPlan) -> list[dict[str, str]]:
    return [dataclasses.asdict(p) for p in plan.file.problems]


def _print_plan(plan: ChatPlan) -> None:
    chats = plan.file
    total = sum(len(c.turns) for c in chats.conversations)
    print(
        f"{chats.source}: {chats.format} export, {len(chats.conversations):,} conversation(s) with {total:,} "
        f"turn(s); {plan.already:,} already imported, {plan.turns:,} new in {len(plan.planned):,} conversation(s)."
    )
    for reason, n in chats.skipped_turns.items():
        print(f"skipped {n:,} user message(s): {reason}.")
    untrusted = [p for p in plan.planned if p.untrusted]
    if untrusted:
        print(
            f"{len(untrusted):,} conversation(s) used tools or attached files: their turns are kept, "
            "their sessions marked untrusted, their summaries held for review."
        )


def _print_problems(plan: ChatPlan) -> None:
    """Name every conversation that could not be read (on stderr, so --json output stays one document)."""
    chats = plan.file
    if chats.problems:
        print(f"\n{len(chats.problems)} conversation(s) could not be read and are skipped:", file=sys.stderr)
        for p in chats.problems:
            name = f"{p.conversation} ({clip(p.title, 40)})" if p.title else p.conversation
            print(f"  {safe(name)}: {safe(p.reason)}", file=sys.stderr)
        print("Fix or remove them in the file and import again; the rest is unaffected.", file=sys.stderr)


def _print_preview(shown: Any, *, dry_run: bool = True) -> None:
    lead = "Dry run (nothing written)" if dry_run else "Importing"
    print(
        f"\n{lead}: {shown.turns:,} turn(s) in {shown.conversations:,} conversation(s) would "
        f"form about {shown.turn_memories:,} turn memories and "
        f"{sum(shown.typed_atoms.values()):,} typed memories "
        f"({', '.join(f'{n} {t}' for t, n in shown.typed_atoms.items()) or 'none'}); "
        f"at most {shown.episodes_at_most:,} episode(s), {shown.untrusted_sessions:,} of them held."
    )
    if shown.sample:
        print("\nA sample of what would be remembered:")
        table(("said at (UTC)", "type", "text"), [(d, t, clip(x, 100)) for d, t, x in shown.sample])


def _print_report(report: ChatReport, plan: ChatPlan) -> None:
    rate = report.turns / report.seconds if report.seconds > 0 else 0.0
    atoms = ", ".join(f"{n} {status}" for status, n in sorted(report.atoms.items())) or "none"
    print(
        f"imported {report.turns:,} turn(s) from {report.conversations:,} conversation(s) of {report.source} "
        f"in {report.seconds:.1f}s ({rate:,.0f} turns/s); memories: {atoms}; "
        f"episodes: {report.episodes_live} live, {report.episodes_held} held for review; "
        f"skipped {report.already_imported:,} turn(s) already imported."
    )
    if report.episodes_held:
        print("review held episodes with `trusted-memory-admin episodes list`.")
    if plan.file.problems:
        print(f"{len(plan.file.problems)} conversation(s) were skipped (see above).")
