"""A default stated in prose whose value wraps to the next line, beside the parameter's name
("``bulk_data_threshold`` (by default set to\\n1024)"), is compared with the code's default like
a one-line statement; a parameter several functions share, all changed alike, warns once."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.defaults import stated_defaults

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

DATASET = '''"""Datasets written as JSON."""


class Dataset(dict):
    def to_json_dict(self, handler=None, bulk_data_threshold: int = 1024, suppress_invalid_tags: bool = False):
        return {k: v for k, v in self.items() if len(v) <= bulk_data_threshold or handler is None}

    def to_json(self, handler=None, bulk_data_threshold: int = 1024, *, dump_handler=None):
        return str(self.to_json_dict(handler, bulk_data_threshold))
'''
ELEMENT = '''"""One element written as JSON."""


class Element:
    def __init__(self, value):
        self.value = value

    def to_json_dict(self, handler, bulk_data_threshold: int = 1024):
        return handler(self.value) if len(self.value) > bulk_data_threshold else self.value
'''
DOC = """Writing JSON
============

On writing, the bulk data handler stores large values so that they can be read back later.
Note that only data greater than ``bulk_data_threshold`` (by default set to
1024) is handled by the bulk data handler; smaller data is written inline.
"""


def test_a_default_whose_value_wraps_to_the_next_line_is_stated():
    stated = stated_defaults(Doc("docs/json.rst", "json", "j", DOC))
    assert [(s.line, s.value) for s in stated if "bulk_data_threshold" in s.names] == [(5, "1024")]


def test_a_wrapped_default_changed_in_every_function_warns_once(repo_factory):
    root = repo_factory({"dcmjson/__init__.py": "", "dcmjson/dataset.py": DATASET, "dcmjson/element.py": ELEMENT,
                         "docs/json.rst": DOC}, date=JAN)
    for name, text in (("dataset.py", DATASET), ("element.py", ELEMENT)):
        (root / "dcmjson" / name).write_text(text.replace("bulk_data_threshold: int = 1024", "bulk_data_threshold: int = 4096"))
    commit(root, "raise the bulk data threshold to 4096", date=FEB)
    report = check_docs(repo=root)
    got = [(f.path, f.line, f.message) for f in report.findings]
    assert len(got) == 1, got  # three functions changed alike: one warning for the doc's line
    path, line, message = got[0]
    assert (path, line) == ("docs/json.rst", 5)
    assert "bulk_data_threshold" in message and "raise the bulk data threshold" in message


def test_a_wrapped_default_the_code_still_gives_is_no_finding(repo_factory):
    root = repo_factory({"dcmjson/__init__.py": "", "dcmjson/dataset.py": DATASET, "docs/json.rst": DOC}, date=JAN)
    (root / "dcmjson/dataset.py").write_text(DATASET.replace("suppress_invalid_tags: bool = False", "suppress_invalid_tags: bool = True")
                                             .replace("*, dump_handler=None", "*, dump_handler=None, indent=None"))
    commit(root, "suppress invalid tags by default", date=FEB)
    assert not check_docs(repo=root).findings  # another parameter's default changed: 1024 holds
