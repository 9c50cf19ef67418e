"""The commit that took a stated default away (`default_history`): a file's diffs read once a run
answer as `git log --first-parent --diff-merges=first-parent -G` does, merges, renames, a
removed line that looks like a diff header and every doc commit along the line included."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.default_history import _FileDiffs  # private: both ways of one search compared
from noface_ctx.freshness.history import HistoryIndex


def test_the_files_diffs_find_the_commit_the_g_command_lists_first(repo_factory):
    root = repo_factory({"pkg/conf.py": "TIMEOUT = 30\nRETRIES = 3\n-- RETRIES = 3 notes\n", "README.md": "r\n"})
    git(root, "checkout", "-q", "-b", "side")
    (root / "pkg/conf.py").write_text("TIMEOUT = 60\nRETRIES = 3\n-- RETRIES = 3 notes\n")
    commit(root, "a longer timeout, on a branch")
    git(root, "checkout", "-q", "main")
    (root / "README.md").write_text("r2\n")
    commit(root, "readme")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    (root / "pkg/conf.py").write_text("TIMEOUT = 60\nRETRIES = 5\n")  # the "-- RETRIES" line removed: "--- RETRIES" in the patch
    commit(root, "more retries")
    git(root, "mv", "pkg/conf.py", "pkg/settings.py")
    commit(root, "rename the settings")
    (root / "pkg/settings.py").write_text("TIMEOUT = 90\nRETRIES = 5\n")
    commit(root, "timeout again")
    index = HistoryIndex(root, None)
    index.update(git(root, "rev-parse", "HEAD").strip())
    diffs = _FileDiffs(index)
    chain = git(root, "rev-list", "--first-parent", "HEAD").split()
    asked = 0
    for path in ("pkg/conf.py", "pkg/settings.py"):
        for pattern in ("TIMEOUT.*30", "TIMEOUT.*60", "RETRIES.*3", "RETRIES.*5", "TIMEOUT.*90", "NOPE.*1"):
            for sha in chain:
                since = index.commit(sha)
                assert since is not None
                fast = diffs.newest_match(path, pattern, since)
                slow = diffs._asked(path, pattern, since, 1)  # private: the -G command, what the file's diffs must equal
                assert (fast and fast.sha) == (slow[0].sha if slow else None), (path, pattern, sha)
                assert diffs.matches(path, pattern, since) == diffs._asked(path, pattern, since, 8)  # private: every one, newest first
                asked += fast is not None
    assert asked > 10  # the two ways agree on commits found, not only on nothing
    merge = index.commit(chain[3])
    assert merge is not None and merge.subject == "merge side"
    found = diffs.newest_match("pkg/conf.py", "TIMEOUT.*60", index.commit(chain[2]))  # type: ignore[arg-type]
    assert found is not None and found.sha == merge.sha  # the merge, read against its first parent
