"""Move a store to the other backend: SQLite into PostgreSQL, or back, through the lossless export.

The source is exported in one read snapshot to a private temporary file, imported into an empty
target in one write transaction (all or nothing), and the target is exported again to count what
landed. Doctor runs on both sides. Nothing is deleted from the source: once the counts agree, the
person points their servers at the target.

Only the operator migrates (no `--as`, or an admin): a member's export holds only what they may
see, so a migration acting for one would copy part of the team's store and call it complete.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ...config import Settings
from ...errors import InvalidInput, TrustRefused
from ...people import restricting_viewer
from ...queries import AtomFilter
from ..runtime import Runtime, open_runtime
from .doctor import DoctorReport, HousekeepingFactory, diagnose
from .transfer import apply_import, parse_import
from .transfer_export import export_jsonl
from .transfer_records import ProgressSink

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


@dataclass(frozen=True, slots=True)
class MigrateReport:
    """What a migration copied, and how both sides checked out."""

    source: str
    target: str
    exported: dict[str, int]  # records per kind read from the source
    landed: dict[str, int]  # records per kind an export of the target holds afterwards
    source_doctor: DoctorReport
    target_doctor: DoctorReport

    @property
    def differences(self) -> dict[str, tuple[int, int]]:
        """Kinds whose counts differ, as (source, target); the import's own event is expected."""
        kinds = set(self.exported) | set(self.landed)
        out = {k: (self.exported.get(k, 0), self.landed.get(k, 0)) for k in sorted(kinds)}
        return {k: v for k, v in out.items() if v[0] != v[1] and not (k == "event" and v[1] == v[0] + 1)}

    @property
    def ok(self) -> bool:
        """Every record landed and doctor found both stores sound."""
        return not self.differences and self.source_doctor.ok and self.target_doctor.ok


def check_operator() -> None:
    """Refuse a migration while a member of a team's store acts: it copies every person's records."""
    viewer = restricting_viewer()
    if viewer is not None:
        raise TrustRefused(
            f"migrate copies the whole store, every person's records, and {viewer.name} may see only their own; "
            "run it without --as (or --as an admin), or use `--as NAME export` for one person's memory"
        )


def target_settings(settings: Settings, to: str) -> Settings:
    """The settings of the store `to` names: a PostgreSQL URL or libpq string, or a SQLite store folder."""
    text = to.strip()
    if not text:
        raise InvalidInput(
            "migrate --to needs a target: postgresql://USER@HOST:PORT/DB, or a folder for a SQLite store"
        )
    if text.startswith(POSTGRES_PREFIXES) or ("=" in text and "dbname" in text):
        # The writer's session limits stay the person's (StoreSettings); backend and database are the target's.
        return dataclasses.replace(settings, store=dataclasses.replace(settings.store, backend="postgres", dsn=text))
    folder = Path(text).expanduser()
    if folder.name == "memory.db":
        folder = folder.parent
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(f"{folder} is a file; give the folder the SQLite store is to live in (its memory.db)")
    if folder.resolve() == settings.home.resolve() and settings.store.backend == "sqlite":
        raise InvalidInput("the target is the store being migrated; give another folder or a PostgreSQL URL")
    return dataclasses.replace(
        settings, home=folder, store=dataclasses.replace(settings.store, backend="sqlite", dsn="")
    )


async def record_count(runtime: Runtime) -> int:
    """How many atoms, facts, sessions and events a store holds (a fresh store holds none)."""
    everything = AtomFilter(status=None, include_expired=True)
    async with runtime.store.read() as rx:
        return (
            await rx.atoms.count(everything, now=0.0)
            + len(await rx.facts.list())
            + len(await rx.transfer.sessions())
            + await rx.events.count()
        )


async def _export_counts(runtime: Runtime) -> dict[str, int]:
    report = await export_jsonl(runtime, lambda _line: None)
    return dict(report.counts)


async def migrate(
    source: Runtime,
    to: str,
    housekeeping: HousekeepingFactory,
    progress: ProgressSink | None = None,
) -> MigrateReport:
    """Copy the store `source` holds into the empty store `to` names; see the module's docstring."""
    check_operator()
    target = target_settings(source.settings, to)
    async with open_runtime(target) as dest:
        held = await record_count(dest)
        if held:
            raise InvalidInput(
                f"the target store {dest.store.location} already holds {held:,} record(s); migrate copies into an "
                "empty store only (use export and import to merge into one that is not)"
            )
        with tempfile.TemporaryDirectory(prefix="trusted-memory-migrate-") as scratch:
            os.chmod(scratch, 0o700)
            path = Path(scratch) / "store.jsonl"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                exported = await export_jsonl(source, fh.write, progress)
            with path.open("rb") as fh:
                plan = parse_import(fh, "the migrated store")
            await apply_import(dest, plan, progress)
        landed = await _export_counts(dest)
        target_doctor = await diagnose(dest, housekeeping(dest), repair=False)
        target_location = dest.store.location
    source_doctor = await diagnose(source, housekeeping(source), repair=False)
    return MigrateReport(
        source=source.store.location,
        target=target_location,
        exported=dict(exported.counts),
        landed=landed,
        source_doctor=source_doctor,
        target_doctor=target_doctor,
    )
