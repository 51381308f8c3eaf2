"""The stdio transport's line reader (server/stdio.py): over-long lines are dropped, not buffered."""

from __future__ import annotations

import asyncio

from trusted_memory.server.stdio import LineReader, OverlongLine


def test_the_request_id_is_read_from_before_the_params_only() -> None:
    assert OverlongLine(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x"', 9).request_id() == 7
    assert OverlongLine(b'{"jsonrpc":"2.0","id":"a\\"b","method":"m"', 9).request_id() == 'a"b'
    # An "id" inside the params is not the request's.
    assert OverlongLine(b'{"jsonrpc":"2.0","method":"m","params":{"id":5', 9).request_id() is None
    assert OverlongLine(b"aaaa", 9).request_id() is None
    error = OverlongLine(b'{"id":-3,', 2_000_000).error(1024 * 1024)
    assert error.id == -3 and "1,024 KiB" in error.error.message and error.error.data["size_bytes"] == 2_000_000


def _feed(lines: LineReader, *chunks: bytes) -> list[bytes | OverlongLine]:
    async def run() -> list[bytes | OverlongLine]:
        for chunk in chunks:
            lines.data_received(chunk)
        lines.eof_received()
        out: list[bytes | OverlongLine] = []
        while (line := await lines.next_line()) is not None:
            out.append(line)
        return out

    return asyncio.run(run())


def test_lines_over_the_limit_become_their_prefix_and_size_wherever_the_chunks_break() -> None:
    big = b'{"id":1,' + b"x" * 100 + b"}\n"
    pieces = b"ok\n" + big + b"fine\n"
    for size in (1, 7, 50, len(pieces)):
        got = _feed(LineReader(max_line_bytes=32), *[pieces[i : i + size] for i in range(0, len(pieces), size)])
        assert got[0] == b"ok\n" and got[2] == b"fine\n", (size, got)
        assert isinstance(got[1], OverlongLine) and got[1].size == len(big) and got[1].request_id() == 1


def test_a_last_over_long_line_without_its_newline_is_reported_at_end_of_input() -> None:
    got = _feed(LineReader(max_line_bytes=8), b"short\n", b"z" * 20)
    assert got[0] == b"short\n" and isinstance(got[1], OverlongLine) and got[1].size == 20
