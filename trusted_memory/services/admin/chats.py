"""Read the conversation exports Claude and ChatGPT hand out, and a plain JSONL, into turns to replay.

Neither product publishes a schema; the shapes below are those public parsers and real exports
show, and every field is treated as optional unless the turn cannot be formed without it.

- **ChatGPT** (`conversations.json`, alone or in the export zip): a JSON array of conversations,
  each with `id` (or `conversation_id`), `title`, `create_time`/`update_time` (float epoch
  seconds, either may be missing), `current_node`, and `mapping`: `{node id: {message, parent,
  children}}`. Regenerated answers and edited prompts branch the tree; the conversation as the
  person last saw it is the path from `current_node` up the `parent` links (without one: every
  message by `create_time`). A message has `author.role` (`user`, `assistant`, `system`, `tool`),
  `author.name` (the tool), `recipient` (`all`, or the tool an assistant message calls),
  `content.content_type` and `content.parts`, `create_time`, and `metadata`
  (`is_visually_hidden_from_conversation`, `attachments`).
- **Claude** (`conversations.json`, alone or in the export zip; also `{"conversations": [...]}`):
  a JSON array of conversations with `uuid`, `name`, `created_at` (ISO 8601) and
  `chat_messages`, in order: `uuid`, `sender` (`human` or `assistant`), `text`, `content`
  (blocks: `text`, `thinking`, `tool_use`, `tool_result`), `created_at`, `attachments`
  (`file_name`, `extracted_content`) and `files`.
- **JSONL**: one `{"conversation", "time", "role", "text"}` object per line; `time` is ISO 8601
  (UTC when it has no zone) or epoch seconds; `role` is `user` or `assistant` (`system` and
  `tool` lines are skipped).

Only what the user typed becomes the user's words: system and hidden messages, custom
instructions, tool calls and tool output, the assistant's reasoning, and attached files' text are
never taken for them. A tool call or an attached file in a turn is passed on as a tool event, so
observe's rules mark the session untrusted (its episode is then held for review) exactly as they
would for a live host. A conversation that cannot be read is reported with the message at fault and
skipped whole; the rest of the file still imports.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ...errors import InvalidInput
from ..facts import preview
from ..session import EARLIEST_TURN, MAX_MESSAGE_BYTES, ToolEvent, clip_bytes

ChatFormat = Literal["chatgpt", "claude", "jsonl"]
FORMATS: tuple[ChatFormat, ...] = ("chatgpt", "claude", "jsonl")
MAX_FILE_BYTES = 1 << 30  # a zip member or file past 1 GiB is refused before it is read
_SESSION_CHARS = re.compile(r"[^\w.:@/+-]")
# ChatGPT content types that carry the words of a message; others are tool calls, reasoning,
# browsing output, custom instructions or memory context.
_TEXT_TYPES = ("text", "multimodal_text")


class ChatFileError(Exception):
    """One conversation cannot be read; the message says where and what to do."""


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """One user message (with the assistant's reply to it) to replay through observe."""

    key: str
    user_text: str
    said_at: float
    reply: str = ""
    tool_events: tuple[ToolEvent, ...] = ()


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation of an export, as the turns to replay."""

    product: ChatFormat
    id: str
    title: str
    turns: tuple[ChatTurn, ...]
    not_words: int = 0  # system, hidden, tool and reasoning messages not taken as anyone's words

    @property
    def key(self) -> str:
        """The import key of the conversation itself."""
        return f"{self.product}:{self.id}"

    def session_id(self, part: int = 0, owner: str | None = None) -> str:
        """The session a conversation is replayed into (`part` > 0: turns added since a previous import).

        A person's (`owner`) session names them, so two people importing the same chat each get a
        session of their own; the implicit owner's keeps the name it always had.
        """
        mine = f"@{owner}" if owner is not None else ""
        base = _SESSION_CHARS.sub("-", f"{self.product}:{self.id}") + (f"+{part}" if part else "") + mine
        if len(base) <= 128:
            return base
        return base[:111] + "~" + hashlib.sha256(base.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ChatProblem:
    """A conversation that was skipped, and why."""

    conversation: str
    title: str
    reason: str


@dataclass(frozen=True, slots=True)
class ChatFile:
    """Every readable conversation of a file, and the ones that could not be read."""

    source: str
    format: ChatFormat
    conversations: tuple[Conversation, ...]
    problems: tuple[ChatProblem, ...] = ()
    skipped_turns: dict[str, int] = field(default_factory=dict)


# --- loading ----------------------------------------------------------------------------------


def _read_bytes(path: Path) -> tuple[bytes, str]:
    """The file's bytes and the name to report; a zip gives its conversations.json."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
                if not names:
                    raise InvalidInput(
                        f"{path} is a zip without a conversations.json; pass the export zip ChatGPT or "
                        "Claude sent you, or the conversations.json inside it"
                    )
                name = min(names, key=lambda n: (n.count("/"), n))
                if archive.getinfo(name).file_size > MAX_FILE_BYTES:
                    raise InvalidInput(f"{path}: {name} is over 1 GiB; split the export")
                return archive.read(name), f"{path}:{name}"
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InvalidInput(f"{path} is over 1 GiB; split the export")
        return path.read_bytes(), str(path)
    except zipfile.BadZipFile as exc:
        raise InvalidInput(f"{path} is a damaged zip ({exc}); download the export again") from exc
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc


def _detect(data: bytes, source: str) -> tuple[ChatFormat, Any]:
    text = data.decode("utf-8-sig", errors="strict") if data else ""
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n" in stripped.strip():
        first = stripped.split("\n", 1)[0]
        try:
            line = json.loads(first)
        except ValueError:
            line = None
        if isinstance(line, dict) and {"conversation", "role", "text"} <= set(line):
            return "jsonl", text
    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(
            f"{source} is not JSON ({exc}); pass conversations.json from a ChatGPT or Claude export, "
            "the export zip, or JSONL lines of {{conversation, time, role, text}}"
        ) from exc
    if isinstance(payload, dict) and isinstance(payload.get("conversations"), list):
        payload = payload["conversations"]
    if isinstance(payload, dict) and {"conversation", "role", "text"} <= set(payload):
        return "jsonl", text
    if not isinstance(payload, list):
        raise InvalidInput(f"{source}: expected a list of conversations, found {type(payload).__name__}")
    convs = [c for c in payload if isinstance(c, dict)]
    if any("mapping" in c for c in convs):
        return "chatgpt", payload
    if any("chat_messages" in c for c in convs):
        return "claude", payload
    if not payload:
        return "claude", payload
    raise InvalidInput(
        f"{source}: not a ChatGPT export (conversations with a `mapping`) nor a Claude export "
        "(conversations with `chat_messages`); pass --format if you know which it is"
    )


def load_chats(path: Path, fmt: ChatFormat | None = None) -> ChatFile:
    """Read a chat export (ChatGPT, Claude, their zips, or JSONL); InvalidInput if the file itself is unreadable."""
    data, source = _read_bytes(path)
    try:
        detected, payload = _detect(data, source)
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{source} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    fmt = fmt or detected
    if fmt != detected:
        raise InvalidInput(f"{source} looks like a {detected} export, not {fmt}; drop --format or fix it")
    if fmt == "jsonl":
        return _from_jsonl(payload, source)
    reader = _chatgpt if fmt == "chatgpt" else _claude
    conversations: list[Conversation] = []
    problems: list[ChatProblem] = []
    skipped: dict[str, int] = {}
    for index, raw in enumerate(payload):
        conv_id, title = _names(raw, fmt, index)
        try:
            conv = reader(raw, conv_id, title, skipped)
        except ChatFileError as exc:
            problems.append(ChatProblem(conv_id, title, f"{exc}; nothing of it was imported"))
            continue
        if conv.turns:
            conversations.append(conv)
    return ChatFile(source, fmt, tuple(conversations), tuple(problems), skipped)


def _names(raw: object, fmt: ChatFormat, index: int) -> tuple[str, str]:
    if not isinstance(raw, dict):
        return f"#{index + 1}", ""
    conv_id = (raw.get("id") or raw.get("conversation_id")) if fmt == "chatgpt" else raw.get("uuid")
    title = raw.get("title") if fmt == "chatgpt" else raw.get("name")
    return (
        str(conv_id) if isinstance(conv_id, str) and conv_id.strip() else f"#{index + 1}",
        title if isinstance(title, str) else "",
    )


# --- shared -----------------------------------------------------------------------------------


def _time(value: object, where: str) -> float | None:
    """Epoch seconds from a float, an int or an ISO 8601 string (UTC when it has no zone); None if absent."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ChatFileError(f"{where}: the time is true/false, not a time")
    if isinstance(value, int | float):
        ts = float(value)
        if ts > 1e11:  # milliseconds, as some tools write
            ts /= 1000.0
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            try:
                ts = float(value)
            except ValueError:
                raise ChatFileError(f"{where}: {preview(value, 40)!r} is not an ISO 8601 time") from None
        else:
            ts = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    else:
        raise ChatFileError(f"{where}: the time is {type(value).__name__}, not a time")
    now = datetime.now(UTC).timestamp()
    if not math.isfinite(ts) or ts < EARLIEST_TURN or ts > now + 86400:
        raise ChatFileError(f"{where}: the time {value!r} is before 1990 or in the future")
    return ts


def _turns(
    conv: str, messages: Iterable[tuple[str, str, float | None, str, tuple[ToolEvent, ...]]], start: float | None
) -> tuple[list[ChatTurn], int]:
    """Pair each user message with the assistant text that follows it; returns (turns, user messages skipped).

    `messages`: (role, text, time, message id, tool events) with role `user` or `assistant`.
    """
    turns: list[ChatTurn] = []
    skipped = 0
    pending: dict[str, Any] | None = None
    last = start

    def close() -> None:
        if pending is not None:
            reply = clip_bytes("\n\n".join(pending["reply"]), MAX_MESSAGE_BYTES - 8)
            turns.append(ChatTurn(pending["key"], pending["text"], pending["ts"], reply, tuple(pending["events"])))

    for role, text, ts, message_id, events in messages:
        if ts is not None:
            last = ts
        if role == "user":
            close()
            pending = None
            if not text.strip() or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
                skipped += 1  # nothing typed (an image alone), or a paste past observe's limit
                continue
            if last is None:
                raise ChatFileError(f"message {message_id}: no time on it or on the conversation")
            pending = {"key": f"{conv}:{message_id}", "text": text, "ts": last, "reply": [], "events": list(events)}
        elif pending is not None:
            if text.strip():
                pending["reply"].append(text.strip())
            pending["events"].extend(events)
    close()
    return turns, skipped


def _file_event(name: object) -> ToolEvent:
    # A file the user attached: its text is not the user's words and comes from outside them.
    label = name if isinstance(name, str) and name.strip() else "file"
    return ToolEvent("attachment", kind="file", url=f"file:{preview(label, 100)}")


# --- ChatGPT ----------------------------------------------------------------------------------


def _active_path(mapping: Mapping[str, Any], current: object) -> list[dict[str, Any]]:
    """The messages of the branch the person last saw, root first."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise ChatFileError(f"node {node_id}: not an object")
        message = node.get("message")
        if isinstance(message, dict):
            out.append(message)
        node_id = node.get("parent")
    return out[::-1]


def _parts_text(content: Mapping[str, Any], where: str) -> str:
    parts = content.get("parts")
    if parts is None:
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if not isinstance(parts, list):
        raise ChatFileError(f"{where}: content.parts is {type(parts).__name__}, not a list")
    words: list[str] = []
    for part in parts:
        if isinstance(part, str):
            words.append(part)
        elif isinstance(part, dict) and part.get("content_type") == "audio_transcription":
            spoken = part.get("text")
            if isinstance(spoken, str):
                words.append(spoken)  # what the person said by voice is their words too
    return "\n".join(w for w in words if w.strip())


def _chatgpt_message(message: Mapping[str, Any]) -> tuple[str, str, float | None, str, tuple[ToolEvent, ...]] | None:
    """(role, text, time, id, tool events) of one message, or None when it is nobody's words."""
    message_id = str(message.get("id") or "?")
    where = f"message {message_id}"
    author = message.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        raise ChatFileError(f"{where}: no author.role (expected user, assistant, system or tool)")
    role = author["role"]
    content = message.get("content") or {}
    if not isinstance(content, dict):
        raise ChatFileError(f"{where}: content is {type(content).__name__}, not an object")
    metadata = message.get("metadata") or {}
    metadata = metadata if isinstance(metadata, dict) else {}
    ts = _time(message.get("create_time"), where)
    recipient = message.get("recipient") or "all"
    if role == "tool":
        # Output of a tool (browsing, code, images): it came from outside the person's words.
        name = author.get("name")
        return "assistant", "", ts, message_id, (ToolEvent(str(name or "tool"), kind=_tool_kind(str(name or ""))),)
    if role not in ("user", "assistant") or metadata.get("is_visually_hidden_from_conversation"):
        return None
    if role == "assistant" and recipient != "all":
        return "assistant", "", ts, message_id, (ToolEvent(str(recipient), kind=_tool_kind(str(recipient))),)
    if content.get("content_type", "text") not in _TEXT_TYPES:
        return None  # custom instructions, reasoning, code sent to a tool, browsing displays
    events: tuple[ToolEvent, ...] = ()
    attachments = metadata.get("attachments")
    if role == "user" and isinstance(attachments, list) and attachments:
        events = tuple(_file_event(a.get("name") if isinstance(a, dict) else None) for a in attachments)
    return role, _parts_text(content, where), ts, message_id, events


def _tool_kind(name: str) -> str | None:
    lowered = name.lower()
    if any(w in lowered for w in ("web", "brows", "search", "http")):
        return "web"
    return None


def _created(message: Mapping[str, Any]) -> float:
    ts = message.get("create_time")
    return float(ts) if isinstance(ts, int | float) else 0.0


def _chatgpt(raw: object, conv_id: str, title: str, skipped: dict[str, int]) -> Conversation:
    if not isinstance(raw, dict):
        raise ChatFileError("not an object")
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict):
        raise ChatFileError("no `mapping` object (the message tree)")
    current = raw.get("current_node")
    if isinstance(current, str) and current in mapping:
        messages = _active_path(mapping, current)
    else:
        found = [n.get("message") for n in mapping.values() if isinstance(n, dict)]
        messages = sorted(
            (m for m in found if isinstance(m, dict)),
            key=_created,
        )
    start = _time(raw.get("create_time"), "the conversation") or _time(raw.get("update_time"), "the conversation")
    read = [_chatgpt_message(m) for m in messages]
    words = [m for m in read if m is not None]
    turns, dropped = _turns(f"chatgpt:{conv_id}", words, start)
    if dropped:
        skipped["empty or oversized user message"] = skipped.get("empty or oversized user message", 0) + dropped
    not_words = len(read) - len(words) + sum(1 for m in words if not m[1].strip() and m[0] == "assistant")
    return Conversation("chatgpt", conv_id, title, tuple(turns), not_words)


