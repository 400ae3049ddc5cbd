"""DEV008: modules kept in a plain list, tuple or dict attribute of a model."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import FileFacts
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import (
    attribute_of_self,
    dotted_name,
    is_self,
    parameter_names,
    stateless_module,
)
from devlint.rules._anchors import innermost_function
from devlint.rules.base import (
    FileContext,
    Invalid,
    PendingEdit,
    Rule,
    RuleSettings,
    Sighting,
    choose_fix,
    replace,
)
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import (
    CHILD_CALLED_METHODS,
    MODULE_DICT_TAKEN_KEYS,
    TORCH_NN_NON_MODULES,
)

_REGISTERS = "registers_modules"
"""Note tag: the function registers modules by name (``add_module``, ``setattr``)."""
_PLAIN_ITEM = "plain_item"
"""Note tag: something that is not a module is added to the attribute."""
_REBOUND = "rebound"
"""Note tag: the attribute is assigned something else too (``nn.ModuleList(self.x)``)."""
_GIVEN = "given"
"""Note tag: ``__init__`` keeps what its caller gave in the attribute, a plain container
(``self.shared = [shared_layer]``): a module shared with others, which its owner registers,
kept out of this one's parameters on purpose, whatever the attribute is given later."""
_HANDED = "handed"
"""Note tag: the attribute is passed to a call (``nn.Sequential(*self.layers)``)."""
_MOVES_ITEMS = "moves_items"
"""Note tag (per class): the class moves the attribute's modules itself (``self.x[k].to(...)``)."""
_MOVES_ITSELF = "moves_itself"
"""Note tag (per file): the class moves its own modules outside ``__init__``
(``self.resampler.to(x.device)`` in ``forward``): its instances follow their inputs."""
_REGISTERING_METHODS = frozenset({"add_module", "register_module"})
_EMPTY_STATE = "empty"
"""State key: ``(function, attribute)`` -> the empty ``[]``/``{}`` assigned to it."""


def _only_given(value: cst.List | cst.Tuple, context: FileContext) -> bool:
    """``[shared_layer]`` in ``__init__``: every element is one of its parameters."""
    function = innermost_function(context.ancestors)
    if function is None or function.name.value != "__init__":
        return False
    given = parameter_names(function) - {"self"}
    return all(
        isinstance(element, cst.Element)
        and isinstance(element.value, cst.Name)
        and element.value.value in given
        for element in value.elements
    ) and bool(value.elements)


@dataclass(frozen=True)
class _Element:
    """What one element of a container is, as far as this file can tell."""

    torch: bool = False
    """A ``torch.nn`` module with parameters, buffers or train/eval behaviour."""
    stateless: bool = False
    """A ``torch.nn`` module without any (``nn.ReLU()``): harmless in a list."""
    project: tuple[str, ...] = ()
    """Qualified classes that the index must confirm as modules."""
    prefix: str | None = None
    """How the file spells ``torch.nn.`` in this element (``nn.``), if it does."""


