"""Freshness on real clones with history: false alarms, mutation recall, mined history recall,
time and peak memory.

    python benchmarks/freshness.py --repo NAME=CLONE --scratch DIR [--repo ...] [--mutations 20]
        [--mined 15] [--seed 7] [--sample 30] [--json OUT]

`CLONE` is a clone with full history (never modified); every run works in `DIR/<NAME>`, a
scratch clone at the same commit (made once with `git clone`), with caches in fresh temp dirs.

- **false alarms**: `check-docs` on the scratch clone at the unmodified commit: errors and
  warnings per 100 judged docs, errors in records (must be 0), and `--sample` findings drawn
  with the seed, printed for a person to check against the doc and the code.
- **time / memory**: that run cold (empty cache) and warm (again), each in a fresh process
  (wall time and peak RSS); and a new issue's freshness stage: `assess_docs` of 30 docs
  sampled with the seed, in a fresh process on the warm cache (how `build_prompt` uses it).
- **mutation recall**: `--mutations` Python symbols (functions, classes, methods, defined once
  outside tests) that non-record docs name are sampled (a doc names one when it writes it as a
  strict reference: not a plain one-hump word such as ``Attention``, which is never reported
  when gone, nor a module path such as `sphinx.ext.ifconfig`, whose file the mutation keeps); half are renamed (`name` → `name_v2`
  everywhere in the code) and half deleted (the definition removed, every code line using the
  name dropped) in one scratch commit. "Code" is every tracked file but docs: templates and
  scripts that use the name change with it, as in a real rename. Recall: the share of (doc, symbol) pairs where the doc
  gets a `stale-ref` naming the symbol; rename accuracy: the share of renamed pairs whose
  finding suggests `name_v2` (as the whole suggestion or one dotted part of it:
  `Response.status_code` → `Response_v2.status_code`).
- **mined history** (`--mined` cases of each kind, newest first, from the last `--max-commits`
  first-parent commits touching a doc): names a removed line of a non-record doc writes
  (backticks, Sphinx roles, API directives) that the doc's new version no longer names.
  *Fixed later*: the name was gone from the code (no word of any non-doc file) at the commit
  before the fix and defined in the Python code at the doc's previous commit; at that parent,
  is the doc flagged naming it? *Fixed in the same commit*: the commit removed the name from
  the code (defined at its parent, no word of any non-doc file after it) and from the doc;
  replayed without its doc changes (`replay_code_only`), is the doc flagged, and is a
  suggested new name one the fix wrote into the doc? `--only mined` runs this part alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_RUN = r"""
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
t = time.perf_counter()
mode = sys.argv[1]
if mode == "check":
    from noface_ctx.freshness.check import check_docs
    report = check_docs(sys.argv[3:], repo=sys.argv[2])
    out = {{"report": report.to_dict()}}
elif mode == "doc":  # what check-docs reports for one doc, judging only that doc
    from noface_ctx.freshness.check import doc_findings
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.freshness.assess import assess_docs
    config = load_config(sys.argv[2])
    files = scan_repo(config)
    docs = [d for d in load_docs(config, files).docs if d.path == sys.argv[3]]
    found = []
    if docs:
        fresh = assess_docs(docs, files, None, config)
        found = [f.to_dict() for f in doc_findings(fresh.details[docs[0].slug], config)]
    out = {{"report": {{"findings": found, "docs": len(docs)}}}}
else:
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.freshness.assess import assess_docs
    import random
    config = load_config(sys.argv[2])
    files = scan_repo(config)
    docs = load_docs(config, files)
    t1 = time.perf_counter()
    slugs = [d.slug for d in docs.docs]
    random.Random(int(sys.argv[3])).shuffle(slugs)
    fresh = assess_docs(docs.docs, files, None, config, slugs[:30])
    out = {{"freshness_seconds": time.perf_counter() - t1, "torch": "torch" in sys.modules}}
out["seconds"] = time.perf_counter() - t
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, errors="replace")
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def run(mode: str, repo: Path, cache: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "NOFACE_CTX_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-c", _RUN.format(root=str(ROOT)), mode, str(repo), *args],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def scratch_clone(source: Path, dest: Path) -> str:
    head = git(source, "rev-parse", "HEAD").strip()
    if not dest.exists():
        subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True)
    git(dest, "checkout", "-q", "--detach", "-f", head)
    git(dest, "reset", "-q", "--hard", head)
    git(dest, "clean", "-qfdx")
    return head


