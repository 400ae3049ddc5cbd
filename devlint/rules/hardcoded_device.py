"""DEV001: a literal device such as "cuda:1" written into model code."""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import names_the_device
from devlint.findings import Applicability
from devlint.index import ProjectIndex, is_test_module
from devlint.nodes import (
    attribute_of_self,
    chain_root,
    dotted_name,
    first_positional,
    keyword_argument,
    none_test,
    parameter_names,
)
from devlint.rules._anchors import (
    device_anchor,
    innermost_function,
    known_tensor,
    may_be_none,
    outermost_function,
)
from devlint.rules._chosen_device import (
    chose_the_device,
    class_choices,
    moves_its_input_there,
    names_the_current_device,
    on_the_gpu_the_program_offers,
    own_choice,
    pinned_there,
    without_index,
)
from devlint.rules._devices import (
    BINDING_TYPES,
    Bindings,
    asks_a_backend,
    device_if_available,
    device_literal,
    in_a_callback,
    in_a_probe,
    is_map_location,
    may_be_device_literal,
    moves_its_input,
    only_compared,
    places_with,
    places_with_its_device,
    record_device_field,
    returned_as_is,
    stores_its_device_parameter,
    under_a_device_switch,
    under_a_test_of_the_device,
)
from devlint.rules._first_chosen_gpu import (
    TESTED_LISTS,
    lists_known_not_empty,
    on_the_first_chosen_gpu,
)
from devlint.rules.base import (
    FileContext,
    Invalid,
    Rule,
    RuleSettings,
    borrowed_device_fix,
    choose_fix,
    replace,
    where_the_device_is_known,
)
from devlint.skeleton import Skeleton
from devlint.symbols import LEGACY_TENSOR_TYPES

_TORCH_DEVICE = frozenset({"torch.device"})
_LEGACY_CUDA_CONSTRUCTORS = frozenset(
    f"torch.cuda.{name}" for name in LEGACY_TENSOR_TYPES if name != "Tensor"
)
"""``torch.cuda.FloatTensor(...)``: a tensor made on the current GPU, a literal device."""


