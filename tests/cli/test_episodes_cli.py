"""Admin episodes and consolidate commands, through the real entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from trusted_memory.services.agent import AgentService
from trusted_memory.services.runtime import Runtime
from trusted_memory.services.session import ToolEvent

from ._support import cli, cli_json, with_runtime


def held_episode(home: Path) -> str:
    async def work(runtime: Runtime) -> str:
        agent = AgentService(runtime)
        await agent.observe(
            "web-1",
            "check the vendor docs for the rate limits",
            tool_events=[ToolEvent("WebFetch", url="https://vendor.example/docs")],
        )
        await agent.observe(
            "web-1", "We decided to cap our client at 50 requests per second.", assistant_reply="Capped at 50 rps."
        )
        await agent.observe("web-1", "Let's add retries with jitter too.", assistant_reply="Added retries with jitter.")
        result = await agent.end_session("web-1")
        assert result.episode is not None and result.episode.status == "held"
        return result.episode.id

    return with_runtime(home, work)


def test_held_episode_needs_a_person(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    episode_id = held_episode(home)
    listing = cli_json(capsys, home, "episodes", "list")
    assert [(e["id"], e["status"]) for e in listing] == [(episode_id, "held")]
    code, out, _ = cli(capsys, home, "episodes", "show", episode_id[:8])
    assert code == 0 and out.startswith("HELD:")
    code, _, err = cli(capsys, home, "episodes", "promote", episode_id)
    assert code == 1 and "--yes" in err
    promoted = cli_json(capsys, home, "episodes", "promote", episode_id, "--yes")
    assert promoted["status"] == "live" and promoted["source_class"] == "user_approved"

    async def visible(runtime: Runtime) -> list[str]:
        return [h.episode.id for h in await AgentService(runtime).search_episodes("rate limit requests per second")]

    assert with_runtime(home, visible) == [episode_id]
    audit = cli_json(capsys, home, "audit", "--kind", "episode_promoted")
    assert audit and audit[0]["actor"] == "admin"


def test_consolidate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    cli(capsys, home, "facts", "add", "user", "Drinks coffee")
    results = cli_json(capsys, home, "consolidate")
    assert [r["target"] for r in results] == ["user", "env"] and all(r["merged"] == 0 for r in results)
