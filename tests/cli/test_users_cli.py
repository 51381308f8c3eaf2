"""`trusted-memory-admin users ...` and `--as` through the real entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from trusted_memory.model import Atom
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime

from ._support import cli, cli_json, run_script, with_runtime


def test_users_add_prints_the_token_once_and_list_never_shows_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, home, "users", "add", "Alice", "--project", "Billing Svc")
    assert code == 0, err
    token = next(word for word in out.split() if word.startswith("tmem_"))
    assert out.count(token) == 1 and "Authorization: Bearer" in out
    listed = cli_json(capsys, home, "users", "list")
    assert listed == [
        {
            "name": "alice",
            "role": "member",
            "projects": ["billing-svc"],
            "created": listed[0]["created"],
            "revoked": None,
        }
    ]
    code, out, _ = cli(capsys, home, "users", "list")
    assert code == 0 and "alice" in out and token not in out
    assert cli(capsys, home, "users", "grant", "alice", "ops")[0] == 0
    assert cli_json(capsys, home, "users", "list")[0]["projects"] == ["billing-svc", "ops"]
    assert cli(capsys, home, "users", "ungrant", "alice", "ops")[0] == 0
    assert cli(capsys, home, "users", "revoke", "alice")[0] == 0
    assert cli_json(capsys, home, "users", "list")[0]["revoked"] is not None
    code, _, err = cli(capsys, home, "users", "revoke", "alice")
    assert code == 1 and "no person alice with a live token" in err
    kinds = [e["kind"] for e in cli_json(capsys, home, "audit", "--subject", "person:alice")]
    assert kinds == ["person_added", "person_granted", "person_ungranted", "person_revoked"]


def test_users_add_refuses_local_and_bad_names(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, home, "users", "add", "local")
    assert code == 1 and "implicit owner" in err
    code, _, err = cli(capsys, home, "users", "add", "9lives")
    assert code == 1 and "starting with a letter" in err
    assert cli_json(capsys, home, "users", "list") == []


@pytest.mark.e2e
def test_users_add_in_a_real_subprocess(home: Path) -> None:
    done = run_script(home, "users", "add", "bob", "--role", "admin")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("tmem_") == 1
    listed = run_script(home, "users", "list")
    assert "bob" in listed.stdout and "tmem_" not in listed.stdout


def _global_quarantined(home: Path) -> Atom:
    async def work(rt: Runtime) -> Atom:
        return (
            await AtomsService(rt.store, rt.settings).add(AtomDraft("Deploys freeze on Fridays", "web", scope="global"))
        ).atom

    return with_runtime(home, work)


def test_only_an_admin_promotes_global_memory_in_a_team_store(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, home, "users", "add", "carol")[0] == 0
    assert cli(capsys, home, "users", "add", "dana", "--role", "admin")[0] == 0
    atom = _global_quarantined(home)
    assert atom.status == "quarantined" and atom.scope == "global"
    # A member reviews only their own quarantine: the implicit owner's global write is not even theirs to see.
    code, _, err = cli(capsys, home, "--as", "carol", "promote", "--yes", atom.id)
    assert code == 1 and "no atom" in err
    code, _, err = cli(capsys, home, "--as", "nobody", "promote", "--yes", atom.id)
    assert code == 1 and "no person 'nobody'" in err
    code, _, err = cli(capsys, home, "--as", "dana", "promote", "--yes", atom.id)
    assert code == 0, err
