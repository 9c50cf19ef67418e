"""Freshness on the API changes developers make: realistic edits judged by reading the docs.

    python benchmarks/freshness_realistic.py --clones DIR [--cases benchmarks/freshness_cases]
        [--repo NAME ...] [--case ID ...] [--group NAME ...] [--json OUT] [--markdown OUT.md]

Each `benchmarks/freshness_cases/NAME.toml` pins one repository (`[repo]`: `name`, `source` =
a full-history clone or mirror, `commit`; for a mirror missing some blobs, `missing_blobs` and
`sparse_skip`, see `make_clone`) and lists its cases (`[[case]]`). A case is either an
edit (`edits`, see `freshness_edits.py`; committed on top of the pinned commit as one commit,
optionally followed by `later` edits of docs that leave the reference as it was, as a second
commit) or a point of real history (`checkout` = a commit of the repository where a doc is
stale, `blame` = the commit that made it so). Each case lists the docs a reader would be misled
by (`expected`: path, the line where the doc uses the name, the reference `kind`), decided by
reading the docs before the tool was run (see `docs/benchmarks-freshness.md`), the `names` a
finding must mention, and for renames and moves the `new` name a suggestion should give.

The clone `DIR/NAME` (made with `git clone` from `source` when missing) is reset to the pinned
commit (`git reset --hard`, `git clean`) before each case; every check is the real CLI,
`python -m noface_ctx check-docs --json --repo CLONE`, with one cache folder per repository
kept across its cases (the history index follows HEAD incrementally, as a developer's does).

Measured: expected docs flagged (overall, per group, per case kind, per reference kind),
findings that blame the right commit, rename/move suggestions naming the new name, default
changes flagged (a case counts when one of its expected docs is), findings per 100 docs at the
unmodified pinned commit (`[repo] known_stale` lists the references found stale there by reading:
a finding naming one is true, every other is a false alarm), findings an edit adds on docs
outside its expected set, and what the pre-commit hook (`check-docs` given the staged files,
before the commit) says about the expected docs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.freshness_edits import apply_edits, commit_staged, git, reset  # noqa: E402

CASES = ROOT / "benchmarks" / "freshness_cases"
RENAMES = ("rename", "class-rename", "keyword-rename", "move")
_SUGGESTION = re.compile(r"\((?:renamed|moved) to `([^`]+?)(?:\(\))?`\?\)")
_BLAME = re.compile(r"\b(?:in|by|since) ([0-9a-f]{7,40})\b")
_SUBJECT = re.compile(r'\(\d{4}-\d\d-\d\d, "[^\n]*?"(?:, merged \d{4}-\d\d-\d\d)?\)')  # a commit's date and subject: its words are no reference


def load_cases(folder: Path, repos: list[str] | None = None,
               groups: list[str] | None = None) -> list[dict[str, Any]]:
    """Every `NAME.toml` in `folder`: its `[repo]` table with the repository's `case` list
    (only the cases of `groups` when given; a repository left with none is skipped)."""
    out = []
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        cases = [c for c in data.get("case", []) if not groups or c.get("group") in groups]
        spec = dict(data["repo"], cases=cases, file=str(path))
        if (repos and spec["name"] not in repos) or (groups and not cases):
            continue
        for case in spec["cases"]:
            missing = {"id", "group", "kind", "names", "expected"} - set(case)
            if missing or not (case.get("edits") or case.get("checkout")):
                raise ValueError(f"{path}: case {case.get('id')!r} lacks {sorted(missing) or 'edits or checkout'}")
        out.append(spec)
    return out


def check_docs(clone: Path, cache: Path, *paths: str) -> dict[str, Any]:
    """The real CLI's JSON report, with its wall time."""
    env = {**os.environ, "NOFACE_CTX_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "noface_ctx", "check-docs", "--json", "--repo", str(clone), *paths],
                          capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"check-docs exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    report: dict[str, Any] = json.loads(proc.stdout)
    report["wall_s"] = round(time.perf_counter() - t, 2)
    return report


def mentions(finding: dict[str, Any], names: list[str]) -> bool:
    """Whether a finding is about one of `names` (a word of its message, the suggestion aside)."""
    text = _SUBJECT.sub("", _SUGGESTION.sub("", finding["message"]))
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text) for n in names)


