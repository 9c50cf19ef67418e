"""Issue 24: a corpus of secret forms the content rules must catch, one test per form, each also
through `scan_repo` on a real repository, and the near misses they must not catch."""

from __future__ import annotations

import base64
import random
import string

import pytest

from noface_ctx.files.secrets import content_secret, find_secret, redact_secrets
from tests.conftest import make_repo
from tests.security.fakesecrets import aws_key, pem_block, pem_body, pem_footer, pem_header

_RND = random.Random(24)


def _password(n: int = 14) -> str:
    chars = string.ascii_letters + string.digits
    return "Zq7" + "".join(_RND.choice(chars) for _ in range(n - 4)) + "!"


def _encrypted_pem(width: int = 32) -> str:
    body = pem_body(320)
    lines = [body[i:i + width] for i in range(0, len(body), width)]
    iv = "".join(_RND.choice("0123456789ABCDEF") for _ in range(32))
    return "\n".join([pem_header(), "Proc-Type: 4,ENCRYPTED", f"DEK-Info: AES-128-CBC,{iv}", "", *lines,
                      pem_footer()]) + "\n"


def _ppk() -> str:
    pub = pem_body(200)
    priv = pem_body(400)
    return ("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 4\n"
            + "\n".join(pub[i:i + 64] for i in range(0, 200, 64))
            + "\nPrivate-Lines: 7\n" + "\n".join(priv[i:i + 64] for i in range(0, 400, 64))
            + "\nPrivate-MAC: " + "".join(_RND.choice("0123456789abcdef") for _ in range(64)) + "\n")


def _k8s_secret() -> str:
    encoded = base64.b64encode(pem_block().encode()).decode()
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\ndata:\n"
            f"  tls.crt: {base64.b64encode(b'-----BEGIN CERTIFICATE-----' + pem_body(120).encode()).decode()}\n"
            f"  tls.key: {encoded}\n")


def _split(key: str, joiner: str) -> str:
    return f'"{key[:8]}"{joiner}"{key[8:14]}"{joiner}"{key[14:]}"'


FORMS = {
    # name: (path, text)
    "php-concatenated key": ("app/config.php", lambda: f"<?php\n$key = {_split(aws_key(), ' . ')};\n"),
    "perl-concatenated key": ("lib/Conf.pm", lambda: f"my $key = {_split(aws_key(), '.')};\n"),
    "lua-concatenated key": ("conf/init.lua", lambda: f"local key = {_split(aws_key(), ' .. ')}\n"),
    "php-concatenated pem": ("app/key.php", lambda: "<?php\n$pem = " + " .\n  ".join(
        f'"{line}\\n"' for line in pem_block().splitlines()) + ";\n"),
    "encrypted pem wrapped at 32": ("deploy/server_key.txt", _encrypted_pem),
    "encrypted pem wrapped at 32 in a yaml value": ("deploy/values.yaml", lambda: "key: |\n" + "".join(
        "  " + line + "\n" for line in _encrypted_pem().splitlines())),
    "encrypted pem split across literals": ("src/keys.py", lambda: "KEY = (\n" + "".join(
        f'    "{line}\\n"\n' for line in _encrypted_pem().splitlines()) + ")\n"),
    "unquoted password in .properties": ("src/main/resources/application.properties",
                                         lambda: f"spring.datasource.url=jdbc:h2:mem\nspring.datasource.password={_password()}\n"),
    "unquoted password in yaml": ("config/database.yml", lambda: f"production:\n  adapter: mysql\n  password: {_password()}\n"),
    "database url with a password": ("app/settings.py", lambda: f'DATABASE_URL = "postgres://app:{_password()}@db.internal:5432/app"\n'),
    "mongodb+srv url with a password": ("deploy/run.sh", lambda: f"export MONGO=mongodb+srv://svc:{_password()}@cluster0.example.net/x\n"),
    "kubernetes secret with a base64 pem": ("k8s/tls-secret.yaml", _k8s_secret),
    "putty private key": ("keys/deploy.txt", _ppk),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_secret_form_is_caught(name, tmp_path):
    path, make = FORMS[name]
    text = make()
    assert content_secret(path, text) is not None, (name, text)
    from noface_ctx.config import load_config
    from noface_ctx.files.gate import scan_repo

    root = make_repo(tmp_path / "repo", {path: text, "src/ok.py": "def ok():\n    return 1\n"})
    files = scan_repo(load_config(root))
    assert files.get(path) is None and files.get("src/ok.py") is not None
    assert any(e.path == path and e.category == "secret" for e in files.excluded), [e for e in files.excluded if e.path == path]


def test_a_ppk_file_is_secret_by_name():
    from noface_ctx.files.secrets import secret_path_kind

    assert secret_path_kind("keys/deploy.ppk") == "private key file"


@pytest.mark.parametrize("path,text", [
    ("config/database.yml", "production:\n  password: ${DB_PASSWORD}\n"),
    ("config/database.yml", "production:\n  password: <%= ENV['DB_PASSWORD'] %>\n"),
    ("application.properties", "spring.datasource.password=changeme\n"),
    ("settings.ini", "[db]\npassword = %(DB_PASSWORD)s\n"),
    ("settings.ini", "[auth]\npassword_min_length = 12\nsecret_key_required = true\n"),
    ("app/settings.py", 'DATABASE_URL = "postgres://user:password@localhost/db"\n'),
    ("app/settings.py", 'DATABASE_URL = f"postgres://{user}:{password}@{host}/db"\n'),
    ("app/settings.py", 'URL = "postgres://app@db.internal:5432/app"\n'),
    ("k8s/ca.yaml", "data:\n  ca.crt: " + base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB" + b"A" * 80).decode() + "\n"),
    ("src/strings.php", '<?php\n$greeting = "Hello" . " " . "World";\n'),
    ("docs/setup.md", "Set `password: hunter2hunter2` in config.yml\n"),
])
def test_near_misses_are_not_secrets(path, text):
    assert content_secret(path, text) is None, (path, text)


def test_a_database_password_in_issue_text_is_masked_in_place():
    pw = _password()
    masked, kinds = redact_secrets(f"prod fails with postgres://app:{pw}@db.internal/app since Monday")
    assert pw not in masked and "since Monday" in masked and "postgres://app:[REDACTED: password]@db.internal" in masked
    assert kinds == ["database URL with a password"]


def test_find_secret_names_the_kind_never_the_value():
    kind = find_secret(_ppk(), "keys/deploy.txt")
    assert kind == "PuTTY private key"
