"""MCP over the process's stdin and stdout on the event loop's own pipes, without worker threads.

The SDK's `stdio_server` reads and writes through anyio's thread-backed file wrappers: every line
read, every write and every flush is a hand-off to a worker thread and back (~12 per tool call,
~19 % of the loop thread's busy time per call, benchmarks/RESULTS.md issue 13). Here the same
newline-delimited JSON-RPC is read and written with `loop.connect_read_pipe` /
`connect_write_pipe`, the bytes never leaving the loop thread.

The behaviour is the SDK's: each line (UTF-8, undecodable bytes replaced) is validated as one
JSON-RPC message, and a line that is not one reaches the session as the exception, as there; a
last line without its newline still counts at end of input; replies are `model_dump_json(by_alias,
exclude_unset)` plus a newline. One difference: a line longer than the limit (`server.max_body_kb`,
as HTTP bodies) is not buffered: its bytes are dropped as they arrive, and it is answered with a
JSON-RPC error naming the limit (under the request's id when its first bytes carry one, else id
null), so no message can grow the server's memory without bound. While serving, fd 0 reads the
null device and fd 1 writes to stderr, so stray output of a library or a child never lands in the
protocol stream; both are restored on exit. Anything but a pipe or a socket (a regular file, a
terminal) and Windows are served by the SDK's transport instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]

# Lines read ahead of the session before the pipe stops being read (the SDK's reader holds one):
# a client that floods the server is slowed down at the pipe, not buffered without bound.
READ_AHEAD_LINES = 64
# ... or by at most this many bytes of complete lines, whichever comes first.
READ_AHEAD_BYTES = 4 * 1024 * 1024
# The longest line served when the caller names no limit (the HTTP body limit's default).
DEFAULT_MAX_LINE_BYTES = 1024 * 1024
# How much of an over-long line is kept to find its request id.
KEPT_PREFIX_BYTES = 512
# A request's id among the members before its params: {"jsonrpc":"2.0","id":7,"method":...}.
_REQUEST_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
# Bytes buffered towards stdout before a reply waits for the client to read.
WRITE_HIGH_WATER = 256 * 1024
# At end of input the session cancels what is still running, so the requests read just before it
# (`printf '...' | trusted-memory`) get this long to be answered first. The SDK's thread-backed
# reader noticed the end of input late enough for a quick request to make it; this makes it sure.
EOF_GRACE_S = 2.0


def _pollable(fd: int) -> bool:
    """Whether this descriptor is served on the loop: a pipe or a socket, as hosts connect.

    Not a terminal: the loop makes its descriptor non-blocking, and a terminal's open file is
    usually shared with stderr, whose log writes must not fail when the terminal falls behind.
    """
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@dataclass(frozen=True, slots=True)
class OverlongLine:
    """A line dropped for its length: its first bytes (to find the request's id) and its size."""

    prefix: bytes
    size: int

    def request_id(self) -> int | str | None:
        """The id of the request, if its first bytes carry one before its params."""
        head = self.prefix.split(b'"params"', 1)[0]
        found = _REQUEST_ID.search(head)
        if found is None:
            return None
        token = found.group(1)
        if token.startswith(b'"'):
            try:
                value = json.loads(token)
            except ValueError:
                return None
            return value if isinstance(value, str) else None
        return int(token)

    def error(self, limit: int) -> types.JSONRPCError:
        """The answer: which limit the message broke, and what to do instead."""
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=self.request_id(),
            error=types.ErrorData(
                code=types.INVALID_REQUEST,
                message=(
                    f"message of {self.size:,} bytes is over the server's limit of {limit // 1024:,} KiB a "
                    "message (server.max_body_kb); it was not read. Send smaller content: split it over "
                    "several calls, or raise server.max_body_kb in the user config."
                ),
                data={"size_bytes": self.size, "limit_bytes": limit},
            ),
        )


