"""A parameter every project call fills with data made on the CPU (or with such a parameter
of its own caller), in any file, is on the CPU: a CPU tensor meeting only it is no finding.
A function with no project caller (tests do not count), or one call passing something the
flow cannot place, keeps the finding."""

from __future__ import annotations

from pathlib import Path

from conftest import package_findings

OPS = """\
import torch


def positions(input_ids, spans):
    ones = torch.ones(2, device=input_ids.device)
    offset = input_ids.max() + ones
    return torch.arange(2) + offset
"""

FINDING = ("ops.py", 7, 12)

CPU_CALLER = """\
import numpy as np
import torch

from pkg.ops import positions


def encode(ids):
    input_ids = torch.from_numpy(np.asarray(ids))
    return positions(input_ids, [1, 2])
"""

DEVICE_CALLER = """\
from pkg.ops import positions


def run(model, x):
    return positions(model(x), [])
"""

RELAY = """\
from pkg.ops import positions


def relay(ids, spans):
    return positions(ids.unsqueeze(0), spans=spans)
"""

CPU_TOP = """\
import torch

from pkg.relay import relay


def top(n):
    return relay(torch.arange(n), [])
"""

DEVICE_TOP = """\
from pkg.relay import relay


def top_on_device(model, x):
    return relay(model(x), [])
"""

BOUND_RELAY = """\
from pkg.ops import positions


class Encoder:
    def encode(self, ids):
        return positions(ids, [])
"""


def check(tmp_path: Path, **files: str) -> list[tuple[str, int, int]]:
    named = {f"pkg/{name.replace('__', '/')}.py": text for name, text in files.items()}
    return package_findings(tmp_path, {"pkg/ops.py": OPS, **named}, "DEV003")


def test_no_caller_keeps_the_finding(tmp_path: Path) -> None:
    assert check(tmp_path) == [FINDING]


def test_every_caller_passing_cpu_data_clears_it(tmp_path: Path) -> None:
    assert check(tmp_path, proc=CPU_CALLER) == []


def test_a_caller_passing_what_may_be_on_a_device_keeps_it(tmp_path: Path) -> None:
    assert check(tmp_path, proc=CPU_CALLER, run=DEVICE_CALLER) == [FINDING]


def test_a_caller_passing_its_parameter_on_asks_its_own_callers(tmp_path: Path) -> None:
    assert check(tmp_path, relay=RELAY, top=CPU_TOP) == []
    assert check(tmp_path / "2", relay=RELAY, top=CPU_TOP, top2=DEVICE_TOP) == [FINDING]


def test_a_method_passing_its_parameter_on_keeps_it(tmp_path: Path) -> None:
    assert check(tmp_path, proc=CPU_CALLER, encoder=BOUND_RELAY) == [FINDING]


def test_callers_in_tests_do_not_count(tmp_path: Path) -> None:
    assert check(tmp_path, tests__test_ops=CPU_CALLER) == [FINDING]


CURRIED_OPS = """\
import torch

from pkg.util import curry1


@curry1
def positions(input_ids, spans):
    ones = torch.ones(2, device=input_ids.device)
    offset = input_ids.max() + ones
    return torch.arange(2) + offset
"""

CURRY = """\
def curry1(f):
    def outer(*args, **kwargs):
        def inner(x):
            return f(x, *args, **kwargs)

        return inner

    return outer
"""

CURRIED_CALLER = """\
from pkg.ops import positions


def pipeline():
    return positions([1, 2])
"""


def test_a_call_of_a_wrapped_function_passes_no_parameter_it_names(tmp_path: Path) -> None:
    files = {"pkg/ops.py": CURRIED_OPS, "pkg/util.py": CURRY, "pkg/proc.py": CURRIED_CALLER}
    assert package_findings(tmp_path, files, "DEV003") == [("ops.py", 10, 12)]
