"""Pure content scanner: reports hidden Unicode, look-alike words, injection markers and secrets.

This package ``__init__`` is the scanner's API; its modules are private. ``_scanner`` runs the
checks, which live in ``_unicode`` (hidden characters, look-alike scripts), ``_injection`` (with
``_injection_checks``) and ``_credentials``, all built on the rule engine in ``_rules`` and the
``Finding`` record in ``_findings``.
"""

from __future__ import annotations

from ._findings import KINDS, Finding
from ._scanner import describe, normalize_for_dedup, redact_credentials, scan
from ._unicode import strip_invisible

__all__ = ["KINDS", "Finding", "describe", "normalize_for_dedup", "redact_credentials", "scan", "strip_invisible"]
