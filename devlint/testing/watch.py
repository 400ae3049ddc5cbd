"""Watching every torch call of a run: accelerator devices, device mixes, where tensors come from.

Runs under a ``FakeTensorMode`` in which the module's tensors are on ``cpu:1``, the
virtual second GPU. Fake tensors already refuse most mixes ("found at least two
devices"); this mode adds what they let through or get wrong, and remembers how
each tensor that is not on the virtual device was made, to name the rule:

- a move to ``cuda`` (``.cuda()``, ``.to("cuda:0")``, ``device="cuda"``) is refused at
  once, as a laptop without a GPU would refuse it (a CPU build cannot run fake ``cuda``
  tensors through every operation anyway);
- a CPU tensor indexed by a device tensor (``self.logvar[t]``), which fake tensors
  allow and CUDA does not;
- a 0-dim CPU tensor given to an operation that checks every tensor's device first
  (``torch.stack``, a tensor bound of ``clamp``: ``SCALAR_REFUSING_OPERATIONS``), which
  fake tensors let through as they let it through arithmetic, and CUDA does not; or
  updated in place by a device tensor (``total += loss``: ``IN_PLACE_UPDATES``), which
  fake tensors let through when that tensor is a 0-dim one on ``cpu:1`` too;
- a factory given ``device=cpu:1`` that comes back on plain ``cpu`` (``torch.tensor``
  does, inside the mode) is put on ``cpu:1``, or the oracle would report bugs that do
  not exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map
from torch.utils.weak import WeakIdKeyDictionary

from devlint.symbols import IN_PLACE_UPDATES, SCALAR_REFUSING_OPERATIONS
from devlint.testing.frames import calling_frames, culprit, raised_frames
from devlint.testing.mix import DeviceMixError, Origin

VIRTUAL = torch.device("cpu", 1)
"""The module's device during a check: a second CPU index standing for the second GPU."""
HOST = torch.device("cpu")

_ACCELERATOR = re.compile(r"(cuda|mps|xpu|hpu|npu)(:\d+)?")
_DEVICE_WORD = re.compile(r"\b(?:cpu|cuda|meta|mps|xpu)(?::\d+)?\b")
_MIX_WORDS = re.compile(
    r"found at least two devices|Mismatching \S+ device|indices should be either on"
)
_PROCESSOR_MODULE = re.compile(r"^transformers\.(?:.*\.)?(?:tokeniz|processing|feature_extract)")
"""Modules whose tensors are processor output: tokenizers, processors, feature extractors."""


def accelerator(value: object, *, int_is_device: bool = False) -> torch.device | None:
    """The accelerator ``value`` names as a device argument (``"cuda:0"``, ``0`` for ``.to``)."""
    if isinstance(value, torch.device):
        return value if value.type not in ("cpu", "meta") else None
    if isinstance(value, str) and _ACCELERATOR.fullmatch(value):
        return torch.device(value)
    if int_is_device and isinstance(value, int) and not isinstance(value, bool):
        return torch.device("cuda", value)
    return None


def _name(func: Callable[..., Any]) -> str:
    return str(getattr(func, "__name__", func))