class HardcodedDevice(Rule):
    """## What it does
    Finds a literal accelerator device (`"cuda"`, `"cuda:1"`, `"mps"`, `0`) passed to
    `.to()`, to a `device=` argument, or to `torch.device()` in code that already knows its
    device: methods of `nn.Module`, `LightningModule`, `PreTrainedModel` and torchmetrics
    `Metric` subclasses (and of the mixins they inherit); classes that store a device
    (`self.device = ...`) or a model (`self.model = ...`): samplers, trainers, pipelines,
    classes whose `__init__` is told a device (a `device` parameter, kept or handed on),
    subclasses of transformers' `Trainer`, and optimizers (`torch.optim.Optimizer`
    subclasses, which update their parameters where those are);
    functions that take a `device` parameter; and the project functions all these call. Also
    functions whose inputs tell them their device: a parameter annotated as a tensor or a
    module (`x: Tensor`, `model: nn.Module`), or not annotated and used as only a tensor is
    (`boxes.contiguous()`, `index.new_zeros(n)`, `x.stride(-1)`), and the methods of
    autograd Functions (not tests), unless the literal moves that very input (`def
    to_gpu(x: Tensor): return x.to("cuda")` is what it is for; in a device context only
    where DEV002 allows `x.cuda()` there: a project that pins each process to its GPU). A
    legacy constructor such as `torch.cuda.FloatTensor(...)` is a literal device too (the
    current GPU), and so is the
    default of a model's `__init__(..., device="cuda")` that it stores as `self.device` and
    places tensors with (callers that rely on it are pinned to the GPU; a `device` field's
    default in a dataclass or attrs class is its generated `__init__`'s: `device:
    torch.device = attr.ib(default=torch.device("cuda"))`), and a
    `device="cuda"` default of any
    function that the project's own code (not a script's, not a test's) calls without a
    device: those calls place their tensors on the GPU whatever their own device is (not
    a default that only names the device, directly or through the names set from it
    (`kind = str(device).split(":")[0]`) and the private attributes its class sets from it
    (`self._device = device`): compared, a lookup key (`if device == "cuda":`), replaced,
    quoted in an error, read as `torch.autocast`'s device type or a loader's
    `pin_memory_device`, or to count a backend's devices for worker counts
    (`torch.get_device_module(kind).device_count()`); nor one that only code running
    collectives relies on, in a project whose set-up makes each rank's GPU current: the
    rank's GPU; nor a module's default that every constructor in the project overrides). Nor a
    branch on a device the code was told (`if device_str == "mps":`,
    `if out_device.startswith("cuda"):`). Nor a literal that places nothing: a name whose
    uses only name the device, as such a default's (`default = torch.device("cuda", 0)`,
    `if devices == {default}:`), any
    backend's query (`torch.xpu.get_device_properties("xpu")`), the tensors of a function
    that answers yes or no (`-> bool`: a probe of the device, unless it keeps one), a
    callback handed to an allocator registrar (`triton.set_allocator(alloc)`; not
    `checkpoint(fn, x)`'s), the `device=` of a record (a dataclass's field, a label), or
    the device a helper returns where no caller places with it (`x.to(helper())`,
    `map_location=helper()`, `device = helper()` or any local `dev = helper()`, whose
    uses are not followed: a finding); nor a module default every constructor in the
    project overrides, unless a subclass may rely on it.
    In model code whose objects have `.device` (a `PreTrainedModel`, a LightningModule; not
    in `__init__`), also the device an expression picks wherever that device type exists
    (`torch.device("cuda" if torch.cuda.is_available() else "cpu")`): the current GPU, not
    the one the object is on.
    Anywhere, a literal device that replaces a device parameter whenever the function runs
    (`execution_device = torch.device("cuda")` in its body, not under a test, not after a
    `return` that uses the passed one, not read from it; not in tests): the device every
    caller passes is thrown away.
    Scripts and `__main__` blocks choose the device and are not flagged, nor is the value
    a sampler or trainer stores as its `self.device` (or `self.current_device`), or that
    its `device` property returns: choosing it is that class's job (also through a helper's
    default it relies on: `self.device = assign_device(gpu)[0]`), nor a branch on which
    devices exist (`torch.cuda.is_available()`, `is_npu_available()`) or on where tensors
    are (`x.is_cuda`, `x.device == torch.device("cuda")`, also through a name the function
    sets from such a test, in a helper it defines: `any_cuda = any(_is_cuda(v) for v in
    values)`; but under `if x.device != torch.device("cuda"):` only the `else` branch: the
    body moves the tensor where it is not, imposing the device), nor a device the code falls
    back to when it was given none (`if device is
    None: device = torch.device("cuda")`, `device = device or torch.device("cuda")`), nor a
    literal of the one device type of a library the module uses (Megatron-LM's CUDA,
    Gaudi's HPU, nvdiffrast's CUDA rasterizer), directly or through the project's own code
    built on it (a class deriving from the library's, however many steps away), or of the
    kernels it launches: a CUDA extension it compiles from `.cu` sources when imported
    (`torch.utils.cpp_extension.load`), a compiled one it imports (`import pointnet2_cuda`)
    or a library of CUDA-only kernels it imports (`from flashinfer import ...`, FlashAttention,
    DeepGEMM, AMD's AITER), not under `try`/`if` (a fallback may run instead) nor in a lambda:
    that code runs there only, on the device its set-up made current, where such kernels run
    (`"hpu:0"` too: each Gaudi process sees its one HPU; not `"cuda:0"`), nor code that
    runs only after a launcher of the project made the process's GPU current by a run-time
    index (`torch.cuda.set_device(local_rank)`, itself or by calling a project function
    that does, `set_up()`, as a whole statement of its body, where neither asks which
    devices exist: each project caller of it, or each builder of its object, is such a
    launcher or such code), in modules that call no other accelerator: an index-less
    `"cuda"` there is the process's GPU (unless the code is told
    a device: `self.device`, a `device` parameter). Nor one that runs only when the user's
    list of GPUs is not empty (`if len(opt.gpu_ids) > 0:`, `if self.gpu_ids:`, a method of
    the class returning such a test, `if self.use_gpu():`) in a project whose own set-up,
    not its tests, makes that list's first GPU current (`torch.cuda.set_device(
    opt.gpu_ids[0])`, also in a method such as an options parser's): the GPU the user
    chose, also on the forward path of model code (unless told a device as above); with
    the list empty (the CPU) the code does not run. Nor `"cuda"` in a program none of
    whose code offers a device other than the current GPU (as DEV002 says): every tensor
    there is on that GPU (`"cuda:0"` stays a finding: `nn.DataParallel` runs a replica
    with GPU 1 current).

    ## Why is this bad?
    Under distributed training every process owns a different GPU. A literal
    `"cuda"` or `"cuda:0"` sends every rank's tensors to GPU 0, and the second rank
    crashes with `Expected all tensors to be on the same device, but found at least
    two devices, cuda:0 and cuda:1!`. On a CPU-only machine the same line fails with
    `Torch not compiled with CUDA enabled`. The module already knows where it lives.

    ## Example
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            mask = torch.ones(4, device="cuda")
            return x.to("cuda:0") * mask
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            mask = torch.ones(4, device=self.device)
            return x.to(self.device) * mask
    ```

    ## Fix safety
    In a class that has `.device` (LightningModule, PreTrainedModel, Metric, or a class
    defining `device`), replacing the literal with `self.device` is safe: it is the device
    the module's parameters are on. Not in `__init__`, `setup` or `configure_model`, where
    Lightning has not moved the module yet. A plain `nn.Module` has no `.device`; there the
    fix borrows `.device` from a tensor argument of the function, which is unsafe (the
    tensor may live elsewhere on purpose), and never from a parameter that may be no tensor
    (`_anchors.py`: one with a default, or read as a mapping, unpacked, iterated, compared
    with None or tested for truth). A function told its device gets `device` instead of the
    literal, also unsafe (a caller may pass `None`, or another device on purpose), unless
    `device` is a CUDA index with `-1` for the CPU (`if device >= 0`), or the literal
    is a device value (`return torch.device("cuda")`) and `device` may be None (it
    defaults to None, or the function tests it for None): `return device` would give
    None. A legacy constructor gets no fix: its arguments mix sizes or data, and its
    name a dtype; nor does a default (what to default to is the function's contract with
    its callers; the caller relying on it is where to pass the device). Code under
    `if torch.cuda.is_available():` is an explicit choice and is not flagged, and neither
    is `"cpu"`, nor a decorator's `device=` (`@registry.register(device="npu")`: a key
    read when the function is defined), nor the class's own `cuda`, `to`, `cpu`, `_apply`,
    `to_empty` or move to a
    device type such as `mps` (and the methods they call on `self`), where choosing the
    device is the code's job: `self.device` there is the device being left.

    Nor is a literal without an index (`"cuda"`, `torch.device("cuda")`, `"hpu"`,
    `torch.cuda.FloatTensor(...)`: the current device, which whoever set up the process
    chose) where the code chose it: in the branch a device flag takes for the GPU (a name or
    attribute such as `use_cuda`, `self.gpu`, perhaps under `not` or compared with a GPU
    mode, `if self.use_gpu in ("all", "model"):`, or a GPU count with 0, `if self.n_gpus >
    0:`; `if args.cpu:` chooses it in its `else`), not in a LightningModule, whose trainer
    chooses, nor in a class that keeps its device (`self.device`), nor on the forward path
    of model code, where the batch tells the device, unless the function runs collectives
    (one rank of a distributed job, whose set-up made the rank's GPU current) or the
    program offers the user no GPU but the current one (only the CPU besides, as DEV002
    says); after
    `torch.cuda.set_device(...)` earlier in the same function, or inside `with
    torch.cuda.device(weight.device):` (or a stream's block) told its device at run time; for
    communication buffers (not where a parameter annotated as a tensor or module tells the
    device), when every tensor the function hands to collectives (`all_reduce`,
    `broadcast`, `all_gather`...) is made on the current device (NCCL needs it there; not
    in a class that keeps its device, unless the file starts its process group with the
    NCCL backend itself), or in the branch for an NCCL backend (`if backend == "nccl":`);
    in one rank's code of a distributed job, handed a process group (a parameter annotated
    `ProcessGroup`, or a framework's `ParallelContext`, of the function or of its class's
    `__init__`) or running collectives in a project whose own set-up makes each rank's GPU
    current (`torch.cuda.set_device(local_rank)`), unless it is told its device
    (`self.device`, a `device` parameter) or its project makes devices of other types
    current too (`torch.npu.set_device`: its code abstracts its accelerator);
    in a class that is no model and keeps no device, once one of its methods
    unconditionally put a model on the current device (`self.model =
    load(path).to("cuda")`, or `model = model.to("cuda")` in a method returning `model`);
    where `module.to_empty(device="cuda")` materialises meta
    tensors, which have no device yet to follow; and in test code, which chooses its device
    as a script does. `"cuda:0"` stays a finding in all these.
    """

    code = "DEV001"
    name = "hardcoded-device"
    summary = "Literal device string or index in code that already knows its device"
    fix_safety = "safe/unsafe"
    replaces_literal_devices = True
    node_types = ("Call", "Param")
    # `torch.device(...)` needs `device` (qualified names resolve only names written in the
    # file), and so does a `device=` keyword. `.to(...)` needs only its method's name: its
    # literal may be an integer (`x.to(0)` is cuda:0), with no device word. So `to` is
    # required, though it is in nearly every file (`torch`): such a file waits for the
    # index to say it defines model code.
    triggers = ("device", "to", *sorted(LEGACY_TENSOR_TYPES - {"Tensor"}))
    only_in_model_code = True  # resolve: `if not self.in_scope(scope): return None`
    reports_in_device_context = True
    reports_where_inputs_tell = True
    screen_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, *BINDING_TYPES)

    VALID = (
        # A device read from the one passed replaces nothing: it translates it.
        "import torch\n\n"
        "def pick(device):\n"
        '    device = torch.device("cuda" if device == "gpu" else "cpu")\n'
        "    return device\n",
        # Only where the tensor is on that accelerator already does the other branch name it.
        "import torch\n\n\n"
        "class Sampler:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def keep(self, attr):\n"
        '        if attr.device != torch.device("cuda"):\n'
        "            attr = attr.float()\n"
        "        else:\n"
        '            attr = attr.to("cuda", non_blocking=True)\n'
        "        return attr\n",
        # Passed by position: a field `__init__` does not take (`init=False`) is no place.
        "import attr\nimport torch\nfrom torch import nn\n\n"
        "@attr.s(eq=False)\nclass Embedding(nn.Module):\n"
        "    width = attr.ib()\n"
        "    cache: dict = attr.ib(init=False, factory=dict)\n"
        '    device: torch.device = attr.ib(default=torch.device("cuda"))\n\n'
        "    def __attrs_post_init__(self):\n        super().__init__()\n"
        "        self.w = nn.Parameter(torch.empty(self.width, device=self.device))\n\n"
        "def build(width, device):\n    return Embedding(width, device)\n",
        # A field default every constructor overrides, by keyword or by position.
        "import attr\nimport torch\nfrom torch import nn\n\n"
        "@attr.s(eq=False)\nclass Embedding(nn.Module):\n"
        "    width: int = attr.ib()\n"
        '    device: torch.device = attr.ib(default=torch.device("cuda"))\n\n'
        "    def __attrs_post_init__(self):\n        super().__init__()\n"
        "        self.w = nn.Parameter(torch.empty(self.width, device=self.device))\n\n"
        "def build(width, device):\n"
        "    return Embedding(width, device=device), Embedding(width, device)\n",
        # Handed a framework's bundle of process groups: one rank's code, on the GPU its
        # set-up made current (INVALID: told its device).
        "import torch\nfrom framework import ParallelContext\n\n"
        "def merge_shards(param: torch.Tensor, shards, parallel_context: ParallelContext):\n"
        '    buffer = torch.zeros_like(param, device="cuda")\n'
        "    for shard in shards:\n"
        "        buffer += shard\n"
        "    return buffer\n",
        # A default read only as autocast's device type names the backend, not one GPU.
        "import torch\n\n"
        'def autocast(enabled, device="cuda"):\n'
        "    return torch.amp.autocast(device, enabled=enabled)\n\n"
        "def train_step(model, batch, amp):\n"
        "    with autocast(amp):\n"
        "        return model(batch)\n",
        # A function whose job is to choose the device: its default is only compared,
        # replaced and quoted in an error, and places nothing.
        "import torch\n\n"
        'def setup_device(num_gpus=None, device="cuda"):\n'
        '    if device == "cuda" and not torch.cuda.is_available():\n'
        '        num_gpus, device = 0, "cpu"\n'
        '    if device not in ("cpu", "cuda"):\n'
        '        raise ValueError(f"Unknown device {device!r}")\n'
        "    return num_gpus\n\n"
        "def setup_gpu_mode(num_gpus):\n"
        "    return setup_device(num_gpus)\n",
        # A loader's default device only sizes its workers and names its pinned memory's
        # backend, through the type taken from it: no tensor is placed.
        "import os\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'def build_loader(dataset, workers, device="cuda"):\n'
        '    kind = getattr(device, "type", str(device).split(":")[0])\n'
        '    count = torch.get_device_module(kind).device_count() if kind != "cpu" else 0\n'
        "    pin = count > 0\n"
        '    options = {"pin_memory_device": kind} if pin else {}\n'
        "    workers = min(os.cpu_count() // max(count, 1), workers)\n"
        "    return DataLoader(dataset, num_workers=workers, pin_memory=pin, **options)\n\n"
        "def calibration_loader(dataset):\n"
        "    return build_loader(dataset, 0)\n",
        # A default kept in a private attribute nothing reads, and used as a lookup key.
        "import torch\n\n"
        "class DeviceMesh:\n"
        '    _BACKENDS = {"cuda": "nccl", "cpu": "gloo"}\n\n'
        '    def __init__(self, shape, device="cuda"):\n'
        "        self._device = device\n"
        "        self._backend = self._BACKENDS[device]\n\n"
        "def build_mesh(shape):\n"
        "    return DeviceMesh(shape)\n",
        # A device chosen by the caller, the tensor's own device, the module's device.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, other):\n"
        "        return x.to(self.device) + other.to(x.device)\n",
        # "cpu" is portable, an f-string is computed per rank.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x, rank):\n"
        '        return x.to("cpu"), x.to(f"cuda:{rank}")\n',
        # Device selection in a script is the user's explicit choice.
        "import torch\n\n"
        'if __name__ == "__main__":\n'
        '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
        '    x = torch.zeros(3).to("cuda")\n',
        # Chosen by which devices exist, where there is no `.device` to ask instead: a
        # plain module's `__init__`, and the device a sampler keeps.
        "import torch\nfrom torch import nn\n\n"
        "class Filter(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "        self.kernel = make_kernel(device)\n",
        "import torch\n\nclass Sampler:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n",
        # Arguments whose `device` reports the device this method chooses.
        "import torch\nfrom functools import cached_property\n\n"
        "class Arguments:\n"
        "    @property\n"
        "    def device(self):\n"
        "        return self._setup_devices\n\n"
        "    @cached_property\n"
        "    def _setup_devices(self):\n"
        "        device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')\n"
        "        return device\n",
        # An explicit, checked choice inside model code.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        if torch.cuda.is_available():\n"
        '            x = x.to("cuda")\n'
        "        return x\n",
        # A class that is not model code, nor holds a device or a model (a name is no model).
        'import torch\n\nclass Loader:\n    def load(self, x):\n        return x.to("cuda")\n',
        "import torch\n\nclass Card:\n"
        "    def __init__(self, name):\n        self.model_name = name\n\n"
        '    def load(self, x):\n        return x.to("cuda")\n',
        # A trainer choosing the device it keeps, then following it.
        "import torch\n\nclass Trainer:\n"
        "    def __init__(self, model):\n"
        '        self.device = torch.device("cuda")\n'
        "        self.model = model.to(self.device)\n\n"
        "    def step(self, batch):\n        return self.model(batch.to(self.device))\n",
        # A function that translates the device it is told.
        "import torch\n\n"
        "def parse(device: str):\n"
        '    if device == "gpu":\n        return torch.device("cuda")\n'
        "    return torch.device(device)\n",
        # A function told its device, filling in a default.
        "import torch\n\n"
        "def grid(n, device=None):\n"
        '    device = device if device is not None else "cuda"\n'
        "    return torch.arange(n).to(device)\n",
        # Asking about devices is not placing tensors; "meta" is lazy initialisation.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        '        self.lazy = torch.device("meta")\n'
        "        if not torch.cuda.is_available():\n"
        "            return\n"
        '        self.props = torch.cuda.get_device_properties(torch.device("cuda"))\n\n'
        "    def forward(self, x):\n"
        '        if x.device == torch.device("mps"):\n'
        "            x = x.float()\n"
        '        if x.device.type == "mps":\n'
        '            x = x.to("cpu").exp().to("mps")\n'
        '        if x.device.type == torch.device("cuda").type:\n'
        "            x = x.half()\n"
        "        return x\n",
        # A helper whose job is to choose the device its inputs are on, through a name set
        # from a test of where they are (INVALID: a test of something else).
        "from typing import Sequence\n\nimport torch\nfrom torch import Tensor\n\n"
        "def device_of(values: Sequence[Tensor]) -> torch.device:\n"
        "    def _on_gpu(value: Tensor) -> bool:\n"
        '        return value.device == torch.device("cuda")\n\n'
        "    on_gpu = any(_on_gpu(value) for value in values)\n"
        '    return torch.device("cuda") if on_gpu else torch.device("cpu")\n\n'
        "class Fixed(torch.nn.Module):\n"
        "    def __init__(self, values):\n"
        "        super().__init__()\n"
        '        self.register_buffer("values", torch.stack(values).to(device_of(values)))\n',
        # A device parameter with a default that callers override.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        '    def forward(self, x, device="cuda"):\n'
        "        return x.to(device)\n",
        # A parameter default is the caller's to override; an index chosen per rank.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        '    def forward(self, x, device=torch.device("cuda"), rank=0):\n'
        '        return x.to(device) + x.to(torch.device("cuda", rank))\n',
        # The module's own `cuda`: choosing the device is its job.
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def cuda(self, device=None):\n"
        '        self.table = self.table.to("cuda")\n'
        "        return super().cuda(device)\n",
        # A default filled in for a device parameter the caller did not give.
        "import torch\nimport torch.nn as nn\n\n"
        "class Vocoder(nn.Module):\n"
        "    def infer(self, x, device=None):\n"
        "        if device is None:\n"
        '            device = torch.device("cuda")\n'
        "        return self(x.to(device))\n",
        "import torch\n\n"
        "def sweep(n, device=None):\n"
        '    device = device or torch.device("cuda")\n'
        "    return torch.zeros(n, device=device)\n\n"
        "def grid(n, device=None):\n"
        '    device = torch.device("cuda") if device is None else device\n'
        "    return torch.arange(n, device=device)\n",
        # A state object choosing its default device by what exists (helpers and flags).
        "import torch\nfrom acc.utils import is_npu_available\n\nclass State:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def default_device(self):\n"
        "        if is_npu_available():\n"
        '            return torch.device("npu")\n'
        '        return torch.device("cpu")\n',
        # A trainer choosing the device it keeps, under another attribute name.
        "import torch\n\nclass Trainer:\n"
        "    def __init__(self, model, parallel):\n"
        "        self.model = model\n"
        "        if parallel:\n"
        '            self.current_device = torch.device("cuda:0")\n',
        # A sampler keeping its default device: its choice.
        "import torch\n\nclass Sampler:\n"
        '    def __init__(self, steps, device="cuda"):\n        self.device = device\n',
        # A "cuda" default that only a script relies on (its choice), or that every caller
        # overrides (by position, by keyword, or perhaps through **kwargs).
        "import torch\n\n"
        'def grid(n, device="cuda"):\n'
        "    return torch.arange(n, device=device)\n\n"
        "def main():\n"
        "    return grid(4)\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n",
        "import torch\n\n"
        'def grid(n, device="cuda"):\n'
        "    return torch.arange(n, device=device)\n\n"
        "def draw(n, device, **options):\n"
        "    return grid(n, device), grid(n, device=device), grid(n, **options)\n",
        # Built only by a launcher that made the process's GPU current: its GPU.
        "import torch\nfrom torch import nn\n\n"
        "class Decoder(nn.Module):\n"
        "    def generate(self, tokens: list):\n"
        '        return torch.tensor(tokens, device="cuda")\n\n'
        "def build(local_rank):\n"
        "    torch.cuda.set_device(local_rank)\n"
        "    return Decoder()\n",
        # A "cuda" default relied on by one rank's code (it runs collectives) in a project
        # whose set-up makes each rank's GPU current: the current GPU is the rank's.
        "import pickle\n\nimport torch\nimport torch.distributed as dist\n\n"
        "def setup(local_rank):\n"
        "    torch.cuda.set_device(local_rank)\n\n"
        'def to_tensor(obj, device="cuda"):\n'
        "    return torch.ByteTensor(list(pickle.dumps(obj))).to(device=device)\n\n"
        "def broadcast_keys(keys):\n"
        "    keys_tensor = to_tensor(keys)\n"
        "    dist.broadcast(keys_tensor, src=0)\n"
        "    return keys_tensor\n",
        # A class that is no model keeping the device a helper chooses when it is given
        # none: the helper's default index is that class's choice, as a literal it stored.
        "import torch\n\n"
        "def choose_device(use_gpu=False, device=0):\n"
        "    if use_gpu:\n"
        '        return torch.device(f"cuda:{device}")\n'
        '    return torch.device("cpu")\n\n'
        "class Segmenter:\n"
        "    def __init__(self, use_gpu=False, device=None):\n"
        "        self.device = choose_device(use_gpu) if device is None else device\n",
        # A utility whose job is to move its input; a legacy constructor in a script.
        "import torch\n\n"
        'def to_gpu(x: torch.Tensor):\n    return x.to("cuda", non_blocking=True)\n',
        'import torch\n\nif __name__ == "__main__":\n    print(torch.cuda.FloatTensor(3))\n',
        # Unannotated parameters used as NumPy arrays or lists tell no device (INVALID:
        # one used as a tensor).
        "import torch\n\n"
        "def boxes_iou(boxes_a, boxes_b):\n"
        "    iou = torch.cuda.FloatTensor(boxes_a.shape[0], boxes_b.shape[0])\n"
        "    return pairwise(boxes_a.copy(), sorted(boxes_b), iou)\n",
        # The user's device flag chose the GPU (the index is whatever the set-up made current).
        "import torch\nimport torch.nn as nn\n\n"
        "class Vocoder(nn.Module):\n"
        "    def load(self, path, use_gpu):\n"
        '        model = torch.load(path, map_location="cpu")\n'
        "        if use_gpu:\n"
        '            model = model.to("cuda")\n'
        "        return model\n",
        # Communication buffers: NCCL needs the current device, which the set-up chose.
        "import pickle\nimport torch\nimport torch.distributed as dist\n\nclass Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def share(self, obj):\n"
        '        size = torch.empty(1, device="cuda", dtype=torch.long)\n'
        "        dist.broadcast(size, src=0)\n"
        '        buffer = torch.empty(int(size.item()), device="cuda", dtype=torch.uint8)\n'
        "        dist.broadcast(buffer, src=0)\n"
        "        return pickle.loads(buffer.cpu().numpy().tobytes())\n",
        "import torch\nimport torch.distributed as dist\n\n"
        "def broadcast_object(obj, model: torch.nn.Module, group):\n"
        '    if dist.get_backend(group) == "nccl":\n'
        '        device = torch.device("cuda")\n'
        "    else:\n"
        '        device = torch.device("cpu")\n'
        "    return send(obj, group, device)\n",
        # An ONNX session's wrapper reports its device; meta tensors materialised.
        "import torch\nfrom torch import nn\n\nclass Session:\n"
        "    def __init__(self, model: nn.Module, session):\n"
        "        self.model = model\n        self.session = session\n\n"
        "    @property\n"
        "    def device(self):\n"
        '        if "CUDAExecutionProvider" in self.session.get_providers():\n'
        '            return torch.device("cuda")\n'
        '        return torch.device("cpu")\n',
        "from torch import nn\n\n"
        "def materialise(module: nn.Module):\n"
        '    module.to_empty(device="cuda", recurse=False)\n'
        "    module.reset_parameters()\n",
        # A module keeps its default device but never places a tensor with it.
        "import torch\nfrom torch import nn\n\nclass Wrapper(nn.Module):\n"
        '    def __init__(self, model, device="cuda"):\n'
        "        super().__init__()\n"
        "        self.model = model\n        self.device = device\n\n"
        "    def forward(self, x):\n        return self.model(x)\n",
        # A default only compared (a device type), in a function the project calls.
        "import torch\n\n"
        'def make_grid(n, device="cuda"):\n'
        '    if device == "cuda":\n'
        "        torch.backends.cudnn.benchmark = True\n"
        "    return torch.zeros(n)\n\n"
        "def run():\n    return make_grid(3)\n",
        # A helper translating the device it is told (any `*_device`/`device_*` name).
        "import torch\nfrom torch import nn\n\nclass Head(nn.Module):\n"
        "    def forward(self, x, device_str: str):\n"
        '        if device_str == "mps":\n'
        '            return x.to(torch.device("mps"))\n'
        "        return x\n",
        # The class's own move to a device type, and a branch on an availability helper.
        "import torch\nfrom torch import nn\n\nclass Bridge(nn.Module):\n"
        "    def mps(self):\n"
        '        return self.to(torch.device("mps"))\n\n'
        "    def forward(self, x):\n"
        "        if _has_mps():\n"
        '            return x.to(torch.device("mps", 0))\n'
        "        return x\n",
        # A literal device that places nothing: a name only compared, tensors made to ask
        # whether the device works (a yes/no function, its default too), a callback a
        # library calls where it runs, a record's label, a helper's answer that no caller
        # places with (INVALID: one keeps it as its device).
        "import torch\nfrom torch import nn\n\n"
        "def attach_hooks(model: nn.Module):\n"
        "    devices = {p.device for p in model.parameters()}\n"
        '    default = torch.device("cuda", 0)\n'
        "    if devices == {default}:\n"
        "        return\n"
        "    dispatch(model)\n",
        "import torch\nfrom torch import nn\n\n"
        "def xpu_works(model: nn.Module):\n"
        '    x = torch.rand(8, device="xpu:0")\n'
        "    try:\n"
        "        model(x)\n"
        "        return True\n"
        "    except RuntimeError:\n"
        "        return False\n\n"
        'def int8_is_fast(model: nn.Module, device="mps") -> bool:\n'
        "    return time(model.to(device)) < 1.0\n\n"
        "def quantize(model: nn.Module):\n"
        "    return int8_is_fast(model)\n",
        "import torch\nimport triton\n\n"
        "def launch(x: torch.Tensor):\n"
        "    def alloc(size: int, alignment: int, stream):\n"
        '        return torch.empty(size, device="cuda", dtype=torch.int8)\n\n'
        "    triton.set_allocator(alloc)\n"
        "    return kernel(x)\n",
        "from dataclasses import dataclass\n\nimport torch\n\n"
        "@dataclass\n"
        "class Target:\n"
        "    device: str\n"
        "    dtype: torch.dtype\n\n"
        "def cuda_target(model: torch.nn.Module) -> Target:\n"
        '    return Target(device="cuda", dtype=torch.float16)\n',
        "import torch\n\n"
        "def engine_device(model: torch.nn.Module):\n"
        '    return torch.device("cuda", 0)\n\n'
        "def engine_is_new(model: torch.nn.Module):\n"
        "    return torch.cuda.get_device_capability(engine_device(model))[0] >= 8\n",
        # Any backend's query, not only CUDA's.
        "import torch\nfrom torch import nn\n\n"
        "def xpu_name(model: nn.Module):\n"
        '    return torch.xpu.get_device_properties(torch.device("xpu")).name\n',
        # A module's "cuda" default that every constructor in the project overrides.
        "import torch\nfrom torch import nn\n\nclass Embedder(nn.Module):\n"
        '    def __init__(self, width, device="cuda"):\n'
        "        super().__init__()\n        self.device = device\n\n"
        "    def forward(self, tokens):\n        return tokens.to(self.device)\n\n"
        "def build(width, device):\n    return Embedder(width, device=device)\n",
        # A class that keeps a CUDA stream of the current GPU works there: "cuda" is its
        # device (INVALID: a stream of the device it was told).
        "import torch\nfrom torch import nn\n\nclass Prefetcher(nn.Module):\n"
        "    def __init__(self, rows):\n"
        "        super().__init__()\n"
        "        self.rows = rows\n"
        "        self.stream = torch.cuda.current_stream()\n\n"
        "    def slots(self, n):\n"
        '        return torch.full((n,), -1, device="cuda")\n',
        # Under the flag the trainer chose its device with: "cuda" is the device it keeps.
        "import torch\n\n\nclass Trainer:\n"
        "    def __init__(self, model, cfg):\n"
        "        self.model = model\n"
        "        self.cuda = torch.cuda.is_available() and not cfg.cpu\n"
        "        if self.cuda:\n"
        '            self.device = torch.device("cuda")\n'
        "        elif cfg.tpu:\n"
        "            self.device = tpu_device()\n"
        "        else:\n"
        '            self.device = torch.device("cpu")\n'
        "        self.last_device = None  # another device it knows: a pipeline's last stage\n"
        "        if self.cuda and cfg.pipeline:\n"
        "            self.last_device = torch.device(cfg.pipeline_devices[-1])\n"
        "        if self.cuda and cfg.world_size > 1:\n"
        '            self.norms = torch.zeros(cfg.world_size, device="cuda")\n',
        # The device the class keeps is the local rank's GPU, which the process made current:
        # `"cuda"` names it too (INVALID: no `set_device`, the current GPU is GPU 0).
        "import torch\n"
        "\n"
        "\n"
        "class Sampler:\n"
        "    def __init__(self, model, local_rank):\n"
        "        torch.cuda.set_device(local_rank)\n"
        '        self.device = torch.device(f"cuda:{local_rank}")\n'
        "        self.model = model.to(self.device)\n"
        "\n"
        "    def sample(self, n):\n"
        '        return self.model(torch.randn(n, 4, device="cuda"))\n',
        # The device the class keeps is `"cuda"` itself (INVALID: a caller may tell another).
        "import torch\n"
        "\n"
        "\n"
        "class Runner:\n"
        "    def __init__(self, model):\n"
        '        device = "cuda"\n'
        "        self.device = device\n"
        "        self.model = model.to(device)\n"
        "\n"
        "    def warmup(self):\n"
        '        return self.model(torch.zeros(1, 8, device="cuda"))\n',
        # Code bound to one backend by the operators it calls (Gaudi's `torch.ops.hpu`, in a
        # function or a module-level lambda): it runs on HPU only, and `"hpu"` is the device
        # its set-up made current; the weights come in on the CPU and moving them is the job.
        "import torch\nfrom torch import nn\n\n"
        "class HPUWeightOnlyLinear(nn.Module):\n"
        "    def pack(self, qweight, scales):\n"
        '        self.qweight = qweight.cpu().to("hpu")\n'
        '        self.scales = scales.to("hpu")\n\n'
        "    def forward(self, x):\n"
        "        weight = torch.ops.hpu.convert_from_uint4(self.qweight, self.scales, x.dtype)\n"
        "        return x @ weight\n",
        "import torch\nfrom torch import nn\n\n"
        "cast = lambda x, scale: torch.ops.hpu.cast_to_fp8_v2(x, scale)[0]\n\n"
        "class Fp8Linear(nn.Module):\n"
        "    def pack(self, weight, scale):\n"
        '        self.weight = cast(weight.to("hpu"), scale)\n',
        # Gaudi code (a function importing its library) fusing gradients into one buffer:
        # each process sees one HPU, `"hpu:0"`, its own.
        "import torch\n\n"
        "def all_reduce_gradients(model: torch.nn.Module):\n"
        "    import habana_frameworks.torch as ht\n\n"
        '    buffer = torch.zeros(8, device="hpu:0")\n'
        "    ht.hpu.synchronize()\n"
        "    return buffer\n",
        # A decorator's `device=` is a registration key read when the class is defined: it
        # places no tensor (a `device="npu"` inside the class's methods would).
        "import torch\nfrom torch import nn\nfrom engines import registry\n\n"
        '@registry.register(backend="megatron", device="npu")\n'
        "class Engine(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 2\n",
        # Under `with torch.cuda.device(weight.device):` the current GPU is the weight's, so
        # `"cuda"` names it (INVALID: a switch to GPU 0 written into the code).
        "import torch\nfrom torch import nn\n\n"
        "class QuantLinear(nn.Module):\n"
        "    def forward(self, x):\n"
        "        with torch.cuda.device(self.weight.device):\n"
        '            out = torch.empty(x.shape[0], 8, device="cuda")\n'
        "            kernel(x, self.weight, out)\n"
        "        return out\n",
        # A module that compiles a CUDA extension when imported, or imports a compiled one:
        # its kernels run on the current GPU, so the buffers they fill are made there.
        "import os\nimport torch\nfrom torch import nn\n"
        "from torch.utils.cpp_extension import load\n\n"
        "here = os.path.dirname(__file__)\n"
        "render_cuda = load(\n"
        '    name="render_cuda",\n'
        '    sources=[os.path.join(here, name) for name in ["render.cpp", "render_kernel.cu"]],\n'
        ")\n\n"
        "class Renderer(nn.Module):\n"
        "    def forward(self, rays):\n"
        '        mask = torch.ones(rays.shape[0], dtype=torch.bool, device="cuda")\n'
        "        return render_cuda.render(rays, mask)\n",
        "import pointnet2_cuda\nimport torch\nfrom torch.autograd import Function\n\n"
        "class FurthestPointSampling(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, xyz: torch.Tensor, npoint: int) -> torch.Tensor:\n"
        '        idx = torch.zeros(xyz.shape[0], npoint, dtype=torch.int32, device="cuda")\n'
        "        pointnet2_cuda.furthest_point_sampling(xyz, npoint, idx)\n"
        "        return idx\n",
        # A module that imports a library of CUDA-only kernels whenever it is imported runs
        # on the current GPU only, where those kernels do.
        "import torch\nfrom flashinfer import BatchDecodeWithPagedKVCacheWrapper\n\n"
        "class DecodeBackend:\n"
        "    def __init__(self, runner):\n"
        "        self.device = runner.device\n"
        "        self.wrapper = BatchDecodeWithPagedKVCacheWrapper(runner.workspace)\n\n"
        "    def init_graph_state(self, max_tokens):\n"
        '        self.kv_indices = torch.zeros(max_tokens, dtype=torch.int32, device="cuda")\n',
    )
    INVALID = (
        Invalid(
            # A test that the tensor is not there yet only skips a no-op: the sampler, which
            # holds a model, imposes "cuda" on every tensor it keeps.
            "import torch\n\n\n"
            "class Sampler:\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n\n"
            "    def keep(self, name, attr):\n"
            '        if attr.device != torch.device("cuda"):\n'
            '            attr = attr.to(torch.device("cuda"))\n'
            "        setattr(self, name, attr)\n",
            line=10,
            column=28,
        ),
        Invalid(
            # The kernel library's look-alike (VALID) with a fallback: the module runs
            # without it too (SDPA), on any device, and `"cuda"` is hard-coded there.
            "import torch\n\ntry:\n    from flash_attn import flash_attn_func\n"
            "except ImportError:\n    flash_attn_func = None\n\n"
            "class Attention(torch.nn.Module):\n"
            "    def forward(self, q, k, v):\n"
            '        scale = torch.ones(q.shape[-1], device="cuda")\n'
            "        if flash_attn_func is None:\n"
            "            return torch.nn.functional.scaled_dot_product_attention(q * scale, k, v)\n"
            "        return flash_attn_func(q * scale, k, v)\n",
            line=10,
            column=48,
        ),
        Invalid(
            # The Gaudi lambda's look-alike (VALID) with a literal of another backend: the
            # module runs on HPU, and `"cuda"` is no device of its.
            "import torch\nfrom torch import nn\n\n"
            "cast = lambda x, scale: torch.ops.hpu.cast_to_fp8_v2(x, scale)[0]\n\n"
            "class Fp8Linear(nn.Module):\n"
            "    def pack(self, weight, scale):\n"
            '        self.weight = cast(weight.to("cuda"), scale)\n',
            line=8,
            column=38,
        ),
        Invalid(
            # In code bound to HPU, an index pins every process to one HPU: not the device
            # the set-up made current.
            "import torch\nfrom torch import nn\n\n"
            "cast = lambda x, scale: torch.ops.hpu.cast_to_fp8_v2(x, scale)[0]\n\n"
            "class Fp8Linear(nn.Module):\n"
            "    def pack(self, weight, scale):\n"
            '        self.weight = cast(weight.to("hpu:1"), scale)\n',
            line=8,
            column=38,
        ),
        Invalid(
            # The trainer's look-alike (VALID) under another flag than the one it chose its
            # device with: the device it keeps may be the CPU there.
            "import torch\n\n\nclass Trainer:\n"
            "    def __init__(self, model, cfg):\n"
            "        self.model = model\n"
            "        self.cuda = torch.cuda.is_available() and not cfg.cpu\n"
            "        if self.cuda:\n"
            '            self.device = torch.device("cuda")\n'
            "        else:\n"
            '            self.device = torch.device("cpu")\n'
            "        if cfg.use_gpu_norms:\n"
            '            self.norms = torch.zeros(cfg.world_size, device="cuda")\n',
            line=13,
            column=61,
        ),
        Invalid(
            # The stream prefetcher's look-alike (VALID) on a stream of the device it was told.
            "import torch\nfrom torch import nn\n\nclass Prefetcher(nn.Module):\n"
            "    def __init__(self, rows, device):\n"
            "        super().__init__()\n"
            "        self.rows = rows\n"
            "        self.stream = torch.cuda.current_stream(device)\n\n"
            "    def slots(self, n):\n"
            '        return torch.full((n,), -1, device="cuda")\n',
            line=11,
            column=44,
        ),
        Invalid(
            "from typing import Sequence\n\nimport torch\nfrom torch import Tensor\n\n"
            "def device_of(values: Sequence[Tensor]) -> torch.device:\n"
            "    many = len(values) > 2\n"
            '    return torch.device("cuda") if many else torch.device("cpu")\n\n'
            "class Fixed(torch.nn.Module):\n"
            "    def __init__(self, values):\n"
            "        super().__init__()\n"
            '        self.register_buffer("values", torch.stack(values).to(device_of(values)))\n',
            line=8,
            column=12,
        ),
        Invalid(
            # A function handed to `checkpoint` runs with the caller's tensors, not where a
            # library that keeps it as an allocator works.
            "import torch\nfrom torch import nn\nfrom torch.utils.checkpoint import checkpoint\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        def custom_forward(h):\n"
            '            return h * torch.ones(4, device="cuda")\n\n'
            "        return checkpoint(custom_forward, x)\n",
            line=8,
            column=45,
            fixed="import torch\nfrom torch import nn\n"
            "from torch.utils.checkpoint import checkpoint\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        def custom_forward(h):\n"
            "            return h * torch.ones(4, device=x.device)\n\n"
            "        return checkpoint(custom_forward, x)\n",
            unsafe=True,
        ),
        Invalid(
            # A yes/no method that moves its model in place places it: no probe.
            "import torch\nfrom torch import nn\n\n"
            "class Loader(nn.Module):\n"
            "    def __init__(self, model):\n"
            "        super().__init__()\n"
            "        self.model = model\n\n"
            "    def load(self) -> bool:\n"
            '        self.model.to("cuda")\n'
            "        return True\n",
            line=10,
            column=23,
        ),
        Invalid(
            # A module's stored `self.device` goes stale once `.to()` moves it: no fix.
            "import torch.nn as nn\n\nclass M(nn.Module):\n"
            '    def __init__(self, device="cpu"):\n'
            "        super().__init__()\n        self.device = device\n\n"
            "    def forward(self, x):\n"
            '        return x.to("cuda")\n',
            line=9,
            column=21,
        ),
        Invalid(
            # A sampler that stores its model and device, then ignores the device.
            "import torch\n\nclass Sampler:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n        self.device = device\n\n"
            "    def sample(self, n):\n"
            '        return self.model(torch.randn(n).to("cuda"))\n',
            line=9,
            column=45,
            fixed="import torch\n\nclass Sampler:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n        self.device = device\n\n"
            "    def sample(self, n):\n"
            "        return self.model(torch.randn(n).to(self.device))\n",
        ),
        Invalid(
            # A pipeline holding a model: no `.device` of its own, no fix.
            "import torch\n\nclass Pipeline:\n"
            "    def __init__(self, model):\n        self.model = model\n\n"
            "    def __call__(self, images):\n"
            '        return self.model(images.to("cuda:0"))\n',
            line=8,
            column=37,
        ),
        Invalid(
            # A function told its device that ignores it.
            'import torch\n\ndef grid(n, device):\n    return torch.arange(n, device="cuda")\n',
            line=4,
            column=35,
            fixed="import torch\n\n"
            "def grid(n, device):\n"
            "    return torch.arange(n, device=device)\n",
            unsafe=True,
        ),
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            '        return x.to("cuda:1")\n',
            line=5,
            column=21,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device)\n",
        ),
        Invalid(
            "import torch\nfrom lightning import LightningModule as LM\n\n"
            "class M(LM):\n"
            "    def training_step(self, batch, batch_idx):\n"
            '        return torch.ones(3, device="cuda") + batch\n',
            line=6,
            column=37,
            fixed="import torch\nfrom lightning import LightningModule as LM\n\n"
            "class M(LM):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return torch.ones(3, device=self.device) + batch\n",
        ),
        Invalid(
            "import torch\nimport lightning.pytorch as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            '        return x.to(torch.device("cuda"))\n',
            line=6,
            column=21,
            fixed="import torch\nimport lightning.pytorch as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device)\n",
        ),
        Invalid(
            # An `__init__` told its device: use it (`self.device` may not be set yet).
            "import torch\n\n"
            "class Pool:\n"
            "    def __init__(self, size, device):\n"
            "        self.cache = torch.zeros(size, device='cuda')\n"
            "        self.device = device\n",
            line=5,
            column=47,
            fixed="import torch\n\n"
            "class Pool:\n"
            "    def __init__(self, size, device):\n"
            "        self.cache = torch.zeros(size, device=device)\n"
            "        self.device = device\n",
            unsafe=True,
        ),
        Invalid(
            # The device the caller passes is thrown away, whoever the caller is.
            "import torch\n\n"
            "class Cache:\n"
            '    def __init__(self, execution_device=torch.device("cpu")):\n'
            '        execution_device = torch.device("cuda")\n'
            "        self.execution_device = execution_device\n",
            line=5,
            column=28,
        ),
        Invalid(
            # Wherever CUDA exists this picks the current GPU, not the one the model is on.
            "import torch\nfrom transformers import PreTrainedModel\n\n"
            "class Chat(PreTrainedModel):\n"
            "    def chat(self, tokens):\n"
            "        device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
            "        return self.generate(tokens.to(device))\n",
            line=6,
            column=18,
            fixed="import torch\nfrom transformers import PreTrainedModel\n\n"
            "class Chat(PreTrainedModel):\n"
            "    def chat(self, tokens):\n"
            "        device = self.device\n"
            "        return self.generate(tokens.to(device))\n",
        ),
        Invalid(
            # `stride()` and `element_size()` say `x` is a tensor: its buffers belong on its
            # device, not on the current GPU.
            "import torch\n\n"
            "def norm_fwd(x, weight):\n"
            "    assert x.stride(-1) == 1\n"
            "    y = torch.empty_like(x)\n"
            '    rstd = torch.empty((x.shape[0],), device="cuda")\n'
            "    kernel(x, weight, y, rstd, x.element_size())\n"
            "    return y, rstd\n",
            line=6,
            column=46,
            fixed="import torch\n\n"
            "def norm_fwd(x, weight):\n"
            "    assert x.stride(-1) == 1\n"
            "    y = torch.empty_like(x)\n"
            "    rstd = torch.empty((x.shape[0],), device=x.device)\n"
            "    kernel(x, weight, y, rstd, x.element_size())\n"
            "    return y, rstd\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x: torch.Tensor):\n"
            "        return x + torch.ones(3, device=0)\n",
            line=6,
            column=41,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x: torch.Tensor):\n"
            "        return x + torch.ones(3, device=x.device)\n",
            unsafe=True,
        ),
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("w", torch.ones(3, device="cuda"))\n',
            line=6,
            column=56,
        ),
        Invalid(
            # Borrowing x.device to move x would stop moving it: no fix.
            "import torch\nfrom torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            '        return x.float().to("cuda")\n',
            line=6,
            column=29,
        ),
        Invalid(
            # Inside `def device` itself, self.device would recurse forever: no fix.
            "import torch\nfrom torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    @property\n"
            "    def device(self):\n"
            '        return torch.device("cuda")\n',
            line=7,
            column=16,
        ),
        Invalid(
            # A guard on one tensor's device does not make the rest of the method a choice.
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            '        if x.device.type == "mps":\n'
            "            return self.fallback(x)\n"
            '        return x.to("cuda:1")\n',
            line=7,
            column=21,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            '        if x.device.type == "mps":\n'
            "            return self.fallback(x)\n"
            "        return x.to(self.device)\n",
        ),
        Invalid(
            # `torch.device` under another name.
            "from torch import device as torch_device\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            '        return x.to(torch_device("cuda:1"))\n',
            line=6,
            column=21,
            fixed="from torch import device as torch_device\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device)\n",
        ),
        Invalid(
            # Asking whether some accelerator exists does not make it CUDA.
            "import torch\n\nclass Optimizer:\n"
            "    def __init__(self, accelerator):\n"
            "        if not accelerator().is_available():\n"
            '            raise SystemError("no accelerator")\n'
            '        self.backup = torch.randn(1, device="cuda")\n'
            "        self.device = accelerator().current_device_name()\n",
            line=7,
            column=45,
        ),
        Invalid(
            # A module keeping a "cuda" default as its device: callers that rely on it are
            # pinned to the GPU. No fix: what to default to is the caller's contract.
            "import torch\nfrom torch import nn\n\nclass Embedder(nn.Module):\n"
            '    def __init__(self, width, device="cuda"):\n'
            "        super().__init__()\n        self.device = device\n\n"
            "    def forward(self, tokens):\n        return tokens.to(self.device)\n",
            line=5,
            column=38,
        ),
        Invalid(
            # A "cuda" default that library code relies on: its tensors go to the GPU
            # whatever device the caller works on. No fix: the call is where to pass it.
            "import torch\n\n"
            'def make_batch(values, device="cuda"):\n'
            "    return torch.tensor(values).to(device)\n\n"
            "def sample(model, values, device):\n"
            "    return model(make_batch(values))\n",
            line=3,
            column=31,
        ),
        Invalid(
            # A module keeping that device: callers that rely on it are pinned to GPU 0.
            "import torch\nfrom torch import nn\n\n"
            "def choose_device(use_gpu=False, device=0):\n"
            "    if use_gpu:\n"
            '        return torch.device(f"cuda:{device}")\n'
            '    return torch.device("cpu")\n\n'
            "class Denoiser(nn.Module):\n"
            "    def __init__(self, use_gpu=False):\n"
            "        super().__init__()\n"
            "        self.device = choose_device(use_gpu)\n",
            line=4,
            column=41,
        ),
        Invalid(
            # The same through a method of the object (inherited ones too).
            "import torch\n\n"
            "class Head:\n"
            '    def anchors(self, sizes, device: str = "cuda"):\n'
            "        return [torch.zeros(size, device=device) for size in sizes]\n\n"
            "class FreeHead(Head):\n"
            "    def loss(self, scores):\n"
            "        return self.anchors([s.shape[-1] for s in scores])\n",
            line=4,
            column=44,
        ),
        Invalid(
            # A legacy CUDA constructor in an autograd Function: the current GPU, not the
            # inputs'. No fix: sizes or data, and a dtype, are all in its arguments.
            "import torch\nfrom torch.autograd import Function\n\n"
            "class Gather(Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, features, indices):\n"
            "        return torch.cuda.FloatTensor(len(indices), 3)\n",
            line=7,
            column=16,
        ),
        Invalid(
            # No annotation, but `boxes_a.contiguous()` shows a tensor: its inputs tell the
            # utility its device, and the result goes to the current GPU.
            "import torch\n\n"
            "def boxes_iou(boxes_a, boxes_b):\n"
            "    iou = torch.cuda.FloatTensor(boxes_a.shape[0], boxes_b.shape[0])\n"
            "    return pairwise(boxes_a.contiguous(), boxes_b, iou)\n",
            line=4,
            column=11,
        ),
        Invalid(
            # A head told its inputs, moving one of them to a literal device.
            "import torch\n\nclass Head(Base):\n"
            "    def loss(self, feats: torch.Tensor, mask: torch.Tensor):\n"
            '        return feats[mask.to(torch.device("cuda"))]\n',
            line=5,
            column=30,
            fixed="import torch\n\nclass Head(Base):\n"
            "    def loss(self, feats: torch.Tensor, mask: torch.Tensor):\n"
            "        return feats[mask.to(feats.device)]\n",
            unsafe=True,
        ),
        Invalid(
            # A utility given the model allocates on a literal device.
            "import torch\nfrom torch import nn\n\n"
            "def load(model: nn.Module, state: dict):\n"
            "    for name in state:\n"
            '        state[name] = torch.empty(3, device="cuda")\n'
            "    model.load_state_dict(state)\n",
            line=6,
            column=45,
        ),
        Invalid(
            # A buffer for a collective, but on GPU 0 in every process.
            "import torch\nimport torch.distributed as dist\n\nclass Trainer:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n        self.model = model.to(device)\n\n"
            "    def average(self, values):\n"
            '        tensor = torch.tensor(values, device="cuda:0")\n'
            "        dist.all_reduce(tensor)\n"
            "        return tensor.tolist()\n",
            line=10,
            column=46,
            fixed="import torch\nimport torch.distributed as dist\n\nclass Trainer:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n        self.model = model.to(device)\n\n"
            "    def average(self, values):\n"
            "        tensor = torch.tensor(values, device=self.device)\n"
            "        dist.all_reduce(tensor)\n"
            "        return tensor.tolist()\n",
        ),
        Invalid(
            "from torch import nn\n\n"
            "def materialise(module: nn.Module):\n"
            '    module.to_empty(device="cuda:1", recurse=False)\n',
            line=4,
            column=28,
        ),
        Invalid(
            # Under the flag, but an index pins every process to that GPU.
            "import torch\nimport torch.nn as nn\n\n"
            "class Vocoder(nn.Module):\n"
            "    def load(self, path, use_gpu):\n"
            '        model = torch.load(path, map_location="cpu")\n'
            "        if use_gpu:\n"
            '            model = model.to("cuda:1")\n'
            "        return model\n",
            line=8,
            column=30,
        ),
        Invalid(
            # An input the function unpacks may be a tuple: it lends no .device, no fix.
            "import torch\n"
            "from torch import Tensor\n\n\n"
            "def stack_heads(features: Tensor, offsets):\n"
            "    first, second = features\n"
            '    return first + second + offsets.to("cuda")\n',
            line=7,
            column=40,
        ),
        Invalid(
            # A `device` property that returns nothing gives None: no `self.device` fix.
            "import torch\nimport torch.nn as nn\n\n\n"
            "class Pipe(nn.Module):\n"
            "    @property\n"
            "    def device(self):\n"
            "        next(self.parameters()).device\n\n"
            "    def forward(self, shape):\n"
            '        return torch.randn(shape, device="cuda")\n',
            line=11,
            column=42,
        ),
        Invalid(
            # Handed a process group, but told its device too.
            "import torch\nfrom torch.distributed import ProcessGroup\n\n"
            "def merge_shards(param: torch.Tensor, shards, pg: ProcessGroup, device):\n"
            '    buffer = torch.zeros_like(param, device="cuda")\n'
            "    for shard in shards:\n"
            "        buffer += shard\n"
            "    return buffer\n",
            line=5,
            column=45,
            fixed="import torch\nfrom torch.distributed import ProcessGroup\n\n"
            "def merge_shards(param: torch.Tensor, shards, pg: ProcessGroup, device):\n"
            "    buffer = torch.zeros_like(param, device=device)\n"
            "    for shard in shards:\n"
            "        buffer += shard\n"
            "    return buffer\n",
            unsafe=True,
        ),
        Invalid(
            # A module's "cuda" default that a constructor in the project relies on.
            "import torch\nfrom torch import nn\n\nclass Embedder(nn.Module):\n"
            '    def __init__(self, width, device="cuda"):\n'
            "        super().__init__()\n        self.device = device\n\n"
            "    def forward(self, tokens):\n        return tokens.to(self.device)\n\n"
            "def build(width, device):\n    return Embedder(width)\n",
            line=5,
            column=38,
        ),
        Invalid(
            # A field without an annotation is `__init__`'s first parameter all the same.
            "import attr\nimport torch\nfrom torch import nn\n\n"
            "@attr.s(eq=False)\nclass Embedding(nn.Module):\n"
            "    width = attr.ib()\n"
            '    device: torch.device = attr.ib(default=torch.device("cuda"))\n\n'
            "    def __attrs_post_init__(self):\n        super().__init__()\n"
            "        self.w = nn.Parameter(torch.empty(self.width, device=self.device))\n\n"
            "def build(width):\n    return Embedding(width)\n",
            line=8,
            column=44,
        ),
        Invalid(
            # A field default is the generated `__init__`'s: a constructor relies on it.
            "import attr\nimport torch\nfrom torch import nn\n\n"
            "@attr.s(eq=False)\nclass Embedding(nn.Module):\n"
            "    width: int = attr.ib()\n"
            '    device: torch.device = attr.ib(default=torch.device("cuda"))\n\n'
            "    def __attrs_post_init__(self):\n        super().__init__()\n"
            "        self.w = nn.Parameter(torch.empty(self.width, device=self.device))\n\n"
            "def build(width, device):\n    return Embedding(width)\n",
            line=8,
            column=44,
        ),
        Invalid(
            # Every direct constructor passes a device, but a subclass's relies on it.
            "import torch\nfrom torch import nn\n\nclass Embedder(nn.Module):\n"
            '    def __init__(self, width, device="cuda"):\n'
            "        super().__init__()\n        self.device = device\n\n"
            "    def forward(self, tokens):\n        return tokens.to(self.device)\n\n"
            "class Small(Embedder):\n    pass\n\n"
            "def build(width, device):\n"
            "    return Embedder(width, device=device), Small(width)\n",
            line=5,
            column=38,
        ),
        Invalid(
            # The type taken from a default is still the device when it places.
            "import torch\n\n"
            'def make_batch(values, device="cuda"):\n'
            '    kind = str(device).split(":")[0]\n'
            "    return torch.tensor(values).to(kind)\n\n"
            "def sample(values):\n"
            "    return make_batch(values)\n",
            line=3,
            column=31,
        ),
        Invalid(
            # A private attribute set from the default is followed to where the class places.
            "import torch\n\n"
            "class Streams:\n"
            '    def __init__(self, size, device="cuda"):\n'
            "        self._device = device\n\n"
            "    def buffer(self, n):\n"
            "        return torch.zeros(n, device=self._device)\n\n"
            "def build(size):\n"
            "    return Streams(size)\n",
            line=4,
            column=37,
        ),
        Invalid(
            # A helper's answer kept in a local (whose uses are not followed) may place.
            "import torch\n\n"
            "def engine_device(model: torch.nn.Module):\n"
            '    return torch.device("cuda", 0)\n\n'
            "def load(model: torch.nn.Module, path):\n"
            "    dev = engine_device(model)\n"
            "    return torch.load(path, map_location=dev)\n",
            line=4,
            column=12,
        ),
        Invalid(
            # `map_location=` places what `torch.load` loads.
            "import torch\n\n"
            "def engine_device(model: torch.nn.Module):\n"
            '    return torch.device("cuda", 0)\n\n'
            "def restore(model: torch.nn.Module, path):\n"
            "    return torch.load(path, map_location=engine_device(model))\n",
            line=4,
            column=12,
        ),
        Invalid(
            # A helper's answer that a caller keeps as its device places there.
            "import torch\n\n"
            "def engine_device(model: torch.nn.Module):\n"
            '    return torch.device("cuda")\n\n'
            "def warm(model: torch.nn.Module):\n"
            "    device = engine_device(model)\n"
            "    return torch.zeros(3, device=device)\n",
            line=4,
            column=12,
        ),
        Invalid(
            # `return device` would return None where the literal stood: no fix.
            "import torch\n\n"
            "def resolve(device=None, device_map=None):\n"
            "    candidates = []\n"
            "    if device is not None:\n"
            "        candidates.append(device)\n"
            "    if not candidates:\n"
            '        return torch.device("cuda")\n'
            "    return torch.device(candidates[0])\n\n"
            "def warm(shape, device=None):\n"
            "    return torch.zeros(shape, device=resolve(device))\n",
            line=8,
            column=16,
        ),
        Invalid(
            # The sampler's look-alike (VALID) in a project that never sets the current
            # device: the current GPU is GPU 0 on every rank, not the local rank's.
            "import torch\n"
            "\n"
            "\n"
            "class Sampler:\n"
            "    def __init__(self, model, local_rank):\n"
            '        self.device = torch.device(f"cuda:{local_rank}")\n'
            "        self.model = model.to(self.device)\n"
            "\n"
            "    def sample(self, n):\n"
            '        return self.model(torch.randn(n, 4, device="cuda"))\n',
            line=10,
            column=52,
            fixed="import torch\n"
            "\n"
            "\n"
            "class Sampler:\n"
            "    def __init__(self, model, local_rank):\n"
            '        self.device = torch.device(f"cuda:{local_rank}")\n'
            "        self.model = model.to(self.device)\n"
            "\n"
            "    def sample(self, n):\n"
            "        return self.model(torch.randn(n, 4, device=self.device))\n",
        ),
        Invalid(
            # The runner's look-alike (VALID) that a caller may tell another device, where
            # it moves its model.
            "import torch\n"
            "\n"
            "\n"
            "class Runner:\n"
            "    def __init__(self, model, device=None):\n"
            '        self.device = "cuda"\n'
            "        if device is not None:\n"
            "            self.device = device\n"
            "        self.model = model.to(self.device)\n"
            "\n"
            "    def warmup(self):\n"
            '        return self.model(torch.zeros(1, 8, device="cuda"))\n',
            line=12,
            column=52,
            fixed="import torch\n"
            "\n"
            "\n"
            "class Runner:\n"
            "    def __init__(self, model, device=None):\n"
            '        self.device = "cuda"\n'
            "        if device is not None:\n"
            "            self.device = device\n"
            "        self.model = model.to(self.device)\n"
            "\n"
            "    def warmup(self):\n"
            "        return self.model(torch.zeros(1, 8, device=self.device))\n",
        ),
        Invalid(
            # The quantised layer's look-alike (VALID) under a switch to a GPU the code names.
            "import torch\nfrom torch import nn\n\n"
            "class QuantLinear(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.cuda.device(0):\n"
            '            out = torch.empty(x.shape[0], 8, device="cuda")\n'
            "            kernel(x, self.weight, out)\n"
            "        return out\n",
            line=7,
            column=53,
            fixed="import torch\nfrom torch import nn\n\n"
            "class QuantLinear(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.cuda.device(0):\n"
            "            out = torch.empty(x.shape[0], 8, device=x.device)\n"
            "            kernel(x, self.weight, out)\n"
            "        return out\n",
            unsafe=True,
        ),
        Invalid(
            # The CUDA extension's look-alike (VALID) naming GPU 0: not the current GPU the
            # kernels run on.
            "import pointnet2_cuda\nimport torch\nfrom torch.autograd import Function\n\n"
            "class FurthestPointSampling(Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, xyz: torch.Tensor, n: int) -> torch.Tensor:\n"
            '        idx = torch.zeros(xyz.shape[0], n, dtype=torch.int32, device="cuda:0")\n'
            "        pointnet2_cuda.furthest_point_sampling(xyz, n, idx)\n"
            "        return idx\n",
            line=8,
            column=70,
            fixed="import pointnet2_cuda\nimport torch\nfrom torch.autograd import Function\n\n"
            "class FurthestPointSampling(Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, xyz: torch.Tensor, n: int) -> torch.Tensor:\n"
            "        idx = torch.zeros(xyz.shape[0], n, dtype=torch.int32, device=xyz.device)\n"
            "        pointnet2_cuda.furthest_point_sampling(xyz, n, idx)\n"
            "        return idx\n",
            unsafe=True,
        ),
        Invalid(
            # The compiled extension's look-alike (VALID) built from C++ sources alone: its
            # kernels run on the CPU, and `"cuda"` is still hard-coded.
            "import os\nimport torch\nfrom torch import nn\n"
            "from torch.utils.cpp_extension import load\n\n"
            "here = os.path.dirname(__file__)\n"
            'render_ops = load(name="render_ops", sources=[os.path.join(here, "render.cpp")])\n\n'
            "class Renderer(nn.Module):\n"
            "    def forward(self, rays):\n"
            '        mask = torch.ones(rays.shape[0], dtype=torch.bool, device="cuda")\n'
            "        return render_ops.render(rays, mask)\n",
            line=11,
            column=67,
        ),
        Invalid(
            # An optimizer works where its parameters are, which may be any GPU.
            "import torch\n\n\n"
            "class FusedNorm(torch.optim.Optimizer):\n"
            "    def step(self):\n"
            '        total = torch.zeros(1, device="cuda")\n'
            "        for group in self.param_groups:\n"
            '            for p in group["params"]:\n'
            "                total += p.grad.norm()\n"
            "        return total\n",
            line=6,
            column=39,
        ),
    )

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """A candidate is a literal device (``may_be_device_literal``): the first positional
        argument of ``.to(...)`` or of what may resolve (through every binding its name may
        have had) to ``torch.device``, or a ``device=`` keyword."""
        names = Bindings.of(found)
        if any(_may_place_on_literal(call, names) for call in found.of_type(ast.Call)):
            return True
        return any(_has_a_literal_device_default(f) for f in found.of_type(ast.FunctionDef))

    def parse_anyway(self, found: Skeleton) -> bool:
        """A function that may replace its device parameter with a literal device
        (``_overridden_parameter``) may be reported in any scope, whatever the index says."""
        names = Bindings.of(found)
        functions = found.of_type(ast.FunctionDef, ast.AsyncFunctionDef)
        overriding = any(_may_override_a_parameter(f, names) for f in functions)
        return overriding or super().parse_anyway(found)

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if isinstance(node, cst.Param):
            self._visit_default(node, context)
            return
        assert isinstance(node, cst.Call)
        if context.in_checked_branch:
            return
        if any(isinstance(ancestor, cst.Decorator) for ancestor in context.ancestors):
            return  # `@registry.register(device="npu")`: a key read at definition, no tensor
        name = context.qualified_name(node.func) or ""
        if name in _LEGACY_CUDA_CONSTRUCTORS:
            self._report(context, node, node.func, name, legacy=True)
            return
        if asks_a_backend(name):
            return  # a query such as torch.cuda.get_device_properties(0) places nothing
        if name == "torch.device":
            first = first_positional(node)
            found = _written_device(first.value) if first else None
            if (
                found is not None
                and not _is_query(context)
                and not _has_index(node)
                and not is_map_location(context.ancestors)
                and not _fills_in_a_default(node, context)
            ):
                self._report(context, node, node, *found)
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            first = first_positional(node)
            found = _written_device(first.value) if first else None
            if first is not None and found is not None:
                self._report(context, node, first.value, *found)
        keyword = keyword_argument(node, "device")
        found = _written_device(keyword.value) if keyword else None
        if keyword is not None and found is not None:
            self._report(context, node, keyword.value, *found, callee=name)

    def _visit_default(self, param: cst.Param, context: FileContext) -> None:
        """``def __init__(self, device="cuda"): self.device = device``: a default the module
        keeps and places tensors with, unless a caller passes another. Any other function's
        ``device="cuda"``: a finding where a caller relies on it (``resolve`` asks)."""
        default = param.default
        if default is None or param.name.value != "device":
            return
        literal = device_literal(default)
        if literal is None:
            return
        ancestors = context.ancestors
        if in_a_probe(ancestors):
            return  # `def probe_int8(module, device="mps") -> bool`: asks, places nothing
        function = ancestors[-2] if len(ancestors) > 1 else None  # not a lambda's
        if not isinstance(function, cst.FunctionDef):
            return
        scope = context.scope
        if scope.method == "__init__" and stores_its_device_parameter(function):
            classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
            if classdef is not None and places_with_its_device(classdef):
                position = _position(function, param, skip_first=True)
                data = {
                    "literal": literal,
                    "default": scope.function_name or "",
                    "position": str(position),
                }
                context.report(self.code, default, data=data)
            return  # kept and never placed with: the class only chooses (and reports) it
        name = scope.function_name or ""
        if name.rpartition(".")[2] != function.name.value:
            return  # a nested function's: no other code calls it by name
        owner = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
        indexed = not without_index(literal)
        if not places_with(
            param.name.value, function.body, owner if scope.method else None, indexed=indexed
        ):
            return  # `torch.autocast(device, ...)`, `device == "cuda"`: names, places nothing
        position = _position(function, param, skip_first=scope.method is not None)
        data = {"literal": literal, "relied_on": name, "position": str(position)}
        context.report(self.code, default, data=data)

    def _report(
        self,
        context: FileContext,
        call: cst.Call,
        node: cst.CSTNode,
        literal: str,
        available: bool = False,
        *,
        legacy: bool = False,
        callee: str = "",
    ) -> None:
        ancestors = context.ancestors
        position = record_device_field(node, ancestors, context.qualified_name)
        if position is not None and context.scope.class_name is not None:
            # `device: torch.device = attr.ib(default=torch.device("cuda"))`: `__init__`'s
            init = f"{context.scope.class_name}.__init__"
            data = {"literal": literal, "default": init, "position": str(position)}
            context.report(self.code, node, data=data)
            return
        overridden = (
            None if is_test_module(context.module_name) else _overridden_parameter(node, ancestors)
        )
        if overridden is not None:
            data = {"literal": literal, "overrides": overridden}
            context.report(self.code, node, data=data)
            return
        if under_a_test_of_the_device(ancestors):
            return  # `if device == "gpu": return torch.device("cuda")` translates it
        if only_compared(node, ancestors) or in_a_probe(ancestors) or in_a_callback(ancestors):
            return  # names, asks about or probes a device: places nothing that stays
        if without_index(literal) and under_a_device_switch(ancestors, context.qualified_name):
            return  # `with torch.cuda.device(weight.device):` made "cuda" the weight's GPU
        chosen = None
        tested: frozenset[str] = frozenset()
        if legacy or (without_index(literal) and not _has_any_index(call, node)):
            classes = class_choices(self, context)
            chosen = own_choice(call, context.ancestors, context.qualified_name, classes)
            tested = lists_known_not_empty([*context.ancestors, call])
        if legacy:  # no fix: sizes or data, and a dtype, all in one argument list
            data = {"literal": literal, "legacy": "1", "module": context.module_name}
            if chosen is not None:
                data["chosen"] = chosen
            if tested:
                data[TESTED_LISTS] = " ".join(sorted(tested))
            context.report(self.code, node, end=call, data=data)
            return
        fixes = {"self_device": (replace(node, "self.device"),)}
        function = outermost_function(context.ancestors)
        told = context.scope.device_param and device_anchor(function)
        if told and node is call and function is not None and may_be_none("device", function):
            told = False  # `torch.device("cuda")` is a device value: `device` may be None
        if told:
            fixes["device_param"] = (replace(node, "device"),)
        param = context.scope.tensor_param
        moved = _moved_variable(call, context)
        # x.to("cuda") -> x.to(x.device) would silently stop moving x: no such fix.
        if (
            param is not None
            and moved != param
            and function is not None
            and known_tensor(param, function)
        ):
            fixes["tensor_device"] = (replace(node, f"{param}.device"),)
        data = {"literal": literal, "module": context.module_name}
        if available:
            data["if_available"] = "yes"
        if context.scope.device_param and not told:
            data["device_index"] = "yes"  # `if device >= 0`: a CUDA index, -1 the CPU
        if chosen is not None:
            data["chosen"] = chosen
        if tested:
            data[TESTED_LISTS] = " ".join(sorted(tested))
        if callee and not callee.startswith("torch."):
            data["callee"] = callee  # perhaps a record's constructor: a label, not a placement
        if moves_its_input(moved, param, context.ancestors):
            data["moves_input"] = moved or ""
        if _stored_as_the_device(context):
            data["stored"] = "self.device"
        elif _returned_as_the_device(context):
            data["stored"] = "device property"
        elif (
            node is call
            and returned_as_is(call, ancestors)
            and innermost_function(ancestors) is function
        ):
            data["returned"] = context.scope.function_name or ""
        context.report(self.code, node, data=data, fixes=fixes)

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        overridden = candidate.data.get("overrides")
        if overridden is not None:
            return Resolution(
                f"Hard-coded device {candidate.data['literal']} replaces the `{overridden}` "
                "argument: whatever device a caller passes is ignored; delete the override"
            )
        if not self.in_scope(scope):
            return None
        if not scope.model_code and "stored" in candidate.data:
            return None  # a sampler or trainer choosing the device it keeps or reports: its job
        if "if_available" in candidate.data and not (
            scope.model_code and scope.device_aware and not scope.in_init
        ):
            return None  # `"cuda" if torch.cuda.is_available() else "cpu"`: a choice, but
            # a model that has a `.device` ignores the device it is on (not a class
            # choosing the device it reports: `TrainingArguments._setup_devices`)
        if moves_its_input_there(candidate, scope, index):
            return None  # `def to_gpu(x: Tensor): return x.to("cuda")`: what it is for
        if "callee" in candidate.data and index.is_record(candidate.data["callee"]):
            return None  # `Target(device="cuda", dtype=...)`: a record's label, read elsewhere
        returned = candidate.data.get("returned")
        if returned is not None and not (returned and index.callers_placing_with(returned)):
            return None  # which device a helper answers; no caller places with it
        literal = candidate.data["literal"]
        kind = "cuda" if "legacy" in candidate.data else _device_type(literal)
        current = "legacy" in candidate.data or names_the_current_device(literal)
        if current and kind in index.backends(candidate.scope):
            return None  # Megatron-LM or Gaudi code: one backend, its device made current
        if current and kind == "cuda" and index.runs_on_the_current_gpu_only(candidate.scope):
            return None  # the program offers no other device: every tensor is on that GPU
        if current and kind == "cuda" and on_the_gpu_the_program_offers(candidate, index):
            return None  # under the user's GPU switch, in a program offering no other GPU
        if current and kind == "cuda" and pinned_there(candidate, scope, index):
            return None  # its launcher made the process's GPU current, and offers no other
        if current and kind == "cuda" and on_the_first_chosen_gpu(candidate, scope, index):
            return None  # runs only when GPUs were chosen: the set-up made the first current
        if chose_the_device(candidate, scope, index):
            return None
        if "relied_on" in candidate.data:
            return _relied_on(candidate, literal, index)
        if "default" in candidate.data:
            if not scope.model_code:
                return None  # a sampler or trainer choosing the device it keeps: its job
            if _every_caller_passes_it(candidate, index):
                return None  # the project builds it only with a device of its own choosing
            return Resolution(
                f"Default device {literal} of a module that stores it as `self.device` and "
                "places tensors there: every caller that relies on it is pinned to the GPU "
                "(and a CPU run fails); default to `None` and follow the inputs"
            )
        if "legacy" in candidate.data:
            return Resolution(
                f"`{literal}(...)` makes the tensor on the current GPU "
                f"{where_the_device_is_known(scope)}; create it with `device=` (or `new_empty` "
                "on an input tensor)"
            )
        message = f"Hard-coded device {literal} {where_the_device_is_known(scope)}"
        if "if_available" in candidate.data:
            message = (
                f"Device {literal} whenever it exists, {where_the_device_is_known(scope)}: "
                "not where the object is"
            )
        if scope.in_init and scope.model_code:
            return Resolution(
                f"{message}: the module is still on the CPU here; let the trainer move it"
            )
        if scope.in_init and not candidate.scope.device_param:  # else: use it
            return Resolution(f"{message}: take it from the device or model it is given")
        if scope.device_aware and not scope.in_init:
            fix = choose_fix(candidate, "self_device", Applicability.SAFE, "Use `self.device`")
            return Resolution(f"{message}; use `self.device`", fix)
        if candidate.scope.device_param and "device_index" not in candidate.data:
            # Unsafe: a caller may pass None, or another device on purpose.
            message += "; use the function's `device` parameter"
            fix = choose_fix(candidate, "device_param", Applicability.UNSAFE, "Use `device`")
            return Resolution(message, fix)
        borrowed = borrowed_device_fix(candidate, "Use `{device}`")
        if borrowed is not None:
            param, fix = borrowed
            return Resolution(f"{message}; derive it from a tensor (`{param}.device`)", fix)
        return Resolution(f"{message}; derive it from an input tensor's `.device`")


