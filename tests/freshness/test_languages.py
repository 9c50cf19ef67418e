"""A name a doc writes means the definition in the language of the code it documents: a Rust
port's function of the same name changing is not the Python method's signature changing
(sqlfluff's `docsv/development/architecture.md`, "Calling `.apply()` on this result")."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
PY = ("class MatchResult:\n    \"\"\"How to nest the matched segments.\"\"\"\n\n"
      "    def apply(self, segments):\n        return list(segments)\n")
RS = ("pub struct MatchResult {}\n\nimpl MatchResult {\n"
      "    pub fn apply(self, tokens: &[Token]) -> Vec<Node> {\n        Vec::new()\n    }\n}\n")
DOC = ("# Parser\n\nThe result of the `.match()` method is a `MatchResult`. Calling `.apply()` on this\n"
       "result at the end of the matching process is what creates the nested structure.\n")


def _repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "", "pkg/match_result.py": PY,
                         "pkg/grammar.py": "def match(segments):\n    return segments\n",
                         "port/src/match_result.rs": RS, "docs/architecture.md": DOC}, date=JAN)


def test_a_changed_rust_port_is_not_a_changed_signature_of_the_python_name(repo_factory):
    root = _repo(repo_factory)
    (root / "port/src/match_result.rs").write_text(RS.replace("(self, tokens: &[Token])", "(self, tokens: &[Token], depth: usize)"))
    commit(root, "port: apply takes a depth")
    assert check_docs(repo=root).findings == ()


def test_a_changed_python_signature_is_still_found(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/match_result.py").write_text(PY.replace("(self, segments)", "(self, segments, depth)"))
    commit(root, "apply takes a depth")
    got = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert len(got) == 1 and got[0][:2] == ("docs/architecture.md", 3), got
    assert "signature of `apply()` (pkg/match_result.py)" in got[0][2]
