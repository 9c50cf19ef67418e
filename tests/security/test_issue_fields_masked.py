"""Issue 24 (low): credentials in an issue's id, type, labels and manifest entries never reach
the prompt or the warnings; the real entries still govern what is served."""

from __future__ import annotations

import json

from noface_ctx import build_prompt
from tests.conftest import make_repo
from tests.security.fakesecrets import aws_key


def test_id_labels_type_and_manifest_entries_are_masked(tmp_path):
    key = aws_key()
    root = make_repo(tmp_path / "repo", {"src/auth.py": "def login(user):\n    return user\n",
                                         "src/keep_out.py": "def hidden():\n    return 1\n"})
    issue = {"id": f"ops-{key}", "title": "login fails", "description": "login() returns the wrong user",
             "labels": [f"rotate-{key}", "auth"], "issue_type": f"bug {key}"}
    manifest = {"primary_files": ["src/auth.py", f"src/{key}.py"], "forbidden_files": ["src/keep_out.py", f"vault/{key}"]}
    prompt = build_prompt(issue, repo=root, manifest=manifest, embed=False, budget=6000)
    shown = prompt.text + "\n".join(prompt.warnings)
    assert key not in shown, [line for line in shown.splitlines() if key in line]
    assert "[REDACTED: aws-access-key-id]" in prompt.text and "login fails" in prompt.text
    assert "src/auth.py" in prompt.text and "auth" in prompt.text
    assert "def hidden" not in prompt.text  # the real forbidden entries still apply
    assert key not in json.dumps(prompt.to_dict()["warnings"])
