"""DEV002: ``.cuda()`` in model code."""

from __future__ import annotations

import ast

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import (
    attribute_of_self,
    chain_root,
    dotted_name,
    first_positional,
    keyword_argument,
    stateless_module,
)
from devlint.rules._anchors import device_anchor, known_tensor, leaves_the_host, outermost_function
from devlint.rules._chosen_device import (
    chose_the_device,
    class_choices,
    moves_its_input_there,
    on_the_gpu_the_program_offers,
    own_choice,
    pinned_there,
)
from devlint.rules._devices import (
    cuda_target_is_literal,
    in_a_callback,
    in_a_data_parallel_wrapper,
    in_a_probe,
    moves_its_input,
    moves_only_its_parts,
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
    PendingEdit,
    Rule,
    RuleSettings,
    borrowed_device_fix,
    choose_fix,
    delete_between,
    delete_lines,
    where_the_device_is_known,
)
from devlint.skeleton import Skeleton
from devlint.symbols import MODULE_ONLY_METHODS

_KEPT_KEYWORDS = ("non_blocking", "memory_format")
"""Arguments of ``.cuda()`` that ``.to()`` also takes."""


_PLACED_UNDER_ITS_FLAG = (
    "import torch\nimport torch.nn as nn\n\n\nclass Flow(nn.Module):\n"
    "    def __init__(self, conf):\n"
    "        super().__init__()\n"
    "        self.core = nn.Linear(4, 4)\n"
    '        self.dp = conf["use_gpu"]\n'
    "        if self.dp:\n"
    "            self.core = self.core.cuda()\n\n"
    "    def forward(self, x):\n"
    "        if self.dp:\n"
    "            x = x.cuda()\n"
    "        return self.core(x)\n\n\n"
)
"""A module that puts itself on the current GPU under the user's flag (kept as ``self.dp``,
read from a configuration's key), for the examples: VALID as built, INVALID when moved."""


_CHOSEN_GPUS = (
    "import torch\n\n\nclass Options:\n"
    "    def parse(self, opt):\n"
    "        if len(opt.gpu_ids) > 0:\n"
    "            torch.cuda.set_device(opt.gpu_ids[0])\n"
    "        return opt\n\n\n"
    "class Model(torch.nn.Module):\n"
    "    def __init__(self, opt):\n"
    "        super().__init__()\n"
    "        self.opt = opt\n"
    "        self.net = torch.nn.Conv2d(3, 3, 1)\n\n"
    "    def forward(self, data):\n"
    "        if len(self.opt.gpu_ids) > 0:\n"
)
"""A program's options parser that makes the first of the user's GPUs current, and a model
whose forward runs a statement only when that list is not empty, for the examples."""