class ModulesInPlainContainer(Rule):
    """## What it does
    Finds a list, tuple or dict of module instances (`nn.Linear(...)`, or a model
    class of the project) assigned to an attribute of a model (`self.layers = [...]`,
    comprehensions included), or an empty list or dict attribute that modules are
    appended to in the same method.

    ## Why is this bad?
    `nn.Module` registers submodules only when they are assigned directly or held
    by `nn.ModuleList`/`nn.ModuleDict`. Modules in a plain Python container are
    invisible to the model: `model.to(device)` and `model.cuda()` leave them on the
    CPU (`Expected all tensors to be on the same device ... cpu and cuda:0`), the
    optimizer built from `model.parameters()` never trains them, `state_dict()`
    does not save them, `model.eval()` leaves their dropout and batch norm in
    training mode, and DDP does not synchronise them.

    ## Example
    ```python
    class Model(nn.Module):
        def __init__(self, depth):
            super().__init__()
            self.layers = [nn.Linear(64, 64) for _ in range(depth)]
            self.heads = {"cls": nn.Linear(64, 10), "box": nn.Linear(64, 4)}
    ```

    ## Use instead
    ```python
    class Model(nn.Module):
        def __init__(self, depth):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(depth)])
            self.heads = nn.ModuleDict({"cls": nn.Linear(64, 10), "box": nn.Linear(64, 4)})
    ```

    ## Fix safety
    The fix wraps the container in `nn.ModuleList(...)` (lists and tuples) or
    `nn.ModuleDict(...)` (dicts), spelled the way the file already imports
    `torch.nn` (`nn.`, `torch.nn.`, or `ModuleList` imported by name); a file that
    imports none of these gets no fix. It is unsafe: the modules' parameters join
    `parameters()` (an optimizer created from it starts training them) and
    `state_dict()` gains their keys, so checkpoints saved before the fix no longer
    load with `strict=True`. No fix when a dict's keys cannot be `ModuleDict` keys
    (not strings, containing a dot, or names `ModuleDict` itself uses, such as
    `keys`), when an element may not be a module, or when an element's class defines
    its own `train` (`model.eval()` would call it as `train(False)` once registered,
    and an agent's `train(self, data, labels)` takes other arguments).

    Not flagged: containers of names (`[encoder, decoder]` is a common way to keep
    a frozen model out of `parameters()`), numbers, strings or functions
    (`[F.relu, torch.tanh]`); containers only of modules without parameters,
    buffers or train/eval behaviour (`[nn.ReLU(), nn.GELU()]`); `nn.ModuleList`
    and `nn.ModuleDict` themselves; local variables; attributes that the same
    method wraps or registers afterwards (`self.layers = nn.ModuleList(self.layers)`,
    `nn.Sequential(*self.layers)`, `self.add_module(...)`); containers whose
    modules the class moves itself (`self.feats[k].to(x.device)`), or whose modules
    are all of a class that moves its own submodules outside `__init__`
    (`self.resampler.to(x.device)` in `forward`: parameter-free transforms that
    follow their inputs); containers whose elements the same method hands on to
    another container or module, as a whole (`nn.ModuleList(list(self.x.values()))`) or
    one by one (`parts.append(layer)` for `nn.Sequential(*parts)`,
    `Wrapper(layer=layer)` in a loop over them, `self.layers[-1]`): they are
    registered there, and a `ModuleList` would register them twice, under new
    `state_dict()` keys; containers only of project modules without parameters,
    buffers or train/eval behaviour (their classes and project bases store only
    parameter-free `torch.nn` modules and plain values, and register nothing); classes
    whose `__setattr__` (their own or a project base's) raises on a module value
    (`if isinstance(value, nn.Module): raise ...`): they keep modules out of their
    attributes, and so out of registration, on purpose; and classes that are not models.
    """

    code = "DEV008"
    name = "modules-in-plain-container"
    summary = "Modules kept in a plain list, tuple or dict attribute of a model"
    fix_safety = "unsafe"
    node_types = ("Assign", "AnnAssign", "Call", "Arg")
    # No useful word: `self.blocks = [Block() for _ in range(n)]` with `Block` a model class
    # of another file (`from .block import Block`) is a finding in a file that names no
    # library. Only `self` is always there (a `self` method assigns `self.<attr>`), in
    # 93% of the corpus. A file can be skipped when none of its classes is a model per
    # the index: `resolve` drops every candidate whose class is not (`scope.model_code`).
    triggers = None
    only_in_model_code = True

    VALID = (
        # Registered containers, and containers of non-modules.
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n, encoder, decoder):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])\n"
        '        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2)})\n'
        "        self.frozen = [encoder, decoder]\n"
        "        self.dims = [64, 128, 256]\n"
        "        self.shape = (3, 224, 224)\n"
        '        self.names = ("a", "b")\n'
        "        self.activations = [F.relu, torch.tanh, nn.functional.gelu]\n"
        "        self.stateless = [nn.ReLU(), nn.GELU(), nn.Identity(), nn.MSELoss()]\n",
        # A local list, and lists wrapped or registered afterwards.
        "import torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        layers = [nn.Linear(4, 4) for _ in range(n)]\n"
        "        self.net = nn.Sequential(*layers)\n"
        "        self.blocks = [nn.Linear(4, 4) for _ in range(n)]\n"
        "        self.blocks = nn.ModuleList(self.blocks)\n"
        "        self.parts = [nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3)]\n"
        "        self.body = nn.Sequential(*self.parts)\n",
        "import torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.blocks = [nn.Linear(4, 4) for _ in range(n)]\n"
        "        for i, block in enumerate(self.blocks):\n"
        '            self.add_module(f"block{i}", block)\n',
        # The elements are registered through other containers: gathered for
        # `nn.Sequential`, or each wrapped by a module class.
        "import torch.nn as nn\n\n"
        "class Gated(nn.Module):\n"
        "    def __init__(self, inner):\n"
        "        super().__init__()\n"
        "        self.inner = inner\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, sizes, acts):\n"
        "        super().__init__()\n"
        "        self.linears = []\n"
        "        for a, b in zip(sizes, sizes[1:]):\n"
        "            self.linears.append(nn.Linear(a, b))\n"
        "        stages = []\n"
        "        for linear, act in zip(self.linears[:-1], acts):\n"
        "            stages.append(linear)\n"
        "            stages.append(act)\n"
        "        stages.append(self.linears[-1])\n"
        "        self.net = nn.Sequential(*stages)\n"
        "        self.convs = [nn.Conv1d(4, 4, 3) for _ in sizes]\n"
        "        self.gated = nn.ModuleList()\n"
        "        for i, conv in enumerate(self.convs):\n"
        "            self.gated.append(Gated(inner=conv))\n",
        # The dict's modules are registered through a `ModuleList` of its values: a
        # `ModuleDict` would register them twice, under new `state_dict()` keys.
        "import torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.warps = {}\n"
        '        self.warps["a"] = nn.Linear(4, 4)\n'
        "        self.projectors = nn.ModuleList(list(self.warps.values()))\n",
        # Modules of the project without parameters, buffers or train/eval behaviour.
        "from abc import ABC\n\nimport torch.nn as nn\n\n"
        "class Smooth(nn.Module):\n"
        "    def __init__(self, width):\n"
        "        super().__init__()\n"
        "        self.half = (width - 1) // 2\n"
        "        self.pool = nn.AvgPool1d(int(width), stride=1)\n\n"
        "    def forward(self, x):\n"
        "        return self.pool(nn.functional.pad(x, (self.half, self.half)))\n\n"
        "class Trend(Smooth, ABC):\n"
        "    pass\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self, widths):\n"
        "        super().__init__()\n"
        "        self.smoothers = [Smooth(w) for w in widths]\n"
        "        self.trends = [Trend(w) for w in widths]\n",
        # Not a model class; and an empty list that receives other things.
        "import torch.nn as nn\n\n"
        "class Builder:\n"
        "    def __init__(self):\n"
        "        self.layers = [nn.Linear(4, 4)]\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.hooks = []\n"
        "        self.hooks.append(nn.Linear(4, 4).register_forward_hook(print))\n"
        "        self.cache = []\n"
        "        self.cache.append(None)\n",
        # A class of the project that is not a module.
        "import torch.nn as nn\n\n"
        "class Config:\n"
        "    pass\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.configs = [Config(), Config()]\n",
        # Classes, torch objects that are no modules, and outputs kept by `forward`.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(4, 4)\n"
        "        self.kinds = (nn.Linear, nn.Conv2d)\n"
        "        self.shapes = [torch.Size([4, 4])]\n"
        "        self.outputs = []\n\n"
        "    def forward(self, x):\n"
        "        self.outputs.append(self.proj(x))\n"
        "        return x\n",
        # Modules that follow their inputs by themselves: the class moves each one, or
        # they move their own submodules in `forward` (parameter-free resamplers).
        "import torch\nimport torch.nn as nn\nimport torchaudio\n\n"
        "class Embed(nn.Module):\n"
        "    def __init__(self, kind):\n"
        "        super().__init__()\n"
        '        self.register_buffer("phi", torch.linspace(0, 1, 8))\n\n'
        "class Resample(nn.Module):\n"
        "    def __init__(self, new_freq):\n"
        "        super().__init__()\n"
        "        self.kernel = torchaudio.transforms.Resample(100, new_freq)\n\n"
        "    def forward(self, x):\n"
        "        self.kernel.to(x.device)\n"
        "        return self.kernel(x)\n\n"
        "class Perturb(nn.Module):\n"
        "    def __init__(self, speeds):\n"
        "        super().__init__()\n"
        "        self.resamplers = [Resample(speed) for speed in speeds]\n"
        "        self.feats = {}\n"
        '        for kind in ("polar", "cart"):\n'
        "            self.feats[kind] = nn.Sequential(Embed(kind))\n\n"
        "    def forward(self, x, i):\n"
        "        for kind in self.feats:\n"
        "            self.feats[kind].to(x.device)\n"
        "        return self.resamplers[i](x)\n",
        # A shared module the caller owns, kept out of this one's parameters on purpose:
        # a later rebuild of the same attribute keeps it so (the caller's is registered).
        "import torch.nn as nn\n\n"
        "class Layer(nn.Module):\n"
        "    def __init__(self, shared_compress):\n"
        "        super().__init__()\n"
        "        self.shared_compress = [shared_compress]\n\n"
        "    def upgrade(self, width):\n"
        "        self.shared_compress = [nn.Linear(width, width)]\n",
        # A base whose `__setattr__` refuses modules: its classes keep them out of their
        # attributes, and out of registration, on purpose.
        "import torch\nimport torch.nn as nn\n\n"
        "class Chain(nn.Module):\n"
        "    def __setattr__(self, name, value):\n"
        "        if isinstance(value, torch.nn.Module):\n"
        '            raise ValueError("use append")\n'
        "        super().__setattr__(name, value)\n\n"
        "class Adapter(Chain):\n"
        "    def __init__(self, target):\n"
        "        super().__init__()\n"
        "        self._passthrough = [nn.Linear(4, 4)]\n",
    )
    INVALID = (
        Invalid(
            "import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layers = [nn.Linear(4, 4) for _ in range(n)]\n",
            line=6,
            column=23,
            fixed="import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            '        self.heads = {"cls": torch.nn.Linear(4, 2), "box": torch.nn.Linear(4, 4)}\n',
            line=7,
            column=22,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.heads = torch.nn.ModuleDict("
            '{"cls": torch.nn.Linear(4, 2), "box": torch.nn.Linear(4, 4)})\n',
            unsafe=True,
        ),
        Invalid(
            # A model class of the project, in a tuple without parentheses.
            "from torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.norm = nn.LayerNorm(4)\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.stages = Block(), Block()\n",
            line=11,
            column=23,
            fixed="from torch import nn\n\n"
            "class Block(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.norm = nn.LayerNorm(4)\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.stages = nn.ModuleList((Block(), Block()))\n",
            unsafe=True,
        ),
        Invalid(
            # Modules appended to an empty list.
            "import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, sizes):\n"
            "        super().__init__()\n"
            "        self.layers = []\n"
            "        for a, b in zip(sizes, sizes[1:]):\n"
            "            self.layers.append(nn.Linear(a, b))\n",
            line=6,
            column=23,
            fixed="import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, sizes):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList()\n"
            "        for a, b in zip(sizes, sizes[1:]):\n"
            "            self.layers.append(nn.Linear(a, b))\n",
            unsafe=True,
        ),
        Invalid(
            # Integer keys cannot be ModuleDict keys: reported without a fix.
            "import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.by_level = {0: nn.Linear(4, 4), 1: nn.Dropout(0.1)}\n",
            line=6,
            column=25,
        ),
        Invalid(
            # Modules imported by name, without `nn` or `torch` to spell ModuleList: no fix.
            "from torch.nn import Linear, Module\n\n"
            "class M(Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.layers = [Linear(4, 4), Linear(4, 2)]\n",
            line=6,
            column=23,
        ),
        Invalid(
            # A dict filled by key, `torch.nn` imported under another name.
            "from torch import nn as tnn\n\n"
            "class Heads(tnn.Module):\n"
            "    def __init__(self, tasks):\n"
            "        super().__init__()\n"
            "        self.heads = {}\n"
            "        for task, size in tasks.items():\n"
            "            self.heads[task] = tnn.Linear(16, size)\n",
            line=6,
            column=22,
            fixed="from torch import nn as tnn\n\n"
            "class Heads(tnn.Module):\n"
            "    def __init__(self, tasks):\n"
            "        super().__init__()\n"
            "        self.heads = tnn.ModuleDict()\n"
            "        for task, size in tasks.items():\n"
            "            self.heads[task] = tnn.Linear(16, size)\n",
            unsafe=True,
        ),
        Invalid(
            # Moving its submodules in `__init__` does not make a class follow its inputs.
            "import torch.nn as nn\n\n"
            "class Block(nn.Module):\n"
            "    def __init__(self, device):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            "        self.proj.to(device)\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, device):\n"
            "        super().__init__()\n"
            "        self.blocks = [Block(device), Block(device)]\n",
            line=12,
            column=23,
            fixed="import torch.nn as nn\n\n"
            "class Block(nn.Module):\n"
            "    def __init__(self, device):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            "        self.proj.to(device)\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, device):\n"
            "        super().__init__()\n"
            "        self.blocks = nn.ModuleList([Block(device), Block(device)])\n",
            unsafe=True,
        ),
        Invalid(
            # Elements read in `__init__` to be initialised, not registered anywhere.
            "import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layers = [nn.Linear(4, 4) for _ in range(n)]\n"
            "        for layer in self.layers:\n"
            "            nn.init.zeros_(layer.bias)\n"
            "        self.last = self.layers[-1]\n"
            "        print(self.layers[0])\n",
            line=6,
            column=23,
            fixed="import torch.nn as nn\n\n"
            "class M(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(n)])\n"
            "        for layer in self.layers:\n"
            "            nn.init.zeros_(layer.bias)\n"
            "        self.last = self.layers[-1]\n"
            "        print(self.layers[0])\n",
            unsafe=True,
        ),
        Invalid(
            # A module of the project handed one in, and calling it.
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Wrap(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.inner = inner\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.inner(x)\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.wraps = [Wrap(inner)]\n",
            line=15,
            column=22,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Wrap(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.inner = inner\n"
            "\n"
            "    def forward(self, x):\n"
            "        return self.inner(x)\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.wraps = nn.ModuleList([Wrap(inner)])\n",
            unsafe=True,
        ),
        Invalid(
            # A module of the project that registers a buffer.
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Scale(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.register_buffer('scale', torch.ones(1))\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.scales = [Scale(), Scale()]\n",
            line=12,
            column=23,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Scale(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.register_buffer('scale', torch.ones(1))\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.scales = nn.ModuleList([Scale(), Scale()])\n",
            unsafe=True,
        ),
        Invalid(
            # A module of the project whose base has a dropout (train/eval behaviour).
            "import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Drop(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.drop = nn.Dropout(0.1)\n"
            "\n"
            "class Drop2(Drop):\n"
            "    pass\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.drops = [Drop2()]\n",
            line=15,
            column=22,
            fixed="import torch\n"
            "import torch.nn as nn\n"
            "\n"
            "class Drop(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.drop = nn.Dropout(0.1)\n"
            "\n"
            "class Drop2(Drop):\n"
            "    pass\n"
            "\n"
            "class M(nn.Module):\n"
            "    def __init__(self, inner):\n"
            "        super().__init__()\n"
            "        self.drops = nn.ModuleList([Drop2()])\n",
            unsafe=True,
        ),
        Invalid(
            # Pretrained models loaded in a comprehension.
            "import torch.nn as nn\nfrom transformers import AutoModel\n\n"
            "class Ensemble(nn.Module):\n"
            "    def __init__(self, names):\n"
            "        super().__init__()\n"
            "        self.members = [AutoModel.from_pretrained(name) for name in names]\n",
            line=7,
            column=24,
            fixed="import torch.nn as nn\nfrom transformers import AutoModel\n\n"
            "class Ensemble(nn.Module):\n"
            "    def __init__(self, names):\n"
            "        super().__init__()\n"
            "        self.members = nn.ModuleList("
            "[AutoModel.from_pretrained(name) for name in names])\n",
            unsafe=True,
        ),
        # The fish define their own `train(src, labels)`: registered, `school.eval()`
        # would call it as `train(False)`. Flagged, but no fix.
        Invalid(
            "import torch.nn as nn\n\n"
            "class Fish(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.body = nn.Linear(4, 4)\n\n"
            "    def train(self, src, labels):\n"
            "        return self.body(src) - labels\n\n"
            "class School(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.fish = [Fish() for _ in range(n)]\n",
            line=14,
            column=21,
        ),
    )

    # Before parsing -----------------------------------------------------------------------

    screen_types = (ast.Assign, ast.AnnAssign, ast.Call)

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """A candidate is a container of what may be module instances (``_classify``)
        assigned to ``self.x``, or one such instance added to ``self.x`` (``append``,
        ``insert``, ``self.x[k] =``) where ``self.x = []`` or ``{}`` too (in any method and
        order here). Imports only add names, so the file's final aliases hold every name
        an import had bound when the traversal resolves a callee."""
        aliases = found.facts.aliases
        emptied: set[str] = set()
        filled: set[str] = set()
        for node in found.of_type(ast.Assign, ast.AnnAssign):
            assert isinstance(node, (ast.Assign, ast.AnnAssign))
            if node.value is None:
                continue
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Subscript):
                    attribute = _self_attribute(target.value)
                    if attribute is not None and _may_be_module(node.value, aliases):
                        filled.add(attribute)
                    continue
                attribute = _self_attribute(target)
                if attribute is None:
                    continue
                if _is_empty(node.value):
                    emptied.add(attribute)
                elif any(_may_be_module(item, aliases) for item in _contained(node.value)):
                    return True
        for call in found.of_type(ast.Call):
            assert isinstance(call, ast.Call)
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in ("append", "insert"):
                attribute = _self_attribute(func.value)
                arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
                if attribute is not None and any(_may_be_module(a, aliases) for a in arguments):
                    filled.add(attribute)
        return bool(emptied & filled)

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        # `resolve` keeps only candidates in methods (`self.x = ...`) of model classes.
        return any(index.class_kind(found.name).model for found in facts.classes)

    # Visiting -----------------------------------------------------------------------------

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if not context.scope.has_self:
            return
        if isinstance(node, cst.Call):
            self._visit_call(node, context)
        elif isinstance(node, cst.Arg):
            attribute = attribute_of_self(_contents(node.value))
            if attribute is not None and _wraps(node, context):
                context.note(_HANDED, attribute)
            elif attribute is None:
                attribute = _element_of(node.value, context.ancestors)
                if attribute is not None and _hands_on(node, context):
                    context.note(_HANDED, attribute)
        elif isinstance(node, cst.Assign):
            # `self.a = self.b = [...]`: one container, one finding.
            targets = [target.target for target in node.targets]
            first = next((t for t in targets if attribute_of_self(t) is not None), targets[0])
            self._visit_assignment(first, node.value, context)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self._visit_assignment(node.target, node.value, context)

    def _visit_assignment(
        self, target: cst.BaseExpression, value: cst.BaseExpression, context: FileContext
    ) -> None:
        if isinstance(target, cst.Subscript):  # self.heads["a"] = nn.Linear(...)
            attribute = attribute_of_self(target.value)
            if attribute is not None:
                self._added(attribute, value, context)
            return
        attribute = attribute_of_self(target)
        if attribute is None:
            return
        if isinstance(value, (cst.List, cst.Dict)) and not value.elements:
            empty = context.state(self).setdefault(_EMPTY_STATE, {})
            assert isinstance(empty, dict)
            empty[(context.scope.function_name, attribute)] = value
            return
        if isinstance(value, (cst.List, cst.Tuple)) and _only_given(value, context):
            context.note(_GIVEN, attribute, per_class=True)
        elif isinstance(value, (cst.List, cst.Tuple)):
            elements = [_classify_starrable(element, context) for element in value.elements]
            self._container(attribute, value, "list", elements, True, context)
        elif isinstance(value, cst.ListComp):
            self._container(
                attribute, value, "list", [_classify(value.elt, context)], True, context
            )
        elif isinstance(value, cst.Dict):
            elements = []
            keys_ok = True
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    elements.append(_classify(element.value, context))
                    keys_ok = keys_ok and _usable_key(element.key)
                else:
                    elements.append(None)  # **other
            self._container(attribute, value, "dict", elements, keys_ok, context)
        elif isinstance(value, cst.DictComp):
            keys_ok = _usable_key(value.key) and not _counts(value.key, value.for_in)
            self._container(
                attribute, value, "dict", [_classify(value.value, context)], keys_ok, context
            )
        else:
            context.note(_REBOUND, attribute)

    def _container(
        self,
        attribute: str,
        value: cst.BaseExpression,
        kind: str,
        elements: list[_Element | None],
        keys_ok: bool,
        context: FileContext,
    ) -> None:
        modules = [element for element in elements if element is not None]
        if not any(element.torch or element.project for element in modules):
            return
        complete = len(modules) == len(elements) and keys_ok
        wrapper = _wrapper(kind, modules, context)
        # A tuple's parentheses are outside its position: anchor to them, or add them.
        first: cst.CSTNode = value
        last: cst.CSTNode = value
        opening, closing = "(", ")"
        if isinstance(value, cst.Tuple):
            if value.lpar:
                first, last = value.lpar[0], value.rpar[-1]
            else:
                opening, closing = "((", "))"
        fixes: dict[str, tuple[PendingEdit, ...]] = {}
        if complete and wrapper is not None:
            fixes["wrap"] = (
                PendingEdit(first, "start", first, "start", f"{wrapper}{opening}"),
                PendingEdit(last, "end", last, "end", closing),
            )
        self._report(attribute, (first, last), kind, modules, complete, fixes, context)

    def _visit_call(self, call: cst.Call, context: FileContext) -> None:
        func = call.func
        if isinstance(func, cst.Name) and func.value == "setattr":
            if call.args and is_self(call.args[0].value):
                context.note(_REGISTERS, "self")
            return
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method == "to":
            self._moved(func.value, context)
            return
        if method in _REGISTERING_METHODS and is_self(func.value):
            context.note(_REGISTERS, "self")
            return
        if method not in ("append", "insert") or not call.args:
            return
        attribute = attribute_of_self(func.value)
        if attribute is not None:
            self._added(attribute, call.args[-1].value, context)

    @staticmethod
    def _moved(receiver: cst.BaseExpression, context: FileContext) -> None:
        """``self.x[k].to(...)``: the class places the container's modules itself.
        ``self.sub.to(...)`` or ``self.to(...)`` after ``__init__``: the class's instances
        move themselves where their inputs are, wherever they are kept."""
        if isinstance(receiver, cst.Subscript):
            attribute = attribute_of_self(receiver.value)
            if attribute is not None:
                context.note(_MOVES_ITEMS, attribute, per_class=True)
            return
        owner = context.scope.class_name
        if owner is None or context.scope.method == "__init__":
            return
        if is_self(receiver) or attribute_of_self(receiver) is not None:
            context.note(_MOVES_ITSELF, owner, per_file=True)

    def _added(self, attribute: str, item: cst.BaseExpression, context: FileContext) -> None:
        """``self.x.append(item)`` or ``self.x[k] = item`` after ``self.x = []`` / ``{}``."""
        empty = context.state(self).get(_EMPTY_STATE)
        assert empty is None or isinstance(empty, dict)
        key = (context.scope.function_name, attribute)
        value = empty.get(key) if empty else None
        if empty is None or value is None:
            return
        element = _classify(item, context)
        if element is None or not (element.torch or element.project):
            if element is None:
                context.note(_PLAIN_ITEM, attribute)
            return
        del empty[key]  # one finding per attribute
        kind = "dict" if isinstance(value, cst.Dict) else "list"
        wrapper = _wrapper(kind, [element], context)
        fixes: dict[str, tuple[PendingEdit, ...]] = {}
        if wrapper is not None:
            fixes["wrap"] = (replace(value, f"{wrapper}()"),)
        self._report(attribute, (value, value), kind, [element], True, fixes, context)

    def _report(
        self,
        attribute: str,
        span: tuple[cst.CSTNode, cst.CSTNode],
        kind: str,
        modules: list[_Element],
        complete: bool,
        fixes: dict[str, tuple[PendingEdit, ...]],
        context: FileContext,
    ) -> None:
        projects = sorted({name for element in modules for name in element.project})
        unless = [
            (_REGISTERS, "self"),
            (_PLAIN_ITEM, attribute),
            (_REBOUND, attribute),
            (_HANDED, attribute),
            (_MOVES_ITEMS, attribute),
            (_GIVEN, attribute),
        ]
        if len(projects) == 1 and not any(element.torch for element in modules):
            unless.append((_MOVES_ITSELF, projects[0]))  # all of one class, which moves itself
        context.report(
            self.code,
            span[0],
            end=span[1],
            data={
                "attribute": attribute,
                "kind": kind,
                "torch": "1" if any(element.torch for element in modules) else "",
                "projects": " ".join(projects),
                "complete": "1" if complete else "",
                "module": context.module_name,
            },
            fixes=fixes,
            unless_noted=unless,
        )

    # Resolving ----------------------------------------------------------------------------

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        owner = candidate.scope.class_name
        if not scope.model_code or owner is None or index.refuses_modules(owner):
            return None
        data = candidate.data
        near = data["module"]
        projects = data["projects"].split()
        confirmed = [name for name in projects if index.is_module_class(name, near)]
        if not data["torch"] and all(index.holds_no_state(name, near) for name in confirmed):
            return None  # no module, or only parameter-free ones of the project
        wrapper = "nn.ModuleDict" if data["kind"] == "dict" else "nn.ModuleList"
        what = "dict" if data["kind"] == "dict" else "list"
        message = (
            f"`self.{data['attribute']}` holds modules in a plain {what}: `.to()`, "
            f"`parameters()`, `state_dict()` and `.eval()` do not see them; use `{wrapper}`"
        )
        fix = None
        # registered, a class's own `train(data, labels)` would be called as `train(mode)`
        retrains = any(index.overrides(name, near, CHILD_CALLED_METHODS) for name in confirmed)
        if data["complete"] and len(confirmed) == len(projects) and not retrains:
            fix = choose_fix(candidate, "wrap", Applicability.UNSAFE, f"Wrap in `{wrapper}`")
        return Resolution(message, fix)


def _classify_starrable(element: cst.BaseElement, context: FileContext) -> _Element | None:
    if isinstance(element, cst.StarredElement):
        return None
    return _classify(element.value, context)


def _classify(node: cst.BaseExpression, context: FileContext) -> _Element | None:
    """A module instance (``nn.Linear(4, 4)``, ``Block(d)``), or None when it is not one."""
    if isinstance(node, cst.IfExp):
        body, orelse = _classify(node.body, context), _classify(node.orelse, context)
        if body is None or orelse is None:
            return None
        return _Element(
            torch=body.torch or orelse.torch,
            stateless=body.stateless and orelse.stateless,
            project=body.project + orelse.project,
            prefix=body.prefix or orelse.prefix,
        )
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "from_pretrained":
        receiver = context.qualified_name(func.value)
        return _Element(project=(receiver,)) if receiver else None
    dotted = dotted_name(func)
    if dotted is None:
        return None
    spelled, _, short = dotted.rpartition(".")
    if not short[:1].isupper():
        return None
    qualified = context.qualified_name(func)
    if qualified is None:
        if spelled:
            return None  # obj.Thing(...): an attribute of something unknown
        qualified = f"{context.module_name}.{short}"
    if qualified.startswith("torch.nn."):
        name = qualified.removeprefix("torch.nn.")
        if "." in name or name in TORCH_NN_NON_MODULES:
            return None
        prefix = f"{spelled}." if spelled else None
        if stateless_module(node, name):
            return _Element(stateless=True, prefix=prefix)
        return _Element(torch=True, prefix=prefix)
    if qualified.startswith("torch."):
        return None
    return _Element(project=(qualified,))


def _self_attribute(node: ast.expr) -> str | None:
    """``x`` for exactly ``self.x`` (``attribute_of_self``, on ``ast``)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


def _is_empty(value: ast.expr) -> bool:
    """``[]`` or ``{}``."""
    return (isinstance(value, ast.List) and not value.elts) or (
        isinstance(value, ast.Dict) and not value.keys
    )


def _contained(value: ast.expr) -> Iterator[ast.expr]:
    """The elements ``_visit_assignment`` classifies in a container literal or comprehension."""
    if isinstance(value, (ast.List, ast.Tuple)):
        yield from value.elts
    elif isinstance(value, ast.Dict):
        yield from value.values
    elif isinstance(value, ast.ListComp):
        yield value.elt
    elif isinstance(value, ast.DictComp):
        yield value.value


def _may_be_module(node: ast.expr, aliases: Mapping[str, str]) -> bool:
    """Whether ``_classify`` may find a module instance here: ``Block(d)``, ``nn.Linear(...)``
    with ``nn`` imported, ``Auto.from_pretrained(...)`` with ``Auto`` imported."""
    if isinstance(node, ast.IfExp):
        return _may_be_module(node.body, aliases) and _may_be_module(node.orelse, aliases)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "from_pretrained":
        callee = dotted(func.value)
    else:
        callee = dotted(func)
        if callee is None or not callee.rpartition(".")[2][:1].isupper():
            return False
        if "." not in callee:
            return True  # a class of this module, or imported by name
    return callee is not None and callee.partition(".")[0] in aliases


def _usable_key(key: cst.BaseExpression) -> bool:
    """Whether ``key`` may be a ``ModuleDict`` key: literal strings must be names it accepts."""
    if isinstance(key, (cst.Integer, cst.Float, cst.Imaginary, cst.Tuple)):
        return False
    if isinstance(key, cst.Name) and key.value in ("None", "True", "False"):
        return False
    if isinstance(key, (cst.SimpleString, cst.ConcatenatedString)):
        value = key.evaluated_value
        if not isinstance(value, str):
            return False
        return bool(value) and "." not in value and value not in MODULE_DICT_TAKEN_KEYS
    return True


def _counts(key: cst.BaseExpression, loop: cst.CompFor) -> bool:
    """``{i: ... for i in range(n)}`` or ``for i, x in enumerate(...)``: integer keys."""
    if not isinstance(key, cst.Name):
        return False
    iterator = loop.iter
    callee = dotted_name(iterator.func) if isinstance(iterator, cst.Call) else None
    target = loop.target
    if callee == "range":
        return isinstance(target, cst.Name) and target.value == key.value
    if callee == "enumerate" and isinstance(target, cst.Tuple) and target.elements:
        counter = target.elements[0].value
        return isinstance(counter, cst.Name) and counter.value == key.value
    return False


def _wrapper(kind: str, modules: list[_Element], context: FileContext) -> str | None:
    """``nn.ModuleList`` spelled as this file spells ``torch.nn`` (as its modules do, else
    ``nn.``, ``torch.nn.``, or the class imported by name); None if it cannot."""
    name = "ModuleDict" if kind == "dict" else "ModuleList"
    for element in modules:
        if element.prefix is not None:
            return f"{element.prefix}{name}"
    if context.qualified_name(cst.Name("nn")) == "torch.nn":
        return f"nn.{name}"
    if context.qualified_name(cst.Name("torch")) == "torch":
        return f"torch.nn.{name}"
    if context.qualified_name(cst.Name(name)) == f"torch.nn.{name}":
        return name
    return None


def _element_of(value: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> str | None:
    """``x`` when ``value`` is one of ``self.x``'s elements: ``self.x[-1]``, or the variable
    of a loop over it (``for layer in self.x``, ``zip(self.x[:-1], ...)``, ``enumerate``)."""
    if isinstance(value, cst.Subscript):
        return attribute_of_self(value.value)
    if not isinstance(value, cst.Name):
        return None
    for position, node in enumerate(ancestors[:-1]):
        if isinstance(node, cst.For) and ancestors[position + 1] is node.body:
            found = _looped_attribute(node.target, node.iter, value.value)
            if found is not None:
                return found
    return None


def _looped_attribute(
    target: cst.BaseExpression, iterable: cst.BaseExpression, name: str
) -> str | None:
    """The attribute whose elements ``for <target> in <iterable>`` binds to ``name``."""
    if isinstance(target, cst.Name):
        return _iterated(iterable) if target.value == name else None
    if not isinstance(target, cst.Tuple) or not isinstance(iterable, cst.Call):
        return None
    callee = dotted_name(iterable.func)
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
    if name not in names or any(arg.keyword or arg.star for arg in iterable.args):
        return None
    where = names.index(name)
    if callee == "zip" and where < len(iterable.args):
        return _iterated(iterable.args[where].value)
    if callee == "enumerate" and where == 1 and iterable.args:
        return _iterated(iterable.args[0].value)
    return None


def _iterated(iterable: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x`` or a slice of it."""
    if isinstance(iterable, cst.Subscript):
        iterable = iterable.value
    return attribute_of_self(iterable)


def _hands_on(arg: cst.Arg, context: FileContext) -> bool:
    """An element given to a class (``Block(layer=layer)``) or collected in another list
    (``parts.append(layer)``, later ``nn.Sequential(*parts)``): registered through it."""
    call = context.ancestors[-1] if context.ancestors else None
    if not isinstance(call, cst.Call):
        return False
    callee = dotted_name(call.func) or ""
    last = callee.rpartition(".")[2]
    return last[:1].isupper() or last in ("append", "insert", "extend")


def _contents(value: cst.BaseExpression) -> cst.BaseExpression:
    """``self.x`` for its elements as a sequence: ``list(self.x.values())``,
    ``tuple(self.x)``, ``self.x.values()`` (what a module container registers)."""
    while isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "values" and not value.args:
            value = func.value
        elif dotted_name(func) in ("list", "tuple") and len(value.args) == 1:
            value = value.args[0].value
        else:
            break
    return value


def _wraps(arg: cst.Arg, context: FileContext) -> bool:
    """``nn.Sequential(*self.x)``, ``nn.ModuleList(self.x)``, ``blocks.extend(self.x)``: the
    modules get registered through another container."""
    if arg.star == "*":
        return True
    ancestors = context.ancestors
    call = ancestors[-1] if ancestors else None
    if not isinstance(call, cst.Call):
        return False
    callee = dotted_name(call.func) or ""
    last = callee.rpartition(".")[2]
    return last[:1].isupper() or last in ("extend", "update", *_REGISTERING_METHODS)
