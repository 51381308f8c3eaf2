"""OpenAI-compatible `/chat/completions` over httpx: Ollama, llama.cpp, vLLM, LM Studio, OpenAI.

One request per prompt, in JSON mode when the server supports it, no retries beyond the JSON-mode
downgrade: the memory LLM is off the critical path and `run_job` bounds the whole call anyway.
Every httpx failure is mapped onto the project's error tree at this edge, through the shared
translation in http_errors.

Answers are streamed (server-sent events) unless `llm.stream = false`: when a call is given up (its
time limit, or a job a caller waits on preempting it), closing the stream makes llama.cpp, vLLM and
Ollama stop generating, while a plain request keeps a local model busy with an answer nobody reads
(measured: every later call timed out behind it). A server that ignores `stream` and answers with
one JSON body is read as such.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import httpx

from ..errors import LLMError
from ..http_errors import HTTPErrors, check_status, excerpt, map_httpx_errors, unexpected_body
from .base import LLMInvalidOutput, LLMTimeout, LLMUnavailable, M, parse_answer

__all__ = ["MAX_ANSWER_CHARS", "ChatSettings", "OpenAIChatLLM"]

# A streamed answer longer than this is refused: far past any `max_tokens`, so only a broken or
# hostile server sends it, and it must not grow without bound in the server's memory.
MAX_ANSWER_CHARS = 256_000

ERRORS = HTTPErrors(
    name="memory LLM",
    settings="llm",
    timeout=LLMTimeout,
    unavailable=LLMUnavailable,
    failed=LLMError,
    bad_body=LLMInvalidOutput,
)


class ChatSettings(Protocol):
    """The settings `OpenAIChatLLM.from_settings` reads (the `llm` group of the configuration)."""

    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def timeout_s(self) -> float: ...
    @property
    def max_tokens(self) -> int: ...
    @property
    def temperature(self) -> float: ...
    @property
    def stream(self) -> bool: ...


class OpenAIChatLLM:
    """Answers memory jobs through an OpenAI-compatible chat-completions endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_s: float = 20.0,
        max_tokens: int = 512,
        temperature: float = 0.2,
        transport: httpx.AsyncBaseTransport | None = None,
        stream: bool = True,
    ) -> None:
        if not base_url or not model:
            raise LLMError(
                "llm.provider = http needs llm.base_url (e.g. http://127.0.0.1:11434/v1) "
                "and llm.model (e.g. qwen2.5:3b)"
            )
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._stream = stream
        # Cleared for good once the server rejects JSON mode, so later jobs cost one request.
        self._json_mode = True
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(timeout=timeout_s, headers=headers, transport=transport)

    @classmethod
    def from_settings(cls, conf: ChatSettings, transport: httpx.AsyncBaseTransport | None = None) -> OpenAIChatLLM:
        """Build from the `llm` settings group."""
        return cls(
            conf.base_url,
            conf.model,
            conf.api_key,
            conf.timeout_s,
            conf.max_tokens,
            conf.temperature,
            transport=transport,
            stream=conf.stream,
        )

    @property
    def name(self) -> str:
        """`http:<model>`."""
        return f"http:{self._model}"

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.aclose()

    async def complete(self, system: str, user: str, schema: type[M]) -> M | None:
        """Ask the model; None if it answered with nothing, LLMError subclasses on failure."""
        content, cut = await self._chat(system, user)
        if content is None or not content.strip():
            return None
        try:
            return parse_answer(content, schema)
        except LLMInvalidOutput as exc:
            hint = " (the answer was cut off at llm.max_tokens; raise it)" if cut else ""
            raise LLMInvalidOutput(f"memory LLM {self._model} at {self._url}: {exc.message}{hint}") from exc

    async def _chat(self, system: str, user: str) -> tuple[str | None, bool]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": self._max_tokens,
            "temperature": self._temperature,
        }
        if self._stream:
            body["stream"] = True
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        answer = await self._post(body)
        if isinstance(answer, httpx.Response) and self._json_mode and _refuses_json_mode(answer):
            # Older llama.cpp/vLLM builds and some proxies refuse JSON mode; the prompt asks for
            # JSON anyway and the parser tolerates prose, so drop it and ask again once.
            self._json_mode = False
            del body["response_format"]
            answer = await self._post(body)
        if isinstance(answer, httpx.Response):
            check_status(ERRORS, self._url, answer)
            return self._content(answer)
        return answer

    async def _post(self, body: dict[str, Any]) -> httpx.Response | tuple[str | None, bool]:
        """The answer read off a stream, or the response itself when it is one JSON body or an error."""
        with map_httpx_errors(ERRORS, self._url):
            async with self._client.stream("POST", self._url, json=body) as response:
                if response.status_code < 400 and response.headers.get("content-type", "").startswith(
                    "text/event-stream"
                ):
                    return await self._read_events(response)
                await response.aread()
                return response

    async def _read_events(self, response: httpx.Response) -> tuple[str | None, bool]:
        """Join the `delta.content` pieces of a chat-completions event stream, up to `[DONE]`."""
        parts: list[str] = []
        size, cut, seen = 0, False, False
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue  # comments (pings), `event:` and `id:` lines, blank separators
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                event = json.loads(data)
            except ValueError as exc:
                raise unexpected_body(ERRORS, self._url, exc) from exc
            if not isinstance(event, dict):
                raise unexpected_body(ERRORS, self._url, TypeError("event is not an object"))
            if "error" in event:
                raise LLMError(f"memory LLM server {self._url} failed mid-answer: {excerpt(str(event['error']))}")
            for choice in event.get("choices") or []:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                seen = True
                piece = (choice.get("delta") or {}).get("content")
                if isinstance(piece, str):
                    parts.append(piece)
                    size += len(piece)
                if choice.get("finish_reason") == "length":
                    cut = True
            if size > MAX_ANSWER_CHARS:
                raise LLMInvalidOutput(
                    f"memory LLM server {self._url} streamed more than {MAX_ANSWER_CHARS} characters"
                )
        if not seen:
            raise unexpected_body(ERRORS, self._url, ValueError("no choices in the event stream"))
        return "".join(parts), cut

    def _content(self, response: httpx.Response) -> tuple[str | None, bool]:
        """`choices[0].message.content` (text or a list of text parts) and whether it was cut off."""
        try:
            choice = response.json()["choices"][0]
            content = choice["message"].get("content")
            cut = choice.get("finish_reason") == "length"
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise unexpected_body(ERRORS, self._url, exc) from exc
        if isinstance(content, list):  # content parts, as some gateways send them
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        if content is not None and not isinstance(content, str):
            raise LLMInvalidOutput(f"memory LLM server {self._url} returned non-text content")
        return content, cut


def _refuses_json_mode(response: httpx.Response) -> bool:
    return response.status_code in (400, 422) and _mentions_json_mode(response.text)


def _mentions_json_mode(text: str) -> bool:
    low = text.lower()
    return "response_format" in low or "json_object" in low
