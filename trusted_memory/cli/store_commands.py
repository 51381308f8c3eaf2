"""Admin commands over the store as a whole: export, import, migrate and doctor."""

from __future__ import annotations

import argparse
import dataclasses
import os
import secrets
import sys
from pathlib import Path

from ..config import Settings
from ..errors import InvalidInput
from ..services.admin import AdminService
from ..services.admin.doctor import DoctorReport, run_doctor
from ..services.admin.migrate import check_operator, migrate, target_settings
from ..services.admin.transfer import ImportReport, apply_import, export_jsonl, parse_import
from ..services.admin.transfer_claims import ImportClaims, import_claims
from .gate import cancelled, confirm, for_person, require_person
from .output import Progress, counted, emit_json, safe, say, table

# Create a new file only: fail on an existing name (O_EXCL) and never open through a symlink
# (O_NOFOLLOW; O_EXCL already refuses one, this says so twice). Both are POSIX; Windows has neither.
_NEW_PRIVATE_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


async def cmd_export(admin: AdminService, args: argparse.Namespace) -> int:
    """Write the store as JSONL to FILE (created 0600) or to stdout: with `--as MEMBER`, what they may see."""
    progress = Progress()
    if args.file in (None, "-"):
        # On a terminal the records themselves show progress; a bar would tear through them.
        report = await export_jsonl(admin.runtime, sys.stdout.write, None if sys.stdout.isatty() else progress)
        sys.stdout.flush()
        target, out = "stdout", sys.stderr
    else:
        path = Path(args.file)
        # Write beside the target and rename, so an interrupted export never leaves half a file. The
        # temporary name is unpredictable and created fresh (O_EXCL: never an existing file, O_NOFOLLOW:
        # never through a symlink), so nobody can plant a link there to have the store written elsewhere.
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(8)}")
        try:
            fd = os.open(tmp, _NEW_PRIVATE_FILE, 0o600)
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
        emit_json(
            {
                "file": target,
                "records": total,
                **report.counts,
                "schema_version": report.schema_version,
                "exported_at": report.exported_at,
            }
        )
    else:
        detail = ", ".join(counted(n, kind) for kind, n in report.counts.items())
        print(f"exported {counted(total, 'record')} to {target} ({detail}).", file=out)
    return 0


async def cmd_import(admin: AdminService, args: argparse.Namespace) -> int:
    """Import a trusted-memory export or a reference memory-server graph (asks first)."""
    require_person(args, "import")
    path = Path(args.file)
    try:
        with path.open("rb") as fh:
            plan = parse_import(fh, str(path))
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc
    counts = plan.counts()
    summary = ", ".join(counted(n, kind) for kind, n in counts.items()) or "no records"
    label = "trusted-memory export" if plan.format == "trusted-memory" else "reference memory-server graph"
    if not args.yes:
        with for_person(args):
            print(f"{path}: {label} with {summary}.")
            space = admin.runtime.recall.embedder().space.fingerprint()
            _print_claims(import_claims(plan, trust_graph=args.trust_graph, space=space), admin.runtime.settings)
            if not confirm(args, f"Import it into the memory store {admin.runtime.store.location}?"):
                return cancelled()
    report = await apply_import(admin.runtime, plan, Progress(), trust_graph=args.trust_graph)
    _print_import(report, args.json)
    return 0


async def cmd_migrate(admin: AdminService, args: argparse.Namespace) -> int:
    """Copy the store into an empty store on the other backend; exit 1 unless counts and doctor agree."""
    require_person(args, "migrate")
    check_operator()
    target = target_settings(admin.runtime.settings, args.to)
    where = target.store_location
    if not args.yes:
        with for_person(args):
            question = f"Copy the memory store {admin.runtime.store.location} into the empty store {where}?"
            if not confirm(args, question):
                return cancelled()
    report = await migrate(admin.runtime, args.to, AdminService, Progress())
    if args.json:
        emit_json(
            {
                "source": report.source,
                "target": report.target,
                "exported": report.exported,
                "landed": report.landed,
                "differences": {k: list(v) for k, v in report.differences.items()},
                "source_doctor_ok": report.source_doctor.ok,
                "target_doctor_ok": report.target_doctor.ok,
                "ok": report.ok,
            }
        )
        return 0 if report.ok else 1
    total = sum(report.exported.values())
    print(f"copied {counted(total, 'record')} from {report.source} to {report.target}.")
    rows = [
        (kind, f"{report.exported.get(kind, 0):,}", f"{report.landed.get(kind, 0):,}")
        for kind in sorted(set(report.exported) | set(report.landed))
    ]
    table(("kind", "source", "target"), rows)
    for side, doctor in (("source", report.source_doctor), ("target", report.target_doctor)):
        print(f"doctor on the {side}: {'sound' if doctor.ok else 'problems found; run trusted-memory-admin doctor'}")
    if report.differences:
        print(f"counts differ: {report.differences}; the target is not a full copy", file=sys.stderr)
    elif report.ok:
        print("the target holds everything (plus the import's own event); point the servers at it.")
    return 0 if report.ok else 1


