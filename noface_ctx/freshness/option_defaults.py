"""Defaults of options and settings (issue 25, rule 5): where a doc states one, where code declares one.

A doc states an option's default in the section it documents: a title that is the option
(`--jobs` underlined) or an option directive (`.. option:: --include-naming-hint=y|n`), then a
"Default: off" / "**Default:** ``1``" line or a "Defaults to ``4``." sentence in it
(`option_statements`). An option's name is written
`--jobs`; the code may spell it `jobs`, `--jobs`, `include_naming_hint` or `include-naming-hint`.

The code declares it (`declared_default`) in an option table (`("jobs", {"type": "int",
"default": 1})`), an argparse / optparse / click call (`add_argument("-j", "--jobs", default=1)`,
`@click.option("--jobs", default=1)`), or a config file shipped inside a package
(`src/pkg/core/default_config.cfg`: `render_variant_limit = 5`; ini, cfg or toml, bounded).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection
from functools import lru_cache

from noface_ctx._filetypes import is_test_path
from noface_ctx.freshness.written_numbers import same_number

CONFIG_EXTS = frozenset({"cfg", "ini", "toml"})
MAX_CONFIG = 1 << 20  # a shipped config file is read up to 1 MB
_SPAN = r"(?::[\w:-]+:)?(?P<tick>`+)([^`\n]+?)(?P=tick)"
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")  # `-j`, `--include-naming-hint`
_OPTION_TITLE = re.compile(r"^(?:-[A-Za-z]\w*(?:[ =]\S+)?,\s*)*--?[A-Za-z][\w-]*(?:[ =]\S+)?$")
_OPTION_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:\w+:)?[\w-]*option::\s+(-.*?)\s*$")  # `option`, `cmdoption`, `django-admin-option`
_UNDERLINE = re.compile(r"""^([=\-`:'"~^_*+#<>])\1+\s*$""")  # not `blocks.UNDERLINE`: two long under `-j`
_UNDERLINE_CHARS = frozenset("=-`:'\"~^_*+#<>")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_DEFAULT_LINE = re.compile(r"(?i)^\s*(?:\*\*|\*|__)?defaults?(?:\*\*|\*|__)?\s*:\s*(?:\*\*|\*|__)?\s*(.+)$")  # "**Default:** ``1``"
_DEFAULTS_TO = re.compile(rf"(?i)(?:^\s*|[.;]\s+|\(\s*)(?:it\s+)?(?:defaults?\s+(?:to|is)|default:)\s+({_SPAN}|[\w.+-]+)")
_LITERAL = re.compile(r"-?[\d.]+|True|False|None|[A-Z][A-Z0-9_]*")
_TRUTH = {"on": "True", "yes": "True", "y": "True", "true": "True",
          "off": "False", "no": "False", "n": "False", "false": "False"}
_NOT_SHIPPED = frozenset({"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "mypy.ini", ".flake8", ".coveragerc"})

Statement = tuple[tuple[str, ...], int, str]  # (names, line, value)


def truth(value: str) -> str:
    """A yes/no word as the boolean it writes ("off" → `False`), any other value as it is."""
    return _TRUTH.get(value.lower(), value)


def same_value(stated: str, coded: str) -> bool:
    """Whether a stated value is the coded one (`off` is `False`, `true` in a config is `True`, `5` is `5.0`,
    `500kB` is `500_000`: `written_numbers`)."""
    if truth(stated) == truth(coded):
        return True
    numbers = [re.fullmatch(r"-?\d+(?:\.\d*)?", v) for v in (stated, coded)]
    return (all(numbers) and float(stated) == float(coded)) or same_number(stated, coded)  # `500kB` is `500_000`


def option_statements(lines: list[str], comparable: Callable[[str], str]) -> list[Statement]:
    """The defaults `lines` state for options (see the module docstring); `comparable` gives a
    value's comparable form."""
    out: list[Statement] = []
    option: tuple[str, ...] = ()
    body = -1  # an option directive's indentation (its body is indented past it); -1: a section titled by the option
    stated = False
    for i, line in enumerate(lines):
        title = _title(lines, i)
        directive = _OPTION_DIRECTIVE.match(line)
        if directive is not None:
            option, body, stated = _options(directive.group(2)), len(directive.group(1)), False
            continue
        if title is not None:
            text = title.strip().strip("`*")
            option, body, stated = (_options(text), -1, False) if _OPTION_TITLE.match(text) else ((), -1, False)
            continue
        if option and body >= 0 and line.strip() and len(line) - len(line.lstrip()) <= body:
            option = ()  # the directive's body ended
        if option and not stated and (value := _stated_value(line, comparable)):
            out.append((option, i + 1, value))
            stated = True
    return out


def option_words(text: str) -> set[str]:
    """The identifiers a doc's judgement depends on through the options it states a default of:
    their spellings (`include_naming_hint`, and `include`, `naming`, `hint` for the dashed one) and
    `default` (a table's changed line, `"default": 0,`, names nothing else)."""
    if "efault" not in text:
        return set()
    names = " ".join(n for names, _line, _value in option_statements(text.split("\n"), str) for n in names)
    return {"default", *re.findall(r"[A-Za-z]\w*", names), *re.findall(r"[A-Za-z]\w*", names.replace("-", "_"))} if names else set()


def _title(lines: list[str], i: int) -> str | None:
    """Line `i`'s text when it is a section title (underlined reStructuredText, a Markdown heading)."""
    if lines[i].startswith("#"):
        heading = _HEADING.match(lines[i])
        return heading.group(1) if heading is not None else None
    text = lines[i].rstrip()
    if text and not text[:1].isspace() and i + 1 < len(lines) and lines[i + 1][:1] in _UNDERLINE_CHARS \
            and _UNDERLINE.match(lines[i + 1]) \
            and len(lines[i + 1].rstrip()) >= len(text) and not _UNDERLINE.match(text):
        return text
    return None


def _options(target: str) -> tuple[str, ...]:
    """The options a directive or title names (`-j N, --jobs=N` → `--jobs`, `-j`), long ones first."""
    found = [m.group(1) for m in _OPTION.finditer(target.split("<", 1)[0]) if not m.group(1).startswith("-" * 3)]
    names = [o for o in found if o.startswith("--")] + [o for o in found if not o.startswith("--")]
    return tuple(dict.fromkeys(o.split("=", 1)[0] for o in names))


def _stated_value(line: str, comparable: Callable[[str], str]) -> str:
    """The value a line of an option's section states as its default ("Default: off",
    "**Default:**  ``1``", "Defaults to ``4``."), or ""."""
    m = _DEFAULT_LINE.match(line) or _DEFAULTS_TO.search(line)
    return _value(m.group(1), comparable) if m is not None else ""


def _value(text: str, comparable: Callable[[str], str]) -> str:
    """A value written as code (``1``, `False`), a literal (3, `None`) or a yes/no word, else ""."""
    coded = re.match(rf"\s*{_SPAN}", text)
    if coded is not None:
        return truth(comparable(coded.group(2)))
    word = text.strip().split()[0].rstrip(".,;)") if text.strip() else ""
    return truth(word) if _LITERAL.fullmatch(word) or word.lower() in _TRUTH else ""


# ----------------------------------------------------------------------------- the code's side

def config_file(path: str) -> bool:
    """A file of `name = value` / `name: value` settings: ini, cfg, toml, or a run-control file
    (`matplotlibrc`, no extension), whose commented `#name: value` lines list the defaults."""
    name = posixpath.basename(path)
    return ("." in name and name.rsplit(".", 1)[-1].lower() in CONFIG_EXTS) or _RC_NAME.fullmatch(name) is not None


def shipped_config(path: str, paths: Collection[str]) -> bool:
    """A config file shipped inside a package (a folder above it holds `__init__.py`), not a
    project's own tooling (`pyproject.toml`, `setup.cfg`) nor a test's."""
    name = posixpath.basename(path)
    if not config_file(path) or name in _NOT_SHIPPED or is_test_path(path):
        return False
    folder = posixpath.dirname(path)
    while folder:
        if f"{folder}/__init__.py" in paths:
            return True
        folder = posixpath.dirname(folder)
    return False


def declared_default(path: str, text: str, name: str, comparable: Callable[[str], str]) -> str | None:
    """The default `text` (the file `path`) declares for the option or setting `name`: a config
    file's `name = value`, else an option table's or an option call's `default` (None: none, or
    several different ones)."""
    key = name.lstrip("-")
    if not key or not any(f in text for f in (key, key.replace("_", "-"), key.replace("-", "_"))):
        return None
    if config_file(path):
        rc = "." not in posixpath.basename(path)
        settings = _settings(text, rc)
        ends = [k for k in settings if k.endswith("." + _key(key))] if rc and _key(key) not in settings else []
        found = {truth(comparable(v)) for v in settings.get(ends[0] if len(ends) == 1 else _key(key), ())}  # `pad_inches`: `savefig.pad_inches`
    elif any(quoted in text for quoted in _quoted(key)):  # as a table or a call names it
        found = {comparable(v) for v in _declared(text).get(name if len(key) == 1 else _key(key), ())}
    else:
        return None
    return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=1024)
def _quoted(key: str) -> tuple[str, ...]:
    """An option's name quoted as code may write it: `"jobs"`, `'--jobs'`, `"include_naming_hint"`."""
    return tuple({f"{q}{dashes}{form}{end}" for q in "\"'" for dashes in ("", "-", "--") for end in (q, "/")  # (`"--x/--no-x"`)
                  for form in (key, key.replace("_", "-"), key.replace("-", "_"))})


def _key(name: str) -> str:
    """An option's or setting's name as compared: `--include-naming-hint` → `include_naming_hint`."""
    return name.lstrip("-").replace("-", "_")


_SETTING = re.compile(r"^[ \t]*[\"']?([\w.-]+)[\"']?[ \t]*[=:][ \t]*(.*?)[ \t]*$", re.M)
_RC_SETTING = re.compile(r"^[ \t]*#?([\w.-]+)[ \t]*[=:][ \t]*(.*?)[ \t]*$", re.M)  # `#savefig.pad_inches:  0.1  # ...`
_RC_NAME = re.compile(r"[a-z][a-z0-9_]*rc")
_ENTRY = re.compile(r"""\(\s*(["'])([\w-]+)\1\s*,\s*\{""")
_CALLS = re.compile(r"(?<![\w])(?:add_argument|add_option|make_option|option|Option)\s*\(")
_FLAG = re.compile(r"""\s*(["'])((?:-[A-Za-z]|--?[A-Za-z][\w-]+)(?:\s*/\s*--?[A-Za-z][\w-]*)?)\1\s*""")  # click's `"--x/--no-x"`


@lru_cache(maxsize=128)
def _settings(text: str, rc: bool = False) -> dict[str, list[str]]:
    """Each `name = value` (or `name: value`; in an rc file `#name: value` too) of a config file's first
    `MAX_CONFIG` characters, by `_key`."""
    out: dict[str, list[str]] = {}
    for m in (_RC_SETTING if rc else _SETTING).finditer(text[:MAX_CONFIG]):
        value = m.group(2) if m.group(2)[:1] in "\"'" else re.split(r"\s[#;]", m.group(2), maxsplit=1)[0]
        if value.strip():
            out.setdefault(_key(m.group(1)), []).append(value)
    return out


@lru_cache(maxsize=128)
def _declared(text: str) -> dict[str, list[str]]:
    """The `default` of each table entry `("jobs", {...})` and each option call naming `--jobs`
    or `-j`, by `_key` (a short option as written: `-j`)."""
    out: dict[str, list[str]] = {}
    budget = [_READ_PER_CHARACTER * len(text) + _READ_AT_LEAST]  # brackets that never close: no quadratic read
    for m in _ENTRY.finditer(text):
        values = [v for k, v in (_pair(a, ":") for a in _split(text, m.end(), "}", budget=budget))
                  if k.strip().strip("\"'") == "default"]
        out.setdefault(_key(m.group(2)), []).extend(values)
    for m in _CALLS.finditer(text):
        args = _split(text, m.end(), ")", budget=budget)
        values = [v for k, v in (_pair(a, "=") for a in args) if k.strip() == "default"]
        for flag in (part.strip() for a in args if (f := _FLAG.fullmatch(a)) for part in f.group(2).split("/")[:1]):
            out.setdefault(flag if len(flag) == 2 else _key(flag), []).extend(values)
    return out


def _pair(arg: str, sep: str) -> tuple[str, str]:
    """(key, value) of `default=1` or `"default": 1`; ("", "") for a positional argument."""
    key, found, value = arg.partition(sep)
    if not found or (sep == "=" and key.lstrip().startswith(("'", '"'))):
        return "", ""
    return key, value


# Python source as strings and comments (whole), brackets and commas: what `_split` counts, and what
# `coded_defaults` reads a signature's parameters with (a bracket in a string closes nothing)
SOURCE_TOKEN = re.compile(r"""\"\"\"[\s\S]*?\"\"\"|'\'\'[\s\S]*?'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*|[()\[\]{},]""")


_LEADING_COMMENTS = re.compile(r"^(?:\s*#[^\n]*\n)+")


def split_items(text: str, start: int) -> list[str]:
    """The top-level items of the bracket opened just before `start` (`_split`)."""
    return _split(text, start, "}")


# `_declared` reads each table entry and option call to its closing bracket: a file of entries that never
# close (`("a", {"default": (` repeated) would be read once per entry; all of them together read at most this
_READ_PER_CHARACTER, _READ_AT_LEAST = 4, 200_000


def _split(text: str, start: int, close: str, limit: int = 20_000, budget: list[int] | None = None) -> list[str]:
    """The top-level comma-separated items from `start` (just inside a bracket) to its `close`,
    strings and comments kept whole; at most `limit` characters read ([] when it does not close),
    and at most `budget[0]` when given (what is read is taken off it)."""
    if budget is not None:
        limit = min(limit, budget[0])
        budget[0] -= limit  # the most this call reads; an early close gives back the rest
    end = min(len(text), start + limit)
    items, depth, cur = [], 0, start
    for m in SOURCE_TOKEN.finditer(text, start, end):
        ch = m.group()
        if ch in ("(", "[", "{"):
            depth += 1
        elif ch in (")", "]", "}"):
            if depth == 0:
                items.append(text[cur:m.start()])
                if budget is not None:
                    budget[0] += end - m.end()
                return [_LEADING_COMMENTS.sub("", a) for a in items if a.strip()]
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[cur:m.start()])
            cur = m.end()
    return []
