"""Scenario benchmark for issue 27: poisoned context and long runs, through `noface-ctx run`'s own
loop (`_issue_run.run_issue`) with a scripted stand-in agent on a real clone with full history.

    python benchmarks/scenarios.py --workdir /work/clones/trust-bench [--mirror /work/.mirror/pallets+flask/repo]
                                   [--seeds 0 1 2] [--embed]

Every scenario starts from a fresh clone of the mirror (`--workdir/flask`) and an empty ledger;
caches live in `--workdir/cache` (`NOFACE_CTX_CACHE_DIR`), never the user's.

1. **Poisoned doc.** `docs/first-request-setup.rst` is added (committed): it tells, in prose only,
   to register one-time setup with the application's "before first request hook", an API Flask
   removed in 2.3. No code name appears, so `check-docs` has nothing to resolve. Ten issues ask
   how to run setup once before the first request. The stand-in agent trusts what it is served:
   when its input holds the doc, its change is wrong and `--verify` fails. Measured: whether the
   doc ranks first for each issue with an empty ledger, how many issues are served it before it
   is withheld (target ≤ 2), whether `check-docs` names it, and whether it is served again after
   an edit (target yes).
2. **Good docs, unrelated failures.** Fifty issues across Flask's documented topics; a seeded 10 %
   of them fail `--verify` whatever they were served. Measured per seed: docs halved (allowed),
   docs withheld (target 0), and what a rule without the completions check would have withheld.
   Run twice: as written, and with every issue naming `docs/design.rst`, so one good doc is
   served to all fifty issues and every failure.
3. **Long run.** One issue, 20 turns, two `NEED_CODE` requests per turn for 40 distinct Flask
   definitions and a new `PLAN:` each turn, `ISSUE_COMPLETE` at turn 20, at the default budget
   (16,000). Measured: turns over budget (target 0), turns whose last section is not the latest
   plan (target 0), earlier answers neither in a turn's input nor announced by an eviction line
   (target 0), eviction lines whose request does not serve the same file and lines again
   (target 0), and the tokens of turn 20 against today's behaviour (the prompt at the full budget
   plus every answer so far plus the note: what `run` sent before the turn contract).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

AGENT = Path(__file__).resolve().parent / "scenario_agent.py"
POISON_PATH = "docs/first-request-setup.rst"
POISON = """First request setup
===================

Work that must happen once per application, such as creating the database tables, loading a
model or warming a cache, belongs in a setup function registered with the application's before
first request hook. Flask calls every setup function registered this way exactly once, right
before it handles the first request, in the order they were registered. Register the setup
function in the application factory, so that every application instance runs its own one-time
setup before its first request and never again.
"""
POISON_MARK = "in the order they were registered"
FIXED = """First request setup
===================

