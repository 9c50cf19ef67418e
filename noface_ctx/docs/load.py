"""The design-doc vault: frontmatter, slugs, aliases, wikilinks and sections → `Doc` / `DocSet`.

`[monowiki] vault` may name the vault itself or a monowiki project folder (its `monowiki.yml`
names the vault under `paths.vault`, or the vault is its `vault/` subfolder). Without a vault,
docs come from `[context] doc_globs`. The vault must be inside the repository (after symlinks;
else a `ConfigError`), and its files are read only when the repository scan kept them
(`RepoFiles`), so excluded, secret or forbidden files and links never become docs.
"""

from __future__ import annotations

import difflib
import functools
import os
import posixpath
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from noface_ctx.datatypes import Doc, Form, RepoFiles, Section, Staleness
from noface_ctx.docs.cache import ParseCache, count_tokens
from noface_ctx.errors import ConfigError

if TYPE_CHECKING:
    from noface_ctx.config import Config
from noface_ctx.docs.markup import (  # re-exported: docs.slugify etc. are the public names
    PEOPLE_DOCS,
    doc_stem,
    is_instruction_doc,
    parse_wikilinks,
    slug_path,
    slugify,
    split_frontmatter,
    split_sections,
    str_list,
    strip_frontmatter,
)

__all__ = [
    "DocSet",
    "doc_forms",
    "doc_header",
    "glob_match",
    "is_instruction_doc",
    "load_docs",
    "parse_wikilinks",
    "resolve_vault",
    "slugify",
    "split_frontmatter",
    "split_sections",
    "strip_frontmatter",
]

VAULT_EXTS = (".md", ".markdown")
GLOB_EXTS = (".md", ".markdown", ".rst", ".txt")
MONOWIKI_CONFIGS = ("monowiki.yml", "monowiki.yaml")
MAX_FORM_SECTIONS = 3  # sections in the "relevant sections" form
MAX_LISTED_OMISSIONS = 6  # left-out sections listed by name, with their NEED_DOC lines


# --------------------------------------------------------------------------- the doc set


