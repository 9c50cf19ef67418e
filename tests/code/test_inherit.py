"""NEED_CODE for a method a class inherits: found through its bases, and said where."""

from __future__ import annotations

from noface_ctx.code.inherit import class_bases, imported_from, module_files
from noface_ctx.config import load_config
from noface_ctx.datatypes import Manifest, ManifestEntry
from noface_ctx.signals.parse import parse_signals
from noface_ctx.signals.respond import resolve_requests

FILES = {
    "src/shop/__init__.py": "",
    "src/shop/core/__init__.py": "",
    "src/shop/core/base.py": (
        "class Root:\n    def describe(self):\n        return 'root'\n\n\n"
        "class App(Root):\n    def register_plugin(self, plugin):\n        self.plugins.append(plugin)\n"
    ),
    "src/shop/mixins.py": "class LoggingMixin:\n    def log(self, msg):\n        print(msg)\n",
    "src/shop/app.py": (
        "from .core.base import App\nfrom shop import mixins as mx\n\n\n"
        "class Local:\n    def local_thing(self):\n        return 1\n\n\n"
        "class Shop(App, mx.LoggingMixin, Local, metaclass=type):\n    def open(self):\n        return True\n"
    ),
    "src/shop/vault.py": "class Vault:\n    def unlock(self):\n        return 'secret'\n",
    "src/shop/bank.py": "from shop.vault import Vault\n\n\nclass Bank(Vault):\n    pass\n",
}


def _answer(repo, line, manifest=None):
    config = load_config(repo)
    answer = resolve_requests(parse_signals(line), repo=repo, config=config, log=False, manifest=manifest)
    return answer.items[0], answer.text


def test_base_parsing():
    assert class_bases("class Shop(App, mx.LoggingMixin, Generic[T], metaclass=Meta):") == ["App", "mx.LoggingMixin"]
    assert class_bases("class Plain:") == []
    assert class_bases("export class Button extends React.Component<Props> {") == ["React.Component"]
    assert imported_from("from .core.base import (\n    Other,\n    App as Base,\n)\n", "Base") == [(".core.base", "App")]
    assert imported_from("import shop.mixins as mx\n", "mx.LoggingMixin") == [("shop.mixins", "LoggingMixin")]
    assert module_files(".core.base", "src/shop/app.py")[0] == "src/shop/core/base.py"
    assert "src/shop/vault.py" in module_files("shop.vault", "src/shop/bank.py")


def test_inherited_method_is_found_in_the_imported_base(repo_factory):
    repo = repo_factory(FILES)
    item, text = _answer(repo, "NEED_CODE: src/shop/app.py::Shop.register_plugin")
    assert item.outcome == "served"
    assert "→ src/shop/core/base.py:7-8 (method App.register_plugin)" in text
    assert "inherited: defined in App (src/shop/core/base.py:7), via Shop → App" in text
    assert "self.plugins.append(plugin)" in text


def test_grandparent_module_alias_and_same_file_bases(repo_factory):
    repo = repo_factory(FILES)
    item, text = _answer(repo, "NEED_CODE: src/shop/app.py::Shop.describe")
    assert item.outcome == "served" and "via Shop → App → Root" in text and "return 'root'" in text
    item, text = _answer(repo, "NEED_CODE: src/shop/app.py::Shop.log")
    assert item.outcome == "served" and "src/shop/mixins.py" in text and "print(msg)" in text
    item, text = _answer(repo, "NEED_CODE: src/shop/app.py::Shop.local_thing")
    assert item.outcome == "served" and "defined in Local (src/shop/app.py:6)" in text


def test_missing_method_still_reports_not_found(repo_factory):
    repo = repo_factory(FILES)
    item, _text = _answer(repo, "NEED_CODE: src/shop/app.py::Shop.no_such_method")
    assert item.outcome == "not found"


def test_forbidden_base_file_is_never_served(repo_factory):
    repo = repo_factory(FILES)
    manifest = Manifest(forbidden=(ManifestEntry("src/shop/vault.py"),))
    item, text = _answer(repo, "NEED_CODE: src/shop/bank.py::Bank.unlock", manifest)
    assert item.outcome == "refused"
    assert "return 'secret'" not in text and "src/shop/vault.py" in item.reason
