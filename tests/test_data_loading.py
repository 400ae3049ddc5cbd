"""DEV003 in a helper whose every project caller is data-loading code.

DataLoader workers prepare samples on the CPU: a tensor a helper makes there meets the
samples on the CPU, however many project functions lie between (``ProjectIndex.
runs_in_data_loading``). A caller that is not data-loading code keeps the finding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_project, package_findings

BOX_OPS = (
    "import torch\n\n\n"
    "def masks_to_boxes(masks):\n"
    "    if masks.numel() == 0:\n"
    "        return torch.zeros((0, 4), device=masks.device)\n"
    "    x = torch.arange(masks.shape[-1], dtype=torch.float)\n"
    "    return (masks * x).flatten(1).max(-1)[0]\n"
)
TARGETS = (
    "from pkg.box_ops import masks_to_boxes\n\n\n"
    "def make_target(masks):\n"
    '    return {"boxes": masks_to_boxes(masks)}\n'
)
PANOPTIC = (
    "import torch\n\nfrom pkg.targets import make_target\n\n\n"
    "class Panoptic:\n"
    "    def __init__(self, items):\n        self.items = items\n\n"
    "    def __getitem__(self, index):\n"
    "        return make_target(torch.as_tensor(self.items[index]))\n\n"
    "    def __len__(self):\n        return len(self.items)\n"
)
HEAD = (
    "from torch import nn\n\nfrom pkg.box_ops import masks_to_boxes\n\n\n"
    "class Head(nn.Module):\n"
    "    def forward(self, masks):\n        return masks_to_boxes(masks)\n"
)
DATAMODULE = (
    "import lightning.pytorch as pl\n\nfrom pkg.box_ops import masks_to_boxes\n\n\n"
    "class Data(pl.LightningDataModule):\n"
    "    def {hook}(self, batch, dataloader_idx):\n"
    '        batch["boxes"] = masks_to_boxes(batch["masks"])\n'
    "        return batch\n"
)
FLAGGED = [("box_ops.py", 7, 9)]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # A class with the map-style dataset protocol, no `Dataset` base, through a helper.
        ({"pkg/panoptic.py": PANOPTIC, "pkg/targets.py": TARGETS}, []),
        # Without `__len__` a loader cannot index it: it is no dataset.
        (
            {"pkg/panoptic.py": PANOPTIC.replace("__len__", "size"), "pkg/targets.py": TARGETS},
            FLAGGED,
        ),
        # A model's forward calls the helper too: on the device there.
        (
            {"pkg/panoptic.py": PANOPTIC, "pkg/targets.py": TARGETS, "pkg/head.py": HEAD},
            FLAGGED,
        ),
        # A DataModule's hook that moves the batch runs where the batch is on the device.
        ({"pkg/data.py": DATAMODULE.format(hook="on_after_batch_transfer")}, FLAGGED),
        # Its other hooks prepare CPU batches.
        ({"pkg/data.py": DATAMODULE.format(hook="on_before_batch_transfer")}, []),
        # Nothing in the project calls it: an API, whoever calls it.
        ({}, FLAGGED),
    ],
)
def test_a_helper_only_data_loading_code_calls_meets_cpu_samples(
    tmp_path: Path, files: dict[str, str], expected: list[tuple[str, int, int]]
) -> None:
    project = {"pkg/box_ops.py": BOX_OPS, **files}
    assert package_findings(tmp_path, project, "DEV003") == expected


def test_data_loading_reaches_through_project_functions(tmp_path: Path) -> None:
    """The helper's helper is data-loading code; a function nobody calls is not."""
    project = lint_project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/box_ops.py": BOX_OPS,
            "pkg/targets.py": TARGETS,
            "pkg/panoptic.py": PANOPTIC,
        },
        select=("DEV003",),
    )
    index = project.index
    assert index is not None
    assert index.runs_in_data_loading("pkg.panoptic.Panoptic.__getitem__")
    assert index.runs_in_data_loading("pkg.targets.make_target")
    assert index.runs_in_data_loading("pkg.box_ops.masks_to_boxes")
    assert not index.runs_in_data_loading("pkg.panoptic.Panoptic.__len__")
