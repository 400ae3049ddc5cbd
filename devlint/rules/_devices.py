"""Recognising hard-coded devices and the calls that place tensors, shared by rules."""

from __future__ import annotations

import libcst as cst

from devlint.symbols import DEVICE_TYPES


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
