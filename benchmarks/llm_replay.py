"""Replay the conversation set's turns through the memory tool with a memory model, and check that
nothing the model invented reached live memory.

    python benchmarks/llm_replay.py --llm fake|real|none [--turns 200] [--timeout-s 20] [--pause-s 0]
        [--data DIR]

- fake: benchmarks/fake_remote_llm.py, a FAKE remote model that answers every job with plausible
  inventions (a version number, product names, a flipped negation); every marker is in INVENTED.
- real: the real local model (SmolLM2-135M under llama-cpp-python; benchmarks/llama_server.py).
- none: the rule-based path, the floor of the same run.

Per session: `observe(session_id, user_message, assistant_reply)` for each user turn, then
`end_session`, through the in-memory MCP client, until --turns user turns were observed. Reported:
observe and end_session latency (p50, p95, max) for the model and, in the same run, for no model
before and after it (the floor: the machine's speed drifts, so the model's p50 is compared with the
mean of the two), the memory-model stats by job and outcome (the tool's `stats`),
and the count of live atoms, live episodes, user-model fields, facts
and predicted intents that hold an invented marker (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conversation_recall import DATA, RunConfig, load_conversations, memory_server, settings_for
from fake_remote_llm import INVENTED, fake_remote_model
from llama_server import configured, llama_server


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def invented_in_live(db: Path) -> dict[str, list[str]]:
    """Live texts that hold an invented marker, by kind."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        texts = {
            "atoms": [r[0] for r in conn.execute("SELECT text FROM atoms WHERE status = 'live'")],
            "episodes": [r[0] for r in conn.execute("SELECT summary FROM episodes WHERE status = 'live'")],
            "user_model": [r[0] for r in conn.execute("SELECT value FROM user_model")],
            "facts": [r[0] for r in conn.execute("SELECT content FROM facts")],
            "predicted": [r[0] or "" for r in conn.execute("SELECT predicted FROM sessions")],
        }
    finally:
        conn.close()
    return {k: [t for t in v if any(m in t.lower() for m in INVENTED)] for k, v in texts.items()}


LLM_ENV = ("PROVIDER", "BASE_URL", "MODEL", "TIMEOUT_S", "MAX_TOKENS", "TEMPERATURE", "SETTLE_S")


async def replay(args: argparse.Namespace, base_url: str | None, home: Path) -> dict[str, Any]:
    for key in LLM_ENV:
        os.environ.pop(f"MCP_MEMORY_LLM__{key}", None)
    if args.llm_settle_s is not None:
        os.environ["MCP_MEMORY_LLM__SETTLE_S"] = str(args.llm_settle_s)
    if base_url:
        os.environ.update(
            {
                "MCP_MEMORY_LLM__PROVIDER": "http",
                "MCP_MEMORY_LLM__BASE_URL": base_url,
                "MCP_MEMORY_LLM__MODEL": "smollm2",
                "MCP_MEMORY_LLM__TIMEOUT_S": str(args.timeout_s),
                "MCP_MEMORY_LLM__MAX_TOKENS": "256",
                "MCP_MEMORY_LLM__TEMPERATURE": "0",
            }
        )
    settings = settings_for(home, RunConfig(), None)
    observe_ms: list[float] = []
    end_ms: list[float] = []
    left = args.turns
    async with memory_server(settings) as memory:
        for conv in load_conversations(args.data):
            for session_id, turns in conv.sessions:
                if left <= 0:
                    break
                for turn in turns[:left]:
                    t0 = time.perf_counter()
                    await memory.call(
                        "observe", session_id=session_id, user_message=turn.text, assistant_reply=turn.reply
                    )
                    observe_ms.append((time.perf_counter() - t0) * 1000)
                    left -= 1
                    await asyncio.sleep(args.pause_s)  # the user reading and typing
                t0 = time.perf_counter()
                await memory.call("end_session", session_id=session_id)
                end_ms.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(args.settle_s)  # let the last background jobs finish or be dropped
        stats = (await memory.call("stats"))["stats"]
    return {
        "turns": len(observe_ms),
        "sessions": len(end_ms),
        "observe_ms": {"p50": pct(observe_ms, 0.5), "p95": pct(observe_ms, 0.95), "max": max(observe_ms)},
        "end_session_ms": {"p50": pct(end_ms, 0.5), "p95": pct(end_ms, 0.95), "max": max(end_ms)},
        "llm_jobs": stats.get("llm_jobs", []),
        "invented_in_live": {k: len(v) for k, v in invented_in_live(settings.db_path).items()},
        "examples": {k: v[:2] for k, v in invented_in_live(settings.db_path).items() if v},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", choices=("fake", "real", "none"), default="fake")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--timeout-s", type=float, default=20.0)
    parser.add_argument("--settle-s", type=float, default=3.0)
    parser.add_argument("--pause-s", type=float, default=0.0, help="pause after each turn (a user typing)")
    parser.add_argument(
        "--llm-settle-s", type=float, help="llm.settle_s for the model run (default: the product's; 0 sends every job)"
    )
    parser.add_argument("--data", type=Path, default=DATA / "conversations")
    parser.add_argument("--home", type=Path, help="keep the store in this folder (default: a temporary one)")
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="trusted-memory-replay-") as tmp:
        base = None
        if args.llm == "fake":
            base = stack.enter_context(fake_remote_model()).base_url
        elif args.llm == "real":
            found = configured()
            if found is None:
                raise SystemExit("set TRUSTED_MEMORY_LLM_PYTHON and TRUSTED_MEMORY_LLM_GGUF (see llama_server.py)")
            base = stack.enter_context(llama_server(*found, log=Path(tmp) / "server.log"))
        runs = {}
        # The floor before and after, in the same run: the same turns with no model (llm.provider none).
        plan = [("none", None)] if args.llm == "none" else [("none", None), (args.llm, base), ("none_after", None)]
        for name, url in plan:
            t0 = time.perf_counter()
            home = (args.home or Path(tmp)) / name
            runs[name] = asyncio.run(replay(args, url, home))
            runs[name]["wall_s"] = round(time.perf_counter() - t0, 1)
        if args.llm != "none":
            floor = (runs["none"]["observe_ms"]["p50"] + runs["none_after"]["observe_ms"]["p50"]) / 2
            runs["observe_p50_ratio"] = round(runs[args.llm]["observe_ms"]["p50"] / max(floor, 1e-9), 2)  # type: ignore[assignment]
    print(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
