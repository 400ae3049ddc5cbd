"""``Rule.may_report_in``: which files the index asks to parse for a rule waiting on it.

A "no" leaves a file unparsed, so it must never hide a finding: each test checks a
rule's answer for every file of a small project against the findings of a run.
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_project

from devlint.analysis import _skeleton
from devlint.candidates import Scope
from devlint.engine import Project
from devlint.index import ProjectIndex
from devlint.rules import all_rules

RULES = {rule.code: rule for rule in all_rules()}


def _answers(project: Project, code: str) -> dict[str, bool]:
    """File name -> whether ``code`` may report there, per the project's index, judging
    where its screen sees something (``Rule.sightings``)."""
    assert project.index is not None
    rule = RULES[code]
    answers = {}
    for result in project.files:
        found = _skeleton(result.job, result.path.read_text())
        assert found is not None and result.analysis.facts is not None
        sightings = rule.sightings(found, project.settings)
        answers[result.path.name] = sightings != frozenset() and rule.may_report_in(
            result.analysis.facts, project.index, sightings
        )
    return answers


def _findings(project: Project, code: str) -> list[tuple[str, int]]:
    return [
        (result.path.name, finding.start.row)
        for result in project.files
        for finding in result.findings
        if finding.code == code
    ]


_MODEL = "import pytorch_lightning as pl\n{imports}\n\n\nclass Net(pl.LightningModule):\n"
_FORWARD = "    def forward(self, x):\n        return x.to({name})\n"


def test_a_device_constant_imported_under_another_name_or_re_exported(tmp_path: Path) -> None:
    project = lint_project(
        tmp_path,
        {
            "pkg/__init__.py": "from .settings import GPU as DEVICE\n",
            "pkg/settings.py": 'import torch\n\nGPU = torch.device("cuda:0")\n',
            "renamed.py": _MODEL.format(imports="from pkg.settings import GPU as accelerator")
            + _FORWARD.format(name="accelerator"),
            "reexported.py": _MODEL.format(imports="from pkg import DEVICE as dev")
            + _FORWARD.format(name="dev"),
            "elsewhere.py": _MODEL.format(imports="from pkg.defaults import GPU")
            + _FORWARD.format(name="GPU"),
        },
        select=("DEV010",),
    )
    assert _findings(project, "DEV010") == [("reexported.py", 7), ("renamed.py", 7)]
    assert _answers(project, "DEV010") == {
        "__init__.py": False,  # defines no model code
        "settings.py": False,
        "elsewhere.py": False,  # `pkg.defaults.GPU` is no constant
        "reexported.py": True,
        "renamed.py": True,
    }


def test_a_device_constant_reached_through_a_module(tmp_path: Path) -> None:
    project = lint_project(
        tmp_path,
        {
            "cfg.py": 'DEVICE = "cuda"\n',
            "pkg/__init__.py": "",
            "pkg/settings.py": 'DEVICE = "cuda:1"\n',
            "alias.py": _MODEL.format(imports="import cfg as c") + _FORWARD.format(name="c.DEVICE"),
            "dotted.py": _MODEL.format(imports="import pkg.settings")
            + _FORWARD.format(name="pkg.settings.DEVICE"),
            "plain.py": _MODEL.format(imports="import torch")
            + _FORWARD.format(name="torch.float16"),
        },
        select=("DEV010",),
    )
    assert _findings(project, "DEV010") == [("alias.py", 7), ("dotted.py", 7)]
    answers = _answers(project, "DEV010")
    assert answers["alias.py"] and answers["dotted.py"] and not answers["plain.py"]


def test_no_device_constant_in_the_project(tmp_path: Path) -> None:
    project = lint_project(
        tmp_path,
        {
            "model.py": _MODEL.format(imports="from config import DEVICE")
            + _FORWARD.format(name="DEVICE")
        },
    )
    (model,) = project.files
    assert project.index is not None and model.analysis.facts is not None
    assert project.index.defines_model_code(model.analysis.facts)
    assert _answers(project, "DEV010") == {"model.py": False}


def test_modules_in_a_plain_container_only_in_model_classes(tmp_path: Path) -> None:
    """A helper function called from a model is model code, but DEV008 reports only in
    methods (``self.x = [...]``) of model classes, here one whose base is in another file."""
    project = lint_project(
        tmp_path,
        {
            "base.py": "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n\n\n"
            "class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.proj = nn.Linear(2, 2)\n",
            "net.py": "from base import Base, Block\nfrom helpers import widen\n\n\n"
            "class Net(Base):\n    def __init__(self):\n        super().__init__()\n"
            "        self.blocks = [Block(), Block()]\n\n"
            "    def forward(self, x):\n        return widen(x)\n",
            "helpers.py": "def widen(x):\n    return x * 2\n",
        },
    )
    assert _findings(project, "DEV008") == [("net.py", 8)]
    assert project.index is not None
    helpers = next(r for r in project.files if r.path.name == "helpers.py").analysis.facts
    assert helpers is not None and project.index.defines_model_code(helpers)
    assert _answers(project, "DEV008") == {"base.py": True, "net.py": True, "helpers.py": False}


def test_factories_count_only_where_they_run_on_every_batch(tmp_path: Path) -> None:
    """DEV003 keeps candidates on the forward path of model code: the index judges the
    places its screen saw, not the file (a model file full of factories in ``__init__``,
    weight initialisation and unrelated helpers is not asked for)."""
    model = (
        "import torch\nimport torch.nn as nn\nfrom helpers import noise\n\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n        return noise(x) + x\n\n"
        "    def _init_weights(self, module):\n        module.weight = torch.zeros(3)\n\n\n"
        "def make_inputs():\n    return torch.randn(2, 3)\n"
    )
    project = lint_project(
        tmp_path,
        {
            "model.py": model,
            "helpers.py": "import torch\n\n\ndef noise(x):\n    return torch.randn(3) + x\n",
            "forward.py": model.replace("return noise(x) + x", "return torch.ones(3) + x"),
        },
        select=("DEV003",),
    )
    assert _findings(project, "DEV003") == [("forward.py", 8), ("helpers.py", 5)]
    assert _answers(project, "DEV003") == {
        "forward.py": True,
        "helpers.py": True,  # called from `Net.forward`
        "model.py": False,  # `_init_weights` and `make_inputs` are not on the forward path
    }


def test_a_device_constant_deep_in_a_package_every_file_imports(tmp_path: Path) -> None:
    """Every ``import pkg`` can reach ``pkg.tools.convert.DEVICE``; only a use that names
    it is asked for (in transformers, such a constant sits in a conversion script)."""
    project = lint_project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tools/__init__.py": "",
            "pkg/tools/convert.py": 'DEVICE = "cuda"\n',
            "pkg/layers.py": "DTYPE = None\n",
            "other.py": _MODEL.format(imports="import pkg")
            + _FORWARD.format(name="pkg.layers.DTYPE"),
            "named.py": _MODEL.format(imports="import pkg")
            + _FORWARD.format(name="pkg.tools.convert.DEVICE"),
        },
        select=("DEV010",),
    )
    assert _findings(project, "DEV010") == [("named.py", 7)]
    answers = _answers(project, "DEV010")
    assert answers["named.py"] and not answers["other.py"]


def test_a_rebuilt_index_reuses_what_the_structure_answers(tmp_path: Path) -> None:
    """Later passes rebuild the index when functions returning processor output turn up;
    what depends only on modules, classes, functions and imports is not derived again."""
    project = lint_project(
        tmp_path,
        {
            "base.py": "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n",
            "net.py": "import torch\nfrom base import Base\nfrom helpers import noise\n\n\n"
            "class Net(Base):\n    def forward(self, x):\n        return noise(x)\n",
            "helpers.py": "import torch\n\n\ndef noise(x):\n    return torch.randn(3) + x\n",
        },
    )
    first = project.index
    assert first is not None
    facts = [r.analysis.facts for r in project.files if r.analysis.facts is not None]
    fresh = ProjectIndex(facts)
    reused = ProjectIndex(facts, same_structure=first)
    scopes = [
        Scope(class_name="net.Net", function_name="net.Net.forward", method="forward"),
        Scope(function_name="helpers.noise"),
        Scope(class_name="base.Base"),
    ]
    assert [reused.scope_info(s) for s in scopes] == [fresh.scope_info(s) for s in scopes]
    assert reused.scope_info(scopes[1]).forward_path
    assert reused._forward_functions is first._forward_functions


def test_0_dim_factories_count_only_where_an_operation_refuses_them(tmp_path: Path) -> None:
    """A 0-dim CPU tensor (``torch.rand([])``, ``torch.tensor(0.0)``) meets a device tensor
    in arithmetic and comparisons; the flow blames it only in an operation that refuses it
    (``torch.stack``, also imported under another name) in its own function: one in
    another method of the class does not make the file worth parsing."""
    model = (
        "import torch\nimport torch.nn as nn\nfrom torch import stack as pile\n\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        if torch.rand([]) < 0.1:\n            return x\n"
        "        return x * torch.tensor(0.5)\n\n"
        "    def pair(self, x):\n        return torch.cat([x, x])\n"
    )
    stacked = "return torch.stack([x.mean(), torch.rand([])])"
    renamed = "return pile([x.mean(), torch.tensor(0.0)])"
    project = lint_project(
        tmp_path,
        {
            "dropout.py": model,
            "stacked.py": model.replace("return x * torch.tensor(0.5)", stacked),
            "renamed.py": model.replace("return x * torch.tensor(0.5)", renamed),
        },
        select=("DEV003",),
    )
    assert _findings(project, "DEV003") == [("renamed.py", 10), ("stacked.py", 10)]
    assert _answers(project, "DEV003") == {
        "dropout.py": False,  # `torch.cat` is in `pair`, which makes no 0-dim tensor
        "renamed.py": True,
        "stacked.py": True,
    }


_WRITER = (
    "import torch\n\n\nclass Writer:\n"
    "    def extend(self, data):\n        return data + torch.ones(2, device=data.device)\n\n"
    "    def _replicate(self, {param}):\n"
    "        steps = torch.arange(4)\n"
    "        return {use}\n"
)


def test_a_plain_class_method_is_asked_for_only_where_it_may_take_a_tensor(
    tmp_path: Path,
) -> None:
    """A method that reads no device itself follows its inputs through a parameter holding
    a tensor (``index.repeat_interleave(n)``): there its file is asked for DEV003 and the
    CPU ``arange`` meeting it is a finding; where its parameters may hold no tensor (a
    count), the file need not be parsed, and nothing is found."""
    project = lint_project(
        tmp_path,
        {
            "tensor.py": _WRITER.format(param="index", use="index.repeat_interleave(2) + steps"),
            "count.py": _WRITER.format(param="n", use="[n] * 2 + steps.tolist()"),
        },
    )
    assert _answers(project, "DEV003") == {"count.py": False, "tensor.py": True}
    assert _findings(project, "DEV003") == [("tensor.py", 9)]


def test_a_plain_class_method_takes_a_tensor_only_through_a_tensor_annotation(
    tmp_path: Path,
) -> None:
    """Only a parameter annotated with a tensor type holds one for the flow
    (``_tensor_parameters``): a method whose parameters are annotated otherwise (a mode, a
    trainer) follows no input, and its file need not be parsed for it."""
    project = lint_project(
        tmp_path,
        {
            "tensor.py": _WRITER.format(param="index: torch.Tensor", use="index + steps"),
            "string.py": _WRITER.format(param='mode: "str"', use="[mode] * 2 + steps.tolist()"),
            "trainer.py": _WRITER.format(param="trainer: Trainer", use="trainer.fit(steps)"),
        },
    )
    assert _answers(project, "DEV003") == {
        "string.py": False,
        "tensor.py": True,
        "trainer.py": False,
    }
    assert _findings(project, "DEV003") == [("tensor.py", 9)]


_CONVERTER = (
    "import torch\n\n\nclass Converter:\n"
    "    def extend(self, data):\n        return data + torch.ones(2, device=data.device)\n\n"
    "    def convert(self, {param}, flag):\n"
    "{body}"
)


def test_only_a_factory_returned_beside_what_may_be_device_data_may_fall_back(
    tmp_path: Path,
) -> None:
    """A CPU fallback (``fallback_return``) is a factory's tensor returned by a function that
    returns device data on another path: its own ``return``s (a nested function's are its
    own), not those of a function nested in it. A
    conversion helper returning its input when it is a tensor (or a tensor of it else), a
    ``.cpu()`` copy returned beside a container, or two paths that both make a CPU tensor
    give none, and their files need not be parsed."""
    project = lint_project(
        tmp_path,
        {
            "fallback.py": _CONVERTER.format(
                param="value: torch.Tensor",
                body="        if flag:\n            return torch.zeros(3)\n"
                "        return value * 2\n",
            ),
            "nested_fallback.py": _CONVERTER.format(
                param="value",
                body="        def pick(x: torch.Tensor):\n"
                "            if flag:\n                return torch.zeros(3)\n"
                "            return x * 2\n\n"
                "        return pick(value)\n",
            ),
            "nested.py": _CONVERTER.format(
                param="value",
                body="        def as_tensor(v):\n"
                "            if torch.is_tensor(v):\n                return v\n"
                "            return torch.tensor(v)\n\n"
                "        return as_tensor(value)\n",
            ),
            "both_made.py": _CONVERTER.format(
                param="value",
                body="        if flag:\n            return torch.zeros(3)\n"
                "        return torch.tensor(value)\n",
            ),
            "copied.py": _CONVERTER.format(
                param="value",
                body="        def move(t):\n            return t.cpu()\n\n"
                "        if flag:\n            return None\n"
                "        return {k: move(v) for k, v in value.items()}\n",
            ),
        },
    )
    assert _answers(project, "DEV003") == {
        "both_made.py": False,
        "copied.py": False,
        "fallback.py": True,
        "nested.py": False,
        "nested_fallback.py": True,
    }
    assert _findings(project, "DEV003") == [("fallback.py", 10), ("nested_fallback.py", 11)]
