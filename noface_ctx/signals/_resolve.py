"""Looking context requests up safely: the checks every path passes, and the lookups.

`signals.respond.resolve_requests` is the public entry point. Every path goes through
`Resolver._guard` before a byte is read: normalised and confined to the repository (symlinks
resolved), manifest-forbidden and secret files refused, files excluded by path or type refused
with the reason; a size exclusion alone yields to an explicit request (served capped).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx._bounded import read_head
from noface_ctx._filebytes import looks_binary
from noface_ctx._wording_answers import WHOLE_FILE, elsewhere_listed, overloads_listed
from noface_ctx.code.lookup import split_overloads, symbol_target, where_defined
from noface_ctx.datatypes import CodeChunk, Doc, Excluded, Manifest, RepoFiles, Section
from noface_ctx.signals._answer import CodePiece, DocPiece, Draft
from noface_ctx.signals.parse import normalise_path
from noface_ctx.signals.values import Request

if TYPE_CHECKING:
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.config import Config
    from noface_ctx.docs.load import DocSet
    from noface_ctx.freshness.assess import JudgeInputs
    from noface_ctx.freshness.judgement import DocFreshness

MAX_SUGGESTIONS = 3
MAX_REQUEST_BYTES = 2_000_000  # the largest file NEED_CODE reads (the index's MAX_SOURCE_BYTES too)


class Resolver:
    """Looks requests up in one repository; the scans and indexes it needs are built lazily."""

    def __init__(self, config: Config, manifest: Manifest | None) -> None:
        self.config = config
        self.manifest = manifest
        self.root = Path(config.root).resolve()
        self._repo_files: RepoFiles | None = None
        self._index: CodeIndex | None = None
        self._docs: DocSet | None = None
        self._fresh: JudgeInputs | None = None  # what docs are judged against, read on first use
        self._judged: dict[str, DocFreshness] = {}  # by doc path

    # lazy stages -----------------------------------------------------------

    @property
    def repo_files(self) -> RepoFiles:
        """The repository's scan (made on first use)."""
        if self._repo_files is None:
            from noface_ctx.files.gate import scan_repo

            # Without the manifest: a forbidden doc must be found to be refused by name, not
            # reported missing; every path still goes through `_guard` before it is read.
            self._repo_files = scan_repo(self.config)
        return self._repo_files

    @property
    def index(self) -> CodeIndex:
        """The code index (built on first use)."""
        if self._index is None:
            from noface_ctx.code.index import CodeIndex

            self._index = CodeIndex.build(self.repo_files, self.config)
        return self._index

    @property
    def docs(self) -> DocSet:
        """The repository's docs (loaded on first use)."""
        if self._docs is None:
            from noface_ctx.docs.load import load_docs

            self._docs = load_docs(self.config, self.repo_files)
        return self._docs

    def staleness_note(self, doc: Doc) -> str:
        """The doc's staleness note ('' when fresh); docs are assessed together on first use."""
        from noface_ctx.freshness.assess import judge_docs, judge_inputs, run_state

        if self._fresh is None:
            self._fresh = judge_inputs(list(self.docs), self.repo_files, self.index, self.config,
                                       run_state(self.repo_files))
        if doc.path not in self._judged:  # by path: two docs may share a slug
            self._judged.update(judge_docs([doc], self._fresh))
        judged = self._judged.get(doc.path)
        return judged.staleness.note() if judged is not None else ""

    # dispatch -------------------------------------------------------------

    def resolve(self, req: Request) -> Draft:
        if not req.ok:
            return Draft(req, "refused", req.error)
        try:
            return self._code(req) if req.kind == "code" else self._doc(req)
        except OSError as exc:
            return Draft(req, "not found", f"cannot read: {exc.strerror or exc}")

    # safety ---------------------------------------------------------------

    def _policy(self, path: str) -> str:
        """Why `path` may never be served whatever its content, or ''."""
        from noface_ctx.files.gate import is_secret_path

        if self.manifest is not None and self.manifest.is_forbidden(path):
            return f"forbidden by the issue manifest ({path})"
        if is_secret_path(path):
            return f"secret file ({path}): never served"
        if ".git" in path.split("/"):
            return "git internals are never served"
        return ""

    def _guard(self, path: str) -> tuple[str, Excluded | None, str | None]:
        """(refusal, size exclusion to lift, repo-relative real path or None when it does not exist)."""
        from noface_ctx.files.gate import check_path

        norm, problem = normalise_path(path)
        if problem or norm != path:
            return problem or "path is not normalised", None, None
        refusal = self._policy(path)
        if refusal:
            return refusal, None, None
        full = self.root / path
        if not os.path.lexists(full):
            return "", None, None
        try:
            real = full.resolve()
        except (OSError, RuntimeError):
            return "symlink loop", None, None
        if not real.is_relative_to(self.root):
            return "symlink leads outside the repository", None, None
        rel = real.relative_to(self.root).as_posix()
        if rel != path and rel != ".":
            refusal = self._policy(rel)
            if refusal:
                return f"symlink to {refusal}", None, None
        if real.is_dir():
            return "", None, rel
        if not real.is_file():  # a FIFO or device would block or never end
            return "not a regular file (FIFO, socket or device)", None, rel
        size_ex = None
        for candidate in dict.fromkeys((path, rel)):
            ex = check_path(self.config, candidate, self.manifest)
            if ex is not None and ex.servable_on_request:
                size_ex = ex  # only the size rule yields; the content rules still apply:
                ex = check_path(self.config, candidate, self.manifest, explicit=True)
            if ex is not None:
                return f"excluded ({ex.category}): {ex.reason}", None, rel
        return "", size_ex, rel

    # code -----------------------------------------------------------------

    def _code(self, req: Request) -> Draft:
        refusal, size_ex, rel = self._guard(req.path)
        if refusal:
            return Draft(req, "refused", refusal)
        if rel is None:
            by_name = self._by_name(req) if not req.symbol and req.start is None else None
            missing = f"no such file, and no definition named {symbol_target(req.path)}" if symbol_target(req.path) else "no such file"
            return by_name or Draft(req, "not found", missing, self._close_paths(req.path))
        full = self.root / req.path
        if full.is_dir():
            inside = [p for p in self._servable_paths() if p.startswith(req.path.rstrip("/") + "/")]
            return Draft(req, "not found", "is a directory: ask for a file in it", tuple(inside[:MAX_SUGGESTIONS]))
        try:  # bounded: a request never reads more than MAX_REQUEST_BYTES (a 50 MB file costs nothing)
            data, cut = read_head(full, MAX_REQUEST_BYTES)
        except OSError as exc:
            return Draft(req, "refused", f"cannot read: {exc.strerror or exc}")
        if cut:
            return Draft(req, "refused", f"file is over the {MAX_REQUEST_BYTES // 1_000_000} MB a request can read, "
                                         "so no request (whole, lines or definition) can serve it")
        if looks_binary(data):
            return Draft(req, "refused", "binary file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return Draft(req, "refused", "not UTF-8 text")
        secret = _secret_in(text, req.path)
        if secret:
            return Draft(req, "refused", f"contains what looks like a secret ({secret}): never served")
        return self._code_piece(req, text, capped=size_ex is not None)

    def _code_piece(self, req: Request, text: str, *, capped: bool) -> Draft:
        from noface_ctx.code.languages import fence_for, language_for_path
        from noface_ctx.code.symbols import parse_source

        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        n = len(lines)
        language = language_for_path(req.path)
        tag = fence_for(req.path, language)
        chunks: tuple[CodeChunk, ...] = ()
        if req.symbol or (n and req.start is None):
            chunks = parse_source(req.path, text, language)
        if req.symbol:
            return self._symbol_piece(req, lines, chunks, tag)
        if req.start is not None:
            if n == 0 or req.start > n:
                return Draft(req, "not found", f"line {req.start} is past the end: the file has {n} lines")
            end = min(req.end or req.start, n)
            what = f"lines {req.start}-{end}" + (f" of {n}" if end < (req.end or 0) else "")
            return Draft(req, piece=CodePiece(req, req.path, lines, req.start, end, what, tag))
        if n == 0:
            return Draft(req, "served", "empty file", piece=CodePiece(req, req.path, [""], 1, 1, WHOLE_FILE, tag))
        defs = tuple(sorted((c for c in chunks if c.symbol and c.kind not in ("block", "window")),
                            key=lambda c: (c.start_line, -c.end_line)))
        return Draft(req, piece=CodePiece(req, req.path, lines, 1, n, WHOLE_FILE, tag, defs, capped=capped))

    def _symbol_piece(self, req: Request, lines: list[str], chunks: Sequence[CodeChunk], tag: str) -> Draft:
        defs = [c for c in chunks if c.symbol and c.kind not in ("block", "window")]
        want = req.symbol
        found = (
            [c for c in defs if c.symbol == want]
            or [c for c in defs if c.symbol.endswith("." + want)]
            or [c for c in defs if c.symbol.casefold() == want.casefold()]
        )
        if not found and "." in want:
            inherited = self._inherited(req, defs, lines)
            if inherited is not None:
                return inherited
        if not found:
            names = list(dict.fromkeys(c.symbol for c in defs))
            close = difflib.get_close_matches(want, names, n=MAX_SUGGESTIONS, cutoff=0.5)
            suggestions = [f"{req.path}::{s}" for s in close] + self._symbol_elsewhere(want, req.path)
            return Draft(req, "not found", f"no definition named {want} in {req.path}", tuple(suggestions[:MAX_SUGGESTIONS]))
        found, stubs = split_overloads(lines, found)
        chunk = found[0]
        notes = [overloads_listed(want, [(req.path, c.start_line, c.end_line) for c in stubs])] if stubs else []
        if len(found) > 1:
            others = ", ".join(f"{req.path}:{c.start_line}-{c.end_line}" for c in found[1:4])
            notes.append(f"[{len(found) - 1} more definition(s) match {want}: NEED_CODE: {others}]")
        note = "\n".join(notes)
        what = f"{chunk.kind} {chunk.symbol}"
        end = min(chunk.end_line, len(lines))
        return Draft(req, piece=CodePiece(req, req.path, lines, chunk.start_line, end, what, tag, note=note))

    def _inherited(self, req: Request, defs: Sequence[CodeChunk], lines: list[str]) -> Draft | None:
        """`Class.method` defined in a base class (same file, imported, or found in the index):
        served from there with a note saying where, breadth first through the bases."""
        from noface_ctx.code.inherit import base_locations, class_bases
        from noface_ctx.code.languages import fence_for, language_for_path
        from noface_ctx.code.symbols import parse_source

        cls, _, method = req.symbol.rpartition(".")
        text = "\n".join(lines)
        queue = [(req.path, cls, text, list(defs), [cls])]
        seen = {(req.path, cls)}
        refused: list[str] = []
        while queue and len(seen) < 40:
            path, name, src, chunks, chain = queue.pop(0)
            klass = next((c for c in chunks if c.symbol == name and c.kind == "class"), None)
            if klass is None:
                continue
            header = klass.signature or (src.split("\n")[klass.start_line - 1] if src else "")
            for base in class_bases(header):
                where = base_locations(
                    base, path, src, [c.symbol for c in chunks if c.kind == "class"],
                    exists=lambda p: not self._policy(p) and (self.root / p).is_file(),
                    index_classes=lambda n: [c.path for c in self.index.find_symbol(n) if c.kind == "class" and c.symbol == n],
                )
                for bpath, bname in where:
                    if (bpath, bname) in seen:
                        continue
                    seen.add((bpath, bname))
                    if bpath == path:
                        btext, bchunks = src, chunks
                    else:
                        refusal, _ex, rel = self._guard(bpath)
                        if refusal or rel is None:
                            if refusal:
                                refused.append(f"{bpath} ({refusal})")
                            continue
                        btext = (self.root / bpath).read_bytes().decode("utf-8", "replace")
                        if _secret_in(btext, bpath):
                            refused.append(f"{bpath} (secret)")
                            continue
                        bchunks = list(parse_source(bpath, btext, language_for_path(bpath)))
                    hit = next((c for c in bchunks if c.symbol == f"{bname}.{method}"), None)
                    route = " → ".join([*chain, bname])
                    if hit is not None:
                        blines = btext.split("\n")
                        note = (f"[{req.symbol} is inherited: defined in {bname} ({bpath}:{hit.start_line}), "
                                f"via {route}]")
                        piece = CodePiece(req, bpath, blines, hit.start_line, min(hit.end_line, len(blines)),
                                          f"{hit.kind} {hit.symbol}", fence_for(bpath, language_for_path(bpath)), note=note)
                        return Draft(req, piece=piece)
                    queue.append((bpath, bname, btext, bchunks, [*chain, bname]))
        if refused:
            return Draft(req, "refused", f"{req.symbol} may be inherited from a file that is never served: {', '.join(refused[:3])}")
        return None

    def _by_name(self, req: Request) -> Draft | None:
        """A target naming a definition rather than a file (`locate_app`, `Flask.register_blueprint`):
        served from the first file that has it (inherited methods through the class's bases), with
        the other places listed; None when no definition has that name."""
        name = symbol_target(req.path)
        if not name:
            return None
        places, direct = where_defined(name, self.index.find_symbol)
        places = [(p, s) for p, s in places if not self._policy(p)]
        for i, (path, symbol) in enumerate(places):
            draft = self._code(replace(req, path=path, symbol=symbol))
            if draft.outcome == "served" and draft.piece is not None:
                rest = [f"{p}::{s}" for p, s in places[:i] + places[i + 1 :]]
                if rest and direct:
                    draft.piece.note = "\n".join(filter(None, [draft.piece.note, elsewhere_listed(name, rest)]))
                return draft
        return None

    def _symbol_elsewhere(self, name: str, path: str) -> list[str]:
        short = name.rsplit(".", 1)[-1]
        hits = []
        for c in self.index.find_symbol(name) or self.index.find_symbol(short):
            if c.path != path and not self._policy(c.path):
                hits.append(f"{c.path}::{c.symbol}")
        return hits

    def _servable_paths(self) -> list[str]:
        rf = self.repo_files
        paths = [f.path for f in rf.files] + [e.path for e in rf.excluded if e.servable_on_request]
        return sorted(p for p in paths if not self._policy(p))

    def _close_paths(self, path: str) -> tuple[str, ...]:
        pool = self._servable_paths()
        base = path.rsplit("/", 1)[-1]
        same_name = [p for p in pool if p.rsplit("/", 1)[-1] == base]
        close = difflib.get_close_matches(path, pool, n=MAX_SUGGESTIONS, cutoff=0.5)
        by_base = {p.rsplit("/", 1)[-1]: p for p in pool}
        close += [by_base[b] for b in difflib.get_close_matches(base, list(by_base), n=MAX_SUGGESTIONS, cutoff=0.6)]
        return tuple(list(dict.fromkeys(same_name + close))[:MAX_SUGGESTIONS])

    # docs -----------------------------------------------------------------

    def _doc(self, req: Request) -> Draft:
        from noface_ctx.docs.load import slugify

        docs = self.docs
        doc = docs.resolve(req.path) or docs.get(slugify(req.path))
        if doc is None:
            refusal, _ex, rel = self._guard(req.path)  # a path to a file that is not a doc
            if refusal:
                return Draft(req, "refused", refusal)
            if rel is not None and (self.root / req.path).is_file():
                return Draft(req, "not found", f"{req.path} is not a design doc: ask NEED_CODE: {req.path}")
            close = [c for c in docs.closest(req.path, MAX_SUGGESTIONS) if not self._forbidden_doc(docs.resolve(c))]
            return Draft(req, "not found", "no doc with this slug, alias or path", tuple(close))
        if not os.path.isabs(doc.path):
            refusal, _ex, _rel = self._guard(doc.path)
            if refusal:
                return Draft(req, "refused", refusal)
        elif self.manifest is not None and self.manifest.is_forbidden(doc.path):
            return Draft(req, "refused", "forbidden by the issue manifest")
        secret = _secret_in(doc.text, doc.path)
        if secret:
            return Draft(req, "refused", f"contains what looks like a secret ({secret}): never served")
        if not os.path.isabs(doc.path):
            from noface_ctx.trust.effects import weigh_docs

            held = weigh_docs(self.config, [doc]).get(doc.path)
            if held is not None and held.quarantined:
                return Draft(req, "refused", held.reasons[0])
        sections = tuple(doc.sections) or (Section(doc.slug, "", "", 0, 1, doc.text.count("\n") + 1, doc.text),)
        what = "whole doc"
        if req.heading:
            sec = docs.section(doc, req.heading)
            if sec is None:
                anchors = [s.anchor for s in doc.sections if s.anchor]
                close = difflib.get_close_matches(slugify(req.heading), anchors, n=MAX_SUGGESTIONS, cutoff=0.4)
                return Draft(req, "not found", f"no section #{req.heading} in {doc.slug}", tuple(f"{doc.slug}#{a}" for a in (close or anchors[:MAX_SUGGESTIONS])))
            sections, what = (sec,), f"section #{sec.anchor}"
        note = self.staleness_note(doc)
        return Draft(req, piece=DocPiece(req, doc, sections, note, what))

    def _forbidden_doc(self, doc: Doc | None) -> bool:
        return doc is not None and bool(self._policy(doc.path))


def _secret_in(text: str, path: str) -> str:
    """A short description of a secret found in `text`, or '' (same rules as the repository scan)."""
    from noface_ctx.files.gate import find_secret

    return find_secret(text, path) or ""
