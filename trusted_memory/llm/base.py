"""The memory-LLM contract and `run_job`, the one guarded way callers use any backend.

A backend answers `complete(system, user, schema)` with a validated pydantic model or None.
Callers never call `complete` directly: `run_job` bounds it with a deadline, turns every failure
into None (counted in `LLMStats`) and refuses answers the content scanner flags, so the LLM can
only ever make memory better, never break or poison the call that asked.

Backend failures are LLMError subclasses defined here, so `run_job` can count them by kind:

LLMError (errors.py)
├── LLMTimeout          the backend did not answer in time
├── LLMUnavailable      connect failure, 5xx or 429: retry later
└── LLMInvalidOutput    the answer was not JSON or did not match the schema
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import LLMError
from ..scan import describe, redact_credentials, scan
from .gate import Dropped, gate_for

__all__ = [
    "ITEM_OUTCOMES",
    "OUTCOMES",
    "LLMInvalidOutput",
    "LLMStats",
    "LLMTimeout",
    "LLMUnavailable",
    "MemoryLLM",
    "NullLLM",
    "StatsSink",
    "extract_json_object",
    "parse_answer",
    "run_job",
]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

# A JSON object is looked for among at most this many "{" positions: prose full of braces
# must not turn one bad answer into quadratic work.
MAX_JSON_CANDIDATES = 32


class LLMTimeout(LLMError):
    """The memory LLM did not answer in time."""

    kind = "llm_timeout"
    retryable = True


class LLMUnavailable(LLMError):
    """The memory LLM is unreachable or failing (connect error, 5xx, 429)."""

    kind = "llm_unavailable"
    retryable = True


class LLMInvalidOutput(LLMError):
    """The memory LLM answered, but not with JSON matching the requested schema."""

    kind = "llm_invalid_output"


class MemoryLLM(Protocol):
    """A backend that answers one prompt with an instance of `schema`, or None for no answer."""

    @property
    def name(self) -> str:
        """`none`, `http:<model>` or `sampling`."""
        ...

    async def complete(self, system: str, user: str, schema: type[M]) -> M | None:
        """Answer the prompt; raise LLMError (or let ValidationError out) on failure."""
        ...


class NullLLM:
    """Provider `none`: never answers, never fails; callers take the heuristic path."""

    @property
    def name(self) -> str:
        """Always `none`."""
        return "none"

    async def complete(self, system: str, user: str, schema: type[M]) -> M | None:
        """Return None."""
        return None


def runs_background_jobs(llm: MemoryLLM) -> bool:
    """True for a backend that can answer any job at any time; False for `none` and for a backend
    holding a single answer to this call's own job (sampling), which background jobs must not reuse."""
    return not isinstance(llm, NullLLM) and not getattr(llm, "single_answer", False)


# Per-job outcomes. A call ends in exactly one of the first seven; `kept` and `ungrounded` count
# the items of answered calls that callers kept or discarded after checking them against the source.
OUTCOMES = ("ok", "invalid", "timeout", "dropped", "unavailable", "scan_rejected", "empty", "error")
ITEM_OUTCOMES = ("kept", "ungrounded")


class StatsSink(Protocol):
    """Where counts go besides memory (the store): called per count, flushed before a read."""

    async def __call__(self, job: str, outcome: str, n: int, error: str | None) -> None: ...

    async def flush(self) -> None: ...


