"""llm.provider = sampling: the host's own model through the SDK's resolver API, both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.types import CreateMessageRequestParams, CreateMessageResult, TextContent
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server

pytestmark = pytest.mark.anyio

EPISODE = {
    "summary": "The user planned a rename of atlas to beacon, kept an alias, and set a Monday announcement.",
    "facts": [],
    "notes": [],
}
EXTRACTION = {
    "atoms": [{"type": "preference", "text": "I prefer short commit messages", "confidence": 0.9, "tags": ["git"]}]
}


class HostModel:
    """Fake of the host's model at the sampling edge: answers by the job its system prompt names."""

    def __init__(self, junk: bool = False) -> None:
        self.junk = junk
        self.prompts: list[str] = []

    async def __call__(self, ctx: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        system = params.system_prompt or ""
        self.prompts.append(system)
        if self.junk:
            text = "Sure! Happy to help with that."
        elif "summar" in system.lower():
            text = json.dumps(EPISODE)
        else:
            text = json.dumps(EXTRACTION)
        return CreateMessageResult(role="assistant", model="host-model", content=TextContent(type="text", text=text))


def sampling_settings(tmp_path: Path) -> Settings:
    return load_settings(
        environ={
            "MCP_MEMORY_HOME": str(tmp_path / "h"),
            **store_env_for(tmp_path / "h"),
            "MCP_MEMORY_LLM__PROVIDER": "sampling",
        },
        cwd=tmp_path,
    )


async def run_session(client: Client) -> Any:
    for user in (
        "I prefer short commit messages. I want to rename atlas to beacon.",
        "We decided to keep the old name as an alias for a month.",
        "Let's announce the rename on Monday.",
    ):
        result = await client.call_tool(
            "memory", {"action": "observe", "session_id": "s", "user_message": user, "assistant_reply": "Done."}
        )
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    ended = await client.call_tool("memory", {"action": "end_session", "session_id": "s"})
    assert not ended.is_error, ended.content[0].text  # type: ignore[union-attr]
    return ended.structured_content


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_episode_summary_comes_from_the_hosts_model(tmp_path: Path, mode: str) -> None:
    model = HostModel()
    async with Client(build_server(sampling_settings(tmp_path)), mode=mode, sampling_callback=model) as client:
        ended = await run_session(client)
    assert ended["episode"]["summary"] == EPISODE["summary"]
    assert any("summar" in p.lower() for p in model.prompts) and len(model.prompts) >= 4


async def test_no_sampling_capability_falls_back_to_the_heuristics(tmp_path: Path, mode: str) -> None:
    async with Client(build_server(sampling_settings(tmp_path)), mode=mode) as client:
        ended = await run_session(client)
    assert ended["episode"] is not None and ended["episode"]["summary"] != EPISODE["summary"]
    assert "alias" in ended["episode"]["summary"] or "rename" in ended["episode"]["summary"]


async def test_junk_from_the_host_falls_back(tmp_path: Path) -> None:
    async with Client(build_server(sampling_settings(tmp_path)), sampling_callback=HostModel(junk=True)) as client:
        ended = await run_session(client)
    assert ended["episode"]["summary"].split()[0] in ("The", "They")  # the heuristic summary, not "Sure!"


async def test_provider_none_never_samples(tmp_path: Path) -> None:
    model = HostModel()
    settings = load_settings(
        environ={"MCP_MEMORY_HOME": str(tmp_path / "h"), **store_env_for(tmp_path / "h")}, cwd=tmp_path
    )
    async with Client(build_server(settings), sampling_callback=model) as client:
        await run_session(client)
    assert model.prompts == []


async def test_the_tool_is_published_the_same_with_and_without_the_sampling_resolver(tmp_path: Path) -> None:
    """Only the sampling provider's tool carries the resolver (it costs every call); hosts see one schema."""
    plain = load_settings(
        environ={"MCP_MEMORY_HOME": str(tmp_path / "p"), **store_env_for(tmp_path / "p")}, cwd=tmp_path
    )
    published = []
    for settings in (plain, sampling_settings(tmp_path)):
        async with Client(build_server(settings)) as client:
            tools = (await client.list_tools()).tools
            published.append([tool.model_dump(mode="json") for tool in tools])
    assert published[0] == published[1]
    assert [tool["name"] for tool in published[0]] == ["memory"]
