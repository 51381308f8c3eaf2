"""Checks that keep the credential rules precise: placeholders, references and code are not secrets."""

from __future__ import annotations

import base64
import binascii
import re

_PLACEHOLDER_WORDS = (
    "your",
    "example",
    "changeme",
    "foobared",  # redis.conf's sample requirepass
    "change_me",
    "placeholder",
    "redacted",
    "dummy",
    "sample",
    "xxxx",
    "****",
    "...",
    "…",
    "replace",
    "insert",
    "todo",
    "here>",
    "_here",
    "password",
    "passwd",
    "notreal",
    "not_real",
    "not-real",
    # Publicly documented sample keys, printed in vendors' docs and copied into every tutorial.
    "4ec39hqlyjwdarjtt1zdp7dc",  # Stripe's sk_test_ sample
    "tyoomqauvdedq54nitphi7jx",  # Stripe's pk_test_ sample
    "sflkxwrjsmekkf2qt4fwpmejf36pok6yjv_adqssw5c",  # the signature of jwt.io's default token
    "qwxhzgrpbjpvcgvuihnlc2ftzq",  # RFC 7617's Basic example, "Aladdin:open sesame"
    "open sesame",
    "abc-def1234ghikl-zyx57w2v1u123ew11",  # the bot token of Telegram's Bot API docs
)


# Template and reference syntax: "${DB_PASS}", "{{ vault_token }}", "<token>", "%(password)s", "#{secret}".
_REFERENCE = re.compile(r"^(?:[<{$\[(]|%[({s]|#\{|\*{4})")


def is_placeholder(value: str) -> bool:
    """Whether a value is a template slot, a reference, a masked or an obviously fake secret."""
    low = value.lower()
    if not value or _REFERENCE.match(value) or len(set(low)) <= 2:
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS):
        return True
    # A Kubernetes Secret's "data:" values are base64: "cGFzc3dvcmQ=" is the docs' "password".
    decoded = _short_base64_text(value)
    return decoded is not None and (len(set(decoded)) <= 2 or any(w in decoded for w in _PLACEHOLDER_WORDS))


_BASE64_VALUE = re.compile(r"[A-Za-z0-9+/]{6,40}={0,2}")


def _short_base64_text(value: str) -> str | None:
    """The lower-cased text a short base64 value decodes to, if it is printable ASCII; else None."""
    if len(value) % 4 or not _BASE64_VALUE.fullmatch(value):
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return decoded.lower() if decoded.isprintable() else None


_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


def token_check(m: re.Match[str]) -> bool:
    # Real tokens are random: they mix letters and digits; slugs and "YOUR_TOKEN_HERE" do not.
    value = m.group("val")
    return bool(_DIGIT.search(value) and _LETTER.search(value)) and not is_placeholder(value)


def prefixed_token_check(m: re.Match[str]) -> bool:
    """A vendor-prefixed token: random letters and digits, or, as one in thirty are, mixed-case letters only.

    A 20-character GitLab body has no digit about 3 % of the time ("glpat-_ArLEBwigEmeAmLqNRIl");
    a slug or a placeholder has no three capitals among lower-case letters.
    """
    value = m.group("val")
    if token_check(m):
        return True
    upper = sum(c.isupper() for c in value)
    return (
        upper >= 3
        and sum(c.islower() for c in value) >= 3
        and "-" not in value.strip("-_")
        and not is_placeholder(value)
    )


def api_key_check(m: re.Match[str]) -> bool:
    # "sk-hynix-memory-chip-prices-2024" is a slug: real key bodies are rarely hyphen-separated words.
    value = m.group("val")
    return token_check(m) and value.count("-") <= len(value) // 8


def no_placeholder_check(m: re.Match[str]) -> bool:
    return not is_placeholder(m.group("val"))


# getpass(), os.environ["X"], Optional[str], token[:-1], req.headers.authorization?.split(…)
_CALL = re.compile(r"^\w+(?:\??\.\w+)*\??\.?[(\[]")


_RANDOM_PART = re.compile(r"(?=(?:[^\d]*\d){3})(?=(?:[^A-Z]*[A-Z]){3})[A-Za-z0-9_]{20,}")


_WORD_PATH = re.compile(r"[a-z][a-z-]*(?:/[a-z][a-z0-9_-]*){2,}")


