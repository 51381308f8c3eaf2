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
from ._fold import fold_pattern

__all__ = ["generic_secrets"]

# "Key", "secret", "token" in the languages people write in; the password words are the context rules'.
_KEY_WORDS = (
    r"api[\s_-]?key|apikey|access[\s_-]?key|secret[\s_-]?key|private[\s_-]?key|master[\s_-]?key|auth[\s_-]?key|authkey"
    r"|secret|token|authtoken|auth|oauth|pat|creds?|credentials?|passphrase|pass_phrase|key"
    r"|klucz|nøgle|nyckel|sleutel|anahtar|kulcs|avain|κλειδί|مفتاح|कुंजी|kunci|khóa|กุญแจ"
    r"|키|密钥|秘钥|鍵|ключ|токен|clé|clave|chave|schlüssel|chiave|トークン|シークレット|비밀키|토큰"
)
_PASSWORD = "|".join(
    re.escape(w) for w in sorted({*PASSWORD_WORDS, "pass", "passwd", "mdp", "psk"}, key=len, reverse=True)
)
# Matched on the lower-cased text: without IGNORECASE the alternation is about three times cheaper.
# A name may end in the secret word: "key_secret", "smtp.api_token", "storePassword" (lower-cased,
# a password word may be glued on). The name's first part is kept apart (``pre``): "cache_key",
# "page_token" name no secret.
# The rule reads the folded view ("clé" is "cle" there), so its words are folded the same way.
_SECRET_WORD = re.compile(
    fold_pattern(
        rf"(?<![\w/.?&=])(?P<pre>(?:[a-z0-9]{{1,20}}[_.-]){{0,3}})"
        rf"(?:(?P<pw>(?:[a-z]{{2,12}}(?=password))?(?:{_PASSWORD.lower()}))|{_KEY_WORDS})(?!\w)"
    )
)
_REACH = 40  # characters after the secret word in which its value must start
_LONGEST = 200  # a value is read whole, even past _REACH
_SHORTEST = 10  # characters of the shortest value read as random
# Secret words looked at per text, and those followed by a long enough value: a 64 KiB run of "key "
# or of "key abcdefghijk " costs a bounded time; a real pasted secret is among the first few hundred.
_WORDS = 2000
_EXAMINED = 500
_TOKENS = 4  # values looked at after the secret word ("key for prod is <value>")
# A value no prose holds (``_strong``) may stand a few words further on ("clé API Mistral pour le projet : …").
_STRONG_TOKENS = 8
_HEX_DIGITS = 20  # Pusher's secrets have 20 hex digits; a commit hash is named as one (``_NOT_SECRET``)
_VALUE = re.compile(r"[^\s'\"`,;()\[\]{}<>]+")
_LONG_VALUE = re.compile(r"[^\s'\"`,;()\[\]{}<>]{10}")
# First parts of a name that make it a record's key or a cursor, not a secret.
_RECORD_NAME = re.compile(
    r"(?:^|[_.-])(?:cache|object|s3|primary|foreign|partition|sort|idempotency|routing|shard|lookup|dedup|row|page|hashed"
    r"|next|cursor|continuation|sync|public|publishable|id|hash|file|path|name|type|url|uri|ref|kid)[_.-]$"
)
# Words that make a nearby hex run or id something other than a secret.
_NOT_SECRET = re.compile(
    r"fingerprint|sha\d*|md5|checksum|hash|digest|commit|public|publishable|\bid\b|example|placeholder|fake|dummy"
    r"|redacted|revoked|rotated|expired|sample|your"
    # Keys that name a record, not a secret: "cache key: v2:99d1…", "Object key: uploads/…/e542….webp".
    r"|\b(?:cache|object|s3|primary|foreign|partition|sort|idempotency|routing|shard|lookup|dedup|row)[\s_-]?$",
    re.IGNORECASE,
)
_ENCRYPTED = re.compile(r"encrypteddata\s*:|\bsops\s*:|kind:\s*sealedsecret")  # on the lower-cased text
_RANGE = re.compile(r"A-Z|a-z|0-9|\\[sdw]")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX = re.compile(r"[0-9a-f]+", re.IGNORECASE)
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:py|js|ts|json|ya?ml|txt|md|env|toml|cfg|conf|ini|sh|pem|key|jpe?g|png|gif|webp|svg|pdf|csv|zip|gz|mp[34])"
)
_VERSION = re.compile(r"v?\d+(?:\.\d+)+\S*")
_NAME_PREFIX = re.compile(r"[\w-]{1,20}[=:]")  # "key=…", "authkey:…"
# A value's own name that makes it an identifier, whatever secret word came before it on the line:
# "[auth] health check ok trace_id=0b5f…" is a log line's trace id, not the auth secret.
_ID_NAME = re.compile(r"(?:^|[_.-])(?:id|trace|span|request|correlation)(?:[_.-]?id)?[=:]$", re.IGNORECASE)


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _scrambled_letters(value: str) -> bool:
    """Letters only, but case changing as often as in random text ("thnMtICfAbkixS"), unlike a CamelCase name."""
    if len(value) < 10 or not value.isalpha() or not value.isascii():
        return False
    changes = sum(a.isupper() != b.isupper() for a, b in pairwise(value))
    return changes * 3 >= len(value) and _entropy(value) >= 3.0


