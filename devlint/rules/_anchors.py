"""The one decision of which names a fix may borrow a device from (its anchor).

A fix that writes ``x.device`` or ``device=device`` must not break code where ``x`` is a
dict of tensors, ``None``, an int, or ``device`` a CUDA index with ``-1`` for the CPU.
Every rule's fix asks here; when unsure, the name is no anchor (the rule offers another
fix or none).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from devlint.nodes import (
    casts_dtype_only,
    chain_root,
    descendants,
    first_positional,
    gives_a_tuple_of_tensors,
    is_none,
    keyword_argument,
    names_the_cpu,
    values_assigned,
)
from devlint.symbols import CPU_RESULT_METHODS, DEVICE_ARGUMENT_MOVES

_MAPPING_METHODS = frozenset({"items", "keys", "values"})


def outermost_function(ancestors: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
    """The outermost function around the visited node, whose parameters a fix may use."""
    return next((node for node in ancestors if isinstance(node, cst.FunctionDef)), None)


def innermost_function(ancestors: Sequence[cst.CSTNode]) -> cst.FunctionDef | None:
    """The function the visited node is directly in (``outermost_function``'s opposite)."""
    return next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)


def known_tensor(parameter: str, function: cst.FunctionDef) -> bool:
    """``parameter`` surely holds a tensor whenever ``function`` runs, so a fix may read its
    ``.device``: it has no default (often None) and the function reads it only as a tensor.

    Not when the function unpacks it, iterates it, stars it, reads it as a mapping
    (``x["key"]``, ``x.items()``), compares it with None, tests its type with
    ``isinstance`` or its truth (``if x:``): it may be a tuple, dict, None or a number.
    Nor when it rebinds it to a value taken to the host (``x = x.cpu()``, kept there to
    spare GPU memory) or deletes it: ``x.device`` is then no longer the input's. Nor when
    the function never reads it (nothing there needs it where the function computes), or
    moves it, or a copy of it, to a device itself (``h = x.clone()`` ... ``h.cuda()``):
    the code says it arrives somewhere else than where it computes."""
    found = _parameter(parameter, function)
    if found is None or found.default is not None:
        return False
    nodes = list(descendants(function.body))
    if not _reads(parameter, nodes):
        return False
    if any(_doubts_a_tensor(node, parameter) for node in nodes):
        return False
    copies = _copies_of(parameter, nodes)
    return not any(_moves_one_of(node, copies) for node in nodes)


def _reads(name: str, nodes: Sequence[cst.CSTNode]) -> bool:
    """Some node reads the variable ``name`` (not ``self.name`` nor ``f(name=...)``)."""
    labels = {id(node.attr) for node in nodes if isinstance(node, cst.Attribute)}
    labels |= {id(node.keyword) for node in nodes if isinstance(node, cst.Arg) and node.keyword}
    return any(
        isinstance(node, cst.Name) and node.value == name and id(node) not in labels
        for node in nodes
    )


def _copies_of(parameter: str, nodes: Sequence[cst.CSTNode]) -> frozenset[str]:
    """``parameter`` and the locals bound to a chain that starts from it or from one of
    them (``h = x.clone()``, ``g = h[:, 0]``): tensors that are where it is."""
    assigns = [
        (target.target.value, node.value)
        for node in nodes
        if isinstance(node, cst.Assign)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    ]
    copies = {parameter}
    grown = True
    while grown:
        grown = False
        for name, value in assigns:
            if name not in copies and chain_root(value) in copies and not leaves_the_host(value):
                copies.add(name)
                grown = True
    return frozenset(copies)


