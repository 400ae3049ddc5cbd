"""DEV003: a tensor made on the CPU that meets a tensor on the computation's device."""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

import libcst as cst

from devlint.candidates import Candidate, Needed, Requirement, Resolution, Scope, ScopeInfo
from devlint.facts import FileFacts, attribute_key, tensor_annotation
from devlint.findings import Applicability, Fix
from devlint.flow.fallback import fallback_return
from devlint.flow.inference import FunctionFlow, places_by_default
from devlint.flow.meetings import Meeting, MeetingKind, collective_group, empty_data
from devlint.flow.values import UNKNOWN, Origin
from devlint.index import ProjectIndex, is_test_module
from devlint.nodes import (
    annotation_names,
    descendants,
    dotted_name,
    is_none,
    is_self,
    iter_children,
    keyword_switched_on,
    parameter_names,
    untyped_parameters,
    values_assigned,
)
from devlint.rules._anchors import (
    borrowable_device,
    device_is_an_index,
    known_tensor,
    updated_in_place,
)
from devlint.rules._chosen_device import under_a_device_flag
from devlint.rules._devices import BINDING_TYPES, Bindings
from devlint.rules._handoffs import handoff_needs
from devlint.rules.base import (
    FileContext,
    Invalid,
    PendingEdit,
    Rule,
    RuleSettings,
    Sighting,
    choose_fix,
    insert_after,
)
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import (
    ARRAY_TENSOR_FACTORIES,
    COLLECTIVE_FUNCTIONS,
    CPU_RESULT_METHODS,
    DATA_FACTORIES,
    HOST_MEMORY_KEYWORDS,
    IN_PLACE_UPDATES,
    INDEXING_METHODS,
    LEGACY_TENSOR_TYPES,
    MOVE_METHODS,
    SCALAR_REFUSING_OPERATIONS,
    SETUP_METHODS,
    STORABLE_FACTORIES,
    TENSOR_ARGUMENT_METHODS,
    TENSOR_FACTORIES,
    TENSOR_ONLY_METHODS,
    VIEW_METHODS,
)

_WITHOUT_DEVICE = LEGACY_TENSOR_TYPES | ARRAY_TENSOR_FACTORIES
"""Factories that take no ``device=``: only a move where the tensors meet fixes them."""

_FACTORIES = TENSOR_FACTORIES | _WITHOUT_DEVICE
"""What ``torch.<name>(...)`` must call to be a candidate."""


def _made_on_the_default_gpu(factory: str) -> bool:
    """``factory`` (as written) makes its tensor on the default device, which a program can
    make the GPU (``DEFAULT_DEVICE_SETTERS``): not ``torch.from_numpy``, ``torch.as_tensor``
    of an array, nor a legacy constructor (``torch.LongTensor``, ``torch.Tensor``: the CPU
    under ``set_default_device``), all on the CPU."""
    return factory.rpartition(".")[2] in TENSOR_FACTORIES - {"as_tensor"}


