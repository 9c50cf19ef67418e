"""Item 2 of issue 10: a source file over max_file_size_kb (split into single definitions)
passes the same content secret check as any other file."""

from __future__ import annotations

import json

from noface_ctx import build_prompt, parse_signals, resolve_requests
from tests.conftest import make_repo
from tests.security.fakesecrets import aws_key, pem_block


def _big_module(secret_fn: str) -> str:
    filler = "".join(f"def helper_{i}(value):\n    '''Helper number {i}.'''\n    return value + {i}\n\n\n"
                     for i in range(2500))  # ~150 KB: over the default max_file_size_kb (100)
    return filler + secret_fn + "\n\ndef rotate_token(value):\n    return helper_1(value)\n"


def test_split_large_source_with_secret_is_excluded(tmp_path):
    key = aws_key()
    pem = pem_block()
    fn = f'def load_credentials():\n    key_id = "{key}"\n    pem = """{pem}"""\n    return key_id, pem\n'
    root = make_repo(tmp_path / "repo", {"src/big.py": _big_module(fn), "src/small.py": "def rotate():\n    return 1\n"})
    prompt = build_prompt({"id": "s-1", "title": "load_credentials rotate_token",
                           "description": "load_credentials in src/big.py returns the wrong key; rotate_token too"},
                          repo=root, embed=False, budget=12000)
    out = prompt.text + json.dumps(prompt.to_dict())
    assert key not in out and pem.splitlines()[1] not in out
    ex = {e.path: e for e in prompt.excluded}
    assert ex["src/big.py"].category == "secret"
    answer = resolve_requests(parse_signals("NEED_CODE: src/big.py::load_credentials\nNEED_CODE: src/big.py::rotate_token\n"),
                              repo=root).text
    assert key not in answer and "secret" in answer


def test_split_large_source_without_secret_still_gives_definitions(tmp_path):
    root = make_repo(tmp_path / "repo", {"src/big.py": _big_module("def load_credentials():\n    return 'ok-value-7'\n")})
    prompt = build_prompt({"id": "s-2", "title": "load_credentials",
                           "description": "load_credentials in src/big.py returns the wrong value"},
                          repo=root, embed=False, budget=12000)
    ex = {e.path: e for e in prompt.excluded}
    assert ex["src/big.py"].category == "size"
    assert "ok-value-7" in prompt.text  # the one definition, never the whole file
    assert "helper_2400" not in prompt.text
