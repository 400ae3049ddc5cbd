"""Where a 0-dim CPU tensor may meet a tensor on the device, checked against fake tensors.

``SCALAR_REFUSING_KINDS`` (and ``refuses_scalars``) say at which meetings the flow blames a
0-dim CPU tensor (``torch.tensor(3.0)``). Fake tensors model PyTorch's CPU-scalar exemption
(``FakeTensor._find_common_device``, after ATen's ``TensorIterator``): each example below
runs one meeting of a fake 0-dim CPU tensor with a fake ``cuda`` tensor (a CPU build makes
fake ``cuda`` tensors; the virtual ``cpu:1`` is no partner here, as fake tensors take a
0-dim ``cpu:1`` tensor for a CPU scalar too). Fake tensors let a 0-dim CPU tensor through
functions whose CUDA kernels refuse it (``torch.stack``): ``SCALAR_REFUSING_OPERATIONS`` is
checked against ATen's ``device_check`` instead (tests/runtime/test_symbols.py), and a
collective does not run under fake tensors. A 0-dim tensor cannot be indexed by a tensor
nor multiplied as a matrix on any device, and what a module or a closure does with it is
not known: no example for those kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import runtime_support as rt
from runtime_support import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from devlint.flow.meetings import SCALAR_REFUSING_KINDS, MeetingKind, refuses_scalars

pytestmark = rt.QUIET

Meet = Callable[[Any, Any], Any]
"""A meeting of ``scalar``, a 0-dim CPU tensor, and ``x``, a vector on the device."""

EXAMPLES: list[tuple[MeetingKind, str, Meet]] = [
    (MeetingKind.OPERATOR, "mul", lambda scalar, x: x * scalar),
    (MeetingKind.OPERATOR, "rsub", lambda scalar, x: scalar - x),
    (MeetingKind.COMPARISON, "lt", lambda scalar, x: x < scalar),
    (MeetingKind.IN_PLACE, "add_", lambda scalar, x: x.add_(scalar)),
    (MeetingKind.UPDATED, "add_", lambda scalar, x: scalar.add_(x.sum())),
    (MeetingKind.UPDATED, "mul_", lambda scalar, x: scalar.mul_(x.sum())),
    (MeetingKind.FUNCTION, "where", lambda scalar, x: torch.where(x > 0, scalar, x)),
    (MeetingKind.FUNCTION, "maximum", lambda scalar, x: torch.maximum(x, scalar)),
    (MeetingKind.FUNCTION, "max", lambda scalar, x: torch.max(x, scalar)),
    (MeetingKind.FUNCTION, "lerp", lambda scalar, x: torch.lerp(x, x, scalar)),
    (MeetingKind.METHOD, "masked_fill", lambda scalar, x: x.masked_fill(x > 0, scalar)),
    (MeetingKind.WRITE, "index_put_", lambda scalar, x: x.index_put_((x > 0,), scalar)),
]


def _raises_on_the_device(meet: Meet) -> bool:
    """Whether ``meet`` fails with fake tensors: a 0-dim one on the CPU, a vector on ``cuda``."""
    mode = FakeTensorMode()
    with mode:
        scalar = torch.empty(())
        x = torch.empty(3, device="cuda")
        try:
            meet(scalar, x)
        except RuntimeError as error:
            assert "device" in str(error), error  # refused for its device, not its shape
            return True
    return False


@pytest.mark.parametrize(
    ("kind", "operation", "meet"), EXAMPLES, ids=[f"{k.value}-{o}" for k, o, _ in EXAMPLES]
)
def test_the_flow_blames_a_0_dim_cpu_tensor_where_fake_tensors_refuse_it(
    kind: MeetingKind, operation: str, meet: Meet
) -> None:
    assert refuses_scalars(kind, operation) == _raises_on_the_device(meet)


def test_every_refusing_kind_has_an_example_or_cannot_run_under_fake_tensors() -> None:
    shown = {kind for kind, _, _ in EXAMPLES}
    assert SCALAR_REFUSING_KINDS - shown == {MeetingKind.COLLECTIVE}