class FactoryWithoutDevice(Rule):
    """## What it does
    Finds tensors made on the CPU (`torch.zeros`, `ones`, `empty`, `full`, `arange`,
    `linspace`, `eye`, `rand*`, window functions such as `hann_window`, `tensor`/`as_tensor`
    of Python data (`torch.tensor` of what a plain function returned too: PyTorch warns
    when it copies a tensor so), `from_numpy`,
    legacy constructors such as `torch.FloatTensor(...)`, `torch.Tensor([])` included,
    and a factory named uncalled for later, such as `window_fn=torch.hann_window`,
    called as `self.window_fn(n)`: all without `device=`) that
    meet a tensor on the computation's device: in arithmetic or a comparison, in
    `torch.cat`/`stack`/`where`/`matmul`/`einsum` and other functions of several
    tensors, as a tensor bound of `clamp`, in a tensor method such as `masked_fill` or
    `index_add_`, in an in-place
    update, in a call of a module or model (a class calling itself, `self(x)`, runs its
    own `forward`: the tensor meets what it meets there; a parameter-free module made on
    the spot, `nn.Softmax(dim=-1)(x)` or a loss without a weight tensor, has no device),
    indexed by a device tensor, or
    written into
    one: through a tensor index (`x[mask] = torch.zeros(d)`, an `index_put_`) or as its
    `.data` (which some backends refuse across devices, and which moves it on CUDA). It
    reports where the tensor is made and names the line where it meets the device. A module's
    buffers and parameters and a metric's states (`add_state`) are on the computation's
    device, and so is what torchvision's box ops (`torchvision.ops`) return for them.
    In model code, only on a forward path: `forward`, `__call__`, `*_step`, `generate`,
    batch-level hooks, methods bound with `functools.partial` for later (a shortcut handed
    to a block; not a weight initialiser handed to `apply`), and what they call. Their
    inputs are on the computation's device where the code uses them as tensors
    (`x.shape`, `batch["x"]`), also a sequence it only takes apart (`clean, lengths =
    inputs`, `for x in inputs`): then each part it uses as a tensor is there, and a part
    used only as a size or a count, or called (a module), is not known to be.
    Elsewhere, in every method of a class that stores a device or a model (samplers,
    trainers, pipelines) or derives from transformers' `Trainer` (which puts each batch on
    its device: `super()._prepare_inputs(batch)` is there, and accelerate's
    `self.accelerator.gather(t)` leaves `t` where it was) and in functions told their
    device (a `device` parameter), and what they call. And in library functions
    (module-level, or methods of a class that is no model and no Dataset; not
    data-loading code, below) whose tensors follow their inputs: the function reads a device itself
    (`x.device`, `.to(w.device)`, a parameter annotated `torch.device`), or its module's
    functions of its kind (module-level, or methods) do (kornia's and torchmetrics'
    functionals, pytorch3d's ops, a replay buffer's writers); parameters annotated as
    tensors, modules or devices, or given a method only a tensor has
    (`index.repeat_interleave(n)`), are on the computation's device there. A tensor handed to a
    `torch.distributed` collective (`all_reduce`, `all_gather`, `broadcast`, `reduce`,
    `send`, ...) meets the device too, in any function: under NCCL the collective runs
    on the process's GPU. A CPU fallback is reported too, in the same places: a function
    that returns the tensor (whole or as one element of a tuple) where another `return`
    gives a tensor on the computation's device at the same place (`return
    torch.empty(n, 3, 3)` when the solver fails, or a name holding it), so its callers get
    the CPU tensor where they expect device data; not when a test of what an input is
    (`isinstance` of a tensor or of Python data, `is None`) chooses the path, nor when the
    device path hands an input back or follows only parameters that default to None. A
    parameter that `isinstance(model, nn.Module)` finds a module is on the computation's
    device where the test holds. And a tensor put on the CPU on purpose (`feats.cpu()`)
    where a device tensor indexes it (`feats[top]`): an index must be on the CPU or on
    the indexed tensor's device (no fix: either may be the one to move).

    ## Why is this bad?
    The model runs on a GPU and its inputs, parameters and activations are there; a
    tensor made without `device=` is on the CPU. Where the two meet, PyTorch stops
    with `Expected all tensors to be on the same device`. It works on a laptop and
    breaks on the cluster. A CPU tensor given to an NCCL collective stops it with
    `No backend type associated with device type cpu`.

    ## Example
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            positions = torch.arange(x.shape[1])
            return x + self.pos_scale * positions
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            positions = torch.arange(x.shape[1], device=self.device)
            return x + self.pos_scale * positions
    ```

    ## Fix safety
    Adding `device=self.device` in a class that has `.device` is safe. Elsewhere the
    fix passes the function's `device` parameter, or the `.device` of a tensor
    parameter (the one it meets, when that is a parameter), or else moves it with
    `.to(<partner>.device)` where the two meet: all unsafe, as the anchor may be on
    another device on purpose. No fix borrows the device of a module the tensor is
    handed to (a module has no `.device`) or moves a nested function that captured the
    tensor (`pick(name, x)`): such findings come without a fix. A factory kept for later
    (`self.window_fn(n)`) gets no `device=`, since the caller may give a function that
    takes none: only the move where it meets (unsafe). Nor is an anchor one the
    fix cannot trust (`_anchors.py`): a parameter read as a dict, tuple or None, an
    attribute of an object of unknown type, a `device` index with `-1` for the CPU, a
    parameter the function never reads or moves itself (or a copy of it) to a device; no
    accumulator updated in place is moved (`total += x`, `out=total`), no `device=` goes
    to a pinned staging buffer (`pin_memory=`, only a CPU tensor can be one), and no
    `device=` is added that
    would mix the tensor with a CPU one no finding moves, or one put on the CPU on purpose
    (an index `labels.cpu()` it is scattered through: the move where it meets instead).
    Where a pipeline meets its caller's data as passed, or a function nested in a method
    meets what its parameters bring, the fix borrows that data's device (unsafe), not
    `self.device`; no `self.device` in a module's methods that `__init__` calls.
    The move where they meet never borrows `.device` from a tuple of tensors (`pos =
    torch.nonzero(m, as_tuple=True)`, `torch.where(m)`, `x.split(2)`), nor from a name that
    may hold a Python number (`start = ids.max() + 1 if ids else 0`): such a finding
    comes without that fix.
    Not flagged, because no device is mixed: a tensor made in a `with torch.device(d):` (or
    `with batch.ids.device:`) block (by a factory there or by a function it calls; not
    `torch.from_numpy`, which shares an array's CPU memory) is made on `d`; code of a class
    whose `device` property returns the CPU (or a base's does), and code outside model code
    of a module bound to a host runtime (it uses OpenVINO's inference or Intel's NPU
    library, which take and give CPU tensors, directly or through the project's own code
    built on them: a class deriving from the library's, however many steps away; not
    `openvino.convert_model` nor the opset operations a converter builds its graph with,
    which run a torch model where it is).
    A tensor that is moved before it meets anything
    (`torch.arange(n)[:k].to(x.device)`, `torch.cat([a, b]).to(x.device)`,
    `if m is not None: m = m.to(x.device)`, `if torch.cuda.is_available(): t = t.cuda()`,
    `if self.use_cuda: t = t.cuda()` under the user's device flag: the path that skips the
    move has no GPU to meet; `torch.sparse_coo_tensor(indices, values, device=d)` copies
    them to `d`), also by a helper that returns it
    moved on one path and as it was on another (`return t.cuda() if nccl else t`: the
    helper places it), moved to a tensor's device (`ret.to(seq)`), whichever branch
    made that tensor, converted to another tensor's type (`.type(x.type())`, which names
    `x`'s device type, like `.type_as(x)`: off the CPU wherever `x` is) or to a GPU tensor
    type (`.type(torch.cuda.FloatTensor)`: the current GPU, like `.cuda()`), also the type a
    parameter gives where the call gives another tensor's (`make_grid(n, x.type())`; a
    dtype casts, which only a call in the function's own file is seen to give; in the
    function itself, where every call in its file gives one: `self.decode(x, x.type())`),
    copied into a device tensor (`t.copy_(m)`), `.cpu()`, `.tolist()`, `.item()`, `.numpy()`;
    one that only meets Python numbers (`isinstance(v, (int, float))` says so), host values
    or other CPU tensors (`torch.rand(1) < 0.5`), a parameter-free module kept on `self`
    (`self.softmax`), a module whose output the function reads as a NumPy array as it
    comes (`policy(x).detach().numpy()`, or `masks, scores = predictor(x)` then
    `masks.numpy()` with no move of `masks`: `.numpy()` refuses device tensors, so the
    module runs on the CPU there), or meets nothing at all; a CPU index into a device
    tensor (`x[torch.arange(n)]`), or one written through a plain index (`x[0] = t`,
    `x[:, :2] = t`: a copy across devices), or through device indices (`mask[(rows, cols)]
    = True`: `index_put_` copies the indices to the mask's device); a CPU tensor indexed by
    a 0-dim device index (`order[scores.argmax()]`, read as a Python number); one made in
    the branch where the tensor it meets is on the CPU (`if x.device ==
    torch.device("cpu"):`), or in the branch a device flag takes for the CPU (the `else` of
    `if self.use_gpu:`, or of `if self.gpu != -1:`); one met only in the branch where it
    is on the GPU (`if ddp and v.is_cuda:`), or moved there (`if x.is_cuda: t = t.cuda()`,
    `if isinstance(x, torch.cuda.FloatTensor):`, `t.cuda() if is_cuda else t` after
    `is_cuda = x.is_cuda`, also in a helper: where `x` is not, `t` stays on the CPU with
    it); one moved by keyword arguments that hold a device (`t.to(**self.tpdv)` of
    `self.tpdv = dict(dtype=..., device=device)`); one made by a program that makes
    factories put tensors on the GPU as each of its scripts starts
    (`torch.set_default_tensor_type("torch.cuda.FloatTensor")`, not under an `if`; not
    `torch.from_numpy` or `torch.LongTensor(...)`, which stay on the CPU); an index moved
    to the CPU wherever it is on the GPU (`if i.is_cuda: i = i.cpu()`) that scatters into
    a CPU tensor; a CPU index or mask whose tensor a CPU one reads or writes through
    (`torch.zeros(n).scatter(0, times, 1)`: the result is where the indexed tensor is, and
    only its creation is blamed where the result meets the device); one moved under `if
    device is not None:` (also `and device.type != "cpu"`: a caller that gives no device
    keeps everything where it is made); one that
    meets a parameter before the function moves that parameter's data to a device itself
    (`images * w` beside `model(images.to(self.device))`, or `to_device(batch, d)` of what
    it derived: the caller hands it on the host); what a function of the file places with
    a device parameter that the call leaves to a CPU default (`device=torch.device("cpu")`,
    or `device=None`, which a factory reads as the CPU: on the CPU, also kept in a list); one
    combined with a tensor put on the CPU on purpose, such as lengths a file hands to
    `pack_padded_sequence` as they are (its lengths must be on the CPU); counts per item
    (their elements bound slices, `y[b, : counts[b]]`) handed to a module; a branch only
    an ONNX export or an fx trace takes (`if torch.onnx.is_in_onnx_export():`, `if
    is_torch_fx_proxy(ids):`); 0-dim scalars such as
    `torch.tensor(3.0)`, `torch.tensor(math.sqrt(d))` or `torch.rand([])`, which PyTorch
    lets meet a device tensor in arithmetic, comparisons, `torch.where` and `masked_fill`
    (but not in `torch.stack`/`cat`, as a tensor bound of `clamp`, in `index_select`,
    `searchsorted` or a collective, which check every tensor's device first, nor as the
    tensor an in-place update writes, `total += loss`), and the elements a loop takes
    from a one-dimensional one (`for i in torch.arange(n)`); an empty tensor
    (`torch.Tensor([])`, `torch.empty(0)`) anywhere but in `torch.cat`, the only place
    where its shape fits next to others (elsewhere it is a sentinel, used on another
    path); `torch.zeros_like(x)`, `x.new_zeros(...)`, `torch.tensor(x)` or
    `torch.Tensor(x)` of a tensor; one whose only partner gives its shape
    (`.expand_as(x)`, `.view_as(x)`, `.reshape_as(x)`); calls with `**kwargs` or
    `out=`; a meeting with a tensor parameter of a method (or private function, static
    method called on its class, function nested in another, or public function of a
    program's module that no other file names and none finds by a computed name, where
    the project is not packaged for others to call) that every call in the file
    gives host data or CPU tensors (also a few calls up, where a caller passes its own
    parameter on), or values it cannot place while moving the result to the device (at
    once, or through the name it is bound to): the helper works on the CPU by design; the
    arguments of a function nested in the caller, which meet only what they meet inside
    it; a parameter of a function wrapped by a decorator not known to pass its arguments
    on as they are (a project's `@auto_move_data` may move them first); a parameter the
    function asks `hasattr` or `getattr` about (an object, not a tensor); a collective on
    a CPU group (`group=cpu_group`, a name bound only to one, `group =
    ctx.get_cpu_group()`, an attribute the project, in any file, assigns only process
    groups made with gloo: `self.group = new_group(ranks, backend="gloo")`, or through a
    project function handing its backend on to torch; or, given no such attribute, in a
    file that makes a gloo process group: `init_process_group(backend="gloo")`, through
    such a function too, or a backend read from a setting in a file that
    names gloo and never NCCL), in a function that asks the backend
    (`get_backend(group)`, `Backend.NCCL`, `"gloo"`) and places its tensors by it, and
    the `*_object` collectives, which place their tensors themselves; a library
    function that hands its tensors to NumPy without `.cpu()` (it gets CPU tensors); what
    only meets CPU tensors by design: `torch._shape_as_tensor(x)` (or
    `torch.onnx.operators.shape_as_tensor(x)`), `torch.tensor` of a list
    (of tensors too: it copies their values to the CPU), a helper object made outside
    `__init__`, another library's `torch.ops`, a parameter holding a dataset
    (`train_dataset`), the samples a collate function is given (one handed to a loader as
    `collate_fn=` anywhere in the project, or named like one: `pad_collate`, or a method
    of a class named like one: `MaskCollator._sample`), and what data-loading code hands a
    project function whose every caller (through project functions, however many calls
    away) is a Dataset's method, a collate function or the `__getitem__` of a class with
    the map-style dataset protocol (`__getitem__` and `__len__`, no `Dataset` base needed):
    DataLoader workers prepare samples on the CPU; unless it moves them to a device first
    or a model's forward path calls it (a function the project never calls keeps its
    findings); a CPU index or mask
    into a device tensor (`x[mask]`); Python's `+` of tuples; the 0-dim elements of
    `torch.rand(2)` or `torch.tensor([a, b])`, and of `torch.rand((n, n))` picked with two
    number indices (`m[i][j]`); the targets of `nn.CTCLoss`; a placeholder
    that every branch of an `if`/`elif` over the options of a mode replaces; an
    `if x is None:` branch that the caller's tensor skips; a device taken from the result
    itself (`device=image.device`); a function passed as a parameter (`Callable`); and
    code in tests, which places its tensors where it means to run. A function defined in
    the one that makes the tensor (a `def`, or a lambda bound to a name: `dot = lambda g:
    grid * g`) is followed where it is called, with what the call passes it. A tensor
    passed to or returned from a project function is followed there, in another file too:
    it is reported where it is made if it meets the device inside the function it is passed
    to (with an argument the caller has on the device), or inside one that function hands it
    on to with that
    argument (in its own file or another, a few calls deep), or where a caller uses the result
    (functions of a module, not methods, for now; returned whole, not as one element of a tuple,
    and not reduced to 0-dim there), also when that function's result follows the tensor only
    through another file's function it calls (a few calls deep). In the file, a name unpacking a
    helper's result (`a, b = f(x)`) holds only the element `f` writes out in its place. A
    0-dim one a function returns where its other returns are on the device (`return x.mean()
    if x.numel() else torch.tensor(0.0)`) is reported where callers in other files hand its
    results, collected or alone, to a function that joins them into one tensor
    (`torch.cat(xs)` of a parameter, after giving 0-dim ones a dimension): there the CPU
    zero meets the other results. A function that only hands its own `*args, **kwargs` on
    to another file's function (`return f(*args, **kwargs)`) is that function to its callers.
    `torch.tensor` of what a method of an object `__init__` made returns
    (`self.client = Client(url)`, then `self.client.generate(...)`, or its elements) is a
    CPU tensor where that method, through its class's bases and in any file, returns Python
    data on every path (an HTTP response's `.json()`); a module's method returns tensors,
    which `torch.tensor` copies on their device.
    """

    code = "DEV003"
    name = "factory-without-device"
    summary = "Tensor made on the CPU meets the computation's device"
    fix_safety = "safe/unsafe"
    node_types = ("Call",)
    # Every report needs a call whose qualified name is `torch.<factory>`: only an import
    # binds a name to `torch...` (`import torch as T`, `from torch import zeros as z`), and
    # its text spells `torch` (a relative import inside the `torch` package aside).
    triggers = ("torch",)
    only_in_model_code = True  # resolve: `_reports_in(scope)`
    reports_in_device_context = True  # files with no model code may hold a device context

    VALID = (
        # Moved to the GPU where the tensor it meets is there (asked in a helper a module
        # calls, or by the legacy type), and left on the CPU where that one is too.
        "import torch\nfrom torch import nn\n\n"
        "def regularizer(trans):\n"
        "    eye = torch.eye(trans.size(1))[None, :, :]\n"
        "    if trans.is_cuda:\n"
        "        eye = eye.cuda()\n"
        "    return torch.bmm(trans, trans.transpose(2, 1)) - eye\n\n"
        "class Loss(nn.Module):\n"
        "    def forward(self, pred, trans):\n"
        "        return pred.mean() + regularizer(trans).mean()\n",
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        out = F.avg_pool3d(x, kernel_size=1)\n"
        "        pads = torch.zeros(out.size(0), 4, out.size(2))\n"
        "        if isinstance(out.data, torch.cuda.FloatTensor):\n"
        "            pads = pads.cuda()\n"
        "        return torch.cat([out.data, pads], dim=1)\n",
        # Moved at once to the device the model keeps, by whatever name (`self.dev`,
        # read from the command line as a string): a move, not a cast.
        "import torch\n\n"
        "class Recommender(torch.nn.Module):\n"
        "    def __init__(self, n, args):\n"
        "        super().__init__()\n"
        "        self.dev = args.device\n"
        "        self.item_emb = torch.nn.Embedding(n, 8)\n\n"
        "    def forward(self, log_seqs):\n"
        "        return self.item_emb(torch.LongTensor(log_seqs).to(self.dev))\n",
        # The same test kept in a local, and a move chosen by it in one expression.
        "import torch\nfrom torch import nn\n\n"
        "class Decoder(nn.Module):\n"
        "    def forward(self, latent):\n"
        "        is_cuda = latent.is_cuda\n"
        "        decoded = torch.zeros(latent.size(0), latent.size(1))\n"
        "        decoded = decoded.cuda() if is_cuda else decoded\n"
        "        done = torch.ones(latent.size(1))\n"
        "        if is_cuda:\n"
        "            done = done.cuda()\n"
        "        return latent + decoded + done\n",
        # Moved by keyword arguments kept for it (`dict(dtype=..., device=...)`).
        "import numpy as np\nimport torch\nfrom torch import nn\n\n"
        "class PopArt(nn.Module):\n"
        "    def __init__(self, n, device=torch.device('cpu')):\n"
        "        super().__init__()\n"
        "        self.tpdv = dict(dtype=torch.float32, device=device)\n"
        "        self.weight = nn.Parameter(torch.ones(n, n))\n\n"
        "    def forward(self, x):\n"
        "        if isinstance(x, np.ndarray):\n"
        "            x = torch.from_numpy(x)\n"
        "        x = x.to(**self.tpdv)\n"
        "        return nn.functional.linear(x, self.weight)\n",
        # A module bound to a host runtime (OpenVINO takes and gives host arrays): its
        # tensors are on the CPU, as what they meet.
        "import openvino as ov\nimport torch\n\n"
        "class VisionEmbedder:\n"
        "    def __init__(self, model_path):\n"
        "        self.model = ov.Core().compile_model(model_path)\n\n"
        "    def merge(self, pixel_values, inputs_embeds):\n"
        "        features = torch.from_numpy(self.model(pixel_values)[0])\n"
        "        return inputs_embeds + features\n",
        # Made in a `with torch.device(...)` block: factories there (and the functions they
        # call) make their tensors on that device.
        "import torch\nimport torch.nn as nn\n\n"
        "def grid(n):\n"
        "    return torch.zeros(n, 2)\n\n"
        "class Pos(nn.Module):\n"
        "    def forward(self, x):\n"
        "        with torch.no_grad(), torch.device(x.device):\n"
        "            steps = torch.arange(x.shape[-1])\n"
        "            cells = grid(x.shape[0])\n"
        "        return x * steps + cells.sum()\n",
        # A device itself is a context too (`with batch.ids.device:`): whatever it is, the
        # factories there make their tensors on it.
        "import torch\nimport torch.nn as nn\n\n"
        "class Pad(nn.Module):\n"
        "    def forward(self, x, batch):\n"
        "        with batch.ids.device:\n"
        "            images = torch.zeros(x.shape[0], 3)\n"
        "        return x + images\n",
        # Nested lists hold what their inner lists are given: here CPU statistics only.
        "import torch\nimport torch.nn as nn\n\n"
        "class Stats(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(3, 3)\n\n"
        "    @staticmethod\n"
        "    def gap(g: torch.Tensor, mins: torch.Tensor) -> torch.Tensor:\n"
        "        return (g - mins).sum(dim=1)\n\n"
        "    def fit(self, batches):\n"
        "        mins = [[None] for _ in range(3)]\n"
        "        for layer, x in enumerate(batches):\n"
        "            mins[layer][0] = self.proj(x).cpu()\n"
        "        g = self.proj(batches[0]).cpu()\n"
        "        dev = torch.zeros(len(g))\n"
        "        dev += self.gap(g, mins[0][0])\n"
        "        return dev\n",
        # What the code hands to NumPy it holds on the host (INVALID: `logging` takes
        # device tensors too); a distribution is where the tensors it is built from are.
        "import numpy as np\n"
        "import torch\n"
        "from torch.distributions import Normal\n"
        "\n"
        "\n"
        "class Tuner:\n"
        "    def __init__(self, model: torch.nn.Module, device):\n"
        "        self.model = model\n"
        "        self.device = device\n"
        "\n"
        "    def pick(self, x):\n"
        "        m, v = self.model(x)\n"
        "        if np.isnan(m).any() or np.isnan(v).any():\n"
        "            return None\n"
        "        mean = torch.Tensor(m)\n"
        "        u = (mean - torch.Tensor([0.95]).expand_as(mean)) / torch.Tensor(v)\n"
        "        normal = Normal(torch.zeros_like(u), torch.ones_like(u))\n"
        "        return u * normal.cdf(u)\n",
        # A distribution built from CPU tensors samples on the CPU (INVALID: from a model's).
        "import torch\n"
        "from torch.distributions import Normal\n"
        "\n"
        "\n"
        "class Sampler:\n"
        "    def __init__(self, model: torch.nn.Module, device):\n"
        "        self.model = model\n"
        "        self.device = device\n"
        "\n"
        "    def draw(self, n: int):\n"
        "        normal = Normal(torch.zeros(n), torch.ones(n))\n"
        "        return normal.sample() + torch.rand(n)\n",
        # An item of a dict, moved where it is kept, is read back moved (INVALID: moved on
        # one path only).
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class Multi(nn.Module):\n"
        "    def forward(self, x, tasks):\n"
        "        indices: dict[str, torch.Tensor] = {\n"
        "            task: torch.LongTensor(rows) for task, rows in tasks.items()\n"
        "        }\n"
        "        outputs = []\n"
        "        for task in indices:\n"
        "            indices[task] = indices[task].to(x.device)\n"
        "            outputs.append(torch.index_select(x, 0, indices[task]))\n"
        "        return outputs\n",
        # A `device=None` the call leaves as it is reaches the factory as its default, the
        # CPU: the centres are CPU data like the steps, and both move together (INVALID:
        # a helper that replaces the None with its input's device).
        "import torch\nfrom torch import nn\n\n"
        "def centers(n, device=None):\n"
        "    edges = torch.linspace(0, 1, n + 1, device=device)\n"
        "    return (edges[:-1] + edges[1:]) / 2\n\n"
        "class Rope(nn.Module):\n"
        "    def forward(self, x):\n"
        "        t = torch.arange(x.shape[1])\n"
        "        grid = torch.stack(torch.meshgrid(t, centers(x.shape[2]), indexing='ij'))\n"
        "        return x + grid.to(x.device)\n",
        # A device parameter left to its CPU default places on the CPU: the pairs kept in
        # a plain list and the grid are CPU data, like the shifts (INVALID: given x.device).
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Anchors(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        self.sizes = sizes\n"
        "        self._pairs = self._make_pairs(len(sizes))\n\n"
        '    def _make_pairs(self, n: int, device: torch.device = torch.device("cpu")):\n'
        "        return [torch.as_tensor(self.sizes[k], device=device) for k in range(n)]\n\n"
        '    def grid(self, n: int, device: torch.device = torch.device("cpu")):\n'
        "        return torch.arange(n, device=device)\n\n"
        "    def forward(self, x):\n"
        "        shifts = torch.arange(x.shape[-1]) + self.grid(x.shape[-1])\n"
        "        return torch.cat((shifts, self._pairs[0])).to(x.device)\n",
        # A pipeline that moves its caller's images to the device itself is handed them
        # on the host: before the move they meet CPU weights there (INVALID: the model
        # takes them as they are). Also after deriving from them, and through a helper
        # named for the move (`to_device(batch, d)`).
        "import torch\n\n\n"
        "class Pipeline:\n"
        "    def __init__(self, model, device):\n"
        "        self.device = device\n"
        "        self.model = model.to(device)\n\n"
        "    def __call__(self, images):\n"
        "        weights = torch.linspace(0, 1, images.shape[-1])\n"
        "        return self.model(images.to(self.device)), images * weights\n",
        "import torch\nfrom utils import to_device\n\n\n"
        "class Streaming:\n"
        "    def __init__(self, model, device):\n"
        "        self.device = device\n"
        "        self.model = model.to(device)\n\n"
        "    def frontend(self, speech: torch.Tensor, pad: int):\n"
        "        speech = torch.cat([speech, torch.zeros(pad)], dim=0)\n"
        '        batch = {"speech": speech.unsqueeze(0).to(getattr(torch, "float32"))}\n'
        "        batch = to_device(batch, device=self.device)\n"
        "        return self.model(**batch)\n",
        # A model told the device (`device=`) puts what it is given there itself.
        "import numpy as np\nimport torch\n\n"
        'def denoise(path, model, device: str = "cuda") -> torch.Tensor:\n'
        "    audio = torch.from_numpy(np.load(path))\n"
        "    if model.samplerate != 16000:\n"
        "        raise ValueError(path)\n"
        "    return model(audio=audio, device=device).mean(dim=0)\n",
        # Moved where the caller says; a caller that gives no device keeps everything here.
        "import torch\nimport torch.nn as nn\n\n"
        "class Features(nn.Module):\n"
        "    def forward(self, audio, device=None):\n"
        "        window = torch.hann_window(400)\n"
        "        if device is not None:\n"
        "            audio = audio.to(device)\n"
        "            window = window.to(device)\n"
        "        return torch.stft(audio, 400, window=window, return_complex=True)\n",
        # Moved where a helper says the module is, unless it is on the CPU (or has no
        # parameters: `None`); items of a dict picked by name are no index of a tensor.
        "import numpy as np\nimport torch\nimport torch.nn as nn\n\n"
        "def get_device(model):\n"
        "    params = list(model.parameters())\n"
        "    return params[0].device if params else None\n\n"
        "class Executor(nn.Module):\n"
        "    def __init__(self, input_names, operators):\n"
        "        super().__init__()\n"
        "        self.input_names = input_names\n"
        "        self.operators = nn.ModuleList(operators)\n\n"
        "    def forward(self, *inputs):\n"
        "        device = get_device(self)\n"
        "        variables = {}\n"
        "        for name, array in zip(self.input_names, inputs):\n"
        "            value = torch.from_numpy(np.asarray(array))\n"
        '            if device is not None and device.type != "cpu":\n'
        "                value = value.to(device)\n"
        "            variables[name] = value\n"
        "        for operator in self.operators:\n"
        "            outputs = operator(*(variables[n] for n in operator.inputs))\n"
        "        return outputs\n",
        # A static method called through `self` binds its first parameter to the first
        # argument: the CPU statistics meet only CPU statistics.
        "import torch\n\n"
        "class Gram:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    @staticmethod\n"
        "    def deviation(g: torch.Tensor) -> torch.Tensor:\n"
        "        return g.sum(dim=1)\n\n"
        "    def fit(self, g):\n"
        "        g = self.model(g).cpu()\n"
        "        dev = torch.zeros(len(g))\n"
        "        dev += self.deviation(g)\n"
        "        return dev\n",
        # Only torch.fx tracing takes the proxy branch; the eager path uses `new_zeros`.
        "import torch\nimport torch.nn as nn\nfrom transformers.utils import is_torch_fx_proxy\n\n"
        "class Shift(nn.Module):\n"
        "    def forward(self, ids):\n"
        "        if is_torch_fx_proxy(ids):\n"
        "            start = torch.full(ids.shape[:-1] + (1,), 0)\n"
        "            return torch.cat([start, ids[..., :-1]], dim=-1)\n"
        "        shifted = ids.new_zeros(ids.shape)\n"
        "        shifted[..., 1:] = ids[..., :-1]\n"
        "        return shifted\n",
        # A Trainer subclass whose own `_prepare_inputs` hands the batch back as it is: the
        # tokenizer's tensors stay on the CPU, and so does what they meet.
        "import torch\nfrom transformers import Trainer\n\n"
        "class Scorer(Trainer):\n"
        "    def _prepare_inputs(self, inputs):\n"
        "        return inputs\n\n"
        "    def compute_loss(self, model, inputs, return_outputs=False):\n"
        '        batch = self.tokenizer(inputs["text"], return_tensors="pt")\n'
        "        batch = self._prepare_inputs(batch)\n"
        '        offsets = torch.arange(batch["input_ids"].shape[1])\n'
        '        return (batch["input_ids"] + offsets).sum()\n',
        # A parameter-free module made on the spot (`nn.Softmax(dim=-1)`) has no device.
        "import torch\nimport torch.nn as nn\n\n"
        "class Scorer(nn.Module):\n"
        "    def forward(self, batch):\n"
        "        scores = torch.tensor([self.net(b).item() for b in batch])\n"
        "        return nn.Softmax(dim=-1)(scores).numpy()\n",
        # So has a loss made on the spot without a weight tensor.
        "import torch\nimport torch.nn as nn\n\n"
        "class Scorer(nn.Module):\n"
        "    def forward(self, batch):\n"
        "        scores = torch.tensor([s.item() for s in batch])\n"
        '        loss = nn.CrossEntropyLoss(reduction="none")\n'
        "        return loss(scores[None], torch.zeros(1, dtype=torch.long)).tolist()\n",
        # `self(steps)` runs the class's own forward, which moves its input first.
        "import torch\nimport torch.nn as nn\n\n"
        "class Ramp(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        '        self.register_buffer("table", torch.randn(dim, dim))\n\n'
        "    def forward(self, x):\n"
        "        if x.dim() == 4:\n"
        "            return self.grid(x.shape[-1]).to(x)\n"
        "        x = x.to(self.table.device)\n        return x @ self.table\n\n"
        "    def grid(self, n):\n"
        "        steps = torch.arange(1, n + 1).unsqueeze(0)\n"
        "        return self(steps).transpose(1, 2)\n",
        # `broadcast_tensors` expands each tensor where it is: a shape-only CPU placeholder.
        "import torch\n\ndef constant(value, shape, device):\n"
        "    x = torch.as_tensor(value, device=device)\n"
        "    x, _ = torch.broadcast_tensors(x, torch.empty(shape))\n"
        "    return x.contiguous()\n",
        # The branch a device flag takes for the CPU: the user chose the CPU there.
        "import torch\nfrom torch import nn\n\n"
        "class Balancer(nn.Module):\n"
        "    def __init__(self, use_gpu):\n"
        "        super().__init__()\n"
        "        self.use_gpu = use_gpu\n\n"
        "    def forward(self, scores):\n"
        "        if self.use_gpu:\n"
        "            weights = torch.ones(scores.shape[0]).cuda()\n"
        "        else:\n"
        "            weights = torch.ones(scores.shape[0])\n"
        "        return scores * weights\n",
        # 0-dim CPU tensors where a TensorIterator (or `where` itself) lets them meet CUDA.
        "import torch\nimport torch.nn as nn\n\n"
        "class Gate(nn.Module):\n"
        "    def forward(self, x):\n"
        "        floor = torch.tensor(0.0)\n"
        "        y = torch.where(x > floor, x, floor) * torch.log(torch.tensor(2.0))\n"
        "        y = y.masked_fill(y > 1, torch.tensor(1.0)) + torch.maximum(y, floor)\n"
        "        return torch.stack([y.sum(), y.mean()]).clamp(0, 1) < torch.rand([])\n",
        # A 0-dim CPU tensor as the argument of an in-place update of a device tensor, or
        # updated by a copy across devices, or rebound (not updated) to a sum on the device.
        "import torch\nimport torch.nn as nn\n\n"
        "class Accumulate(nn.Module):\n"
        "    def forward(self, x):\n"
        "        x += torch.tensor(2.0)\n"
        "        x.mul_(torch.tensor(0.5))\n"
        "        last = torch.tensor(0.0)\n"
        "        last.copy_(x.mean())\n"
        "        total = torch.tensor(0.0)\n"
        "        total = total + x.sum()\n"
        "        return total, last\n",
        # A collective blames a CPU tensor in any scope, but only one it may take: this
        # helper's tensor reaches none (no function calling one names it), and a plain
        # function is no device context.
        "import torch\nimport torch.distributed as dist\n\n"
        "def lengths(batch):\n"
        "    return torch.tensor([len(b) for b in batch])\n\n"
        "def sync(x):\n"
        "    dist.all_reduce(x)\n",
        # A 0-dim draw (layerdrop) beside a `torch.stack` of other tensors, and a tensor put
        # on the CPU that nothing indexes: neither is blamed.
        "import torch\nimport torch.nn as nn\n\n"
        "class Decoder(nn.Module):\n"
        "    def forward(self, x, drop: float):\n"
        "        states = []\n"
        "        for layer in self.layers:\n"
        "            if torch.rand([]) < drop:\n"
        "                continue\n"
        "            x = layer(x)\n"
        "            states.append(x)\n"
        "        self.last = x.detach().cpu()\n"
        "        return torch.stack(states)\n",
        # Collectives in a file that makes a gloo process group (`"cpu:gloo,cuda:nccl"`
        # too): gloo takes CPU tensors.
        "import torch\nimport torch.distributed as dist\n\n"
        "def setup(rank, world):\n"
        '    dist.init_process_group(backend="cpu:gloo,cuda:nccl", rank=rank, world_size=world)\n\n'
        "def count_all(done):\n"
        "    total = torch.tensor(len(done))\n"
        "    dist.all_reduce(total)\n"
        "    return total.item()\n",
        # A backend read from a setting in a file that names only gloo is gloo (INVALID:
        # the file names NCCL too, or leaves the backend to the default, NCCL on a GPU).
        "import os\nimport torch\nimport torch.distributed as dist\n\n"
        "class Communicator:\n"
        "    def __init__(self, rank, world):\n"
        '        backend = os.environ.get("DISTRIBUTED_BACKEND", "gloo")\n'
        "        dist.init_process_group(backend=backend, rank=rank, world_size=world)\n\n"
        "    def send_size(self, data, dst):\n"
        "        dist.send(torch.tensor(len(data)), dst=dst)\n",
        "import torch\nfrom torch import distributed as dist\n\n"
        'GROUP = dist.new_group(None, None, "gloo")\n\n'
        "def gather_sizes(x):\n"
        "    sizes = [torch.zeros(1) for _ in range(dist.get_world_size())]\n"
        "    dist.all_gather(sizes, torch.tensor([x.shape[0]]))\n"
        "    return sizes\n",
        # Over a group kept in an attribute the project assigns only groups made with gloo,
        # through a function handing the backend on (positional group too).
        "import torch\nimport torch.distributed as dist\n\n"
        "def custom_group(ranks, backend='nccl'):\n"
        "    return dist.new_group(ranks=ranks, backend=backend)\n\n"
        "class Controller:\n"
        "    def __init__(self, ranks, device):\n"
        "        self.device = device\n"
        '        self.prefetch_group = custom_group(ranks, backend="gloo")\n\n'
        "    def agree(self, count):\n"
        "        hits = torch.tensor([count], dtype=torch.int)\n"
        "        dist.all_reduce(hits, dist.ReduceOp.MIN, self.prefetch_group)\n"
        "        return hits.item()\n",
        # Collectives: on a CPU (gloo) group, placed by the backend, objects, device tensors.
        "import torch\nimport torch.distributed as dist\n\n"
        "def sync(cpu_group):\n"
        "    sizes = torch.zeros(4)\n"
        "    dist.all_reduce(sizes, group=cpu_group)\n"
        "    dist.broadcast_object_list([sizes.tolist()])\n"
        "    dist.all_reduce(torch.zeros(4, device=torch.cuda.current_device()))\n\n"
        "def sync_seed(group=None):\n"
        "    seed = torch.randint(0, 100, (1,))\n"
        '    if dist.get_backend(group) == "nccl":\n'
        "        seed = seed.cuda()\n"
        "    dist.broadcast(seed, 0, group=group)\n"
        "    return seed.item()\n",
        # Moved to the process's GPU by its index: an int names a GPU (`.to(local_rank)`).
        "import os\nimport torch\nimport torch.distributed as dist\n\n"
        "def train_epoch(model, loader):\n"
        '    local_rank = int(os.environ["LOCAL_RANK"])\n'
        "    loss_sum = torch.zeros(2).to(local_rank)\n"
        "    for x in loader:\n"
        "        loss_sum[0] += model(x).item()\n"
        "    dist.all_reduce(loss_sum)\n"
        "    return loss_sum\n",
        # Moved to the GPU wherever there is one before the collective (the path that
        # skips the move has only gloo), on a CPU group bound by name, or handed over only
        # where it is on the GPU (`v.is_cuda`).
        "import torch\nimport torch.distributed as dist\n\n"
        "def count_params(model):\n"
        "    total = torch.tensor([sum(p.numel() for p in model.parameters())])\n"
        "    if torch.cuda.is_available():\n"
        "        total = total.cuda()\n"
        "    dist.all_reduce(total)\n"
        "    return total.item()\n\n"
        "def scatter_state(ctx, shape):\n"
        "    group = ctx.get_cpu_group()\n"
        "    output = torch.empty(shape)\n"
        "    dist.broadcast(output, 0, group=group)\n"
        "    return output\n\n"
        "def reduce_metrics(output, distributed):\n"
        "    for key, v in output.items():\n"
        "        if isinstance(v, float):\n"
        "            v = torch.tensor([v])\n"
        "        if distributed and v.is_cuda:\n"
        "            dist.all_reduce(v)\n"
        "        output[key] = v.detach()\n",
        # Moved to where `seq` is, whichever branch made it: the two never differ.
        "import torch\nimport torch.nn as nn\n\n"
        "def pad_to(seq, length, pad_value=0):\n"
        "    if isinstance(seq, torch.Tensor):\n"
        "        n = seq.shape[0]\n"
        "    else:\n"
        "        n = len(seq)\n"
        "        seq = torch.tensor(seq)\n"
        "    ret = torch.stack([pad_value] * (length - n)).to(seq)\n"
        "    return torch.cat([seq, ret])\n\n"
        "class Embedder(nn.Module):\n"
        "    def forward(self, boxes):\n"
        "        return pad_to(boxes, 16)\n",
        # A trainer's tensor that meets only a Python number and the host.
        "import torch\n\nclass Trainer:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def log_step(self, losses):\n"
        "        total = torch.tensor(losses).sum()\n"
        "        return float(total / 2)\n",
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x):\n"
        "        a = torch.zeros_like(x) + x.new_zeros(3) + torch.tensor(3.0)\n"
        "        b = torch.arange(4).to(x.device) + torch.arange(4).float().to(self.device)\n"
        "        n = torch.randperm(10).tolist()\n"
        "        return a + b + torch.zeros(3, device=self.device) + torch.tensor(x)\n",
        # Not a forward path: configure_optimizers runs once, on the CPU side.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def configure_optimizers(self):\n"
        "        return torch.optim.Adam(self.parameters(), lr=torch.tensor(1e-3).item())\n",
        # Keyword arguments forwarded from the caller may carry the device.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, **kwargs):\n"
        "        return torch.zeros(3, **kwargs)\n",
        # Not model code.
        "import torch\n\ndef make_batch():\n    return torch.zeros(3)\n",
        # CPU tensors where CPU tensors belong: indices, conditions, plots, moved later.
        "import torch\nimport pytorch_lightning as pl\nimport matplotlib.pyplot as plt\n\n"
        "class M(pl.LightningModule):\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        picked = batch[torch.arange(4), batch.argmax(-1)]\n"
        "        order = torch.randperm(4)\n"
        "        if torch.rand(1) < 0.5:\n"
        "            picked = picked[order]\n"
        "        steps = torch.arange(4)\n"
        "        plt.plot(steps, picked.detach().cpu())\n"
        "        mask = torch.ones(4).bool()\n"
        "        mask = mask.to(picked.device)\n"
        "        return picked[mask].sum()\n",
        # A dict a helper of the file returns: a subscript picks an item by its key, even a
        # key the flow cannot read (stablediffusion's `batch[ck]` for `ck` in model keys).
        "import numpy as np\nimport torch\n\n"
        "def make_batch(image, device):\n"
        "    pixels = torch.from_numpy(np.asarray(image)).float()\n"
        '    batch = {"lr": pixels[None], "hr": None}\n'
        '    batch["lr"] = batch["lr"].to(device)\n'
        "    return batch\n\n"
        "def upscale(model, image, device):\n"
        "    batch = make_batch(image, device)\n"
        "    return [model(batch[key]) for key in model.concat_keys]\n",
        # Hooks where CPU tensors are right: before the transfer, in checkpoints, at epoch end.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def on_before_batch_transfer(self, batch, dataloader_idx):\n"
        '        batch["mask"] = torch.ones(4)\n'
        "        return batch\n\n"
        "    def on_save_checkpoint(self, checkpoint):\n"
        '        checkpoint["w"] = torch.tensor([0.2, 0.8])\n\n'
        "    def on_validation_epoch_end(self):\n"
        "        bins = torch.linspace(0, 1, 11)\n"
        "        self.hist = torch.bucketize(self.scores.cpu(), bins)\n",
        # transformers' data collators are not models, whatever their name says.
        "import torch\nfrom transformers import DataCollatorForLanguageModeling\n\n"
        "class Collator(DataCollatorForLanguageModeling):\n"
        "    def __call__(self, features):\n"
        "        return torch.full((len(features), 8), -100)\n",
        # A parameter default is not run on the forward path's device.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, scale=torch.ones(3)):\n"
        "        return x * scale.to(x.device)\n",
        # A throwaway tensor made only to ask the default device or dtype.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        floating = torch.empty(0, dtype=x.dtype).is_floating_point()\n"
        "        return x if floating else x.float()\n",
        # Set up once, moved with the module; moved at once; NumPy's factories.
        "import numpy as np\nimport torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(n))\n\n"
        "    def forward(self, x):\n"
        "        noise = torch.randn(x.shape).type_as(x)\n"
        "        return x * self.scale + noise, np.zeros(3)\n",
        # A tensor type names a device type: `.type(x.type())` ('torch.cuda.FloatTensor' on a
        # GPU) puts the tensor where `x` is, as `.type_as(x)` does, also through a name
        # bound to it (`kind = x.type()`); a type the code picks by `x.is_cuda`, or a GPU
        # type it names (`"torch.cuda.FloatTensor"`), on the current GPU, as `.cuda()` does:
        # no CPU tensor meets `x`, with or without a set-up that makes a GPU current.
        "import torch\nfrom torch import nn\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x):\n"
        "        grid = torch.arange(x.shape[1]).type(x.type())\n"
        "        kind = x.type()\n"
        "        ones = torch.ones(x.shape[1]).type(kind)\n"
        "        FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor\n"
        "        steps = torch.linspace(0, 1, x.shape[1]).type(FloatTensor)\n"
        '        bias = torch.zeros(x.shape[1]).type("torch.cuda.FloatTensor")\n'
        "        return x * grid + ones + steps + bias\n",
        # A type the caller gives (`make_grid(n, x.type())`): where that tensor is.
        "import torch\nfrom torch import nn\n\n"
        "def make_grid(size, type):\n"
        "    return torch.arange(size).type(type)\n\n"
        "def shifted(x, size):\n"
        "    return make_grid(size, x.type()) - x\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return shifted(x, x.shape[1])\n",
        # A method every call in the file gives a tensor's type (`dtype=x.type()`).
        "import torch\nfrom torch import nn\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.decode(x, dtype=x.type())\n\n"
        "    def decode(self, out, dtype):\n"
        "        grid = torch.arange(out.shape[1]).type(dtype)\n"
        "        return out + grid\n",
        # A helper that moves its argument unless it is already there (`x.device != dv`)
        # returns it on the tensor's device on both paths.
        "import torch\nfrom torch import nn\n\n"
        "def to_device(x, tensor):\n"
        "    dv = tensor.device\n"
        "    if x.device != dv:\n"
        "        x = x.to(dv)\n"
        "    return x\n\n"
        "class Loss(nn.Module):\n"
        "    def forward(self, embeddings):\n"
        "        d_pos = to_device(torch.zeros(embeddings.shape[0]), embeddings)\n"
        "        return d_pos * embeddings\n",
        # 0-dim tensors of Python numbers (`math`, `random`) meet any device in arithmetic.
        "import math\nimport random\nimport torch\nimport torch.nn as nn\n\n"
        "class Attention(nn.Module):\n"
        "    def forward(self, scores, d):\n"
        "        jitter = torch.tensor(random.random())\n"
        "        return scores / torch.tensor(math.sqrt(d)) + jitter\n",
        # LayerDrop: a 0-dim draw compared with a float never meets the device.
        "import torch\nimport torch.nn as nn\n\n"
        "class Encoder(nn.Module):\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            dropout_probability = torch.rand([])\n"
        "            if self.training and dropout_probability < self.layerdrop:\n"
        "                continue\n"
        "            x = layer(x)\n"
        "        return x\n",
        # A CPU index into a device tensor; a placeholder that meets nothing; moved after a
        # slice; joined on the CPU, then moved.
        "import torch\nimport torch.nn as nn\n\n"
        "class Pool(nn.Module):\n"
        "    def forward(self, x, lengths):\n"
        "        first = x[torch.arange(x.shape[0]), 0]\n"
        "        sizes = torch.zeros(len(lengths))\n"
        "        steps = torch.arange(64)[: x.shape[1]].to(x.device)\n"
        "        extra = torch.cat([torch.zeros(1), torch.ones(2)]).to(x.device)\n"
        "        return first + steps + extra\n",
        # Moved only when a device is given; what it meets was put on its own device.
        "import numpy as np\nimport torch\n\n"
        "def filters(device):\n"
        "    return torch.ones(80, 201).to(device)\n\n"
        "def spectrogram(audio, device=None):\n"
        "    audio = torch.from_numpy(audio)\n"
        "    if device is not None:\n"
        "        audio = audio.to(device)\n"
        "    scale = torch.ones(80, 1).to(audio.device)\n"
        "    return filters(audio.device) @ audio + scale @ audio[:1]\n",
        # Made on the CPU on one path only: its `.max()` is on the CPU on that same path.
        "import torch\n\nclass Embedder:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def lengths(self, waves, masks=None):\n"
        "        if masks is None:\n"
        "            lengths = waves.shape[1] * torch.ones(waves.shape[0])\n"
        "        else:\n"
        "            lengths = masks.sum(dim=1)\n"
        "        return (lengths / lengths.max()).tolist()\n",
        # A helper that every caller gives CPU data, and whose result it moves: the
        # helper computes on the CPU by design.
        "import torch\n\nclass Pipeline:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def embed_scale(self, w):\n"
        "        freqs = torch.exp(torch.arange(8) * -0.5)\n"
        "        return w[:, None] * freqs[None, :]\n\n"
        "    def __call__(self, latents, scale):\n"
        "        w = torch.tensor(scale - 1).repeat(latents.shape[0])\n"
        "        cond = self.embed_scale(w).to(latents.device)\n"
        "        return self.model(latents, cond)\n",
        # Results brought to the CPU, then combined by a helper: the helper's result is
        # on the CPU too.
        "import torch\n\nclass Scorer:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def _similarity(self, a, b):\n"
        "        return a @ b.T\n\n"
        "    def score(self, batch, refs):\n"
        "        sim = self._similarity(self.model(batch).cpu(), self.model(refs).cpu())\n"
        "        return sim - torch.tensor([0.5, 0.25])\n",
        # A library function with no sign of a device: the data pipeline's CPU tensors;
        # choosing a device (`torch.device(...)`) is no sign that tensors follow inputs.
        "import torch\n\nMEAN = [0.485, 0.456, 0.406]\n\n"
        "def pick():\n"
        '    return torch.device("cuda")\n\n'
        "def normalize(img: torch.Tensor):\n"
        "    return img - torch.tensor(MEAN)[:, None, None]\n",
        # A collate function runs in the loader, on the CPU, whatever its module reads.
        "import torch\nfrom torch.utils.data import DataLoader\n\n"
        "def pad_collate(batch: torch.Tensor):\n"
        "    return batch.masked_fill(torch.zeros(batch.shape, dtype=torch.bool), 0)\n\n"
        "def to_device(batch: torch.Tensor, like: torch.Tensor):\n"
        "    return batch.to(like.device)\n\n"
        "loader = DataLoader([], collate_fn=pad_collate)\n",
        # A collator's helpers run in the loader too, on the CPU samples, whatever device
        # they read.
        "import torch\n\n"
        "class MaskCollator:\n"
        "    def _sample(self, genes: torch.Tensor, n: int):\n"
        "        picked = torch.randperm(len(genes) - n, device=genes.device)\n"
        "        return genes[torch.cat([torch.arange(n), picked + n])]\n",
        # A method's parameter that nothing shows to be a tensor may hold host data, even
        # where the module's methods read their inputs' devices.
        "import torch\n\n"
        "class Writer:\n"
        "    def extend(self, data):\n"
        "        return torch.ones(len(data), device=data.device)\n\n"
        "    def _replicate(self, index, width):\n"
        "        return torch.stack([index + 1, torch.arange(width)])\n",
        # A collate function gets the Dataset's samples on the CPU, even when a class that
        # keeps its device calls it too (and moves the batch afterwards).
        "import torch\n\n"
        "def _atoms_collate(batch):\n"
        "    first = batch[0]\n"
        '    counts = torch.cumsum(torch.cat([item["n"] for item in batch]), dim=0)\n'
        "    offsets = torch.cat([torch.zeros((1,), dtype=counts.dtype), counts])\n"
        '    return {"offsets": offsets, "first": first}\n\n'
        "class Converter:\n"
        "    def __init__(self, device):\n        self.device = device\n\n"
        "    def __call__(self, items):\n"
        "        batch = _atoms_collate(items)\n"
        "        return {k: v.to(self.device) for k, v in batch.items()}\n",
        # Data-loading code is all that calls the helper (through another helper): the
        # `__getitem__` of a map-style dataset (`__getitem__` and `__len__`) that a loader's
        # workers run, on CPU samples.
        "import torch\n\n"
        "def masks_to_boxes(masks):\n"
        "    if masks.numel() == 0:\n"
        "        return torch.zeros((0, 4), device=masks.device)\n"
        "    x = torch.arange(masks.shape[-1], dtype=torch.float)\n"
        "    return (masks * x).flatten(1).max(-1)[0]\n\n"
        "def make_target(masks):\n"
        '    return {"boxes": masks_to_boxes(masks)}\n\n'
        "class Panoptic:\n"
        "    def __init__(self, items):\n        self.items = items\n\n"
        "    def __getitem__(self, index):\n"
        "        return make_target(torch.as_tensor(self.items[index]))\n\n"
        "    def __len__(self):\n        return len(self.items)\n",
        # Its module's other functions read devices, but this helper of a file reader
        # takes arrays the reader made: no sign that they are on a device.
        "import torch\n\n"
        "def starts(counts):\n"
        "    delta = torch.ones(int(counts.sum()), dtype=torch.int64)\n"
        "    delta[counts.cumsum(0)[:-1]] += counts[1:]\n"
        "    return delta.cumsum(0)\n\n"
        "def voxelize(coords: torch.Tensor):\n"
        "    return torch.zeros(8, 8, device=coords.device)\n",
        # Each element of a one-dimensional CPU tensor is 0-dim: it meets any device.
        "import torch\n\n"
        "def combine(hidden: torch.Tensor, mapping: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.zeros(hidden.shape[1:], device=hidden.device)\n"
        "    for index in torch.arange(0, hidden.shape[0]):\n"
        "        out += hidden[mapping == index].mean(0)\n"
        "    return out\n",
        # A function that hands its tensors to NumPy (no `.cpu()`) gets CPU tensors.
        "import numpy as np\nimport torch\nfrom torch import Tensor\n\n"
        "def to_device(batch: Tensor, like: Tensor) -> Tensor:\n"
        "    return batch.to(like.device)\n\n"
        "def overlay(image: Tensor, mask: Tensor) -> np.ndarray:\n"
        "    classes = torch.from_numpy(np.arange(4, dtype=np.uint8))\n"
        "    masks = mask == classes[:, None, None]\n"
        "    return (image * masks.any(0)).permute(1, 2, 0).numpy()\n",
        # Written through plain indices (copies across devices), a 0-dim value, a tensor
        # made on the device, a CPU tensor written into a CPU tensor.
        "import torch\nimport torch.nn as nn\n\n"
        "class Writer(nn.Module):\n"
        "    def forward(self, x, mask):\n"
        "        x[0] = torch.zeros(x.shape[-1])\n"
        "        x[:, :2] = torch.ones(2)\n"
        "        x[mask] = torch.tensor(0.0)\n"
        "        x.data = torch.zeros(1, device=x.device)\n"
        "        buf = torch.zeros(4)\n"
        "        buf[torch.arange(2)] = torch.ones(2)\n"
        "        return x, buf.tolist()\n",
        # A weight initialiser bound for `apply` runs once, before the module moves.
        "from functools import partial\n\nimport torch\nimport torch.nn as nn\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(4, 4)\n"
        "        self.apply(partial(self._init, std=0.02))\n\n"
        "    def _init(self, m, std):\n"
        "        if isinstance(m, nn.Linear):\n"
        "            m.weight.data = torch.randn(4, 4) * std\n\n"
        "    def forward(self, x):\n"
        "        return self.proj(x)\n",
        # An empty placeholder (`torch.zeros(0)`: TorchScript's stand-in for `None`) that
        # is used only once something replaced it.
        "import torch\nimport torch.nn as nn\nfrom typing import Optional\n\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x, cache: Optional[torch.Tensor] = None):\n"
        "        if cache is None:\n"
        "            cache = torch.zeros(0)\n"
        "        if cache.numel() > 0:\n"
        "            x = x + cache\n"
        "        return x\n",
        # An empty tensor as the sentinel for "no boxes": it is indexed (or scaled) only on
        # a path it never takes; only `torch.cat` joins an empty tensor with others.
        "import torch\nfrom torch import nn\n\n"
        "class Matcher(nn.Module):\n"
        "    def forward(self, boxes, order: torch.Tensor, weight: torch.Tensor):\n"
        "        ious = torch.Tensor([]) if boxes.numel() == 0 else boxes @ boxes.T\n"
        "        return ious[:, order] * weight if len(ious) > 0 else ious\n",
        # CPU by design: a shape made a tensor for tracing meets another CPU tensor; a
        # tuple joined to a device tensor's pieces (Python's `+`); a CPU mask indexing a
        # device tensor; the pieces of a one-dimensional tensor (`rand(2)[0]`, a `zip`),
        # 0-dim; `nn.CTCLoss` targets, which it takes on the CPU.
        "import torch\nimport torch.nn as nn\n\n"
        "class Head(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.ctc = nn.CTCLoss(zero_infinity=True)\n\n"
        "    def forward(self, x, lens, pad=None):\n"
        "        dim = torch._shape_as_tensor(x)[0].unsqueeze(0)\n"
        "        k = torch.min(torch.cat((torch.tensor([4], dtype=dim.dtype), dim), 0))\n"
        "        order = torch.randperm(x.shape[0], device=x.device)\n"
        "        batches = (torch.arange(4),) + order.split(8)\n"
        "        if pad is None:\n"
        "            mask = torch.ones(x.shape[:-1]).bool()\n"
        "        else:\n"
        "            mask = x.ne(pad).any(-1)\n"
        "        change = 1.0 + torch.rand(2) * 0.1\n"
        "        out = x[mask] * change[0]\n"
        "        for w, row in zip(torch.tensor([0.5] * 2), x):\n"
        "            out = out + w * row\n"
        "        target = torch.arange(1, lens[0] + 1).unsqueeze(0)\n"
        "        loss = self.ctc(x, target, input_lengths=lens[:1], target_lengths=lens[:1])\n"
        "        return out, k, batches, loss\n",
        # CTC takes its targets and lengths on the CPU, by position or by keyword, as a
        # function or as a module held by the model.
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
        "class Recognizer(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(8, 5)\n"
        "        self.ctc = nn.CTCLoss()\n\n"
        "    def forward(self, x, targets):\n"
        "        log_probs = self.proj(x).log_softmax(-1)\n"
        "        frames = torch.full((x.shape[1],), x.shape[0], dtype=torch.long)\n"
        "        sizes = torch.tensor([len(t) for t in targets])\n"
        "        flat = torch.cat([torch.tensor(t) for t in targets])\n"
        "        loss = F.ctc_loss(log_probs, flat, frames, target_lengths=sizes)\n"
        "        return loss + self.ctc(log_probs, flat, frames, sizes)\n",
        # A helper's `x is None` branch that its only caller never takes; a placeholder
        # that every option of a mode replaces.
        "import torch\nimport torch.nn as nn\nfrom typing import Optional\n\n"
        "class Block(nn.Module):\n"
        "    def mask(self, x: Optional[torch.Tensor] = None):\n"
        "        if x is None:\n"
        "            return torch.zeros(1, 8, 8, 1)\n"
        "        return torch.zeros(1, x.shape[1], x.shape[2], 1, device=x.device)\n\n"
        "    def forward(self, x):\n"
        "        alpha = torch.tensor([0])\n"
        '        if self.mode == "additive":\n'
        "            alpha = x + 1\n"
        '        elif self.mode == "multiplicative":\n'
        "            alpha = x * 2\n"
        "        return x + self.mask(x), alpha[x > 0]\n",
        # A CPU pipeline in a class that stores a device: a helper object made there and
        # `torch.as_tensor` of a list of tensors are on the CPU, like what they meet; a
        # function passed as a parameter is no module.
        "import numpy as np\nimport torch\nfrom typing import Callable\n"
        "from pkg.utils import NodeState\n\n"
        "class Sampler:\n"
        "    def __init__(self, device):\n        self.device = device\n\n"
        "    def sample(self, seeds, batches):\n"
        "        state = NodeState(3)\n"
        "        edges = torch.cat([state.out, torch.empty(0, dtype=torch.int64)])\n"
        "        times = torch.empty(0, dtype=torch.int64)\n"
        "        for batch in batches:\n"
        "            time = [seeds[(batch == i).nonzero()] for i in range(3)]\n"
        "            time = torch.as_tensor(time, dtype=torch.int64)\n"
        "            times = torch.cat([times, time])\n"
        "        return edges, times\n\n"
        "def centres(train_dataset, steps: int):\n"
        "    found = torch.cat([item.center() for item in train_dataset])\n"
        "    radius = (found - found.mean(0)).norm(dim=1)\n"
        "    return radius * torch.linspace(0, 1, steps), found.to(radius.device)\n\n"
        "def search(queries: torch.Tensor, corpus, score: Callable[..., torch.Tensor]):\n"
        "    if isinstance(corpus, np.ndarray):\n"
        "        corpus = torch.from_numpy(corpus)\n"
        "    if corpus.device != queries.device:\n"
        "        queries = queries.to(corpus.device)\n"
        "    return score(queries, corpus)\n",
        # Written through device indices (`index_put_` copies them to the mask's device):
        # a CPU mask, then only a mask; reading it with them is a meeting (INVALID).
        "import torch\n\n"
        "def diagonal_mask(n, device=None):\n"
        "    rows = torch.arange(n, device=device)\n"
        "    mask = torch.zeros((n, n), dtype=torch.bool)\n"
        "    mask[(rows, rows)] = True\n"
        "    return mask\n",
        # Made on the CPU in the branch where the input is on the CPU: it meets the input
        # there and after the branch, on one device (the other branch is INVALID).
        "import torch\n\n"
        "def drop(x: torch.Tensor, p: float):\n"
        '    if x.device == torch.device("cpu"):\n'
        "        keep = torch.rand(x.shape) > p\n"
        "    else:\n"
        "        keep = torch.rand(x.shape, device=x.device) > p\n"
        "    return x * keep\n",
        # An index moved to the CPU wherever it is on the GPU (`if t.is_cuda: t = t.cpu()`)
        # is on the CPU after the test: scattered into a CPU tensor, it meets none on the
        # device (`device=` there would break the scatter).
        "import torch\n"
        "from torch import nn\n\n\n"
        "class Margin(nn.Module):\n"
        "    def forward(self, scores, label):\n"
        "        index = label.view(-1, 1)\n"
        "        if index.is_cuda:\n"
        "            index = index.cpu()\n"
        "        return torch.zeros(scores.size()).scatter_(1, index, 0.2)\n",
        # Lengths given to `pack_padded_sequence` as they are must be on the CPU: in the
        # file's other blocks that take them too, a mask made from them is on the CPU by
        # that choice (INVALID: the file moves them there with `.cpu()`).
        "import torch\n"
        "from torch import nn\n"
        "from torch.nn.utils.rnn import pack_padded_sequence\n"
        "\n"
        "\n"
        "class Frames(nn.Module):\n"
        "    def forward(self, x, lengths):\n"
        "        return pack_padded_sequence(x, lengths, batch_first=True)\n"
        "\n"
        "\n"
        "class Pool(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.attention = nn.MultiheadAttention(8, 2)\n"
        "\n"
        "    def forward(self, x, lengths):\n"
        "        mask = torch.arange(x.shape[0])[None, :] < lengths[:, None]\n"
        "        return self.attention(x, x, x, key_padding_mask=~mask)[0]\n",
        # Counts per item (their elements bound slices: `y[b, : valid[b]]`) handed to a
        # module, which uses them as numbers too (INVALID: nothing shows they are counts).
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "from .blocks import Mixer\n"
        "\n"
        "\n"
        "class Beamformer(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.mixer = Mixer(4)\n"
        "\n"
        "    def forward(self, x, valid=None):\n"
        "        if valid is None:\n"
        "            valid = torch.LongTensor([x.shape[1]] * x.shape[0])\n"
        "        y = self.mixer(x, valid)\n"
        "        return torch.stack([y[b, : valid[b]].mean(0) for b in range(x.shape[0])])\n",
        # `expand_as`/`view_as` read only the other tensor's shape, and `.type_as` moves; a
        # shape made a tensor is on the CPU, as is the rest of what it is concatenated
        # with; `torch.Tensor` of a tensor is an alias on its device.
        "import torch\nimport torch.onnx.operators\nfrom torch import nn\n\n"
        "class Latency(nn.Module):\n"
        "    def forward(self, alpha: torch.Tensor, layer_ids: torch.Tensor):\n"
        "        steps = torch.arange(1, 9).unsqueeze(0).expand_as(alpha).type_as(alpha)\n"
        "        bsz = torch.onnx.operators.shape_as_tensor(alpha)[0]\n"
        "        shape = torch.cat((bsz.view(1), torch.tensor([-1], dtype=torch.long)))\n"
        "        scales = torch.Tensor(layer_ids + 1)\n"
        "        scales = scales * torch.where(layer_ids < 3, 0.5, 1.0)\n"
        "        return steps * alpha, shape, scales / torch.sum(scales)\n",
        # Each name unpacking a helper's result gets its own element: the CPU id is only
        # read as a number.
        "import torch\nfrom torch import nn\n\n"
        "class Matcher(nn.Module):\n"
        "    def forward(self, x):\n"
        "        anchor, candidates = self._anchor(x)\n"
        "        index = int(anchor)\n"
        "        return [(x == c).sum() for c in candidates], index\n\n"
        "    def _anchor(self, x):\n"
        "        ids = [a for a in torch.unique(x)]\n"
        "        return torch.tensor([len(ids)]), ids\n",
        # A schedule read one element at a time by a loop counter: each is a 0-dim tensor,
        # which meets the device in arithmetic (also where a caller may give the schedule).
        "import torch\nfrom tqdm.auto import trange, tqdm\n\n"
        "class Denoiser:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def run(self, noise, n, levels=None):\n"
        "        ones = noise.new_ones(noise.shape[0])\n"
        "        if levels is None:\n"
        "            levels = torch.linspace(0.0, 1.0, n + 1).sqrt()\n"
        "        for k in trange(n):\n"
        "            hi, lo = levels[k], levels[k + 1]\n"
        "            noise = noise + (lo - hi) * self.model(noise, hi * ones)\n"
        "        for k in tqdm(range(1, n)):\n"
        "            noise = noise * levels[-k]\n"
        "        return noise\n",
        # A resampler moved to the decoded wave's own device: whatever path made the wave
        # (one raises), the two are on one device.
        "import numpy as np\n"
        "import torch\n"
        "from torchaudio import transforms as T\n"
        "\n"
        "def prepare(model, wave, rate, device):\n"
        "    if isinstance(wave, tuple):\n"
        "        source_rate, wave = wave\n"
        "        if wave.dtype == np.int16:\n"
        "            wave = torch.from_numpy(wave).float() / 32768\n"
        "        elif wave.dtype == np.float32:\n"
        "            wave = torch.from_numpy(wave)\n"
        "        else:\n"
        "            raise TypeError(wave.dtype)\n"
        "        resample = T.Resample(source_rate, rate).to(wave.device)\n"
        "        wave = resample(wave)\n"
        "    return model(wave.to(device))\n",
        # A submodule's attribute given to a factory as a size is a number: dividing by it
        # meets no device.
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "class Rotary(nn.Module):\n"
        "    def __init__(self, blocks):\n"
        "        super().__init__()\n"
        "        self.blocks = nn.ModuleList(blocks)\n"
        "\n"
        "    def forward(self, x):\n"
        "        for block in self.blocks:\n"
        "            inverse = 1.0 / (10000 ** (torch.arange(0, block.width, 2) / block.width))\n"
        "            block.inverse.copy_(inverse)\n"
        "            x = block(x)\n"
        "        return x\n",
        # A pyannote pipeline moves the waveform it is given to its own device.
        "import torch\n"
        "from pyannote.audio import Pipeline\n"
        "\n"
        "class Speakers:\n"
        "    def __init__(self, name, device):\n"
        "        self.model = Pipeline.from_pretrained(name).to(device)\n"
        "\n"
        "    def __call__(self, samples, rate):\n"
        "        waveform = torch.from_numpy(samples[None, :])\n"
        '        return self.model({"waveform": waveform, "sample_rate": rate})\n',
        # Put on the CPU with its index (the index derives from what the choice moved, on
        # the same path), or indexed by an index moved there too.
        "import torch\n\n"
        "def candidates(prediction: torch.Tensor, threshold: float):\n"
        "    if prediction.device.type == 'mps':\n"
        "        prediction = prediction.cpu()\n"
        "    keep = prediction[..., 4] > threshold\n"
        "    return [x[keep[i]] for i, x in enumerate(prediction)]\n\n"
        "def retrieve(model, images, k: int):\n"
        "    feats = torch.cat([model.encode(i.to(model.device)).cpu() for i in images])\n"
        "    top = model.score(feats.to(model.device)).topk(k).indices\n"
        "    return feats[top.cpu()]\n",
        # A buffer the function fills through an index is its computation's result, made
        # where it computes, not a fallback.
        "import torch\n\n"
        "def reductions(x: torch.Tensor, gs: int):\n"
        "    if gs == -1:\n"
        "        return torch.sum(x, 1)\n"
        "    out = torch.zeros(x.shape[0], x.shape[1] // gs)\n"
        "    for i in range(x.shape[1] // gs):\n"
        "        out[:, i] = torch.sum(x[:, i * gs : (i + 1) * gs], 1)\n"
        "    return out\n",
        # A container of results on one path, a CPU tensor of them on the other: no caller
        # takes the dict for the tensor, so the CPU path is no fallback.
        "import numpy as np\nimport torch\n\n"
        "class Runner:\n"
        "    def __init__(self, device):\n"
        "        self.device = device\n\n"
        "    def embed(self, model, batches, as_tensor: bool):\n"
        "        model = model.to(self.device)\n"
        "        if not as_tensor:\n"
        '            reprs = {"cls": []}\n'
        "            for batch in batches:\n"
        '                reprs["cls"].extend(model(batch)["cls"])\n'
        "            return reprs\n"
        "        found = [model(batch).cpu().numpy() for batch in batches]\n"
        "        joined = torch.from_numpy(np.concatenate(found))\n"
        "        return joined\n",
        # What another file's function returns, copied with `torch.tensor`, is where that
        # function's summary says; `torch.as_tensor` takes a tensor as it is.
        "import torch\nfrom .scoring import reward_of\n\n"
        "def score(model, ids: torch.Tensor):\n"
        "    if isinstance(model, torch.nn.Module):\n"
        "        return model(ids)\n"
        "    return torch.as_tensor(model(ids))\n\n"
        "def total(ids: torch.Tensor):\n"
        "    return ids.float().mean() + torch.tensor(reward_of(ids))\n",
        # A CPU fallback chosen by a test of what the input is: with no tensor given, no
        # device is known (the device path is the input's own).
        "import torch\n\n"
        "def offsets(n: int, like: torch.Tensor):\n"
        "    if like is not None:\n"
        "        return like.new_zeros(n) + like.mean()\n"
        "    return torch.zeros(n)\n\n"
        "def as_scores(scores, weight: torch.Tensor):\n"
        "    if isinstance(scores, torch.Tensor):\n"
        "        return scores * weight\n"
        "    return torch.ones(len(scores))\n",
        # The device path hands the input back, or follows only an input that defaults to
        # None: a caller that passes none asks for the CPU.
        "import torch\n\n"
        "def head(x: torch.Tensor, n: int):\n"
        "    if x.shape[0] >= n:\n"
        "        return x[:n].view(n, -1)\n"
        "    return torch.zeros(n, 1)\n\n"
        "def ramp(n: int, start: torch.Tensor = None, flip: bool = False):\n"
        "    if flip:\n"
        "        return start * 2\n"
        "    return torch.arange(n)\n",
        # An empty tensor is a sentinel callers test by its length; a function returning a
        # tuple on one path and one value on another: which caller gets which is unknown.
        "import torch\n\n"
        "def overlaps(a: torch.Tensor, b: torch.Tensor):\n"
        "    if a.numel() == 0:\n"
        "        return torch.Tensor([])\n"
        "    return a @ b.T\n\n"
        "def align(a: torch.Tensor, b: torch.Tensor, return_all: bool = False):\n"
        "    if a.numel() == 0:\n"
        "        return torch.tensor(0.0), torch.ones(a.shape[0])\n"
        "    scale = (a * b).sum(1)\n"
        "    if return_all:\n"
        "        return (a - b).sum(), scale\n"
        "    return (a - b).sum()\n",
        # A window function kept for later and called with the signal's device, or one
        # that is not a torch factory: nothing is made on the CPU that we know of.
        "import torch\nfrom torch import nn\n\n\n"
        "class Spectrum(nn.Module):\n"
        "    def __init__(self, n_fft=512, window_fn=torch.hann_window, pad_fn=None):\n"
        "        super().__init__()\n"
        "        self.n_fft = n_fft\n"
        "        self.window_fn = window_fn\n"
        "        self.pad_fn = pad_fn\n\n"
        "    def forward(self, x):\n"
        "        window = self.window_fn(self.n_fft, device=x.device)\n"
        "        x = self.pad_fn(x) * self.window_fn(self.n_fft).to(x.device).sum()\n"
        "        return torch.stft(x, self.n_fft, window=window, return_complex=True)\n",
        # A helper that moves its argument on one path (to the GPU the backend needs) and
        # returns it as it was on the other chooses its device: what it returns is placed.
        "import torch\nimport torch.distributed as dist\n\n\n"
        "class Channel:\n"
        "    def __init__(self, over_gpu):\n"
        "        self.over_gpu = over_gpu\n\n"
        "    def _placed(self, t):\n"
        "        return t.cuda() if self.over_gpu else t\n\n"
        "    def share(self, t):\n"
        "        sent, _ = self._placed(t), t.device\n"
        "        dist.broadcast(sent, 0)\n\n"
        "    def seed(self):\n"
        "        seed = torch.randint(0, 1000, (1,))\n"
        "        self.share(seed)\n"
        "        sizes = [self._placed(torch.zeros(2)) for _ in range(4)]\n"
        "        dist.all_gather(sizes, self._placed(torch.ones(2)))\n"
        "        return int(seed)\n",
        "import torch\nimport torch.distributed as dist\n\n\n"
        "def _on_comm_device(t, over_gpu):\n"
        "    if over_gpu:\n"
        "        t = t.to(torch.cuda.current_device())\n"
        "    return t\n\n\n"
        "def total(count, over_gpu):\n"
        "    summed = _on_comm_device(torch.tensor([count]), over_gpu)\n"
        "    dist.all_reduce(summed)\n"
        "    return summed.item()\n",
        # Functions nested in a method run with what the method passes them: CPU design
        # matrices meet only each other there (`vmap` of a torch function keeps them on the
        # CPU), and a call's arguments meet nothing at the call itself.
        "import torch\n"
        "\n"
        "\n"
        "class Fitter:\n"
        "    def __init__(self, model, device):\n"
        "        self.model = model\n"
        "        self.device = device\n"
        "\n"
        "    def effects(self, design_np, weights_np):\n"
        "        design = torch.Tensor(design_np)\n"
        "\n"
        "        def gram(x: torch.Tensor, w: torch.Tensor):\n"
        '            g = torch.einsum("ak,nkl,lm->nam", x.T, w, x)\n'
        "            g += 0.1 * torch.eye(x.shape[1])\n"
        "            return g\n"
        "\n"
        "        def score(w: torch.Tensor, coef: torch.Tensor):\n"
        '            weighted = torch.einsum("nd,db->nb", w, design)\n'
        "            return weighted.mean(0), coef * 2\n"
        "\n"
        "        weights = torch.vmap(torch.diag)(torch.Tensor(weights_np))\n"
        "        coef = gram(design, weights).to(self.device)\n"
        "        return score(torch.Tensor(weights_np), coef)\n",
        # A helper two calls below a method that hands it CPU features works on the CPU.
        "import torch\n"
        "\n"
        "\n"
        "class Probe:\n"
        "    def __init__(self, device):\n"
        "        self.device = device\n"
        "\n"
        "    def _design(self, feats):\n"
        "        return torch.cat([feats, torch.ones(feats.shape[0], 1)], dim=1)\n"
        "\n"
        "    def _fit(self, feats):\n"
        "        return self._design(feats).sum(0)\n"
        "\n"
        "    def fit(self, feats):\n"
        "        return self._fit(feats.cpu()).to(self.device)\n",
        # A static method that every call in the file (on the class) gives CPU tensors or
        # values it cannot place, its result then moved through the name it is bound to.
        "import torch\n"
        "\n"
        "\n"
        "class Volume:\n"
        "    def __init__(self, coords, values):\n"
        "        self.coords = coords\n"
        "        self.values = values\n"
        "        self.device = coords.device\n"
        "\n"
        "    def to(self, device):\n"
        "        self.coords = self.coords.to(device)\n"
        "        self.values = self.values.to(device)\n"
        "        self.device = device\n"
        "        return self\n"
        "\n"
        "    @staticmethod\n"
        "    def from_box(box: torch.Tensor, dims: torch.Tensor):\n"
        "        size = (box[1] - box[0]) / dims\n"
        "        grid = torch.arange(int(dims[0].item()))\n"
        "        return Volume(box[0] + grid[:, None] * size, torch.zeros(int(dims[0].item())))\n"
        "\n"
        "\n"
        "def build(device, dims, box=None):\n"
        "    if box is None:\n"
        "        box = torch.tensor([[0.0] * 3, [1.0] * 3])\n"
        "    volume = Volume.from_box(box, torch.tensor(dims))\n"
        "    volume.to(device)\n"
        "    return volume\n",
        # A method wrapped by a decorator that may move its arguments (not one known to pass
        # them on as they are): what its parameter meets inside is not what the caller passes.
        "import functools\n"
        "\n"
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "def moves_inputs(method):\n"
        "    @functools.wraps(method)\n"
        "    def wrapper(self, *args):\n"
        "        return method(self, *(a.to(self.scale.device) for a in args))\n"
        "\n"
        "    return wrapper\n"
        "\n"
        "\n"
        "class Scaler(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(3))\n"
        "\n"
        "    @moves_inputs\n"
        "    def scaled(self, x):\n"
        "        return x * self.scale\n"
        "\n"
        "    def forward(self, n):\n"
        "        return self.scaled(torch.zeros(n, 3))\n",
        # A 0-dim integer index on the device (`argmax` without a dimension) picks from a CPU
        # tensor: PyTorch reads it as a Python number.
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Picker(nn.Module):\n"
        "    def forward(self, scores):\n"
        "        order = torch.arange(scores.shape[0])\n"
        "        best = torch.argmax(scores)\n"
        "        return int(order[best]), order[scores.sum(0).argmin()].item()\n",
        # A parameter the function asks `hasattr` about is an object of unknown type (a model),
        # not a tensor input: the attributes it reads of it (`rope.base`) may be numbers.
        "import torch\n"
        "\n"
        "\n"
        "def refresh_rotary(model, device):\n"
        "    for layer in model.layers:\n"
        '        if hasattr(layer, "rotary"):\n'
        "            rope = layer.rotary\n"
        "            inv = 1.0 / (rope.base ** (torch.arange(0, rope.dim, 2) / rope.dim))\n"
        "            rope.inv_freq = inv.to(device)\n"
        '    if hasattr(model, "lm_head"):\n'
        "        return model\n",
        # A helper given a tensor its caller moved on one path only returns it as it came:
        # the caller's choice, its result still follows the caller's `positions`, so the
        # two meet on one device (the CPU tensors stay on the CPU on the other path).
        "import torch\n"
        "\n"
        "\n"
        "def supercell(positions, cell):\n"
        "    return positions + cell.sum(0)\n"
        "\n"
        "\n"
        "def edge_vectors(positions, cell, device):\n"
        '    if device.type == "cuda":\n'
        "        positions = positions.to(device)\n"
        "        cell = cell.to(device)\n"
        "    return supercell(positions, cell) - positions\n"
        "\n"
        "\n"
        "def graph(atoms, lattice, device):\n"
        "    positions = torch.from_numpy(atoms)\n"
        "    cell = torch.from_numpy(lattice)\n"
        "    return edge_vectors(positions, cell, device)\n",
        # Moved under the user's device flag (`use_cuda`), the flag that put the module on
        # the GPU: the path that skips the move has no GPU to meet.
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
        "class NoisyLinear(nn.Module):\n"
        "    def __init__(self, n, use_cuda=False):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.zeros(n, n))\n"
        "        self._use_cuda = use_cuda\n\n"
        "    def forward(self, x):\n"
        "        eps = torch.rand(self.weight.shape[0], 1)\n"
        "        if self._use_cuda:\n"
        "            eps = eps.cuda()\n"
        "        return F.linear(x, self.weight * eps)\n",
        # A constructor told its device copies its CPU indices and values there.
        "import torch\n\n"
        "def replace_row(matrix):\n"
        "    indices = torch.arange(matrix.shape[0])\n"
        "    removal = torch.sparse_coo_tensor(\n"
        "        torch.stack([indices] * 2), torch.ones_like(indices), device=matrix.device\n"
        "    )\n"
        "    return removal + matrix\n",
        # `value` is a Python number where `isinstance` says so: the sum meets no device.
        "import torch\n\n"
        "def largest(*x):\n"
        "    for value in x:\n"
        "        if not isinstance(value, (int, float)):\n"
        "            shape, device = value.shape, value.device\n"
        "    tensors = []\n"
        "    for value in x:\n"
        "        if isinstance(value, (int, float)):\n"
        "            value = (torch.zeros(shape) + value).to(device)\n"
        "        tensors.append(value)\n"
        "    return torch.stack(tensors, -1).amax(-1)\n",
        # `dev: str` handed to `.to()` is a device (no dtype is a string): moved there.
        "import torch\nimport torch.nn as nn\n\n"
        "class Detector(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.perturb(x, x.device)\n\n"
        "    def perturb(self, x, dev: str):\n"
        "        channel = torch.LongTensor([0]).to(dev)\n"
        "        return x.index_select(1, channel)\n",
        # A placeholder that meets only a parameter-free module (kept on self, built under
        # an `if` of `__init__`): it meets no device on the path that keeps it.
        "import torch\nimport torch.nn as nn\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, n, classification):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(n, 2)\n"
        "        if classification:\n"
        "            self.softmax = nn.LogSoftmax(dim=1)\n\n"
        "    def forward(self, x, features):\n"
        "        out = torch.empty(1)\n"
        "        if features:\n"
        "            out = self.fc(x)\n"
        "        return self.softmax(out)\n",
        # As many number indices as the factory's sizes pick one element: a 0-dim tensor,
        # which meets any device.
        "import torch\nimport torch.nn as nn\n\n"
        "class Mixer(nn.Module):\n"
        "    def forward(self, x, n: int):\n"
        "        weights = torch.rand((n, n))\n"
        "        out = torch.zeros_like(x)\n"
        "        for i in range(n):\n"
        "            for j in range(n):\n"
        "                out = out + weights[i][j] * x\n"
        "        return out + weights[0, 1] * x\n",
        # What a module the class holds returns is a tensor on its device, which
        # `torch.tensor` copies there (INVALID: a method returning Python data).
        "import torch\nimport torch.nn as nn\n\n"
        "class Generator(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(4, 4)\n\n"
        "    def generate(self, x):\n"
        "        return self.proj(x)\n\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.generator = Generator()\n\n"
        "    def step(self, x, prompt_ids: torch.Tensor):\n"
        "        out = torch.tensor(self.generator.generate(x))\n"
        "        return torch.cat([prompt_ids, out], dim=1)\n",
        # `.to(self.half)`: the object's configuration, which may name a device, is no dtype
        # the way a module's `th.float16` is: the grid may be moved.
        "import torch\nfrom torch import nn\n\n\n"
        "class Pos(nn.Module):\n"
        "    def __init__(self, half):\n"
        "        super().__init__()\n"
        "        self.half = half\n\n"
        "    def forward(self, x):\n"
        "        return x + torch.arange(x.shape[-1]).to(self.half)\n",
        # Records read only by string keys (`meta["pad_shape"]`) hold anything: image
        # sizes here, Python numbers, which meet a CPU tensor anywhere.
        "import torch\nfrom torch import nn\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, feats, img_metas):\n"
        "        masks = []\n"
        "        for meta in img_metas:\n"
        '            valid_w = meta["pad_shape"][1] - meta["border"]\n'
        "            masks.append(torch.arange(feats.shape[-1]) < valid_w)\n"
        "        return feats, masks\n",
        # Taken out of a forward input, a part the code never uses as a tensor (a size, a
        # count) is as likely a Python number, which meets a CPU tensor anywhere.
        "import torch\nfrom torch import nn\n\n\n"
        "class Crop(nn.Module):\n"
        "    def forward(self, inputs):\n"
        "        x, size = inputs\n"
        "        h, w = size\n"
        "        keep = torch.arange(x.shape[-1]) < w\n"
        "        return x[..., :h, keep]\n",
        # What is written into a numpy array is copied to host memory: the array, returned
        # on one path, is no tensor on the device beside the CPU tensor returned on another.
        "import numpy as np\nimport torch\n\n\n"
        "def channels_first(img):\n"
        "    return img.transpose(2, 0, 1)\n\n\n"
        "class ClipToTensor:\n"
        "    def __init__(self, numpy=False):\n"
        "        self.numpy = numpy\n\n"
        "    def __call__(self, clip):\n"
        "        frames = np.zeros([3, len(clip), 8, 8])\n"
        "        for i, img in enumerate(clip):\n"
        "            frames[:, i] = channels_first(img)\n"
        "        if self.numpy:\n"
        "            return frames\n"
        "        return torch.from_numpy(frames)\n",
    )
    INVALID = (
        # Keyword arguments kept for `.to()` that hold no device: a cast, not a move.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.cast = dict(dtype=torch.float32)\n"
            "        self.fc = nn.Linear(n, n)\n\n"
            "    def forward(self, x):\n"
            "        bias = torch.zeros(4).to(**self.cast)\n"
            "        return self.fc(x) + bias\n",
            line=11,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.cast = dict(dtype=torch.float32)\n"
            "        self.fc = nn.Linear(n, n)\n\n"
            "    def forward(self, x):\n"
            "        bias = torch.zeros(4, device=x.device).to(**self.cast)\n"
            "        return self.fc(x) + bias\n",
            unsafe=True,
        ),
        # The same helper called by a dataset and by a model's forward: on the device there.
        Invalid(
            "import torch\n\n"
            "def masks_to_boxes(masks):\n"
            "    if masks.numel() == 0:\n"
            "        return torch.zeros((0, 4), device=masks.device)\n"
            "    x = torch.arange(masks.shape[-1], dtype=torch.float)\n"
            "    return (masks * x).flatten(1).max(-1)[0]\n\n"
            "class Panoptic:\n"
            "    def __init__(self, items):\n        self.items = items\n\n"
            "    def __getitem__(self, index):\n"
            "        return masks_to_boxes(torch.as_tensor(self.items[index]))\n\n"
            "    def __len__(self):\n        return len(self.items)\n\n"
            "class Head(torch.nn.Module):\n"
            "    def forward(self, masks):\n"
            "        return masks_to_boxes(masks)\n",
            line=6,
            column=9,
            fixed="import torch\n\n"
            "def masks_to_boxes(masks):\n"
            "    if masks.numel() == 0:\n"
            "        return torch.zeros((0, 4), device=masks.device)\n"
            "    x = torch.arange(masks.shape[-1], dtype=torch.float, device=masks.device)\n"
            "    return (masks * x).flatten(1).max(-1)[0]\n\n"
            "class Panoptic:\n"
            "    def __init__(self, items):\n        self.items = items\n\n"
            "    def __getitem__(self, index):\n"
            "        return masks_to_boxes(torch.as_tensor(self.items[index]))\n\n"
            "    def __len__(self):\n        return len(self.items)\n\n"
            "class Head(torch.nn.Module):\n"
            "    def forward(self, masks):\n"
            "        return masks_to_boxes(masks)\n",
            unsafe=True,
        ),
        # Only the cast is on the current GPU: the tensor as it was meets `x` on the CPU.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1])\n"
            "        return x * grid + grid.type(x.type())\n",
            line=9,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1], device=x.device)\n"
            "        return x * grid + grid.type(x.type())\n",
            unsafe=True,
        ),
        # Cast on one path only: on the other it meets `x` on the CPU.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1])\n"
            "        if self.training:\n"
            "            grid = grid.type(x.type())\n"
            "        return x * grid\n",
            line=9,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1], device=x.device)\n"
            "        if self.training:\n"
            "            grid = grid.type(x.type())\n"
            "        return x * grid\n",
            unsafe=True,
        ),
        # `.to(<dtype>)` casts, it moves nothing: the grid stays on the CPU (also when torch
        # is imported under another name, `th.float64`).
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1]).to(torch.float64)\n"
            "        return x * grid\n",
            line=6,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1], device=x.device).to(torch.float64)\n"
            "        return x * grid\n",
            unsafe=True,
        ),
        # A type a parameter gives may be a dtype (`.type(torch.float16)`): on the CPU still.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x, kind):\n"
            "        grid = torch.arange(x.shape[1]).type(kind)\n"
            "        return x * grid\n",
            line=9,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "def set_up(rank):\n"
            "    torch.cuda.set_device(rank)\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x, kind):\n"
            "        grid = torch.arange(x.shape[1], device=x.device).type(kind)\n"
            "        return x * grid\n",
            unsafe=True,
        ),
        # Converted to the type of a tensor made on the CPU, it stays there with it.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1])\n"
            "        return x * torch.ones(x.shape[1]).type(grid.type())\n",
            line=6,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1], device=x.device)\n"
            "        return x * torch.ones(x.shape[1]).type(grid.type())\n",
            unsafe=True,
        ),
        # A helper converting to the type its caller gives is given a dtype here: a cast.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "def make_grid(size, type):\n"
            "    return torch.arange(size).type(type)\n\n"
            "def shifted(x, size):\n"
            "    return make_grid(size, torch.float16) - x\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return shifted(x, x.shape[1])\n",
            line=5,
            column=12,
            fixed="import torch\nfrom torch import nn\n\n"
            "def make_grid(size, type):\n"
            "    return torch.arange(size).type(type)\n\n"
            "def shifted(x, size):\n"
            "    return make_grid(size, torch.float16).to(x.device) - x\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return shifted(x, x.shape[1])\n",
            unsafe=True,
        ),
        # `.type()` of a dtype is a cast that keeps the tensor on the CPU.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1]).type(torch.float32)\n"
            "        return x * grid\n",
            line=6,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, x):\n"
            "        grid = torch.arange(x.shape[1], device=x.device).type(torch.float32)\n"
            "        return x * grid\n",
            unsafe=True,
        ),
        # The partner where it meets is a tuple of index tensors (`nonzero(as_tuple=True)`):
        # it has no `.device` to lend a fix, so none is offered.
        Invalid(
            "import numpy as np\nimport torch\nfrom torch import nn\n\n"
            "class Merge(nn.Module):\n"
            "    def merge(self, input_ids, embeds, values):\n"
            "        positions = torch.nonzero(input_ids < 0, as_tuple=True)\n"
            "        return embeds.index_put(indices=positions, values=values)\n\n"
            "    def forward(self, input_ids, values):\n"
            "        embeds = torch.from_numpy(np.zeros((3, 4)))\n"
            "        return self.merge(input_ids, embeds, values)\n",
            line=11,
            column=18,
        ),
        # The partner may be a Python number (`0` when `steps` is falsy): it has no
        # `.device` to lend a fix either.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Positions(nn.Module):\n"
            "    def forward(self, batch, steps):\n"
            '        ids = batch["ids"]\n'
            "        start = ids.max() + 1 if steps else 0\n"
            "        return torch.arange(steps) + start\n",
            line=8,
            column=16,
        ),
        # `pin_memory=False` pins nothing: the tensor may be made on the device.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Pad(nn.Module):\n"
            "    def forward(self, x):\n"
            "        buf = torch.zeros(x.shape[0], pin_memory=False)\n"
            "        return x + buf\n",
            line=6,
            column=15,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Pad(nn.Module):\n"
            "    def forward(self, x):\n"
            "        buf = torch.zeros(x.shape[0], pin_memory=False, device=x.device)\n"
            "        return x + buf\n",
            unsafe=True,
        ),
        # A pinned staging buffer stays on the host (`device=` with `pin_memory=` raises),
        # and the tensor a call writes into (`out=`) cannot be moved there: no fix.
        Invalid(
            "import torch\n\n"
            "def fetch(rows, table, device):\n"
            "    staged = torch.empty(rows.shape[0], 8, pin_memory=True)\n"
            "    torch.index_select(table, 0, rows, out=staged)\n"
            "    return staged.to(device, non_blocking=True)\n",
            line=4,
            column=14,
        ),
        # A `with torch.device("cpu"):` block makes its tensors on the CPU all the same.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class D(nn.Module):\n"
            "    def forward(self, x):\n"
            '        with torch.device("cpu"):\n'
            "            v = torch.zeros(3)\n"
            "        return x + v\n",
            line=7,
            column=17,
            fixed="import torch\nfrom torch import nn\n\n"
            "class D(nn.Module):\n"
            "    def forward(self, x):\n"
            '        with torch.device("cpu"):\n'
            "            v = torch.zeros(3, device=x.device)\n"
            "        return x + v\n",
            unsafe=True,
        ),
        # A method of a tensor made before the `with torch.device(...)` block keeps it
        # where it was made.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class B(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(3)\n"
            "        with torch.device(x.device):\n"
            "            w = t.float()\n"
            "        return x + w\n",
            line=6,
            column=13,
            fixed="import torch\nfrom torch import nn\n\n"
            "class B(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(3, device=x.device)\n"
            "        with torch.device(x.device):\n"
            "            w = t.float()\n"
            "        return x + w\n",
            unsafe=True,
        ),
        # Model code of a module that also exports to OpenVINO runs wherever it is moved.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(3, 3)\n\n"
            "    def forward(self, x):\n"
            "        return self.fc(x) + torch.ones(3)\n\n"
            "    def export(self, path):\n"
            "        import openvino as ov\n\n"
            "        ov.save_model(ov.convert_model(self), path)\n",
            line=10,
            column=29,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = nn.Linear(3, 3)\n\n"
            "    def forward(self, x):\n"
            "        return self.fc(x) + torch.ones(3, device=x.device)\n\n"
            "    def export(self, path):\n"
            "        import openvino as ov\n\n"
            "        ov.save_model(ov.convert_model(self), path)\n",
            unsafe=True,
        ),
        # `torch.from_numpy` shares the array's memory: on the CPU even in a
        # `with torch.device(...)` block.
        Invalid(
            "import numpy as np\nimport torch\nimport torch.nn as nn\n\n"
            "class Pos(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.device(x.device):\n"
            "            table = torch.from_numpy(np.arange(4.0))\n"
            "        return x * table\n",
            line=8,
            column=21,
            fixed="import numpy as np\nimport torch\nimport torch.nn as nn\n\n"
            "class Pos(nn.Module):\n"
            "    def forward(self, x):\n"
            "        with torch.device(x.device):\n"
            "            table = torch.from_numpy(np.arange(4.0))\n"
            "        return x * table.to(x.device)\n",
            unsafe=True,
        ),
        # Only the first key's item was moved; `indices[k]` picks from a dict by key, so the
        # fix moves the item, not the dict.
        Invalid(
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "class Multi(nn.Module):\n"
            "    def forward(self, x, tasks, first):\n"
            "        indices = {t: torch.LongTensor(r) for t, r in tasks.items()}\n"
            "        k = first\n"
            "        indices[k] = indices[k].to(x.device)\n"
            "        for k in tasks:\n"
            "            torch.index_select(x, 0, indices[k])\n",
            line=7,
            column=23,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "class Multi(nn.Module):\n"
            "    def forward(self, x, tasks, first):\n"
            "        indices = {t: torch.LongTensor(r) for t, r in tasks.items()}\n"
            "        k = first\n"
            "        indices[k] = indices[k].to(x.device)\n"
            "        for k in tasks:\n"
            "            torch.index_select(x, 0, indices[k].to(x.device))\n",
            unsafe=True,
        ),
        # The item is moved on one path only: on the other it is still the CPU tensor.
        Invalid(
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "class Multi(nn.Module):\n"
            "    def forward(self, x, tasks, moved: bool):\n"
            "        indices = {task: torch.LongTensor(rows) for task, rows in tasks.items()}\n"
            "        outputs = []\n"
            "        for task in indices:\n"
            "            if moved:\n"
            "                indices[task] = indices[task].to(x.device)\n"
            "            outputs.append(torch.index_select(x, 0, indices[task]))\n"
            "        return outputs\n",
            line=7,
            column=26,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "class Multi(nn.Module):\n"
            "    def forward(self, x, tasks, moved: bool):\n"
            "        indices = {task: torch.LongTensor(rows) for task, rows in tasks.items()}\n"
            "        outputs = []\n"
            "        for task in indices:\n"
            "            if moved:\n"
            "                indices[task] = indices[task].to(x.device)\n"
            "            outputs.append(torch.index_select(x, 0, indices[task].to(x.device)))\n"
            "        return outputs\n",
            unsafe=True,
        ),
        # `logging` reads device tensors too: the model's scores stay on its device.
        Invalid(
            "import logging\n"
            "\n"
            "import torch\n"
            "\n"
            "\n"
            "class Scorer:\n"
            "    def __init__(self, model: torch.nn.Module, device):\n"
            "        self.model = model\n"
            "        self.device = device\n"
            "\n"
            "    def score(self, x):\n"
            "        scores = self.model(x)\n"
            '        logging.info("scores: %s", scores)\n'
            "        return scores * torch.ones(3)\n",
            line=14,
            column=25,
            fixed="import logging\n"
            "\n"
            "import torch\n"
            "\n"
            "\n"
            "class Scorer:\n"
            "    def __init__(self, model: torch.nn.Module, device):\n"
            "        self.model = model\n"
            "        self.device = device\n"
            "\n"
            "    def score(self, x):\n"
            "        scores = self.model(x)\n"
            '        logging.info("scores: %s", scores)\n'
            "        return scores * torch.ones(3, device=self.device)\n",
        ),
        # A distribution built from a model's output samples on the model's device.
        Invalid(
            "import torch\n"
            "from torch.distributions import Normal\n"
            "\n"
            "\n"
            "class Sampler:\n"
            "    def __init__(self, model: torch.nn.Module, device):\n"
            "        self.model = model\n"
            "        self.device = device\n"
            "\n"
            "    def draw(self, x, n: int):\n"
            "        normal = Normal(self.model(x), 1.0)\n"
            "        return normal.sample() + torch.rand(n)\n",
            line=12,
            column=34,
            fixed="import torch\n"
            "from torch.distributions import Normal\n"
            "\n"
            "\n"
            "class Sampler:\n"
            "    def __init__(self, model: torch.nn.Module, device):\n"
            "        self.model = model\n"
            "        self.device = device\n"
            "\n"
            "    def draw(self, x, n: int):\n"
            "        normal = Normal(self.model(x), 1.0)\n"
            "        return normal.sample() + torch.rand(n, device=self.device)\n",
        ),
        # The caller moves the helper's result, yet what it hands the helper is the
        # computation's: the CPU offsets meet a device mask (fairseq's wait-k attention).
        Invalid(
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "def wait_k(length, mask):\n"
            "    offsets = torch.arange(length)\n"
            "    offsets = offsets + mask.sum(dim=1, keepdim=True)\n"
            "    return offsets\n"
            "\n"
            "\n"
            "class Attention(nn.Module):\n"
            "    def forward(self, query, mask):\n"
            "        chosen = wait_k(query.size(0), mask)\n"
            "        return chosen.to(query)\n",
            line=6,
            column=15,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "\n"
            "def wait_k(length, mask):\n"
            "    offsets = torch.arange(length, device=mask.device)\n"
            "    offsets = offsets + mask.sum(dim=1, keepdim=True)\n"
            "    return offsets\n"
            "\n"
            "\n"
            "class Attention(nn.Module):\n"
            "    def forward(self, query, mask):\n"
            "        chosen = wait_k(query.size(0), mask)\n"
            "        return chosen.to(query)\n",
            unsafe=True,
        ),
        # One index of a matrix is a row: a CPU vector that meets `x`.
        Invalid(
            "import torch\nimport torch.nn as nn\n\n"
            "class Mixer(nn.Module):\n"
            "    def forward(self, x, n: int):\n"
            "        weights = torch.rand((n, n))\n"
            "        return weights[0] * x\n",
            line=6,
            column=19,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Mixer(nn.Module):\n"
            "    def forward(self, x, n: int):\n"
            "        weights = torch.rand((n, n), device=x.device)\n"
            "        return weights[0] * x\n",
            unsafe=True,
        ),
        # A parameter-free module hands back its input where it is: the CPU mask meets `x`.
        Invalid(
            "import torch\nimport torch.nn as nn\n\n"
            "class Gate(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.act = nn.Sigmoid()\n\n"
            "    def forward(self, x):\n"
            "        mask = self.act(torch.ones(x.shape[0]))\n"
            "        return x * mask\n",
            line=10,
            column=25,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Gate(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.act = nn.Sigmoid()\n\n"
            "    def forward(self, x):\n"
            "        mask = self.act(torch.ones(x.shape[0], device=x.device))\n"
            "        return x * mask\n",
            unsafe=True,
        ),
        # A tensor's own device is no flag: `.cuda()` goes to the current GPU, not to x's.
        Invalid(
            "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
            "class NoisyLinear(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.weight = nn.Parameter(torch.zeros(n, n))\n\n"
            "    def forward(self, x):\n"
            "        eps = torch.rand(self.weight.shape[0], 1)\n"
            '        if x.device == "cuda":\n'
            "            eps = eps.cuda()\n"
            "        return F.linear(x, self.weight * eps)\n",
            line=11,
            column=15,
            fixed="import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
            "class NoisyLinear(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.weight = nn.Parameter(torch.zeros(n, n))\n\n"
            "    def forward(self, x):\n"
            "        eps = torch.rand(self.weight.shape[0], 1, device=x.device)\n"
            '        if x.device == "cuda":\n'
            "            eps = eps.cuda()\n"
            "        return F.linear(x, self.weight * eps)\n",
            unsafe=True,
        ),
        # A pipeline's input, rebound from what the caller passed, is on the caller's
        # device, not surely on `self.device`: the fix borrows the input's device.
        Invalid(
            "import torch\n\n"
            "class Streamer:\n"
            '    def __init__(self, model, device="cpu"):\n'
            "        self.model = model.to(device)\n"
            "        self.device = device\n\n"
            "    def pad(self, speech, buffer, width):\n"
            "        speech = torch.cat([buffer, speech], dim=0)\n"
            "        pad = torch.zeros(width - speech.size(0))\n"
            "        return torch.cat([speech, pad], dim=0)\n",
            line=10,
            column=15,
            fixed="import torch\n\n"
            "class Streamer:\n"
            '    def __init__(self, model, device="cpu"):\n'
            "        self.model = model.to(device)\n"
            "        self.device = device\n\n"
            "    def pad(self, speech, buffer, width):\n"
            "        speech = torch.cat([buffer, speech], dim=0)\n"
            "        pad = torch.zeros(width - speech.size(0), device=speech.device)\n"
            "        return torch.cat([speech, pad], dim=0)\n",
            unsafe=True,
        ),
        # A loss given a weight tensor holds it (a buffer on the computation's device).
        Invalid(
            "import torch\nimport torch.nn as nn\n\n"
            "class Scorer(nn.Module):\n"
            "    def forward(self, batch, weight):\n"
            "        scores = torch.tensor([s.item() for s in batch])\n"
            "        loss = nn.CrossEntropyLoss(weight=weight)\n"
            "        return loss(scores[None], scores.argmax()[None]).tolist()\n",
            line=6,
            column=18,
        ),
        Invalid(
            # transformers' Trainer puts the batch on its device (`super()._prepare_inputs`).
            "import torch\nfrom transformers import Trainer\n\n"
            "class Scorer(Trainer):\n"
            "    def compute_loss(self, model, inputs, return_outputs=False):\n"
            '        batch = self.tokenizer(inputs["text"], return_tensors="pt")\n'
            "        batch = super()._prepare_inputs(batch)\n"
            '        offsets = torch.arange(batch["input_ids"].shape[1])\n'
            '        return (batch["input_ids"] + offsets).sum()\n',
            line=8,
            column=19,
        ),
        Invalid(
            # accelerate's `gather` leaves the batch's labels on the trainer's device.
            "import torch\nfrom transformers import Trainer\n\n"
            "class Ranker(Trainer):\n"
            "    def compute_loss(self, model, inputs, return_outputs=False):\n"
            '        labels = self.accelerator.gather(inputs["labels"])\n'
            "        weights = torch.ones(labels.shape[0])\n"
            "        return (labels * weights).sum()\n",
            line=7,
            column=19,
            fixed="import torch\nfrom transformers import Trainer\n\n"
            "class Ranker(Trainer):\n"
            "    def compute_loss(self, model, inputs, return_outputs=False):\n"
            '        labels = self.accelerator.gather(inputs["labels"])\n'
            "        weights = torch.ones(labels.shape[0])\n"
            "        return (labels * weights.to(labels.device)).sum()\n",
            unsafe=True,
        ),
        # `self(steps)` runs the class's own forward, where the steps meet the embedding.
        Invalid(
            "import torch\nimport torch.nn as nn\n\n"
            "class Ramp(nn.Module):\n"
            "    def __init__(self, dim):\n"
            "        super().__init__()\n"
            "        self.emb = nn.Embedding(64, dim)\n\n"
            "    def forward(self, x):\n"
            "        if x.dim() == 4:\n"
            "            return self.grid(x.shape[-1]).to(x)\n"
            "        return self.emb(x)\n\n"
            "    def grid(self, n):\n"
            "        steps = torch.arange(1, n + 1).unsqueeze(0)\n"
            "        return self(steps).transpose(1, 2)\n",
            15,
            17,
        ),
        Invalid(
            # A method kept on self as a callback runs on the forward path that calls it.
            "import torch\nfrom torch import nn\n\n"
            "class Balancer(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.balance = self.uniform\n\n"
            "    def forward(self, scores):\n"
            "        return self.balance(scores)\n\n"
            "    def uniform(self, scores):\n"
            "        return scores * torch.ones(scores.shape[0])\n",
            line=13,
            column=25,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Balancer(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.balance = self.uniform\n\n"
            "    def forward(self, scores):\n"
            "        return self.balance(scores)\n\n"
            "    def uniform(self, scores):\n"
            "        return scores * torch.ones(scores.shape[0], device=scores.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A transformers model does not: the waveform meets its weights on the CPU.
            "import torch\n"
            "from transformers import AutoModel\n"
            "\n"
            "class Speakers:\n"
            "    def __init__(self, name, device):\n"
            "        self.model = AutoModel.from_pretrained(name).to(device)\n"
            "\n"
            "    def __call__(self, samples):\n"
            "        waveform = torch.from_numpy(samples[None, :])\n"
            "        return self.model(waveform)\n",
            line=9,
            column=20,
        ),
        Invalid(
            # The same submodule's tensor attribute is on the device.
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "class Rotary(nn.Module):\n"
            "    def __init__(self, blocks):\n"
            "        super().__init__()\n"
            "        self.blocks = nn.ModuleList(blocks)\n"
            "\n"
            "    def forward(self, x):\n"
            "        for block in self.blocks:\n"
            "            x = x + block.weight[: block.width] * torch.arange(\n"
            "                block.width)\n"
            "        return x\n",
            line=11,
            column=51,
            fixed=(
                "import torch\n"
                "from torch import nn\n"
                "\n"
                "class Rotary(nn.Module):\n"
                "    def __init__(self, blocks):\n"
                "        super().__init__()\n"
                "        self.blocks = nn.ModuleList(blocks)\n"
                "\n"
                "    def forward(self, x):\n"
                "        for block in self.blocks:\n"
                "            x = x + block.weight[: block.width] * torch.arange(\n"
                "                block.width, device=x.device)\n"
                "        return x\n"
            ),
            unsafe=True,
        ),
        Invalid(
            # A resampler moved to the model's device meets the wave still on the CPU.
            "import torch\n"
            "from torchaudio import transforms as T\n"
            "\n"
            "def prepare(model, wave, rate, device):\n"
            "    if isinstance(wave, tuple):\n"
            "        source_rate, wave = wave\n"
            "        wave = torch.from_numpy(wave).float()\n"
            "        resample = T.Resample(source_rate, rate).to(device)\n"
            "        wave = resample(wave)\n"
            "    return model(wave.to(device))\n",
            line=7,
            column=16,
        ),
        Invalid(
            # Indexed by a counter, but after a new axis: a vector of one element, on the CPU.
            "import torch\nfrom tqdm import trange\n\n"
            "class Denoiser:\n"
            "    def __init__(self, model):\n        self.model = model\n\n"
            "    def run(self, x, n):\n"
            "        levels = torch.linspace(0.0, 1.0, n + 1)\n"
            "        for k in trange(n):\n"
            "            x = self.model(x * levels[None, k])\n"
            "        return x\n",
            line=9,
            column=18,
            fixed="import torch\nfrom tqdm import trange\n\n"
            "class Denoiser:\n"
            "    def __init__(self, model):\n        self.model = model\n\n"
            "    def run(self, x, n):\n"
            "        levels = torch.linspace(0.0, 1.0, n + 1, device=x.device)\n"
            "        for k in trange(n):\n"
            "            x = self.model(x * levels[None, k])\n"
            "        return x\n",
            unsafe=True,
        ),
        Invalid(
            # A CPU fallback: callers get it where the other path gives the points' device.
            "import torch\n\n"
            "def normalized(points: torch.Tensor, eps: float = 1e-8):\n"
            "    norm = points.norm(dim=-1, keepdim=True)\n"
            "    if bool((norm < eps).all()):\n"
            "        return torch.zeros(points.shape[0], 3)\n"
            "    return points / norm\n",
            line=6,
            column=16,
            fixed="import torch\n\n"
            "def normalized(points: torch.Tensor, eps: float = 1e-8):\n"
            "    norm = points.norm(dim=-1, keepdim=True)\n"
            "    if bool((norm < eps).all()):\n"
            "        return torch.zeros(points.shape[0], 3, device=points.device)\n"
            "    return points / norm\n",
            unsafe=True,
        ),
        Invalid(
            # A fallback kept in a name: what a plain function (not the module an
            # `isinstance` test found) returns is Python data, which `torch.tensor` copies
            # to the CPU.
            "from typing import Callable, Union\n\n"
            "import torch\nimport torch.nn as nn\n\n"
            "def score(model: Union[nn.Module, Callable], ids: torch.Tensor):\n"
            "    if isinstance(model, nn.Module):\n"
            "        return model(ids).squeeze(-1)\n"
            "    rewards = model(ids.tolist())\n"
            "    rewards = torch.tensor(rewards)\n"
            "    return rewards\n",
            line=10,
            column=15,
            fixed="from typing import Callable, Union\n\n"
            "import torch\nimport torch.nn as nn\n\n"
            "def score(model: Union[nn.Module, Callable], ids: torch.Tensor):\n"
            "    if isinstance(model, nn.Module):\n"
            "        return model(ids).squeeze(-1)\n"
            "    rewards = model(ids.tolist())\n"
            "    rewards = torch.tensor(rewards, device=ids.device)\n"
            "    return rewards\n",
            unsafe=True,
        ),
        Invalid(
            # Put on the CPU on purpose, then indexed by the device's top-k: no fix (the
            # index may belong on the CPU, or the features on the device).
            "import torch\n\n"
            "def retrieve(model, images, k: int):\n"
            "    feats = []\n"
            "    for image in images:\n"
            "        feats.append(model.encode(image.to(model.device)).cpu())\n"
            "    feats = torch.cat(feats)\n"
            "    top = model.score(feats.to(model.device)).topk(k).indices\n"
            "    return feats[top]\n",
            line=6,
            column=22,
        ),
        Invalid(
            # The same for one element of a returned tuple.
            "import torch\n\n"
            "def moments(a: torch.Tensor):\n"
            "    if a.numel() == 0:\n"
            "        return a.sum(), torch.zeros(3)\n"
            "    return a.sum(), a.mean(0)\n",
            line=5,
            column=25,
            fixed="import torch\n\n"
            "def moments(a: torch.Tensor):\n"
            "    if a.numel() == 0:\n"
            "        return a.sum(), torch.zeros(3, device=a.device)\n"
            "    return a.sum(), a.mean(0)\n",
            unsafe=True,
        ),
        Invalid(
            # A window function is a factory; `torch.stft` meets its window.
            "import torch\nimport torch.nn as nn\n\n"
            "class Spectrogram(nn.Module):\n"
            "    def forward(self, x, n_fft: int = 512):\n"
            "        window = torch.hann_window(n_fft)\n"
            "        return torch.stft(x, n_fft, window=window, return_complex=True).abs()\n",
            line=6,
            column=18,
            fixed=(
                "import torch\nimport torch.nn as nn\n\n"
                "class Spectrogram(nn.Module):\n"
                "    def forward(self, x, n_fft: int = 512):\n"
                "        window = torch.hann_window(n_fft, device=x.device)\n"
                "        return torch.stft(x, n_fft, window=window, return_complex=True).abs()\n"
            ),
            unsafe=True,
        ),
        Invalid(
            # A lambda bound to a name is a nested function: called, its body meets what
            # the call passes it (the CPU angles) with what it captured (the device grid).
            "import torch\n\n\n"
            "def noise(n, device):\n"
            "    grid = torch.linspace(0, 1, n).to(device)\n"
            "    angles = torch.rand(n)\n"
            "    scale = lambda g: grid * g\n"
            "    return scale(angles)\n",
            line=6,
            column=14,
            fixed="import torch\n\n\n"
            "def noise(n, device):\n"
            "    grid = torch.linspace(0, 1, n).to(device)\n"
            "    angles = torch.rand(n, device=device)\n"
            "    scale = lambda g: grid * g\n"
            "    return scale(angles)\n",
            unsafe=True,
        ),
        Invalid(
            # Met inside a nested function that captured it: no fix moves the function.
            "import torch\nfrom torch import nn\n\n\n"
            "class Multi(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.heads = nn.ModuleDict({"a": nn.Linear(2, 2)})\n\n'
            "    def forward(self, x, tasks):\n"
            "        indices = {task: torch.LongTensor([0]) for task in tasks}\n\n"
            "        def pick(task, batch):\n"
            "            return torch.index_select(batch, 0, indices[task])\n\n"
            "        return {name: self.heads[name](pick(name, x)) for name in self.heads}\n",
            line=11,
            column=26,
        ),
        Invalid(
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "from .blocks import Mixer\n"
            "\n"
            "\n"
            "class Beamformer(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.mixer = Mixer(4)\n"
            "\n"
            "    def forward(self, x, valid=None):\n"
            "        if valid is None:\n"
            "            valid = torch.LongTensor([x.shape[1]] * x.shape[0])\n"
            "        y = self.mixer(x, valid)\n"
            "        return y.mean(1) if valid.max() == 0 else y\n",
            line=14,
            column=21,
            fixed="import torch\n"
            "from torch import nn\n"
            "\n"
            "from .blocks import Mixer\n"
            "\n"
            "\n"
            "class Beamformer(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.mixer = Mixer(4)\n"
            "\n"
            "    def forward(self, x, valid=None):\n"
            "        if valid is None:\n"
            "            valid = torch.LongTensor([x.shape[1]] * x.shape[0])\n"
            "        y = self.mixer(x, valid.to(x.device))\n"
            "        return y.mean(1) if valid.max() == 0 else y\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\n"
            "from torch import nn\n"
            "from torch.nn.utils.rnn import pack_padded_sequence\n"
            "\n"
            "\n"
            "class Frames(nn.Module):\n"
            "    def forward(self, x, lengths):\n"
            "        return pack_padded_sequence(x, lengths.cpu(), batch_first=True)\n"
            "\n"
            "\n"
            "class Pool(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.attention = nn.MultiheadAttention(8, 2)\n"
            "\n"
            "    def forward(self, x, lengths):\n"
            "        mask = torch.arange(x.shape[0])[None, :] < lengths[:, None]\n"
            "        return self.attention(x, x, x, key_padding_mask=~mask)[0]\n",
            line=17,
            column=16,
            fixed="import torch\n"
            "from torch import nn\n"
            "from torch.nn.utils.rnn import pack_padded_sequence\n"
            "\n"
            "\n"
            "class Frames(nn.Module):\n"
            "    def forward(self, x, lengths):\n"
            "        return pack_padded_sequence(x, lengths.cpu(), batch_first=True)\n"
            "\n"
            "\n"
            "class Pool(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.attention = nn.MultiheadAttention(8, 2)\n"
            "\n"
            "    def forward(self, x, lengths):\n"
            "        mask = torch.arange(x.shape[0], device=lengths.device)[None, :] < "
            "lengths[:, None]\n"
            "        return self.attention(x, x, x, key_padding_mask=~mask)[0]\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\n\n"
            "def drop(x: torch.Tensor, p: float):\n"
            '    if x.device != torch.device("cpu"):\n'
            "        keep = torch.rand(x.shape) > p\n"
            "    else:\n"
            "        keep = torch.rand(x.shape, device=x.device) > p\n"
            "    return x * keep\n",
            line=5,
            column=16,
            fixed="import torch\n\n"
            "def drop(x: torch.Tensor, p: float):\n"
            '    if x.device != torch.device("cpu"):\n'
            "        keep = torch.rand(x.shape, device=x.device) > p\n"
            "    else:\n"
            "        keep = torch.rand(x.shape, device=x.device) > p\n"
            "    return x * keep\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\n\n"
            "def diagonal(n, device=None):\n"
            "    rows = torch.arange(n, device=device)\n"
            "    table = torch.rand((n, n))\n"
            "    return table[(rows, rows)]\n",
            line=5,
            column=13,
            fixed="import torch\n\n"
            "def diagonal(n, device=None):\n"
            "    rows = torch.arange(n, device=device)\n"
            "    table = torch.rand((n, n), device=device)\n"
            "    return table[(rows, rows)]\n",
            unsafe=True,
        ),
        Invalid(
            # The element of a helper's result that is a CPU tensor meets the input.
            "import torch\nfrom torch import nn\n\n"
            "class Matcher(nn.Module):\n"
            "    def forward(self, x):\n"
            "        anchor, candidates = self._anchor(x)\n"
            "        return (x == anchor).sum(), len(candidates)\n\n"
            "    def _anchor(self, x):\n"
            "        ids = [a for a in torch.unique(x)]\n"
            "        return torch.tensor([len(ids)]), ids\n",
            line=11,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Matcher(nn.Module):\n"
            "    def forward(self, x):\n"
            "        anchor, candidates = self._anchor(x)\n"
            "        return (x == anchor).sum(), len(candidates)\n\n"
            "    def _anchor(self, x):\n"
            "        ids = [a for a in torch.unique(x)]\n"
            "        return torch.tensor([len(ids)], device=x.device), ids\n",
            unsafe=True,
        ),
        Invalid(
            # Written into a module's weight: the fix borrows the weight's device, not the
            # module's (a module has no `.device`).
            "import torch\nfrom torch import nn\n\n"
            "def grow(emb: nn.Module, rows: int):\n"
            "    emb.weight.data = torch.zeros((rows, 4))\n"
            "    emb.bias.data = torch.zeros(rows, device=emb.bias.device)\n",
            line=5,
            column=23,
            fixed="import torch\nfrom torch import nn\n\n"
            "def grow(emb: nn.Module, rows: int):\n"
            "    emb.weight.data = torch.zeros((rows, 4)).to(emb.weight.device)\n"
            "    emb.bias.data = torch.zeros(rows, device=emb.bias.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A 0-dim CPU tensor stacked with a device one: `stack` refuses it on CUDA.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class Scorer(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        empty = torch.tensor(0.0)\n"
            "        return torch.stack([x.mean(), empty])\n",
            line=6,
            column=17,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class Scorer(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        empty = torch.tensor(0.0, device=self.device)\n"
            "        return torch.stack([x.mean(), empty])\n",
        ),
        Invalid(
            # The same under another name: the flow reads the qualified name, `torch.stack`.
            "import torch\nimport torch.nn as nn\nfrom torch import stack as pile\n\n"
            "class Scores(nn.Module):\n"
            "    def forward(self, x):\n"
            "        floor = torch.tensor(0.0)\n"
            "        return pile([x.mean(), floor])\n",
            line=7,
            column=17,
            fixed="import torch\nimport torch.nn as nn\nfrom torch import stack as pile\n\n"
            "class Scores(nn.Module):\n"
            "    def forward(self, x):\n"
            "        floor = torch.tensor(0.0, device=x.device)\n"
            "        return pile([x.mean(), floor])\n",
            unsafe=True,
        ),
        Invalid(
            # A 0-dim CPU tensor updated in place by a device one: a TensorIterator lets a
            # CPU scalar into a CUDA kernel as an input, never as the output it writes.
            "import torch\nimport torch.nn as nn\n\n"
            "class Penalty(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])\n\n"
            "    def forward(self, x):\n"
            "        total = torch.tensor(0.0)\n"
            "        for layer in self.layers:\n"
            "            x = layer(x)\n"
            "            total += x.pow(2).mean()\n"
            "        return x, total\n",
            line=10,
            column=17,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Penalty(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])\n\n"
            "    def forward(self, x):\n"
            "        total = torch.tensor(0.0, device=x.device)\n"
            "        for layer in self.layers:\n"
            "            x = layer(x)\n"
            "            total += x.pow(2).mean()\n"
            "        return x, total\n",
            unsafe=True,
        ),
        Invalid(
            # The same through an in-place method.
            "import torch\nimport torch.nn as nn\n\n"
            "class Penalty(nn.Module):\n"
            "    def forward(self, x):\n"
            "        total = torch.zeros([])\n"
            "        total.add_(x.pow(2).mean())\n"
            "        return total\n",
            line=6,
            column=17,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Penalty(nn.Module):\n"
            "    def forward(self, x):\n"
            "        total = torch.zeros([], device=x.device)\n"
            "        total.add_(x.pow(2).mean())\n"
            "        return total\n",
            unsafe=True,
        ),
        Invalid(
            # A 0-dim CPU bound of `clamp` next to a parameter: no CPU-scalar exemption.
            "import torch\nimport torch.nn as nn\n\n"
            "class Attention(nn.Module):\n"
            "    def __init__(self, heads):\n"
            "        super().__init__()\n"
            "        self.logit_scale = nn.Parameter(torch.zeros(heads, 1, 1))\n\n"
            "    def forward(self, q, k):\n"
            "        top = torch.log(torch.tensor(100.0))\n"
            "        return q @ k * torch.clamp(self.logit_scale, max=top).exp()\n",
            line=10,
            column=25,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Attention(nn.Module):\n"
            "    def __init__(self, heads):\n"
            "        super().__init__()\n"
            "        self.logit_scale = nn.Parameter(torch.zeros(heads, 1, 1))\n\n"
            "    def forward(self, q, k):\n"
            "        top = torch.log(torch.tensor(100.0))\n"
            "        return q @ k * torch.clamp(self.logit_scale, "
            "max=top.to(self.logit_scale.device)).exp()\n",
            unsafe=True,
        ),
        Invalid(
            # A method bound for later runs where its holder runs: in the block's forward.
            "from functools import partial\n\nimport torch\nimport torch.nn as nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self, block):\n"
            "        super().__init__()\n"
            "        self.layer = block(shortcut=partial(self._pad, planes=8))\n\n"
            "    def _pad(self, x, planes):\n"
            "        pads = torch.zeros(x.size(0), planes - x.size(1), *x.shape[2:])\n"
            "        return torch.cat([x, pads], dim=1)\n\n"
            "    def forward(self, x):\n"
            "        return self.layer(x)\n",
            line=12,
            column=16,
            fixed="from functools import partial\n\nimport torch\nimport torch.nn as nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self, block):\n"
            "        super().__init__()\n"
            "        self.layer = block(shortcut=partial(self._pad, planes=8))\n\n"
            "    def _pad(self, x, planes):\n"
            "        pads = torch.zeros(x.size(0), planes - x.size(1), *x.shape[2:], "
            "device=x.device)\n"
            "        return torch.cat([x, pads], dim=1)\n\n"
            "    def forward(self, x):\n"
            "        return self.layer(x)\n",
            unsafe=True,
        ),
        Invalid(
            # Written through a mask: `index_put_` needs the values on the tensor's device.
            "import torch\nimport torch.nn as nn\n\n"
            "class Masker(nn.Module):\n"
            "    def forward(self, x, mask: torch.Tensor):\n"
            "        x[mask] = torch.zeros(x.shape[-1])\n"
            "        return x\n",
            line=6,
            column=19,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Masker(nn.Module):\n"
            "    def forward(self, x, mask: torch.Tensor):\n"
            "        x[mask] = torch.zeros(x.shape[-1], device=x.device)\n"
            "        return x\n",
            unsafe=True,
        ),
        Invalid(
            # Freeing a device buffer by giving it a CPU `.data`.
            "import torch\n\n"
            "def gather(n, device=None):\n"
            "    flat = torch.zeros(2 * n, device=device)\n"
            "    parts = [flat.narrow(0, 0, n), flat.narrow(0, n, n)]\n"
            "    for i in range(len(parts)):\n"
            "        parts[i].data = torch.zeros(1)\n"
            "    return flat\n",
            line=7,
            column=25,
            fixed="import torch\n\n"
            "def gather(n, device=None):\n"
            "    flat = torch.zeros(2 * n, device=device)\n"
            "    parts = [flat.narrow(0, 0, n), flat.narrow(0, n, n)]\n"
            "    for i in range(len(parts)):\n"
            "        parts[i].data = torch.zeros(1, device=device)\n"
            "    return flat\n",
            unsafe=True,
        ),
        Invalid(
            # NCCL runs collectives on the GPU: a CPU tensor handed to one fails, wherever.
            "import torch\nimport torch.distributed as dist\n\n"
            "def get_maybe_sync_seed(max_size=10_000):\n"
            "    rand_int = torch.randint(0, max_size, (1,))\n"
            "    if dist.is_initialized():\n"
            "        dist.all_reduce(rand_int)\n"
            "    return rand_int.item()\n",
            line=5,
            column=16,
        ),
        Invalid(
            # A 0-dim tensor meets any device in arithmetic, but not in a collective.
            "import random\nimport torch\nimport torch.distributed as dist\n"
            "from torch import nn\n\n"
            "class ResidualVQ(nn.Module):\n"
            "    def forward(self, x):\n"
            "        if dist.is_initialized():\n"
            "            seed = torch.tensor(random.randrange(10_000))\n"
            "            dist.all_reduce(seed)\n"
            "        return x\n",
            line=9,
            column=20,
            unsafe=True,
            fixed="import random\nimport torch\nimport torch.distributed as dist\n"
            "from torch import nn\n\n"
            "class ResidualVQ(nn.Module):\n"
            "    def forward(self, x):\n"
            "        if dist.is_initialized():\n"
            "            seed = torch.tensor(random.randrange(10_000), device=x.device)\n"
            "            dist.all_reduce(seed)\n"
            "        return x\n",
        ),
        Invalid(
            # Over a group the project makes with NCCL.
            "import torch\nimport torch.distributed as dist\n\n"
            "def custom_group(ranks, backend=None):\n"
            "    return dist.new_group(ranks=ranks, backend=backend)\n\n"
            "class Controller:\n"
            "    def __init__(self, ranks, device):\n"
            "        self.device = device\n"
            '        self.cpu_group = custom_group(ranks, backend="gloo")\n'
            '        self.prefetch_group = custom_group(ranks, backend="nccl")\n\n'
            "    def agree(self, count):\n"
            "        hits = torch.tensor([count], dtype=torch.int)\n"
            "        dist.all_reduce(hits, group=self.prefetch_group)\n"
            "        return hits.item()\n",
            line=14,
            column=16,
            fixed="import torch\nimport torch.distributed as dist\n\n"
            "def custom_group(ranks, backend=None):\n"
            "    return dist.new_group(ranks=ranks, backend=backend)\n\n"
            "class Controller:\n"
            "    def __init__(self, ranks, device):\n"
            "        self.device = device\n"
            '        self.cpu_group = custom_group(ranks, backend="gloo")\n'
            '        self.prefetch_group = custom_group(ranks, backend="nccl")\n\n'
            "    def agree(self, count):\n"
            "        hits = torch.tensor([count], dtype=torch.int, device=self.device)\n"
            "        dist.all_reduce(hits, group=self.prefetch_group)\n"
            "        return hits.item()\n",
        ),
        Invalid(
            # Moved on a path that does not ask whether the GPU exists: the other path
            # hands NCCL a CPU tensor.
            "import torch\nimport torch.distributed as dist\n\n"
            "def count_params(model, rank):\n"
            "    total = torch.tensor([sum(p.numel() for p in model.parameters())])\n"
            "    if rank == 0:\n"
            "        total = total.cuda()\n"
            "    dist.all_reduce(total)\n"
            "    return total.item()\n",
            line=5,
            column=13,
        ),
        Invalid(
            # No move where they meet: on the other path the name holds None.
            "import torch\nfrom torch import nn\n\n"
            "class Graph(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.gn = nn.Bilinear(4, 4, 2)\n\n"
            "    def forward(self, feats, picked, mode):\n"
            '        if mode == "picked":\n'
            "            nodes = torch.FloatTensor(picked)\n"
            "        else:\n"
            "            nodes = None\n"
            "        return self.gn(feats, nodes)\n",
            line=11,
            column=21,
        ),
        Invalid(
            # A dict a helper returns, whose item stays on the CPU: picked, it meets the model.
            "import numpy as np\nimport torch\n\n"
            "def make_batch(image, device):\n"
            "    pixels = torch.from_numpy(np.asarray(image)).float()\n"
            '    batch = {"lr": pixels[None], "hr": None}\n'
            "    return batch\n\n"
            "def upscale(model, image, device):\n"
            "    batch = make_batch(image, device)\n"
            "    return [model(batch[key]) for key in model.concat_keys]\n",
            line=5,
            column=14,
        ),
        Invalid(
            # Handed over only where it is not on the GPU.
            "import torch\nimport torch.distributed as dist\n\n"
            "def reduce_metrics(output, distributed):\n"
            "    for key, v in output.items():\n"
            "        if isinstance(v, float):\n"
            "            v = torch.tensor([v])\n"
            "        if distributed and not v.is_cuda:\n"
            "            dist.all_reduce(v)\n"
            "        output[key] = v.detach()\n",
            line=7,
            column=17,
        ),
        Invalid(
            "import torch\nimport torch.distributed as dist\n\n"
            "def count_all(done):\n"
            "    total = torch.tensor(len(done))\n"
            "    dist.all_reduce(total)\n"
            "    return total.item()\n",
            line=5,
            column=13,
        ),
        Invalid(
            # The helper's result is handed to a collective by a function that calls it.
            "import torch\nimport torch.distributed as dist\n\n"
            "def _local_count(done):\n"
            "    return torch.tensor([len(done)])\n\n"
            "def count_all(done):\n"
            "    total = _local_count(done)\n"
            "    dist.all_reduce(total)\n"
            "    return total.item()\n",
            line=5,
            column=12,
        ),
        Invalid(
            # The default backend on a GPU machine is NCCL alone.
            "import torch\nimport torch.distributed as dist\n\n"
            "def setup(rank, world):\n"
            "    dist.init_process_group(rank=rank, world_size=world)\n\n"
            "def count_all(done):\n"
            "    total = torch.tensor(len(done))\n"
            "    dist.all_reduce(total)\n"
            "    return total.item()\n",
            line=8,
            column=13,
        ),
        Invalid(
            "import os\nimport torch\nimport torch.distributed as dist\n\n"
            "class Communicator:\n"
            "    def __init__(self, rank, world):\n"
            '        backend = "nccl" if torch.cuda.is_available() else "gloo"\n'
            "        dist.init_process_group(backend=backend, rank=rank, world_size=world)\n\n"
            "    def send_size(self, data, dst):\n"
            "        dist.send(torch.tensor(len(data)), dst=dst)\n",
            line=11,
            column=19,
        ),
        Invalid(
            "import numpy as np\nimport torch\nimport torch.nn as nn\n"
            "from torch import distributed as dist\n\n"
            "class ResidualVQ(nn.Module):\n"
            "    def forward(self, x):\n"
            "        seed = torch.tensor([np.random.randint(10_000)])\n"
            "        dist.broadcast(seed, src=0)\n"
            "        return x * seed.item()\n",
            line=8,
            column=16,
            fixed="import numpy as np\nimport torch\nimport torch.nn as nn\n"
            "from torch import distributed as dist\n\n"
            "class ResidualVQ(nn.Module):\n"
            "    def forward(self, x):\n"
            "        seed = torch.tensor([np.random.randint(10_000)], device=x.device)\n"
            "        dist.broadcast(seed, src=0)\n"
            "        return x * seed.item()\n",
            unsafe=True,
        ),
        Invalid(
            # A collate function that moves its samples to a device it is told: what meets
            # them there is on that device, not on the CPU where the samples came from.
            "import torch\n\n"
            "def collate_to(batch, device):\n"
            "    stacked = torch.stack(batch[0]).to(device)\n"
            "    return torch.cat([stacked, torch.zeros(1, stacked.shape[1])])\n",
            line=5,
            column=32,
            fixed="import torch\n\n"
            "def collate_to(batch, device):\n"
            "    stacked = torch.stack(batch[0]).to(device)\n"
            "    return torch.cat([stacked, torch.zeros(1, stacked.shape[1], device=device)])\n",
            unsafe=True,
        ),
        Invalid(
            # Named like a collate function, but a model's forward gives it its tensors.
            "import torch\nfrom torch import nn\n\n"
            "def pad_collate(items):\n"
            "    first = items[0]\n"
            "    return torch.cat([first, torch.zeros(1, first.shape[1])])\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return pad_collate([x, x])\n",
            line=6,
            column=30,
            fixed="import torch\nfrom torch import nn\n\n"
            "def pad_collate(items):\n"
            "    first = items[0]\n"
            "    return torch.cat([first, torch.zeros(1, first.shape[1]).to(first.device)])\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return pad_collate([x, x])\n",
            unsafe=True,
        ),
        Invalid(
            # A library function that places tensors by its input's device: `torch.cat`
            # of a device tensor with a CPU one made from a Python list.
            "import torch\n\n"
            "def curve(pred: torch.Tensor, weight=None):\n"
            "    if weight is not None:\n"
            "        weight = torch.as_tensor(weight, device=pred.device)\n"
            "    steps = torch.where(pred[1:] - pred[:-1])[0]\n"
            "    return torch.cat([steps, torch.tensor([pred.size(0) - 1])])\n",
            line=7,
            column=30,
            fixed="import torch\n\n"
            "def curve(pred: torch.Tensor, weight=None):\n"
            "    if weight is not None:\n"
            "        weight = torch.as_tensor(weight, device=pred.device)\n"
            "    steps = torch.where(pred[1:] - pred[:-1])[0]\n"
            "    return torch.cat([steps, torch.tensor([pred.size(0) - 1], "
            "device=pred.device)])\n",
            unsafe=True,
        ),
        Invalid(
            # Its module's functions follow their inputs (kornia's style): so does this one.
            "import torch\n\n"
            "def shear(center: torch.Tensor, sx=None):\n"
            "    sx = torch.zeros(center.size(0)) if sx is None else sx\n"
            "    return torch.tan(sx) * center[:, 1]\n\n"
            "def ones(src: torch.Tensor):\n"
            "    return torch.ones(src.shape[0], device=src.device)\n",
            line=4,
            column=10,
            fixed="import torch\n\n"
            "def shear(center: torch.Tensor, sx=None):\n"
            "    sx = torch.zeros(center.size(0), device=center.device) if sx is None else sx\n"
            "    return torch.tan(sx) * center[:, 1]\n\n"
            "def ones(src: torch.Tensor):\n"
            "    return torch.ones(src.shape[0], device=src.device)\n",
            unsafe=True,
        ),
        Invalid(
            # Its module's methods follow their inputs (`data.device`): so does this one,
            # whose `index` holds a tensor (`repeat_interleave`).
            "import torch\n\n"
            "class Writer:\n"
            "    def extend(self, data):\n"
            "        index = torch.arange(len(data), device=data.device)\n"
            "        return self._replicate(index, 3)\n\n"
            "    def _replicate(self, index, width):\n"
            "        mesh = torch.arange(width)\n"
            "        return torch.stack([index.repeat_interleave(width), mesh.repeat(2)])\n",
            line=9,
            column=16,
            fixed="import torch\n\n"
            "class Writer:\n"
            "    def extend(self, data):\n"
            "        index = torch.arange(len(data), device=data.device)\n"
            "        return self._replicate(index, 3)\n\n"
            "    def _replicate(self, index, width):\n"
            "        mesh = torch.arange(width, device=index.device)\n"
            "        return torch.stack([index.repeat_interleave(width), mesh.repeat(2)])\n",
            unsafe=True,
        ),
        Invalid(
            # A module parameter is on the computation's device: so is what follows it.
            "import torch\nfrom torch import nn\n\n"
            "def random_mask(layer: nn.Module, r: int):\n"
            "    idx = torch.randperm(layer.weight.numel())[:r].to(layer.weight.device)\n"
            "    val = torch.ones(r, dtype=torch.bool)\n"
            "    mask = torch.zeros(layer.weight.numel(), dtype=torch.bool).to(idx.device)\n"
            "    return mask.scatter(0, idx, val)\n",
            line=6,
            column=11,
            fixed="import torch\nfrom torch import nn\n\n"
            "def random_mask(layer: nn.Module, r: int):\n"
            "    idx = torch.randperm(layer.weight.numel())[:r].to(layer.weight.device)\n"
            "    val = torch.ones(r, dtype=torch.bool)\n"
            "    mask = torch.zeros(layer.weight.numel(), dtype=torch.bool).to(idx.device)\n"
            "    return mask.scatter(0, idx, val.to(mask.device))\n",
            unsafe=True,
        ),
        Invalid(
            # Told its device by an annotated parameter.
            "import torch\n\n"
            "def couples(k: int, dv: torch.device):\n"
            "    first = torch.arange(k, device=dv)\n"
            "    return torch.cat([first, torch.tensor([k], dtype=torch.long)])\n",
            line=5,
            column=30,
            fixed="import torch\n\n"
            "def couples(k: int, dv: torch.device):\n"
            "    first = torch.arange(k, device=dv)\n"
            "    return torch.cat([first, torch.tensor([k], dtype=torch.long, device=dv)])\n",
            unsafe=True,
        ),
        Invalid(
            # A sampler that keeps its model: the schedule it makes meets the noise.
            "import torch\n\nclass Sampler:\n"
            "    def __init__(self, model):\n        self.model = model\n\n"
            "    def step(self, x, steps):\n"
            "        sigmas = torch.linspace(1.0, 0.0, steps)\n"
            "        return self.model(x * sigmas)\n",
            line=8,
            column=18,
            fixed="import torch\n\nclass Sampler:\n"
            "    def __init__(self, model):\n        self.model = model\n\n"
            "    def step(self, x, steps):\n"
            "        sigmas = torch.linspace(1.0, 0.0, steps, device=x.device)\n"
            "        return self.model(x * sigmas)\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x + torch.arange(x.shape[1])\n",
            line=6,
            column=20,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x + torch.arange(x.shape[1], device=self.device)\n",
        ),
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return self._masked(batch)\n\n"
            "    def _masked(self, batch):\n"
            "        return batch.masked_fill(torch.zeros(\n"
            "            batch.shape,\n"
            "            dtype=torch.bool,\n"
            "        ), 0)\n",
            line=9,
            column=34,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return self._masked(batch)\n\n"
            "    def _masked(self, batch):\n"
            "        return batch.masked_fill(torch.zeros(\n"
            "            batch.shape,\n"
            "            dtype=torch.bool, device=self.device,\n"
            "        ), 0)\n",
        ),
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class Attention(nn.Module):\n"
            "    def forward(self, hidden_states):\n"
            "        return hidden_states * torch.tensor([1.0, 2.0])\n",
            line=6,
            column=32,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Attention(nn.Module):\n"
            "    def forward(self, hidden_states):\n"
            "        return hidden_states * torch.tensor([1.0, 2.0], "
            "device=hidden_states.device)\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "class M(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.FloatTensor(3)\n",
            line=6,
            column=20,
            fixed="import torch\nfrom torch import nn\n\n"
            "class M(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.FloatTensor(3).to(x.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A legacy constructor of empty data (`torch.Tensor([])`) is an empty 1-D tensor,
            # not a 0-dim scalar: the samples concatenated onto it are on the device.
            "import torch\nfrom torch import nn\n\n"
            "class Sampler(nn.Module):\n"
            "    def forward(self, prompts, steps):\n"
            "        sample = torch.Tensor([])\n"
            "        for _ in range(steps):\n"
            "            last = prompts[:, -1:]\n"
            "            sample = torch.cat((sample, last), dim=-1)\n"
            "        return sample\n",
            line=6,
            column=18,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Sampler(nn.Module):\n"
            "    def forward(self, prompts, steps):\n"
            "        sample = torch.Tensor([])\n"
            "        for _ in range(steps):\n"
            "            last = prompts[:, -1:]\n"
            "            sample = torch.cat((sample.to(last.device), last), dim=-1)\n"
            "        return sample\n",
            unsafe=True,
        ),
        Invalid(
            # Meets an input inside torch.cat; the fix borrows the input's device.
            "import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, feats):\n"
            "        bias = torch.ones(feats.shape[0], 1)\n"
            "        return torch.cat([feats, bias], dim=1)\n",
            line=6,
            column=16,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, feats):\n"
            "        bias = torch.ones(feats.shape[0], 1, device=feats.device)\n"
            "        return torch.cat([feats, bias], dim=1)\n",
            unsafe=True,
        ),
        Invalid(
            # A mask made only when none is given meets the embeddings.
            "import torch\nimport torch.nn as nn\n\n"
            "class Encoder(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.embed = nn.Embedding(512, 64)\n\n"
            "    def forward(self, tokens, mask=None, device=None):\n"
            "        if mask is None:\n"
            "            mask = torch.ones(tokens.shape, dtype=torch.bool)\n"
            "        return self.embed(tokens).masked_fill(~mask[..., None], 0.0)\n",
            line=11,
            column=20,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Encoder(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.embed = nn.Embedding(512, 64)\n\n"
            "    def forward(self, tokens, mask=None, device=None):\n"
            "        if mask is None:\n"
            "            mask = torch.ones(tokens.shape, dtype=torch.bool, device=device)\n"
            "        return self.embed(tokens).masked_fill(~mask[..., None], 0.0)\n",
            unsafe=True,
        ),
        Invalid(
            # Positions handed to a submodule of a LightningModule.
            "import torch\nimport pytorch_lightning as pl\nfrom torch import nn\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.pos = nn.Embedding(128, 16)\n\n"
            "    def forward(self, x):\n"
            "        positions = torch.arange(x.shape[1])\n"
            "        return x + self.pos(positions)\n",
            line=11,
            column=21,
            fixed="import torch\nimport pytorch_lightning as pl\nfrom torch import nn\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.pos = nn.Embedding(128, 16)\n\n"
            "    def forward(self, x):\n"
            "        positions = torch.arange(x.shape[1], device=self.device)\n"
            "        return x + self.pos(positions)\n",
        ),
        Invalid(
            # .to(dtype) casts, it does not move.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        mask = torch.ones(4, 4).tril()\n"
            "        mask = mask.to(x.dtype)\n"
            "        return x * mask\n",
            line=6,
            column=16,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        mask = torch.ones(4, 4, device=self.device).tril()\n"
            "        mask = mask.to(x.dtype)\n"
            "        return x * mask\n",
        ),
        Invalid(
            # Handed to a block of the model: it must be on the model's device.
            "import torch\nimport pytorch_lightning as pl\nfrom blocks import Block\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.blocks = torch.nn.ModuleList([Block(), Block()])\n\n"
            "    def forward(self, x):\n"
            "        for block in self.blocks:\n"
            "            x = block(x, torch.zeros(4))\n"
            "        return x\n",
            line=12,
            column=26,
            fixed="import torch\nimport pytorch_lightning as pl\nfrom blocks import Block\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.blocks = torch.nn.ModuleList([Block(), Block()])\n\n"
            "    def forward(self, x):\n"
            "        for block in self.blocks:\n"
            "            x = block(x, torch.zeros(4, device=self.device))\n"
            "        return x\n",
        ),
        Invalid(
            # Hyperparameters in a Python list: the tensor is made on the CPU.
            "import torch\nimport torch.nn.functional as F\n"
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        logits, y = self(batch[0]), batch[1]\n"
            "        weight = torch.tensor([self.hparams.w0, self.hparams.w1])\n"
            "        return F.cross_entropy(logits, y, weight=weight)\n",
            line=8,
            column=18,
            fixed="import torch\nimport torch.nn.functional as F\n"
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        logits, y = self(batch[0]), batch[1]\n"
            "        weight = torch.tensor([self.hparams.w0, self.hparams.w1], "
            "device=self.device)\n"
            "        return F.cross_entropy(logits, y, weight=weight)\n",
        ),
        Invalid(
            # A factory imported under another name; .to(dtype) casts, it does not move.
            "import torch.nn as nn\nfrom torch import arange as positions_of\n\n"
            "class Embed(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + positions_of(x.shape[1]).to(x.dtype)\n",
            line=6,
            column=20,
            fixed="import torch.nn as nn\nfrom torch import arange as positions_of\n\n"
            "class Embed(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + positions_of(x.shape[1], device=x.device).to(x.dtype)\n",
            unsafe=True,
        ),
        Invalid(
            # An import in the method binds the name for the rest of the module.
            "import torch.nn as nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, hidden):\n"
            "        import torch as th\n\n"
            "        return hidden + th.ones(hidden.shape[-1])\n",
            line=7,
            column=25,
            fixed="import torch.nn as nn\n\n"
            "class Head(nn.Module):\n"
            "    def forward(self, hidden):\n"
            "        import torch as th\n\n"
            "        return hidden + th.ones(hidden.shape[-1], device=hidden.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A torchmetrics state follows the metric's device, and torchvision's box ops
            # return on their input's: the CPU mask meets the device areas.
            "import torch\nfrom torchmetrics import Metric\n"
            "from torchvision.ops import box_area\n\n"
            "class SmallBoxes(Metric):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.add_state("boxes", default=[], dist_reduce_fx=None)\n\n'
            "    def forward(self, index):\n"
            "        areas = box_area(self.boxes[index])\n"
            "        ignored = torch.zeros(len(areas), dtype=torch.bool)\n"
            "        return ignored | (areas < 32**2)\n",
            line=12,
            column=19,
            fixed="import torch\nfrom torchmetrics import Metric\n"
            "from torchvision.ops import box_area\n\n"
            "class SmallBoxes(Metric):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.add_state("boxes", default=[], dist_reduce_fx=None)\n\n'
            "    def forward(self, index):\n"
            "        areas = box_area(self.boxes[index])\n"
            "        ignored = torch.zeros(len(areas), dtype=torch.bool, device=self.device)\n"
            "        return ignored | (areas < 32**2)\n",
        ),
        Invalid(
            # `torch.tensor` of a list copies the values to the CPU, even of device tensors.
            "import torch\nfrom torch import nn\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        parts = [x[i].sum() for i in range(2)]\n"
            "        weights = torch.tensor(parts)\n"
            "        return x * weights\n",
            line=7,
            column=19,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        parts = [x[i].sum() for i in range(2)]\n"
            "        weights = torch.tensor(parts, device=x.device)\n"
            "        return x * weights\n",
            unsafe=True,
        ),
        Invalid(
            # A mode with one option tested: on any other, the CPU placeholder is used.
            "import torch\nfrom torch import nn\n\n"
            "class Conv(nn.Module):\n"
            "    def forward(self, x):\n"
            "        alpha = torch.tensor([0])\n"
            '        if self.mode == "additive":\n'
            "            alpha = x + 1\n"
            "        return alpha[x > 0]\n",
            line=6,
            column=17,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Conv(nn.Module):\n"
            "    def forward(self, x):\n"
            "        alpha = torch.tensor([0], device=x.device)\n"
            '        if self.mode == "additive":\n'
            "            alpha = x + 1\n"
            "        return alpha[x > 0]\n",
            unsafe=True,
        ),
        Invalid(
            # An attribute of an object of unknown type (maybe an int) lends no .device: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Decoder(nn.Module):\n"
            "    def forward(self, state):\n"
            "        return state.hidden + torch.zeros(state.hidden.shape[-1])\n",
            line=7,
            column=31,
        ),
        Invalid(
            # An accumulator updated in place: moving it there would not parse: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, batch):\n"
            '        scores = batch["scores"]\n'
            "        total = torch.zeros(len(scores))\n"
            "        total += scores\n"
            "        return total\n",
            line=8,
            column=17,
        ),
        Invalid(
            # total.to(d).add_(x) would update a copy: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, batch):\n"
            '        scores = batch["scores"]\n'
            "        total = torch.zeros(len(scores))\n"
            "        total.add_(scores)\n"
            "        return total\n",
            line=8,
            column=17,
        ),
        Invalid(
            # The CPU tensor is what is added in place: moving it is safe.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, batch):\n"
            '        scores = batch["scores"]\n'
            "        bias = torch.ones(len(scores))\n"
            "        scores += bias\n"
            "        return scores\n",
            line=8,
            column=16,
            fixed="import torch\n"
            "from torch import nn\n\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, batch):\n"
            '        scores = batch["scores"]\n'
            "        bias = torch.ones(len(scores))\n"
            "        scores += bias.to(scores.device)\n"
            "        return scores\n",
            unsafe=True,
        ),
        Invalid(
            # device is a CUDA index (-1: the CPU): the fix borrows the input's device.
            "import torch\n"
            "from torch import Tensor\n\n\n"
            "def shift(x: Tensor, device: int = -1):\n"
            "    out = x + 1\n"
            "    if device >= 0:\n"
            "        out = out.cuda()\n"
            "    return out + torch.ones(3)\n",
            line=9,
            column=18,
            fixed="import torch\n"
            "from torch import Tensor\n\n\n"
            "def shift(x: Tensor, device: int = -1):\n"
            "    out = x + 1\n"
            "    if device >= 0:\n"
            "        out = out.cuda()\n"
            "    return out + torch.ones(3, device=x.device)\n",
            unsafe=True,
        ),
        Invalid(
            # device= would mix it with played, a CPU tensor no finding moves: no fix.
            "import torch\n\n\n"
            "class Evaluator:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n"
            "        self.model = model.to(device)\n\n"
            "    def run(self, batches, n):\n"
            "        wins = torch.zeros(n)\n"
            "        played = torch.zeros(n)\n"
            "        for batch in batches:\n"
            "            wins += self.model(batch.to(self.device))\n"
            "            played += 1\n"
            "        return wins / played\n",
            line=10,
            column=16,
        ),
        Invalid(
            # A None the helper tests and replaces (`if device is None:`) is no choice of
            # the CPU: the centres are on x's device, where the CPU steps meet them.
            "import torch\nfrom torch import nn\n\n"
            "def centers(x, n, device=None):\n"
            "    if device is None:\n"
            "        device = x.device\n"
            "    return torch.linspace(0, 1, n, device=device)\n\n"
            "class Rope(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(x.shape[1])\n"
            "        return x + t[:, None] * centers(x, 4)\n",
            line=11,
            column=13,
            fixed="import torch\nfrom torch import nn\n\n"
            "def centers(x, n, device=None):\n"
            "    if device is None:\n"
            "        device = x.device\n"
            "    return torch.linspace(0, 1, n, device=device)\n\n"
            "class Rope(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(x.shape[1], device=x.device)\n"
            "        return x + t[:, None] * centers(x, 4)\n",
            unsafe=True,
        ),
        Invalid(
            # The helper puts what a call leaves to None on its input's device: the CPU
            # steps meet the centres there.
            "import torch\nfrom torch import nn\n\n"
            "def centers(x, device=None):\n"
            "    device = device or x.device\n"
            "    return torch.linspace(0, 1, x.shape[2], device=device)\n\n"
            "class Rope(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(x.shape[1])\n"
            "        return x + torch.stack(torch.meshgrid(t, centers(x), indexing='ij'))\n",
            line=10,
            column=13,
            fixed="import torch\nfrom torch import nn\n\n"
            "def centers(x, device=None):\n"
            "    device = device or x.device\n"
            "    return torch.linspace(0, 1, x.shape[2], device=device)\n\n"
            "class Rope(nn.Module):\n"
            "    def forward(self, x):\n"
            "        t = torch.arange(x.shape[1], device=x.device)\n"
            "        return x + torch.stack(torch.meshgrid(t, centers(x), indexing='ij'))\n",
            unsafe=True,
        ),
        Invalid(
            # The helper's CPU default is overridden: the grid is on x's device.
            "import torch\nimport torch.nn as nn\n\n\n"
            "class Anchors(nn.Module):\n"
            '    def grid(self, n: int, device: torch.device = torch.device("cpu")):\n'
            "        return torch.arange(n, device=device)\n\n"
            "    def forward(self, x):\n"
            "        shifts = torch.arange(x.shape[-1])\n"
            "        return shifts + self.grid(x.shape[-1], device=x.device)\n",
            line=10,
            column=18,
            fixed="import torch\nimport torch.nn as nn\n\n\n"
            "class Anchors(nn.Module):\n"
            '    def grid(self, n: int, device: torch.device = torch.device("cpu")):\n'
            "        return torch.arange(n, device=device)\n\n"
            "    def forward(self, x):\n"
            "        shifts = torch.arange(x.shape[-1], device=x.device)\n"
            "        return shifts + self.grid(x.shape[-1], device=x.device)\n",
            unsafe=True,
        ),
        Invalid(
            # It meets the caller's images as passed, which the model takes as they are: on
            # the caller's device, not self.device (VALID: the pipeline moves them itself).
            "import torch\n\n\n"
            "class Pipeline:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n"
            "        self.model = model.to(device)\n\n"
            "    def __call__(self, images):\n"
            "        weights = torch.linspace(0, 1, images.shape[-1])\n"
            "        return self.model(images), images * weights\n",
            line=10,
            column=19,
            fixed="import torch\n\n\n"
            "class Pipeline:\n"
            "    def __init__(self, model, device):\n"
            "        self.device = device\n"
            "        self.model = model.to(device)\n\n"
            "    def __call__(self, images):\n"
            "        weights = torch.linspace(0, 1, images.shape[-1], device=images.device)\n"
            "        return self.model(images), images * weights\n",
            unsafe=True,
        ),
        Invalid(
            # A helper that never moves its argument hands the CPU tensor on as it is.
            "import torch\nimport torch.distributed as dist\n\n\n"
            "class Channel:\n"
            "    def __init__(self, over_gpu):\n"
            "        self.over_gpu = over_gpu\n\n"
            "    def _placed(self, t):\n"
            "        return t.contiguous() if self.over_gpu else t\n\n"
            "    def seed(self):\n"
            "        seed = torch.randint(0, 1000, (1,))\n"
            "        dist.broadcast(self._placed(seed), 0)\n"
            "        return int(seed)\n",
            line=13,
            column=16,
        ),
        Invalid(
            # A function nested in a method meets what the method passes it.
            "import torch\n"
            "\n"
            "\n"
            "class Fitter:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n"
            "        self.device = device\n"
            "\n"
            "    def effects(self, n):\n"
            "        def score(w: torch.Tensor, coef: torch.Tensor):\n"
            "            return w @ coef\n"
            "\n"
            "        coef = torch.randn(n, 3, device=self.device)\n"
            "        return score(torch.ones(n, n), coef)\n",
            line=14,
            column=22,
            fixed=(
                "import torch\n"
                "\n"
                "\n"
                "class Fitter:\n"
                "    def __init__(self, model, device):\n"
                "        self.model = model\n"
                "        self.device = device\n"
                "\n"
                "    def effects(self, n):\n"
                "        def score(w: torch.Tensor, coef: torch.Tensor):\n"
                "            return w @ coef\n"
                "\n"
                "        coef = torch.randn(n, 3, device=self.device)\n"
                "        return score(torch.ones(n, n, device=self.device), coef)\n"
            ),
        ),
        Invalid(
            # A helper two calls below a method that hands it its input as it came.
            "import torch\n"
            "\n"
            "\n"
            "class Probe:\n"
            "    def __init__(self, device):\n"
            "        self.device = device\n"
            "\n"
            "    def _design(self, feats):\n"
            "        return torch.cat([feats, torch.ones(feats.shape[0], 1)], dim=1)\n"
            "\n"
            "    def _fit(self, feats):\n"
            "        return self._design(feats).sum(0)\n"
            "\n"
            "    def fit(self, feats):\n"
            "        return self._fit(feats)\n",
            line=9,
            column=34,
            fixed=(
                "import torch\n"
                "\n"
                "\n"
                "class Probe:\n"
                "    def __init__(self, device):\n"
                "        self.device = device\n"
                "\n"
                "    def _design(self, feats):\n"
                "        return torch.cat("
                "[feats, torch.ones(feats.shape[0], 1, device=feats.device)], dim=1)\n"
                "\n"
                "    def _fit(self, feats):\n"
                "        return self._design(feats).sum(0)\n"
                "\n"
                "    def fit(self, feats):\n"
                "        return self._fit(feats)\n"
            ),
            unsafe=True,
        ),
        Invalid(
            # The same static method, its result used where it was made.
            "import torch\n"
            "\n"
            "\n"
            "class Volume:\n"
            "    def __init__(self, coords, values):\n"
            "        self.coords = coords\n"
            "        self.values = values\n"
            "        self.device = coords.device\n"
            "\n"
            "    def to(self, device):\n"
            "        self.coords = self.coords.to(device)\n"
            "        self.values = self.values.to(device)\n"
            "        self.device = device\n"
            "        return self\n"
            "\n"
            "    @staticmethod\n"
            "    def from_box(box: torch.Tensor, dims: torch.Tensor):\n"
            "        size = (box[1] - box[0]) / dims\n"
            "        grid = torch.arange(int(dims[0].item()))\n"
            "        return Volume(box[0] + grid[:, None] * size,"
            " torch.zeros(int(dims[0].item())))\n"
            "\n"
            "\n"
            "def build(device, dims, box=None):\n"
            "    if box is None:\n"
            "        box = torch.tensor([[0.0] * 3, [1.0] * 3])\n"
            "    volume = Volume.from_box(box, torch.tensor(dims))\n"
            "    return volume\n",
            line=19,
            column=16,
            fixed=(
                "import torch\n"
                "\n"
                "\n"
                "class Volume:\n"
                "    def __init__(self, coords, values):\n"
                "        self.coords = coords\n"
                "        self.values = values\n"
                "        self.device = coords.device\n"
                "\n"
                "    def to(self, device):\n"
                "        self.coords = self.coords.to(device)\n"
                "        self.values = self.values.to(device)\n"
                "        self.device = device\n"
                "        return self\n"
                "\n"
                "    @staticmethod\n"
                "    def from_box(box: torch.Tensor, dims: torch.Tensor):\n"
                "        size = (box[1] - box[0]) / dims\n"
                "        grid = torch.arange(int(dims[0].item()), device=box.device)\n"
                "        return Volume(box[0] + grid[:, None] * size,"
                " torch.zeros(int(dims[0].item())))\n"
                "\n"
                "\n"
                "def build(device, dims, box=None):\n"
                "    if box is None:\n"
                "        box = torch.tensor([[0.0] * 3, [1.0] * 3])\n"
                "    volume = Volume.from_box(box, torch.tensor(dims))\n"
                "    return volume\n"
            ),
            unsafe=True,
        ),
        Invalid(
            # A decorator known to pass the arguments on as they are (`torch.no_grad`).
            "import functools\n"
            "\n"
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "\n"
            "def moves_inputs(method):\n"
            "    @functools.wraps(method)\n"
            "    def wrapper(self, *args):\n"
            "        return method(self, *(a.to(self.scale.device) for a in args))\n"
            "\n"
            "    return wrapper\n"
            "\n"
            "\n"
            "class Scaler(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.scale = nn.Parameter(torch.ones(3))\n"
            "\n"
            "    @torch.no_grad()\n"
            "    def scaled(self, x):\n"
            "        return x * self.scale\n"
            "\n"
            "    def forward(self, n):\n"
            "        return self.scaled(torch.zeros(n, 3))\n",
            line=25,
            column=28,
            fixed=(
                "import functools\n"
                "\n"
                "import torch\n"
                "from torch import nn\n"
                "\n"
                "\n"
                "def moves_inputs(method):\n"
                "    @functools.wraps(method)\n"
                "    def wrapper(self, *args):\n"
                "        return method(self, *(a.to(self.scale.device) for a in args))\n"
                "\n"
                "    return wrapper\n"
                "\n"
                "\n"
                "class Scaler(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.scale = nn.Parameter(torch.ones(3))\n"
                "\n"
                "    @torch.no_grad()\n"
                "    def scaled(self, x):\n"
                "        return x.to(self.scale.device) * self.scale\n"
                "\n"
                "    def forward(self, n):\n"
                "        return self.scaled(torch.zeros(n, 3))\n"
            ),
            unsafe=True,
        ),
        Invalid(
            # A mask on the device picks from a CPU tensor: PyTorch refuses the mix.
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "\n"
            "class Picker(nn.Module):\n"
            "    def forward(self, scores):\n"
            "        order = torch.arange(scores.shape[0])\n"
            "        return order[scores > 0]\n",
            line=7,
            column=17,
        ),
        Invalid(
            # A function nested in a method meets what the method hands it, on whatever
            # device that is (a design matrix kept on the CPU): no safe `self.device`.
            "import torch\n\n\n"
            "class Fitter:\n"
            "    def __init__(self, model, device):\n"
            "        self.model = model\n"
            "        self.device = device\n\n"
            "    def penalty(self, design: torch.Tensor, lam: float):\n"
            "        def gram(x: torch.Tensor):\n"
            "            g = x.T @ x\n"
            "            g += lam * torch.eye(x.shape[1])\n"
            "            return g\n\n"
            "        return gram(design)\n",
            line=12,
            column=24,
        ),
        Invalid(
            # A window function kept for later (its default, `torch.hann_window`) and called
            # without `device=`: the window is made on the CPU and meets the signal. Moving
            # it where they meet suits any window function the caller may pass.
            "import torch\nfrom torch import nn\n\n\n"
            "class Spectrum(nn.Module):\n"
            "    def __init__(self, n_fft=512, window_fn=torch.hann_window):\n"
            "        super().__init__()\n"
            "        self.n_fft = n_fft\n"
            "        self.window_fn = window_fn\n\n"
            "    def forward(self, x):\n"
            "        window = self.window_fn(self.n_fft)\n"
            "        return torch.stft(x, 512, window=window, return_complex=True)\n",
            line=12,
            column=18,
            fixed="import torch\nfrom torch import nn\n\n\n"
            "class Spectrum(nn.Module):\n"
            "    def __init__(self, n_fft=512, window_fn=torch.hann_window):\n"
            "        super().__init__()\n"
            "        self.n_fft = n_fft\n"
            "        self.window_fn = window_fn\n\n"
            "    def forward(self, x):\n"
            "        window = self.window_fn(self.n_fft)\n"
            "        return torch.stft(x, 512, window=window.to(x.device), return_complex=True)\n",
            unsafe=True,
        ),
        Invalid(
            # The same through a name: a noise function assigned, called in `forward`.
            "import torch\nfrom torch import nn\n\n\n"
            "class Noisy(nn.Module):\n"
            "    def forward(self, x):\n"
            "        noise_fn = torch.randn\n"
            "        return x + noise_fn(x.shape)\n",
            line=8,
            column=20,
            fixed="import torch\nfrom torch import nn\n\n\n"
            "class Noisy(nn.Module):\n"
            "    def forward(self, x):\n"
            "        noise_fn = torch.randn\n"
            "        return x + noise_fn(x.shape).to(x.device)\n",
            unsafe=True,
        ),
        Invalid(
            # A static method called through `self`: the CPU weight meets the activations.
            "import torch\nimport torch.nn as nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n\n"
            "    @staticmethod\n"
            "    def scale(x, w):\n"
            "        return x * w\n\n"
            "    def forward(self, x):\n"
            "        w = torch.ones(4)\n"
            "        return self.scale(self.proj(x), w)\n",
            line=14,
            column=13,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n\n"
            "    @staticmethod\n"
            "    def scale(x, w):\n"
            "        return x * w\n\n"
            "    def forward(self, x):\n"
            "        w = torch.ones(4, device=x.device)\n"
            "        return self.scale(self.proj(x), w)\n",
            unsafe=True,
        ),
        Invalid(
            # Moved only when scaled: a test that names no device leaves the other path.
            "import torch\nimport torch.nn as nn\n\n"
            "class Features(nn.Module):\n"
            "    def forward(self, audio, scale=None):\n"
            "        window = torch.hann_window(400)\n"
            "        if scale is not None:\n"
            "            window = window.to(audio.device) * scale\n"
            "        return torch.stft(audio, 400, window=window, return_complex=True)\n",
            line=6,
            column=18,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Features(nn.Module):\n"
            "    def forward(self, audio, scale=None):\n"
            "        window = torch.hann_window(400, device=audio.device)\n"
            "        if scale is not None:\n"
            "            window = window.to(audio.device) * scale\n"
            "        return torch.stft(audio, 400, window=window, return_complex=True)\n",
            unsafe=True,
        ),
        Invalid(
            # A tensor appended to a list nested in another is in the outer list too.
            "import torch\nimport torch.nn as nn\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        rows = [[] for _ in range(2)]\n"
            "        rows[0].append(torch.ones(3))\n"
            "        return x + torch.cat(rows[0])\n",
            line=7,
            column=24,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Pool(nn.Module):\n"
            "    def forward(self, x):\n"
            "        rows = [[] for _ in range(2)]\n"
            "        rows[0].append(torch.ones(3, device=x.device))\n"
            "        return x + torch.cat(rows[0])\n",
            unsafe=True,
        ),
        Invalid(
            # What a method of an object the class holds returns (`self.client.generate`) is
            # Python data where that method's summary says so (an HTTP response's JSON, not a
            # module's output): `torch.tensor` of it makes a CPU tensor.
            "import requests\nimport torch\n\n"
            "class Client:\n"
            "    def __init__(self, url):\n"
            "        self.url = url\n\n"
            "    def generate(self, prompts):\n"
            "        return requests.post(self.url, json=prompts).json()\n\n"
            "class Trainer:\n"
            "    def __init__(self, model, url):\n"
            "        self.model = model\n"
            "        self.client = Client(url)\n\n"
            "    def step(self, prompts, prompt_ids: torch.Tensor):\n"
            "        rows = self.client.generate(prompts)\n"
            "        ids = [torch.tensor(r) for r in rows]\n"
            "        return torch.cat([prompt_ids, torch.stack(ids)], dim=1)\n",
            line=18,
            column=16,
            fixed="import requests\nimport torch\n\n"
            "class Client:\n"
            "    def __init__(self, url):\n"
            "        self.url = url\n\n"
            "    def generate(self, prompts):\n"
            "        return requests.post(self.url, json=prompts).json()\n\n"
            "class Trainer:\n"
            "    def __init__(self, model, url):\n"
            "        self.model = model\n"
            "        self.client = Client(url)\n\n"
            "    def step(self, prompts, prompt_ids: torch.Tensor):\n"
            "        rows = self.client.generate(prompts)\n"
            "        ids = [torch.tensor(r, device=prompt_ids.device) for r in rows]\n"
            "        return torch.cat([prompt_ids, torch.stack(ids)], dim=1)\n",
            unsafe=True,
        ),
        Invalid(
            # Scattered through an index put on the CPU on purpose: `device=` at the
            # creation would break the scatter, so the fix moves it where it meets.
            "import torch\nfrom torch import nn\n\n\n"
            "class Margin(nn.Module):\n"
            "    def forward(self, scores, labels):\n"
            "        index = labels.view(-1, 1).cpu()\n"
            "        margin = torch.zeros(scores.size()).scatter_(1, index, 0.2)\n"
            "        return scores - margin\n",
            line=8,
            column=18,
            fixed="import torch\nfrom torch import nn\n\n\n"
            "class Margin(nn.Module):\n"
            "    def forward(self, scores, labels):\n"
            "        index = labels.view(-1, 1).cpu()\n"
            "        margin = torch.zeros(scores.size()).scatter_(1, index, 0.2)\n"
            "        return scores - margin.to(scores.device)\n",
            unsafe=True,
        ),
        # A forward input taken apart into tensors (`clean, lengths = inputs`) holds inputs,
        # on the computation's device as the parts are.
        Invalid(
            "import torch\nfrom torch import nn\n\n\n"
            "class AddNoise(nn.Module):\n"
            "    def forward(self, inputs):\n"
            "        clean, lengths = inputs\n"
            "        snr = torch.rand(clean.shape[0], 1)\n"
            "        return clean * snr\n",
            line=8,
            column=15,
            fixed="import torch\nfrom torch import nn\n\n\n"
            "class AddNoise(nn.Module):\n"
            "    def forward(self, inputs):\n"
            "        clean, lengths = inputs\n"
            "        snr = torch.rand(clean.shape[0], 1)\n"
            "        return clean * snr.to(clean.device)\n",
            unsafe=True,
        ),
    )

    screen_types = (
        ast.Call,
        ast.Attribute,
        ast.Return,
        ast.AugAssign,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        *BINDING_TYPES,
    )

    def sightings(self, found: Skeleton, settings: RuleSettings) -> frozenset[Sighting] | None:
        """A candidate is a call that may resolve to ``torch.<factory>`` (``Bindings``) and,
        as the flow requires to blame it, lacks ``**``, ``device=`` and ``out=`` (``tensor``
        and ``as_tensor`` take data that may be Python's), is not in a setup method, nor
        the receiver of a chain that surely moves it. A collective (``COLLECTIVE_FUNCTIONS``)
        blames a CPU tensor in any scope: one that may reach it is seen ``anywhere``
        (``_collective_regions``). A tensor put on the CPU (``x.cpu()``) only where its
        scope may index what may hold it (``_indexing_regions``). A 0-dim
        one (``torch.tensor(1.0)``, ``torch.rand([])``) only in a file that may call a
        collective, or in a scope that may hand what may hold it to an operation that
        refuses it (``torch.stack([p, x])``: ``SCALAR_REFUSING_OPERATIONS``) or update it in
        place (``total += loss``): ``_refusing_scopes``; the flow blames it nowhere else,
        and never follows it out of its function (a call, a return, an attribute). None in
        a test module, where ``visit`` reports nothing."""
        if is_test_module(found.facts.module):
            return frozenset()
        names = Bindings.of(found)
        calls = [call for call in found.of_type(ast.Call) if isinstance(call, ast.Call)]
        collective = any(names.may_be(call.func, COLLECTIVE_FUNCTIONS) for call in calls)
        refusing = _refusing_scopes(found, names, calls)
        returned = _returned_whole(found)

        def refused_here(call: ast.Call) -> bool:
            return collective or found.scope_of(call) in refusing or id(call) in returned

        made = [call for call in calls if _may_create_without_device(call, names, refused_here)]
        fresh = made + _stored_factory_calls(found, names, calls)
        put = [call for call in calls if _may_put_on_cpu(call)]
        functions = list(found.of_type(ast.FunctionDef, ast.AsyncFunctionDef))
        fresh += _indexed(put, _indexing_regions(put, functions), functions)
        if not fresh:
            return frozenset()
        reaching = _collective_regions(found, calls, names, functions) if collective else set()
        placed = _surely_placed(calls)
        scopes = {found.scope_of(call) for call in fresh if id(call) not in placed}
        # Only a factory's CPU tensor is a fallback (``_visit_fallback``), not a stored
        # factory's nor ``.cpu()``'s (a state dict's copy returned beside other results).
        following = _functions_reading_devices(found, calls) | _may_fall_back(found, made)
        taking = _may_take_tensors(found, calls)
        anywhere = {
            found.scope_of(call)
            for call in fresh
            if _outermost_around(call, functions) in reaching  # None: module level
        }
        return frozenset(
            Sighting(
                scope,
                follows_inputs=_follows_inputs(scope, following)
                and (
                    scope.class_name is None
                    or scope.function_name in following
                    or scope.function_name in taking
                ),
                anywhere=scope in anywhere,
            )
            for scope in scopes
            if scope.method not in SETUP_METHODS
        )

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        if sightings is None:
            return True  # the rule cannot place it
        return any(
            sighting.anywhere
            or _reports_in(index.scope_info(sighting.scope))
            or (sighting.follows_inputs and _library_function(sighting.scope, index))
            for sighting in sightings
        )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        assert isinstance(node, cst.Call)
        if context.scope.method in SETUP_METHODS or context.in_checked_branch:
            return  # __init__ never runs on the forward path; a checked branch is a choice
        if is_test_module(context.module_name):
            return  # a test places its tensors where it means to run (the CPU, most often)
        name = context.qualified_name(node.func) or ""
        module, _, factory = name.rpartition(".")
        puts = _puts_on_cpu(node)
        made_here = not puts and module == "torch" and factory in _FACTORIES
        if made_here and not places_by_default(node):
            return  # it makes no tensor of its own to blame: no need for the function's flow
        if not (puts or made_here or _calls_factory_holder(self, node, context)):
            return  # most calls: none of the three kinds of CPU tensors this rule blames
        if under_a_device_flag([*context.ancestors, node], cpu=True):
            return  # `else:` of `if use_cuda:`: the user chose the CPU
        if puts:
            self._visit_put_on_cpu(node, context)
            return
        if not made_here:
            self._visit_stored_factory(node, context)
            return
        flow = context.flow()
        if flow is None:
            return
        meetings = context.meetings_of(node)
        if not meetings:
            fallback = fallback_return(node, flow)
            if fallback is not None:
                self._visit_fallback(node, name, factory, flow, fallback, context)
                return
            self._visit_handed_off(node, name, factory, flow, context)
            return  # or moved first, only an index, host data, or it meets nothing
        meeting = meetings[0]
        fixes, anchors = _fixes(node, factory, meeting, flow, context)
        collective = meeting.kind is MeetingKind.COLLECTIVE
        following = _visited_follows_inputs(self, context, flow, meetings)
        evidence = {"follows_inputs": "yes"} if following else {}
        if _only_inputs_on_device(node, flow, meetings, context):
            evidence["cpu_inputs_clear"] = "yes"
        if all(found.kind is MeetingKind.COLLECTIVE for found in meetings):
            evidence["groups"] = ",".join(_group_attribute(found, context) for found in meetings)
            evidence["module"] = context.module_name
        if _meets_raw_input(meeting, flow.function) or _meets_nested_parameters(
            meeting, flow, context
        ):
            evidence["raw_input"] = "yes"
        # only a program's files record the names they use, by which the index may clear it
        unpackaged = context.settings.mentions
        elsewhere = context.meets_only_by_callers_elsewhere(node) if unpackaged else None
        if elsewhere is not None:
            evidence["callers_elsewhere"] = elsewhere
        context.report(
            self.code,
            node,
            data={
                "factory": name,
                "meets": _describe(meeting, context),
                "collective": "yes" if collective else "",
                **anchors,
                **evidence,
            },
            fixes=fixes,
            lines={"line": meeting.at},
            provided=_made_from(node, flow),
        )

    def _visit_put_on_cpu(self, node: cst.Call, context: FileContext) -> None:
        """``feats.cpu()`` indexed by a device tensor later (``feats[idx]``): the CPU was
        chosen, but an index must be on the indexed tensor's device or the CPU. No fix: the
        index may belong on the CPU (``idx.cpu()``) or the tensor on the device."""
        flow = context.flow()
        if flow is None:
            return
        meetings = [m for m in context.meetings_of(node) if m.kind is MeetingKind.INDEX]
        if not meetings:
            return
        following = _visited_follows_inputs(self, context, flow, meetings)
        context.report(
            self.code,
            node,
            data={
                "put_on_cpu": "yes",
                "meets": _describe(meetings[0], context),
                "index": context.code_for(meetings[0].partner),
                **({"follows_inputs": "yes"} if following else {}),
            },
            lines={"line": meetings[0].at},
        )

    def _visit_stored_factory(self, node: cst.Call, context: FileContext) -> None:
        """``self.window_fn(n)`` where ``window_fn`` holds a torch factory named uncalled
        (``window_fn=torch.hann_window``): without ``device=`` it makes a CPU tensor. No
        ``device=`` fix: the caller may store a function that takes none."""
        flow = context.flow()
        made = flow.values.get(node) if flow is not None else None
        if flow is None or made is None or node not in made.made:
            return
        meetings = context.meetings_of(node)
        if not meetings:
            return
        fixes, anchors = _fixes(node, None, meetings[0], flow, context)
        context.report(
            self.code,
            node,
            data={
                "factory": context.code_for(node.func),
                "meets": _describe(meetings[0], context),
                **anchors,
            },
            fixes=fixes,
            lines={"line": meetings[0].at},
        )

    def _visit_fallback(
        self,
        node: cst.Call,
        name: str,
        factory: str,
        flow: FunctionFlow,
        fallback: cst.Return,
        context: FileContext,
    ) -> None:
        """A CPU tensor returned where another ``return`` gives device data
        (``fallback_return``): callers get it where they expect the device."""
        fixes, anchors = _fixes(node, factory, None, flow, context)
        context.report(
            self.code,
            node,
            data={"factory": name, "fallback_of": flow.function.name.value, **anchors},
            fixes=fixes,
            lines={"line": fallback},
            provided=_made_from(node, flow),
        )

    def _visit_handed_off(
        self, node: cst.Call, name: str, factory: str, flow: FunctionFlow, context: FileContext
    ) -> None:
        """A tensor that leaves the file (passed to, or returned to, a function of another
        file) is a candidate that holds if that file's flow shows it meets the device."""
        if empty_data(node):
            return  # an empty tensor meets others only in `torch.cat`: unknown over there
        needs: list[Requirement] = []
        data = {"factory": name}
        lines: dict[str, cst.CSTNode] = {}
        for handoff in flow.handoffs:
            if handoff.made is not node:
                continue
            needs += handoff_needs(handoff, flow)
            data.setdefault("callee", handoff.callee.rpartition(".")[2])
            lines.setdefault("line", handoff.call)
        function = context.scope.function_name
        own = function is not None and function.endswith(f".{flow.function.name.value}")
        if own and not needs:
            assert function is not None
            if any(site is node for site in flow.returned_whole):
                needs.append(Requirement(Needed.RESULT_MEETS, function))
            if any(site is node for site in flow.returned_scalars):
                needs.append(Requirement(Needed.RESULTS_JOINED, function))
                data["joined"] = "yes"
            for position, element in enumerate(flow.returned_parts):
                if any(site is node for site in element.made):
                    needs.append(Requirement(Needed.RESULT_MEETS, function, part=position))
            if needs:
                data["returned_by"] = flow.function.name.value
        if not needs:
            return
        fixes, anchors = _fixes(node, factory, None, flow, context)
        context.report(
            self.code,
            node,
            data={**data, **anchors},
            fixes=fixes,
            lines=lines,
            needs=tuple(dict.fromkeys(needs)),  # a loop's passes hand it off again
            provided=_made_from(node, flow),
        )

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        data = candidate.data
        if index.computes_on_host(candidate.scope):
            return None  # an OpenVINO wrapper's tensors: on the CPU, as what they meet
        if index.makes_factories_on_the_gpu and _made_on_the_default_gpu(data.get("factory", "")):
            return None  # `torch.set_default_tensor_type("torch.cuda.FloatTensor")` first
        if "groups" in data and _over_cpu_groups(data, index):
            return None  # handed only to collectives over gloo process groups: on the CPU
        collate = not scope.forward_path and _data_loading_function(candidate.scope, index)
        if "cpu_inputs_clear" in data and collate:
            return None  # a loader's samples are on the CPU: so is what they meet here
        if "callers_elsewhere" in data and index.named_only_in(data["callers_elsewhere"]):
            return None  # every call is in its file, and none passes it the device
        evidence = "follows_inputs" in data or "fallback_of" in data
        library = evidence and _library_function(candidate.scope, index)
        if not (_reports_in(scope) or library or data.get("collective")):
            return None
        if "put_on_cpu" in data:
            return Resolution(
                f"`.cpu()` puts a tensor on the CPU that line {data['line']} indexes with "
                f"`{data['index']}`, on the computation's device (`{data['meets']}`); move "
                "the index to the CPU or keep the tensor on the device"
            )
        made = f"`{data['factory']}()` makes a CPU tensor that meets the computation's device"
        if data.get("collective"):
            message = (
                f"`{data['factory']}()` makes a CPU tensor handed to a collective at line "
                f"{data['line']} (`{data['meets']}`), which NCCL runs on the process's GPU"
            )
        elif "callee" in data:
            message = f"{made} in `{data['callee']}` (called at line {data['line']})"
        elif "fallback_of" in data:
            message = (
                f"`{data['factory']}()` makes a CPU tensor that `{data['fallback_of']}` returns "
                f"where its return at line {data['line']} is on the computation's device"
            )
        elif "joined" in data:
            message = (
                f"`{data['factory']}()` makes a 0-dim CPU tensor that `{data['returned_by']}` "
                "returns where its other results are on the computation's device, and callers "
                "in other files join its results into one tensor"
            )
        elif "returned_by" in data:
            message = f"{made} where callers of `{data['returned_by']}` in other files use it"
        else:
            message = f"{made} at line {data['line']} (`{data['meets']}`)"
        # A pipeline's caller may hand it CPU data: self.device is not where that is.
        raw = "raw_input" in data and not scope.model_code
        if scope.device_aware and not scope.in_init and not raw:
            fix = choose_fix(
                candidate, "self_device", Applicability.SAFE, "Add `device=self.device`"
            )
            if fix is not None:
                return Resolution(f"{message}; pass `device=self.device`", fix)
        for variant, advice in _UNSAFE_FIXES:
            edits = candidate.fixes.get(variant)
            if edits:
                described = advice.format(anchor=data.get(variant, ""))
                fix = Fix(Applicability.UNSAFE, described, edits)
                return Resolution(f"{message}; {described[0].lower()}{described[1:]}", fix)
        return Resolution(f"{message}; create it on the device of a tensor it meets")


