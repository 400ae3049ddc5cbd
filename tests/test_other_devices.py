"""A program none of whose code offers a device other than the current GPU runs every tensor
there: its ``.cuda()`` and ``"cuda"`` agree with all the others (DEV001, DEV002 stay quiet).
What offers another device: ``devlint.other_devices``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

from devlint import index
from devlint.other_devices import (
    LITERAL_CHOICE,
    call_offers_another_device,
    call_offers_another_gpu,
    chooses_a_device,
    chooses_a_gpu,
    hands_over_a_gpu,
    hands_over_the_device,
    names_another_device,
    names_another_gpu,
)

_MODEL = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n\n"
    "    def forward(self, x):\n"
    '        noise = torch.randn(4, device="cuda")\n'
    "        return self.fc(x.cuda()) + noise\n"
)
_TRAIN = (
    "import argparse\n\nimport torch\n\nfrom pkg.model import Net\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--lr", type=float)\n'
    "    net = Net().cuda()\n"
    "{more}"
    "    return net(torch.ones(2, 4))\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)
_BOTH = [("model.py", 11, 39), ("model.py", 12, 26)]
_LITERAL = [("model.py", 11, 39)]


@pytest.mark.parametrize(
    ("more", "expected"),
    [
        ("", []),
        ('    state = torch.load("net.pt", map_location="cpu")\n', []),
        ('    state = torch.load("n.pt", map_location=torch.device("cpu"))\n', []),
        ('    print(net.fc.weight.to("cpu").numpy())\n', []),
        ('    net = net.to("cpu").eval()\n', _BOTH),
        ('    net = net.to("cuda:{}".format(parser.rank))\n', _BOTH),
        ('    net = net.to("cuda:%d" % parser.rank)\n', _BOTH),
        ("    net = net.to(parser.local_rank)\n", _BOTH),
        ("    accelerator = Accelerator()\n", _BOTH),
        ('    parser.add_argument("--accelerator", default="gpu")\n', _BOTH),
        ('    click.option("--device")\n', _BOTH),
        ('    parser.add_argument("--multigpus", action="store_true")\n', []),
        ('    parser.add_argument("--use_cuda", type=bool, default=True)\n', []),
        ('    parser.add_argument("--use_cuda", action="store_true")\n', _BOTH),
        ("    n = torch.cuda.device_count()\n", []),
        ('    assert torch.cuda.is_available(), "CUDA only"\n', []),
        ("    torch.cuda.set_device(0)\n", []),
        ("    torch.cuda.set_device(parser.local_rank)\n", []),
        ("    if torch.cuda.is_available():\n        pass\n", _BOTH),
        ('    net = net.to("cpu")\n', _BOTH),
        ('    parser.add_argument("--device", default="cuda")\n', _BOTH),
        ('    parser.add_argument("--gpu_ids", default="0")\n', _BOTH),
        ("    net = net.cuda(1)\n", _BOTH),
        ('    net = net.to(f"cuda:{parser.rank}")\n', _BOTH),
        ("    net = net.to(torch.device(parser.device))\n", _BOTH),
        ('    net = net.to(torch.device("cuda", 1))\n', _BOTH),
        ('    net = net.to("mps")\n', _BOTH),
        ('    trainer = Trainer(accelerator="gpu", devices=1)\n    trainer.fit(net)\n', _BOTH),
        (
            '    parser.add_argument("--gpu", default="0")\n'
            '    os.environ["CUDA_VISIBLE_DEVICES"] = str(parser.parse_args().gpu)\n',
            [],
        ),
        (
            '    parser.add_argument("--cuda", dest="cuda")\n'
            '    parser.set_defaults(cuda="1")\n'
            '    os.environ["CUDA_VISIBLE_DEVICES"] = parser.parse_args().cuda\n',
            [],
        ),
        (
            '    parser.add_argument("--gpu", default="0")\n'
            '    parser.add_argument("--device", default="cuda")\n'
            '    os.environ["CUDA_VISIBLE_DEVICES"] = parser.parse_args().gpu\n',
            _BOTH,
        ),
        ("    parser.set_defaults(gpus=0)\n", _BOTH),
        (
            '    parser.add_argument("--gpu", default="0")\n'
            '    parser.add_argument("--cpu", action="store_true")\n'
            "    args = parser.parse_args()\n"
            '    os.environ["CUDA_VISIBLE_DEVICES"] = "" if args.cpu else args.gpu\n',
            _BOTH,
        ),
        ("    if not dist.is_available():\n        return None\n", []),
        ('    if not torch.cuda.is_available():\n        raise OSError("CUDA only")\n', []),
        (
            "    if not torch.cuda.is_available():\n"
            '        print("CUDA only")\n        sys.exit(1)\n',
            [],
        ),
        (
            "    if not torch.cuda.is_available():\n"
            '        raise OSError("CUDA only")\n    else:\n        pass\n',
            _BOTH,
        ),
        ("    if not torch.cuda.is_available():\n        print('no GPU')\n", _BOTH),
        ("    if torch.cuda.is_available():\n        torch.cuda.manual_seed_all(0)\n", []),
        (
            "    if torch.cuda.is_available():\n"
            "        torch.cuda.manual_seed(0)\n        torch.backends.cudnn.benchmark = True\n",
            [],
        ),
        (
            "    if torch.cuda.is_available():\n"
            "        torch.cuda.manual_seed(0)\n        net = net.cuda()\n",
            _BOTH,
        ),
        (
            "    if torch.cuda.is_available():\n"
            "        torch.cuda.manual_seed(0)\n    else:\n        torch.manual_seed(0)\n",
            _BOTH,
        ),
        ("    ext = load('ext', ['ext.cu'], with_cuda=True)\n", []),
        ("    ext = load('ext', ['ext.cu'], with_cuda=False)\n", _BOTH),
        ("    trainer = Trainer(no_cuda=False, use_gpu=True)\n", []),
        ("    trainer = Trainer(use_gpu=parser.gpu)\n    trainer.fit(net)\n", _BOTH),
        ("    model = Model.from_pretrained('m', low_cpu_mem_usage=True)\n", []),
        ("    trainer = Trainer(ims_per_gpu=8, max_gpu_memory=8, extra_cuda_cflags=[])\n", []),
        ("    trainer = Trainer(cuda_device=parser.device)\n    trainer.fit(net)\n", _BOTH),
        ('    trainer = Trainer(accelerator="cpu")\n', _BOTH),
        ('    moved = net.to("cpu")\n', _BOTH),
        (
            '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
            [],
        ),
        (
            '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
            "    net = net.to(device)\n",
            _BOTH,
        ),
        ("    use_cuda = torch.cuda.is_available()\n", []),
        ("    torch.cuda.set_device(f'cuda:{parser.gpu}')\n", []),
        ("    net = net.cuda(torch.ones(1).cuda().get_device())\n", []),
        ("    net = net.cuda(parser.device.index)\n", _BOTH),
    ],
    ids=[
        "nothing else",
        "weights loaded onto the CPU",
        "weights loaded onto torch.device('cpu')",
        "a tensor taken to the host",
        "the model taken to the CPU",
        "a GPU formatted at run time",
        "a GPU formatted with %",
        "a GPU by a rank",
        "accelerate choosing",
        "an accelerator option",
        "a click option",
        "an option saying how many GPUs",
        "a GPU switch the command line cannot turn off",
        "a GPU switch",
        "GPUs counted",
        "CUDA demanded",
        "GPU 0 made current",
        "a rank's GPU made current",
        "a question whether CUDA is there",
        "the CPU",
        "a device option",
        "a GPU list option",
        "a GPU by number",
        "a GPU chosen at run time",
        "a device chosen at run time",
        "torch.device with an index",
        "another accelerator",
        "a framework told where to compute",
        "a GPU option that only says which GPU is visible",
        "a GPU option's default, made visible",
        "a device option beside one made visible",
        "an option's default for a framework's GPUs",
        "a CPU option choosing what is visible",
        "a question whether torch has distributed",
        "CUDA demanded by raising",
        "CUDA demanded by exiting",
        "CUDA demanded with an else",
        "a question whether CUDA is there, answered by a print",
        "the GPU seeded where there is one",
        "the GPU seeded and set up where there is one",
        "the GPU seeded and a model moved where there is one",
        "the GPU seeded, else the CPU",
        "an extension built with CUDA",
        "an extension built without CUDA",
        "a framework told to keep the GPU",
        "a framework told whether to use the GPU at run time",
        "weights loaded with little host memory",
        "GPUs shared and sized for a framework",
        "a framework told a CUDA device",
        "a framework told the CPU, never used",
        "the model taken to the CPU, never used",
        "the GPU if there is one, never used",
        "the GPU if there is one, used",
        "a question whether CUDA is there, never used",
        "a GPU made current by a string",
        "a tensor's GPU",
        "a device's index",
    ],
)
def test_a_program_offering_no_other_device_runs_on_the_current_gpu(
    more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Loading weights onto the CPU, reading a tensor's values there, counting GPUs or
    making one current offer no other device to compute on. ``"cuda:0"`` is the current
    GPU only where no code makes one current."""
    files = {"pkg/model.py": _MODEL, "pkg/train.py": _TRAIN.format(more=more)}
    found = findings(tmp_path, files, "DEV001") + findings(tmp_path, files, "DEV002")
    assert sorted(found) == expected


