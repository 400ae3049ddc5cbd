"""Collectives over a process group made with the gloo backend take CPU tensors, wherever
the project makes the group: through a function of another file that hands the backend on
to torch, kept in an attribute another class reads (DEV003)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_GROUPS = (
    "import torch.distributed as dist\n\n\n"
    'def custom_group(ranks, backend="nccl"):\n'
    "    return dist.new_group(ranks=ranks, backend=backend)\n\n\n"
    'def init_distrib(backend="nccl"):\n'
    "    dist.init_process_group(backend)\n"
)
_CONTROLLER = (
    "from pkg.groups import custom_group\n\n\n"
    "class Controller:\n"
    "    def __init__(self, ranks):\n"
    "        self.prefetch_group = None\n"
    "        self.prefetch_group = custom_group({backend})\n"
)
_SERVER = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "class Server:\n"
    "    def __init__(self, controller, device):\n"
    "        self.controller = controller\n"
    "        self.device = device\n\n"
    "    def share(self, n):\n"
    "        mask = torch.zeros(n, dtype=torch.int32)\n"
    "        dist.broadcast(mask, 0, self.controller.prefetch_group)\n"
    "        return mask\n"
)


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ('ranks, backend="gloo"', []),
        ('ranks, "gloo"', []),
        ("ranks", [("server.py", 11, 16)]),
        ('ranks, backend="nccl"', [("server.py", 11, 16)]),
        ('ranks, tag="gloo"', [("server.py", 11, 16)]),
    ],
)
def test_a_group_attribute_assigned_only_gloo_groups_in_another_file_takes_cpu_tensors(
    backend: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/groups.py": _GROUPS,
        "pkg/controller.py": _CONTROLLER.format(backend=backend),
        "pkg/server.py": _SERVER,
    }
    assert findings(tmp_path, files, "DEV003") == expected


def test_a_group_attribute_also_assigned_another_group_keeps_the_finding(tmp_path: Path) -> None:
    other = "class Other:\n    def __init__(self, group):\n        self.prefetch_group = group\n"
    files = {
        "pkg/groups.py": _GROUPS,
        "pkg/controller.py": _CONTROLLER.format(backend='ranks, backend="gloo"'),
        "pkg/other.py": other,
        "pkg/server.py": _SERVER,
    }
    assert findings(tmp_path, files, "DEV003") == [("server.py", 11, 16)]


@pytest.mark.parametrize(
    ("backend", "expected"), [('"gloo"', []), ('"nccl"', [("worker.py", 8, 11)])]
)
def test_a_file_making_a_gloo_group_through_another_files_function_takes_cpu_tensors(
    backend: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    worker = (
        "import torch\nimport torch.distributed as dist\n\n"
        "from pkg.groups import init_distrib\n\n\n"
        "def run(n):\n"
        "    out = torch.zeros(n)\n"
        "    dist.all_reduce(out)\n"
        "    return out\n\n\n"
        "def main():\n"
        f"    init_distrib(backend={backend})\n"
    )
    files = {"pkg/groups.py": _GROUPS, "pkg/worker.py": worker}
    assert findings(tmp_path, files, "DEV003") == expected
