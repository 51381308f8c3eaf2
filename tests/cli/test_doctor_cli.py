"""`doctor`: integrity, orphans and expiry, repairs with admin events, and salvage of a damaged file."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import time
from pathlib import Path

import pytest

from trusted_memory.model import Atom
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime

from ._support import cli, cli_json, run_script, with_runtime


def seed(home: Path, n: int = 3) -> list[Atom]:
    async def work(rt: Runtime) -> list[Atom]:
        atoms = AtomsService(rt.store, rt.settings)
        return [
            (await atoms.add(AtomDraft(f"The user said remarkable thing {i} about topic {i * 7}", "user_said"))).atom
            for i in range(n)
        ]

    return with_runtime(home, work)


def test_doctor_on_a_clean_store_exits_0(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed(home)
    code, out, _ = cli(capsys, home, "doctor")
    assert code == 0 and "integrity  ok" in out and "healthy." in out
    report = cli_json(capsys, home, "doctor")
    assert isinstance(report, dict) and report["ok"] is True and report["schema_version"] == report["latest_schema"]


def test_doctor_reports_and_repairs_dangling_related_ids(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second, _ = seed(home)
    ghost = "f" * 32

    async def link(rt: Runtime) -> None:
        async with rt.store.write() as tx:
            await tx.atoms.set_related(first.id, [second.id, ghost])

    with_runtime(home, link)
    code, out, _ = cli(capsys, home, "doctor")
    assert code == 1 and ghost in out and "[FAIL]" in out and "--repair" in out
    code, out, _ = cli(capsys, home, "doctor", "--repair", "--yes")
    assert code == 0 and "[fixed]" in out and "repaired 1" in out
    shown = cli_json(capsys, home, "atoms", "show", first.id)
    assert isinstance(shown, dict) and shown["related"] == [second.id]
    events = cli_json(capsys, home, "audit", "--kind", "atom_related_repaired")
    assert [(e["actor"], e["detail"]) for e in events] == [("admin", {"dropped": [ghost]})]
    assert cli(capsys, home, "doctor")[0] == 0


def test_doctor_repair_prunes_expired_queues(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def expired(rt: Runtime) -> None:
        atoms = AtomsService(rt.store, rt.settings)
        held = (await atoms.add(AtomDraft("A web page said so", "web"))).atom
        item = await atoms.propose("style.tone", "formal", evidence="once", confidence=0.4)
        assert item is not None
        async with rt.store.write() as tx:
            await tx.atoms.delete(held.id)
            await tx.atoms.insert(dataclasses.replace(held, expires_at=time.time() - 5), "a web page said so")
            await tx.pending.delete(item.id)
            await tx.pending.insert(dataclasses.replace(item, expires_at=time.time() - 5))

    with_runtime(home, expired)
    report = cli_json(capsys, home, "doctor", status=1)
    assert isinstance(report, dict) and report["ok"] is False
    failing = {c["name"] for c in report["checks"] if c["remaining"]}
    assert failing == {"expired_quarantine", "expired_pending"}
    code, _, _ = cli(capsys, home, "doctor", "--repair", "--yes")
    assert code == 0
    kinds = [e["kind"] for e in cli_json(capsys, home, "audit", "--actor", "admin")]
    assert sorted(kinds) == ["pending_expired", "quarantine_expired"]


@pytest.mark.sqlite_only  # it damages the SQLite file; PostgreSQL keeps its own pages
@pytest.mark.e2e
def test_doctor_on_a_garbage_file_says_damaged_and_repair_salvages(home: Path) -> None:
    home.mkdir(mode=0o700)
    db = home / "memory.db"
    db.write_bytes(os.urandom(8192))
    done = run_script(home, "doctor")
    assert done.returncode == 1
    assert "damaged" in done.stdout.lower() and str(db) in done.stdout and "doctor --repair" in done.stdout
    assert db.read_bytes() and [p.name for p in home.iterdir()] == ["memory.db"]  # nothing touched

    done = run_script(home, "stats")
    assert done.returncode == 1 and "damaged" in done.stderr and "doctor --repair" in done.stderr

    done = run_script(home, "doctor", "--repair", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    aside = [p for p in home.iterdir() if p.name.startswith("memory.db.corrupt-")]
    assert len(aside) == 1 and str(aside[0]) in done.stdout and "healthy." in done.stdout
    assert run_script(home, "stats").returncode == 0


@pytest.mark.sqlite_only  # it damages the SQLite file; PostgreSQL keeps its own pages
def test_doctor_salvages_the_readable_rows_of_a_damaged_table(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    atoms = seed(home, 300)
    db = home / "memory.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'atoms' AND pagetype = 'leaf'")]
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table to find the atoms pages")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    bad = pages[len(pages) // 2]
    with db.open("r+b") as fh:
        fh.seek((bad - 1) * page_size)
        fh.write(b"\xff" * page_size)

    code, out, _ = cli(capsys, home, "doctor")
    assert code == 1 and ("damaged" in out.lower() or "integrity  FAILED" in out)
    report = cli_json(capsys, home, "doctor", "--repair", "--yes")
    assert isinstance(report, dict) and report["ok"] is True and report["salvage"] is not None
    tables = {t["table"]: t for t in report["salvage"]["tables"]}
    assert tables["events"]["copied"] == 300
    recovered = tables["atoms"]["copied"]
    assert len(atoms) - 40 <= recovered < len(atoms)  # one leaf page lost, the rest read around it
    listed = cli_json(capsys, home, "atoms", "list", "--limit", "1000")
    assert isinstance(listed, list) and len(listed) == recovered
    assert cli_json(capsys, home, "audit", "--kind", "store_salvaged")[0]["actor"] == "admin"
