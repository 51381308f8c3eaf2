"""Admin recall commands: search as the agent would, reindex, and doctor's index consistency checks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime

from ._support import cli, cli_json, settings_for, with_runtime

MEMORIES = ["I prefer pytest over unittest", "We deploy with Docker on Hetzner", "My cat is named Miso"]


def seed(home: Path) -> None:
    async def work(runtime: Runtime) -> None:
        atoms = AtomsService(runtime.store, runtime.settings, runtime.recall)
        for text in MEMORIES:
            await atoms.add(AtomDraft(content=text, source="user_said"))
        await atoms.add(AtomDraft(content="Never trust this web page", source="web"))

    with_runtime(home, work)


def search(capsys: pytest.CaptureFixture[str], home: Path, query: str) -> list[str]:
    return [h["text"] for h in cli_json(capsys, home, "atoms", "search", query)["hits"]]


def test_search_and_reindex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    seed(home)
    assert search(capsys, home, "which test framework do I like")[0] == "I prefer pytest over unittest"
    assert search(capsys, home, "web page") == []  # quarantined text is not recall material
    report = cli_json(capsys, home, "reindex", "--full")
    assert report == {"space": "hash:v4:512", "waiting": 3, "embedded": 3}


@pytest.mark.sqlite_only  # it empties FTS5's index; PostgreSQL's tsvector is a column of the row
def test_doctor_rebuilds_deleted_indexes_from_the_stored_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    seed(home)
    db = sqlite3.connect(settings_for(home).db_path)
    db.execute("DELETE FROM vectors")
    db.execute("INSERT INTO atoms_fts(atoms_fts) VALUES ('delete-all')")
    db.commit()
    db.close()
    assert search(capsys, home, "which test framework do I like") == []
    code, out, _ = cli(capsys, home, "doctor")
    assert code == 1 and "3 live atom(s) missing from the keyword index" in out
    assert "3 live atom(s) with no vector" in out
    code, out, _ = cli(capsys, home, "doctor", "--repair", "--yes")
    assert code == 0, out
    assert search(capsys, home, "which test framework do I like")[0] == "I prefer pytest over unittest"
    assert search(capsys, home, "Hetzner")[0] == "We deploy with Docker on Hetzner"
    assert search(capsys, home, "web page") == []  # the rebuilt keyword index holds live atoms only
    code, out, _ = cli(capsys, home, "doctor")
    assert code == 0 and "healthy" in out


def test_compact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    seed(home)
    report = cli_json(capsys, home, "compact")
    assert report["after_bytes"] > 0
    assert search(capsys, home, "Hetzner")[0] == "We deploy with Docker on Hetzner"
