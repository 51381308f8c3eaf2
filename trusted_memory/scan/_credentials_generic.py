"""A secret of no known format: a random-looking value just after a word that names a secret.

The vendor and context rules know formats ("ghp_…", "DB_PASS=…"); a new author pastes keys of
vendors they never listed ("mixpanel api secret c0b5d0…", "ngrok config add-authtoken 4vOB…",
"snyk auth a56d635a-…"). Like detect-secrets' keyword and entropy plugins together, this rule
asks for both: a secret word ("key", "secret", "token", "auth", "pw", "키", "ключ" …), then,
within a few words on the same line, a value that reads as random (Shannon entropy near the
maximum for its length, letters mixed with digits, or 24+ hex digits, or a UUID). Either alone is
ordinary text: "the key is in the drawer", a commit hash, a request id.

Measured on every corpus part (benchmarks/RESULTS.md, round 5): it added 26 caught credentials
and flagged none of the 4,000 benign texts, 404 must-pass texts or 4,788 ordinary user texts.
Linear: one pass for the secret words, then at most ``_REACH`` characters and ``_TOKENS`` values
after each.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ._credential_checks import is_placeholder

__all__ = ["generic_secrets"]

_SECRET_WORD = re.compile(
    r"(?<!\w)(?:api[\s_-]?key|apikey|access[\s_-]?key|secret[\s_-]?key|private[\s_-]?key|master[\s_-]?key"
    r"|auth[\s_-]?key|authkey|secret|token|authtoken|auth|pat|passwd|password|pass|pwd|pw|creds?|credentials?"
    r"|login|passphrase|key|키|密钥|秘钥|ключ|токен|clé|clave|chave|schlüssel|chiave|トークン|シークレット|비밀키|토큰)"
    r"(?!\w)",
    re.IGNORECASE,
)
_REACH = 40  # characters after the secret word in which its value must start
_TOKENS = 4  # values looked at after the secret word ("key for prod is <value>")
_VALUE = re.compile(r"[^\s'\"`,;()\[\]{}<>]+")
# Words that make a nearby hex run or id something other than a secret.
_NOT_SECRET = re.compile(
    r"fingerprint|sha\d*|md5|checksum|hash|digest|commit|public|publishable|\bid\b|example|placeholder|fake|dummy"
    r"|redacted|revoked|rotated|expired|sample|your",
    re.IGNORECASE,
)
_ENCRYPTED = re.compile(r"encrypteddata\s*:|\bsops\s*:|kind:\s*sealedsecret", re.IGNORECASE)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX = re.compile(r"[0-9a-f]+", re.IGNORECASE)
_FILE_NAME = re.compile(r"[\w.-]+\.(?:py|js|ts|json|ya?ml|txt|md|env|toml|cfg|conf|ini|sh|pem|key)")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+\S*")
_NAME_PREFIX = re.compile(r"[\w-]{1,20}[=:]")  # "key=…", "authkey:…"


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _random_looking(value: str) -> bool:
    value = value.strip(".,:;!?)")
    low = value.lower()
    if len(value) < 10 or is_placeholder(value) or low.startswith(("eyj", "your", "change", "replace")):
        return False  # "eyJ…" is a JWT, which its own rule reads whole
    if "://" in value or value.startswith(("/", "~", "$", "%", "*")) or "xxxx" in low or value.count("*") > 2:
        return False
    if "@" in value[1:-1] and "." in value.rsplit("@", 1)[-1]:
        return False  # an e-mail address
    if _UUID.fullmatch(value):
        return True
    if _HEX.fullmatch(value):
        return len(value) >= 24 and _entropy(value) >= 3.0
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if letters < 3 or digits < 2 or _FILE_NAME.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return _entropy(value) >= min(3.3, math.log2(len(value)) - 0.4) and (mixed_case or len(value) >= 16)


def generic_secrets(text: str) -> list[tuple[int, int]]:
    """The spans (secret word to value) of random-looking values named as secrets in ``text``."""
    if _ENCRYPTED.search(text):
        return []  # a SOPS or sealed-secrets file: its values are ciphertext, safe to keep
    spans: list[tuple[int, int]] = []
    for word in _SECRET_WORD.finditer(text):
        line_end = text.find("\n", word.end())
        window = text[word.end() : min(len(text) if line_end == -1 else line_end, word.end() + _REACH)]
        if window[:1] in ("@", "/"):
            continue  # "user:password@host": a URL's user part, read by the URL rule
        if _NOT_SECRET.search(text, max(0, word.start() - 25), word.start()):
            continue
        for k, value in enumerate(_VALUE.finditer(window)):
            if k >= _TOKENS or _NOT_SECRET.search(window, 0, value.start()):
                break
            raw = value.group()
            prefix = None if raw[:1].isdigit() else _NAME_PREFIX.match(raw)
            if _random_looking(raw[prefix.end() :] if prefix else raw):
                spans.append((word.start(), word.end() + value.end()))
                break
    return spans
