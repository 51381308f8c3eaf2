"""Credential rules for key and token formats, and the scanner's credential entry point.

Formats are those published by the providers and collected by gitleaks, detect-secrets and
Nosey Parker (tests/data/scanner/corpus.json lists the sources). A rule names the format and at
most its public prefix ("sk-…"); details never echo a secret. Secrets recognised by where they
stand rather than by their shape (assignments, command-line flags, URLs) are in
``_credentials_context``; both run as one rule set, formats first, so "API_KEY=sk-…" is reported
once, as an OpenAI key.
"""

from __future__ import annotations

import re

from ._credential_checks import (
    api_key_check,
    key_name,
    letters_check,
    no_placeholder_check,
    prefixed_token_check,
    random_check,
    token_check,
)
from ._credential_vendors import GENERIC_PREFIXED, key_bytes_check, vendor_rules
from ._credentials_context import CONTEXT_RULES
from ._credentials_generic import generic_secrets
from ._credentials_places import PLACE_RULES
from ._findings import CREDENTIAL, Finding, FindingSet
from ._normalize import View
from ._rules import Rule, RuleSet, ScanText

_CS = re.MULTILINE  # credential formats are case-sensitive: "AKIA…", not "akia…"
_CI = re.IGNORECASE | re.MULTILINE
_KEY_BODY = re.compile(r"[A-Za-z0-9+/=]{40}")
FORMAT_RULES = (
    Rule(
        "PEM private key block (-----BEGIN … PRIVATE KEY-----)",
        r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"
        # The body runs to the next "-----": a header without its END costs only that far.
        r"(?:(?:[^-]|-(?!----)){0,10000}-----END [A-Z ]{0,20}PRIVATE KEY(?: BLOCK)?-----)?",
        words=("private", "key"),
        at=("private key",),
        back=30,
        ahead=10100,
        on_text=True,
        flags=_CS,
        # "Paste your key between the markers: -----BEGIN … -----\n...\n-----END …": a template, not a key.
        check=lambda m: "-----END" not in m.group() or _KEY_BODY.search(m.group()) is not None,
    ),
    Rule(
        "Anthropic API key (sk-ant-…)",
        r"(?<![A-Za-z0-9])sk-ant-(?:(?:api|admin)\d\d-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-ant-",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CS,
        check=api_key_check,
    ),
    Rule(
        "OpenAI-style API key (sk-…)",
        r"(?<![A-Za-z0-9])sk-(?:(?:proj|svcacct|admin)-)?(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("sk-",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CS,
        check=api_key_check,
    ),
    Rule(
        "Stripe key (sk_live_…/sk_test_…/rk_…)",
        # Stripe's keys have 24+ characters after the prefix; "mask('sk_live_abcdef1234')" is a docstring's.
        r"(?<![A-Za-z0-9])[sr]k_(?:live|test|prod)_(?P<val>[A-Za-z0-9]{16,})",
        words=("live test prod", "sk rk"),
        at=("k_live_", "k_test_", "k_prod_"),
        back=1,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=token_check,
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
        check=token_check,
    ),
    Rule(
        "GitHub fine-grained token (github_pat_…)",
        r"(?<![A-Za-z0-9_])github_pat_(?P<val>[A-Za-z0-9_]{22,})",
        words=("github", "pat"),
        at=("github_pat_",),
        ahead=300,
        on_text=True,
        flags=_CS,
        check=token_check,
    ),
    Rule(
        "AWS access key id (AKIA…/ASIA…)",
        r"(?<![A-Z0-9])(?P<val>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])",
        subs=("akia", "asia"),
        ahead=30,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "AWS secret access key (aws_secret_access_key=…)",
        r"aws_secret_access_key[\"']?(?:\s*(?:=|:|=>)\s*|\s+)[\"']?(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        words=("aws", "secret"),
        at=("aws_secret_access_key",),
        ahead=120,
        on_text=True,
        flags=_CI,
        check=no_placeholder_check,
    ),
    Rule(
        "Slack token (xox?-…)",
        r"(?<![A-Za-z0-9])xox[baprse]-(?P<val>[A-Za-z0-9-]{10,})",
        words=("xoxb xoxa xoxp xoxr xoxs xoxe",),
        at=("xox",),
        ahead=300,
        on_text=True,
        flags=_CS,
        check=token_check,
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
        check=no_placeholder_check,
    ),
    Rule(
        "Google API key (AIza…)",
        r"(?<![A-Za-z0-9_-])(?P<val>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])",
        subs=("aiza",),
        ahead=60,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "JSON Web Token (eyJ…)",
        r"(?<![A-Za-z0-9_-])(?P<val>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        subs=("eyj",),
        ahead=4000,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "bearer token (Bearer …)",
        r"\bbearer\s+(?P<val>[A-Za-z0-9\-._~+/]{16,}=*)",
        words=("bearer",),
        anchored=True,
        ahead=2000,
        on_text=True,
        flags=_CI,
        check=token_check,
    ),
    Rule(
        "GitLab token (glpat-…)",
        r"(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("gl",),
        locate=r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-",
        back=8,
        ahead=300,
        on_text=True,
        flags=_CS,
        check=prefixed_token_check,
    ),
    Rule(
        "npm access token (npm_…)",
        r"(?<![A-Za-z0-9_])npm_(?P<val>[A-Za-z0-9]{36})(?![A-Za-z0-9])",
        subs=("npm_",),
        anchored=True,
        ahead=60,
        on_text=True,
        flags=_CS,
        check=token_check,
    ),
    Rule(
        "PyPI upload token (pypi-…)",
        r"(?<![A-Za-z0-9_-])pypi-(?P<val>Ag[A-Za-z0-9_-]{50,})",
        subs=("pypi-ag",),
        anchored=True,
        ahead=1200,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Hugging Face token (hf_…)",
        r"(?<![A-Za-z0-9_])hf_(?P<val>[A-Za-z0-9]{30,40})(?![A-Za-z0-9])",
        subs=("hf_",),
        anchored=True,
        ahead=60,
        on_text=True,
        flags=_CS,
        check=letters_check,
    ),
    Rule(
        "SendGrid API key (SG.…)",
        r"(?<![A-Za-z0-9])SG\.(?P<val>[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])",
        subs=("sg.",),
        anchored=True,
        ahead=80,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Google OAuth client secret (GOCSPX-…)",
        r"(?<![A-Za-z0-9_-])GOCSPX-(?P<val>[A-Za-z0-9_-]{28})(?![A-Za-z0-9_-])",
        subs=("gocspx-",),
        anchored=True,
        ahead=50,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Docker Hub token (dckr_pat_…)",
        r"(?<![A-Za-z0-9_])dckr_pat_(?P<val>[A-Za-z0-9_-]{20,})",
        subs=("dckr_pat_",),
        anchored=True,
        ahead=120,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Twilio account SID with its auth token",
        r"\bAC[0-9a-f]{32}\b[^\n]{0,160}?(?<![0-9a-fA-F])(?P<val>[0-9a-f]{32})(?![0-9a-fA-F])",
        subs=("ac",),
        locate=r"AC[0-9a-f]{32}",  # a literal first: the regex engine skips to it
        anchored=True,
        ahead=240,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Twilio API key (SK…)",
        r"(?<![A-Za-z0-9])SK(?P<val>[0-9a-f]{32})(?![A-Za-z0-9])",
        subs=("sk",),
        locate=r"SK[0-9a-f]{32}",
        anchored=True,
        ahead=40,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Mailgun key (key-…)",
        r"(?<![A-Za-z0-9])key-(?P<val>[0-9a-f]{32})(?![A-Za-z0-9])",
        subs=("key-",),
        anchored=True,
        ahead=40,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Mailgun signing key",
        r"(?<![0-9a-f])(?P<val>[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})(?![0-9a-f-])",
        words=("mailgun",),
        at=("mailgun",),
        ahead=200,
        on_text=True,
        flags=_CS,
        check=no_placeholder_check,
    ),
    Rule(
        "Telegram bot token",
        r"(?:(?<=bot)|(?<![0-9A-Za-z]))(?P<val>\d{5,16}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])",
        subs=(":aa",),
        back=17,
        ahead=40,
        on_text=True,
        flags=_CS,
        check=random_check,
    ),
    Rule(
        "Discord bot token",
        r"(?<![A-Za-z0-9_.-])(?P<val>[A-Za-z0-9][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?![A-Za-z0-9_-])",
        subs=(".",),
        locate=r"\.[A-Za-z0-9_-]{6}\.",  # the middle segment: "." alone would make every dot a pivot
        back=30,
        ahead=50,
        on_text=True,
        flags=_CS,
        check=random_check,
    ),
    Rule(
        "Azure storage account key",
        r"(?<![A-Za-z0-9+/-])(?P<val>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])",
        subs=("==",),
        back=90,
        ahead=4,
        on_text=True,
        flags=_CS,
        check=key_bytes_check,  # 64 random bytes; a MIME body of the same length decodes to text
    ),
    Rule(
        "PuTTY private key (PuTTY-User-Key-File-…)",
        r"Private-Lines:[ \t]*\d+[ \t]*\r?\n(?P<val>(?:[A-Za-z0-9+/=]{1,128}\r?\n?){1,300})"
        r"(?:Private-MAC:[ \t]*[0-9a-fA-F]+)?",
        subs=("putty-user-key-file-",),
        at=("private-lines:",),
        anchored=True,
        ahead=40000,
        on_text=True,
        flags=_CS,
    ),
    Rule(
        "AWS secret access key (beside 'aws' or 'secret')",
        r"(?i:aws|secret)[^\n]{0,120}?(?<![A-Za-z0-9/+=])(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        words=("aws secret",),
        at=("aws", "secret"),
        anchored=True,
        ahead=200,
        on_text=True,
        flags=_CS,
        check=random_check,
    ),
)
_CREDENTIAL_RULES = RuleSet(*FORMAT_RULES, *vendor_rules(), *CONTEXT_RULES, *PLACE_RULES, GENERIC_PREFIXED)


def credential_findings(view: View, t: ScanText | None = None) -> list[Finding]:
    """The credential findings of a folded view, with offsets of the text it was made from."""
    t = ScanText(view.text, view.low) if t is None else t
    findings = FindingSet()
    for rule, m in _CREDENTIAL_RULES.run(t):
        label = rule.label.replace("{key}", key_name(m)[-40:]) if "{key}" in rule.label else rule.label
        start, end = view.span(m.start(), m.end())
        # Rules run most specific first, so "API_KEY=sk-…" is reported once, as an OpenAI key.
        findings.add(CREDENTIAL, f"{label} at offset {start}", start, end)
    if not findings.items:  # a known format names the secret better; this only fills the gaps
        for m_start, m_end in generic_secrets(t.text, t.low):
            start, end = view.span(m_start, m_end)
            findings.add(CREDENTIAL, f"random-looking value named as a secret at offset {start}", start, end)
    return findings.items
