"""Defaults a definition list states in a term's body (issue 25, rule 5): the term is a quoted key (``'papersize'``,
read in the code by its key: a dict of defaults, `options.pop("parallel_safe", False)`), a name in bold or a
directive naming one value; "Default: ``'letterpaper'``" in a later paragraph of the body, "It defaults to
``False``, meaning ..." inside it. A body naming other code before its default sentence, or a list of values, is
about something else."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.subject_defaults import subject_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CONSTANTS = '''DEFAULT_SETTINGS = {
    "papersize": "letterpaper",
    "pointsize": "10pt",
}
'''

EXTENSION = '''class Extension:
    def __init__(self, name, **options):
        self.name = name
        self.parallel_safe = options.pop("parallel_safe", False)
'''

LATEX = """LaTeX
=====

Keys that you may want to override include:

``'papersize'``
   Paper size option of the document class (``'a4paper'`` or
   ``'letterpaper'``)

   Default: ``'letterpaper'``

``'pointsize'``
   Point size of the document class, as for ``papersize``. The default is ``'10pt'``.

The metadata a setup function returns:

``'parallel_safe'``
  A boolean that specifies if parallel reading can be used.
  It defaults to ``False``, meaning that you have to say so.

The modes:

* ``'auto'``: guess the mode (the default).
"""


def test_a_terms_body_states_the_terms_default():
    stated = subject_statements(LATEX.split("\n"))
    assert (("papersize",), 10, "letterpaper", True) in stated and (("parallel_safe",), 19, "False", True) in stated
    assert not any(names[0] == "pointsize" for names, *_rest in stated)  # ``papersize`` is named before its sentence
    bold = ["The keyword arguments:", "", "**nonl**", "  If true, lines are not folded.", "  The default is ``False``."]
    assert subject_statements(bold) == [(("nonl",), 5, "False", False)]


def _book(repo_factory):
    return repo_factory({"book/__init__.py": "", "book/constants.py": CONSTANTS, "book/extension.py": EXTENSION,
                         "docs/latex.rst": LATEX}, date=JAN)


def test_a_changed_key_default_is_flagged(repo_factory):
    root = _book(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "book/constants.py").write_text(CONSTANTS.replace('"10pt"', '"11pt"'))
    commit(root, "a larger point size", date=FEB)
    assert check_docs(repo=root).findings == ()  # the doc's sentence on it names ``papersize`` first: unread
    (root / "book/constants.py").write_text(CONSTANTS.replace('"letterpaper"', '"a4paper"'))
    (root / "book/extension.py").write_text(EXTENSION.replace('options.pop("parallel_safe", False)', 'options.pop("parallel_safe", True)'))
    commit(root, "A4 paper; parallel by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = sorted(check_docs(repo=root).findings, key=lambda f: f.line)
    assert [(f.path, f.line) for f in found] == [("docs/latex.rst", 10), ("docs/latex.rst", 19)]
    assert found[0].message.startswith(f"default of `papersize` (book/constants.py) changed in {head}")
    assert "`parallel_safe` (book/extension.py)" in found[1].message
