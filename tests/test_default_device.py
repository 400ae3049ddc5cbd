"""A program each of whose scripts makes factories put their tensors on the GPU as it
starts (``torch.set_default_tensor_type("torch.cuda.FloatTensor")`` at the top of its
``__main__`` block) makes no CPU tensor with ``torch.zeros(n)``: DEV003 stays quiet there,
but not for ``torch.from_numpy`` or a legacy typed constructor, which stay on the CPU,
nor in a library, whose programs are not known."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_MODEL = (
    "import numpy as np\nimport torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n\n"
    "    def forward(self, x):\n"
    "        y = self.fc(x)\n"
    "        noise = torch.randn(4)\n"
    "        table = torch.from_numpy(np.ones(4, dtype=np.float32))\n"
    "        ids = torch.LongTensor([0, 1, 2, 3])\n"
    "        return y + noise + table + ids\n"
)
_TRAIN = (
    "import argparse\n\nimport torch\n\nfrom pkg.model import Net\n\n\n"
    "def main():\n"
    "    net = Net().cuda()\n"
    "    return net(torch.ones(2, 4).cuda())\n\n\n"
    'if __name__ == "__main__":\n'
    "{setting}"
    "    main()\n"
)
_ALL = [("model.py", 13, 17), ("model.py", 14, 17), ("model.py", 15, 15)]
_CPU_KEPT = [("model.py", 14, 17), ("model.py", 15, 15)]


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("", _ALL),
        ('    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n', _CPU_KEPT),
        ("    torch.set_default_tensor_type(torch.cuda.FloatTensor)\n", _CPU_KEPT),
        ('    torch.set_default_device("cuda")\n', _CPU_KEPT),
        ("    torch.set_default_device(torch.cuda.current_device())\n", _ALL),
        ("    torch.set_default_tensor_type(torch.DoubleTensor)\n", _ALL),
        ('    torch.set_default_device("cpu")\n', _ALL),
        (
            "    parser = argparse.ArgumentParser()\n"
            '    parser.add_argument("--device", default="cpu")\n'
            "    torch.set_default_device(parser.parse_args().device)\n",
            _ALL,
        ),
        ('    if len(__file__) > 3:\n        torch.set_default_device("cuda")\n', _ALL),
        (
            '    torch.set_default_device("cuda")\n'
            '    torch.set_default_tensor_type("torch.FloatTensor")\n',
            _ALL,
        ),
    ],
    ids=[
        "nothing set",
        "a CUDA tensor type by name",
        "a CUDA tensor type",
        "the GPU",
        "a device this reading cannot name",
        "a CPU tensor type",
        "the CPU",
        "a device the user chooses",
        "under a condition",
        "set back to the CPU",
    ],
)
def test_a_program_making_factories_on_the_gpu(
    setting: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {"pkg/model.py": _MODEL, "pkg/train.py": _TRAIN.format(setting=setting)}
    assert sorted(findings(tmp_path, files, "DEV003")) == expected


def test_every_script_must_set_it_as_it_starts(tmp_path: Path) -> None:
    """One script sets the GPU default, another may run the same model without it (by a
    name computed at run time, which no import shows); a setting in a function may never
    run."""
    setting = '    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'
    files = {
        "pkg/model.py": _MODEL,
        "pkg/train.py": _TRAIN.format(setting=setting),
        "pkg/flops.py": "import importlib\nimport sys\n\nimport torch\n\n"
        "net = importlib.import_module(sys.argv[1]).Net()\nnet(torch.ones(2, 4))\n",
    }
    assert sorted(findings(tmp_path, files, "DEV003")) == _ALL
    in_a_function = _TRAIN.format(setting="").replace("def main():\n", "def main():\n" + setting)
    files = {"pkg/model.py": _MODEL, "pkg/train.py": in_a_function}
    assert sorted(findings(tmp_path, files, "DEV003")) == _ALL


def test_a_library_setting_it_in_a_helper_is_not_a_program(tmp_path: Path) -> None:
    setting = '\n\ndef use_gpu():\n    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'
    files = {"pkg/model.py": _MODEL + setting}
    assert sorted(findings(tmp_path, files, "DEV003")) == _ALL


_SET = '    torch.set_default_tensor_type("torch.cuda.FloatTensor")\n'


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "pkg/gpu.py": "import torch\n\n" + _SET.strip() + "\n",
                "pkg/train.py": "import pkg.gpu\n" + _TRAIN.format(setting=""),
            },
            _CPU_KEPT,
        ),
        (
            {
                "pkg/gpu.py": 'import torch\n\nif __name__ == "__main__":\n' + _SET,
                "pkg/train.py": "import pkg.gpu\n" + _TRAIN.format(setting=""),
            },
            _ALL,
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(setting=_SET),
                "pkg/evaluate.py": _TRAIN.format(setting=""),
                "pkg/report.py": "from pkg import evaluate\n",
            },
            _ALL,
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(setting=_SET),
                "pkg/poses.py": "import numpy as np\n\n\ndef read(path):\n"
                "    return np.load(path)\n",
                "pkg/colmap.py": "import sys\n\nfrom pkg.poses import read\n\n"
                'if __name__ == "__main__":\n    print(read(sys.argv[1]))\n',
            },
            _CPU_KEPT,
        ),
    ],
    ids=[
        "a module every import sets it in",
        "a module's own main block",
        "a script imported",
        "a script running nothing of torch",
    ],
)
def test_what_runs_with_each_script(
    files: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A setter in a module's body runs for every script importing it; one in a module's
    ``__main__`` block only when that module runs; a script others import still runs."""
    assert sorted(findings(tmp_path, {"pkg/model.py": _MODEL, **files}, "DEV003")) == expected
