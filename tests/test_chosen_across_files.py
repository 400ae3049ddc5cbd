"""Choices of device that one file makes for code in another: a project whose own set-up
runs on one machine (DEV009's global rank is then the local one), and a class keeping the
device a helper of another module chooses by its default (DEV001)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_WEIGHTS = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "def load(path):\n"
    '    return torch.load(path, map_location=torch.device("cuda", dist.get_rank()))\n'
)
_LAUNCH = (
    "import os\n\nimport torch.distributed as dist\n\n\n"
    "def start(rank, world_size):\n"
    '    os.environ["MASTER_ADDR"] = {host}\n'
    '    dist.init_process_group("nccl", rank=rank, world_size=world_size)\n'
)


@pytest.mark.parametrize(
    ("host", "expected"),
    [('"localhost"', []), ('"127.0.0.1"', []), ("host", [("weights.py", 6, 63)])],
)
def test_a_rendezvous_on_this_host_makes_the_global_rank_local(
    host: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    launch = _LAUNCH.format(host=host).replace("def start(rank,", "def start(host, rank,")
    files = {"pkg/weights.py": _WEIGHTS, "pkg/launch.py": launch}
    assert findings(tmp_path, files, "DEV009") == expected


_CHOOSER = (
    "import torch\n\n\n"
    "def choose_device(use_gpu=False, device=0):\n"
    "    if use_gpu:\n"
    '        return torch.device(f"cuda:{device}")\n'
    '    return torch.device("cpu")\n'
)


@pytest.mark.parametrize(
    ("base", "expected"), [("", []), ("torch.nn.Module", [("devices.py", 4, 41)])]
)
def test_a_class_keeping_a_helpers_default_device_chose_it(
    base: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A class that is no model keeps what the helper chose as its device: its choice. A
    module keeping it is pinned to GPU 0 by the default."""
    keeper = (
        "import torch\n\nfrom pkg.devices import choose_device\n\n\n"
        f"class Segmenter({base}):\n"
        "    def __init__(self, use_gpu=False):\n"
        f"        {'super().__init__()' if base else 'pass'}\n"
        "        self.device = choose_device(use_gpu)\n"
    )
    files = {"pkg/devices.py": _CHOOSER, "pkg/segment.py": keeper}
    assert findings(tmp_path, files, "DEV001") == expected


_SYNC = (
    "import torch\nimport torch.distributed as dist\n\n\n"
    "def mean_loss(loss: torch.Tensor):\n"
    "    count = torch.ones(1).cuda()\n"
    "    dist.all_reduce(count)\n"
    "    dist.all_reduce(loss)\n"
    "    return loss / count\n"
)
_PINS_GPUS = "import torch\n\n\ndef pin(local_rank):\n    torch.cuda.set_device(local_rank)\n"
_PINS_GPUS_OR_NPUS = (
    "import torch\n\n\n"
    "def pin(local_rank, npu):\n"
    "    if npu:\n"
    "        torch.npu.set_device(local_rank)\n"
    "    else:\n"
    "        torch.cuda.set_device(local_rank)\n"
)