def _made_from(node: cst.Call, flow: FunctionFlow) -> tuple[Requirement, ...]:
    """What the methods whose results ``torch.tensor`` copies at ``node`` must return for it
    to be made on the CPU (``FunctionFlow.copied_answers``): Python data."""
    methods = flow.copied_answers.get(node, ())
    return tuple(Requirement(Needed.RESULT_DATA, method) for method in methods)


def _puts_on_cpu(node: cst.Call) -> bool:
    """``x.cpu()``: a tensor put on the CPU on purpose (``Value.chosen``)."""
    func = node.func
    return isinstance(func, cst.Attribute) and func.attr.value == "cpu" and not node.args


def _reports_in(scope: ScopeInfo) -> bool:
    """Model code on its forward path (``__init__`` and helpers run once, before the
    trainer moves the module), or a sampler, trainer or function told its device: code
    that runs with tensors on the computation's device."""
    return (scope.model_code and scope.forward_path) or (
        scope.device_context and not scope.model_code
    )


def _library_function(scope: Scope, index: ProjectIndex) -> bool:
    """A function of a module or a method of a plain class that is neither model code
    (whose own test is the forward path: ``__init__``'s helpers run before the module
    moves) nor data-loading code (a Dataset's, or a function handed to a data loader:
    ``collate_fn=pad``): where a function whose tensors follow its inputs is judged."""
    if scope.function_name is None or index.scope_info(scope).model_code:
        return False
    if scope.class_name is not None and index.loads_data(scope.class_name):
        return False
    return not _data_loading_function(scope, index)


