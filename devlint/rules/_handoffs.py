"""What another file must show for a CPU tensor handed to one of its functions to meet the
device: the callee's parameter meets it there, or the callee returns it and the result
meets it here. DEV003 (a tensor made in a function) and DEV007 (a tensor a module keeps)
ask the same of the project's flow summaries."""

from __future__ import annotations

from devlint.candidates import Needed, Requirement
from devlint.flow.inference import FunctionFlow
from devlint.flow.meetings import Handoff


def handoff_needs(handoff: Handoff, flow: FunctionFlow) -> list[Requirement]:
    """Either of which, shown by the callee's file, has ``handoff`` (made in ``flow``'s
    function, or read there) meet the device."""
    needs = [Requirement(Needed.PARAMETER_MEETS, handoff.callee, handoff.slot, handoff.placed)]
    needs += [
        Requirement(Needed.PARAMETER_RETURNED, handoff.callee, handoff.slot, part=part)
        for part in flow.parts_meeting(handoff.call)
    ]
    return needs
