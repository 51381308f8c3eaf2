"""OpenAI-compatible `/v1/embeddings` over httpx: Ollama, llama.cpp, vLLM, LM Studio, OpenAI.

Batches requests, times them out, retries transient failures with backoff, and maps every httpx
failure onto the project's error tree at this edge, through the shared translation in http_errors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx
import numpy as np
import numpy.typing as npt

from ..config import EmbeddingSettings
from ..errors import EmbedderError, EmbedderMismatch, EmbedderUnavailable
from ..http_errors import HTTPErrors, check_status, map_httpx_errors, unexpected_body
from .base import EmbeddingSpace

RETRIES = 3
BACKOFF_S = (0.2, 0.6, 1.5)
ERRORS = HTTPErrors(
    name="embedding",
    settings="embedding",
    timeout=EmbedderUnavailable,
    unavailable=EmbedderUnavailable,
    failed=EmbedderError,
    bad_body=EmbedderError,
)


class OpenAIEmbedder:
    """Embeds through an OpenAI-compatible HTTP endpoint."""

    def __init__(self, conf: EmbeddingSettings, transport: httpx.AsyncBaseTransport | None = None) -> None:
        if not conf.base_url or not conf.model:
            raise EmbedderError(
                "embedding.provider = http needs embedding.base_url (e.g. http://127.0.0.1:11434/v1) "
                "and embedding.model (e.g. nomic-embed-text)"
            )
        self._conf = conf
        self._url = conf.base_url.rstrip("/") + "/embeddings"
        self._space = EmbeddingSpace("http", conf.model, conf.dims, conf.cosine_floor, conf.cosine_full)
        headers = {"Authorization": f"Bearer {conf.api_key}"} if conf.api_key else {}
        self._client = httpx.AsyncClient(timeout=conf.timeout_s, headers=headers, transport=transport)

    @property
    def space(self) -> EmbeddingSpace:
        """`http:<model>:<dims>`."""
        return self._space

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.aclose()

    async def embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed in batches of `embedding.batch_size`; rows are L2-normalised."""
        rows: list[npt.NDArray[np.float32]] = []
        size = max(1, self._conf.batch_size)
        for start in range(0, len(texts), size):
            rows.append(await self._request(list(texts[start : start + size])))
        if not rows:
            return np.zeros((0, self._space.dims), dtype=np.float32)
        matrix = np.concatenate(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix

    async def _request(self, batch: list[str]) -> npt.NDArray[np.float32]:
        last: Exception | None = None
        for attempt in range(RETRIES + 1):
            try:
                with map_httpx_errors(ERRORS, self._url):
                    response = await self._client.post(self._url, json={"model": self._conf.model, "input": batch})
                check_status(ERRORS, self._url, response)
                return self._parse(response, len(batch))
            except EmbedderUnavailable as exc:
                last = exc
                if attempt < RETRIES:
                    await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
        assert last is not None
        raise last

    def _parse(self, response: httpx.Response, expected: int) -> npt.NDArray[np.float32]:
        try:
            items = response.json()["data"]
            ordered = sorted(items, key=lambda item: int(item.get("index", 0)))
            matrix = np.asarray([item["embedding"] for item in ordered], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise unexpected_body(ERRORS, self._url, exc) from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise EmbedderError(f"embedding server {self._url} returned {matrix.shape[0]} vectors for {expected} texts")
        if matrix.shape[1] != self._space.dims:
            raise EmbedderMismatch(
                f"model {self._conf.model} returns {matrix.shape[1]}-dimensional vectors but embedding.dims is "
                f"{self._space.dims}; set MCP_MEMORY_EMBEDDING__DIMS={matrix.shape[1]}"
            )
        return matrix
