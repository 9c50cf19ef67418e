"""Doc text, without I/O: slugs, frontmatter, wikilinks, heading sections, instruction docs.

Pure functions over strings, shared by `docs.py` (the vault) and anything that parses a doc
(the `check-docs` hook, request answers). Nothing here reads files or imports a model.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from noface_ctx._filetypes import RECORD_DIRS
from noface_ctx.datatypes import Section, WikiLink

# --------------------------------------------------------------------------- slugs


def slugify(text: str) -> str:
    """Lowercase, spaces/underscores → `-`, other punctuation dropped, dashes collapsed.

    Matches monowiki's slug rules: `Hello World` → `hello-world`, `C++ Tips` → `c-tips`.
    """
    text = unicodedata.normalize("NFKC", str(text)).lower()
    text = re.sub(r"[\s_]+", "-", text)
    text = "".join(c for c in text if c == "-" or c.isalnum())
    return re.sub(r"-{2,}", "-", text).strip("-")


def slug_path(target: str) -> str:
    """`Design/Doc Agent.md` → `design/doc-agent`: slugify each segment, keep the slashes."""
    target = re.sub(r"\.(md|markdown|rst|txt)$", "", target.strip(), flags=re.I)
    return "/".join(s for s in (slugify(seg) for seg in target.split("/")) if s)


# --------------------------------------------------------------------------- line scanning

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")


def _fence_flags(lines: Sequence[str]) -> list[bool]:
    """For each line, True when it is inside a fenced code block (fence lines included)."""
    flags: list[bool] = []
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                flags.append(True)
                continue
            flags.append(False)
        else:
            flags.append(True)
            if m is not None and _closes(m.group(1), fence, line):
                fence = None
    return flags


def _closes(marker: str, fence: str, line: str) -> bool:
    """A closing fence: same character, at least as long, and no info string after it."""
    return marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker) :].strip()


# --------------------------------------------------------------------------- wikilinks

_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")


def parse_wikilinks(text: str, *, first_line: int = 1) -> tuple[WikiLink, ...]:
    """Every `[[target]]`, `[[target|label]]`, `[[target#heading]]` outside code.

    Split on the first `|`, then the first `#`. Same-doc links (`[[#heading]]`) are skipped.
    """
    lines = text.splitlines()
    out: list[WikiLink] = []
    for i, (line, fenced) in enumerate(zip(lines, _fence_flags(lines), strict=False)):
        if fenced or "[[" not in line:
            continue
        line = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for m in _WIKILINK.finditer(line):
            inner = m.group(1)
            target, _, label = inner.partition("|")
            target, _, heading = target.partition("#")
            slug = slug_path(target)
            if not slug:
                continue
            out.append(WikiLink(m.group(0), slug, heading.strip(), label.strip(), first_line + i))
    return tuple(out)


# --------------------------------------------------------------------------- frontmatter


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """A doc split at its frontmatter; `warning` is "" unless the YAML was unusable."""

    data: Mapping[str, Any]
    body: str
    body_line: int  # 1-based file line where the body starts
    warning: str = ""


def split_frontmatter(text: str, path: str = "") -> Frontmatter:
    """YAML between leading `---` lines → mapping, body, the body's first line, and a warning.

    Malformed YAML still yields the body (the doc is loaded, the warning names `path:line`).
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return Frontmatter({}, text, 1)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return Frontmatter({}, text, 1, f"{path}:1: frontmatter has no closing '---'; read as text")
    body = "".join(lines[end + 1 :])
    import yaml

    from noface_ctx._bounded import YamlLimitError, load_yaml

    try:
        data = load_yaml("".join(lines[1:end]))  # no aliases, bounded depth and size (hostile input)
    except YamlLimitError as exc:
        return Frontmatter({}, body, end + 2, f"{path}:2: frontmatter refused ({exc}); ignored")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Frontmatter({}, body, end + 2, f"{path}:{line}: malformed frontmatter ({problem}); ignored")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return Frontmatter({}, body, end + 2, f"{path}:2: frontmatter is not a mapping; ignored")
    return Frontmatter({str(k): _plain(v) for k, v in data.items()}, body, end + 2)


