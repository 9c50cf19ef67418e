"""What counts as a secret: credential file names and credential formats inside text.

Nothing overrides these rules (not an explicit request, not the manifest). Reasons name the kind
of credential, never the value.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from typing import Any

_SECRET_NAMES = {
    ".netrc": "netrc", "_netrc": "netrc", ".pgpass": "pgpass", "credentials": "credentials file",
    "credentials.json": "credentials file", ".git-credentials": "git credentials",
    ".htpasswd": "htpasswd", ".dockercfg": "docker credentials",
}
_SECRET_SUFFIXES = {
    ".pem": "private key file", ".key": "private key file", ".p12": "keystore", ".pfx": "keystore",
    ".jks": "keystore", ".keystore": "keystore", ".tfstate": "terraform state", ".kdbx": "password database",
    ".ppk": "private key file",
}
_SSH_KEY_RE = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)")
# `.npmrc` / `.pypirc` are only secret when they hold a token or password.
_TOKEN_FILES = {".npmrc", ".pypirc", ".yarnrc.yml"}
_TOKEN_LINE_RE = re.compile(r"(?im)^\s*[^#;\n]*(_authToken|_auth|_password|password|npmAuthToken)\s*[=:]\s*\S")


_SECRET_DATA_EXTS = frozenset({"yaml", "yml", "json", "toml", "env", "ini", "cfg", "conf", "txt", "properties"})


def secret_path_kind(path: str) -> str | None:
    """The kind of credential file the name alone reveals ("env file", "ssh key", ...), or None."""
    lower = path[path.rfind("/") + 1:].lower()
    if lower.startswith(".env"):  # .env, .env.local, .envrc and also .env.example: never sent
        return "env file"
    if lower in _SECRET_NAMES:
        return _SECRET_NAMES[lower]
    if lower.startswith("secrets.") and lower.rsplit(".", 1)[-1] in _SECRET_DATA_EXTS:
        return "secrets file"  # secrets.yaml / secrets.json, not a code module named secrets.py
    if lower.startswith("id_") and _SSH_KEY_RE.match(lower):
        return "ssh key"
    if lower.endswith(".backup"):
        lower = lower[:-7]
    dot = lower.rfind(".")
    return _SECRET_SUFFIXES.get(lower[dot:]) if dot > 0 else None


def is_secret_path(path: str) -> bool:
    """True when the file name alone marks a credential file (`.env*`, `*.pem`, `id_rsa`, ...)."""
    return secret_path_kind(path) is not None


# Each regex starts with a literal so `re` can skip ahead fast (a leading `\b` or alternation
# made the scan of a django checkout 20x slower); word boundaries are checked by hand.
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("private key", "-----BEGIN ", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\\[rn]|\s)+(?:[A-Za-z-]+:[^\n]*(?:\\[rn]|\s)+)*"
        r"(?:[A-Za-z0-9+/=]{40}|(?:[A-Za-z0-9+/=]{16,}(?:\\[rn]|[ \t]*\r?\n[ \t]*)){2}[A-Za-z0-9+/=]{8})")),
    # base64 of "-----BEGIN": a PEM block encoded again (Kubernetes Secret `data:`); decoded to
    # tell a private key from a certificate (`_base64_pem`)
    ("private key (base64)", "LS0tLS1CRUdJT", re.compile(r"LS0tLS1CRUdJT[A-Za-z0-9+/]{40,}")),
    ("PuTTY private key", "PuTTY-User-Key-File-", re.compile(
        r"PuTTY-User-Key-File-\d+:[^\n]*\n(?:[^\n]*\n){0,40}?Private-Lines:[ \t]*\d+")),
    ("AWS access key id", "A", re.compile(r"A(?:KI|SI)A[A-Z0-9]{16}(?![A-Za-z0-9])")),
    ("GitHub token", "gh", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,}")),
    ("GitHub token", "github_pat_", re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    ("Slack token", "xox", re.compile(r"xox[baprs]-[A-Za-z0-9-]{10,}")),
    ("Slack webhook", "hooks.slack.com", re.compile(r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}")),
    ("Stripe live key", "k_live_", re.compile(r"k_live_[A-Za-z0-9]{20,}")),
    ("Google API key", "AIza", re.compile(r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    ("Anthropic API key", "sk-ant-", re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI API key", "sk-", re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}")),
    ("JSON web token", "eyJ", re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
)
_NO_BOUNDARY_CHECK = {"private key", "Slack webhook", "Stripe live key", "private key (base64)", "PuTTY private key"}
# Generic assignments: a credential-like name, an operator, then a long literal.
_KEY_WORDS = ("password", "passwd", "secret", "key", "token")
_KEY_NAME_RE = re.compile(
    r"(?:password|passwd|secret|(?:api|access|private|secret|client|master|signing|encryption)[_-]?key"
    r"|apikey|(?:auth|access|refresh|bearer|api)?[_-]?token)\Z"
)
_VALUE_RE = re.compile(
    r"""["']?[ \t]*(?::=|=>|=|:)(?!=)[ \t]*(?:(["'])([^"'\s]{16,200})\1|([A-Za-z0-9_\-+/=]{24,200})(?=[ \t]*(?:$|[,;#\r])))""",
    re.M,
)
_PLACEHOLDER_WORDS = ("example", "changeme", "change_me", "your", "xxxx", "dummy", "placeholder", "sample",
                      "test", "fake", "insecure", "redacted", "password", "secret")
# Where example credentials are expected: tests, fixtures and documentation.
_EXAMPLE_PATH_RE = re.compile(
    r"(^|/)(tests?|testing|spec|__tests__|fixtures?|docs?)/|(^|/)(test_[^/]*|[^/]*_test\.[^/]*|conftest\.py)$"
    r"|\.(md|markdown|mdx|rst|txt|adoc|asciidoc|org|rdoc|textile|ipynb)$"
)


def find_secret(text: str, path: str | None = None) -> str | None:
    """The kind of the first credential in `text` ("AWS access key id", ...), else None.

    Never returns the secret itself. Generic `password = "..."` assignments count only for a long
    literal that looks random (`password = os.environ["X"]` is fine), and not in tests or docs
    (judged by `path`), which are full of example ones; specific formats count everywhere.
    """
    kind = _find_format(text)
    if kind is not None:
        return kind
    if _split_private_key(text):
        return "private key"
    kind = _find_split_literal(text)
    if kind is not None:
        return kind
    if path is not None and _EXAMPLE_PATH_RE.search(path.lower()):
        return None
    return _find_assignment(text) or _find_db_url(text) or (_find_config_password(text) if _is_config(path) else None)


# --------------------------------------------------------------------------- passwords in URLs and config files

_DB_SCHEMES = (r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle|"
               r"cockroachdb|clickhouse)(?:\+[a-z0-9]+)?")
_DB_URL_RE = re.compile(rf"(?<![A-Za-z0-9+]){_DB_SCHEMES}://[^\s:/@'\"]*:([^\s@/'\"]{{4,200}})@[^\s/'\"@]")
_DB_SCHEME_RE = re.compile(_DB_SCHEMES)
_CONFIG_EXTS = (".properties", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".toml", ".env")
_CONFIG_PASSWORD_RE = re.compile(
    r"(?im)^[ \t]*-?[ \t]*[\w.-]*?(?:password|passwd|pwd|secret|secret[_.-]?key|api[_.-]?key|access[_.-]?token)"
    r"[ \t]*[:=][ \t]*([^\s\"'#;][^\s#;]{7,199})[ \t]*(?:[#;].*)?$")
_NOT_A_VALUE = ("true", "false", "null", "none", "yes", "no", "required", "optional", "str", "string")


def _is_config(path: str | None) -> bool:
    return path is not None and path.lower().endswith(_CONFIG_EXTS)


def _plain_secret(value: str) -> bool:
    """A literal password, not a placeholder, a reference (`${X}`, `%(x)s`, `{{ x }}`, `<x>`),
    a keyword or a number."""
    low = value.lower()
    if low in _NOT_A_VALUE or any(w in low for w in _PLACEHOLDER_WORDS) or any(c in value for c in "{}$%<>()[]*"):
        return False
    if value.isdigit() or set(value) <= set("xX*.-_"):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value), any(not c.isalnum() for c in value)))
    return classes >= 2


