"""Candidate findings: what one file's traversal can say before the project is known.

Whether ``x.cuda()`` is a bug, and which fix is right, depends on the class it is
in, and that class's bases may live in other files. So the traversal records a
Candidate (where, in which scope, and every fix it might need) and the project
index later decides, through the rule's ``resolve``, whether it becomes a Finding.
Candidates are plain data so they can be cached and shipped between processes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from devlint.findings import Edit, Fix, Location


@dataclass(frozen=True)
class Scope:
    """Where a candidate sits: the enclosing class and outermost function, if any."""

    class_name: str | None = None
    """Qualified name of the innermost enclosing class (``pkg.mod.Model``)."""
    function_name: str | None = None
    """Qualified name of the outermost function or method (``pkg.mod.Model.forward``)."""
    method: str | None = None
    """Bare method name when the function is a method of ``class_name``."""
    has_self: bool = False
    """The method is a plain method whose first parameter is ``self``."""
    tensor_param: str | None = None
    """A parameter known to hold a tensor, whose ``.device`` a fix may borrow."""
    device_param: bool = False
    """The function has a parameter named ``device``: it is told where to work."""


class Needed(Enum):
    PARAMETER_MEETS = "parameter meets"
    """The callee's parameter reaches a meeting point with one of ``placed``, or with a
    tensor on the device that no parameter gives."""
    PARAMETER_RETURNED = "parameter returned"
    """The callee's result follows the parameter (and the result meets the device here)."""
    RESULT_MEETS = "result meets"
    """Some call of the function, in another file, has its result meet the device."""
    RESULTS_JOINED = "results joined"
    """Results of calls of the function, in another file, are collected and joined into one
    tensor (``torch.cat``, ``torch.stack``): they meet one another, 0-dim ones too."""
    PARAMETER_GIVEN = "parameter given"
    """Some call of the function may give the parameter (``slot``, by name) another value
    than its default, which would skip the branch the candidate is in
    (``default_branches``)."""
    RESULT_DATA = "result data"
    """The function (a method: through its class's bases) returns Python data, no tensor
    (``FlowSummary.data``): ``torch.tensor`` of its result makes a CPU tensor."""


@dataclass(frozen=True)
class Requirement:
    """What another file's facts must show for a candidate to hold (through the index)."""

    kind: Needed
    function: str
    """The function the requirement is about (qualified, as this file resolves it)."""
    slot: int | str = 0
    """The parameter: a position, or a keyword."""
    placed: tuple[int | str, ...] = ()
    """The call's arguments surely on the computation's device."""
    part: int | None = None
    """The element of the tuple the function returns that the requirement is about
    (``a, b = f(x)``, ``f(x)[1]``, ``out = f(x); out[1]``); None: its whole result."""
    position: int | None = None
    """For ``PARAMETER_GIVEN``: the parameter's place among those an argument binds by
    position (``self`` aside); None: it is keyword-only."""


@dataclass(frozen=True)
class Candidate:
    """A possible finding with every fix variant its rule might choose."""

    code: str
    start: Location
    end: Location
    scope: Scope
    data: Mapping[str, str] = field(default_factory=dict)
    """Facts for the message (the literal, the factory name, ...)."""
    fixes: Mapping[str, tuple[Edit, ...]] = field(default_factory=dict)
    """Edits per fix variant, e.g. ``{"self_device": ..., "tensor_device": ...}``."""
    needs: tuple[Requirement, ...] = ()
    """It holds only if one of these does (none: it holds as it is)."""
    provided: tuple[Requirement, ...] = ()
    """It holds only if all of these do as well: what another file's code must show of the
    data it was made from (``torch.tensor`` of what another class's method returned)."""
    suppressed: bool = False
    """A ``# noqa`` on its line silences it: no finding, but the literal device it names
    stays in the code, which the fixes of its function's other literals must know
    (``Rule.replaces_literal_devices``)."""


@dataclass(frozen=True)
class ScopeInfo:
    """What the project index knows about a candidate's scope."""

    model_code: bool = False
    """Inside a model class, or a project function that model code calls; not inside the
    class's own moves (``own_move``)."""
    own_move: bool = False
    """Inside the class's own ``cuda``/``to``/``cpu``/``_apply``/... (``MODULE_MOVING_METHODS``)
    or a method they call on ``self``: moving is what the code there is for."""
    device_context: bool = False
    """Code that already knows its device and must not pick another: model code, classes
    that store a device or a model, functions told their device (a ``device``
    parameter), and the project functions all these call (not the class's own moves)."""
    device_aware: bool = False
    """``self.device`` exists here (device-aware class and ``self`` in scope)."""
    lightning: bool = False
    """The class is a LightningModule: the trainer moves it to the right device."""
    in_init: bool = False
    """Inside ``__init__``, where ``self.device`` is still the CPU."""
    forward_path: bool = False
    """Runs on every batch: ``forward``, ``*_step``, ``on_*`` hooks and what they call."""
    knows_inputs: bool = False
    """A function whose inputs tell it its device (a parameter annotated as a tensor or a
    module, or used as only a tensor is, or a method of an autograd Function), outside test
    code: a literal device there ignores them, unless it moves the input itself (DEV001,
    DEV002)."""


@dataclass(frozen=True)
class Resolution:
    """A rule's verdict on a candidate: the message and the fix to offer."""

    message: str
    fix: Fix | None = None