class CudaCall(Rule):
    """## What it does
    Finds `.cuda()` and `.cuda(N)` calls in code that already knows its device: model
    code (as DEV001 defines it), classes that store a device or a model (samplers,
    trainers, pipelines; subclasses of transformers' `Trainer`) or whose `__init__` is
    told a device (a backend wrapper built with `device=`), optimizers (subclasses
    of `torch.optim.Optimizer`), functions told their
    device (a `device` parameter; the fix there, `.to(device)`, is unsafe), and the
    project functions all these call; also
    functions whose inputs tell them their device (a parameter annotated as a tensor or a
    module, or used as only a tensor is, `boxes.contiguous()`; the methods of autograd
    Functions; not tests), unless the call moves that
    very input (`def to_gpu(x: Tensor): return x.cuda()` is what it is for), also in a
    device context other than model code, not told a device, of a project whose own
    launcher makes each process's GPU current (`torch.cuda.set_device(local_rank)`, not in
    its tests) and that calls no other accelerator (`torch.backends.mps`, `torch.xpu`...):
    there the current GPU is the one the process works on.

    ## Why is this bad?
    `.cuda()` moves to the *current* CUDA device, which is GPU 0 in every process
    unless something called `torch.cuda.set_device`. Under DDP the second rank's
    tensors end up on GPU 0 next to weights on GPU 1; on a CPU-only machine or a
    Mac the call fails outright. In `__init__` of a LightningModule it is also
    pointless: the trainer moves the whole module to the right device.

    ## Example
    ```python
    class Model(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder().cuda()

        def forward(self, x):
            return self.encoder(x.cuda())
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()

        def forward(self, x):
            return self.encoder(x.to(self.device))
    ```

    ## Fix safety
    Outside `__init__` of a class that has `.device`, `.cuda()` becomes
    `.to(self.device)` (safe; `non_blocking=` and `memory_format=` are kept; any other
    argument leaves no fix, since `.to()` would drop it); unsafe under a device flag
    (`x.cuda() if self.use_cuda else x`), which may say "GPU" where the kept device is
    the CPU. In `__init__` of a
    LightningModule the call is deleted where the value is known to be a module that
    the trainer moves (safe): a submodule assigned to `self` (`self.layer =
    nn.Linear(3, 4).cuda()`, `self.adapter = adapter.cuda()` with `adapter: nn.Module`
    or a class the project defines as a module, `teacher.eval().cuda()`,
    `from_pretrained(...).cuda()`), a statement `self.encoder.cuda()` where every value
    `__init__` gives `self.encoder` is such a module, and a tensor passed to
    `register_buffer`. Anything else (a tensor, a helper's result, an unannotated
    parameter, a module in a local variable) keeps its finding without a fix: deleting
    the call would leave it on the CPU. A tensor must become a buffer (see DEV007). In a
    plain `nn.Module`, the fix borrows a tensor argument's `.device` (unsafe); not from a
    parameter that may be no tensor (`_anchors.py`: read as a mapping, `feats["spatial"]`,
    unpacked, iterated, compared with None, taken to the host with `x = x.cpu()`, ...), nor
    from one the function never reads or moves itself, or a copy of it (`h = x.clone()`
    ... `h.cuda()`): it arrives elsewhere than where the function computes. No
    `.to(device)` where `device` is a CUDA index with `-1` for the CPU, and no
    `.to(self.device)` in a module's methods that `__init__` calls (`self.device` reads
    parameters that may not exist yet there).

    Not flagged: `.cuda(index)`, `.cuda(t.device)` or `.cuda(*args)`, a device chosen at run
    time (the caller's explicit choice, as `.to(device)` is), a branch on the device a
    function is told (`if device == "cuda":`) or on which devices exist or where a tensor is
    (`if x.is_cuda:`, `if isinstance(x, torch.cuda.FloatTensor):`, also through a name the
    function sets from such a test; but an input taken to the host, `x.cpu()...cuda()`,
    comes back to the current GPU, not to its own: that is flagged), a `.cuda()` in the
    block of `with torch.cuda.device(x.device):` (or of a stream's) told its device at run
    time, which made that device the current one (not `torch.cuda.device(0)`), code of a
    CUDA-only library (a module importing Megatron-LM, whose set-up makes each rank's GPU
    current, or using the project's classes derived from one's) or of CUDA-only kernels
    (nvdiffrast's rasterizer, a CUDA extension the module compiles from `.cu` sources when
    imported or imports compiled: `import pointnet2_cuda`, or one the project's `setup.py`
    declares from `.cu` sources with no CPU source, `CUDAExtension("pkg.ops._ext", ...)`,
    or a library of CUDA-only kernels it imports: `flashinfer`, not under `try`/`if`),
    which run on the current GPU (not `.cuda(0)` there), a class built around
    `nn.DataParallel` (it derives from it or its `__init__` always builds one: CUDA-only,
    and DataParallel scatters its inputs from any GPU), a method that does nothing but move
    the object's parts, some to the host (`self.unet = self.unet.cuda()`, `self.vae =
    self.vae.cpu()`, each of a list of parts: `self.controls = [c.cpu() for c in
    self.controls]`: an offload switch), and anything inside the class's own `cuda`, `to`,
    `cpu`, `_apply`, `to_empty` or move to a device type such as `mps` (or a method they
    call on `self`): moving the module is what that code is for. Nor a `torch.nn` module
    built without parameters or buffers (`nn.LogSoftmax(dim=1).cuda()`, a loss given no
    weight): there is nothing to move.

    Nor is a `.cuda()` without an index where the code chose the current GPU itself (whoever
    set up the process chose which GPU that is): in the branch a device flag takes for the
    GPU, a name, attribute or configuration's key such as `use_cuda`, `self.gpu`,
    `args.cuda`, `conf["use_gpu"]`, or an attribute the class sets only from such a flag
    (`self.dp = conf["use_gpu"]`) (perhaps under
    `not`, or compared with a GPU mode: `if self.use_gpu in ("all", "model"):`, a GPU count
    with 0: `if self.n_gpus > 0:`; `if args.cpu:` chooses the GPU in its `else`), but not in
    a LightningModule, whose trainer chooses, nor in a class that keeps its device
    (`self.device`), nor on the forward path of model code (`forward`, what it calls, and
    methods it calls through attributes: `self.assign = self.sinkhorn`), where the batch
    tells the device: the flag only says "a GPU", not which, unless the function runs
    collectives (one rank of a distributed job: its set-up made the rank's GPU current),
    or the module's own `__init__` put its parts on the current GPU under that same flag
    (`if self.dp: self.pi = nn.Parameter(pi.cuda())`, `self.net = self.net.to("cuda")`;
    not a plain tensor: `self.mean = torch.zeros(4).cuda()`) and no project code moves the
    module to a device it is told (`Net(c).to(device)`; a move to a told device in a
    function that builds one, or in its class, counts too, and so do moves of a module it is
    part of, `Outer(c).to(device)`, and of what a function returning it returns it to):
    then the batch is on the current GPU as well; nor in a program that offers the user
    no GPU but the current one (only the CPU besides: `--no-cuda`, `torch.cuda.is_available()`;
    no `--device`, `--gpu_ids`, GPU by a number or a rank), where the flag's GPU is the one
    every tensor on a GPU is on;
    after `torch.cuda.set_device(...)` earlier in the same
    function; in a branch on a device the code was told (`if out_device.startswith("cuda"):`);
    a communication buffer (not where a parameter annotated as a tensor or module tells the
    device), when every tensor the function hands to collectives (`all_reduce`, `broadcast`,
    `all_gather`...) is made on the current device (NCCL needs it there, not in a class
    that keeps its device, unless the file starts its process group with the NCCL backend
    itself), or in the branch for an NCCL backend (`if backend == "nccl":`); in one rank's
    code of a distributed job, handed a process group (a parameter annotated
    `ProcessGroup`, or a framework's `ParallelContext`, of the function or of its class's
    `__init__`) or running collectives in a project whose own set-up makes each rank's GPU
    current (`torch.cuda.set_device(local_rank)`), unless it is told its device
    (`self.device`, a `device` parameter) or its project makes devices of other types
    current too (`torch.npu.set_device`: its code abstracts its accelerator); in a class
    that is no model and keeps no device, once one of its methods unconditionally put a
    model on the current GPU (`self.model = load(path).cuda()`, or `model = model.cuda()`
    in a method that returns `model`): its other `.cuda()` follow that choice, and so does
    that call, unless the model came from a caller (then flagged: the caller chose its
    device). Nor code that runs only after a launcher of the project made the process's GPU
    current by a run-time index (`torch.cuda.set_device(local_rank)`, itself or by calling a
    project function that does, `set_up()`, as a whole statement of its body (not under a
    test), where neither asks which devices exist: each project caller of it, or each
    builder of its object, is such a launcher or such code), in modules that call no other
    accelerator: `.cuda()` there is the process's GPU, also
    in model code, unless the code is told a device (`self.device`, a `device` parameter).
    Nor a `.cuda()` that runs only when the user's list of GPUs is not empty (`if
    len(opt.gpu_ids) > 0:`, `if self.gpu_ids:`, a method of the class returning such a
    test, `if self.use_gpu():`) in a project whose own set-up, not its tests, makes that
    list's first GPU current (`torch.cuda.set_device(opt.gpu_ids[0])`, also in a method
    such as an options parser's): it lands on the GPU the user chose, also on the forward
    path of model code (unless told a device as above); a `.cuda()` that also runs with
    the list empty (the CPU) is still flagged.
    Nor a `.cuda()` in a program (a module with a `__main__` block, or building an
    argument parser at its top level) none of whose code, tests aside, offers a device
    other than the current GPU: it names no CPU or other accelerator (loading weights
    with `map_location="cpu"` and `x.to("cpu").numpy()` aside), no GPU by a number or
    one chosen at run time (`f"cuda:{rank}"`, `torch.device(args.device)`, `.cuda(gpu)`),
    asks no `torch.cuda.is_available()` (but to raise or exit without it), offers no
    `--device`, `--gpu_ids` or `--cpu` option (an option whose value some module makes
    `CUDA_VISIBLE_DEVICES` or passes to `set_device`, `--gpu` there, chooses which GPU
    is current; a script of another framework that uses no torch and nothing imports
    offers nothing): every tensor there is on the current GPU, whichever it is.
    Nor test code, which chooses its device as a script does. `.cuda(0)` stays a
    finding in all these: it pins every process to GPU 0. A tensor the collective gets from
    an input (`y.sum()`) is on the input's device: a buffer for the same collective call is
    still flagged, unless the project's set-up makes each rank's GPU current.
    """

    code = "DEV002"
    name = "cuda-call"
    summary = "`.cuda()` in code that already knows its device"
    fix_safety = "safe/unsafe"
    replaces_literal_devices = True
    node_types = ("IndentedBlock", "Call")
    # The only report is for a call of an attribute spelled `cuda` (`x.cuda()`); the
    # IndentedBlock visit only marks nodes.
    triggers = ("cuda",)
    only_in_model_code = True  # resolve: `if not self.in_scope(scope): return None`
    reports_in_device_context = True
    reports_where_inputs_tell = True

    VALID = (
        # Asked where the input is by its legacy type, or through a name set from where it
        # is in a branch of the function: the padding follows it to the GPU.
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        out = F.avg_pool3d(x, kernel_size=1)\n"
        "        pads = torch.zeros(out.size(0), 4, out.size(2))\n"
        "        if isinstance(out.data, torch.cuda.FloatTensor):\n"
        "            pads = pads.cuda()\n"
        "        return torch.cat([out, pads], dim=1)\n",
        "import torch\n\n"
        "def covariance(a: torch.Tensor, kind: str) -> torch.Tensor:\n"
        '    if kind == "bias":\n'
        "        is_cuda = a.is_cuda\n"
        "        a = torch.ones(a.size(0), 1)\n"
        "        if is_cuda:\n"
        "            a = a.cuda()\n"
        "    return a.t() @ a\n",
        # Asked where the value is (its device's index), and brought to the current GPU.
        "import torch\nfrom torch import Tensor\n\n"
        "def receive(obj: Tensor, device=None):\n"
        "    if obj.device.index != torch.cuda.current_device():\n"
        "        obj = obj.cuda()\n"
        "    return obj.to(device)\n",
        # One rank's code, handed its process group: the set-up made the rank's GPU current.
        "import torch\nfrom torch.distributed import ProcessGroup\n\n"
        "class ShardedEmbedding(torch.nn.Module):\n"
        "    def __init__(self, weight, pg: ProcessGroup):\n"
        "        super().__init__()\n"
        "        self.weight = torch.nn.Parameter(weight)\n"
        "        self.pg = pg\n\n"
        "    def forward(self, ids):\n"
        "        return torch.nn.functional.embedding(ids.cuda(), self.weight)\n",
        # Collectives on the default group, in a project whose set-up makes each rank's GPU
        # current: the input is on the rank's GPU too (INVALID: no such set-up).
        "import torch\nimport torch.distributed as dist\n\n"
        "def setup(local_rank):\n"
        "    torch.cuda.set_device(local_rank)\n\n"
        "def variance(y: torch.Tensor) -> torch.Tensor:\n"
        "    count = torch.tensor(y.size(0)).cuda()\n"
        "    total = y.sum(dim=0)\n"
        "    dist.all_reduce(count)\n"
        "    dist.all_reduce(total)\n"
        "    return total / count\n",
        # Built only by a launcher that made the process's GPU current: its GPU.
        "import torch\nfrom torch import nn\n\n"
        "class Decoder(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.cache = torch.zeros(8).cuda()\n\n"
        "def build(local_rank):\n"
        "    torch.cuda.set_device(local_rank)\n"
        "    return Decoder()\n",
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.cpu().numpy(), torch.cuda.is_available()\n",
        'import torch\n\nif __name__ == "__main__":\n    model = build().cuda()\n',
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        if torch.cuda.is_available():\n"
        "            x = x.cuda()\n"
        "        return x\n",
        # The module's own `cuda` (diffusers' ModelMixin, a LightningModule): moving is its
        # job. So is a helper it calls on `self`.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def cuda(self, *args, **kwargs):\n"
        "        self._move_cache()\n"
        "        return super().cuda(*args, **kwargs)\n\n"
        "    def _move_cache(self):\n"
        "        self.cache = self.cache.cuda()\n",
        # A device chosen at run time: an index, a tensor's device, a variable.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, weight, idx, device):\n"
        "        return x.cuda(idx), weight.cuda(x.device), x.cuda(device=device)\n",
        # A test told its device, doing what the device says; a branch on an availability flag.
        "import torch\nfrom ops.utils import IS_CUDA_AVAILABLE\n\n"
        "def run_conv(layer, x, device):\n"
        '    if device == "cuda":\n'
        "        layer.cuda()\n"
        "    if IS_CUDA_AVAILABLE:\n"
        "        return layer(x.cuda())\n"
        "    return layer(x.to(device))\n",
        # A utility whose job is to move its input; a test; Megatron-LM code (CUDA only).
        "import torch\n\ndef to_gpu(x: torch.Tensor) -> torch.Tensor:\n    return x.cuda()\n",
        "import torch\n\ndef test_sum(x: torch.Tensor):\n    assert (x.cuda() + 1).sum()\n",
        "import torch\nfrom megatron.core import mpu\n\n"
        "def lengths(mask: torch.Tensor) -> torch.Tensor:\n"
        "    return mask.sum(-1).cuda()\n",
        # The user's device flag chose the GPU (the index is whatever the set-up made current).
        "import torch\nimport torch.nn as nn\n\n"
        "class Synthesizer(nn.Module):\n"
        "    def load(self, path, use_cuda=False):\n"
        "        self.model = torch.load(path)\n"
        "        if use_cuda:\n"
        "            self.model.cuda()\n\n"
        "    def prepare(self, tokens):\n"
        "        return tokens.cuda() if self.use_cuda else tokens\n",
        "import torch\n\nclass Agent:\n"
        "    def __init__(self, args, model):\n"
        "        self.args = args\n        self.model = model\n\n"
        "    def to_device(self, tensor):\n"
        "        if self.args.cpu:\n"
        "            return tensor\n"
        "        else:\n"
        "            return tensor.cuda()\n",
        # A communication buffer: NCCL needs the current device, which the set-up chose.
        "import torch\nimport torch.distributed as dist\n\nclass Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def average(self, values):\n"
        "        tensor = torch.tensor(values).cuda()\n"
        "        dist.all_reduce(tensor)\n"
        "        return (tensor / dist.get_world_size()).tolist()\n",
        # A reader that put the model it built on the current GPU; its input follows it.
        "import torch\n\nclass FeatureReader:\n"
        "    def __init__(self, path):\n"
        "        self.model = torch.load(path).eval().cuda()\n\n"
        "    def read(self, audio):\n"
        "        return self.model(torch.from_numpy(audio).cuda())\n",
        # A flag kept and read later, compared with the modes that use the GPU.
        "import torch\n\nclass Fitter:\n"
        "    def __init__(self, model, gpu_mode):\n"
        "        self.model = model\n        self.use_gpu = gpu_mode\n\n"
        "    def fit(self, batches):\n"
        '        if self.use_gpu in ("all", "model"):\n'
        "            self.model.cuda()\n"
        "        return [self.model(b) for b in batches]\n",
        # Run only when the user chose GPUs, whose first the options parser made current.
        _CHOSEN_GPUS + "            data = data.cuda()\n        return self.net(data)\n",
        # The current device was set just before: the code chose it.
        "import torch\n\nclass Server:\n"
        "    def __init__(self, model, options):\n"
        "        self.model = model\n        self.options = options\n\n"
        "    def to_gpu(self):\n"
        "        torch.cuda.set_device(self.options.gpu)\n"
        "        self.model.cuda()\n",
        # Under a GPU count, in a loss's step that runs collectives: one rank of a
        # distributed job, whose GPU its set-up made current (INVALID: no collective).
        "import torch\nimport torch.distributed as dist\nfrom torch import nn\n\n"
        "class ClusterLoss(nn.Module):\n"
        "    def __init__(self, n_gpus):\n"
        "        super().__init__()\n"
        "        self.n_gpus = n_gpus\n"
        "        self.balance = self.balance_all\n\n"
        "    def forward(self, scores):\n"
        "        return self.balance(scores)\n\n"
        "    def balance_all(self, scores):\n"
        "        total = scores.sum()\n"
        "        dist.all_reduce(total)\n"
        "        if self.n_gpus > 0:\n"
        "            weights = torch.ones(scores.shape[0]).cuda()\n"
        "        else:\n"
        "            weights = torch.ones(scores.shape[0])\n"
        "        return scores * weights / total\n",
        # A file that starts NCCL itself: a loader keeping its batches' device still
        # communicates on the current GPU.
        "import torch\nimport torch.distributed as dist\n\n"
        "def setup(gpu):\n"
        "    torch.cuda.set_device(gpu)\n"
        '    dist.init_process_group(backend="nccl")\n\n'
        "class ShardedLoader:\n"
        "    def __init__(self, loader, device):\n"
        "        self.loader = loader\n        self.device = device\n\n"
        "    def share_order(self, order):\n"
        "        sent = torch.tensor(order).cuda()\n"
        "        dist.broadcast(sent, 0)\n"
        "        return sent.cpu().tolist()\n",
        # A benchmark that builds its model, puts it on the current GPU and keeps it.
        "import torch\n\nclass SpeedTest:\n"
        "    def __init__(self, config):\n"
        "        self.model = self.build(config)\n\n"
        "    def build(self, config):\n"
        "        model = make_model(config)\n"
        "        model = model.cuda()\n"
        "        model.eval()\n"
        "        return model\n",
        # A device variable tested by a method told no device: it translates that choice.
        "import torch\nfrom torch import nn\n\nclass Head(nn.Module):\n"
        "    def forward(self, x, out_device: str):\n"
        '        if out_device.startswith("cuda"):\n'
        "            return self.proj(x).cuda()\n"
        "        return self.proj(x).cpu()\n",
        # Its own `__init__` never runs the base's, which stores the device: no `self.device`
        # here, and the net it built itself went to the current GPU.
        "import torch\n\nclass Sampler:\n"
        "    def __init__(self, model, device):\n"
        "        self.model = model\n        self.device = device\n\n"
        "class GridSampler(Sampler):\n"
        "    def __init__(self, config):\n"
        "        self.net = build_net(config).cuda()\n\n"
        "    def sample(self, shape):\n"
        "        return self.net(torch.randn(shape).cuda())\n",
        # A yes/no function makes its tensors to ask whether the GPU works (INVALID: it
        # keeps one).
        "import torch\nfrom torch import nn\n\n"
        "def cuda_works(model: nn.Module) -> bool:\n"
        "    try:\n"
        "        return bool(model(torch.ones(1).cuda()).isfinite().all())\n"
        "    except RuntimeError:\n"
        "        return False\n",
        # A wrapper built around nn.DataParallel runs only on CUDA GPUs, and DataParallel
        # scatters its inputs from any of them (INVALID: the same wrapper without it).
        "import torch\nfrom torch import nn\n\n"
        "class DataParallelNet(nn.Module):\n"
        "    def __init__(self, net):\n"
        "        super().__init__()\n"
        "        self.net = nn.DataParallel(net)\n\n"
        "    def forward(self, obs):\n"
        "        return self.net(torch.as_tensor(obs).cuda())\n",
        # An offload switch: a method that only moves the object's parts between the host
        # and the GPU is placing them, as the class's own `cuda` override would.
        "import torch\nfrom torch import nn\n\n"
        "class Pipeline(nn.Module):\n"
        "    def __init__(self, unet, vae):\n"
        "        super().__init__()\n"
        "        self.unet, self.vae = unet, vae\n\n"
        "    def low_vram_shift(self, is_diffusing):\n"
        "        if is_diffusing:\n"
        "            self.unet = self.unet.cuda()\n"
        "            self.vae = self.vae.cpu()\n"
        "        else:\n"
        "            self.unet = self.unet.cpu()\n"
        "            self.vae.cuda()\n",
        # The same, a list of parts moved each.
        "import torch\nfrom torch import nn\n\n"
        "class Pipeline(nn.Module):\n"
        "    def __init__(self, unet, controls):\n"
        "        super().__init__()\n"
        "        self.unet, self.controls = unet, controls\n\n"
        "    def low_vram_shift(self, is_diffusing):\n"
        "        if is_diffusing:\n"
        "            self.controls = [c.cuda() for c in self.controls]\n"
        "            self.unet = self.unet.cpu()\n"
        "        else:\n"
        "            self.controls = [c.cpu() for c in self.controls]\n"
        "            self.unet = self.unet.cuda()\n",
        # A class that keeps a CUDA stream of the current GPU runs its work there: the
        # current GPU is its device (INVALID: a stream made on a device it was told).
        "import torch\nfrom torch import nn\n\n"
        "class RowCache(nn.Module):\n"
        "    def __init__(self, weight):\n"
        "        super().__init__()\n"
        "        self.weight = weight\n"
        "        self.copy_stream = torch.cuda.Stream()\n\n"
        "    def fetch(self, rows):\n"
        "        with torch.cuda.stream(self.copy_stream):\n"
        "            return self.weight[rows].cuda()\n",
        # On the forward path, under the flag the module's own `__init__` put it on the
        # current GPU under (kept as `self.dp`, read from a configuration's key), and no
        # code moves it elsewhere: its batch belongs on that GPU (INVALID: it is moved).
        _PLACED_UNDER_ITS_FLAG + "def build(conf):\n    return Flow(conf)\n",
        # The same with the flag `__init__` was given and kept, parts moved by `.to("cuda")`.
        "import torch\nimport torch.nn as nn\n\n\nclass Gen(nn.Module):\n"
        "    def __init__(self, use_gpu=True):\n"
        "        super().__init__()\n"
        "        self.use_gpu = use_gpu\n"
        "        self.net = nn.Linear(4, 4)\n"
        "        if use_gpu:\n"
        '            self.net = self.net.to("cuda")\n\n'
        "    def forward(self, x):\n"
        "        noise = torch.rand(4)\n"
        "        if self.use_gpu:\n"
        "            noise = noise.cuda()\n"
        "        return self.net(x + noise)\n",
        # The same with the whole module moved (`self.cuda()`) under the flag it keeps.
        "import torch\nimport torch.nn as nn\n\n\nclass Head(nn.Module):\n"
        "    def __init__(self, use_gpu):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4)\n"
        "        self.use_gpu = use_gpu\n"
        "        if self.use_gpu:\n"
        "            self.cuda()\n\n"
        "    def forward(self, x):\n"
        "        probs = torch.zeros(4)\n"
        "        probs = probs.cuda() if self.use_gpu else probs\n"
        "        return self.fc(x) + probs\n",
        # Under the flag the class chose its device with, the device it keeps is the
        # current GPU (INVALID: a method may set another device).
        "import torch\n\n\nclass Fitter:\n"
        "    def __init__(self, model, use_gpu):\n"
        "        self.model = model\n"
        "        self.use_gpu = use_gpu\n"
        '        self.device = torch.device("cuda" if use_gpu else "cpu")\n\n'
        "    def step(self, batch):\n"
        "        if self.use_gpu:\n"
        "            batch = batch.cuda()\n"
        "        return self.model(batch)\n",
        # The device the class keeps is the process's GPU, which its launcher made current
        # (accelerate's local process index); the user's `device`, kept where the model is
        # dispatched by a device map, places nothing (INVALID: the model is moved to it).
        "import torch\n"
        "from accelerate import Accelerator\n"
        "from transformers import AutoModel\n"
        "\n"
        "\n"
        "class Evaluator:\n"
        '    def __init__(self, path, device="cuda", device_map="cuda:0"):\n'
        "        accelerator = Accelerator()\n"
        '        if device_map == "auto":\n'
        "            self._device = torch.device(device)\n"
        "        else:\n"
        '            self._device = torch.device(f"cuda:{accelerator.local_process_index}")\n'
        "        self.model = AutoModel.from_pretrained(path, device_map=device_map)\n"
        '        if device_map == "auto":\n'
        "            self.model.eval()\n"
        "        else:\n"
        "            self.model.to(self._device)\n"
        "\n"
        "    def generate(self, pixels):\n"
        "        return self.model.generate(pixels.cuda())\n",
        # Unannotated parameters used as a NumPy array tell no device (INVALID: as a tensor).
        "def nms(boxes, scores):\n"
        "    keep = select(boxes.copy(), scores)\n"
        "    return keep.cuda()\n",
        # A `torch.nn` module with no parameters or buffers: `.cuda()` has nothing to move
        # (INVALID: `nn.CrossEntropyLoss(weight=w)` keeps its weight as a buffer).
        "import torch\nfrom torch import nn\n\n"
        "class SwAVLoss(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.log_softmax = nn.LogSoftmax(dim=1).cuda()\n"
        "        self.criterion = nn.CrossEntropyLoss().cuda()\n\n"
        "    def forward(self, x, y):\n"
        "        return self.criterion(self.log_softmax(x), y)\n",
        # `with torch.cuda.device(x.device):` made the input's GPU the current one, so
        # `.cuda()` goes there (INVALID: a function defined in the block runs later).
        "import torch\nfrom torch import nn\n\n"
        "class Window(nn.Module):\n"
        "    def forward(self, x):\n"
        "        with torch.cuda.device(x.device):\n"
        "            mask = torch.ones(x.shape[-1]).cuda()\n"
        "        return x * mask\n",
        # Code of a CUDA-only library (nvdiffrast's rasterizer, made on the current GPU):
        # `.cuda()` is that GPU, the only one it works on.
        "import nvdiffrast.torch as dr\nimport torch\nfrom torch import nn\n\n"
        "class Renderer(nn.Module):\n"
        "    def forward(self, pos, tri):\n"
        "        ctx = dr.RasterizeCudaContext()\n"
        "        ones = torch.ones(pos.shape[0], 1).cuda()\n"
        "        return dr.rasterize(ctx, torch.cat([pos, ones], 1), tri, (256, 256))\n",
    )
    INVALID = (
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.cuda(non_blocking=True)\n",
            line=5,
            column=18,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device, non_blocking=True)\n",
        ),
        Invalid(
            "import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layer = nn.Linear(3, 4).cuda()\n",
            line=7,
            column=38,
            fixed="import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layer = nn.Linear(3, 4)\n",
        ),
        Invalid(
            # An annotated submodule: the trainer moves it.
            "import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder: nn.Module):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n"
            "        self.encoder.cuda()\n",
            line=8,
            column=22,
            fixed="import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder: nn.Module):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n",
        ),
        Invalid(
            # Annotated with a project class the index knows is a module.
            "import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class Adapter(nn.Linear):\n"
            "    pass\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, adapter: Adapter):\n"
            "        super().__init__()\n"
            "        self.adapter = adapter.cuda()\n",
            line=10,
            column=32,
            fixed="import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class Adapter(nn.Linear):\n"
            "    pass\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, adapter: Adapter):\n"
            "        super().__init__()\n"
            "        self.adapter = adapter\n",
        ),
        Invalid(
            # Not known to be a module (nothing says what `encoder` is): no fix.
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n"
            "        self.encoder.cuda()\n",
            line=7,
            column=22,
        ),
        Invalid(
            # A class the index knows is not a module: no fix.
            "import torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class Table:\n"
            "    pass\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.table = Table().cuda()\n",
            line=10,
            column=30,
        ),
        Invalid(
            # A module in a local variable is not registered: the trainer does not move it.
            "import torch\nimport torch.nn as nn\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        probe = nn.Linear(3, 1).cuda()\n"
            "        self.scale = probe.weight.sum().item()\n",
            line=8,
            column=33,
        ),
        Invalid(
            "import torch\nimport torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def forward(self, x: torch.Tensor, y):\n"
            "        return x + y.cuda(1)\n",
            line=6,
            column=22,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def forward(self, x: torch.Tensor, y):\n"
            "        return x + y.to(x.device)\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.scale = torch.ones(3).cuda()\n",
            line=7,
            column=36,
        ),
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.causal = torch.triu(torch.ones(n, n), diagonal=1).cuda()\n",
            line=7,
            column=64,
        ),
        Invalid(
            # A variable or a helper's result may be a tensor: deleting .cuda() would
            # leave it on the CPU, so there is no fix.
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, weights):\n"
            "        super().__init__()\n"
            "        self.weights = weights.cuda()\n",
            line=6,
            column=32,
        ),
        Invalid(
            # Removing every statement of the block would leave it empty: no fix.
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder, use_gpu):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n"
            "        if use_gpu:\n"
            "            self.encoder.cuda()\n",
            line=8,
            column=26,
        ),
        Invalid(
            # Only modules have eval(): this is a module, and Lightning moves it.
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, teacher):\n"
            "        super().__init__()\n"
            "        self.teacher = teacher.eval().cuda()\n",
            line=6,
            column=39,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, teacher):\n"
            "        super().__init__()\n"
            "        self.teacher = teacher.eval()\n",
        ),
        Invalid(
            # Already a buffer: the trainer moves it with the module.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("scale", torch.ones(4).cuda())\n',
            line=7,
            column=53,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("scale", torch.ones(4))\n',
        ),
        Invalid(
            # A helper the override shares with `forward` is code like any other.
            "import torch.nn as nn\n\nclass M(nn.Module):\n"
            "    def to(self, *args, **kwargs):\n"
            "        self.reset()\n        return super().to(*args, **kwargs)\n\n"
            "    def reset(self):\n        self.state = self.state.cuda()\n\n"
            "    def forward(self, x):\n        self.reset()\n        return x\n",
            line=9,
            column=33,
        ),
        Invalid(
            # A trainer that keeps its device, then sends the batch to the current GPU.
            "import torch\n\nclass Trainer:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n        self.model = model.to(device)\n\n"
            "    def feed(self, batch):\n"
            '        return self.model(batch["image"].cuda())\n',
            line=9,
            column=42,
            fixed="import torch\n\nclass Trainer:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n        self.model = model.to(device)\n\n"
            "    def feed(self, batch):\n"
            '        return self.model(batch["image"].to(self.device))\n',
        ),
        Invalid(
            # A function told its device that ignores it.
            "def normalise(images, device):\n    return (images / 255).cuda()\n",
            line=2,
            column=27,
            fixed="def normalise(images, device):\n    return (images / 255).to(device)\n",
            unsafe=True,
        ),
        Invalid(
            # A tensor utility that makes its output on the current GPU, not its inputs'.
            "import torch\nfrom torch import Tensor\n\n"
            "def inside(points: Tensor, polygons: Tensor) -> Tensor:\n"
            "    return torch.zeros(len(points), len(polygons)).cuda()\n",
            line=5,
            column=52,
            fixed="import torch\nfrom torch import Tensor\n\n"
            "def inside(points: Tensor, polygons: Tensor) -> Tensor:\n"
            "    return torch.zeros(len(points), len(polygons)).to(points.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A `device="cpu"` default is where the results go, not where the function
            # computes: `.to(device)` would take the work off the GPU. No fix.
            "import torch\n\n"
            'def gather_state(state, device=torch.device("cpu")):\n'
            "    out = {}\n"
            "    for k, v in state.items():\n"
            "        v = v.cuda()\n"
            "        out[k] = (v * 2).to(device)\n"
            "    return out\n",
            line=6,
            column=15,
        ),
        Invalid(
            # `qweight.cuda()` moves the function's own input and stays (DEV002 drops it):
            # moving `scales` to `qweight.device` alone would leave it on the CPU next to
            # the weight on the GPU. The fixes of one function's literals go together.
            "import torch\nfrom torch import Tensor\n\n"
            "def dequantize(qweight: Tensor, scales: Tensor) -> Tensor:\n"
            "    weight = qweight.cuda()\n"
            "    return weight * scales.cuda()\n",
            line=6,
            column=28,
        ),
        Invalid(
            # Back from the host to the current GPU, not to the GPU the input was on.
            "import torch\n\n"
            "def cumsum(x: torch.Tensor) -> torch.Tensor:\n"
            "    return x.cpu().cumsum(0).cuda()\n",
            line=4,
            column=30,
            fixed="import torch\n\n"
            "def cumsum(x: torch.Tensor) -> torch.Tensor:\n"
            "    return x.cpu().cumsum(0).to(x.device)\n",
            unsafe=True,
        ),
        Invalid(
            # Checking that the input is on a GPU does not say which one it comes back to.
            "import torch\n\n"
            "def cumsum(x: torch.Tensor) -> torch.Tensor:\n"
            "    if x.is_cuda:\n"
            "        return x.cpu().cumsum(0).cuda()\n"
            "    return x.cumsum(0)\n",
            line=5,
            column=34,
            fixed="import torch\n\n"
            "def cumsum(x: torch.Tensor) -> torch.Tensor:\n"
            "    if x.is_cuda:\n"
            "        return x.cpu().cumsum(0).to(x.device)\n"
            "    return x.cumsum(0)\n",
            unsafe=True,
        ),
        Invalid(
            # A DistributedDataParallel subclass is a module: `.cuda()` in its `__init__`.
            "from torch.nn.parallel import DistributedDataParallel\n\n"
            "class Wrapper(DistributedDataParallel):\n"
            "    def __init__(self, module):\n"
            "        self.module = module.cuda()\n",
            line=5,
            column=30,
        ),
        Invalid(
            # `feats` reads as a dict of tensors: it has no `.device` to borrow, so no fix.
            "import torch\nimport torch.nn as nn\n\n"
            "class Net(nn.Module):\n"
            "    def upsample(self, lqs, feats):\n"
            '        base = feats["spatial"][0]\n'
            "        return base + torch.zeros(3).cuda()\n",
            line=7,
            column=38,
        ),
        Invalid(
            # On the forward path the inputs tell the device; a flag says only "some GPU".
            "import torch\nimport torch.nn as nn\n\n"
            "class Distance(nn.Module):\n"
            "    def forward(self, in0, in1):\n"
            "        value = torch.Tensor([score(in0.cpu(), in1.cpu())])\n"
            "        if self.use_gpu:\n"
            "            value = value.cuda()\n"
            "        return value\n",
            line=8,
            column=27,
        ),
        Invalid(
            # The module put itself on the current GPU under the flag, but project code
            # moves it to the device it is told: the batch is there, not on the current GPU.
            _PLACED_UNDER_ITS_FLAG + "def build(conf, device):\n    return Flow(conf).to(device)\n",
            line=15,
            column=19,
        ),
        Invalid(
            # Under the flag `__init__` put only a plain tensor on the current GPU, not the
            # module: moving the module leaves it there, the batch follows the module.
            "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
            "    def __init__(self, use_gpu):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(4, 4)\n"
            "        self.use_gpu = use_gpu\n"
            "        if use_gpu:\n"
            "            self.mean = torch.zeros(4).cuda()\n\n"
            "    def forward(self, x):\n"
            "        if self.use_gpu:\n"
            "            x = x.cuda()\n"
            "        return self.fc(x - self.mean)\n",
            line=15,
            column=19,
        ),
        Invalid(
            # A flag in a class that keeps its device: the device kept is the one to use.
            "import torch\n\nclass Sampler:\n"
            "    def __init__(self, size, use_cuda, device):\n"
            "        self.size = size\n        self.use_cuda = use_cuda\n"
            "        self.device = device\n\n"
            "    def sample(self):\n"
            "        result = torch.randperm(self.size, device=self.device)\n"
            "        return result.cuda() if self.use_cuda else result\n",
            line=11,
            column=23,
            fixed="import torch\n\nclass Sampler:\n"
            "    def __init__(self, size, use_cuda, device):\n"
            "        self.size = size\n        self.use_cuda = use_cuda\n"
            "        self.device = device\n\n"
            "    def sample(self):\n"
            "        result = torch.randperm(self.size, device=self.device)\n"
            "        return result.to(self.device) if self.use_cuda else result\n",
            unsafe=True,  # the flag may say "GPU" where the kept device is the CPU
        ),
        Invalid(
            # Under the flag, but an index pins every process to that GPU.
            "import torch\nimport torch.nn as nn\n\n"
            "class Synthesizer(nn.Module):\n"
            "    def load(self, path, use_cuda=False):\n"
            "        self.model = torch.load(path)\n"
            "        if use_cuda:\n"
            "            self.model.cuda(0)\n",
            line=8,
            column=24,
        ),
        Invalid(
            # The collective also gets the input's sum, on the input's device, not the current.
            "import torch\nimport torch.distributed as dist\n\n"
            "def variance(y: torch.Tensor) -> torch.Tensor:\n"
            "    count = torch.tensor(y.size(0)).cuda()\n"
            "    total = y.sum(dim=0)\n"
            "    dist.all_reduce(count)\n"
            "    dist.all_reduce(total)\n"
            "    return total / count\n",
            line=5,
            column=37,
            fixed="import torch\nimport torch.distributed as dist\n\n"
            "def variance(y: torch.Tensor) -> torch.Tensor:\n"
            "    count = torch.tensor(y.size(0)).to(y.device)\n"
            "    total = y.sum(dim=0)\n"
            "    dist.all_reduce(count)\n"
            "    dist.all_reduce(total)\n"
            "    return total / count\n",
            unsafe=True,
        ),
        Invalid(
            # A model the caller gave, on the caller's device, sent to the current GPU.
            "import torch\n\nclass LanguageModel:\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n"
            "        model.cuda()\n",
            line=6,
            column=15,
        ),
        Invalid(
            # The class placed its model only where CUDA exists: the input may meet a CPU model.
            "import torch\n\nclass LanguageModel:\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n"
            "        if torch.cuda.is_available():\n"
            "            model.cuda()\n\n"
            "    def score(self, prefix):\n"
            "        return self.model(prefix.cuda())\n",
            line=10,
            column=34,
        ),
        Invalid(
            # device is a CUDA index (-1: the CPU): .to(device) would fail on -1, no fix.
            "import torch\n\n\n"
            "def summarise(values, device):\n"
            '    total = torch.zeros(3, device=device if device >= 0 else "cpu")\n'
            "    return total + torch.ones(3).cuda()\n",
            line=6,
            column=34,
        ),
        Invalid(
            # A method __init__ calls runs before the parameters self.device reads: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Model(nn.Module):\n"
            "    def __init__(self, points):\n"
            "        super().__init__()\n"
            "        self.points = points\n"
            "        self.build()\n"
            "        self.anchor = nn.Parameter(torch.empty(0))\n\n"
            "    @property\n"
            "    def device(self):\n"
            "        return self.anchor.device\n\n"
            "    def build(self):\n"
            "        self.colors = nn.Parameter(torch.zeros(len(self.points), 3).cuda())\n\n",
            line=17,
            column=69,
        ),
        Invalid(
            # The current device was set in another method: this one may run anywhere.
            "import torch\nfrom torch import nn\n\nclass Server:\n"
            "    def __init__(self, model: nn.Module, gpu):\n"
            "        self.model = model\n        torch.cuda.set_device(gpu)\n\n"
            "    def run(self, batch):\n"
            "        return self.model(batch.cuda())\n",
            line=10,
            column=33,
        ),
        Invalid(
            # Compared with something other than a mode: no flag.
            "import torch\nfrom torch import nn\n\nclass Fitter:\n"
            "    def __init__(self, model: nn.Module, mode):\n"
            "        self.model = model\n        self.mode = mode\n\n"
            "    def fit(self, batch):\n"
            '        if self.mode in ("all", "model"):\n'
            "            batch = batch.cuda()\n"
            "        return self.model(batch)\n",
            line=11,
            column=27,
        ),
        Invalid(
            # A test of where a tensor is, not of a device the code was told: `.cuda()` goes
            # to the current GPU, not to the weights' (`cuda:1`).
            "import torch\nfrom torch import nn\n\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.conv = nn.Conv2d(3, 8, 3)\n\n"
            "    def forward(self, crops):\n"
            "        x = torch.cat(crops)\n"
            '        if "cuda" in str(self.conv.weight.device):\n'
            "            x = x.cuda(non_blocking=True)\n"
            "        return self.conv(x)\n",
            line=13,
            column=19,
        ),
        # A class placing the net it builds, but told a device it ignores: not its choice.
        Invalid(
            "import torch\n\nclass Painter:\n"
            "    def __init__(self, config, device=None):\n"
            "        self.net = build_net(config).cuda().eval()\n",
            5,
            38,
            fixed="import torch\n\nclass Painter:\n"
            "    def __init__(self, config, device=None):\n"
            "        self.net = build_net(config).to(device).eval()\n",
            unsafe=True,
        ),
        # The base's `__init__` runs (`super().__init__`): the device it stores is set.
        Invalid(
            "import torch\n\nclass Sampler:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n        self.device = device\n\n"
            "class GridSampler(Sampler):\n"
            "    def __init__(self, model, device, size):\n"
            "        super().__init__(model, device)\n        self.size = size\n\n"
            "    def sample(self):\n"
            "        return self.model(torch.randn(self.size).cuda())\n",
            14,
            50,
            fixed="import torch\n\nclass Sampler:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n        self.device = device\n\n"
            "class GridSampler(Sampler):\n"
            "    def __init__(self, model, device, size):\n"
            "        super().__init__(model, device)\n        self.size = size\n\n"
            "    def sample(self):\n"
            "        return self.model(torch.randn(self.size).to(self.device))\n",
        ),
        Invalid(
            # Under a GPU count in a loss with no collective: `.cuda()` is the current GPU,
            # not the scores' (`cuda:1` without `set_device`, or MPS).
            "import torch\nfrom torch import nn\n\n"
            "class ClusterLoss(nn.Module):\n"
            "    def __init__(self, n_gpus):\n"
            "        super().__init__()\n"
            "        self.n_gpus = n_gpus\n"
            "        self.balance = self.balance_one\n\n"
            "    def forward(self, scores):\n"
            "        return self.balance(scores)\n\n"
            "    def balance_one(self, scores):\n"
            "        if self.n_gpus > 0:\n"
            "            weights = torch.ones(scores.shape[0]).cuda()\n"
            "        else:\n"
            "            weights = torch.ones(scores.shape[0])\n"
            "        return scores * weights\n",
            line=15,
            column=51,
        ),
        Invalid(
            # One rank's code, but its project makes NPUs current too: "cuda" is one type.
            "import torch\nfrom torch.distributed import ProcessGroup\n\n"
            "def setup(local_rank, npu):\n"
            "    if npu:\n"
            "        torch.npu.set_device(local_rank)\n"
            "    else:\n"
            "        torch.cuda.set_device(local_rank)\n\n"
            "def mean_rows(rows: torch.Tensor, pg: ProcessGroup):\n"
            "    count = torch.tensor(rows.size(0)).cuda()\n"
            "    return rows.sum(0) / count\n",
            line=11,
            column=40,
            fixed="import torch\nfrom torch.distributed import ProcessGroup\n\n"
            "def setup(local_rank, npu):\n"
            "    if npu:\n"
            "        torch.npu.set_device(local_rank)\n"
            "    else:\n"
            "        torch.cuda.set_device(local_rank)\n\n"
            "def mean_rows(rows: torch.Tensor, pg: ProcessGroup):\n"
            "    count = torch.tensor(rows.size(0)).to(rows.device)\n"
            "    return rows.sum(0) / count\n",
            unsafe=True,
        ),
        Invalid(
            # transformers' Trainer put the batch on its device: not always the current GPU.
            "from transformers import Trainer\n\n"
            "class Distiller(Trainer):\n"
            "    def compute_loss(self, model, inputs, return_outputs=False):\n"
            "        outputs = model(**inputs)\n"
            "        teacher = self.teacher(**inputs).logits.cuda()\n"
            "        return ((outputs.logits - teacher) ** 2).mean()\n",
            line=6,
            column=49,
        ),
        Invalid(
            "import torch\n\nclass Optimizer:\n"
            "    def __init__(self, device):\n        self.device = device\n\n"
            "    def has_overflow(self):\n"
            "        self.flag = torch.zeros(1).cuda()\n"
            "        return bool(self.flag.item())\n",
            line=8,
            column=36,
            fixed="import torch\n\nclass Optimizer:\n"
            "    def __init__(self, device):\n        self.device = device\n\n"
            "    def has_overflow(self):\n"
            "        self.flag = torch.zeros(1).to(self.device)\n"
            "        return bool(self.flag.item())\n",
        ),
        Invalid(
            # The look-alike of the DataParallel wrapper (VALID) with a plain module inside.
            "import torch\nfrom torch import nn\n\n"
            "class Wrapped(nn.Module):\n"
            "    def __init__(self, net):\n"
            "        super().__init__()\n"
            "        self.net = net\n\n"
            "    def forward(self, obs):\n"
            "        return self.net(torch.as_tensor(obs).cuda())\n",
            line=10,
            column=46,
        ),
        Invalid(
            # DataParallel built only when several GPUs exist: else a plain module.
            "import torch\nfrom torch import nn\n\n"
            "class Agent(nn.Module):\n"
            "    def __init__(self, net):\n"
            "        super().__init__()\n"
            "        self.net = net\n"
            "        if torch.cuda.device_count() > 1:\n"
            "            self.net = nn.DataParallel(net)\n\n"
            "    def forward(self, obs):\n"
            "        return self.net(torch.as_tensor(obs).cuda())\n",
            line=12,
            column=46,
        ),
        Invalid(
            # The stream cache's look-alike (VALID) whose stream is on the device it was told:
            # outside the stream's block `.cuda()` is the current GPU, not that one (inside
            # it, the stream's device is the current one).
            "import torch\nfrom torch import nn\n\n"
            "class RowCache(nn.Module):\n"
            "    def __init__(self, weight, device):\n"
            "        super().__init__()\n"
            "        self.weight = weight\n"
            "        self.copy_stream = torch.cuda.Stream(device=device)\n\n"
            "    def fetch(self, rows):\n"
            "        with torch.cuda.stream(self.copy_stream):\n"
            "            rows = rows.pin_memory()\n"
            "        return self.weight[rows].cuda()\n",
            line=13,
            column=34,
        ),
        Invalid(
            # The flagged trainer's look-alike (VALID) that may be told another device later.
            "import torch\n\n\nclass Fitter:\n"
            "    def __init__(self, model, use_gpu):\n"
            "        self.model = model\n"
            "        self.use_gpu = use_gpu\n"
            '        self.device = torch.device("cuda" if use_gpu else "cpu")\n\n'
            "    def place(self, device):\n"
            "        self.device = device\n\n"
            "    def step(self, batch):\n"
            "        if self.use_gpu:\n"
            "            batch = batch.cuda()\n"
            "        return self.model(batch)\n",
            line=15,
            column=27,
            fixed="import torch\n\n\nclass Fitter:\n"
            "    def __init__(self, model, use_gpu):\n"
            "        self.model = model\n"
            "        self.use_gpu = use_gpu\n"
            '        self.device = torch.device("cuda" if use_gpu else "cpu")\n\n'
            "    def place(self, device):\n"
            "        self.device = device\n\n"
            "    def step(self, batch):\n"
            "        if self.use_gpu:\n"
            "            batch = batch.to(self.device)\n"
            "        return self.model(batch)\n",
            unsafe=True,
        ),
        Invalid(
            # Its list look-alike: what it moves each of is no part of the object.
            "import torch\nfrom torch import nn\n\n"
            "class Pipeline(nn.Module):\n"
            "    def __init__(self, unet):\n"
            "        super().__init__()\n"
            "        self.unet = unet\n\n"
            "    def stage(self, batch):\n"
            "        self.unet = self.unet.cpu()\n"
            "        self.batch = [t.cuda() for t in batch]\n",
            line=11,
            column=25,
        ),
        Invalid(
            # The offload switch's look-alike (VALID) that also computes with the moved part.
            "import torch\nfrom torch import nn\n\n"
            "class Pipeline(nn.Module):\n"
            "    def __init__(self, unet):\n"
            "        super().__init__()\n"
            "        self.unet = unet\n\n"
            "    def denoise(self, x):\n"
            "        self.unet = self.unet.cuda()\n"
            "        return self.unet(x)\n",
            line=10,
            column=31,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Pipeline(nn.Module):\n"
            "    def __init__(self, unet):\n"
            "        super().__init__()\n"
            "        self.unet = unet\n\n"
            "    def denoise(self, x):\n"
            "        self.unet = self.unet.to(x.device)\n"
            "        return self.unet(x)\n",
            unsafe=True,
        ),
        Invalid(
            # The look-alike of the evaluator (VALID) that moves its model to the device it
            # keeps in every branch: there it may be the user's `device`, not the current GPU.
            "import torch\n"
            "from accelerate import Accelerator\n"
            "from transformers import AutoModel\n"
            "\n"
            "\n"
            "class Evaluator:\n"
            '    def __init__(self, path, device="cuda", device_map="cuda:0"):\n'
            "        accelerator = Accelerator()\n"
            '        if device_map == "auto":\n'
            "            self._device = torch.device(device)\n"
            "        else:\n"
            '            self._device = torch.device(f"cuda:{accelerator.local_process_index}")\n'
            "        self.model = AutoModel.from_pretrained(path).to(self._device)\n"
            "\n"
            "    def generate(self, pixels):\n"
            "        return self.model.generate(pixels.cuda())\n",
            line=16,
            column=43,
        ),
        Invalid(
            # A module that keeps "cuda" itself ignores where it is moved: its kept device is
            # the bug, not a choice of the current GPU (DEV001's VALID runner is no module).
            "import torch\nfrom torch import nn\n\n\nclass Policy(nn.Module):\n"
            "    def __init__(self, net):\n"
            "        super().__init__()\n"
            '        self.device = torch.device("cuda")\n'
            "        self.net = net\n\n"
            "    def forward(self, x):\n"
            "        return self.net(x.cuda())\n",
            line=12,
            column=27,
        ),
        Invalid(
            # No annotation, but `boxes.contiguous()` shows a tensor: the kept indices go
            # to the current GPU, not the boxes' (no fix: which input is the anchor?).
            "def nms(boxes, scores):\n"
            "    keep = select(boxes.contiguous(), scores)\n"
            "    return keep.cuda()\n",
            line=3,
            column=17,
        ),
        # A loss given a weight keeps it as a buffer: `.cuda()` pins it to the current GPU.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Loss(nn.Module):\n"
            "    def __init__(self, w):\n"
            "        super().__init__()\n"
            "        self.criterion = nn.CrossEntropyLoss(weight=w).cuda()\n\n"
            "    def forward(self, x, y):\n"
            "        return self.criterion(x, y)\n",
            line=7,
            column=56,
        ),
        Invalid(
            # Code bound to Gaudi (`habana_frameworks`) runs on HPU: `.cuda()` is no device of
            # its (Megatron-LM code, bound to CUDA, is VALID).
            "import torch\nfrom torch import nn\n"
            "import habana_frameworks.torch.core as htcore\n\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        mask = torch.ones(4, 4).cuda()\n"
            "        htcore.mark_step()\n"
            "        return x * mask\n",
            line=8,
            column=33,
            fixed="import torch\nfrom torch import nn\n"
            "import habana_frameworks.torch.core as htcore\n\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        mask = torch.ones(4, 4).to(x.device)\n"
            "        htcore.mark_step()\n"
            "        return x * mask\n",
            unsafe=True,
        ),
        Invalid(
            # The window's look-alike (VALID): the function made inside the block runs where
            # its caller is, not under the switch.
            "import torch\nfrom torch import nn\n\n"
            "class Window(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.cuda.device(x.device):\n"
            "            def mask(n):\n"
            "                return torch.ones(n).cuda()\n"
            "        return x * mask(x.shape[-1])\n",
            line=8,
            column=38,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Window(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.cuda.device(x.device):\n"
            "            def mask(n):\n"
            "                return torch.ones(n).to(x.device)\n"
            "        return x * mask(x.shape[-1])\n",
            unsafe=True,
        ),
        Invalid(
            # The input was taken to the host to spare GPU memory: its `.device` is the CPU's
            # now, so no fix borrows it.
            "import torch\nfrom torch import nn\n\n"
            "class Stabilizer(nn.Module):\n"
            "    def forward(self, x):\n"
            "        feats = self.encoder(x)\n"
            "        x = x.cpu()\n"
            "        return self.head(feats, torch.ones(4).cuda())\n",
            line=8,
            column=47,
        ),
        Invalid(
            # The renderer's look-alike (VALID) moving to GPU 0: not the current GPU the
            # rasterizer runs on.
            "import nvdiffrast.torch as dr\nimport torch\nfrom torch import nn\n\n"
            "class Renderer(nn.Module):\n"
            "    def forward(self, pos, tri):\n"
            "        ctx = dr.RasterizeCudaContext()\n"
            "        ones = torch.ones(pos.shape[0], 1).cuda(0)\n"
            "        return dr.rasterize(ctx, torch.cat([pos, ones], 1), tri, (256, 256))\n",
            line=8,
            column=44,
        ),
        Invalid(
            # The function moves a copy of its input to another device itself: the input
            # arrives elsewhere than where it computes, so no fix borrows its `.device`.
            "import torch\nfrom torch import nn\n\n"
            "class Optimiser(nn.Module):\n"
            "    def forward(self, x):\n"
            "        h = x.clone()\n"
            "        h = h.to(self.head.weight.device)\n"
            "        return self.head(h, torch.ones(4).cuda())\n",
            line=8,
            column=43,
        ),
        Invalid(
            # `x` is never read: nothing says it is where the function computes.
            "import torch\nfrom torch import nn\n\n"
            "class Flow(nn.Module):\n"
            "    def forward(self, x, frames):\n"
            "        return self.raft(frames[:, 0].cuda())\n",
            line=6,
            column=39,
        ),
        Invalid(
            # The CUDA extension is compiled only where a GPU is there: the module runs
            # without it too, and `.cuda()` in `__init__` still pins the model.
            "import torch\nfrom torch import nn\nfrom torch.utils.cpp_extension import load\n\n"
            "if torch.cuda.is_available():\n"
            '    ops = load(name="ops", sources=["ops_kernel.cu"])\n\n'
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(4, 4).cuda()\n",
            line=11,
            column=35,
        ),
        Invalid(
            # Built with a device it hands to its session: `.cuda()` ignores it.
            "import torch\n\n"
            "class Backend:\n"
            "    def __init__(self, path, device):\n"
            "        self.session = load_session(path, device)\n\n"
            "    def run(self, x: torch.Tensor):\n"
            "        return self.session(x.cuda())\n",
            line=8,
            column=31,
        ),
        Invalid(
            # With no GPU chosen (the CPU) it runs too: onto a GPU the user did not ask for.
            _CHOSEN_GPUS
            + "            pass\n        data = data.cuda()\n        return self.net(data)\n",
            line=20,
            column=21,
        ),
    )

    screen_types = (ast.Call,)

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """``visit`` reports only calls of an attribute named ``cuda`` (``x.cuda(...)``)."""
        return any(
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "cuda"
            for call in found.of_type(ast.Call)
        )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if isinstance(node, cst.IndentedBlock):
            self._mark_statements(node, context)
            return
        assert isinstance(node, cst.Call)
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "cuda":
            return
        if context.qualified_name(func.value) == "torch":
            return
        if context.in_checked_branch and not _back_from_the_host(func.value, context):
            return
        if not cuda_target_is_literal(node):
            return  # .cuda(index), .cuda(t.device): chosen at run time, as .to(device) is
        if under_a_test_of_the_device(context.ancestors):
            return  # `if device == "cuda": model.cuda()` does what it is told
        device = first_positional(node) or keyword_argument(node, "device")
        if device is None and under_a_device_switch(context.ancestors, context.qualified_name):
            return  # `with torch.cuda.device(x.device):` made x's GPU the current one
        if in_a_probe(context.ancestors) or in_a_callback(context.ancestors):
            return  # asks whether the GPU works, or runs where a library calls it
        if in_a_data_parallel_wrapper(context.ancestors, context.qualified_name):
            return  # nn.DataParallel runs only on CUDA GPUs, taking inputs from any of them
        if moves_only_its_parts(context.ancestors):
            return  # an offload switch: placing the object's parts is its job
        if _builds_a_stateless_module(func.value, context):
            return  # `nn.Softmax(dim=1).cuda()` has nothing to move
        kept = [
            arg
            for arg in node.args
            if arg.keyword is not None and arg.keyword.value in _KEPT_KEYWORDS
        ]
        fixes: dict[str, tuple[PendingEdit, ...]] = {}
        function = outermost_function(context.ancestors)
        told = context.scope.device_param and device_anchor(function)
        if len(node.args) == len(kept) + (device is not None):  # .to() takes all the rest
            arguments = [
                context.code_for(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for arg in kept
            ]

            def move_to(target: str) -> tuple[PendingEdit, ...]:
                """Rewrite ``cuda(...)`` after the dot; the receiver's text stays as it is."""
                text = f"to({', '.join([target, *arguments])})"
                return (PendingEdit(func.attr, "start", node, "end", text),)

            fixes["self_device"] = move_to("self.device")
            if told:
                fixes["device_param"] = move_to("device")
            param = context.scope.tensor_param
            # Not x.to(x.device), which moves nothing; x.cpu().cumsum(0).to(x.device) comes back.
            if (
                param is not None
                and (chain_root(func.value) != param or leaves_the_host(func.value))
                and function is not None
                and known_tensor(param, function)
            ):
                fixes["tensor_device"] = move_to(f"{param}.device")
        data = {"module": context.module_name}
        if context.scope.device_param and not told:
            data["device_index"] = "yes"  # `if device >= 0`: a CUDA index, -1 the CPU
        if device is None:  # the current GPU: perhaps the code's own choice of it
            data["current"] = "yes"
            choice = own_choice(
                node, context.ancestors, context.qualified_name, class_choices(self, context)
            )
            if choice is not None:
                data["chosen"] = choice
            tested = lists_known_not_empty([*context.ancestors, node])
            if tested:
                data[TESTED_LISTS] = " ".join(sorted(tested))
        moved = None if leaves_the_host(func.value) else chain_root(func.value)
        if moves_its_input(moved, context.scope.tensor_param, context.ancestors):
            data["moves_input"] = moved or ""
        marks = context.marks(node)
        classes: tuple[str, ...] | None = None
        if _registered_as_buffer(context):
            classes = ()  # a buffer moves with the module anyway
            fixes["delete"] = (delete_between(func.value, node),)
        elif "removable_statement" in marks and attribute_of_self(func.value) is not None:
            # self.encoder.cuda() moves a submodule in place (tensor.cuda() alone does nothing).
            classes = _module_classes(func.value, context)
            fixes["delete"] = (delete_lines(node),)
        elif _assigned_to_self(node, context):
            classes = _module_classes(func.value, context)
            fixes["delete"] = (delete_between(func.value, node),)
        if classes is not None:
            data["modules"] = " ".join(classes)
        context.report(self.code, func.attr, end=node, data=data, fixes=fixes)

    @staticmethod
    def _mark_statements(block: cst.IndentedBlock, context: FileContext) -> None:
        """Mark ``x.cuda()`` calls that are whole statements: the fix removes the line."""
        calls = [
            statement.body[0].value
            for statement in block.body
            if isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.Call)
        ]
        # Removing every statement of a block would leave it empty: keep them then.
        tag = "removable_statement" if len(block.body) > len(calls) else "statement"
        for call in calls:
            context.mark(call, tag)

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        if not self.in_scope(scope):
            return None
        if moves_its_input_there(candidate, scope, index):
            return None  # `def to_gpu(x: Tensor): return x.cuda()`: moving is what it is for
        if "current" in candidate.data and "cuda" in index.backends(candidate.scope):
            return None  # CUDA-only code (Megatron-LM, a CUDA extension): on the current GPU
        if "current" in candidate.data and index.runs_on_the_current_gpu_only(candidate.scope):
            return None  # the program offers no other device: every tensor is on this GPU
        if "current" in candidate.data and on_the_gpu_the_program_offers(candidate, index):
            return None  # under the user's GPU switch, in a program offering no other GPU
        if "current" in candidate.data and pinned_there(candidate, scope, index):
            return None  # its launcher made the process's GPU current, and offers no other
        if "current" in candidate.data and on_the_first_chosen_gpu(candidate, scope, index):
            return None  # runs only when GPUs were chosen: the set-up made the first current
        if chose_the_device(candidate, scope, index):
            return None
        where = f"`.cuda()` {where_the_device_is_known(scope)}"
        if scope.in_init and scope.model_code:
            if scope.lightning:
                return self._in_lightning_init(candidate, index)
            return Resolution(
                "`.cuda()` in `__init__` pins the module to the current GPU; move the "
                "whole model once, where it is used"
            )
        if scope.in_init and not candidate.scope.device_param:  # else: use it
            return Resolution(f"{where}: take the device from the device or model it is given")
        if scope.device_aware and not scope.in_init:
            # Under a device flag (`x.cuda() if self.use_cuda else x`) the flag, not the
            # kept device, said "GPU": the two may disagree (`use_cuda=True`, device unset).
            flagged = candidate.data.get("chosen") in ("flag", "distributed_flag")
            safety = Applicability.UNSAFE if flagged else Applicability.SAFE
            fix = choose_fix(candidate, "self_device", safety, "Use `.to(self.device)`")
            return Resolution(f"{where}; use `.to(self.device)`", fix)
        if candidate.scope.device_param and "device_index" not in candidate.data:
            # Unsafe: a caller may pass None, or another device on purpose.
            fix = choose_fix(candidate, "device_param", Applicability.UNSAFE, "Use `.to(device)`")
            return Resolution(f"{where}; use the function's `device` parameter", fix)
        borrowed = borrowed_device_fix(candidate, "Use `.to({device})`")
        if borrowed is not None:
            param, fix = borrowed
            return Resolution(f"{where}; use `.to({param}.device)`", fix)
        return Resolution(f"{where}; move to an input tensor's `.device`")

    @staticmethod
    def _in_lightning_init(candidate: Candidate, index: ProjectIndex) -> Resolution:
        """Deleting the call is safe only for what the trainer moves: a registered submodule
        (known to be a module) or a buffer."""
        modules = candidate.data.get("modules")
        near = candidate.data["module"]
        if modules is not None and all(index.is_module_class(c, near) for c in modules.split()):
            fix = choose_fix(candidate, "delete", Applicability.SAFE, "Remove `.cuda()`")
            if fix is not None:
                return Resolution(
                    "`.cuda()` in `__init__` of a LightningModule: the trainer moves "
                    "the module to the right device",
                    fix,
                )
        return Resolution(
            "`.cuda()` in `__init__` of a LightningModule: the trainer moves only registered "
            "submodules and buffers, and this is not known to be one; register a tensor as "
            "a buffer so that it moves too"
        )