def _find_db_url(text: str) -> str | None:
    """A database URL holding a literal password (`postgres://app:s3cret@db/app`)."""
    if not _db_scheme(text):
        return None
    for m in _DB_URL_RE.finditer(text):
        if _plain_secret(m.group(1)):
            return "database URL with a password"
    return None


def _db_scheme(text: str) -> bool:
    """Whether a `://` in `text` follows a database scheme (`postgresql+psycopg`), as `_DB_URL_RE` requires: the run
    of `[A-Za-z0-9+]` before it is one. Most files with a `://` hold only `https://`; the pattern itself, which
    no literal starts, tries every position of the text."""
    at = text.find("://")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        if _DB_SCHEME_RE.fullmatch(text, start, at):
            return True
        at = text.find("://", at + 1)
    return False


_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+")


def _find_config_password(text: str) -> str | None:
    """An unquoted password in a .properties / YAML / INI file (`db.password=Xk9mP2vL5q`)."""
    lower = text.lower()
    if not any(w in lower for w in ("pass", "pwd", "secret", "key", "token")):
        return None
    for m in _CONFIG_PASSWORD_RE.finditer(text):
        if _plain_secret(m.group(1)):
            return "password in a config file"
    return None


def _find_format(text: str) -> str | None:
    for kind, hint, regex in _PATTERNS:
        if hint not in text:
            continue
        for m in regex.finditer(text):
            i = m.start()
            if kind not in _NO_BOUNDARY_CHECK and i and (text[i - 1].isalnum() or text[i - 1] == "_"):
                continue
            if kind == "AWS access key id" and m.group(0).endswith("EXAMPLE"):
                continue  # AWS's documented placeholder (AKIAIOSFODNN7EXAMPLE)
            if kind == "private key (base64)" and not _base64_pem(m.group(0)):
                continue  # a certificate or public key: not a secret
            return kind
    return None


