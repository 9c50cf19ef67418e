"""A Jupyter notebook read as a doc: its markdown cells as prose, its code cells as Python examples.

`read_notebook(raw)` turns the notebook's JSON into Markdown text that every doc reader takes as
it is (freshness's extractors, sections, ranking): each markdown cell as written, each code cell
as a fenced ```python block, cells apart by a blank line. Outputs, attachments, images and cell
metadata are never read. The JSON is untrusted: a notebook that cannot be read (malformed, too
large, no cells) gives no text and a `problem` to report, never an exception. nbformat 4
(`cells`) and 3 (`worksheets`, a code cell's `input`, heading cells) are read; `source` may be a
string or a list of strings. Code cells of another kernel's language (R, Julia) are left out, so
such a notebook is judged by its prose only (`skipped_code`). IPython magics and shell escapes
(`%matplotlib inline`, `!pip install x`, `obj?`) are blank lines; a cell under another cell magic
(`%%bash`) is left out.

Each line of the text keeps where it came from (`Place`): the cell (1-based, every cell counted,
as a notebook's cells are numbered top to bottom), the line in the cell, and the line of the
`.ipynb` file where that line is written (Jupyter writes one source line per file line), so a
finding can say `doc/x.ipynb:345: ... (cell 12, line 3)`.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from noface_ctx._bounded import MAX_JSON_BYTES, loads_json
from noface_ctx._filetypes import NOTEBOOK_EXTENSIONS
from noface_ctx.errors import InputError

__all__ = ["NOTEBOOK_SUFFIX", "Notebook", "Place", "doc_text", "is_notebook", "read_notebook"]

NOTEBOOK_SUFFIX = min(NOTEBOOK_EXTENSIONS)  # ".ipynb"
MAX_NOTEBOOK_BYTES = MAX_JSON_BYTES
_PYTHON_KERNELS = re.compile(r"^i?python\d?$", re.I)
_SOURCE_KEY = re.compile(r'"(?:source|input)"\s*:')
_MAGIC = re.compile(r"^\s*(?:[%!]|[\w.]+\?{1,2}\s*$)")  # `%matplotlib`, `!pip`, `histplot?`
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
Line = tuple[str, int, int]  # a source line: its text, its line in the cell, its file line


@dataclass(frozen=True, slots=True)
class Place:
    """Where a line of the text comes from: cell (1-based), line in the cell (0: the cell's
    fence), and the line of the `.ipynb` file."""

    cell: int
    line: int
    file_line: int

    def label(self) -> str:
        return f"cell {self.cell}" + (f", line {self.line}" if self.line else "")


@dataclass(frozen=True, slots=True)
class Notebook:
    """The notebook as Markdown text, each text line's `Place`, and why it was not read ("")."""

    text: str
    places: tuple[Place, ...] = ()
    problem: str = ""
    skipped_code: str = ""  # the kernel language whose code cells were left out ("" for Python)

    def place(self, line: int) -> Place | None:
        """The `Place` of text line `line` (1-based), None outside the text."""
        return self.places[line - 1] if 0 < line <= len(self.places) else None


def is_notebook(path: str) -> bool:
    return path.lower().endswith(NOTEBOOK_SUFFIX)


def doc_text(path: str, text: str) -> str:
    """What a doc file says as prose and examples: a notebook's Markdown text, any other file as is."""
    return read_notebook(text).text if is_notebook(path) else text


def read_notebook(raw: str) -> Notebook:
    """The notebook in `raw` (its file's text) as Markdown, or a `Notebook` with only a `problem`."""
    try:
        data = loads_json(raw, "notebook", max_bytes=MAX_NOTEBOOK_BYTES)
    except InputError as exc:
        return Notebook("", problem=f"not a readable notebook: {exc.message}")
    cells = _cells(data)
    if cells is None:
        return Notebook("", problem="not a Jupyter notebook: no `cells` (nbformat 4) nor `worksheets` (nbformat 3)")
    language = _language(data) if isinstance(data, dict) else "python"
    python = _PYTHON_KERNELS.match(language) is not None
    out = _Writer(raw)
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        if kind in ("markdown", "heading"):
            out.cell(number, cell, "source", _heading_level(cell) if kind == "heading" else 0)
        elif kind == "raw" and _rst_raw(cell):
            out.cell(number, cell, "source", rst=True)
        elif kind == "code" and python:
            out.cell(number, cell, "source" if "source" in cell else "input", code=True)
    return Notebook("\n".join(out.lines), tuple(out.places), "", "" if python else language)


def _cells(data: object) -> list[object] | None:
    if not isinstance(data, dict):
        return None
    cells = data.get("cells")
    if isinstance(cells, list):
        return cells
    sheets = data.get("worksheets")
    if isinstance(sheets, list):
        return [c for s in sheets if isinstance(s, dict) and isinstance(s.get("cells"), list) for c in s["cells"]]
    return None


def _language(data: dict[str, object]) -> str:
    """The kernel's language (`python` when the notebook does not say)."""
    meta = data.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        table = meta.get(key)
        if isinstance(table, dict) and isinstance(table.get(field), str) and table[field].strip():
            return str(table[field]).strip()
    return str(meta["language"]) if isinstance(meta.get("language"), str) else "python"  # nbformat 3


def _heading_level(cell: dict[str, object]) -> int:
    level = cell.get("level")
    return min(max(level, 1), 6) if isinstance(level, int) else 1


def _pieces(source: object) -> list[str]:
    if isinstance(source, str):
        return [source]
    if isinstance(source, list):
        return [p for p in source if isinstance(p, str)]
    return []


