"""DEV006: ``torch.load(..., map_location="cuda:0")``: a checkpoint loaded onto a fixed GPU."""

from __future__ import annotations

import ast

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import first_positional, keyword_argument
from devlint.rules._devices import BINDING_TYPES, Bindings, device_literal, may_be_device_literal
from devlint.rules.base import (
    FileContext,
    Invalid,
    Rule,
    RuleSettings,
    Trigger,
    choose_fix,
    replace,
)
from devlint.skeleton import Skeleton
from devlint.symbols import MAP_LOCATION_LOADERS, MAP_LOCATION_METHODS

_LOADER_NAMES = frozenset(name.rpartition(".")[2] for name in MAP_LOCATION_LOADERS)
_TORCH_DEVICE = frozenset({"torch.device"})
_TRIGGERS: tuple[Trigger, ...] = (
    *sorted(MAP_LOCATION_METHODS),
    *sorted(
        (name.partition(".")[0], f"\n{name.rpartition('.')[2]}\n")  # `load`, a whole word
        for name in MAP_LOCATION_LOADERS
    ),
)


class HardcodedMapLocation(Rule):
    """## What it does
    Finds checkpoints loaded onto a literal accelerator: `map_location="cuda"`,
    `"cuda:1"`, `"mps"`, an index such as `0`, or `torch.device("cuda:0")`, passed
    to `torch.load`, `torch.jit.load`, `torch.hub.load_state_dict_from_url` or
    Lightning's `Model.load_from_checkpoint`. In model code (methods of
    `nn.Module`, `LightningModule`, `PreTrainedModel` and `Metric` subclasses, and
    the project functions they call) every such literal is reported. Outside model
    code (scripts, data and training utilities) only a literal that names one GPU
    (`"cuda:0"`, `0`, `torch.device("cuda", 0)`) is, and only in a project that
    trains on several processes (the evidence DEV005 uses: a `Trainer` or `Fabric`
    with a distributed strategy or several devices, `Accelerator()`,
    `init_process_group()`, `DistributedDataParallel`, a `LOCAL_RANK` read).

    ## Why is this bad?
    Under distributed training every process runs the same line: with
    `map_location="cuda:0"` all of them deserialize the whole checkpoint onto
    GPU 0, which runs out of memory or leaves rank 1's weights next to rank 0's
    activations (`Expected all tensors to be on the same device`). In model code
    even a bare `"cuda"` ties the class to CUDA: it fails with `Attempting to
    deserialize object on a CUDA device but torch.cuda.is_available() is False`
    on a CPU-only machine or a Mac, while the module itself would run anywhere.

    A bare `"cuda"` in a script is left alone: it means the *current* CUDA device,
    which is each rank's own GPU once `torch.cuda.set_device(local_rank)` ran (as
    Lightning, accelerate and the torchrun recipe do), and a single-process
    inference script that writes it runs on a GPU on purpose, exactly like the
    `.to("cuda")` calls that typically surround it (DEV001 does not report those in
    scripts either). Likewise `"cuda:0"` in a project that never starts several
    processes is a deliberate choice, not a bug.

    ## Example
    ```python
    class Model(pl.LightningModule):
        def on_fit_start(self):
            self.teacher_weights = torch.load("teacher.pt", map_location="cuda:0")
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def on_fit_start(self):
            self.teacher_weights = torch.load("teacher.pt", map_location=self.device)
    ```

    ## Fix safety
    In a class that has `.device` (LightningModule, PreTrainedModel, Metric, or a
    class defining `device`), outside `__init__`/`setup`/`configure_model` (where
    the module is still on the CPU), the literal becomes `self.device`: safe, it is
    the device the module runs on. When the loaded object goes straight into
    `load_state_dict(...)` (without `assign=True`) the literal becomes `"cpu"`,
    also safe: `load_state_dict` copies every tensor onto the device of the
    parameter it fills. Everywhere else it becomes `"cpu"` as an unsafe fix: the
    loaded tensors then start on the CPU and must be moved where they are used.
    Not flagged: `map_location="cpu"`, a variable or expression
    (`map_location=device`, `f"cuda:{rank}"`), a callable
    (`lambda storage, loc: storage`), a dict remapping locations
    (`{"cuda:0": f"cuda:{rank}"}`), `torch.device("cuda", local_rank)`, and code
    under `if torch.cuda.is_available():`.
    """

    code = "DEV006"
    name = "hardcoded-map-location"
    summary = "Checkpoint loaded onto a literal device with `map_location=`"
    fix_safety = "safe/unsafe"
    node_types = ("Call",)
    # The callee is a `MAP_LOCATION_METHODS` method, named by the call's attribute, or
    # resolves to a `MAP_LOCATION_LOADERS` function: the code names its package (`torch`,
    # in an import) and its last name (`load`, however aliased). Not "map_location": it
    # may be positional, `torch.load(path, 0)`.
    triggers = _TRIGGERS
    screen_types = (ast.Call, *BINDING_TYPES)

    VALID = (
        # The CPU, a computed device, a callable and a remapping dict are all fine.
        "import torch\nimport pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def on_fit_start(self):\n"
        '        a = torch.load("a.pt", map_location="cpu")\n'
        '        b = torch.load("b.pt", map_location=self.device)\n'
        '        c = torch.load("c.pt", map_location=lambda storage, loc: storage)\n'
        '        d = torch.load("d.pt", map_location={"cuda:0": f"cuda:{self.local_rank}"})\n'
        '        e = torch.load("e.pt", map_location=torch.device("cpu"))\n'
        '        f = torch.load("f.pt", map_location=torch.device("cuda", self.local_rank))\n'
        "        return a, b, c, d, e, f\n",
        # A single-process inference script that runs on CUDA on purpose.
        "import torch\n\n"
        "def main(path):\n"
        '    state = torch.load(path, map_location="cuda")\n'
        '    other = torch.load(path, map_location="cuda:0")\n'
        "    return state, other\n",
        # An explicit, checked choice.
        "import torch\nimport torch.nn as nn\n\n"
        "class M(nn.Module):\n"
        "    def load(self, path):\n"
        "        if torch.cuda.is_available():\n"
        '            return torch.load(path, map_location="cuda")\n'
        '        return torch.load(path, map_location="cpu")\n',
        # Not torch's load: a project function that happens to take map_location.
        "import pytorch_lightning as pl\n\n"
        "def load(path, map_location):\n"
        "    return path, map_location\n\n"
        "class M(pl.LightningModule):\n"
        "    def on_fit_start(self):\n"
        '        self.w = load("w.pt", map_location="cuda")\n',
        # A script that picks its rank's GPU, then loads onto the current one.
        "import torch\n\n"
        "def resume(path, local_rank):\n"
        "    torch.cuda.set_device(local_rank)\n"
        '    return torch.load(path, map_location="cuda")\n',
    )
    INVALID = (
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def on_fit_start(self):\n"
            '        self.teacher = torch.load("teacher.pt", map_location="cuda:0")\n',
            line=6,
            column=62,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def on_fit_start(self):\n"
            '        self.teacher = torch.load("teacher.pt", map_location=self.device)\n',
        ),
        Invalid(
            # `from torch import load` resolves; the second positional is map_location.
            "from torch import load\nfrom lightning import LightningModule\n\n"
            "class M(LightningModule):\n"
            "    def predict_step(self, batch):\n"
            '        table = load("table.pt", "cuda")\n'
            "        return batch @ table\n",
            line=6,
            column=34,
            fixed="from torch import load\nfrom lightning import LightningModule\n\n"
            "class M(LightningModule):\n"
            "    def predict_step(self, batch):\n"
            '        table = load("table.pt", self.device)\n'
            "        return batch @ table\n",
        ),
        Invalid(
            # In setup the module is still on the CPU: "cpu" is the honest choice, unsafe.
            "import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def setup(self, stage):\n"
            "        self.prior = torch.load(\n"
            '            "prior.pt", map_location=torch.device("cuda:0")\n'
            "        )\n",
            line=7,
            column=38,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def setup(self, stage):\n"
            "        self.prior = torch.load(\n"
            '            "prior.pt", map_location="cpu"\n'
            "        )\n",
            unsafe=True,
        ),
        Invalid(
            # Straight into load_state_dict: the copy lands on each parameter's device.
            "import torch\nimport torch.nn as nn\n\n"
            "class Encoder(nn.Module):\n"
            "    def __init__(self, path):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            "        self.load_state_dict(torch.load(path, map_location='cuda:1'))\n",
            line=8,
            column=60,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Encoder(nn.Module):\n"
            "    def __init__(self, path):\n"
            "        super().__init__()\n"
            "        self.proj = nn.Linear(4, 4)\n"
            "        self.load_state_dict(torch.load(path, map_location='cpu'))\n",
        ),
        Invalid(
            # A plain nn.Module has no .device.
            "import torch\nimport torch.nn as nn\n\n"
            "class Head(nn.Module):\n"
            "    def load_codebook(self, path):\n"
            "        self.codebook = torch.jit.load(path, map_location=0)\n",
            line=6,
            column=59,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "class Head(nn.Module):\n"
            "    def load_codebook(self, path):\n"
            '        self.codebook = torch.jit.load(path, map_location="cpu")\n',
            unsafe=True,
        ),
        Invalid(
            # A helper that model code calls is model code too.
            "import torch\nimport torch.nn as nn\n\n"
            "def pretrained(path):\n"
            '    return torch.hub.load_state_dict_from_url(path, map_location="mps")\n\n'
            "class Net(nn.Module):\n"
            "    def __init__(self, url):\n"
            "        super().__init__()\n"
            "        self.table = pretrained(url)\n",
            line=5,
            column=66,
            fixed="import torch\nimport torch.nn as nn\n\n"
            "def pretrained(path):\n"
            '    return torch.hub.load_state_dict_from_url(path, map_location="cpu")\n\n'
            "class Net(nn.Module):\n"
            "    def __init__(self, url):\n"
            "        super().__init__()\n"
            "        self.table = pretrained(url)\n",
            unsafe=True,
        ),
        Invalid(
            # `torch` under another name; a GPU given by its index.
            "import torch as th\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def on_fit_start(self):\n"
            '        self.prior = th.load("prior.pt", map_location=th.device("cuda", 1))\n',
            line=6,
            column=55,
            fixed="import torch as th\nimport pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def on_fit_start(self):\n"
            '        self.prior = th.load("prior.pt", map_location=self.device)\n',
        ),
    )

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """A candidate is a call of a ``MAP_LOCATION_METHODS`` method, or of what may resolve
        (through every binding its name may have had) to a ``MAP_LOCATION_LOADERS``
        function, whose ``map_location`` (by keyword, or at one of the positions it may
        have) may be a literal device or a call of ``torch.device`` with one first."""
        names = Bindings.of(found)
        return any(_may_load_onto_literal(call, names) for call in found.of_type(ast.Call))

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        assert isinstance(node, cst.Call)
        func = node.func
        position = None
        if isinstance(func, cst.Attribute):
            position = MAP_LOCATION_METHODS.get(func.attr.value)
            if position is None and func.attr.value not in _LOADER_NAMES:
                return  # most method calls: no name lookup (a bare name may be an alias)
        if position is None:
            position = MAP_LOCATION_LOADERS.get(context.qualified_name(func) or "")
        if position is None or context.in_checked_branch:
            return
        value = _map_location(node, position)
        if value is None:
            return
        found = _hardcoded(value, context)
        if found is None:
            return
        literal, pinned = found
        fixes = {
            "self_device": (replace(value, "self.device"),),
            "cpu": (replace(value, _cpu_like(value)),),
        }
        data = {"literal": literal, "pinned": "yes" if pinned else "", "cpu": _cpu_like(value)}
        if _fills_state_dict(context):
            data["state_dict"] = "yes"
        context.report(self.code, value, data=data, fixes=fixes)

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        literal = candidate.data["literal"]
        pinned = bool(candidate.data.get("pinned"))
        if scope.model_code:
            message = f"Checkpoint loaded onto the hard-coded device {literal} in model code"
            if scope.device_aware and not scope.in_init:
                fix = choose_fix(
                    candidate, "self_device", Applicability.SAFE, "Use `map_location=self.device`"
                )
                return Resolution(f"{message}; use `map_location=self.device`", fix)
        elif pinned and index.distributed.value:
            message = (
                f"Every process loads this checkpoint onto the same device {literal} "
                f"(the project trains distributed: {index.distributed.reason})"
            )
        else:
            return None
        shown = candidate.data.get("cpu", '"cpu"')
        cpu = f"`map_location={shown}`"
        if candidate.data.get("state_dict"):
            fix = choose_fix(candidate, "cpu", Applicability.SAFE, f"Use {cpu}")
            return Resolution(
                f"{message}; use {cpu}: `load_state_dict` copies onto the parameters' device",
                fix,
            )
        fix = choose_fix(candidate, "cpu", Applicability.UNSAFE, f"Use {cpu}")
        return Resolution(f"{message}; use {cpu} and move the tensors where they are used", fix)


