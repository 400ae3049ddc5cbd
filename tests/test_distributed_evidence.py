"""Which evidence of distributed training counts for a ``device_map`` (DEV005): the
file's own, that of the modules importing it (the processes that may run its code), and,
for a model class, the project's (a trainer may build the model from a configuration)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings

_LOADER = (
    "from transformers import AutoModel\n\n\n"
    "def load(name):\n"
    '    return AutoModel.from_pretrained(name, device_map="auto")\n'
)
_BACKBONE = (
    "import torch\nfrom transformers import AutoModel\n\n\n"
    "class Backbone(torch.nn.Module):\n"
    "    def __init__(self, name):\n"
    "        super().__init__()\n"
    '        self.encoder = AutoModel.from_pretrained(name, device_map="auto")\n'
)
_DEMO = (
    "from transformers import AutoModel\n\n\n"
    "def helper():\n"
    "    return 1\n\n\n"
    'if __name__ == "__main__":\n'
    '    model = AutoModel.from_pretrained("m", device_map="auto")\n'
)
_TRAIN = (
    "from accelerate import Accelerator\n\n{imports}\n\n"
    "def main():\n"
    "    accelerator = Accelerator()\n"
)


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        ("from pkg.loader import load", [("loader.py", 5, 55)]),
        ("import pkg.cli", [("loader.py", 5, 55)]),  # through a module that imports it
        ("import json", []),  # an evaluation script of its own: one process
    ],
)
def test_a_function_counts_the_evidence_of_the_modules_importing_it(
    imports: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/loader.py": _LOADER,
        "pkg/cli.py": "from pkg.loader import load\n",
        "pkg/train.py": _TRAIN.format(imports=imports),
    }
    assert package_findings(tmp_path, files, "DEV005") == expected


def test_a_model_class_counts_the_evidence_of_the_whole_project(tmp_path: Path) -> None:
    """A trainer builds its model from a configuration: no import shows it."""
    files = {"pkg/backbone.py": _BACKBONE, "pkg/train.py": _TRAIN.format(imports="")}
    assert package_findings(tmp_path, files, "DEV005") == [("backbone.py", 8, 67)]


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [("", []), ("import torch.distributed as dist\n", [("demo.py", 10, 55)])],
)
def test_a_main_block_counts_only_its_files_evidence(
    evidence: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Importing the module never runs its ``__main__`` block, whoever imports it."""
    demo = _DEMO
    if evidence:
        demo = evidence + demo + "    dist.init_process_group('nccl')\n"
    files = {
        "pkg/demo.py": demo,
        "pkg/train.py": _TRAIN.format(imports="from pkg.demo import helper"),
    }
    assert package_findings(tmp_path, files, "DEV005") == expected


_RUNNER = (
    "import sys\nfrom transformers import AutoModel\n\n\n"
    "def ignored_modules():\n"
    "    return []\n\n\n"
    "def load(path):\n"
    '    return AutoModel.from_pretrained(path, device_map="auto")\n\n\n'
    "def main():\n"
    "    load(sys.argv[1])\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)


@pytest.mark.parametrize(
    ("also_calls_load", "expected"),
    [(False, []), (True, [("runner.py", 10, 55)])],
)
def test_a_function_only_a_scripts_main_block_runs_counts_only_the_scripts_evidence(
    also_calls_load: bool, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A module run by its path (``subprocess.run([sys.executable, "runner.py"])``) runs
    in a process of its own, even when the trainer imports it for something else; a
    function the trainer calls too runs in the trainer's processes."""
    imports = "from pkg.runner import ignored_modules, load"
    train = _TRAIN.format(imports=imports) + "    ignored_modules()\n"
    if also_calls_load:
        train += '    load("m")\n'
    files = {"pkg/runner.py": _RUNNER, "pkg/train.py": train}
    assert package_findings(tmp_path, files, "DEV005") == expected


@pytest.mark.parametrize(
    ("importer", "expected"),
    [
        # A module of the package: Python ran `pkg/__init__.py` before it, it uses none of it.
        ("pkg/quant/worker.py", []),
        # A module outside it that imports the package runs what `__init__` imports.
        ("tools/worker.py", [("loader.py", 5, 55)]),
    ],
)
def test_a_packages_own_modules_do_not_run_what_its_init_imports(
    importer: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/__init__.py": "from pkg.loader import load\n",
        "pkg/loader.py": _LOADER,
        "pkg/quant/__init__.py": "",
        "pkg/util.py": "X = 1\n",
        importer: _TRAIN.format(imports="from pkg.util import X"),
    }
    assert package_findings(tmp_path, files, "DEV005") == expected


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        # In a regular package: `import helpers` is a library, not `pkg/helpers.py` above.
        ("pkg/evaluation/", []),
        # In a folder of scripts (no `__init__.py`): the folder above may be on `sys.path`.
        ("scripts/evaluation/", [("loader.py", 5, 55)]),
    ],
)
def test_an_absolute_import_in_a_package_names_no_folder_above(
    folder: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/evaluation/__init__.py": "",
        "pkg/helpers.py": "from pkg.loader import load\n",
        "pkg/loader.py": _LOADER,
        "scripts/helpers.py": "from pkg.loader import load\n",
        f"{folder}run.py": _TRAIN.format(imports="from helpers import load"),
    }
    assert package_findings(tmp_path, files, "DEV005") == expected


def test_a_packages_own_module_naming_what_its_init_defines_runs_it(tmp_path: Path) -> None:
    """``from pkg import load`` in ``pkg/train.py``, ``load`` defined in ``pkg/__init__.py``:
    the module uses its package's code, so the package's loader runs under its evidence."""
    files = {
        "pkg/__init__.py": _LOADER,
        "pkg/train.py": _TRAIN.format(imports="from pkg import load"),
    }
    assert package_findings(tmp_path, files, "DEV005") == [("__init__.py", 5, 55)]
