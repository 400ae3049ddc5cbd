"""Code nothing runs is no device bug: in a program (scripts that import the project's
modules) not packaged for others, a module nothing imports or runs, a class or function
no text names, a method no text names of a class whose bases call none by name
(``ProjectIndex.never_runs``, ``facts.mentioned_names``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

from devlint.config import config_for_directory
from devlint.engine import Overrides, check_projects, plan_projects
from devlint.facts import MAIN_GUARD_NAME, loaders_used, mentioned_names, mentions_by_definition
from devlint.runner import Runner

_MODEL = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Used(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x + torch.ones(4).cuda()\n\n"
    "    def unused_helper(self, x):\n"
    "        return x + torch.ones(4).cuda()\n\n\n"
    "class Unused(nn.Module):\n"
    "    def __init__(self):\n"
    "        super(Unused, self).__init__()\n\n"
    "    def forward(self, x):\n"
    "        return x + torch.ones(4).cuda()\n"
)
_OLD = (
    "import torch\nfrom torch import nn\n\n\n"
    "class OldNet(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x + torch.ones(4).cuda()\n"
)
_TRAIN = (
    "import argparse\n\nimport torch\n\nfrom pkg.model import Used\n{more}\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--device", default="cuda")\n'
    "    net = Used().to(torch.device(parser.parse_args().device))\n"
    "    return net(torch.ones(4))\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)
_USED = [("model.py", 7, 34)]
_ALL = [("model.py", 7, 34), ("model.py", 10, 34), ("model.py", 18, 34), ("old.py", 7, 34)]


def _files(more: str = "", extra: dict[str, str] | None = None) -> dict[str, str]:
    files = {"pkg/model.py": _MODEL, "pkg/old.py": _OLD, "pkg/train.py": _TRAIN.format(more=more)}
    return {**files, **(extra or {})}


def test_only_code_a_program_runs_is_checked(tmp_path: Path) -> None:
    """The unused class (it names itself only in ``super``), the method no code names and
    the module nothing imports never run; ``forward`` runs by ``__call__``."""
    assert sorted(findings(tmp_path, _files(), "DEV002")) == _USED


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"setup.py": "from setuptools import setup\n\nsetup(name='pkg')\n"}, _ALL),
        ({"pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n'}, _ALL),
        ({"pyproject.toml": '[project]\nname = "app"\ndependencies = ["torch"]\n'}, _USED),
    ],
    ids=["a setup.py", "a build system", "an application's dependencies"],
)
def test_a_package_may_be_called_by_its_users(
    extra: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """What a packaged project never calls may be its users' to call; a ``pyproject.toml``
    listing an application's dependencies packages nothing."""
    assert sorted(findings(tmp_path, _files(extra=extra), "DEV002")) == expected


