"""Code candidates and their finished text blocks (`Form`s, most complete first): a definition in
full or cut to its head, a class as an outline, a manifest file whole, as an outline with its
relevant definitions, or as a line range; the short class outlines shown before methods whose
class is not shown; and the report rows naming each candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from noface_ctx._lexical import tokenize
from noface_ctx._tokens import count_tokens
from noface_ctx._wording import (
    FIRST_LINES,
    MODULE_LEVEL,
    OUTLINE_BODIES,
    chunk_title,
    excerpt_head,
    file_outline_head,
    head_cut,
    manifest_range_title,
    need_code,
    need_code_range,
    whole_file_head,
)
from noface_ctx._wording_code import BRIEF_TITLE, body_not_shown, code_pointer, outline_docstring
from noface_ctx.code.class_outline import class_attributes, first_sentence, render_class_outline
from noface_ctx.code.excerpts import body_indent, header_line, outline, render_block, signature_lines
from noface_ctx.code.index import CodeIndex
from noface_ctx.code.languages import CONTAINER_KINDS, fence_for
from noface_ctx.datatypes import Candidate, CodeChunk, Form
from noface_ctx.rank.code_lexical import CodeRun, file_wide
from noface_ctx.rank.code_manifest import RELEVANT_DEFS, ManifestFile

CLASS_FULL_MAX = 1500  # a class bigger than this is shown as an outline; its methods rank alone
HEAD_FROM = 2500  # a definition bigger than this also gets a shorter "head" form
HEAD_LINES = 60
# The best chunk of each of this many best-ranked files goes first, so the right file is seen
# (the gold file is among the five best in 83 % of the dev rows); the first chunk of a file ranked
# lower competes by score with every other chunk. At eight, the weak files' best definitions went
# in before the best files' stronger ones (issue 26: code tokens in gold or gold test files 28.7 ->
# 29.8 % on the 60 dev rows, 36.1 -> 37.3 % on the 22 held-out ones, every other figure the same).
FIRST_PASS_FILES = 5
MAX_CANDIDATES = 150  # ranked snippets: enough to fill 1.5x the budget, at most this many
MIN_CANDIDATES = 20
OUTLINE_MEMBERS = 8  # a class outline lists at most this many members' signatures (those that matter)
OUTLINE_TOKENS = 250  # the outline shown with a method of its class stays within this
RANKED_OUTLINE_TOKENS = 500  # ... and a ranked class too big to show whole, within this
CLASS_OUTLINE = "class-outline"  # the form label of those outlines (see `class_outlines`) ...
OUTLINE_FILES = 1  # ... offered in the best-ranked file only (a method's block still names its class)
POINTER = "pointer"  # the form label of a one-line pointer to code not shown
WEAK_EVIDENCE = 0.0  # a ranked chunk at or below this score (the pool's average) ...
WEAK_GAP = 2.0  # ... and this far under the best is offered as a pointer (a small pool has no real average)
TOP_FILES = 2  # the best-ranked files, whose further definitions need only be above WEAK_EVIDENCE ...
OUTER_EVIDENCE = 1.5  # ... while those of other files need this much
POINTER_MIN = -1.0  # ... when it scores above this; weaker ones are counted in the note closing CODE CONTEXT
LEAD_FILES = 3  # the best definition of each of this many best-ranked files is shown however it scores ...
FIRST_EVIDENCE = 0.5  # ... another file's first definition only above this (half a deviation over the pool's average)
# A definition costing more than this share of the budget (1,040 tokens at 13k) outside the best-ranked
# file comes as its class outline or a pointer: a weaker file's long function is worth a NEED_CODE line,
# not a twelfth of the prompt (issue 26: dev code tokens in gold or gold test files 30.3 -> 32.6 % replayed)
BIG_SHARE = 0.08
# A deeper page of candidates goes in as one-line pointers: below the ten best-ranked files (where the
# ranking's recall levels off, Acc@10 88 % on the dev rows) a file gives its NEED_CODE line, not its code
PAGE_FILES = 10
# Of those, the files ranked 7-10 open with their best definition's signature and docstring (`BRIEF`,
# with the NEED_CODE line for the body) and give nothing more; so does a weaker file whose best
# definition only shares words with the issue (or carries a file-wide reason) and scores under a quarter
# of the best match. Issue 26: the gold file is among the six best in 85 % of the dev rows, and such
# definitions held about 27k code tokens outside gold files against 1k in them and no gold function.
CODE_FILES = 6
SHARE_OF_BEST = 0.25
BRIEF = "brief"  # the form label of a definition shown as its signature and docstring


class ChunkRenderer:
    """Turns chunk ids and files into finished text blocks."""

    def __init__(self, index: CodeIndex, terms: frozenset[str] = frozenset()) -> None:
        self.index = index
        self.terms = terms  # the words: which class attributes an outline explains

    def lines(self, path: str) -> list[str]:
        """The file's lines (shared: do not modify)."""
        return self.index.file_lines(path)

    def context(self, i: int) -> list[tuple[int, str]]:
        """Header lines of the definitions enclosing chunk `i`, outermost first."""
        path, symbol = self.index.path_of(i), self.index.symbol(i)
        if "." not in symbol:
            return []
        start, end = self.index.lines(i)
        ids = self.index.chunk_ids(path)
        symbols = self.index.symbols()
        spans = self.index.line_spans()[ids.start : ids.stop].tolist()
        out = []
        for j, (s, e) in zip(ids, spans, strict=False):
            other = symbols[j]
            if j != i and other and symbol.startswith(other + ".") and s <= start and end <= e:
                out.append(header_line(self.lines(path), s))
        return sorted(set(out))

    def title(self, i: int) -> str:
        """`kind symbol`, with the enclosing definition when there is one."""
        kind, symbol = self.index.kind(i), self.index.symbol(i)
        if not symbol:
            return MODULE_LEVEL if kind == "block" else ""
        parent = self.index.parent(i)
        return chunk_title(kind, symbol, parent if parent and self.context(i) else "")

    def snippet(self, i: int, prefer: Sequence[str] = ()) -> list[tuple[str, str]]:
        """(label, text) forms of one ranked chunk, most complete first. A class bigger than
        `CLASS_FULL_MAX` comes as its outline only (`class_outline`, `prefer` naming the members
        that matter, best first); a smaller one also has its outline as a second form."""
        path = self.index.path_of(i)
        start, end = self.index.lines(i)
        lines = self.lines(path)
        fence = fence_for(path, self.index.language_of(path))
        ctx = self.context(i)
        full = render_block(path, lines, start, end, title=self.title(i), fence=fence, context=ctx)
        kind = self.index.kind(i)
        if kind in CONTAINER_KINDS and self.index.symbol(i):
            full_tokens = count_tokens(full)
            short = self.class_outline(i, prefer, limit=min(RANKED_OUTLINE_TOKENS, full_tokens - 1))
            if full_tokens <= CLASS_FULL_MAX or short is None:
                return [("full", full), *([("outline", short)] if short else [])]
            return [("outline", short)]
        forms = [("full", full)]
        if end - start + 1 > HEAD_LINES and count_tokens(full) > HEAD_FROM:
            cut = start + HEAD_LINES - 1
            body = [*lines[start - 1 : cut], head_cut(path, cut + 1, end)]
            forms.append(("head", render_block(path, lines, start, end, title=self.title(i) + FIRST_LINES, fence=fence, context=ctx, body=body)))
        return forms

    def brief(self, i: int) -> str:
        """Chunk `i` as its signature and the first sentence of its docstring, with the line fetching the body."""
        path, row = self.index.path_of(i), self.index.row(i)
        lines = self.lines(path)
        chunk = CodeChunk(path, row.symbol, row.kind, row.start_line, row.end_line, row.signature, row.docstring)
        body = signature_lines(lines, chunk)
        head_end = row.start_line + len(body) - 1
        indent = body_indent(lines, chunk)
        if row.docstring.strip():
            body.append(indent + outline_docstring(first_sentence(row.docstring)))
        if row.end_line > head_end:
            body.append(indent + body_not_shown(head_end + 1, row.end_line, need_code(path, row.symbol)))
        return render_block(path, lines, row.start_line, row.end_line, title=self.title(i) + BRIEF_TITLE,
                            fence=fence_for(path, self.index.language_of(path)), context=self.context(i), body=body)

    def class_outline(self, i: int, prefer: Sequence[str] = (), *, limit: int = OUTLINE_TOKENS) -> str | None:
        """An outline of container chunk `i` (`noface_ctx.code.class_outline`): its signature, the
        first paragraph of its docstring, its class attributes with their values, the signatures
        of the members named in `prefer` (best first, at most `OUTLINE_MEMBERS`) and the others
        folded to a count with a `NEED_CODE` line; within `limit` tokens and never as big as the
        class itself. None without members or when it would not be smaller."""
        path, symbol = self.index.path_of(i), self.index.symbol(i)
        start, end = self.index.lines(i)
        chunks = self.index.chunks_for(path)
        own = [c for c in chunks if c.symbol == symbol and (c.start_line, c.end_line) == (start, end)]
        kids = sorted((c for c in chunks
                       if c.parent == symbol and c.symbol and c.symbol != symbol and c.kind not in ("block", "window")
                       and start <= c.start_line and c.end_line <= end), key=lambda c: (c.start_line, -c.end_line))
        if not own or not kids:
            return None
        lines = self.lines(path)
        whole = count_tokens("\n".join(lines[start - 1 : end]))
        by_symbol = {k.symbol: k for k in kids}
        wanted = [by_symbol[p] for p in dict.fromkeys(prefer) if p in by_symbol][:OUTLINE_MEMBERS]
        rows = [(k.symbol, outline([own[0], k], path=path).split("\n")[2]) for k in wanted]
        attrs = class_attributes(lines, own[0], kids)
        touched = {a.name for a in attrs if self.terms and (set(tokenize(a.name)) & self.terms)}
        title = excerpt_head(path, start, end, f"{self.index.kind(i)} {symbol}{OUTLINE_BODIES}")
        return render_class_outline(title, own[0], attrs, rows, members=[k.symbol for k in kids], touched=touched,
                                    fetch=lambda sym: need_code(path, sym), limit=min(limit, whole - 1),
                                    count=count_tokens)

    def pointer(self, i: int) -> str:
        """One line naming chunk `i` without its code: path, lines, signature, and its `NEED_CODE` line."""
        path, symbol = self.index.path_of(i), self.index.symbol(i)
        start, end = self.index.lines(i)
        row = self.index.row(i)
        sig = " ".join(part.strip() for part in (row.signature or "").split("\n") if part.strip())
        if len(sig) > 160:
            sig = sig[:157] + "..."
        what = sig or self.title(i)
        request = need_code(path, symbol) if symbol else need_code_range(path, start, end)
        return code_pointer(path, start, end, what, request)

    def whole(self, path: str) -> str:
        """The whole file in one fenced block."""
        text = self.index.file_text(path).rstrip("\n")
        n = text.count("\n") + 1
        return f"{whole_file_head(path, n)}\n```{fence_for(path, self.index.language_of(path))}\n{text}\n```"

    def outline(self, path: str) -> str:
        """The file's definitions (signatures and line ranges), bodies omitted."""
        chunks = self.index.chunks_for(path)
        n = self.index.file_text(path).rstrip("\n").count("\n") + 1
        body = outline(chunks, path=path, total_lines=n)
        note = file_outline_head(path)
        return f"{note}\n```text\n{body}\n```"