def suggestion(finding: dict[str, Any]) -> str | None:
    m = _SUGGESTION.search(finding["message"])
    return m.group(1) if m else None


def suggests(found: str | None, new: str, written: str = "") -> bool:
    """`new` is the suggestion, or its dotted tail (`flask.cli.FlaskCliRunner` for `cli.FlaskCliRunner`),
    or one dotted part of it (`Flask.add_blueprint` for `add_blueprint`), or a module renamed or a class
    the suggestion's member belongs to (`webargs.multidict.MultiDictProxy` for the module `webargs.multidict`).
    A file suggested for a doc's path names `new`'s module (`src/pluggy/result.py` for `pluggy.result.Result`);
    a name the doc `written` moved with `new` is suggested in `new`'s module (`jsonschema.formats._F` for
    `jsonschema._format._F`, when `new` is `jsonschema.formats.FormatChecker`)."""
    if not found:
        return False
    if found.endswith(".py") or "/" in found:
        parts = found.removesuffix(".py").split("/")
        module = ".".join(parts[1:] if parts[0] in ("src", "lib") and len(parts) > 1 else parts).removesuffix(".__init__")
        return new == module or new.startswith(module + ".")
    moved_with = "." in new and bool(written) and found == f"{new.rsplit('.', 1)[0]}.{written.removesuffix('()').rsplit('.', 1)[-1]}"
    return (found == new or found.endswith("." + new) or new in found.split(".") or new.endswith("." + found)
            or found.startswith(new + ".") or moved_with)


def blamed(finding: dict[str, Any]) -> str | None:
    m = _BLAME.search(_SUGGESTION.sub("", finding["message"]))
    return m.group(1) if m else None


def finding_key(finding: dict[str, Any]) -> tuple[str, str, str]:
    """What a finding is about, without commit ids and dates: to tell new findings from old ones."""
    names = re.findall(r"`([^`]+)`", _SUGGESTION.sub("", finding["message"]))
    return finding["path"], finding["code"], names[0] if names else finding["message"]


def score_case(case: dict[str, Any], report: dict[str, Any], blame: str,
               baseline: set[tuple[str, str, str]] | None) -> dict[str, Any]:
    """One case's expected references against the tool's findings."""
    names = case["names"]
    about = [f for f in report["findings"] if mentions(f, names)]
    refs = []
    for exp in case["expected"]:
        hits = [f for f in about if f["path"] == exp["path"]]
        refs.append({**exp, "flagged": bool(hits), "line_exact": any(f["line"] == exp["line"] for f in hits)})
    docs = []
    for path in dict.fromkeys(e["path"] for e in case["expected"]):
        hits = [f for f in about if f["path"] == path]
        first = hits[0] if hits else None
        sha = blamed(first) if first else None
        docs.append({
            "path": path, "flagged": bool(hits), "severity": first["severity"] if first else None,
            "blame": sha, "blame_right": bool(sha) and (blame.startswith(sha) or sha.startswith(blame[:len(sha)])),
            "suggested": suggestion(first) if first else None,
            "suggestion_right": suggests(suggestion(first) if first else None, case["new"], finding_key(first)[2] if first else "")
            if case.get("new") else None,
            "kinds": sorted({e["kind"] for e in case["expected"] if e["path"] == path}),
            "message": first["message"] if first else None,
        })
    expected_paths = {e["path"] for e in case["expected"]}
    extra = [] if baseline is None else [
        {"path": f["path"], "line": f["line"], "severity": f["severity"], "message": f["message"]}
        for f in report["findings"] if f["path"] not in expected_paths and finding_key(f) not in baseline]
    return {"id": case["id"], "group": case["group"], "kind": case["kind"], "blame_expected": blame[:10],
            "docs": docs, "refs": refs, "extra": extra, "check_s": report["wall_s"]}


