"""A Markdown code span holding a signature with annotations (`` `evaluate(context: RuleContext)
-> Optional[RuleResult]` ``) names the function and the classes it annotates with: a class
renamed since is stale there."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = '''"""Lint rules."""
from typing import Optional


class RuleContext:
    def __init__(self, segment, parent_stack=()):
        self.segment = segment
        self.parent_stack = parent_stack


class RuleResult:
    def __init__(self, anchor=None, description=""):
        self.anchor = anchor
        self.description = description


class BaseRule:
    def evaluate(self, context: RuleContext) -> Optional[RuleResult]:
        return None
'''
GUIDE = """# Writing a rule

Subclass `BaseRule` and implement `evaluate(context: RuleContext) -> Optional[RuleResult]`:
return `None` when the segment is fine.
"""


def test_a_signature_span_names_its_function_and_annotation_classes():
    got = {(r.line, r.name, r.kind, r.strict) for r in extract_references(Doc("AGENTS.md", "a", "a", GUIDE))}
    assert (3, "evaluate", "call", True) in got
    assert (3, "RuleContext", "symbol", True) in got and (3, "RuleResult", "symbol", True) in got
    assert not [r for r in got if r[1] == "Optional"]  # the library's


def test_a_class_renamed_since_is_stale_in_a_signature_span(repo_factory):
    root = repo_factory({"lintkit/__init__.py": "", "lintkit/rules.py": CODE, "AGENTS.md": GUIDE}, date=JAN)
    (root / "lintkit/rules.py").write_text(CODE.replace("RuleResult", "LintResult"))
    commit(root, "rename RuleResult to LintResult", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("AGENTS.md", 3)}
    assert "`RuleResult`" in got["AGENTS.md", 3] and "removed in" in got["AGENTS.md", 3]
    assert "LintResult" in got["AGENTS.md", 3]
