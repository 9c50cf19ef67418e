"""Item 10 of issue 10: credentials pasted into the issue are masked, with a warning."""

from __future__ import annotations

import json

from noface_ctx import build_prompt
from noface_ctx.cli import main
from tests.conftest import make_repo
from tests.security.fakesecrets import aws_key, pem_block


def test_secrets_in_issue_text_are_masked_with_a_warning(tmp_path, capsys):
    key, pem = aws_key(), pem_block()
    body_line = pem.splitlines()[2]
    root = make_repo(tmp_path / "repo", {"src/auth.py": "def login(user):\n    return user\n"})
    issue = {"id": "i-1", "title": "login fails",
             "description": f"Login fails with key {key} and this key:\n{pem}\nplease fix login()",
             "comments": [{"text": f"also tried {key}"}]}
    prompt = build_prompt(issue, repo=root, embed=False, budget=6000)
    out = prompt.text + json.dumps(prompt.to_dict())
    assert key not in out and body_line not in out
    assert "[REDACTED: aws-access-key-id]" in prompt.text and "[REDACTED: private-key]" in prompt.text
    assert "please fix login()" in prompt.text  # the rest of the text stays
    assert any("description" in w and "masked" in w and "AWS access key id" in w for w in prompt.warnings)
    assert all(key not in w for w in prompt.warnings)

    (root / "issue.md").write_text(f"# Login fails\n\nkey {key}\n")
    code = main(["preview", str(root / "issue.md"), "--repo", str(root), "--no-embed"])
    captured = capsys.readouterr()
    assert code == 0 and key not in captured.out and key not in captured.err
    assert "masked" in captured.err and "[REDACTED: aws-access-key-id]" in captured.out


def test_issue_without_secrets_is_untouched(tmp_path):
    root = make_repo(tmp_path / "repo", {"src/auth.py": "def login(user):\n    return user\n"})
    text = "password = os.environ['DB_PASSWORD'] is read in login(); the AKIAIOSFODNN7EXAMPLE doc key too"
    prompt = build_prompt({"id": "i-2", "title": "login", "description": text}, repo=root, embed=False, budget=6000)
    assert text in prompt.text and not any("masked" in w for w in prompt.warnings)
