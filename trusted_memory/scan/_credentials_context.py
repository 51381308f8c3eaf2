"""Credential rules for secrets recognised by where they stand: assignments, flags, URLs, headers.

A password has no format, so these rules look for the places one is written: "DB_PASS=…",
"curl -u user:…", "sshpass -p …", "mysql -p…", "docker login -p …", a .netrc "password …",
"scheme://user:…@host", "Authorization: Basic …". The checks in ``_credential_checks`` drop
placeholders ("<token>", "${DB_PASS}", "changeme"), references and code.
"""

from __future__ import annotations

import re

from ._credential_checks import (
    assignment_check,
    basic_auth_check,
    is_placeholder,
    password_check,
    secretish,
    url_password_check,
    value_check,
)
from ._rules import Rule

_CI = re.IGNORECASE | re.MULTILINE
# A command-line value: quoted (anything but the quote) or bare (up to whitespace).
_ARG = r"""(?P<val>'[^'\n]{2,200}'|"[^"\n]{2,200}"|[^\s'"][^\s]{1,200})"""

# "Password" in the languages people write to an assistant in; a password stated in prose follows
# within a few words ("my password for the work laptop is …", "我的QQ密码是…", "şifrem …").
PASSWORD_WORDS = (
    "password", "passwort", "mot de passe", "contraseña", "senha", "wachtwoord", "hasło", "пароль", "şifre",
    "parola", "lösenord", "adgangskode", "salasana", "heslo", "jelszó", "κωδικός", "סיסמה", "كلمة السر",
    "كلمة المرور", "رمز عبور", "पासवर्ड", "パスワード", "密码", "密碼", "비밀번호", "비번", "kata sandi",
    "mật khẩu", "รหัสผ่าน", "wifi pw", "passcode", "kennwort", "passphrase", "code wifi", "wifi code", "wifi key",
    "wlan key", "wlan-schlüssel", "login", "alarm code", "door code", "access code", "digicode", "口令", "暗証番号",
    "haslo", "clave", "nenosiri", "code d'accès", "pw", "pwd", "creds",
)  # fmt: skip
_PW = r"[A-Za-z0-9!#$%^&*+=?@_~\-/.|<>()\[\]{}]"


_REFERENCE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?[.,;:!?)]*|%[A-Za-z_][A-Za-z0-9_]*%")
_EMAIL = re.compile(r"[\w.+-]@[\w-]+\.[A-Za-z]")
_EXAMPLE = re.compile(r"\b(?:e\.g|example|such as|like|must|should|least|format|policy|reset|field)\b", re.I)


def _strong_password(m: re.Match[str]) -> bool:
    """A stated password: at least three of lower, upper, digit, symbol, and no placeholder or URL."""
    value = m.group("val").rstrip(".,;:!?)")
    if _EXAMPLE.search(m.group("gap")) or value.startswith("@"):
        return False  # "must be at least 12 characters, e.g. …": a rule about passwords, not one
    if _REFERENCE.fullmatch(value) or _EMAIL.search(value):
        return False  # "$WIFI_PASS", "${SECRET}", "login jo1@example.com": a reference or an address
    # A "$" that starts no variable name is the password's first character ("$h+4cKkVB90L").
    body = value[1:] if value.startswith("$") else value
    if len(value) < 8 or is_placeholder(body) or "://" in value or value.startswith(("/", "~", "<")):
        return False
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() and c not in "-_." for c in value)
    )
    return classes >= 3


STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "it",
        "is",
        "to",
        "of",
        "and",
        "or",
        "in",
        "on",
        "at",
        "my",
        "your",
        "our",
        "with",
        "for",
        "be",
        "are",
        "was",
        "this",
        "that",
        "not",
        "no",
        "never",
        "do",
        "don't",
    ]
)


def _seed_phrase(m: re.Match[str]) -> bool:
    """12 to 24 words that could be a wallet's seed: no stop word (a sentence about seeds has them)."""
    words = m.group("val").split()
    return 12 <= len(words) <= 24 and not STOPWORDS.intersection(words) and len(set(words)) >= len(words) - 1