def required_candidates(
    r: CodeRun, rd: ChunkRenderer, entries: list[ManifestFile], score: dict[int, float]
) -> tuple[list[Candidate], set[int]]:
    """One required candidate per manifest entry; returns the chunk ids its forms show in full."""
    out: list[Candidate] = []
    shown: set[int] = set()
    n_primary = max(1, sum(1 for x in entries if x.role == "primary"))
    ctx = r.config.context
    whole_limit = ctx.budget_tokens * (1.0 - ctx.docs_share) / n_primary
    for x in entries:
        path, e = x.path, x.entry
        if e.start is not None:
            end = e.end if e.end is not None else e.start
            lines = rd.lines(path)
            end = min(end, len(lines))
            text = render_block(path, lines, e.start, end, title=manifest_range_title(x.role), fence=fence_for(path, r.index.language_of(path)))
            forms = [("range", text), ("outline", rd.outline(path))]
            out.append(_candidate(path, "", f"{path}:{e.start}-{end}", forms, 100.0, need_code_range(path, e.start, end), e.start, end, "range", (f"manifest {x.role}",), required=True))
            continue
        relevant = _relevant_defs(r, path, score)
        shown.update(relevant)
        outline_text = rd.outline(path)
        defs_text = "\n\n".join([outline_text] + [rd.snippet(i)[0][1] for i in relevant])
        forms = [("outline+defs", defs_text), ("outline", outline_text)] if relevant else [("outline", outline_text)]
        if x.role == "primary" and r.repo_files.get(path) is not None:  # never a sized-out file whole
            whole = rd.whole(path)
            if count_tokens(whole) <= whole_limit:
                forms.insert(0, ("whole", whole))
        out.append(_candidate(path, "", path, forms, 100.0, need_code(path), 0, 0, "file", (f"manifest {x.role}",), required=True))
    return out, shown


