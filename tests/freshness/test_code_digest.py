"""Derived caches are versioned by the code that fills them (`code_digest.sources_version`): an
answer written by other code is never read back as if the user's code had changed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from conftest import make_repo

from noface_ctx.freshness import code_digest, code_words, definitions, history
from noface_ctx.freshness.history import HistoryIndex

_FRESHNESS = Path(code_digest.__file__).parent


def _copy(tmp_path: Path, *modules: str) -> Path:
    folder = tmp_path / "src"
    folder.mkdir()
    for name in modules:
        shutil.copy(_FRESHNESS / f"{name}.py", folder / f"{name}.py")
    return folder


def test_the_version_follows_the_sources_bytes_and_the_number(tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n")
    first = code_digest.sources_version(6, "a", folder=folder)
    assert first == code_digest.sources_version(6, "a", folder=folder)  # stable from run to run
    assert first >> 24 == 6 and 0 < first < 2**31  # a positive 32-bit PRAGMA user_version
    assert code_digest.sources_version(7, "a", folder=folder) != first
    (folder / "a.py").write_text("x = 2\n")
    assert code_digest.sources_version(6, "a", folder=folder) != first
    # an install without sources: still one version, run after run
    assert code_digest.sources_version(6, "gone", folder=folder) == code_digest.sources_version(6, "gone", folder=folder)


def test_a_change_to_generated_constructors_changes_the_history_caches_version(tmp_path):
    # the regression behind this: generated_init changed what a dataclass's signature is, the
    # cached signatures of older versions were read back, and a doc naming the class was told
    # its signature had changed
    modules = ("definitions", "attached", "body_tokens", "generated_init", "constant_defaults")
    assert history.SCHEMA == definitions.ANSWERS_VERSION == code_digest.sources_version(6, *modules)
    folder = _copy(tmp_path, *modules)
    with (folder / "generated_init.py").open("a") as f:
        f.write("\n# a change to how a constructor is generated\n")
    assert code_digest.sources_version(6, *modules, folder=folder) != history.SCHEMA


def test_a_change_to_declarations_changes_the_words_caches_version(tmp_path):
    modules = ("code_words", "declarations", "attached", "definitions", "references")
    assert code_words._SCHEMA == code_digest.sources_version(10, *modules)  # private: the words cache's header version
    folder = _copy(tmp_path, *modules)
    with (folder / "declarations.py").open("a") as f:
        f.write("\n# what a file declares, read differently\n")
    assert code_digest.sources_version(10, *modules, folder=folder) != code_words._SCHEMA  # private: as above


def test_a_history_cache_written_by_other_code_is_dropped_and_one_by_this_code_kept(tmp_path):
    root = make_repo(tmp_path / "repo", {"pkg/a.py": "def f(x):\n    return x\n"})
    db_path = tmp_path / "cache" / "history.sqlite"
    db_path.parent.mkdir()
    index = HistoryIndex(root, db_path)
    index.close()

    def mark(version: int) -> None:
        db = sqlite3.connect(db_path)
        db.execute("CREATE TABLE IF NOT EXISTS marker(x)")
        db.execute(f"PRAGMA user_version = {version}")
        db.commit()
        db.close()

    def marker_kept() -> bool:
        HistoryIndex(root, db_path).close()
        db = sqlite3.connect(db_path)
        try:
            return db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'marker'").fetchone()[0] == 1
        finally:
            db.close()

    mark(history.SCHEMA)
    assert marker_kept()
    mark(history.SCHEMA ^ 1)  # the same schema number, other code
    assert not marker_kept()
