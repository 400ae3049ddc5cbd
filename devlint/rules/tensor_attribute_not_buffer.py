"""DEV007: ``self.x = torch.zeros(...)`` in ``__init__``: a tensor the module will not move."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import replace as changed

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.findings import Applicability
from devlint.flow.inference import FunctionFlow
from devlint.flow.meetings import Handoff, Meeting, MeetingKind, refused_as_scalar
from devlint.index import ProjectIndex, is_forward_method, is_test_module
from devlint.nodes import (
    annotation_names,
    attribute_of_self,
    casts_dtype_only,
    descendants,
    dotted_name,
    first_positional,
    is_none,
    is_self,
    keyword_argument,
    unpacked,
)
from devlint.rules._anchors import innermost_function
from devlint.rules._chosen_device import moves_to_the_current_device, under_a_device_flag
from devlint.rules._devices import (
    device_literal,
    places_with_its_device,
    self_attribute,
    stores_its_device_parameter,
)
from devlint.rules._handoffs import handoff_needs
from devlint.rules.base import FileContext, Invalid, PendingEdit, Rule, choose_fix
from devlint.symbols import (
    ARRAY_TENSOR_FACTORIES,
    FLOAT_DTYPES,
    INTEGER_DTYPES,
    INTEGER_FACTORIES,
    INTEGER_TENSOR_TYPES,
    LEGACY_TENSOR_TYPES,
    MODULE_MOVING_METHODS,
    NON_TENSOR_RESULTS,
    TENSOR_FACTORIES,
)

_HANDLED = "attribute-handled"
"""Per-class note: the class makes ``self.<name>`` a parameter or buffer, or moves it
itself (``*``: every attribute, for a class that overrides ``to``/``_apply``)."""

_REGISTRARS = frozenset({"register_buffer", "register_parameter", "add_state"})
"""Methods of ``self`` that take an attribute's name: ``nn.Module``'s and torchmetrics'."""

_WRAPPERS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"}
    | {"torch.nn.parameter.Buffer", "torch.nn.UninitializedBuffer"}
)
"""``nn.Parameter(self.x)``: the attribute becomes a parameter (or buffer) after all."""
_WRAPPER_NAMES = frozenset(name.rpartition(".")[2] for name in _WRAPPERS)

_TENSOR_MODULES = frozenset(
    {"torch", "torch.nn.functional", "torch.nn.init", "torch.fft", "torch.linalg", "torch.special"}
)
"""Namespaces whose lowercase functions turn a tensor into another tensor."""

_TENSOR_VIEWS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
"""Tensor attributes that are tensors themselves."""

_METRIC_METHODS = frozenset({"update", "compute"})
"""torchmetrics' ``Metric.forward`` calls them with the batch, on the metric's device."""

_MAX_SHOWN = 60
"""Characters of the partner's code a message shows."""

_REDUCTIONS = frozenset(
    {"sum", "prod", "mean", "max", "min", "norm", "all", "any", "std", "var", "median"}
    | {"logsumexp", "count_nonzero", "det", "trace", "dot"}
)
"""Reductions whose result has 0 dimensions when no ``dim`` is given."""