def _relevant_defs(r: CodeRun, path: str, score: dict[int, float]) -> list[int]:
    ids = [i for i in r.index.chunk_ids(path) if i in score and r.index.symbol(i) and r.index.kind(i) not in CONTAINER_KINDS]
    ids.sort(key=lambda i: -score[i])
    if not ids:
        return []
    best = score[ids[0]]
    return sorted(i for i in ids[:RELEVANT_DEFS] if score[i] >= best - 1.0 and score[i] > 0)


def snippet_candidates(
    r: CodeRun,
    rd: ChunkRenderer,
    ranked_ids: list[int],
    score: dict[int, float],
    files: list[str],
    shown: set[int],
    detail: dict[int, dict[str, float]],
    reasons: dict[int, list[str]],
    lifted: dict[int, float] | None = None,
) -> tuple[list[Candidate], int]:
    """Ranked chunks as candidates, and how many weak ones were not offered: first the best chunk of each of the top files (so the
    right file is seen), then the rest by score, until 1.5x the budget is offered.

    Budget follows evidence, file by file: a file's first chunk is offered as code when it leads
    one of the `LEAD_FILES` best-ranked files or scores above `FIRST_EVIDENCE` (a file the issue
    matches only weakly gets a pointer, not code, even when budget is left: a prompt may stay
    shorter than its budget); it comes as its signature and docstring (`BRIEF`) in a file ranked
    below the `CODE_FILES` best, or when it has no evidence of its own (only word overlap or a
    reason naming its whole file) and scores under `SHARE_OF_BEST` of the best chunk. A further
    chunk of one of the `CODE_FILES` best files only when its evidence is not weak: above
    `WEAK_EVIDENCE` (the pool's average) in the `TOP_FILES` best-ranked files, above
    `OUTER_EVIDENCE` in the others; in the `LEAD_FILES` best, anything within `WEAK_GAP` of the best
    chunk counts too (a small or weakly matched pool). Outside the best-ranked file that evidence
    is the definition's own: a file whose chunks share only words with the issue (no name, path,
    frame, line, message or call link: no `reasons`) gives its first definition alone, a caller or
    callee lifted next to a best match (`lifted`: its score before the lift) is judged by its own
    score, and its module-level code (imports, constants) is not offered unless the issue points
    at it; a file ranked below the `PAGE_FILES` best gives pointers only; and a definition costing
    more than `BIG_SHARE` of the budget comes as its class outline or a pointer. The others become
    one-line pointers (`POINTER`: path, lines, signature and the `NEED_CODE` line) when they name a
    definition and score above `POINTER_MIN` or are their file's first, and are not offered
    otherwise (counted, for the note closing CODE CONTEXT). A class outline lists the members that
    are not weak."""
    file_rank = {p: n for n, p in enumerate(files)}
    usable = [i for i in ranked_ids if score[i] > -1e8 and i not in shown]
    # another file's module-level code (imports, constants) is not offered unless the issue points at it
    other = [i for i in usable if r.index.kind(i) == "block" and file_rank.get(r.index.path_of(i), len(files)) > 0
             and all(file_wide(w) for w in reasons.get(i, ()))]
    usable = [i for i in usable if i not in frozenset(other)]
    best_of: dict[str, int] = {}
    for i in usable:
        best_of.setdefault(r.index.path_of(i), i)
    lead = [best_of[p] for p in files[:FIRST_PASS_FILES] if p in best_of]
    led = set(lead)
    order = lead + sorted((i for i in usable if i not in led), key=lambda i: -score[i])
    top = max((score[i] for i in usable), default=0.0)
    weak = min(WEAK_EVIDENCE, top - WEAK_GAP)
    members: dict[tuple[str, str], list[str]] = {}  # a class's members that matter, best first
    for i in usable:
        owner = r.index.parent(i)
        if owner and score[i] > weak:
            members.setdefault((r.index.path_of(i), owner), []).append(r.index.symbol(i))
    named = {r.index.path_of(i) for i in usable if reasons.get(i)}  # files with evidence besides word overlap
    out: list[Candidate] = []
    unoffered = len(other)
    seen: set[str] = set()
    room = 1.5 * r.config.context.budget_tokens
    big = BIG_SHARE * r.config.context.budget_tokens
    for i in order[:MAX_CANDIDATES]:
        if len(out) >= MIN_CANDIDATES and room <= 0:
            break
        path = r.index.path_of(i)
        start, end = r.index.lines(i)
        symbol = r.index.symbol(i)
        title = f"{r.index.kind(i)} {symbol}" if symbol else f"{path}:{start}-{end}"
        why = tuple(dict.fromkeys(reasons.get(i, ())))
        near_top = file_rank.get(path, len(files))
        first = path not in seen
        seen.add(path)
        if first:  # a file's context starts only with evidence: near the top, or a good match
            strong = (i in led and near_top < LEAD_FILES) or score[i] > FIRST_EVIDENCE
            # ... and opens with a signature only on the second page, or on words alone well under the best
            brief = near_top >= CODE_FILES or (near_top > 0 and all(file_wide(w) for w in why) and score[i] < SHARE_OF_BEST * top)
        else:  # further definitions: in the best file above its average (or near its best), elsewhere on their own
            own = lifted.get(i, score[i]) if lifted and near_top > 0 else score[i]
            bar = WEAK_EVIDENCE if near_top < TOP_FILES else OUTER_EVIDENCE
            bar = min(bar, top - WEAK_GAP) if near_top < LEAD_FILES else bar  # near the best counts in the lead files
            strong = near_top < CODE_FILES and (near_top == 0 or path in named) and own > bar
            brief = False
        if strong and near_top < PAGE_FILES:
            forms = rd.snippet(i, members.get((path, symbol), ()))
            if brief:
                short = rd.brief(i) if symbol else rd.pointer(i)
                forms = [(BRIEF if symbol else POINTER, short)] if count_tokens(short) < count_tokens(forms[0][1]) else forms
            if near_top > 0 and count_tokens(forms[0][1]) > big:  # costly, in a weaker file: its outline or a pointer
                forms = [f for f in forms[1:] if f[0] == "outline"] or [(POINTER, rd.pointer(i))]
        elif (first or score[i] > POINTER_MIN) and symbol:
            forms = [(POINTER, rd.pointer(i))]
        else:  # too weak, or nothing to name: not offered
            unoffered += 1
            continue
        cand = _candidate(path, symbol, title, forms, score[i], need_code_range(path, start, end), start, end, r.index.kind(i), why)
        out.append(replace(cand, scores=detail.get(i, {})))
        room -= cand.forms[0].tokens
    return out, unoffered