def _relied_on(candidate: Candidate, literal: str, index: ProjectIndex) -> Resolution | None:
    """A ``device="cuda"`` default is a finding where project code calls the function
    without a device: that code's tensors go to the GPU whatever its own device is. Not
    where that code runs collectives in a project whose set-up makes each rank's GPU
    current (and no other type's device): one rank's code, whose GPU is the current one."""
    position = candidate.data["position"]
    callers = index.callers_leaving(
        candidate.data["relied_on"], "device", int(position) if position != "-1" else None
    )
    if index.current_device_types == {"cuda"}:  # its set-up makes each rank's GPU current
        callers = [caller for caller in callers if not index.runs_collectives(caller)]
    if not callers:
        return None
    shown = ", ".join(f"`{'.'.join(caller.split('.')[-2:])}`" for caller in callers[:3])
    more = f" and {len(callers) - 3} more" if len(callers) > 3 else ""
    verb = "relies" if len(callers) == 1 else "rely"
    return Resolution(
        f"Default device {literal} that {shown}{more} {verb} on, calling it without a "
        "device: the tensors go there whatever the caller's device is; pass the device at "
        "the call (and default to `None`)"
    )


def _every_caller_passes_it(candidate: Candidate, index: ProjectIndex) -> bool:
    """The project constructs the module (``default``: its ``__init__``), and every such
    call passes a device: no code of the project relies on the default. A module the
    project never constructs is its users' to build, and they rely on it; so may a
    subclass's (``Small(width)`` runs the same ``__init__``)."""
    init = candidate.data["default"]
    position = candidate.data["position"]
    cls = init.rpartition(".")[0]
    if not init or not index.callers(cls) or index.subclassed(cls):
        return False
    return not index.callers_leaving(init, "device", int(position) if position != "-1" else None)


