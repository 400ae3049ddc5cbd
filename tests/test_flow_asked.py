"""Which calls make DEV003 ask for a function's device flow: the flow costs most of a
walk, so only a call that may make a CPU tensor of its own (``places_by_default``) asks."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from devlint.flow.cache import FileFlows
from devlint.rules import rule_by_code
from devlint.traversal import Traversal

HEADER = (
    "import torch\nfrom torch import nn\n\n\n"
    "class M(nn.Module):\n    def forward(self, x, buf, **kw):\n"
)


def functions_analysed(body: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The functions whose flow DEV003's walk of ``forward`` (with ``body``) asked for."""
    asked: list[str] = []
    original = FileFlows.function

    def function(self: FileFlows, node: cst.FunctionDef, owner: cst.ClassDef | None) -> object:
        asked.append(node.name.value)
        return original(self, node, owner)

    monkeypatch.setattr(FileFlows, "function", function)
    source = HEADER + textwrap.indent(textwrap.dedent(body), " " * 8)
    rule = rule_by_code("DEV003")
    assert rule is not None
    Traversal(cst.parse_module(source), "pkg.model", False, [rule], text=source).run()
    return asked


@pytest.mark.parametrize(
    "body",
    [
        "return x + torch.zeros(3, device=x.device)",
        "return x + torch.arange(3, out=buf)",
        "return x + torch.ones(3, **kw)",
        "return self.proj(x).softmax(-1)",  # no factory at all
    ],
)
def test_a_factory_its_arguments_place_asks_for_no_flow(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert functions_analysed(body, monkeypatch) == []


def test_a_factory_placed_by_default_asks_for_the_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "forward" in functions_analysed("return x + torch.zeros(3)", monkeypatch)