class _Writer:
    """Builds the text and its places, finding each source piece in the raw JSON as it goes."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.cursor = 0  # where the search for the next piece starts
        self.counted, self.line_at = 0, 1  # newlines counted up to `counted`
        self.lines: list[str] = []
        self.places: list[Place] = []

    def _file_line(self, pos: int) -> int:
        if pos > self.counted:
            self.line_at += self.raw.count("\n", self.counted, pos)
            self.counted = pos
        return self.line_at

    def _find(self, piece: str) -> int:
        """The file line of `piece` (the JSON string) after the cursor; the cursor's line if absent."""
        for encoded in (json.dumps(piece, ensure_ascii=False), json.dumps(piece)):
            pos = self.raw.find(encoded, self.cursor)
            if pos >= 0:
                self.cursor = pos + len(encoded)
                return self._file_line(pos)
        return self._file_line(self.cursor)

    def _source(self, cell: dict[str, object], key: str) -> list[Line]:
        """The cell's source lines, each with its line in the cell and its file line."""
        found = _SOURCE_KEY.search(self.raw, self.cursor)
        if found is not None:
            self.cursor = found.end()
        start = self._file_line(self.cursor)
        text, starts = "", []  # starts: (offset in `text`, file line) of each piece
        for piece in _pieces(cell.get(key)):
            starts.append((len(text), self._find(piece)))
            text += piece.replace("\r\n", "\n").replace("\r", "\n")
        if not text:
            return []
        out: list[Line] = []
        offset = 0
        for line in text.removesuffix("\n").split("\n"):
            at = starts[bisect.bisect_right(starts, (offset, 1 << 62)) - 1][1] if starts else start
            out.append((line, len(out) + 1, at))
            offset += len(line) + 1
        return out

    def cell(self, number: int, cell: dict[str, object], key: str, level: int = 0, *, code: bool = False,
             rst: bool = False) -> None:
        source = self._source(cell, key)
        if not source:
            return
        if rst:
            source = _rst_as_markdown(source)
        first = source[0][2]
        if code:
            lines = _code_lines(source)
            if lines is None:
                return
            source = lines
            fence = "~~~" if any(_FENCE_LINE.match(s) for s, _, _ in source) else "```"
            self._add(fence + "python", Place(number, 0, first))
        for line, n, at in source:
            self._add(("#" * level + " " + line) if level and n == 1 else line, Place(number, n, at))
        if code:
            self._add(fence, Place(number, 0, first))
        elif _open_fence(line for line, _, _ in source):
            self._add(_open_fence(line for line, _, _ in source), Place(number, 0, first))  # a cell renders alone
        self._add("", Place(number, 0, first))

    def _add(self, line: str, place: Place) -> None:
        self.lines.append(line)
        self.places.append(place)


def _rst_raw(cell: dict[str, object]) -> bool:
    """A raw cell a Sphinx build renders as reStructuredText (seaborn writes its prose so):
    no format named, or reStructuredText; not HTML or LaTeX."""
    meta = cell.get("metadata")
    mime = meta.get("raw_mimetype") or meta.get("format") if isinstance(meta, dict) else None
    return not mime or mime in ("text/restructuredtext", "text/x-rst", "rst")


_RST_MODULE = re.compile(r"^\s*\.\.\s+(?:py:)?(?:currentmodule|module)::\s*(\S+)\s*$")
_RST_CODE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode|ipython)::\s*(\S*)\s*$")


def _rst_as_markdown(source: list[Line]) -> list[Line]:
    """A reStructuredText cell in the forms the Markdown reader takes: `.. currentmodule:: x` as
    MyST's, code blocks (`.. code-block:: python`, a `::` literal block) as fenced blocks."""
    out: list[Line] = []
    i = 0
    while i < len(source):
        line, n, at = source[i]
        module, code = _RST_MODULE.match(line), _RST_CODE.match(line)
        if module is not None:
            out += [("```{currentmodule} " + module.group(1), n, at), ("```", n, at)]
            i += 1
            continue
        literal = code is None and line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if code is None and not literal:
            out.append(source[i])
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        end = i + 1
        while end < len(source) and (not source[end][0].strip() or len(source[end][0]) - len(source[end][0].lstrip()) > indent):
            end += 1
        body = source[i + 1:end]
        while body and not body[-1][0].strip():
            body.pop()
        lang = (code.group(1) if code is not None else "") or "python"
        if literal and next((t for t, _, _ in body if t.strip()), "").lstrip().startswith(("$ ", "% ")):
            lang = "console"
        lang = "python" if lang.lower() in ("ipython", "ipython3", "python3", "pycon") else lang
        cut = min((len(s) - len(s.lstrip()) for s, _, _ in body if s.strip()), default=0)
        out += [(line if literal else "", n, at), ("```" + lang, n, at)] + [(s[cut:], k, a) for s, k, a in body]
        out.append(("```", n, at))
        i = i + 1 + len(body)
    return out


def _code_lines(source: list[Line]) -> list[Line] | None:
    """A code cell's lines with IPython's magics and shell escapes blanked; None for a cell
    another cell magic makes not Python (`%%bash`, `%%html`)."""
    head = source[0][0].strip()
    if head.startswith("%%"):
        if head[2:].split(" ", 1)[0] not in _PYTHON_CELL_MAGICS:
            return None
        source = [("", 1, source[0][2]), *source[1:]]
    return [("" if _MAGIC.match(line) else line, n, at) for line, n, at in source]


def _open_fence(lines: Iterable[str]) -> str:
    """The fence a Markdown cell leaves open ("" when none), to close it where the cell ends."""
    opened = ""
    for line in lines:
        m = _FENCE_LINE.match(line)
        if m is None:
            continue
        if not opened:
            opened = m.group(1)
        elif m.group(1)[0] == opened[0] and len(m.group(1)) >= len(opened) and not line.strip().strip(opened[0]):
            opened = ""
    return opened
