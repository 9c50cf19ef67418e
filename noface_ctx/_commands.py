"""Build and test commands for the COMMANDS section, and where each came from.

`[project] build` / `test` in `.noface.toml` win. Otherwise they are detected from the files a
project already has, first match wins:

- test: pytest configured (`pyproject.toml` `[tool.pytest.ini_options]`, `pytest.ini`,
  `setup.cfg` `[tool:pytest]`) → `python -m pytest`; `tox.ini` or `[tool.tox]` → `tox`;
  `noxfile.py` → `nox`; a Makefile `test:` target → `make test`; a real `package.json`
  `scripts.test` → `npm test` (`pnpm` / `yarn` by lockfile); `Cargo.toml` → `cargo test`;
  `go.mod` → `go test ./...`; a `conftest.py` at the root or in `tests/` → `python -m pytest`.
- build: a Makefile `build:` (else `all:`) target → `make build` / `make`; `package.json`
  `scripts.build` → `npm run build`; `Cargo.toml` → `cargo build`; `go.mod` → `go build ./...`;
  `pyproject.toml` `[build-system]` → `python -m build`.

Only the repository root is read (a few small files, parsed, never executed); the result is
memoised by the files' modification times.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noface_ctx._filebytes import read_head
from noface_ctx._state import Memo, memo
from noface_ctx.config import Config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_WATCHED = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "noxfile.py", "Makefile", "makefile",
            "GNUmakefile", "package.json", "pnpm-lock.yaml", "yarn.lock", "Cargo.toml", "go.mod", "conftest.py",
            "tests/conftest.py")
_MAX_BYTES = 512 * 1024
_NO_TEST = re.compile(r"no test specified", re.I)


@dataclass(frozen=True, slots=True)
class Commands:
    build: str = ""
    build_source: str = ""  # e.g. ".noface.toml [project]", "pyproject.toml [build-system]"
    test: str = ""
    test_source: str = ""


_MEMO: Memo[tuple[str, tuple[Any, ...]], Commands] = memo("commands", maxsize=64)


def project_commands(config: Config) -> Commands:
    """The configured commands, with detected ones filling the gaps."""
    build = config.build_cmd or ""
    test = config.test_cmd or ""
    found = detect_commands(config.root) if not (build and test) else Commands()
    return Commands(
        build=build or found.build,
        build_source=".noface.toml [project]" if build else found.build_source,
        test=test or found.test,
        test_source=".noface.toml [project]" if test else found.test_source,
    )


def detect_commands(root: str | Path) -> Commands:
    root = Path(root)
    stamp = []
    for name in _WATCHED:
        try:
            st = (root / name).stat()
            stamp.append((name, st.st_mtime_ns, st.st_size))
        except OSError:
            continue
    key = (str(root), tuple(stamp))
    hit = _MEMO.get(key)
    if hit is None:
        hit = _MEMO.put(key, _detect(root, {s[0] for s in stamp}))
    return hit


def _detect(root: Path, present: set[str]) -> Commands:
    pyproject = _toml(root / "pyproject.toml") if "pyproject.toml" in present else {}
    tool: dict[str, Any] = pyproject["tool"] if isinstance(pyproject.get("tool"), dict) else {}
    make = next((n for n in ("GNUmakefile", "Makefile", "makefile") if n in present), "")
    targets = _make_targets(root / make) if make else set()
    package = _package_json(root / "package.json") if "package.json" in present else {}
    scripts: dict[str, Any] = package["scripts"] if isinstance(package.get("scripts"), dict) else {}
    runner = "pnpm" if "pnpm-lock.yaml" in present else "yarn" if "yarn.lock" in present else "npm"

    test, test_source = "", ""
    if isinstance(tool.get("pytest"), dict):
        test, test_source = "python -m pytest", "pyproject.toml [tool.pytest" + (
            ".ini_options]" if "ini_options" in tool["pytest"] else "]")
    elif "pytest.ini" in present:
        test, test_source = "python -m pytest", "pytest.ini"
    elif "setup.cfg" in present and "[tool:pytest]" in _text(root / "setup.cfg"):
        test, test_source = "python -m pytest", "setup.cfg [tool:pytest]"
    elif "tox.ini" in present:
        test, test_source = "tox", "tox.ini"
    elif isinstance(tool.get("tox"), dict):
        test, test_source = "tox", "pyproject.toml [tool.tox]"
    elif "noxfile.py" in present:
        test, test_source = "nox", "noxfile.py"
    elif "test" in targets:
        test, test_source = "make test", f"{make} target test"
    elif isinstance(scripts.get("test"), str) and not _NO_TEST.search(scripts["test"]):
        test, test_source = f"{runner} test", "package.json scripts.test"
    elif "Cargo.toml" in present:
        test, test_source = "cargo test", "Cargo.toml"
    elif "go.mod" in present:
        test, test_source = "go test ./...", "go.mod"
    elif "conftest.py" in present or "tests/conftest.py" in present:
        test, test_source = "python -m pytest", "conftest.py" if "conftest.py" in present else "tests/conftest.py"

    build, build_source = "", ""
    if "build" in targets:
        build, build_source = "make build", f"{make} target build"
    elif "all" in targets:
        build, build_source = "make", f"{make} target all"
    elif isinstance(scripts.get("build"), str):
        build, build_source = f"{runner} run build", "package.json scripts.build"
    elif "Cargo.toml" in present:
        build, build_source = "cargo build", "Cargo.toml"
    elif "go.mod" in present:
        build, build_source = "go build ./...", "go.mod"
    elif isinstance(pyproject.get("build-system"), dict):
        build, build_source = "python -m build", "pyproject.toml [build-system]"
    return Commands(build, build_source, test, test_source)


def _text(path: Path) -> str:
    return read_head(path, _MAX_BYTES)


def _toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(_text(path))
    except tomllib.TOMLDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _package_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(_text(path) or "{}")
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _make_targets(path: Path) -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", _text(path), re.M))
