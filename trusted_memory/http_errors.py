"""One translation of HTTP failures into the project's error tree, shared by every HTTP client.

In the style of httpx's own `map_httpcore_exceptions`: a client names the error classes it raises
(`HTTPErrors`) and hands them to `map_httpx_errors` around its requests, to `check_status` for the
answer's status and to `unexpected_body` when the answer is not the JSON it expected. The wording
of every message (which server, what to check) is therefore the same for the embedder and the LLM.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from .errors import MemoryServerError

__all__ = ["EXCERPT_CHARS", "HTTPErrors", "check_status", "excerpt", "map_httpx_errors", "unexpected_body"]

EXCERPT_CHARS = 200


@dataclass(frozen=True, slots=True)
class HTTPErrors:
    """The error classes one HTTP client raises, by what went wrong, and the names its messages use."""

    name: str  # what the server is, as messages start: "embedding", "memory LLM"
    settings: str  # the configuration group an operator fixes: "embedding", "llm"
    timeout: type[MemoryServerError]  # no answer in time
    unavailable: type[MemoryServerError]  # unreachable, 5xx or 429: worth retrying later
    failed: type[MemoryServerError]  # any other failure, including a refused request (4xx)
    bad_body: type[MemoryServerError]  # an answer that is not the JSON the client expected


@contextmanager
def map_httpx_errors(errors: HTTPErrors, url: str) -> Iterator[None]:
    """Translate httpx exceptions into `errors`' classes, most specific first."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise errors.timeout(f"{errors.name} server {url} timed out") from exc
    except httpx.TransportError as exc:
        raise errors.unavailable(f"{errors.name} server {url} is unreachable: {exc}") from exc
    except httpx.HTTPError as exc:
        raise errors.failed(f"{errors.name} request to {url} failed: {exc}") from exc


def check_status(errors: HTTPErrors, url: str, response: httpx.Response) -> None:
    """Raise for an error status: 5xx and 429 are worth retrying, refused credentials and other 4xx are not."""
    code = response.status_code
    if code >= 500 or code == 429:
        raise errors.unavailable(f"{errors.name} server {url} answered {code}")
    if code in (401, 403):
        raise errors.failed(
            f"{errors.name} server {url} refused the credentials ({code}); check {errors.settings}.api_key"
        )
    if code >= 400:
        raise errors.failed(f"{errors.name} server {url} refused the request ({code}): {excerpt(response.text)}")


def unexpected_body(errors: HTTPErrors, url: str, exc: Exception) -> MemoryServerError:
    """The error for an answer that is not the expected JSON (`exc` is what reading it raised)."""
    return errors.bad_body(
        f"{errors.name} server {url} returned an unexpected body ({type(exc).__name__}); "
        f"is {errors.settings}.base_url an OpenAI-compatible /v1 endpoint?"
    )


def excerpt(text: str) -> str:
    """A response body on one line, cut to EXCERPT_CHARS: enough to name the server's complaint."""
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"
