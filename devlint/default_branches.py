"""Branches that run only where a call gives a parameter other than its default.

``def _rel_shift(self, x, zero_triu=False):`` then ``if zero_triu: ones = torch.ones(...)``:
where no call of ``_rel_shift`` passes ``zero_triu``, the branch never runs, nor does
anything a rule finds in it. The file tells which branch the default skips; whether some
call gives the parameter, only the project's call shapes tell (``ProjectIndex``, through
``Needed.PARAMETER_GIVEN``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from devlint.nodes import descendants, iter_children

_UNSET = object()
"""A default that is no literal whose truth is plain (``dim=-1`` is, ``eps=EPS`` is not)."""


def skipped_by_defaults(function: cst.FunctionDef) -> Iterator[tuple[cst.CSTNode, str]]:
    """The branches of ``function``'s own body (not of a function or class it defines)
    that its parameters' literal defaults skip, each with that parameter: ``if flag:``
    under ``flag=False``, its ``else`` under ``flag=True``, ``if mask is not None:`` under
    ``mask=None``, an outcome of ``a if flag else b`` alike. Not where the body binds the
    parameter again (``flag = flag or x``)."""
    defaults = _literal_defaults(function)
    if not defaults:
        return
    rebound = _rebound(function.body)
    for branch in _own_ifs(function.body):
        tested = _tested(branch.test)
        if tested is None or tested[0] not in defaults or tested[0] in rebound:
            continue
        name, runs_when = tested
        runs = runs_when(defaults[name])
        skipped = branch.orelse if runs else branch.body
        if skipped is not None:
            yield skipped, name


def _literal_defaults(function: cst.FunctionDef) -> dict[str, object]:
    """The parameters with a default written as ``True``, ``False``, ``None``, a number or
    a string, and its value."""
    params = function.params
    found: dict[str, object] = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        value = _literal(param.default) if param.default is not None else _UNSET
        if value is not _UNSET:
            found[param.name.value] = value
    return found


def _literal(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return node.evaluated_value
    return _UNSET


def _tested(test: cst.BaseExpression) -> tuple[str, Callable[[object], bool]] | None:
    """The parameter an ``if``'s test reads alone, and when its body runs given the
    parameter's value: ``p``, ``not p``, ``p is None``, ``p is not None``."""
    if isinstance(test, cst.Name):
        return test.value, bool
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        if isinstance(test.expression, cst.Name):
            return test.expression.value, _falsy
        return None
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        operator = test.comparisons[0].operator
        if isinstance(operator, cst.Is):
            return test.left.value, _is_none
        if isinstance(operator, cst.IsNot):
            return test.left.value, _is_not_none
    return None


def _falsy(value: object) -> bool:
    return not value


def _is_none(value: object) -> bool:
    return value is None


def _is_not_none(value: object) -> bool:
    return value is not None


def _own_ifs(body: cst.BaseSuite) -> Iterator[cst.If | cst.IfExp]:
    """The ``if`` statements of a body, ``elif`` ones too, and its conditional expressions,
    not inside a function, class or lambda it defines."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.IfExp)):
            yield node
        for child in iter_children(node):
            if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                stack.append(child)


_BINDERS = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.AsName)


def _rebound(body: cst.BaseSuite) -> set[str]:
    """The names a body may bind again: assigned, augmented, a loop's or a ``with``'s or
    an ``except``'s target, a walrus's, or declared ``global``/``nonlocal`` (any name
    there)."""
    found: set[str] = set()
    for node in descendants(body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            found.update(item.name.value for item in node.names)
        elif isinstance(node, _BINDERS):
            target = node.target if not isinstance(node, cst.AsName) else node.name
            found.update(part.value for part in descendants(target) if isinstance(part, cst.Name))
    return found
