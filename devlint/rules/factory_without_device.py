"""DEV003: a tensor created in a forward path without ``device=``."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import FileFacts
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import chain_root, dotted_name
from devlint.rules._devices import (
    BINDING_TYPES,
    Bindings,
    casts_dtype_only,
    first_positional,
    has_double_star,
    keyword_argument,
)
from devlint.rules.base import (
    FileContext,
    Invalid,
    PendingEdit,
    Rule,
    RuleSettings,
    Sighting,
    borrowed_device_fix,
    choose_fix,
    insert_after,
)
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import (
    CPU_CONSUMER_METHODS,
    CPU_LIBRARIES,
    CPU_RESULT_METHODS,
    DATA_FACTORIES,
    HYPERPARAMETER_ROOTS,
    ITERATING_BUILTINS,
    LEGACY_TENSOR_TYPES,
    MOVE_METHODS,
    PROBED_PROPERTIES,
    SETUP_METHODS,
    SILENT_BUILTINS,
    TENSOR_FACTORIES,
)

_FACTORIES = TENSOR_FACTORIES | LEGACY_TENSOR_TYPES
"""What ``torch.<name>(...)`` must call to be a candidate."""

_PLACED = "placed"
"""A call's result, or a variable, is moved (``.to(...)``) or used on the CPU on purpose."""

_INDEX = "index"
"""A variable is used as an index, where a CPU tensor is valid."""

_CPU_USE = "cpu_use"
"""A variable is handed to code that wants CPU tensors (plotting, numpy)."""