_CHOICE = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pkg/train.py": "DEVICE = " + _CHOICE}, []),
        ({"pkg/config.py": "import torch\n\nDEVICE = " + _CHOICE}, []),
        (
            {
                "pkg/config.py": "import torch\n\nDEVICE = " + _CHOICE,
                "pkg/evaluate.py": "from pkg.config import DEVICE\n\nprint(DEVICE)\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/config.py": "import torch\n\nDEVICE = " + _CHOICE,
                "pkg/evaluate.py": "import torch\nfrom pkg import config\n\nDEVICE = " + _CHOICE,
            },
            [],
        ),
        (
            {
                "pkg/config.py": "import torch\n\nDEVICE = " + _CHOICE,
                "pkg/evaluate.py": "from pkg import config\n\nprint(config.DEVICE)\n",
            },
            _BOTH,
        ),
        ({"pkg/config.py": "import torch\n\nDEVICE = " + _CHOICE, "setup.py": ""}, _BOTH),
    ],
    ids=[
        "a script's device never read",
        "a module's device no module reads",
        "a module's device another imports",
        "a module's device another binds itself",
        "a module's device another reads as an attribute",
        "a module's device in a package",
    ],
)
def test_a_device_chosen_into_a_name_never_read_offers_nothing(
    files: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`` that no
    code reads chooses nothing (TabularSemanticParsing's scripts, which then call
    ``.cuda()``): a module's name offers only where another module that imports it may
    read it, or where others may (a package)."""
    train = _TRAIN.format(more="")
    if "pkg/train.py" in files:
        train = train.replace("\n\n\ndef main", "\n" + files.pop("pkg/train.py") + "\n\ndef main")
    if "pkg/evaluate.py" in files:
        files["pkg/evaluate.py"] = (
            "from pkg.model import Net\n"
            + files["pkg/evaluate.py"]
            + '\nif __name__ == "__main__":\n    print(Net())\n'
        )
    every = {"pkg/model.py": _MODEL, "pkg/train.py": train, **files}
    found = findings(tmp_path, every, "DEV001") + findings(tmp_path, every, "DEV002")
    assert sorted(found) == expected


_CONFIG = (
    "import os\n\n\nclass Config:\n"
    "    def set_args(self, gpu_ids):\n"
    "        self.gpu_ids = gpu_ids\n"
    '        os.environ["CUDA_VISIBLE_DEVICES"] = self.{visible}\n\n\n'
    "cfg = Config()\n"
)


@pytest.mark.parametrize(
    ("visible", "more", "expected"),
    [
        ("gpu_ids", "", []),
        ("gpu_ids", '    parser.add_argument("--cpu", action="store_true")\n', _BOTH),
        ("gpus", "", _BOTH),
    ],
    ids=["made visible", "a CPU option beside", "another value made visible"],
)
def test_a_gpu_option_another_module_makes_visible_offers_no_other_gpu(
    visible: str, more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """``--gpu`` whose value (by its ``dest=``) a config module makes the only GPU the
    process sees chooses which GPU is current, where ``.cuda()`` goes too: it offers no
    other device (mks0601's I2L-MeshNet)."""
    gpu_option = (
        '    parser.add_argument("--gpu", type=str, dest="gpu_ids")\n'
        "    cfg.set_args(parser.parse_args().gpu_ids)\n"
    )
    train = _TRAIN.format(more=gpu_option + more).replace(
        "from pkg.model import Net\n", "from pkg.config import cfg\nfrom pkg.model import Net\n"
    )
    files = {
        "pkg/model.py": _MODEL,
        "pkg/config.py": _CONFIG.format(visible=visible),
        "pkg/train.py": train,
    }
    found = findings(tmp_path, files, "DEV001") + findings(tmp_path, files, "DEV002")
    assert sorted(found) == expected


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        (
            "import argparse\nimport os\n\n\n"
            'if __name__ == "__main__":\n'
            "    parser = argparse.ArgumentParser()\n"
            '    parser.add_argument("--gpu_ids")\n'
            '    os.environ["CUDA_VISIBLE_DEVICES"] = parser.parse_args().gpu_ids\n',
            _BOTH,
        ),
        ("import torch\n\n\ndef pin(gpu_ids):\n    torch.cuda.set_device(gpu_ids)\n", _BOTH),
    ],
    ids=["made visible by a script the training never loads", "a bare name made current"],
)
def test_a_gpu_option_made_visible_elsewhere_still_offers_a_gpu(
    other: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """An option's value counts as the visible or current GPU only where the script's own
    modules make it so, by the attribute it is read as (``args.gpu_ids``): another script's
    ``CUDA_VISIBLE_DEVICES``, or a helper's ``set_device(gpu_ids)`` of a bare name, say
    nothing of it."""
    gpu_option = '    parser.add_argument("--gpu", type=str, dest="gpu_ids")\n'
    files = {
        "pkg/model.py": _MODEL,
        "pkg/other.py": other,
        "pkg/train.py": _TRAIN.format(more=gpu_option),
    }
    found = findings(tmp_path, files, "DEV001") + findings(tmp_path, files, "DEV002")
    assert sorted(found) == expected


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, _BOTH),
        (
            {
                "pkg/train.py": "import argparse\n\nfrom pkg.model import Net\n\n"
                "parser = argparse.ArgumentParser()\nNet().cuda()\n"
            },
            [],
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "tests/test_model.py": 'import torch\n\nDEVICE = torch.device("cpu")\n',
            },
            [],
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "pkg/export.py": "import torch\n\nfrom pkg.model import Net\n\n"
                'NET = Net().to(torch.device("cpu"))\ntorch.save(NET, "net.pt")\n',
            },
            _BOTH,
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "pkg/export.py": 'import torch\n\nDEVICE = torch.device("cpu")\n',
            },
            [],
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "tools/extract.py": "import argparse\n\nimport caffe\n\n"
                "parser = argparse.ArgumentParser()\n"
                'parser.add_argument("--gpu", type=int)\n'
                "caffe.set_device(parser.parse_args().gpu)\n",
            },
            [],
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "pkg/launch.py": "import argparse\n\nfrom pkg import train\n\n"
                "parser = argparse.ArgumentParser()\n"
                'parser.add_argument("--device", default="cpu")\n'
                "train.main()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/train.py": "from pkg import options\n" + _TRAIN.format(more=""),
                "pkg/options.py": "import argparse\n\n"
                'OPTIONS = argparse.ArgumentParser().add_argument("--gpu", type=int)\n',
            },
            _BOTH,
        ),
        (
            {
                "pkg/model.py": _MODEL
                + '\n\nif __name__ == "__main__":\n    print(Net().cuda()(torch.ones(2, 4)))\n'
            },
            _BOTH,
        ),
        (
            {
                "pkg/train.py": _TRAIN.format(more=""),
                "tools/test_net.py": _TRAIN.format(
                    more='    parser.add_argument("--device", default="cpu")\n'
                ),
            },
            _BOTH,
        ),
    ],
    ids=[
        "no entry point",
        "a script parsing arguments",
        "a test on the CPU",
        "a script running it on the CPU",
        "a script on the CPU running none of it",
        "a script of another framework",
        "a launcher without torch",
        "an options module without torch",
        "a model's own self-test",
        "an evaluation script named like a test",
    ],
)
def test_only_a_whole_program_is_known_to_stay_on_the_current_gpu(
    files: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Modules with no script may be a library, or part of a program devlint does not see
    (a model file's self-test is no script: it imports no other module); tests choose
    their own devices, but a script named like one (`tools/test_net.py`) is a program.
    A script that uses no torch and that no module imports (another framework's feature
    extractor) cannot run the project's tensors: its options offer nothing."""
    files = {"pkg/model.py": _MODEL, **files}
    found = findings(tmp_path, files, "DEV001") + findings(tmp_path, files, "DEV002")
    assert sorted(found) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cpu", True),
        ("mps", True),
        ("xpu:0", True),
        ("cuda:1", True),
        ("cuda:", True),
        ("cuda", False),
        ("cuda:0", False),
        ("meta", False),
        ("cpu only", False),
    ],
)
def test_names_another_device(text: str, expected: bool) -> None:
    assert names_another_device(text) is expected


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--device", True),
        ("--gpu_ids", True),
        ("--no-cuda", True),
        ("-cpu", True),
        ("--multigpus", False),
        ("--local_rank", False),
        ("device", False),
    ],
)
def test_chooses_a_device(option: str, expected: bool) -> None:
    assert chooses_a_device(option) is expected


