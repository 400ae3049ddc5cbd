"""Per-element summaries: a function returning a tuple tells callers in other files where
each element comes from, and a caller reading one element (``a, b = f(x)``, ``f(x)[1]``,
``out = f(x); out[1]``) places a requirement on that element alone."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from conftest import lint_project

from devlint.facts import FlowSummary, resolve_alias
from devlint.flow.cache import FileFlows
from devlint.flow.summary import summarise
from devlint.nodes import dotted_name

HELPERS = """\
import torch


def split(x: torch.Tensor):
    return x * 2, torch.ones(x.size(0))


def paired(t: torch.Tensor, x: torch.Tensor):
    return t * 2, x + 1


def normalized(points: torch.Tensor):
    scale = torch.ones(3, device=points.device)
    return points / 2, scale, torch.ones(3), helper(points)
"""

MODEL = """\
import torch
from torch import nn

from pkg.helpers import paired, split


class Model(nn.Module):
    def forward(self, x):
        {body}
"""


def check(tmp_path: Path, body: str) -> list[tuple[str, int, int]]:
    model = MODEL.replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/model.py": model}
    project = lint_project(tmp_path, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column)
        for r in project.files
        for f in r.findings
    ]


def test_summary_gives_each_element_its_origin() -> None:
    module = cst.parse_module(HELPERS)

    def resolve(node: cst.BaseExpression) -> str | None:
        name = dotted_name(node)
        return None if name is None else resolve_alias(name, {"torch": "torch"})

    flows = FileFlows(lambda: module, resolve)
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    summaries = [summarise(flows.function(f, None), f"pkg.{f.name.value}") for f in functions]
    assert [(s.parts, s.parts_via) for s in summaries] == [
        (("param", "cpu"), (("x",), ())),
        (("param", "param"), (("t",), ("x",))),
        # `scale` takes the points' device; `helper` is no function the file knows.
        (("param", "param", "cpu", "unknown"), (("points",), ("points",), (), ())),
    ]
    assert summaries[0] == FlowSummary(
        "pkg.split",
        ("x",),
        returns=("x",),
        parts=("param", "cpu"),
        parts_via=(("x",), ()),
    )


@pytest.mark.parametrize(
    "body",
    [
        "first, rows = split(x)\nreturn x + rows\n",
        "return x + split(x)[1]\n",
        "out = split(x)\nreturn x * out[1]\n",
    ],
)
def test_a_cpu_element_met_by_a_caller_is_found_where_it_is_made(tmp_path: Path, body: str) -> None:
    assert check(tmp_path, body) == [("helpers.py", 5, 19)]


@pytest.mark.parametrize(
    "body",
    [
        "first, rows = split(x)\nreturn x + first\n",
        "return x + split(x)[0]\n",
        "out = split(x)\nreturn x * out[0] + out[1].to(x.device)\n",
        "first, rows = split(x)\nreturn x + rows.to(x.device)\n",
    ],
)
def test_no_finding_when_only_the_device_elements_meet_the_device(
    tmp_path: Path, body: str
) -> None:
    assert check(tmp_path, body) == []


def test_a_cpu_tensor_coming_back_as_the_element_that_follows_it(tmp_path: Path) -> None:
    body = "doubled, shifted = paired(torch.arange(3), x)\nreturn x + doubled\n"
    assert check(tmp_path, body) == [("model.py", 9, 35)]


def test_no_finding_when_the_element_met_follows_another_argument(tmp_path: Path) -> None:
    body = "doubled, shifted = paired(torch.arange(3), x)\nreturn x + shifted\n"
    assert check(tmp_path, body) == []