def _may_load_onto_literal(call: ast.AST, names: Bindings) -> bool:
    """``visit``, generously: could it find a literal ``map_location`` in ``call``?"""
    assert isinstance(call, ast.Call)
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in MAP_LOCATION_METHODS:
        positions = {MAP_LOCATION_METHODS[func.attr]}
    elif isinstance(func, ast.Attribute) and func.attr not in _LOADER_NAMES:
        return False  # as in ``visit``: the callee's last name is the attribute's
    else:
        callees = names.resolutions(func)
        positions = {MAP_LOCATION_LOADERS[name] for name in callees & MAP_LOCATION_LOADERS.keys()}
    if not positions:
        return False
    values = [keyword.value for keyword in call.keywords if keyword.arg == "map_location"]
    for position in positions:
        leading = call.args[: position + 1]
        if len(leading) > position and not any(isinstance(a, ast.Starred) for a in leading):
            values.append(leading[position])
    return any(_may_be_hardcoded(value, names) for value in values)


def _may_be_hardcoded(value: ast.expr, names: Bindings) -> bool:
    """``_hardcoded`` of the same expression could find a literal device."""
    if isinstance(value, ast.Call) and names.may_be(value.func, _TORCH_DEVICE):
        value = value.args[0] if value.args else value
    return may_be_device_literal(value)