def _position(function: cst.FunctionDef, param: cst.Param, *, skip_first: bool) -> int:
    """Where a call passes ``param`` by position (from 0, after a method's ``self``);
    -1 when only a keyword can."""
    params = function.params
    positional = [*params.posonly_params, *params.params]
    if param not in positional:
        return -1
    place = positional.index(param)
    static = any(dotted_name(d.decorator) == "staticmethod" for d in function.decorators)
    return place - 1 if skip_first and not static and place > 0 else place


def _has_a_literal_device_default(function: ast.AST) -> bool:
    """A parameter ``device`` whose default may be a literal device (``_visit_default``)."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
    return any(
        arg.arg == "device" and default is not None and may_be_device_literal(default)
        for arg, default in pairs
    )


def _written_device(node: cst.BaseExpression) -> tuple[str, bool] | None:
    """The literal device ``node`` writes, and whether it is the one the code picks where
    that device type exists (``"cuda" if torch.cuda.is_available() else "cpu"``)."""
    literal = device_literal(node)
    if literal is not None:
        return literal, False
    literal = device_if_available(node)
    return (literal, True) if literal is not None else None


def _may_override_a_parameter(function: ast.AST, names: Bindings) -> bool:
    """``_overridden_parameter`` may find a statement of ``function``'s body: a device
    parameter assigned what may be ``torch.device(<literal>)``."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    args = function.args
    params = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return any(
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id in params
        and names_the_device(statement.targets[0].id)
        and isinstance(statement.value, ast.Call)
        and names.may_be(statement.value.func, _TORCH_DEVICE)
        for statement in function.body
    )


