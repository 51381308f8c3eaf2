"""Credential rules for places a secret is handed over in code and on command lines (round 8).

The same few places recur across the corpus authors, each time for a vendor or a tool no rule
named: a string literal given to a login call or an SDK client ("s.login('me@…', 'Marmalade!7911Q')",
"cohere.Client('q7vB…')"), a password flag of any tool ("ldapsearch … -w '…'", "--http-password=…",
"--password -tXeo…"), a password fed on stdin ("--passwd-on-stdin <<< '…'"), a ~/.pgpass line, a
Postman environment's {"key": "api_token", "value": "…"}, a URL whose password holds an "@", a
wallet's seed words and a passphrase of plain words.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ._credential_checks import is_placeholder, password_check, secretish
from ._rules import Rule

_CI = re.IGNORECASE | re.MULTILINE
_CS = re.MULTILINE
_ARG = r"""(?P<val>'[^'\n]{2,200}'|"[^"\n]{2,200}"|[^\s'"][^\s]{1,200})"""


def _entropy(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _stated_password(m: re.Match[str]) -> bool:
    """A password in a login call or after a flag: not a placeholder, a variable or a short word."""
    value = m.group("val").strip("'\"")
    if value.startswith("--") or value.startswith(("$", "%", "<", "{")):
        return False  # the next flag, or a reference ("$LDAP_PW", "%PASS%", "<password>", "{{ pw }}")
    if value.startswith("-") and _classes(value) < 3:
        return False  # "-b", "-x": the next short option
    return password_check(m) and len(value) >= 6 and (_classes(value) >= 2 or len(value) >= 12)


def _random_literal(m: re.Match[str]) -> bool:
    """A key-shaped literal: upper, lower and digits, near-maximal entropy for its length."""
    value = m.group("val")
    if is_placeholder(value) or _classes(value.replace("-", "").replace("_", "").replace(".", "")) < 3:
        return False
    return _entropy(value) >= min(4.2, math.log2(len(value)) - 0.7)


# Words no list of seed words or generated passphrase holds, but nearly every English sentence does.
_STOP = frozenset((
    "the", "a", "an", "and", "or", "to", "of", "in", "on", "for", "with", "you", "your", "is", "are", "be", "it",
    "this", "that", "not", "never", "should", "must", "will", "can", "at", "by", "from", "as", "we", "our", "my", "me",
    "if", "then", "than", "have", "has", "was", "were", "all", "any", "same", "each", "every", "only", "also", "just",
    "like", "more", "less", "long", "least", "most", "characters", "letters", "digits", "words", "password",
    "passphrase", "phrase", "please",
))  # fmt: skip


def _word_secret(m: re.Match[str]) -> bool:
    """Seed words or a passphrase: plain lower-case words, none of them a function word, not all alike."""
    words = m.group("val").replace("-", " ").split()
    return not _STOP.intersection(words) and len(set(words)) >= max(3, len(words) // 2)


# Function words that are not among BIP-39's 2,048 seed words (which do hold "all", "least", "again").
_NOT_SEED = frozenset((
    "the", "and", "you", "your", "is", "are", "to", "of", "for", "with", "that", "this", "it", "we", "my", "me", "not",
    "be", "was", "were",
))  # fmt: skip


def _seed_words(m: re.Match[str]) -> bool:
    words = m.group("val").split()
    return len(words) in (12, 15, 18, 21, 24) and not _NOT_SEED.intersection(words) and len(set(words)) >= 8


PLACE_RULES = (
    Rule(
        "password in a login call (.login(user, '…'))",
        r"\.(?:login|authenticate|auth|simple_bind_s|bind_s|bind)\(\s*['\"][^'\"\n]{1,100}['\"]\s*,\s*"
        r"(?P<val>'[^'\n]{4,100}'|\"[^\"\n]{4,100}\")",
        words=("login authenticate auth simple_bind_s bind_s bind",),
        at=(".login(", ".authenticate(", ".auth(", ".simple_bind_s(", ".bind_s(", ".bind("),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_stated_password,
    ),
    Rule(
        "secret given to an SDK client (Client('…'))",
        r"\b\w{0,30}(?:[Cc]lient(?:V\d)?|NewClient|\.run|[Aa]uth(?:enticate)?)\(\s*(?:api_key\s*=\s*)?['\"]"
        r"(?P<val>[A-Za-z0-9_.-]{24,200})['\"]",
        words=("client clientv2 newclient run auth authenticate",),
        at=("client(", "clientv2(", ".run(", "auth(", "authenticate("),
        back=40,
        ahead=260,
        on_text=True,
        flags=_CS,
        check=_random_literal,
    ),
    Rule(
        "password on an LDAP command line (ldapsearch … -w …)",
        rf"\bldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop)\b[^\n]{{0,400}}?\s-w\s+{_ARG}",
        words=("ldapsearch ldapmodify ldapadd ldapdelete ldappasswd ldapwhoami ldapcompare ldapmodrdn ldapexop",),
        anchored=True,
        ahead=600,
        on_text=True,
        flags=_CS,
        check=_stated_password,
    ),
    Rule(
        "password flag on a command line (--password …)",
        rf"(?<![\w-])--(?:[a-z]+-){{0,2}}(?:password|passwd|pass|pwd)(?:=|[ \t]+){_ARG}",
        words=("password passwd pass pwd",),
        at=("--",),
        anchored=True,
        ahead=260,
        on_text=True,
        flags=_CI,
        check=_stated_password,
    ),
    Rule(
        "password fed on stdin (--password-stdin <<< …)",
        rf"(?:password|passwd|pass|pwd)[\w-]*\b[^\n]{{0,60}}?<<<\s*{_ARG}",
        words=("password passwd pass pwd",),
        at=("<<<",),
        back=80,
        ahead=220,
        on_text=True,
        flags=_CI,
        check=_stated_password,
    ),
    Rule(
        "password in a .pgpass line (host:port:db:user:password)",
        r"^[\w.-]{1,100}:(?:\d{2,5}|\*):[^:\s]{1,64}:[^:\s]{1,64}:(?P<val>\S{8,128})$",
        subs=(":",),
        locate=r":(?:\d{2,5}|\*):",
        back=110,
        ahead=280,
        on_text=True,
        flags=_CS,
        check=lambda m: secretish(m.group("val")),
    ),
    Rule(
        'secret in a key/value pair ({"key": "api_token", "value": …})',
        r"[\"'](?:key|name)[\"']\s*:\s*[\"'][\w.-]{0,40}(?:token|secret|password|passwd|api_?key|apikey|_key)[\"']\s*,"
        r"\s*[\"']value[\"']\s*:\s*[\"'](?P<val>[^\"'\n]{8,300})[\"']",
        words=("value", "key name"),
        at=('"key"', "'key'", '"name"', "'name'"),
        anchored=True,
        ahead=420,
        on_text=True,
        flags=_CI,
        check=lambda m: secretish(m.group("val")),
    ),
    Rule(
        "password in a connection URL (scheme://user:…@…@host)",
        r"://[^\s:/@]{1,64}:(?P<val>[^\s/]{1,64}@[^\s/@]{1,64})@[\w-]+(?:\.[\w-]+)+",
        subs=("://",),
        anchored=True,
        ahead=220,
        on_text=True,
        flags=_CS,
        check=lambda m: not is_placeholder(m.group("val")),
    ),
    Rule(
        "wallet seed words (seed: twelve words …)",
        r"\b(?:seed(?:[\s-]phrase|\s+words)?|mnemonic(?:\s+phrase)?|recovery\s+phrase|backup\s+phrase|wallet\s+words"
        r"|助记词)\b[^\n:=]{0,40}?(?:[:=]|\bis\b)\s*['\"“]?(?P<val>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})(?![a-z])",
        words=("seed mnemonic phrase words",),
        subs=("助记词",),
        anchored=True,
        ahead=320,
        on_text=True,
        flags=_CS,
        check=_seed_words,
    ),
    Rule(
        "passphrase of plain words (passphrase … is 'word word word …')",
        r"\b(?:pass\s?phrase|password|passwort|mot\s+de\s+passe|contraseña|senha)\b[^\n]{0,60}?(?:\bis\b|:|=)\s*"
        r"(?:['\"“‘](?P<val>[a-z]{3,12}(?:[ -][a-z]{3,12}){2,9})['\"”’]"
        r"|(?P<bare>[a-z]{3,12}(?:[ -][a-z]{3,12}){3,9})(?=\s*(?:—|–|\(|\.(?:\s|$)|!|;|$)))",
        words=("passphrase phrase password passwort passe contraseña senha",),
        anchored=True,
        ahead=260,
        on_text=True,
        flags=_CS,
        check=lambda m: _word_secret_either(m),
    ),
    Rule(
        "BitLocker recovery key (eight groups of six digits)",
        r"(?<![\d-])(?P<val>\d{6}(?:-\d{6}){7})(?![\d-])",
        subs=("-",),
        locate=r"\d{6}-\d{6}-\d{6}-",
        back=8,
        ahead=70,
        on_text=True,
        flags=_CS,
        check=lambda m: len(set(m.group("val"))) >= 6,
    ),
    Rule(
        "Rails secret_key_base (secret_key_base: …)",
        r"\bsecret_key_base\b[\"']?\s*[:=]\s*[\"']?(?P<val>[0-9a-f]{64,256})(?![0-9a-f])",
        words=("secret",),
        at=("secret_key_base",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=lambda m: not is_placeholder(m.group("val")),
    ),
    Rule(
        "WordPress application password (xxxx xxxx xxxx xxxx xxxx xxxx)",
        r"(?:passwor[dt]|pwd|pass)\b[^\n]{0,40}?(?<![A-Za-z0-9])(?P<val>[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})"
        r"(?![A-Za-z0-9])",
        words=("password passwort pwd pass",),
        at=("passwor", "pwd", "pass"),
        anchored=True,
        ahead=120,
        on_text=True,
        flags=_CI,
        check=lambda m: _classes(m.group("val").replace(" ", "")) >= 2 and not is_placeholder(m.group("val")),
    ),
)


def _word_secret_either(m: re.Match[str]) -> bool:
    value = m.group("val") or m.group("bare")
    if value is None:
        return False
    words = value.replace("-", " ").split()
    return not _STOP.intersection(words) and len(set(words)) >= 2 and len(words) >= 3
