"""DEV003: a tensor created in a forward path without ``device=``."""

from __future__ import annotations

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.findings import Applicability
from devlint.rules._devices import first_positional, has_double_star, keyword_argument
from devlint.rules.base import FileContext, Invalid, Rule, choose_fix, insert_after
from devlint.symbols import (
    CPU_RESULT_METHODS,
    DATA_FACTORIES,
    LEGACY_TENSOR_TYPES,
    MOVE_METHODS,
    TENSOR_FACTORIES,
)

_PLACED = "placed"
"""Mark on a call whose result is moved (``.to(...)``) or used on the CPU on purpose."""

_LITERAL_DATA = (cst.List, cst.Tuple, cst.ListComp)
"""Data arguments of ``torch.tensor`` that are certainly not tensors already."""


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
    of a name (it keeps the device of a tensor argument); calls with `**kwargs`.
    """

    code = "DEV003"
    name = "factory-without-device"
    summary = "Tensor factory without `device=` in a forward path"
    fix_safety = "safe/unsafe"
    node_types = (cst.Call,)

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
    )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        assert isinstance(node, cst.Call)
        func = node.func
        if isinstance(func, cst.Attribute) and (
            func.attr.value in MOVE_METHODS or func.attr.value in CPU_RESULT_METHODS
        ):
            _mark_receivers(func.value, context)
            return
        name = context.qualified_name(func) or ""
        module, _, factory = name.rpartition(".")
        if module != "torch":
            return
        legacy = factory in LEGACY_TENSOR_TYPES
        if not legacy and factory not in TENSOR_FACTORIES:
            return
        if _PLACED in context.marks(node) or has_double_star(node):
            return
        if keyword_argument(node, "device") is not None:
            return
        if factory in DATA_FACTORIES:
            data = first_positional(node)
            if data is None or not isinstance(data.value, _LITERAL_DATA):
                return
        fixes = {}
        if not legacy and node.args:
            last = node.args[-1].value
            fixes["self_device"] = (insert_after(last, ", device=self.device"),)
            param = context.scope.tensor_param
            if param is not None:
                fixes["tensor_device"] = (insert_after(last, f", device={param}.device"),)
        context.report(self.code, node, data={"factory": name}, fixes=fixes)

    def resolve(self, candidate: Candidate, scope: ScopeInfo) -> Resolution | None:
        if not (scope.model_code and scope.forward_path):
            return None
        message = f"`{candidate.data['factory']}()` without `device=` creates a CPU tensor"
        if scope.device_aware and not scope.in_init:
            fix = choose_fix(
                candidate, "self_device", Applicability.SAFE, "Add `device=self.device`"
            )
            return Resolution(f"{message}; pass `device=self.device`", fix)
        param = candidate.scope.tensor_param
        if param is not None and "tensor_device" in candidate.fixes:
            fix = choose_fix(
                candidate, "tensor_device", Applicability.UNSAFE, f"Add `device={param}.device`"
            )
            return Resolution(f"{message}; pass `device={param}.device`", fix)
        return Resolution(f"{message}; pass the device of an input tensor")


def _mark_receivers(receiver: cst.BaseExpression, context: FileContext) -> None:
    """Mark every call in a method chain: ``torch.arange(n).float().to(dev)``."""
    while isinstance(receiver, cst.Call):
        context.mark(receiver, _PLACED)
        if not isinstance(receiver.func, cst.Attribute):
            return
        receiver = receiver.func.value
