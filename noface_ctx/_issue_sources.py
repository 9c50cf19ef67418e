"""The reader gate for issue sources: an issue id names an issue, never a file.

`run` takes issue references from the command line, an issues folder, `bd ready --json` or
`.beads/issues.jsonl`, and the MCP server from its tool calls. Only the person running the tool
decides which files are read as issues (`IssueFiles`):

- `TYPED`: a reference the user typed (`run ISSUE...`, `preview ISSUE`, `mcp --issue`, the
  Python API) is read as it always was: a `.md` / `.txt` / `.json` name is a file;
- `in_folder(DIR)`: a file inside the issues folder the user named (`--issues-dir`; the MCP
  server's repository) is read only after the same gate as a `NEED_CODE` request: the file and a
  link's target must stay inside the folder and, in the repository, pass `files.gate.check_path`
  (secret names and contents, the manifest's forbidden files, excluded files refused; only size
  yields); outside the repository, secret names and contents are refused;
- `IDS_ONLY`: every other reference (what `bd ready` or `.beads/issues.jsonl` lists) is an issue
  id, looked up in beads and never opened: `secrets.txt`, `../private/notes.md` and
  `/abs/notes.md` are unknown ids there.

`load_issue_ref` is the one entry: a refused file is an `InputError` (exit 2) that says how to
allow it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from noface_ctx.config import Config
from noface_ctx.datatypes import Issue, Manifest
from noface_ctx.errors import InputError
from noface_ctx.issue.load import load_issue_with_warnings

__all__ = ["IDS_ONLY", "ISSUE_SUFFIXES", "TYPED", "IssueFiles", "in_folder", "issue_file", "load_issue_ref"]

ISSUE_SUFFIXES = (".md", ".markdown", ".txt", ".json")
HOW_TO_ALLOW = ("an issue id names an issue, never a file: to read an issue from a file, pass the file "
                "on the command line or put it in the folder given with --issues-dir")
_MISSING = "no such file"
_MAX_ISSUE_BYTES = 32 * 1024 * 1024  # the bounded readers' limit (`bounded.MAX_JSON_BYTES`)


@dataclass(frozen=True)
class IssueFiles:
    """Which references may name a file: any the user typed, those inside `folder`, or none."""

    typed: bool = False
    folder: Path | None = None


TYPED = IssueFiles(typed=True)
IDS_ONLY = IssueFiles()


def in_folder(folder: str | Path, root: Path) -> IssueFiles:
    """Files inside `folder` (relative to the repository root unless absolute)."""
    path = Path(folder)
    return IssueFiles(folder=path if path.is_absolute() else Path(root) / path)


def names_file(ref: str) -> bool:
    """Whether `ref` reads as a file name rather than an id (a path separator or an issue suffix)."""
    return "/" in ref or os.sep in ref or ref.lower().endswith(ISSUE_SUFFIXES)


def load_issue_ref(ref: str, config: Config, files: IssueFiles, *,
                   manifest: Manifest | None = None) -> tuple[Issue, list[str]]:
    """The issue `ref` names under `files`, with its warnings. `manifest` (the one governing the
    caller, e.g. an MCP server's issue) adds its forbidden files to the gate."""
    if files.typed:
        return load_issue_with_warnings(ref, config.root)
    path = issue_file(ref, config, files, manifest)
    if path is not None:
        return load_issue_with_warnings(path, config.root)
    if ref.startswith("-"):  # never an option of `bd`
        raise InputError(f"issue id {ref!r} starts with '-'; refused")
    return load_issue_with_warnings(ref, config.root, as_id=True)


def issue_file(ref: str, config: Config, files: IssueFiles, manifest: Manifest | None = None) -> Path | None:
    """The real path of the file `ref` may be read from, or None when `ref` is an issue id;
    `InputError` when it names a file the gate refuses."""
    if files.typed or files.folder is None or not names_file(ref):
        return None
    why, path = _judge(ref, config, files.folder, manifest)
    if why == _MISSING:  # nothing to refuse: the same words as a missing file the user names
        raise InputError("issue file not found", where=ref)
    if why:
        raise InputError(f"issue file refused: {why}; {HOW_TO_ALLOW}", where=ref)
    return path


def _judge(ref: str, config: Config, folder: Path, manifest: Manifest | None) -> tuple[str, Path | None]:
    """("", real path) when `ref` may be read from `folder`, else (why not, None)."""
    root = Path(os.path.realpath(config.root))
    given = Path(ref)
    if ".." in given.parts:
        return "'..' is not allowed in an issue path", None
    lexical = Path(os.path.abspath(given if given.is_absolute() else config.root / given))
    top = Path(os.path.realpath(folder))
    if not (_under(lexical, Path(os.path.abspath(folder))) or _under(lexical, top)):
        return f"not inside the issues folder {folder}", None
    if _under(Path(os.path.abspath(folder)), Path(os.path.abspath(config.root))) and not _under(top, root):
        return f"the issues folder {folder} is a symlink leading outside the repository", None
    if lexical.suffix.lower() not in ISSUE_SUFFIXES:
        return f"not an issue file ({', '.join(ISSUE_SUFFIXES)})", None
    real = Path(os.path.realpath(lexical))
    if not _under(real, top):
        return "a symlink leading outside the issues folder", None
    if not os.path.lexists(lexical):
        return _MISSING, None
    if not real.is_file():
        return "not a regular file", None
    if _under(real, root):
        why = _repository_gate(config, root, [lexical, real], manifest)
    else:
        why = _outside_gate([lexical, real])
    return (why, None) if why else ("", real)


def _repository_gate(config: Config, root: Path, paths: list[Path], manifest: Manifest | None) -> str:
    """The NEED_CODE gate (`check_path`, size lifted) on the link's path and its target's."""
    from noface_ctx.files.gate import check_path

    for path in dict.fromkeys(paths):
        if not _under(path, root):
            continue  # the folder's own path above a link to the repository: judged by its target
        rel = path.relative_to(root).as_posix()
        excluded = check_path(config, rel, manifest, explicit=True)
        if excluded is not None:
            return f"excluded ({excluded.category}): {excluded.reason}"
    return ""


def _outside_gate(paths: list[Path]) -> str:
    """A folder outside the repository: no secret by name (link or target) or by content."""
    from noface_ctx._bounded import read_head
    from noface_ctx.files.content import content_verdict
    from noface_ctx.files.secrets import secret_path_kind

    for path in paths:
        kind = secret_path_kind(path.name)
        if kind:
            return f"secret: {kind}"
    try:
        data, cut = read_head(paths[-1], _MAX_ISSUE_BYTES)
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc})"
    if cut:
        return f"larger than {_MAX_ISSUE_BYTES // (1024 * 1024)} MB"
    verdict, detail = content_verdict(paths[-1].name, data)
    if verdict == "secret":
        return f"secret: contains a {detail}"
    return ""


def _under(path: Path, base: Path) -> bool:
    return path == base or path.is_relative_to(base)
