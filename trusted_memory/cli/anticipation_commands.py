"""Admin commands over the anticipation surfaces: the user model and proactive nudges."""

from __future__ import annotations

import argparse
import dataclasses

from ..services.admin import AdminService
from .output import age, counted, emit_json, safe, say, table


async def cmd_model(admin: AdminService, args: argparse.Namespace) -> int:
    """The user model as `context` applies it; `--infer` runs one inference pass first."""
    report = await admin.infer_user_state() if args.infer else None
    model = await admin.model()
    pending = await admin.pending()
    if args.json:
        emit_json(
            {
                "fields": [dataclasses.asdict(f) for f in model.fields.values()],
                "dropped": list(model.dropped),
                "pending": len(pending),
                "inference": dataclasses.asdict(report) if report else None,
            }
        )
        return 0
    if report is not None:
        print(
            f"inference: {len(report.applied)} applied, {len(report.queued)} queued for review "
            f"(of {report.considered} considered)"
        )
    if not model.fields:
        print("the user model is empty.")
    else:
        table(
            ("field", "value", "source", "updated", "evidence"),
            [
                (f.path, safe(f.value), f.source_class, age(f.updated_at), safe(f.evidence))
                for f in model.fields.values()
            ],
            flexible=("value", "evidence"),
        )
    if model.dropped:
        print(f"dropped on load (failed validation or the scanner): {', '.join(model.dropped)}")
    if pending:
        say(
            f"{counted(len(pending), 'inference')} {'waits' if len(pending) == 1 else 'wait'} for you: "
            "`trusted-memory-admin pending`, "
            "then `confirm ID` or `reject ID`."
        )
    return 0


async def cmd_nudges(admin: AdminService, args: argparse.Namespace) -> int:
    """Preview the proactive nudges; nothing is consumed or recorded."""
    preview = await admin.preview_nudges()
    enabled = admin.runtime.settings.features.nudges
    if args.json:
        emit_json(
            {
                "enabled": enabled,
                "shown_today": preview.shown_today,
                "per_day": preview.per_day,
                "candidates": [dataclasses.asdict(n) for n in preview.candidates],
                "due": [dataclasses.asdict(n) for n in preview.due],
            }
        )
        return 0
    state = "on" if enabled else "off (set features.nudges = true to show them in context)"
    say(f"nudges are {state}; {preview.shown_today} of {preview.per_day} shown in the last 24 hours.")
    if not preview.candidates:
        print("nothing to nudge about.")
        return 0
    due = {(n.kind, n.subject) for n in preview.due}
    table(
        ("kind", "next", "nudge"),
        [
            (
                n.kind,
                "yes"
                if (n.kind, n.subject) == (preview.due[0].kind, preview.due[0].subject)
                else ("due" if (n.kind, n.subject) in due else "cooling down"),
                safe(n.text),
            )
            for n in preview.candidates
        ],
    )
    return 0


def add_anticipation_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Register `model` and `nudges` on the admin parser."""
    model = commands.add_parser(
        "model",
        parents=[common],
        help="show the user model (style, focus, technical)",
        description="Show the user model as context applies it.",
    )
    model.add_argument("--infer", action="store_true", help="run one inference pass over trusted memories first")
    model.set_defaults(run=cmd_model)
    nudges = commands.add_parser(
        "nudges",
        parents=[common],
        help="preview proactive nudges without consuming them",
        description="Preview the proactive nudges context would show; records nothing.",
    )
    nudges.set_defaults(run=cmd_nudges)
