"""DEV011: ``.cuda()`` / ``.to("cuda")`` in Datasets, collate functions and DataModules."""

from __future__ import annotations

import ast

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import FileFacts, Reference
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import dotted_name, first_positional, keyword_argument
from devlint.rules._chosen_device import moves_to_the_current_device, pinned_there
from devlint.rules._devices import cuda_target_is_literal, device_literal
from devlint.rules.base import (
    FileContext,
    Invalid,
    PendingEdit,
    Rule,
    RuleSettings,
    Sighting,
    choose_fix,
    delete_between,
    delete_lines,
)
from devlint.skeleton import Skeleton
from devlint.symbols import (
    BATCH_TRANSFER_HOOKS,
    COLLATE_KEYWORDS,
    DATASET_ITEM_METHODS,
    DEVICE_TYPES,
)

_MOVE_ONLY_KEYWORDS = frozenset({"device", "non_blocking", "copy"})
"""Arguments of ``.to()`` that mean nothing without a device to move to."""
_PARTIALS = frozenset({"functools.partial", "partial"})


class CudaInDataPipeline(Rule):
    """## What it does
    Finds `.cuda()`, `.to("cuda")`, `.to("cuda:0")` and `.to(torch.device("cuda"))`
    (and other accelerators such as `"mps"`) in the data pipeline: `__getitem__`,
    `__getitems__` and `__iter__` of `torch.utils.data` Datasets (and the methods
    they call on `self`), collate functions (functions handed to a loader as
    `collate_fn=` or to HF's `Trainer` as `data_collator=` anywhere in the project,
    or named like `collate_fn`, and `__call__` of `*Collator` classes), and methods
    of a LightningDataModule.

    ## Why is this bad?
    Datasets and collate functions run in DataLoader worker processes. A forked
    worker cannot use CUDA (`RuntimeError: Cannot re-initialize CUDA in forked
    subprocess`), so the code only works with `num_workers=0`, giving up parallel
    loading; `pin_memory=True` fails on tensors already on the GPU. `.cuda()`
    also sends every rank's batch to GPU 0 under distributed training, and fails on
    machines without CUDA. The training loop (or the trainer) moves each batch to
    the device its model is on; the data pipeline should hand over CPU tensors.

    ## Example
    ```python
    class ImageDataset(Dataset):
        def __getitem__(self, index):
            image, label = self.samples[index]
            return image.cuda(), torch.tensor(label).to("cuda")
    ```

    ## Use instead
    ```python
    class ImageDataset(Dataset):
        def __getitem__(self, index):
            image, label = self.samples[index]
            return image, torch.tensor(label)
    ```
    and move the batch where the model is: `batch.to(device)` in the loop, or
    nothing at all under Lightning, which moves batches itself.

    ## Fix safety
    The fix deletes the move (`x.cuda()` becomes `x`; `.to("cuda", torch.half)`
    keeps the cast as `.to(torch.half)`). It is safe in a LightningDataModule, and
    in Datasets and collate functions whose every user (the code instantiating the
    Dataset, or handing the function to a loader) is a method of a LightningModule
    or LightningDataModule: the trainer moves each batch to the right device.
    Elsewhere it is unsafe: the loop that consumes the batches may rely on them
    arriving on the GPU. In a DataModule's `transfer_batch_to_device(batch,
    device, ...)`, moving is the hook's purpose: the fix moves to the hook's
    `device` argument instead (safe). In `on_after_batch_transfer` the batch is
    already on its device: reported, without a fix. A statement that is only
    `x.cuda()` is removed when its block keeps another statement.

    Not flagged: `.to(device)` and `.cuda(index)` with a device chosen at run time,
    a class's own `cuda`/`to`/`cpu` (moving is their job), `.cpu()`, a
    Dataset's `__init__` (loading a small dataset onto the GPU once is a
    deliberate choice), code under `if torch.cuda.is_available():`,
    model code, where DEV001 and DEV002 report the same calls (a Dataset that is
    also an `nn.Module` is model code), and `.cuda()` or `.to("cuda")` in a program
    whose code that runs with it makes its loaders itself and gives none workers (no
    `num_workers=` but 0, no loader options unpacked, no library trainer such as
    transformers' `Trainer`) and that offers no device but the current GPU, or whose
    launcher made each process's GPU current: the pipeline runs in the process
    iterating the loader, on the GPU all its tensors are on.
    """

    code = "DEV011"
    name = "cuda-in-data-pipeline"
    summary = '`.cuda()` / `.to("cuda")` in a Dataset, collate function or LightningDataModule'
    fix_safety = "safe/unsafe"
    replaces_literal_devices = True
    node_types = ("Call",)
    # The facts (`_record_collate_arguments`) need a keyword of COLLATE_KEYWORDS; a report
    # needs `.cuda()` or `.to(...)`, whose device may be an integer (`batch.to(0)` is
    # cuda:0): only the method's name `to` is sure to be there, and it is in nearly every
    # file. Without integer devices, `cuda`, `device` and the other device types would do.
    triggers = (*sorted(COLLATE_KEYWORDS), "cuda", "to")
    fact_triggers = tuple(sorted(COLLATE_KEYWORDS))
    screen_types = (ast.Call,)

    def defers_to_index(self) -> bool:
        return True  # `resolve` keeps candidates only in data-pipeline code

    def parse_anyway(self, found: Skeleton) -> bool:
        # Facts, and lambdas handed over right there, need a call with a collate keyword
        # (`_record_collate_arguments`). A candidate in a function named like a collate one
        # (nested ones too, which the index does not know) is kept by its name
        # (`_named_like_collate`).
        calls = [call for call in found.of_type(ast.Call) if isinstance(call, ast.Call)]
        if any(keyword.arg in COLLATE_KEYWORDS for call in calls for keyword in call.keywords):
            return True
        return "collat" in found.code.lower() and any(map(_may_move_to_accelerator, calls))

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """``visit`` reports only ``x.cuda(...)`` and ``x.to(...)`` whose device
        (``_literal_device_argument``) is a literal accelerator, perhaps in ``torch.device``."""
        return any(
            isinstance(call, ast.Call) and _may_move_to_accelerator(call)
            for call in found.of_type(ast.Call)
        )

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        """A Dataset or DataModule class, or a function handed over as a collate function."""
        for found in facts.classes:
            kind = index.class_kind(found.name)
            if kind.dataset or kind.datamodule:
                return True
        handed_over = index.handed_over_functions(COLLATE_KEYWORDS)
        return any(found.name in handed_over for found in facts.functions)

    VALID = (
        # CPU tensors from the pipeline; the loop moves the batch.
        "import torch\nfrom torch.utils.data import Dataset, DataLoader\n\n"
        "class Pairs(Dataset):\n"
        "    def __init__(self, data):\n"
        "        self.data = torch.as_tensor(data).cuda()\n\n"
        "    def __getitem__(self, index):\n"
        "        return self.data[index].cpu(), torch.tensor(index)\n\n"
        "def collate(batch):\n"
        "    return torch.stack(batch)\n\n"
        "def train(model, device):\n"
        "    for batch in DataLoader(Pairs([1, 2]), collate_fn=collate):\n"
        "        model(batch.to(device)).cuda()\n",
        # A device chosen at run time, and a checked choice.
        "import torch\nfrom torch.utils.data import Dataset\n\n"
        "class Pairs(Dataset):\n"
        "    def __init__(self, device):\n"
        "        self.device = device\n\n"
        "    def __getitem__(self, index):\n"
        "        x = torch.zeros(3).to(self.device)\n"
        "        if torch.cuda.is_available():\n"
        "            x = x.cuda()\n"
        "        return x, x.cuda(self.device.index)\n",
        # A DataModule's own `cuda`: moving its data is what it is for.
        "import torch\nimport lightning.pytorch as pl\n\n"
        "class Data(pl.LightningDataModule):\n"
        "    def cuda(self):\n"
        "        self.table = self.table.cuda()\n"
        "        return self\n",
        # Not a Dataset; and a Dataset that is an nn.Module is model code (DEV002's).
        "import torch\nimport torch.nn as nn\nfrom torch.utils.data import Dataset\n\n"
        "class Cache:\n"
        "    def __getitem__(self, key):\n"
        "        return self.tensors[key].cuda()\n\n"
        "class Both(Dataset, nn.Module):\n"
        "    def __getitem__(self, index):\n"
        "        return self.table[index].cuda()\n",
        # A literal device, but the CPU.
        "import torch\nfrom torch.utils.data import Dataset\n\n"
        "class Pairs(Dataset):\n"
        "    def __getitem__(self, index):\n"
        '        return self.items[index].to(torch.device("cpu"), torch.float32)\n',
    )
    INVALID = (
        Invalid(
            "from torch.utils.data import Dataset\n\n"
            "class Pairs(Dataset):\n"
            "    def __getitem__(self, index):\n"
            "        return self.items[index].cuda()\n",
            line=5,
            column=34,
            fixed="from torch.utils.data import Dataset\n\n"
            "class Pairs(Dataset):\n"
            "    def __getitem__(self, index):\n"
            "        return self.items[index]\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nfrom torch.utils.data import DataLoader\n\n"
            "def pad(batch):\n"
            '    return torch.stack(batch).to("cuda:0", torch.float16)\n\n'
            "def loader(dataset):\n"
            "    return DataLoader(dataset, batch_size=8, collate_fn=pad)\n",
            line=5,
            column=31,
            fixed="import torch\nfrom torch.utils.data import DataLoader\n\n"
            "def pad(batch):\n"
            "    return torch.stack(batch).to(torch.float16)\n\n"
            "def loader(dataset):\n"
            "    return DataLoader(dataset, batch_size=8, collate_fn=pad)\n",
            unsafe=True,
        ),
        Invalid(
            "import torch\nimport lightning.pytorch as L\n"
            "from torch.utils.data import DataLoader\n\n"
            "class Data(L.LightningDataModule):\n"
            "    def setup(self, stage):\n"
            '        self.train_set = torch.load("train.pt").to(torch.device("cuda"))\n\n'
            "    def train_dataloader(self):\n"
            "        return DataLoader(self.train_set)\n",
            line=7,
            column=49,
            fixed="import torch\nimport lightning.pytorch as L\n"
            "from torch.utils.data import DataLoader\n\n"
            "class Data(L.LightningDataModule):\n"
            "    def setup(self, stage):\n"
            '        self.train_set = torch.load("train.pt")\n\n'
            "    def train_dataloader(self):\n"
            "        return DataLoader(self.train_set)\n",
        ),
        Invalid(
            # Moving is this hook's purpose: to the device it is given.
            "import pytorch_lightning as pl\n\n"
            "class Data(pl.LightningDataModule):\n"
            "    def transfer_batch_to_device(self, batch, device, dataloader_idx):\n"
            "        return {k: v.cuda(non_blocking=True)"
            ' for k, v in batch.items() if k != "id"}\n',
            line=5,
            column=22,
            fixed="import pytorch_lightning as pl\n\n"
            "class Data(pl.LightningDataModule):\n"
            "    def transfer_batch_to_device(self, batch, device, dataloader_idx):\n"
            "        return {k: v.to(device, non_blocking=True) "
            'for k, v in batch.items() if k != "id"}\n',
        ),
        Invalid(
            # A collate function handed over only by a LightningDataModule: safe.
            "import pytorch_lightning as pl\nfrom torch.utils.data import DataLoader\n\n"
            "class Collator:\n"
            "    def __call__(self, batch):\n"
            "        return [x.cuda() for x in batch]\n\n"
            "class Data(pl.LightningDataModule):\n"
            "    def train_dataloader(self):\n"
            "        return DataLoader(self.train_set, collate_fn=Collator())\n",
            line=6,
            column=19,
            fixed="import pytorch_lightning as pl\nfrom torch.utils.data import DataLoader\n\n"
            "class Collator:\n"
            "    def __call__(self, batch):\n"
            "        return [x for x in batch]\n\n"
            "class Data(pl.LightningDataModule):\n"
            "    def train_dataloader(self):\n"
            "        return DataLoader(self.train_set, collate_fn=Collator())\n",
        ),
        Invalid(
            # Named like a collate function; a statement that only moves is removed.
            "def my_collate_fn(batch):\n    batch.cuda()\n    return batch\n",
            line=2,
            column=11,
            fixed="def my_collate_fn(batch):\n    return batch\n",
            unsafe=True,
        ),
        Invalid(
            # After the transfer the batch is on its device: no fix.
            "import pytorch_lightning as pl\n\n"
            "class Data(pl.LightningDataModule):\n"
            "    def on_after_batch_transfer(self, batch, dataloader_idx):\n"
            '        return batch.to("cuda")\n',
            line=5,
            column=22,
        ),
        Invalid(
            # `torch.device` under another name, given as `device=`.
            "from torch import device as torch_device\n"
            "from torch.utils.data import Dataset\n\n"
            "class Pairs(Dataset):\n"
            "    def __getitem__(self, index):\n"
            '        return self.items[index].to(device=torch_device("cuda", 0))\n',
            line=6,
            column=34,
            fixed="from torch import device as torch_device\n"
            "from torch.utils.data import Dataset\n\n"
            "class Pairs(Dataset):\n"
            "    def __getitem__(self, index):\n"
            "        return self.items[index]\n",
            unsafe=True,
        ),
        Invalid(
            # An integer device is a GPU: `0` is `cuda:0`.
            "def collate_batch(batch):\n"
            "    return [sample.to(0, non_blocking=True) for sample in batch]\n",
            line=2,
            column=20,
            fixed="def collate_batch(batch):\n    return [sample for sample in batch]\n",
            unsafe=True,
        ),
    )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        assert isinstance(node, cst.Call)
        self._record_collate_arguments(node, context)
        func = node.func
        if not isinstance(func, cst.Attribute) or context.in_checked_branch:
            return
        method = func.attr.value
        if method == "cuda":
            if context.qualified_name(func.value) == "torch" or not cuda_target_is_literal(node):
                return  # .cuda(index): a device chosen at run time, as .to(device) is
            device: cst.Arg | None = None
            described = "`.cuda()`"
        elif method == "to":
            device = _literal_device_argument(node, context)
            if device is None:
                return
            described = f"`.to({context.code_for(device.value)})`"
        else:
            return
        data = {"call": described}
        if moves_to_the_current_device(node):
            data["current"] = "yes"
        if _named_like_collate(context):
            data["collate"] = "name"
        elif _inside_collate_argument(context):
            data["collate"] = "inline"
        fixes = {}
        deletion = _deletion(node, func, device, context)
        if deletion is not None:
            fixes["delete"] = deletion
        device_param = _hook_device_param(context)
        if device_param is not None:
            fixes["hook_device"] = _move_to(node, func, device, device_param, context)
        context.report(self.code, func.attr, end=node, data=data, fixes=fixes)

    def _record_collate_arguments(self, call: cst.Call, context: FileContext) -> None:
        """``collate_fn=pad`` anywhere: the index learns that ``pad`` is a collate function."""
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in COLLATE_KEYWORDS:
                continue
            value = arg.value
            if isinstance(value, cst.Call):
                if (context.qualified_name(value.func) or "") in _PARTIALS:
                    first = first_positional(value)
                    value = first.value if first is not None else value
                else:
                    value = value.func  # an instance: its class's __call__
            caller = context.scope.function_name or ""
            dotted = dotted_name(value)
            if dotted is None:
                continue
            on_self = dotted.startswith("self.") and dotted.count(".") == 1
            if on_self and context.scope.class_name is not None:
                callee = f"{context.scope.class_name}.{dotted[5:]}"
            else:
                on_self = False
                callee = context.qualified_name(value) or ""
                if not callee and "." not in dotted:
                    callee = f"{context.module_name}.{dotted}"
            if callee:
                reference = Reference(callee, caller, keyword=arg.keyword.value, on_self=on_self)
                context.add_fact(reference)

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        if scope.model_code or scope.own_move:
            return None  # DEV001 and DEV002 report moves in model code; a move of its own
        call = candidate.data["call"]
        owner = candidate.scope.class_name
        function = candidate.scope.function_name
        method = candidate.scope.method
        kind = index.class_kind(owner) if owner is not None else None
        if kind is not None and kind.datamodule and method is not None:
            return self._in_datamodule(candidate, call, method)
        if _on_the_main_process_gpu(candidate, scope, index):
            return None
        dataset = owner if kind is not None and kind.dataset else None
        if dataset is not None and function in index.self_reachable(dataset, DATASET_ITEM_METHODS):
            users = index.callers(dataset)  # where the Dataset is made
            return self._resolution(
                candidate, f"{call} in a Dataset's `{method}`", _all_lightning(users, index)
            )
        collate = candidate.data.get("collate")
        if collate == "inline":  # a lambda handed over right here
            users = frozenset({function}) if function is not None else frozenset()
        elif function is not None:
            users = index.handed_over(function, COLLATE_KEYWORDS)
            if not users and not collate:
                return None
        else:
            return None
        return self._resolution(
            candidate, f"{call} in a collate function", _all_lightning(users, index)
        )

    @staticmethod
    def _resolution(candidate: Candidate, what: str, safe: bool) -> Resolution:
        applicability = Applicability.SAFE if safe else Applicability.UNSAFE
        fix = choose_fix(candidate, "delete", applicability, "Remove the move to the GPU")
        return Resolution(
            f"{what}: DataLoader worker processes cannot use CUDA (and would pick GPU 0 on "
            "every rank); return CPU tensors and move the batch where the model is",
            fix,
        )

    @staticmethod
    def _in_datamodule(candidate: Candidate, call: str, method: str) -> Resolution:
        if method == "transfer_batch_to_device":
            fix = choose_fix(
                candidate, "hook_device", Applicability.SAFE, "Move to the hook's `device`"
            )
            return Resolution(
                f"{call} in `transfer_batch_to_device`: move to the `device` the hook is given",
                fix,
            )
        if method in BATCH_TRANSFER_HOOKS:
            return Resolution(
                f"{call} in `{method}`: the batch is already on its device here; "
                "move new tensors to a batch tensor's `.device`"
            )
        fix = choose_fix(candidate, "delete", Applicability.SAFE, "Remove the move to the GPU")
        return Resolution(
            f"{call} in a LightningDataModule: keep data on the CPU; the trainer moves each "
            "batch to the right device",
            fix,
        )