def _data_loading_function(scope: Scope, index: ProjectIndex) -> bool:
    """A function that runs only where a data loader prepares samples, on the CPU
    (``ProjectIndex.runs_in_data_loading``): a Dataset's, a collate function, or one
    whose every caller is such code (``__getitem__`` building a sample with it)."""
    function = scope.function_name
    return function is not None and index.runs_in_data_loading(function)


def _only_inputs_on_device(
    node: cst.Call, flow: FunctionFlow, meetings: Sequence[Meeting], context: FileContext
) -> bool:
    """Every meeting is in the visited function, with a partner that derives from its
    parameters, and none is left when its inputs arrive on the CPU: the tensor meets a
    device only if the function is given tensors on one."""
    if not all(meeting in flow.meetings for meeting in meetings):
        return False  # met where a caller in the file uses the result
    if not all(flow.values.get(meeting.partner, UNKNOWN).params for meeting in meetings):
        return False
    return not context.meetings_with_cpu_inputs(node)


def _follows_inputs(scope: Scope, following: frozenset[str]) -> bool:
    """The function reads a device itself, or it is a module-level function of a module
    whose module-level functions do (kornia, torchmetrics' functionals, pytorch3d's ops:
    one library style, every function placing its tensors by its inputs), or a method of
    a module whose classes' methods do (a writer whose ``extend`` reads ``data.device``)."""
    if scope.function_name is None:
        return False
    return scope.function_name in following or _kind_marker(scope) in following


