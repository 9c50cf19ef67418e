"""Command line: `init`, `preview`, `index`, `check-docs`, `signals`, `mcp`, `run`. The single error boundary.

Each subcommand imports its stage when called, so `check-docs` (the pre-commit hook) never
pays for ranking or embeddings. Exit codes: 0 ok, 1 findings, 2 usage/config/input error,
3 internal bug, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from noface_ctx._process import leave, safe_streams, write_crash_log
from noface_ctx.errors import NofaceError, UsageError

if TYPE_CHECKING:
    from noface_ctx.config import Config

PROG = "noface-ctx"


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (exit 2) instead of usage + message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Build focused implementation prompts for coding agents.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("init", help="write a commented .noface.toml for this repository (docs, commands, budget)")
    p.add_argument("--repo", default=None, metavar="DIR", help="default: the git top-level, else the current directory")
    p.add_argument("--force", action="store_true", help="overwrite an existing .noface.toml that differs")

    p = sub.add_parser("preview", help="print the prompt for an issue (summary on stderr)")
    p.add_argument("issue", metavar="ISSUE", help="beads id, path to .json/.md/.txt, or - for stdin")
    _common(p)
    p.add_argument("--manifest", metavar="FILE", help="JSON manifest: primary_files, read_files, forbidden_files")
    p.add_argument("--budget", type=int, metavar="N", help="total token budget (default: [context] budget_tokens)")
    p.add_argument("--json", action="store_true", help="print Prompt.to_dict() as JSON instead of the prompt")
    p.add_argument("--no-embed", action="store_true", help="rank with BM25 only (no embedding model)")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary table on stderr")
    p.add_argument("-v", "--verbose", action="store_true", help="list what warnings count (e.g. each slug collision)")
    p.add_argument("--record", action="store_true", help="record what the prompt served in the ledger (`why`)")
    _model_flag(p)

    p = sub.add_parser("index", help="build or refresh the code index, every doc's freshness and the vectors (in the user cache)")
    _common(p)
    p.add_argument("--no-embed", action="store_true", help="embed nothing (the code index, doc terms and freshness are still built)")
    _model_flag(p)

    p = sub.add_parser("check-docs", help="flag stale docs (pre-commit hook); exit 1 on findings")
    p.add_argument("paths", nargs="*", metavar="PATH", help="docs or code files (default: all docs)")
    _common(p)
    p.add_argument("--json", action="store_true", help="findings as JSON")

    p = sub.add_parser("signals", help="parse NEED_CODE:/NEED_DOC: lines from agent output")
    p.add_argument("source", nargs="?", default="-", metavar="FILE", help="agent output (text or stream-json); - for stdin")
    _common(p)
    p.add_argument("--resolve", action="store_true", help="answer the requests (CONTEXT YOU REQUESTED block)")
    p.add_argument("--issue", metavar="ID", help="issue whose manifest governs what may be served")
    p.add_argument("--budget", type=int, metavar="N", help="token budget for the answer")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("mcp", help="serve the tools over MCP (stdio) for one repository")
    _common(p)
    p.add_argument("--issue", metavar="ID", help="serve this issue: its manifest governs every answer")
    p.add_argument("--issues-dir", metavar="DIR", help="build_prompt may also read issue files from this folder")
    p.add_argument("--no-warm", action="store_true", help="do not scan/index/load the model at start-up")
    _model_flag(p)

    p = sub.add_parser("run", help="orchestrator loop: ready issues -> prompt -> agent -> NEED_* answers")
    _common(p)
    from noface_ctx._orchestrate import add_arguments

    add_arguments(p)
    from noface_ctx.trust import commands as trust

    for name, text, add in (("why", "what an issue was served, turn by turn (the provenance ledger)", trust.add_why),
                            ("outcome", "record an issue's outcome: ok or failed", trust.add_outcome),
                            ("trust", "lift a doc's quarantine (failures before now stop counting)", trust.add_trust)):
        add(p := sub.add_parser(name, help=text))
        _common(p)
    return parser


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", default=None, metavar="DIR",
                   help="repository root (default: the git top-level holding the current directory, "
                        "else the nearest directory above with .noface.toml)")
    p.add_argument("--config", metavar="FILE", help="config file (default: <repo>/.noface.toml)")


def _model_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--embedding-model", metavar="NAME|PATH",
                   help="embedding model to use: a packaged name, a hub name in the local cache, or a model folder "
                        "(a repository's .noface.toml may only name packaged models)")


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None) -> int:
    """Entry point for `noface-ctx` and `python -m noface_ctx`; returns the exit code."""
    safe_streams()
    try:
        args = build_parser().parse_args(argv)
        if not args.command:
            build_parser().print_help(sys.stderr)
            return 2
        handler: Callable[..., int] = _COMMANDS[args.command]
        return handler(args, stdin or sys.stdin)
    except NofaceError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as exc:  # argparse --help / --version
        return int(exc.code or 0)
    except Exception as exc:
        log = write_crash_log()
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc} (traceback: {log})", file=sys.stderr)
        return 3


def run() -> NoReturn:
    """The console script: `main`, then `leave` with its exit code."""
    leave(main())


def _load_config(args: argparse.Namespace) -> Config:
    from noface_ctx.config import find_root, load_config

    model = getattr(args, "embedding_model", None)
    if args.repo is None:
        return load_config(find_root("."), args.config, embedding_model=model)
    if not Path(args.repo).is_dir():
        raise UsageError(f"--repo {args.repo}: not a directory")
    return load_config(args.repo, args.config, embedding_model=model)


def _cmd_init(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx._init_project import run_from_args

    return run_from_args(args)


# --------------------------------------------------------------------------- preview


def _cmd_preview(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx._pipeline import build_prompt

    if args.budget is not None and args.budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {args.budget}")
    config = _load_config(args)
    issue: Any = args.issue
    if issue == "-":
        from noface_ctx.issue.load import load_issue

        issue = load_issue("-", config.root, stdin=stdin)
    prompt = build_prompt(
        issue,
        repo=config.root,
        config=config,
        manifest=args.manifest,
        budget=args.budget,
        embed=False if args.no_embed else None,
    )
    if args.record:
        from noface_ctx.trust.ledger import Ledger
        from noface_ctx.trust.record import record_prompt

        record_prompt(config, prompt, turn=Ledger.of(config).last_turn(prompt.issue.id) + 1, source="preview")
    if args.json:
        _emit(json.dumps(prompt.to_dict(), indent=2, ensure_ascii=False))
    else:
        _emit(prompt.text)
        if not args.quiet:
            from noface_ctx._summary import print_summary

            print_summary(prompt)
            if args.verbose:
                _print_collisions(config)
        else:  # -q drops the table, never a warning that changes the result (config, cache, manifest)
            for w in prompt.details.get("result_warnings", ()):
                print(f"{PROG}: warning: {w}", file=sys.stderr)
    return 0


def _print_collisions(config: Config) -> None:
    """Each doc whose slug an earlier doc has (the warnings fold them into one line)."""
    from noface_ctx.docs.load import load_docs, slug_collisions
    from noface_ctx.files.gate import scan_repo

    for line in slug_collisions(load_docs(config, scan_repo(config)).docs):
        print(f"{PROG}: {line}", file=sys.stderr)


# --------------------------------------------------------------------------- index


def _cmd_index(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx._stages import index_repository
    from noface_ctx.config import cache_dir, cache_warnings

    config = _load_config(args)
    cache_dir(config)
    for w in cache_warnings(config):  # refused or unwritable: the index lives for this process only
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    with _progress() as bar:
        index_repository(config, embed=not args.no_embed, progress=bar, say=lambda line: print(line, file=sys.stderr))
    return 0


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[str], Callable[[int, int], None]] | None]:
    """A progress bar with ETA on a terminal (yields a factory of update callbacks), else None."""
    if not sys.stderr.isatty() or os.environ.get("NO_COLOR"):
        yield None
        return
    from rich.progress import Progress

    with Progress(*Progress.get_default_columns(), transient=True) as bar:
        def task(label: str) -> Callable[[int, int], None]:
            tid = bar.add_task(label, total=None)
            return lambda done, total: bar.update(tid, completed=done, total=total)

        yield task


# --------------------------------------------------------------------------- check-docs


def _cmd_check_docs(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx.freshness.check import check_docs

    config = _load_config(args)
    report = check_docs(args.paths, repo=config.root, config=config)
    for w in report.warnings:  # with --json too: a history read in part is said where a person sees it
        print(f"{PROG}: warning: {w}", file=sys.stderr)
    if args.json:
        _emit(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for line in report.lines():
            print(line)
        for path, why in report.not_judged:
            print(f"{PROG}: {path}: not judged: {why}", file=sys.stderr)
    return report.exit_code


# --------------------------------------------------------------------------- signals


def _cmd_signals(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx.signals.parse import parse_signals_detailed
    from noface_ctx.signals.respond import resolve_requests

    config = _load_config(args) if args.resolve else None  # parsing alone needs no repository
    text = _read_source(args.source, stdin)
    parsed = parse_signals_detailed(text)
    if config is None:
        if args.json:
            _emit(json.dumps(parsed.to_dict(), indent=2, ensure_ascii=False))
        else:
            for req in parsed.requests:
                print(req.raw.strip())
            for bad in parsed.rejected:
                print(f"{PROG}: rejected line {bad.line}: {bad.error}: {bad.raw.strip()!r}", file=sys.stderr)
        return 0
    answer = resolve_requests(parsed, repo=config.root, issue=args.issue, config=config, budget=args.budget)
    if args.json:
        _emit(json.dumps(answer.to_dict(), indent=2, ensure_ascii=False))
    else:
        _emit(answer.text)
    return 0


def _read_source(source: str, stdin: TextIO) -> str:
    if source == "-":
        return stdin.read()
    path = Path(source)
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        raise UsageError(f"cannot read agent output: {exc.strerror}", where=source) from None


# --------------------------------------------------------------------------- mcp / run


def _cmd_mcp(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx._user_paths import user_dir
    from noface_ctx.mcp_server import serve

    issues_dir = user_dir(args.issues_dir, "--issues-dir") if args.issues_dir else None  # as typed: from the cwd
    return serve(_load_config(args), args.issue, warm=not args.no_warm, issues_dir=issues_dir)


def _cmd_run(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx._orchestrate import run_from_args

    return run_from_args(args, _load_config(args))


def _cmd_trust(args: argparse.Namespace, stdin: TextIO) -> int:
    from noface_ctx.trust import commands as trust

    config = _load_config(args)
    if args.command == "why":
        return trust.why(config, args.issue, as_json=args.json)
    print(trust.outcome(config, args.issue, args.verdict, args.note) if args.command == "outcome"
          else trust.trust(config, args.doc))
    return 0


# --------------------------------------------------------------------------- helpers

_COMMANDS: dict[str, Callable[..., int]] = {
    "init": _cmd_init,
    "preview": _cmd_preview,
    "index": _cmd_index,
    "check-docs": _cmd_check_docs,
    "signals": _cmd_signals,
    "mcp": _cmd_mcp,
    "run": _cmd_run,
    "why": _cmd_trust,
    "outcome": _cmd_trust,
    "trust": _cmd_trust,
}


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def _version() -> str:
    from noface_ctx import __version__

    return __version__
