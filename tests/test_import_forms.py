"""How a file imports torch changes nothing about what devlint finds in it.

Each INVALID rule example is rewritten three ways and must give the same findings
(codes, lines, columns) as written: ``import torch`` as ``import torch as <alias>`` with
every use renamed, ``from torch import zeros`` as ``from torch import zeros as <alias>``
with its uses renamed, and ``import pkg.mod as m`` as ``from pkg import mod as m``. The
aliases are as long as the names they replace, so no column moves. The prefilter runs
(its triggers must see through the aliases), and so do all rules, not only the example's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import libcst as cst
import pytest
from conftest import lint_snippet
from libcst.metadata import MetadataWrapper, ScopeProvider

from devlint.rules import all_rules

Rewrite = Callable[[str], str]


def _renamed(source: str, wanted: Callable[[cst.ImportAlias, cst.CSTNode], str | None]) -> str:
    """``source`` with each import alias that ``wanted`` names anew (given the alias and its
    statement) bound to that name, and every use of it renamed; unchanged where libcst's
    scopes do not show all its uses as plain names."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    scopes = wrapper.resolve(ScopeProvider)
    aliases: dict[cst.ImportAlias, str] = {}
    uses: dict[cst.Name, str] = {}
    for node, scope in scopes.items():
        if not isinstance(node, (cst.Import, cst.ImportFrom)) or scope is None:
            continue
        if isinstance(node.names, cst.ImportStar):
            continue
        for alias in node.names:
            new = wanted(alias, node)
            if new is None or alias.asname is not None or new in source:
                continue
            bound = cst.helpers.get_full_name_for_node(alias.name) or ""
            assignments = list(scope.assignments[bound])
            accesses = [access.node for a in assignments for access in a.references]
            if len(assignments) != 1 or not all(isinstance(n, cst.Name) for n in accesses):
                continue
            aliases[alias] = new
            uses.update({n: new for n in accesses if isinstance(n, cst.Name)})

    class Rename(cst.CSTTransformer):
        def leave_ImportAlias(
            self, original: cst.ImportAlias, updated: cst.ImportAlias
        ) -> cst.ImportAlias:
            new = aliases.get(original)
            if new is None:
                return updated
            return updated.with_changes(asname=cst.AsName(name=cst.Name(new)))

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            new = uses.get(original)
            return updated if new is None else updated.with_changes(value=new)

    return wrapper.module.visit(Rename()).code


def torch_under_an_alias(source: str) -> str:
    """``import torch`` -> ``import torch as ptrch`` (as long as ``torch``)."""

    def wanted(alias: cst.ImportAlias, statement: cst.CSTNode) -> str | None:
        plain = isinstance(statement, cst.Import) and isinstance(alias.name, cst.Name)
        return "ptrch" if plain and alias.name.value == "torch" else None

    return _renamed(source, wanted)


def torch_names_under_aliases(source: str) -> str:
    """``from torch import zeros`` -> ``from torch import zeros as zeroQ``."""

    def wanted(alias: cst.ImportAlias, statement: cst.CSTNode) -> str | None:
        if not (isinstance(statement, cst.ImportFrom) and statement.module is not None):
            return None
        module = cst.helpers.get_full_name_for_node(statement.module) or ""
        name = alias.name.value if isinstance(alias.name, cst.Name) else ""
        from_torch = not statement.relative and module.split(".")[0] == "torch"
        return f"{name[:-1]}Q" if from_torch and len(name) > 1 else None

    return _renamed(source, wanted)


def modules_imported_from_their_package(source: str) -> str:
    """``import torch.nn.functional as F`` -> ``from torch.nn import functional as F``
    (``import torch.nn as nn`` -> ``from torch import nn``)."""

    class FromPackage(cst.CSTTransformer):
        def leave_SimpleStatementLine(
            self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
        ) -> cst.SimpleStatementLine:
            body = [_from_package(small) for small in updated.body]
            return updated.with_changes(body=body)

    return cst.parse_module(source).visit(FromPackage()).code


def _from_package(small: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
    if not (isinstance(small, cst.Import) and len(small.names) == 1):
        return small
    (alias,) = small.names
    if alias.asname is None or not isinstance(alias.name, cst.Attribute):
        return small
    bound = alias.asname.name
    assert isinstance(bound, cst.Name)
    last = alias.name.attr
    asname = None if bound.value == last.value else alias.asname
    return cst.ImportFrom(
        module=alias.name.value, names=[cst.ImportAlias(name=last, asname=asname)]
    )


REWRITES: Sequence[Rewrite] = (
    torch_under_an_alias,
    torch_names_under_aliases,
    modules_imported_from_their_package,
)


def _parses(source: str) -> bool:
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return False  # DEV000's example: nothing to rewrite
    return True


CASES = [
    pytest.param(example.code, rewrite(example.code), id=f"{rule.code}-{number}-{rewrite.__name__}")
    for rule in all_rules()
    for number, example in enumerate(rule.INVALID)
    if _parses(example.code)
    for rewrite in REWRITES
    if rewrite(example.code) != example.code
]


def _found(folder: Path, source: str) -> list[tuple[str, int, int]]:
    _, result = lint_snippet(folder, source, select=("ALL",))
    return sorted((f.code, f.start.row, f.start.column) for f in result.findings)


@pytest.mark.parametrize(("original", "rewritten"), CASES)
def test_the_same_findings_however_torch_is_imported(
    original: str, rewritten: str, tmp_path: Path
) -> None:
    expected = _found(tmp_path / "original", original)
    assert expected, "an invalid example is flagged"
    assert _found(tmp_path / "rewritten", rewritten) == expected


def test_each_rewrite_applies_to_some_example() -> None:
    """The rewrites are not vacuous: each changes some example as described."""
    applied = {str(case.id).rpartition("-")[2] for case in CASES}
    assert applied == {rewrite.__name__ for rewrite in REWRITES}
    assert torch_under_an_alias("import torch\nx = torch.zeros(3)\n") == (
        "import torch as ptrch\nx = ptrch.zeros(3)\n"
    )
    assert torch_names_under_aliases("from torch import zeros\nx = zeros(3)\n") == (
        "from torch import zeros as zeroQ\nx = zeroQ(3)\n"
    )
    assert modules_imported_from_their_package(
        "import torch.nn.functional as F\nimport torch.nn as nn\n"
    ) == ("from torch.nn import functional as F\nfrom torch import nn\n")