def _wanted_device(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
    """The device a call asks for: ``device=``, ``.to(device or tensor)``, ``new_*``, ``*_like``."""
    if "device" in kwargs:
        wanted = kwargs["device"]
        return torch.device(wanted) if isinstance(wanted, str) else wanted
    first = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if name == "to":
        for value in args[1:]:
            if isinstance(value, torch.Tensor):
                return value.device
            if isinstance(value, (str, torch.device)):
                return torch.device(value)
        return None
    if first is not None and (name.startswith("new_") or name.endswith("_like")):
        return first.device
    return None


def _tensors(value: object) -> list[torch.Tensor]:
    return [leaf for leaf in tree_flatten(value)[0] if isinstance(leaf, torch.Tensor)]


def _devices_in(error: BaseException) -> list[str]:
    common, other = getattr(error, "common_device", None), getattr(error, "device", None)
    if isinstance(common, torch.device) and isinstance(other, torch.device):
        return [str(common), str(other)]
    return list(dict.fromkeys(_DEVICE_WORD.findall(str(error))))


def is_device_mix(error: BaseException) -> bool:
    return bool(_MIX_WORDS.search(str(error))) and len(_devices_in(error)) >= 2


def ordered(first: str, second: str) -> tuple[str, str]:
    """The module's device first."""
    return (second, first) if second == str(VIRTUAL) else (first, second)


class Watch(TorchFunctionMode):
    """Sees every torch call; raises ``DeviceMixError`` (or, collecting, records it and goes on)."""

    def __init__(self, *, collect: bool = False) -> None:
        super().__init__()
        self.collect = collect
        self.found: list[DeviceMixError] = []
        self.origins: WeakIdKeyDictionary = WeakIdKeyDictionary()

    def note(self, tensor: torch.Tensor, origin: Origin) -> None:
        """Remember how a tensor that stays off the virtual device was made."""
        self.origins[tensor] = origin

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
    ) -> Any:
        args, kwargs = tuple(args), dict(kwargs or {})
        if _name(func) == "cuda" and args and isinstance(args[0], torch.Tensor):
            self._refuse_cuda_call(args, kwargs)
            return args[0] if args[0].device == VIRTUAL else args[0].to(VIRTUAL)
        args, kwargs = self._refuse_accelerators(func, args, kwargs)
        args = self._refuse_host_indexed_by_device(func, args)
        args, kwargs = self._refuse_host_scalars(func, args, kwargs)
        args = self._refuse_host_scalar_updated(func, args)
        try:
            result = func(*args, **kwargs)
        except Exception as error:
            if not is_device_mix(error):
                raise
            result = self._mixed(error, func, args, kwargs)
        result = self._keep_on_virtual(func, args, kwargs, result)
        self._trace_origin(func, args, kwargs, result)
        return result

    # The six refusals ------------------------------------------------------------------

    def _refuse_cuda_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        index = args[1] if len(args) > 1 else kwargs.get("device")
        target = accelerator(index, int_is_device=True) or torch.device("cuda", 0)
        self._report(
            (str(VIRTUAL), str(target)),
            Origin("DEV002", "moved there by `.cuda()`", None),
            "`.cuda()` moves a tensor to a GPU of its own choosing.",
        )

    def _refuse_accelerators(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        name = _name(func)
        int_is_device = name == "to"
        found = [
            (place, device)
            for place, value in [*enumerate(args), *kwargs.items()]
            if (device := accelerator(value, int_is_device=int_is_device and place == 1))
        ]
        if not found:
            return args, kwargs
        self._report(
            (str(VIRTUAL), str(found[0][1])),
            Origin("DEV001", f"put there by a literal device in `{name}()`", None),
            f"`{name}()` puts a tensor on the hard-coded {found[0][1]}.",
        )
        places = {place for place, _ in found}
        args = tuple(VIRTUAL if i in places else value for i, value in enumerate(args))
        kwargs = {k: VIRTUAL if k in places else value for k, value in kwargs.items()}
        return args, kwargs

    def _refuse_host_indexed_by_device(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """``cpu_tensor[device_index]``: CUDA refuses it ("indices should be either on cpu...")."""
        if _name(func) != "__getitem__" or len(args) < 2 or not isinstance(args[0], torch.Tensor):
            return args
        indexed = args[0]
        clashing = [
            index
            for index in _tensors(args[1])
            if index.dim() > 0 and index.device not in (indexed.device, HOST)
        ]
        if not clashing or indexed.device == VIRTUAL:
            return args
        self._report(
            ordered(str(indexed.device), str(clashing[0].device)),
            self._origin_of([indexed], str(indexed.device)),
            f"a {indexed.device} tensor indexed by a {clashing[0].device} tensor.",
        )
        return (indexed.to(VIRTUAL), *args[1:])

    def _refuse_host_scalars(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``torch.stack([x.sum(), torch.tensor(0.0)])``: CUDA has no CPU-scalar exemption
        there, though fake tensors (and arithmetic on CUDA) have one."""
        if _name(func) not in SCALAR_REFUSING_OPERATIONS:
            return args, kwargs
        tensors = _tensors((args, kwargs))
        scalars = [t for t in tensors if t.dim() == 0 and t.device == HOST]
        if not scalars or all(t.device != VIRTUAL for t in tensors):
            return args, kwargs
        self._report(
            (str(VIRTUAL), str(HOST)),
            Origin("DEV003", "a 0-dim tensor made on the CPU", None),
            f"a 0-dim {HOST} tensor in `{_name(func)}()`, which wants one device.",
        )

        def placed(value: Any) -> Any:
            is_scalar = isinstance(value, torch.Tensor) and any(value is t for t in scalars)
            return value.to(VIRTUAL) if is_scalar else value

        placed_args, placed_kwargs = tree_map(placed, (args, kwargs))
        return tuple(placed_args), dict(placed_kwargs)

    def _refuse_host_scalar_updated(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """``total += loss`` of a 0-dim CPU ``total``: a CUDA kernel takes a CPU scalar as an
        input, never as the output it writes. Recorded, the update runs on the CPU."""
        if _name(func) not in IN_PLACE_UPDATES or not args:
            return args
        updated = args[0]
        if not isinstance(updated, torch.Tensor) or updated.dim() or updated.device != HOST:
            return args
        if all(t.device != VIRTUAL for t in _tensors(args[1:])):
            return args
        self._report(
            (str(VIRTUAL), str(HOST)),
            Origin("DEV003", "a 0-dim tensor made on the CPU", None),
            f"a 0-dim {HOST} tensor updated in place by `{_name(func)}()` with a {VIRTUAL} one.",
        )

        def on_host(value: Any) -> Any:
            return value.to(HOST) if isinstance(value, torch.Tensor) else value

        return (updated, *tree_map(on_host, args[1:]))

    def _mixed(
        self,
        error: Exception,
        func: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """A mix torch refused: report it (raise), or record it and run the call on one device."""
        first, second = _devices_in(error)[:2]
        devices = ordered(first, second)
        odd = [t for t in _tensors((args, kwargs)) if str(t.device) == devices[1]]
        detail = "the module's tensors meet a tensor on another device."
        self._report(devices, self._origin_of(odd, devices[1]), detail, error)

        def moved(value: Any) -> Any:
            is_odd = isinstance(value, torch.Tensor) and value.device != VIRTUAL and value.dim()
            return value.to(VIRTUAL) if is_odd else value

        args, kwargs = tree_map(moved, (args, kwargs))
        return func(*args, **kwargs)

    def _report(
        self,
        devices: tuple[str, str],
        origin: Origin,
        detail: str,
        error: BaseException | None = None,
    ) -> None:
        frames = raised_frames(error.__traceback__ if error else None, calling_frames())
        site, meeting = culprit(frames, own_code=True), culprit(frames, own_code=False)
        if origin.site is None and origin.rule in ("DEV001", "DEV002"):
            origin = replace(origin, site=meeting)  # the move is where the tensor went astray
        mix = DeviceMixError(site, meeting, devices, origin, detail)
        if not self.collect:
            raise mix from error
        self.found.append(mix)

    # Where tensors come from ------------------------------------------------------------

    def _origin_of(self, tensors: list[torch.Tensor], device: str) -> Origin:
        for tensor in tensors:
            if tensor in self.origins:
                origin: Origin = self.origins[tensor]
                return origin
        if device.startswith("cpu"):
            return Origin("DEV003", "a tensor made on the CPU", None)
        return Origin("DEV001", f"a tensor put on {device}", None)

    @staticmethod
    def _keep_on_virtual(
        func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], result: Any
    ) -> Any:
        """A result asked for on the virtual device is put there.

        Inside the mode, tensors of at most one element (``torch.tensor(...)``,
        ``torch.tensor([], device=...)``, ``x.new_tensor([1])``) carry their value as a
        real CPU tensor, and moving them computes on it: they come back on plain
        ``cpu``. The replacement keeps the shape and dtype, not that value.
        """
        wanted = _wanted_device(_name(func), args, kwargs)
        if wanted != VIRTUAL or not isinstance(result, torch.Tensor) or result.device == VIRTUAL:
            return result
        with torch.no_grad():
            moved = torch.empty_strided(
                result.shape, result.stride(), dtype=result.dtype, device=VIRTUAL
            )
        return moved.requires_grad_(result.requires_grad)

    def _trace_origin(
        self,
        func: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        result: Any,
    ) -> None:
        """Remember how each new tensor off the virtual device (not 0-dim) was made."""
        made = [
            t for t in _tensors(result) if t.device != VIRTUAL and t.dim() and t not in self.origins
        ]
        if not made:
            return
        inputs = _tensors((args, kwargs))
        origin = next((self.origins[t] for t in inputs if t in self.origins), None)
        if origin is None:
            if inputs:
                origin = Origin(None, f"moved to {made[0].device} by `{_name(func)}()`", None)
            else:
                origin = self._factory_origin(func)
        for tensor in made:
            self.origins[tensor] = origin

    @staticmethod
    def _factory_origin(func: Callable[..., Any]) -> Origin:
        frames = list(calling_frames())
        in_processor = [
            i
            for i, (frame, _) in enumerate(frames)
            if _PROCESSOR_MODULE.match(str(frame.f_globals.get("__name__", "")))
        ]
        if in_processor:
            caller = culprit(frames[in_processor[-1] + 1 :], own_code=False)
            return Origin("DEV004", "the output of a processor or tokenizer", caller)
        site = culprit(frames, own_code=False)
        return Origin("DEV003", f"made by `torch.{_name(func)}()` without `device=`", site)