def _base64_pem(encoded: str) -> bool:
    """Whether base64 text starting with an encoded `-----BEGIN` holds a private key header."""
    import binascii

    head = encoded[:96]
    try:
        decoded = binascii.a2b_base64(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in decoded.split(b"\n", 1)[0]


# --------------------------------------------------------------------------- split secrets
#
# A key written as several string literals (`"-----BEGIN RSA " "PRIVATE KEY-----\n"` in Python,
# `"..." + "..."` in Go or Java, `["...", "..."].join("")` in JS, a PEM body wrapped at 32
# characters) never appears contiguously in the text. Two extra views catch it:
# - around every PEM-like marker, the text "squeezed" of whitespace, quotes, `+`, commas and
#   `\n` escapes must not hold a private key header followed by a random-looking base64 body;
# - runs of adjacent string literals (separated only by whitespace, `+` or commas) are joined
#   and the credential formats are searched in the joined text.

_PEM_HINTS = ("PRIVATE", "BEGIN", "KEY-----")
_SQUEEZE_RE = re.compile(r"\\[nrt]|[\s\"'`+,.\\]+")  # `.`: PHP/Perl concatenation, Lua's `..`
_SQUEEZED_PEM_RE = re.compile(r"-----BEGIN[A-Z0-9]*PRIVATEKEY(?:BLOCK)?-----(?:Proc-Type:\d+ENCRYPTED)?"
                              r"(?:DEK-Info:[A-Z0-9-]+?[0-9A-F]{16,64}(?=[A-Za-z0-9+/=]{64}))?([A-Za-z0-9+/=]{64})")


def _split_private_key(text: str) -> bool:
    for hint in _PEM_HINTS:
        i = text.find(hint)
        while i != -1:
            window = _SQUEEZE_RE.sub("", text[max(0, i - 160): i + 800])
            for m in _SQUEEZED_PEM_RE.finditer(window):
                if _looks_base64(m.group(1)):
                    return True
            i = text.find(hint, i + len(hint))
    return False


def _looks_base64(body: str) -> bool:
    """64 characters of a real key body mix digits, upper and lower case; prose squeezed of its
    spaces ("andthenreturnthebytes") does not."""
    digits = sum(c.isdigit() for c in body)
    upper = sum(c.isupper() for c in body)
    lower = sum(c.islower() for c in body)
    return digits >= 3 and upper >= 6 and lower >= 6


# Token-like literals only (no spaces or escapes: the formats searched here have none; a
# split PEM block is `_split_private_key`'s job).
_PLUS = "+" if sys.version_info >= (3, 11) else ""  # possessive: no backtracking, half the time
_TOKEN = r"[A-Za-z0-9+/=_.:\-]*" + _PLUS
_LIT = rf'"{_TOKEN}"|\'{_TOKEN}\'|`{_TOKEN}`'
_LITERAL_RE = re.compile(_LIT)
# Two or more literals separated only by whitespace, `+`, commas, line continuations and
# string prefixes (`"a" + "b"`, `("a"\n "b")`, `["a", "b"]`).
_RUN_RE = re.compile(rf"(?:{_LIT})(?:[\s+,.\\]{{0,200}}{_PLUS}[rbfuRBFU]{{0,2}}(?:{_LIT}))+")


def _find_split_literal(text: str) -> str | None:
    """A credential format found in the concatenation of adjacent string literals."""
    for run in _RUN_RE.finditer(text):
        if run.end() - run.start() < 20:
            continue
        kind = _joined_kind([m.group(0)[1:-1] for m in _LITERAL_RE.finditer(run.group(0))])
        if kind is not None:
            return kind
    return None


def _joined_kind(run: list[str]) -> str | None:
    if len(run) < 2:
        return None
    joined = "".join(run)
    if len(joined) < 16 or not _ANY_HINT_RE.search(joined):
        return None
    return _find_format(joined)


_ANY_HINT_RE = re.compile("|".join(sorted({re.escape(hint) for _kind, hint, _rx in _PATTERNS if len(hint) > 1}))
                          + r"|A[KS]IA")


def _find_assignment(text: str) -> str | None:
    lower = text.lower()
    if len(lower) != len(text):  # rare case-mapping that changes length: offsets would drift
        lower = text.encode("ascii", "replace").decode("ascii").lower()
    for word in _KEY_WORDS:
        i = lower.find(word)
        while i != -1:
            end = i + len(word)
            nxt = lower[end:end + 1]
            if not (nxt.isalnum() or nxt == "_"):
                m = _VALUE_RE.match(text, end)
                if m and _KEY_NAME_RE.search(lower, max(0, end - 24), end):
                    value = m.group(2) or m.group(3) or ""
                    if _looks_random(value, bare=m.group(3) is not None):
                        return "AWS secret key" if "aws" in lower[max(0, end - 30):end] else "password or key assignment"
            i = lower.find(word, end)
    return None


def _looks_random(value: str, *, bare: bool) -> bool:
    low = value.lower()
    if len(value) < 16 or any(w in low for w in _PLACEHOLDER_WORDS) or any(c in value for c in "{}$%<>()[]"):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value), any(not c.isalnum() and c not in "_-." for c in value)))
    if classes < 2 or (bare and not any(c.isdigit() for c in value)):
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= 3.0


