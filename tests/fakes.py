"""Fakes for the one edge that cannot run here: a remote memory LLM. Named as fakes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
Script = Callable[[str, str, type[BaseModel]], Any]


class FakeLLM:
    """A scripted memory LLM: answers from `script(system, user, schema)` and records every call."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls: list[tuple[str, str, str]] = []

    @property
    def name(self) -> str:
        """As a backend names itself."""
        return "fake"

    async def complete(self, system: str, user: str, schema: type[M]) -> M | None:
        """The scripted answer, validated against the schema like a real backend's."""
        self.calls.append((system, user, schema.__name__))
        answer = self.script(system, user, schema)
        return None if answer is None else schema.model_validate(answer)
