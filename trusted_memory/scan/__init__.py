"""Pure content scanner: reports hidden Unicode, look-alike words, injection markers and secrets.

This package ``__init__`` is the scanner's API; its modules are private. ``_scanner`` runs the
checks on the folded view of a text (``_fold`` per character, ``_normalize`` per text) and on its
decoded views (``_decode``):

* ``_unicode``: hidden characters and look-alike scripts, on the raw text;
* ``_injection`` (with ``_injection_checks``), ``_injection_squashed``, ``_injection_commands`` and
  ``_injection_more``: phrase and shape rules; ``_injection_combos``: injection families as co-occurring concepts
  (``_concepts``), whose multilingual terms are in ``_lexicon_override``, ``_lexicon_actions`` and
  ``_lexicon_authority`` (borrowed authority, orders to an AI reader), with 23 more languages in
  ``_lexicon_languages``;
* ``_credentials`` (key formats) and ``_credentials_context`` (secrets by position), with the
  placeholder checks in ``_credential_checks``;

* ``_model``: the learned second opinion on injections (logistic regression over hashed n-grams and concepts, weights in
  ``data/injection_model.npz``), asked only when no rule found one;

all built on the rule engine in ``_rules`` and the ``Finding`` record in ``_findings``.
"""

from __future__ import annotations

from ._findings import KINDS, Finding
from ._model import (
    BITS,
    CONCEPT_SCALE,
    CONCEPTS,
    MODEL_LABEL,
    WINDOW,
    concept_names,
    feature_blocks,
    features,
    injection_score,
    model_flags,
    ngram_values,
    segments,
)
from ._normalize import fold_view
from ._scanner import (
    describe,
    normalize_for_dedup,
    redact_credentials,
    redact_credentials_unscanned,
    scan,
    scan_fresh,
)
from ._unicode import strip_invisible

__all__ = [
    "BITS",
    "CONCEPTS",
    "CONCEPT_SCALE",
    "KINDS",
    "MODEL_LABEL",
    "WINDOW",
    "Finding",
    "concept_names",
    "describe",
    "feature_blocks",
    "features",
    "fold_view",
    "injection_score",
    "model_flags",
    "ngram_values",
    "normalize_for_dedup",
    "redact_credentials",
    "redact_credentials_unscanned",
    "scan",
    "scan_fresh",
    "segments",
    "strip_invisible",
]
