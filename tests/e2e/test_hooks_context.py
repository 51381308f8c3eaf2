"""Hooks and context together: SessionStart loads facts and where the user left off on this project, the
prompt's block does not echo the prompt, hook and agent name a project the same way, and the server's
instructions follow who injects memory. The hook is fed the JSON Claude Code sends (its hooks
reference: common fields, SessionStart's `source`, UserPromptSubmit's `prompt`, Stop's fields)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import backdoor
import pytest
from mcp import Client, StdioServerParameters
from postgres_cluster import store_env_for

from trusted_memory.config import load_settings
from trusted_memory.server.app import build_server

from ._support import child_env, console_script

pytestmark = pytest.mark.e2e


def run_hook(home: Path, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(console_script("trusted-memory-hook")), event],
        input=json.dumps(payload),
        env=child_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def common(session: str, event: str, cwd: Path) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(cwd / f".{session}.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
    }


def session_start(home: Path, session: str, cwd: Path, source: str = "startup") -> str:
    """SessionStart's additionalContext ('' when the hook printed nothing)."""
    payload = {**common(session, "SessionStart", cwd), "source": source, "model": "claude-sonnet-4-5-20250929"}
    out = run_hook(home, "session", payload).stdout
    if not out.strip():
        return ""
    answer = json.loads(out)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert isinstance(context, str) and context.startswith("<memory") and context.endswith("</memory>")
    return context


def prompt(home: Path, session: str, cwd: Path, text: str) -> str:
    return run_hook(home, "prompt", {**common(session, "UserPromptSubmit", cwd), "prompt": text}).stdout


def stop(home: Path, session: str, cwd: Path, reply: str) -> None:
    payload = {**common(session, "Stop", cwd), "stop_hook_active": False, "last_assistant_message": reply}
    run_hook(home, "stop", payload)


def repo(tmp_path: Path, name: str) -> Path:
    """A git work tree named `name` (its `.git` a folder) with a subfolder `api`."""
    top = tmp_path / "src" / name
    (top / ".git").mkdir(parents=True)
    (top / "api").mkdir()
    return top


def admin(home: Path, *args: str) -> None:
    done = subprocess.run(
        [str(console_script("trusted-memory-admin")), *args],
        env=child_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_session_start_loads_the_facts_and_where_the_user_left_off_on_this_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    billing, other = repo(tmp_path, "billing-svc"), repo(tmp_path, "other-repo")
    assert session_start(home, "cc-0", billing) == ""  # nothing in memory: nothing to add
    admin(home, "facts", "add", "user", "I write Go at work and prefer table-driven tests")
    turns = [
        ("We are moving the billing ledger from MySQL to Postgres.", "I drafted a migration plan."),
        ("We decided to run both databases side by side for a week.", "I added dual writes."),
        ("Next I will write the backfill script for old invoices.", "Noted."),
    ]
    for user, reply in turns:
        prompt(home, "cc-billing", billing / "api", user)  # a subfolder of the work tree
        stop(home, "cc-billing", billing / "api", reply)
    prompt(home, "cc-other", other, "The other repo needs a README refresh.")  # more recent, other project

    started = session_start(home, "cc-new", billing)
    assert "table-driven tests" in started  # the facts
    left_off = started.split("## Where you left off", 1)[1]
    assert "on billing-svc" in left_off and "backfill script" in left_off  # this project's last session
    assert "README" not in started

    resumed = session_start(home, "cc-other", other, source="resume")  # `--resume`: the session itself
    assert "on other-repo" in resumed.split("## Where you left off", 1)[1]
    # A session start records nothing as the user's words.
    assert not backdoor.query(home, "SELECT id FROM sessions WHERE id = 'cc-new'")
    assert not backdoor.query(home, "SELECT id FROM atoms WHERE session_id = 'cc-new' OR text LIKE '%cc-new%'")
    assert not backdoor.query(home, "SELECT id FROM events WHERE subject LIKE '%cc-new%' OR detail LIKE '%cc-new%'")


def test_the_prompt_block_does_not_echo_the_prompt_or_what_was_just_formed_from_it(tmp_path: Path) -> None:
    home, project = tmp_path / "home", repo(tmp_path, "queues")
    prompt(home, "cc-e", project, "We run the payment workers on Kubernetes.")
    stop(home, "cc-e", project, "Understood.")
    said = "I prefer the ledger- prefix for every queue name."
    block = prompt(home, "cc-e", project, said)
    assert block.startswith("<memory") and "Kubernetes" in block  # the session so far is there ...
    assert "ledger-" not in block  # ... but not this prompt, nor the preference atom formed from it
    stop(home, "cc-e", project, "Will do.")
    nxt = prompt(home, "cc-e", project, "What prefix should the new refunds queue get?")
    assert "ledger-" in nxt.split("## This session so far", 1)[1]  # next turn: it is memory now
    assert "What prefix should the new refunds queue get" not in nxt


@pytest.mark.anyio
async def test_hook_and_agent_name_a_project_the_same_way(tmp_path: Path) -> None:
    home, billing = tmp_path / "home", repo(tmp_path, "billing-svc")
    prompt(home, "cc-p", billing / "api", "I prefer pytest fixtures over setUp methods for billing tests.")
    settings = load_settings(environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home)}, cwd=tmp_path)
    async with Client(build_server(settings)) as client:

        async def search(project: str) -> list[dict[str, Any]]:
            result = await client.call_tool(
                "memory", {"action": "search_atoms", "query": "pytest fixtures", "project": project}
            )
            assert not result.is_error, result.content
            assert result.structured_content is not None
            hits: list[dict[str, Any]] = result.structured_content["hits"]
            return hits

        # The agent's name, another casing, and the path itself all find the hook-captured atoms.
        for name in ("billing-svc", "Billing-Svc", str(billing), str(billing / "api")):
            assert any("pytest fixtures" in h["text"] for h in await search(name)), name
        assert await search("other-repo") == []
        added = await client.call_tool(
            "memory",
            {"action": "add_atom", "content": "Billing invoices are stored in cents", "source": "user_said"}
            | {"atom_type": "convention", "scope": "project", "project": f"{billing}/"},
        )
        assert added.structured_content is not None and added.structured_content["atom"]["project"] == "billing-svc"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_instructions_follow_who_injects_memory(tmp_path: Path, mode: str) -> None:
    exe = console_script("trusted-memory")
    home = tmp_path / "home"
    default = StdioServerParameters(command=str(exe), args=[], env=child_env(home))
    async with Client(default, mode=mode) as client:
        assert client.instructions is not None
        assert 'memory(action="context", message=...' in " ".join(client.instructions.split())
    hooked = StdioServerParameters(
        command=str(exe), args=[], env=child_env(home, {"MCP_MEMORY_CONTEXT__INJECTED_BY_HOST": "true"})
    )
    async with Client(hooked, mode=mode) as client:
        text = " ".join((client.instructions or "").split())  # line breaks aside
        assert "This host injects it for you" in text
        assert 'do not call memory(action="context"), "observe" or "end_session"' in text
        assert 'memory(action="context", message=' not in text and 'memory(action="add"' in text
