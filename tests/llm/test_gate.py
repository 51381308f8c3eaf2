"""The call gate: one call in flight per backend, stale jobs dropped, foreground first, limits from start."""

from __future__ import annotations

import asyncio
import time

import pytest

from trusted_memory.llm.gate import Dropped, Gate

pytestmark = pytest.mark.anyio


class Backend:
    """Records how many calls run at once; each call lasts `seconds` (real sleeps, no fake clock)."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.order: list[str] = []

    def call(self, name: str, seconds: float):  # type: ignore[no-untyped-def]
        async def go() -> str:
            self.running += 1
            self.most = max(self.most, self.running)
            self.order.append(name)
            try:
                await asyncio.sleep(seconds)
            finally:
                self.running -= 1
            return name

        return go


async def outcome(gate: Gate, backend: Backend, name: str, seconds: float, **kw: object) -> str:
    try:
        return await gate.run(name, backend.call(name, seconds), **kw)  # type: ignore[arg-type]
    except Dropped as exc:
        return f"dropped: {exc.why}"
    except TimeoutError:
        return "timeout"


async def test_one_call_in_flight_and_the_limit_counts_from_the_start() -> None:
    gate, backend = Gate(), Backend()
    # Four 0.2 s calls, each with a 0.3 s limit: in line they take 0.8 s, yet none times out,
    # because each one's limit starts with its own call.
    results = await asyncio.gather(*(outcome(gate, backend, f"j{i}", 0.2, timeout_s=0.3) for i in range(4)))
    assert results == ["j0", "j1", "j2", "j3"] and backend.most == 1


async def test_a_newer_job_with_the_same_key_supersedes_a_waiting_one() -> None:
    gate, backend = Gate(), Backend()
    first = asyncio.create_task(outcome(gate, backend, "busy", 0.2, timeout_s=5))
    await asyncio.sleep(0.01)
    old = asyncio.create_task(outcome(gate, backend, "turn1", 0.01, timeout_s=5, key="extract:s"))
    await asyncio.sleep(0.01)
    new = asyncio.create_task(outcome(gate, backend, "turn2", 0.01, timeout_s=5, key="extract:s"))
    assert await old == "dropped: superseded by a newer turn2 job"
    assert await new == "turn2" and await first == "busy"
    assert "turn1" not in backend.order


async def test_the_line_is_bounded_and_the_oldest_waiting_job_goes() -> None:
    gate, backend = Gate(max_waiting=2), Backend()
    tasks = [asyncio.create_task(outcome(gate, backend, f"j{i}", 0.05, timeout_s=5)) for i in range(4)]
    results = await asyncio.gather(*tasks)
    assert results[0] == "j0" and results[1].startswith("dropped: more than 2") and results[2:] == ["j2", "j3"]


async def test_a_foreground_job_goes_first_and_preempts_a_background_call() -> None:
    gate, backend = Gate(), Backend()
    running = asyncio.create_task(outcome(gate, backend, "background", 10, timeout_s=20))
    await asyncio.sleep(0.01)
    waiting = asyncio.create_task(outcome(gate, backend, "queued", 0.01, timeout_s=20))
    await asyncio.sleep(0.01)
    started = time.monotonic()
    assert await outcome(gate, backend, "episode", 0.05, timeout_s=1, foreground=True) == "episode"
    assert time.monotonic() - started < 1  # not the 10 s of the background call
    assert (await running).startswith("dropped: preempted by the episode job")
    assert await waiting == "queued" and backend.order == ["background", "episode", "queued"]


async def test_a_foreground_limit_includes_its_wait() -> None:
    gate, backend = Gate(), Backend()
    first = asyncio.create_task(outcome(gate, backend, "merge", 10, timeout_s=20, foreground=True))
    await asyncio.sleep(0.01)
    # Foreground jobs never preempt each other: this one waits, and its 0.2 s cover the wait.
    assert await outcome(gate, backend, "episode", 0.01, timeout_s=0.2, foreground=True) == "timeout"
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await outcome(gate, backend, "after", 0.01, timeout_s=1) == "after"  # the slot was released


async def test_a_settling_job_is_superseded_before_it_reaches_the_model() -> None:
    gate, backend = Gate(), Backend()
    first = asyncio.create_task(outcome(gate, backend, "t1", 0.01, timeout_s=5, key="extract:s", settle_s=0.3))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(outcome(gate, backend, "t2", 0.01, timeout_s=5, key="extract:s", settle_s=0.3))
    assert await first == "dropped: superseded by a newer t2 job"
    assert await second == "t2"
    assert backend.order == ["t2"]  # the burst cost the model one call


async def test_settling_delays_only_keyed_background_jobs() -> None:
    gate, backend = Gate(), Backend()
    started = time.monotonic()
    assert await outcome(gate, backend, "episode", 0.0, timeout_s=5, foreground=True, settle_s=5) == "episode"
    assert await outcome(gate, backend, "unkeyed", 0.0, timeout_s=5, settle_s=5) == "unkeyed"
    assert time.monotonic() - started < 4  # neither waited out its settle_s
    other = [
        asyncio.create_task(outcome(gate, backend, name, 0.0, timeout_s=5, key=name, settle_s=0.1))
        for name in ("extract:a", "extract:b")
    ]
    assert await asyncio.gather(*other) == ["extract:a", "extract:b"]  # other keys do not supersede


async def test_drop_stops_a_key_whether_settling_waiting_or_in_flight() -> None:
    gate, backend = Gate(), Backend()
    running = asyncio.create_task(outcome(gate, backend, "predict", 5.0, timeout_s=10, key="predict:a"))
    await asyncio.sleep(0.05)
    waiting = asyncio.create_task(outcome(gate, backend, "other", 0.0, timeout_s=10, key="predict:b"))
    settling = asyncio.create_task(outcome(gate, backend, "later", 0.0, timeout_s=10, key="predict:a", settle_s=5))
    await asyncio.sleep(0.05)
    assert gate.drop("predict:a", "the session ended") == 2
    assert await running == "dropped: the session ended"
    assert await settling == "dropped: the session ended"
    assert await waiting == "other"  # another key is untouched and gets the freed slot
    assert gate.drop("predict:a", "again") == 0