def _functions_reading_devices(found: Skeleton, calls: Iterable[ast.Call]) -> frozenset[str]:
    """Functions that read the device of something other than ``self`` (``x.device``,
    ``.to(weight.device)``, a ``torch.device`` annotation), not to call it
    (``torch.device("cuda")`` chooses one); ``_kind_marker`` of each that does."""
    callees = {id(call.func) for call in calls}
    found_in: set[str] = set()
    for node in found.of_type(ast.Attribute):
        assert isinstance(node, ast.Attribute)
        if not _reads_device(node.attr, node.value, id(node) in callees):
            continue
        scope = found.scope_of(node)
        if scope.function_name is not None:
            found_in.update((scope.function_name, _kind_marker(scope)))
    return frozenset(found_in)


def _may_take_tensors(found: Skeleton, calls: Iterable[ast.Call]) -> frozenset[str]:
    """Functions of a class (methods and what they nest) that may have a parameter holding a
    tensor (``_tensor_parameters``): one annotated with a tensor type besides the first, or
    a name given a method only a tensor has. A method that reads no device itself follows
    its inputs only through such a parameter: elsewhere (a callback's ``mode: str``, a
    processor's ``target_sizes: TensorType``) its file need not be parsed for it."""
    taking: set[str] = set()
    aliases = found.facts.aliases
    # A name bound to a tensor type and rebound later: the traversal reads the first binding.
    tensors = {name for name, bound in found.assigned_aliases if tensor_annotation(bound, aliases)}
    for node in found.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        outer = found.scope_of(node)
        owner = outer.function_name or outer.class_name
        arguments = node.args
        named = [*arguments.posonlyargs, *arguments.args][1:] + arguments.kwonlyargs
        if owner is not None and any(
            argument.annotation is not None
            and _may_annotate_tensor(argument.annotation, aliases, tensors)
            for argument in named
        ):
            taking.add(f"{owner}.{node.name}")
    for call in calls:
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr in TENSOR_ONLY_METHODS
        ):
            function = found.scope_of(call).function_name
            if function is not None:
                taking.add(function)
    return frozenset(taking)