def class_outlines(r: CodeRun, rd: ChunkRenderer, candidates: Sequence[Candidate], files: Sequence[str]) -> list[Candidate]:
    """One `CLASS_OUTLINE` candidate per class some ranked method of `candidates` belongs to, in
    the `OUTLINE_FILES` best of the ranked `files` (context a weaker file has not earned),
    scored as its best method, listing its ranked members first. The packer shows one before
    the first method of its class it includes, unless the class's own block (or its file's
    outline) is shown."""
    best = set(files[:OUTLINE_FILES])
    members: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates:
        owner = c.ref.rpartition(".")[0]
        if not c.required and owner and c.path in best:
            members.setdefault((c.path, owner), []).append(c)
    out: list[Candidate] = []
    for (path, owner), shown in members.items():
        ids = [i for i in r.index.chunk_ids(path)
               if r.index.symbol(i) == owner and r.index.kind(i) in CONTAINER_KINDS and _inside(r.index.lines(i), shown[0])]
        text = rd.class_outline(ids[0], [c.ref for c in shown]) if ids else None
        if text is None:
            continue
        start, end = r.index.lines(ids[0])
        kind = r.index.kind(ids[0])
        why = (f"outline of `{owner}`, whose members are shown",)
        out.append(_candidate(path, owner, f"{kind} {owner}", [(CLASS_OUTLINE, text)], shown[0].score,
                              need_code_range(path, start, end), start, end, kind, why))
    return out


def _inside(span: tuple[int, int], c: Candidate) -> bool:
    return span[0] <= c.start_line and c.end_line <= span[1]


def _candidate(
    path: str,
    ref: str,
    title: str,
    forms: list[tuple[str, str]],
    score: float,
    request: str,
    start: int,
    end: int,
    kind: str,
    reasons: tuple[str, ...],
    *,
    required: bool = False,
) -> Candidate:
    return Candidate(
        kind="code",
        path=path,
        ref=ref,
        title=title,
        forms=tuple(Form(label=label, text=text, tokens=count_tokens(text)) for label, text in forms),
        score=float(score),
        request=request,
        reasons=tuple(reasons),
        start_line=start,
        end_line=end,
        symbol_kind=kind,
        required=required,
    )
