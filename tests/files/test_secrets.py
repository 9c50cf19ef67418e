"""Credentials in file names and contents: each format found, innocent code and examples left alone."""

from __future__ import annotations

import base64

import pytest
from conftest import commit, git

from noface_ctx.config import load_config
from noface_ctx.files.gate import find_secret, is_secret_path, scan_repo

# Credentials are assembled at run time so this file never looks like it holds one (not from
# adjacent literals either: `find_secret` joins those; `_u` drops the `~` that breaks each up).


def _u(text: str) -> str:
    return text.replace("~", "")


AWS_ID = _u("AK~IAZ7Q3XK5VB2MN4PLR")
GH_TOKEN = _u("gh~p_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
PEM_BODY = base64.b64encode(bytes(range(200))).decode()
PRIVATE_KEY = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + PEM_BODY[:64] + "\n" + PEM_BODY[64:128] + "\n-----END RSA PRIVATE KEY-----\n"
SLACK = _u("xo~xb-1234567890-abcdefghij")
JWT = _u("ey~JhbGciOiJIUzI1NiJ9.ey~JzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")


def by_path(rf):
    return {f.path: f for f in rf.files}, {e.path: e for e in rf.excluded}


# --------------------------------------------------------------------------- secret detection


@pytest.mark.parametrize("text, kind", [
    (PRIVATE_KEY, "private key"),
    ('{"private_key": "-----BEGIN ' + 'PRIVATE KEY-----\\n' + PEM_BODY[:60] + '"}', "private key"),
    (f"key = '{AWS_ID}'", "AWS access key id"),
    ("aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ek3mP2x", "AWS secret key"),
    (f"t = '{GH_TOKEN}'", "GitHub token"),
    (_u("github_~pat_11ABCDEFG0123456789_abcdefghijklmnop"), "GitHub token"),
    (f"SLACK={SLACK}", "Slack token"),
    (_u("sk~_live_4eC39HqLyjWDarjtT1zdp7dc"), "Stripe live key"),
    (_u("AI~zaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"), "Google API key"),
    ("sk-" + "ant-api03-" + "a" * 30, "Anthropic API key"),
    (_u("OPENAI=sk~-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"), "OpenAI API key"),
    (f"auth: {JWT}", "JSON web token"),
    ('DB_PASSWORD = "' + "hV8#kq2!Lm9zR4tW" + '"', "password or key assignment"),
    ('"api_key": "' + "a06b4f1Ec462cffae87a" + '"', "password or key assignment"),
    ("client_secret: " + "x7Kp2Qm9Wz4Rt6Yv8Bn3Jd5Lf1", "password or key assignment"),
])
def test_find_secret_kinds(text, kind):
    assert find_secret(text) == kind


@pytest.mark.parametrize("text", [
    'password = os.environ["X"]',
    "password = settings.DATABASE_PASSWORD",
    'password = "hunter2"',
    'SECRET_KEY = "{{ secret_key }}"',
    'api_key = "your-api-key-goes-here"',
    'if password == "Xy7#kq2!Lm9zR4tW": pass',
    "token = request.headers.get('Authorization')",
    "key = 'AKIAIOSFODNN7EXAMPLE'",
    "bytes = b'-----BEGIN PRIVATE KEY-----'",
    "the desk-" + "a" * 40,  # `sk-` inside a word is not a key
    "def tokenize(text): return text.split()",
])
def test_find_secret_ignores_innocent_code(text):
    assert find_secret(text) is None


def test_generic_assignments_in_tests_and_docs_are_examples_but_formats_are_not():
    text = 'SECRET_KEY = "c4d77c62-6196-4f17-a06b-c462cffae87a"'
    assert find_secret(text, "settings.py") == "password or key assignment"
    assert find_secret(text, "tests/view_tests/test_debug.py") is None
    assert find_secret(text, "docs/config.rst") is None and find_secret(text, "README.md") is None
    assert find_secret(f"k = '{AWS_ID}'", "tests/test_x.py") == "AWS access key id"


@pytest.mark.parametrize("path, secret", [
    (".env", True), ("config/.env.production", True), (".envrc", True), ("deploy/key.pem", True),
    ("x/server.key", True), ("id_rsa", True), ("home/.ssh/id_ed25519.pub", True), (".netrc", True),
    (".aws/credentials", True), ("infra/terraform.tfstate", True), ("infra/terraform.tfstate.backup", True),
    ("config/secrets.yaml", True), ("a.p12", True), ("keys.keystore", True),
    ("src/environment.py", False), ("docs/keys.md", False), ("credentials.py", False), ("a/.npmrc", False),
])
def test_is_secret_path(path, secret):
    assert is_secret_path(path) is secret


def test_npmrc_is_secret_only_with_a_token(repo_factory):
    repo = repo_factory({".npmrc": "registry=https://registry.npmjs.org/\n",
                         "web/.npmrc": "//registry.npmjs.org/:_authToken=abc123\n"})
    files, excl = by_path(scan_repo(load_config(repo)))
    assert ".npmrc" in files and excl["web/.npmrc"].category == "secret"


def test_deleted_file_and_commit_state_ignored(repo_factory):
    repo = repo_factory({"a.py": "x = 1\n", "b.py": "y = 2\n"})
    git(repo, "rm", "-q", "--cached", "b.py")
    commit(repo, "untrack b")
    files, _ = by_path(scan_repo(load_config(repo)))
    assert set(files) == {"a.py", "b.py"}  # b.py is untracked now, still not ignored


def test_db_scheme_is_what_the_url_pattern_needs_before_its_slashes():
    """`_db_scheme` (a `://` after a database scheme: the run of scheme characters before it) answers as a search
    of the pattern's own start does, and `_find_db_url` still finds what the pattern finds."""
    import random
    import re
    import string

    from noface_ctx.files.secrets import (  # private: the scan's step and its pattern
        _DB_SCHEMES,
        _db_scheme,
        _find_db_url,
    )
    rnd = random.Random(25)
    secret = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(14))
    parts = ["postgres", "postgresql", "mysql", "mongodb+srv", "rediss", "clickhouse", "x", "X", "+", "+pg8000", "://", ":",
             "@", "/", " ", "\n", "'", secret, "db", "https", "é", "9"]
    start = re.compile(rf"(?<![A-Za-z0-9+]){_DB_SCHEMES}://")
    for _ in range(20_000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 12)))
        assert _db_scheme(text) == (start.search(text) is not None), text
    long_driver = f"postgresql+{'a' * 300}://app:{secret}@db/app"
    assert _db_scheme(long_driver) and _find_db_url(long_driver) == "database URL with a password"
    assert _find_db_url(f"see mongodb+srv://app:{secret}@cluster0/x") == "database URL with a password"
    for text in (f"xpostgres://app:{secret}@db/app", f"https://app:{secret}@example.org/", f"postgres:/app:{secret}@db"):
        assert not _db_scheme(text) and _find_db_url(text) is None