def make_clone(spec: dict[str, Any], clone: Path) -> None:
    """`git clone` of `source`, checked out by `reset` later. A mirror that lacks some blobs (`[repo]
    missing_blobs = "placeholder"`) gets a placeholder blob in place of each (`refs/replace`: commit ids
    stay; `git log -M` dies on a missing blob) and a sparse checkout without the paths `sparse_skip`
    names (files the pinned commit has whose blobs are missing)."""
    subprocess.run(["git", "clone", "-q", "--no-checkout", spec["source"], str(clone)], check=True)
    if spec.get("missing_blobs") == "placeholder":
        blob = subprocess.run(["git", "-C", str(clone), "hash-object", "-w", "--stdin"], input="placeholder\n",
                              capture_output=True, text=True, check=True).stdout.strip()
        listing = git(clone, "rev-list", "--objects", "--missing=print", "--all")
        for missing in (line[1:].split()[0] for line in listing.splitlines() if line.startswith("?")):
            git(clone, "update-ref", f"refs/replace/{missing}", blob)
    if spec.get("sparse_skip"):
        git(clone, "sparse-checkout", "set", "--no-cone", "/*", *(f"!/{path}" for path in spec["sparse_skip"]))


def run_repo(spec: dict[str, Any], clone: Path, only: list[str] | None) -> dict[str, Any]:
    """The pinned commit's own findings, then every case of one repository."""
    if not clone.exists():
        make_clone(spec, clone)
    pinned = spec["commit"]
    out: dict[str, Any] = {"repo": spec["name"], "commit": pinned, "cases": []}
    with tempfile.TemporaryDirectory(prefix=f"fbench-{spec['name']}-") as tmp:
        cache = Path(tmp)
        reset(clone, pinned)
        base = check_docs(clone, cache)
        judged = len(base["docs"])
        errors = sum(f["severity"] == "error" for f in base["findings"])
        true = [f for f in base["findings"] if any(f["path"] == k["path"] and mentions(f, [k["name"]])
                                                   for k in spec.get("known_stale", []))]
        false = len(base["findings"]) - len(true)
        out["pinned"] = {"docs": judged, "errors": errors, "warnings": len(base["findings"]) - errors,
                         "per_100_docs": round(100 * len(base["findings"]) / judged, 2) if judged else 0.0,
                         "true_stale": len(true), "false_alarms": false,
                         "false_per_100_docs": round(100 * false / judged, 2) if judged else 0.0,
                         "cold_s": base["wall_s"], "findings": base["findings"]}
        keys = {finding_key(f) for f in base["findings"]}
        for case in spec["cases"]:
            if only and case["id"] not in only:
                continue
            out["cases"].append(run_case(case, clone, cache, pinned, keys))
        reset(clone, pinned)
    return out


def run_case(case: dict[str, Any], clone: Path, cache: Path, pinned: str,
             keys: set[tuple[str, str, str]]) -> dict[str, Any]:
    try:
        if case.get("checkout"):  # real history: the repository as it was
            reset(clone, case["checkout"])
            return score_case(case, check_docs(clone, cache), case["blame"], None)
        reset(clone, pinned)
        staged = apply_edits(clone, case["edits"], "", commit=False).split()
        hook = check_docs(clone, cache, *staged)  # what the pre-commit hook says about the staged change
        sha = commit_staged(clone, case.get("message", f"benchmark: {case['id']}"))
        if case.get("later"):  # a later doc edit that leaves the stale reference as it was
            apply_edits(clone, case["later"], case.get("later_message", "docs: reword"))
        row = score_case(case, check_docs(clone, cache), sha, keys)
        hooked = {f["path"] for f in hook["findings"] if mentions(f, case["names"])}
        for doc in row["docs"]:
            doc["hook_flagged"] = doc["path"] in hooked
        row["hook_s"] = hook["wall_s"]
        return row
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        return {"id": case["id"], "group": case["group"], "kind": case["kind"], "error": str(exc)[:500],
                "docs": [], "refs": [], "extra": []}


