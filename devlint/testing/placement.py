"""Putting a module on the virtual device as ``module.to("cuda:1")`` would, and back again.

The parameters and buffers become fake tensors on the virtual device (shapes and
dtypes, no memory); what ``.to()`` does not move stays where it was, also as fake
tensors: a plain tensor attribute (DEV007) and the parameters of modules kept in a
plain list or dict (DEV008) stay on the CPU, and each is remembered so that a mix
names its rule. Every change is undone by ``restore``, whatever happened meanwhile.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode

from devlint.testing.frames import Site
from devlint.testing.mix import Origin
from devlint.testing.watch import HOST, VIRTUAL

Note = Callable[[torch.Tensor, Origin], None]


def fake_like(mode: FakeTensorMode, tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A fake tensor with ``tensor``'s shape, strides and dtype on ``device``."""
    with mode, torch.no_grad():
        fake = torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype, device=device)
    if isinstance(tensor, nn.Parameter):
        return nn.Parameter(fake, requires_grad=tensor.requires_grad)
    return fake.requires_grad_(tensor.requires_grad) if tensor.is_floating_point() else fake


def _off_device(tensor: torch.Tensor) -> torch.device:
    """Where a tensor ``.to()`` skips stays: its own device (the CPU for one built on meta)."""
    return HOST if tensor.device.type == "meta" else tensor.device


def assignment_site(module: nn.Module, name: str) -> Site | None:
    """Where the module's class assigns ``self.<name>`` (for the message), if its source says."""
    pattern = re.compile(rf"^\s*self\.{re.escape(name)}\s*(?::[^=]*)?=", re.MULTILINE)
    for cls in type(module).__mro__:
        try:
            lines, first = inspect.getsourcelines(cls)
            filename = inspect.getsourcefile(cls)
        except (OSError, TypeError):
            continue
        text = "".join(lines)
        match = pattern.search(text)
        if match and filename:
            line = first + text.count("\n", 0, match.start() + len(match.group()) - 1)
            return Site(str(Path(filename).resolve()), line)
    return None


@contextmanager
def on_virtual_device(root: nn.Module, mode: FakeTensorMode, note: Note) -> Iterator[None]:
    """``root``'s state on the virtual device while inside; exactly as it was after."""
    undo: list[tuple[dict[str, Any], str, Any]] = []
    made: dict[int, torch.Tensor] = {}  # tied weights stay tied

    def replace(table: dict[str, Any], key: str, value: Any) -> None:
        undo.append((table, key, table[key]))
        table[key] = value

    def moved(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
        if id(tensor) not in made:
            made[id(tensor)] = fake_like(mode, tensor, device)
        return made[id(tensor)]

    registered = list(root.modules())
    known = {id(module) for module in registered}
    try:
        for module in registered:
            for table in (module._parameters, module._buffers):
                for key, tensor in list(table.items()):
                    if tensor is not None and not isinstance(tensor, nn.UninitializedParameter):
                        replace(table, key, moved(tensor, VIRTUAL))
            attributes = vars(module)
            device = attributes.get("_device")
            if isinstance(device, torch.device):  # Lightning's and torchmetrics' `.device`
                replace(attributes, "_device", VIRTUAL)
            for key, value in list(attributes.items()):
                if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                    fake = moved(value, _off_device(value))
                    replace(attributes, key, fake)
                    if fake.dim():
                        what = f"the plain attribute `self.{key}` of {type(module).__name__}"
                        note(fake, Origin("DEV007", what, assignment_site(module, key)))
                elif isinstance(value, (list, tuple, dict)):
                    _leave_behind(module, key, value, known, replace, moved, note)
        yield
    finally:
        for table, key, value in reversed(undo):
            table[key] = value


def _leave_behind(
    owner: nn.Module,
    key: str,
    container: list[Any] | tuple[Any, ...] | dict[Any, Any],
    known: set[int],
    replace: Callable[[dict[str, Any], str, Any], None],
    moved: Callable[[torch.Tensor, torch.device], torch.Tensor],
    note: Note,
) -> None:
    """Modules in a plain container: ``.to()`` does not see them, their tensors stay put."""
    items = container.values() if isinstance(container, dict) else container
    for item in items:
        if not isinstance(item, nn.Module) or id(item) in known:
            continue
        what = f"a parameter of a module kept in the plain container `self.{key}`"
        origin = Origin("DEV008", what, assignment_site(owner, key))
        for module in item.modules():
            known.add(id(module))
            for table in (module._parameters, module._buffers):
                for name, tensor in list(table.items()):
                    if tensor is not None:
                        fake = moved(tensor, _off_device(tensor))
                        replace(table, name, fake)
                        note(fake, origin)
