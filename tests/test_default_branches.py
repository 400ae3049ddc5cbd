"""A branch that only a parameter's non-default value runs never runs where no call gives
that parameter (``devlint.default_branches``, ``Needed.PARAMETER_GIVEN``): transformer-xl's
``_rel_shift(x, zero_triu=False)`` makes ``torch.ones`` only ``if zero_triu:``, and no call
passes it."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import package_findings as findings

from devlint.default_branches import skipped_by_defaults

_MODEL = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Attention(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n\n"
    "    def _shift(self, x, zero_triu=False):\n"
    "        if zero_triu:\n"
    "            x = x * torch.ones(x.size(0), x.size(1))\n"
    "        return x\n\n"
    "    def forward(self, x):\n"
    "        return self._shift(self.fc(x){given})\n"
    "{more}"
)
_TRAIN = (
    "import torch\n\nfrom pkg.model import Attention\n\n"
    'if __name__ == "__main__":\n'
    "    Attention()(torch.ones(2, 4))\n"
    "{more}"
)
_FOUND = [("model.py", 12, 21)]


@pytest.mark.parametrize(
    ("given", "model", "train", "expected"),
    [
        ("", "", "", []),
        (", True", "", "", _FOUND),
        (", zero_triu=True", "", "", _FOUND),
        (", **{'zero_triu': True}", "", "", _FOUND),
        ("", "\n\ndef other(layer, x):\n    return layer._shift(x, True)\n", "", _FOUND),
        ("", "", "    print(Attention()._shift)\n", _FOUND),
        ("", "", "", _FOUND),
        (
            "",
            "\n\ndef bound(layer):\n    return partial(layer._shift, zero_triu=True)\n",
            "",
            _FOUND,
        ),
        ("", "    @staticmethod\n    def helper():\n        pass\n", "", []),
    ],
    ids=[
        "no call gives it",
        "a call gives it by position",
        "a call gives it by keyword",
        "a call unpacks keywords",
        "a call on another object",
        "another file names it",
        "a package others may call",
        "handed on",
        "another method beside",
    ],
)
def test_a_branch_a_default_skips_runs_only_where_a_call_gives_the_parameter(
    given: str, model: str, train: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/model.py": _MODEL.format(given=given, more=model),
        "pkg/train.py": _TRAIN.format(more=train),
    }
    if expected and not (given or model or train):
        files["setup.py"] = ""
    assert findings(tmp_path, files, "DEV003") == expected


@pytest.mark.parametrize(
    ("function", "skipped"),
    [
        ("def f(x, flag=False):\n    if flag:\n        a = 1\n", ["flag:a = 1"]),
        (
            "def f(x, flag=True):\n    if flag:\n        a = 1\n    else:\n        b = 2\n",
            ["flag:else:\n    b = 2"],
        ),
        ("def f(x, flag=True):\n    if not flag:\n        a = 1\n", ["flag:a = 1"]),
        ("def f(x, m=None):\n    if m is not None:\n        a = 1\n", ["m:a = 1"]),
        ("def f(x, m=None):\n    if m is None:\n        a = 1\n", []),
        ("def f(x, m=3):\n    if m is None:\n        a = 1\n", ["m:a = 1"]),
        ("def f(x, flag=False):\n    return 1 if flag else 2\n", ["flag:1"]),
        ("def f(x, flag=False):\n    flag = flag or x\n    if flag:\n        a = 1\n", []),
        (
            "def f(x, flag=False):\n    for flag in x:\n        pass\n"
            "    if flag:\n        a = 1\n",
            [],
        ),
        ("def f(x, flag=EPS):\n    if flag:\n        a = 1\n", []),
        ("def f(x, flag=False):\n    if flag and x:\n        a = 1\n", []),
        ("def f(x, flag=False):\n    def g(flag=True):\n        if flag:\n            a = 1\n", []),
        (
            "def f(x, *, flag=0):\n    if x:\n        pass\n    elif flag:\n        a = 1\n",
            ["flag:a = 1"],
        ),
    ],
    ids=[
        "a false default",
        "a true default's else",
        "a negated test",
        "a None default tested as set",
        "a None default tested as unset",
        "a number tested as unset",
        "a conditional expression",
        "bound again",
        "a loop's target",
        "a default that is no literal",
        "a test of more than the parameter",
        "a nested function's own",
        "a keyword-only parameter's elif",
    ],
)
def test_the_branches_a_default_skips(function: str, skipped: list[str]) -> None:
    node = cst.parse_module(function).body[0]
    assert isinstance(node, cst.FunctionDef)
    found = [
        f"{name}:{cst.Module([]).code_for_node(branch).strip()}"
        for branch, name in skipped_by_defaults(node)
    ]
    assert found == skipped