def per_100(n: int, docs: int) -> float:
    return round(100.0 * n / docs, 2) if docs else 0.0


# --------------------------------------------------------------------------- mutations


def pick_symbols(repo: Path, n: int, rng: random.Random) -> dict[str, tuple[str, list[str]]]:
    """name -> (defining file, [docs naming it]) for Python symbols defined once outside tests."""
    sys.path.insert(0, str(ROOT))
    from noface_ctx._filetypes import is_test_path as _is_test  # private: the tool's own test-path rule
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.docs.markup import is_record
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.freshness.codebase import Codebase
    from noface_ctx.freshness.references import EXTERNAL_NAMES
    from noface_ctx.freshness.scan import scan_doc as _scan

    config = load_config(repo)
    files = scan_repo(config)
    from noface_ctx.docs.markup import doc_stem
    from noface_ctx.freshness import assess as freshness

    never = getattr(freshness, "DEPRECATION_DOCS", ())  # lists of deprecated APIs: never judged, like records
    docs = [d for d in load_docs(config, files).docs
            if not is_record(d.path, config.context.record_dirs) and doc_stem(d.path) not in never]
    code = Codebase(files, None, [d.path for d in docs])
    named: dict[str, set[str]] = {}
    for doc in docs:
        scan = _scan(doc, code)
        for ref, paths in scan.symbols:
            module = ref.name.replace(".", "/")
            if not ref.strict or any(p in (module + ".py", module + "/__init__.py") for p in paths):
                continue  # a plain word (``Attention``, never reported when gone) or a module that stays
            name = ref.name.rsplit(".", 1)[-1]
            named.setdefault(name, set()).add(doc.path)
    pool = {}
    for name, by in named.items():
        defs = {d.path for d in code.symbols.find_symbol(name)}
        if len(defs) != 1 or len(name) < 6 or name in EXTERNAL_NAMES or name.startswith("_") or name in code.top:
            continue  # (a top-level package's name, `django`: renaming it renames every import)
        path = next(iter(defs))
        if path.endswith(".py") and not _is_test(path):
            pool[name] = (path, sorted(by))
    names = sorted(pool)
    rng.shuffle(names)
    return {name: pool[name] for name in names[:n]}


def mutate(repo: Path, symbols: dict[str, tuple[str, list[str]]]) -> dict[str, str]:
    """Rename the first half (`name_v2`), delete the rest; one commit. Returns name -> kind."""
    kinds = {}
    docs = (".rst", ".md", ".txt", ".adoc", ".markdown")  # every other tracked text file is code: templates too
    code_files = [p for p in git(repo, "ls-files").split("\n") if p and not p.lower().endswith(docs)]
    names = list(symbols)
    for i, name in enumerate(names):
        kinds[name] = "rename" if i < (len(names) + 1) // 2 else "delete"
    word = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
    changed: list[str] = []
    for rel in code_files:
        path = repo / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if "\0" in text:
            continue
        new = text
        for name, kind in kinds.items():
            if name not in new:
                continue
            if kind == "rename":
                new = word[name].sub(name + "_v2", new)
            else:
                if rel == symbols[name][0]:
                    new = _drop_definition(new, name)
                new = "\n".join(ln for ln in new.split("\n") if not word[name].search(ln))
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(rel)
    git(repo, "add", "--", *changed)  # only these: `commit -a` trips over files with a working-tree encoding
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qm",
        f"benchmark: rename/delete {len(names)} symbols")
    return kinds


def _drop_definition(text: str, name: str) -> str:
    lines = text.split("\n")
    pat = re.compile(rf"^(\s*)(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b")
    for i, ln in enumerate(lines):
        m = pat.match(ln)
        if not m:
            continue
        indent = len(m.group(1))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
                                  or lines[j].strip()[0] in ")]}"):
            j += 1
        start = i
        while start > 0 and lines[start - 1].strip().startswith("@"):
            start -= 1
        return "\n".join(lines[:start] + lines[j:])
    return text


# --------------------------------------------------------------------------- mined history