# "client_id for the public OAuth app (not secret): 4642…-g7f5….apps.googleusercontent.com": a
# name the text says is no secret, and a Google OAuth client ID, which every sign-in page shows.
_NOT_SECRET = re.compile(r"\b(?:not|non|no)[\s-]+$", re.I)
_PUBLIC_ID_AFTER = re.compile(r"\.apps\.googleusercontent\.com\b", re.I)


def _named_value_check(m: re.Match[str]) -> bool:
    """A random value after a secret's name and a colon, unless an example, a public ID or said not to be secret."""
    if _EXAMPLE.search(m.group("gap")) or _NOT_SECRET.search(m.string, max(0, m.start() - 8), m.start()):
        return False
    if _PUBLIC_ID_AFTER.match(m.string, m.end("val")):
        return False
    return _random_value(m.group("val"))


def _random_value(value: str) -> bool:
    """A value that reads as random: 16+ characters mixing letters and digits, not a name, path or placeholder.

    Unlike ``secretish`` an upper-case run counts ("JBSWY3DPEHPK3PXP…" is a base32 TOTP seed): with a
    name and a colon before it, it is no variable.
    """
    value = value.rstrip(".,;:)]}>!?")
    if len(value) < 16 or is_placeholder(value) or "--" in value or value.startswith(("/", "~", ".")):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return letters >= 4 and digits >= 3 and not value.replace("-", "").replace("_", "").isalpha()