@pytest.mark.parametrize(
    ("launch", "expected"),
    [
        ("", [("sync.py", 6, 27)]),
        (_PINS_GPUS, []),
        (_PINS_GPUS_OR_NPUS, [("sync.py", 6, 27)]),
    ],
    ids=["no set-up", "pins GPUs", "pins GPUs or NPUs"],
)
def test_collectives_run_on_the_gpu_the_projects_set_up_made_current(
    launch: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A function running collectives is one rank's code where another file of the project
    makes each rank's GPU current; not where that file makes NPUs current too: there the
    project abstracts its accelerator, and ``.cuda()`` is one type among several."""
    files = {"pkg/sync.py": _SYNC, "pkg/launch.py": launch}
    assert findings(tmp_path, files, "DEV002") == expected


_FAST = (
    "import torch\n\n\n"
    'def install(pipe, dtype, device="cuda"):\n'
    "    return torch.zeros(3, dtype=dtype, device=device)\n"
)
_SLOW = "def install(pipe, logger):\n    logger.info(pipe)\n"


@pytest.mark.parametrize(
    ("fast_call", "expected"),
    [
        ("install(ctx.pipe, ctx.dtype, ctx.device)", []),
        ("install(ctx.pipe, ctx.dtype)", [("fast.py", 4, 33)]),
    ],
    ids=["passes the device", "relies on the default"],
)
def test_a_call_runs_the_function_its_own_import_binds(
    fast_call: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Sibling closures each import their own ``install``: a call runs the one its
    function imported last, not the module's last binding of the name (the slow
    ``install``'s caller, which passes no device, is no caller of the fast one)."""
    patches = (
        "def specs():\n"
        "    def slow(ctx):\n"
        "        from pkg.slow import install\n"
        "        return install(ctx.pipe, ctx.logger)\n\n"
        "    def fast(ctx):\n"
        "        from pkg.fast import install\n"
        f"        return {fast_call}\n\n"
        "    return [slow, fast]\n"
    )
    files = {"pkg/fast.py": _FAST, "pkg/slow.py": _SLOW, "pkg/patches.py": patches}
    assert findings(tmp_path, files, "DEV001") == expected


_RECORD = (
    "from dataclasses import dataclass\n\n\n"
    "@dataclass\n"
    "class DeviceMemory:\n"
    "    device: str\n"
    "    free: int\n"
)
_PLACING = (
    "import torch\n\n\n"
    "class DeviceMemory:\n"
    "    def __init__(self, device, free):\n"
    "        self.pool = torch.empty(free, device=device)\n"
)


@pytest.mark.parametrize(
    ("memory", "expected"),
    [(_RECORD, []), (_PLACING, [("gpus.py", 6, 32)])],
    ids=["record", "places"],
)
def test_a_records_device_is_a_label(
    memory: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """``device=`` of another module's dataclass names the device in a record (its
    readers place with it, or not); a class whose ``__init__`` places with it is placed."""
    gpus = (
        "from torch import nn\n\n\n"
        "def secondary_memory(model: nn.Module, free):\n"
        "    from pkg.memory import DeviceMemory\n"
        '    return DeviceMemory(device="cuda", free=free)\n'
    )
    files = {"pkg/memory.py": memory, "pkg/gpus.py": gpus}
    assert findings(tmp_path, files, "DEV001") == expected


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        ("torch.cuda.get_device_capability(engine_device(model))", []),
        ("torch.zeros(3, device=engine_device(model))", [("engine.py", 6, 12)]),
    ],
    ids=["asks about it", "places with it"],
)
def test_a_returned_device_places_where_a_caller_places_with_it(
    use: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A helper's ``return torch.device("cuda")`` answers which device; it places only
    where a caller of another module places with the answer."""
    engine = (
        "import torch\nfrom torch import nn\n\n\n"
        "def engine_device(model: nn.Module):\n"
        '    return torch.device("cuda")\n'
    )
    caller = (
        "import torch\n\nfrom pkg.engine import engine_device\n\n\n"
        f"def warm(model):\n    return {use}\n"
    )
    files = {"pkg/engine.py": engine, "pkg/warm.py": caller}
    assert findings(tmp_path, files, "DEV001") == expected


_MOVER = "def copy_to_gpu(model):\n    return model.cuda()\n"
_TASK = (
    "from pkg.util import copy_to_gpu\n\n\n"
    "class Task:\n"
    "    def __init__(self, model, use_gpu):\n"
    "        self.model = model\n"
    "        self.use_gpu = use_gpu\n\n"
    "    def prepare(self):\n"
    "        if self.use_gpu:\n"
    "            self.model = copy_to_gpu(self.model)\n"
)
_PINNING = (
    "import os\n\nimport torch\n\n\n"
    "def launch(task):\n"
    '    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
    "{more}"
    "    task.prepare()\n"
)


@pytest.mark.parametrize(
    ("launcher", "more", "expected"),
    [
        ("pkg/launch.py", "", []),
        (None, "", [("util.py", 2, 18)]),
        ("tests/test_launch.py", "", [("util.py", 2, 18)]),
        ("pkg/launch.py", "    torch.backends.mps.is_available()\n", [("util.py", 2, 18)]),
        ("pkg/launch.py", "    torch.cuda.set_device(0)\n", [("util.py", 2, 18)]),
        (
            "pkg/launch.py",
            "    try:\n        torch.cuda.set_device(int(os.environ['GPU']))\n"
            "    except KeyError:\n        torch.cuda.set_device(0)\n",
            [],
        ),
    ],
    ids=[
        "pinned by its launcher",
        "not pinned",
        "pinned by a test",
        "offers MPS too",
        "GPU 0",
        "GPU 0 as a fallback",
    ],
)
def test_a_helper_moving_its_input_moves_it_to_the_process_gpu_where_the_project_pins_it(
    launcher: str | None, more: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """A helper whose job is moving its input (``copy_to_gpu``), called by a trainer that
    keeps a model, moves it to the one GPU each process works on where the project's own
    launcher made that GPU current (not GPU 0 for every rank) and offers no other
    accelerator; else the trainer's device is the one to move to."""
    files = {"pkg/util.py": _MOVER, "pkg/task.py": _TASK}
    if launcher is not None:
        files[launcher] = _PINNING.format(more=more)
    assert findings(tmp_path, files, "DEV002") == expected


@pytest.mark.parametrize(("pinned", "expected"), [(True, []), (False, [("util.py", 2, 21)])])
def test_a_helper_moving_its_input_to_cuda_by_name_follows_the_same_pinning(
    pinned: bool, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """``model.to("cuda")`` (DEV001) is the same move as ``model.cuda()``."""
    files = {
        "pkg/util.py": _MOVER.replace("model.cuda()", 'model.to("cuda")'),
        "pkg/task.py": _TASK,
    }
    if pinned:
        files["pkg/launch.py"] = _PINNING.format(more="")
    assert findings(tmp_path, files, "DEV001") == expected


_CACHED_MODEL = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Decoder(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.cache = torch.zeros(8).cuda()\n\n"
    "    def generate(self, tokens: list):\n"
    '        return torch.tensor(tokens, device="cuda")\n'
)
_BUILDER = (
    "import os\n\nimport torch\n\nfrom pkg.new.model import Decoder\n\n\n"
    "def build():\n"
    '    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
    "{more}"
    "    return Decoder()\n"
)
_VISIBLE_GPU = (
    "import os\n\nimport torch\n\nfrom pkg.new.model import Decoder\n\n\n"
    "def build(local_rank):\n"
    '    os.environ["CUDA_VISIBLE_DEVICES"] = {visible}\n'
    "    torch.cuda.set_device(0)\n"
    "    return Decoder()\n"
)
_SCRIPT = (
    "import os\n\nimport torch\n\nfrom pkg.new.model import Decoder\n\n"
    'torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
    "print(Decoder().generate([1, 2]))\n"
)
_SET_UP = (
    "import os\n\nimport torch\n\n\n"
    "def set_up():\n"
    '    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
)
_BUILDER_SETTING_UP = (
    "from pkg.new.model import Decoder\nfrom pkg.new.set_up import set_up\n\n\n"
    "def build():\n    set_up()\n    return Decoder()\n"
)
_SCRIPT_SETTING_UP = (
    "from pkg.new.model import Decoder\nfrom pkg.new.set_up import set_up\n\n"
    'if __name__ == "__main__":\n    set_up()\n    print(Decoder().generate([1, 2]))\n'
)
_EVALUATOR_SETTING_UP = (
    "from pkg.new.model import Decoder\nfrom pkg.new.set_up import set_up\n\n\n"
    "class Evaluator:\n    def __init__(self):\n        set_up()\n"
    "        self.model = Decoder()\n"
)
_EVALUATOR_SETTING_UP_ITSELF = (
    "import os\n\nimport torch\n\nfrom pkg.new.model import Decoder\n\n\n"
    "class Evaluator:\n    def __init__(self):\n        self.set_up()\n"
    "        self.model = Decoder()\n\n    def set_up(self):\n"
    '        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
)
_OFFERS_XPU = (
    "import os\n\nimport torch\n\n\n"
    "def build():\n"
    "    local_rank = int(os.environ['LOCAL_RANK'])\n"
    "    if torch.xpu.is_available():\n"
    "        torch.xpu.set_device(local_rank)\n"
    "    else:\n"
    "        torch.cuda.set_device(local_rank)\n"
)
_BOTH = [("model.py", 8, 37), ("model.py", 11, 44)]
_FROM_CONFIG = _CACHED_MODEL + (
    "\n    @classmethod\n    def from_config(cls, config):\n        return cls()\n"
)
_SELF_PINNING = _CACHED_MODEL + (
    "\n    @staticmethod\n    def build():\n"
    '        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
    "        return Decoder()\n"
).replace("import torch\n", "import os\n\nimport torch\n", 1)


@pytest.mark.parametrize(
    ("launchers", "expected"),
    [
        ({"pkg/new/build.py": _BUILDER.format(more="")}, []),
        ({"pkg/new/run.py": _SCRIPT}, []),
        ({}, _BOTH),
        (
            {
                "pkg/new/build.py": _BUILDER.format(more=""),
                "pkg/new/serve.py": "from pkg.new.model import Decoder\n\n\ndef serve():\n"
                "    return Decoder()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/build.py": _BUILDER.format(more=""),
                "pkg/new/chat.py": "from pkg.new.model import Decoder\n\n\n"
                "class Chat(Decoder):\n    pass\n\n\ndef serve():\n    return Chat()\n",
            },
            _BOTH,
        ),
        ({"pkg/new/build.py": _BUILDER.format(more="    torch.xpu.is_available()\n")}, _BOTH),
        ({"pkg/new/build.py": _BUILDER.format(more="    torch.cuda.set_device(0)\n")}, _BOTH),
        ({"pkg/new/build.py": _VISIBLE_GPU.format(visible="str(local_rank)")}, []),
        ({"pkg/new/build.py": _VISIBLE_GPU.format(visible='"0"')}, _BOTH),
        ({"pkg/new/build.py": _VISIBLE_GPU.format(visible='",".join(gpus)')}, _BOTH),
        (
            {
                "pkg/new/model.py": _FROM_CONFIG,
                "pkg/new/build.py": _BUILDER.format(more=""),
                "pkg/new/serve.py": "from pkg.new.model import Decoder\n\n\ndef serve(cfg):\n"
                "    return Decoder.from_config(cfg)\n",
            },
            _BOTH,
        ),
        ({"pkg/new/set_up.py": _SET_UP, "pkg/new/build.py": _BUILDER_SETTING_UP}, []),
        ({"pkg/new/set_up.py": _SET_UP, "pkg/new/run.py": _SCRIPT_SETTING_UP}, []),
        ({"pkg/new/set_up.py": _SET_UP, "pkg/new/evaluate.py": _EVALUATOR_SETTING_UP}, []),
        (
            {
                "pkg/new/set_up.py": _SET_UP.replace('int(os.environ["LOCAL_RANK"])', "0"),
                "pkg/new/build.py": _BUILDER_SETTING_UP,
            },
            _BOTH,
        ),
        ({"pkg/new/set_up.py": _SET_UP, "tests/test_build.py": _BUILDER_SETTING_UP}, _BOTH),
        (
            {
                "pkg/new/set_up.py": _SET_UP.replace(
                    "    torch", "    if not torch.cuda.is_available():\n        return\n    torch"
                ),
                "pkg/new/build.py": _BUILDER_SETTING_UP,
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/set_up.py": _SET_UP.replace(
                    "    torch",
                    "    if torch.cuda.device_count() == 0:\n        return\n    torch",
                ),
                "pkg/new/build.py": _BUILDER_SETTING_UP,
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/set_up.py": _SET_UP,
                "pkg/new/cli.py": "from pkg.new.model import Decoder\n"
                "from pkg.new.set_up import set_up\n\n\n"
                "def train():\n    set_up()\n\n\n"
                "def evaluate():\n    return Decoder()\n\n\n"
                "def cli(mode):\n    if mode == 'train':\n        train()\n"
                "    else:\n        evaluate()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/set_up.py": _SET_UP + "\n\ndef set_up_all():\n    rank = set_up()\n",
                "pkg/new/build.py": _BUILDER_SETTING_UP.replace(
                    "import set_up\n", "import set_up_all\n"
                ).replace("    set_up()\n", "    set_up_all()\n"),
            },
            [],
        ),
        (
            {
                "pkg/new/set_up.py": _SET_UP,
                "pkg/new/build.py": _BUILDER_SETTING_UP.replace(
                    "def build():\n    set_up()\n",
                    "def build(use_cpu):\n    if not use_cpu:\n        set_up()\n",
                ),
            },
            _BOTH,
        ),
        ({"pkg/new/evaluate.py": _EVALUATOR_SETTING_UP_ITSELF}, []),
        (
            {
                "pkg/new/evaluate.py": _EVALUATOR_SETTING_UP_ITSELF
                + "\n\nclass Trainer(Evaluator):\n    def __init__(self):\n"
                "        super().__init__()\n        self.student = Decoder()\n",
            },
            [],
        ),
        (
            {
                "pkg/new/evaluate.py": _EVALUATOR_SETTING_UP_ITSELF
                + "\n\nclass Trainer(Evaluator):\n    def __init__(self):\n"
                "        self.student = Decoder()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/evaluate.py": _EVALUATOR_SETTING_UP_ITSELF
                + "\n\nclass Trainer(Evaluator):\n    def __init__(self, distributed):\n"
                "        if distributed:\n            super().__init__()\n"
                "        self.student = Decoder()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/evaluate.py": _EVALUATOR_SETTING_UP_ITSELF
                + "\n\nclass Logger:\n    pass\n\n\nclass Trainer(Evaluator, Logger):\n"
                "    def __init__(self):\n        Logger.__init__(self)\n"
                "        self.student = Decoder()\n",
            },
            _BOTH,
        ),
        (
            {
                "pkg/new/set_up.py": _SET_UP,
                "pkg/new/train.py": "from pkg.new.model import Decoder\n"
                "from pkg.new.set_up import set_up\n\n\n"
                "class Trainer:\n    def __init__(self):\n        self.model = Decoder()\n\n"
                "    def step(self):\n        pass\n\n\n"
                "class ClsTrainer(Trainer):\n    def train(self):\n        self.epoch()\n\n"
                "    def epoch(self):\n        self.step()\n        if self.more:\n"
                "            self.train()\n\n\n"
                "def main():\n    set_up()\n    ClsTrainer().train()\n",
            },
            [],
        ),
        (
            {
                "pkg/new/model.py": _SELF_PINNING,
                "pkg/new/serve.py": "from pkg.new.model import Decoder\n\n\ndef serve():\n"
                "    return Decoder.build()\n",
            },
            [],
        ),
    ],
    ids=[
        "its launcher",
        "a script",
        "none",
        "built unpinned too",
        "a subclass built unpinned",
        "offers XPU too",
        "GPU 0",
        "GPU 0 of a process seeing its own GPU alone",
        "GPU 0 of a process seeing GPU 0",
        "GPU 0 of a process seeing a list",
        "built by a classmethod unpinned",
        "a launcher setting up through a helper",
        "a script setting up through a helper",
        "a constructor setting up through a helper",
        "a helper pinning GPU 0",
        "a test setting up through a helper",
        "a helper asking for CUDA",
        "a helper counting GPUs",
        "a caller's caller running other code beside",
        "a caller's caller setting up as a step",
        "a helper called under a CPU flag",
        "a constructor setting up through its own method",
        "a subclass's constructor running it",
        "a subclass's constructor not running it",
        "a subclass's constructor running it under a test",
        "a subclass of two running the other's",
        "a subclass's methods calling the base's",
        "built by its own pinning method",
    ],
)
def test_code_run_only_after_its_launcher_pins_the_gpu_runs_on_it(
    launchers: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """Code that runs only after a launcher of the project made the process's GPU current
    by a run-time index (each project caller of it, or each builder of its object, is such
    a launcher or such code), in modules that offer no other accelerator, runs on that GPU:
    its ``"cuda"`` and ``.cuda()`` are the process's GPU, though another launcher of the
    project offers XPU (so no project-wide pinning holds), or GPU 0 after it made its own GPU
    the only one it sees (``CUDA_VISIBLE_DEVICES``); also where the launcher (a
    script, a constructor) makes it current through a project helper that does. Not where
    code that pins nothing builds it too, or builds a subclass that inherits the method,
    nor where only a test sets up, nor through a helper that asks whether CUDA is there
    (its callers may go on without it), nor where the helper's call runs only under a
    test (a CPU flag); a caller's caller is set up where each call is a whole statement,
    and a subclass's constructor where it runs its base's (``super().__init__()``)."""
    files = {
        "pkg/new/__init__.py": "",
        "pkg/new/model.py": _CACHED_MODEL,
        "pkg/old/__init__.py": "",
        "pkg/old/build.py": _OFFERS_XPU,
        **launchers,
    }
    found = findings(tmp_path, files, "DEV001") + findings(tmp_path, files, "DEV002")
    assert sorted(found) == expected


def test_code_run_after_its_launcher_pins_the_gpu_still_follows_a_device_it_is_told(
    tmp_path: Path,
) -> None:
    """Pinned code told a device (a ``device`` parameter) may be told another one: its
    ``"cuda"`` ignores what the caller asked for."""
    model = _CACHED_MODEL.replace("tokens: list)", "tokens: list, device)")
    files = {
        "pkg/new/__init__.py": "",
        "pkg/new/model.py": model,
        "pkg/new/build.py": _BUILDER.format(more=""),
    }
    assert findings(tmp_path, files, "DEV001") == [("model.py", 11, 44)]


_FLOW = (
    "import torch.nn as nn\n\n\n"
    "class Flow(nn.Module):\n"
    "    def __init__(self, use_gpu):\n"
    "        super().__init__()\n"
    "        self.core = nn.Linear(4, 4)\n"
    "        self.use_gpu = use_gpu\n"
    "        if use_gpu:\n"
    "            self.core = self.core.cuda()\n\n"
    "    def forward(self, x):\n"
    "        if self.use_gpu:\n"
    "            x = x.cuda()\n"
    "        return self.core(x)\n"
)


@pytest.mark.parametrize(
    ("builder", "expected"),
    [
        ("    return Flow(use_gpu)\n", []),
        ('    net = Flow(use_gpu)\n    net.to("cuda")\n    return net\n', []),
        ("    net = Flow(use_gpu)\n    net.to(device)\n    return net\n", [("model.py", 14, 19)]),
        ("    return Flow(use_gpu).cuda(device)\n", [("model.py", 14, 19)]),
    ],
)
def test_a_module_placed_under_its_flag_is_on_the_current_gpu_unless_moved_elsewhere(
    builder: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    """On the forward path, the flag the module's own ``__init__`` put it on the current GPU
    under chose that GPU for its batch too, unless another file of the project moves the
    module to a device it is told (also a local it built: ``net.to(device)``)."""
    build = f"from pkg.model import Flow\n\n\ndef build(use_gpu, device):\n{builder}"
    files = {"pkg/model.py": _FLOW, "pkg/train.py": build}
    assert findings(tmp_path, files, "DEV002") == expected


_OUTER = (
    "\n\nclass Outer(nn.Module):\n"
    "    def __init__(self, use_gpu):\n"
    "        super().__init__()\n"
    "        self.flow = Flow(use_gpu)\n\n"
    "    def forward(self, x):\n"
    "        return self.flow(x)\n"
)


@pytest.mark.parametrize(
    ("model", "train"),
    [
        (
            _FLOW + _OUTER,
            "from pkg.model import Outer\n\n\n"
            "def main(use_gpu, device):\n    return Outer(use_gpu).to(device)\n",
        ),
        (
            _FLOW,
            "from pkg.model import Flow\n\n\ndef build(use_gpu):\n    return Flow(use_gpu)\n\n\n"
            "def main(use_gpu, device):\n    net = build(use_gpu)\n    net.to(device)\n"
            "    return net\n",
        ),
    ],
)
def test_a_module_placed_under_its_flag_is_moved_elsewhere_with_what_it_is_part_of(
    model: str, train: str, tmp_path: Path
) -> None:
    """The module is moved to a told device when the module it is part of is
    (``Outer(use_gpu).to(device)``), or what a factory returns it to is (``net =
    build(use_gpu); net.to(device)``): its batch is not on the current GPU."""
    files = {"pkg/model.py": model, "pkg/train.py": train}
    assert findings(tmp_path, files, "DEV002") == [("model.py", 14, 19)]