_SPAN_REF = re.compile(r"(?::[\w:+-]+:)?(`+)([^`\n]+?)\1")  # ``name``, `name()`, :role:`~pkg.name`, :role:`t <x>`
_DIRECTIVE_REF = re.compile(r"^\s*\.\.\s+(?:py:)?(?:auto)?(?:function|class|method|attribute|module|exception|"
                            r"data|decorator)::\s+([A-Za-z_][\w.]*)")
_NAME = re.compile(r"[A-Za-z_][\w.]*")
_DOC_SPECS = ("*.rst", "*.md", "*.txt")
_NOT_DOCS = tuple(f":(exclude)*.{e}" for e in ("rst", "md", "txt", "adoc", "markdown"))


def doc_line_names(line: str) -> dict[str, str]:
    """Code names a doc line writes: name -> "span" (backticks, Sphinx roles) or "directive"."""
    out: dict[str, str] = {}
    m = _DIRECTIVE_REF.match(line)
    if m:
        out[m.group(1)] = "directive"
    for m in _SPAN_REF.finditer(line):
        text = m.group(2).strip()
        target = re.match(r"^[^<>]*<([^<>]+)>$", text)
        text = (target.group(1) if target else text).lstrip("~!.").removesuffix("()")
        if _NAME.fullmatch(text) and not text.endswith("."):
            out.setdefault(text, "span")
    return out


def _mine_shape(bare: str) -> bool:
    """A name shaped like code (`snake_case`, `camelCase`, `PascalCase`), not a stdlib/builtin name."""
    from noface_ctx.freshness.references import EXTERNAL_NAMES

    return len(bare) >= 4 and bare not in EXTERNAL_NAMES and bool(
        re.search(r"[a-z0-9]_[a-z0-9]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]", bare))


def words_in_code(repo: Path, rev: str, words: set[str]) -> set[str]:
    """Which of `words` occur as a word in a non-doc file at `rev` (what the tool resolves against)."""
    if not words:
        return set()
    args = ["grep", "-I", "-h", "-o", "-w", "-F"] + [a for w in sorted(words) for a in ("-e", w)]
    out = git(repo, *args, rev, "--", ".", *_NOT_DOCS, check=False)
    return {w for w in out.split("\n") if w in words}


def defined_in_code(repo: Path, rev: str, names: set[str]) -> set[str]:
    """Which `names` are defined at `rev` in Python code (def, class, an assignment at line
    start) or are a module there (`name.py`, a package folder)."""
    if not names:
        return set()
    alt = "|".join(sorted(names))
    out = git(repo, "grep", "-h", "-o", "-E",
              "-e", rf"^[[:space:]]*(async[[:space:]]+)?(def|class)[[:space:]]+({alt})([^[:alnum:]_]|$)",
              "-e", rf"^[[:space:]]*({alt})[[:space:]]*(:[^=]*)?=[^=]",
              rev, "--", "*.py", "*.pyi", check=False)
    found = {m.group(0) for line in out.split("\n") for m in _NAME.finditer(line)} & names
    rest = names - found
    if rest:
        for path in git(repo, "ls-tree", "-r", "--name-only", rev, check=False).split("\n"):
            parts = path.split("/")
            stems = set(parts[:-1]) | ({parts[-1][:-3]} if parts[-1].endswith(".py") else set())
            found |= rest & stems
    return found