CONTEXT_RULES = (
    Rule(
        "password in a connection URL (scheme://user:…@host)",
        r"://[^\s:/@]{0,64}:(?P<val>[^\s/@]{4,128})@[\w.\[-]",
        subs=("://",),
        anchored=True,
        ahead=220,
        on_text=True,
        flags=_CI,
        check=url_password_check,
    ),
    Rule(
        "password in an HTTP Basic header (Basic …)",
        r"\bbasic\s+(?P<val>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        words=("basic",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=basic_auth_check,
    ),
    Rule(
        'registry credentials in a Docker config ("auth": …)',
        r"[\"']auth[\"']\s*:\s*[\"'](?P<val>[A-Za-z0-9+/]{8,}={0,2})[\"']",
        words=("auth",),
        back=2,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=basic_auth_check,
    ),
    Rule(
        "password on a curl command line (curl -u user:…)",
        r"\bcurl\b[^\n]{0,400}?\s(?:-u|--user)(?:\s+|=)['\"]?[^\s'\":]{1,64}:['\"]?(?P<val>[^\s'\"]{2,200})",
        words=("curl",),
        anchored=True,
        ahead=700,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "password on an sshpass command line (sshpass -p …)",
        rf"\bsshpass\s+(?:-[a-oq-z]\S*\s+)*-p\s*{_ARG}|\bsshpass=(?P<env>'[^'\n]+'|\"[^\"\n]+\"|\S+)",
        subs=("sshpass",),
        anchored=True,
        ahead=300,
        flags=_CI,
        check=lambda m: password_check(m) if m.group("val") else len(m.group("env").strip("'\"")) >= 4,
    ),
    Rule(
        "password on a database command line (mysql -p…)",
        r"\b(?:mysql|mysqladmin|mysqldump|mariadb|mariadb-dump|mysqlsh)\b[^\n]{0,300}?\s(?:-p|--password=)"
        r"(?P<val>'[^'\n]{2,200}'|\"[^\"\n]{2,200}\"|[^\s'\"-][^\s]{3,200})",
        words=("mysql mysqladmin mysqldump mariadb mysqlsh",),
        anchored=True,
        ahead=600,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "password on a registry login (docker login -p …)",
        rf"\b(?:docker|podman|buildah|skopeo|nerdctl|oras|helm\s+registry)\s+login\b[^\n]{{0,300}}?\s(?:-p|--password)"
        rf"(?:\s+|=){_ARG}"
        r"|\b(?:echo|printf)\s+(?P<piped>'[^'\n]{2,200}'|\"[^\"\n]{2,200}\")\s*\|\s*(?:docker|podman|helm|oras|skopeo)"
        r"\b[^\n]*--password-stdin",
        words=("login", "docker podman buildah skopeo nerdctl oras helm echo printf"),
        at=("docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "helm", "echo", "printf"),
        whole=True,
        anchored=True,
        ahead=600,
        flags=_CI,
        check=lambda m: (
            password_check(m)
            if m.group("val")
            else len(m.group("piped")) >= 6 and not is_placeholder(m.group("piped").strip("'\""))
        ),
    ),
    # Round 12: "echo 'pw' | sudo -S systemctl …", "printf pw | passwd --stdin bob": a password fed to
    # a command that reads it from its input.
    Rule(
        "password piped to a command (echo … | sudo -S)",
        r"\b(?:echo|printf)\s+(?:-\w+\s+)?(?P<val>'[^'\n]{2,200}'|\"[^\"\n]{2,200}\"|[^\s'\"|$][^\s|]{1,200})\s*\|\s*"
        r"(?:sudo\s+(?:-[a-z]+\s+)*-[a-z]*s[a-z]*\b|sudo\s+--stdin\b|passwd\s+--stdin\b|chpasswd\b|kinit\b"
        r"|openconnect\b[^\n|]*--passwd-on-stdin)",
        words=("echo printf", "sudo passwd chpasswd kinit openconnect"),
        at=("echo", "printf"),
        whole=True,
        anchored=True,
        ahead=600,
        flags=_CI,
        check=password_check,
    ),
    # Redis's own config lines ("requirepass …", "masterauth …", "--requirepass …").
    Rule(
        "password in a Redis config (requirepass …)",
        r"\b(?:requirepass|masterauth)\s+(?P<val>'[^'\n]{2,200}'|\"[^\"\n]{2,200}\"|[^\s'\"][^\s]{3,200})",
        words=("requirepass masterauth",),
        anchored=True,
        ahead=300,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "password in a .netrc entry (machine … password …)",
        r"\b(?:machine\s+\S+|default)\s+(?:(?:login|account)\s+\S+\s+)*password\s+(?P<val>\S+)",
        words=("password", "machine default"),
        at=("machine", "default"),
        whole=True,
        anchored=True,
        ahead=400,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "storage account key (AccountKey=…)",
        r"\b(?:accountkey|sharedaccesskey)=(?P<val>[A-Za-z0-9+/]{20,}={0,2})|--account-key[\s=]+(?P<arg>[A-Za-z0-9+/]{20,}={0,2})",
        subs=("accountkey=", "sharedaccesskey=", "--account-key"),
        anchored=True,
        back=16,
        ahead=160,
        on_text=True,
        flags=_CI,
    ),
    Rule(
        "secret assignment ({key}=…)",
        r"(?:password|passwd|passphrase|pass|pwd|secret|key|token|psk)(?:[\"']\]?)?[ \t]*(?:=|:=|:|=>)[ \t]*[\"']?"
        r"(?P<val>[^\s\"'`,;]{8,})",
        subs=("pass", "pwd", "secret", "key", "token", "psk"),
        at=("pass", "pwd", "secret", "key", "token", "psk"),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=assignment_check,
    ),
    Rule(
        "password on a Windows command line (net use … /user:… password)",
        r"\bnet\s+use\b[^\n]{0,200}?\s/user:\S{1,100}\s+(?P<val>[^\s/][^\s]{3,200})",
        words=("net", "use"),
        anchored=True,
        ahead=400,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "secret stated in text (token is …)",
        r"\b(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?|token|pin\s+code|private\s+key)\s+(?:is|was)"
        r"\s+[\"'“‘]?(?P<val>[^\s\"'”’]{12,})",
        words=("key secret token pin",),
        back=16,
        ahead=200,
        on_text=True,
        flags=_CI,
        check=value_check,
    ),
    Rule(
        "password stated in text (password is …)",
        r"\b(?:password|passcode|passphrase|passwort|mot\s+de\s+passe|contraseña|senha|wachtwoord|hasło|пароль"
        r"|haslo|heslo|kennwort|clave|parola|salasana|lösenord|pw|pwd|pass)(?:\s+(?:for|of|du|de|des|für|do|da|del|della)\s+(?:the\s+|le\s+|la\s+|das\s+|die\s+|den\s+)?[\w-]{1,20})?"
        r"(?:\s*(?:is|was|ist|est|es|é|è|is\s+now|=|:|-|—|–)\s*|\s+)[\"'“‘]?"
        r"(?P<val>[\w!#$%^&*+~][^\s\"'”’]{7,})",
        words=(
            "password passcode passphrase passwort passe contraseña senha wachtwoord hasło пароль pw pwd pass"
            " haslo heslo kennwort clave parola salasana lösenord",
        ),
        at=(
            "pass",
            "pw",
            "mot de passe",
            "contraseña",
            "senha",
            "wachtwoord",
            "hasło",
            "пароль",
            "haslo",
            "heslo",
            "kennwort",
            "clave",
            "parola",
            "salasana",
            "lösenord",
        ),
        anchored=True,
        ahead=200,
        on_text=True,
        flags=_CI,
        check=value_check,
    ),
    Rule(
        "password stated in text, in any language (my password … is …)",
        # Not inside a Latin word or a path, but after a hyphen ("WLAN-Passwort") or a letter of a
        # script written without spaces ("我的邮箱密码", "ルーターのパスワード").
        rf"(?<![A-Za-z0-9_:/@.=])(?:{'|'.join(PASSWORD_WORDS)})(?P<gap>[^\n]{{0,48}}?)(?<!{_PW})"
        rf"(?P<val>(?=[A-Za-z._-]*[0-9!#$%^&*+=?@~|]){_PW}{{8,64}})(?!{_PW})",
        subs=PASSWORD_WORDS,
        anchored=True,
        ahead=160,
        on_text=True,
        flags=_CI,
        check=_strong_password,
    ),
    Rule(
        "Doppler token (dp.st.…)",
        r"\bdp\.(?:st|pt|ct|sa|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?(?P<val>[A-Za-z0-9]{40,44})(?![A-Za-z0-9])",
        subs=("dp.st.", "dp.pt.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        anchored=True,
        ahead=120,
        on_text=True,
    ),
    Rule(
        "password on an htpasswd command line (htpasswd -b … user password)",
        # -b (batch: the password is on the line) is lower-case; -B asks for bcrypt and prompts.
        rf"\bhtpasswd\s+(?:-\w+\s+)*(?-i:-\w*b\w*)\s+(?:-\w+\s+)*\S+\s+\S+\s+{_ARG}",
        words=("htpasswd",),
        anchored=True,
        ahead=400,
        on_text=True,  # the flags' case matters
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "password on a Windows command line (net user name password)",
        r"\bnet[ \t]+user[ \t]+[^\s/]\S{0,100}[ \t]+(?P<val>[^\s/*][^\s]{3,200})",
        words=("net", "user"),
        anchored=True,
        ahead=400,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "password on a redis-cli command line (redis-cli -a …)",
        rf"\bredis-cli\b[^\n]{{0,300}}?\s(?:-a|--pass)\s+{_ARG}",
        subs=("redis-cli",),
        anchored=True,
        ahead=500,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "Ansible vault password printed from its file",
        r"\b(?:cat|type|more|less|head)\s+\S*vault[_-]?pass\S*[^\n]*\n(?P<val>[^\s$#][^\n]{5,200})",
        subs=("vault_pass", "vault-pass", "vaultpass"),
        back=40,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "secret in a PHP define (define('DB_PASSWORD', …))",
        r"\bdefine\s*\(\s*['\"](?:\w*password|\w*_key|\w*_salt|\w*secret\w*)['\"]\s*,\s*['\"](?P<val>[^'\"\n]{4,200})['\"]",
        words=("define",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=lambda m: password_check(m) and "unique phrase" not in m.group("val").lower(),
    ),
    Rule(
        "Rails master key (master.key / RAILS_MASTER_KEY)",
        r"master[._]key\b[^\n]{0,40}?(?<![0-9a-f])(?P<val>[0-9a-f]{32})(?![0-9a-f])",
        subs=("master.key", "master_key"),
        anchored=True,
        ahead=120,
        flags=_CI,
    ),
    Rule(
        "framework secret key (SECRET_KEY = …)",
        r"\bsecret_key(?:_base)?[\"']?\s*(?:=|:)\s*[\"'](?P<val>[^\"'\s]{20,200})[\"']",
        subs=("secret_key",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=lambda m: secretish(m.group("val")) or len(set(m.group("val"))) >= 12,
    ),
    Rule(
        "Kubernetes secret data (client-key-data, token, .dockerconfigjson)",
        r"(?:client-key-data|\.dockerconfigjson|\.dockercfg)[\"']?\s*:\s*[\"']?(?P<val>[A-Za-z0-9+/]{40,}={0,2})",
        subs=("client-key-data", ".dockerconfigjson", ".dockercfg"),
        anchored=True,
        ahead=200,
        on_text=True,
        flags=_CI,
    ),
    Rule(
        "secret in a Kubernetes env entry (name: …_KEY / value: …)",
        r"\bname:\s*['\"]?\w*(?:key|token|secret|password|passwd|pass)['\"]?[ \t]*\n"
        r"[ \t]*value:\s*['\"]?(?P<val>[^\s'\"]{8,200})",
        words=("name", "value"),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=lambda m: secretish(m.group("val")),
    ),
    Rule(
        # "netflix: maria.k@example.com / Sunflower_Road_88", "login is admin / W#g53K+#L?O": a login
        # and its password written as a pair (spaces around the slash: not a path or a fraction).
        "password after its login (user / …)",
        rf"(?<![\w@.+-])[\w.+-]{{2,64}}(?:@[\w-]{{1,63}}(?:\.[\w-]{{1,63}}){{1,4}})?(?P<gap>[ \t]+/[ \t]+)"
        rf"(?P<val>(?=[A-Za-z._-]*[0-9!#$%^&*+=?@~|]){_PW}{{8,64}})(?!{_PW})",
        subs=(" / ",),
        back=130,
        ahead=80,
        on_text=True,
        flags=_CI,
        check=_strong_password,
    ),
    Rule(
        # "Linode API token for the DNS script: 30c8…", "TOTP seed for the ops account (from the QR): JBSW…",
        # "Private key for the validator wallet: 0x4c08…": a secret's name, a few words, a colon, the value.
        "secret after its name and a colon (token for …: …)",
        r"\b(?:api[\s_-]?key|access[\s_-]?key|token|secret|private\s+key|totp\s+seed|otp\s+secret|2fa\s+seed"
        r"|recovery\s+key|license\s+key|client\s+secret|wpa2?\s+key|wi-?fi\s+key|network\s+key)\b(?P<gap>[^\n:=]{0,80}+)[:=]"
        r"[ \t]*[\"'`“‘]?(?P<val>[A-Za-z0-9+/_=-]{16,200})(?![A-Za-z0-9+/_=-])",
        words=("key token secret seed",),
        at=(
            "api",
            "access",
            "token",
            "secret",
            "private",
            "totp",
            "otp",
            "2fa",
            "recovery",
            "license",
            "client",
            "wpa",
            "wpa2",
            "wifi",
            "wi",
            "network",
        ),
        whole=True,
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=_named_value_check,
    ),
    Rule(
        # "Zoom SDK key Ui7oP1…, secret Hi1RzM…", "fb page token EAAG…": the name, a space, a random value.
        "secret right after its name (secret Hi1R…)",
        r"\b(?:api[\s_-]?key|sdk\s+key|token|secret|private\s+key)[ \t]+[\"'`“‘]?(?P<gap>)"
        r"(?P<val>(?=[A-Za-z0-9+/_=-]*\d)[A-Za-z0-9+/_=-]{20,200})(?![A-Za-z0-9+/_=-])",
        words=("key token secret",),
        at=("api", "sdk", "token", "secret", "private"),
        whole=True,
        anchored=True,
        ahead=240,
        on_text=True,
        flags=_CI,
        check=lambda m: _random_value(m.group("val")) and sum(c.isupper() for c in m.group("val")) >= 2,
    ),
    Rule(
        "Ethereum private key (0x + 64 hex beside 'private key')",
        r"\bprivate[\s_-]?key\b[^\n]{0,100}?\b0x(?P<val>[0-9a-fA-F]{64})(?![0-9a-fA-F])",
        words=("private",),
        anchored=True,
        ahead=220,
        on_text=True,
        flags=_CI,
    ),
    Rule(
        "Wi-Fi password in a Wi-Fi QR code (WIFI:…;P:…;)",
        r"\bWIFI:(?:[TSHE]:[^;\n]{0,64};)*P:(?P<val>[^;\n]{4,64});",
        subs=("wifi:",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        "Google app password (app password: xxxx xxxx xxxx xxxx)",
        r"\bapp[\s-]?passwor[dt]\b[^\n]{0,40}?(?<![a-z])(?P<val>[a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4})(?![a-z])",
        words=("app",),
        anchored=True,
        ahead=120,
        on_text=True,
    ),
    Rule(
        "recovery codes (backup codes: xxxx-xxxx …)",
        r"\b(?:recovery|backup|2fa|mfa)\s+codes?\b[^\n]{0,30}?:\s*(?P<val>[a-z0-9]{4,5}-[a-z0-9]{4,5}"
        r"(?:[\s,;]+[a-z0-9]{4,5}-[a-z0-9]{4,5}){2,})",
        words=("codes code",),
        back=12,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=lambda m: sum(c.isdigit() for c in m.group("val")) >= 4,
    ),
    Rule(
        "wallet seed phrase (seed phrase: twelve words …)",
        r"\b(?:seed\s+phrase|recovery\s+phrase|seed\s+words|mnemonic(?:\s+phrase)?|secret\s+phrase)\b[^\n:]{0,60}:"
        r"\s*(?P<val>[a-z]{3,8}(?: [a-z]{3,8}){11,23})(?![a-z])",
        words=("seed recovery mnemonic secret",),
        back=12,
        ahead=400,
        on_text=True,
        check=_seed_phrase,
    ),
    Rule(
        'Kaggle API key (kaggle.json "username" … "key")',
        r"\"username\"\s*:\s*\"[^\"\n]{1,64}\"\s*,\s*\"key\"\s*:\s*\"(?P<val>[0-9a-f]{32})\"",
        subs=('"username"',),
        anchored=True,
        ahead=200,
        on_text=True,
    ),
    Rule(
        "OpenVPN static key block",
        r"-----BEGIN OpenVPN Static key V1-----\s*(?P<val>[0-9a-f]{32})",
        subs=("-----begin openvpn static key",),
        anchored=True,
        ahead=200,
        on_text=True,
    ),
    Rule(
        "password in an Oracle JDBC URL (jdbc:oracle:thin:user/…@)",
        r"\bjdbc:oracle:thin:[\w.$-]{1,64}/(?P<val>[^@\s/]{4,128})@",
        subs=("jdbc:oracle:",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        # .NET appSettings: <add key="PayPalClientSecret" value="…" />
        'secret in an appSettings entry (<add key="…Secret" value="…">)',
        r"<add\s+key\s*=\s*\"[\w.:-]*(?:secret|password|passwd|pwd|token|apikey|api_key|accesskey)[\w.:-]*\"\s+"
        r"value\s*=\s*\"(?P<val>[^\"]{8,300})\"",
        subs=("<add",),
        anchored=True,
        ahead=400,
        on_text=True,
        flags=_CI,
        check=lambda m: secretish(m.group("val")),
    ),
    Rule(
        'password in a PowerShell SecureString (ConvertTo-SecureString "…" -AsPlainText)',
        r"\bconvertto-securestring\s+(?:-string\s+)?(?P<val>'[^'\n$]{4,200}'|\"[^\"\n$]{4,200}\")\s+-asplaintext",
        subs=("convertto-securestring",),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=password_check,
    ),
    Rule(
        # "cargo publish --token cio7Xk…", "dotnet nuget push … --api-key oy2qm…", "pulumi … --secret x 'p'".
        "secret on a command line (--token …, --api-key …)",
        r"(?<![\w-])--(?:token|api-?key|apikey|auth-?token|access-?token|secret-?key|client-?secret)(?:\s+|=)"
        r"""(?P<val>'[^'\n]{2,200}'|"[^"\n]{2,200}"|[^\s'"-][^\s]{1,200})""",
        subs=("--token", "--api", "--auth", "--access", "--secret", "--client"),
        anchored=True,
        ahead=300,
        on_text=True,
        flags=_CI,
        check=lambda m: _random_value(m.group("val").strip("'\"")),
    ),
)
