"""The error ``check_devices`` raises: where two devices met, which ones, and the rule to read."""

from __future__ import annotations

from dataclasses import dataclass

from devlint.testing.frames import Site

RULE_NAMES = {
    "DEV001": "hardcoded-device",
    "DEV002": "cuda-call",
    "DEV003": "factory-without-device",
    "DEV004": "unmoved-processor-output",
    "DEV007": "tensor-attribute-not-buffer",
    "DEV008": "modules-in-plain-container",
}
"""The rules a device mix can point to (``devlint rule CODE`` has their documentation).

Written out rather than read from ``devlint.rules``, which would load the linter (and
libcst) into every test run that only wants the oracle; a test checks they agree.
"""


@dataclass(frozen=True)
class Origin:
    """Where the tensor that is not on the module's device came from."""

    rule: str | None
    """The devlint rule that covers this way of making it (``None``: no rule does)."""
    what: str
    """How it was made, for the message: ``torch.zeros() without device=``."""
    site: Site | None
    """Where it was made (the attribute's assignment, for an attribute)."""


class DeviceMixError(RuntimeError):
    """Two devices met: the code would fail on the second GPU (or on any machine without one).

    ``site`` is the line of your code to look at (the innermost frame outside torch
    and installed libraries), ``meeting`` the innermost frame outside torch (it may be
    in a library your code called), ``devices`` the module's device then the other
    one, ``rule`` the devlint rule covering the pattern, ``origin`` how the other
    tensor was made, when known.
    """

    def __init__(
        self,
        site: Site | None,
        meeting: Site | None,
        devices: tuple[str, str],
        origin: Origin,
        detail: str,
    ) -> None:
        self.site = site
        self.meeting = meeting
        self.devices = devices
        self.origin = origin
        self.rule = origin.rule
        self.detail = detail
        super().__init__(self._message())

    def _message(self) -> str:
        where = str(self.site or self.meeting or "<unknown>")
        first, second = self.devices
        lines = [
            f"{where}: found at least two devices, {first} and {second}: {self.detail}",
            f"  {first} is the module's device (the virtual second GPU).",
        ]
        if self.origin.site is not None and self.origin.site not in (self.site, self.meeting):
            lines.append(f"  The {second} tensor is {self.origin.what}, at {self.origin.site}.")
        elif self.origin.what:
            lines.append(f"  The {second} tensor is {self.origin.what}.")
        if self.meeting is not None and self.meeting != self.site:
            lines.append(f"  They met in {self.meeting}.")
        if self.rule is None:
            lines.append("  No devlint rule covers this pattern.")
        else:
            name = RULE_NAMES[self.rule]
            lines.append(f"  devlint rule {self.rule} ({name}): `devlint rule {self.rule}`.")
        return "\n".join(lines)