def _may_annotate_tensor(
    annotation: ast.expr, aliases: Mapping[str, str], tensors: Collection[str]
) -> bool:
    """``FileContext.annotates_tensor`` read from ``ast``: a name in the annotation (also in
    a string one) names a tensor type, through the file's imports, as written, or as one of
    ``tensors`` (the traversal resolves through the bindings seen so far)."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = node.value.replace("[", " ").replace("]", " ").split()
        else:
            continue
        if any(
            tensor_annotation(name, aliases) or name.endswith("Tensor") or name in tensors
            for name in names
        ):
            return True
    return False


def _kind_marker(scope: Scope) -> str:
    """``""`` for a module-level function, ``"."`` for a method: a module's functions of
    one kind place their tensors alike."""
    return "" if scope.class_name is None else "."


def _may_fall_back(found: Skeleton, made: Sequence[ast.Call]) -> frozenset[str]:
    """Functions (named as ``scope_of`` names them) in which one function's own ``return``
    (not a nested function's: ``fallback_return`` reads the flow of the function around the
    factory) gives one of the ``made`` calls (whole or in a tuple), or a name that may hold
    one, and another ``return`` of that function may give a tensor on the device: not a
    constant, nor a ``made`` call, nor a parameter handed back (a branch of a conditional
    expression returned is one return). There ``fallback_return`` may find a CPU fallback,
    and elsewhere not (a conversion helper returning its input when it is already a tensor,
    a tensor of it else)."""
    returned = {id(call) for call in made}
    functions = _FunctionSpans(found)
    making = {functions.around(call) for call in made}
    giving: dict[ast.AST, tuple[list[bool], list[bool], str]] = {}
    for node in found.of_type(ast.Return):
        assert isinstance(node, ast.Return)
        function = functions.around(node)
        name = found.scope_of(node).function_name
        if function is None or name is None:
            continue
        for value in _branches(node.value):
            if value is None or isinstance(value, ast.Constant):
                continue
            elements = value.elts if isinstance(value, ast.Tuple) else [value]
            fresh_here = any(
                id(element) in returned or (isinstance(element, ast.Name) and function in making)
                for element in elements
            )
            handed_back = not isinstance(value, ast.Tuple) and _input_view(value, function)
            on_device = not handed_back and not all(id(e) in returned for e in elements)
            fresh, device, _ = giving.setdefault(function, ([], [], name))
            fresh.append(fresh_here)
            device.append(on_device)
    return frozenset(
        name
        for fresh, device, name in giving.values()
        if any(
            gives and other
            for i, gives in enumerate(fresh)
            for j, other in enumerate(device)
            if i != j
        )
    )


class _FunctionSpans:
    """The innermost function whose body holds a node, from the nodes' positions: ``ast``
    gives the skeleton's nodes with no parents, and its frames name the outermost function
    (a nested one belongs to it)."""

    def __init__(self, found: Skeleton) -> None:
        spans = []
        for node in found.of_type(ast.FunctionDef, ast.AsyncFunctionDef):
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            first = node.body[0]
            end = (node.end_lineno or 0, node.end_col_offset or 0)
            spans.append(((first.lineno, first.col_offset), end, node))
        spans.sort(key=lambda span: span[0])
        self._starts = [start for start, _, _ in spans]
        self._spans = spans

    def around(self, node: ast.expr | ast.stmt) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function with the latest start whose body holds ``node``."""
        start = (node.lineno, node.col_offset)
        end = (node.end_lineno or 0, node.end_col_offset or 0)
        for position in range(bisect_right(self._starts, start) - 1, -1, -1):
            _, last, function = self._spans[position]
            if end <= last:
                return function
        return None