def _may_be_written_device(node: ast.AST) -> bool:
    """``_written_device`` of the same expression could find a device."""
    return may_be_device_literal(node.body if isinstance(node, ast.IfExp) else node)


def _may_place_on_literal(call: ast.AST, names: Bindings) -> bool:
    assert isinstance(call, ast.Call)
    if any(k.arg == "device" and _may_be_written_device(k.value) for k in call.keywords):
        return True
    if names.may_be(call.func, _LEGACY_CUDA_CONSTRUCTORS):
        return True
    if not call.args or not _may_be_written_device(call.args[0]):
        return False
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "to") or names.may_be(
        func, _TORCH_DEVICE
    )


def _overridden_parameter(node: cst.CSTNode, ancestors: Sequence[cst.CSTNode]) -> str | None:
    """The device parameter that ``node``, all of an assignment's value, replaces whenever
    the function runs (``execution_device = torch.device("cuda")`` in its body, not under
    a test): what every caller passes is thrown away. None otherwise."""
    if len(ancestors) < 4:
        return None
    assign, line, body, function = ancestors[-1], ancestors[-2], ancestors[-3], ancestors[-4]
    if not (
        isinstance(assign, cst.Assign)
        and assign.value is node
        and len(assign.targets) == 1
        and isinstance(line, cst.SimpleStatementLine)
        and isinstance(body, cst.IndentedBlock)
        and isinstance(function, cst.FunctionDef)
    ):
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name) or target.value not in parameter_names(function):
        return None
    if not names_the_device(target.value) or _reads_name(node, target.value):
        return None  # `device = torch.device("cuda" if device == "gpu" else "cpu")` reads it
    earlier = body.body[: body.body.index(line)]
    if any(_may_leave(statement) for statement in earlier):
        return None  # `if device is not None: return x.to(device)` first: a default
    return target.value


