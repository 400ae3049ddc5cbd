"""Results joined across files: a function returning a 0-dim CPU tensor where its other
returns are on the device is a finding where callers in other files hand its results to a
function that joins them into one tensor (``torch.cat`` of a parameter); a wrapper that
hands its own ``*args, **kwargs`` on is the function it calls."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import package_findings

from devlint.facts import resolve_alias
from devlint.flow.cache import FileFlows
from devlint.flow.inference import FunctionFlow
from devlint.flow.summary import summarise
from devlint.nodes import dotted_name

SCORE = """\
import torch


def score(iou: torch.Tensor, labels_eq: bool = True) -> torch.Tensor:
    if labels_eq:
        return iou.diag().mean()
    return iou.mean() if iou.numel() > 0 else {zero}
"""

JOIN = """\
import torch


def cat_all(x):
    if isinstance(x, torch.Tensor):
        return x
    x = [y.unsqueeze(0) if y.numel() == 1 and y.ndim == 0 else y for y in x]
    return torch.cat(x, dim=0)


def total(x):
    return sum(x)
"""

MODEL = """\
from typing import Any

import torch
from torch import nn

from pkg.data import cat_all, total
from pkg.functional import score


class IoU(nn.Module):
    @staticmethod
    def _score_fn(*args: Any, **kwargs: Any) -> torch.Tensor:
        return score(*args, **kwargs)

    def forward(self, ious, same):
        return {use}
"""

ZERO = "torch.tensor(0.0)"
JOINED = "cat_all([self._score_fn(iou, eq) for iou, eq in zip(ious, same)])"


def check(tmp_path: Path, zero: str = ZERO, use: str = JOINED) -> list[tuple[str, int, int]]:
    files = {
        "pkg/functional.py": SCORE.replace("{zero}", zero),
        "pkg/data.py": JOIN,
        "pkg/model.py": MODEL.replace("{use}", use),
    }
    return package_findings(tmp_path, files, "DEV003")


def test_zero_dim_fallback_joined_by_another_file(tmp_path: Path) -> None:
    assert check(tmp_path) == [("functional.py", 7, 47)]


def test_called_directly(tmp_path: Path) -> None:
    use = "cat_all([score(iou, eq) for iou, eq in zip(ious, same)])"
    assert check(tmp_path, use=use) == [("functional.py", 7, 47)]


def test_added_up_not_joined(tmp_path: Path) -> None:
    """Arithmetic lets a 0-dim CPU tensor meet the device: a sum of the results is fine."""
    use = "total([self._score_fn(iou, eq) for iou, eq in zip(ious, same)])"
    assert check(tmp_path, use=use) == []


def test_placed_zero(tmp_path: Path) -> None:
    assert check(tmp_path, zero="torch.tensor(0.0).to(iou.device)") == []


def test_every_result_on_the_cpu(tmp_path: Path) -> None:
    """No return on the device: the joined results are all on the CPU."""
    files = {
        "pkg/functional.py": "import torch\n\n\ndef score(n):\n    return torch.tensor(0.0)\n",
        "pkg/data.py": JOIN,
        "pkg/model.py": MODEL.replace("{use}", JOINED).replace("iou, eq) for", "eq) for"),
    }
    assert package_findings(tmp_path, files, "DEV003") == []


PASSING = """\
from typing import Any

import torch
from torch import nn

from pkg.functional import offsets


class Net(nn.Module):
    @staticmethod
    def _offsets_fn({params}) -> torch.Tensor:
        return offsets(*args, **kwargs)

    def forward(self, x):
        return x + self._offsets_fn(x.shape[0])
"""

OFFSETS = "import torch\n\n\ndef offsets(n: int) -> torch.Tensor:\n    return torch.zeros(n)\n"


def test_wrapper_passing_its_arguments_on(tmp_path: Path) -> None:
    files = {
        "pkg/functional.py": OFFSETS,
        "pkg/model.py": PASSING.replace("{params}", "*args: Any, **kwargs: Any"),
    }
    assert package_findings(tmp_path, files, "DEV003") == [("functional.py", 5, 12)]


@pytest.mark.parametrize(
    ("params", "passes"),
    [
        ("*args, **kwargs", True),
        ("self, *args, **kwargs", True),
        ("n, *args, **kwargs", False),  # the caller's first argument is not the callee's
        ("*args, scale=1, **kwargs", False),
    ],
)
def test_what_passes_its_arguments_through(params: str, passes: bool) -> None:
    source = f"from pkg.functional import offsets\n\n\ndef wrap({params}):\n"
    source += "    return offsets(*args, **kwargs)\n"
    assert flow_of(source, "wrap").passes_through is passes


def test_summary_names_the_joined_parameter() -> None:
    flow = flow_of(JOIN, "cat_all")
    assert summarise(flow, "pkg.data.cat_all").joins == ("x",)
    assert summarise(flow_of(JOIN, "total"), "pkg.data.total").joins == ()


def flow_of(source: str, name: str) -> FunctionFlow:
    module = cst.parse_module(source)
    aliases = {"torch": "torch", "offsets": "pkg.functional.offsets"}

    def resolve(node: cst.BaseExpression) -> str | None:
        found = dotted_name(node)
        return None if found is None else resolve_alias(found, aliases)

    (function,) = [
        s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name
    ]
    return FileFlows(lambda: module, resolve).function(function, None)
