"""Credential rules: key formats, tokens and secret assignments, with placeholder and code filters.

Details never echo a secret; at most the public prefix of a key format ("sk-…") is shown.
"""

from __future__ import annotations

import re

from ._findings import CREDENTIAL, Finding, add_finding
from ._normalize import View
from ._rules import Rule, RuleSet, ScanText

_PLACEHOLDER_WORDS = (
    "your",
    "example",
    "changeme",
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
)


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    if not value or value[0] in "<{$%[(*#" or len(set(low)) <= 2:
        return True
    return any(w in low for w in _PLACEHOLDER_WORDS)


def _token_check(m: re.Match[str]) -> bool:
    # Real tokens are random: they mix letters and digits; slugs and "YOUR_TOKEN_HERE" do not.
    value = m.group("val")
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and not _is_placeholder(value)


def _api_key_check(m: re.Match[str]) -> bool:
    # "sk-hynix-memory-chip-prices-2024" is a slug: real key bodies are rarely hyphen-separated words.
    value = m.group("val")
    return _token_check(m) and value.count("-") <= len(value) // 8


def _no_placeholder_check(m: re.Match[str]) -> bool:
    return not _is_placeholder(m.group("val"))


def _secretish(value: str) -> bool:
    value = value.rstrip(".,;:)]}>!?")
    if len(value) < 8 or _is_placeholder(value) or "(" in value:
        return False  # getpass(), os.getenv("X"): code that fetches a secret, not a secret
    if value.startswith(("/", "~", "./", "../", "file:")) or "://" in value or "%20" in value:
        return False  # a path, a URL or URL-encoded words ("token=Root%20CA%20Certificates")
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts):
        return False  # settings.DB_PASSWORD
    if value.isidentifier() and value.isupper():
        return False  # DB_PASSWORD: a reference to an environment variable
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "-_." for c in value)
    classes = lower + upper + digit + symbol
    return (digit and (lower or upper)) or classes >= 3 or (len(value) >= 24 and classes >= 2)


def _key_name(m: re.Match[str]) -> str:
    """The whole name a credential keyword ends, e.g. "DB_PASSWORD" for a match at "PASSWORD"."""
    start = m.start()
    while start > 0 and (m.string[start - 1].isalnum() or m.string[start - 1] in "_.-"):
        start -= 1
    return m.string[start : m.start()] + m.group().split("=")[0].split(":")[0].strip("\"' \t")


# "key" alone ends too many names ("primary_key", "monkey", "cache_key") to count without these.
_KEY_PREFIXES = ("api", "access", "secret", "private", "signing", "encryption", "master", "client")


def _value_check(m: re.Match[str]) -> bool:
    return _secretish(m.group("val"))


def _assignment_check(m: re.Match[str]) -> bool:
    name = _key_name(m).lower()
    if name.endswith("key") and not name[:-3].rstrip("_.-").endswith(_KEY_PREFIXES):
        return False
    return _secretish(m.group("val"))


def _url_password_check(m: re.Match[str]) -> bool:
    value = m.group("val")
    return not value.isdigit() and not _is_placeholder(value) and value.lower() not in ("pass", "pwd", "secret")


