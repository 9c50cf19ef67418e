"""The API references of an MkDocs site (`references`): mkdocstrings' (and mkautodoc's) `::: pkg.module.Name`
line, which renders the object's documentation from the code (a renamed or moved target breaks the
build, as `.. autofunction::` does), with the members its options list (YAML `members: [a, b]` or a
block list; mkautodoc's `:members: a b`), and autorefs' cross-references `[text][pkg.module.Name]` /
`[pkg.module.Name][]` (and a bare `[Name][]`, `_autorefs`); mkdocs-click's (and mkdocs-typer's) `::: mkdocs-click` block names its command
by `:module:` and `:command:`.

Not references: a `:::` line in a fenced code block; a fenced div (Pandoc's `::: {.note}`, `:::note`,
MyST's `:::{note}`, a `::: warning` closed by a later `:::`); an admonition (`!!! note`); a reference
link whose label the page defines (`[text][label]` with `[label]: https://...`); a bracket that is not
a name (`[text][section-anchor]`), names a file (`[setup.py][]`) or Python's own (`[str][]`). Whose a dotted name
is (the repository's, a library's) is `Codebase.resolve`'s question, as for every dotted reference."""

from __future__ import annotations

import re

from noface_ctx.freshness.references import (
    EXTERNAL_NAMES,
    IDENT,
    IGNORE_MARK,
    KNOWN_EXTS,
    Reference,
    file_ext,
    placeholder,
)

_NAME = rf"{IDENT}(?:\.{IDENT})*"
_DIRECTIVE = re.compile(rf"^\s*(?:#{{1,6}} *)?::: ?({_NAME})\s*$")  # mkdocstrings' block: `::: pkg.mod.Name`
_CLI = re.compile(r"^\s*::: ?mkdocs-(?:click|typer2?)\s*$")
_DIV_CLOSE = re.compile(r"^\s*:{3,}\s*$")  # the closing fence of a Pandoc / MyST / Docusaurus div
_OPENER = re.compile(r"^\s*:{3,}")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SPAN = re.compile(r"(`+).+?\1")
_AUTOREF = re.compile(rf"(?<![\\\w])\[([^\[\]\n]*)\]\[({_NAME})?\](?!\()")  # `[text][pkg.Name]`, `[pkg.Name][]`
_DEFINED = re.compile(r"^\s{0,3}\[([^\]\n]+)\]:\s*\S")  # a reference link's definition: `[label]: url`
_MEMBERS = re.compile(r"^(\s*)members\s*:\s*(.*?)\s*$")
_LISTED = re.compile(r"^\s*:members:\s*(\S.*?)\s*$")  # mkautodoc's option: `:members: get post close`


def references(text: str, start: int) -> list[Reference]:
    """The mkdocstrings and autorefs references of a Markdown page's `text` from its line index `start`
    (after its frontmatter), in order; see the module docstring."""
    if ":::" not in text and "][" not in text:  # most pages: neither form
        return []
    lines = text.split("\n")
    defined = {m.group(1).strip().lower() for line in lines if (m := _DEFINED.match(line))}
    out: list[Reference] = []
    fence = ""
    for i in range(start, len(lines)):
        line = lines[i]
        marker = _FENCE.match(line)
        if fence:
            fence = "" if marker and line.strip().startswith(fence) and not line.strip().strip(fence[0]) else fence
            continue
        if marker:
            fence = marker.group(1)
            continue
        if IGNORE_MARK in line:
            continue
        block = _DIRECTIVE.match(line)
        if block is not None and not _a_div(lines, i) and not placeholder(block.group(1)):
            name = block.group(1)
            out.append(Reference(name, name, "method" if "." in name else "symbol", i + 1, True, "autodoc", documented=True))
            out += _members(lines, i, name)
            continue
        cli = _CLI.match(line)
        if cli is not None:  # mkdocs-click's / mkdocs-typer's block: `:module: pkg.cli`, `:command: main`
            out += _command(lines, i)
        elif "][" in line:
            out += _autorefs(line, i + 1, defined)
    return out


