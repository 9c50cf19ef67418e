"""Defaults stated by a pronoun after the parameter ("The feature is off by default"), by an example of what the
defaults are equivalent to, by a value "for <noun>" read in a constant named as a default, and by a plain value word
("uses HMAC and SHA1 for signing by default") looked for where the doc said it (issue 25, rule 5). Each with a
negative: two parameters before the pronoun, a block introduced as something else, a constant still assigned the
stated value, a word whose default did not change."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.shown_defaults import shown_default, shown_statements
from noface_ctx.freshness.subject_defaults import subject_statements
from noface_ctx.freshness.worded_defaults import word_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

CODE = '''from collections import OrderedDict

from .stamps import Stamper, make_filter

DEFAULT_PROCS = [
    Stamper(fmt="%Y", utc=False),
]
DEFAULT_WRAPPER_CLASS = make_filter(0)
DEFAULT_CONTEXT_CLASS = OrderedDict


def configure(procs=None, wrapper_class=None, compare_defaults=False, check_types=False, render_all=False):
    """Configure."""
'''

STAMPS = '''class Stamper:
    def __init__(self, fmt=None, utc=True):
        self.fmt = fmt


def make_filter(level):
    return level
'''

SIGNING = '''import hashlib


class Signer:
    default_digest = staticmethod(hashlib.sha1)
    default_encoding = "utf-8"
'''

DOC = """Configuration
=============

* Comparing defaults.  This happens if you set the
  :paramref:`.configure.compare_defaults` parameter to ``True``.
  It works for simple cases.  The feature is off by default so that
  it can be tried first.

* Checking types and rendering.  Set ``check_types`` or ``render_all``
  to ``True``.  The feature is off by default.

Using the defaults is equivalent to:

```python
import logging
import app

app.configure(
    procs=[app.Stamper(fmt="%Y", utc=False)],
    wrapper_class=app.make_filter(logging.NOTSET),
)
```

A faster configuration:

```python
app.configure(procs=[app.Stamper(fmt="%Y", utc=False)])
```

If nothing is configured, the default values are used which means :class:`collections.OrderedDict` for context.

Internally app uses HMAC and SHA1 for signing by default.
Text is UTF-8 by default.
"""


def test_the_statements_read():
    lines = DOC.split("\n")
    assert (("compare_defaults", "configure"), 6, "False", False) in subject_statements(lines)
    assert not [s for s in subject_statements(lines) if s[0][0] in ("check_types", "render_all")]  # two names: whose?
    shown = shown_statements(lines)
    assert (("fmt", "Stamper"), 19, "%Y", "Stamper", "call", ("configure",)) in shown
    assert (("wrapper_class",), 20, "", "", "const", ("configure",)) in shown  # `logging.NOTSET`: any change
    assert not [s for s in shown if s[1] > 21 and s[4] == "call"]  # "A faster configuration:" states no default
    assert [s[:3] for s in shown if s[0] == ("context",)] == [(("context",), 30, "OrderedDict")]
    assert word_statements(DOC) == [(32, "SHA1"), (33, "UTF-8")]
    assert word_statements("Uses ``SHA1`` by default.\n\nUses SHA1 and MD5 by default.\n") == []  # code; two words


def test_the_code_defaults_read():
    assert shown_default(CODE, "fmt", "Stamper", "call") == "%Y" and shown_default(CODE, "utc", "Stamper", "call") == "False"
    assert shown_default(CODE, "wrapper_class", "", "const") == "make_filter(0)"
    branched = CODE.replace("DEFAULT_CONTEXT_CLASS = OrderedDict", "if NEW:\n    DEFAULT_CONTEXT_CLASS = dict\nelse:\n    DEFAULT_CONTEXT_CLASS = OrderedDict")
    assert shown_default(branched, "context", "", "const") == "OrderedDict or dict"
    assert shown_default(CODE, "class", "", "const") is None  # two constants hold the word: which one is unclear


def _site(repo_factory):
    return repo_factory({"app/__init__.py": "from .config import *\nfrom .stamps import *\n", "app/config.py": CODE,
                         "app/stamps.py": STAMPS, "app/signing.py": SIGNING, "docs/config.md": DOC}, date=JAN)


def test_changed_defaults_are_flagged_and_unchanged_ones_are_not(repo_factory):
    root = _site(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "app/config.py").write_text(CODE.replace("check_types=False, render_all=False", "check_types=True, render_all=True"))
    (root / "app/signing.py").write_text(SIGNING.replace('"utf-8"', '"latin-1"').replace("class Signer:", "class Signer:\n    x = 1"))
    commit(root, "types and rendering on; latin-1", date=FEB)
    found = check_docs(repo=root).findings
    assert [f.line for f in found] == [33]  # two parameters before "The feature": unread; UTF-8 gone: flagged, SHA1 kept
    root = _site(lambda files, date: repo_factory(files, name="again", date=date))
    changed = (CODE.replace('Stamper(fmt="%Y"', 'Stamper(fmt="iso"').replace("make_filter(0)", "make_filter(20)")
               .replace("compare_defaults=False", "compare_defaults=True")
               .replace("DEFAULT_CONTEXT_CLASS = OrderedDict", "if NEW:\n    DEFAULT_CONTEXT_CLASS = dict\nelse:\n    DEFAULT_CONTEXT_CLASS = OrderedDict"))
    (root / "app/config.py").write_text(changed)
    (root / "app/signing.py").write_text(SIGNING.replace("hashlib.sha1", "hashlib.sha512"))
    commit(root, "new defaults", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = sorted(check_docs(repo=root).findings, key=lambda f: f.line)
    assert [(f.path, f.line) for f in found] == [("docs/config.md", n) for n in (6, 19, 20, 30, 32)]
    assert all(head in f.message for f in found)
    assert "`context_class`" in found[3].message and "`default_digest`" in found[4].message


def test_a_value_word_the_code_took_away_before_the_doc_was_edited(repo_factory):
    """The sentence was true when written; the code changed; the doc was edited elsewhere later: still stale."""
    root = _site(repo_factory)
    (root / "app/signing.py").write_text(SIGNING.replace("hashlib.sha1", "hashlib.sha512"))
    commit(root, "sha512 by default", date=FEB)
    changed = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/config.md").write_text(DOC.replace("Configuration\n=============", "Settings\n========"))
    commit(root, "retitle", date=MAR)
    found = check_docs(repo=root).findings
    assert [f.line for f in found] == [32] and changed in found[0].message  # (UTF-8 still the default: not flagged)
