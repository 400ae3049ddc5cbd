"""What a function's callers in its own file pass it.

A tensor parameter is taken to be on the computation's device because that is where
inputs usually are. When every call of a method of the class (of a static method, on
the class anywhere in the file; of a private function of the module; of a function nested
in another, in that one) shows otherwise, the callers win: a helper that is always given
host data or a CPU tensor (``self.embed_guidance(torch.tensor(scale).repeat(n))``), or a
value the flow cannot place while the caller moves the helper's result to the device (at
once, or through the name it binds it to), computes on the CPU by design. A caller that
passes its own parameter on asks its own callers, a few calls up.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import NamedTuple

import libcst as cst

from devlint.flow.inference import FunctionFlow, _parameter_names
from devlint.flow.values import UNKNOWN, Origin, Value
from devlint.nodes import casts_dtype_only, descendants, iter_children, names_callee
from devlint.symbols import DEVICE_ARGUMENT_MOVES

_OFF_DEVICE = frozenset({Origin.HOST, Origin.CPU})
_PASSED_ON = frozenset({Origin.FOLLOWS, Origin.UNKNOWN})


def names_anywhere(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` holds ``<name>`` or ``<anything>.<name>`` (``self.f``, ``Cls.f``)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and current.attr.value == name:
            return True
        if isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(iter_children(current))
    return False


def mentions(node: cst.CSTNode, name: str, receivers: tuple[str, ...]) -> bool:
    """Whether ``node`` holds the function as ``names_callee`` spells it."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and names_callee(current, name, receivers):
            return True
        if not receivers and isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(iter_children(current))
    return False


def references(code: str, name: str, receivers: tuple[str, ...]) -> int | None:
    """How many times ``code`` (a class or a module) names the function as ``names_callee``
    spells it; None when it does not parse on its own."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if receivers:
        return sum(
            isinstance(node, ast.Attribute)
            and node.attr == name
            and isinstance(node.value, ast.Name)
            and node.value.id in receivers
            for node in ast.walk(tree)
        )
    return sum(isinstance(node, ast.Name) and node.id == name for node in ast.walk(tree))


class Site(NamedTuple):
    """A call of the function, in the flow of the function that makes it."""

    call: cst.Call
    flow: FunctionFlow
    passed_on_off_device: Callable[[frozenset[str]], bool]
    """Whether parameters of the calling function are off the device by its own callers:
    an argument that is one of them, passed on, is off the device too."""


def _passed(call: cst.Call, flow: FunctionFlow, positional: list[str]) -> dict[str, Value] | None:
    """What ``call`` passes each parameter (by the names ``positional`` arguments bind to);
    None where an unpacked argument (``*args``, ``**kw``) leaves which gets what unknown."""
    passed: dict[str, Value] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        found = flow.values.get(arg.value, UNKNOWN)
        if arg.keyword is not None:
            passed[arg.keyword.value] = found
        elif position < len(positional):
            passed[positional[position]] = found
    return passed


def typed_parameters(
    function: cst.FunctionDef, method: bool, candidates: Iterable[str], sites: Iterable[Site]
) -> frozenset[str]:
    """The ``candidates`` (parameters giving a tensor type, ``FunctionFlow.typed_by``) that
    every call in ``sites`` gives the type of a tensor on a device (``x.type()``)."""
    positional = _parameter_names(function, method)
    typed = set(candidates)
    for call, flow, _ in sites:
        passed = _passed(call, flow, positional)
        if passed is None:
            return frozenset()
        typed = {name for name in typed if name in passed and passed[name].on_device}
    return frozenset(typed)


def off_device_parameters(
    function: cst.FunctionDef, method: bool, candidates: Iterable[str], sites: Iterable[Site]
) -> frozenset[str]:
    """The ``candidates`` (parameter names) that no call in ``sites`` passes a tensor that
    may be on a device."""
    positional = _parameter_names(function, method)
    off = set(candidates)
    for call, flow, passed_on_off_device in sites:
        moved = _result_moved(call, flow)
        passed = _passed(call, flow, positional)
        if passed is None:
            return frozenset()  # which parameter gets what is unknown
        for name in list(off):
            given = passed.get(name)
            if given is None or _kept_off_device(given, moved):
                continue
            if not (_passed_on(given) and passed_on_off_device(given.params)):
                off.discard(name)
    return frozenset(off)


def _kept_off_device(found: Value, moved: bool) -> bool:
    if found.on_device:
        return False
    return found.origins <= _OFF_DEVICE or moved


def _passed_on(found: Value) -> bool:
    """A parameter of the caller (or what only derives from its parameters), as it came."""
    return bool(found.params) and not found.made and found.origins <= _PASSED_ON


def _result_moved(call: cst.Call, flow: FunctionFlow) -> bool:
    """``helper(...).to(device)`` or ``.cuda()``, also through the name the result is bound
    to (``tsdf = TSDF.make(...)``, later ``tsdf.to(device)``): the caller puts the result on
    a device."""
    names = _bound_to(call, flow.function)
    for node in flow.values:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            continue
        receiver = node.func.value
        named = isinstance(receiver, cst.Name) and receiver.value in names
        if not (receiver is call or named) or node.func.attr.value not in DEVICE_ARGUMENT_MOVES:
            continue
        if node.func.attr.value == "cuda" or (node.args and not casts_dtype_only(node)):
            return True
    return False


def _bound_to(call: cst.Call, function: cst.FunctionDef) -> frozenset[str]:
    """The names an assignment in ``function`` binds to the result of ``call``."""
    return frozenset(
        target.target.value
        for node in descendants(function.body)
        if isinstance(node, cst.Assign) and node.value is call
        for target in node.targets
        if isinstance(target.target, cst.Name)
    )
