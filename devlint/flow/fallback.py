"""A CPU fallback: a function returns a tensor made on the CPU on one path and a tensor on
the computation's device on another (``return torch.empty(n, 3, 3)`` when the solver
fails), so its callers get the CPU tensor exactly where they expect device data."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from devlint.flow.inference import FunctionFlow
from devlint.flow.meetings import empty_data
from devlint.nodes import (
    descendants,
    dotted_name,
    is_none,
    iter_children,
    parameter_names,
    values_assigned,
)
from devlint.symbols import HOST_ANNOTATIONS, VIEW_METHODS

_KIND_TESTS = frozenset({"torch.is_tensor", "hasattr", "callable"})
"""Calls that test what an input is: a path they choose may be for one that is no tensor
(and ``isinstance`` of a tensor or of Python or NumPy data: ``_data_classes``)."""


_CONTAINER_DISPLAYS = (cst.Dict, cst.DictComp, cst.List, cst.ListComp, cst.Set, cst.SetComp)


def fallback_return(made: cst.Call, flow: FunctionFlow) -> cst.Return | None:
    """The ``return`` of ``flow``'s function that gives a tensor following the computation's
    device where another ``return`` gives the CPU tensor made at ``made`` (whole, or as the
    same element of a tuple, every return giving a tuple as long or none), else None.

    None as well when either return is under a test of what an input is (``isinstance``,
    ``is None``: the CPU path is for an input that is no tensor), when the device result
    is an input handed back (itself or a view of it), or when it follows only parameters
    that default to None (a caller that passes none gets the CPU on purpose).
    """
    if empty_data(made):
        return None  # `Tensor([])`: a sentinel for "none", which callers test by its length
    created = flow.values.get(made)
    if created is None or made not in created.made:
        return None  # placed by `device=`, or no tensor of its own
    returns = list(_returns(flow.function.body, tested=False))
    found = next(
        ((ret, position) for ret, tested in returns for position in _positions_of(made, ret, flow)),
        None,
    )
    if found is None or any(ret is found[0] and tested for ret, tested in returns):
        return None
    cpu_return, position = found
    shape = _shape(cpu_return)
    if any(_shape(ret) != shape for ret, _ in returns):
        return None  # a tuple here, one value there: which caller gets which is unknown
    optional = _none_defaults(flow.function)
    for ret, tested in returns:
        if ret is cpu_return or tested:
            continue
        given = _element(ret, position)
        value = flow.values.get(given) if given is not None else None
        if given is None or value is None or not value.follows or value.made:
            continue
        if _input_view(given, flow.function) or _container(given, flow.function):
            continue
        if value.params and value.params <= optional:
            continue
        if made in value.moved_sites:
            continue  # `return t.to(x.device)` under a flag, `return t` else: a choice
        return ret
    return None


def _returns(node: cst.CSTNode, *, tested: bool) -> Iterator[tuple[cst.Return, bool]]:
    """The ``return`` statements in ``node`` (not those of functions nested in it), each
    with whether a test of what an input is encloses it."""
    if isinstance(node, cst.Return):
        yield node, tested
    elif isinstance(node, cst.If):
        inner = tested or _tests_kind(node.test)
        yield from _returns(node.body, tested=inner)
        if node.orelse is not None:
            yield from _returns(node.orelse, tested=inner)
    elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
        for child in iter_children(node):
            yield from _returns(child, tested=tested)


def _tests_kind(test: cst.BaseExpression) -> bool:
    """``isinstance(x, Tensor)``, ``x is None``, ``hasattr(x, "device")``, in any part."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and dotted_name(node.func) in _KIND_TESTS:
            return True
        if (
            isinstance(node, cst.Call)
            and dotted_name(node.func) == "isinstance"
            and len(node.args) == 2
            and _data_classes(node.args[1].value)
        ):
            return True
        if isinstance(node, cst.Comparison) and any(
            is_none(target.comparator) for target in node.comparisons
        ):
            return True
        stack.extend(iter_children(node))
    return False


def _data_classes(classes: cst.BaseExpression) -> bool:
    """``torch.Tensor``, ``(int, float)``, ``np.ndarray``: classes of data, where a test
    for another class (``nn.Module``: a model or a function computing the same result)
    leaves tensors on both paths."""
    names = classes.elements if isinstance(classes, cst.Tuple) else [classes]
    for element in names:
        name = dotted_name(element.value if isinstance(element, cst.Element) else element)
        last = (name or "").rpartition(".")[2]
        if last.endswith(("Tensor", "ndarray", "Number")) or last in HOST_ANNOTATIONS:
            return True
    return False


def _positions_of(made: cst.Call, ret: cst.Return, flow: FunctionFlow) -> Iterator[int | None]:
    """Where ``ret`` gives ``made``: its whole result (None), or an element of its tuple;
    the call itself or a name holding only what it made (``rewards = torch.tensor(r)``,
    ``return None, rewards``)."""
    if ret.value is not None and _gives(ret.value, made, flow):
        yield None
    elif isinstance(ret.value, cst.Tuple):
        for position, element in enumerate(ret.value.elements):
            if _gives(element.value, made, flow):
                yield position


def _gives(node: cst.BaseExpression, made: cst.Call, flow: FunctionFlow) -> bool:
    """``node`` is ``made``, or a name holding only it; not a buffer the function fills
    through an index (``out[:, i] = x[:, i].sum(1)``): that is its computation's result,
    made where the function computes (a CPU kernel's output, most often)."""
    if node is made:
        return True
    held = flow.values.get(node) if isinstance(node, cst.Name) else None
    if held is None or held.made != (made,) or held.on_device:
        return False
    assert isinstance(node, cst.Name)
    return not _filled(node.value, flow.function)


def _filled(name: str, function: cst.FunctionDef) -> bool:
    """Whether ``function`` writes into ``name`` through an index (``name[i] = ...``)."""
    return any(
        isinstance(statement, cst.Assign)
        and any(
            isinstance(target.target, cst.Subscript)
            and isinstance(target.target.value, cst.Name)
            and target.target.value.value == name
            for target in statement.targets
        )
        for statement in descendants(function.body)
    )


def _shape(ret: cst.Return) -> int | None:
    """How many elements the tuple ``ret`` writes out has; None: it gives one value."""
    return len(ret.value.elements) if isinstance(ret.value, cst.Tuple) else None


def _element(ret: cst.Return, position: int | None) -> cst.BaseExpression | None:
    """What ``ret`` gives at ``position`` (``_positions_of``), if it gives as much."""
    value = ret.value
    if position is None:
        return None if value is None or isinstance(value, cst.Tuple) else value
    if not isinstance(value, cst.Tuple) or position >= len(value.elements):
        return None
    element = value.elements[position]
    return None if isinstance(element, cst.StarredElement) else element.value


def _input_view(node: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """A parameter itself, sliced or seen through ``VIEW_METHODS``: the input handed back."""
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in VIEW_METHODS
        ):
            node = node.func.value
        else:
            break
    return isinstance(node, cst.Name) and node.value in parameter_names(function)


def _container(node: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """A name the function binds only to a dict, list or set it writes out (``reprs = {"cls":
    []}``, then filled): a container of results, which no caller takes for the tensor the
    other path returns (unimol's representations dict beside its CPU tensor of them)."""
    if not isinstance(node, cst.Name):
        return False
    bound = values_assigned(node.value, function)
    return bool(bound) and all(isinstance(value, _CONTAINER_DISPLAYS) for value in bound)


def _none_defaults(function: cst.FunctionDef) -> frozenset[str]:
    params = function.params
    return frozenset(
        param.name.value
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
        if is_none(param.default)
    )