@dataclass(slots=True)
class LLMStats:
    """Counters of `run_job` outcomes, in total and by job, with the last error.

    Every call ends either `answered` or as a fallback; `fallbacks` = `calls` - `answered` once the
    calls have finished. `timeouts`, `invalid`, `rejected_by_scan`, `dropped` and `errors` say why a
    fallback happened; a backend that simply had no answer (NullLLM) counts only as a fallback.
    `sink`, when set, receives every count (job, outcome, n, error) so other processes can read them.
    """

    calls: int = 0
    answered: int = 0
    fallbacks: int = 0
    timeouts: int = 0
    invalid: int = 0
    rejected_by_scan: int = 0
    errors: int = 0
    dropped: int = 0
    ungrounded: int = 0
    by_job: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    last_error: str = ""
    sink: StatsSink | None = None

    def as_dict(self) -> dict[str, int]:
        """The total counters by name, for status output."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("by_job", "last_error", "sink")
        }

    async def flush(self) -> None:
        """Hand every count still buffered to the sink's destination (before reading them back)."""
        if self.sink is not None:
            try:
                await self.sink.flush()
            except Exception:
                log.warning("could not record memory-LLM statistics", exc_info=True)

    async def record(self, job: str, outcome: str, n: int = 1, error: str | None = None) -> None:
        """Count `n` outcomes of `job` (and hand them to the sink; a failing sink is only logged)."""
        counts = self.by_job.setdefault(job, {})
        counts[outcome] = counts.get(outcome, 0) + n
        if outcome == "ungrounded":
            self.ungrounded += n
        if error:
            self.last_error = f"{job}: {error}"
        if self.sink is not None:
            try:
                await self.sink(job, outcome, n, error)
            except Exception:  # statistics must never break a job
                log.warning("could not record memory-LLM statistics", exc_info=True)


async def run_job(
    llm: MemoryLLM,
    system: str,
    user: str,
    schema: type[M],
    *,
    timeout_s: float,
    stats: LLMStats,
    job: str = "job",
    key: str | None = None,
    foreground: bool = False,
    settle_s: float = 0.0,
) -> M | None:
    """Ask `llm` for a `schema` answer within `timeout_s`; None on any failure or scanner finding.

    Calls to one backend go through its gate (llm/gate.py): one in flight, `key` lets a newer job
    supersede a waiting one (or, within `settle_s`, one that has not been sent yet), `foreground`
    jobs go first and their `timeout_s` includes the wait. Credentials are redacted from both
    prompts before anything leaves. Never raises into the caller, except cancellation of the
    caller itself.
    """
    stats.calls += 1
    outcome, why = "ok", ""
    result: M | None = None
    try:
        if isinstance(llm, NullLLM):
            raw = None
        else:
            # Redacted once the call has its slot: a job superseded while it waits costs nothing.
            raw = await gate_for(llm).run(
                job,
                lambda: llm.complete(redact_credentials(system), redact_credentials(user), schema),
                timeout_s=timeout_s,
                key=key,
                foreground=foreground,
                settle_s=settle_s,
            )
        # A backend may hand back a dict or a foreign model; the schema is the only contract.
        result = raw if raw is None or isinstance(raw, schema) else schema.model_validate(raw)
    except Dropped as exc:
        await _dropped(stats, llm, job, exc.why)
        return None
    except (TimeoutError, LLMTimeout) as exc:
        stats.timeouts += 1
        outcome = "timeout"
        why = f"no answer within {timeout_s:g}s" if isinstance(exc, TimeoutError) else exc.message
    except (LLMInvalidOutput, ValueError) as exc:  # ValidationError and JSONDecodeError are ValueErrors
        stats.invalid += 1
        outcome, why = "invalid", f"unusable answer: {_reason(exc)}"
    except LLMUnavailable as exc:
        stats.errors += 1
        outcome, why = "unavailable", exc.message
    except LLMError as exc:
        stats.errors += 1
        outcome, why = "error", exc.message
    except Exception as exc:  # a buggy backend must not break the agent's call; CancelledError is not an Exception
        stats.errors += 1
        stats.fallbacks += 1
        log.exception("memory LLM %s failed unexpectedly; falling back to the heuristic path", llm.name)
        await stats.record(job, "error", error=f"unexpected {type(exc).__name__}")
        return None
    if outcome != "ok":
        _fallback(stats, llm, why)
        await stats.record(job, outcome, error=why)
        return None
    if result is None:
        stats.fallbacks += 1
        if not isinstance(llm, NullLLM):
            await stats.record(job, "empty")
        return None
    findings = [f for text in _strings(result) for f in scan(text)]
    if findings:
        stats.rejected_by_scan += 1
        why = f"answer refused by the content scanner: {describe(findings)}"
        _fallback(stats, llm, why)
        await stats.record(job, "scan_rejected", error=why)
        return None
    stats.answered += 1
    await stats.record(job, "ok")
    return result


