"""sphinx-gallery scripts read as docs: a gallery's `.py` file is rendered into a docs page, its
module docstring and its text blocks (a `# %%` line, or a line of 20 or more `#`, then `#` comment
lines) as reStructuredText, between runs of the code it executes.

Which files: the `.py` files under a gallery folder (`gallery_dirs`): a top folder holding
sphinx-gallery section headers (`discover.doc_sites`: matplotlib's `galleries/`), or an
`examples_dirs` a Sphinx `conf.py` names in its `sphinx_gallery_conf` (a string or a list of
strings, written there or in module-level names: `"examples_dirs": [sg_examples_dir]`). The
`conf.py` is untrusted: it is parsed (`ast`), never run; a value it computes is not read.

`gallery_text(raw)` is the page's prose as reStructuredText, line for line with the script (a
finding's line is the script's): the docstring's and text blocks' lines without their quotes and
`# `; the code is blank lines. The docs build runs that code (a name it lost fails the build), the
prose nobody runs: the code stays the repository's code, judged as code. A script that does not
open with a docstring (sphinx-gallery requires one, with the page's title) is no page: None.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Iterable

from noface_ctx.docs.discover import doc_sites

GALLERY_SCRIPT = ".py"
MAX_CONF_BYTES = 512 * 1024  # a conf.py larger than this is not parsed
_TEXT_BLOCK = re.compile(r"^#\s?%%|^#{20,}\s*$")  # sphinx-gallery's separators
_DOCSTRING = re.compile(r"^[rRuU]?(\"\"\"|''')")
_SKIPPED = re.compile(r"^\s*(?:#.*)?$")  # blank lines, a shebang or encoding line before the docstring


def gallery_dirs(paths: Iterable[str], read: Callable[[str], str | None]) -> tuple[str, ...]:
    """The repository's folders of sphinx-gallery scripts (see the module docstring), sorted;
    `read(path)` gives a repository file's text (None when it cannot)."""
    listed = list(paths)
    dirs = {site for site, why in doc_sites(listed).items() if why.startswith("sphinx-gallery")}
    for conf in (p for p in listed if posixpath.basename(p) == "conf.py"):
        text = read(conf)
        if text is None or "sphinx_gallery_conf" not in text or len(text) > MAX_CONF_BYTES:
            continue
        base = posixpath.dirname(conf)
        for rel in _examples_dirs(text):
            folder = posixpath.normpath(posixpath.join(base, rel))
            if folder not in (".", "") and not folder.startswith(("../", "/")) and folder != "..":
                dirs.add(folder)
    return tuple(sorted(dirs))


def is_gallery_script(path: str, dirs: Iterable[str]) -> bool:
    """A `.py` file (not a package's `__init__.py`) under one of the gallery folders `dirs`."""
    return path.endswith(GALLERY_SCRIPT) and posixpath.basename(path) != "__init__.py" and any(
        path.startswith(d + "/") for d in dirs)


def gallery_text(raw: str) -> str | None:
    """The script's page as reStructuredText, line for line (see the module docstring), or None."""
    lines = raw.split("\n")
    i = 0
    while i < len(lines) and _SKIPPED.match(lines[i]) and not _DOCSTRING.match(lines[i]):
        i += 1
    opening = _DOCSTRING.match(lines[i]) if i < len(lines) else None
    if opening is None:
        return None
    out = [""] * len(lines)
    quote, first = opening.group(1), lines[i][opening.end():]
    j = i
    text = first
    while quote not in text and j + 1 < len(lines):
        out[j] = text
        j += 1
        text = lines[j]
    out[j] = text.split(quote, 1)[0]
    j += 1
    while j < len(lines):  # the code between text blocks stays blank
        if _TEXT_BLOCK.match(lines[j]):
            j += 1
            while j < len(lines) and lines[j].startswith("#"):
                out[j] = re.sub(r"^#\s?", "", lines[j])
                j += 1
            continue
        j += 1
    return "\n".join(out)


def _examples_dirs(text: str) -> list[str]:
    """The `examples_dirs` of the `sphinx_gallery_conf` dict a conf.py assigns, as written."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names: dict[str, ast.expr] = {}
    found: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        target, value = node.targets[0].id, node.value
        names[target] = value
        if target == "sphinx_gallery_conf" and isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "examples_dirs":
                    found += _strings(item, names)
    return found


def _strings(node: ast.expr | None, names: dict[str, ast.expr], depth: int = 0) -> list[str]:
    """A string constant, or a list / tuple of them, each possibly a module-level name bound to
    one (`[sg_examples_dir]`); anything else: nothing."""
    if isinstance(node, ast.Name) and depth < 2:
        return _strings(names.get(node.id), names, depth + 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)) and depth < 2:
        return [s for e in node.elts for s in _strings(e, names, depth + 1)]
    return []
