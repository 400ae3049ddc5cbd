"""DEV010: a module-level ``DEVICE = torch.device("cuda")`` used inside model code."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import DeviceConstant, FileFacts, resolve_alias
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.nodes import dotted_name, first_positional, keyword_argument
from devlint.rules._devices import device_literal
from devlint.rules.base import (
    FileContext,
    Invalid,
    Rule,
    RuleSettings,
    Sighting,
    choose_fix,
    replace,
    where_the_device_is_known,
)
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import DEVICE_TYPES

_BOUND = "bound"
"""Note tag: the name is a parameter or a local variable of the function."""
_PLACED = "placed"
"""Note tag (per file): ``<class>@<constant>``, the file moves instances of the class there."""
_INSTANCES = "instances"
"""State key: (function, variable) -> the callee of ``variable = Callee(...)`` there."""
_DEVICE_KEYWORDS = ("device", "map_location")

_FACT_TRIGGERS = ("\ndevice\n", *(f'"{kind}' for kind in sorted(DEVICE_TYPES)))
"""A constant is ``torch.device(...)`` (the code holds that last name, however imported)
or a string starting with a device type (``"cuda:0"``; the code quotes string values)."""


class GlobalDeviceConstant(Rule):
    """## What it does
    Finds a module-level constant holding a literal accelerator device
    (`DEVICE = torch.device("cuda:0")`, `DEVICE = "cuda"`) used in code that already
    knows its device (model code, classes that store a device or a model, functions
    told their device, and what they call; see DEV001) in a device position:
    `.to(DEVICE)`, `device=DEVICE`, `torch.device(DEVICE)`, `map_location=DEVICE`.
    The constant may live in another file of the project (`from config import
    DEVICE`, `cfg.DEVICE` with `import config as cfg`).

    ## Why is this bad?
    It is a hard-coded device with extra steps: under distributed training every
    process imports the same module and gets the same `cuda:0`, so every rank
    sends its tensors to GPU 0 while its module lives on its own GPU
    (`Expected all tensors to be on the same device, but found at least two
    devices, cuda:0 and cuda:1!`); on a machine without CUDA it fails with `Torch
    not compiled with CUDA enabled`. Because the literal sits in a config module,
    a search for `"cuda"` in the model does not find it.

    ## Example
    ```python
    # config.py
    DEVICE = torch.device("cuda:0")

    # model.py
    from config import DEVICE

    class Model(pl.LightningModule):
        def forward(self, x):
            return self.net(x.to(DEVICE))
    ```

    ## Use instead
    ```python
    class Model(pl.LightningModule):
        def forward(self, x):
            return self.net(x.to(self.device))
    ```

    ## Fix safety
    In a class that has `.device` (LightningModule, PreTrainedModel, Metric, or a
    class defining `device`), replacing the use with `self.device` is safe: it is
    the device the module's parameters are on. In `__init__`, `setup` or
    `configure_model` the module is still on the CPU, so there is no fix; neither
    in a plain `nn.Module` (which has no `.device`) nor in a helper function.
    Not a constant: `torch.device("cuda" if torch.cuda.is_available() else "cpu")`,
    `"cpu"`, a name assigned more than once or declared `global` in a function,
    and one assigned under `if torch.cuda.is_available():`. Uses outside model code
    (scripts, data loading) and under a device check are not flagged, nor are
    parameters and local variables that happen to share the constant's name, nor
    the uses in a class whose instances the same file moves to that constant
    (`model = Model().to(DEVICE)` in a script: the constant is the script's one
    device, where the model's parameters are). In the module that defines the
    constant, uses are found below its definition.
    """

    code = "DEV010"
    name = "global-device-constant"
    summary = (
        'Module-level device constant such as `DEVICE = torch.device("cuda")` in a device context'
    )
    fix_safety = "safe"
    replaces_literal_devices = True
    node_types = (
        "Assign",
        "AnnAssign",
        "AugAssign",
        "Global",
        "Call",
        "Param",
        "For",
        "CompFor",
        "WithItem",
        "NamedExpr",
    )
    # No trigger for uses: a use of any imported name in a device position is a candidate,
    # and one naming another file's constant is a finding with no device word here:
    # `from config import GPU as G` ... `x.to(G)` (config.py: `GPU = "cuda"`).
    triggers = None
    only_in_model_code = True
    reports_in_device_context = True
    fact_triggers = _FACT_TRIGGERS

    def parse_anyway(self, found: Skeleton) -> bool:
        # Constants are module-level assignments (a `global` rebinding only unmakes one).
        return any(trigger in found.module_code for trigger in _FACT_TRIGGERS)

    screen_types = (ast.Call, ast.Import, ast.ImportFrom)

    def sightings(self, found: Skeleton, settings: RuleSettings) -> frozenset[Sighting]:
        """A candidate is a dotted name in a device position (``_visit_call``) whose head an
        import binds, or a bare name of a constant this module defines (it then has the
        constant's fact, which ``parse_anyway`` sees); its name is resolved as ``_use``
        does. The traversal resolves through the bindings seen so far, the skeleton holds
        the last: a head bound more than once may name anything."""
        aliases = found.facts.aliases
        own_constants = self.parse_anyway(found)
        rebound = _rebound_names(found)
        seen: set[Sighting] = set()
        for call in found.of_type(ast.Call):
            assert isinstance(call, ast.Call)
            for value in _device_arguments(call, aliases):
                name = dotted(value)
                if name is None:
                    continue
                head = name.partition(".")[0]
                if head in rebound:
                    seen.add(Sighting(found.scope_of(call)))
                elif head in aliases:
                    qualified = resolve_alias(name, aliases) or ""
                    seen.add(Sighting(found.scope_of(call), qualified))
                elif own_constants and isinstance(value, ast.Name):
                    seen.add(Sighting(found.scope_of(call), f"{found.facts.module}.{name}"))
        return frozenset(seen)

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        # `resolve` keeps only names of literal device constants, in a device context.
        if sightings is None:
            return super().may_report_in(facts, index, sightings)
        return any(
            (not sighting.name or _names_literal_constant(sighting.name, index))
            and self.in_scope(index.scope_info(sighting.scope))
            for sighting in sightings
        )

    VALID = (
        # Selection, the CPU, and a name that is rebound are not constants.
        "import torch\nimport torch.nn as nn\n\n"
        'DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
        'CPU = torch.device("cpu")\n'
        'FALLBACK = "cuda"\n'
        "if not torch.cuda.is_available():\n"
        '    FALLBACK = "cpu"\n\n'
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.to(DEVICE) + x.to(CPU) + x.to(FALLBACK)\n",
        # A constant used in a script, a data pipeline, or a checked branch.
        "import torch\nimport pytorch_lightning as pl\n\n"
        'DEVICE = torch.device("cuda:0")\n\n'
        "class Loader:\n"
        "    def load(self, path):\n"
        "        return torch.load(path, map_location=DEVICE)\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x):\n"
        "        if torch.cuda.is_available():\n"
        "            x = x.to(DEVICE)\n"
        "        return x\n\n"
        'if __name__ == "__main__":\n'
        "    M().to(DEVICE)\n",
        # Parameters and locals that share the constant's name.
        "import torch\nimport pytorch_lightning as pl\n\n"
        'DEVICE = "cuda"\n\n'
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, DEVICE=None):\n"
        "        return x.to(DEVICE)\n\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        DEVICE = batch.device\n"
        "        return torch.ones(3, device=DEVICE)\n\n"
        "    def validation_step(self, batch, batch_idx):\n"
        "        for DEVICE in [batch.device]:\n"
        "            batch = batch.to(DEVICE)\n"
        "        return batch\n",
        # A constant that a function may change is configuration, not a constant.
        "import torch\nimport torch.nn as nn\n\n"
        'DEVICE = torch.device("cuda")\n\n'
        "def set_device(device):\n"
        "    global DEVICE\n"
        "    DEVICE = device\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.to(DEVICE)\n",
        # Not a device position, or not a module-level name.
        "import torch\nimport pytorch_lightning as pl\n\n"
        'DEVICE = "cuda"\n'
        "SEED = 0\n\n"
        "class M(pl.LightningModule):\n"
        '    device_name = "cuda"\n\n'
        "    def forward(self, x):\n"
        "        self.log(DEVICE, x.sum())\n"
        "        torch.manual_seed(SEED)\n"
        "        return x.to(self.device_name), x.to(SEED)\n",
        # Asking which device a tensor is on places nothing.
        "import torch\nimport pytorch_lightning as pl\n\n"
        'DEVICE = torch.device("cuda")\n\n'
        "class M(pl.LightningModule):\n"
        "    def forward(self, x):\n"
        "        if x.device == torch.device(DEVICE):\n"
        "            return x\n"
        "        self.log('mem', torch.cuda.memory_allocated(device=DEVICE))\n"
        "        return x * 2\n",
        # A script that moves its model to the constant: the model's own uses agree with it.
        "import torch\nfrom torch import nn\n\n"
        'DEVICE = torch.device("cuda")\n\n'
        "class Scene(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.points = nn.Parameter(torch.rand(100, 3, device=DEVICE))\n\n"
        "    def forward(self):\n"
        "        return self.points * torch.ones(3, device=DEVICE)\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.to(DEVICE).sum()\n\n"
        "def main():\n"
        "    scene = Scene()\n"
        "    scene = scene.to(DEVICE)\n"
        "    return Head().to(DEVICE)(scene())\n",
        # A layer a helper found on the CPU, brought to a GPU to be quantised: the code
        # asked where the value is and chose (a helper's `get_device(x)` asks as `x.device`).
        "import torch\nfrom torch import nn\n\n"
        'CPU = torch.device("cpu")\n'
        'CUDA_0 = torch.device("cuda:0")\n\n'
        "def get_device(module):\n"
        "    return next(module.parameters()).device\n\n"
        "class Quantizer(nn.Module):\n"
        "    def quantize(self, layers, batch):\n"
        "        if get_device(layers[0]) == CPU:\n"
        "            layers[0] = layers[0].to(CUDA_0)\n"
        "        return layers[0](batch.to(get_device(layers[0])))\n",
        # An imported name that no module of the project defines as a device constant.
        "import torch\nimport pytorch_lightning as pl\nfrom .settings import accelerator as acc\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x):\n"
        '        return torch.load("w.pt", map_location=acc), x.to(acc, torch.float16)\n',
    )
    INVALID = (
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            'DEVICE = torch.device("cuda:0")\n\n'
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(DEVICE)\n",
            line=8,
            column=21,
            fixed="import torch\nimport pytorch_lightning as pl\n\n"
            'DEVICE = torch.device("cuda:0")\n\n'
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device)\n",
        ),
        Invalid(
            "import torch\nfrom lightning import LightningModule\n\n"
            'GPU: str = "cuda"\n\n'
            "class M(LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return torch.zeros(3, device=GPU) + batch\n",
            line=8,
            column=38,
            fixed="import torch\nfrom lightning import LightningModule\n\n"
            'GPU: str = "cuda"\n\n'
            "class M(LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        return torch.zeros(3, device=self.device) + batch\n",
        ),
        Invalid(
            "import torch\nfrom transformers import PreTrainedModel\n\n"
            'DEVICE = torch.device("mps")\n\n'
            "class M(PreTrainedModel):\n"
            "    def forward(self, x):\n"
            "        return x.to(torch.device(DEVICE), non_blocking=True)\n",
            line=8,
            column=21,
            fixed="import torch\nfrom transformers import PreTrainedModel\n\n"
            'DEVICE = torch.device("mps")\n\n'
            "class M(PreTrainedModel):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device, non_blocking=True)\n",
        ),
        # A plain nn.Module has no `.device`: reported without a fix.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            "DEVICE = torch.device(1)\n\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.ones(3).to(DEVICE)\n",
            line=8,
            column=37,
        ),
        # In `__init__` the module is still on the CPU: reported without a fix.
        Invalid(
            "import torch\nimport pytorch_lightning as pl\n\n"
            'DEVICE = "cuda:1"\n\n'
            "class M(pl.LightningModule):\n"
            "    def __init__(self, path):\n"
            "        super().__init__()\n"
            "        self.weights = torch.load(path, map_location=DEVICE)\n",
            line=9,
            column=54,
        ),
        # Moving another class's instances to the constant says nothing about this one.
        Invalid(
            "import torch\nfrom torch import nn\n\n"
            'DEVICE = torch.device("cuda")\n\n'
            "class Encoder(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x.to(DEVICE)\n\n"
            "class Decoder(nn.Module):\n"
            "    pass\n\n"
            "def main():\n"
            "    decoder = Decoder()\n"
            "    decoder.to(DEVICE)\n"
            "    return Encoder(), decoder\n",
            line=8,
            column=21,
        ),
        # `torch.device` imported under another name.
        Invalid(
            "from torch import device as place\nimport pytorch_lightning as pl\n\n"
            'GPU = "cuda:1"\n\n'
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(place(GPU))\n",
            line=8,
            column=21,
            fixed="from torch import device as place\nimport pytorch_lightning as pl\n\n"
            'GPU = "cuda:1"\n\n'
            "class M(pl.LightningModule):\n"
            "    def forward(self, x):\n"
            "        return x.to(self.device)\n",
        ),
        # `torch.device` imported by name.
        Invalid(
            "from torch import device, zeros\nfrom transformers import PreTrainedModel\n\n"
            'GPU = device("cuda", 1)\n\n'
            "class M(PreTrainedModel):\n"
            "    def forward(self, x):\n"
            "        return x + zeros(3, device=device(GPU))\n",
            line=8,
            column=36,
            fixed="from torch import device, zeros\nfrom transformers import PreTrainedModel\n\n"
            'GPU = device("cuda", 1)\n\n'
            "class M(PreTrainedModel):\n"
            "    def forward(self, x):\n"
            "        return x + zeros(3, device=self.device)\n",
        ),
    )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if isinstance(node, cst.Call):
            self._note_placement(node, context)
            self._visit_call(node, context)
            return
        at_module_level = context.scope.class_name is None and context.scope.function_name is None
        if isinstance(node, cst.Assign):
            _remember_instance(node, context, self)
            for target in node.targets:
                if at_module_level and isinstance(target.target, cst.Name):
                    self._define(target.target.value, node.value, node, context)
                else:
                    _note_bound(target.target, context)
        elif isinstance(node, cst.AnnAssign):
            if at_module_level and isinstance(node.target, cst.Name):
                if node.value is not None:
                    self._define(node.target.value, node.value, node, context)
            else:
                _note_bound(node.target, context)
        elif isinstance(node, cst.AugAssign):
            if at_module_level and isinstance(node.target, cst.Name):
                self._define(node.target.value, None, node, context)
            else:
                _note_bound(node.target, context)
        elif isinstance(node, cst.Global):
            for item in node.names:
                self._define(item.name.value, None, node, context)
        elif isinstance(node, cst.Param):
            context.note(_BOUND, node.name.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            _note_bound(node.target, context)
        elif isinstance(node, cst.WithItem):
            if node.asname is not None:
                _note_bound(node.asname.name, context)
        elif isinstance(node, cst.NamedExpr):
            _note_bound(node.target, context)

    # Definitions --------------------------------------------------------------------------

    def _define(
        self,
        name: str,
        value: cst.BaseExpression | None,
        node: cst.CSTNode,
        context: FileContext,
    ) -> None:
        """Record ``name = value`` at module level; a second binding unmakes the constant."""
        state = context.state(self)
        bound = state.setdefault("bound", set())
        constants = state.setdefault("constants", set())
        assert isinstance(bound, set) and isinstance(constants, set)
        qualified = f"{context.module_name}.{name}"
        if name in bound:
            if name in constants:  # the index keeps the last fact for a name
                constants.discard(name)
                context.add_fact(DeviceConstant(qualified, "", 0), node)
            return
        bound.add(name)
        literal = _constant_device(value, context) if value is not None else None
        if literal is not None and not context.in_checked_branch:
            constants.add(name)
            context.add_fact(DeviceConstant(qualified, literal, 0), node)

    # Uses ---------------------------------------------------------------------------------

    def _visit_call(self, node: cst.Call, context: FileContext) -> None:
        if context.scope.function_name is None or context.in_checked_branch:
            return
        if not (_may_place(node) or _calls_torch_device(node, context)):
            return  # most calls
        callee = context.qualified_name(node.func) or ""
        if callee.startswith("torch.cuda."):
            return  # torch.cuda.memory_allocated(device=DEVICE) asks, it places nothing
        if callee == "torch.device":
            first = first_positional(node)
            if first is not None and len(node.args) == 1 and not _is_query(context):
                self._use(first.value, node, context)
            return
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            first = first_positional(node)
            if first is not None:
                self._use(first.value, first.value, context)
        for keyword in _DEVICE_KEYWORDS:
            argument = keyword_argument(node, keyword)
            if argument is not None:
                self._use(argument.value, argument.value, context)

    def _note_placement(self, node: cst.Call, context: FileContext) -> None:
        """``Model().to(DEVICE)``, or ``model = Model()`` ... ``model.to(DEVICE)`` in the same
        function: the file puts the class's instances on the constant, so the class's own
        uses of it agree with where its parameters are (a script's one device)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "to"):
            return
        first = first_positional(node)
        keyword = keyword_argument(node, "device")
        target = first.value if first is not None else keyword.value if keyword else None
        constant = self._constant_named(target, context) if target is not None else None
        if constant is None:
            return
        receiver = func.value
        placed = None
        if isinstance(receiver, cst.Call):
            placed = _callee(receiver, context)
        elif isinstance(receiver, cst.Name):
            instances = context.state(self).get(_INSTANCES)
            if isinstance(instances, dict):
                placed = instances.get((context.scope.function_name, receiver.value))
        if placed is not None:
            context.note(_PLACED, f"{placed}@{constant}", per_file=True)

    def _constant_named(self, value: cst.BaseExpression, context: FileContext) -> str | None:
        """The qualified name ``value`` gives a module-level global, as ``_use`` reads it."""
        qualified = context.qualified_name(value)
        if qualified is not None:
            return qualified
        constants = context.state(self).get("constants")
        if isinstance(value, cst.Name) and isinstance(constants, set) and value.value in constants:
            return f"{context.module_name}.{value.value}"
        return None

    def _use(self, value: cst.BaseExpression, span: cst.CSTNode, context: FileContext) -> None:
        """``value`` in a device position: a candidate if it names a module-level global."""
        dotted = dotted_name(value)
        if dotted is None:
            return
        qualified = context.qualified_name(value)
        if qualified is None:
            # Not imported: ``self.device`` and ``args.device`` are no module's globals; a
            # bare name counts if this module defined it as a device constant above.
            constants = context.state(self).get("constants")
            if not isinstance(value, cst.Name) or not isinstance(constants, set):
                return
            if dotted not in constants:
                return
            qualified = f"{context.module_name}.{dotted}"
        head = dotted.partition(".")[0]
        unless = [(_BOUND, head)]
        if context.scope.class_name is not None:
            unless.append((_PLACED, f"{context.scope.class_name}@{qualified}"))
        context.report(
            self.code,
            span,
            data={"name": dotted, "qualified": qualified},
            fixes={"self_device": (replace(span, "self.device"),)},
            unless_noted=unless,
        )

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        if not self.in_scope(scope):
            return None
        constant = index.device_constant(candidate.data["qualified"])
        if constant is None or not constant.literal:
            return None
        where = f" (defined at {constant.path}:{constant.line})" if constant.path else ""
        message = (
            f"Global device constant `{candidate.data['name']}` = {constant.literal}{where} "
            f"{where_the_device_is_known(scope)}"
        )
        if scope.in_init and not scope.model_code:
            return Resolution(f"{message}: take it from the device or model it is given")
        if scope.in_init:
            return Resolution(
                f"{message}: the module is still on the CPU here; let the trainer move it"
            )
        if scope.device_aware:
            fix = choose_fix(candidate, "self_device", Applicability.SAFE, "Use `self.device`")
            return Resolution(f"{message}; use `self.device`", fix)
        return Resolution(f"{message}; derive it from an input tensor's `.device`")


def _may_place(call: cst.Call) -> bool:
    """``x.to(...)``, ``torch.device(...)``, or a ``device=``/``map_location=`` argument."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("to", "device"):
        return True
    if isinstance(func, cst.Name) and func.value == "device":
        return True  # from torch import device
    return any(
        arg.keyword is not None and arg.keyword.value in _DEVICE_KEYWORDS for arg in call.args
    )


def _calls_torch_device(call: cst.Call, context: FileContext) -> bool:
    """``torch.device`` imported under another name (``from torch import device as dev``)."""
    func = call.func
    return isinstance(func, cst.Name) and context.qualified_name(func) == "torch.device"


def _names_literal_constant(name: str, index: ProjectIndex) -> bool:
    constant = index.device_constant(name)
    return constant is not None and bool(constant.literal)


def _rebound_names(found: Skeleton) -> set[str]:
    """Names that imports written in two ways bind (perhaps to the same thing), or an
    import and a module-level ``def``, ``class`` or alias assignment (``D = cfg.GPU``):
    what makes an alias in the traversal."""
    sources = _import_sources(found)
    module = found.facts.module
    definitions = [c.name for c in found.facts.classes] + [f.name for f in found.facts.functions]
    for definition in definitions:
        owner, _, name = definition.rpartition(".")
        if owner == module:
            sources.setdefault(name, set()).add((-1, owner, name))
    for name, target in found.assigned_aliases:
        sources.setdefault(name, set()).add((-2, target, name))
    return {name for name, places in sources.items() if len(places) > 1}


def _import_sources(found: Skeleton) -> dict[str, set[tuple[int, str, str]]]:
    """What each name imports bind it to, as written (level, module, name): imports only."""
    sources: dict[str, set[tuple[int, str, str]]] = {}
    for node in found.of_type(ast.Import, ast.ImportFrom):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                sources.setdefault(bound, set()).add((0, "", alias.name if alias.asname else bound))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                place = (node.level, node.module or "", alias.name)
                sources.setdefault(alias.asname or alias.name, set()).add(place)
    return sources


def _device_arguments(call: ast.Call, aliases: Mapping[str, str]) -> Iterator[ast.expr]:
    """What ``_visit_call`` may read as a device: the first positional argument of
    ``x.to(...)`` and of ``torch.device(...)`` (``t.device(...)``, ``device(...)``, a name
    an import binds to it), and ``device=`` and ``map_location=`` values."""
    func = call.func
    placing = (isinstance(func, ast.Attribute) and func.attr in ("to", "device")) or (
        isinstance(func, ast.Name)
        and (func.id == "device" or resolve_alias(func.id, aliases) == "torch.device")
    )
    if placing and call.args and not isinstance(call.args[0], ast.Starred):
        yield call.args[0]
    for keyword in call.keywords:
        if keyword.arg in _DEVICE_KEYWORDS:
            yield keyword.value


def _constant_device(value: cst.BaseExpression, context: FileContext) -> str | None:
    """``"cuda:0"`` or ``torch.device("cuda", 0)``: the literal; anything computed: None."""
    if isinstance(value, cst.SimpleString):
        return device_literal(value)
    if isinstance(value, cst.Call) and context.qualified_name(value.func) == "torch.device":
        first = first_positional(value)
        if first is None:
            return None
        literal = device_literal(first.value)
        if literal is not None and isinstance(first.value, cst.Integer):
            return f"torch.device({literal})"  # an index of the default accelerator
        return literal
    return None


def _callee(call: cst.Call, context: FileContext) -> str | None:
    """What ``Model(...)`` calls: a name imports bind, or a class or function of this file."""
    qualified = context.qualified_name(call.func)
    if qualified is None and isinstance(call.func, cst.Name):
        return f"{context.module_name}.{call.func.value}"
    return qualified


def _remember_instance(node: cst.Assign, context: FileContext, rule: Rule) -> None:
    """``model = Model(...)``: what the variable holds, for ``_note_placement``."""
    value = node.value
    if len(node.targets) != 1 or not isinstance(value, cst.Call):
        return
    target = node.targets[0].target
    if not isinstance(target, cst.Name):
        return
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "to":
        return  # `model = model.to(DEVICE)` moves what the variable holds
    instances = context.state(rule).setdefault(_INSTANCES, {})
    assert isinstance(instances, dict)
    callee = _callee(value, context)
    key = (context.scope.function_name, target.value)
    if callee is None:
        instances.pop(key, None)
    else:
        instances[key] = callee


def _note_bound(target: cst.BaseExpression, context: FileContext) -> None:
    """Names a function binds (``x = ...``, ``for x in``, ``a, b = ...``) shadow globals."""
    if isinstance(target, cst.Name):
        context.note(_BOUND, target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _note_bound(element.value, context)
    elif isinstance(target, cst.StarredElement):
        _note_bound(target.value, context)


def _is_query(context: FileContext) -> bool:
    """``x.device == torch.device(DEVICE)`` asks where a tensor is; it places nothing."""
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    return isinstance(parent, (cst.Comparison, cst.ComparisonTarget))
