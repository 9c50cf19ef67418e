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
  outside tests) that non-record docs name are sampled; half are renamed (`name` → `name_v2`
  everywhere in the code) and half deleted (the definition removed, every code line using the
  name dropped) in one scratch commit. Recall: the share of (doc, symbol) pairs where the doc
  gets a `stale-ref` naming the symbol; rename accuracy: the share of renamed pairs whose
  finding suggests `name_v2`.
- **mined history**: first-parent commits that removed a code name from a non-record doc line
  when that name was in the code at the doc's previous commit and not at the commit before
  the fix (a rename or removal the doc caught up with); at that parent, is the doc flagged
  naming it? Up to `--mined` cases, newest first.
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
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.docs.markup import is_record
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.freshness.codebase import Codebase
    from noface_ctx.freshness.references import EXTERNAL_NAMES
    from noface_ctx.freshness.scan import is_test_path as _is_test
    from noface_ctx.freshness.scan import scan_doc as _scan

    config = load_config(repo)
    files = scan_repo(config)
    docs = [d for d in load_docs(config, files).docs if not is_record(d.path, config.context.record_dirs)]
    code = Codebase(files, None, [d.path for d in docs])
    named: dict[str, set[str]] = {}
    for doc in docs:
        scan = _scan(doc, code)
        for ref, _paths in scan.symbols:
            name = ref.name.rsplit(".", 1)[-1]
            named.setdefault(name, set()).add(doc.path)
    pool = {}
    for name, by in named.items():
        defs = {d.path for d in code.symbols.find_symbol(name)}
        if len(defs) != 1 or len(name) < 6 or name in EXTERNAL_NAMES or name.startswith("_"):
            continue
        path = next(iter(defs))
        if path.endswith(".py") and not _is_test(path):
            pool[name] = (path, sorted(by))
    names = sorted(pool)
    rng.shuffle(names)
    return {name: pool[name] for name in names[:n]}


def mutate(repo: Path, symbols: dict[str, tuple[str, list[str]]]) -> dict[str, str]:
    """Rename the first half (`name_v2`), delete the rest; one commit. Returns name -> kind."""
    kinds = {}
    code_files = [p for p in git(repo, "ls-files", "*.py", "*.pyi").split("\n") if p]
    names = list(symbols)
    for i, name in enumerate(names):
        kinds[name] = "rename" if i < (len(names) + 1) // 2 else "delete"
    word = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
    changed: list[str] = []
    for rel in code_files:
        path = repo / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
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

_REF = re.compile(r"`+([A-Za-z_][\w.]*)(?:\(\))?`+")


def mine(repo: Path, limit: int, max_commits: int = 3000) -> list[tuple[str, str, str]]:
    """(fix commit, doc path, name): see the module docstring."""
    sys.path.insert(0, str(ROOT))
    from noface_ctx.docs.markup import is_record

    log = git(repo, "log", "--first-parent", "-m", f"-n{max_commits}", "--format=@@%H", "-U0", "--no-color",
              "--", "*.rst", "*.md", "*.txt")
    cases: list[tuple[str, str, str]] = []
    sha, path = "", ""
    removed: dict[tuple[str, str], set[str]] = {}
    added: dict[tuple[str, str], set[str]] = {}
    for line in log.split("\n"):
        if line.startswith("@@") and not line.startswith("@@ "):
            sha = line[2:].strip()
        elif line.startswith("+++ b/"):
            path = line[6:]
        elif line.startswith("-") and not line.startswith("---") and path and not is_record(path):
            removed.setdefault((sha, path), set()).update(m.group(1) for m in _REF.finditer(line))
        elif line.startswith("+") and not line.startswith("+++") and path:
            added.setdefault((sha, path), set()).update(m.group(1) for m in _REF.finditer(line))
    for (sha, path), names in removed.items():
        for name in sorted(names - added.get((sha, path), set())):
            bare = name.rsplit(".", 1)[-1]
            if len(bare) < 5 or not re.search(r"[a-z]_[a-z]|[a-z][A-Z]", bare):
                continue
            before = git(repo, "log", "-n1", "--format=%H", f"{sha}^", "--", path, check=False).strip()
            if not before:
                continue
            had = subprocess.run(["git", "-C", str(repo), "grep", "-q", "-w", "-F", bare, before, "--", "*.py"]
                                 ).returncode == 0
            gone = subprocess.run(["git", "-C", str(repo), "grep", "-q", "-w", "-F", bare, f"{sha}^", "--", "*.py"]
                                  ).returncode != 0
            if had and gone:
                cases.append((sha, path, name))
                break
        if len(cases) >= limit:
            break
    return cases


# --------------------------------------------------------------------------- one repository


def bench_repo(name: str, source: Path, scratch: Path, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    head = scratch_clone(source, scratch)
    out: dict[str, Any] = {"repo": name, "commit": head}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
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
        if args.mutations:
            symbols = pick_symbols(scratch, args.mutations, rng)
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
                        renamed_ok += any(f"{sym}_v2`?)" in m for m in hits)
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
            cases = mine(scratch, args.mined)
            hits = []
            for sha, doc, ref in cases:
                git(scratch, "checkout", "-q", "--detach", "-f", f"{sha}^")
                got = run("check", scratch, cache, doc)
                bare = ref.rsplit(".", 1)[-1]
                ok = any(f["code"] == "stale-ref" and bare in f["message"].split(" which")[0]
                         for f in got["report"]["findings"])
                hits.append({"fix": sha[:10], "doc": doc, "name": ref, "flagged": ok})
            git(scratch, "checkout", "-q", "--detach", "-f", head)
            found = sum(h["flagged"] for h in hits)
            out["mined"] = {"cases": len(hits), "flagged": found,
                            "recall": round(found / len(hits), 3) if hits else None, "rows": hits}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", required=True, help="NAME=CLONE (full history)")
    ap.add_argument("--scratch", required=True, type=Path, help="folder for scratch clones")
    ap.add_argument("--mutations", type=int, default=20)
    ap.add_argument("--mined", type=int, default=15)
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    results = []
    for spec in args.repo:
        name, _, path = spec.partition("=")
        res = bench_repo(name, Path(path), args.scratch / name, args)
        results.append(res)
        print(json.dumps({k: v for k, v in res.items() if k != "false_alarms"} |
                         {"false_alarms": {k: v for k, v in res["false_alarms"].items() if k != "sample"}}), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
