"""`triage` driven through a real pseudo-terminal, like a person at the keyboard."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trusted_memory.model import Atom, PendingReview
from trusted_memory.services.admin import AdminService
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime

from ._support import Pty, cli, with_runtime

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
PROMPT = "[a]pprove / [r]eject / [s]kip / [q]uit? "


def queues(home: Path) -> tuple[list[Atom], list[PendingReview]]:
    async def work(rt: Runtime) -> tuple[list[Atom], list[PendingReview]]:
        admin = AdminService(rt)
        return await admin.quarantine(), await admin.pending()

    return with_runtime(home, work)


@pytest.mark.e2e
def test_triage_walks_the_queues_on_a_terminal(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def seed(rt: Runtime) -> None:
        atoms = AtomsService(rt.store, rt.settings)
        for text in ("Rust 1.80 stabilised LazyCell", "A blog says tabs are faster", "Cargo has a new lockfile"):
            await atoms.add(AtomDraft(text, "web"))
        await atoms.propose("style.verbosity", "terse", evidence="short replies", confidence=0.6)

    with_runtime(home, seed)
    held, pending = queues(home)
    assert len(held) == 3 and len(pending) == 1

    term = Pty(home, "triage")
    shown = term.expect(PROMPT)
    assert "1/4" in shown and "UNTRUSTED" in shown and held[0].text in shown and "tainted" in shown
    term.send("a")
    shown = term.expect(PROMPT)
    assert "promoted atom" in shown and "2/4" in shown and held[1].text in shown
    term.send("r")
    shown = term.expect(PROMPT)
    assert "forgot atom" in shown and held[2].text in shown
    term.send("s")
    shown = term.expect(PROMPT)
    assert "UNVERIFIED" in shown and "style.verbosity" in shown
    term.send("q")
    code, output = term.finish()
    assert code == 0, output
    assert "approved 1, rejected 1, skipped 1, not reviewed 1" in output

    left, still_pending = queues(home)
    assert [a.id for a in left] == [held[2].id]
    assert [p.id for p in still_pending] == [pending[0].id]

    async def fetch(rt: Runtime) -> tuple[Atom | None, Atom | None]:
        async with rt.store.read() as rx:
            return await rx.atoms.get(held[0].id), await rx.atoms.get(held[1].id)

    approved, rejected = with_runtime(home, fetch)
    assert approved is not None and (approved.status, approved.source_class) == ("live", "user_approved")
    assert rejected is None


def test_triage_refuses_without_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, tmp_path / "home", "triage")
    assert code == 1 and "terminal" in err
