"""Materialise a base commit from a bare mirror into a plain work tree, reusably.

`git archive BASE | tar -x` into `<workdir>/<repo-slug>/<commit>/`. A marker file
`<commit>.complete.json` next to the tree (never inside it, so it can't become a candidate)
records a successful extract; a tree without one is removed and extracted again. Some mirrors
lack a few large blobs: `git archive` then stops mid-stream, so the missing paths are found with
`ls-tree` + `cat-file --batch-check` and excluded, and recorded in the marker.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


class MaterialiseError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Tree:
    root: Path
    missing: tuple[str, ...]  # paths left out because their blobs are absent from the mirror
    reused: bool


def tree_dir(workdir: Path, repo: str, commit: str) -> Path:
    return Path(workdir) / repo.replace("/", "__") / commit


def materialise(git_dir: str | Path, repo: str, commit: str, workdir: str | Path) -> Tree:
    """The work tree of `repo` at `commit`, extracted once and reused while its marker exists."""
    root = tree_dir(Path(workdir), repo, commit)
    marker = root.with_name(root.name + ".complete.json")
    if marker.is_file() and root.is_dir():
        info = json.loads(marker.read_text())
        return Tree(root, tuple(info.get("missing", ())), reused=True)
    if root.exists():
        shutil.rmtree(root)
    missing = _missing_blobs(git_dir, commit)
    root.mkdir(parents=True)
    try:
        _extract(git_dir, commit, root, missing)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    marker.write_text(json.dumps({"repo": repo, "commit": commit, "missing": missing}, indent=1))
    return Tree(root, tuple(missing), reused=False)


def _missing_blobs(git_dir: str | Path, commit: str) -> list[str]:
    """Paths at `commit` whose blobs the mirror does not hold."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
        capture_output=True, check=False,
    )
    if listing.returncode != 0:
        raise MaterialiseError(f"{git_dir}: ls-tree {commit} failed: {listing.stderr.decode().strip()}")
    # Paths sharing a blob: check each distinct sha once, then map back to every path.
    paths_by_sha: dict[str, list[str]] = {}
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        if kind == b"blob":
            paths_by_sha.setdefault(sha.decode(), []).append(path.decode("utf-8", "surrogateescape"))
    check = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch-check"],
        input="\n".join(paths_by_sha).encode() + b"\n", capture_output=True, check=False,
    )
    missing: list[str] = []
    for line in check.stdout.decode().splitlines():
        if line.endswith(" missing"):
            missing.extend(paths_by_sha.get(line.split()[0], []))
    return sorted(missing)


def _extract(git_dir: str | Path, commit: str, root: Path, missing: list[str]) -> None:
    pathspec = ["--", "."] + [f":(exclude,literal){p}" for p in missing] if missing else []
    archive = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit, *pathspec],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    tar = subprocess.run(["tar", "-x", "-C", str(root)], stdin=archive.stdout, capture_output=True)
    assert archive.stdout is not None and archive.stderr is not None
    archive.stdout.close()
    err = archive.stderr.read().decode("utf-8", "replace").strip()
    if archive.wait() != 0:
        raise MaterialiseError(f"{git_dir}: git archive {commit} failed: {err}")
    if tar.returncode != 0:
        raise MaterialiseError(f"tar -x into {root} failed: {tar.stderr.decode().strip()}")


def clone_at(git_dir: str | Path, repo: str, commit: str, workdir: str | Path) -> Tree:
    """A git work tree of `repo` at `commit` holding only that commit's ancestry (no later commit,
    the fix included, is reachable), so ranking evidence drawn from history can be measured as
    users meet it: `git init` + `git fetch MIRROR BASE` + a detached checkout under
    `<workdir>/history/<repo-slug>/<commit>/`, made once and reused while its marker exists. A
    mirror lacking some blobs cannot send the commit: the clone then borrows the mirror's objects
    (`objects/info/alternates`; still only HEAD's ancestry is reachable) and leaves those paths
    out of the work tree (`skip-worktree`, so they are not edits)."""
    root = tree_dir(Path(workdir) / "history", repo, commit)
    marker = root.with_name(root.name + ".complete.json")
    if marker.is_file() and (root / ".git").is_dir():
        return Tree(root, tuple(json.loads(marker.read_text()).get("missing", ())), reused=True)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    missing = _missing_blobs(git_dir, commit)
    try:
        _git(root, "init", "-q", ".")
        try:
            if missing:
                raise MaterialiseError(f"{len(missing)} blobs missing at {commit}")
            _git(root, "fetch", "-q", "--no-tags", str(Path(git_dir).resolve()), commit)
            _git(root, "checkout", "-q", "--detach", "FETCH_HEAD")
        except MaterialiseError:  # the mirror cannot send the ancestry whole: borrow its objects
            (root / ".git/objects/info/alternates").write_text(f"{(Path(git_dir).resolve() / 'objects')}\n")
            _git(root, "update-ref", "--no-deref", "HEAD", commit)
            _git(root, "read-tree", commit)
            if missing:
                _git(root, "update-index", "--skip-worktree", "--", *missing)
            _git(root, "checkout-index", "-a")
        head = _git(root, "rev-parse", "HEAD").strip()
        later = _git(root, "rev-list", "--all", "--not", commit).strip()
        if head != commit or later:
            raise MaterialiseError(f"{root}: HEAD {head[:12]} with {len(later.split())} commits past {commit[:12]}")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    marker.write_text(json.dumps({"repo": repo, "commit": commit, "history": True, "missing": missing}, indent=1))
    return Tree(root, tuple(missing), reused=False)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise MaterialiseError(f"{root}: git {args[0]} failed: {done.stderr.strip()[:300]}")
    return done.stdout
