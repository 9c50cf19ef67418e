"""`python -m noface_ctx`."""

from noface_ctx.cli import run

run()