@pytest.mark.parametrize(
    ("qualified", "literals", "expected"),
    [
        ("torch.cuda.is_available", (), True),
        ("accelerate.utils.is_npu_available", (), True),
        ("torch.cuda.device_count", (), False),
        ("torch.distributed.is_available", (), False),
        ("torch.backends.mps.is_available", (), True),
        ("torch.device", ("cuda",), False),
        ("torch.device", ("cuda", 0), False),
        ("torch.device", ("cuda", 1), True),
        ("torch.device", None, True),
        ("torch.cuda.set_device", (0,), False),
        ("torch.cuda.set_device", None, False),
        ("mylib.device", None, False),
    ],
)
def test_call_offers_another_device(
    qualified: str, literals: tuple[object, ...] | None, expected: bool
) -> None:
    assert call_offers_another_device(qualified, literals) is expected


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [
        ("accelerator", True),
        ("devices", True),
        ("gpus", True),
        ("use_cpu", True),
        ("no_cuda", True),
        ("device_map", True),
        ("device", False),
        ("num_workers", False),
    ],
)
def test_hands_over_the_device(keyword: str, expected: bool) -> None:
    assert hands_over_the_device(keyword) is expected


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [
        ("accelerator", True),
        ("devices", True),
        ("gpus", True),
        ("device_map", True),
        ("use_cpu", False),
        ("no_cuda", False),
        ("cuda", False),
        ("device", False),
    ],
)
def test_hands_over_a_gpu(keyword: str, expected: bool) -> None:
    assert hands_over_a_gpu(keyword) is expected