def _print_claims(claims: ImportClaims, settings: Settings) -> None:
    """What the file claims, so the person confirms the trust it asks for, not just its size."""
    print("\nWhat the file claims, by trust class:")
    table(("records", "trust class", "count"), claims.counts)
    print()
    say(
        f"Trusted, pinned or critical items and admin acts it claims ({len(claims.notable)}); "
        "anything with file access can write such a file:"
    )
    table(
        ("kind", "id", "claims", "text"),
        [(c.kind, c.ref, c.claims, c.text) for c in claims.notable],
        flexible=("claims", "text"),
    )
    print()
    say(
        "Its events are recorded as imported (actor system, the file's actor kept as detail); a user-model "
        "field that fails validation is dropped; quarantined atoms and held episodes wait at most "
        f"{settings.quarantine_ttl_days} days from now; a live episode that fails the scan or claims another "
        "source than a session summary or a person's promotion is held."
    )


def _print_import(report: ImportReport, as_json: bool) -> None:
    if as_json:
        emit_json(dataclasses.asdict(report))
        return

    def listed(counts: dict[str, int]) -> str:
        return ", ".join(counted(n, kind) for kind, n in counts.items()) or "nothing"

    print(
        f"imported {report.source} ({report.format}): added {listed(report.added)}; "
        f"skipped {listed(report.skipped)} (already present)."
    )
    for reason, n in report.quarantined.items():
        print(f"held {counted(n, 'atom')} in quarantine ({reason}); see `trusted-memory-admin quarantine`.")
    if report.held_episodes:
        print(f"held {counted(report.held_episodes, 'episode')}; see `trusted-memory-admin episodes list`.")
    if report.dropped:
        print(
            f"dropped {report.dropped:,} flagged by the content scanner (pending reviews, buffer lines, "
            "session notes or frozen facts blocks)."
        )
    if report.vectors_recomputed:
        print(f"recomputed {counted(report.vectors_recomputed, 'vector')} built in another embedding space.")
    if report.dropped_user_model:
        print(f"dropped {counted(report.dropped_user_model, 'user_model')} that fail validation or were never trusted.")
    if report.renumbered:
        print(f"renumbered {counted(report.renumbered, 'record')} whose id was taken by a different one.")
    for warning in report.warnings:
        print(f"warning: {warning}")


# --- doctor -----------------------------------------------------------------------------------


async def cmd_doctor(settings: Settings, args: argparse.Namespace) -> int:
    """Check the store (and with --repair fix it, after asking); exit 1 while problems remain."""
    if args.repair:
        require_person(args, "doctor --repair")
        if not args.yes:
            with for_person(args):
                question = (
                    f"Repair the memory store {settings.store_location}? A damaged file is set aside and salvaged "
                    "into a fresh store; stop the servers using it first."
                )
                if not confirm(args, question):
                    return cancelled()
    report = await run_doctor(settings, AdminService, repair=args.repair, progress=Progress())
    if args.json:
        emit_json({**dataclasses.asdict(report), "ok": report.ok})
    else:
        _print_doctor(report, args.repair)
    return 0 if report.ok else 1


def _lines(text: str, indent: str = "           ") -> None:
    """Print a message that may span lines (SQLite's integrity reports do), each line indented."""
    for line in safe(text, keep_newlines=True).splitlines() or [""]:
        print(f"{indent}{line.strip()}")


def _print_doctor(report: DoctorReport, repair: bool) -> None:
    print(f"store      {report.path}")
    if report.damaged:
        print("DAMAGED    " + " ".join(safe(report.damaged, keep_newlines=True).split()))
        for line in report.integrity[:10] if report.salvage is None else ():
            _lines(line)
    if report.salvage is not None:
        print(
            f"salvaged   {counted(report.salvage.copied, 'row')} into a fresh store; the damaged file is kept as "
            f"{report.salvage.damaged_copy}"
        )
        table(
            ("table", "copied", "read errors", "rejected", "note"),
            [(t.table, t.copied, t.read_errors, t.rejected, t.error or "") for t in report.salvage.tables],
        )
    elif report.damaged:
        print(
            "           nothing was changed; `trusted-memory-admin doctor --repair` sets the damaged file aside "
            "and salvages what it can into a fresh store (stop the servers using it first)"
        )
        print("problems remain.")
        return
    if report.schema_version is not None:
        current = "current" if report.schema_version == report.latest_schema else f"expected {report.latest_schema}"
        print(f"schema     {report.schema_version} ({current})")
    if not report.integrity:
        print("integrity  ok")
    else:
        print(f"integrity  FAILED ({counted(len(report.integrity), 'message')} from SQLite):")
        for line in report.integrity[:5]:
            _lines(line)
    for check in report.checks:
        if not check.found:
            print(f"[ok]     {check.name}: {check.description}")
            continue
        fixed = f", repaired {check.repaired}" if check.repaired else ""
        mark = "[fixed]" if not check.remaining else "[FAIL] "
        print(f"{mark}  {check.name}: {counted(len(check.found), 'problem')}{fixed}")
        shown = check.remaining or check.found
        for line in shown[:20]:
            _lines(line)
        if len(shown) > 20:
            print(f"           … and {len(shown) - 20:,} more")
        if check.remaining and check.hint and not (repair and "--repair" in check.hint):
            print(f"           fix: {check.hint}")
    print("healthy." if report.ok else "problems remain.")
