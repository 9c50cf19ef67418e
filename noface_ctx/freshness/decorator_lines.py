"""The decorators written right above a definition's header (`decorators`), read one way for every
rule that asks (`keyword_contract`: whether a decorator may change what a function takes;
`generated_init`: which generator writes a class's `__init__`).

Read upwards from the header: a line at the header's indentation starting with `@` is a decorator,
with the lines below it that continue it (its arguments over several lines, indented deeper, or a
closing bracket); a comment line is skipped wherever it stands (Python ignores it: `@dataclass`,
`# note`, `class C:` is a dataclass); a blank line, or any other line indented no deeper than the
header, ends them (the statement before the definition is not its decorator).
"""

from __future__ import annotations

_LOOK_BACK = 4000  # characters read above a header; a decorator block longer than 40 lines is not read
_LINES = 40


def decorators(text: str, start: int) -> list[str]:
    """The decorators of the header on the line holding `start`, nearest the header first, each
    written whole on one line (`@dataclasses.dataclass( kw_only=True, )`: its lines stripped,
    joined by a space)."""
    line_start = text.rfind("\n", 0, start) + 1
    end = text.find("\n", line_start)
    indent = _lead(text[line_start:end if end >= 0 else len(text)])
    out: list[str] = []
    chunk: list[str] = []
    lines = text[max(0, line_start - _LOOK_BACK):line_start].split("\n")[:-1]
    for line in reversed(lines[-_LINES:]):
        stripped = line.strip()
        if not stripped:
            break
        if stripped.startswith("#"):
            continue
        lead = _lead(line)
        if lead == indent and stripped.startswith("@"):
            out.append(" ".join([stripped, *chunk]))
            chunk = []
        elif lead > indent or stripped.startswith((")", "]", "}")):
            chunk.insert(0, stripped)
        else:
            break
    return out


def _lead(line: str) -> int:
    """The indentation of `line`, tabs as 4 columns."""
    wide = line.expandtabs(4)
    return len(wide) - len(wide.lstrip())
