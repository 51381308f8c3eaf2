"""What the memory LLM is asked for anticipation: user-state inference, follow-up intents, resume recap.

Same rules as llm/jobs.py: conversation text goes inside data tags, answers are validated and
scanned, and nothing here is ever on the path of a reply (the service runs these in the background,
or with a short timeout and a heuristic fallback).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, Field

from .jobs import DATA_RULE, JobOut, clip_utf8, keep_first, wrap_data

MAX_UPDATES = 8
MAX_INTENTS = 5
MAX_INTENT_CHARS = 120
MAX_MESSAGES = 8
MAX_MEMORIES = 30


class UserStateUpdateOut(JobOut):
    """One proposed user-model field."""

    field_path: str = Field(min_length=3, max_length=64)
    value: str = Field(min_length=1, max_length=200)
    evidence: str = Field(default="", max_length=300)
    confidence: float = Field(ge=0.0, le=1.0)
    stated: bool = False


class UserStateOut(JobOut):
    """Proposed updates to the user model."""

    updates: Annotated[list[UserStateUpdateOut], BeforeValidator(keep_first(MAX_UPDATES))] = Field(default_factory=list)


_USER_STATE_SYSTEM = f"""\
You maintain a small model of how a USER likes to work with an AI assistant, from the user's own
messages and the memories they confirmed. Fields (use exactly these paths and values):
- style.verbosity: concise | balanced | detailed
- style.humor: none | light | playful
- style.formality: casual | neutral | formal
- style.explanation_depth: brief | standard | thorough
- style.tone: direct | neutral | warm
- technical.languages, technical.tools, technical.patterns: comma-separated short names
- current_focus.project, current_focus.task, current_focus.blocker: one short line each
- interaction_patterns.<snake_case_name>: one short line (how they tend to work with the assistant)

Rules:
- Propose only changes to <user_model>, at most {MAX_UPDATES}, each with the evidence: a short quote
  of the user's own words from <recent_context> or <memories>.
- stated: true only when the user said it in so many words (the evidence is that quote);
  false when you are reading between the lines. Guesses are shown to the user for confirmation.
- confidence: how sure you are, 0 to 1. Leave out anything below 0.5.
- {DATA_RULE}

Answer with JSON only, in exactly this shape:
{{"updates": [{{"field_path": "style.verbosity", "value": "concise", "evidence": "keep it short", \
"confidence": 0.9, "stated": true}}]}}
"""


def user_state_prompt(model_lines: Sequence[str], memories: Sequence[str], messages: Sequence[str]) -> tuple[str, str]:
    """Prompt for user-state inference from trusted memories and recent user messages."""
    parts = [
        wrap_data("user_model", "\n".join(model_lines) or "(empty)"),
        wrap_data("memories", "\n".join(clip_utf8(m, 300) for m in list(memories)[:MAX_MEMORIES]) or "(none)"),
        wrap_data(
            "recent_context", "\n---\n".join(clip_utf8(m, 1024) for m in list(messages)[-MAX_MESSAGES:]) or "(none)"
        ),
    ]
    return _USER_STATE_SYSTEM, "\n\n".join(parts)


def _clean_intents(value: object) -> object:
    if not isinstance(value, list):
        return value
    intents = [" ".join(v.split())[:MAX_INTENT_CHARS] for v in value if isinstance(v, str) and v.strip()]
    return list(dict.fromkeys(intents))[:MAX_INTENTS]


class IntentsOut(JobOut):
    """Likely follow-up requests, phrased as search queries."""

    intents: Annotated[list[str], BeforeValidator(_clean_intents)] = Field(default_factory=list)


_INTENTS_SYSTEM = f"""\
You predict what a USER will ask their AI assistant next, so the assistant's memory can load the
right notes before the question arrives. From the latest <user_message>, the <recent_context> and
the <user_model>, list up to {MAX_INTENTS} likely follow-up needs, most likely first, each phrased as
a short search query over the user's notes (e.g. "how to run the integration tests",
"staging deploy steps", "what we decided about the database").

Rules:
- Queries about the user's own project, preferences, people and past decisions, not general knowledge.
- At most {MAX_INTENT_CHARS} characters each; no quotes of secrets.
- {DATA_RULE}

Answer with JSON only: {{"intents": ["...", "..."]}}
"""


def intents_prompt(message: str, recent: Sequence[str], model_lines: Sequence[str]) -> tuple[str, str]:
    """Prompt for the follow-up intents after one user message."""
    parts = [wrap_data("user_model", "\n".join(model_lines) or "(empty)")]
    if recent:
        parts.append(wrap_data("recent_context", "\n---\n".join(clip_utf8(r, 512) for r in list(recent)[-4:])))
    parts.append(wrap_data("user_message", clip_utf8(message, 4096)))
    return _INTENTS_SYSTEM, "\n\n".join(parts)


class ResumeOut(JobOut):
    """A recap for a user coming back after a break."""

    left_off: str = Field(min_length=1, max_length=400)
    next_step: str = Field(default="", max_length=200)


_RESUME_SYSTEM = f"""\
A USER is coming back to their AI assistant after a break. From the notes of their last session in
<entries> and the <user_model>, write where they left off (one or two sentences, at most 400
characters) and the most likely next step (one short sentence, or empty if nothing is clear).
Use only what the notes say. {DATA_RULE}

Answer with JSON only: {{"left_off": "...", "next_step": "..."}}
"""


def resume_prompt(notes: Sequence[str], model_lines: Sequence[str]) -> tuple[str, str]:
    """Prompt for the return-after-break recap."""
    parts = [
        wrap_data("user_model", "\n".join(model_lines) or "(empty)"),
        wrap_data("entries", "\n".join(clip_utf8(n, 400) for n in notes) or "(none)"),
    ]
    return _RESUME_SYSTEM, "\n\n".join(parts)