async def settled(llm: MemoryLLM, job: str, key: str, settle_s: float, stats: LLMStats) -> bool:
    """Wait out `settle_s` for `key` before preparing a job (see Gate.settle); False, counted as
    dropped, when a newer job with the key superseded it meanwhile."""
    if isinstance(llm, NullLLM) or settle_s <= 0:
        return True
    try:
        await gate_for(llm).settle(job, key, settle_s)
    except Dropped as exc:
        stats.calls += 1
        await _dropped(stats, llm, job, exc.why)
        return False
    return True


def drop_jobs(llm: MemoryLLM, key: str, why: str) -> int:
    """Stop the jobs with `key` on `llm`'s gate (see Gate.drop); they count as dropped."""
    if isinstance(llm, NullLLM):
        return 0
    return gate_for(llm).drop(key, why)


async def _dropped(stats: LLMStats, llm: MemoryLLM, job: str, why: str) -> None:
    # Normal under load (a newer turn superseded it): counted, not worth a warning each time.
    stats.dropped += 1
    stats.fallbacks += 1
    log.debug("memory LLM %s: %s; falling back to the heuristic path", llm.name, why)
    await stats.record(job, "dropped", error=why)


def _fallback(stats: LLMStats, llm: MemoryLLM, why: str) -> None:
    stats.fallbacks += 1
    log.warning("memory LLM %s: %s; falling back to the heuristic path", llm.name, why)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        # Never the input values: they are model output and may hold anything.
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "answer"
        return f"{exc.error_count()} validation error(s), first at {where}: {first['msg']}"
    return exc.message if isinstance(exc, LLMError) else f"{type(exc).__name__}: {exc}"


def _strings(value: object) -> Iterator[str]:
    """Every string inside a model answer: field values, list items, dict keys and values."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for field_name in type(value).model_fields:
            yield from _strings(getattr(value, field_name))
        for extra in (value.model_extra or {}).values():
            yield from _strings(extra)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item)


# --- parsing a text answer --------------------------------------------------------------------------

_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[\w+-]*[^\S\n]*\n?(.*?)(?:```|\Z)", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any]:
    """The answer's JSON object: the whole text, a fenced block, or the first balanced `{…}` in prose.

    Raises LLMInvalidOutput when there is none.
    """
    text = _THINK.sub("", text).strip()  # reasoning models may think aloud, braces and all
    candidates = [text]
    fenced = _FENCE.search(text)
    if fenced is not None:
        candidates.append(fenced.group(1).strip())
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    for candidate in candidates:
        found = _first_balanced_object(candidate)
        if found is not None:
            return found
    raise LLMInvalidOutput("the answer holds no JSON object")


def _first_balanced_object(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    tries = 0
    while start != -1 and tries < MAX_JSON_CANDIDATES:
        tries += 1
        end = _balanced_end(text, start)
        if end is None:
            return None  # unbalanced from here on: later "{" are inside this one
        try:
            value = json.loads(text[start:end])
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the `}` closing the `{` at `start`, skipping braces inside JSON strings."""
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def parse_answer(text: str, schema: type[M]) -> M:
    """Recover the JSON object in a model's text answer and validate it against `schema`.

    Raises LLMInvalidOutput (never echoing the answer, which may hold anything).
    """
    value = extract_json_object(text)
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        raise LLMInvalidOutput(f"the answer does not match {schema.__name__}: {_reason(exc)}") from exc