class FactoryWithoutDevice(Rule):
    """## What it does
    Finds tensor factories (`torch.zeros`, `ones`, `empty`, `full`, `arange`,
    `linspace`, `eye`, `rand*`, `tensor`, `as_tensor`, ...) and legacy constructors
    (`torch.FloatTensor(...)`) called without `device=` on a forward path:
    `forward`, `__call__`, `*_step`, `generate`, `on_*` hooks, the methods they call
    through `self.`, and the project functions they call.

    ## Why is this bad?
    A factory without `device=` allocates on the CPU. The model runs on a GPU, so
    the first operation that mixes the new tensor with an activation fails with
    `Expected all tensors to be on the same device`. It works on a laptop and
    breaks on the cluster (or the reverse after someone adds `.cuda()`).

    ## Example
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            positions = torch.arange(x.shape[1])
            return x + self.embed(positions)
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            positions = torch.arange(x.shape[1], device=self.device)
            return x + self.embed(positions)
    ```

    ## Fix safety
    Adding `device=self.device` in a class that has `.device` is safe. Elsewhere
    the fix takes `device=` from a tensor argument (unsafe: that tensor may be on
    another device on purpose). Legacy constructors get no fix. Not flagged:
    `torch.zeros_like(x)`, `x.new_zeros(...)`, a result immediately moved with
    `.to(...)` or kept on the CPU with `.cpu()`, `.tolist()`, `.item()`,
    `.numpy()`; 0-dim Python scalars such as `torch.tensor(3.0)`; `torch.tensor(x)`
    of a name (it keeps the device of a tensor argument); calls with `**kwargs` or
    `out=`. Also not flagged, because a CPU tensor is right there: a tensor used as
    an index (`x[torch.arange(n), labels]`, valid for a tensor on any device) or in
    an `if`/`while`/`assert` condition, one handed to plotting, numpy, loggers or
    Python builtins that iterate it (`ax.plot(torch.arange(n), y)`), and a variable
    that the same function later moves (`m = torch.zeros(n)` ... `m.to(x.device)`),
    indexes with, or hands to such code.
    """

    code = "DEV003"
    name = "factory-without-device"
    summary = "Tensor factory without `device=` in a forward path"
    fix_safety = "safe/unsafe"
    node_types = ("SubscriptElement", "Call")
    # Every report needs a call whose qualified name is `torch.<factory>`: only an import
    # binds a name to `torch...` (`import torch as T`, `from torch import zeros as z`), and
    # its text spells `torch` (a relative import inside the `torch` package aside).
    triggers = ("torch",)
    only_in_model_code = True  # resolve: `scope.model_code and scope.forward_path`

    VALID = (
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
    )
    INVALID = (
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
            "        return self._mask(batch)\n\n"
            "    def _mask(self, batch):\n"
            "        return torch.zeros(\n"
            "            batch.shape,\n"
            "            dtype=torch.bool,\n"
            "        )\n",
            line=9,
            column=16,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return self._mask(batch)\n\n"
            "    def _mask(self, batch):\n"
            "        return torch.zeros(\n"
            "            batch.shape,\n"
            "            dtype=torch.bool, device=self.device,\n"
            "        )\n",
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
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        for block in self.blocks:\n"
            "            x = block(x, torch.zeros(4))\n"
            "        return x\n",
            line=7,
            column=26,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        for block in self.blocks:\n"
            "            x = block(x, torch.zeros(4, device=self.device))\n"
            "        return x\n",
        ),
        Invalid(
            # Hyperparameters are Python lists: the tensor is made on the CPU.
            "import torch\nimport torch.nn.functional as F\n"
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        logits, y = self(batch[0]), batch[1]\n"
            "        weight = torch.tensor(self.hparams.class_weights)\n"
            "        return F.cross_entropy(logits, y, weight=weight)\n",
            line=8,
            column=18,
            fixed="import torch\nimport torch.nn.functional as F\n"
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        logits, y = self(batch[0]), batch[1]\n"
            "        weight = torch.tensor(self.hparams.class_weights, device=self.device)\n"
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
        ),
    )

    screen_types = (ast.Call, *BINDING_TYPES)

    def sightings(self, found: Skeleton, settings: RuleSettings) -> frozenset[Sighting]:
        """A candidate is a call that may resolve to ``torch.<factory>`` (``Bindings``) and,
        as ``visit`` requires, lacks ``**``, ``device=`` and ``out=`` (``tensor`` and
        ``as_tensor`` have Python data first), is not in a setup method, nor the receiver
        of a chain that surely moves it."""
        names = Bindings(found)
        calls = [call for call in found.of_type(ast.Call) if isinstance(call, ast.Call)]
        fresh = [call for call in calls if _may_create_without_device(call, names)]
        if not fresh:
            return frozenset()
        placed = _surely_placed(calls)
        scopes = {found.scope_of(call) for call in fresh if id(call) not in placed}
        return frozenset(Sighting(scope) for scope in scopes if scope.method not in SETUP_METHODS)

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        if sightings is None:
            return super().may_report_in(facts, index, sightings)
        return any(
            info.model_code and info.forward_path
            for info in (index.scope_info(sighting.scope) for sighting in sightings)
        )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if isinstance(node, cst.SubscriptElement):
            index = node.slice.value if isinstance(node.slice, cst.Index) else None
            root = chain_root(index) if index is not None else None
            if root is not None:
                context.note(_INDEX, root)
            return
        assert isinstance(node, cst.Call)
        func = node.func
        if casts_dtype_only(node):
            pass  # torch.arange(n).to(torch.float32) is still on the CPU
        elif isinstance(func, cst.Attribute) and (
            func.attr.value in MOVE_METHODS or func.attr.value in CPU_RESULT_METHODS
        ):
            _mark_receivers(func.value, context)
            root = chain_root(func.value)
            if root is not None and func.attr.value in MOVE_METHODS:
                context.note(_PLACED, root)  # mask = torch.zeros(n) ... mask.to(x.device)
            return
        if _consumer(node, context) == "other":
            for arg in node.args:
                root = chain_root(arg.value)
                if root is not None:
                    context.note(_CPU_USE, root)  # time = torch.arange(n) ... ax.plot(time)
        if context.scope.method in SETUP_METHODS:
            return  # __init__ and setup never run on the forward path
        name = context.qualified_name(func) or ""
        module, _, factory = name.rpartition(".")
        if module != "torch" or context.in_checked_branch:
            return
        legacy = factory in LEGACY_TENSOR_TYPES
        if not legacy and factory not in TENSOR_FACTORIES:
            return
        if _PLACED in context.marks(node) or has_double_star(node):
            return
        if keyword_argument(node, "device") or keyword_argument(node, "out"):
            return
        usage = _usage(context, node)
        if usage.harmless:
            return
        if factory in DATA_FACTORIES:
            payload = first_positional(node)
            if payload is None or not _is_python_data(payload.value):
                return
        fixes: dict[str, tuple[PendingEdit, ...]] = {}
        if not legacy and node.args:
            last = node.args[-1].value
            fixes["self_device"] = (insert_after(last, ", device=self.device"),)
            param = context.scope.tensor_param
            if param is not None:
                fixes["tensor_device"] = (insert_after(last, f", device={param}.device"),)
        data = {"factory": name}
        later: list[tuple[str, str]] = []
        if usage.variable:
            data["variable"] = usage.variable
            later = [(tag, usage.variable) for tag in (_PLACED, _INDEX, _CPU_USE)]
        context.report(self.code, node, data=data, fixes=fixes, unless_noted=later)

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        if not (scope.model_code and scope.forward_path):
            return None
        message = f"`{candidate.data['factory']}()` without `device=` creates a CPU tensor"
        if scope.device_aware and not scope.in_init:
            fix = choose_fix(
                candidate, "self_device", Applicability.SAFE, "Add `device=self.device`"
            )
            return Resolution(f"{message}; pass `device=self.device`", fix)
        borrowed = borrowed_device_fix(candidate, "Add `device={device}`")
        if borrowed is not None:
            param, fix = borrowed
            return Resolution(f"{message}; pass `device={param}.device`", fix)
        return Resolution(f"{message}; pass the device of an input tensor")


def _may_create_without_device(call: ast.Call, names: Bindings) -> bool:
    """Whether ``call`` may resolve to a factory that ``visit`` would report, judging by
    its arguments."""
    if isinstance(call.func, ast.Attribute) and call.func.attr not in _FACTORIES:
        return False  # `a.f(...)` resolves to `<what a is>.f`
    return any(
        module == "torch" and _may_lack_device(call, factory)
        for module, _, factory in (name.rpartition(".") for name in names.resolutions(call.func))
    )


