"""Credentials never leave in a prompt: run_job and every data block redact them."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeLLM
from pydantic import BaseModel

from trusted_memory.llm.anticipation_jobs import intents_prompt
from trusted_memory.llm.base import LLMStats, run_job
from trusted_memory.llm.jobs import ExtractionOut, episode_prompt, extraction_prompt

pytestmark = pytest.mark.anyio
# Built at run time so secret scanners reading this file do not flag a fake token.
TOKEN = "ghp_" + "Xk7Qm2Lp9Rt4Vw8Yz1Bc3Df5Gh6Jk0Mn2Pqa"


def test_every_prompt_builder_redacts_the_conversation() -> None:
    message = f"use {TOKEN} for the deploy"
    prompts = [
        extraction_prompt(message, [f"USER: earlier {TOKEN}"]),
        episode_prompt([("user", message), ("assistant", f"ok, {TOKEN} noted")]),
        intents_prompt(message, [message], []),
    ]
    for system, user in prompts:
        assert TOKEN not in system + user and "[redacted credential]" in user


async def test_run_job_redacts_even_a_prompt_built_elsewhere() -> None:
    def script(system: str, user: str, schema: type[BaseModel]) -> Any:
        return {"atoms": []}

    fake = FakeLLM(script)
    await run_job(fake, f"system {TOKEN}", f"user {TOKEN}", ExtractionOut, timeout_s=5, stats=LLMStats(), job="x")
    assert fake.calls and all(TOKEN not in s + u for s, u, _ in fake.calls)