def test_a_gpu_by_its_number_is_still_a_literal_in_such_a_program(tmp_path: Path) -> None:
    """``nn.DataParallel`` runs a replica with GPU 1 current: ``"cuda:0"`` is not it."""
    model = _MODEL.replace('device="cuda"', 'device="cuda:0"')
    files = {"pkg/model.py": model, "pkg/train.py": _TRAIN.format(more="")}
    assert findings(tmp_path, files, "DEV001") == _LITERAL


_FLAG_LOSS = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Loss(nn.Module):\n"
    "    def __init__(self, use_gpu):\n"
    "        super().__init__()\n"
    "        self.use_gpu = use_gpu\n\n"
    "    def forward(self, x, t):\n"
    "        if self.use_gpu:\n"
    "            t = t.cuda()\n"
    "        mask = torch.ones(4).cuda()\n"
    "        return (x - t) * mask\n"
)
_SWITCHING_TRAIN = (
    "import argparse\n\nimport torch\n\nfrom pkg.loss import Loss\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--no-cuda", action="store_true")\n'
    "{more}"
    "    args = parser.parse_args()\n"
    "    use_gpu = not args.no_cuda and torch.cuda.is_available()\n"
    "    return Loss(use_gpu)(torch.ones(4), torch.ones(4))\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)