def ratio(hit: int, total: int) -> str:
    return f"{hit}/{total} ({100 * hit / total:.0f} %)" if total else "0/0"


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of docs/benchmarks-freshness.md, from every repository's rows."""
    cases = [c for r in results for c in r["cases"]]
    docs = [(c, d) for c in cases for d in c["docs"]]

    def recall(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
        return ratio(sum(d["flagged"] for _, d in pairs), len(pairs))

    by_group = {g: recall([p for p in docs if p[0]["group"] == g]) for g in sorted({c["group"] for c in cases})}
    by_kind = {k: recall([p for p in docs if p[0]["kind"] == k]) for k in sorted({c["kind"] for c in cases})}
    refs = [r for c in cases for r in c["refs"]]
    ref_kinds = sorted({r["kind"] for r in refs})
    only_kind = {}
    for k in ref_kinds:  # docs whose every reference to the name is of this one kind
        pairs = [(c, d) for c, d in docs if d["kinds"] == [k]]
        only_kind[k] = recall(pairs)
    by_ref_kind = {k: {"doc_flagged": ratio(sum(r["flagged"] for r in refs if r["kind"] == k),
                                            sum(r["kind"] == k for r in refs)),
                       "line_named": ratio(sum(r["line_exact"] for r in refs if r["kind"] == k),
                                           sum(r["kind"] == k for r in refs)),
                       "docs_of_this_kind_only": only_kind[k]} for k in ref_kinds}
    flagged = [(c, d) for c, d in docs if d["flagged"]]
    ren = [(c, d) for c, d in flagged if c["kind"] in RENAMES and d["suggestion_right"] is not None]
    defaults = [c for c in cases if c["kind"] == "default"]
    hooked = [d for _, d in docs if "hook_flagged" in d]
    return {
        "hook_names_expected_docs": ratio(sum(d["hook_flagged"] for d in hooked), len(hooked)),
        "cases": len(cases), "errors": [c["id"] for c in cases if c.get("error")],
        "expected_docs_flagged": recall(docs), "by_group": by_group, "by_case_kind": by_kind,
        "by_reference_kind": by_ref_kind,
        "blame_right": ratio(sum(d["blame_right"] for _, d in flagged), len(flagged)),
        "rename_suggests_new_name": ratio(sum(bool(d["suggestion_right"]) for _, d in ren), len(ren)),
        "default_changes_flagged": ratio(sum(any(d["flagged"] for d in c["docs"]) for c in defaults), len(defaults)),
        "pinned": {r["repo"]: {k: v for k, v in r["pinned"].items() if k != "findings"} for r in results},
        "extra_findings": sum(len(c["extra"]) for c in cases),
        "extra_docs": sum(len({e["path"] for e in c["extra"]}) for c in cases),
        "missed": [f"{c['id']}: {d['path']} ({', '.join(d['kinds'])})" for c, d in docs if not d["flagged"]],
    }


def markdown(results: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """Tables for the doc: the summary, then one row per case."""
    lines = ["| measure | value |", "|---|---|"]
    for key in ("cases", "expected_docs_flagged", "blame_right", "rename_suggests_new_name",
                "default_changes_flagged", "extra_findings", "extra_docs", "hook_names_expected_docs"):
        lines.append(f"| {key.replace('_', ' ')} | {summary[key]} |")
    for g, v in summary["by_group"].items():
        lines.append(f"| expected docs flagged, group `{g}` | {v} |")
    for k, v in summary["by_case_kind"].items():
        lines.append(f"| expected docs flagged, {k} | {v} |")
    lines += ["", "| reference kind | docs flagged (per reference) | line named | docs using only this kind |",
              "|---|---|---|---|"]
    for k, v in summary["by_reference_kind"].items():
        lines.append(f"| {k} | {v['doc_flagged']} | {v['line_named']} | {v['docs_of_this_kind_only']} |")
    lines += ["", "| repository | pinned commit | docs | errors | warnings | known stale found | false alarms "
              "per 100 docs | cold s |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        p = r["pinned"]
        lines.append(f"| {r['repo']} | `{r['commit'][:10]}` | {p['docs']} | {p['errors']} | {p['warnings']} "
                     f"| {p['true_stale']} | {p['false_per_100_docs']} | {p['cold_s']} |")
    lines += ["", "| case | group | kind | docs flagged | blame right | suggestion right | extra | hook |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for c in r["cases"]:
            d = c["docs"]
            sug = [x for x in d if x["flagged"] and x["suggestion_right"] is not None]
            lines.append(f"| {c['id']} | {c['group']} | {c['kind']} | {sum(x['flagged'] for x in d)}/{len(d)} "
                         f"| {sum(x['blame_right'] for x in d if x['flagged'])}/{sum(x['flagged'] for x in d)} "
                         f"| {sum(bool(x['suggestion_right']) for x in sug)}/{len(sug)} | {len(c['extra'])} "
                         f"| {_hook_cell(d)} |"
                         + (f" error: {c['error'][:80]}" if c.get("error") else ""))
    return "\n".join(lines) + "\n"


def _hook_cell(docs: list[dict[str, Any]]) -> str:
    hooked = [d for d in docs if "hook_flagged" in d]
    return f"{sum(d['hook_flagged'] for d in hooked)}/{len(hooked)}" if hooked else "–"


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Expected docs flagged in one run and not in the other (two `--json` files)."""
    def flagged(run: dict[str, Any]) -> dict[tuple[str, str], bool]:
        return {(c["id"], d["path"]): d["flagged"] for r in run["results"] for c in r["cases"] for d in c["docs"]}

    before, after = flagged(old), flagged(new)
    return [f"{'now flagged' if after[k] else 'no longer flagged'}: {k[0]} {k[1]}"
            for k in sorted(before.keys() & after.keys()) if before[k] != after[k]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clones", type=Path, help="folder of scratch clones, one per repository name")
    ap.add_argument("--cases", type=Path, default=CASES)
    ap.add_argument("--repo", action="append", help="only these repositories")
    ap.add_argument("--case", action="append", help="only these case ids")
    ap.add_argument("--group", action="append", help="only the cases of these groups (e.g. heldout)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"),
                    help="only list the expected docs two --json runs disagree on")
    args = ap.parse_args(argv)
    if args.compare:
        old, new = (json.loads(p.read_text()) for p in args.compare)
        print("\n".join(compare(old, new)) or "no difference")
        return 0
    if not args.clones:
        ap.error("--clones is required")
    t = time.perf_counter()
    results = []
    for spec in load_cases(args.cases, args.repo, args.group):
        res = run_repo(spec, args.clones / spec["name"], args.case)
        results.append(res)
        print(json.dumps({"repo": res["repo"], "pinned": {k: v for k, v in res["pinned"].items() if k != "findings"},
                          "cases": [(c["id"], sum(d["flagged"] for d in c["docs"]), len(c["docs"]))
                                    for c in res["cases"]]}), flush=True)
    summary = summarise(results)
    summary["head"] = git(ROOT, "rev-parse", "--short", "HEAD", check=False).strip() or "not a git checkout"
    summary["seconds"] = round(time.perf_counter() - t, 1)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "results": results}, indent=1))
    text = markdown(results, summary)
    if args.markdown:
        args.markdown.write_text(text)
    print(text)
    print(json.dumps({k: summary[k] for k in ("expected_docs_flagged", "blame_right", "rename_suggests_new_name",
                                              "default_changes_flagged", "seconds")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
