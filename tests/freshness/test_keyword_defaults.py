"""Defaults stated with a keyword written as code (issue 25, rule 5): a ``name=value`` span beside "the default"
states `name`'s default (split into the parameter and the value), and a paragraph saying what happens by default
that tells to pass ``name=V`` states that `name`'s default is not V."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.coded_defaults import comparable
from noface_ctx.freshness.keyword_defaults import keyword_default, opt_outs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

THREADS = '''def run_sync(fn, *args, abandon: bool = False, limiter=None):
    return fn(*args)


def run_async(fn, *, abandon: bool = True):
    return fn()
'''
REUSE = ("Threads\n=======\n\n.. note::\n\n   The callbacks reuse the task that called\n   :func:`pkg.threads.run_sync`,"
         " as long as you're\n   using the default ``abandon=False``. If you pass ``abandon=True``, they do not.\n")
PASSING = ("Cancelling\n==========\n\nPass ``abandon=True`` to :func:`pkg.threads.run_sync` to leave the thread behind\n"
           "when it is cancelled.\n")


def _change(repo_factory, files: dict[str, str], path: str, old: str, new: str) -> tuple[set[tuple[str, int, str]], str]:
    root = repo_factory({"pkg/__init__.py": "", **files}, date=JAN)
    (root / path).write_text(files[path].replace(old, new))
    commit(root, f"{old} -> {new}", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert all(head in f.message for f in found)
    return {(f.path, f.line, f.code) for f in found}, head


def test_a_keyword_span_after_the_default_states_that_parameters_default():
    assert keyword_default("   using the default ``abandon=False``. If you pass ``abandon=True``") == ("abandon", "False")
    assert keyword_default("``strict=True`` is the default") == ("strict", "True")
    assert keyword_default("Use ``abandon=True`` (the default) when") == ("abandon", "True")
    assert keyword_default("If you pass ``abandon=True``, they do not.") is None  # no "default": a value passed
    assert keyword_default("the default is ``abandon``") is None  # no value


def test_a_flipped_keyword_default_warns_the_doc_stating_it_as_a_span(repo_factory):
    files = {"pkg/threads.py": THREADS, "docs/threads.rst": REUSE, "docs/cancel.rst": PASSING}
    got, _ = _change(repo_factory, files, "pkg/threads.py", "abandon: bool = False", "abandon: bool = True")
    assert got == {("docs/threads.rst", 8, "changed-ref")}  # not the doc passing it with no word of a default


def test_a_keyword_span_stating_the_current_default_is_not_warned(repo_factory):
    # run_async's default changed; the doc states run_sync's, which did not
    files = {"pkg/threads.py": THREADS, "docs/threads.rst": REUSE}
    got, _ = _change(repo_factory, files, "pkg/threads.py", "abandon: bool = True)", "abandon: bool = False)")
    assert got == set()


GUEST = '''def start_guest_run(fn, *, run_sync_soon_threadsafe: Callable[[object], None], host_uses_wakeup_fd: bool = False):
    return unrolled_run(fn, host_uses_wakeup_fd=host_uses_wakeup_fd)


def unrolled_run(fn, host_uses_wakeup_fd: bool = False):
    return fn
'''
WAKEUP = ("Guest mode\n==========\n\nBy default, the loop assumes that your host loop doesn't use\n`signal.set_wakeup_fd`. "
          "If it does, you should disable its\nsupport by passing ``host_uses_wakeup_fd=True`` to `start_guest_run`.\n")
NO_DEFAULT = ("Guest mode\n==========\n\nIf your host loop uses `signal.set_wakeup_fd`, disable the loop's own support\n"
              "by passing ``host_uses_wakeup_fd=True`` to `start_guest_run`.\n")


def test_passing_a_keyword_beside_what_happens_by_default_states_the_default_is_not_that_value(repo_factory):
    files = {"pkg/guest.py": GUEST, "docs/guest.rst": WAKEUP, "docs/plain.rst": NO_DEFAULT}
    # start_guest_run's default flips (unrolled_run's stays): the paragraph saying what it does by default is stale
    got, _ = _change(repo_factory, files, "pkg/guest.py", "host_uses_wakeup_fd: bool = False):\n    return unrolled",
                     "host_uses_wakeup_fd: bool = True):\n    return unrolled")
    assert got == {("docs/guest.rst", 6, "changed-ref")}


def test_passing_a_keyword_whose_default_changed_to_another_value_is_not_warned(repo_factory):
    # the default moved to None: passing True still does what the paragraph says
    files = {"pkg/guest.py": GUEST, "docs/guest.rst": WAKEUP}
    got, _ = _change(repo_factory, files, "pkg/guest.py", "host_uses_wakeup_fd: bool = False):\n    return unrolled",
                     "host_uses_wakeup_fd: bool | None = None):\n    return unrolled")
    assert got == set()


def test_opt_outs_read_the_callable_the_keyword_is_passed_to():
    lines = WAKEUP.split("\n")
    assert opt_outs(lines, comparable) == [(("host_uses_wakeup_fd",), 6, "True", "start_guest_run", (), True)]
    assert opt_outs(NO_DEFAULT.split("\n"), comparable) == []  # no "by default" in the paragraph
    variable = ["By default, threads are limited.", "Run more by passing ``limiter=my_limiter``."]
    assert opt_outs(variable, comparable) == []  # a variable passed, no value


def test_paragraphs_are_runs_of_non_blank_lines():
    from noface_ctx.freshness.blocks import line_runs

    lines = ["", "By default it waits.", "Pass ``wait=False``.", "   ", "", "Another one.", "  indented too", ""]
    assert line_runs(lines) == [(1, 3), (5, 7)]
    assert line_runs([]) == [] and line_runs(["one"]) == [(0, 1)]
