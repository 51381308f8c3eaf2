"""`trusted-memory-admin model`, `nudges` and confirming a style inference, through the real entry point."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest

from trusted_memory.services.agent import AgentService
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.runtime import Runtime

from ._support import admin_script, child_env, cli, cli_json, with_runtime


def short_messages(home: Path) -> None:
    async def work(rt: Runtime) -> None:
        agent = AgentService(rt)
        for text in ["fix the flaky test", "now the linter", "ok run it", "next: the docs", "ship it"]:
            await agent.observe("cli", text)
        await rt.background.wait("user_state", timeout_s=10)

    with_runtime(home, work)


def rendered_context(home: Path) -> str:
    async def work(rt: Runtime) -> str:
        return (await AgentService(rt).context("ok what next", session_id="cli")).rendered

    return with_runtime(home, work)


def test_a_style_inference_waits_in_pending_until_confirm_applies_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short_messages(home)
    pending = cli_json(capsys, home, "pending")
    guess = next(p for p in pending if p["field_path"] == "style.verbosity")
    model = cli_json(capsys, home, "model")
    assert "style.verbosity" not in {f["path"] for f in model["fields"]} and model["pending"] >= 1
    assert "verbosity" not in rendered_context(home)
    code, out, _ = cli(capsys, home, "model")
    assert code == 0 and "wait for you" in out and "interaction_patterns.message_length" in out

    done = subprocess.run(
        [str(admin_script()), "confirm", "--yes", guess["id"]],
        env=child_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    model = cli_json(capsys, home, "model")
    applied = {f["path"]: f for f in model["fields"]}
    assert (
        applied["style.verbosity"]["value"] == "concise"
        and applied["style.verbosity"]["source_class"] == "user_approved"
    )
    assert "- verbosity: concise (confirmed by the user)" in rendered_context(home)


def test_model_infer_runs_a_pass_over_trusted_memories(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def work(rt: Runtime) -> None:
        await AgentService(rt).add_atom(
            AtomDraft(content="I write most services in Golang and deploy them on Kubernetes.", source="user_said")
        )

    with_runtime(home, work)
    model = cli_json(capsys, home, "model", "--infer")
    fields = {f["path"]: f["value"] for f in model["fields"]}
    assert fields["technical.languages"] == "Go" and fields["technical.tools"] == "Kubernetes"
    assert model["inference"]["applied"]


def test_nudges_preview_consumes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def work(rt: Runtime) -> str:
        atom = (
            await AgentService(rt).add_atom(
                AtomDraft(content="Should we move the blog off WordPress?", source="user_said", atom_type="question")
            )
        ).atom
        async with rt.store.write() as tx:  # asked two days ago
            await tx.conn.execute("UPDATE atoms SET created_at = ? WHERE id = ?", (time.time() - 2 * 86400, atom.id))
        return atom.id

    with_runtime(home, work)
    for _ in range(2):
        preview = cli_json(capsys, home, "nudges")
        assert preview["enabled"] is False and preview["shown_today"] == 0
        assert [n["kind"] for n in preview["due"]] == ["open_question"]
    code, out, _ = cli(capsys, home, "nudges")
    assert code == 0 and "nudges are off" in out and "WordPress" in out
    asyncio.set_event_loop(None)
