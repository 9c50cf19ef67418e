"""The edits of `freshness_realistic.py`'s cases, applied to a clone as a developer makes them.

Every operation is deterministic and works on the files of the working tree; `apply_edits` then
commits what changed as one commit. "Code" is every tracked text file that is not a doc (`.rst`,
`.md`, `.txt`, `.adoc`, `.markdown`) nor a record (`CHANGES*`, `HISTORY*`, `NEWS*` ...): sources,
tests, examples, templates, configuration and notebooks, so a rename reaches every caller the
way a search-and-replace over the project does, and the docs are left alone.

Operations (one TOML table each, `op` names it):

- `word`: `old` → `new` as a whole word in `paths` (globs; default: every code file), except
  `exclude` (globs: the leftovers a developer missed).
- `sub`: the regular expression `pattern` (multiline) → `repl` in `paths`; `count` = how many
  replacements must happen in all (a case whose pattern stopped matching fails loudly).
- `move`: cut the `def`/`class` block `name` (with its decorators) out of `src`, append it to
  `dst` (created if missing), or insert it before the first line of `dst` matching `before`.
- `drop`: delete the `def`/`class` block `name` from `src`.
- `drop_uses`: a feature removed with its callers and tests: in code files but `exclude`, delete
  every function block whose text (decorators included, however many lines they take) uses the
  word `name` and every class whose header does (a subclass), strip it from import lists and
  `__all__`, then delete the remaining lines that use it.
- `git_mv`: rename the file `src` to `dst`.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path
from typing import Any

DOC_SUFFIXES = (".rst", ".md", ".txt", ".adoc", ".markdown")
RECORD_STEMS = ("changes", "changelog", "history", "news", "releases", "release-notes", "authors")


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, errors="replace")
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def is_code(path: str) -> bool:
    """A tracked file a code change edits: anything but docs and records."""
    name = path.rsplit("/", 1)[-1].lower()
    return not name.endswith(DOC_SUFFIXES) and name.split(".", 1)[0] not in RECORD_STEMS


def _matches(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, g) or path.startswith(g.rstrip("/") + "/") for g in globs)


def select(root: Path, paths: list[str] | None, exclude: list[str] | None) -> list[str]:
    files = [p for p in git(root, "ls-files", "-z").split("\0") if p]
    chosen = [p for p in files if _matches(p, paths)] if paths else [p for p in files if is_code(p)]
    return [p for p in chosen if not (exclude and _matches(p, exclude))]


def _read(root: Path, rel: str) -> str | None:
    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None if "\0" in text else text


def _rewrite(root: Path, rel: str, text: str) -> None:
    with open(root / rel, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def block_span(lines: list[str], name: str) -> tuple[int, int] | None:
    """Line range [start, end) of the first `def`/`class` `name` block, decorators included."""
    pat = re.compile(rf"^(\s*)(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b")
    for i, line in enumerate(lines):
        m = pat.match(line)
        if m:
            return _decorated(lines, i), _block_end(lines, i, len(m.group(1)))
    return None


def _decorated(lines: list[str], i: int) -> int:
    """The first line of the decorators above the `def`/`class` at line `i`: a decorator written
    over several lines (`@retry(\n    stop=...,\n)`) included, whole."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    start, j = i, i - 1
    while j >= 0:
        line = lines[j].strip()
        at = len(lines[j]) - len(lines[j].lstrip())
        if line.startswith("@") and at == indent:
            start = j
        elif not line or at < indent or (at == indent and line[0] not in ")]}"):
            break  # (a deeper line or a closing bracket: a decorator's continuation, kept only up to its `@`)
        j -= 1
    return start


def _block_end(lines: list[str], i: int, indent: int) -> int:
    j = i + 1
    while j < len(lines):
        s = lines[j]
        if s.strip() and len(s) - len(s.lstrip()) <= indent and s.strip()[0] not in ")]}":
            break
        j += 1
    while j > i + 1 and not lines[j - 1].strip():  # trailing blank lines stay between blocks
        j -= 1
    return j


def _op_word(root: Path, op: dict[str, Any]) -> int:
    word = re.compile(rf"\b{re.escape(op['old'])}\b")
    n = 0
    for rel in select(root, op.get("paths"), op.get("exclude")):
        text = _read(root, rel)
        if text is None or op["old"] not in text:
            continue
        new, k = word.subn(op["new"], text)
        if k:
            _rewrite(root, rel, new)
            n += k
    return n


def _op_sub(root: Path, op: dict[str, Any]) -> int:
    pat = re.compile(op["pattern"], re.M)
    n = 0
    for rel in select(root, op.get("paths"), op.get("exclude")):
        text = _read(root, rel)
        if text is None:
            continue
        new, k = pat.subn(op["repl"], text)
        if k:
            _rewrite(root, rel, new)
            n += k
    return n


