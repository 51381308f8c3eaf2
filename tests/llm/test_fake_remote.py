"""The memory server against a FAKE remote model (benchmarks/fake_remote_llm.py: a loopback
OpenAI-compatible server standing in for a remote provider, the one edge that cannot run here).

It invents plausible content for every job; none of it may reach live memory, every rejection is
counted where an operator looks (tool `stats`, admin `stats`, `doctor`), no credential may ever
arrive at it, and a slow one cannot hold `end_session` past one `llm.timeout_s`.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from trusted_memory.cli.admin import main as admin_main
from trusted_memory.config import Settings, load_settings
from trusted_memory.server.app import build_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fake_remote_llm import INVENTED, FakeRemoteModel, fake_remote_model

pytestmark = pytest.mark.anyio
DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"

# Built at run time so secret scanners reading this file do not flag fake credentials.
SECRETS = (
    "ghp_" + "Xk7Qm2Lp9Rt4Vw8Yz1Bc3Df5Gh6Jk0Mn2Pqa",
    "sk-proj-" + "4fR9xQ2mZ7LpW1vT8kB3nY6cJ0hD5sGa",
    "AKIA" + "QX3VJ7TB2NW5ZK4M",
)
TURNS = [
    f"My deploy token is {SECRETS[0]}, the pipeline reads it from the vault.",
    f"For the billing worker I use the key {SECRETS[1]} in staging.",
    "I prefer small pull requests for the billing worker.",
    f"The AWS key id is {SECRETS[2]}; the worker runs in eu-west-1.",
    "We decided to keep the billing worker on Postgres.",
]


@pytest.fixture
def fake() -> Iterator[FakeRemoteModel]:
    with fake_remote_model() as model:
        yield model


def settings_for(home: Path, url: str, timeout_s: float = 10.0) -> Settings:
    env = {
        "MCP_MEMORY_HOME": str(home),
        "MCP_MEMORY_LLM__PROVIDER": "http",
        "MCP_MEMORY_LLM__BASE_URL": url,
        "MCP_MEMORY_LLM__MODEL": "fake-remote",
        "MCP_MEMORY_LLM__TIMEOUT_S": str(timeout_s),
        "MCP_MEMORY_LLM__SETTLE_S": "0",  # every turn's jobs reach the fake: the most inventions to refuse
    }
    return load_settings(environ=env, cwd=home.parent)


async def call(client: Client, action: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool("memory", {"action": action, **args})
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return dict(result.structured_content or {})


async def settle(client: Client, fake: FakeRemoteModel, quiet_s: float = 0.3) -> None:
    """Wait until the fake got no request for `quiet_s` (the background jobs are done)."""
    seen, deadline = -1, time.monotonic() + 20
    while len(fake.bodies) != seen and time.monotonic() < deadline:
        seen = len(fake.bodies)
        await call(client, "stats")
        await anyio.sleep(quiet_s)


async def admin(argv: list[str]) -> int:
    """The admin CLI's real entry point, in a thread (it runs its own event loop)."""
    return await anyio.to_thread.run_sync(admin_main, argv)


