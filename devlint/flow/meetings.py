"""Where devices meet: operations PyTorch runs only with all their tensors on one device.

A CPU-made tensor is a bug where it meets a tensor on the computation's device, and
nowhere else: meeting a Python number, a host value, another CPU tensor or a tensor of
unknown origin proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

import libcst as cst

from devlint.flow.values import Origin, Value
from devlint.nodes import dotted_name, iter_children, keyword_argument
from devlint.symbols import (
    COLLECTIVE_GROUPS,
    DATA_FACTORIES,
    LEGACY_TENSOR_TYPES,
    SCALAR_REFUSING_OPERATIONS,
    TENSOR_FACTORIES,
)


class MeetingKind(Enum):
    OPERATOR = "operator"
    """``a + b``, ``a @ b``."""
    COMPARISON = "comparison"
    """``a < b``, ``a == b``."""
    IN_PLACE = "in-place"
    """``a += b``."""
    UPDATED = "updated"
    """A 0-dim CPU tensor updated in place by a tensor on the device: ``total += loss``,
    ``total.add_(loss)`` (``meetings_updated``)."""
    FUNCTION = "function"
    """A torch function of several tensors: ``torch.cat([a, b])``, ``torch.where(m, a, b)``."""
    METHOD = "method"
    """A tensor method of another tensor: ``a.masked_fill(m, 0)``, ``a.index_add_(0, i, b)``."""
    MODULE_CALL = "module call"
    """A module or model called with the tensor: ``self.embed(positions)``."""
    CLOSURE = "closure call"
    """A function that captured CPU tensors (``self.normalizer = lambda x: x - mean``),
    called with a tensor on the device: what it computes mixes the two."""
    INDEX = "index"
    """A CPU tensor indexed by a device tensor: ``self.logvar[t]``."""
    WRITE = "write"
    """A tensor written into a device tensor: ``a.data = b`` (``a`` takes ``b``'s storage,
    which some backends refuse from another device, and which moves ``a`` on CUDA), or
    ``a[mask] = b`` through an index that is a tensor (``index_put_``: one device; a plain
    ``a[0] = b`` or ``a[:, :2] = b`` copies across devices)."""
    COLLECTIVE = "collective"
    """A tensor handed to a collective (``dist.all_reduce(t)``), which under NCCL runs on
    the process's GPU: the computation's device."""


@dataclass(frozen=True)
class Meeting:
    made: cst.CSTNode
    """Where the CPU tensor was made (a factory call)."""
    at: cst.CSTNode
    """The operation where it meets a tensor on the computation's device."""
    kind: MeetingKind
    cpu: cst.BaseExpression
    """The operand that holds the CPU tensor there."""
    partner: cst.BaseExpression
    """The operand on the computation's device (for a module call: a tensor argument on
    the device if there is one, else the module)."""


Operand = tuple["cst.BaseExpression", Value]


def surely_on_device(partner: Value) -> bool:
    """On a device and on no path a CPU tensor: two values that each may be either came
    from the same branches (``if ids is None: a = arange(n) else: a = ids``), and proving
    they differ would need the paths, which a join forgets (``t[i]`` of ``t = torch.arange(n)``
    or ``t = steps`` may be a 0-dim CPU tensor: no partner to a 0-dim one)."""
    return partner.on_device and not partner.made and not partner.scalars


_BACKEND_WORDS = ("get_backend", "Backend", "nccl", "NCCL", "gloo")
"""What code spells that places a collective's tensors by the process group's backend:
``get_backend(group)``, ``dist.Backend.NCCL``, ``backend == "gloo"``."""

_CPU_GROUP_WORDS = ("cpu", "gloo")
"""What the ``group=`` of a collective on a CPU process group spells: ``cpu_group``."""


def places_by_backend(body: cst.CSTNode) -> bool:
    """A function that asks which backend runs its collectives puts their tensors on the
    device that backend needs (the CPU for gloo, the GPU for NCCL): a choice."""
    return _spells(body, _BACKEND_WORDS)


def collective_group(call: cst.Call, collective: str) -> cst.BaseExpression | None:
    """The process group ``call``, of the collective named ``collective``, is given:
    ``group=`` or the argument at its position (``COLLECTIVE_GROUPS``)."""
    named = keyword_argument(call, "group")
    if named is not None:
        return named.value
    position = COLLECTIVE_GROUPS.get(collective)
    positional = [arg for arg in call.args if arg.keyword is None]
    if position is None or any(arg.star for arg in positional[: position + 1]):
        return None
    return positional[position].value if position < len(positional) else None


