"""DEV002: ``.cuda()`` in model code."""

from __future__ import annotations

import ast

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import chain_root, dotted_name
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
)
from devlint.skeleton import Skeleton
from devlint.symbols import MODULE_ONLY_METHODS

_KEPT_KEYWORDS = ("non_blocking", "memory_format")
"""Arguments of ``.cuda()`` that ``.to()`` also takes."""


class CudaCall(Rule):
    """## What it does
    Finds `.cuda()` and `.cuda(N)` calls in model code.

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
    `.to(self.device)` (safe; `non_blocking=` and `memory_format=` are kept). In
    `__init__` of a LightningModule the call is deleted (safe: Lightning moves
    submodules itself); a statement that only moves a submodule
    (`self.encoder.cuda()`) is removed. A tensor created in `__init__` and moved
    with `.cuda()` gets no fix: it must become a buffer (see DEV007). In a plain
    `nn.Module`, the fix borrows a tensor argument's `.device` (unsafe).
    """

    code = "DEV002"
    name = "cuda-call"
    summary = "`.cuda()` in model code"
    fix_safety = "safe/unsafe"
    node_types = ("IndentedBlock", "Call")
    # The only report is for a call of an attribute spelled `cuda` (`x.cuda()`); the
    # IndentedBlock visit only marks nodes.
    triggers = ("cuda",)
    only_in_model_code = True  # resolve: `if not scope.model_code: return None`

    VALID = (
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
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n"
            "        self.encoder.cuda()\n",
            line=7,
            column=22,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def __init__(self, encoder):\n"
            "        super().__init__()\n"
            "        self.encoder = encoder\n",
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
        if context.in_checked_branch or context.qualified_name(func.value) == "torch":
            return
        kept = [
            context.code_for(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            for arg in node.args
            if arg.keyword is not None and arg.keyword.value in _KEPT_KEYWORDS
        ]

        def move_to(device: str) -> tuple[PendingEdit, ...]:
            """Rewrite ``cuda(...)`` after the dot; the receiver's text stays as it is."""
            return (
                PendingEdit(func.attr, "start", node, "end", f"to({', '.join([device, *kept])})"),
            )

        fixes = {"self_device": move_to("self.device")}
        param = context.scope.tensor_param
        if param is not None and chain_root(func.value) != param:  # x.cuda() -> x.to(x.device)
            fixes["tensor_device"] = move_to(f"{param}.device")
        marks = context.marks(node)
        if "removable_statement" in marks:
            # module.cuda() moves in place; tensor.cuda() as a statement does nothing at all.
            fixes["delete"] = (delete_lines(node),)
        elif "statement" not in marks and (
            _builds_module(func.value, context) or _registered_as_buffer(context)
        ):
            fixes["delete"] = (delete_between(func.value, node),)
        context.report(self.code, func.attr, end=node, fixes=fixes)

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
        if not scope.model_code:
            return None
        if scope.in_init:
            if scope.lightning:
                fix = choose_fix(candidate, "delete", Applicability.SAFE, "Remove `.cuda()`")
                if fix is not None:
                    return Resolution(
                        "`.cuda()` in `__init__` of a LightningModule: the trainer moves "
                        "the module to the right device",
                        fix,
                    )
                return Resolution(
                    "`.cuda()` in `__init__` of a LightningModule: the trainer moves modules "
                    "itself; register a tensor as a buffer so that it moves too"
                )
            return Resolution(
                "`.cuda()` in `__init__` pins the module to the current GPU; move the "
                "whole model once, where it is used"
            )
        if scope.device_aware:
            fix = choose_fix(candidate, "self_device", Applicability.SAFE, "Use `.to(self.device)`")
            return Resolution("`.cuda()` in model code; use `.to(self.device)`", fix)
        borrowed = borrowed_device_fix(candidate, "Use `.to({device})`")
        if borrowed is not None:
            param, fix = borrowed
            return Resolution(f"`.cuda()` in model code; use `.to({param}.device)`", fix)
        return Resolution("`.cuda()` in model code; move to an input tensor's `.device`")


def _registered_as_buffer(context: FileContext) -> bool:
    """``self.register_buffer("w", t.cuda())``: a buffer moves with the module anyway."""
    ancestors = context.ancestors
    if len(ancestors) < 2 or not isinstance(ancestors[-1], cst.Arg):
        return False
    call = ancestors[-2]
    return isinstance(call, cst.Call) and dotted_name(call.func) == "self.register_buffer"


def _builds_module(receiver: cst.BaseExpression, context: FileContext) -> bool:
    """``nn.Linear(3, 4).cuda()`` or ``AutoModel.from_pretrained(n).cuda()``: a module.

    Deleting ``.cuda()`` is right only for modules, which the trainer moves; anything
    else (a tensor, a helper's result, a variable) would be left on the CPU.
    """
    if not isinstance(receiver, cst.Call):
        return False
    callee = dotted_name(receiver.func) or ""
    last = callee.rpartition(".")[2]
    if last in MODULE_ONLY_METHODS:
        return True  # teacher.eval().cuda(): only modules have eval()
    if last == "from_pretrained":
        return True
    qualified = context.qualified_name(receiver.func) or ""
    if qualified.startswith("torch.") and not qualified.startswith("torch.nn."):
        return False  # torch.Tensor(...), torch.FloatTensor(...)
    return last[:1].isupper()
