"""A literal device is a finding where it places: ``places_with`` follows a device value
to its uses and tells the uses that only name it from those that may place."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.rules._devices import places_with


def _function(source: str) -> cst.FunctionDef:
    function = cst.parse_module(source).body[0]
    assert isinstance(function, cst.FunctionDef)
    return function


@pytest.mark.parametrize(
    ("body", "places"),
    [
        # Only naming: compared, rebound, an error's text, autocast's device type.
        ('    if device == "cuda":\n        device = "cpu"\n    return 1\n', False),
        ('    if device not in ("cpu", "cuda"):\n        raise ValueError(f"{device}")\n', False),
        ("    return torch.autocast(device, enabled=False)\n", False),
        # Through the type taken from it, to a loader's pinned memory and a device count.
        (
            '    kind = str(device).split(":")[0]\n'
            '    n = torch.get_device_module(kind).device_count() if kind != "cpu" else 0\n'
            "    return DataLoader(x, num_workers=n, pin_memory_device=kind)\n",
            False,
        ),
        ('    return {"cuda": "nccl"}[device]\n', False),
        ('    if torch.device(device).type == "cuda":\n        return 1\n', False),
        ("    return x\n", False),  # never read
        # Placing, or perhaps: a move, a call, a return, a public attribute, a log line.
        ('    kind = str(device).split(":")[0]\n    return x.to(kind)\n', True),
        ("    return torch.zeros(3, device=device)\n", True),
        ("    return x.to(torch.device(device))\n", True),
        ("    return device\n", True),
        ("    self.device = device\n", True),
        ('    logger.info(f"on {device}")\n', True),
    ],
)
def test_a_device_places_only_through_a_use_that_may_place(body: str, places: bool) -> None:
    function = _function(f'def f(x, device="cuda"):\n{body}')
    assert places_with("device", function.body) is places


def test_a_gpu_index_used_as_a_key_picks_that_gpus_entry() -> None:
    function = _function("def f(traces, device=0):\n    return traces[device]\n")
    assert places_with("device", function.body) is False  # a backend's key
    assert places_with("device", function.body, indexed=True) is True


@pytest.mark.parametrize(
    ("methods", "places"),
    [
        ("    def go(self, x):\n        return x.to(self._device)\n", True),
        ('    def go(self, x):\n        return self._device == "cuda"\n', False),
        ("    def go(self, x):\n        return x\n", False),
        # Through a local name another method sets from it (not the name of a third one).
        (
            "    def go(self, n):\n        device = self._device\n"
            "        return torch.zeros(n, device=device)\n",
            True,
        ),
        (
            '    def go(self, n):\n        device = self._device\n        return device == "cuda"\n'
            "    def other(self, x, device):\n        return x.to(device)\n",
            False,
        ),
    ],
)
def test_a_private_attribute_is_followed_through_its_class(methods: str, places: bool) -> None:
    init = '    def __init__(self, device="cuda"):\n        self._device = device\n\n'
    source = f"class C:\n{init}{methods}"
    owner = cst.parse_module(source).body[0]
    assert isinstance(owner, cst.ClassDef)
    function = owner.body.body[0]
    assert isinstance(function, cst.FunctionDef)
    assert places_with("device", function.body, owner) is places
    assert places_with("device", function.body) is True  # without its class: kept, may place
