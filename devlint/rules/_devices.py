"""Recognising hard-coded devices and the calls that place tensors, shared by rules."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from devlint.nodes import dotted_name
from devlint.symbols import DEVICE_TYPES, TORCH_DTYPES


def device_literal(node: cst.BaseExpression) -> str | None:
    """The source text of a literal accelerator device (``"cuda:1"``, ``"mps"``, ``0``).

    ``"cpu"`` and strings that are not devices give None, as do f-strings and names:
    only a device nobody can change without editing the code counts.
    """
    if isinstance(node, cst.Integer):
        return node.value
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if not isinstance(value, str):
            return None
        kind, _, index = value.partition(":")
        if kind in DEVICE_TYPES and (not index or index.isdigit()):
            return node.value
    return None


def keyword_argument(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def first_positional(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg
        break
    return None


def has_double_star(call: cst.Call) -> bool:
    """``f(**kwargs)``: any keyword, ``device`` included, may arrive at run time."""
    return any(arg.star == "**" for arg in call.args)


def casts_dtype_only(call: cst.Call) -> bool:
    """``x.to(torch.float32)`` or ``x.to(dtype=y.dtype)``: a cast, no device is involved."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "to"):
        return False
    if keyword_argument(call, "device") is not None:
        return False
    first = first_positional(call)
    if first is None:
        return keyword_argument(call, "dtype") is not None
    name = dotted_name(first.value) or ""
    last = name.rpartition(".")[2]
    return last == "dtype" or (name.startswith("torch.") and last in TORCH_DTYPES)


def self_attribute(node: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x``, and for chains starting there (``self.x[0].to(d)``, ``self.x.T``)."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            node = node.func
            continue
        if (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ):
            return node.attr.value
        node = node.value
    return None


def is_map_location(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The visited node is the ``map_location=`` argument of a call (DEV006 reports it)."""
    parent = ancestors[-1] if ancestors else None
    return (
        isinstance(parent, cst.Arg)
        and parent.keyword is not None
        and parent.keyword.value == "map_location"
    )