def _moves_one_of(node: cst.CSTNode, copies: frozenset[str]) -> bool:
    """``node`` moves one of ``copies`` to a device (``h.cuda()``, ``h.to(device)``), not
    back where the parameter is (``h.to(x.device)``) nor only casting it (``h.to(dtype)``)."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    method = node.func.attr.value
    receiver = node.func.value
    if method not in DEVICE_ARGUMENT_MOVES or chain_root(receiver) not in copies:
        return False
    if leaves_the_host(receiver):
        return False
    if method == "cuda":
        return True
    target = first_positional(node) or keyword_argument(node, "device")
    return (
        target is not None and not casts_dtype_only(node) and chain_root(target.value) not in copies
    )


def borrowable_device(node: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """``node``, a tensor the flow saw on the device, may lend its ``.device`` to a fix: a
    name (a parameter only if ``known_tensor``), or an attribute of ``self`` or of an
    annotated parameter (``emb: nn.Module``'s ``emb.weight``). Not ``rope.model_dim``:
    an attribute of an object of unknown type may be an int, nor a local bound to a tuple
    of tensors (``pos = torch.nonzero(m, as_tuple=True)``)."""
    root = node
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name):
        return False
    found = _parameter(root.value, function)
    if root is node:
        if any(gives_a_tuple_of_tensors(v) for v in values_assigned(root.value, function)):
            return False
        return found is None or known_tensor(root.value, function)
    return root.value == "self" or (found is not None and found.annotation is not None)


def updated_in_place(operand: cst.BaseExpression, at: cst.CSTNode) -> bool:
    """``operand`` is what ``at`` updates (``total += x``, ``total.add_(x)``,
    ``torch.index_select(t, 0, i, out=total)``): moving it there would write into a copy
    (or not parse), and the accumulator stays where it was."""
    if isinstance(at, cst.AugAssign):
        return at.target is operand
    if not isinstance(at, cst.Call):
        return False
    out = keyword_argument(at, "out")
    if out is not None and out.value is operand:
        return True
    func = at.func
    return (
        isinstance(func, cst.Attribute) and func.value is operand and func.attr.value.endswith("_")
    )


def device_anchor(function: cst.FunctionDef | None) -> bool:
    """The function's ``device`` parameter may replace a literal accelerator: there is one,
    it is no CUDA index with a ``-1`` CPU sentinel, and it does not default to the CPU.
    A ``device="cpu"`` default names where results are delivered (a checkpoint gathered
    for saving, an offload), not where the function computes: its ``.cuda()`` for a
    collective must stay on the GPU."""
    if function is None or device_is_an_index("device", function):
        return False
    found = _parameter("device", function)
    return found is None or found.default is None or not names_the_cpu(found.default)


def may_be_none(parameter: str, function: cst.FunctionDef) -> bool:
    """``parameter`` may be None where the function runs: it defaults to None, or the
    function compares it with None or tests its truth. ``x.to(device)`` then stays
    where it is, but a device *value* written as ``device`` (``return device``) is None:
    ``if device is not None: candidates.append(device)`` ... ``if not candidates:
    return torch.device("cuda")`` returns None there."""
    found = _parameter(parameter, function)
    if found is None:
        return False
    if found.default is not None and is_none(found.default):
        return True
    return any(_tests_for_none(node, parameter) for node in descendants(function.body))


def device_is_an_index(parameter: str, function: cst.FunctionDef) -> bool:
    """``device`` is an int with a ``-1`` CPU sentinel (``cuda_device: int = -1``,
    ``if device >= 0``): ``device=device`` would hand ``-1`` to torch."""
    found = _parameter(parameter, function)
    if found is None:
        return False
    if _is_minus_one(found.default):
        return True
    return any(
        isinstance(node, cst.Comparison)
        and _is_name(node.left, parameter)
        and any(_against_the_sentinel(target) for target in node.comparisons)
        for node in descendants(function.body)
    )


def _against_the_sentinel(target: cst.ComparisonTarget) -> bool:
    """``>= 0``, ``< 0`` or any comparison with ``-1``: an index, not a device."""
    value = target.comparator
    if _is_minus_one(value):
        return True
    return (
        isinstance(target.operator, (cst.GreaterThanEqual, cst.LessThan))
        and isinstance(value, cst.Integer)
        and value.value == "0"
    )


def _parameter(name: str, function: cst.FunctionDef) -> cst.Param | None:
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return next((param for param in every if param.name.value == name), None)


def _doubts_a_tensor(node: cst.CSTNode, name: str) -> bool:
    """``node`` reads ``name`` in a way a tensor rarely is (see ``known_tensor``)."""
    if isinstance(node, cst.Subscript) and _is_name(node.value, name):
        index = node.slice[0].slice if len(node.slice) == 1 else None
        return isinstance(index, cst.Index) and isinstance(
            index.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        )
    if isinstance(node, cst.Attribute):
        return _is_name(node.value, name) and node.attr.value in _MAPPING_METHODS
    if isinstance(node, (cst.StarredElement, cst.Arg)) and _starred(node):
        return _is_name(node.value, name)
    if isinstance(node, (cst.For, cst.CompFor)):
        return _is_name(node.iter, name)
    if isinstance(node, cst.Assign):
        if any(_is_name(target.target, name) for target in node.targets):
            return leaves_the_host(node.value)  # `x = x.cpu()`: its `.device` is the CPU's now
        return _is_name(node.value, name) and any(
            isinstance(target.target, (cst.Tuple, cst.List)) for target in node.targets
        )
    if isinstance(node, cst.Del):
        return _is_name(node.target, name)  # `del x`: no `.device` to read after it
    if _tests_for_none(node, name):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        return (
            isinstance(func, cst.Name)
            and func.value == "isinstance"
            and bool(node.args)
            and _is_name(node.args[0].value, name)
        )
    return False


def _tests_for_none(node: cst.CSTNode, name: str) -> bool:
    """``node`` compares ``name`` with None or tests its truth (``if x:``, ``not x``,
    ``x or y``): where the code expects it may be None (or empty, or 0)."""
    if isinstance(node, cst.Comparison):
        return any(
            _is_name(side, name) and any(is_none(other) for other in _sides(node))
            for side in _sides(node)
        )
    if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)):
        return _is_name(node.test, name)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _is_name(node.expression, name)
    if isinstance(node, cst.BooleanOperation):
        return _is_name(node.left, name) or _is_name(node.right, name)
    return False


def _starred(node: cst.StarredElement | cst.Arg) -> bool:
    """``*x`` in a call or a literal (``**x`` too)."""
    return isinstance(node, cst.StarredElement) or node.star != ""


def _sides(comparison: cst.Comparison) -> list[cst.BaseExpression]:
    return [comparison.left, *(target.comparator for target in comparison.comparisons)]


def _is_minus_one(node: cst.BaseExpression | None) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.value == "1"
    )


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def leaves_the_host(receiver: cst.BaseExpression) -> bool:
    """``x.cpu().cumsum(0)``: a chain that went through the host, so a move at its end brings
    the value back (to the device ``x`` was on, which a fix may borrow)."""
    node = receiver
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in CPU_RESULT_METHODS:
                return True
            node = func
        else:
            node = node.value
    return False
