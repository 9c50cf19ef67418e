"""The design-doc vault: frontmatter, slugs, aliases, wikilinks and sections → `Doc` / `DocSet`.

`[monowiki] vault` may name the vault itself or a monowiki project folder (its `monowiki.yml`
names the vault under `paths.vault`, or the vault is its `vault/` subfolder). Without a vault,
docs come from `[context] doc_globs`. The vault must be inside the repository (after symlinks;
else a `ConfigError`), and its files are read only when the repository scan kept them
(`RepoFiles`), so excluded, secret or forbidden files and links never become docs.

The loaded `DocSet` (lookups by slug, alias, path; links) is `noface_ctx.docs.docset`'s; the
forms a doc takes in a prompt are `noface_ctx.docs.forms`'.
"""

from __future__ import annotations

import os
import posixpath
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from noface_ctx._state import Memo, cached, memo
from noface_ctx.config import DEFAULT_DOC_GLOBS
from noface_ctx.datatypes import Doc, RepoFiles
from noface_ctx.docs.cache import ParseCache
from noface_ctx.docs.discover import discovered_globs
from noface_ctx.docs.docset import DocSet
from noface_ctx.docs.forms import doc_forms, doc_header
from noface_ctx.docs.gallery import GALLERY_SCRIPT, gallery_dirs, gallery_text, is_gallery_script
from noface_ctx.docs.notebook import MAX_NOTEBOOK_BYTES, NOTEBOOK_SUFFIX, is_notebook, read_notebook
from noface_ctx.errors import ConfigError

if TYPE_CHECKING:
    from noface_ctx.config import Config
from noface_ctx.docs.markup import (  # re-exported: docs.slugify etc. are the public names
    PEOPLE_DOCS,
    doc_stem,
    is_instruction_doc,
    parse_wikilinks,
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
    "read_doc_file",
    "resolve_vault",
    "slug_collisions",
    "slugify",
    "split_frontmatter",
    "split_sections",
    "strip_frontmatter",
]

VAULT_EXTS = (".md", ".markdown")
GLOB_EXTS = (".md", ".markdown", ".rst", ".txt", NOTEBOOK_SUFFIX)
MONOWIKI_CONFIGS = ("monowiki.yml", "monowiki.yaml")


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

    from noface_ctx._bounded import YamlLimitError, load_yaml

    warnings: list[str] = []
    try:
        data = load_yaml(yml.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError, YamlLimitError) as exc:
        data = {}
        warnings.append(f"{_rel(yml, root)}: cannot read ({str(exc).splitlines()[0]}); using defaults")
    if not isinstance(data, dict):
        data = {}
    raw_paths = data.get("paths")
    paths: dict[str, Any] = raw_paths if isinstance(raw_paths, dict) else {}
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


@cached(maxsize=256)
def _glob_compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_glob_regex(pattern[2:] if pattern.startswith("./") else pattern))


def glob_match(path: str, pattern: str) -> bool:
    """True when repo-relative `path` matches `pattern` (`docs/**/*.md` also matches `docs/a.md`)."""
    return _glob_compiled(pattern).match(path) is not None


