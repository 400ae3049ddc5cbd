"""A function a data loader runs as its collate function gets the Dataset's samples on
the CPU: a CPU tensor meeting them there is no device mix (DEV003), wherever else the
project calls it, unless the function moves them to a device itself."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_project

BATCHES = """\
import torch


def pad_batch(samples):
    width = samples[0].shape[1]
    stacked = torch.cat([s for s in samples])
    return torch.cat([stacked, torch.ones(1, width)])


class Converter:
    def __init__(self, device):
        self.device = device

    def __call__(self, items):
        batch = pad_batch(items)
        return [row.to(self.device) for row in batch]
"""

HANDED_OVER = """\
from torch.utils.data import DataLoader

from pkg.batches import pad_batch


def loader(dataset):
    return DataLoader(dataset, batch_size=8, collate_fn=pad_batch)
"""


def findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    project = lint_project(tmp_path, {"pkg/__init__.py": "", **files}, select=("DEV003", "DEV011"))
    return [
        (Path(result.display).name, finding.start.row, finding.start.column, finding.code)
        for result in project.files
        for finding in result.findings
    ]


def test_a_function_handed_to_a_loader_in_another_file_computes_on_the_cpu(
    tmp_path: Path,
) -> None:
    files = {"pkg/batches.py": BATCHES, "pkg/data.py": HANDED_OVER}
    assert findings(tmp_path, files) == []


def test_the_same_function_is_flagged_when_nothing_hands_it_to_a_loader(tmp_path: Path) -> None:
    files = {"pkg/batches.py": BATCHES, "pkg/data.py": HANDED_OVER.replace("collate_fn=", "x=")}
    assert findings(tmp_path, files) == [("batches.py", 7, 32, "DEV003")]


def test_samples_a_collate_function_moves_to_its_device_meet_it_there(tmp_path: Path) -> None:
    moving = BATCHES.replace(
        "def pad_batch(samples):", "def pad_batch(samples, device=None):"
    ).replace("torch.cat([s for s in samples])", "torch.cat([s for s in samples]).to(device)")
    files = {"pkg/batches.py": moving, "pkg/data.py": HANDED_OVER}
    assert findings(tmp_path, files) == [("batches.py", 7, 32, "DEV003")]


MASKING = """\
import torch


def mask_frames(spec):
    spec = spec + torch.randn(spec.shape).to(device=spec.device)
    valid = spec.sum(dim=-1).nonzero(as_tuple=False).view(-1)
    attention = torch.ones(spec.shape[:2])
    return spec[valid], attention[valid]
"""

LOADING = """\
from torch.utils.data import Dataset

from pkg.masking import mask_frames


class Frames(Dataset):
    def __init__(self, items):
        self.items = items

    def __getitem__(self, index):
        return mask_frames(self.items[index])
"""


def test_a_function_only_datasets_call_computes_on_the_cpu(tmp_path: Path) -> None:
    """``__getitem__`` builds its samples with it, in the loader; called elsewhere too, it
    is judged as a library function."""
    assert findings(tmp_path, {"pkg/masking.py": MASKING, "pkg/data.py": LOADING}) == []
    elsewhere = {"pkg/masking.py": MASKING, "pkg/use.py": LOADING.replace("(Dataset)", "")}
    assert findings(tmp_path / "b", elsewhere) == [("masking.py", 7, 17, "DEV003")]