def _cut(root: Path, rel: str, name: str) -> str:
    text = _read(root, rel) or ""
    lines = text.split("\n")
    span = block_span(lines, name)
    if span is None:
        raise RuntimeError(f"{rel}: no def or class {name}")
    block = "\n".join(lines[span[0]:span[1]])
    _rewrite(root, rel, "\n".join(lines[:span[0]] + lines[span[1]:]))
    return block


def _op_move(root: Path, op: dict[str, Any]) -> int:
    block = _cut(root, op["src"], op["name"]).rstrip("\n")
    dst = root / op["dst"]
    dst.parent.mkdir(parents=True, exist_ok=True)
    old = dst.read_text(encoding="utf-8") if dst.exists() else ""
    if op.get("before"):
        m = re.search(op["before"], old, re.M)
        if m is None:
            raise RuntimeError(f"{op['dst']}: no line matching {op['before']!r}")
        new = old[:m.start()] + block + "\n\n\n" + old[m.start():]
    else:
        new = old.rstrip("\n") + ("\n\n\n" if old.strip() else "") + block + "\n"
    _rewrite(root, op["dst"], new)
    git(root, "add", "--", op["dst"])
    return 1


def _op_drop(root: Path, op: dict[str, Any]) -> int:
    _cut(root, op["src"], op["name"])
    return 1


_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+\w+")
_CLASS = re.compile(r"^(\s*)class\s+\w+[^:]*")  # its header: a subclass of the removed name goes with it


def _op_drop_uses(root: Path, op: dict[str, Any]) -> int:
    name = op["name"]
    word = re.compile(rf"\b{re.escape(name)}\b")
    listed = re.compile(rf"(?:\b{re.escape(name)}\b\s*(?:as\s+\w+\s*)?,\s*|,\s*\b{re.escape(name)}\b(?:\s+as\s+\w+)?"
                        rf"|[\"']{re.escape(name)}[\"'],\s*|,\s*[\"']{re.escape(name)}[\"'])")
    n = 0
    for rel in select(root, op.get("paths"), op.get("exclude")):
        text = _read(root, rel)
        if text is None or name not in text or rel.endswith(".ipynb"):  # a notebook is JSON: a leftover
            continue
        lines = text.split("\n")
        if rel.endswith(".py"):
            i = 0
            while i < len(lines):  # function blocks using the name: callers and tests go with the feature
                m = _DEF.match(lines[i])
                c = None if m else _CLASS.match(lines[i])
                if m or (c and word.search(c.group(0))):
                    indent = len((m or c).group(1))  # type: ignore[union-attr]
                    start, end = _decorated(lines, i), _block_end(lines, i, indent)
                    if c or any(word.search(x) for x in lines[start:end]):
                        del lines[start:end]
                        n += 1
                        i = start
                        continue
                i += 1
        kept = []
        for line in lines:
            if word.search(line):
                listy = "import" in line or "__all__" in line or re.search(r",\s*$|^\s*[\w\"']+,?\s*$", line)
                stripped = listed.sub("", line, count=1) if listy else line
                if stripped != line and not word.search(stripped) and stripped.strip():
                    kept.append(stripped)
                n += 1
                continue
            kept.append(line)
        _rewrite(root, rel, "\n".join(kept))
    return n


def _op_git_mv(root: Path, op: dict[str, Any]) -> int:
    git(root, "mv", op["src"], op["dst"])
    return 1


OPS = {"word": _op_word, "sub": _op_sub, "move": _op_move, "drop": _op_drop, "drop_uses": _op_drop_uses,
       "git_mv": _op_git_mv}


def apply_edits(root: Path, edits: list[dict[str, Any]], message: str, commit: bool = True) -> str:
    """Apply `edits` in order and stage every change; commit it as one commit (its sha) unless
    `commit` is false (then the staged paths, one per line: what a pre-commit hook is given)."""
    for op in edits:
        n = OPS[op["op"]](root, op)
        want = op.get("count")
        if n == 0 or (want is not None and n != want):
            raise RuntimeError(f"edit {op} changed {n} places (expected {want or 'some'})")
    git(root, "add", "-u")
    if not commit:
        return git(root, "diff", "--cached", "--name-only", "--diff-filter=ACMR")
    return commit_staged(root, message)


def commit_staged(root: Path, message: str) -> str:
    git(root, "-c", "user.name=Bench Developer", "-c", "user.email=dev@example.org", "commit", "-q",
        "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def reset(root: Path, commit: str) -> None:
    git(root, "checkout", "-q", "--detach", "-f", commit)
    git(root, "reset", "-q", "--hard", commit)
    git(root, "clean", "-qfdx")
