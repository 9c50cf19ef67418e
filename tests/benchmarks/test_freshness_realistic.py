"""The realistic-edit freshness benchmark's machinery on a tiny repository: edits, cases, scoring."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, make_repo

from benchmarks import freshness_edits as E
from benchmarks import freshness_realistic as R

CORE = '''\
"""Totals."""


def compute_total(items, scale=1):
    return sum(items) * scale


class Ledger:
    def record_entry(self, value):
        self.last = value


def unrelated():
    return compute_total([1])
'''

FILES = {
    "pkg/__init__.py": "from pkg.core import Ledger, compute_total\n\n__all__ = [\"compute_total\", \"Ledger\"]\n",
    "pkg/core.py": CORE,
    "pkg/extra.py": "import os\n",
    "tests/test_core.py": ("from pkg.core import compute_total\n\n\ndef test_total():\n"
                           "    assert compute_total([1, 2]) == 3\n\n\ndef test_other():\n    assert True\n"),
    "examples/demo.py": "from pkg import compute_total\n\nprint(compute_total([3]))\n",
    "docs/guide.md": ("# Guide\n\nAdd numbers with `pkg.core.compute_total()`.\n\n"
                      "Keep a `Ledger` to remember the last value.\n"),
    "docs/other.md": "# Other\n\nNothing about code here.\n",
}


def _case_file(folder: Path, source: Path, commit: str) -> None:
    folder.mkdir()
    (folder / "tiny.toml").write_text(f'''
[repo]
name = "tiny"
source = "{source}"
commit = "{commit}"

[[case]]
id = "tiny-rename"
group = "new"
kind = "rename"
names = ["compute_total"]
new = "sum_items"
message = "Rename compute_total to sum_items"
edits = [{{op = "word", old = "compute_total", new = "sum_items"}}]
expected = [{{path = "docs/guide.md", line = 3, kind = "md-span"}}]

[[case]]
id = "tiny-laundered"
group = "history"
kind = "laundered"
names = ["compute_total"]
new = "sum_items"
message = "Rename compute_total to sum_items"
edits = [{{op = "word", old = "compute_total", new = "sum_items"}}]
later = [{{op = "sub", paths = ["docs/guide.md"], pattern = "^# Guide$", repl = "# The guide", count = 1}}]
expected = [{{path = "docs/guide.md", line = 3, kind = "md-span"}}]
''')


def test_word_edit_reaches_code_not_docs(tmp_path):
    repo = make_repo(tmp_path / "r", FILES)
    sha = E.apply_edits(repo, [{"op": "word", "old": "compute_total", "new": "sum_items", "exclude": ["examples/"]}],
                        "rename")
    assert git(repo, "rev-parse", "HEAD").strip() == sha
    changed = set(git(repo, "show", "--name-only", "--format=", "HEAD").split())
    assert changed == {"pkg/__init__.py", "pkg/core.py", "tests/test_core.py"}  # docs and the leftover kept
    assert "compute_total" in (repo / "examples/demo.py").read_text()
    assert "`pkg.core.compute_total()`" in (repo / "docs/guide.md").read_text()


def test_move_drop_and_drop_uses(tmp_path):
    repo = make_repo(tmp_path / "r", FILES)
    E.apply_edits(repo, [{"op": "move", "name": "Ledger", "src": "pkg/core.py", "dst": "pkg/extra.py"}], "move")
    assert "class Ledger" not in (repo / "pkg/core.py").read_text()
    assert (repo / "pkg/extra.py").read_text().endswith("class Ledger:\n    def record_entry(self, value):\n"
                                                        "        self.last = value\n")
    E.apply_edits(repo, [{"op": "move", "name": "unrelated", "src": "pkg/core.py", "dst": "pkg/extra.py",
                          "before": "^class Ledger"}], "move before")
    extra = (repo / "pkg/extra.py").read_text()
    assert extra.index("def unrelated") < extra.index("class Ledger") and "def unrelated" not in (
        repo / "pkg/core.py").read_text()
    E.apply_edits(repo, [{"op": "move", "name": "unrelated", "src": "pkg/extra.py", "dst": "pkg/core.py"}], "back")
    E.apply_edits(repo, [{"op": "drop", "name": "compute_total", "src": "pkg/core.py"},
                         {"op": "drop_uses", "name": "compute_total", "exclude": ["examples/"]}], "remove")
    init = (repo / "pkg/__init__.py").read_text()
    assert init == "from pkg.core import Ledger\n\n__all__ = [\"Ledger\"]\n"  # import list and __all__ entry
    test = (repo / "tests/test_core.py").read_text()
    assert "def test_total" not in test and "def test_other" in test and "compute_total" not in test
    assert "def unrelated" not in (repo / "pkg/core.py").read_text()  # a caller goes with the feature
    assert "compute_total" in (repo / "examples/demo.py").read_text()  # the leftover


def test_drop_uses_takes_a_multiline_decorator_and_a_subclass_whole(tmp_path):
    tests = ("from pkg import retry, stop_soon, wait_short\n\n\n@retry(\n    wait=wait_short(),\n    stop=stop_soon(3),\n)\n"
             "def test_stops():\n    assert True\n\n\n@retry(wait=wait_short())\ndef test_waits():\n    assert True\n\n\n"
             "class Early(stop_soon):\n    limit = 1\n\n    def check(self):\n        return self.limit\n\n\n"
             "class Kept:\n    size = 2\n")
    repo = make_repo(tmp_path / "r", {"pkg/__init__.py": "def retry(**kw):\n    return lambda f: f\n", "tests/test_r.py": tests})
    E.apply_edits(repo, [{"op": "drop_uses", "name": "stop_soon"}], "remove stop_soon")
    left = (repo / "tests/test_r.py").read_text()
    assert "test_stops" not in left and "wait=wait_short(),\n" not in left and "Early" not in left and "limit" not in left
    assert "@retry(wait=wait_short())\ndef test_waits():" in left and "class Kept:\n    size = 2" in left
    compile(left, "test_r.py", "exec")  # no decorator left dangling, no body left without its class


def test_edit_that_stopped_matching_fails_loudly(tmp_path):
    repo = make_repo(tmp_path / "r", FILES)
    with pytest.raises(RuntimeError, match="changed 0 places"):
        E.apply_edits(repo, [{"op": "sub", "pattern": "no such text", "repl": "x"}], "nothing")


def test_case_without_expected_is_rejected(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "bad.toml").write_text('[repo]\nname = "x"\nsource = "."\ncommit = "HEAD"\n'
                                             '[[case]]\nid = "x"\ngroup = "new"\nkind = "rename"\nnames = ["a"]\n'
                                             'edits = []\n')
    with pytest.raises(ValueError, match="lacks"):
        R.load_cases(tmp_path / "c")


def test_group_filter_keeps_only_that_groups_cases(tmp_path):
    (tmp_path / "c").mkdir()
    case = '[[case]]\nid = "{0}"\ngroup = "{1}"\nkind = "rename"\nnames = ["a"]\nedits = [{{op = "word", old = "a", new = "b"}}]\nexpected = []\n'
    head = '[repo]\nname = "{0}"\nsource = "."\ncommit = "HEAD"\n'
    (tmp_path / "c" / "one.toml").write_text(head.format("one") + case.format("x", "new") + case.format("y", "heldout"))
    (tmp_path / "c" / "two.toml").write_text(head.format("two") + case.format("z", "new"))
    specs = R.load_cases(tmp_path / "c", groups=["heldout"])
    assert [(s["name"], [c["id"] for c in s["cases"]]) for s in specs] == [("one", ["y"])]
    assert [len(s["cases"]) for s in R.load_cases(tmp_path / "c")] == [2, 1]


def test_cases_run_on_a_clone_and_are_scored(tmp_path):
    source = make_repo(tmp_path / "src", FILES)
    pinned = git(source, "rev-parse", "HEAD").strip()
    _case_file(tmp_path / "cases", source, pinned)
    spec = R.load_cases(tmp_path / "cases")[0]
    result = R.run_repo(spec, tmp_path / "clones" / "tiny", None)
    assert result["pinned"]["docs"] >= 2 and result["pinned"]["errors"] == 0
    assert result["pinned"]["false_alarms"] == 0 and result["pinned"]["false_per_100_docs"] == 0.0
    rename, laundered = result["cases"]
    assert "error" not in rename and "error" not in laundered, result["cases"]
    doc = rename["docs"][0]
    assert doc["flagged"] and doc["blame_right"] and doc["suggestion_right"], doc
    assert doc["blame"] and rename["blame_expected"].startswith(doc["blame"][:7])
    assert doc["hook_flagged"]  # check-docs on the staged code files, before the commit
    assert rename["refs"] == [{"path": "docs/guide.md", "line": 3, "kind": "md-span", "flagged": True,
                               "line_exact": True}]
    assert rename["extra"] == [] and laundered["extra"] == []
    assert laundered["docs"][0]["path"] == "docs/guide.md" and laundered["kind"] == "laundered"
    clone = tmp_path / "clones" / "tiny"
    assert git(clone, "rev-parse", "HEAD").strip() == pinned  # reset after the run
    assert git(source, "rev-parse", "HEAD").strip() == pinned  # the source is never touched
    summary = R.summarise([result])
    flagged = 1 + laundered["docs"][0]["flagged"]
    assert summary["expected_docs_flagged"].startswith(f"{flagged}/2")
    assert summary["by_group"]["new"].startswith("1/1")
    assert summary["by_reference_kind"]["md-span"]["doc_flagged"].startswith(f"{flagged}/2")
    assert "| tiny-rename | new | rename | 1/1 | 1/1 | 1/1 | 0 | 1/1 |" in R.markdown([result], summary)


def test_compare_lists_docs_two_runs_disagree_on():
    def run(flags):
        return {"results": [{"cases": [{"id": "c", "docs": [{"path": p, "flagged": f} for p, f in flags.items()]}]}]}

    old, new = run({"a.md": False, "b.md": True, "c.md": True}), run({"a.md": True, "b.md": False, "c.md": True})
    assert R.compare(old, new) == ["now flagged: c a.md", "no longer flagged: c b.md"]


def test_scoring_reads_names_not_commit_subjects():
    finding = {"path": "d.md", "line": 3, "code": "stale-ref", "severity": "warning",
               "message": 'signature of `Flask` changed in 4f3d24c710 (2026-11-24, "rename old_name to x")'}
    assert not R.mentions(finding, ["old_name"]) and R.mentions(finding, ["Flask"])
    assert R.blamed(finding) == "4f3d24c710"
    assert R.suggests("flask.cli.FlaskCliRunner", "flask.cli.FlaskCliRunner")
    assert R.suggests("Flask.add_blueprint", "add_blueprint") and not R.suggests("Flask.other", "add_blueprint")
    # a module renamed: its member under the new module is the new name (webargs.multidictproxy -> multidict)
    assert R.suggests("webargs.multidict.MultiDictProxy", "webargs.multidict")
    assert not R.suggests("webargs.multidictproxy.MultiDictProxy", "webargs.multidict")
    assert R.suggests("src/pluggy/result.py", "pluggy.result.Result") and not R.suggests("src/pluggy/hooks.py", "pluggy.result.Result")
    assert R.suggests("jsonschema.formats._F", "jsonschema.formats.FormatChecker", "jsonschema._format._F")
    assert not R.suggests("jsonschema.formats._G", "jsonschema.formats.FormatChecker", "jsonschema._format._F")


def test_clone_of_a_mirror_missing_blobs_gets_placeholders(tmp_path):
    """A mirror without some blobs: `git log -M` dies on the plain clone; the benchmark's clone has a
    placeholder for each missing blob, skips the pinned commit's missing files, and has its history."""
    data = "".join(f"row {i}\n" for i in range(200))
    src = make_repo(tmp_path / "src", {"data.csv": data, "pkg/m.py": "def f():\n    return 1\n"})
    (src / "data.csv").unlink()
    (src / "big.csv").write_text(data + "row 200\n")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "rename the data")
    head = git(src, "rev-parse", "HEAD").strip()
    for path in ("HEAD~1:data.csv", "HEAD:big.csv"):  # the mirror lacks both blobs
        sha = git(src, "rev-parse", path).strip()
        (src / ".git" / "objects" / sha[:2] / sha[2:]).unlink()

    plain = tmp_path / "plain"
    R.make_clone({"source": str(src)}, plain)
    assert E.git(plain, "log", "-M", "--name-status", check=False) == ""  # the history pass fails

    clone = tmp_path / "clone"
    R.make_clone({"source": str(src), "missing_blobs": "placeholder", "sparse_skip": ["big.csv"]}, clone)
    E.reset(clone, head)
    log = E.git(clone, "log", "-M", "--name-status", "--format=%s")
    assert "rename the data" in log and "data.csv" in log
    assert (clone / "pkg" / "m.py").is_file() and not (clone / "big.csv").exists()
    assert E.git(clone, "status", "--porcelain") == ""
    assert E.git(clone, "rev-parse", "HEAD").strip() == head  # commit ids unchanged
