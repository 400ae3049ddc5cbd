"""A function's flow as its callers in other files see it: the summary the index keeps."""

from __future__ import annotations

import libcst as cst

from devlint.facts import FlowSummary
from devlint.flow.inference import FunctionFlow
from devlint.flow.values import Value
from devlint.nodes import descendants


def positional_names(function: cst.FunctionDef) -> tuple[str, ...]:
    """The parameters an argument can bind by its position, in order."""
    params = function.params
    return tuple(param.name.value for param in (*params.posonly_params, *params.params))


def summarise(flow: FunctionFlow, name: str) -> FlowSummary:
    """The summary of ``flow``, the flow of the function qualified ``name``: which
    parameters reach a meeting point (and what they meet), which ones its result follows,
    and where each element of a tuple it returns comes from."""
    reaching = {} if flow.wrapped else flow.reaching  # a wrapper may move the arguments first
    meets = tuple(sorted((param, tuple(sorted(met))) for param, met in reaching.items()))
    returned = flow.returned
    params = positional_names(flow.function)
    return FlowSummary(
        name,
        params,
        meets,
        _followed(returned),
        returns_via=flow.returned_via,
        meets_via=() if flow.wrapped else flow.passed_on,
        meets_via_parts=() if flow.wrapped else flow.passed_parts,
        parts=tuple(_part_origin(part) for part in flow.returned_parts),
        parts_via=tuple(_followed(part) for part in flow.returned_parts),
        joins=() if flow.wrapped else tuple(sorted(flow.joined)),
        data=_gives_data(flow),
    )


def _gives_data(flow: FunctionFlow) -> bool:
    """``FlowSummary.data``: a ``return`` gives a value, and every one gives Python data."""
    returned = flow.returned
    gives = any(
        isinstance(node, cst.Return) and node.value is not None
        for node in descendants(flow.function.body)
    )
    return gives and returned.only_host and not returned.scalars


def _followed(found: Value) -> tuple[str, ...]:
    """The parameters whose device ``found`` follows."""
    return tuple(sorted(found.params)) if found.follows else ()


def _part_origin(part: Value) -> str:
    """``FlowSummary.parts`` of one element: a parameter it may follow first (a caller's
    argument decides), then the computation's device, then a CPU tensor made here."""
    if _followed(part):
        return "param"
    if part.follows:
        return "follows"
    return "cpu" if part.made else "unknown"
