"""How the admin CLI reads to a person: widths, counts, doctor's messages, --yes, help, wording.

Widths are checked through the installed console script with COLUMNS fixed, as rich reads it.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from trusted_memory.cli.admin import build_parser, main
from trusted_memory.cli.output import counted
from trusted_memory.model import EVENT_KINDS
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime
from trusted_memory.services.wiring import build_services

from ._support import admin_script, child_env, cli, cli_json, with_runtime
from .test_doctor_cli import seed as seed_atoms

ROOT = Path(__file__).resolve().parents[2]
LONG = (
    "The user wants every deploy of the billing service to run the full integration suite against a "
    "copy of production data first, and said so twice"
)


def seed(home: Path) -> None:
    async def work(rt: Runtime) -> None:
        atoms = AtomsService(rt.store, rt.settings)
        await atoms.add(AtomDraft(LONG, "user_said", atom_type="preference", tags=["deploy", "billing"]))
        await atoms.add(AtomDraft("Prefers tabs over spaces in Go code", "user_said", atom_type="preference"))
        await atoms.add(AtomDraft("A blog says " + LONG, "web"))
        await atoms.propose("style.verbosity", "terse", evidence="short replies " * 8, confidence=0.6)
        sessions = build_services(rt).sessions
        await sessions.observe("s-1", "I decided to keep Postgres for billing, not MySQL", assistant_reply="Noted.")

    with_runtime(home, work)


def run(home: Path, columns: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(admin_script()), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**child_env(home), "COLUMNS": str(columns)},
        timeout=60,
        check=False,
    )


@pytest.mark.e2e
@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize(
    "command", [("atoms", "list"), ("quarantine",), ("pending",), ("audit",), ("stats",), ("episodes", "list")]
)
def test_tables_fit_the_console_and_cut_nothing(tmp_path: Path, columns: int, command: tuple[str, ...]) -> None:
    home = tmp_path / "home"
    seed(home)
    done = run(home, columns, *command)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines, done.stderr
    too_wide = [line for line in lines if len(line) > columns]
    assert too_wide == [], f"{command} at {columns} columns:\n{done.stdout}"
    assert not any(line != line.rstrip() for line in lines)
    if command == ("atoms", "list"):
        # The long text wraps inside its column: every word is there, in order.
        assert all(word in done.stdout for word in LONG.split()[:12])


def test_stats_counts_atoms_by_type_and_trust_and_the_other_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    seed(home)
    data = cli_json(capsys, home, "stats")
    atoms = data["atoms"]
    assert atoms["quarantined"] == 1 and atoms["trusted"] >= 3  # 2 added + what observe formed from the turn
    assert atoms["by_type"]["preference"]["trusted"] == 2
    assert atoms["by_type"]["decision"]["trusted"] == 1  # formed from the observed turn
    assert atoms["by_source"]["web"] == 1
    assert data["quarantine"] == 1 and data["pending_reviews"] == 1
    assert (data["sessions"], data["open_sessions"], data["episodes"]) == (1, 1, 0)
    assert data["transcript_turns"] >= 1
    code, out, _ = cli(capsys, home, "stats")
    assert code == 0
    assert "1 quarantined" in out and "1 review waiting for you" in out and "1 (1 open)" in out
    assert "preference" in out and "decision" in out and "by source:" in out


@pytest.mark.sqlite_only  # it damages SQLite pages (dbstat)
def test_doctor_shows_integrity_messages_as_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    seed_atoms(home, 300)
    db = home / "memory.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'atoms' AND pagetype = 'leaf'")]
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table to find the atoms pages")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with db.open("r+b") as fh:
        fh.seek((pages[len(pages) // 2] - 1) * page_size)
        fh.write(b"\xff" * page_size)
    code, out, _ = cli(capsys, home, "doctor", columns=80)
    assert code == 1 and ("damaged" in out.lower() or "integrity  FAILED" in out), out
    assert "<U+000A>" not in out and "<U+000D>" not in out, out


def test_doctor_repair_asks_and_takes_yes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    seed(home)
    code, _, err = cli(capsys, home, "doctor", "--repair")
    assert code == 1 and "--yes" in err and "terminal" in err
    code, out, _ = cli(capsys, home, "doctor", "--repair", "--yes")
    assert code == 0 and "healthy." in out


def test_every_command_that_asks_takes_yes() -> None:
    """A command that can ask (it calls require_person) accepts --yes."""
    asking: set[str] = set()
    for path in (ROOT / "trusted_memory" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "").lstrip("_") == "require_person":
                what = node.args[1]
                asking.add(what.value if isinstance(what, ast.Constant) else "?")
    assert {
        "promote",
        "forget",
        "unpin",
        "confirm",
        "import",
        "migrate",
        "episodes promote",
        "doctor --repair",
    } <= asking
    needs_id = {
        "promote": ["x"],
        "forget": ["x"],
        "unpin": ["x"],
        "confirm": ["x"],
        "import": ["f"],
        "import-chats": ["f"],
        "migrate": ["--to", "postgresql://db/memory"],
    }
    parser = build_parser()
    for what in asking:
        argv = [w for w in what.split() if not w.startswith("--")]
        extra = needs_id.get(argv[0], ["x"] if argv == ["episodes", "promote"] else [])
        args = parser.parse_args([*what.split(), *extra, "--yes"])
        assert args.yes is True, what


def test_audit_help_lists_the_event_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for kind in ("atom_promoted", "pending_confirmed", "fact_added", "store_salvaged"):
        assert kind in text


def test_every_recorded_event_kind_is_listed() -> None:
    """Each literal kind given to `events.append` is in EVENT_KINDS (so `audit --help` tells the truth)."""
    found: dict[str, str] = {}
    for path in (ROOT / "trusted_memory").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and "events" in ast.unparse(node.func.value)
                and len(node.args) >= 2
            ):
                kind = node.args[1]
                for part in (kind.body, kind.orelse) if isinstance(kind, ast.IfExp) else (kind,):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        found.setdefault(part.value, str(path.relative_to(ROOT)))
    missing = {k: where for k, where in found.items() if k not in EVENT_KINDS and not k.endswith("_")}
    assert missing == {}, f"add these kinds to EVENT_KINDS in trusted_memory/model.py: {missing}"


def test_counts_read_as_english() -> None:
    assert counted(1, "atom") == "1 atom"
    assert counted(1199, "atom") == "1,199 atoms"
    assert counted(2, "pending") == "2 pending reviews" and counted(1, "pending") == "1 pending review"
    assert counted(3, "user_model") == "3 user-model fields"
    assert counted(2, "entry") == "2 entries" and counted(0, "match") == "0 matches"


def test_messages_have_no_doubled_words() -> None:
    """Proofreading that can be automated: no "at at", "the the" in any string the CLI prints."""
    doubled: list[str] = []
    for path in (ROOT / "trusted_memory" / "cli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words = node.value.lower().split()
                doubled += [f"{path.name}: {a} {b}" for a, b in itertools.pairwise(words) if a == b and a.isalpha()]
    assert doubled == []


def test_export_summary_pluralises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    seed(home)
    out_file = tmp_path / "dump.jsonl"
    code, out, _ = cli(capsys, home, "export", str(out_file))
    assert code == 0
    assert " 1 atom," not in out and "atoms" in out and "records to" in out, out
    assert json.loads(out_file.read_text().splitlines()[0])


def test_a_wide_console_keeps_rows_on_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home)
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(
        [str(admin_script()), "--home", str(home), "atoms", "list"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    rows = [line for line in done.stdout.splitlines()[2:] if line.strip()]
    assert len(rows) == 3 and any(LONG[:50] in r for r in rows), done.stdout


@pytest.mark.sqlite_only  # the folder is the SQLite file's; a PostgreSQL store needs none
def test_a_home_whose_parent_is_missing_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "x"
    done = subprocess.run(
        [str(admin_script()), "--home", str(missing), "stats"],
        capture_output=True,
        text=True,
        env=child_env(tmp_path / "home"),
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "does not exist" in done.stderr and "--home" in done.stderr, done.stderr
    assert not (tmp_path / "nonexistent").exists()
