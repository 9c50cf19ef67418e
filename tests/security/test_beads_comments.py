"""Item 8 of issue 10: bd >= 1.1 omits comment bodies unless `--include-comments` is passed;
older bd rejects that flag. Both shapes keep the MANIFEST (its forbidden list) or say loudly
that it may be missing. A fake `bd` (a small script on PATH written here) emulates each."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from noface_ctx import build_prompt
from tests.conftest import make_repo

MARK = "FORBIDDEN-BEADS-MARKER-61f"
MANIFEST = "MANIFEST: primary=[src/app.py] forbidden=[src/secret_mod.py]"

_FAKE_BD = r'''#!{python}
import json, sys
args = sys.argv[1:]
mode = {mode!r}
issue = {{"id": "bd-1", "title": "run hidden", "description": "run() calls hidden() in secret_mod",
          "comments": [{{"id": 1, "text": "looking"}}, {{"id": 2, "text": {manifest!r}}}]}}
with open({log!r}, "a") as fh:
    fh.write(" ".join(args) + "\n")
if args[:1] != ["show"] or "--json" not in args:
    sys.exit(2)
if "--include-comments" in args:
    if mode == "old":
        sys.stderr.write("Error: unknown flag: --include-comments\n")
        sys.exit(1)
    print(json.dumps([issue]))
elif mode in ("new", "new-broken"):
    out = dict(issue, comments=[], comments_omitted=True, comment_count=2)
    print(json.dumps([out]))
else:
    print(json.dumps([issue]))
'''


def _fake_bd(tmp_path: Path, mode: str) -> Path:
    bindir = tmp_path / f"bin-{mode}"
    bindir.mkdir()
    script = bindir / "bd"
    script.write_text(_FAKE_BD.format(python=sys.executable, mode=mode, manifest=MANIFEST,
                                      log=str(tmp_path / f"bd-{mode}.log")))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    if mode == "new-broken":  # a bd >= 1.1 whose --include-comments still omits the bodies
        text = script.read_text().replace('    print(json.dumps([issue]))\nelif', '    print(json.dumps([dict(issue, comments=[], comments_omitted=True)]))\nelif', 1)
        script.write_text(text)
    return bindir


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "src/app.py": "from secret_mod import hidden\n\ndef run():\n    return hidden()\n",
        "src/secret_mod.py": f"def hidden():\n    return '{MARK}'\n",
    })


@pytest.mark.parametrize("mode", ["new", "old"])
def test_manifest_survives_both_bd_shapes(tmp_path, monkeypatch, mode):
    root = _repo(tmp_path)
    monkeypatch.setenv("PATH", str(_fake_bd(tmp_path, mode)) + os.pathsep + os.environ["PATH"])
    prompt = build_prompt("bd-1", repo=root, embed=False, budget=6000)
    assert prompt.issue.id == "bd-1"
    assert MARK not in prompt.text + json.dumps(prompt.to_dict())
    assert {e.path: e.category for e in prompt.excluded}["src/secret_mod.py"] == "forbidden"
    calls = (tmp_path / f"bd-{mode}.log").read_text().splitlines()
    assert calls[0] == "show bd-1 --json --include-comments"
    assert calls[1:] == ([] if mode == "new" else ["show bd-1 --json"])
    assert not any("comments were omitted" in w for w in prompt.warnings)


def test_omitted_comments_are_a_loud_warning(tmp_path, monkeypatch):
    root = _repo(tmp_path)
    monkeypatch.setenv("PATH", str(_fake_bd(tmp_path, "new-broken")) + os.pathsep + os.environ["PATH"])
    prompt = build_prompt("bd-1", repo=root, embed=False, budget=6000)
    assert any("comments were omitted" in w and "MANIFEST" in w for w in prompt.warnings)