def _map_location(call: cst.Call, position: int) -> cst.BaseExpression | None:
    """The ``map_location`` argument, by keyword or at its position."""
    keyword = keyword_argument(call, "map_location")
    if keyword is not None:
        return keyword.value
    positional = []
    for arg in call.args:
        if arg.star:
            return None  # *args may hold anything from here on
        if arg.keyword is None:
            positional.append(arg)
    return positional[position].value if len(positional) > position else None


def _hardcoded(value: cst.BaseExpression, context: FileContext) -> tuple[str, bool] | None:
    """The literal device ``value`` names, and whether it names one GPU; None if none."""
    literal = device_literal(value)
    if literal is not None:
        return literal, isinstance(value, cst.Integer) or ":" in literal
    if not isinstance(value, cst.Call) or context.qualified_name(value.func) != "torch.device":
        return None
    first = first_positional(value)
    literal = device_literal(first.value) if first is not None else None
    if literal is None or isinstance(first.value if first else None, cst.Integer):
        return None  # torch.device(0) is rare; torch.device(rank) is computed
    positional = [arg for arg in value.args if arg.keyword is None]
    index = positional[1].value if len(positional) > 1 else None
    keyword = keyword_argument(value, "index")
    index = keyword.value if keyword is not None else index
    if index is not None and not isinstance(index, cst.Integer):
        return None  # torch.device("cuda", local_rank): chosen per process
    shown = context.code_for(value)
    return shown, index is not None or ":" in literal


def _cpu_like(value: cst.BaseExpression) -> str:
    """``"cpu"``, in the quotes the replaced literal used."""
    if isinstance(value, cst.Call):
        first = first_positional(value)
        value = first.value if first is not None else value
    quote = value.quote if isinstance(value, cst.SimpleString) else '"'
    return f"{quote}cpu{quote}" if quote in ('"', "'") else '"cpu"'


def _fills_state_dict(context: FileContext) -> bool:
    """The loaded object is the argument of ``load_state_dict(...)`` (without ``assign=``)."""
    ancestors = context.ancestors
    if len(ancestors) < 2 or not isinstance(ancestors[-1], cst.Arg):
        return False
    outer = ancestors[-2]
    if not isinstance(outer, cst.Call) or not isinstance(outer.func, cst.Attribute):
        return False
    if outer.func.attr.value != "load_state_dict":
        return False
    assign = keyword_argument(outer, "assign")
    return assign is None or (isinstance(assign.value, cst.Name) and assign.value.value == "False")