def _input_view(value: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``fallback_return``'s input handed back, read from ``ast``: a parameter itself (not
    ``*args``: ``parameter_names``), sliced or seen through ``VIEW_METHODS``."""
    while True:
        if isinstance(value, ast.Subscript):
            value = value.value
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in VIEW_METHODS
        ):
            value = value.func.value
        else:
            break
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return isinstance(value, ast.Name) and value.id in {argument.arg for argument in every}


def _reads_device(attribute: str, value: ast.expr | cst.BaseExpression, called: bool) -> bool:
    if attribute != "device" or called:
        return False
    if isinstance(value, ast.expr):
        return not (isinstance(value, ast.Name) and value.id == "self")
    return not is_self(value)


def _visited_follows_inputs(
    rule: Rule, context: FileContext, flow: FunctionFlow, meetings: Sequence[Meeting]
) -> bool:
    """``_follows_inputs`` for the visited node of a function of the module or a method of
    its classes, from the libcst tree (what ``_functions_reading_devices`` sees in ``ast``),
    computed once per file; and the tensor it meets there derives from the function's
    inputs: from any parameter when the function reads a device itself, from one that holds
    a tensor (``_tensor_parameters``) when only its module's functions (for a method: the
    methods of the module's classes) do (a helper of a file reader takes arrays it made on
    the CPU)."""
    if context.scope.function_name is None:
        return False
    state = context.state(rule)
    reading = state.get("reading")
    if not isinstance(reading, dict):
        reading = state["reading"] = _functions_reading(context.ancestors[0])
    outermost = next(n for n in context.ancestors if isinstance(n, cst.FunctionDef))
    if _hands_tensors_to_numpy(outermost):
        return False  # `.numpy()` works on CPU tensors only: the function gets those
    inputs: set[str] = set()
    for meeting in meetings:
        partner = flow.values.get(meeting.partner)  # None: it met in a function it calls
        inputs.update(partner.params if partner is not None else ())
    if reading.get(id(outermost), (None, False))[1]:
        return bool(inputs)
    method = context.scope.class_name is not None
    alike = any(reads for in_class, reads in reading.values() if in_class == method)
    return alike and bool(inputs & _tensor_parameters(flow.function, context))


def _hands_tensors_to_numpy(function: cst.FunctionDef) -> bool:
    """``img.permute(1, 2, 0).numpy()`` without a ``.cpu()`` in the chain: a function that
    only works when its tensors are on the CPU (torchgeo's mask drawing for plots)."""
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "numpy"
            and not _chain_calls(node.func.value, "cpu")
        ):
            return True
        stack.extend(iter_children(node))
    return False


def _chain_calls(node: cst.BaseExpression, method: str) -> bool:
    """``x.detach().cpu().float()`` calls ``cpu`` somewhere along its chain."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == method:
                return True
            node = func.value if isinstance(func, cst.Attribute) else func
        else:
            node = node.value
    return False


def _tensor_parameters(function: cst.FunctionDef, context: FileContext) -> set[str]:
    """Parameters that hold a tensor: annotated as one, or without an annotation or a
    default and given a method only a tensor has (``boxes.contiguous()``)."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    untyped = untyped_parameters(function)
    return {
        param.name.value
        for param in every
        if param.annotation is not None and context.annotates_tensor(param.annotation.annotation)
    } | {
        node.func.value.value
        for node in descendants(function.body)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value in untyped
        and node.func.attr.value in TENSOR_ONLY_METHODS
    }


