"""`trusted-memory-hook`: the commands a host's hooks run (Claude Code: UserPromptSubmit, PostToolUse, Stop, SessionEnd)

The host pipes its hook event as JSON on stdin. `prompt` observes the user's real prompt as their
own words and prints the memory block, which the host adds to the model's context. A hook must
never break the host's turn: every failure is one line on stderr and exit code 0.
This entry point never imports the MCP SDK, so it starts in a fraction of the server's time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import load_settings
from ..errors import MemoryServerError
from ..services.hooks import HostHooks
from ..services.runtime import open_runtime
from ..services.session import ToolEvent
from .threads import single_threaded_blas

MAX_TRANSCRIPT_TAIL = 512 * 1024


def last_assistant_text(transcript_path: str) -> str | None:
    """The text of the last assistant message in a Claude Code transcript (JSONL)."""
    path = Path(transcript_path).expanduser()
    if not path.is_file():
        return None
    with path.open("rb") as fh:
        fh.seek(max(0, path.stat().st_size - MAX_TRANSCRIPT_TAIL))
        lines = fh.read().decode("utf-8", errors="ignore").splitlines()
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        texts = [c.get("text", "") for c in content or () if isinstance(c, dict) and c.get("type") == "text"]
        if any(texts):
            return "\n".join(t for t in texts if t)
    return None


async def run(event: str, payload: dict[str, Any], home: str | None) -> str:
    """Handle one hook event; returns what to print on stdout."""
    settings = load_settings(overrides={"home": home})
    session_id = str(payload.get("session_id") or "").strip()
    if not session_id:
        raise MemoryServerError("the hook input has no session_id")
    project = str(payload.get("cwd") or "") or None
    async with open_runtime(settings) as runtime:
        hooks = HostHooks(runtime)
        if event == "prompt":
            prompt = str(payload.get("prompt") or "")
            _, block = await hooks.prompt(session_id, prompt, project)
            return block
        if event == "tool":
            tool = ToolEvent(str(payload.get("tool_name") or "unknown"), url=_url(payload.get("tool_input")))
            await hooks.tool(session_id, tool, project)
            return ""
        if event == "stop":
            reply = last_assistant_text(str(payload.get("transcript_path") or ""))
            if reply:
                await hooks.reply(session_id, reply)
            return ""
        result = await hooks.end(session_id)
        print(f"trusted-memory: {result.reason}", file=sys.stderr)
        return ""


def _url(tool_input: object) -> str | None:
    if isinstance(tool_input, dict):
        for key in ("url", "uri"):
            if isinstance(tool_input.get(key), str):
                return str(tool_input[key])
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Read the hook event from stdin and handle it; never fail the host's turn."""
    parser = argparse.ArgumentParser(
        prog="trusted-memory-hook", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument(
        "event",
        choices=("prompt", "tool", "stop", "end"),
        help="prompt: UserPromptSubmit; tool: PostToolUse; stop: Stop; end: SessionEnd",
    )
    parser.add_argument("--home", help="store folder (default ~/.mcp-memory, or MCP_MEMORY_HOME)")
    args = parser.parse_args(argv)
    single_threaded_blas()
    try:
        payload = json.loads(sys.stdin.read() or "{}")
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        out = asyncio.run(run(args.event, payload, args.home))
    except (MemoryServerError, ValueError) as exc:
        print(f"trusted-memory-hook: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 0
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
