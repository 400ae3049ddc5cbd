"""Property tests: generated programs with device bugs spliced into model classes.

hypothesmith generates Python source (from CPython's grammar, and from libcst's
node types); the statements it makes are spliced into ``forward`` of a
LightningModule or a plain ``nn.Module``, together with device bugs (``x.cuda()``,
``x.to("cuda")``, ``torch.zeros(n)``...) as statements at random places, inside
the generated blocks too, and as expressions in place of generated integers.
For every such program:

- ``check`` never crashes, and a file both CPython and libcst parse is no DEV000;
- the output of ``fix`` (safe and unsafe) always parses, and compiles if the
  input did; no fix is ever refused as invalid;
- fixing is idempotent: the fixed file has nothing left to fix;
- safe fixes change only lines that had findings.

The example counts keep the file to well under a minute; raise them locally
(``DEVLINT_PROPERTY_EXAMPLES=500``) for a longer hunt.
"""

from __future__ import annotations

import ast
import difflib
import os
import random
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from conftest import lint_snippet
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from devlint.engine import FileResult, Project, fix_file
from devlint.findings import Applicability
from devlint.fixer import choose_fixes
from devlint.source import split_lines

EXAMPLES = int(os.environ.get("DEVLINT_PROPERTY_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,  # nothing written into the repository; a failure prints its reproducer
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)

TEMPLATES = {
    "lightning": (
        "import torch\n"
        "import pytorch_lightning as pl\n"
        "\n"
        "\n"
        "class Model(pl.LightningModule):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layer = torch.nn.Linear(3, 4).cuda()\n"
        "\n"
        "    def forward(self, x, n=3):\n"
        "        pass\n"
        "\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        return self(batch)\n"
    ),
    "plain": (
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x, n=3):\n"
        "        pass\n"
    ),
}
BUG_STATEMENTS = (
    "x = x.cuda()",
    'x = x.to("cuda")',
    "y = torch.zeros(n)",
    "x.cuda()",
    'w = torch.ones(2, 3, device="cuda:0")',
    "z = torch.arange(n).cuda()",
    "v = torch.tensor([1.0, 2.0])",
    "x = x.cuda(1)",
)
BUG_EXPRESSIONS = ("x.cuda()", 'x.to("cuda")', "torch.zeros(n)", "torch.arange(3)")
GRAMMAR = hypothesmith.from_grammar(auto_target=False)
"""Programs from CPython's grammar; targeting (bigger programs) costs more time than it finds."""


def statements(source: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(source).body)


class _Splicer(cst.CSTTransformer):
    """Puts bugs into the generated code: statements into blocks, expressions for integers."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if self.rng.random() < 0.5:
            return updated_node
        body = list(updated_node.body)
        body.insert(self.rng.randint(0, len(body)), self._bug_statement())
        return updated_node.with_changes(body=body)

    def leave_Integer(
        self, original_node: cst.Integer, updated_node: cst.Integer
    ) -> cst.BaseExpression:
        if self.rng.random() < 0.7:
            return updated_node
        return cst.parse_expression(self.rng.choice(BUG_EXPRESSIONS))

    def _bug_statement(self) -> cst.BaseStatement:
        return cst.parse_statement(self.rng.choice(BUG_STATEMENTS) + "\n")


class _IntoForward(cst.CSTTransformer):
    def __init__(self, body: list[cst.BaseStatement]) -> None:
        self.body = body

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        if original_node.name.value != "forward":
            return updated_node
        block = updated_node.body
        assert isinstance(block, cst.IndentedBlock)
        return updated_node.with_changes(body=block.with_changes(body=self.body))


def splice(template: str, generated: str, rng: random.Random) -> str | None:
    """The template with ``generated`` (and bugs) as the body of ``forward``."""
    try:
        module = cst.parse_module(generated)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    spliced = module.visit(_Splicer(rng))
    body = list(spliced.body)
    for _ in range(rng.randint(1, 3)):
        body.insert(rng.randint(0, len(body)), _Splicer(rng)._bug_statement())
    if not body:
        body = [cst.parse_statement("pass\n")]
    try:
        return cst.parse_module(template).visit(_IntoForward(body)).code
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None


@st.composite
def programs(draw: st.DrawFn) -> str:
    generated = draw(st.one_of(GRAMMAR, hypothesmith.from_node(auto_target=False), st.just("")))
    template = draw(st.sampled_from(sorted(TEMPLATES)))
    rng = draw(st.randoms(use_true_random=False))
    source = splice(TEMPLATES[template], generated, rng)
    assume(source is not None)
    assert source is not None
    return source


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """One folder for every example (hypothesis runs many per test function)."""
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return False
    return True


def compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():  # generated code: "'int' object is not callable"...
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(text, "model.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def python_parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def checked(folder: Path, source: str) -> tuple[Project, FileResult]:
    return lint_snippet(folder, source, select=("ALL",), name="model.py")


@SETTINGS
@given(source=st.one_of(programs(), GRAMMAR))
def test_check_never_crashes(folder: Path, source: str) -> None:
    _, result = checked(folder, source)
    if parses(source) and python_parses(source):
        assert [f for f in result.findings if f.code == "DEV000"] == []


@SETTINGS
@given(source=programs())
def test_fix_output_parses_and_fixing_is_idempotent(folder: Path, source: str) -> None:
    project, result = checked(folder, source)
    outcome = fix_file(project, result, unsafe=True)
    if outcome is None:
        assert not choose_fixes(result.findings, unsafe=True)
        return
    assert outcome.error is None, outcome.details
    assert parses(outcome.text)
    if compiles(source):
        assert compiles(outcome.text)
    assert not choose_fixes(result.findings, unsafe=True)  # what the last pass left
    project, again = checked(folder, outcome.text)
    assert fix_file(project, again, unsafe=True) is None
    assert not choose_fixes(again.findings, unsafe=True)


@SETTINGS
@given(source=programs())
def test_safe_fixes_change_only_lines_with_findings(folder: Path, source: str) -> None:
    project, result = checked(folder, source)
    lines_with_findings = {
        row
        for finding in result.findings
        if finding.fix is not None and finding.fix.applicability is Applicability.SAFE
        for row in range(finding.start.row, finding.end.row + 1)
    }
    outcome = fix_file(project, result, unsafe=False)
    if outcome is None:
        return
    assert outcome.error is None, outcome.details
    assert parses(outcome.text)
    before, after = split_lines(source), split_lines(outcome.text)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        changed = set(range(first + 1, last + 1)) or {first, first + 1}  # an insertion: a neighbour
        assert changed & lines_with_findings, (tag, before[first:last], sorted(lines_with_findings))
        if last > first:
            assert changed <= lines_with_findings, (before[first:last], lines_with_findings)
