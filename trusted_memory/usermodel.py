"""The user model: which fields exist, what values they take, and which inferences may apply alone.

Pure policy, no I/O. A stored model is re-validated and re-scanned every time it is loaded, so a
field written by anything but this code (a tampered file, an old version) is dropped, not obeyed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from .scan import scan

MAX_TEXT_CHARS = 200
MAX_LIST_ITEMS = 8
MAX_EVIDENCE_CHARS = 300

# Enumerated fields: the value must be one of these words.
ENUMS: dict[str, tuple[str, ...]] = {
    "style.verbosity": ("concise", "balanced", "detailed"),
    "style.humor": ("none", "light", "playful"),
    "style.formality": ("casual", "neutral", "formal"),
    "style.explanation_depth": ("brief", "standard", "thorough"),
    "style.tone": ("direct", "neutral", "warm"),
    "interaction_patterns.message_length": ("short", "medium", "long"),
    "interaction_patterns.asks": ("questions", "instructions", "mixed"),
}
# Comma-separated lists of short names.
LISTS = ("technical.languages", "technical.tools", "technical.patterns")
# Free text, one line.
TEXTS = ("current_focus.project", "current_focus.task", "current_focus.blocker")
_EXTRA_PATTERN = re.compile(r"^interaction_patterns\.[a-z][a-z0-9_]{1,39}$")
# Profile facts the session reflection proposes (`SET key=value`), once a person confirmed them.
_PROFILE_PATTERN = re.compile(r"^profile\.[a-z0-9_]{1,64}$")
MAX_PROFILE_CHARS = 300
_LIST_ITEM = re.compile(r"^[\w .+#/-]{1,40}$")

Route = Literal["apply", "review", "skip"]
InferenceKind = Literal["stated", "measured", "guessed"]


@dataclass(frozen=True, slots=True)
class ModelField:
    """One field of the user model as stored."""

    path: str
    value: str
    source_class: str
    updated_at: float
    evidence: str = ""

    @property
    def confirmed(self) -> bool:
        """True when a human confirmed it through the admin CLI."""
        return self.source_class == "user_approved"


@dataclass(frozen=True, slots=True)
class Inference:
    """A proposed value for one field, with what it rests on.

    `stated`: the user said it in so many words (the evidence quotes them); `measured`: counted
    from the user's own messages; `guessed`: read between the lines.
    """

    path: str
    value: str
    evidence: str
    confidence: float
    kind: InferenceKind


@dataclass(frozen=True, slots=True)
class UserModel:
    """The fields that survived validation, and the paths dropped on load."""

    fields: dict[str, ModelField] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()

    def get(self, path: str) -> str | None:
        """A field's value, or None."""
        item = self.fields.get(path)
        return item.value if item else None

    def group(self, prefix: str) -> list[ModelField]:
        """The fields under `prefix.`, in path order."""
        return [f for p, f in sorted(self.fields.items()) if p.startswith(prefix + ".")]


def known_path(path: str) -> bool:
    """True for a field the model has."""
    return (
        path in ENUMS
        or path in LISTS
        or path in TEXTS
        or bool(_EXTRA_PATTERN.match(path))
        or bool(_PROFILE_PATTERN.match(path))
    )


def normalize(path: str, value: str) -> str | None:
    """The canonical value for a field, or None when the path or value is not acceptable."""
    if not known_path(path):
        return None
    value = " ".join(value.split())
    if not value or scan(value):
        return None
    if path in ENUMS:
        value = value.lower()
        return value if value in ENUMS[path] else None
    if path in LISTS:
        items = list(dict.fromkeys(i.strip() for i in value.split(",") if i.strip()))
        if not items or len(items) > MAX_LIST_ITEMS or not all(_LIST_ITEM.match(i) for i in items):
            return None
        return ", ".join(items)
    limit = MAX_PROFILE_CHARS if path.startswith("profile.") else MAX_TEXT_CHARS
    return value if len(value) <= limit else None


def load_model(rows: Iterable[tuple[str, str, str, float, str]]) -> UserModel:
    """Build the model from stored rows, dropping any field that fails validation or the scanner."""
    fields: dict[str, ModelField] = {}
    dropped: list[str] = []
    for path, value, source_class, updated_at, evidence in rows:
        clean = normalize(path, value)
        if clean is None or clean != value or scan(evidence or ""):
            dropped.append(path)
            continue
        fields[path] = ModelField(path, value, source_class, updated_at, evidence or "")
    return UserModel(fields, tuple(dropped))


def route(inference: Inference, current: ModelField | None, *, relayed: bool) -> Route:
    """Whether an inference applies by itself, waits for a human, or changes nothing.

    Style fields change how the agent talks to the user: only the user's own plain statement
    applies them directly. A guess, anything relayed by the agent in strict mode, and anything that
    would overwrite a human-confirmed value waits in the pending-review queue.
    """
    if current is not None and current.value == inference.value:
        return "skip"
    if current is not None and current.confirmed:
        return "review"
    if inference.kind == "guessed" or relayed or inference.path.startswith("profile."):
        return "review"
    if inference.path.startswith("style.") and (inference.kind != "stated" or inference.confidence < 0.7):
        return "review"
    return "apply"


def style_lines(model: UserModel) -> list[str]:
    """Guidance for answering this user, from their applied style and interaction fields."""
    lines = []
    for item in model.group("style"):
        name = item.path.split(".", 1)[1].replace("_", " ")
        lines.append(f"- {name}: {item.value} ({_provenance(item)})")
    for item in model.group("interaction_patterns"):
        name = item.path.split(".", 1)[1].replace("_", " ")
        lines.append(f"- they {_pattern_phrase(name, item.value)}")
    return lines


def state_lines(model: UserModel) -> list[str]:
    """What the user is working on and with."""
    focus = [f"{f.path.split('.', 1)[1]}: {f.value}" for f in model.group("current_focus")]
    lines = [f"- {part}" for part in focus]
    for item in [*model.group("technical"), *model.group("profile")]:
        lines.append(f"- {item.path.split('.', 1)[1].replace('_', ' ')}: {item.value}")
    return lines


def _provenance(item: ModelField) -> str:
    return "confirmed by the user" if item.confirmed else "the user said so"


def _pattern_phrase(name: str, value: str) -> str:
    if name == "message length":
        return f"write {value} messages"
    if name == "asks":
        return {"questions": "mostly ask questions", "instructions": "mostly give instructions"}.get(
            value, "mix questions and instructions"
        )
    return f"{name}: {value}"