@pytest.mark.parametrize(
    ("more", "expected"),
    [
        ("\nfrom pkg import model\nNAMES = ['Unused', 'unused_helper', 'old', 'OldNet']\n", _ALL),
        ("\nimport importlib\nimportlib.import_module('pkg.' + 'x')\n", _USED),
        (
            "\nimport importlib\nm = importlib.import_module('pkg.' + 'x')\nm = getattr(m, X)\n",
            _ALL,
        ),
        ("\nfrom hydra.utils import instantiate\nnet = instantiate(cfg)\n", _ALL),
        (
            "\nimport importlib, inspect\nm = importlib.import_module('pkg.' + 'x')\n"
            "found = inspect.getmembers(m, inspect.isclass)\n",
            _ALL,
        ),
        ("\nimport importlib\nm = importlib.import_module(X)\nfound = vars(m).values()\n", _ALL),
        ("\nfrom pkg import model\nbuild = getattr(model, 'Unused')\n", [*_USED, _ALL[2]]),
        (
            "\nfrom pkg import model\nbuild = getattr(model, NAME)\n",
            [*_USED, _ALL[1], _ALL[2]],
        ),
        ("\nfrom pkg import model\nbuild = model.__dict__[NAME]\n", [*_USED, _ALL[1], _ALL[2]]),
        ("\nfrom pkg import model\nbuild = model.__dict__['Unused']\n", [*_USED, _ALL[2]]),
        (
            "\nfrom pkg import model\nbuild = model.__dict__['Un' + NAME]\n",
            [*_USED, _ALL[1], _ALL[2]],
        ),
        ("\nfrom pkg.old import OldNet as Net\nNet()\n", [*_USED, _ALL[3]]),
    ],
    ids=[
        "named in strings",
        "a module loaded by a computed name",
        "a module loaded by a computed name, a name looked up in it",
        "an object loaded by a computed name",
        "a module loaded by a computed name, its members listed",
        "a module loaded by a computed name, its names' values listed",
        "looked up by name",
        "looked up by a computed name",
        "looked up in a module's dict",
        "read from a module's dict by a name written out",
        "read from a module's dict by a name put together",
        "imported under another name",
    ],
)
def test_a_name_the_code_writes_anywhere_may_run(
    more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = _files(more)
    assert sorted(findings(tmp_path, files, "DEV002")) == sorted(expected)


def test_without_a_program_every_function_may_be_called(tmp_path: Path) -> None:
    files = {"pkg/model.py": _MODEL, "pkg/old.py": _OLD}
    assert sorted(findings(tmp_path, files, "DEV002")) == _ALL


_COG = "from cog import Predictor\n"


def test_a_framework_may_call_the_methods_of_its_subclasses(tmp_path: Path) -> None:
    """A class derived from a library's base other than ``torch.nn``'s modules, and the
    module holding it, may be loaded and called by that library (a Cog predictor)."""
    model = _MODEL.replace("class Unused(nn.Module):", "class Unused(nn.Module, Predictor):")
    model = model.replace("from torch import nn\n", f"from torch import nn\n{_COG}")
    old = _OLD.replace("class OldNet(nn.Module):", "class OldNet(nn.Module, Predictor):")
    old = old.replace("from torch import nn\n", f"from torch import nn\n{_COG}")
    files = {**_files(), "pkg/model.py": model, "pkg/old.py": old}
    expected = [("model.py", 8, 34), ("model.py", 19, 34), ("old.py", 8, 34)]
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


@pytest.mark.parametrize(
    ("text", "named", "not_named"),
    [
        ("from a import (B,\n    C)\nimport d\n", set(), {"B", "C", "d", "a"}),
        ("__all__ = ['Loss']\n", set(), {"Loss"}),
        (
            "class Loss(nn.Module):\n    def __init__(self):\n"
            "        super(Loss, self).__init__()\n",
            {"nn", "Module", "__init__"},
            {"Loss"},
        ),
        ("x = getattr(m, 'build')  # see helper\n", {"build", "helper", "getattr"}, set()),
        ("@register_model\ndef vit():\n    pass\n", {"vit", "register_model"}, set()),
        ("@MODELS.register_module()\nclass Net:\n    pass\n", {"Net"}, set()),
        (
            "class A:\n    @staticmethod\n    @torch.no_grad()\n    def f():\n        pass\n",
            set(),
            {"f", "A"},
        ),
    ],
)
def test_mentioned_names(text: str, named: set[str], not_named: set[str]) -> None:
    found = mentioned_names(text)
    assert named <= found
    assert not (not_named & found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import importlib\nm = importlib.import_module(name)\n", {"import_module"}),
        ("from hydra.utils import instantiate\nnet = instantiate (cfg)\n", {"instantiate"}),
        ("from importlib import import_module as load\n", {"import_module"}),
        ("from pydoc import locate\nfind = locate\n", {"locate"}),
        ("class Base:\n    def __init_subclass__(cls):\n        pass\n", {"__init_subclass__"}),
        ("# locate the file, then instantiate the model\n", set()),
        ('"""Instantiate a model; locate its weights."""\n', set()),
    ],
)
def test_loaders_used(text: str, expected: set[str]) -> None:
    """A loader of code by a computed name counts where the code calls, renames or binds
    it, not where a comment or docstring says the word."""
    assert loaders_used(text) == expected


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"pkg/registry.py": "def every(base):\n    return base.__subclasses__()\n"}, _ALL),
        ({"pkg/notes.py": "# locate the weights, instantiate the model\nX = 1\n"}, _USED),
        (
            {"pkg/legacy.py": "from pkg.old import OldNet\nprint 'python 2', OldNet()\n"},
            [("legacy.py", 2, 1), *_USED, _ALL[3]],
        ),
    ],
    ids=[
        "classes found without their names",
        "a loader named in a comment",
        "a file that does not parse",
    ],
)
def test_what_finds_or_names_code_that_devlint_cannot_read_keeps_it_live(
    extra: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    assert sorted(findings(tmp_path, _files(extra=extra), "DEV002")) == expected


def test_a_torch_layer_calls_its_subclass_s_methods_by_name(tmp_path: Path) -> None:
    """``nn.Linear.__init__`` calls ``reset_parameters``: an override of it runs."""
    layer = (
        "import torch\nfrom torch import nn\n\n\n"
        "class Scaled(nn.Linear):\n"
        "    def reset_parameters(self):\n"
        "        self.scale = torch.ones(4).cuda()\n"
    )
    files = {**_files(), "pkg/model.py": _MODEL + "\n\n" + layer.split("\n\n\n", 1)[1]}
    found = sorted(findings(tmp_path, files, "DEV002"))
    assert found == [*_USED, ("model.py", 23, 36)]


@pytest.mark.parametrize(
    ("setting", "expected"),
    [('extend-exclude = ["x"]', _ALL), ('exclude = ["x"]', _ALL), ("exclude = []", _USED)],
)
def test_a_script_the_configuration_excludes_still_runs_what_it_names(
    setting: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Excluding files leaves their names unread; excluding fewer than the defaults does not."""
    extra = {"pyproject.toml": f'[project]\nname = "app"\n\n[tool.devlint]\n{setting}\n'}
    found = findings(tmp_path, _files(extra=extra), "DEV002")
    assert sorted(f for f in found if f[0] != "pyproject.toml") == expected  # checked as given


def test_a_packaged_library_s_docs_configuration_is_no_program(tmp_path: Path) -> None:
    """A Sphinx ``conf.py`` calling the library at its top level does not make the library
    a program offering no other device."""
    files = {
        "setup.py": "from setuptools import setup\n\nsetup(name='pkg')\n",
        "pkg/model.py": _OLD,
        "docs/conf.py": "import pkg.model\n\nrelease = pkg.model.OldNet().extra_repr()\n",
    }
    assert findings(tmp_path, files, "DEV002") == [("model.py", 7, 34)]


def test_without_a_project_marker_the_files_named_are_not_the_whole_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``.git`` or ``pyproject.toml`` says where the project is: a run of one folder does
    not read the others, whose scripts may name what it holds."""
    for name, text in {"pkg/__init__.py": "", **_files()}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    paths = sorted((tmp_path / "pkg").glob("*.py"))
    (project,) = plan_projects(paths, config_for_directory, Overrides(select=("DEV002",)))
    check_projects([project], Runner(1))
    found = [
        (Path(result.display).name, finding.start.row, finding.start.column)
        for result in project.files
        for finding in result.findings
    ]
    assert sorted(found) == _ALL


_LEGACY = (
    "import torch\nfrom torch import nn\n\n\n"
    "class LegacyNet(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x + torch.ones(4).cuda()\n\n\n"
    "def build_legacy(\n"
    "    depth,\n"
    ") -> LegacyNet:\n"
    "    return LegacyNet() if depth else build_legacy(depth - 1)\n\n\n"
    "def build():\n"
    "    return nn.Linear(4, 4)\n"
)


@pytest.mark.parametrize(
    ("more", "expected"),
    [
        ("\nfrom pkg.legacy import build\nbuild()\n", _USED),
        (
            "\nfrom pkg.legacy import build_legacy\nbuild_legacy(2)\n",
            [("legacy.py", 7, 34), *_USED],
        ),
        ("\nfrom pkg import legacy\nprint(legacy)\n", _USED),
    ],
    ids=["only a dead builder names it", "the script calls the builder", "the module alone"],
)
def test_what_only_code_that_never_runs_names_never_runs(
    more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """``LegacyNet`` is named by ``build_legacy`` alone (which names itself too), and no
    code that runs names ``build_legacy``: neither runs."""
    files = _files(more, {"pkg/legacy.py": _LEGACY})
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


def test_mentions_by_definition() -> None:
    """Each top-level definition's names, from its decorators to the next statement at the
    margin (a signature's closing bracket there is still its own), and the ``__main__``
    block's; a string reaching the margin gives the rest of its definition to the top
    level, but a line of it that looks like a definition the module has not is no
    definition."""
    text = (
        "import torch\n\n@register\ndef a(x):\n    return b(x)\n\n"
        "def b(\n    y,\n) -> None:\n    return c(y)\n\n"
        'class C:\n    def f(self):\n        s = """\nmargin\n"""\n        return d()\n\n'
        'def e():\n    s = """\nclass Example:\n    """\n    return g()\n\n'
        'if __name__ == "__main__":\n    a(1)\n'
    )
    definitions, top_level = mentions_by_definition(text, {"a", "b", "C", "e"})
    by_name = dict(definitions)
    assert list(by_name) == ["a", "b", "C", "e", MAIN_GUARD_NAME]
    assert "g" in by_name["e"]  # a string's `class` line starts no definition
    assert {"register", "b", "x"} <= by_name["a"]
    assert {"c", "y", "None"} <= by_name["b"] and "b" not in by_name["b"]
    assert "d" not in by_name["C"] and {"margin", "d"} <= top_level
    assert {"a", "__main__"} <= by_name[MAIN_GUARD_NAME]  # runs only as the program
    assert "a" in top_level  # registered by its decorator
    assert "c" not in top_level and "torch" not in top_level  # an import uses nothing


def test_a_class_a_looked_up_package_imports_may_run(tmp_path: Path) -> None:
    """``getattr(zoo, name)`` finds what ``zoo/__init__.py`` imports from its modules."""
    extra = {
        "pkg/zoo/__init__.py": "from pkg.zoo.nets import ZooNet\n",
        "pkg/zoo/nets.py": _OLD.replace("OldNet", "ZooNet"),
    }
    files = _files("\nfrom pkg import zoo\nbuild = getattr(zoo, NAME)\n", extra)
    expected = [*_USED, _ALL[1], _ALL[2], ("nets.py", 7, 34)]  # and all `train` imports
    assert sorted(findings(tmp_path, files, "DEV002")) == expected