def meetings_in_collective(
    at: cst.Call,
    operands: Sequence[Operand],
    group: cst.BaseExpression | None = None,
    group_sources: Sequence[cst.CSTNode] = (),
) -> Iterator[Meeting]:
    """Every CPU-made tensor among ``operands``, the tensors given to the collective ``at``,
    0-dim ones too: its partner is the collective itself (the process group's device). Not
    on a ``group`` that is a CPU one: ``group=cpu_group``, or a name the function binds
    only to such a group (``group = gpc.get_cpu_group(mode)``: its ``group_sources``)."""
    if group is not None and _spells(group, _CPU_GROUP_WORDS):
        return
    if group_sources and all(_spells(source, _CPU_GROUP_WORDS) for source in group_sources):
        return
    for cpu_node, cpu in operands:
        for site in (*cpu.made, *cpu.scalars):
            yield Meeting(site, at, MeetingKind.COLLECTIVE, cpu_node, at.func)


def _spells(node: cst.CSTNode, words: Sequence[str]) -> bool:
    """One of ``words`` is in a name or a string within ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        text = current.value if isinstance(current, cst.Name) else None
        if isinstance(current, cst.SimpleString):
            evaluated = current.evaluated_value
            text = evaluated if isinstance(evaluated, str) else None
        if text is not None and any(word in text for word in words):
            return True
        stack.extend(iter_children(current))
    return False


SCALAR_REFUSING_KINDS = frozenset({MeetingKind.UPDATED, MeetingKind.COLLECTIVE})
"""The meetings a 0-dim CPU tensor fails at whatever the operation: updated in place by a
device tensor (a ``TensorIterator`` lets a 0-dim CPU tensor into a CUDA kernel as an input,
never as the output it writes), and handed to a collective. As an operand of an operator,
a comparison or an in-place update of a device tensor, or written through an index
(``index_put_``), it is let through; in a torch function or tensor method it depends on the
operation (``refuses_scalars``); what a module or a closure does with it is not known here.
tests/runtime/test_scalar_meetings.py checks this against fake tensors."""


def refuses_scalars(kind: MeetingKind, operation: str) -> bool:
    """Whether a meeting of ``kind`` in ``operation`` (a torch function's or tensor method's
    last name) fails with a 0-dim CPU tensor too: the kinds of ``SCALAR_REFUSING_KINDS``,
    and the functions and methods of ``SCALAR_REFUSING_OPERATIONS`` (``torch.stack``,
    ``x.clamp(max=t)``)."""
    if kind in SCALAR_REFUSING_KINDS:
        return True
    methods = (MeetingKind.FUNCTION, MeetingKind.METHOD)
    return kind in methods and operation in SCALAR_REFUSING_OPERATIONS


def refused_as_scalar(meeting: Meeting) -> bool:
    """Whether ``meeting`` fails even if its CPU tensor is 0-dim (``refuses_scalars``)."""
    if meeting.kind in SCALAR_REFUSING_KINDS:
        return True
    func = meeting.at.func if isinstance(meeting.at, cst.Call) else None
    name = func.attr if isinstance(func, cst.Attribute) else func
    return isinstance(name, cst.Name) and refuses_scalars(meeting.kind, name.value)


def meetings_among(
    at: cst.CSTNode, kind: MeetingKind, operands: Sequence[Operand], *, scalars: bool = False
) -> Iterator[Meeting]:
    """Every CPU-made tensor among ``operands`` that meets one surely on the computation's
    device (or on a device the code names: ``x.cuda()`` is there too); the 0-dim ones too
    if the operation refuses ``scalars`` (``refuses_scalars``)."""
    for cpu_node, cpu in operands:
        sites = (*cpu.made, *cpu.scalars) if scalars else cpu.made
        for site in sites:
            partner = next(
                (
                    node
                    for node, other in operands
                    if surely_on_device(other) and site not in other.tied
                ),
                None,
            )
            if partner is not None:
                yield Meeting(site, at, kind, cpu_node, partner)


def meetings_updated(at: cst.CSTNode, updated: Operand, change: Operand) -> Iterator[Meeting]:
    """The 0-dim CPU tensors of ``updated`` where an in-place operation writes into it a
    ``change`` surely on the computation's device (``total += loss``, ``total.add_(loss)``:
    ``IN_PLACE_UPDATES``): the one kind of arithmetic that refuses them
    (``SCALAR_REFUSING_KINDS``). A CPU tensor of more dimensions is an ``IN_PLACE``
    meeting already."""
    updated_node, found = updated
    change_node, device_change = change
    if not surely_on_device(device_change):
        return
    for site in found.scalars:
        if site not in device_change.tied:
            yield Meeting(site, at, MeetingKind.UPDATED, updated_node, change_node)


def meetings_written(at: cst.CSTNode, into: Operand, written: Operand) -> Iterator[Meeting]:
    """The CPU-made tensors of ``written`` where it is written into ``into``, a tensor surely
    on the computation's device; never the other way: writing a device tensor into a CPU
    one (``t.data = x``) only moves ``t``."""
    into_node, destination = into
    written_node, found = written
    if not surely_on_device(destination):
        return
    for site in found.made:
        if site not in destination.tied:
            yield Meeting(site, at, MeetingKind.WRITE, written_node, into_node)


def meetings_indexed(at: cst.CSTNode, indexed: Operand, index: Operand) -> Iterator[Meeting]:
    """Where a tensor put on the CPU on purpose (``feats.cpu()``) is indexed by a tensor
    surely on the computation's device: an index must be on the CPU or on the indexed
    tensor's device, so the choice of the CPU is what fails there (``made`` is the
    ``.cpu()`` call). Not an index that may be on the CPU itself, derived from what that
    choice moved or moved by a choice of its own: the two took the same path (``if mps:
    p = p.cpu()``, then ``p[p[..., 4] > t]``)."""
    indexed_node, found = indexed
    index_node, device_index = index
    if not surely_on_device(device_index) or Origin.CPU in device_index.origins:
        return  # an index the code may put on the CPU too took a path of the same choice
    for site in found.chosen:
        if site not in device_index.tied:
            yield Meeting(site, at, MeetingKind.INDEX, indexed_node, index_node)


_JOINING_FUNCTIONS = frozenset({"cat", "concat", "concatenate"})
"""``torch.cat`` and its aliases, which skip an empty one-dimensional operand's shape."""