_CS = re.MULTILINE  # credential formats are case-sensitive: "AKIA…", not "akia…"
_CI = re.IGNORECASE | re.MULTILINE
_CREDENTIAL_RULES = RuleSet(
    Rule(
        "PEM private key block (-----BEGIN … PRIVATE KEY-----)",
        r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,10000}?-----END [A-Z ]{0,20}PRIVATE KEY(?: BLOCK)?-----)?",
        words=("private", "key"),
        at=("private key",),
        back=30,
        ahead=10100,
        on_text=True,
        flags=_CS,
    ),
    Rule(
        "Anthropic API key (sk-ant-…)",
        r"(?<![A-Za-z0-9])sk-ant-(?:(?:api|admin)\d\d-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-ant-",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CS,
        check=_api_key_check,
    ),
    Rule(
        "OpenAI-style API key (sk-…)",
        r"(?<![A-Za-z0-9])sk-(?:(?:proj|svcacct|admin)-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CS,
        check=_api_key_check,
    ),
    Rule(
        "Stripe live key (sk_live_…/rk_live_…)",
        r"(?<![A-Za-z0-9])[sr]k_live_(?P<val>[A-Za-z0-9]{16,})",
        words=("live", "sk rk"),
        at=("k_live_",),
        back=1,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_token_check,
    ),
    Rule(
        "GitHub token (gh?_…)",
        r"(?<![A-Za-z0-9_])gh[pousr]_(?P<val>[A-Za-z0-9]{36,})(?![A-Za-z0-9])",
        words=("ghp gho ghu ghs ghr",),
        at=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_token_check,
    ),
    Rule(
        "GitHub fine-grained token (github_pat_…)",
        r"(?<![A-Za-z0-9_])github_pat_(?P<val>[A-Za-z0-9_]{22,})",
        words=("github", "pat"),
        at=("github_pat_",),
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_token_check,
    ),
    Rule(
        "AWS access key id (AKIA…/ASIA…)",
        r"(?<![A-Z0-9])(?P<val>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])",
        subs=("akia", "asia"),
        ahead=30,
        on_text=True,
        flags=_CS,
        check=_no_placeholder_check,
    ),
    Rule(
        "AWS secret access key (aws_secret_access_key=…)",
        r"aws_secret_access_key[\"']?\s*(?:=|:|=>)\s*[\"']?(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        words=("aws", "secret"),
        at=("aws_secret_access_key",),
        ahead=120,
        on_text=True,
        flags=_CI,
        check=_no_placeholder_check,
    ),
    Rule(
        "Slack token (xox?-…)",
        r"(?<![A-Za-z0-9])xox[baprse]-(?P<val>[A-Za-z0-9-]{10,})",
        words=("xoxb xoxa xoxp xoxr xoxs xoxe",),
        at=("xox",),
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_token_check,
    ),
    Rule(
        "Slack webhook URL (hooks.slack.com/…)",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<val>[A-Za-z0-9_/-]{20,})",
        words=("hooks", "slack"),
        at=("hooks.slack.com",),
        back=8,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=_no_placeholder_check,
    ),
    Rule(
        "Google API key (AIza…)",
        r"(?<![A-Za-z0-9_-])(?P<val>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])",
        subs=("aiza",),
        ahead=60,
        on_text=True,
        flags=_CS,
        check=_no_placeholder_check,
    ),
    Rule(
        "JSON Web Token (eyJ…)",
        r"(?<![A-Za-z0-9_-])(?P<val>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        subs=("eyj",),
        ahead=4000,
        on_text=True,
        flags=_CS,
        check=_no_placeholder_check,
    ),
    Rule(
        "bearer token (Bearer …)",
        r"\bbearer\s+(?P<val>[A-Za-z0-9\-._~+/]{16,}=*)",
        words=("bearer",),
        anchored=True,
        ahead=2000,
        on_text=True,
        flags=_CI,
        check=_token_check,
    ),
    Rule(
        "password in a connection URL (scheme://user:…@host)",
        r"://[^\s:/@]{1,64}:(?P<val>[^\s/@]{4,128})@[\w.\[-]",
        subs=("://",),
        anchored=True,
        ahead=220,
        on_text=True,
        flags=_CI,
        check=_url_password_check,
    ),
    Rule(
        "secret assignment ({key}=…)",
        r"(?:password|passwd|passphrase|secret|key|token)[\"']?[ \t]*(?:=|:=|:|=>)[ \t]*[\"']?(?P<val>[^\s\"'`,;]{8,})",
        words=("password passwd passphrase secret key apikey secretkey privatekey accesskey token",),
        at=("pass", "secret", "key", "token"),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=_assignment_check,
    ),
    Rule(
        "password stated in text (password is …)",
        r"\b(?:password|passcode|passphrase|passwort)\s+(?:is|was)\s+[\"'“‘]?(?P<val>[^\s\"'”’]{8,})",
        words=("password passcode passphrase passwort",),
        at=("pass",),
        anchored=True,
        ahead=200,
        on_text=True,
        flags=_CI,
        check=_value_check,
    ),
)


def credential_findings(view: View, t: ScanText | None = None) -> list[Finding]:
    """The credential findings of a folded view, with offsets of the text it was made from."""
    t = ScanText(view.text, view.low) if t is None else t
    findings: list[Finding] = []
    for rule, m in _CREDENTIAL_RULES.run(t):
        label = rule.label.replace("{key}", _key_name(m)[-40:]) if "{key}" in rule.label else rule.label
        start, end = view.span(m.start(), m.end())
        # Rules run most specific first, so "API_KEY=sk-…" is reported once, as an OpenAI key.
        add_finding(findings, CREDENTIAL, f"{label} at offset {start}", start, end)
    return findings