def doc_files(config: Config, repo_files: RepoFiles, vault: Vault,
               scripts: bool = False) -> tuple[str, list[tuple[str, Path]]]:
    """(vault label, [(doc path, absolute file)]) — repo files through `repo_files` only;
    `scripts`: the sphinx-gallery scripts whose text is a page (with the default globs)."""
    root = Path(repo_files.root).resolve()
    if vault.path is None:
        globs = config.context.doc_globs
        galleries: tuple[str, ...] = ()
        if globs == DEFAULT_DOC_GLOBS:  # a user's own globs are taken as written
            globs += discovered_globs(repo_files)
            galleries = gallery_dirs([f.path for f in repo_files.files], partial(_repo_text, root)) if scripts else ()
        hits = [
            f.path
            for f in repo_files.files
            if ((f.path.lower().endswith(GLOB_EXTS) and any(glob_match(f.path, g) for g in globs))
                or is_gallery_script(f.path, galleries))
            and doc_stem(f.path) not in PEOPLE_DOCS  # credits and licences are neither design nor records
            and ".ipynb_checkpoints/" not in f.path  # Jupyter's autosaves, not the notebook
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


def load_docs(config: Config, repo_files: RepoFiles, *, whole: bool = True, scripts: bool = False) -> DocSet:
    """Read every doc of the vault (or `doc_globs`), skipping drafts; never raises for bad docs.

    Parsed docs are cached by content (in memory and in `cache_dir`); while no doc file changed
    its stat since the last call in this process, that call's `DocSet` is returned again.
    `whole=False` reads only each doc's frontmatter (no sections, links or link warnings): what
    freshness needs, ten times faster than decoding the parse cache on a large vault. `scripts`:
    sphinx-gallery scripts too, their rendered text as reStructuredText (`gallery`; code to a prompt).
    """
    vault = resolve_vault(config)
    label, files = doc_files(config, repo_files, vault, scripts)
    files = sorted(files)
    stamps = tuple((path, _stat(abs_path)) for path, abs_path in files)
    memo_key = (str(config.root), label, vault.warnings, config.max_file_size_kb, whole, scripts)
    memo = _SET_MEMO.get(memo_key)
    if memo is not None and memo[0] == stamps:
        return memo[1]
    started = time.time_ns()
    parsed = ParseCache(config) if whole else None
    docset = _load(config, files, vault, label, parsed)
    if parsed is not None:
        parsed.save()
    if all(st is not None and st[1] < started - RACY_NS for _, st in stamps):  # else equal stats prove nothing
        _SET_MEMO.put(memo_key, (stamps, docset))
    return docset


RACY_NS = 2_000_000_000  # a file changed this recently may change again without a new mtime
_SET_MEMO: Memo[tuple[Any, ...], tuple[tuple[Any, ...], DocSet]] = memo("docs.docsets", maxsize=8)


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _load(config: Config, files: list[tuple[str, Path]], vault: Vault, label: str, parsed: ParseCache | None) -> DocSet:
    warnings = list(vault.warnings)
    docs: list[Doc] = []
    drafts: list[str] = []
    not_read: list[tuple[str, str]] = []
    for path, abs_path in files:
        try:
            text = read_doc_file(path, abs_path)
        except OSError as exc:
            warnings.append(f"{path}: cannot read ({exc.strerror or exc}); skipped")
            continue
        if is_notebook(path):  # its Markdown cells as prose, its code cells as examples; outputs never
            notebook = read_notebook(text)
            if notebook.problem:
                not_read.append((path, notebook.problem))
                warnings.append(f"{path}: {notebook.problem}; skipped")
                continue
            text = notebook.text
        elif path.endswith(GALLERY_SCRIPT):  # a gallery script `doc_files` took: its page, line for line
            page = gallery_text(text)
            if page is None:  # no docstring: no page
                continue
            text = page
        if os.path.isabs(path):  # outside the repo, the scan's exclusion rules never saw it
            why = _outside_problem(path, text, config)
            if why:
                warnings.append(f"{path}: {why}; skipped")
                continue
        doc, warning = parsed.parse(path, abs_path, text, _parse_doc) if parsed is not None else _parse_doc(path, text, whole=False)
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
    return DocSet(docset.docs, tuple(warnings), docset.vault, docset.drafts, tuple(not_read))


def _repo_text(root: Path, path: str) -> str | None:
    try:
        return (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_doc_file(path: str, abs_path: Path) -> str:
    """A doc file's text; a notebook over `MAX_NOTEBOOK_BYTES` is not read past it (and so not parsed)."""
    if not is_notebook(path):
        return abs_path.read_text(encoding="utf-8", errors="replace")
    with open(abs_path, "rb") as fh:
        data = fh.read(MAX_NOTEBOOK_BYTES + 1)
    return data.decode("utf-8", errors="replace")


def _outside_problem(path: str, text: str, config: Config) -> str:
    """Why a doc from a vault outside the repository must not be used ("" when it may)."""
    from noface_ctx.files.secrets import find_secret, is_secret_path

    if len(text.encode("utf-8", "replace")) > config.max_file_size_kb * 1024:
        return f"larger than max_file_size_kb ({config.max_file_size_kb})"
    if is_secret_path(path):
        return "secret file name"
    found = find_secret(text, path)
    return f"contains a secret ({found})" if found else ""


def _parse_doc(path: str, text: str, *, whole: bool = True) -> tuple[Doc, str]:
    """One file → `Doc` and a frontmatter warning ("" when none); drafts are the caller's job.
    `whole=False`: no sections, links or description."""
    front = split_frontmatter(text, path)
    fm = front.data
    stem = PurePosixPath(path).stem
    slug = slugify(str(fm.get("slug") or "")) or slugify(stem)
    title = str(fm.get("title") or "").strip() or stem
    rst = path.lower().endswith(".rst")
    tags = str_list(fm.get("tags"))
    doc_type = str(fm.get("type") or "").strip()
    body = front.body
    date = str(fm["date"]) if fm.get("date") is not None else None
    updated = str(fm["updated"]) if fm.get("updated") is not None else None
    if not whole:
        return Doc(path=path, slug=slug, title=title, text=text, tags=tags, doc_type=doc_type, date=date,
                   updated=updated, frontmatter=dict(fm)), front.warning
    doc = Doc(
        path=path,
        slug=slug,
        title=title,
        text=text,
        sections=split_sections(slug, body, first_line=front.body_line, rst=rst),
        aliases=str_list(fm.get("aliases") or fm.get("alias")),
        tags=tags,
        doc_type=doc_type,
        date=date,
        updated=updated,
        description=str(fm.get("description") or fm.get("summary") or "").strip(),
        links=parse_wikilinks(body, first_line=front.body_line),
        is_instruction=is_instruction_doc(doc_type, tags, title, body),
        frontmatter=dict(fm),
    )
    return doc, front.warning


def slug_collisions(docs: Sequence[Doc]) -> list[str]:
    """One line per doc whose slug an earlier doc already has: links to that slug reach the earlier one."""
    first: dict[str, str] = {}
    out = []
    for doc in docs:
        if doc.slug in first:
            out.append(f"{doc.path}: slug {doc.slug!r} is also used by {first[doc.slug]}; links resolve to that one")
        else:
            first[doc.slug] = doc.path
    return out


def _duplicate_warnings(docs: Sequence[Doc]) -> list[str]:
    """The collisions folded into one line with a count (flask has six: `index` three times, `views`,
    `gevent`, `changes`); `--verbose` lists them one by one (`slug_collisions`)."""
    seen: set[str] = set()
    repeated: dict[str, int] = {}
    for doc in docs:
        if doc.slug in seen:
            repeated[doc.slug] = repeated.get(doc.slug, 0) + 1
        seen.add(doc.slug)
    if not repeated:
        return []
    n = sum(repeated.values())
    names = ", ".join(f"{slug} ×{k + 1}" for slug, k in sorted(repeated.items()))
    return [f"{n} doc(s) share a slug with an earlier doc ({names}): links to those slugs resolve to the first "
            "(--verbose lists them; a frontmatter `slug:` tells them apart)"]


LINK_WARNINGS_PER_DOC = 20  # past this, a doc's unresolved links are counted, not listed (nor matched for hints)


def _link_warnings(docset: DocSet) -> list[str]:
    """Unresolved wikilinks are warnings (with suggestions), never failures. Each doc lists at most
    `LINK_WARNINGS_PER_DOC` and counts the rest in one line, so a doc of 100,000 broken links costs
    what a plain doc does (suggestions are a fuzzy search over every slug, paid per listed link)."""
    out = []
    drafts = set(docset.drafts)
    for doc in docset.docs:
        listed = unlisted = 0
        for link in doc.links:
            if docset.resolve(link.target) is not None:
                continue
            if listed >= LINK_WARNINGS_PER_DOC:
                unlisted += 1
                continue
            listed += 1
            base = link.target.rsplit("/", 1)[-1]
            if link.target in drafts or base in drafts:
                out.append(f"{doc.path}:{link.line}: {link.raw} links to a draft")
                continue
            close = docset.closest(link.target)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            out.append(f"{doc.path}:{link.line}: unresolved wikilink {link.raw}{hint}")
        if unlisted:
            out.append(f"{doc.path}: {unlisted} more unresolved wikilink(s) not listed")
    return out
