"""The trusted capture path end to end: `trusted-memory-hook` run from a shell the way Claude Code runs it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ._support import child_env, console_script

pytestmark = pytest.mark.e2e


def hook(
    home: Path, event: str, payload: dict[str, Any], extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Pipe the hook's JSON on stdin, as the host does; the hook must always exit 0."""
    exe = console_script("trusted-memory-hook")
    done = subprocess.run(
        [str(exe), event],
        input=json.dumps(payload),
        env=child_env(home, extra_env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def prompt(home: Path, session: str, text: str, cwd: Path, **env: str) -> str:
    payload = {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    return hook(home, "prompt", payload, env or None).stdout


def rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(home / "memory.db")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_prompt_hook_observes_the_users_words_and_prints_the_memory_block(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    first = prompt(home, "cc-1", "I prefer pytest over unittest and we deploy with Docker", project)
    assert first == "" or first.startswith("<memory")
    atoms = rows(home, "SELECT text, source_class, status FROM atoms")
    assert any("pytest" in t and s == "user_said" and st == "live" for t, s, st in atoms)
    second = prompt(home, "cc-1", "which test framework should I use for the new module?", project)
    assert second.startswith("<memory") and "pytest" in second and second.rstrip().endswith("</memory>")
    events = rows(home, "SELECT actor FROM events WHERE kind = 'turn_observed'")
    assert events and all(actor == "system" for (actor,) in events)


def test_the_hook_path_stays_trusted_in_strict_mode(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    prompt(home, "cc-2", "I prefer dark roast coffee", project, MCP_MEMORY_TRUST__AGENT_WRITES="quarantine")
    assert rows(home, "SELECT status FROM atoms WHERE text LIKE '%dark roast%'") == [("live",)]


def test_tool_stop_and_end_hooks(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "repo"
    project.mkdir()
    transcript = tmp_path / "transcript.jsonl"
    turns = [
        ("I want to move the billing service from MySQL to Postgres.", "I drafted a three-phase migration plan."),
        ("We decided to run both databases side by side for a week.", "I added dual writes behind a flag."),
        ("Dual writes look fine, let's cut over on Friday.", "I scheduled the cut-over and updated the runbook."),
    ]
    for user, reply in turns:
        prompt(home, "cc-3", user, project)
        with transcript.open("a") as fh:
            fh.write(json.dumps({"type": "user", "message": {"role": "user", "content": user}}) + "\n")
            fh.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]},
                    }
                )
                + "\n"
            )
        hook(home, "stop", {"session_id": "cc-3", "transcript_path": str(transcript), "hook_event_name": "Stop"})
    buffer = [line for (line,) in rows(home, "SELECT line FROM session_buffer WHERE session_id = 'cc-3' ORDER BY seq")]
    assert any("assistant I scheduled the cut-over" in line for line in buffer)
    done = hook(home, "end", {"session_id": "cc-3", "cwd": str(project), "hook_event_name": "SessionEnd"})
    assert "episode written" in done.stderr
    ((summary, status),) = rows(home, "SELECT summary, status FROM episodes WHERE session_id = 'cc-3'")
    assert status == "live" and "Postgres" in summary

    prompt(home, "cc-4", "summarise this page for me", project)
    hook(
        home,
        "tool",
        {
            "session_id": "cc-4",
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "WebFetch",
            "tool_input": {"url": "https://example.com/a"},
        },
    )
    assert rows(home, "SELECT untrusted FROM sessions WHERE id = 'cc-4'") == [(1,)]


def test_a_broken_hook_input_never_fails_the_host(tmp_path: Path) -> None:
    exe = console_script("trusted-memory-hook")
    for junk in ("", "not json", "[1, 2]", json.dumps({"prompt": "no session id"})):
        done = subprocess.run(
            [str(exe), "prompt"],
            input=junk,
            env=child_env(tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and done.stdout == "" and done.stderr.startswith("trusted-memory-hook:")