def _reads_name(node: cst.CSTNode, name: str) -> bool:
    """``node`` reads the variable ``name`` somewhere inside."""
    if isinstance(node, cst.Name):
        return node.value == name
    return any(_reads_name(child, name) for child in node.children)


def _may_leave(node: cst.CSTNode) -> bool:
    """``node`` may leave its function (a ``return`` or ``raise`` in it, not in a nested
    function or class)."""
    if isinstance(node, (cst.Return, cst.Raise)):
        return True
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False
    return any(_may_leave(child) for child in node.children)


def _stored_as_the_device(context: FileContext) -> bool:
    """The literal is (part of) the value assigned to ``self.device`` (or another attribute
    that names the device the object keeps: ``self.current_device``, ``self._device``)."""
    for node in reversed(context.ancestors):
        if isinstance(node, cst.Assign):
            return any(_names_the_device(t.target) for t in node.targets)
        if isinstance(node, cst.AnnAssign):
            return _names_the_device(node.target)
        if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
            return False
    return False


def _returned_as_the_device(context: FileContext) -> bool:
    """The literal is (part of) what the class's ``device`` property returns: the device
    the object reports (an ONNX session's provider), which is that property's to choose."""
    function = next((n for n in context.ancestors if isinstance(n, cst.FunctionDef)), None)
    return (
        function is not None
        and function.name.value == "device"
        and any(dotted_name(d.decorator) == "property" for d in function.decorators)
        and any(isinstance(node, cst.Return) for node in context.ancestors)
    )