def mine(repo: Path, limit: int, max_commits: int = 5000) -> dict[str, Any]:
    """Real removals and renames a doc caught up with, newest first (see the module docstring).

    From the first-parent commits touching a non-record doc (`--max-commits`), every name a
    removed doc line writes (backticks, a Sphinx role or an API directive) that the doc's new
    version no longer names at all:

    - **fixed later** (`cases`): at the commit before the fix the name is no word of any non-doc
      file, and at the doc's previous commit it was defined in the Python code (a def, class,
      assignment or module): the doc named a symbol that was removed or renamed since.
    - **fixed in the same commit** (`same_commit`): the name was defined in the Python code at
      the commit's parent and is no word of any non-doc file after it: the commit removed or
      renamed it and fixed the doc. Replayed without its doc changes, the doc should be flagged.
      `added` are the names the commit wrote into that doc instead (the rename, if one).

    `counts`: how many names each step kept.
    """
    sys.path.insert(0, str(ROOT))
    from noface_ctx.docs.markup import doc_stem
    from noface_ctx.docs.markup import is_record as _is_record
    from noface_ctx.freshness import assess as freshness

    def is_record(path: str) -> bool:  # what the tool never judges: records, lists of deprecated APIs
        return _is_record(path) or doc_stem(path) in getattr(freshness, "DEPRECATION_DOCS", ())

    log = git(repo, "log", "--first-parent", "-m", f"-n{max_commits}", "--format=@@%H", "-U0", "--no-color",
              "--no-renames", "--", *_DOC_SPECS)
    sha, path = "", ""
    removed: dict[tuple[str, str], dict[str, str]] = {}
    added: dict[tuple[str, str], set[str]] = {}
    for line in log.split("\n"):
        if line.startswith("@@") and not line.startswith("@@ "):
            sha = line[2:].strip()
        elif line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("-") and not line.startswith("---") and path and not is_record(path):
            for name, kind in doc_line_names(line[1:]).items():
                removed.setdefault((sha, path), {}).setdefault(name, kind)
        elif line.startswith("+") and not line.startswith("+++") and path:
            added.setdefault((sha, path), set()).update(n.rsplit(".", 1)[-1] for n in doc_line_names(line[1:]))
    counts = {"doc_commits": len({s for s, _ in removed}), "removed_names": 0, "no_longer_in_doc": 0,
              "fixed_later": {"gone_at_parent": 0, "defined_at_doc_previous_commit": 0},
              "same_commit": {"defined_at_parent": 0, "gone_after": 0}}
    by_sha: dict[str, list[tuple[str, str, str]]] = {}
    for (sha, path), names in removed.items():
        for name, kind in names.items():
            counts["removed_names"] += 1
            bare = name.rsplit(".", 1)[-1]
            if bare not in added.get((sha, path), set()) and _mine_shape(bare):
                by_sha.setdefault(sha, []).append((path, name, kind))
    cases: list[tuple[str, str, str, str]] = []
    same: list[tuple[str, str, str, str, list[str]]] = []
    for sha in dict.fromkeys(s for s, _ in removed):  # newest first
        if sha not in by_sha:
            continue
        if len(cases) >= limit and len(same) >= limit:
            break
        todo = []
        texts: dict[str, str] = {}
        for path, name, kind in by_sha[sha]:
            if path not in texts:
                texts[path] = git(repo, "show", f"{sha}:{path}", check=False)
            if not re.search(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b", texts[path]):
                todo.append((path, name, kind))
        counts["no_longer_in_doc"] += len(todo)
        if not todo:
            continue
        bares = {n.rsplit(".", 1)[-1] for _, n, _ in todo}
        at_parent = words_in_code(repo, f"{sha}^", bares)
        later = [t for t in todo if t[1].rsplit(".", 1)[-1] not in at_parent]
        counts["fixed_later"]["gone_at_parent"] += len(later)
        if len(cases) < limit:
            by_before: dict[str, list[tuple[str, str, str]]] = {}
            for path, name, kind in later:
                before = git(repo, "log", "--first-parent", "-n1", "--format=%H", f"{sha}^", "--", path,
                             check=False).strip()
                if before:
                    by_before.setdefault(before, []).append((path, name, kind))
            for before, items in by_before.items():
                defined = defined_in_code(repo, before, {n.rsplit(".", 1)[-1] for _, n, _ in items})
                for path, name, kind in items:
                    if name.rsplit(".", 1)[-1] in defined:
                        counts["fixed_later"]["defined_at_doc_previous_commit"] += 1
                        cases.append((sha, path, name, kind))
        now = [t for t in todo if t[1].rsplit(".", 1)[-1] in at_parent]
        if now and len(same) < limit:
            defined = defined_in_code(repo, f"{sha}^", {n.rsplit(".", 1)[-1] for _, n, _ in now})
            now = [t for t in now if t[1].rsplit(".", 1)[-1] in defined]
            counts["same_commit"]["defined_at_parent"] += len(now)
            after = words_in_code(repo, sha, {n.rsplit(".", 1)[-1] for _, n, _ in now})
            for path, name, kind in now:
                if name.rsplit(".", 1)[-1] not in after:
                    counts["same_commit"]["gone_after"] += 1
                    same.append((sha, path, name, kind, sorted(added.get((sha, path), set()))))
    return {"cases": cases[:limit], "same_commit": same[:limit], "counts": counts}


def replay_code_only(repo: Path, sha: str) -> bool:
    """Check out `sha`'s parent and commit `sha`'s changes to every file but docs (records too):
    the code change without the doc fix. False when the commit changes no such file."""
    git(repo, "checkout", "-q", "--detach", "-f", f"{sha}^")
    git(repo, "clean", "-qfdx")
    changed = git(repo, "diff", "--no-renames", "--name-status", "-z", f"{sha}^", sha).split("\0")
    docs = tuple(f".{e}" for e in ("rst", "md", "txt", "adoc", "markdown"))
    keep, drop = [], []
    for status, path in zip(changed[::2], changed[1::2], strict=False):
        if not path or path.lower().endswith(docs):
            continue
        (drop if status.startswith("D") else keep).append(path)
    if not keep and not drop:
        return False
    for i in range(0, len(keep), 200):
        git(repo, "checkout", sha, "--", *keep[i:i + 200], check=False)  # a path git cannot encode stays
    for i in range(0, len(drop), 200):
        git(repo, "rm", "-q", "-f", "--", *drop[i:i + 200])
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-q", "--no-verify",
        "-m", f"benchmark: the code of {sha[:10]} without its doc changes")
    return True


