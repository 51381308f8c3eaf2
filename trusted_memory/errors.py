"""The one error tree of trusted-memory.

MemoryServerError                 base; .message is written for whoever can fix it (model or human)
├── InvalidInput                  bad arguments: empty content, out-of-range value, bad filter
├── NotFound                      unknown id or entry
├── CapacityExceeded              a write would pass a cap; the message lists what to remove
├── ContentRejected               the content scanner refused the text (names the finding)
├── RateLimited                   too many agent writes in a minute (a runaway loop): retryable
├── TrustRefused                  policy refused: needs a human through trusted-memory-admin
├── StoreError                    wraps sqlite errors (raise ... from exc)
│   ├── StoreBusy                 another process held the write lock, or the store is not open yet: retryable
│   ├── MigrationError
│   └── StoreCorrupt              the database file is damaged: names the repair command
├── EmbedderError                 wraps provider errors
│   ├── EmbedderUnavailable       timeout / connect / 5xx: retryable, recall degrades to keyword
│   └── EmbedderMismatch          stored identity differs from the configured embedder
├── LLMError                      memory-LLM failures; callers degrade to the heuristic path
└── ConfigError                   raised only while loading settings, at startup

Each class names its `kind` (a stable word a client can branch on) and whether the same call may
succeed if simply retried later (`retryable`); the edges (server/, cli/) map errors by these two
class attributes instead of by listing classes.
"""

from __future__ import annotations

from typing import ClassVar


class MemoryServerError(Exception):
    """Base of every domain error; the message tells the reader what to do next."""

    kind: ClassVar[str] = "error"
    retryable: ClassVar[bool] = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(MemoryServerError):
    """The caller's arguments are wrong; the caller can fix them."""

    kind = "invalid_input"


class NotFound(MemoryServerError):
    """The id or entry the caller named does not exist."""

    kind = "not_found"


class CapacityExceeded(MemoryServerError):
    """A write would pass a configured cap."""

    kind = "capacity_exceeded"


class ContentRejected(MemoryServerError):
    """The content scanner refused the text."""

    kind = "content_rejected"


class RateLimited(MemoryServerError):
    """Too many writes in a short time; the caller should slow down."""

    kind = "rate_limited"
    retryable = True


class TrustRefused(MemoryServerError):
    """The trust policy refused the action; only a human can do it."""

    kind = "trust_refused"


class StoreError(MemoryServerError):
    """The SQLite store failed."""

    kind = "store_failed"


class StoreBusy(StoreError):
    """The store cannot take the call now (another process held the write lock); retry."""

    kind = "store_busy"
    retryable = True


class MigrationError(StoreError):
    """A schema migration failed; the store is left at its previous version."""


class StoreCorrupt(StoreError):
    """The database file is damaged or not a database."""

    kind = "store_damaged"


class EmbedderError(MemoryServerError):
    """The embedding backend failed."""

    kind = "embedder_failed"


class EmbedderUnavailable(EmbedderError):
    """The embedding backend is unreachable or failing; retry later."""

    kind = "unavailable"
    retryable = True


class EmbedderMismatch(EmbedderError):
    """Stored vectors belong to another embedding space."""

    kind = "embedder_mismatch"


class LLMError(MemoryServerError):
    """The memory LLM failed or returned unusable output."""

    kind = "llm_failed"


class ConfigError(MemoryServerError):
    """A configuration key or value is invalid."""

    kind = "invalid_config"