def content_secret(path: str, text: str) -> str | None:
    """`find_secret` plus rules for files that are secret only when they hold a token (`.npmrc`)."""
    kind = find_secret(text, path)
    if kind is None and path[path.rfind("/") + 1:].lower() in _TOKEN_FILES and _TOKEN_LINE_RE.search(text):
        kind = "registry token"
    return kind


# --------------------------------------------------------------------------- masking


_PEM_BLOCK_RE = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)


def _label(kind: str) -> str:
    return "[REDACTED: " + re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") + "]"


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """`text` with every credential `find_secret` recognises replaced by `[REDACTED: kind]`,
    and the kinds replaced. Used on issue text, which goes into the prompt verbatim."""
    if not text or find_secret(text) is None:
        return text, []
    kinds: list[str] = []

    def sub(kind: str) -> Any:
        def repl(m: re.Match[str]) -> str:
            kinds.append(kind)
            return _label(kind)
        return repl

    text = _PEM_BLOCK_RE.sub(sub("private key"), text)
    for kind, hint, regex in _PATTERNS:
        if kind == "private key" or hint not in text:
            continue

        def repl(m: re.Match[str], kind: str = kind, src: str = text) -> str:
            i = m.start()
            if kind not in _NO_BOUNDARY_CHECK and i and (src[i - 1].isalnum() or src[i - 1] == "_"):
                return m.group(0)
            if kind == "AWS access key id" and m.group(0).endswith("EXAMPLE"):
                return m.group(0)
            kinds.append(kind)
            return _label(kind)

        text = regex.sub(repl, text)
    text = _redact_assignments(text, kinds)

    def url(m: re.Match[str]) -> str:
        if not _plain_secret(m.group(1)):
            return m.group(0)
        kinds.append("database URL with a password")
        return m.group(0)[: m.start(1) - m.start()] + _label("password") + m.group(0)[m.end(1) - m.start():]

    text = _DB_URL_RE.sub(url, text)
    if find_secret(text) is not None:  # split across literals or otherwise not locatable: mask it all
        kind = find_secret(text) or "secret"
        kinds.append(kind)
        text = _label(kind) + " (the whole text: it holds a credential that could not be located)"
    return text, kinds


def _redact_assignments(text: str, kinds: list[str]) -> str:
    for _ in range(50):
        kind = _find_assignment(text)
        if kind is None:
            return text
        lower = text.lower()
        done = False
        for word in _KEY_WORDS:
            i = lower.find(word)
            while i != -1 and not done:
                end = i + len(word)
                nxt = lower[end:end + 1]
                if not (nxt.isalnum() or nxt == "_"):
                    m = _VALUE_RE.match(text, end)
                    if m and _KEY_NAME_RE.search(lower, max(0, end - 24), end):
                        g = 2 if m.group(2) else 3
                        value = m.group(g) or ""
                        if _looks_random(value, bare=g == 3):
                            text = text[:m.start(g)] + _label(kind) + text[m.end(g):]
                            kinds.append(kind)
                            done = True
                i = lower.find(word, end)
            if done:
                break
        if not done:
            return text
    return text
