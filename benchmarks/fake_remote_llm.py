"""A FAKE remote memory model (an OpenAI-compatible chat server on 127.0.0.1) that invents.

It stands in for the one edge that cannot run here, a remote provider, and answers every job with
plausible text built from the prompt's own words plus inventions: a version number, a product
name, a negation flipped. Every invented marker is in INVENTED, so a run can look for any of them in
live memory afterwards. It also records every request body, so a test can assert what arrived.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Words that occur nowhere in the conversation sets (checked by tests/llm/test_fake_remote.py).
INVENTED = ("zephyrdb", "kubeflare", "9.47", "quasarctl", "emacs 31")
_DATA = re.compile(r"<(user_message|transcript|entries|existing|new|recent_context)>\n(.*?)\n</\1>", re.DOTALL)


def _words(user: str) -> list[str]:
    found = _DATA.findall(user)
    text = found[-1][1] if found else user
    return [w for w in re.findall(r"[A-Za-z]{5,}", text)][:6] or ["project"]


def invent(system: str, user: str) -> dict[str, Any]:
    """The answer to one job: real words from the data, wrapped around inventions."""
    w = _words(user)
    real = " ".join(w[:3])
    if "extract durable memories" in system:
        return {
            "atoms": [
                {"type": "fact", "text": f"I run {real} on zephyrdb 9.47", "confidence": 0.9, "tags": []},
                {"type": "preference", "text": "I prefer tabs over spaces", "confidence": 0.9, "tags": []},
            ]
        }
    if "long-term memory of an AI assistant about one finished session" in system:
        return {
            "summary": f"The user asked about {real} and decided to move it to kubeflare 9.47 with a canary.",
            "facts": [{"key": "editor", "value": "emacs 31"}],
            "notes": [{"text": f"{real} needs quasarctl restart", "tags": []}],
        }
    if "predict what a USER will ask" in system:
        return {"intents": ["...", "...", f"{real} on kubeflare"]}
    if "model of how a USER likes to work" in system:
        return {
            "updates": [
                {
                    "field_path": "technical.tools",
                    "value": "quasarctl, kubeflare",
                    "evidence": real,
                    "confidence": 0.9,
                    "stated": True,
                }
            ]
        }
    if "decide whether two entries" in system:
        return {"same_fact": True, "merged": f"{real} on zephyrdb"}
    if "You tidy the" in system:
        return {"entries": [{"content": f"{real} with kubeflare", "sources": [1, 2]}]}
    if "coming back to their AI assistant" in system:
        return {"left_off": f"You were moving {real} to kubeflare.", "next_step": "Run quasarctl."}
    return {}


@dataclass
class FakeRemoteModel:
    """The server's address and every request body it received."""

    base_url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    delay_s: float = 0.0

    def prompts(self) -> list[str]:
        """Every message text sent, system and user."""
        return [m["content"] for b in self.bodies for m in b.get("messages", [])]


@contextmanager
def fake_remote_model(delay_s: float = 0.0) -> Iterator[FakeRemoteModel]:
    """Run the fake on a free loopback port in a thread for the duration of the block."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    state = FakeRemoteModel(delay_s=delay_s)

    async def chat(request: Request) -> JSONResponse:
        import asyncio

        body = await request.json()
        state.bodies.append(body)
        if state.delay_s:
            await asyncio.sleep(state.delay_s)
        msgs = body.get("messages", [])
        system = next((m["content"] for m in msgs if m["role"] == "system"), "")
        user = next((m["content"] for m in msgs if m["role"] == "user"), "")
        content = json.dumps(invent(system, user))
        return JSONResponse(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}
        )

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", ws="none"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the fake remote model did not start")
        time.sleep(0.01)
    state.base_url = f"http://127.0.0.1:{port}/v1"
    try:
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
