"""`trusted-memory-hook`: the commands a host's hooks run (Claude Code: SessionStart, UserPromptSubmit, PostToolUse,
Stop, SessionEnd)

The host pipes its hook event as JSON on stdin. `session` prints the facts and where the user left
off on this project, as SessionStart's `additionalContext`. `prompt` prints the memory block for the
user's real prompt (which the host adds to the model's context) and then observes the prompt as
their own words. The project is the working directory's, named by the rule in projects.py. A hook must
never break the host's turn: every failure is one line on stderr and exit code 0. Claude Code reads
exit code 2 as "block": a prompt would never reach the model, a Stop would keep the agent going.
This entry point never imports the MCP SDK, so it starts in a fraction of the server's time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..errors import MemoryServerError
from ..services.host_events import OWN_SERVERS, classify_tool

MAX_TRANSCRIPT_TAIL = 512 * 1024
EVENTS = ("session", "prompt", "tool", "stop", "end")


class UsageError(Exception):
    """A bad command line: reported like any other failure, never as argparse's exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        usage = " ".join(self.format_usage().split()).removeprefix("usage: ")
        raise UsageError(f"{message} (usage: {usage})")


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


def reply_text(payload: dict[str, Any]) -> str | None:
    """The assistant's final reply of a Stop event: the payload's own field, else the transcript's tail.

    Claude Code writes the transcript asynchronously, so at Stop time its tail may still be the
    previous turn; `last_assistant_message` (Claude Code 2.1.47+) is the reply itself.
    """
    last = payload.get("last_assistant_message")
    if isinstance(last, str) and last.strip():
        return last
    return last_assistant_text(str(payload.get("transcript_path") or ""))


def scheduled_prompts(payload: dict[str, Any]) -> list[str]:
    """The prompts of the session's scheduled tasks a Stop event lists (`session_crons`)."""
    crons = payload.get("session_crons")
    if not isinstance(crons, list):
        return []
    return [c["prompt"] for c in crons if isinstance(c, dict) and isinstance(c.get("prompt"), str)]


async def run(event: str, payload: dict[str, Any], home: str | None, own_servers: Sequence[str] = OWN_SERVERS) -> str:
    """Handle one hook event; returns what to print on stdout."""
    session_id = str(payload.get("session_id") or "").strip()
    if not session_id:
        raise MemoryServerError("the hook input has no session_id")
    call = None
    if event == "tool":
        tool_input = payload.get("tool_input")
        name = str(payload.get("tool_name") or "unknown")
        call = classify_tool(name, tool_input if isinstance(tool_input, dict) else {}, own_servers)
        if not call.matters:
            return ""  # this server's own tool, the todo list: nothing to note, and nothing more to load
    # Lazy: the calls above need none of it, and the host waits for every PostToolUse hook.
    from ..config import load_settings
    from ..people import acting_as
    from ..services.hooks import HostHooks
    from ..services.people import PeopleDirectory
    from ..services.runtime import open_runtime

    settings = load_settings(overrides={"home": home})
    project = str(payload.get("cwd") or "") or None
    async with open_runtime(settings) as runtime:
        # In a team's store the hook acts for the implicit owner, one person of the team (people.py).
        with acting_as(await PeopleDirectory(runtime.store).local_viewer()):
            hooks = HostHooks(runtime)
            if event == "session":
                return session_start_output(await hooks.start(session_id, project))
            if event == "prompt":
                result = await hooks.prompt(session_id, str(payload.get("prompt") or ""), project)
                if result.skipped is not None:
                    print(f"trusted-memory: not recorded as the user's words: {result.skipped.reason}", file=sys.stderr)
                return result.block
            if call is not None:
                await hooks.tool(session_id, call, project)
                return ""
            if event == "stop":
                await hooks.scheduled(session_id, scheduled_prompts(payload), via="session_crons")
                reply = reply_text(payload)
                if reply:
                    await hooks.reply(session_id, reply)
                return ""
            ended = await hooks.end(session_id)
            print(f"trusted-memory: {ended.reason}", file=sys.stderr)
            return ""


def session_start_output(block: str) -> str:
    """SessionStart's answer: the block as `hookSpecificOutput.additionalContext` (nothing when empty).

    Claude Code also takes a SessionStart hook's plain stdout as context; the JSON form is the one
    its hooks reference documents for adding context without showing it as hook output.
    """
    if not block:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": block}})


def build_parser() -> argparse.ArgumentParser:
    """The command line; its errors raise `UsageError` instead of exiting 2."""
    parser = _Parser(prog="trusted-memory-hook", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "event",
        choices=EVENTS,
        help="session: SessionStart; prompt: UserPromptSubmit; tool: PostToolUse; stop: Stop; end: SessionEnd",
    )
    parser.add_argument("--home", help="store folder (default ~/.mcp-memory, or MCP_MEMORY_HOME)")
    parser.add_argument(
        "--server",
        action="append",
        metavar="NAME",
        help="a name this server is registered under in the host, whose `memory` tool does not taint the "
        f"session (repeatable; default {', '.join(OWN_SERVERS)})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Read the hook event from stdin and handle it; never fail the host's turn (always exit 0)."""
    try:
        args = build_parser().parse_args(argv)
        payload = json.loads(sys.stdin.read() or "{}")
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        out = asyncio.run(run(args.event, payload, args.home, tuple(args.server or OWN_SERVERS)))
    except (MemoryServerError, UsageError, ValueError) as exc:
        print(f"trusted-memory-hook: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 0
    except Exception as exc:  # the host's turn matters more than this hook: report, never block or crash
        print(f"trusted-memory-hook: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
        return 0
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
