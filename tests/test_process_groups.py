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
    "        self.prefetch_group = custom_group({backend})\n\n"
    "    def close(self):\n"
    "        self.prefetch_group = None\n"
)
_SERVER = (
    "import torch\nimport torch.distributed as dist\n\n"
    "from pkg.controller import Controller\n\n\n"
    "class Server(Controller):\n"
    "    def share(self, n):\n"
    "        mask = torch.zeros(n, dtype=torch.int32)\n"
    "        dist.broadcast(mask, 0, {group})\n"
    "        return mask\n"
)
_FLAGGED = [("server.py", 9, 16)]


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ('ranks, backend="gloo"', []),
        ('ranks, "gloo"', []),
        ('ranks, backend="cpu:gloo," "cuda:nccl"', []),
        ("ranks", _FLAGGED),
        ('ranks, backend="nccl"', _FLAGGED),
        ('ranks, tag="gloo"', _FLAGGED),
    ],
)
def test_a_group_attribute_a_base_in_another_file_assigns_only_gloo_groups_takes_cpu_tensors(
    backend: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {
        "pkg/groups.py": _GROUPS,
        "pkg/controller.py": _CONTROLLER.format(backend=backend),
        "pkg/server.py": _SERVER.format(group="self.prefetch_group"),
    }
    assert findings(tmp_path, files, "DEV003") == expected


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        ("class Other:\n    def __init__(self, group):\n        self.prefetch_group = group\n", []),
        (
            "from pkg.server import Server\n\n\n"
            "class Other(Server):\n"
            "    def __init__(self, group):\n"
            "        self.prefetch_group = group\n",
            _FLAGGED,
        ),
        (
            "from pkg.server import Server\n\n\n"
            "class Other(Server):\n"
            "    def __init__(self, ranks):\n"
            "        self.prefetch_group = None\n",
            _FLAGGED,
        ),
        ("def wire(controller, group):\n    controller.prefetch_group = group\n", _FLAGGED),
        (
            'def wire(controller, group):\n    setattr(controller, "prefetch_group", group)\n',
            _FLAGGED,
        ),
        (
            "from pkg.server import Server\n\n\n"
            "def make(group):\n"
            "    return Server(prefetch_group=group)\n",
            _FLAGGED,
        ),
        (
            "from dataclasses import dataclass\n\nfrom pkg.server import Server\n\n\n"
            "@dataclass\n"
            "class Other(Server):\n"
            "    prefetch_group: object\n",
            _FLAGGED,
        ),
    ],
)
def test_a_group_attribute_the_class_family_or_other_code_may_set_otherwise_keeps_the_finding(
    other: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Another class's attribute of the name is its own; but a subclass's (its methods run
    on the same objects), one set on another object, by ``setattr`` or a keyword, a
    generated ``__init__``'s field, or None left at construction (the default group: NCCL)
    may be what the collective is given."""
    files = {
        "pkg/groups.py": _GROUPS,
        "pkg/controller.py": _CONTROLLER.format(backend='ranks, backend="gloo"'),
        "pkg/other.py": other,
        "pkg/server.py": _SERVER.format(group="self.prefetch_group"),
    }
    assert findings(tmp_path, files, "DEV003") == expected


def test_a_same_named_attribute_of_another_object_keeps_the_finding(tmp_path: Path) -> None:
    """``ddp_model.process_group`` is DDP's (NCCL), whatever the project's own classes
    assign an attribute of that name."""
    files = {
        "pkg/groups.py": _GROUPS,
        "pkg/controller.py": _CONTROLLER.format(backend='ranks, backend="gloo"'),
        "pkg/server.py": _SERVER.format(group="self.model.prefetch_group"),
    }
    assert findings(tmp_path, files, "DEV003") == _FLAGGED


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
