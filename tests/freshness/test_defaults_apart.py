"""Stated defaults judged in a forked worker (`defaults_apart`): a first `check-docs` run gives the
same report with the worker as without, and a worker that fails is made up for here."""

from __future__ import annotations

import os

import pytest
from conftest import commit
from test_defaults import CONFIG, CONFIG_DOC, FEB, JAN, OPTIONS_DOC

from noface_ctx import _process
from noface_ctx.freshness import defaults_apart
from noface_ctx.freshness.check import check_docs

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forking is POSIX only")


def _repo(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/config.py": CONFIG, "docs/config.rst": CONFIG_DOC,
                         "docs/options.md": OPTIONS_DOC}, date=JAN)
    text = CONFIG.replace('prefix: str = "FLASK"', 'prefix: str = "APP"').replace('default="3"', 'default="5"')
    (root / "pkg/config.py").write_text(text.replace("timeout: int = 10", "timeout: int = 30"))
    commit(root, "new defaults", date=FEB)
    return root


def test_a_first_run_finds_the_same_defaults_with_the_worker_as_without(repo_factory, tmp_path, monkeypatch):
    root = _repo(repo_factory)
    monkeypatch.setattr(defaults_apart, "FORK_AFTER", 0)  # every run's defaults judged in a worker
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)  # other tests' idle threads aside
    forked: list[bool] = []
    real = defaults_apart.start_server
    monkeypatch.setattr(defaults_apart, "start_server", lambda *a, **k: (forked.append(bool(got := real(*a, **k))), got)[1])
    reports = []
    for name in ("worker", "here"):
        monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / name))  # a first run each
        reports.append(check_docs(repo=root).to_dict())
        reports[-1].pop("seconds")
        monkeypatch.setattr(defaults_apart, "start_server", lambda *a, **k: None)
    assert forked == [True]
    assert reports[0] == reports[1]
    assert {(f["path"], f["line"]) for f in reports[0]["findings"] if f["code"] == "changed-ref"} == {
        ("docs/config.rst", 4), ("docs/config.rst", 11), ("docs/options.md", 3)}


def test_a_worker_that_fails_is_made_up_for_here(repo_factory, tmp_path, monkeypatch):
    root = _repo(repo_factory)
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "here"))
    want = check_docs(repo=root).to_dict()
    monkeypatch.setattr(defaults_apart, "FORK_AFTER", 0)
    monkeypatch.setattr(_process.threading, "active_count", lambda: 1)
    parent = os.getpid()
    real = defaults_apart._serve  # private: the worker's call made to fail there only

    def failing(conn, find, *args):  # the worker's call raises there, not here
        return real(conn, lambda *a: (_ for _ in ()).throw(OSError("gone")) if os.getpid() != parent else find(*a), *args)

    monkeypatch.setattr(defaults_apart, "_serve", failing)  # private: as above
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "failed"))
    got = check_docs(repo=root).to_dict()
    for report in (want, got):
        report.pop("seconds")
    assert got == want and any(f["code"] == "changed-ref" for f in got["findings"])