@dataclass(frozen=True, slots=True)
class DocSet:
    """Every non-draft doc, with lookups by slug, alias and path."""

    docs: tuple[Doc, ...]
    warnings: tuple[str, ...] = ()
    vault: str = ""  # repo-relative vault dir: "" = doc_globs, "." = repo root
    drafts: tuple[str, ...] = ()  # slugs of skipped drafts, so links to them explain themselves
    _keys: Mapping[str, Mapping[str, Doc]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._keys:
            return
        keys: dict[str, dict[str, Doc]] = {k: {} for k in ("slug", "alias", "path", "vpath", "spath")}
        for doc in self.docs:
            vpath = _vault_relative(doc.path, self.vault)
            keys["slug"].setdefault(doc.slug, doc)
            keys["path"].setdefault(doc.path.lower(), doc)
            keys["vpath"].setdefault(vpath.lower(), doc)
            keys["spath"].setdefault(slug_path(vpath), doc)
            for alias in doc.aliases:
                keys["alias"].setdefault(slugify(alias), doc)
        object.__setattr__(self, "_keys", keys)

    def __iter__(self) -> Iterator[Doc]:
        return iter(self.docs)

    def __len__(self) -> int:
        return len(self.docs)

    def get(self, slug: str) -> Doc | None:
        return self._keys["slug"].get(slugify(slug))

    def resolve(self, target: str) -> Doc | None:
        """A doc by slug, alias, repo path, vault-relative path (with or without extension),
        or, for path-like targets, by basename. `#anchor` suffixes are ignored."""
        raw = target.strip().split("#", 1)[0].strip().strip("/")
        if raw.startswith("./"):
            raw = raw[2:]
        if not raw:
            return None
        k = self._keys
        for name in (raw.lower(), raw.lower() + ".md"):
            if name in k["path"]:
                return k["path"][name]
            if name in k["vpath"]:
                return k["vpath"][name]
        norm = slug_path(raw)
        for table in ("slug", "alias", "spath"):
            if norm in k[table]:
                return k[table][norm]
        base = norm.rsplit("/", 1)[-1]
        return k["slug"].get(base) or k["alias"].get(base)

    def section(self, doc: Doc, anchor: str) -> Section | None:
        """The section of `doc` whose anchor (or slugified heading) is `anchor`."""
        want = slugify(anchor.lstrip("#"))
        if not want:
            return None
        for sec in doc.sections:
            if sec.anchor == want:
                return sec
        return next((s for s in doc.sections if slugify(s.heading) == want), None)

    def closest(self, target: str, n: int = 3) -> list[str]:
        """Up to `n` slugs, aliases or paths that look like `target` ("did you mean")."""
        norm = slug_path(target.split("#", 1)[0])
        pool = list(dict.fromkeys([*self._keys["slug"], *self._keys["alias"]]))
        found = difflib.get_close_matches(norm, pool, n=n, cutoff=0.6)
        paths = [d.path for d in self.docs]
        found += difflib.get_close_matches(target.strip(), paths, n=n, cutoff=0.6)
        base = norm.rsplit("/", 1)[-1]
        if base != norm:
            found += difflib.get_close_matches(base, pool, n=n, cutoff=0.6)
        return list(dict.fromkeys(found))[:n]

    def neighbors(self, doc: Doc) -> list[Doc]:
        """Docs `doc` links to (resolved, de-duplicated, in link order)."""
        out: dict[str, Doc] = {}
        for link in doc.links:
            other = self.resolve(link.target)
            if other is not None and other.slug != doc.slug:
                out.setdefault(other.slug, other)
        return list(out.values())


def _vault_relative(path: str, vault: str) -> str:
    if vault and vault != "." and path.startswith(vault.rstrip("/") + "/"):
        return path[len(vault.rstrip("/")) + 1 :]
    return path


# --------------------------------------------------------------------------- loading


@dataclass(frozen=True, slots=True)
class Vault:
    """Where the docs live, which vault-relative paths to skip, and what went wrong finding them."""

    path: Path | None  # absolute vault dir, None = doc_globs
    ignore: tuple[re.Pattern[str], ...] = ()
    warnings: tuple[str, ...] = ()


def resolve_vault(config: Config) -> Vault:
    """`[monowiki] vault` → the vault dir: itself, `monowiki.yml`'s `paths.vault`, or `vault/`."""
    if not config.vault:
        return Vault(None)
    root = Path(config.root)
    where = ".noface.toml: [monowiki] vault"
    cfg_file = getattr(config, "source", None)
    source = _rel(cfg_file, root) if cfg_file is not None else ".noface.toml"
    given = config.vault.strip().replace("\\", "/")
    if given.startswith(("/", "~")) or os.path.isabs(given) or posixpath.normpath(given).split("/")[0] == "..":
        raise ConfigError(f"[monowiki] vault {config.vault!r} is outside the repository; "
                          "the vault must be a folder inside it", where=source)
    base = (root / given).resolve()
    _inside_or_fail(base, root, f"[monowiki] vault {config.vault!r} resolves outside the repository (symlink)", source)
    if not base.is_dir():
        return Vault(None, (), (f"{where}: {config.vault!r} is not a directory; using [context] doc_globs",))
    yml = next((base / n for n in MONOWIKI_CONFIGS if (base / n).is_file()), None)
    if yml is None:
        return Vault(base / "vault" if (base / "vault").is_dir() else base)
    import yaml

    from noface_ctx.bounded import YamlLimitError, load_yaml

    warnings: list[str] = []
    try:
        data = load_yaml(yml.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError, YamlLimitError) as exc:
        data = {}
        warnings.append(f"{_rel(yml, root)}: cannot read ({str(exc).splitlines()[0]}); using defaults")
    if not isinstance(data, dict):
        data = {}
    paths = data.get("paths") if isinstance(data.get("paths"), dict) else {}
    named = paths.get("vault") if isinstance(paths.get("vault"), str) else None
    fallback = base / "vault" if (base / "vault").is_dir() else base
    vault = (yml.parent / named).resolve() if named else fallback
    _inside_or_fail(vault, root, f"paths.vault {named!r} is outside the repository", _rel(yml, root))
    if not vault.is_dir():
        warnings.append(f"{_rel(yml, root)}: paths.vault {named!r} is not a directory; using {_rel(fallback, root)}")
        vault = fallback
    ignore: list[re.Pattern[str]] = []
    for pat in str_list(data.get("ignore_patterns")) if isinstance(data.get("ignore_patterns"), list) else ():
        try:  # monowiki's ignore_patterns are regexes searched in the vault-relative path
            ignore.append(re.compile(pat))
        except re.error:
            ignore.append(re.compile(_glob_regex(pat)))
            warnings.append(f"{_rel(yml, root)}: ignore pattern {pat!r} is not a regex; read as a glob")
    return Vault(vault, tuple(ignore), tuple(warnings))


def _inside_or_fail(path: Path, root: Path, message: str, where: str) -> None:
    """A vault must be inside the repository, after every symlink is resolved: a config error."""
    top = root.resolve()
    if not path.resolve().is_relative_to(top):
        raise ConfigError(message, where=where)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return str(path)


def _glob_regex(pattern: str) -> str:
    """A path glob (`**` crosses directories, `*` and `?` do not) as an anchored regex."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "^" + "".join(out) + "$"


@functools.lru_cache(maxsize=256)
def _glob_compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_glob_regex(pattern[2:] if pattern.startswith("./") else pattern))


def glob_match(path: str, pattern: str) -> bool:
    """True when repo-relative `path` matches `pattern` (`docs/**/*.md` also matches `docs/a.md`)."""
    return _glob_compiled(pattern).match(path) is not None


def _doc_files(config: Any, repo_files: RepoFiles, vault: Vault) -> tuple[str, list[tuple[str, Path]]]:
    """(vault label, [(doc path, absolute file)]) — repo files through `repo_files` only."""
    root = Path(repo_files.root).resolve()
    if vault.path is None:
        globs = config.context.doc_globs
        hits = [
            f.path
            for f in repo_files.files
            if f.path.lower().endswith(GLOB_EXTS) and any(glob_match(f.path, g) for g in globs)
            and doc_stem(f.path) not in PEOPLE_DOCS  # credits and licences are neither design nor records
        ]
        return "", [(p, root / p) for p in hits]
    try:
        rel = vault.path.relative_to(root).as_posix()
    except ValueError:  # resolve_vault refuses these; never walk a folder outside the repository
        raise ConfigError(f"vault {vault.path} is outside the repository", where=".noface.toml") from None
    prefix = "" if rel == "." else rel + "/"
    pairs = [(f.path, root / f.path) for f in repo_files.files if f.path.startswith(prefix)]
    label = rel
    out = []
    for path, abs_path in pairs:
        vrel = path[len(prefix) :] if path.startswith(prefix) else path
        if not vrel.lower().endswith(VAULT_EXTS) or any(p.startswith(".") for p in vrel.split("/")):
            continue
        if any(rx.search(vrel) for rx in vault.ignore):
            continue
        out.append((path, abs_path))
    return label, out


def load_docs(config: Config, repo_files: RepoFiles) -> DocSet:
    """Read every doc of the vault (or `doc_globs`), skipping drafts; never raises for bad docs.

    Parsed docs are cached by content (in memory and in `cache_dir`); while no doc file changed
    its stat since the last call in this process, that call's `DocSet` is returned again.
    """
    vault = resolve_vault(config)
    label, files = _doc_files(config, repo_files, vault)
    files = sorted(files)
    stamps = tuple((path, _stat(abs_path)) for path, abs_path in files)
    memo_key = (str(config.root), label, vault.warnings, config.max_file_size_kb)
    memo = _SET_MEMO.get(memo_key)
    if memo is not None and memo[0] == stamps:
        return memo[1]
    started = time.time_ns()
    parsed = ParseCache(config)
    docset = _load(config, files, vault, label, parsed)
    parsed.save()
    if all(st is not None and st[1] < started - RACY_NS for _, st in stamps):  # else equal stats prove nothing
        if len(_SET_MEMO) >= 8:
            _SET_MEMO.clear()
        _SET_MEMO[memo_key] = (stamps, docset)
    return docset


RACY_NS = 2_000_000_000  # a file changed this recently may change again without a new mtime
_SET_MEMO: dict[tuple, tuple[tuple, DocSet]] = {}


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _load(config: Config, files: list[tuple[str, Path]], vault: Vault, label: str, parsed: ParseCache) -> DocSet:
    warnings = list(vault.warnings)
    docs: list[Doc] = []
    drafts: list[str] = []
    for path, abs_path in files:
        try:
            text = abs_path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            warnings.append(f"{path}: cannot read ({exc.strerror or exc}); skipped")
            continue
        if os.path.isabs(path):  # outside the repo, the scan's exclusion rules never saw it
            why = _outside_problem(path, text, config)
            if why:
                warnings.append(f"{path}: {why}; skipped")
                continue
        doc, warning = parsed.parse(path, abs_path, text, _parse_doc)
        if warning:
            warnings.append(warning)
        if doc.frontmatter.get("draft") is True or slugify(doc.doc_type) == "draft":
            drafts.append(doc.slug)
            continue
        docs.append(doc)
    if vault.path is not None and not docs and not drafts:
        warnings.append(f"vault {label}: no Markdown docs found among the repository's files")
    warnings += _duplicate_warnings(docs)
    docset = DocSet(tuple(docs), (), label, tuple(drafts))
    warnings += _link_warnings(docset)
    return DocSet(docset.docs, tuple(warnings), docset.vault, docset.drafts)


def _outside_problem(path: str, text: str, config: Any) -> str:
    """Why a doc from a vault outside the repository must not be used ("" when it may)."""
    from noface_ctx.files.secrets import find_secret, is_secret_path

    if len(text.encode("utf-8", "replace")) > config.max_file_size_kb * 1024:
        return f"larger than max_file_size_kb ({config.max_file_size_kb})"
    if is_secret_path(path):
        return "secret file name"
    found = find_secret(text, path)
    return f"contains a secret ({found})" if found else ""


def _parse_doc(path: str, text: str) -> tuple[Doc, str]:
    """One file → `Doc` and a frontmatter warning ("" when none); drafts are the caller's job."""
    front = split_frontmatter(text, path)
    fm = front.data
    stem = PurePosixPath(path).stem
    slug = slugify(str(fm.get("slug") or "")) or slugify(stem)
    title = str(fm.get("title") or "").strip() or stem
    rst = path.lower().endswith(".rst")
    tags = str_list(fm.get("tags"))
    doc_type = str(fm.get("type") or "").strip()
    body = front.body
    doc = Doc(
        path=path,
        slug=slug,
        title=title,
        text=text,
        sections=split_sections(slug, body, first_line=front.body_line, rst=rst),
        aliases=str_list(fm.get("aliases") or fm.get("alias")),
        tags=tags,
        doc_type=doc_type,
        date=str(fm["date"]) if fm.get("date") is not None else None,
        updated=str(fm["updated"]) if fm.get("updated") is not None else None,
        description=str(fm.get("description") or fm.get("summary") or "").strip(),
        links=parse_wikilinks(body, first_line=front.body_line),
        is_instruction=is_instruction_doc(doc_type, tags, title, body),
        frontmatter=dict(fm),
    )
    return doc, front.warning


def _duplicate_warnings(docs: Sequence[Doc]) -> list[str]:
    first: dict[str, str] = {}
    out = []
    for doc in docs:
        if doc.slug in first:
            out.append(f"{doc.path}: slug {doc.slug!r} is also used by {first[doc.slug]}; links resolve to that one")
        else:
            first[doc.slug] = doc.path
    return out


def _link_warnings(docset: DocSet) -> list[str]:
    """Unresolved wikilinks are warnings (with suggestions), never failures."""
    out = []
    drafts = set(docset.drafts)
    for doc in docset.docs:
        for link in doc.links:
            if docset.resolve(link.target) is not None:
                continue
            base = link.target.rsplit("/", 1)[-1]
            if link.target in drafts or base in drafts:
                out.append(f"{doc.path}:{link.line}: {link.raw} links to a draft")
                continue
            close = docset.closest(link.target)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            out.append(f"{doc.path}:{link.line}: unresolved wikilink {link.raw}{hint}")
    return out


# --------------------------------------------------------------------------- rendering a doc


def doc_header(doc: Doc, stale: Staleness | None = None, *, partial: bool = False) -> str:
    """`### Title  (slug: s, path: p)` and, for a stale doc, its note."""
    head = f"### {doc.title}  (slug: {doc.slug}, path: {doc.path}{'; relevant sections only' if partial else ''})"
    if stale is not None and stale.stale:
        head += "\n" + stale.note()
    return head


def doc_forms(doc: Doc, best: Sequence[int], stale: Staleness | None = None) -> tuple[Form, ...]:
    """The whole doc, then its relevant sections, then its single best section (when smaller).

    `best` are section indexes, most relevant first. Each partial form ends with a marker naming
    the left-out sections and the `NEED_DOC: slug#anchor` lines that fetch them.
    """
    body = strip_frontmatter(doc.text).strip("\n")
    full = f"{doc_header(doc, stale)}\n\n{body}\n"
    forms = [Form("full", full, count_tokens(full))]
    secs = doc.sections
    if len(secs) < 2 or not best:
        return tuple(forms)
    picks = list(best[:MAX_FORM_SECTIONS])
    intro = [0] if secs[0].level <= 1 and count_tokens(secs[0].text) <= 150 else []
    previous: list[int] = []
    for label, keep in (("sections", sorted(set(picks + intro))), ("section", [picks[0]])):
        if len(keep) >= len(secs) or keep == previous:
            continue
        text = _sections_text(doc, keep, stale)
        tokens = count_tokens(text)
        if tokens < forms[-1].tokens:
            forms.append(Form(label, text, tokens))
            previous = keep
    return tuple(forms)


def _sections_text(doc: Doc, keep: Sequence[int], stale: Staleness | None) -> str:
    """Chosen sections in document order, `[…]` between gaps, then the omission marker."""
    secs = doc.sections
    parts = [doc_header(doc, stale, partial=True), ""]
    last = -1
    for i in sorted(keep):
        if i != last + 1:
            parts.append("[…]\n")
        parts.append(secs[i].text.strip("\n") + "\n")
        last = i
    left = [s for n, s in enumerate(secs) if n not in set(keep)]
    names = ", ".join(f'"{s.heading or "(introduction)"}"' for s in left[:MAX_LISTED_OMISSIONS])
    more = f" and {len(left) - MAX_LISTED_OMISSIONS} more" if len(left) > MAX_LISTED_OMISSIONS else ""
    parts.append(f"[{len(left)} of {len(secs)} sections of this doc left out: {names}{more}. Request them with:]")
    requests = [f"NEED_DOC: {doc.slug}#{s.anchor}" for s in left[:MAX_LISTED_OMISSIONS] if s.anchor]
    if len(requests) < len(left):
        requests.append(f"NEED_DOC: {doc.slug}")
    parts.extend(dict.fromkeys(requests))
    return "\n".join(parts) + "\n"
