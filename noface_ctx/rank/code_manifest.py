"""The issue's manifest in code ranking: its entries resolved to indexed files (each becomes a
required candidate), boosts for the files of a large manifest directory, and boosts for direct
callers and callees of the primary files' best definitions.
"""

from __future__ import annotations

from dataclasses import dataclass

from noface_ctx.datatypes import ManifestEntry
from noface_ctx.rank.code_lexical import ChunkScores, CodeRun

MAX_DIR_FILES = 8  # a manifest directory with more files only boosts them
RELEVANT_DEFS = 3  # definitions shown in full next to a manifest file's outline
B_NEIGHBOUR = 0.6  # a direct caller or callee of a manifest definition
B_MANIFEST_DIR = 1.0  # a file under a manifest directory entry


@dataclass(slots=True)
class ManifestFile:
    """One indexed file a manifest entry names, with its role."""

    role: str  # "primary" | "read"
    path: str
    entry: ManifestEntry


def manifest_files(r: CodeRun, s: ChunkScores) -> tuple[list[ManifestFile], list[int]]:
    """Manifest entries resolved to indexed files, and the chunk ids that must join the pool;
    boosts for big directories and neighbours."""
    m = r.manifest
    if m is None or m.empty:
        return [], []
    entries: list[ManifestFile] = []
    paths = r.index.paths()
    for role, group in (("primary", m.primary), ("read", m.read)):
        for e in group:
            if e.is_dir:
                under = [p for p in paths if e.matches(p) and r.allowed[r.file_no[p]]]
                if len(under) > MAX_DIR_FILES:
                    for p in under:
                        s.add(r.index.chunk_ids(p), B_MANIFEST_DIR, f"under manifest {role} `{e.path}`")
                    r.notes.append(f"manifest {role} `{e.path}` holds {len(under)} files: ranked, not all included")
                    continue
                entries += [ManifestFile(role, p, ManifestEntry(p)) for p in under]
            elif e.path in r.file_no and r.allowed[r.file_no[e.path]]:
                entries.append(ManifestFile(role, e.path, e))
            elif m.is_forbidden(e.path) or r.repo_files.exclusion(e.path) is not None:
                ex = r.repo_files.exclusion(e.path)
                r.warnings.append(f"manifest {role} `{e.path}` is excluded ({ex.reason if ex else 'forbidden'})")
            elif role == "primary":
                r.notes.append(f"manifest primary `{e.path}` does not exist yet or has no code")
    entries = _first_of_each(entries)
    extra = [i for x in entries for i in r.index.chunk_ids(x.path)]
    extra += _neighbours(r, s, [x for x in entries if x.role == "primary"])
    return entries, extra


def _first_of_each(entries: list[ManifestFile]) -> list[ManifestFile]:
    """Entries without repeats of the same path and entry (the first role wins)."""
    seen: set[str] = set()
    out = []
    for x in entries:
        key = x.path + str(x.entry)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def _neighbours(r: CodeRun, s: ChunkScores, primary: list[ManifestFile]) -> list[int]:
    """Boost direct callees and callers of the best definitions in the primary files."""
    first = s.bm25 + s.boost
    out: list[int] = []
    for x in primary:
        ids = [i for i in r.index.chunk_ids(x.path) if r.index.symbol(i)]
        ids.sort(key=lambda i: -first[i])
        for i in ids[:RELEVANT_DEFS]:
            name = r.index.symbol(i)
            for ref in r.index.row(i).references:
                callee = [c for c in r.index.symbol_ids(ref) if r.index.path_of(c) != x.path]
                if 0 < len(callee) <= 5:
                    s.add(callee, B_NEIGHBOUR, f"called by `{name}`")
                    out += callee
            callers = [c for c in r.index.callers_of(name) if r.index.path_of(c) != x.path]
            if 0 < len(callers) <= 30:
                s.add(callers, B_NEIGHBOUR, f"calls `{name}`")
                out += callers
    return out