def _password_shaped(value: str) -> bool:
    """A password as people make them ("Pinecone#77!", "Quokka@4901"): letters, digits and mixed case or a symbol.

    Not code ("bcrypt.DefaultCost", "secrets.GITHUB_TOKEN" have no digit), a path, a host ("@db:5432")
    or a version.
    """
    if not 8 <= len(value) <= 64 or "/" in value or value.startswith("@") or _VERSION.fullmatch(value):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed or any(c in _PASSWORD_SYMBOLS for c in value)


_PASSWORD_SYMBOLS = frozenset("!@#$%^*+?~")
_VOWELS = frozenset("aeiouy")


def _consonant_run(value: str) -> bool:
    """Lower-case letters with almost no vowels ("ozcjfsdfbwvbmzpm", a Gmail app password): no word is so."""
    if len(value) < 12 or not value.isascii() or not value.isalpha() or not value.islower():
        return False
    return sum(c in _VOWELS for c in value) * 6 <= len(value) and _entropy(value) >= 3.2


def _password_like(value: str) -> bool:
    """After a password word, what no prose holds even a few words on: a made-up or scrambled password."""
    value = value.strip(".,:;!?)")
    return not is_placeholder(value) and (_password_shaped(value) or _scrambled_letters(value))


def _strong(value: str) -> bool:
    """A value no prose holds: 32+ hex digits, or 20+ characters of upper, lower and digits at high entropy."""
    value = value.strip(".,:;!?)")
    if _HEX.fullmatch(value):
        return len(value) >= 32 and _entropy(value) >= 3.3
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    digit = any(c.isdigit() for c in value)
    return len(value) >= 20 and upper and lower and digit and value.isalnum() and _entropy(value) >= 4.0


def _random_looking(value: str, password: bool) -> bool:
    value = value.strip(".,:;!?)")
    low = value.lower()
    if len(value) < 10 or is_placeholder(value) or low.startswith(("eyj", "your", "change", "replace")):
        return False  # "eyJ…" is a JWT, which its own rule reads whole
    if "://" in value or value.startswith(("/", "~", "$", "%", "*")) or "xxxx" in low or value.count("*") > 2:
        return False
    if _RANGE.search(value):
        return False  # "A-Za-z0-9/+=": a character class of a pattern that finds secrets
    if value.count("/") >= 2 and _FILE_NAME.fullmatch(value.rsplit("/", 1)[-1]) is not None:
        return False  # a path to a file ("uploads/2026/12/35d1….jpg"), however random its name
    if "@" in value[1:-1] and "." in value.rsplit("@", 1)[-1]:
        return False  # an e-mail address
    if _UUID.fullmatch(value):
        return True
    if _HEX.fullmatch(value):
        return len(value) >= _HEX_DIGITS and _entropy(value) >= 3.0
    if password and _scrambled_letters(value):
        return True  # after a password word a random value needs no digit
    if password and (_password_shaped(value) or _consonant_run(value)):
        return True
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if letters < 3 or digits < 2 or _FILE_NAME.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return _entropy(value) >= min(3.3, math.log2(len(value)) - 0.4) and (mixed_case or len(value) >= 16)


_SEPARATORS = ":=—–-|>"
_VALUE_BEFORE = re.compile(r"[A-Za-z0-9]*\d[A-Za-z0-9]*")


def _since_last_value(text: str, start: int) -> int:
    """Where the words naming a secret at ``start`` begin: after any value standing between (at most 25 back).

    "algolia app id KX81QZ0M3P admin api key 9a33…": "id" names the value before, not the key.
    """
    lo = max(0, start - 25)
    last = lo
    for m in _VALUE_BEFORE.finditer(text, lo, start):
        if m.end() - m.start() >= 6:
            last = m.end()
    return last


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
        if word.group("pre") and (_RECORD_NAME.search(word.group("pre")) or _NOT_SECRET.search(word.group("pre"))):
            continue
        if _NOT_SECRET.search(text, _since_last_value(text, word.start()), word.start()):
            continue
        stop = min(len(text), end + _REACH + _LONGEST)
        line_end = text.find("\n", end, stop)  # bounded: the search never runs to the end of the text
        window = text[end : stop if line_end == -1 else line_end]
        k = 0
        for value in _VALUE.finditer(window):
            if k >= _STRONG_TOKENS or value.start() >= _REACH or _NOT_SECRET.search(window, 0, value.start()):
                break
            raw = value.group()
            if not raw.strip(_SEPARATORS):
                continue  # ":" or "—" between the name and its value is no word
            if not any(c.isalnum() for c in raw):
                break  # "${{", "%(": a template or code, not a value
            k += 1
            raw = raw.lstrip(_SEPARATORS)  # "PASSWORD=ozcj…": the value starts after the "="
            prefix = None if raw[:1].isdigit() else _NAME_PREFIX.match(raw)
            if prefix and _ID_NAME.search(prefix.group()):
                continue
            body = raw[prefix.end() :] if prefix else raw
            password = word.group("pw") is not None
            if k > _TOKENS and not (_strong(body) or (password and _password_like(body))):
                continue
            if _random_looking(body, password):
                spans.append((word.start(), end + value.end()))
                break
    return spans