def _plain(value: Any) -> Any:
    """YAML dates → ISO strings, so frontmatter stays JSON-safe."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def str_list(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    return (str(value),)


def strip_frontmatter(text: str) -> str:
    """The doc text without its frontmatter block (what a prompt shows)."""
    front = split_frontmatter(text)
    return front.body if front.body_line > 1 else text


# --------------------------------------------------------------------------- sections

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}(#{1,6})[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RST_ADORN = re.compile(r"^([=\-~^\"'`#*+:._!$%&,;<>?@\\|/])\1{2,}[ \t]*$")
_NOT_SETEXT_TEXT = re.compile(r"^\s*([-*+>|]|\d+[.)]\s)")


def _headings_md(lines: Sequence[str]) -> list[tuple[int, int, int, str]]:
    """(first line index, last line index, level, title) for ATX and setext headings."""
    fenced = _fence_flags(lines)
    out: list[tuple[int, int, int, str]] = []
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        m = _ATX.match(line)
        if m:
            hashes = m.group(1) or m.group(3)
            out.append((i, i, len(hashes), (m.group(2) or "").strip()))
            continue
        if i + 1 < len(lines) and not fenced[i + 1] and _SETEXT.match(lines[i + 1]) and line.strip():
            prev_blank = i == 0 or not lines[i - 1].strip() or (out and out[-1][1] == i - 1)
            if prev_blank and not _NOT_SETEXT_TEXT.match(line) and not line.startswith(("    ", "\t")):
                out.append((i, i + 1, 1 if lines[i + 1].strip()[0] == "=" else 2, line.strip()))
    # a setext underline can't also be a heading text line
    taken = {j for s, e, _, _ in out for j in range(s + 1, e + 1)}
    return [h for h in out if h[0] not in taken]


def _headings_rst(lines: Sequence[str]) -> list[tuple[int, int, int, str]]:
    """reStructuredText titles: a text line underlined (optionally also overlined) by punctuation.

    Levels follow the order in which adornment styles first appear, as docutils does.
    """
    styles: list[tuple[str, bool]] = []
    out: list[tuple[int, int, int, str]] = []
    i = 0
    while i < len(lines) - 1:
        adorn = _RST_ADORN.match(lines[i])
        text = lines[i + 1] if i + 2 < len(lines) else ""
        if adorn and text.strip() and lines[i + 2].strip() == lines[i].strip():
            span, title, char, over = (i, i + 2), text.strip(), lines[i].strip()[0], True
        elif (
            lines[i].strip()
            and not lines[i][0].isspace()
            and not adorn
            and _RST_ADORN.match(lines[i + 1])
            and len(lines[i + 1].rstrip()) >= len(lines[i].rstrip())
        ):
            span, title, char, over = (i, i + 1), lines[i].strip(), lines[i + 1].strip()[0], False
        else:
            i += 1
            continue
        if (char, over) not in styles:
            styles.append((char, over))
        out.append((span[0], span[1], styles.index((char, over)) + 1, title))
        i = span[1] + 1
    return out


def split_sections(slug: str, body: str, *, first_line: int = 1, rst: bool = False) -> tuple[Section, ...]:
    """Split a doc body at every heading; the text before the first heading is the preamble.

    Line numbers are file lines (`first_line` is the body's first line). Headings inside code
    fences don't count. Anchors are slugified headings, de-duplicated with `-1`, `-2`.
    """
    lines = body.splitlines()
    heads = _headings_rst(lines) if rst else _headings_md(lines)
    bounds = [(0, 0, "")] + [(s, lvl, title) for s, _, lvl, title in heads]
    seen: dict[str, int] = {}
    out: list[Section] = []
    for n, (start, level, title) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(lines)
        if n == 0 and heads and heads[0][0] == 0:
            continue
        chunk = lines[start:end]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        if n == 0 and not "".join(chunk).strip():
            continue
        anchor = slugify(title)
        if anchor:
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            anchor = anchor if count == 0 else f"{anchor}-{count}"
        out.append(
            Section(
                doc_slug=slug,
                heading=title,
                anchor=anchor,
                level=level,
                start_line=first_line + start,
                end_line=first_line + start + max(len(chunk), 1) - 1,
                text="\n".join(chunk),
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------- instruction docs

_INSTRUCTION_WORDS = frozenset(
    "runbook runbooks checklist checklists playbook playbooks howto how-to procedure procedures "
    "skill skills sop instructions release-process release-checklist".split()
)
_FACTUAL_TYPES = frozenset("design essay reference adr decision spec specification note thought overview".split())
_INSTRUCTION_TITLE = re.compile(
    r"\b(runbook|check-?list|playbook|how[\s-]?to|procedure|step[\s-]by[\s-]step|releasing|"
    r"release (process|procedure|steps|guide)|skill)\b",
    re.I,
)
_IMPERATIVE = frozenset(
    """add announce build bump check click close commit configure confirm copy create cut delete deploy
    disable download edit enable ensure execute generate go increment install log login make merge move
    navigate notify open publish pull push rebuild release remove rename restart revert roll rollback
    run set sign ssh start stop submit switch tag test update upgrade upload verify wait write""".split()
)
_STEP = re.compile(r"^\s*(\d+[.)]|[-*+])\s+(?:\*\*|`)?([A-Za-z]+)")
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[[ xX]\]\s")


def is_instruction_doc(doc_type: str, tags: Sequence[str], title: str, body: str) -> bool:
    """Runbooks, checklists, how-to skills: a wrong instruction is followed, so they face a higher bar.

    Frontmatter type/tags decide first; a title like "Release checklist" next; without a
    factual `type`, the body counts too (checkboxes, or mostly imperative numbered steps).
    """
    words = {slugify(doc_type)} | {slugify(t) for t in tags}
    if words & _INSTRUCTION_WORDS:
        return True
    if _INSTRUCTION_TITLE.search(title):
        return True
    if slugify(doc_type) in _FACTUAL_TYPES:
        return False
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if sum(1 for ln in lines if _CHECKBOX.match(ln)) >= 3:
        return True
    steps = 0
    for ln in lines:
        m = _STEP.match(ln)
        if m and m.group(1)[0].isdigit() and m.group(2).lower() in _IMPERATIVE:
            steps += 1
    return steps >= 3 and steps >= 0.25 * len(lines)


# Docs that record the past (release notes) or the people (credits, licence), not the design.
# (an upgrading, porting or migration guide names the old APIs on purpose, as a changelog does: its
# examples alternate the code to convert and what to convert it into)
# (matched whatever their case and word separators: `ReleaseNotes.md`, `release_notes.rst`, `releasenotes.rst`)
HISTORICAL_DOCS = frozenset({"changelog", "changes", "history", "news", "releasenotes", "releases", "whatsnew",
                             "upgrading", "porting", "migration", "migrating"})
PEOPLE_DOCS = frozenset({
    "authors", "contributors", "license", "licence", "copying", "code_of_conduct", "code-of-conduct",
})



def is_record(path: str, record_dirs: tuple[str, ...] = RECORD_DIRS) -> bool:
    """Release notes, changelogs, history: by file name (`CHANGELOG.md`, `docs/HISTORY.rst`) or by a
    folder anywhere on the path (`docs/releases/1.9.txt`). Records are never ranked as design docs
    and never judged for freshness (they rightly name APIs that are gone); `NEED_DOC` serves them.
    File and folder names match whatever their case and word separators (`release-notes` is `release_notes`)."""
    if _names_record(_VERSION_TAIL.sub("", doc_stem(path)), HISTORICAL_DOCS):
        return True
    folders = frozenset(_folder_key(d.strip("/")) for d in record_dirs)
    return any(_names_record(part, folders) for part in path.split("/")[:-1])


# words before a record's name that keep it one: matplotlib's `prev_api_changes/`, `next_api_changes/`,
# `prev_whats_new/`, numpy's `upcoming_changes/`
# and of what is recorded: `versionhistory`, `release_history`, `version-changes`
_RECORD_QUALIFIERS = frozenset({"prev", "previous", "next", "old", "past", "upcoming", "api", "version", "release"})
_VERSION_TAIL = re.compile(r"[-_ .]*v?\d+(?:\.\d+)*[a-z0-9]*$")  # `api_changes_3.7.0`, `whats_new_1.4`


@functools.lru_cache(maxsize=4096)  # the same folder names (`docs`, `ref`) on every path of a repository
def _names_record(name: str, words: frozenset[str], qualifiers: frozenset[str] = _RECORD_QUALIFIERS) -> bool:
    """Whether a file or folder name is one of the record `words` (whatever its case and
    separators), or one after words of time or scope (`prev_api_changes`: `changes`), written
    apart or joined (`versionhistory`: `history`)."""
    key = _folder_key(name)
    if key in words:
        return True
    tokens = [t for t in re.split(r"[-_ ]+", name.lower()) if t]
    return any(all(t in qualifiers for t in tokens[:i]) and "".join(tokens[i:]) in words
               for i in range(1, len(tokens))) or any(
        key.endswith(w) and _qualified(key[:-len(w)], qualifiers) for w in words if len(key) > len(w))


def _qualified(prefix: str, qualifiers: frozenset[str]) -> bool:
    """Whether `prefix` is record qualifiers written together (`prevapi`, `version`)."""
    return not prefix or any(prefix.startswith(q) and _qualified(prefix[len(q):], qualifiers) for q in qualifiers)


def _folder_key(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "").replace(" ", "")


def doc_stem(path: str) -> str:
    """The lowercased file name without its extension: `docs/CHANGELOG.md` → `changelog`."""
    return path.rpartition("/")[2].rsplit(".", 1)[0].lower()


# Pages that name old APIs on purpose, never judged for freshness beside records: lists of
# deprecations (sphinx's `deprecated.rst`, django's `deprecation.txt`, sympy's `active-deprecations.md`:
# a deprecation word alone or after words of time or scope) and enhancement proposals (matplotlib's
# `doc/devel/MEP/`, PEPs, numpy's `neps/`): a proposal is a design record of its date, whose status
# (accepted, rejected, superseded) says what became of it; later code is not written back into it.
DEPRECATION_WORDS = frozenset({"deprecated", "deprecation", "deprecations"})
PROPOSAL_DIRS = frozenset({"mep", "meps", "pep", "peps", "nep", "neps", "slep", "sleps", "proposals",
                           "enhancementproposals"})
_DEPRECATION_QUALIFIERS = _RECORD_QUALIFIERS | {"active", "pending", "current", "recent", "removed"}


def names_old_apis(path: str) -> bool:
    """A list of deprecations or an enhancement proposal (see `DEPRECATION_WORDS`, `PROPOSAL_DIRS`)."""
    if _names_record(doc_stem(path), DEPRECATION_WORDS, _DEPRECATION_QUALIFIERS):
        return True
    return any(_folder_key(part) in PROPOSAL_DIRS for part in path.split("/")[:-1])
