"""A Dataset's items and a collate function's batches are made in the process iterating
the loader where no code of the program gives a loader workers (``num_workers`` defaults to
0): a ``.cuda()`` there runs on that process's current GPU, like the program's other
tensors, where the program offers no other device or its launcher made the GPU current
(DEV011 stays quiet; ``ProjectIndex.runs_no_loader_workers``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

from devlint.loader_workers import may_build_loaders, may_start_workers

_DATA = (
    "import torch\nfrom torch.utils.data import Dataset\n\n\n"
    "class Pairs(Dataset):\n"
    "    def __len__(self):\n"
    "        return 8\n\n"
    "    def __getitem__(self, index):\n"
    "        return torch.ones(4).cuda()\n\n\n"
    "def pad(batch):\n"
    "    return torch.stack(batch).to('cuda')\n"
)
_TRAIN = (
    "import argparse\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
    "from pkg.data import Pairs, pad\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "{options}"
    "    args = parser.parse_args()\n"
    "    net = torch.nn.Linear(4, 4).cuda()\n"
    "    for batch in DataLoader(Pairs(), collate_fn=pad{loader}):\n"
    "        net(batch)\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)
_BOTH = [("data.py", 10, 30), ("data.py", 14, 31)]


@pytest.mark.parametrize(
    ("options", "loader", "expected"),
    [
        ("", "", []),
        ("", ", num_workers=0", []),
        ('    parser.add_argument("--workers", type=int, default=4)\n', ", num_workers=4", _BOTH),
        (
            '    parser.add_argument("--workers", type=int, default=4)\n',
            ", num_workers=args.workers",
            _BOTH,
        ),
        ('    parser.add_argument("--cpu", action="store_true")\n', "", _BOTH),
        ("    Trainer(args=parser, train_dataset=Pairs())\n", "", _BOTH),
    ],
    ids=[
        "no workers, the current GPU only",
        "no workers written out",
        "four workers",
        "workers the user chooses",
        "no workers, but the CPU offered",
        "a trainer building loaders too",
    ],
)
def test_a_move_in_the_data_pipeline_is_a_bug_where_workers_or_another_device_may_run_it(
    options: str, loader: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {"pkg/data.py": _DATA, "pkg/train.py": _TRAIN.format(options=options, loader=loader)}
    assert sorted(findings(tmp_path, files, "DEV011")) == expected


def test_without_a_program_the_loaders_are_not_known(tmp_path: Path) -> None:
    """A library's Dataset may be handed to any user's loader, with workers (``pad`` is
    no collate function until a loader is handed it)."""
    assert sorted(findings(tmp_path, {"pkg/data.py": _DATA}, "DEV011")) == _BOTH[:1]


@pytest.mark.parametrize(
    ("last", "workers", "positional", "unpacks", "expected"),
    [
        ("DataLoader", None, 1, False, False),
        ("DataLoader", False, 1, False, False),
        ("DataLoader", True, 1, False, True),
        ("DataLoader", None, 1, True, True),
        ("DataLoader", None, 6, False, True),
        ("build_dataloader", True, 1, False, True),
        ("make_loader", None, 1, True, False),
    ],
)
def test_may_start_workers(
    last: str, workers: bool | None, positional: int, unpacks: bool, expected: bool
) -> None:
    assert may_start_workers(last, workers, positional, unpacks) is expected


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("transformers.Trainer", True),
        ("HfArgumentParser", True),
        ("build_detection_train_loader", True),
        ("torch.utils.data.DataLoader", False),
        ("make_batches", False),
    ],
)
def test_may_build_loaders(written: str, expected: bool) -> None:
    assert may_build_loaders(written) is expected


def test_a_trainer_of_the_project_s_own_builds_no_loader(tmp_path: Path) -> None:
    """The project's own ``Trainer`` class is no library's: its loaders are the ones it
    makes (none with workers here)."""
    train = (
        _TRAIN.format(options="", loader="").replace(
            "    net = torch.nn.Linear(4, 4).cuda()\n", "    net = Trainer()\n"
        )
        + "\n\nclass Trainer(torch.nn.Module):\n    pass\n"
    )
    files = {"pkg/data.py": _DATA, "pkg/train.py": train}
    assert sorted(findings(tmp_path, files, "DEV011")) == []
