"""`DocSet`: the loaded vault, and the lookups ranking and signals make in it (slug, alias, path,
heading, closest names, linked docs)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from noface_ctx.datatypes import Doc, Section
from noface_ctx.docs.markup import slug_path, slugify


@dataclass(frozen=True, slots=True)
class DocSet:
    """Every non-draft doc, with lookups by slug, alias and path."""

    docs: tuple[Doc, ...]
    warnings: tuple[str, ...] = ()
    vault: str = ""  # repo-relative vault dir: "" = doc_globs, "." = repo root
    drafts: tuple[str, ...] = ()  # slugs of skipped drafts, so links to them explain themselves
    not_read: tuple[tuple[str, str], ...] = ()  # (path, why): doc files that could not be read (a malformed notebook)
    _keys: Mapping[str, Mapping[str, Doc]] = field(default_factory=dict, repr=False, compare=False)

    def _tables(self) -> Mapping[str, Mapping[str, Doc]]:
        """The lookup tables, built on first use (`check-docs` never needs them)."""
        if not self._keys:
            self._build()
        return self._keys

    def _build(self) -> None:
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
        return self._tables()["slug"].get(slugify(slug))

    def resolve(self, target: str) -> Doc | None:
        """A doc by slug, alias, repo path, vault-relative path (with or without extension),
        or, for path-like targets, by basename. `#anchor` suffixes are ignored."""
        raw = target.strip().split("#", 1)[0].strip().strip("/")
        if raw.startswith("./"):
            raw = raw[2:]
        if not raw:
            return None
        k = self._tables()
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
        k = self._tables()
        pool = list(dict.fromkeys([*k["slug"], *k["alias"]]))
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
