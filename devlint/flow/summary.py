"""A function's flow as its callers in other files see it: the summary the index keeps."""

from __future__ import annotations

import libcst as cst

from devlint.facts import FlowSummary
from devlint.flow.inference import FunctionFlow


def positional_names(function: cst.FunctionDef) -> tuple[str, ...]:
    """The parameters an argument can bind by its position, in order."""
    params = function.params
    return tuple(param.name.value for param in (*params.posonly_params, *params.params))


def summarise(flow: FunctionFlow, name: str) -> FlowSummary:
    """The summary of ``flow``, the flow of the function qualified ``name``: which
    parameters reach a meeting point (and what they meet), which ones its result follows."""
    meets = tuple(sorted((param, tuple(sorted(met))) for param, met in flow.reaching.items()))
    returned = flow.returned
    returns = tuple(sorted(returned.params)) if returned.follows else ()
    params = positional_names(flow.function)
    return FlowSummary(name, params, meets, returns, returns_via=flow.returned_via)