def _names_the_device(target: cst.BaseExpression) -> bool:
    attribute = attribute_of_self(target)
    return attribute is not None and names_the_device(attribute)


def _fills_in_a_default(call: cst.Call, context: FileContext) -> bool:
    """``call`` is what a name gets when it holds no device (``if device is None: device =
    torch.device("cuda")``, ``device = device or torch.device("cuda")``, ``device = device
    if device is not None else torch.device("cuda")``): the caller's to override."""
    ancestors = context.ancestors
    assign = next((n for n in reversed(ancestors) if isinstance(n, cst.Assign)), None)
    if assign is None or len(assign.targets) != 1:
        return False
    if not isinstance(assign.targets[0].target, cst.Name):
        return False
    target = assign.targets[0].target.value
    guard = next((n for n in reversed(ancestors) if isinstance(n, cst.If)), None)
    return _falls_back_to(assign.value, target, call) or (
        guard is not None and none_test(guard.test)[0] == target
    )


def _falls_back_to(value: cst.BaseExpression, name: str, call: cst.Call) -> bool:
    """``value`` is ``name or call``, or ``call`` where a test finds ``name`` None."""
    if isinstance(value, cst.BooleanOperation):
        return (
            isinstance(value.operator, cst.Or)
            and value.right is call
            and dotted_name(value.left) == name
        )
    if isinstance(value, cst.IfExp):
        none_in_body, none_in_orelse = none_test(value.test)
        return (none_in_body == name and value.body is call) or (
            none_in_orelse == name and value.orelse is call
        )
    return False


