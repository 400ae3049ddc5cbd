"""``check_devices``: one forward (or step) with the module on a virtual second GPU."""

from __future__ import annotations

import linecache
import re
from collections.abc import Mapping
from copy import copy
from typing import Any

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode

from devlint.testing.frames import Site, culprit, raised_frames
from devlint.testing.mix import DeviceMixError, Origin
from devlint.testing.placement import fake_like, on_virtual_device
from devlint.testing.watch import VIRTUAL, Watch

_NO_CUDA = re.compile(
    r"not compiled with CUDA|not linked with support for cuda|Found no NVIDIA driver", re.I
)
"""What torch says when code asks for CUDA on a CPU build (``torch.cuda.current_device()``)."""


def check_devices(module: nn.Module, *args: Any, method: str = "forward", **kwargs: Any) -> Any:
    """Run ``module(*args, **kwargs)`` with the module and the inputs on a virtual second GPU.

    Needs no GPU and no memory for the weights: parameters, buffers and the tensors in
    the inputs (nested in lists, tuples and dicts too) become fake tensors on
    ``cpu:1``, which stands for ``cuda:1``; the module may even be on ``meta``.
    ``method="training_step"`` (any method name) calls that method instead of the
    forward, and a loss it returns (a tensor, or a mapping with ``"loss"``) is
    backpropagated too. The module is left exactly as it was, also on error.

    Returns what the call returned (fake tensors: shapes and devices, no values).
    Raises ``DeviceMixError`` where code would mix devices on the second GPU: its
    message names the line, the two devices and the devlint rule.
    """
    return run_watched(module, args, kwargs, method, Watch())


def find_device_mixes(
    module: nn.Module, *args: Any, method: str = "forward", **kwargs: Any
) -> list[DeviceMixError]:
    """Like ``check_devices``, but every mix of the run, not only the first.

    After each mix the odd tensors are moved to the virtual device and the run goes
    on, so one run finds the mixes behind the first. An error that is not a device
    mix (or a CUDA call torch refuses outside the watched operations, such as
    ``torch.cuda.current_device()``, which ends the list) stops the run as usual.
    """
    watch = Watch(collect=True)
    try:
        run_watched(module, args, kwargs, method, watch)
    except DeviceMixError as error:
        watch.found.append(error)
    return watch.found


def run_watched(
    module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], method: str, watch: Watch
) -> Any:
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    with on_virtual_device(module, mode, watch.note):
        fake_args, fake_kwargs = _on_virtual((args, kwargs), mode)
        try:
            with mode, watch:
                call = module if method == "forward" else getattr(module, method)
                result = call(*fake_args, **fake_kwargs)
                if method != "forward":
                    _backward(result)
        except DeviceMixError:
            raise
        except Exception as error:
            if _NO_CUDA.search(str(error)):
                raise _cuda_missing(error) from error
            raise
    return result


def _on_virtual(value: Any, mode: FakeTensorMode) -> Any:
    """Inputs with every tensor replaced by a fake one on the virtual device."""
    if isinstance(value, torch.Tensor):
        return fake_like(mode, value, VIRTUAL)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*(_on_virtual(item, mode) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_on_virtual(item, mode) for item in value)
    if isinstance(value, Mapping):
        moved: Any = copy(value)  # keeps the class (transformers' BatchEncoding, a UserDict)
        for key in value:
            moved[key] = _on_virtual(value[key], mode)
        return moved
    return value


def _backward(result: Any) -> None:
    loss = result.get("loss") if isinstance(result, Mapping) else result
    if isinstance(loss, torch.Tensor) and loss.requires_grad:
        torch.autograd.backward([loss.sum()])


def _cuda_missing(error: BaseException) -> DeviceMixError:
    """A CUDA call torch refused outside the watch (``torch.cuda.current_device()``, ...)."""
    frames = raised_frames(error.__traceback__)
    site, meeting = culprit(frames, own_code=True), culprit(frames, own_code=False)
    line = _source_line(meeting)
    rule = "DEV002" if ".cuda(" in line else "DEV001"
    what = "asked of CUDA, which this run does not have"
    return DeviceMixError(
        site,
        meeting,
        (str(VIRTUAL), "cuda"),
        Origin(rule, what, meeting),
        f"code that needs a GPU of its own choosing ({error}).",
    )


def _source_line(site: Site | None) -> str:
    return linecache.getline(site.filename, site.lineno) if site is not None else ""
