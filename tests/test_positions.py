"""Positions from generating only the def or class around a node equal libcst's own.

The traversal generates the code of the innermost def or class holding a candidate
(not the whole file) and finds it in the text; these sources try to make that go
wrong: odd indentation, line ends, decorators, code that occurs twice.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import devlint.traversal
from devlint.rules.base import FileContext, Rule
from devlint.traversal import Traversal

_NODE_TYPES = tuple(
    sorted(
        name
        for name, value in vars(cst).items()
        if isinstance(value, type) and issubclass(value, cst.CSTNode)
    )
)

SOURCES = {
    "methods": (
        "import torch\n\n\nclass Model:\n"
        '    """Doc."""\n\n    size = (1, 2)\n\n'
        "    def __init__(self, n):\n        self.n = (n +\n                  1)\n\n"
        "    async def forward(self, x):\n        return [y for y in ((x), x)]\n"
    ),
    "nested functions": (
        "def outer(a):\n    def middle(b):\n        def inner(c):\n"
        "            return (a, b, c)\n        return inner\n    return middle\n"
    ),
    "classes in functions": (
        "def factory():\n    class Local:\n        def method(self):\n"
        "            class Deeper:\n                value = 1\n            return Deeper\n"
        "    return Local\n"
    ),
    "decorators and comments": (
        "import functools\n\n\nclass Service:\n"
        "    # owned by the method\n"
        "    @property\n"
        "    # between decorators\n"
        "        # indented oddly\n"
        "    @functools.cache  # trailing\n"
        "# at column 0\n"
        "\n"
        "    def value(self):\n        return (1)\n\n"
        "    @staticmethod\n    def other(): return 2\n"
        "        # block footer\n"
        "# module comment\n"
        "x = 1\n"
    ),
    "tabs": "class Tabs:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn (1,\n\t\t\t\t2)\n",
    "mixed indentation": (
        "class Mixed:\n  def two(self):\n        return 8\n"
        "  def again(self):\n   if True:\n    return 1\n   else:\n    \treturn (\n\t2)\n"
        "  def tab(self):\n  \tdef inner():\n  \t  return 3\n"
    ),
    "crlf": "class Crlf:\r\n    def f(self):\r\n        return (1,\r\n            2)\r\n",
    "lone cr": "class Cr:\r    def f(self):\r        return 1\r",
    "form feeds": (
        "class A:\n    def f(self):\n        return (1,\n\x0c  2)\n\x0c\n"
        "    def g(self):\n        return 2\n"
    ),
    "form feed before an indent": (
        "class A:\n    def f(self):\n        return 1\n\x0c    def g(self):\n        return 2\n"
        "\x0cdef top():\n    def inner():\n        return 4\n"
    ),
    "deep blocks": (
        "class Deep:\n    def method(self, items):\n        for item in items:\n"
        "            with open(item) as handle:\n                if handle:\n"
        "                    try:\n                        while True:\n"
        "                            def helper(x=(1, 2)):\n"
        "                                return x\n                            break\n"
        "                    except (OSError,\n                            ValueError):\n"
        "                        pass\n                    else:\n"
        "                        class Found:\n                            pass\n"
        "        match items:\n            case [first, *rest]:\n"
        "                def on_match():\n                    return first\n"
        "            case _:\n                pass\n"
    ),
    "body on the def line": (
        "def f(): return x\nclass C:\n    def g(self): return (self,\n        1)\n"
        "    class D: pass\n"
    ),
    "continuation lines": "class K:\n    def f(self):\n        y = 1 + \\\n            2; z = y\n",
    "no trailing newline": "class A:\n    def f(self):\n        return (1)",
}
NEEDS_THE_MODULE = {"form feed before an indent", "no trailing newline"}
"""libcst drops a form feed before an indent, and its code of the last line of a file
always ends in a line break: such code is not in the text."""


def _inside_the_module(node: cst.CSTNode) -> bool:
    """Every node but the module itself (whose position needs the whole module's code)."""
    return not isinstance(node, cst.Module)


class _Reporter(Rule):
    """Reports every node ``wanted`` accepts, and the parentheses around expressions."""

    code = "TST001"
    name = "report-nodes"
    summary = "Reports nodes so that their positions get computed."
    node_types = _NODE_TYPES

    def __init__(self, wanted: Callable[[cst.CSTNode], bool] = _inside_the_module) -> None:
        self.wanted = wanted
        self.reported: list[cst.CSTNode] = []

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if not self.wanted(node):
            return
        parens = (*node.lpar, *node.rpar) if isinstance(node, cst.BaseExpression) else ()
        for each in (node, *parens):
            self.reported.append(each)
            context.report(self.code, each)


def _positions(
    source: str, monkeypatch: pytest.MonkeyPatch, reporter: _Reporter
) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, int, int]], list[cst.CSTNode]]:
    """(Computed, libcst's) positions of the reported nodes, and the nodes generated."""
    generate = devlint.traversal._generate_positions
    generated: list[cst.CSTNode] = []

    def recording(
        module: cst.Module, node: cst.CSTNode, *args: object
    ) -> tuple[str, dict[cst.CSTNode, cst.metadata.CodeRange]]:
        generated.append(node)
        return generate(module, node, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(devlint.traversal, "_generate_positions", recording)
    module = cst.parse_module(source)
    result = Traversal(module, "snippet", False, [reporter], text=source).run()
    computed = [
        (c.start.row, c.start.column - 1, c.end.row, c.end.column - 1) for c in result.candidates
    ]
    libcst_positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    expected = [
        (span.start.line, span.start.column, span.end.line, span.end.column)
        for span in map(libcst_positions.__getitem__, reporter.reported)
    ]
    return computed, expected, generated


@pytest.mark.parametrize("name", SOURCES)
def test_positions_match_libcst(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    computed, expected, generated = _positions(SOURCES[name], monkeypatch, _Reporter())
    assert len(expected) > 5
    assert computed == expected
    # Each def and class found in the text at once, or the safety net hides a bug here.
    assert len({id(node) for node in generated}) == len(generated)
    assert ("Module" in _generated_names(generated)) == (name in NEEDS_THE_MODULE)


def _named(name: str) -> Callable[[cst.CSTNode], bool]:
    return lambda node: isinstance(node, cst.Name) and node.value == name


def _generated_names(generated: list[cst.CSTNode]) -> list[str]:
    return [
        node.name.value
        if isinstance(node, (cst.FunctionDef, cst.ClassDef))
        else type(node).__name__
        for node in generated
    ]


def test_only_the_innermost_def_is_generated(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "class Big:\n    def first(self):\n        return 1\n\n"
        "    def second(self):\n        class Inner:\n            @property\n"
        "            def third(self):\n                return target\n"
    )
    computed, expected, generated = _positions(source, monkeypatch, _Reporter(_named("target")))
    assert computed == expected == [(9, 23, 9, 29)]
    assert _generated_names(generated) == ["third"]


def test_a_method_copied_into_two_classes_falls_back_to_its_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    same = "    def same(self):\n        return torch.zeros(target)\n"
    source = f"class A:\n{same}\n\nclass B:\n    x = 1\n{same}"
    computed, expected, generated = _positions(source, monkeypatch, _Reporter(_named("target")))
    assert computed == expected == [(3, 27, 3, 33), (9, 27, 9, 33)]
    assert _generated_names(generated) == ["same", "A", "same", "B"]


def test_a_copied_top_level_statement_falls_back_to_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    twice = "def twice():\n    def inner():\n        return target\n"
    source = f"{twice}\n\n{twice}"
    computed, expected, generated = _positions(source, monkeypatch, _Reporter(_named("target")))
    assert computed == expected == [(3, 15, 3, 21), (8, 15, 8, 21)]
    assert _generated_names(generated) == ["inner", "twice", "Module"]
