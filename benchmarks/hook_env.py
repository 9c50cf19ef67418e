"""The pre-commit hook's environment: its size on disk and the time pre-commit takes to build it.

Builds the environment the way a user's first `git commit` does: a hook repository made from a
commit of this project (the working tree by default, or `--ref REV` from git), tagged, pinned by a
user repository's `.pre-commit-config.yaml`, then `pre-commit install-hooks` with an empty
`PRE_COMMIT_HOME` and pip downloading from the package index (pass `--no-cache` for a cold pip
cache). Prints the seconds, the environment's size and its largest packages.

    python benchmarks/hook_env.py                 # this working tree
    python benchmarks/hook_env.py --ref 0bb2697   # an older commit, for comparison
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "noface_ctx")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


def hook_repo(dest: Path, ref: str | None) -> str:
    """A git repository holding the project's package and hook manifest, tagged; returns the tag."""
    dest.mkdir()
    if ref is None:
        for name in FILES:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(src, dest / name)
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *FILES], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@x"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "hook"], ["tag", "vbench"]):
        subprocess.run(["git", "-C", str(dest), *args], check=True, env=env, capture_output=True)
    return "vbench"


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", help="a commit of this repository (default: the working tree)")
    parser.add_argument("--no-cache", action="store_true", help="pip without its cache (a cold install)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        tag = hook_repo(base / "hook", args.ref)
        user = base / "user"
        user.mkdir()
        _git(user, "init", "-q")
        (user / ".pre-commit-config.yaml").write_text(
            f"repos:\n  - repo: {base / 'hook'}\n    rev: {tag}\n    hooks:\n      - id: noface-doc-freshness\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHONPATH", "VIRTUAL_ENV"))}
        env["PRE_COMMIT_HOME"] = str(base / "home")
        if args.no_cache:
            env["PIP_NO_CACHE_DIR"] = "1"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pre_commit", "install-hooks"], cwd=user, env=env, check=True,
                       capture_output=True)
        seconds = time.perf_counter() - t0
        envs = list((base / "home").glob("repo*/py_env-*"))
        site = next(envs[0].glob("lib/python*/site-packages"))
        sizes = sorted(((du(p), p.name) for p in site.iterdir() if p.is_dir()), reverse=True)
        print(f"ref: {args.ref or 'working tree'}; pip cache: {'off' if args.no_cache else 'default'}")
        print(f"pre-commit install-hooks: {seconds:.1f} s; environment: {du(envs[0]) / 1e6:.0f} MB")
        print("largest: " + ", ".join(f"{name} {size / 1e6:.0f} MB" for size, name in sizes[:8]))


if __name__ == "__main__":
    main()
