"""Optional local neural embedder (the `local` extra: sentence-transformers), loaded lazily.

The model loads on the first embedding, in a worker thread, never on the handshake path. Weights
come from the local model cache; this module never downloads by itself when HF_HUB_OFFLINE is set.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..config import EmbeddingSettings
from ..errors import EmbedderError, EmbedderUnavailable
from .base import EmbeddingSpace

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class LocalEmbedder:
    """Embeds with a sentence-transformers model on this machine."""

    def __init__(self, conf: EmbeddingSettings) -> None:
        self._model_name = conf.model or DEFAULT_MODEL
        self._space = EmbeddingSpace("local", self._model_name, conf.dims, conf.cosine_floor, conf.cosine_full)
        self._batch = max(1, conf.batch_size)
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def space(self) -> EmbeddingSpace:
        """`local:<model>:<dims>`."""
        return self._space

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer  # the optional extra
                except ImportError as exc:
                    raise EmbedderUnavailable(
                        "embedding.provider = local needs the local extra: pip install 'trusted-memory[local]'"
                    ) from exc
                try:
                    self._model = SentenceTransformer(self._model_name)
                except Exception as exc:
                    raise EmbedderUnavailable(f"cannot load local model {self._model_name}: {exc}") from exc
            return self._model

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        model = self._load()
        matrix = np.asarray(
            model.encode(list(texts), batch_size=self._batch, normalize_embeddings=True), dtype=np.float32
        )
        if matrix.ndim != 2 or matrix.shape[1] != self._space.dims:
            raise EmbedderError(
                f"local model {self._model_name} returns {matrix.shape[-1]}-dimensional vectors but embedding.dims "
                f"is {self._space.dims}; set MCP_MEMORY_EMBEDDING__DIMS={matrix.shape[-1]}"
            )
        return matrix

    async def embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed in a worker thread (the model is CPU-bound)."""
        return await asyncio.to_thread(self._embed, texts)