def secretish(value: str) -> bool:
    """Whether an assigned value looks like a secret rather than a name, path, URL or call."""
    value = value.rstrip(".,;:)]}>!?")
    if len(value) < 8 or is_placeholder(value) or _CALL.match(value):
        return False  # getpass(), os.getenv("X"): code that fetches a secret, not a secret
    if value.startswith(("/", "~", "./", "../", "file:")) or "://" in value or "%20" in value:
        return False  # a path, a URL or URL-encoded words ("token=Root%20CA%20Certificates")
    if _WORD_PATH.fullmatch(value):
        return False  # "secret/data/payments/stripe": a Vault or key-vault path of words
    parts = value.replace("?.", ".").split(".")  # optional chaining: req.headers?.authorization
    if len(parts) > 1 and all(p.isidentifier() for p in parts) and not any(_RANDOM_PART.fullmatch(p) for p in parts):
        return False  # settings.DB_PASSWORD (but a Discord token's "MTE4Mzc0…" part is no attribute name)
    if value.isidentifier() and (value.isupper() or not any(c.isdigit() for c in value)):
        return False  # DB_PASSWORD, CertificateIssuerPrivateKeyTypes: a variable or a type, not a secret
    if len(value) >= 12 and value.isascii() and value.isalpha() and value.islower():
        # "EMAIL_HOST_PASSWORD=ozcjfsdfbwvbmzpm" (a Gmail app password): no word has so few vowels.
        return sum(c in "aeiouy" for c in value) * 6 <= len(value) and len(set(value)) >= 9
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "-_." for c in value)
    classes = lower + upper + digit + symbol
    return (digit and (lower or upper)) or classes >= 3 or (len(value) >= 24 and classes >= 2)


def key_name(m: re.Match[str]) -> str:
    """The whole name a credential keyword ends, e.g. "DB_PASSWORD" for a match at "PASSWORD"."""
    start = m.start()
    while start > 0 and (m.string[start - 1].isalnum() or m.string[start - 1] in "_.-"):
        start -= 1
    return m.string[start : m.start()] + m.group().split("=")[0].split(":")[0].strip("\"' \t")


# "key" alone ends too many names ("primary_key", "monkey", "cache_key") to count without these.
_KEY_PREFIXES = (
    "api", "access", "secret", "private", "signing", "encryption", "master", "client", "account", "storage", "auth",
    "admin", "license", "sdk", "app", "deploy", "service", "write", "hec", "server",
)  # fmt: skip


def value_check(m: re.Match[str]) -> bool:
    return secretish(m.group("val")) and not encrypted(m)


def encrypted(m: re.Match[str]) -> bool:
    """Whether the matched value is ciphertext: inside a SealedSecret's or SOPS file's encrypted data."""
    return m.group("val").startswith("ENC[") or bool(
        _ENCRYPTED_BLOCK.search(m.string, max(0, m.start() - 600), m.start())
    )


# Sealed or encrypted values (Bitnami SealedSecret "encryptedData:", SOPS "ENC[…]") are ciphertext for
# a key the text does not hold: safe to store.
_ENCRYPTED_BLOCK = re.compile(r"encrypteddata\s*:|\bsops\s*:|kind:\s*sealedsecret", re.I)


def assignment_check(m: re.Match[str]) -> bool:
    """A "NAME=value" whose name ends in a secret word and whose value looks like a secret."""
    name = key_name(m).lower()
    if name.endswith("key") and not name[:-3].rstrip("_.-").endswith(_KEY_PREFIXES):
        return False
    for short in ("pass", "pwd"):
        # "DB_PASS", "redis.pwd" or "PASS", but not "bypass" or "compass".
        if name.endswith(short) and name != short and name[-len(short) - 1] not in "_.-":
            return False
    return secretish(m.group("val")) and not encrypted(m)  # last: the costliest test, for few candidates


def url_password_check(m: re.Match[str]) -> bool:
    value = m.group("val")
    return not value.isdigit() and not is_placeholder(value) and value.lower() not in ("pass", "pwd", "secret")


def password_check(m: re.Match[str]) -> bool:
    """A password given on a command line or in a file: anything but a placeholder or a reference."""
    value = m.group("val").strip("'\"")
    return len(value) >= 4 and not is_placeholder(value) and value.lower() not in ("pass", "pwd", "secret", "-")


def basic_auth_check(m: re.Match[str]) -> bool:
    """An HTTP Basic value is base64 of "user:password"; a placeholder decodes to nothing of the kind."""
    value = m.group("val")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    _user, sep, password = decoded.partition(":")
    return bool(sep and password) and decoded.isprintable() and not is_placeholder(password)


def random_check(m: re.Match[str]) -> bool:
    """A key-shaped token that is not a word, a slug or a hex digest: mixed case and a digit."""
    value = m.group("val")
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and not is_placeholder(value)
    )


def letters_check(m: re.Match[str]) -> bool:
    """Tokens of letters only (Hugging Face): mixed case, not a placeholder."""
    value = m.group("val")
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and not is_placeholder(value)
