"""Import paths a shell command names (held-out12, uvicorn: `gunicorn example:app -w 4 -k
uvicorn.workers.UvicornWorker` in a fence without a language, when `UvicornWorker` was renamed):
`a.b.C` and `a.b:obj` whose root is the repository's package are references; files, hosts, paths
and other packages' paths are not."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.shell_paths import shell_refs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

FILES = {
    "pkg/__init__.py": "", "pkg/workers.py": "class Worker:\n    pass\n", "pkg/main.py": "app = object()\n",
    "docs/deploy.md": "# Deploy\n\n```\ngunicorn pkg.main:app -w 4 -k pkg.workers.Worker\n```\n",
    "docs/session.rst": "Run\n===\n\n.. code-block:: console\n\n    $ gunicorn app -k pkg.workers.Worker\n",
    "docs/others.md": ("# Others\n\n```bash\ncurl www.pkg.org\nuvicorn pkg.main:app --uds /tmp/pkg.sock --log-config pkg.log\n"
                       "gunicorn -k other.workers.Worker app\ngunicorn -k pkg.workers.Never app\n```\n\n```\nINFO: pkg.workers.Worker booted\n```\n"),
}


def _flagged(root):
    return {f.path: f.message for f in check_docs(repo=root).findings}


def test_a_class_a_shell_command_names_by_its_import_path_is_flagged_when_renamed(repo_factory):
    root = repo_factory(FILES, date=JAN)
    assert _flagged(root) == {}
    (root / "pkg/workers.py").write_text("class UvicornWorker:\n    pass\n")
    commit(root, "Worker is UvicornWorker", date=FEB)
    found = _flagged(root)
    # another package's path, a name never ours, a host, a file, a log line (no command): nothing
    assert sorted(found) == ["docs/deploy.md", "docs/session.rst"]
    assert "pkg.workers.Worker" in found["docs/deploy.md"] and "UvicornWorker" in found["docs/deploy.md"]


def test_a_module_named_before_a_colon_is_the_reference():
    refs = shell_refs([(1, "uvicorn pkg.main:app --reload"), (2, "python -m pkg.tool"), (3, "python3.11 app.py"),
                       (4, "DJANGO_SETTINGS_MODULE=proj.settings pytest"), (5, "pip install pkg.whl")], "")
    assert [(r.name, r.binds) for r in refs] == [("pkg.main", "pkg"), ("pkg.tool", "pkg"), ("proj.settings", "proj")]
    assert shell_refs([(1, "python -m pkg.tool")], "python") == []  # Python's blocks are read as Python
    assert [r.name for r in shell_refs([(1, "$ python -m pkg.tool"), (2, "pkg.tool.Result(ok)")], "console")] == ["pkg.tool"]