class LineReader(asyncio.Protocol):
    """The read side: bytes from the pipe split into lines, read ahead by at most READ_AHEAD_LINES
    (or READ_AHEAD_BYTES); a line over max_line_bytes is dropped as it arrives (an OverlongLine)."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._max_line = max_line_bytes
        self._buffer = bytearray()
        self._dropping: tuple[bytes, int] | None = None  # an over-long line: its prefix, its size so far
        self._lines: deque[bytes | OverlongLine] = deque()
        self._queued_bytes = 0
        self._eof = False
        self._waiter: asyncio.Future[None] | None = None
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        # Only the new bytes are searched: a long line arriving in many chunks stays linear.
        end = data.rfind(b"\n")
        if end < 0:
            self._extend(data)
            return
        first = data.find(b"\n")
        self._extend(data[: first + 1])  # completes the line in progress (or the one being dropped)
        pending = bytes(self._buffer)
        self._buffer.clear()
        if self._dropping is not None:
            self._queue(OverlongLine(*self._dropping))
            self._dropping = None
        else:
            for part in pending.splitlines(keepends=True):
                self._queue(part)
        for line in data[first + 1 : end + 1].splitlines(keepends=True):
            self._queue(OverlongLine(line[:KEPT_PREFIX_BYTES], len(line)) if len(line) > self._max_line else line)
        self._extend(data[end + 1 :])
        if (
            (len(self._lines) >= READ_AHEAD_LINES or self._queued_bytes >= READ_AHEAD_BYTES)
            and self._transport is not None
            and not self._paused
        ):
            self._paused = True
            self._transport.pause_reading()
        self._wake()

    def _extend(self, data: bytes) -> None:
        """Add bytes to the line in progress, or drop them once it is over the limit."""
        if self._dropping is not None:
            prefix, size = self._dropping
            self._dropping = (prefix, size + len(data))
        elif len(self._buffer) + len(data) > self._max_line:
            kept = (bytes(self._buffer) + data[:KEPT_PREFIX_BYTES])[:KEPT_PREFIX_BYTES]
            self._dropping = (kept, len(self._buffer) + len(data))
            self._buffer.clear()
        else:
            self._buffer += data

    def _queue(self, line: bytes | OverlongLine) -> None:
        self._lines.append(line)
        self._queued_bytes += len(line) if isinstance(line, bytes) else len(line.prefix)

    def eof_received(self) -> bool:
        self._finish()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish()

    def _finish(self) -> None:
        if not self._eof:
            self._eof = True
            if self._dropping is not None:
                self._queue(OverlongLine(*self._dropping))
                self._dropping = None
            elif self._buffer:  # a last line without its newline is still a line, as the SDK reads it
                self._queue(bytes(self._buffer))
                self._buffer.clear()
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def next_line(self) -> bytes | OverlongLine | None:
        """The next line with its newline (or what is left of an over-long one), or None at end of input."""
        while not self._lines:
            if self._eof:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        line = self._lines.popleft()
        self._queued_bytes -= len(line) if isinstance(line, bytes) else len(line.prefix)
        if (
            self._paused
            and len(self._lines) < READ_AHEAD_LINES // 2
            and self._queued_bytes < READ_AHEAD_BYTES // 2
            and self._transport is not None
        ):
            self._paused = False
            self._transport.resume_reading()
        return line


class _Output(asyncio.Protocol):
    """The write side: waits while the client is not reading; remembers that the pipe broke."""

    def __init__(self) -> None:
        self._resumed: asyncio.Event | None = None
        self.lost = False

    def pause_writing(self) -> None:
        self._resumed = asyncio.Event()

    def resume_writing(self) -> None:
        if self._resumed is not None:
            self._resumed.set()
            self._resumed = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.resume_writing()

    async def drain(self) -> None:
        """Return once the pipe takes more (at once unless the write buffer is over its high water)."""
        if self._resumed is not None:
            await self._resumed.wait()


def _divert(fd: int, diversion: Callable[[], int]) -> tuple[int, Callable[[], None]]:
    """Serve the wire from a private duplicate of fd and point fd elsewhere; the restore function."""
    import fcntl

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    was_blocking = os.get_blocking(private)
    target = diversion()
    try:
        os.dup2(target, fd)
    finally:
        os.close(target)

    def restore() -> None:
        # The loop made the shared file description non-blocking; whoever reads fd next expects
        # it as it was (a shell's terminal, a parent's pipe).
        try:
            os.set_blocking(private, was_blocking)
            os.dup2(private, fd)
        except OSError:
            pass

    return private, restore


def _stdin_diversion() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _stdout_diversion() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


@asynccontextmanager
async def stdio_streams(max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> AsyncIterator[tuple[Any, Any]]:
    """The session's (read, write) streams over stdin and stdout (the SDK's transport as fallback)."""
    if sys.platform == "win32" or not (_pollable(0) and _pollable(1)):
        async with stdio_server() as sdk_streams:
            yield sdk_streams
        return
    async with _pipe_streams(max_line_bytes) as streams:
        yield streams


@asynccontextmanager
async def _pipe_streams(max_line_bytes: int) -> AsyncIterator[Streams]:
    loop = asyncio.get_running_loop()
    sys.stdout.flush()  # nothing written before serving may land after the diversion
    in_fd, restore_in = _divert(0, _stdin_diversion)
    out_fd, restore_out = _divert(1, _stdout_diversion)
    lines, output = LineReader(max_line_bytes), _Output()
    read_transport: asyncio.ReadTransport | None = None
    write_transport: asyncio.WriteTransport | None = None
    try:
        # The transports own (and close) their descriptors; the private duplicates stay ours.
        read_transport, _ = await loop.connect_read_pipe(
            lambda: lines, os.fdopen(os.dup(in_fd), "rb", buffering=0, closefd=True)
        )
        write_transport, _ = await loop.connect_write_pipe(
            lambda: output, os.fdopen(os.dup(out_fd), "wb", buffering=0, closefd=True)
        )
        write_transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)
        reader_in, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, writer_out = anyio.create_memory_object_stream[SessionMessage](0)
        out = write_transport
        unanswered: set[types.RequestId] = set()
        answered = anyio.Event()

        async def read_lines() -> None:
            async with reader_in:
                while (line := await lines.next_line()) is not None:
                    if isinstance(line, OverlongLine):
                        refusal = line.error(max_line_bytes).model_dump_json(by_alias=True, exclude_unset=True)
                        if not (output.lost or out.is_closing()):
                            out.write(refusal.encode("utf-8") + b"\n")  # one whole line, as the writer's
                            await output.drain()
                        continue
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(
                            line.decode("utf-8", errors="replace"), by_name=False
                        )
                    except Exception as exc:  # the session answers or logs it, as with the SDK's reader
                        await reader_in.send(exc)
                        continue
                    if isinstance(message, types.JSONRPCRequest):
                        unanswered.add(message.id)
                    await reader_in.send(SessionMessage(message))
                if unanswered:
                    with anyio.move_on_after(EOF_GRACE_S):
                        await answered.wait()

        async def write_lines() -> None:
            nonlocal answered
            async with writer_out:
                async for session_message in writer_out:
                    if output.lost or out.is_closing():
                        raise BrokenPipeError("stdout was closed by the client")
                    message = session_message.message
                    data = message.model_dump_json(by_alias=True, exclude_unset=True)
                    out.write(data.encode("utf-8") + b"\n")
                    if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and message.id is not None:
                        unanswered.discard(message.id)
                        if not unanswered:
                            answered.set()
                            answered = anyio.Event()
                    await output.drain()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_lines)
            tg.start_soon(write_lines)
            yield read_stream, write_stream
    finally:
        restore_out()
        restore_in()
        for transport in (read_transport, write_transport):
            if transport is not None:
                transport.close()
        os.close(in_fd)
        os.close(out_fd)
