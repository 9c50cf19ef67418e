"""A dotted path written from the repository's own package is judged along its whole path
(`own_paths`): `pkg.Result` needs `pkg` to define or re-export `Result` (a Rust-like name of the
foreign-names list excuses nothing under our package), and `pkg.Checker.check` is the member of the
class `pkg` exports, not of a `Checker` defined anywhere. The suggestion names the class where it
lives now, with the member the doc wrote."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
FILES = {
    "pkg/__init__.py": "from ._res import Other\nfrom ._res import Result\nfrom .fmt import Checker\n",
    "pkg/_res.py": "class Result:\n    def get(self):\n        return 1\n\n\nclass Other:\n    pass\n",
    "pkg/fmt.py": "class Checker:\n    def check(self, x):\n        return x\n",
    "docs/api.rst": (
        "API\n===\n\nThe :class:`pkg.Result` holds an outcome.\n\n"
        "Validate with :meth:`pkg.Checker.check`.\n\n"
        ".. code-block:: rust\n\n   fn f() -> Result<u8, Error> { Ok(1) }\n\n"
        "Not ours: :class:`np.Result` and :meth:`np.Result.get`.\n"),
    "docs/use.rst": "Use\n===\n\nRead it with :meth:`~pkg.Result.get`.\n",
}


def _found(root):
    return sorted((f.path, f.line, f.message) for f in check_docs(repo=root).findings)


def test_a_foreign_name_under_our_package_is_judged_by_our_package(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/_res.py").rename(root / "pkg/result.py")
    (root / "pkg/__init__.py").write_text("from .result import Other\nfrom .fmt import Checker\n")
    commit(root, "move Result out of the top level", date=FEB)
    found = _found(root)
    assert [(p, line) for p, line, _ in found] == [("docs/api.rst", 4), ("docs/use.rst", 4)]
    # (the import of `Other` edited beside it is no rename of `Result`: that line is another's edit)
    assert "`pkg.result.Result`" in found[0][2] and "`pkg.result.Result.get`" in found[1][2]


def test_a_class_member_path_needs_the_class_our_package_exports(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/__init__.py").write_text("from ._res import Other\nfrom ._res import Result\n")
    commit(root, "stop re-exporting Checker", date=FEB)
    found = _found(root)
    assert [(p, line) for p, line, _ in found] == [("docs/api.rst", 6)]
    assert "`pkg.fmt.Checker.check`" in found[0][2]  # where the class lives now, with the member written


def test_paths_still_exported_and_paths_not_ours_are_left_alone(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/_res.py").write_text("class Result:\n    def get(self):\n        return 2\n\n\nclass Other:\n    pass\n")
    (root / "pkg/fmt.py").write_text("class Checker:\n    def check(self, x, y=None):\n        return x\n")
    commit(root, "edit bodies only", date=FEB)
    (root / "pkg/util.py").write_text("class Result:\n    pass\n")
    commit(root, "another Result", date=MAR)
    assert _found(root) == []