# --- Claude -----------------------------------------------------------------------------------


def _claude_message(message: object, index: int) -> tuple[str, str, float | None, str, tuple[ToolEvent, ...]] | None:
    if not isinstance(message, dict):
        raise ChatFileError(f"message #{index + 1}: not an object")
    message_id = str(message.get("uuid") or f"#{index + 1}")
    where = f"message {message_id}"
    sender = message.get("sender")
    if sender not in ("human", "assistant"):
        if sender in ("system", "tool"):
            return None
        raise ChatFileError(f"{where}: sender is {sender!r}; expected human or assistant")
    ts = _time(message.get("created_at"), where)
    content = message.get("content")
    events: list[ToolEvent] = []
    text: str
    if isinstance(content, list) and content:
        texts: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                raise ChatFileError(f"{where}: a content block is {type(block).__name__}, not an object")
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("tool_use", "tool_result"):
                name = str(block.get("name") or kind)
                events.append(ToolEvent(name, kind=_tool_kind(name)))
            # thinking blocks and anything else are not the message's words
        text = "\n".join(texts)
        if not texts and not events:
            fallback = message.get("text")
            text = fallback if isinstance(fallback, str) else ""
    else:
        raw_text = message.get("text")
        if raw_text is not None and not isinstance(raw_text, str):
            raise ChatFileError(f"{where}: text is {type(raw_text).__name__}, not a string")
        text = raw_text or ""
    for attachment in message.get("attachments") or []:
        events.append(_file_event(attachment.get("file_name") if isinstance(attachment, dict) else None))
    for upload in message.get("files") or []:
        events.append(_file_event(upload.get("file_name") if isinstance(upload, dict) else None))
    return ("user" if sender == "human" else "assistant"), text, ts, message_id, tuple(events)