def _back_from_the_host(receiver: cst.BaseExpression, context: FileContext) -> bool:
    """``x.cpu().cumsum(0).cuda()``: an input taken to the host and sent back to the current
    GPU, not to the one it came from, even in a branch that checked it is on a GPU."""
    root = chain_root(receiver)
    return root is not None and root == context.scope.tensor_param and leaves_the_host(receiver)


def _builds_a_stateless_module(receiver: cst.BaseExpression, context: FileContext) -> bool:
    """``nn.LogSoftmax(dim=1).cuda()``: a ``torch.nn`` module with no parameters or buffers,
    which ``.cuda()`` leaves as it was."""
    if not isinstance(receiver, cst.Call):
        return False
    qualified = context.qualified_name(receiver.func) or ""
    name = qualified.removeprefix("torch.nn.")
    return name != qualified and "." not in name and stateless_module(receiver, name)


def _registered_as_buffer(context: FileContext) -> bool:
    """``self.register_buffer("w", t.cuda())``: a buffer moves with the module anyway."""
    ancestors = context.ancestors
    if len(ancestors) < 2 or not isinstance(ancestors[-1], cst.Arg):
        return False
    call = ancestors[-2]
    return isinstance(call, cst.Call) and dotted_name(call.func) == "self.register_buffer"