def may_happen(meeting: Meeting) -> bool:
    """An empty tensor (``torch.Tensor([])``: an accumulator, or a sentinel for "none")
    joins tensors of any shape only in ``torch.cat`` (or a collective). Elsewhere (in
    arithmetic, indexed, stacked) its shape fails next to a tensor of several elements on
    every device: code that does that runs on another path (``if len(ious) > 0``)."""
    if meeting.kind is MeetingKind.COLLECTIVE or not empty_data(meeting.made):
        return True
    at = meeting.at
    if meeting.kind is not MeetingKind.FUNCTION or not isinstance(at, cst.Call):
        return False
    return (dotted_name(at.func) or "").rpartition(".")[2] in _JOINING_FUNCTIONS


def empty_data(site: cst.CSTNode) -> bool:
    """``torch.Tensor([])``, ``torch.tensor(())``: a one-dimensional tensor of no data; also
    one of size 0 (``torch.empty(0)``, ``torch.arange(0)``), a placeholder for "not made yet"."""
    if not isinstance(site, cst.Call):
        return False
    factory = (dotted_name(site.func) or "").rpartition(".")[2]
    sized = factory in TENSOR_FACTORIES and factory not in DATA_FACTORIES
    if factory not in LEGACY_TENSOR_TYPES and factory not in DATA_FACTORIES and not sized:
        return False
    positional = [arg.value for arg in site.args if arg.keyword is None]
    if len(positional) != 1:
        return False
    data = positional[0]
    if isinstance(data, cst.Integer):
        return factory not in DATA_FACTORIES and data.evaluated_value == 0
    if sized:
        return False  # `torch.rand([])`: a size of no dimensions, 0-dim
    return isinstance(data, (cst.List, cst.Tuple)) and not data.elements


@dataclass(frozen=True)
class Handoff:
    """A CPU-made tensor passed to a function of another file: whether it meets the device
    there (or comes back and meets it here) is that function's summary's to say."""

    made: cst.CSTNode
    call: cst.Call
    callee: str
    """The callee's qualified name, resolved through the file's imports."""
    slot: int | str
    """The parameter it is passed as: a position, or a keyword."""
    placed: tuple[int | str, ...]
    """The call's other arguments surely on the computation's device (positions, keywords)."""