def _functions_reading(module: cst.CSTNode) -> dict[int, tuple[bool, bool]]:
    """For each function of the module and each method of its classes (not a function
    nested in either): whether it is a method, and whether it reads a device
    (``_reads_device``)."""
    found: dict[int, tuple[bool, bool]] = {}
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while stack:
        node, in_class = stack.pop()
        if isinstance(node, cst.FunctionDef):
            found[id(node)] = (in_class, _function_reads_device(node))
            continue
        in_class = in_class or isinstance(node, cst.ClassDef)
        stack.extend((child, in_class) for child in iter_children(node))
    return found


def _function_reads_device(function: cst.FunctionDef) -> bool:
    callees: set[int] = set()
    stack: list[cst.CSTNode] = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ClassDef):
            continue
        if isinstance(node, cst.Call):
            callees.add(id(node.func))
        if isinstance(node, cst.Attribute) and _reads_device(
            node.attr.value, node.value, id(node) in callees
        ):
            return True
        stack.extend(iter_children(node))
    return False


_UNSAFE_FIXES = (
    ("device_param", "Pass `device={anchor}`"),
    ("tensor_device", "Pass `device={anchor}.device`"),
    ("move_at_meeting", "Move it with `.to({anchor}.device)` where they meet"),
)
"""Fixes for code without ``self.device``, in order of preference, with the data key
naming the anchor each borrows."""

_MAX_SHOWN = 48
"""Longest code a message quotes for the place where the tensors meet."""


def _factory_holder(call: cst.Call) -> str | None:
    """The name a call of a stored function calls through (``self.window_fn(n)``,
    ``window_fn(n)``: ``window_fn``) when it passes no ``device=``, ``out=`` or ``**``."""
    if not places_by_default(call):
        return None
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and is_self(func.value):
        return func.attr.value
    return None


def _calls_factory_holder(rule: Rule, node: cst.Call, context: FileContext) -> bool:
    """``node`` calls, without ``device=``, a name that may hold a torch factory named
    uncalled (``_visit_stored_factory``'s candidates)."""
    holder = _factory_holder(node)
    return holder is not None and holder in _factory_holders(rule, context)


def _factory_holders(rule: Rule, context: FileContext) -> frozenset[str]:
    """Names in the file that may hold a torch factory named uncalled (once per file): a
    parameter defaulting to one, a name or attribute assigned one, and the attributes
    assigned those (``self.window_fn = window_fn``)."""
    state = context.state(rule)
    found = state.get("factory_holders")
    if isinstance(found, frozenset):
        return found
    if not _NAMED_FACTORY.search(context.source):  # most files: no walk of the whole tree
        state["factory_holders"] = frozenset()
        return frozenset()
    holders: set[str] = set()
    copies: list[tuple[str, str]] = []
    for node in descendants(context.ancestors[0]):
        if isinstance(node, cst.Param) and node.default is not None:
            if _names_a_factory(node.default, context):
                holders.add(node.name.value)
        elif isinstance(node, cst.Assign):
            names = [_held_name(target.target) for target in node.targets]
            if _names_a_factory(node.value, context):
                holders.update(name for name in names if name is not None)
            elif isinstance(node.value, cst.Name):
                copies += [(node.value.value, name) for name in names if name is not None]
    holders.update(name for source, name in copies if source in holders)
    state["factory_holders"] = frozen = frozenset(holders)
    return frozen


_NAMED_FACTORY = re.compile(rf"\.(?:{'|'.join(sorted(STORABLE_FACTORIES))})\b(?!\s*\()")
"""A factory named after a dot and not called there (``torch.hann_window,``): the text of
every file ``_names_a_factory`` can find one in (it also matches in comments and strings)."""


def _held_name(target: cst.BaseExpression) -> str | None:
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Attribute) and is_self(target.value):
        return target.attr.value
    return None


def _names_a_factory(node: cst.BaseExpression, context: FileContext) -> bool:
    """``torch.hann_window`` (``T.hann_window``), named and not called (an attribute, as
    the screen sees it: ``_stored_factory_calls``)."""
    if not isinstance(node, cst.Attribute):
        return False
    module, _, factory = (context.qualified_name(node) or "").rpartition(".")
    return module == "torch" and factory in STORABLE_FACTORIES


def _describe(meeting: Meeting, context: FileContext) -> str:
    """The meeting's code on one line, shortened to the partner when it is long."""
    for node in (meeting.at, meeting.partner):
        text = " ".join(context.code_for(node).split())
        if len(text) <= _MAX_SHOWN:
            return text
    return text[: _MAX_SHOWN - 3] + "..."


def _group_attribute(meeting: Meeting, context: FileContext) -> str:
    """The attribute naming the process group of the collective ``meeting`` is at, as
    ``attribute_key`` names it (``group=self.cpu_group`` in ``Comm``: ``Comm.cpu_group``),
    if one does."""
    call = meeting.at
    assert isinstance(call, cst.Call)
    group = collective_group(call, context.qualified_name(call.func) or "")
    if not isinstance(group, cst.Attribute):
        return ""
    owner = context.scope.class_name if is_self(group.value) else None
    return attribute_key(group.attr.value, owner)


def _over_cpu_groups(data: Mapping[str, str], index: ProjectIndex) -> bool:
    """Every collective the tensor is handed to runs over a process group made with the
    gloo backend, which takes CPU tensors: one given as an attribute the project assigns
    only such groups (``cpu_group_attribute``), or one given otherwise (the default group
    too) in a file that makes such groups (``makes_cpu_groups``)."""
    in_file = index.makes_cpu_groups(data["module"])
    return all(
        index.cpu_group_attribute(name) if name else in_file for name in data["groups"].split(",")
    )


def _fixes(
    node: cst.Call,
    factory: str | None,
    meeting: Meeting | None,
    flow: FunctionFlow,
    context: FileContext,
) -> tuple[dict[str, tuple[PendingEdit, ...]], dict[str, str]]:
    """Every fix the resolution may choose: ``device=`` at the creation with an anchor in
    scope there (unless it would mix the tensor with another CPU one), or a move of the
    CPU operand where it meets (``meeting``, if in this file); and the anchor each uses.
    ``factory`` None: a function stored uncalled, which may take no ``device=``."""
    function = flow.function
    fixes: dict[str, tuple[PendingEdit, ...]] = {}
    anchors: dict[str, str] = {}
    # A module called with the tensor is its partner, and a module has no `.device`.
    module_call = (
        meeting is not None
        and meeting.kind is MeetingKind.MODULE_CALL
        and meeting.partner is _callee(meeting)
    )
    takes_device = factory is not None and factory not in _WITHOUT_DEVICE
    # A pinned staging buffer stays on the host (`device=` with `pin_memory=` raises).
    pinned = any(keyword_switched_on(node, name) for name in HOST_MEMORY_KEYWORDS)
    if takes_device and node.args and not pinned and not _mixes_once_placed(node, flow):
        last = node.args[-1].value
        fixes["self_device"] = (insert_after(last, ", device=self.device"),)
        parameters = _parameter_names(function)
        device = _device_parameter(function)
        if device is not None and not device_is_an_index(device, function):
            fixes["device_param"] = (insert_after(last, f", device={device}"),)
            anchors["device_param"] = device
        partner = _tensor_root(meeting.partner) if meeting is not None and not module_call else None
        tensor = partner if partner in parameters else context.scope.tensor_param
        if (
            tensor is not None
            and tensor not in ("device", device)
            and known_tensor(tensor, function)
        ):
            fixes["tensor_device"] = (insert_after(last, f", device={tensor}.device"),)
            anchors["tensor_device"] = tensor
    if meeting is None:
        return fixes, anchors
    partner_name = dotted_name(meeting.partner)
    collective = meeting.kind is MeetingKind.COLLECTIVE  # its partner is a function
    # A function that captured the tensor is no tensor to move (`helper.to(...)(x)`), nor
    # is a partner inside a function nested here, met when this one calls it.
    called = meeting.cpu is _callee(meeting) or _inside_nested_function(meeting.at, function)
    if (
        partner_name is not None
        and not (module_call or collective or called)
        and _is_atom(meeting.cpu)
        and borrowable_device(meeting.partner, _function_holding(meeting, flow, context))
        and not _may_be_a_number(meeting.partner, _function_holding(meeting, flow, context), flow)
        and not updated_in_place(meeting.cpu, meeting.at)
        and not _may_be_none(meeting.cpu, _function_holding(meeting, flow, context))
    ):
        fixes["move_at_meeting"] = (insert_after(meeting.cpu, f".to({partner_name}.device)"),)
        anchors["move_at_meeting"] = partner_name
    return fixes, anchors


def _may_be_none(tensor: cst.BaseExpression, function: cst.FunctionDef) -> bool:
    """The CPU tensor's name is bound to ``None`` on some path (``output_nodes = None`` in
    an ``else:``): ``.to(...)`` there would raise where the tensor is not needed."""
    if not isinstance(tensor, cst.Name):
        return False
    return any(is_none(value) for value in values_assigned(tensor.value, function))


def _may_be_a_number(
    partner: cst.BaseExpression, function: cst.FunctionDef, flow: FunctionFlow
) -> bool:
    """The partner may hold a Python number, which has no ``.device`` to lend a fix: the
    flow saw it, or a value the function assigns its name, as host data on some path
    (``start = ids.max() + 1 if ids else 0``, then ``start += n``)."""
    given = [partner]
    if isinstance(partner, cst.Name):
        given += values_assigned(partner.value, function)
    return any(Origin.HOST in flow.values.get(value, UNKNOWN).origins for value in given)


def _function_holding(
    meeting: Meeting, flow: FunctionFlow, context: FileContext
) -> cst.FunctionDef:
    """The function whose names the partner where they meet is: the visited one, where its
    flow saw the partner; else the innermost of the file's functions holding the meeting
    (one it calls, where the tensor meets). Walked only for such a meeting."""
    if meeting.partner in flow.values:
        return flow.function

    def holds(outer: cst.FunctionDef, inner: cst.CSTNode) -> bool:
        return any(found is inner for found in descendants(outer.body))

    holder = flow.function
    functions = (n for n in descendants(context.ancestors[0]) if isinstance(n, cst.FunctionDef))
    for inner in functions:
        if holds(inner, meeting.at) and (holder is flow.function or holds(holder, inner)):
            holder = inner  # the innermost of the functions around it
    return holder


def _inside_nested_function(node: cst.CSTNode, function: cst.FunctionDef) -> bool:
    """Whether ``node`` is in the body of a function defined inside ``function``."""
    return any(
        isinstance(inner, cst.FunctionDef) and any(found is node for found in descendants(inner))
        for inner in descendants(function.body)
    )


def _meets_raw_input(meeting: Meeting, function: cst.FunctionDef) -> bool:
    """The tensor meets a parameter as the caller passed it (``images * w``, or rebound
    from what the caller passed: ``speech = torch.cat([buf, speech])``, never ``images =
    images.to(self.device)``): on the caller's device, whatever ``self.device``."""
    root = _tensor_root(meeting.partner)
    if root is None or root not in _parameter_names(function):
        return False
    return not any(
        isinstance(node, cst.Assign)
        and any(_tensor_root(target.target) == root for target in node.targets)
        and any(isinstance(part, cst.Name) and is_self(part) for part in descendants(node.value))
        for node in descendants(function.body)
    )


def _meets_nested_parameters(meeting: Meeting, flow: FunctionFlow, context: FileContext) -> bool:
    """A function defined inside another meets what its parameters bring: the enclosing
    code's tensors, on whatever device those are (design matrices kept on the CPU)."""
    if sum(isinstance(node, cst.FunctionDef) for node in context.ancestors) < 2:
        return False
    found = flow.values.get(meeting.partner)
    return found is not None and bool(found.params)


def _mixes_once_placed(made: cst.Call, flow: FunctionFlow) -> bool:
    """Placing the tensor made at ``made`` on the device would mix it with a CPU tensor it
    meets in an operator that no finding moves (``avg = played / wins``, where only
    ``wins`` meets the device), or through an index kept on the CPU
    (``torch.zeros(n).scatter_(1, labels.cpu(), m)``, ``INDEXING_METHODS``): the fix would
    cascade into new findings, or break the call."""
    values = flow.values
    operands: tuple[cst.BaseExpression, ...]
    for node in descendants(flow.function.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in INDEXING_METHODS
        ):
            operands = (node.func.value, *(arg.value for arg in node.args))
        elif isinstance(node, cst.BinaryOperation):
            operands = (node.left, node.right)
        elif isinstance(node, cst.AugAssign):
            operands = (node.target, node.value)
        elif isinstance(node, cst.Comparison):
            operands = (node.left, *(target.comparator for target in node.comparisons))
        else:
            continue
        found = [values.get(operand) for operand in operands]
        if not any(value is not None and made in value.made for value in found):
            continue
        if any(
            value is not None
            and made not in value.made
            and (value.chosen or any(not flow.meetings_of(site) for site in value.made))
            for value in found
        ):
            return True  # a CPU tensor nothing moves, or one put there on purpose (`.cpu()`)
    return False


def _tensor_root(node: cst.BaseExpression) -> str | None:
    """``x`` in ``x.view(1, -1)[0]``: the name a chain of tensor methods and indexing starts
    from, a tensor on the chain's device. None through an attribute (``emb.weight.data``):
    its root may be a module, which has no ``.device``."""
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return node.value if isinstance(node, cst.Name) else None


def _parameter_names(function: cst.FunctionDef) -> set[str]:
    """Names of the parameters that may hold a tensor (not ``self`` or ``cls``)."""
    return parameter_names(function) - {"self", "cls"}


def _device_parameter(function: cst.FunctionDef) -> str | None:
    """The parameter that tells the function its device: named ``device``, or else the
    first annotated as one (``dv: torch.device``)."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    named = [param for param in every if param.name.value == "device"]
    annotated = [
        param
        for param in every
        if param.annotation is not None
        and any(
            name.rpartition(".")[2] == "device"
            for name in annotation_names(param.annotation.annotation)
        )
    ]
    chosen = named or annotated
    return chosen[0].name.value if chosen else None


def _callee(meeting: Meeting) -> cst.BaseExpression | None:
    return meeting.at.func if isinstance(meeting.at, cst.Call) else None


def _is_atom(node: cst.BaseExpression) -> bool:
    """``.to(...)`` can follow it without parentheses."""
    return isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or bool(node.lpar)


def _stored_factory_calls(
    found: Skeleton, names: Bindings, calls: Sequence[ast.Call]
) -> list[ast.Call]:
    """In a file that names a torch factory uncalled (``window_fn=torch.hann_window``), the
    calls that may call it through a name or an attribute of ``self`` without ``device=``
    (``visit``'s ``_factory_holder``)."""
    funcs = {id(call.func) for call in calls}
    named = any(
        id(node) not in funcs
        and isinstance(node, ast.Attribute)
        and node.attr in STORABLE_FACTORIES
        and f"torch.{node.attr}" in names.resolutions(node)
        for node in found.of_type(ast.Attribute)
    )
    if not named:
        return []
    return [
        call
        for call in calls
        if (isinstance(call.func, ast.Name) or _self_attribute(call.func))
        and not any(keyword.arg in (None, "device", "out") for keyword in call.keywords)
    ]


def _may_put_on_cpu(call: ast.Call) -> bool:
    """``x.cpu()``, which ``visit`` reports where a device tensor indexes its result."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "cpu" and not call.args


def _self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _returned_whole(found: Skeleton) -> set[int]:
    """The calls a ``return`` gives whole, itself or as a branch of a conditional expression
    (``x.mean() if x.numel() else torch.tensor(0.0)``): a 0-dim one is a candidate where
    callers in other files join the results (``Needed.RESULTS_JOINED``)."""
    given: set[int] = set()
    for node in found.of_type(ast.Return):
        assert isinstance(node, ast.Return)
        given.update(id(value) for value in _branches(node.value) if isinstance(value, ast.Call))
    return given


def _branches(value: ast.expr | None) -> list[ast.expr | None]:
    """What a ``return`` of ``value`` may give: each branch of a conditional expression."""
    if isinstance(value, ast.IfExp):
        return [*_branches(value.body), *_branches(value.orelse)]
    return [value]


def _may_refuse_scalars(call: ast.Call, names: Bindings) -> bool:
    """``call`` may be an operation that a 0-dim CPU tensor cannot meet the device in: a
    method (an in-place one too: ``total.add_(loss)``), or a function under any name it may
    resolve to (``from torch import stack as join``: the flow reads the qualified name's
    last part)."""
    func = call.func
    if isinstance(func, ast.Attribute) and (
        func.attr in SCALAR_REFUSING_OPERATIONS or func.attr in IN_PLACE_UPDATES
    ):
        return True
    return any(
        name.rpartition(".")[2] in SCALAR_REFUSING_OPERATIONS for name in names.resolutions(func)
    )


def _refusing_scopes(found: Skeleton, names: Bindings, calls: Sequence[ast.Call]) -> set[Scope]:
    """The scopes where an operation that refuses a 0-dim CPU tensor may take one that one
    of their factory calls makes: an operand of a call that may be such an operation
    (``_may_refuse_scalars``: ``torch.stack([p, x])``, ``total.add_(loss)``, its receiver
    too), or the target of an augmented assignment (``total += loss``: the flow's
    ``UPDATED`` meeting). Not ``torch.stack(hidden)`` nor ``outputs += (h,)`` beside a
    layerdrop ``torch.rand([])`` that only a comparison reads: the flow blames a 0-dim
    tensor only where it is such an operand (``meetings_among``, ``meetings_updated``).
    Only scopes holding a factory call the flow may make 0-dim are asked (the others need
    no refusal to be candidates)."""
    zero_dim = [
        call
        for call in calls
        if _may_create_without_device(call, names, lambda _: True)
        and not _may_create_without_device(call, names, lambda _: False)
    ]
    scopes = {found.scope_of(call) for call in zero_dim}
    if not scopes:
        return set()
    made = {id(call) for call in zero_dim}
    functions = list(found.of_type(ast.FunctionDef, ast.AsyncFunctionDef))
    holding: dict[int, set[str]] = {}
    refusing: set[Scope] = set()
    operations: list[tuple[ast.stmt | ast.Call, list[ast.AST]]] = [
        (call, _operands(call)) for call in calls if _may_refuse_scalars(call, names)
    ]
    for update in found.of_type(ast.AugAssign):
        assert isinstance(update, ast.AugAssign)
        operations.append((update, [update.target]))
    for operation, operands in operations:
        scope = found.scope_of(operation)
        if scope in refusing or scope not in scopes:
            continue
        region = _outermost_around(operation, functions)
        if region is None:  # at class or module level: not worth judging
            refusing.add(scope)
            continue
        if id(region) not in holding:
            holding[id(region)] = _names_holding(region, made)
        inside = [inner for operand in operands for inner in ast.walk(operand)]
        if any(id(inner) in made for inner in inside) or holding[id(region)] & {
            inner.id for inner in inside if isinstance(inner, ast.Name)
        }:
            refusing.add(scope)
    return refusing


def _operands(call: ast.Call) -> list[ast.AST]:
    """What a call hands its operation: its receiver (``t`` of ``t.add_(x)``), arguments
    and keyword values."""
    receiver = [call.func.value] if isinstance(call.func, ast.Attribute) else []
    return [*receiver, *call.args, *(keyword.value for keyword in call.keywords)]


def _collective_regions(
    found: Skeleton, calls: Sequence[ast.Call], names: Bindings, functions: Sequence[ast.AST]
) -> set[ast.AST | None]:
    """The outermost functions whose CPU tensors a collective may take, blamed in any scope
    (``meetings_in_collective``): those calling one (module level: None), and every one
    linked to them by a name either way, since the flow follows a tensor into a function
    it is handed to and out of one returning it, through any number of calls: a callee
    whose result flows in (``FileFlows.meetings_of``), a caller handing one a tensor
    (``sync(torch.tensor(..))``), a sibling making one for it."""
    regions: dict[ast.AST | None, tuple[set[str], set[str]]] = {None: (set(), set())}
    for function in functions:
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        if _outermost_around(function, functions) is function:
            regions[function] = (_names_in(function), _defined_in(function))
    for call in calls:
        if found.scope_of(call).function_name is None:  # module or class level
            regions[None][0].update(_names_in(call))
    naming: dict[str, list[ast.AST | None]] = {}
    defining: dict[str, list[ast.AST | None]] = {}
    for region, (named, defined) in regions.items():
        for name in named:
            naming.setdefault(name, []).append(region)
        for name in defined:
            defining.setdefault(name, []).append(region)
    reaching = {
        _outermost_around(call, functions)
        for call in calls
        if names.may_be(call.func, COLLECTIVE_FUNCTIONS)
    }
    pending = list(reaching)
    while pending:
        named, defined = regions[pending.pop()]
        for linked in [
            *(region for name in named for region in defining.get(name, ())),
            *(region for name in defined for region in naming.get(name, ())),
        ]:
            if linked not in reaching:
                reaching.add(linked)
                pending.append(linked)
    return reaching


def _names_in(node: ast.AST) -> set[str]:
    """The names and attribute names ``node`` reads: what it may call or hand on."""
    return {
        inner.id if isinstance(inner, ast.Name) else inner.attr
        for inner in ast.walk(node)
        if isinstance(inner, ast.Name | ast.Attribute)
    }


def _defined_in(region: ast.AST) -> set[str]:
    """The names of the functions ``region`` defines, itself included."""
    return {
        inner.name
        for inner in ast.walk(region)
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _indexing_regions(put: Sequence[ast.Call], functions: Sequence[ast.AST]) -> set[ast.AST | None]:
    """The outermost functions that may index a tensor one of their ``x.cpu()`` calls put
    on the CPU (``put``): the flow blames such a choice only where it is indexed
    (``meetings_indexed``), never out of its function. Module level (None) always."""
    made = {id(call) for call in put}
    regions = {_outermost_around(call, functions) for call in put}
    indexing: set[ast.AST | None] = {None} if None in regions else set()
    for region in regions - {None}:
        assert region is not None
        holding = _names_holding(region, made)
        for node in ast.walk(region):
            if not isinstance(node, ast.Subscript):
                continue
            inside = list(ast.walk(node.value))
            if any(id(inner) in made for inner in inside) or holding & {
                inner.id for inner in inside if isinstance(inner, ast.Name)
            }:
                indexing.add(region)
                break
    return indexing


def _indexed(
    put: Sequence[ast.Call], regions: set[ast.AST | None], functions: Sequence[ast.AST]
) -> list[ast.Call]:
    return [call for call in put if _outermost_around(call, functions) in regions]


def _outermost_around(node: ast.stmt | ast.expr, functions: Sequence[ast.AST]) -> ast.AST | None:
    """The outermost function whose lines hold ``node``: its scope's code and perhaps more
    (a scope is its outermost function; nested functions belong to it)."""
    around: list[ast.FunctionDef | ast.AsyncFunctionDef] = [
        function
        for function in functions
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        and function.lineno <= node.lineno
        and node.end_lineno is not None
        and function.end_lineno is not None
        and node.end_lineno <= function.end_lineno
    ]
    return min(
        around, key=lambda function: (function.lineno, -(function.end_lineno or 0)), default=None
    )


def _names_holding(region: ast.AST, made: set[int]) -> set[str]:
    """The names in ``region`` that may hold what the calls ``made`` make, in any order of
    its statements: bound (also unpacked, looped over, captured by a nested function or a
    parameter default) from an expression mentioning such a call or name, or the receiver
    of a call given one (``parts.append(t)``, ``total.copy_(t)``); of an attribute or
    subscript target, its root name (``self``)."""
    bindings: list[tuple[list[str], set[str], bool]] = []

    def bind(bound: list[str], values: Iterable[ast.AST | None]) -> None:
        inside = [inner for value in values if value is not None for inner in ast.walk(value)]
        mentioned = {inner.id for inner in inside if isinstance(inner, ast.Name)}
        bindings.append((bound, mentioned, any(id(inner) in made for inner in inside)))

    for node in ast.walk(region):
        targets: list[ast.AST] = []
        values: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets, values = list(node.targets), [node.value]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
            targets, values = [node.target], [node.value] if node.value is not None else []
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            targets, values = [node.target], [node.iter]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets, values = [node.optional_vars], [node.context_expr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            bind(
                [argument.arg for argument in every], [*arguments.defaults, *arguments.kw_defaults]
            )
            if not isinstance(node, ast.Lambda):  # what it returns (`t = zero()`)
                bind([node.name], node.body)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            targets = [node.func.value]
            values = [*node.args, *(keyword.value for keyword in node.keywords)]
        if values:
            bind([name for target in targets for name in _root_names(target)], values)
    holding: set[str] = set()
    changed = True
    while changed:
        changed = False
        for bound, mentioned, making in bindings:
            if (making or mentioned & holding) and not holding.issuperset(bound):
                holding.update(bound)
                changed = True
    return holding


def _root_names(target: ast.AST) -> Iterable[str]:
    """The names a target binds or changes: ``a`` of ``a``, ``a.b[0]`` and ``*a``, each
    name of ``a, (b, c)``."""
    if isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _root_names(element)
    elif isinstance(target, ast.Attribute | ast.Subscript | ast.Starred):
        yield from _root_names(target.value)
    elif isinstance(target, ast.Name):
        yield target.id


def _may_create_without_device(
    call: ast.Call, names: Bindings, refused_here: Callable[[ast.Call], bool]
) -> bool:
    """Whether ``call`` may resolve to a factory the flow blames (``visit`` reports it
    where it meets the device), judging by its arguments; a 0-dim one only if
    ``refused_here`` (a collective or an operation of ``SCALAR_REFUSING_OPERATIONS``, which
    a 0-dim CPU tensor cannot meet, may take it)."""
    if isinstance(call.func, ast.Attribute) and call.func.attr not in _FACTORIES:
        return False  # `a.f(...)` resolves to `<what a is>.f`
    return any(
        module == "torch" and _may_lack_device(call, factory, refused_here)
        for module, _, factory in (name.rpartition(".") for name in names.resolutions(call.func))
    )


def _may_lack_device(
    call: ast.Call, factory: str, refused_here: Callable[[ast.Call], bool]
) -> bool:
    """Whether ``visit`` could report ``call`` as a call of ``torch.<factory>``: as the
    flow makes it (``_Inference._factory``), a tensor of data but one number, or of a shape
    but ``[]``; a 0-dim one only where ``refused_here``."""
    if factory not in _FACTORIES:
        return False
    if any(keyword.arg in (None, "device", "out") for keyword in call.keywords):
        return False
    first = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
    if factory in DATA_FACTORIES:
        if first is None:
            return False
        return _may_be_data(first) or refused_here(call)
    if factory in _WITHOUT_DEVICE or first is None or not _empty_shape(first):
        return True
    return refused_here(call)


def _empty_shape(node: ast.expr) -> bool:
    """``[]`` or ``()`` as a factory's size: a 0-dim tensor (``torch.rand([])``)."""
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts


def _may_be_data(node: ast.expr) -> bool:
    """The flow makes a CPU tensor of any payload but a constant (a number: 0-dim)."""
    return not isinstance(node, ast.Constant)


def _surely_placed(calls: Iterable[ast.Call]) -> set[int]:
    """Calls whose CPU origin the flow surely replaces before they meet anything: the
    receivers in a chain ending in ``.cpu()``, ``.cuda()``, ``.type_as(y)``, ... or a
    ``.to(...)`` that surely is no cast (with ``device=``, or a first argument named
    ``*device``), up to a method where the receiver may meet another tensor."""
    placed: set[int] = set()
    for call in calls:
        if not (isinstance(call.func, ast.Attribute) and _surely_moves(call, call.func.attr)):
            continue
        receiver = call.func.value
        while isinstance(receiver, ast.Call):
            placed.add(id(receiver))
            if not isinstance(receiver.func, ast.Attribute):
                break
            if receiver.func.attr in TENSOR_ARGUMENT_METHODS:
                break  # torch.zeros(n).add(x).to(d): it met x before the move
            receiver = receiver.func.value
    return placed


def _surely_moves(call: ast.Call, method: str) -> bool:
    """``x.<method>(...)`` gives a result that is no longer the CPU tensor ``x`` is: a move
    or a host value, and surely not a cast that ``casts_dtype_only`` recognises."""
    if method != "to":
        return method in MOVE_METHODS or method in CPU_RESULT_METHODS
    if any(keyword.arg == "device" for keyword in call.keywords):
        return True
    first = dotted(call.args[0]) if call.args else None  # None for `*args` too
    return (first or "").endswith("device")
