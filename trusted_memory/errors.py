"""The one error tree of trusted-memory.

MemoryServerError                 base; .message is written for whoever can fix it (model or human)
├── InvalidInput                  bad arguments: empty content, out-of-range value, bad filter
├── NotFound                      unknown id or entry
├── CapacityExceeded              a write would pass a cap; the message lists what to remove
├── ContentRejected               the content scanner refused the text (names the finding)
├── RateLimited                   too many agent writes in a minute (a runaway loop)
├── TrustRefused                  policy refused: needs a human through trusted-memory-admin
├── StoreError                    wraps sqlite errors (raise ... from exc)
│   ├── MigrationError
│   └── StoreCorrupt              the database file is damaged: names the repair command
├── EmbedderError                 wraps provider errors
│   ├── EmbedderUnavailable       timeout / connect / 5xx: retryable, recall degrades to keyword
│   └── EmbedderMismatch          stored identity differs from the configured embedder
├── LLMError                      memory-LLM failures; callers degrade to the heuristic path
└── ConfigError                   raised only while loading settings, at startup
"""

from __future__ import annotations


class MemoryServerError(Exception):
    """Base of every domain error; the message tells the reader what to do next."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(MemoryServerError):
    """The caller's arguments are wrong; the caller can fix them."""


class NotFound(MemoryServerError):
    """The id or entry the caller named does not exist."""


class CapacityExceeded(MemoryServerError):
    """A write would pass a configured cap."""


class ContentRejected(MemoryServerError):
    """The content scanner refused the text."""


class RateLimited(MemoryServerError):
    """Too many writes in a short time; the caller should slow down."""


class TrustRefused(MemoryServerError):
    """The trust policy refused the action; only a human can do it."""


class StoreError(MemoryServerError):
    """The SQLite store failed."""


class MigrationError(StoreError):
    """A schema migration failed; the store is left at its previous version."""


class StoreCorrupt(StoreError):
    """The database file is damaged or not a database."""


class EmbedderError(MemoryServerError):
    """The embedding backend failed."""


class EmbedderUnavailable(EmbedderError):
    """The embedding backend is unreachable or failing; retry later."""


class EmbedderMismatch(EmbedderError):
    """Stored vectors belong to another embedding space."""


class LLMError(MemoryServerError):
    """The memory LLM failed or returned unusable output."""


class ConfigError(MemoryServerError):
    """A configuration key or value is invalid."""
