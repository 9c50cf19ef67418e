"""Paths named on a surface: one rule for the CLI, the Python API and the MCP tools.

A person (command-line arguments, `mcp --issue`, the API's arguments) may name a file in any
form: relative to the repository, relative to the current directory, or absolute. An agent (an
MCP tool's arguments) may only name a repository-relative path, checked by `signals.parse.
normalise_path` before anything here sees it. Either way a path that does not exist is an error
naming it, never an empty answer: `check_docs(["docs/nope.rst"])` is exit 2 on the command line
and an error over MCP, not "no findings".
"""

from __future__ import annotations

from pathlib import Path

from noface_ctx.errors import UsageError


def checkable(path: str, root: str | Path, *, from_cwd: bool = True) -> str:
    """The repository-relative POSIX path of a doc or code file to check, or `UsageError`: missing,
    outside the repository (links resolved), or a directory. A relative path is tried against the
    repository first, then (`from_cwd`, for a person's arguments) against the current directory."""
    base = Path(root).resolve()
    p = Path(path)
    tries = [p] if p.is_absolute() else [base / p, *([Path.cwd() / p] if from_cwd else [])]
    found = next((c for c in tries if c.exists() or c.is_symlink()), None)
    if found is None:
        raise UsageError("cannot check: no such file", where=path)
    try:
        real = found.resolve()
    except (OSError, RuntimeError):
        raise UsageError("cannot check: a symlink loop", where=path) from None
    if not real.is_relative_to(base):
        raise UsageError(f"cannot check: outside the repository {root}", where=path)
    if real.is_dir():
        raise UsageError("cannot check a directory: give its files, or no path to check every doc", where=path)
    if found == tries[0] and not p.is_absolute() and ".." not in p.parts:
        return p.as_posix()  # as named: a link inside the repository keeps its own name
    return real.relative_to(base).as_posix()


def user_file(path: str, what: str) -> Path:
    """A file a person named (absolute, or relative to the current directory), as an absolute
    path; `UsageError` naming it when it is missing or not a file."""
    p = Path(path).expanduser()
    if not p.exists():
        raise UsageError(f"{what}: no such file", where=path)
    if p.is_dir():
        raise UsageError(f"{what}: is a directory, not a file", where=path)
    return p.absolute()


def user_dir(path: str, what: str) -> Path:
    """A directory a person named, as an absolute path; `UsageError` when missing or not a directory."""
    p = Path(path).expanduser()
    if not p.is_dir():
        raise UsageError(f"{what}: {'not a directory' if p.exists() else 'no such directory'}", where=path)
    return p.absolute()
