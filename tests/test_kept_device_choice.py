"""Where a kept device or a kept stream does not make an index-less literal the class's own
choice (DEV002): each look-alike of `own_choice`'s "kept_flag", "streams" and "process_gpu"
reasons stays flagged."""

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

# the stream is made under `with torch.cuda.device(gpu_id)`: it is on that GPU, current only
# inside the stream's block (a `.cuda()` there goes to it)
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
    "            rows = rows.pin_memory()\n"
    "        return self.weight[rows].cuda()\n"
)


def _evaluator(branch: str, placement: str, *, load: str = "device_map=device_map") -> str:
    """An evaluator that keeps the process's GPU but, in one branch, the user's device."""
    return (
        "import torch\n"
        "from accelerate import Accelerator\n"
        "from transformers import AutoModel\n"
        "\n"
        "\n"
        "class Evaluator:\n"
        '    def __init__(self, path, device="cuda", device_map="cuda:0"):\n'
        "        accelerator = Accelerator()\n"
        '        if device_map == "auto":\n'
        f"            {branch}\n"
        "        else:\n"
        '            self._device = torch.device(f"cuda:{accelerator.local_process_index}")\n'
        f"        self.model = AutoModel.from_pretrained(path, {load})\n"
        '        if device_map == "auto":\n'
        "            self.model.eval()\n"
        "        else:\n"
        f"            {placement}\n"
        "\n"
        "    def generate(self, pixels):\n"
        "        return self.model.generate(pixels.cuda())\n"
    )


_USERS = "self._device = torch.device(device)"
_PLACED = "self.model.to(self._device)"

# the user's device also names the map the model is loaded with (`self.device_map`)
_P1 = _evaluator(
    f"{_USERS}; self.device_map = device",
    _PLACED,
    load="device_map=self.device_map if device_map == 'auto' else None",
)
# the model is moved to the kept device under another test, which may take either branch
_P2 = _evaluator(_USERS, _PLACED.replace("self.model", "self.model.eval()")).replace(
    '        if device_map == "auto":\n            self.model.eval()\n        else:\n',
    "        if path:\n            self.model.eval()\n        else:\n",
)
# the class itself keeps the CPU in the other branch: its device may be the CPU
_P3 = _evaluator('self._device = torch.device("cpu")', _PLACED)
# another method sets the kept device
_P4 = _evaluator(_USERS, _PLACED).replace(
    "    def generate",
    "    def place(self, device):\n        self._device = device\n\n    def generate",
)

# another method keeps a model placed on the kept device, which may be the user's
_P5 = (
    "import torch\n"
    "from transformers import AutoModel\n"
    "\n"
    "\n"
    "class Runner:\n"
    "    def __init__(self, path, device=None):\n"
    "        if device is None:\n"
    '            self.device = "cuda"\n'
    "        else:\n"
    "            self.device = device\n"
    "        self.path = path\n"
    "\n"
    "    def load(self):\n"
    "        self.model = AutoModel.from_pretrained(self.path).to(self.device)\n"
    "\n"
    "    def run(self, x):\n"
    "        return self.model(x.cuda())\n"
)
# a module keeping the process's GPU is moved where its user wants: the kept device is the bug
_M1 = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "\n"
    "class Policy(nn.Module):\n"
    "    def __init__(self, net, accelerator):\n"
    "        super().__init__()\n"
    '        self.device = torch.device(f"cuda:{accelerator.local_process_index}")\n'
    "        self.net = net\n"
    "\n"
    "    def forward(self, x):\n"
    "        return self.net(x.cuda())\n"
)
_M2 = _M1.replace(
    'torch.device(f"cuda:{accelerator.local_process_index}")', "torch.cuda.current_device()"
)


@pytest.mark.parametrize(
    ("source", "row", "column"),
    [
        (_P5, 17, 29),
        (_M1, 12, 27),
        (_M2, 12, 27),
        (_N1, 12, 27),
        (_F1, 11, 27),
        (_F2, 15, 27),
        (_K2, 15, 27),
        (_G1, 16, 34),
        (_P1, 20, 43),
        (_P2, 20, 43),
        (_P3, 20, 43),
        (_P4, 23, 43),
    ],
)
def test_the_literal_is_not_the_kept_choice(
    source: str, row: int, column: int, tmp_path: Path
) -> None:
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == [
        ("DEV002", row, column)
    ]


def test_a_tensor_made_on_the_users_device_places_no_model(tmp_path: Path) -> None:
    """Stop words made on the kept device in every branch follow it; the model does not:
    the user's device still places no model (lmms-eval's MovieChat)."""
    made = "self.model.to(self._device)\n        self.stop = torch.tensor([2]).to(self._device)"
    source = _evaluator(_USERS, _PLACED).replace(_PLACED, made)
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    assert result.findings == []
    _, result = lint_snippet(
        tmp_path / "moved", source.replace("torch.tensor([2])", "self.model"), select=("DEV002",)
    )
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == [("DEV002", 21, 43)]
