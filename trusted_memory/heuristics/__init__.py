"""The rule-based memory brain used when no model is configured (``llm.provider = none``).

Pure regular expressions over short clauses (stdlib only, well under a millisecond per message):
``attribute`` (and ``strip_untrusted``, its text) keeps only what the user typed, failing closed on
anything pasted, quoted, wrapped or delimited; ``extract`` turns one user message into typed atoms,
``note_category`` files a line into a session-note category, ``summarize_turns`` writes a
third-person episode summary, ``one_line`` makes the session-buffer line and
``looks_like_turn_or_refusal`` rejects LLM output that is a reply instead of a summary. The rules
favour precision: a missed memory costs one repetition by the user, a wrong one is recalled in
every later session.

Every text path is linear in its input and reads a bounded amount of it (``MAX_EXTRACT_CHARS`` per
message, ``MAX_SENTENCE_CHARS`` per sentence), so no message up to the 64 KiB observe limit costs
more than a few tens of milliseconds (benchmarks/pathological_inputs.py).
"""

from __future__ import annotations

from ._extract import MAX_EXTRACT_CHARS, MAX_SENTENCE_CHARS, Extracted, extract
from ._notes import note_category
from ._summaries import looks_like_turn_or_refusal, one_line, summarize_turns
from ._untrusted import Attributed, Foreign, attribute, strip_untrusted

__all__ = [
    "MAX_EXTRACT_CHARS",
    "MAX_SENTENCE_CHARS",
    "Attributed",
    "Extracted",
    "Foreign",
    "attribute",
    "extract",
    "looks_like_turn_or_refusal",
    "note_category",
    "one_line",
    "strip_untrusted",
    "summarize_turns",
]