def _may_lack_device(call: ast.Call, factory: str) -> bool:
    """Whether ``visit`` could report ``call`` as a call of ``torch.<factory>``."""
    if factory not in _FACTORIES:
        return False
    if any(keyword.arg in (None, "device", "out") for keyword in call.keywords):
        return False
    if factory not in DATA_FACTORIES:
        return True
    first = call.args[0] if call.args else None
    return first is not None and not isinstance(first, ast.Starred) and _may_be_data(first)


def _may_be_data(node: ast.expr) -> bool:
    """``_is_python_data`` on the ``ast`` of the same expression."""
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    return (dotted(node) or "").startswith(HYPERPARAMETER_ROOTS)


def _surely_placed(calls: Iterable[ast.Call]) -> set[int]:
    """Calls ``_mark_receivers`` surely marks: the receivers in a chain ending in
    ``.cpu()``, ``.cuda()``, ``.type_as(y)``, ... or ``.to(...)`` (only a ``.to`` that
    surely is no cast: with ``device=``, or a first argument named ``*device``)."""
    placed: set[int] = set()
    for call in calls:
        if not (isinstance(call.func, ast.Attribute) and _surely_moves(call, call.func.attr)):
            continue
        receiver = call.func.value
        while isinstance(receiver, ast.Call):
            placed.add(id(receiver))
            if not isinstance(receiver.func, ast.Attribute):
                break
            receiver = receiver.func.value
    return placed


def _surely_moves(call: ast.Call, method: str) -> bool:
    """``x.<method>(...)`` is one of the calls ``visit`` marks receivers of, and surely not
    a cast that ``casts_dtype_only`` recognises."""
    if method != "to":
        return method in MOVE_METHODS or method in CPU_RESULT_METHODS
    if any(keyword.arg == "device" for keyword in call.keywords):
        return True
    first = dotted(call.args[0]) if call.args else None  # None for `*args` too
    return (first or "").endswith("device")


def _mark_receivers(receiver: cst.BaseExpression, context: FileContext) -> None:
    """Mark every call in a method chain: ``torch.arange(n).float().to(dev)``."""
    while isinstance(receiver, cst.Call):
        context.mark(receiver, _PLACED)
        if not isinstance(receiver.func, cst.Attribute):
            return
        receiver = receiver.func.value


@dataclass(frozen=True)
class _Usage:
    harmless: bool = False
    """Used as an index, in a condition, or handed to code that is not torch's."""
    variable: str | None = None
    """The variable the statement assigns the new tensor (or what it computes) to."""


def _usage(context: FileContext, fresh: cst.Call) -> _Usage:
    """What the statement does with a fresh tensor, read from its enclosing nodes."""
    child: cst.CSTNode = fresh
    for node in reversed(context.ancestors):
        if isinstance(node, cst.SubscriptElement):
            return _Usage(harmless=True)  # CPU indices are valid for a tensor on any device
        if isinstance(node, cst.Attribute) and child is node.value:
            if node.attr.value in PROBED_PROPERTIES:
                return _Usage(harmless=True)  # torch.empty(0).device: a probe, not data
            child = node
            continue
        if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)) and child is node.test:
            return _Usage(harmless=True)
        if isinstance(node, cst.Call) and child is not node.func:
            consumer = _consumer(node, context)
            if consumer == "torch":
                child = node
                continue  # torch.cat([x, torch.zeros(n)]) has the same problem
            return _Usage(harmless=consumer in ("other", "neutral"))
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            return _Usage(variable=target.value if isinstance(target, cst.Name) else None)
        if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda)):
            break
        child = node
    return _Usage()


Consumer = Literal["torch", "model", "other", "neutral"]


def _consumer(call: cst.Call, context: FileContext) -> Consumer:
    """Who receives the tensors passed to ``call``.

    ``torch``: a torch function, whose result inherits the problem. ``other``:
    plotting, numpy and other CPU libraries, and builtins that iterate: they want
    CPU tensors, and adding ``device=`` would break them. ``neutral``: builtins such
    as ``len`` or ``print``, which decide nothing. ``model``: anything else (the
    module, a submodule, a project function, a tensor method): the tensor must be
    on the model's device.
    """
    func = call.func
    qualified = context.qualified_name(func)
    if qualified is not None:
        root = qualified.split(".", 1)[0]
        if root == "torch":
            return "torch"
        return "other" if root in CPU_LIBRARIES else "model"
    if isinstance(func, cst.Attribute) and func.attr.value in CPU_CONSUMER_METHODS:
        return "other"
    if isinstance(func, cst.Name) and func.value in ITERATING_BUILTINS:
        return "other"  # for layer, drop in zip(layers, torch.rand(n) < p): Python values
    if isinstance(func, cst.Name) and func.value in SILENT_BUILTINS:
        return "neutral"
    return "model"  # a submodule, a block from self.blocks, a tensor method, super()


def _is_python_data(node: cst.BaseExpression) -> bool:
    """Data that is certainly not a tensor yet: literals, or hyperparameters."""
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    root = dotted_name(node) or ""
    return root.startswith(HYPERPARAMETER_ROOTS)
