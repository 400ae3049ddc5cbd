"""Where a kept device or a kept stream does not make an index-less literal the class's own
choice (DEV002): each look-alike of `own_choice`'s "kept_flag" and "streams" reasons stays
flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_snippet

# a method told its device (`step(self, batch, device)`) ignores it
_N1 = (
    "import torch\n"
    "\n"
    "\n"
    "class Fitter:\n"
    "    def __init__(self, model, use_gpu):\n"
    "        self.model = model\n"
    "        self.use_gpu = use_gpu\n"
    '        self.device = torch.device("cuda" if use_gpu else "cpu")\n'
    "\n"
    "    def step(self, batch, device):\n"
    "        if self.use_gpu:\n"
    "            batch = batch.cuda()\n"
    "        return self.model(batch)\n"
)

# a method's own `cuda` parameter is not the flag `__init__` chose with
_F1 = (
    "import torch\n"
    "\n"
    "\n"
    "class Fitter:\n"
    "    def __init__(self, model, cuda, device):\n"
    "        self.model = model\n"
    '        self.device = torch.device("cuda" if cuda else "cpu")\n'
    "\n"
    "    def step(self, batch, cuda=False):\n"
    "        if cuda:\n"
    "            batch = batch.cuda()\n"
    "        return self.model(batch)\n"
)

# another method sets the kept device through a tuple target
_F2 = (
    "import torch\n"
    "\n"
    "\n"
    "class Fitter:\n"
    "    def __init__(self, model, use_gpu):\n"
    "        self.model = model\n"
    "        self.use_gpu = use_gpu\n"
    '        self.device = torch.device("cuda" if use_gpu else "cpu")\n'
    "\n"
    "    def place(self, device, dtype):\n"
    "        self.device, self.dtype = device, dtype\n"
    "\n"
    "    def step(self, batch):\n"
    "        if self.use_gpu:\n"
    "            batch = batch.cuda()\n"
    "        return self.model(batch)\n"
)

# a project helper that picks the device (`pick_device("cuda")`) may pick any GPU
_K2 = (
    "import torch\n"
    "\n"
    "\n"
    "class Trainer:\n"
    "    def __init__(self, model, use_gpu, rank):\n"
    "        self.model = model\n"
    "        self.use_gpu = use_gpu\n"
    "        if use_gpu:\n"
    '            self.device = pick_device("cuda")\n'
    "        else:\n"
    '            self.device = torch.device("cpu")\n'
    "\n"
    "    def step(self, batch):\n"
    "        if self.use_gpu:\n"
    "            batch = batch.cuda()\n"
    "        return self.model(batch)\n"
)

# the stream is made under `with torch.cuda.device(gpu_id)`: it is on that GPU
_G1 = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "\n"
    "class RowCache(nn.Module):\n"
    "    def __init__(self, weight, gpu_id):\n"
    "        super().__init__()\n"
    "        self.weight = weight\n"
    "        self.gpu_id = gpu_id\n"
    "        with torch.cuda.device(gpu_id):\n"
    "            self.copy_stream = torch.cuda.Stream()\n"
    "\n"
    "    def fetch(self, rows):\n"
    "        with torch.cuda.stream(self.copy_stream):\n"
    "            return self.weight[rows].cuda()\n"
)


@pytest.mark.parametrize(
    ("source", "row", "column"),
    [
        (_N1, 12, 27),
        (_F1, 11, 27),
        (_F2, 15, 27),
        (_K2, 15, 27),
        (_G1, 15, 38),
    ],
)
def test_the_literal_is_not_the_kept_choice(
    source: str, row: int, column: int, tmp_path: Path
) -> None:
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == [
        ("DEV002", row, column)
    ]
