"""Code that runs in one process of a distributed job: under ``if rank == 0:`` or
``if accelerator.is_main_process:``, after ``if not is_main_process: return``, or in a
function decorated with ``@rank_zero_only``.

Whatever each rank would do there (load a model over every GPU, write a checkpoint), only
the first process does it, so it is not done once per rank.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst

from devlint.nodes import dotted_name
from devlint.symbols import GLOBAL_RANK_NAMES, MAIN_PROCESS_DECORATORS, MAIN_PROCESS_FLAGS

_RANK_NAMES = GLOBAL_RANK_NAMES | {"local_process_index"}
"""What holds or returns a process's rank besides the names ending in ``rank``."""
_FIRST_RANKS = frozenset({0, -1})
"""``local_rank in (-1, 0)``: the first process, or the only one (``-1``: not distributed)."""


def on_one_process(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The node whose ``ancestors`` these are runs in the first process only."""
    for position, node in enumerate(ancestors[:-1]):
        child = ancestors[position + 1]
        if isinstance(node, cst.If):
            if child is node.body and _first_process(node.test):
                return True
            if child is node.orelse and _other_processes(node.test):
                return True
        elif isinstance(node, cst.FunctionDef) and any(
            _last_name(d.decorator) in MAIN_PROCESS_DECORATORS for d in node.decorators
        ):
            return True
        if isinstance(node, (cst.Module, cst.IndentedBlock)) and _left_by_others(node, child):
            return True
    return False


def _left_by_others(block: cst.Module | cst.IndentedBlock, statement: cst.CSTNode) -> bool:
    """A statement of ``block`` before ``statement`` sends every other process away:
    ``if not accelerator.is_main_process: return``."""
    for earlier in block.body:
        if earlier is statement:
            return False
        if (
            isinstance(earlier, cst.If)
            and earlier.orelse is None
            and _other_processes(earlier.test)
            and _exits(earlier.body)
        ):
            return True
    return False


def _exits(body: cst.BaseSuite) -> bool:
    """The block ends by leaving the function or the loop (``return``, ``raise``, ...)."""
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) else body
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
    return False


def _first_process(test: cst.BaseExpression) -> bool:
    """``rank == 0``, ``local_rank in (-1, 0)``, ``accelerator.is_main_process``,
    ``trainer.is_world_process_zero()``, or an ``and`` with one of them."""
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And):
            return _first_process(test.left) or _first_process(test.right)
        return _first_process(test.left) and _first_process(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _other_processes(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.Equal, cst.Is)):
            return _compares_rank(test.left, target.comparator, {0})
        if isinstance(target.operator, cst.In):
            numbers = _numbers(target.comparator)
            return numbers is not None and numbers <= _FIRST_RANKS and _is_rank(test.left)
        return False
    return _last_name(test) in MAIN_PROCESS_FLAGS


def _other_processes(test: cst.BaseExpression) -> bool:
    """``not accelerator.is_main_process``, ``rank != 0``, ``rank > 0``: every process
    but the first."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _first_process(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.NotEqual, cst.IsNot, cst.GreaterThan)):
            return _compares_rank(test.left, target.comparator, {0})
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _other_processes(test.left) or _other_processes(test.right)
    return False


def _compares_rank(left: cst.BaseExpression, right: cst.BaseExpression, numbers: set[int]) -> bool:
    """One side is a rank, the other one of ``numbers``."""
    for rank, number in ((left, right), (right, left)):
        value = _numbers(number)
        if value is not None and len(value) == 1 and value <= numbers and _is_rank(rank):
            return True
    return False


def _is_rank(value: cst.BaseExpression) -> bool:
    """``rank``, ``args.local_rank``, ``dist.get_rank()``, ``accelerator.process_index``."""
    name = _last_name(value)
    return name is not None and (name.lower().endswith("rank") or name in _RANK_NAMES)


def _numbers(value: cst.BaseExpression) -> set[int] | None:
    """The integers a literal (``0``, ``-1``, ``(-1, 0)``, ``[0]``) holds; None: not one."""
    if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        found: set[int] = set()
        for element in value.elements:
            numbers = _numbers(element.value)
            if numbers is None:
                return None
            found |= numbers
        return found
    if isinstance(value, cst.Integer):
        return {ast.literal_eval(value.value)}
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
    ):
        return {-ast.literal_eval(value.expression.value)}
    return None


def _last_name(value: cst.BaseExpression) -> str | None:
    """The name a value is known by: ``is_main_process`` of ``self.accelerator.is_main_process``
    and of ``is_main_process()``."""
    if isinstance(value, cst.Call):
        value = value.func
    name = dotted_name(value)
    return name.rpartition(".")[2] if name is not None else None