_UNGUARDED = [("loss.py", 13, 30)]
_GUARDED_TOO = [("loss.py", 12, 19), ("loss.py", 13, 30)]


@pytest.mark.parametrize(
    ("more", "expected"),
    [
        ("", _UNGUARDED),
        (
            '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
            "    print(device)\n",
            _UNGUARDED,
        ),
        ('    parser.add_argument("--device", default="cuda:1")\n', _GUARDED_TOO),
        ('    parser.add_argument("--gpu_ids", default="0")\n', _GUARDED_TOO),
        ("    device = torch.device(parser.device)\n    print(device)\n", _GUARDED_TOO),
        ('    device = torch.device("cuda", 1)\n    print(device)\n', _GUARDED_TOO),
        ('    device = torch.device(f"cuda:{parser.rank}")\n    print(device)\n', _GUARDED_TOO),
        ('    device = torch.device(parser.cfg["device"])\n    print(device)\n', _GUARDED_TOO),
        (
            '    device = torch.device("cuda", index=parser.local_rank)\n    print(device)\n',
            _GUARDED_TOO,
        ),
        ("    workers = build(cuda=False, use_cpu=True)\n", _UNGUARDED),
        ("    trainer = build(gpus=2)\n    trainer.fit()\n", _GUARDED_TOO),
    ],
    ids=[
        "a GPU switch",
        "the GPU if there is one",
        "a device option",
        "a GPU option",
        "a device chosen at run time",
        "a GPU by its number",
        "a GPU by a rank",
        "a device from a configuration",
        "a GPU index by keyword",
        "a builder told the CPU",
        "a framework told how many GPUs",
    ],
)
def test_under_the_gpu_switch_of_a_program_offering_no_other_gpu(
    more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A program that offers the CPU but no GPU other than the current one: a ``.cuda()``
    its code takes only where the user's flag says "GPU" goes where every other GPU tensor
    is; one it takes whatever the flag says breaks on the CPU, and stays a finding."""
    files = {"pkg/loss.py": _FLAG_LOSS, "pkg/train.py": _SWITCHING_TRAIN.format(more=more)}
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("cpu", False), ("cpu:0", False), ("mps", True), ("cuda:1", True), ("cuda", False)],
)
def test_names_another_gpu(text: str, expected: bool) -> None:
    assert names_another_gpu(text) is expected


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--device", True),
        ("--gpu_ids", True),
        ("--gpu", True),
        ("--no-cuda", False),
        ("--use_cpu", False),
        ("-cpu", False),
        ("--lr", False),
    ],
)
def test_chooses_a_gpu(option: str, expected: bool) -> None:
    assert chooses_a_gpu(option) is expected


@pytest.mark.parametrize(
    ("qualified", "literals", "written", "expected"),
    [
        ("torch.cuda.is_available", (), None, False),
        ("torch.device", ("cpu",), None, False),
        ("torch.device", ("cuda",), None, False),
        ("torch.device", ("cuda", 1), None, True),
        ("torch.device", ("cuda:1",), None, True),
        ("torch.device", None, "args.device", True),
        ("torch.device", None, None, True),
        ("torch.device", None, LITERAL_CHOICE, False),
        ("mylib.device", None, "args.device", False),
    ],
)
def test_call_offers_another_gpu(
    qualified: str, literals: tuple[object, ...] | None, written: str | None, expected: bool
) -> None:
    assert call_offers_another_gpu(qualified, literals, written) is expected


_LOSS = (
    "import torch\nfrom torch import nn\n\n\n"
    "class BoxLoss(nn.Module):\n"
    "    def forward(self, predictions, targets):\n"
    "        weights = torch.ones(4).cuda()\n"
    "        return (predictions - targets).abs().mul(weights).sum()\n"
)
_PRIOR = (
    "import torch\n\n\ndef priors(n):\n    return torch.rand(n, 4)\n\n\n"
    "def loss_for(n):\n    from pkg.layers.loss import BoxLoss\n\n    return BoxLoss()\n"
)
_GPU_TRAIN = (
    "import argparse\n\nimport torch\n\nfrom pkg.layers import BoxLoss, priors\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--lr", type=float)\n'
    "    loss = BoxLoss().cuda()\n"
    "    return loss(priors(4).cuda(), torch.zeros(4, 4).cuda())\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)
_CPU_DETECT = (
    "import argparse\n\nimport torch\n\n{imports}\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    '    parser.add_argument("--cpu", action="store_true")\n'
    '    device = torch.device("cpu" if parser.parse_args().cpu else "cuda")\n'
    "    {body}\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)


@pytest.mark.parametrize(
    ("imports", "body", "expected"),
    [
        ("from pkg.layers import priors", "print(priors(4).to(device))", []),
        ("from pkg.layers import BoxLoss", "print(BoxLoss().to(device))", [("loss.py", 7, 33)]),
        (
            "import sys\nsys.path.append('pkg/layers')\nfrom loss import BoxLoss",
            "print(BoxLoss().to(device))",
            [("loss.py", 7, 33)],
        ),
        (
            "import sys\nsys.path.append(os.environ['LOSSES'])",
            "from loss import BoxLoss\n\n    print(BoxLoss().to(device))",
            [("loss.py", 7, 33)],
        ),
        (
            "import sys\nsys.path.append('pkg/layers')\nimport loss",
            "print(loss.BoxLoss().to(device))",
            [("loss.py", 7, 33)],
        ),
        (
            "from pkg.layers.prior import loss_for",
            "print(loss_for(4).to(device))",
            [("loss.py", 7, 33)],
        ),
        (
            "\n\nclass BoxLoss:\n    pass",
            "print(BoxLoss(), torch.zeros(4).to(device))",
            [],
        ),
        (
            "import importlib\nfrom pkg.layers import priors",
            'print(importlib.import_module("pkg.layers.loss"), priors(4).to(device))',
            [("loss.py", 7, 33)],
        ),
        (
            "from pkg import layers",
            "print(getattr(layers, parser.prog)().to(device))",
            [("loss.py", 7, 33)],
        ),
    ],
    ids=[
        "imports the package, never names the loss",
        "builds the loss",
        "imports it through an edited sys.path",
        "imports it in a function through a sys.path named at run time",
        "imports its module through an edited sys.path",
        "builds it through a helper",
        "names its own class of that name",
        "imports modules by computed names",
        "looks the class up by a computed name",
    ],
)
def test_only_the_scripts_running_the_code_offer_it_a_device(
    imports: str, body: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A GPU-only ``train.py`` alone builds the loss; a ``detect.py`` offering the CPU imports
    the package whose ``__init__`` imports the loss, and only builds the priors (the module
    of the priors names the loss in a helper the script never calls): its option chooses
    nothing for the loss, whose ``.cuda()`` is the GPU everything of the loss is on. Where
    the CPU script builds the loss, itself or through the helper, or may load it by a
    computed name, or through an import this reading cannot follow, it offers it the CPU; a
    class of its own of that name, in a script that imports none of the package, is not
    the loss."""
    files = {
        "pkg/__init__.py": "",
        "pkg/layers/__init__.py": "from pkg.layers.loss import BoxLoss\n"
        "from pkg.layers.prior import priors\n",
        "pkg/layers/loss.py": _LOSS,
        "pkg/layers/prior.py": _PRIOR,
        "pkg/train.py": _GPU_TRAIN,
        "pkg/detect.py": _CPU_DETECT.format(imports=imports, body=body),
    }
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


_FALLING_BACK = '"cuda" if torch.cuda.is_available() else "cpu"'


@pytest.mark.parametrize(
    ("call", "device", "expected"),
    [
        ("priors(4)", _FALLING_BACK, []),
        ("cpu_priors(4)", _FALLING_BACK, [("loss.py", 7, 33)]),
        ("cpu_priors(4)", '"cpu"', []),
        ("cpu_priors(4)", 'torch.device("cpu")', [("loss.py", 7, 33)]),
        ("cpu_priors(4)", "torch.device(device)", []),
        ("cpu_priors(4)", "torch.device(rank)", [("loss.py", 7, 33)]),
        ("cpu_priors(4)", "torch.device('cuda' if n else 'cpu')", [("loss.py", 7, 33)]),
        ("cpu_priors(4)", "'cuda' if n else 'cpu'", [("loss.py", 7, 33)]),
    ],
    ids=[
        "never runs the helper falling back to the CPU",
        "runs the helper falling back to the CPU",
        "runs a helper naming the CPU",
        "runs a helper making the CPU's device",
        "runs a helper following the device it is given",
        "runs a helper making a process's GPU",
        "runs a helper choosing the CPU's device",
        "runs a helper choosing the CPU",
    ],
)
def test_only_the_code_a_script_may_run_offers_a_device(
    call: str, device: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A module the GPU-only ``train.py`` imports has a helper making its tensors on the CPU
    where there is no GPU: it offers the CPU only where the script may run it
    (``FileFacts.offering_places``). A helper of a library module that names the CPU
    (as an argument: ``device="cpu"``) places one value there on purpose, which the script
    then moves (``CPU_BY_NAME``), and one that follows the device it is given
    (``torch.device(device)``) places it where its caller says (``DEVICE_GIVEN``): they
    offer no CPU to the program. A device it makes (``torch.device("cpu")``, a process's
    GPU ``torch.device(rank)``) or chooses still does."""
    prior = _PRIOR + (
        "\n\ndef cpu_priors(n, device=None, rank=0):\n"
        f"    return torch.rand(n, 4, device={device})\n"
    )
    train = _GPU_TRAIN.replace("priors(4).cuda()", f"{call}.cuda()").replace(
        "import BoxLoss, priors", "import BoxLoss, cpu_priors, priors"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/layers/__init__.py": "from pkg.layers.loss import BoxLoss\n"
        "from pkg.layers.prior import cpu_priors, priors\n",
        "pkg/layers/loss.py": _LOSS,
        "pkg/layers/prior.py": prior,
        "pkg/train.py": train,
    }
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


_TOLD = (
    "import torch\nfrom torch import nn\n\n\n"
    "def noisy(x: torch.Tensor):\n"
    "    return x + torch.ones(4).cuda()\n\n\n"
    "class Told(nn.Module):\n"
    "    def __init__(self, device):\n"
    "        super().__init__()\n"
    "        self.device = device\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "        self.noise = noisy\n\n"
    "    def forward(self, x):\n"
    "        return self.noise(self.fc(x))\n"
)
_DDP = (
    "import os\n\nimport torch\nfrom torch.nn.parallel import DistributedDataParallel\n\n"
    "from pkg.model import Told\n\n\n"
    "def main():\n"
    '    rank = int(os.environ["LOCAL_RANK"])\n'
    "{set_up}"
    '    net = Told(f"cuda:{{rank}}").cuda(rank)\n'
    "    return DistributedDataParallel(net, device_ids=[rank])\n\n\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)


@pytest.mark.parametrize(
    ("set_up", "expected"),
    [
        ("    torch.cuda.set_device(rank)\n", []),
        ("", [("model.py", 6, 30)]),
        ("    if rank:\n        torch.cuda.set_device(rank)\n", [("model.py", 6, 30)]),
    ],
    ids=["made current", "never made current", "made current for some ranks only"],
)
@pytest.mark.parametrize("packaged", [False, True], ids=["a program", "a packaged program"])
def test_a_gpu_by_the_number_a_script_made_current_is_the_current_one(
    set_up: str, expected: list[tuple[str, int, int]], packaged: bool, tmp_path: Path
) -> None:
    """``f"cuda:{rank}"``, ``.cuda(rank)`` and ``device_ids=[rank]`` name the GPU the script's
    set-up made current (``torch.cuda.set_device(rank)`` on its main path): there a
    ``.cuda()`` the model runs agrees with them, also in a helper it calls through an
    attribute (which no call graph shows to run after the set-up). A packaged program,
    read whole, says the same of a script nothing imports."""
    files = {"pkg/model.py": _TOLD, "pkg/train.py": _DDP.format(set_up=set_up)}
    if packaged:
        files["setup.py"] = "from setuptools import setup\n\nsetup(name='pkg')\n"
    assert sorted(findings(tmp_path, files, "DEV002")) == expected


def test_what_a_looked_up_class_calls_runs_with_the_script(tmp_path: Path) -> None:
    """``getattr(models, args.arch)`` may build any class of ``models``: what its classes
    call (a helper choosing the CPU) runs with the script too."""
    files = {
        "pkg/utils.py": "import torch\n\n\ndef pick_device():\n"
        '    return "cuda" if torch.cuda.is_available() else "cpu"\n',
        "pkg/models.py": "import torch\nfrom torch import nn\n\n"
        "from pkg.utils import pick_device\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4).to(pick_device())\n\n"
        "    def forward(self, x):\n"
        "        return self.fc(x) + torch.ones(4).cuda()\n",
        "pkg/train.py": "import argparse\n\nfrom pkg import models\n\n\n"
        "def main():\n"
        "    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--arch")\n'
        "    return getattr(models, parser.parse_args().arch)()\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n",
    }
    assert sorted(findings(tmp_path, files, "DEV002")) == [("models.py", 13, 43)]


def test_a_program_of_too_many_scripts_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``MAX_SCRIPTS_READ`` scripts, which script runs what is not read: the CPU
    ``detect.py`` that never builds the loss offers it the CPU, as a library's code is."""
    monkeypatch.setattr(index, "MAX_SCRIPTS_READ", 1)
    files = {
        "pkg/__init__.py": "",
        "pkg/layers/__init__.py": "from pkg.layers.loss import BoxLoss\n"
        "from pkg.layers.prior import priors\n",
        "pkg/layers/loss.py": _LOSS,
        "pkg/layers/prior.py": _PRIOR,
        "pkg/train.py": _GPU_TRAIN,
        "pkg/detect.py": _CPU_DETECT.format(
            imports="from pkg.layers import priors", body="print(priors(4).to(device))"
        ),
    }
    assert sorted(findings(tmp_path, files, "DEV002")) == [("loss.py", 7, 33)]


def test_an_option_beside_an_import_from_a_folder_without_init(tmp_path: Path) -> None:
    """``from pkg.models.yolo import Net`` where ``pkg/models`` has no ``__init__.py``: the
    folder is no module of the project, and the option's reach skips it."""
    files = {
        "pkg/models/yolo.py": "import torch\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n        return x.cuda()\n",
        "pkg/train.py": "import argparse\n\nfrom pkg.models.yolo import Net\n\n\n"
        "def main():\n    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--device", default="cuda")\n    return Net()\n\n\n'
        'if __name__ == "__main__":\n    main()\n',
    }
    assert findings(tmp_path, files, "DEV002") == [("yolo.py", 6, 18)]