def live_texts(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [
            *(r[0] for r in conn.execute("SELECT text FROM atoms WHERE status = 'live'")),
            *(r[0] for r in conn.execute("SELECT summary FROM episodes WHERE status = 'live'")),
            *(r[0] for r in conn.execute("SELECT value FROM user_model")),
            *(r[0] for r in conn.execute("SELECT content FROM facts")),
            *(r[0] or "" for r in conn.execute("SELECT predicted FROM sessions")),
        ]
    finally:
        conn.close()


def test_the_invented_markers_occur_nowhere_in_the_conversation_sets() -> None:
    for path in (DATA / "conversations").glob("*.json"):
        text = path.read_text().lower()
        assert not any(m in text for m in INVENTED), path
    assert not any(m in " ".join(TURNS).lower() for m in INVENTED)


async def test_no_credential_ever_reaches_the_model(fake: FakeRemoteModel, tmp_path: Path) -> None:
    async with Client(build_server(settings_for(tmp_path / "h", fake.base_url))) as client:
        for i, text in enumerate(TURNS):
            await call(client, "observe", session_id="p1", user_message=text, assistant_reply=f"Noted {i}.")
            await settle(client, fake, 0.1)
        await call(client, "end_session", session_id="p1")
        await settle(client, fake)
    jobs = {b["messages"][0]["content"][:40] for b in fake.bodies}
    assert len(jobs) >= 3  # extraction, prediction, episode at least: the prompts that carry turns
    sent = "\n".join(fake.prompts())
    assert "[redacted credential]" in sent  # the turns did arrive, redacted
    for secret in SECRETS:
        assert secret not in sent


async def test_nothing_invented_reaches_live_memory_and_every_rejection_is_counted(
    fake: FakeRemoteModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_for(tmp_path / "h", fake.base_url)
    conv = json.loads((DATA / "conversations" / "ca1.json").read_text())
    async with Client(build_server(settings)) as client:
        for n, session in enumerate(conv["sessions"][:3]):
            turns = session["turns"]
            for i, turn in enumerate(turns):
                if turn["role"] != "user":
                    continue
                reply = next((t["text"] for t in turns[i + 1 :] if t["role"] == "assistant"), None)
                await call(client, "observe", session_id=f"c{n}", user_message=turn["text"], assistant_reply=reply)
                await settle(client, fake, 0.05)
            ended = await call(client, "end_session", session_id=f"c{n}")
            if ended.get("episode"):
                assert ended["episode"]["source_class"] == "session_summary"  # the invented summary was refused
        await settle(client, fake)
        stats = (await call(client, "stats"))["stats"]
    leaked = [t for t in live_texts(settings.db_path) if any(m in t.lower() for m in INVENTED)]
    assert leaked == []
    jobs = {j["job"]: j for j in stats["llm_jobs"]}
    assert {"extract", "episode", "predict"} <= set(jobs)
    for name in ("extract", "episode", "predict"):
        assert jobs[name]["outcomes"].get("ok", 0) >= 1, jobs[name]  # the fake did answer validly
        assert jobs[name]["outcomes"].get("ungrounded", 0) >= 1, jobs[name]  # and that was refused
        assert jobs[name]["last_error"]
    # The admin CLI, a separate reader of the same store, sees the same counts.
    capsys.readouterr()
    assert await admin(["--home", str(settings.home), "--json", "stats"]) == 0
    listed = json.loads(capsys.readouterr().out)["llm"]
    assert {j["job"]: j["outcomes"] for j in listed["jobs"]} == {j: v["outcomes"] for j, v in jobs.items()}
    assert await admin(["--home", str(settings.home), "stats"]) == 0
    out = capsys.readouterr().out
    assert "memory model" in out and "ungrounded" in out and "last error (extract)" in out


async def test_doctor_flags_a_model_that_never_answers_validly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens on this port: every call fails (unavailable), as with a wrong llm.base_url.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    settings = settings_for(tmp_path / "h", dead, timeout_s=2)
    async with Client(build_server(settings)) as client:
        for i in range(4):
            await call(client, "observe", session_id="d1", user_message=f"I keep the notes for step {i} in the wiki.")
            await anyio.sleep(0.2)
        await call(client, "end_session", session_id="d1")
        await anyio.sleep(0.5)
    for key, value in (("PROVIDER", "http"), ("BASE_URL", dead), ("MODEL", "fake-remote")):
        monkeypatch.setenv(f"MCP_MEMORY_LLM__{key}", value)
    capsys.readouterr()
    code = await admin(["--home", str(settings.home), "doctor"])
    out = capsys.readouterr().out
    assert code != 0 and "memory_llm" in out and "answered none of" in out, out


async def test_a_slow_model_cannot_hold_end_session_past_one_limit(tmp_path: Path) -> None:
    with fake_remote_model(delay_s=30) as slow:
        settings = settings_for(tmp_path / "h", slow.base_url, timeout_s=2)
        async with Client(build_server(settings)) as client:
            for text in TURNS[2:] * 2:  # back to back: every turn queues background calls
                await call(client, "observe", session_id="t1", user_message=text, assistant_reply="ok")
            started = time.monotonic()
            ended = await call(client, "end_session", session_id="t1")
            elapsed = time.monotonic() - started
    # One limit (2 s) and the store's own work; before, the wait for background calls came first.
    assert elapsed < 3.0, elapsed
    assert ended["episode"] is not None and ended["episode"]["source_class"] == "session_summary"
