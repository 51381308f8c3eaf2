"""Credential rules for vendor token formats with a distinctive prefix, one row per format.

The formats are those of gitleaks' default rule set (config/gitleaks.toml) and the vendors' own
documentation of their token prefixes; each row is (label, regex, literal gates). A row's regex
starts at one of its gates (matched on the lower-cased text, so a gate is lower case) and runs
case-sensitively on the text itself, so it costs a substring test per gate on a clean text.
A final rule catches prefixed tokens of vendors not listed: a short lower-case prefix, "_" or
"-", then 32 or more random characters of mixed case and digits.
"""

from __future__ import annotations

import base64
import binascii
import re
from itertools import pairwise

from ._credential_checks import is_placeholder, random_check, token_check
from ._rules import Rule

_CS = re.MULTILINE
# Not inside a longer token: what a prefix may follow.
_B = r"(?<![A-Za-z0-9_.+/-])"

# (label, regex with a "val" group, gates)
_VENDORS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        # Okta's API token is sent with its own scheme: "Authorization: SSWS 00…" (42 characters).
        "Okta API token (SSWS 00…)",
        r"\bSSWS\s+(?P<val>00[A-Za-z0-9_-]{38,42})(?![A-Za-z0-9_-])",
        ("ssws",),
    ),
    # Formats of gitleaks' rule set (square-access-token, crates-io, nuget, dropbox, asana, new-relic,
    # mercadopago) that the rows below did not have.
    ("Square access token (EAAA…)", _B + r"EAAA(?P<val>[A-Za-z0-9_-]{56,80})(?![A-Za-z0-9_-])", ("eaaa",)),
    ("crates.io token (cio…)", _B + r"cio(?P<val>[A-Za-z0-9]{32})(?![A-Za-z0-9])", ("cio",)),
    ("NuGet API key (oy2…)", _B + r"oy2(?P<val>[a-z0-9]{43})(?![a-z0-9])", ("oy2",)),
    ("Dropbox token (sl.…)", _B + r"sl\.(?:[a-z]\.)?(?P<val>[A-Za-z0-9_-]{60,300})(?![A-Za-z0-9_-])", ("sl.",)),
    (
        "Asana personal access token (1/…:…)",
        r"(?<![\w/])[012]/\d{13,16}(?:/\d{13,16})?:(?P<val>[a-f0-9]{32})(?![a-f0-9])",
        (":",),
    ),
    ("New Relic license key (…NRAL)", _B + r"(?P<val>[a-z]{2}\d{2}xx[a-f0-9]{30}|[a-f0-9]{36})NRAL\b", ("nral",)),
    (
        "Airtable personal access token (pat….…)",
        _B + r"pat[A-Za-z0-9]{14}\.(?P<val>[a-f0-9]{64})(?![a-f0-9])",
        ("pat",),
    ),
    ("GitLab runner registration token (GR1348941…)", _B + r"GR1348941(?P<val>[A-Za-z0-9_-]{20,})", ("gr1348941",)),
    (
        "Splunk HEC token (Authorization: Splunk …)",
        r"\bSplunk\s+(?P<val>[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})\b",
        ("splunk",),
    ),
    (
        "Firebase Cloud Messaging server key (AAAA…:APA91b…)",
        _B + r"AAAA[A-Za-z0-9_-]{7}:(?P<val>APA91b[A-Za-z0-9_-]{100,200})",
        (":apa91b",),
    ),
    ("Facebook access token (EAA…)", _B + r"EAA[A-Z][A-Za-z0-9]{80,300}(?P<val>)(?![A-Za-z0-9])", ("eaa",)),
    ("BitLocker recovery key", r"(?<![\d-])(?P<val>\d{6}(?:-\d{6}){7})(?![\d-])", ("-",)),
    (
        "Mercado Pago access token (APP_USR-…)",
        _B + r"APP_USR-\d{16}-\d{6}-(?P<val>[a-f0-9]{32})-\d{6,12}",
        ("app_usr-",),
    ),
    (
        "age secret key (AGE-SECRET-KEY-1…)",
        r"AGE-SECRET-KEY-1(?P<val>[A-Z0-9]{50,70})(?![A-Z0-9])",
        ("age-secret-key-1",),
    ),
    (
        "HashiCorp Vault token (hvs./hvb./hvr.…)",
        _B + r"hv[sbr]\.(?P<val>[A-Za-z0-9_-]{24,200})",
        ("hvs.", "hvb.", "hvr."),
    ),
    (
        "Terraform Cloud token (….atlasv1.…)",
        r"[A-Za-z0-9]{14}\.atlasv1\.(?P<val>[A-Za-z0-9_=-]{60,70})",
        (".atlasv1.",),
    ),
    ("DigitalOcean token (dop_v1_…)", _B + r"do[opr]_v1_(?P<val>[a-f0-9]{64})", ("dop_v1_", "doo_v1_", "dor_v1_")),
    (
        "Discord webhook URL",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/(?P<val>[A-Za-z0-9_-]{40,100})",
        ("discord",),
    ),
    (
        "Microsoft Teams webhook URL",
        r"https://[\w-]{1,60}\.webhook\.office\.com/webhookb2/(?P<val>[\w@/-]{40,300})",
        (".webhook.office.com/",),
    ),
    (
        "Shopify token (shpat_…)",
        _B + r"shp(?:at|ca|pa|ss)_(?P<val>[a-fA-F0-9]{32})",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    ("Slack app token (xapp-…)", _B + r"xapp-\d-(?P<val>[A-Z0-9]{6,}-\d{6,}-[a-f0-9]{20,})", ("xapp-",)),
    ("Grafana token (glsa_/glc_…)", _B + r"gl(?:sa|c)_(?P<val>[A-Za-z0-9+/_=]{32,400})", ("glsa_", "glc_")),
    ("Square token (sq0atp-/sq0csp-…)", _B + r"sq0(?:atp|csp|idp)-(?P<val>[0-9A-Za-z_-]{22,43})", ("sq0",)),
    ("Stripe webhook secret (whsec_…)", _B + r"whsec_(?P<val>[A-Za-z0-9+/]{24,})", ("whsec_",)),
    ("Linear API key (lin_api_…)", _B + r"lin_(?:api|oauth)_(?P<val>[A-Za-z0-9]{40})", ("lin_api_", "lin_oauth_")),
    (
        "Notion token (ntn_/secret_…)",
        _B + r"(?:ntn_\d{11}|secret_)(?P<val>[A-Za-z0-9]{32,46})(?![A-Za-z0-9])",
        ("ntn_", "secret_"),
    ),
    ("Figma token (figd_…)", _B + r"fig[dou]_(?P<val>[A-Za-z0-9_-]{40})", ("figd_", "figo_", "figu_")),
    ("Postman API key (PMAK-…)", _B + r"PMAK-(?P<val>[a-f0-9]{24}-[a-f0-9]{34})", ("pmak-",)),
    ("Databricks token (dapi…)", _B + r"dapi(?P<val>[a-f0-9]{32})(?:-\d)?(?![A-Za-z0-9])", ("dapi",)),
    ("PlanetScale token (pscale_…)", _B + r"pscale_(?:tkn|pw|oauth)_(?P<val>[A-Za-z0-9_=.-]{32,64})", ("pscale_",)),
    ("Sentry token (sntrys_/sntryu_…)", _B + r"sntry[su]_(?P<val>[A-Za-z0-9_=+/-]{40,})", ("sntrys_", "sntryu_")),
    ("RubyGems API key (rubygems_…)", _B + r"rubygems_(?P<val>[a-f0-9]{48})", ("rubygems_",)),
    ("Flutterwave secret key (FLWSECK-…)", _B + r"FLWSECK(?:_TEST)?-(?P<val>[a-hA-H0-9]{32})-X", ("flwseck",)),
    ("Shippo token (shippo_live_…)", _B + r"shippo_(?:live|test)_(?P<val>[a-f0-9]{40})", ("shippo_",)),
    ("Doppler token (dp.pt.…)", _B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?P<val>[A-Za-z0-9]{40,44})", ("dp.",)),
    ("Heroku API key (HRKU-…)", _B + r"HRKU-(?P<val>[A-Za-z0-9_-]{36,80})", ("hrku-",)),
    ("Mapbox secret token (sk.eyJ…)", _B + r"sk\.eyJ(?P<val>[A-Za-z0-9_-]{30,}\.[A-Za-z0-9_-]{16,})", ("sk.eyj",)),
    (
        "New Relic key (NRAK-…)",
        _B + r"NR(?:AK|II|JS|AA)-(?P<val>[A-Za-z0-9]{19,32})",
        ("nrak-", "nrii-", "nrjs-", "nraa-"),
    ),
    ("Alibaba Cloud access key (LTAI…)", _B + r"LTAI(?P<val>[A-Za-z0-9]{20})(?![A-Za-z0-9])", ("ltai",)),
    ("Groq API key (gsk_…)", _B + r"gsk_(?P<val>[A-Za-z0-9]{48,56})", ("gsk_",)),
    ("Replicate token (r8_…)", _B + r"r8_(?P<val>[A-Za-z0-9]{37})", ("r8_",)),
    ("Perplexity API key (pplx-…)", _B + r"pplx-(?P<val>[A-Za-z0-9]{40,56})", ("pplx-",)),
    ("xAI API key (xai-…)", _B + r"xai-(?P<val>[A-Za-z0-9]{70,90})", ("xai-",)),
    ("LangSmith key (lsv2_…)", _B + r"lsv2_(?:pt|sk)_(?P<val>[a-f0-9]{32}_[a-f0-9]{10})", ("lsv2_",)),
    ("Pinecone API key (pcsk_…)", _B + r"pcsk_(?P<val>[A-Za-z0-9_]{40,})", ("pcsk_",)),
    ("Supabase token (sbp_…)", _B + r"sb(?:p|_secret)_(?P<val>[A-Za-z0-9_-]{32,})", ("sbp_", "sb_secret_")),
    ("Netlify token (nfp_…)", _B + r"nf[pc]_(?P<val>[A-Za-z0-9]{36,})", ("nfp_", "nfc_")),
    ("Fly.io token (FlyV1 fm2_…)", _B + r"fm[12]_(?P<val>[A-Za-z0-9+/=_-]{50,})", ("fm1_", "fm2_")),
    ("Render API key (rnd_…)", _B + r"rnd_(?P<val>[A-Za-z0-9]{32})", ("rnd_",)),
    ("CircleCI token (CCIPAT_…)", _B + r"CCIP(?:AT|RJ)_(?P<val>[A-Za-z0-9]{20,}_[a-f0-9]{40})", ("ccipat_", "cciprj_")),
    ("Buildkite token (bkua_…)", _B + r"bkua_(?P<val>[a-f0-9]{40})", ("bkua_",)),
    ("Bitbucket app password (ATBB…)", _B + r"ATBB(?P<val>[A-Za-z0-9_=.-]{28,40})", ("atbb",)),
    ("Atlassian API token (ATATT…)", _B + r"ATATT3(?P<val>[A-Za-z0-9_=-]{150,200})", ("atatt3",)),
    ("JFrog API key (AKCp…)", _B + r"AKCp(?P<val>[A-Za-z0-9]{60,80})", ("akcp",)),
    ("SonarQube token (sqp_…)", _B + r"sq[pua]_(?P<val>[a-f0-9]{40})", ("sqp_", "squ_", "sqa_")),
    (
        "Brevo API key (xkeysib-…)",
        _B + r"xkey(?:sib|smtpsib)-(?P<val>[a-f0-9]{64}-[A-Za-z0-9]{16})",
        ("xkeysib-", "xsmtpsib-"),
    ),
    ("Mailchimp API key (…-us…)", r"(?<![A-Za-z0-9])(?P<val>[0-9a-f]{32})-us\d{1,2}(?![0-9])", ("-us",)),
    (
        "Plaid access token (access-production-…)",
        _B + r"access-(?:sandbox|development|production)-(?P<val>[0-9a-f-]{36})",
        ("access-",),
    ),
    ("Adafruit IO key (aio_…)", _B + r"aio_(?P<val>[A-Za-z0-9]{28})", ("aio_",)),
    ("Contentful token (CFPAT-…)", _B + r"CFPAT-(?P<val>[A-Za-z0-9_-]{43})", ("cfpat-",)),
    ("Dynatrace token (dt0c01.…)", _B + r"dt0[a-z]\d{2}\.(?P<val>[A-Z0-9]{24}\.[A-Z0-9]{64})", ("dt0",)),
    ("EasyPost key (EZAK…)", _B + r"EZ[AT]K(?P<val>[A-Za-z0-9]{40,60})(?![A-Za-z0-9])", ("ezak", "eztk")),
    ("Frame.io token (fio-u-…)", _B + r"fio-u-(?P<val>[A-Za-z0-9_=-]{64})", ("fio-u-",)),
    ("Infracost key (ico-…)", _B + r"ico-(?P<val>[A-Za-z0-9]{32})", ("ico-",)),
    ("Prefect token (pnu_…)", _B + r"pnu_(?P<val>[A-Za-z0-9]{36})", ("pnu_",)),
    ("Pulumi token (pul-…)", _B + r"pul-(?P<val>[a-f0-9]{40})", ("pul-",)),
    ("ReadMe API key (rdme_…)", _B + r"rdme_(?P<val>[a-z0-9]{70})", ("rdme_",)),
    ("1Password service account token (ops_eyJ…)", _B + r"ops_eyJ(?P<val>[A-Za-z0-9+/=_-]{100,})", ("ops_eyj",)),
    ("Yandex token (y0_…)", _B + r"y[0-3]_(?P<val>[A-Za-z0-9_-]{55})", ("y0_", "y1_", "y2_", "y3_")),
    ("Google OAuth access token (ya29.…)", _B + r"ya29\.(?P<val>[A-Za-z0-9_-][A-Za-z0-9_.-]{29,})", ("ya29.",)),
    ("Google OAuth refresh token (1//…)", r"(?<![A-Za-z0-9/])1//0(?P<val>[A-Za-z0-9_-]{30,})", ("1//0",)),
    ("Facebook access token (EAA…)", _B + r"EAA[A-Za-z]{0,8}(?P<val>[A-Za-z0-9]{90,})", ("eaa",)),
    ("Firebase Cloud Messaging key (AAAA…:…)", _B + r"AAAA[A-Za-z0-9_-]{7}:(?P<val>[A-Za-z0-9_-]{140})", ("aaaa",)),
    ("Twitter bearer token (AAAA…%…)", _B + r"A{22}(?P<val>[A-Za-z0-9%]{60,})", ("aaaaaaaaaaaaaaaaaaaaaa",)),
    ("Cloudflare origin CA key (v1.0-…)", _B + r"v1\.0-(?P<val>[a-f0-9]{24}-[a-f0-9]{146})", ("v1.0-",)),
    (
        "Azure AD client secret (…Q~…)",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~(?P<val>[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])",
        ("q~",),
    ),
    ("NuGet API key (oy2…)", _B + r"oy2(?P<val>[a-z0-9]{43})(?![a-z0-9])", ("oy2",)),
    ("Clojars token (CLOJARS_…)", _B + r"CLOJARS_(?P<val>[a-z0-9]{60})", ("clojars_",)),
    ("Typeform token (tfp_…)", _B + r"tfp_(?P<val>[A-Za-z0-9_.=-]{40,60})", ("tfp_",)),
    ("Duffel token (duffel_live_…)", _B + r"duffel_(?:test|live)_(?P<val>[A-Za-z0-9_=-]{43})", ("duffel_",)),
    ("Scalingo token (tk-us-…)", _B + r"tk-us-(?P<val>[A-Za-z0-9_-]{48})", ("tk-us-",)),
    (
        "PayPal Braintree token (access_token$production$…)",
        r"access_token\$(?:production|sandbox)\$(?P<val>[0-9a-z]{16}\$[0-9a-f]{32})",
        ("access_token$",),
    ),
    ("Azure SAS token (…&sig=…)", r"[?&;]sig=(?P<val>[A-Za-z0-9%+/]{30,120}(?:%3D|=){0,2})", ("sig=",)),
    # Round 8 (formats from the vendors' docs): Razorpay key ids, Opsgenie's "GenieKey" scheme, ClickUp
    # personal tokens, Resend keys, Salesforce session ids, Twitch chat tokens, Sentry DSNs, Algolia admin keys.
    ("Zapier webhook URL", r"hooks\.zapier\.com/hooks/catch/(?P<val>\d{4,12}/[a-z0-9]{5,12})", ("hooks.zapier.com",)),
    ("Razorpay key id (rzp_live_…)", _B + r"rzp_(?:live|test)_(?P<val>[A-Za-z0-9]{14,})", ("rzp_",)),
    ("Opsgenie API key (GenieKey …)", r"\bGenieKey\s+(?P<val>[0-9a-f]{8}-[0-9a-f-]{27})", ("geniekey",)),
    ("ClickUp personal token (pk_…_…)", _B + r"pk_\d{4,12}_(?P<val>[A-Z0-9]{32})(?![A-Za-z0-9])", ("pk_",)),
    ("Resend API key (re_…)", _B + r"re_(?P<val>[A-Za-z0-9]{8}_[A-Za-z0-9]{16,32})(?![A-Za-z0-9_])", ("re_",)),
    ("Salesforce session id (00D…!…)", _B + r"00D[A-Za-z0-9]{12,15}!(?P<val>[A-Za-z0-9_.]{60,})", ("00d",)),
    ("Twitch chat token (oauth:…)", r"(?<![A-Za-z0-9])oauth:(?P<val>[a-z0-9]{30})(?![a-z0-9])", ("oauth:",)),
    (
        "Sentry DSN key (https://<key>@…sentry…)",
        r"https?://(?P<val>[0-9a-f]{32})(?::[0-9a-f]{32})?@[\w.-]{1,100}/\d{1,12}(?![\w/])",
        ("sentry", "ingest"),
    ),
    (
        "Algolia admin key (algoliasearch(appId, key))",
        r"algoliasearch\(\s*['\"][A-Z0-9]{10}['\"]\s*,\s*['\"](?P<val>[a-f0-9]{32})['\"]",
        ("algoliasearch",),
    ),
    (
        "OpenAI-compatible key (sk-…) in a Stripe-style restricted form",
        _B + r"rk_live_(?P<val>[A-Za-z0-9]{24,})",
        ("rk_live_",),
    ),
)


