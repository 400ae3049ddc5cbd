"""The first GPU the user chose, made current by the project's set-up (DEV001, DEV002).

A program given a list of GPUs (``--gpu_ids 0,1``; empty for the CPU) that makes the first
of them current (``torch.cuda.set_device(opt.gpu_ids[0])``, in its options parser) has
chosen where ``.cuda()`` lands: on that GPU, where it also puts its models (DataParallel's
replicas make their own GPUs current). A ``.cuda()`` that runs only when the same list is
not empty (``if len(opt.gpu_ids) > 0:``, ``if self.use_gpu():``) follows that choice; one
that also runs on the CPU (``--gpu_ids -1``) does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from devlint.candidates import Candidate, ScopeInfo
from devlint.index import ProjectIndex
from devlint.nodes import attribute_of_self, dotted_name

TESTED_LISTS = "tested_gpu_lists"
"""The candidate's data key: the lists ``lists_known_not_empty`` found, space-separated."""


def first_of_a_list(node: cst.BaseExpression) -> str | None:
    """``opt.gpu_ids[0]``: the name of the list (its last part, ``gpu_ids``) whose first
    element ``node`` is, else None."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)):
        return None
    name = dotted_name(node.value) if index.value.value == "0" else None
    return None if name is None else name.rpartition(".")[2]


def lists_known_not_empty(ancestors: Sequence[cst.CSTNode]) -> frozenset[str]:
    """The lists (by last name) that the branches holding the last of ``ancestors`` run
    only when not empty: the body of ``if len(gpu_ids) > 0:``, ``if self.gpu_ids:`` or
    ``x if gpu_ids else y``, the ``else`` of ``if not gpu_ids:``, under ``and`` too, and
    through a method of the class that returns such a test (``if self.use_gpu():``)."""
    found: set[str] = set()
    classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    for position, node in enumerate(ancestors[:-1]):
        if not isinstance(node, (cst.If, cst.IfExp)):
            continue
        inside = ancestors[position + 1]
        if inside is node.body:
            holds = True
        elif inside is node.orelse:
            holds = False
        else:
            continue
        found.update(_lists_tested(node.test, holds, classdef))
    return frozenset(found)


def _lists_tested(
    test: cst.BaseExpression, holds: bool, classdef: cst.ClassDef | None
) -> Iterator[str]:
    """The lists that ``test`` being ``holds`` says are not empty."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from _lists_tested(test.expression, not holds, classdef)
        return
    if isinstance(test, cst.BooleanOperation):
        both = isinstance(test.operator, cst.And) == holds  # a true `and`, a false `or`
        if both:
            yield from _lists_tested(test.left, holds, classdef)
            yield from _lists_tested(test.right, holds, classdef)
        return
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        (compared,) = test.comparisons
        number = compared.comparator
        if not (isinstance(number, cst.Integer) and _length(test.left)):
            return
        if _length_test(compared.operator, number.value) == holds:
            yield from _lists_tested(test.left, True, None)
        return
    if isinstance(test, cst.Call):
        if _length(test) and holds:
            yield from _lists_tested(test.args[0].value, True, None)
        elif classdef is not None and not test.args:
            returned = _returned_test(classdef, attribute_of_self(test.func))
            if returned is not None:
                yield from _lists_tested(returned, holds, None)
        return
    name = dotted_name(test)
    if name is not None and holds:
        yield name.rpartition(".")[2]


def _length(node: cst.BaseExpression) -> bool:
    """``len(x)``."""
    return isinstance(node, cst.Call) and dotted_name(node.func) == "len" and len(node.args) == 1


def _length_test(operator: cst.BaseCompOp, number: str) -> bool | None:
    """Whether ``len(x) <operator> <number>`` being true says ``x`` is not empty (True),
    is empty (False), or neither (None)."""
    if (number == "0" and isinstance(operator, (cst.GreaterThan, cst.NotEqual))) or (
        number == "1" and isinstance(operator, cst.GreaterThanEqual)
    ):
        return True
    if number == "0" and isinstance(operator, (cst.Equal, cst.LessThanEqual)):
        return False
    return None


def _returned_test(classdef: cst.ClassDef, method: str | None) -> cst.BaseExpression | None:
    """What the class's method ``method`` does nothing but return
    (``def use_gpu(self): return len(self.opt.gpu_ids) > 0``), else None."""
    for statement in classdef.body.body:
        if not (isinstance(statement, cst.FunctionDef) and statement.name.value == method):
            continue
        body = statement.body.body
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
            return None
        if len(body[0].body) != 1:  # `ids = self.gpu_ids; return len(ids) > 0`
            return None
        small = body[0].body[0]
        return small.value if isinstance(small, cst.Return) else None
    return None


def on_the_first_chosen_gpu(candidate: Candidate, scope: ScopeInfo, index: ProjectIndex) -> bool:
    """The candidate's ``.cuda()`` (or ``"cuda"``) runs only when a list of GPUs is not
    empty whose first GPU the project's set-up made current
    (``ProjectIndex.first_chosen_gpu_current``): it lands on the GPU the user chose, also
    on the forward path of model code (unlike a flag, which says "a GPU" but not which),
    since that list is how the program tells its code its device. Not in code told a
    device otherwise (``self.device``, a ``device`` parameter, a LightningModule's
    trainer)."""
    tested = candidate.data.get(TESTED_LISTS, "").split()
    if index.first_chosen_gpu_current.isdisjoint(tested):
        return False
    return not (scope.lightning or scope.device_aware or candidate.scope.device_param)