def _all_lightning(users: frozenset[str], index: ProjectIndex) -> bool:
    """Every user is a method of a LightningModule or a LightningDataModule."""
    if not users:
        return False
    for user in users:
        kind = index.class_kind(user.rpartition(".")[0])
        if not (kind.lightning or kind.datamodule):
            return False
    return True


def _may_move_to_accelerator(call: ast.Call) -> bool:
    """``x.cuda(...)``, or ``x.to(...)`` whose first positional argument or ``device=`` is
    (or calls something with, ``torch.device`` under any name) a literal accelerator."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("cuda", "to"):
        return False
    if func.attr == "cuda":
        return True
    first = call.args[:1] if call.args and not isinstance(call.args[0], ast.Starred) else []
    devices = [*first, *(keyword.value for keyword in call.keywords if keyword.arg == "device")]
    for device in devices:
        if isinstance(device, ast.Call) and device.args:
            device = device.args[0]
        if isinstance(device, ast.Constant) and _is_accelerator(device.value):
            return True
    return False


def _is_accelerator(value: object) -> bool:
    """An integer or a string like ``"cuda:1"``, as ``device_literal`` reads them."""
    if isinstance(value, int):
        return True
    if not isinstance(value, str):
        return False
    kind, _, index = value.partition(":")
    return kind in DEVICE_TYPES and (not index or index.isdigit())


def _on_the_main_process_gpu(candidate: Candidate, scope: ScopeInfo, index: ProjectIndex) -> bool:
    """A move to the current GPU in a program whose loaders get no worker processes
    (``runs_no_loader_workers``): it runs in the process iterating the loader, on the GPU
    every tensor of the program is on (``runs_on_the_current_gpu_only``), or on the one its
    launcher made current (``pinned_there``)."""
    if "current" not in candidate.data or not index.runs_no_loader_workers(candidate.scope):
        return False
    current = index.runs_on_the_current_gpu_only(candidate.scope)
    return current or pinned_there(candidate, scope, index)


def _literal_device_argument(call: cst.Call, context: FileContext) -> cst.Arg | None:
    """The argument of ``.to(...)`` that is a literal accelerator device, if one is."""
    argument = first_positional(call) or keyword_argument(call, "device")
    if argument is None:
        return None
    value = argument.value
    if isinstance(value, cst.Call) and context.qualified_name(value.func) == "torch.device":
        positional = [arg.value for arg in value.args if arg.keyword is None]
        if not positional or len(value.args) != len(positional):
            return None
        if len(positional) > 1 and not isinstance(positional[1], cst.Integer):
            return None  # torch.device("cuda", local_rank)
        value = positional[0]
    return argument if device_literal(value) is not None else None


def _deletion(
    call: cst.Call, func: cst.Attribute, device: cst.Arg | None, context: FileContext
) -> tuple[PendingEdit, ...] | None:
    """Edits that remove the move: the call, its device argument, or its whole statement."""
    kept = [
        arg
        for arg in call.args
        if arg is not device
        and device is not None
        and not (arg.keyword is not None and arg.keyword.value in _MOVE_ONLY_KEYWORDS)
    ]
    if kept:  # .to("cuda", torch.half) -> .to(torch.half)
        text = ", ".join(
            context.code_for(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for arg in kept
        )
        return (PendingEdit(func.attr, "start", call, "end", f"to({text})"),)
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, cst.Expr):
        line = ancestors[-2] if len(ancestors) > 1 else None
        block = ancestors[-3] if len(ancestors) > 2 else None
        alone = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
        if alone and isinstance(block, cst.IndentedBlock) and len(block.body) > 1:
            assert line is not None
            return (delete_lines(line),)
        return None  # x.cuda() as the only statement: nothing sensible to leave
    return (delete_between(func.value, call),)


def _move_to(
    call: cst.Call,
    func: cst.Attribute,
    device: cst.Arg | None,
    target: str,
    context: FileContext,
) -> tuple[PendingEdit, ...]:
    """``v.cuda(non_blocking=True)`` -> ``v.to(device, non_blocking=True)``."""
    others = [
        context.code_for(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        for arg in call.args
        if arg is not device and (device is not None or arg.keyword is not None)
    ]
    return (PendingEdit(func.attr, "start", call, "end", f"to({', '.join([target, *others])})"),)


def _hook_device_param(context: FileContext) -> str | None:
    """The ``device`` parameter of the enclosing ``transfer_batch_to_device``, if in one."""
    for node in reversed(context.ancestors):
        if isinstance(node, cst.FunctionDef):
            if node.name.value != "transfer_batch_to_device":
                continue
            params = node.params.params
            return params[2].name.value if len(params) > 2 else None
    return None


def _named_like_collate(context: FileContext) -> bool:
    """Inside ``def collate_fn``/``def my_collate`` or ``__call__`` of a ``*Collator``."""
    for node in context.ancestors:
        if isinstance(node, cst.FunctionDef) and "collate" in node.name.value.lower():
            return True
    class_name = context.scope.class_name or ""
    short = class_name.rpartition(".")[2].lower()
    return context.scope.method == "__call__" and "collat" in short


def _inside_collate_argument(context: FileContext) -> bool:
    """``DataLoader(ds, collate_fn=lambda batch: [x.cuda() for x in batch])``."""
    for node in context.ancestors:
        keyword = node.keyword if isinstance(node, cst.Arg) else None
        if keyword is not None and keyword.value in COLLATE_KEYWORDS:
            return True
    return False