def _random_enough(m: re.Match[str]) -> bool:
    # Hex-only formats have no upper case: a letter and a digit suffice, placeholders excepted.
    return token_check(m)


def vendor_rules() -> tuple[Rule, ...]:
    """One credential rule per vendor format, in the order of the table."""
    return tuple(
        Rule(
            label, regex, subs=gates, anchored=False, back=40, ahead=400, on_text=True, flags=_CS, check=_random_enough
        )
        for label, regex, gates in _VENDORS
    )


def readable_base64(value: str) -> bool:
    """Whether a base64 value decodes to readable UTF-8 text (a MIME body, not 64 random key bytes)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return decoded.replace("\n", " ").replace("\r", " ").replace("\t", " ").isprintable()


def key_bytes_check(m: re.Match[str]) -> bool:
    """A key-shaped base64 token (mixed case and a digit) that does not decode to text."""
    return random_check(m) and not readable_base64(m.group("val"))


GENERIC_PREFIXED = Rule(
    "prefixed API token (prefix_…)",
    r"(?<![A-Za-z0-9_.+/-])(?P<prefix>[a-z][a-z0-9]{1,9}(?:[_-][a-z0-9]{1,7}){0,2}[_-])(?P<val>[A-Za-z0-9]{32,120})"
    r"(?![A-Za-z0-9_+/=.-])",
    subs=("_", "-"),
    # The separator and the 32 characters after it locate candidates: a plain scan, no nesting.
    locate=r"[_-][A-Za-z0-9]{32}",
    back=30,
    ahead=130,
    on_text=True,
    flags=_CS,
    check=lambda m: random_check(m) and _mixed(m.group("val")) and not _not_a_vendor(m.group("prefix")),
)

# Subresource-integrity hashes ("sha384-…") and digests are prefixed base64 too, but public.
_DIGEST_PREFIXES = ("sha", "md5", "blake", "sri", "xxh", "crc")


# Prefixes that name a record, not a vendor: "user_id_…", "test_…", "fixture-…".
_RECORD_WORDS = frozenset(("id", "uid", "user", "test", "fixture", "name", "file", "img", "row", "key"))


# Stripe's publishable keys ("pk_live_…", "pk_test_…") are public by design: they ship in every
# checkout page's script (every corpus part lists them alone as benign, and beside an sk_/rk_ key as
# the credential, which that key's own rule catches); so do PostHog's project keys ("phc_…"), in every
# page's analytics snippet (its personal keys are "phx_…").
_PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "phc_")


def _not_a_vendor(prefix: str) -> bool:
    words = set(re.split(r"[_-]", prefix.lower()))
    if prefix in _PUBLIC_PREFIXES:
        return True
    return is_placeholder(prefix) or prefix.startswith(_DIGEST_PREFIXES) or bool(words & _RECORD_WORDS)


def _mixed(value: str) -> bool:
    # Random 32+ character tokens switch between classes often (CamelCaseIdentifiers1 do not) and
    # use many distinct characters ("Xy7Xy7Xy7…" is a pattern, not a key).
    changes = sum(1 for a, b in pairwise(value) if _cls(a) != _cls(b))
    return changes >= len(value) // 4 and len(set(value)) >= 16


def _cls(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.isupper() else 2
