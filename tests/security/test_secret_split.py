"""Item 9 of issue 10: a private key or an access key split across string literals is still a
secret (Python implicit and `+` concatenation, JS join, Go `+`, body wrapped at 32 characters),
and ordinary code that talks about PEM headers is not flagged."""

from __future__ import annotations

import json

import pytest

from noface_ctx import build_prompt, parse_signals, resolve_requests
from noface_ctx.files.secrets import find_secret
from tests.conftest import make_repo
from tests.security.fakesecrets import aws_key, pem_body, pem_footer, pem_header


def _chunks(body: str, n: int = 32) -> list[str]:
    return [body[i:i + n] for i in range(0, len(body), n)]


def _variants() -> dict[str, tuple[str, str, str]]:
    """name -> (path, source, a body line that must never be printed)."""
    body = pem_body()
    hdr, ftr = pem_header(), pem_footer()
    c = _chunks(body)
    out = {
        "python-implicit": ("src/k1.py", 'KEY = (\n    "' + hdr[:13] + '" "' + hdr[13:] + '\\n"\n'
                            + "".join(f'    "{x}\\n"\n' for x in c) + f'    "{ftr}"\n)\n'),
        "python-plus": ("src/k2.py", f'KEY = "{hdr}\\n" + \\\n' + " + \\\n".join(f'    "{x}"' for x in c) + "\n"),
        "js-join": ("src/k3.js", f'const KEY = [\n  "{hdr}",\n' + "".join(f"  '{x}',\n" for x in c)
                    + f'  "{ftr}",\n].join("\\n");\n'),
        "go-plus": ("src/k4.go", f'package k\n\nvar Key = "{hdr}\\n" +\n' + " +\n".join(f'\t"{x}\\n"' for x in c) + "\n"),
        "wrapped-32": ("src/k5.py", f'KEY = """{hdr}\n' + "\n".join(c) + f'\n{ftr}\n"""\n'),
        "rust-concat": ("src/k6.rs", 'const KEY: &str = concat!(\n    "' + hdr + '\\n",\n'
                        + "".join(f'    "{x}\\n",\n' for x in c) + ");\n"),
    }
    key = aws_key()
    out["aws-plus"] = ("src/k7.py", f'ACCESS = "{key[:4]}" + "{key[4:11]}" + "{key[11:]}"\n')
    out["aws-js-join"] = ("src/k8.js", f'const id = ["{key[:6]}", "{key[6:]}"].join("");\n')
    return {name: (path, src, c[2] if name not in ("aws-plus", "aws-js-join") else key[11:])
            for name, (path, src) in out.items()}


VARIANTS = _variants()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_split_secret_is_recognised(name):
    path, src, _ = VARIANTS[name]
    assert find_secret(src, path) in ("private key", "AWS access key id")


def test_split_secrets_never_reach_preview_or_requests(tmp_path):
    files = {path: src for path, src, _ in VARIANTS.values()}
    files["src/app.py"] = "def load_key():\n    return 1\n"
    root = make_repo(tmp_path / "repo", files)
    prompt = build_prompt({"id": "k", "title": "KEY load_key", "description": "the KEY constant and Key in k4.go"},
                          repo=root, embed=False, budget=12000)
    out = prompt.text + json.dumps(prompt.to_dict())
    ex = {e.path: e.category for e in prompt.excluded}
    for path, _src, line in VARIANTS.values():
        assert line not in out
        assert ex[path] == "secret"
    answer = resolve_requests(parse_signals("".join(f"NEED_CODE: {p}\n" for p, _, _ in VARIANTS.values())), repo=root).text
    for _path, _src, line in VARIANTS.values():
        assert line not in answer


BENIGN = {
    "src/pem.py": (
        'PEM_HEADER = "' + pem_header("") + '"\n'
        'PEM_FOOTER = "' + pem_footer("") + '"\n\n'
        "def parse(text):\n"
        '    """Parse a key starting with ' + pem_header("") + " and ending with the footer line and\n"
        '    then return the decoded bytes of all of it to the caller of this function"""\n'
        '    if text.startswith("' + pem_header("")[:16] + '" + "' + pem_header("")[16:] + '"):\n'
        '        return base64.b64decode("".join(text.splitlines()[1:-1]))\n'
        'MARKERS = ["' + pem_header() + '", "' + pem_footer() + '", "BEGIN", "Authorization"]\n'
    ),
    "src/sql.py": 'SQL = ("BEGIN " "TRANSACTION; " "UPDATE accounts SET private_key_id = 1; " "COMMIT;")\n',
    "src/names.js": 'const parts = ["Content", "Type", "Application", "Json", "Charset", "Utf8"].join("-");\n'
                    'const label = "PRIVATE" + " KEY" + " settings";\n',
    "src/msgs.go": 'package m\n\nvar Help = "Paste your key here, starting with " +\n\t"' + pem_header("")
                   + '" +\n\t" and ending with the END line; the body is base64."\n',
}


@pytest.mark.parametrize("path", sorted(BENIGN))
def test_ordinary_code_about_keys_is_not_flagged(path):
    assert find_secret(BENIGN[path], path) is None