def _assigned_to_self(call: cst.Call, context: FileContext) -> bool:
    """``self.encoder = <call>``: a module assigned to an attribute is a registered submodule."""
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        return attribute_of_self(parent.targets[0].target) is not None
    if isinstance(parent, cst.AnnAssign) and parent.value is call:
        return attribute_of_self(parent.target) is not None
    return False


def _module_classes(
    value: cst.BaseExpression, context: FileContext, depth: int = 0
) -> tuple[str, ...] | None:
    """The classes ``value`` is made from, all of which must be ``nn.Module`` classes for it
    to be a module (the index knows them), or None when nothing says what it is.

    ``nn.Linear(3, 4)`` and ``Encoder()`` name their class; a parameter its annotation
    (``adapter: nn.Module``) if the function never rebinds it; ``self.encoder`` the values
    every assignment in the function gives it. ``teacher.eval()`` and
    ``AutoModel.from_pretrained(n)`` are modules whatever their class (no names). A tensor,
    a helper's result or an unannotated parameter is not known to be a module: deleting its
    ``.cuda()`` would leave it on the CPU.
    """
    if depth > _MAX_HOPS:
        return None
    if isinstance(value, cst.Call):
        callee = dotted_name(value.func) or ""
        last = callee.rpartition(".")[2]
        if last in MODULE_ONLY_METHODS or last == "from_pretrained":
            return ()
        if not last[:1].isupper():
            return None
        qualified = context.qualified_name(value.func)
        if qualified is None and "." not in callee:
            qualified = f"{context.module_name}.{callee}"  # a class defined further down
        return None if qualified is None else (qualified,)
    function = next(
        (node for node in reversed(context.ancestors) if isinstance(node, cst.FunctionDef)), None
    )
    if function is None:
        return None
    bindings = _Bindings(function)
    if isinstance(value, cst.Name):
        annotation = _parameter_annotation(function, value.value)
        if annotation is None or value.value in bindings.names:
            return None
        qualified = context.qualified_name(annotation)
        return None if qualified is None else (qualified,)
    attribute = attribute_of_self(value)
    assigned = bindings.self_values.get(attribute) if attribute is not None else None
    if not assigned:
        return None
    classes: list[str] = []
    for source in assigned:
        found = _module_classes(source, context, depth + 1)
        if found is None:
            return None
        classes.extend(found)
    return tuple(classes)


_MAX_HOPS = 4
"""``self.a = self.b`` chains followed by ``_module_classes`` before giving up."""


def _parameter_annotation(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.annotation.annotation if param.annotation is not None else None
    return None


class _Bindings:
    """Names and ``self`` attributes a function binds (anywhere in it, nested code too)."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.names: set[str] = set()
        self.self_values: dict[str, list[cst.BaseExpression] | None] = {}
        """``self.x`` -> the values assigned to it; None: bound otherwise (``+=``, unpacking)."""
        stack: list[cst.CSTNode] = [function.body]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    self._bind(target.target, node.value)
            elif isinstance(node, cst.AnnAssign):
                self._bind(node.target, node.value)
            elif isinstance(node, (cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
                self._bind(node.target, None)
            elif isinstance(node, cst.AsName) and isinstance(node.name, cst.BaseExpression):
                self._bind(node.name, None)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
        attribute = attribute_of_self(target)
        if attribute is not None:
            values = self.self_values.setdefault(attribute, [])
            if value is None or values is None:
                self.self_values[attribute] = None
            else:
                values.append(value)