def _command(lines: list[str], i: int) -> list[Reference]:
    """The command object the indented options under mkdocs-click's (or mkdocs-typer's) `:::` line
    `i` name (`:module: pkg.cli` and `:command: main`: `pkg.cli.main`), rendered from the code."""
    options: dict[str, str] = {}
    for line in lines[i + 1:]:
        if line.strip() and not line[:1].isspace():
            break
        option = re.match(r"^\s+:([\w-]+):\s*(\S+)\s*$", line)
        options.update({option.group(1): option.group(2)} if option is not None else {})
    target = f"{options.get('module', '')}.{options.get('command', '')}"
    if not re.fullmatch(rf"{IDENT}(?:\.{IDENT})+", target):
        return []
    return [Reference(target, target, "method", i + 1, True, "autodoc", documented=True)]


def _a_div(lines: list[str], i: int) -> bool:
    """Whether the `:::` line `i` opens a fenced div: the next line opening with colons closes it
    (mkdocstrings' block is never closed)."""
    for line in lines[i + 1:]:
        if _OPENER.match(line):
            return bool(_DIV_CLOSE.match(line))
    return False


def _members(lines: list[str], i: int, owner: str) -> list[Reference]:
    """The members the indented YAML options under the `:::` line `i` list (`members: [a, b]`, or a
    block list of `- a` items): each a member of `owner`, which mkdocstrings renders from the code."""
    out: list[Reference] = []
    listing = -1  # the indent of the `members:` key while its block list continues
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            break
        listed = _LISTED.match(line)
        if listed is not None:
            out += [_member(owner, n, j + 1) for n in re.split(r"[\s,]+", listed.group(1)) if re.fullmatch(IDENT, n)]
            continue
        key = _MEMBERS.match(line)
        if key is not None:
            value = key.group(2)
            listing = indent if not value else -1
            if value.startswith("["):
                names = [n.strip().strip("\"'") for n in value.strip("[]").split(",")]
                out += [_member(owner, n, j + 1) for n in names if re.fullmatch(IDENT, n)]
            continue
        item = re.match(rf"^\s*-\s*[\"']?({IDENT})[\"']?\s*$", line)
        if listing >= 0 and indent >= listing and item is not None:
            out.append(_member(owner, item.group(1), j + 1))
        elif listing >= 0 and indent <= listing:
            listing = -1
    return out


def _member(owner: str, name: str, lineno: int) -> Reference:
    return Reference(f"{owner}.{name}", f"{owner}.{name}", "method", lineno, True, "autodoc", documented=True)


def _autorefs(line: str, lineno: int, defined: set[str]) -> list[Reference]:
    """autorefs' cross-references on a line outside code spans: a dotted target (`[text][pkg.mod.Name]`,
    `[pkg.mod.Name][]`) the page defines no reference link for; a bare one (`[Client][]`, `[text][load_git]`),
    which autorefs finds by an anchor, a heading's (`[Installation][]`) or another site's as well as an
    object's: judged only as a removed name of the code (source `word`, as a one-word title is: `scan`)."""
    code = [(s.start(), s.end()) for s in _SPAN.finditer(line)]
    out = []
    for m in _AUTOREF.finditer(line):
        target = m.group(2) or m.group(1).strip().strip("`")
        if any(a <= m.start() < b for a, b in code) or not re.fullmatch(_NAME, target) or (
                target.lower() in defined or placeholder(target) or file_ext(target) in KNOWN_EXTS):
            continue
        if "." in target:
            out.append(Reference(target, target, "method", lineno, True, "xref"))
        elif target not in EXTERNAL_NAMES and len(target) > 2:  # `[str][]`: Python's inventory, not ours
            out.append(Reference(target, target, "symbol", lineno, True, "word", documented=True))
    return out
