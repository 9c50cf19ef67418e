"""The explain table `preview` prints on stderr: what went in, what stayed out, and why."""

from __future__ import annotations

from noface_ctx.datatypes import Prompt


def print_summary(prompt: Prompt) -> None:
    """Readable explain table on stderr: what went in, what stayed out, and why."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(stderr=True, highlight=False)
    t = prompt.tokens
    console.print(
        f"[bold]{escape(prompt.issue.id)}[/bold] {escape(prompt.issue.title)} — "
        f"{t.get('total', 0)}/{t.get('budget', 0)} tokens (docs {t.get('docs', 0)}, code {t.get('code', 0)})"
    )
    details = prompt.details or {}
    cx = details.get("complexity") or {}
    if cx:
        console.print(escape(f"complexity {cx.get('score', 0):.2f} → up to {cx.get('k', 0)} docs: {'; '.join(cx.get('reasons', []))}"))
    if details.get("embedder"):
        console.print(escape(str(details["embedder"])))
    docs = Table(title="design docs", show_lines=False)
    for col in ("doc", "score", "tokens", "stale", "included", "why"):
        docs.add_column(col, overflow="fold")
    for row in prompt.docs:
        docs.add_row(
            escape(f"{row.get('slug', '')} ({row.get('path', '')})"),
            f"{row.get('score', 0):.2f}",
            str(row.get("tokens", 0) or ""),
            "stale" if row.get("stale") else "",
            "quarantined" if (row.get("trust") or {}).get("quarantined") else "yes" if row.get("included") else "no",
            escape(str(row.get("reason", ""))),
        )
    console.print(docs)
    code = Table(title="code")
    for col in ("item", "kind", "tokens", "score", "why"):
        code.add_column(col, overflow="fold")
    for item in prompt.code:
        start, end = item.get("start_line") or 0, item.get("end_line") or 0
        where = f"{item.get('path')}:{start}-{end}" if start else str(item.get("path"))
        label = f"{where} {item.get('symbol') or ''}".strip()
        score = item.get("score")
        code.add_row(escape(label), str(item.get("form") or item.get("kind", "")), str(item.get("tokens", "")),
                     f"{score:.2f}" if isinstance(score, (int, float)) else "", escape(str(item.get("reason") or "")))
    console.print(code)
    beside = details.get("tests_beside_code") or {}
    if beside.get("tokens"):
        console.print(escape(f"tests beside the code: {beside['tokens']} tokens (their share: at most "
                             f"{beside['share']:.0%} of the code budget and {beside['max_tokens']} tokens)"))
    if prompt.omitted:
        console.print(f"omitted (listed in the prompt): {len(prompt.omitted)}")
    unlisted = sum(1 for s in prompt.details.get("skipped", ()) if "not listed: over" in str(s.get("reason", "")))
    if unlisted:
        console.print(f"omitted and not listed (counted in the prompt): {unlisted}")
    if prompt.excluded:
        by_cat: dict[str, int] = {}
        for e in prompt.excluded:
            by_cat[e.category] = by_cat.get(e.category, 0) + 1
        console.print("excluded: " + ", ".join(f"{n} {c}" for c, n in sorted(by_cat.items())))
    for w in prompt.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(w)}")