def _claude(raw: object, conv_id: str, title: str, skipped: dict[str, int]) -> Conversation:
    if not isinstance(raw, dict):
        raise ChatFileError("not an object")
    messages = raw.get("chat_messages")
    if not isinstance(messages, list):
        raise ChatFileError("no `chat_messages` list")
    start = _time(raw.get("created_at"), "the conversation")
    read = [_claude_message(m, i) for i, m in enumerate(messages)]
    words = [m for m in read if m is not None]
    turns, dropped = _turns(f"claude:{conv_id}", words, start)
    if dropped:
        skipped["empty or oversized user message"] = skipped.get("empty or oversized user message", 0) + dropped
    return Conversation("claude", conv_id, title, tuple(turns), len(read) - len(words))


# --- JSONL ------------------------------------------------------------------------------------


def _jsonl_lines(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(io.StringIO(text), start=1):
        if not line.strip():
            continue
        try:
            body = json.loads(line)
        except ValueError as exc:
            raise InvalidInput(
                f"{source} line {number}: not valid JSON ({exc}); fix the line and import again"
            ) from exc
        if not isinstance(body, dict):
            raise InvalidInput(f"{source} line {number}: expected an object {{conversation, time, role, text}}")
        yield number, body


def _from_jsonl(text: str, source: str) -> ChatFile:
    grouped: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for number, body in _jsonl_lines(text, source):
        conv = body.get("conversation")
        if not isinstance(conv, str | int) or isinstance(conv, bool) or not str(conv).strip():
            raise InvalidInput(f"{source} line {number}: `conversation` must name the conversation (a string)")
        grouped.setdefault(str(conv), []).append((number, body))
    conversations: list[Conversation] = []
    problems: list[ChatProblem] = []
    skipped: dict[str, int] = {}
    for conv, lines in grouped.items():
        try:
            messages = []
            for number, body in lines:
                where = f"line {number}"
                role, words = body.get("role"), body.get("text")
                if role not in ("user", "human", "assistant", "system", "tool"):
                    raise ChatFileError(f"{where}: role is {role!r}; expected user or assistant")
                if not isinstance(words, str):
                    raise ChatFileError(f"{where}: text must be a string")
                ts = _time(body.get("time"), where)
                if ts is None:
                    raise ChatFileError(f"{where}: no time")
                if role in ("system", "tool"):
                    continue
                digest = hashlib.sha256(f"{ts!r}\0{role}\0{words}".encode()).hexdigest()[:16]
                messages.append(("user" if role in ("user", "human") else "assistant", words, ts, digest, ()))
            turns, dropped = _turns(f"jsonl:{conv}", messages, None)
        except ChatFileError as exc:
            problems.append(ChatProblem(conv, "", f"{exc}; nothing of it was imported"))
            continue
        if dropped:
            skipped["empty or oversized user message"] = skipped.get("empty or oversized user message", 0) + dropped
        if turns:
            conversations.append(Conversation("jsonl", conv, "", tuple(turns), 0))
    return ChatFile(source, "jsonl", tuple(conversations), tuple(problems), skipped)