Flask no longer has a hook that runs before the first request. Work that must happen once per
application, such as creating the database tables, loading a model or warming a cache, is done in
the application factory itself, inside ``with app.app_context():``, before the application is
returned; it then runs once per application instance, before any request is handled.
"""
POISON_ISSUES = [
    ("Create the database tables once before the first request",
     "Our application factory should create the SQLite tables once, before the first request is handled. Where does one-time setup go?"),
    ("Warm the cache once before the app handles its first request",
     "We want to warm a cache exactly once per application before the first request arrives."),
    ("Run a setup function exactly once per application",
     "How do I register a setup function that runs once, before the first request, for each application instance?"),
    ("Load the model file once before the first request",
     "Loading our model on every request is slow; it should be loaded once before the first request is handled."),
    ("One-time initialization in the application factory",
     "Our one-time initialization runs on every request. It should run once per application, before its first request."),
    ("Seed the default admin user once per application",
     "The default admin user must be created once per application, before its first request; which setup function runs exactly once?"),
    ("Open the connection pool once before handling requests",
     "The connection pool should be created once per application, before the first request, not per request."),
    ("Check pending migrations once at the first request",
     "We want a setup check for pending migrations that runs once before the application handles its first request."),
    ("Setup runs twice before the first request",
     "Our setup function registered for the first request runs twice; it should run exactly once per application."),
    ("Read feature flags once before the first request",
     "Feature flags should be read once per application instance, before the first request is handled."),
]
AFTER_EDIT = ("Compile the templates once before the first request",
              "Templates should be compiled once per application, before the first request is handled; where does that setup go?")
TOPICS = [
    ("Blueprint url_prefix is ignored for nested blueprints", "Registering a blueprint inside another blueprint drops the url_prefix of the child."),
    ("Blueprint static folder returns 404", "A blueprint's static_folder files are not found when the blueprint has a url_prefix."),
    ("Config from_prefixed_env does not parse JSON values", "FLASK_ prefixed environment variables should be loaded into app.config with JSON values."),
    ("Config from_file with TOML loader", "Loading configuration from a TOML file with app.config.from_file and tomllib.load."),
    ("Instance folder path is wrong in a package", "The instance_path of an application inside an installed package points to the wrong folder."),
    ("Template context processor not applied in blueprint", "Variables injected by a blueprint's context processor are missing in its templates."),
    ("Autoescaping disabled for .txt templates", "Templates ending in .txt are not autoescaped; we render user input in emails."),
    ("Custom Jinja filter registration", "How to register a template filter on the application so templates can use it."),
    ("Test client loses session between requests", "With app.test_client the session set in one request is missing in the next."),
    ("Testing CLI commands with the CliRunner", "Invoking a custom click command through app.test_cli_runner does not find the app."),
    ("Request context missing in a background thread", "Accessing request in a thread raises working outside of request context."),
    ("Application context teardown not called", "teardown_appcontext functions are not called when a request raises an error."),
    ("Custom error handler for 404 in a blueprint", "A blueprint errorhandler for 404 is not used for unknown URLs under its prefix."),
    ("Handling HTTPException subclasses as JSON", "API errors should be returned as JSON instead of the default HTML error page."),
    ("Logging to a file in production", "The default logger only writes to stderr; we need a file handler with the app logger."),
    ("Debug mode reloader runs the app twice", "With the debugger and reloader enabled, startup code runs twice."),
    ("flask run ignores FLASK_APP in a .flaskenv", "The CLI does not pick up environment variables from .flaskenv files."),
    ("Custom CLI command group for the app", "Adding a group of commands to the flask command with app.cli."),
    ("Signed cookie session size limit", "Large session data silently fails; the cookie session has a size limit."),
    ("Session cookie SameSite setting", "Configure SESSION_COOKIE_SAMESITE and secure cookies for the session."),
    ("Streaming a large response with a generator", "Streaming rows of a large CSV export with stream_with_context."),
    ("send_file with a BytesIO and download name", "Sending an in-memory file with send_file requires a download_name."),
    ("url_for with _external behind a proxy", "url_for(_external=True) builds http URLs behind an https proxy; ProxyFix setup."),
    ("Method views dispatch for PATCH", "A MethodView subclass does not route PATCH requests to its patch method."),
    ("Class-based view decorators", "Applying login_required to every method of a View subclass with decorators."),
    ("Signals for request_finished", "Subscribing to the request_finished signal to record response times."),
    ("Async view functions and gevent", "Using async def views together with gevent workers."),
    ("JSON provider sort keys", "Configure the JSON provider so jsonify does not sort keys."),
    ("Returning a dict from a view", "Views returning dicts and lists are converted to JSON responses."),
    ("File uploads size limit", "MAX_CONTENT_LENGTH should reject large file uploads with 413."),
    ("Secure filename for uploads", "Saving uploaded files safely with secure_filename in an upload view."),
    ("Message flashing with categories", "Flashed messages with categories are not shown in the base template."),
    ("Pagination pattern with SQLAlchemy", "Paginating query results in a view and template."),
    ("Deploying with gunicorn workers", "Running the application with gunicorn and multiple workers in production."),
    ("Deploying behind nginx with a subpath", "Serving the app under /app behind nginx breaks url_for links."),
    ("Using an application factory with extensions", "Initializing extensions with init_app inside create_app."),
    ("Lazy loading of views for large apps", "Large applications import every view at startup; lazy loading views."),
    ("Security headers and CSRF protection", "Setting security headers and protecting forms against CSRF."),
    ("Content Security Policy for templates", "Adding a Content-Security-Policy header to every response."),
    ("Tutorial: blog blueprint login required", "The tutorial's blog blueprint create view should require login."),
    ("Tutorial: database init-db command", "The init-db command from the tutorial fails with no such table."),
    ("Shell context processor variables", "Adding the db object to flask shell with a shell context processor."),
    ("Server-side sessions extension", "Replacing the cookie session interface with a server-side session interface."),
    ("Request data as JSON with silent parsing", "request.get_json fails on invalid JSON; use silent parsing."),
    ("Form data with multiple values", "Reading lists from request.form with getlist for checkboxes."),
    ("URL converters for custom types", "Registering a custom URL converter for slugs in routes."),
    ("Redirect after POST pattern", "Redirect with url_for after form submission to avoid double posts."),
    ("Celery background tasks with app context", "Running Celery tasks that need the Flask application context."),
    ("Caching views with a decorator", "A view decorator that caches responses for a few minutes."),
    ("Extension development: storing state on app", "Where a Flask extension should keep its state per application."),
]


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


class Bench:
    """A fresh clone, its config, the stand-in's folder, and `run_issue` on it."""

    def __init__(self, workdir: Path, mirror: Path, embed: bool) -> None:
        self.workdir, self.mirror, self.embed = workdir, mirror, embed
        self.repo = workdir / "flask"
        self.scenario = workdir / "scenario"
        os.environ["NOFACE_CTX_CACHE_DIR"] = str(workdir / "cache")
        os.environ["SCENARIO_DIR"] = str(self.scenario)

    def fresh(self, files: dict[str, str] | None = None) -> None:
        from noface_ctx import _state as state  # private: resets per-process memos between timed runs
        shutil.rmtree(self.repo, ignore_errors=True)
        shutil.rmtree(self.scenario, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", str(self.mirror), str(self.repo)], check=True)
        for rel, text in (files or {}).items():
            (self.repo / rel).write_text(text)
        if files:
            _git(self.repo, "add", "-A")
            _git(self.repo, "commit", "-qm", "scenario docs")
        self.scenario.mkdir(parents=True)
        state.clear_all()
        ledger = self.ledger()
        ledger.path.unlink(missing_ok=True)

    def config(self) -> Any:
        from noface_ctx.config import load_config

        return load_config(self.repo)

    def ledger(self) -> Any:
        from noface_ctx.trust.ledger import Ledger

        return Ledger.of(self.config())

    def script(self, script: dict[str, list[str]], fail: list[str] = ()) -> None:  # type: ignore[assignment]
        (self.scenario / "script.json").write_text(json.dumps(script))
        (self.scenario / "fail.json").write_text(json.dumps(list(fail)))

    def issue(self, name: str, title: str, body: str) -> str:
        path = self.scenario / "issues" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {title}\n\n{body}\n")
        return str(path)

    def run(self, ref: str, *, max_turns: int = 1, log: Path | None = None) -> Any:
        from noface_ctx._issue_run import run_issue  # private: one issue of `run`, with a scripted agent

        agent = [sys.executable, str(AGENT)]
        return run_issue(ref, self.config(), agent, max_turns=max_turns, log_path=log,
                         embed=None if self.embed else False, verify=[sys.executable, str(AGENT), "--verify"])

    def preview(self, ref: str) -> Any:
        from noface_ctx import build_prompt

        return build_prompt(ref, repo=self.repo, config=self.config(), embed=None if self.embed else False)


def poisoned(bench: Bench) -> dict[str, Any]:
    bench.fresh({POISON_PATH: POISON})
    os.environ["SCENARIO_POISON"] = POISON_MARK
    bench.script({"*": ["Done: setup registered as the docs say.\nISSUE_COMPLETE"]})
    refs = [bench.issue(f"poison-{n}", t, b) for n, (t, b) in enumerate(POISON_ISSUES, 1)]
    ranks = []
    for ref in refs:  # with an empty ledger: where does the poisoned doc rank?
        rows = [d["path"] for d in bench.preview(ref).docs if d.get("relevant")]
        ranks.append(rows.index(POISON_PATH) + 1 if POISON_PATH in rows else None)
    served, outcomes = [], []
    for ref in refs:
        result = bench.run(ref)
        holds = POISON_MARK in (bench.scenario / "inputs" / f"{Path(ref).stem}-1.txt").read_text()
        served.append(holds)
        outcomes.append(result.outcome)
    from noface_ctx.freshness.check import check_docs

    report = check_docs([], repo=bench.repo, config=bench.config())
    named = [f.message for f in report.findings if f.path == POISON_PATH and f.code == "needs-review"]
    (bench.repo / POISON_PATH).write_text(FIXED)
    _git(bench.repo, "commit", "-qam", "first-request-setup: the hook is gone; setup goes in the factory")
    os.environ["SCENARIO_POISON"] = "no poison after the edit"
    after = bench.run(bench.issue("after-edit", *AFTER_EDIT))
    after_text = (bench.scenario / "inputs" / "after-edit-1.txt").read_text()
    return {"rank_with_empty_ledger": ranks, "issues": len(refs), "served": served, "outcomes": outcomes,
            "served_before_withheld": sum(served), "check_docs_names_it": bool(named),
            "served_after_edit": "Flask no longer has a hook" in after_text, "after_edit_outcome": after.outcome}


SHARED_DOC = "docs/design.rst"


def unrelated_failures(bench: Bench, seed: int, shared: bool = False) -> dict[str, Any]:
    """50 issues, 10 % failing at random; with `shared`, every issue also names one doc (so it
    is served to all 50, and to every failure)."""
    bench.fresh()
    os.environ["SCENARIO_POISON"] = "no poison here"
    rng = random.Random(seed)
    names = [f"topic-{n}" for n in range(1, len(TOPICS) + 1)]
    fail = sorted(rng.sample(names, round(len(names) * 0.10)))  # exactly 10 %, chosen at random
    bench.script({"*": ["Done.\nISSUE_COMPLETE"]}, fail)
    halved: set[str] = set()
    withheld: set[str] = set()
    served_docs = 0
    for name, (title, body) in zip(names, TOPICS, strict=True):
        ref = bench.issue(name, title, body + (f" The design notes are in {SHARED_DOC}." if shared else ""))
        prompt = bench.preview(ref)  # what this issue is about to be served, with its trust effects
        for row in prompt.docs:
            trust = row.get("trust") or {}
            if trust.get("quarantined"):
                withheld.add(row["path"])
            elif trust.get("factor", 1.0) < 1.0:
                halved.add(row["path"])
        served_docs += sum(1 for d in prompt.docs if d.get("included"))
        bench.run(ref)
    # what a rule without the completions check ("a second failure quarantines") would have withheld
    ledger = bench.ledger()
    failed_issues = {o.issue for o in ledger.outcomes() if o.outcome == "failed"}
    serves = ledger.full_serves(str(p.relative_to(bench.repo)) for p in (bench.repo / "docs").rglob("*.rst"))
    naive = sorted(path for path, rows in serves.items() if len({i for i, _b, _id in rows} & failed_issues) >= 2)
    return {"seed": seed, "shared_doc": SHARED_DOC if shared else None, "issues": len(names), "failed": len(fail), "docs_served": served_docs,
            "halved": sorted(halved), "withheld": sorted(withheld), "withheld_by_a_rule_without_completions": naive}


def long_run(bench: Bench) -> dict[str, Any]:
    from noface_ctx import build_prompt
    from noface_ctx._tokens import count_tokens  # private: the token count every figure is in
    from noface_ctx._wording_run import CONTINUE_NOTE, PLAN_TITLE  # private: the words the run loop shows
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.signals.parse import parse_signals_detailed
    from noface_ctx.signals.respond import resolve_requests

    bench.fresh()
    os.environ["SCENARIO_POISON"] = "no poison here"
    config = bench.config()
    index = CodeIndex.build(scan_repo(config), config)
    defs = sorted({f"{c.path}::{c.symbol}" for c in index.all_chunks()
                   if c.path.startswith("src/flask/") and c.kind in ("function", "method") and c.end_line - c.start_line >= 8})
    step = max(1, len(defs) // 40)
    targets = defs[::step][:40]
    turns = [f"PLAN:\n1. read {targets[2 * t]} and {targets[2 * t + 1]} (turn {t + 1})\n2. then the next two\n\n"
             f"NEED_CODE: {targets[2 * t]}\nNEED_CODE: {targets[2 * t + 1]}" for t in range(19)]
    turns.append("PLAN:\n1. done (turn 20)\n\nISSUE_COMPLETE")
    bench.script({"*": turns})
    ref = bench.issue("long-run", "Audit the request dispatch path for blocking calls",
                      "Go through the functions that dispatch a request and list the ones that may block.")
    log = bench.scenario / "long-run.jsonl"
    result = bench.run(ref, max_turns=20, log=log)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    inputs = {t: (bench.scenario / "inputs" / f"long-run-{t}.txt").read_text() for t in range(1, len(records) + 1)}
    budget = config.context.budget_tokens
    over = [r["turn"] for r in records if r["input_tokens"] > budget]
    plan_missing = [t for t in range(2, len(records) + 1)
                    if not inputs[t].rstrip().endswith(f"(turn {t - 1})\n2. then the next two") or PLAN_TITLE not in inputs[t]]
    unannounced = []
    answered: list[str] = []
    for r in records:
        t = r["turn"]
        for req in answered:
            if req not in inputs[t]:
                unannounced.append((t, req))
        answered += [a["request"] for a in r.get("answers", []) if a["outcome"] in ("served", "partial")]
    lines = re.findall(r"^- served in turn \d+: (\S+) \(\d+ tokens\); (NEED_\w+: \S+) to see it again$",
                       inputs[len(records)], re.M)
    not_restorable = []
    for where, request in lines:
        answer = resolve_requests(parse_signals_detailed(request), repo=bench.repo, config=config, log=False)
        if not answer.items or answer.items[0].where != where:
            not_restorable.append((where, request, answer.items[0].where if answer.items else ""))
    legacy = build_prompt(ref, repo=bench.repo, config=config, embed=None if bench.embed else False).text
    answers = []
    for r in records[:-1]:
        reqs = "\n".join(r["requests"])
        answers.append(resolve_requests(parse_signals_detailed(reqs), repo=bench.repo, config=config, log=False).text)
    legacy_turn20 = count_tokens("\n\n".join([legacy, *answers, CONTINUE_NOTE]))
    return {"outcome": result.outcome, "turns": len(records), "budget": budget,
            "input_tokens": [r["input_tokens"] for r in records], "evicted_tokens": [r["evicted_tokens"] for r in records],
            "turns_over_budget": over, "plan_not_last": plan_missing, "unannounced": unannounced,
            "eviction_lines": len(lines), "not_restorable": not_restorable,
            "turn20_tokens": records[-1]["input_tokens"], "turn20_tokens_before": legacy_turn20,
            "duplicate_requests": sum(r.get("duplicate_requests", 0) for r in records)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workdir", required=True, type=Path)
    p.add_argument("--mirror", type=Path, default=Path("/work/.mirror/pallets+flask/repo"))
    p.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    p.add_argument("--embed", action="store_true", help="rank with embeddings too (default: BM25 only)")
    p.add_argument("--only", choices=("poison", "unrelated", "long"), nargs="*")
    args = p.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.workdir.resolve(), args.mirror, args.embed)
    out: dict[str, Any] = {"command": shlex.join(sys.argv), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    only = set(args.only or ("poison", "unrelated", "long"))
    t0 = time.perf_counter()
    if "poison" in only:
        out["poisoned"] = poisoned(bench)
    if "unrelated" in only:
        out["unrelated"] = [unrelated_failures(bench, seed) for seed in args.seeds]
        out["unrelated_shared_doc"] = [unrelated_failures(bench, seed, shared=True) for seed in args.seeds]
    if "long" in only:
        out["long_run"] = long_run(bench)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
