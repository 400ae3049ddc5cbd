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

from devlint.flow.values import Value


class MeetingKind(Enum):
    OPERATOR = "operator"
    """``a + b``, ``a @ b``."""
    COMPARISON = "comparison"
    """``a < b``, ``a == b``."""
    IN_PLACE = "in-place"
    """``a += b``."""
    FUNCTION = "function"
    """A torch function of several tensors: ``torch.cat([a, b])``, ``torch.where(m, a, b)``."""
    METHOD = "method"
    """A tensor method of another tensor: ``a.masked_fill(m, 0)``, ``a.index_add_(0, i, b)``."""
    MODULE_CALL = "module call"
    """A module or model called with the tensor: ``self.embed(positions)``."""
    INDEX = "index"
    """A CPU tensor indexed by a device tensor: ``self.logvar[t]``."""


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
    they differ would need the paths, which a join forgets."""
    return partner.on_device and not partner.made


def meetings_among(
    at: cst.CSTNode, kind: MeetingKind, operands: Sequence[Operand]
) -> Iterator[Meeting]:
    """Every CPU-made tensor among ``operands`` that meets one surely on the computation's
    device (or on a device the code names: ``x.cuda()`` is there too)."""
    for cpu_node, cpu in operands:
        if not cpu.made:
            continue
        partner = next((node for node, other in operands if surely_on_device(other)), None)
        if partner is None:
            continue
        for site in cpu.made:
            yield Meeting(site, at, kind, cpu_node, partner)


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