def _has_any_index(call: cst.Call, literal: cst.CSTNode) -> bool:
    """``torch.device("cuda", 0)``: the literal names a device type, and an index follows."""
    if literal is not call:
        return False
    positional = [arg for arg in call.args if arg.keyword is None]
    return len(positional) > 1 or keyword_argument(call, "index") is not None


def _has_index(call: cst.Call) -> bool:
    """``torch.device("cuda", local_rank)``: the index is chosen at run time, per rank."""
    positional = [arg for arg in call.args if arg.keyword is None]
    index = positional[1].value if len(positional) > 1 else None
    keyword = keyword_argument(call, "index")
    index = keyword.value if keyword is not None else index
    return index is not None and not isinstance(index, cst.Integer)


def _moved_variable(call: cst.Call, context: FileContext) -> str | None:
    """The variable a ``.to(...)`` around ``call`` (or ``call`` itself) moves.

    ``x`` in ``x[0].to("cuda")`` and in ``x.to(torch.device("cuda"))``.
    """
    for node in [*context.ancestors, call][::-1]:
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "to":
                return chain_root(func.value)
            if not (isinstance(func, (cst.Attribute, cst.Name))):
                return None
        elif isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
            return None
    return None


def _is_query(context: FileContext) -> bool:
    """``device == torch.device("mps")``, ``torch.device("cuda").type`` or
    ``torch.xpu.x(torch.device("xpu"))`` asks, not places."""
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.Attribute)):
        return True
    grandparent = ancestors[-2] if len(ancestors) > 1 else None
    if isinstance(parent, cst.Arg) and isinstance(grandparent, cst.Call):
        return asks_a_backend(context.qualified_name(grandparent.func) or "")
    return False


def _device_type(literal: str) -> str:
    """The device type a literal names as written: ``"hpu:0"`` -> hpu; a number is a CUDA
    index."""
    return "cuda" if literal.isdigit() else literal.strip("\"'").partition(":")[0]