# --------------------------------------------------------------------------- one repository


def bench_repo(name: str, source: Path, scratch: Path, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    head = scratch_clone(source, scratch)
    out: dict[str, Any] = {"repo": name, "commit": head}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        if args.only == "all":
            cold = run("check", scratch, cache)
            warm = run("check", scratch, cache)
            stage = run("stage", scratch, cache, str(args.seed))
            report = warm["report"]
            judged = len(report["docs"])
            findings = report["findings"]
            errors = [f for f in findings if f["severity"] == "error"]
            warnings = [f for f in findings if f["severity"] == "warning"]
            out["false_alarms"] = {
                "docs": judged, "errors": len(errors), "warnings": len(warnings),
                "errors_per_100": per_100(len(errors), judged), "warnings_per_100": per_100(len(warnings), judged),
                "sample": rng.sample(findings, min(args.sample, len(findings))),
            }
            out["time"] = {
                "check_docs_cold_s": round(cold["seconds"], 2), "check_docs_cold_peak_mb": round(cold["peak_mb"]),
                "check_docs_warm_s": round(warm["seconds"], 2), "check_docs_warm_peak_mb": round(warm["peak_mb"]),
                "new_issue_freshness_s": round(stage["freshness_seconds"], 3), "new_issue_peak_mb": round(stage["peak_mb"]),
                "torch_imported": stage["torch"],
            }
        if args.mutations and args.only == "all":
            # its own generator: the symbols must not depend on how many findings the sample above drew from
            symbols = pick_symbols(scratch, args.mutations, random.Random(args.seed))
            kinds = mutate(scratch, symbols)
            hook_files = sorted({symbols[s][0] for s in list(symbols)[:5]})
            mutated = run("check", scratch, cache)
            flagged = renamed_ok = pairs = renamed_pairs = 0
            by_doc: dict[str, list[str]] = {}
            for f in mutated["report"]["findings"]:
                if f["code"] == "stale-ref":
                    by_doc.setdefault(f["path"], []).append(f["message"])
            misses = []
            for sym, (_path, docs) in symbols.items():
                for doc in docs:
                    pairs += 1
                    hits = [m for m in by_doc.get(doc, []) if re.search(rf"\b{re.escape(sym)}\b", m.split(" which")[0])]
                    flagged += bool(hits)
                    if not hits:
                        misses.append((sym, doc))
                    if kinds[sym] == "rename":
                        renamed_pairs += 1
                        renamed_ok += any(f"{sym}_v2" in re.split(r"[.:]+", g) for m in hits  # `Response_v2.status_code`
                                          for g in re.findall(r"renamed to `([^`]+?)(?:\(\))?`\?\)", m))
            out["mutations"] = {
                "symbols": len(symbols), "pairs": pairs, "recall": round(flagged / pairs, 3) if pairs else None,
                "renamed_pairs": renamed_pairs,
                "rename_suggestion_accuracy": round(renamed_ok / renamed_pairs, 3) if renamed_pairs else None,
                "check_docs_after_commit_s": round(mutated["seconds"], 2), "misses": misses[:20],
            }
            # the pre-commit hook on a 5-file change, warm: edit 5 code files, stage them
            git(scratch, "reset", "-q", "--hard", head)
            run("check", scratch, cache)  # warm again at the original commit
            five = hook_files + [p for p in git(scratch, "ls-files", "*.py").split("\n") if p][: 5 - len(hook_files)]
            for rel in five:
                with open(scratch / rel, "a", encoding="utf-8") as fh:
                    fh.write("\n# benchmark edit\n")
            git(scratch, "add", *five)
            hook = run("check", scratch, cache, *five)
            out["time"]["pre_commit_5_files_warm_s"] = round(hook["seconds"], 2)
            git(scratch, "reset", "-q", "--hard", head)
        if args.mined:
            git(scratch, "checkout", "-q", "--detach", "-f", head)
            mined = mine(scratch, args.mined, args.max_commits)
            rows = []
            for sha, doc, ref, kind in mined["cases"]:
                git(scratch, "checkout", "-q", "--detach", "-f", f"{sha}^")
                rows.append({"fix": sha[:10], "doc": doc, "name": ref, "kind": kind,
                             **_judge_case(run("doc", scratch, cache, doc), ref)})
            same = []
            for sha, doc, ref, kind, added in mined["same_commit"]:
                if not replay_code_only(scratch, sha):
                    continue
                got = _judge_case(run("doc", scratch, cache, doc), ref)
                if got["suggested"] is not None:
                    got["suggestion_in_fix"] = got["suggested"].rsplit(".", 1)[-1] in added
                same.append({"commit": sha[:10], "doc": doc, "name": ref, "kind": kind, **got})
            git(scratch, "checkout", "-q", "--detach", "-f", head)
            git(scratch, "clean", "-qfdx")
            out["mined"] = {"counts": mined["counts"], "fixed_later": _recall(rows), "same_commit": _recall(same)}
    return out


def _judge_case(got: dict[str, Any], ref: str) -> dict[str, Any]:
    """Whether the doc got a `stale-ref` naming `ref` (its last part), and what it suggested."""
    bare = ref.rsplit(".", 1)[-1]
    hits = [f["message"] for f in got["report"]["findings"]
            if f["code"] == "stale-ref" and re.search(rf"\b{re.escape(bare)}\b", f["message"].split(" which")[0])]
    sugg = re.search(r"(?:renamed|moved) to `([^`]+)`\?", hits[0]) if hits else None
    return {"flagged": bool(hits), "suggested": sugg.group(1) if sugg else None, "in_doc": got["report"]["docs"] > 0}


def _recall(rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for r in rows if r["in_doc"]]
    found = sum(r["flagged"] for r in rows)
    by_kind = {k: f"{sum(r['flagged'] for r in rows if r['kind'] == k)}/{sum(r['kind'] == k for r in rows)}"
               for k in sorted({r["kind"] for r in rows})}
    return {"cases": len(rows), "flagged": found, "recall": round(found / len(rows), 3) if rows else None,
            "by_kind": by_kind, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", required=True, help="NAME=CLONE (full history)")
    ap.add_argument("--scratch", required=True, type=Path, help="folder for scratch clones")
    ap.add_argument("--mutations", type=int, default=20)
    ap.add_argument("--mined", type=int, default=30, help="cases of each kind at most")
    ap.add_argument("--max-commits", type=int, default=5000, help="doc commits the miner reads, newest first")
    ap.add_argument("--only", choices=["all", "mined"], default="all",
                    help="mined: only the mined history (no false alarms, timing or mutations)")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    results = []
    for spec in args.repo:
        name, _, path = spec.partition("=")
        res = bench_repo(name, Path(path), args.scratch / name, args)
        results.append(res)
        brief = {k: v for k, v in res.items() if k not in ("false_alarms", "mined")}
        if "false_alarms" in res:
            brief["false_alarms"] = {k: v for k, v in res["false_alarms"].items() if k != "sample"}
        if "mined" in res:
            brief["mined"] = {"counts": res["mined"]["counts"]} | {
                k: {x: y for x, y in res["mined"][k].items() if x != "rows"} for k in ("fixed_later", "same_commit")}
        print(json.dumps(brief), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
