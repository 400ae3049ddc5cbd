"""`with torch.cuda.device(d):` makes `d` the current GPU, so an index-less `"cuda"` or a
`.cuda()` in its block goes where the code was told (DEV001, DEV002 stay quiet); a switch
that switches nothing, or to a GPU written into the code, leaves them findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_snippet

_MODULE = (
    "import torch\nfrom torch import nn\n\nMAIN_GPU = 0\n\n\n"
    "class Kernel(nn.Module):\n"
    "    def forward(self, x, gpu_id):\n"
    "        with {switch}:\n"
    '            out = torch.empty(4, device="cuda")\n'
    "            mask = torch.ones(4).cuda()\n"
    "        return x * out * mask\n"
)


@pytest.mark.parametrize(
    "switch",
    [
        "torch.cuda.device(x.device)",
        "torch.cuda.device(x.get_device())",
        "torch.cuda.device(gpu_id)",
        'torch.cuda.device(torch.device("cuda", gpu_id))',
        "torch.cuda.stream(self.copy_stream)",
    ],
)
def test_a_switch_told_its_device_makes_it_current(switch: str, tmp_path: Path) -> None:
    code = _MODULE.format(switch=switch)
    _, result = lint_snippet(tmp_path, code, select=("DEV001", "DEV002"))
    assert [(f.code, f.start.row) for f in result.findings] == []


@pytest.mark.parametrize(
    "switch",
    [
        "torch.cuda.device(None)",
        "torch.cuda.device(-1)",
        "torch.cuda.device(MAIN_GPU)",
        'torch.cuda.device(torch.device("cuda", 1))',
        "torch.cuda.stream(torch.cuda.Stream())",
        "torch.cuda.device_of(x)",
    ],
)
def test_a_switch_to_no_device_or_a_written_one_leaves_the_findings(
    switch: str, tmp_path: Path
) -> None:
    code = _MODULE.format(switch=switch)
    _, result = lint_snippet(tmp_path, code, select=("DEV001", "DEV002"))
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == [
        ("DEV001", 10, 41),
        ("DEV002", 11, 34),
    ]