_NUMBER_TYPES = frozenset({"int", "float", "bool", "complex"})
_SEQUENCE_TYPES = frozenset({"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "ndarray"})
"""A parameter annotated with a number type and none of these holds a 0-dim value."""


@dataclass(frozen=True)
class _Fresh:
    """A new CPU tensor an expression makes, as far as the source says."""

    kind: str
    """``float`` (follows module-wide dtype casts), ``int`` (integer or bool), or ``unknown``."""
    factory: str
    """The torch function that makes it (``torch.zeros``), for the message."""
    placed: bool = False
    """It is put on a device (``device=``, ``.to(...)``, ``.cuda()``) on the way."""
    scalar: bool = False
    """It has 0 dimensions (``torch.tensor(2.0)``, ``torch.prod(t)``): such a CPU tensor
    mixes with tensors on any device, like a Python number."""


class TensorAttributeNotBuffer(Rule):
    """## What it does
    Finds tensors that `__init__` of model code stores in plain attributes and that the
    module's computation later meets: `self.pe = torch.zeros(...)` and then
    `x + self.pe` in `forward`. The device flow decides both halves. What is stored
    is a tensor `__init__` makes (any factory, a window function kept uncalled
    (`window_fn=torch.hann_window`) and called there, `torch.tensor` of Python data,
    `torch.from_numpy`, a legacy `torch.FloatTensor(...)`, through method chains,
    arithmetic, torch functions, local variables, `threshold or torch.linspace(...)`,
    and the helpers of the file that `__init__` calls, functions nested in it too, one
    element of a tuple they return apart), wherever `__init__` puts it
    (`.to(device)`, `.cuda()`; `device=self.device` of a LightningModule or a
    `PreTrainedModel` is where the module is while `__init__` runs: the CPU, before the
    trainer moves it), or a tensor the caller gives (a parameter annotated
    as a tensor); also a function stored on `self` that captured such a tensor
    (`self.normalize = lambda x: (x - mean) / std`). Where it meets: an operation
    that needs one device (arithmetic, comparisons, `torch.cat`/`where`/..., in-place
    ops, a module call, indexing it with a device index) with a tensor that follows
    the computation, in `forward`, `__call__`, `generate`, the Lightning `*_step`
    methods and batch hooks, torchmetrics' `update`/`compute`, or the methods of
    the class they call, also where those are a base class's that calls an override
    (`Transform.forward` calling `self._apply_transform`, a LightningModule base of
    another file whose `training_step` calls `self.train_step_gen`), and inside a
    function of another file those methods hand it to, where that function's flow
    shows it meets the device (`_update(preds, target, self.thresholds)` of a metric's
    functional module) (not in a branch only an ONNX export takes,
    `if torch.onnx.is_in_onnx_export():`, which is no run on the device). An attribute
    `__init__` then reassigns as itself moved or reshaped (`self.k =
    self.k[None].to(device)`) is the same tensor: one finding, where it is made.

    ## Why is this bad?
    `model.to(device)`, `model.cuda()` and Lightning's trainer move parameters and
    buffers, not arbitrary tensor attributes. The attribute stays on the CPU (or on
    the device it was put on in `__init__`) while the weights move, and the first
    forward pass fails with `Expected all tensors to be on the same device`,
    typically only on the GPU cluster or on the second rank. A buffer moves with the
    module, and with `persistent=False` it stays out of `state_dict`, as the plain
    attribute did.

    ## Example
    ```python
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=512):
            super().__init__()
            self.pe = torch.zeros(max_len, d_model)

        def forward(self, x):
            return x + self.pe[: x.size(1)]
    ```

    ## Use instead
    ```python
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=512):
            super().__init__()
            self.register_buffer("pe", torch.zeros(max_len, d_model), persistent=False)

        def forward(self, x):
            return x + self.pe[: x.size(1)]
    ```

    ## Fix safety
    The statement becomes `self.register_buffer("x", <value>, persistent=False)`,
    without a literal accelerator: a trailing `.cuda()` or `.to("cuda")` and the
    factory's `device="cuda"` go (the buffer moves with the module; DEV001 and
    DEV002 report those literals without a fix in `__init__`). The fix is unsafe:
    a floating-point buffer follows module-wide dtype casts (`model.half()`,
    `.to(torch.bfloat16)`), which the plain attribute did not, and a buffer is
    broadcast by DDP and listed by `named_buffers()`. Integer and bool tensors
    (`dtype=torch.long`, `torch.arange(n)`, `torch.randint`, `torch.tensor([1, 2])`)
    are not cast, and the message says which case applies. `persistent=False`
    keeps `state_dict` (and old checkpoints) as they were. There is no fix when the
    assignment comes before `super().__init__()` (where `register_buffer` fails),
    when the name already holds something else (also where a method `__init__`
    calls sets it: `self._init_drop(n)`), or for a function that captured
    the tensor (the message says to register the tensor and read it from `self`).
    Nor for a tensor the caller gives as it is (`self.alpha = alpha`, `threshold or
    torch.linspace(...)`): it may be an `nn.Parameter`, which a buffer would take
    from `parameters()`, the optimizer and `state_dict`.
    Nor for a container (`self.cache = (False, {"k": t})`: a buffer holds one tensor)
    or an attribute another method re-assigns by unpacking (`self.w, self.b = ...`):
    a buffer refuses anything but a tensor or None.

    Not flagged: attributes that meet nothing on the device: only stored, used as
    Python values (`self.x.tolist()`, `enumerate(self.x)`), used as an index into a
    device tensor (a CPU index is legal there), used in methods that do not run
    with the batch (CPU sampling of a transform's parameters, a `collate_fn`), or
    moved first (`self.pe.to(x.device)`); 0-dim tensors (`torch.tensor(0.5)`,
    `torch.sqrt(torch.tensor(dim))` of a parameter that may be one number, unless
    `__init__` gives it dimensions: `.view(-1, 1, 1)`), which mix with tensors on any
    device in arithmetic and comparisons (not where CUDA checks every tensor's device
    first: `torch.stack`, a tensor bound of `clamp`, `index_select`, nor where an
    in-place update writes into them: `self.seen += y.sum()`); attributes the
    class registers (`register_buffer("x", ...)`,
    `add_state`) or makes a parameter (`nn.Parameter(self.x)`, or
    `self.x = nn.Parameter(...)` in another branch, where the plain tensor is a
    switched-off stand-in) or a module built from it (`nn.Embedding.from_pretrained(t)`);
    attributes the class replaces in another method
    (`self.x = ...`), or a class that overrides `to`/`_apply`; a tensor `__init__`
    also hands to the base class's `__init__`, which may register it (assigning to a
    buffer's name keeps it a buffer); a tensor made on the device the module keeps
    (`self.device = device` in `__init__`, then `torch.ones(n, device=device)` or
    `.to(self.device)`) in a module whose methods place their tensors with `self.device`:
    built where it runs and kept there by its own code (a `.to()` of the module would
    leave `self.device` behind too); classes that are not model code, nor modules
    defined in tests, which run where the test puts their inputs.
    """

    code = "DEV007"
    default_enabled = False  # opt-in: 4 of 18 findings right on untuned libraries (botorch...)
    name = "tensor-attribute-not-buffer"
    summary = "Tensor stored as a plain attribute in `__init__`: the module's `.to()` skips it"
    fix_safety = "unsafe"
    node_types = ("FunctionDef", "Assign", "AnnAssign", "Call")
    # Every report needs a tensor made in the file, and every such tensor starts from a
    # call whose qualified name is `torch.<factory>` (wrapped in `torch.*` functions,
    # methods, locals or helpers): only an import spelling `torch` binds such a name (a
    # relative import inside the `torch` package aside); or from a parameter annotated
    # as a tensor, whose annotation spells `Tensor`. `__init__` is needed too, but is in
    # more of the corpus.
    triggers = ("torch", "Tensor")
    only_in_model_code = True

    VALID = (
        # Placed by the user's device flag, as the class places its network: the flag,
        # not a `.to()` of the module, says where everything runs.
        "import torch\nfrom torch import nn\n\n"
        "class Categorical(nn.Module):\n"
        "    def __init__(self, n_atoms, use_cuda=False):\n"
        "        super().__init__()\n"
        "        self.head = nn.Linear(8, n_atoms)\n"
        "        self.atoms = torch.arange(n_atoms).float()\n"
        "        if use_cuda:\n"
        "            self.atoms = self.atoms.cuda()\n\n"
        "    def forward(self, x):\n"
        "        return (self.head(x).softmax(-1) * self.atoms).sum(-1)\n",
        # After `if isinstance(p, Tensor) and p.ndim > 0:` moved it, `p` is a number or a
        # 0-dim tensor on the other path: either meets any device.
        "from typing import List, Union\n\nimport torch\nimport torch.nn as nn\n\n"
        "class Dropper(nn.Module):\n"
        "    def __init__(self, rates: Union[float, List[float]] = 0.1):\n"
        "        super().__init__()\n"
        "        if isinstance(rates, list):\n"
        "            self.rates = torch.tensor(rates)\n"
        "        else:\n"
        "            self.rates = rates\n\n"
        "    def forward(self, x):\n"
        "        p = self.rates\n"
        "        if isinstance(p, torch.Tensor) and p.ndim > 0:\n"
        "            p = p[torch.randint(len(p), (x.size(0), 1))].to(x.device)\n"
        "        return x * (torch.rand(x.shape, device=x.device) > p)\n",
        # A module built on the device it keeps, whose methods place their tensors there
        # too: its own code keeps it where it runs (INVALID: methods that do not).
        "import torch\nfrom torch import nn\n\nclass Phases(nn.Module):\n"
        '    def __init__(self, n, device="cpu"):\n'
        "        super().__init__()\n"
        "        self.device = device\n"
        "        self.window = torch.ones(n, device=device)\n\n"
        "    def forward(self, x):\n"
        "        noise = torch.randn(x.shape, device=self.device)\n"
        "        return (x + noise) * self.window\n",
        # Buffers and parameters move with the module.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        '        self.register_buffer("mask", torch.ones(n, n).tril())\n'
        "        self.scale = nn.Parameter(torch.ones(n))\n"
        "        self.sizes = [1, 2, 3]\n"
        "        self.temperature = torch.tensor(0.07)\n\n"
        "    def forward(self, x):\n"
        "        return x * self.mask * self.scale / self.temperature\n",
        # Wrapped in nn.Parameter, or moved (or replaced) before it meets the input.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.weight = torch.randn(n, n)\n"
        "        self.weight = nn.Parameter(self.weight)\n"
        "        self.cache = torch.zeros(n)\n"
        "        self.pe = torch.zeros(n)\n\n"
        "    def forward(self, x):\n"
        "        self.cache = self.cache.to(x.device)\n"
        "        return x @ self.weight + self.pe.to(x.device)[: x.shape[-1]] + self.cache\n",
        # A class that moves its tensors itself.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.table = torch.arange(n)\n\n"
        "    def _apply(self, fn, recurse=True):\n"
        "        self.table = fn(self.table)\n"
        "        return super()._apply(fn, recurse)\n\n"
        "    def forward(self, x):\n"
        "        return x + self.table\n",
        # Not model code.
        "import torch\n\n"
        "class Sampler:\n"
        "    def __init__(self, n):\n"
        "        self.order = torch.randperm(n)\n\n"
        "    def forward(self, x):\n"
        "        return x + self.order\n",
        # Kept on the CPU on purpose; not in __init__.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.lookup = torch.arange(n).cpu()\n\n"
        "    def on_fit_start(self):\n"
        "        self.steps = torch.arange(4, device=self.device)\n\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        return batch + self.steps\n",
        # Python-side uses, and a stand-in for a parameter that is switched off.
        "import torch\nimport torch.nn as nn\n\n"
        "class Linear(nn.Module):\n"
        "    def __init__(self, n, bias=True):\n"
        "        super().__init__()\n"
        "        if bias:\n"
        "            self.bias = nn.Parameter(torch.zeros(n))\n"
        "        else:\n"
        "            self.bias = torch.zeros(n).requires_grad_(False)\n"
        "        self.is_numeric = torch.ones(n, dtype=torch.bool)\n"
        "        self.edges = torch.linspace(0, 1, n)\n\n"
        "    def forward(self, x):\n"
        "        cols = [x[:, i] for i, flag in enumerate(self.is_numeric) if flag]\n"
        "        return torch.stack(cols, -1), self.edges.tolist()\n",
        # 0-dim tensors; a copy moved where it is used.
        "import torch\nimport torch.nn as nn\n\n"
        "class Filter(nn.Module):\n"
        "    def __init__(self, shape, threshold: float, dim):\n"
        "        super().__init__()\n"
        "        self.numel = torch.prod(torch.tensor(shape))\n"
        "        self.threshold = torch.as_tensor(threshold)\n"
        "        self.scaling = torch.sqrt(torch.tensor(dim).float())\n"
        "        self.keep = torch.tensor([0, 2])\n\n"
        "    def forward(self, x):\n"
        "        keep = self.keep\n"
        "        keep = keep.to(x.device)\n"
        "        x = x / self.scaling / self.numel\n"
        "        return x[..., keep] > self.threshold\n",
        # Re-created on the input's device where it is used.
        "import torch\nimport torch.nn as nn\n\n"
        "class Rotary(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.cos = torch.ones(n)\n\n"
        "    def forward(self, x):\n"
        "        if self.cos.device != x.device:\n"
        "            self.cos = torch.ones(x.shape[-1], device=x.device)\n"
        "        return x * self.cos\n",
        # A CPU index into a device tensor is legal.
        "import torch\nimport torch.nn as nn\n\n"
        "class Cholesky(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.tidcs = torch.tril_indices(n, n)\n\n"
        "    def forward(self, x, factor):\n"
        "        factor[..., self.tidcs[0], self.tidcs[1]] = x\n"
        "        return x[:, self.tidcs[0]]\n",
        # Only in CPU work outside the batch: parameter sampling, a collate function.
        "import math\nfrom typing import Tuple\nimport torch\nimport torch.nn as nn\n\n"
        "class RandomCrop(nn.Module):\n"
        "    def __init__(self, ratio: Tuple[float, float] = (3 / 4, 4 / 3), offset=(0, 1)):\n"
        "        super().__init__()\n"
        "        self._log_ratio = torch.log(torch.tensor(ratio))\n"
        "        self.offset = torch.tensor(offset)\n\n"
        "    def make_params(self, images):\n"
        "        value = torch.empty(1).uniform_(self._log_ratio[0], self._log_ratio[1])\n"
        "        return math.exp(value.item())\n\n"
        "    def collate(self, batch):\n"
        "        walks = torch.tensor(batch)\n"
        "        return walks + self.offset\n",
        # Handed to the base class, which registers it: assigning a buffer keeps it one.
        "import torch\nfrom torch import Tensor, nn\n\n"
        "class Strategy(nn.Module):\n"
        "    def __init__(self, points):\n"
        "        super().__init__()\n"
        '        self.register_buffer("points", points)\n\n'
        "class NearestNeighbors(Strategy):\n"
        "    def __init__(self, points: Tensor, k: int):\n"
        "        super().__init__(points)\n"
        "        self.points = points\n\n"
        "    def forward(self, x):\n"
        "        return x[:, None] - self.points\n",
        # Moved by the function it is handed to on every path but an ONNX export's
        # (INVALID: a branch a run on the device takes, such as tracing).
        "import torch\nfrom torch import nn\n\n"
        "def normalize(data, mean):\n"
        "    if torch.onnx.is_in_onnx_export():\n"
        "        if mean.shape[0] != 1:\n"
        '            raise ValueError("one batch only")\n'
        "    else:\n"
        "        mean = mean.to(data.device)\n"
        "    return data - mean\n\n"
        "class Normalize(nn.Module):\n"
        "    def __init__(self, mean):\n"
        "        super().__init__()\n"
        "        self.mean = torch.tensor([mean])\n\n"
        "    def forward(self, x):\n"
        "        return normalize(x, self.mean)\n",
        # A module a class method builds from the tensor holds it as a parameter.
        "import torch\nimport torch.nn as nn\n\n"
        "class Decoder(nn.Module):\n"
        "    def __init__(self, bounds):\n"
        "        super().__init__()\n"
        "        centers = torch.from_numpy(bounds)\n"
        "        self.embedding = nn.Embedding.from_pretrained(centers.unsqueeze(-1))\n\n"
        "    def forward(self, x):\n"
        "        return self.embedding(x).squeeze(-1)\n",
        # A placeholder of size 0 until forward makes the real one: an empty tensor meets
        # no other in arithmetic on any device, so that path is one that never runs.
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "class Vocab(nn.Module):\n"
        "    def __init__(self, n, m):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(m, n))\n"
        "        self.last_ids = torch.zeros(0)\n"
        "        self.picked = torch.zeros(0)\n"
        "\n"
        "    def forward(self, x, ids):\n"
        "        if self.last_ids.numel() == 0:\n"
        "            self.last_ids = ids\n"
        "        picked = self.picked\n"
        "        if not torch.equal(ids, self.last_ids):\n"
        "            picked = self.picked = self.weight[ids]\n"
        "        return x @ picked.t()\n",
        # A function nested in `__init__` that returns Python numbers, and an attribute only
        # a method that no batch method (its own or its base's) calls meets the input with.
        "import torch\nimport torch.nn as nn\n\n"
        "class Transform(nn.Module):\n"
        "    def forward(self, obs):\n"
        "        return self._transform(obs)\n\n"
        "class Scale(Transform):\n"
        "    def __init__(self, scale=None):\n"
        "        super().__init__()\n\n"
        "        def check(val):\n"
        "            if val is None:\n"
        "                return None\n"
        "            return float(val)\n\n"
        "        self.scale = check(scale)\n"
        "        self.grid = torch.linspace(0, 1, 5)\n\n"
        "    def _transform(self, obs):\n"
        "        if self.scale is None:\n"
        "            return obs\n"
        "        return obs * self.scale\n\n"
        "    def describe(self, obs):\n"
        "        return obs[:, None] - self.grid\n",
    )
    INVALID = (
        Invalid(
            # Reassigned as itself moved (`self.k = self.k[None].to(device)`): the same
            # tensor, reported once, where it is made.
            "import torch\nfrom torch import nn\n\n"
            'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n\n'
            "class Sobel(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.kernel = torch.tensor([[1.0, 0.0, -1.0]])\n"
            "        self.kernel = self.kernel.unsqueeze(0).unsqueeze(0).to(device)\n\n"
            "    def forward(self, x):\n"
            "        return nn.functional.conv2d(x, self.kernel, padding=1)\n",
            line=9,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n\n'
            "class Sobel(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("kernel", torch.tensor([[1.0, 0.0, -1.0]]), '
            "persistent=False)\n"
            "        self.kernel = self.kernel.unsqueeze(0).unsqueeze(0).to(device)\n\n"
            "    def forward(self, x):\n"
            "        return nn.functional.conv2d(x, self.kernel, padding=1)\n",
            unsafe=True,
        ),
        Invalid(
            # On the GPU whenever one exists: no choice of the user's, and a `.to()` of
            # the module leaves it there.
            "import torch\nfrom torch import nn\n\n"
            "class Categorical(nn.Module):\n"
            "    def __init__(self, n_atoms):\n"
            "        super().__init__()\n"
            "        self.head = nn.Linear(8, n_atoms)\n"
            "        atoms = torch.arange(n_atoms).float()\n"
            "        self.atoms = atoms.cuda() if torch.cuda.is_available() else atoms\n\n"
            "    def forward(self, x):\n"
            "        return (self.head(x).softmax(-1) * self.atoms).sum(-1)\n",
            line=9,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Categorical(nn.Module):\n"
            "    def __init__(self, n_atoms):\n"
            "        super().__init__()\n"
            "        self.head = nn.Linear(8, n_atoms)\n"
            "        atoms = torch.arange(n_atoms).float()\n"
            '        self.register_buffer("atoms", atoms.cuda() if torch.cuda.is_available() '
            "else atoms, persistent=False)\n\n"
            "    def forward(self, x):\n"
            "        return (self.head(x).softmax(-1) * self.atoms).sum(-1)\n",
            unsafe=True,
        ),
        Invalid(
            # The same cache, kept with data: forward may use it before it is made again.
            # No fix: forward re-assigns it with a value not surely a tensor, which a
            # buffer would refuse.
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Vocab(nn.Module):\n"
            "    def __init__(self, n, m):\n"
            "        super().__init__()\n"
            "        self.weight = nn.Parameter(torch.randn(m, n))\n"
            "        self.last_ids = torch.zeros(0)\n"
            "        self.picked = torch.zeros(1, 1)\n"
            "\n"
            "    def forward(self, x, ids):\n"
            "        if self.last_ids.numel() == 0:\n"
            "            self.last_ids = ids\n"
            "        picked = self.picked\n"
            "        if not torch.equal(ids, self.last_ids):\n"
            "            picked = self.picked = self.weight[ids]\n"
            "        return x @ picked.t()\n",
            line=9,
            column=9,
        ),
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "def normalize(data, mean):\n"
            "    if torch.jit.is_tracing():\n"
            "        if mean.shape[0] != 1:\n"
            '            raise ValueError("one batch only")\n'
            "    else:\n"
            "        mean = mean.to(data.device)\n"
            "    return data - mean\n\n"
            "class Normalize(nn.Module):\n"
            "    def __init__(self, mean):\n"
            "        super().__init__()\n"
            "        self.mean = torch.tensor([mean])\n\n"
            "    def forward(self, x):\n"
            "        return normalize(x, self.mean)\n",
            line=15,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            "def normalize(data, mean):\n"
            "    if torch.jit.is_tracing():\n"
            "        if mean.shape[0] != 1:\n"
            '            raise ValueError("one batch only")\n'
            "    else:\n"
            "        mean = mean.to(data.device)\n"
            "    return data - mean\n\n"
            "class Normalize(nn.Module):\n"
            "    def __init__(self, mean):\n"
            "        super().__init__()\n"
            '        self.register_buffer("mean", torch.tensor([mean]), persistent=False)\n\n'
            "    def forward(self, x):\n"
            "        return normalize(x, self.mean)\n",
            unsafe=True,
        ),
        Invalid(
            # The same tensor kept beside the module it built stays on the CPU.
            "import torch\nimport torch.nn as nn\n\n"
            "class Decoder(nn.Module):\n"
            "    def __init__(self, bounds):\n"
            "        super().__init__()\n"
            "        self.centers = torch.from_numpy(bounds)\n"
            "        self.embedding = nn.Embedding.from_pretrained(self.centers.unsqueeze(-1))\n\n"
            "    def forward(self, x):\n"
            "        return self.embedding(x).squeeze(-1) - self.centers[x]\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Decoder(nn.Module):\n"
            "    def __init__(self, bounds):\n"
            "        super().__init__()\n"
            '        self.register_buffer("centers", torch.from_numpy(bounds), persistent=False)\n'
            "        self.embedding = nn.Embedding.from_pretrained(self.centers.unsqueeze(-1))\n\n"
            "    def forward(self, x):\n"
            "        return self.embedding(x).squeeze(-1) - self.centers[x]\n",
            unsafe=True,
        ),
        Invalid(
            # A 0-dim attribute updated in place by a device tensor: a CUDA kernel takes a
            # CPU scalar as an input, never as its output (`self.steps += 1` is host data).
            "import torch\nimport torch.nn as nn\n\n"
            "class Tracker(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            "        self.seen = torch.tensor(0.0)\n"
            "        self.steps = torch.tensor(0)\n\n"
            "    def forward(self, x):\n"
            "        y = self.proj(x)\n"
            "        self.seen += y.sum()\n"
            "        self.steps += 1\n"
            "        return y\n",
            line=8,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Tracker(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            '        self.register_buffer("seen", torch.tensor(0.0), persistent=False)\n'
            "        self.steps = torch.tensor(0)\n\n"
            "    def forward(self, x):\n"
            "        y = self.proj(x)\n"
            "        self.seen += y.sum()\n"
            "        self.steps += 1\n"
            "        return y\n",
            unsafe=True,
        ),
        Invalid(
            # A 0-dim bound of `clamp_max`: CUDA checks its device, scalar or not.
            "import torch\nimport torch.nn as nn\n\n"
            "class Clip(nn.Module):\n"
            "    def __init__(self, high=1.0):\n"
            "        super().__init__()\n"
            "        self.high = torch.tensor(high)\n"
            "        self.low = torch.tensor(0.0)\n\n"
            "    def forward(self, x):\n"
            "        return (x - self.low).clamp_max(self.high)\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Clip(nn.Module):\n"
            "    def __init__(self, high=1.0):\n"
            "        super().__init__()\n"
            '        self.register_buffer("high", torch.tensor(high), persistent=False)\n'
            "        self.low = torch.tensor(0.0)\n\n"
            "    def forward(self, x):\n"
            "        return (x - self.low).clamp_max(self.high)\n",
            unsafe=True,
        ),
        Invalid(
            "import math\nimport torch\nimport torch.nn as nn\n\n"
            "class PositionalEncoding(nn.Module):\n"
            "    def __init__(self, d_model, max_len=512):\n"
            "        super().__init__()\n"
            "        self.pe = torch.zeros(max_len, d_model)\n\n"
            "    def forward(self, x):\n"
            "        return x + self.pe[: x.size(1)]\n",
            line=8,
            column=9,
            fixed="import math\nimport torch\nimport torch.nn as nn\n\n"
            "class PositionalEncoding(nn.Module):\n"
            "    def __init__(self, d_model, max_len=512):\n"
            "        super().__init__()\n"
            '        self.register_buffer("pe", torch.zeros(max_len, d_model), persistent=False)\n'
            "\n"
            "    def forward(self, x):\n"
            "        return x + self.pe[: x.size(1)]\n",
            unsafe=True,
        ),
        Invalid(
            # A method `__init__` calls set it first: `register_buffer` would refuse the
            # name (it already exists), so there is no fix.
            "import torch\nfrom torch import nn\n\n"
            "class Recurrent(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self._init_drop(n)\n"
            "        self.drop_mask = torch.ones(1)\n\n"
            "    def _init_drop(self, n):\n"
            "        self.drop_mask = torch.ones(1)\n\n"
            "    def forward(self, x):\n"
            "        return x * self.drop_mask\n",
            line=8,
            column=9,
        ),
        Invalid(
            # Through a local variable and a method chain; met in a method forward calls.
            "import torch\nfrom torch import nn\n\n"
            "class Attention(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        mask = torch.ones(n, n, dtype=torch.bool)\n"
            "        self.causal = mask.tril().view(1, 1, n, n)\n\n"
            "    def forward(self, scores):\n"
            "        return self.masked(scores)\n\n"
            "    def masked(self, scores):\n"
            "        return scores.masked_fill(self.causal, -1e9)\n",
            line=8,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Attention(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        mask = torch.ones(n, n, dtype=torch.bool)\n"
            '        self.register_buffer("causal", mask.tril().view(1, 1, n, n), '
            "persistent=False)\n\n"
            "    def forward(self, scores):\n"
            "        return self.masked(scores)\n\n"
            "    def masked(self, scores):\n"
            "        return scores.masked_fill(self.causal, -1e9)\n",
            unsafe=True,
        ),
        Invalid(
            # Put on the GPU in __init__, it stays there: the .cuda() goes.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.class_weights = torch.tensor([0.2, 0.8]).cuda()\n\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return (self(batch) * self.class_weights).sum()\n",
            line=7,
            column=9,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("class_weights", torch.tensor([0.2, 0.8]), '
            "persistent=False)\n\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return (self(batch) * self.class_weights).sum()\n",
            unsafe=True,
        ),
        Invalid(
            # `self.device` of a LightningModule is the CPU while `__init__` runs: the
            # trainer moves the module later, and leaves the plain attribute there.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.net = torch.nn.Linear(n, n)\n"
            "        self.support = torch.linspace(0, 1, n, device=self.device)\n\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return (self.net(batch) * self.support).sum()\n",
            line=8,
            column=9,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.net = torch.nn.Linear(n, n)\n"
            '        self.register_buffer("support", torch.linspace(0, 1, n, device=self.device), '
            "persistent=False)\n\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return (self.net(batch) * self.support).sum()\n",
            unsafe=True,
        ),
        Invalid(
            # The literal device goes too: the buffer follows the module.
            "import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.temperature = torch.ones(1, device="cuda").log().to("cuda:0")\n\n'
            "    def forward(self, logits):\n"
            "        return logits * self.temperature\n",
            line=7,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Head(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("temperature", torch.ones(1).log(), persistent=False)\n\n'
            "    def forward(self, logits):\n"
            "        return logits * self.temperature\n",
            unsafe=True,
        ),
        Invalid(
            # Arithmetic on a factory's result, spread over several lines.
            "import torch\nimport torch.nn as nn\n\n"
            "class Rotary(nn.Module):\n"
            "    def __init__(self, dim: int):\n"
            "        nn.Module.__init__(self)\n"
            "        self.inv_freq = 1.0 / (\n"
            "            10000 ** (torch.arange(0, dim, 2).float() / dim)\n"
            "        )\n\n"
            "    def forward(self, t):\n"
            "        return t[:, None] * self.inv_freq\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Rotary(nn.Module):\n"
            "    def __init__(self, dim: int):\n"
            "        nn.Module.__init__(self)\n"
            '        self.register_buffer("inv_freq", 1.0 / (\n'
            "            10000 ** (torch.arange(0, dim, 2).float() / dim)\n"
            "        ), persistent=False)\n\n"
            "    def forward(self, t):\n"
            "        return t[:, None] * self.inv_freq\n",
            unsafe=True,
        ),
        Invalid(
            # A tensor or nothing: register_buffer takes None too.
            "import torch\nfrom torch import nn\n\n"
            "class Normalize(nn.Module):\n"
            "    def __init__(self, mean=(0.5, 0.5, 0.5)):\n"
            "        super().__init__()\n"
            "        self.mean = torch.tensor(mean).view(-1, 1, 1) if mean else None\n\n"
            "    def forward(self, x):\n"
            "        return x - self.mean if self.mean is not None else x\n",
            line=7,
            column=9,
            fixed="import torch\nfrom torch import nn\n\n"
            "class Normalize(nn.Module):\n"
            "    def __init__(self, mean=(0.5, 0.5, 0.5)):\n"
            "        super().__init__()\n"
            '        self.register_buffer("mean", torch.tensor(mean).view(-1, 1, 1) '
            "if mean else None, persistent=False)\n\n"
            "    def forward(self, x):\n"
            "        return x - self.mean if self.mean is not None else x\n",
            unsafe=True,
        ),
        Invalid(
            # Before super().__init__(), register_buffer would fail: no fix.
            "import numpy as np\nimport torch\nimport torch.nn as nn\n\n"
            "class Codebook(nn.Module):\n"
            "    def __init__(self, table: np.ndarray):\n"
            "        self.table = torch.from_numpy(table)\n"
            "        super().__init__()\n\n"
            "    def forward(self, x):\n"
            "        return x @ self.table\n",
            line=7,
            column=9,
        ),
        Invalid(
            # A re-creation elsewhere that is just as CPU-bound does not excuse it.
            "import torch\nimport torch.nn as nn\n\n"
            "class Counter(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.seen: torch.Tensor = torch.zeros(10, dtype=torch.long)\n\n"
            "    def reset(self):\n"
            "        self.seen = torch.zeros(10, dtype=torch.long)\n\n"
            "    def forward(self, x):\n"
            "        self.seen += torch.bincount(x, minlength=10)\n"
            "        return x\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Counter(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.register_buffer("seen", torch.zeros(10, dtype=torch.long), '
            "persistent=False)\n\n"
            "    def reset(self):\n"
            "        self.seen = torch.zeros(10, dtype=torch.long)\n\n"
            "    def forward(self, x):\n"
            "        self.seen += torch.bincount(x, minlength=10)\n"
            "        return x\n",
            unsafe=True,
        ),
        Invalid(
            # Built by a helper of the class; moving it without assigning changes nothing.
            "import torch\nimport torch.nn as nn\n\n"
            "class AffineHead(nn.Module):\n"
            "    def __init__(self, size):\n"
            "        super().__init__()\n"
            "        self.grid = self.reference_grid(size)\n\n"
            "    @staticmethod\n"
            "    def reference_grid(size):\n"
            "        points = [torch.arange(0, n) for n in size]\n"
            "        return torch.stack(torch.meshgrid(*points), dim=0).float()\n\n"
            "    def forward(self, flow):\n"
            "        self.grid.to(flow.device)\n"
            "        return flow - self.grid\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class AffineHead(nn.Module):\n"
            "    def __init__(self, size):\n"
            "        super().__init__()\n"
            '        self.register_buffer("grid", self.reference_grid(size), persistent=False)\n\n'
            "    @staticmethod\n"
            "    def reference_grid(size):\n"
            "        points = [torch.arange(0, n) for n in size]\n"
            "        return torch.stack(torch.meshgrid(*points), dim=0).float()\n\n"
            "    def forward(self, flow):\n"
            "        self.grid.to(flow.device)\n"
            "        return flow - self.grid\n",
            unsafe=True,
        ),
        Invalid(
            # Captured by a function stored on self: no fix (register the tensors).
            "import torch\nimport torch.nn as nn\n\n"
            "class Detector(nn.Module):\n"
            "    def __init__(self, cfg):\n"
            "        super().__init__()\n"
            "        self.device = torch.device(cfg.device)\n"
            "        mean = torch.Tensor(cfg.pixel_mean).to(self.device).view(-1, 1, 1)\n"
            "        self.normalizer = lambda x: x - mean\n\n"
            "    def forward(self, images):\n"
            "        return [self.normalizer(x.to(self.device)) for x in images]\n",
            line=9,
            column=9,
        ),
        Invalid(
            # A tensor the caller gives, kept as a plain attribute.
            "import torch\nfrom torch import Tensor, nn\n\n"
            "class Wrapper(nn.Module):\n"
            "    def __init__(self, net, pad_value: Tensor):\n"
            "        super().__init__()\n"
            "        self.net = net\n"
            "        self.pad_value = pad_value\n\n"
            "    def forward(self, tokens):\n"
            "        return self.net(tokens), tokens[:, 1:] == self.pad_value\n",
            line=8,
            column=9,
            # No fix: the caller may give an `nn.Parameter`, which a buffer would drop
            # from `parameters()` and the optimizer.
        ),
        Invalid(
            # Re-bound only when the caller gave none: on the other path it is the caller's.
            "import torch\nfrom torch import nn\n\n"
            "class Binarize(nn.Module):\n"
            "    def __init__(self, threshold=None):\n"
            "        super().__init__()\n"
            "        if threshold is None:\n"
            "            threshold = torch.linspace(0.0, 1.0, 51)\n"
            "        self.threshold = threshold\n\n"
            "    def forward(self, preds):\n"
            "        return preds.unsqueeze(-1) > self.threshold\n",
            line=9,
            column=9,
            # No fix: the caller's thresholds may be an `nn.Parameter`.
        ),
        Invalid(
            # The caller's thresholds or a default grid: either stays behind.
            "from typing import Optional\nimport torch\nfrom torch import nn\n\n"
            "class Binarize(nn.Module):\n"
            "    def __init__(self, threshold: Optional[torch.Tensor] = None):\n"
            "        super().__init__()\n"
            "        self.threshold = threshold or torch.linspace(0.0, 1.0, 51)\n\n"
            "    def forward(self, preds):\n"
            "        return preds.unsqueeze(-1) > self.threshold\n",
            line=8,
            column=9,
            # No fix: the caller's thresholds may be an `nn.Parameter`.
        ),
        Invalid(
            # A tensor kept in a tuple: register_buffer takes a tensor, not a container: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Attention(nn.Module):\n"
            "    def __init__(self, dim):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(dim, dim)\n"
            '        self.cache = (False, {"keys": torch.tensor([])})\n'
            "\n"
            "    def forward(self, query):\n"
            "        key = self.proj(query)\n"
            "        if self.cache[0]:\n"
            '            key = torch.cat((self.cache[1]["keys"], key), dim=1)\n'
            "        return key\n",
            line=9,
            column=9,
        ),
        Invalid(
            # Re-assigned by unpacking in another method, where a buffer refuses a list: no fix.
            "import torch\n"
            "from torch import nn\n\n\n"
            "class Calibrated(nn.Module):\n"
            "    def __init__(self, dim, vocab):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(dim, vocab)\n"
            "        self.offset = torch.zeros(vocab)\n\n"
            "    def calibrate(self, logits):\n"
            "        self.offset, _ = logits.mean(0).tolist(), logits.std(0)\n\n"
            "    def forward(self, x):\n"
            "        return self.proj(x) - self.offset\n",
            line=9,
            column=9,
        ),
        Invalid(
            # Re-made in another method by a chained assignment of a fresh tensor: a buffer
            # takes it, so the fix stays.
            "import torch\nimport torch.nn as nn\n\n"
            "class Counter(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.weight = nn.Parameter(torch.randn(n))\n"
            "        self.seen = torch.zeros(n)\n\n"
            "    def reset(self):\n"
            "        seen = self.seen = torch.zeros(len(self.weight))\n"
            "        return seen\n\n"
            "    def forward(self, x):\n"
            "        return x * self.weight + self.seen\n",
            line=8,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Counter(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.weight = nn.Parameter(torch.randn(n))\n"
            '        self.register_buffer("seen", torch.zeros(n), persistent=False)\n\n'
            "    def reset(self):\n"
            "        seen = self.seen = torch.zeros(len(self.weight))\n"
            "        return seen\n\n"
            "    def forward(self, x):\n"
            "        return x * self.weight + self.seen\n",
            unsafe=True,
        ),
        Invalid(
            # Another test beside the type leaves a 1-D tensor on the other path.
            "from typing import List, Union\n\nimport torch\nimport torch.nn as nn\n\n"
            "class Dropper(nn.Module):\n"
            "    def __init__(self, rates: Union[float, List[float]] = 0.1):\n"
            "        super().__init__()\n"
            "        if isinstance(rates, list):\n"
            "            self.rates = torch.tensor(rates)\n"
            "        else:\n"
            "            self.rates = rates\n\n"
            "    def forward(self, x):\n"
            "        p = self.rates\n"
            "        if isinstance(p, torch.Tensor) and p.requires_grad:\n"
            "            p = p[torch.randint(len(p), (x.size(0), 1))].to(x.device)\n"
            "        return x * (torch.rand(x.shape, device=x.device) > p)\n",
            line=10,
            column=13,
            fixed="from typing import List, Union\n\nimport torch\nimport torch.nn as nn\n\n"
            "class Dropper(nn.Module):\n"
            "    def __init__(self, rates: Union[float, List[float]] = 0.1):\n"
            "        super().__init__()\n"
            "        if isinstance(rates, list):\n"
            '            self.register_buffer("rates", torch.tensor(rates), persistent=False)\n'
            "        else:\n"
            "            self.rates = rates\n\n"
            "    def forward(self, x):\n"
            "        p = self.rates\n"
            "        if isinstance(p, torch.Tensor) and p.requires_grad:\n"
            "            p = p[torch.randint(len(p), (x.size(0), 1))].to(x.device)\n"
            "        return x * (torch.rand(x.shape, device=x.device) > p)\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nfrom torch import nn\n\nclass Phases(nn.Module):\n"
            '    def __init__(self, n, device="cpu"):\n'
            "        super().__init__()\n"
            "        self.device = device\n"
            "        self.window = torch.ones(n, device=device)\n\n"
            "    def forward(self, x):\n"
            "        return x * self.window\n",
            line=8,
            column=9,
            fixed="import torch\nfrom torch import nn\n\nclass Phases(nn.Module):\n"
            '    def __init__(self, n, device="cpu"):\n'
            "        super().__init__()\n"
            "        self.device = device\n"
            '        self.register_buffer("window", torch.ones(n, device=device), '
            "persistent=False)\n"
            "\n"
            "    def forward(self, x):\n"
            "        return x * self.window\n",
            unsafe=True,
        ),
        Invalid(
            # A bound made by a function nested in `__init__` (one element of the tuple it
            # returns, a tensor unless the user gave none) and met in a hook the base
            # class's `forward` calls, past an `if self.low is None: return`: a 0-dim
            # bound of `clamp_min` must be on the input's device.
            "import torch\nimport torch.nn as nn\n\n"
            "class Transform(nn.Module):\n"
            "    def forward(self, obs):\n"
            "        return self._transform(obs)\n\n"
            "class Clip(Transform):\n"
            "    def __init__(self, low=None):\n"
            "        super().__init__()\n\n"
            "        def check(val):\n"
            "            if val is None:\n"
            "                return None, 0.0\n"
            "            if not isinstance(val, torch.Tensor):\n"
            "                val = torch.tensor(val)\n"
            "            return val, torch.finfo(val.dtype).eps\n\n"
            "        low, self.eps = check(low)\n"
            "        self.low = low\n\n"
            "    def _transform(self, obs):\n"
            "        if self.low is None:\n"
            "            return obs\n"
            "        return obs.clamp_min(self.low)\n",
            line=20,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Transform(nn.Module):\n"
            "    def forward(self, obs):\n"
            "        return self._transform(obs)\n\n"
            "class Clip(Transform):\n"
            "    def __init__(self, low=None):\n"
            "        super().__init__()\n\n"
            "        def check(val):\n"
            "            if val is None:\n"
            "                return None, 0.0\n"
            "            if not isinstance(val, torch.Tensor):\n"
            "                val = torch.tensor(val)\n"
            "            return val, torch.finfo(val.dtype).eps\n\n"
            "        low, self.eps = check(low)\n"
            '        self.register_buffer("low", low, persistent=False)\n\n'
            "    def _transform(self, obs):\n"
            "        if self.low is None:\n"
            "            return obs\n"
            "        return obs.clamp_min(self.low)\n",
            unsafe=True,
        ),
        Invalid(
            # A window made in `__init__` by the window function kept as a default.
            "import torch\nimport torch.nn as nn\n\n"
            "class Spectrum(nn.Module):\n"
            "    def __init__(self, n=512, window_fn=torch.hann_window):\n"
            "        super().__init__()\n"
            "        self.window = window_fn(n)\n\n"
            "    def forward(self, x):\n"
            "        return torch.stft(x, 512, window=self.window, return_complex=True)\n",
            line=7,
            column=9,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Spectrum(nn.Module):\n"
            "    def __init__(self, n=512, window_fn=torch.hann_window):\n"
            "        super().__init__()\n"
            '        self.register_buffer("window", window_fn(n), persistent=False)\n\n'
            "    def forward(self, x):\n"
            "        return torch.stft(x, 512, window=self.window, return_complex=True)\n",
            unsafe=True,
        ),
        Invalid(
            # A list repeated (`[t] * n`) is a container too: no `register_buffer` fix.
            "import torch\nimport torch.nn as nn\n\n\n"
            "class Head(nn.Module):\n"
            "    def __init__(self, strides):\n"
            "        super().__init__()\n"
            "        self.strides = strides\n"
            "        self.grids = [torch.zeros(1)] * len(strides)\n\n"
            "    def forward(self, xs):\n"
            "        return [self.decode(x, k) for k, x in enumerate(xs)]\n\n"
            "    def decode(self, output, k):\n"
            "        grid = self.grids[k]\n"
            "        if grid.shape[2:4] != output.shape[2:4]:\n"
            "            grid = torch.zeros(1, 1, *output.shape[2:4], 2).type(output.type())\n"
            "            self.grids[k] = grid\n"
            "        return output[..., :2] + grid\n",
            line=9,
            column=9,
        ),
    )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        scope = context.scope
        if scope.class_name is None or is_test_module(context.module_name):
            return  # a test's module runs where the test puts its inputs
        if isinstance(node, cst.Call):
            self._visit_call(node, context)
        elif isinstance(node, cst.FunctionDef):
            if scope.method == node.name.value and node.name.value in MODULE_MOVING_METHODS:
                context.note(_HANDLED, "*", per_class=True)
        elif isinstance(node, cst.Assign):
            if len(node.targets) == 1:
                self._visit_assignment(node, node.targets[0].target, node.value, context)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self._visit_assignment(node, node.target, node.value, context)

    def _visit_call(self, call: cst.Call, context: FileContext) -> None:
        func = call.func
        state = context.state(self)
        if _wraps(call, context):
            wrapped = first_positional(call)
            attribute = self_attribute(wrapped.value) if wrapped is not None else None
            if attribute is not None:
                context.note(_HANDLED, attribute, per_class=True)
        elif isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "__init__" and context.scope.method == "__init__":
                function = context.scope.function_name or ""
                _set(state, "initialised").add(function)
                given = _set(state, "given_to_base")  # the base may register them
                given.update(
                    f"{function}:{arg.value.value}"
                    for arg in call.args
                    if isinstance(arg.value, cst.Name)
                )
            elif method in _REGISTRARS and is_self(func.value):
                name = first_positional(call) or keyword_argument(call, "name")
                value = name.value if name is not None else None
                registered = value.evaluated_value if isinstance(value, cst.SimpleString) else None
                shown = registered if isinstance(registered, str) else "*"
                context.note(_HANDLED, shown, per_class=True)

    def _visit_assignment(
        self,
        statement: cst.Assign | cst.AnnAssign,
        target: cst.BaseExpression,
        value: cst.BaseExpression,
        context: FileContext,
    ) -> None:
        scope = context.scope
        state = context.state(self)
        attribute = attribute_of_self(target)
        if scope.function_name is None:
            if isinstance(target, cst.Name):  # `pe = None` in the class body
                _set(state, "class_attributes").add(f"{scope.class_name}.{target.value}")
            return
        wraps = isinstance(value, cst.Call) and _wraps(value, context)
        if attribute is not None and wraps:
            # A parameter in some configurations: a plain tensor in the others is its
            # stand-in (`self.bias = torch.zeros(n).requires_grad_(False)`).
            context.note(_HANDLED, attribute, per_class=True)
        locals_key = f"{scope.function_name}:"
        fresh_locals = state.setdefault("fresh", {})
        assert isinstance(fresh_locals, dict)
        fresh = _fresh(value, context, fresh_locals, locals_key)
        if isinstance(target, cst.Name):
            local = locals_key + target.value
            bound = _set(state, "bound")
            if (
                fresh is not None
                and local not in fresh_locals
                and _maybe_skipped(context)
                and (local in bound or _is_parameter(target.value, context))
            ):
                fresh = None  # `if w is None: w = torch.ones(n)`: maybe the caller's
            if fresh is not None:
                fresh_locals[local] = fresh
            else:
                fresh_locals.pop(local, None)
            bound.add(local)
            return
        if scope.method != "__init__" or not scope.has_self:
            if attribute is not None and (fresh is None or fresh.placed):
                # Re-created (or replaced) where it is used: the class manages it.
                context.note(_HANDLED, attribute, per_class=True)
            return
        if attribute is None:
            return
        if (
            isinstance(value, cst.Call)
            and moves_to_the_current_device(value)
            and under_a_device_flag(context.ancestors)
        ):
            # `if use_cuda: self.x = self.x.cuda()`: the class places its tensors by the
            # user's device flag, as it does its network; no `.to()` is what moves it.
            context.note(_HANDLED, attribute, per_class=True)
            return
        assigned = _set(state, "assigned")
        key = f"{scope.function_name}:{attribute}"
        reported = _set(state, "reported")
        if key in reported and self_attribute(value) == attribute:
            return  # the same tensor moved or reshaped (`self.k = self.k[None].to(d)`): once
        handed = isinstance(value, cst.Name) and (
            f"{scope.function_name}:{value.value}" in _set(state, "given_to_base")
        )
        meetings = () if handed else _meetings(value, context, runs_with_batch)
        scalar = fresh is not None and fresh.scalar
        if scalar:  # 0-dim: only where PyTorch refuses one
            meetings = tuple(meeting for meeting in meetings if refused_as_scalar(meeting))
        handoffs = (
            () if handed or meetings or scalar else _handoffs(value, context, runs_with_batch)
        )
        hooks: dict[str, Meeting | None] = {}
        if not (handed or meetings or handoffs):
            hooks, handoffs = _met_in_hooks(value, context, scalar)
        meetings = meetings or tuple(met for met in hooks.values() if met is not None)[:1]
        if not (meetings or handoffs):
            if fresh is None:
                assigned.add(key)  # a plain attribute: register_buffer would refuse the name
            return
        if _built_on_its_device(value, context):
            return
        closure = bool(meetings) and meetings[0].kind is MeetingKind.CLOSURE
        fixes = {}
        container = _is_container(value)
        cache = _reassigned_later(attribute, context)
        if meetings:
            made, meets, at = meetings[0].made, _shown(meetings[0].partner, context), meetings[0].at
        else:  # handed to another file's function: its summary decides (the first call's)
            handoff = handoffs[0][0]
            made, meets, at = handoff.made, "", handoff.call
        given = isinstance(made, cst.Param) or _may_be_given(value, context)
        fixable = (
            not (closure or container or cache or given)
            and not _set_by_a_method_init_calls(attribute, context)
            and scope.function_name in _set(state, "initialised")
            and key not in assigned
            and f"{scope.class_name}.{attribute}" not in _set(state, "class_attributes")
        )
        if fixable:
            fixes["buffer"] = _register_edits(statement, target, value, attribute)
        assigned.add(key)
        reported.add(key)
        context.report(
            self.code,
            target,
            end=value,
            data={
                "attribute": attribute,
                "kind": fresh.kind if fresh is not None else "unknown",
                "made": _made_by(made, context),
                "meets": meets,
                "callee": handoffs[0][0].callee.rpartition(".")[2] if handoffs else "",
                "closure": "yes" if closure else "",
                "container": "yes" if container else "",
                "cache": "yes" if cache else "",
                "given": "yes" if given else "",
                "hooks": " ".join(hooks),
                **{
                    f"meets {name}": _shown(met.partner, context)
                    for name, met in hooks.items()
                    if met is not None
                },
            },
            fixes=fixes,
            unless_noted=[(_HANDLED, attribute), (_HANDLED, "*")],
            lines={
                "line": at,
                **{f"line {name}": met.at for name, met in hooks.items() if met is not None},
                **{f"call {h.callee} {h.slot}": h.call for h, _ in reversed(handoffs)},
            },
            needs=tuple(
                dict.fromkeys(
                    need for handoff, flow in handoffs for need in handoff_needs(handoff, flow)
                )
            ),
        )

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        if not scope.model_code or candidate.scope.method != "__init__":
            return None
        data = candidate.data
        attribute = data["attribute"]
        shown, line = data["meets"], data["line"]
        hooks = data.get("hooks", "").split()
        met_there = False
        if hooks:
            class_name = candidate.scope.class_name or ""
            hook = next((h for h in hooks if index.on_forward_path(class_name, h)), None)
            if hook is None:
                return None  # met only in methods that do not run with the batch
            met_there = f"meets {hook}" in data  # else: handed on to another file there
            shown, line = data.get(f"meets {hook}", shown), data.get(f"line {hook}", line)
        meets = f"meets `{shown}` at line {line}"
        if data.get("callee") and not met_there:
            callee = data["callee"]
            # the first call whose callee's file shows it (a handoff to `self.log` need not)
            shown_by = next((need for need in candidate.needs if index.holds(need)), None)
            if shown_by is not None:
                callee = shown_by.function.rpartition(".")[2]
                line = data.get(f"call {shown_by.function} {shown_by.slot}", line)
            meets = f"meets the device in `{callee}()`, called at line {line}"
        if data["closure"]:
            return Resolution(
                f"`self.{attribute}` captures a tensor {data['made']} in `__init__`, not a "
                f"buffer: moving the module leaves it behind, and it {meets}; register the "
                "tensor as a buffer and read it from `self` in the function"
            )
        if data.get("container"):
            return Resolution(
                f"`self.{attribute}` holds a tensor {data['made']} in a container, not in a "
                f"buffer: moving the module leaves it behind, and it {meets}; keep the "
                "tensor in a buffer (`register_buffer` takes a tensor, not a container)"
            )
        message = (
            f"`self.{attribute}` is a plain tensor attribute ({data['made']}), not a buffer: "
            f"moving the module leaves it behind, and it {meets}"
        )
        if data.get("cache"):
            return Resolution(
                f"{message}; another method re-assigns it, so move it there or where it is "
                "used (a buffer would refuse anything but a tensor)"
            )
        register = f'`self.register_buffer("{attribute}", ..., persistent=False)`'
        if data.get("given"):
            return Resolution(
                f"`self.{attribute}` keeps a tensor {data['made']} in an attribute: unless it "
                f"is an `nn.Parameter`, moving the module leaves it behind, and it {meets}; "
                f"for a plain tensor use {register} (a buffer would take a parameter from "
                "the optimizer)"
            )
        caveat = ""
        if data["kind"] != "int":
            caveat = " (buffers follow dtype casts such as `.half()`)"
        fix = choose_fix(
            candidate,
            "buffer",
            Applicability.UNSAFE,
            f"Register `{attribute}` as a non-persistent buffer{caveat}",
        )
        return Resolution(f"{message}; use {register}{caveat}", fix)


def runs_with_batch(method: str) -> bool:
    """A method that computes with the batch on the module's device: the forward path,
    and a torchmetrics ``Metric``'s ``update``/``compute``."""
    return is_forward_method(method) or method in _METRIC_METHODS


def _meetings(
    value: cst.BaseExpression, context: FileContext, roots: Callable[[str], bool]
) -> tuple[Meeting, ...]:
    """Where what ``value`` holds, as ``__init__`` builds it, meets the device later: in
    the methods ``roots`` names and those they call."""
    return context.construction_meetings(value, roots)


def _met_in_hooks(
    value: cst.BaseExpression, context: FileContext, scalar: bool
) -> tuple[dict[str, Meeting | None], tuple[tuple[Handoff, FunctionFlow], ...]]:
    """Where what ``value`` holds, as ``__init__`` builds it, meets the device from the
    other methods of the class (not ``__init__``, not a batch method): a base class of
    another file may call one from its own batch methods (its ``training_step`` calling
    ``self.train_step_gen``), which the index alone knows (``on_forward_path``). Each
    method whose calls meet it, with the first meeting, and each other method that hands it
    to another file's function (``self.boost_rewards(r, a)`` of a base that reads it), with
    all those handoffs: ``resolve`` picks a method on the forward path."""
    owner = next(node for node in reversed(context.ancestors) if isinstance(node, cst.ClassDef))
    hooks = [
        method.name.value
        for method in owner.body.body
        if isinstance(method, cst.FunctionDef)
        and method.name.value != "__init__"
        and not runs_with_batch(method.name.value)
    ]
    found: dict[str, Meeting | None] = {}
    for name in hooks:
        met = _meetings(value, context, name.__eq__)
        if scalar:
            met = tuple(meeting for meeting in met if refused_as_scalar(meeting))
        if met:
            found[name] = met[0]
    if scalar:
        return found, ()
    handed: list[tuple[Handoff, FunctionFlow]] = []
    for name in hooks:
        handoffs = () if name in found else _handoffs(value, context, name.__eq__)
        if handoffs:
            found[name] = None
            handed += handoffs
    return found, tuple(handed)


def _handoffs(
    value: cst.BaseExpression, context: FileContext, roots: Callable[[str], bool]
) -> tuple[tuple[Handoff, FunctionFlow], ...]:
    """Where what ``value`` holds, as ``__init__`` builds it, is handed to functions of
    other files by the methods ``roots`` names and those they call."""
    return context.construction_handoffs(value, roots)


def _built_on_its_device(value: cst.BaseExpression, context: FileContext) -> bool:
    """``value`` is placed on the device the module keeps (``.to(self.device)``,
    ``device=device`` where ``__init__`` runs ``self.device = device``), and its methods
    place their tensors there too: a module built where it runs and kept there by its own
    code (``x.to(self.device)``). A ``.to()`` of the module would leave ``self.device``
    behind with the attribute: the attribute is not what breaks."""
    ancestors = context.ancestors
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    if function is None or classdef is None or not stores_its_device_parameter(function):
        return False
    kept = ("self.device", "device")
    placed = False
    for call in descendants(value):
        if not isinstance(call, cst.Call):
            continue
        keyword = keyword_argument(call, "device")
        first = first_positional(call)
        moved = isinstance(call.func, cst.Attribute) and call.func.attr.value == "to"
        if (keyword is not None and dotted_name(keyword.value) in kept) or (
            moved and first is not None and dotted_name(first.value) in kept
        ):
            placed = True
    return placed and places_with_its_device(classdef)


def _made_by(site: cst.CSTNode, context: FileContext) -> str:
    """Where the tensor was made, for the message: a factory, or the caller."""
    if isinstance(site, cst.Param):
        return f"given to `__init__` as `{site.name.value}`"
    if isinstance(site, cst.Call):
        return f"made by `{context.qualified_name(site.func) or dotted_name(site.func)}()`"
    return "made"


def _may_be_given(value: cst.BaseExpression, context: FileContext) -> bool:
    """``value`` may be what the caller gave as it is (``threshold or torch.linspace(...)``,
    ``w if w is not None else torch.ones(n)``, a parameter ``__init__`` never re-binds):
    perhaps an ``nn.Parameter``."""
    if isinstance(value, cst.Name):
        return _is_parameter(value.value, context) and not _rebound(value.value, context)
    if isinstance(value, cst.BooleanOperation):
        return _may_be_given(value.left, context) or _may_be_given(value.right, context)
    if isinstance(value, cst.IfExp):
        return _may_be_given(value.body, context) or _may_be_given(value.orelse, context)
    return False


def _rebound(name: str, context: FileContext) -> bool:
    """The function around the visited node surely re-binds ``name`` before it: a statement
    of its body, not in a branch (``low, eps = check(low)``). A re-binding only some paths
    run (``if w is None: w = torch.ones(n)``) leaves the caller's tensor on the others."""
    function = innermost_function(context.ancestors)
    statements = getattr(function.body, "body", ()) if function is not None else ()
    for statement in statements:
        if any(statement is node for node in context.ancestors):
            return False
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                targets = [target.target for target in small.targets]
            elif isinstance(small, cst.AnnAssign):
                targets = [small.target]
            else:
                continue
            if any(
                isinstance(found, cst.Name) and found.value == name
                for target in targets
                for found in unpacked(target)
            ):
                return True
    return False


def _shown(node: cst.CSTNode, context: FileContext) -> str:
    """The code of ``node`` on one line, cut short when long."""
    text = " ".join(context.code_for(node).split())
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _wraps(call: cst.Call, context: FileContext) -> bool:
    """``nn.Parameter(...)`` and the like (the cheap test on the name first)."""
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return last in _WRAPPER_NAMES and context.qualified_name(func) in _WRAPPERS


def _set(state: dict[str, object], key: str) -> set[str]:
    found = state.setdefault(key, set())
    assert isinstance(found, set)
    return found


def _is_container(value: cst.BaseExpression) -> bool:
    """A value ``register_buffer`` refuses (it takes a tensor or None): a cache of tensors,
    also one repeated or joined (``[torch.zeros(1)] * n``, ``[a] + [b]``)."""
    containers = (cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
    if isinstance(value, cst.BinaryOperation):
        return _is_container(value.left) or _is_container(value.right)
    return isinstance(value, containers)


def _reassigned_later(attribute: str, context: FileContext) -> bool:
    """Another method of the class assigns ``self.<attribute>`` something not surely a new
    tensor (``self.w, self.b = self._take(ids)``): a cache the class re-makes, which a
    buffer would refuse as soon as it is given anything but a tensor or None."""
    owner = next((n for n in reversed(context.ancestors) if isinstance(n, cst.ClassDef)), None)
    if owner is None:
        return False
    for node in descendants(owner.body):
        if not isinstance(node, cst.FunctionDef) or node.name.value == "__init__":
            continue
        for assignment in _assignments_of(attribute, node):
            unpacked = any(isinstance(t.target, (cst.Tuple, cst.List)) for t in assignment.targets)
            if unpacked or _fresh(assignment.value, context, {}, "") is None:
                return True
    return False


def _set_by_a_method_init_calls(attribute: str, context: FileContext) -> bool:
    """``__init__`` calls a method of the class (``self._init_drop(n)``) that assigns
    ``self.<attribute>`` too: the plain attribute may exist before the statement, where
    ``register_buffer`` would refuse the name (``KeyError: attribute already exists``)."""
    owner = next((n for n in reversed(context.ancestors) if isinstance(n, cst.ClassDef)), None)
    init = innermost_function(context.ancestors)
    if owner is None or init is None:
        return False
    called = {
        node.func.attr.value
        for node in descendants(init.body)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and is_self(node.func.value)
    }
    return any(
        isinstance(method, cst.FunctionDef)
        and method.name.value in called
        and any(_assignments_of(attribute, method))
        for method in owner.body.body
    )


def _assignments_of(attribute: str, method: cst.FunctionDef) -> Iterator[cst.Assign]:
    """The assignments in ``method`` to ``self.<attribute>`` (also by unpacking)."""
    for node in descendants(method.body):
        if isinstance(node, cst.Assign) and any(
            attribute_of_self(found) == attribute
            for target in node.targets
            for found in unpacked(target.target)
        ):
            yield node


def _maybe_skipped(context: FileContext) -> bool:
    """The visited statement sits in a branch or loop body of its function."""
    for node in reversed(context.ancestors):
        if isinstance(node, cst.FunctionDef):
            return False
        # Statements whose bodies may or may not run.
        if isinstance(node, (cst.If, cst.For, cst.While, cst.Try, cst.With, cst.Match)):
            return True
    return False


def _parameter(name: str, context: FileContext) -> cst.Param | None:
    """The parameter ``name`` of the function around the visited node, if it is one."""
    function = next(
        (node for node in reversed(context.ancestors) if isinstance(node, cst.FunctionDef)), None
    )
    if function is None:
        return None
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return next((param for param in every if param.name.value == name), None)


def _is_parameter(name: str, context: FileContext) -> bool:
    return _parameter(name, context) is not None


def _parameter_annotation(name: str, context: FileContext) -> cst.BaseExpression | None:
    param = _parameter(name, context)
    return param.annotation.annotation if param and param.annotation else None


def _register_edits(
    statement: cst.Assign | cst.AnnAssign,
    target: cst.BaseExpression,
    value: cst.BaseExpression,
    attribute: str,
) -> tuple[PendingEdit, ...]:
    """``self.x = v`` -> ``self.register_buffer("x", v, persistent=False)``.

    Only the text around the value changes (its own lines keep their indentation).
    A literal accelerator goes: a trailing ``.cuda()`` or ``.to("cuda")``, and the
    ``device="cuda"`` of the factory the value starts from. A buffer moves with the
    module, and on a machine without that accelerator the literal would fail.
    """
    opening = value.lpar[0] if value.lpar else value
    edits = [
        PendingEdit(target, "start", opening, "start", f'self.register_buffer("{attribute}", ')
    ]
    kept = value
    while _places_on_literal(kept):
        assert isinstance(kept, cst.Call) and isinstance(kept.func, cst.Attribute)
        kept = kept.func.value
    root: cst.BaseExpression = kept  # torch.ones(3, device="cuda") in ...float().view(1, 3)
    while dotted_name(root) is None or isinstance(root, cst.Call):
        if isinstance(root, cst.Call) and dotted_name(root.func) is not None:
            break
        if isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        elif isinstance(root, (cst.Subscript, cst.Attribute)):
            root = root.value
        else:
            break
    if isinstance(root, cst.Call) and len(root.args) > 1:
        last, previous = root.args[-1], root.args[-2]
        literal = last.keyword is not None and last.keyword.value == "device"
        if literal and device_literal(last.value) is not None and previous.star == "":
            edits.append(PendingEdit(previous.value, "end", last.value, "end", ""))
    after = kept if kept is not value else statement  # `(v)`: after its parenthesis
    edits.append(PendingEdit(after, "end", statement, "end", ", persistent=False)"))
    return tuple(edits)


def _places_on_literal(node: cst.BaseExpression) -> bool:
    """``x.cuda()``, ``x.cuda(1)`` or ``x.to("cuda:0")`` (nothing else): a literal placement."""
    if node.lpar or not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    method = node.func.attr.value
    if method == "cuda":
        return all(arg.keyword is None or arg.keyword.value == "device" for arg in node.args)
    if method != "to" or len(node.args) != 1:
        return False
    only = node.args[0]
    named_device = only.keyword is not None and only.keyword.value == "device"
    return (only.keyword is None or named_device) and device_literal(only.value) is not None


def _fresh(
    node: cst.BaseExpression, context: FileContext, fresh_locals: dict[object, object], key: str
) -> _Fresh | None:
    """The new CPU tensor ``node`` evaluates to, or None when it is not certainly one."""
    if isinstance(node, cst.Name):
        found = fresh_locals.get(key + node.value)
        return found if isinstance(found, _Fresh) else None
    if isinstance(node, cst.Call):
        return _fresh_call(node, context, fresh_locals, key)
    if isinstance(node, cst.Attribute):
        if node.attr.value in _TENSOR_VIEWS:
            return _fresh(node.value, context, fresh_locals, key)
        return None
    if isinstance(node, cst.Subscript):
        found = _fresh(node.value, context, fresh_locals, key)
        return changed(found, scalar=False) if found is not None else None
    if isinstance(node, cst.UnaryOperation):
        return _fresh(node.expression, context, fresh_locals, key)
    if isinstance(node, cst.IfExp):
        branches = [node.body, node.orelse]
        made = [_fresh(branch, context, fresh_locals, key) for branch in branches]
        found = [branch for branch in made if branch is not None]
        if not found or any(
            branch is None and not is_none(code)
            for branch, code in zip(made, branches, strict=True)
        ):
            return None  # `torch.tensor(m) if m else None` is one; `a if c else b` is not
        families = {branch.kind for branch in found}
        return changed(found[0], kind=families.pop() if len(families) == 1 else "unknown")
    if isinstance(node, cst.Comparison):
        left = _fresh(node.left, context, fresh_locals, key)
        return changed(left, kind="int") if left is not None else None
    if isinstance(node, cst.BinaryOperation):
        sides = [
            _fresh(node.left, context, fresh_locals, key),
            _fresh(node.right, context, fresh_locals, key),
        ]
        found = [side for side in sides if side is not None]
        if not found:
            return None
        kinds = [
            side.kind if side is not None else _literal_kind(operand)
            for side, operand in zip(sides, (node.left, node.right), strict=True)
        ]
        if isinstance(node.operator, cst.Divide) or "float" in kinds:
            kind = "float"
        else:
            kind = "int" if all(k == "int" for k in kinds) else "unknown"
        return _Fresh(
            kind,
            found[0].factory,
            any(side.placed for side in found),
            all(side.scalar for side in found),
        )
    return None


def _fresh_call(
    call: cst.Call, context: FileContext, fresh_locals: dict[object, object], key: str
) -> _Fresh | None:
    func = call.func
    qualified = context.qualified_name(func) or ""
    module, _, last = qualified.rpartition(".")
    if module == "torch" and (
        last in TENSOR_FACTORIES or last in ARRAY_TENSOR_FACTORIES or last in LEGACY_TENSOR_TYPES
    ):
        placed = keyword_argument(call, "device") is not None
        scalar = last in ("tensor", "as_tensor") and _is_python_scalar(call, context)
        return _Fresh(_factory_kind(call, last), qualified, placed, scalar)
    if module in _TENSOR_MODULES and last[:1].islower():
        first = first_positional(call)
        if first is None:
            return None
        data = first.value
        listed = isinstance(data, (cst.List, cst.Tuple))
        items = (
            [element.value for element in data.elements]
            if isinstance(data, (cst.List, cst.Tuple))
            else [data]
        )
        for item in items:  # torch.triu(torch.ones(n, n)), torch.stack([a, b])
            found = _fresh(item, context, fresh_locals, key)
            if found is not None:
                unary = not listed and len(call.args) == 1
                scalar = unary and (found.scalar or last in _REDUCTIONS)
                return changed(found, factory=qualified, scalar=scalar)
        return None
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if method in NON_TENSOR_RESULTS:
        return None
    receiver = _fresh(func.value, context, fresh_locals, key)
    if receiver is None:
        return None
    if method == "to":
        if casts_dtype_only(call):
            first = first_positional(call) or keyword_argument(call, "dtype")
            kind = _dtype_kind(first.value) if first is not None else "unknown"
            return changed(receiver, kind=kind)
        return changed(receiver, placed=True)
    if method in ("cuda", "type_as"):
        return changed(receiver, placed=True)
    if method in FLOAT_DTYPES:
        return changed(receiver, kind="float")  # .float(), .half(), .double()
    if method in INTEGER_DTYPES or method in ("byte", "char"):
        return changed(receiver, kind="int")  # .long(), .bool()
    if call.args:
        return changed(receiver, scalar=False)  # .view(-1), .repeat(n, 1)
    return changed(receiver, scalar=receiver.scalar or method in _REDUCTIONS)  # .sum()


def _factory_kind(call: cst.Call, factory: str) -> str:
    """``int`` when the factory's dtype is an integer or bool type, ``float``, or ``unknown``."""
    dtype = keyword_argument(call, "dtype")
    if dtype is not None:
        return _dtype_kind(dtype.value)
    if factory in INTEGER_FACTORIES or factory in INTEGER_TENSOR_TYPES:
        return "int"
    if factory in LEGACY_TENSOR_TYPES:
        return "float"
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if factory in ("arange", "range"):
        return "float" if any(_literal_kind(arg) == "float" for arg in positional) else "int"
    if factory == "full":
        fill = keyword_argument(call, "fill_value")
        value = fill.value if fill is not None else (positional[1] if len(positional) > 1 else None)
        return _literal_kind(value) if value is not None else "unknown"
    if factory in ("tensor", "as_tensor"):
        return _literal_kind(positional[0]) if positional else "unknown"
    if factory in ARRAY_TENSOR_FACTORIES:
        return "unknown"
    return "float"


def _dtype_kind(node: cst.BaseExpression) -> str:
    last = (dotted_name(node) or "").rpartition(".")[2]
    if last in INTEGER_DTYPES:
        return "int"
    if last in FLOAT_DTYPES:
        return "float"
    return "unknown"


def _literal_kind(node: cst.BaseExpression) -> str:
    """The dtype family torch infers for Python data: ``[1, 2]`` is int, ``[0.5]`` float."""
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float"
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "int"
    if isinstance(node, cst.UnaryOperation):
        return _literal_kind(node.expression)
    if isinstance(node, (cst.List, cst.Tuple)):
        kinds = {_literal_kind(element.value) for element in node.elements}
        if not kinds or "float" in kinds:
            return "float"  # torch.tensor([]) is float32
        return "int" if kinds == {"int"} else "unknown"
    return "unknown"


def _is_python_scalar(call: cst.Call, context: FileContext) -> bool:
    """``torch.tensor(0.5)``, or of a parameter annotated as a number: a 0-dim tensor."""
    first = first_positional(call)
    if first is None:
        return False
    value = first.value
    while isinstance(value, cst.UnaryOperation):
        value = value.expression
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if not isinstance(value, cst.Name):
        return False
    if value.value in ("True", "False"):
        return True
    annotation = _parameter_annotation(value.value, context)
    if annotation is None:
        return False
    names = annotation_names(annotation)
    return bool(names & _NUMBER_TYPES) and not names & _SEQUENCE_TYPES
