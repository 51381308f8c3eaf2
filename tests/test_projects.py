"""The one project naming rule (projects.py) and the migration that brings stored names under it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trusted_memory.projects import project_name
from trusted_memory.store.db import SqliteStore as Store
from trusted_memory.store.migrations import MIGRATIONS


def test_names_are_normalised() -> None:
    assert project_name("billing-svc") == "billing-svc"
    assert project_name("  Billing Svc ") == "billing-svc"
    assert project_name("Billing-Svc") == "billing-svc"
    assert project_name("") is None and project_name("   ") is None and project_name(None) is None


def test_a_path_is_its_git_work_tree_or_its_own_folder(tmp_path: Path) -> None:
    top = tmp_path / "src" / "Billing-Svc"
    (top / ".git").mkdir(parents=True)
    (top / "api" / "handlers").mkdir(parents=True)
    assert project_name(str(top)) == "billing-svc"
    assert project_name(str(top / "api" / "handlers")) == "billing-svc"  # a subfolder of the work tree
    worktree = tmp_path / "wt" / "feature-x"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /somewhere/.git/worktrees/feature-x\n")  # a worktree's .git file
    assert project_name(str(worktree / ".")) == "feature-x"
    plain = tmp_path / "notes" / "scratch"
    plain.mkdir(parents=True)
    assert project_name(str(plain)) == "scratch"  # no work tree: the folder itself
    # Paths that do not exist here (another machine, Windows) still name their last folder.
    assert project_name("/home/me/billing-svc/") == "billing-svc"
    assert project_name("C:\\Users\\me\\Billing Svc") == "billing-svc"
    assert project_name("~/src/atlas") == "atlas"


def test_a_dotfiles_repository_in_home_is_nobodys_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "me"
    (home / ".git").mkdir(parents=True)
    (home / "billing-svc").mkdir()
    monkeypatch.setenv("HOME", str(home))  # Path.home() reads it
    assert project_name(str(home / "billing-svc")) == "billing-svc"


@pytest.mark.anyio
async def test_stored_project_paths_are_migrated_to_names(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    before = tuple(m for m in MIGRATIONS if m.version < 12)
    store = await Store.open(path, before)
    await store.close()
    conn = sqlite3.connect(path)
    given = ["/home/me/billing-svc", "/home/me/Billing Svc/", "C:\\work\\atlas", "billing-svc", "Atlas", None]
    for i, project in enumerate(given):
        conn.execute("INSERT INTO sessions(id, project, started_at, last_at) VALUES (?, ?, 0, 0)", (f"s{i}", project))
    conn.commit()
    conn.close()
    store = await Store.open(path)
    await store.close()
    conn = sqlite3.connect(path)
    try:
        stored = [row[0] for row in conn.execute("SELECT project FROM sessions ORDER BY id")]
    finally:
        conn.close()
    assert stored == ["billing-svc", "billing-svc", "atlas", "billing-svc", "atlas", None]
    assert stored[:5] == [project_name(p) for p in given[:5]]  # the same names the rule gives
