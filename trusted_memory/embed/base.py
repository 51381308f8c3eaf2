"""The embedder contract: an embedding space identity and the async ``Embedder`` protocol.

This module sits on the server's startup path, so it must stay import-cheap: numpy is only
referenced for type checking, never imported at runtime.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Embedder", "EmbeddingSpace"]


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    """Identity of a vector space: vectors from different spaces must never be compared.

    ``cosine_floor`` and ``cosine_full`` say how its cosines read (not part of the identity):
    around the floor, texts are unrelated; from ``full`` on, a match is as strong as it gets.
    Ranking maps a cosine linearly between them onto 0-1.
    """

    provider: str
    model: str
    dims: int
    cosine_floor: float = field(default=0.0, compare=False)
    cosine_full: float = field(default=0.6, compare=False)

    def fingerprint(self) -> str:
        """Return the stable identity stored beside every vector, e.g. ``"hash:v4:512"``."""
        # A change in any part means stored vectors are stale and must be re-embedded.
        return f"{self.provider}:{self.model}:{self.dims}"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors in one fixed ``EmbeddingSpace``."""

    @property
    def space(self) -> EmbeddingSpace:
        """The space every vector from this embedder lives in."""
        ...

    async def embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into a float32 array of shape ``(len(texts), dims)``.

        Rows are L2-normalised; a text with no features (e.g. empty) gives an all-zero row.
        """
        ...
