"""Defaults a directive's signature states for a callable the code registers under another name (issue 25, rule
5): `.. function:: lipsum(n=5, html=True)` where `"lipsum": generate_lorem_ipsum` sits in a namespace dict; a
signature of a callable no file registers, or registers under two functions, is never a finding."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.signed_defaults import registered_as, signed_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

UTILS = '''def generate_lorem_ipsum(
    n: int = 5, html: bool = True, min: int = 20, max: int = 100
) -> str:
    """Generate some lorem ipsum for the template."""
    return "lorem " * n


def make_cycle(*items, start: int = 0):
    return list(items)[start:]


def shuffle_words(words, seed: int = 1):
    return words
'''

DEFAULTS = '''from .utils import generate_lorem_ipsum, make_cycle, shuffle_words

DEFAULT_NAMESPACE = {
    "range": range,
    "lipsum": generate_lorem_ipsum,
    "cycler": make_cycle,
}


def install(env):
    env.globals["shuffle"] = shuffle_words
    env.register("shuffle", make_cycle)
'''

TEMPLATES = """List of Global Functions
------------------------

.. function:: range([start,] stop[, step])

    Return a list containing an arithmetic progression of integers.

.. function:: lipsum(n=5, html=True, min=20, max=100)

    Generates some lorem ipsum for the template.  By default, five paragraphs
    of HTML are generated with each paragraph between 20 and 100 words.

.. class:: cycler(\\*items, start=0)

    Cycle through values by yielding them one at a time.

.. function:: shuffle(words, seed=1)

    Shuffle the words.

.. function:: wordwrap(s, width=79)

    A filter no file registers under this name.
"""


def test_signatures_state_defaults_and_registrations_name_functions():
    stated = signed_statements(TEMPLATES.split("\n"))
    assert (("n", "lipsum"), 8, "5", "lipsum") in stated and (("html", "lipsum"), 8, "True", "lipsum") in stated
    assert (("start", "cycler"), 13, "0", "cycler") in stated and not any(s[0][0] == "items" for s in stated)
    assert registered_as(DEFAULTS, "lipsum") == {"generate_lorem_ipsum"} and registered_as(DEFAULTS, "range") == {"range"}
    assert registered_as(DEFAULTS, "shuffle") == {"shuffle_words", "make_cycle"}  # two: which is meant is unclear
    assert registered_as(DEFAULTS, "wordwrap") == set()


def _site(repo_factory):
    return repo_factory({"tmpl/__init__.py": "", "tmpl/utils.py": UTILS, "tmpl/defaults.py": DEFAULTS,
                         "docs/templates.rst": TEMPLATES}, date=JAN)


def test_a_registered_functions_changed_default_is_flagged(repo_factory):
    root = _site(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "tmpl/utils.py").write_text(UTILS.replace("seed: int = 1", "seed: int = 2").replace(
        "def make_cycle(*items, start: int = 0)", "def make_cycle(*items, start: int = 0, step: int = 1)"))
    commit(root, "another seed; cycles step", date=FEB)
    assert check_docs(repo=root).findings == ()  # `shuffle` is registered as two functions; `start` kept its default
    (root / "tmpl/utils.py").write_text(UTILS.replace("n: int = 5", "n: int = 3"))
    commit(root, "three paragraphs by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/templates.rst", 8)]
    assert found[0].message.startswith(f"default of `n` of `lipsum` (tmpl/utils.py) changed in {head}")
