"""Small questions about libcst nodes that the traversal and the rules both ask."""

from __future__ import annotations

import libcst as cst


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def chain_root(node: cst.BaseExpression) -> str | None:
    """``mask`` in ``mask.view(1, -1)[0].to(d)``: the variable a chain of calls starts from."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def attribute_of_self(node: cst.BaseExpression) -> str | None:
    """``x`` for exactly ``self.x`` (not for longer chains)."""
    if isinstance(node, cst.Attribute) and is_self(node.value):
        return node.attr.value
    return None
