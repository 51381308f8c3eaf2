"""The `sampling` memory LLM: the host's own model, asked through the SDK's resolver API.

A resolver on the `memory` tool renders the job's prompt before the tool body runs; the SDK asks
the client (a live `sampling/createMessage` on 2025-11-25, an input-required round trip on
2026-07-28) and hands the answer in. The body then runs the job with that one answer, validated
and scanned like any backend's. When the client cannot sample, the resolver asks nothing and the
heuristic path runs, exactly as with `llm.provider = none`.
"""

from __future__ import annotations

from typing import TypeVar

from mcp.server.mcpserver import Context, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel

from ..llm.base import parse_answer
from .state import AppState

M = TypeVar("M", bound=BaseModel)
SAMPLED_ACTIONS = ("observe", "end_session", "consolidate")


class SampledAnswer:
    """A MemoryLLM holding the one answer the host's model gave for this call."""

    single_answer = True  # background jobs (user state, predicted intents) must not reuse it

    def __init__(self, text: str | None) -> None:
        self._text = text

    @property
    def name(self) -> str:
        """As a backend names itself."""
        return "sampling"

    async def complete(self, system: str, user: str, schema: type[M]) -> M | None:
        """The host's answer parsed into the job's schema (junk raises, and run_job counts it)."""
        return None if not self._text else parse_answer(self._text, schema)


def answer_text(result: CreateMessageResult | None) -> str | None:
    """The text of a sampling result, if it has any."""
    if result is None or result.content.type != "text":
        return None
    return result.content.text


async def sample_for_memory(
    action: str,
    ctx: Context[AppState],
    user_message: str | None,
    session_id: str | None,
    target: str | None,
) -> Sample | None:
    """The sampling request this call's memory job needs, or None (no job, not configured, or no capability)."""
    state = ctx.request_context.lifespan_context
    conf = state.settings.llm
    if conf.provider != "sampling" or action not in SAMPLED_ACTIONS:
        return None
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    prompt = await state.agent.job_prompt(action, user_message=user_message, session_id=session_id, target=target)
    if prompt is None:
        return None
    system, user = prompt
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=user))],
        max_tokens=conf.max_tokens,
        system_prompt=system,
        temperature=conf.temperature,
    )
