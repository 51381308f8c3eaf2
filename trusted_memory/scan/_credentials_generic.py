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
from itertools import pairwise

from ._credential_checks import is_placeholder
from ._credentials_context import PASSWORD_WORDS

__all__ = ["generic_secrets"]

# "Key", "secret", "token" in the languages people write in; the password words are the context rules'.
_KEY_WORDS = (
    r"api[\s_-]?key|apikey|access[\s_-]?key|secret[\s_-]?key|private[\s_-]?key|master[\s_-]?key|auth[\s_-]?key|authkey"
    r"|secret|token|authtoken|auth|pat|creds?|credentials?|passphrase|key"
    r"|klucz|nøgle|nyckel|sleutel|anahtar|kulcs|avain|κλειδί|مفتاح|कुंजी|kunci|khóa|กุญแจ"
    r"|키|密钥|秘钥|鍵|ключ|токен|clé|clave|chave|schlüssel|chiave|トークン|シークレット|비밀키|토큰"
)
_PASSWORD = "|".join(re.escape(w) for w in sorted({*PASSWORD_WORDS, "pass", "passwd", "mdp"}, key=len, reverse=True))
# Matched on the lower-cased text: without IGNORECASE the alternation is about three times cheaper.
_SECRET_WORD = re.compile(rf"(?<![\w/.?&=])(?:(?P<pw>{_PASSWORD.lower()})|{_KEY_WORDS})(?!\w)")
_REACH = 40  # characters after the secret word in which its value must start
_LONGEST = 200  # a value is read whole, even past _REACH
_SHORTEST = 10  # characters of the shortest value read as random
# Secret words looked at per text, and those followed by a long enough value: a 64 KiB run of "key "
# or of "key abcdefghijk " costs a bounded time; a real pasted secret is among the first few hundred.
_WORDS = 2000
_EXAMINED = 500
_TOKENS = 4  # values looked at after the secret word ("key for prod is <value>")
_VALUE = re.compile(r"[^\s'\"`,;()\[\]{}<>]+")
_LONG_VALUE = re.compile(r"[^\s'\"`,;()\[\]{}<>]{10}")
# Words that make a nearby hex run or id something other than a secret.
_NOT_SECRET = re.compile(
    r"fingerprint|sha\d*|md5|checksum|hash|digest|commit|public|publishable|\bid\b|example|placeholder|fake|dummy"
    r"|redacted|revoked|rotated|expired|sample|your"
    # Keys that name a record, not a secret: "cache key: v2:99d1…", "Object key: uploads/…/e542….webp".
    r"|\b(?:cache|object|s3|primary|foreign|partition|sort|idempotency|routing|shard|lookup|dedup|row)[\s_-]?$",
    re.IGNORECASE,
)
_ENCRYPTED = re.compile(r"encrypteddata\s*:|\bsops\s*:|kind:\s*sealedsecret")  # on the lower-cased text
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX = re.compile(r"[0-9a-f]+", re.IGNORECASE)
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:py|js|ts|json|ya?ml|txt|md|env|toml|cfg|conf|ini|sh|pem|key|jpe?g|png|gif|webp|svg|pdf|csv|zip|gz|mp[34])"
)
_VERSION = re.compile(r"v?\d+(?:\.\d+)+\S*")
_NAME_PREFIX = re.compile(r"[\w-]{1,20}[=:]")  # "key=…", "authkey:…"


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _scrambled_letters(value: str) -> bool:
    """Letters only, but case changing as often as in random text ("thnMtICfAbkixS"), unlike a CamelCase name."""
    if len(value) < 10 or not value.isalpha() or not value.isascii():
        return False
    changes = sum(a.isupper() != b.isupper() for a, b in pairwise(value))
    return changes * 3 >= len(value) and _entropy(value) >= 3.0


def _random_looking(value: str, password: bool) -> bool:
    value = value.strip(".,:;!?)")
    low = value.lower()
    if len(value) < 10 or is_placeholder(value) or low.startswith(("eyj", "your", "change", "replace")):
        return False  # "eyJ…" is a JWT, which its own rule reads whole
    if "://" in value or value.startswith(("/", "~", "$", "%", "*")) or "xxxx" in low or value.count("*") > 2:
        return False
    if value.count("/") >= 2 and _FILE_NAME.fullmatch(value.rsplit("/", 1)[-1]) is not None:
        return False  # a path to a file ("uploads/2026/12/35d1….jpg"), however random its name
    if "@" in value[1:-1] and "." in value.rsplit("@", 1)[-1]:
        return False  # an e-mail address
    if _UUID.fullmatch(value):
        return True
    if _HEX.fullmatch(value):
        return len(value) >= 24 and _entropy(value) >= 3.0
    if password and _scrambled_letters(value):
        return True  # after a password word a random value needs no digit
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if letters < 3 or digits < 2 or _FILE_NAME.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return _entropy(value) >= min(3.3, math.log2(len(value)) - 0.4) and (mixed_case or len(value) >= 16)


def generic_secrets(text: str, low: str) -> list[tuple[int, int]]:
    """The spans (secret word to value) of random-looking values named as secrets in ``text``.

    ``low`` is ``text`` lower-cased with the same offsets (``ScanText.low``).
    """
    if _ENCRYPTED.search(low):
        return []  # a SOPS or sealed-secrets file: its values are ciphertext, safe to keep
    spans: list[tuple[int, int]] = []
    examined = 0
    for seen, word in enumerate(_SECRET_WORD.finditer(low)):
        if seen >= _WORDS:
            break
        end = word.end()
        if text[end : end + 1] in ("@", "/") or not _LONG_VALUE.search(text, end, end + _REACH + _SHORTEST):
            continue  # "user:password@host" is a URL's user part (the URL rule reads it); no value is long enough
        examined += 1
        if examined > _EXAMINED:
            break
        if _NOT_SECRET.search(text, max(0, word.start() - 25), word.start()):
            continue
        stop = min(len(text), end + _REACH + _LONGEST)
        line_end = text.find("\n", end, stop)  # bounded: the search never runs to the end of the text
        window = text[end : stop if line_end == -1 else line_end]
        for k, value in enumerate(_VALUE.finditer(window)):
            if k >= _TOKENS or value.start() >= _REACH or _NOT_SECRET.search(window, 0, value.start()):
                break
            raw = value.group()
            prefix = None if raw[:1].isdigit() else _NAME_PREFIX.match(raw)
            if _random_looking(raw[prefix.end() :] if prefix else raw, word.group("pw") is not None):
                spans.append((word.start(), end + value.end()))
                break
    return spans
