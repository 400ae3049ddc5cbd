"""DEV005: ``from_pretrained(..., device_map="auto")`` in a project that trains distributed."""

from __future__ import annotations

import ast

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import DistributedSignal, SingleNode
from devlint.index import ProjectIndex
from devlint.nodes import (
    descendants,
    dotted_name,
    first_positional,
    in_main_guard,
    keyword_argument,
    loads_a_processor,
)
from devlint.rules._devices import (
    BINDING_TYPES,
    Bindings,
    device_literal,
    may_be_key,
    may_set_environment,
)
from devlint.rules._one_process import on_one_process
from devlint.rules.base import FileContext, Invalid, Rule, RuleSettings
from devlint.skeleton import Skeleton
from devlint.symbols import (
    ENVIRONMENTS,
    LOCAL_RANK_VARIABLE,
    LOOPBACK_HOSTS,
    MASTER_ADDRESS_VARIABLE,
    PROCESS_GROUP_INITS,
)

_PLACEMENT_STRATEGIES = frozenset({"auto", "balanced", "balanced_low_0", "sequential"})
"""``device_map`` strategies: accelerate spreads the model over every visible GPU."""

_TRAINERS = frozenset(
    f"{package}.{path}Trainer"
    for package in ("lightning.pytorch", "pytorch_lightning", "lightning")
    for path in ("", "trainer.", "trainer.trainer.")
)
_FABRICS = frozenset(
    f"{package}.{path}Fabric"
    for package in ("lightning.fabric", "lightning_fabric", "lightning")
    for path in ("", "fabric.")
)
_STRATEGY_PREFIXES = ("ddp", "fsdp", "deepspeed")
_STRATEGY_CLASSES = frozenset({"DDPStrategy", "FSDPStrategy", "DeepSpeedStrategy"})
_LAUNCHERS = {
    "accelerate.Accelerator": "Accelerator()",
    "accelerate.accelerator.Accelerator": "Accelerator()",
    "accelerate.PartialState": "PartialState()",
    "accelerate.state.PartialState": "PartialState()",
    "torch.distributed.init_process_group": "init_process_group()",
    "torch.distributed.distributed_c10d.init_process_group": "init_process_group()",
    "deepspeed.initialize": "deepspeed.initialize()",
    "deepspeed.init_distributed": "deepspeed.init_distributed()",
}
"""Calls that only make sense on several processes, and how the message names them."""
_WRAPPERS = {
    "torch.nn.parallel.DistributedDataParallel": "DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "DistributedDataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel": "FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel": (
        "FullyShardedDataParallel"
    ),
}
"""Distributed model wrappers: referencing one (called, imported, in ``isinstance``) counts."""
_WRAPPER_NAMES = frozenset(name.rpartition(".")[2] for name in _WRAPPERS)
_ENV_GETTERS = frozenset({"os.environ.get", "os.getenv"})
_PIPELINES = frozenset({"transformers.pipeline", "transformers.pipelines.pipeline"})
_LAUNCHER_KEYWORDS = frozenset({"strategy", "devices", "num_nodes"})
"""The keywords of a ``Trainer`` or ``Fabric`` that ``_launcher_evidence`` reads."""
_INTERESTING_CALLS = frozenset(
    name.rpartition(".")[2]
    for name in (*_TRAINERS, *_FABRICS, *_LAUNCHERS, *_ENV_GETTERS, *_PIPELINES)
) | {"from_pretrained"}
"""Last names of the callees this rule looks at: a cheap test before resolving imports."""
_LOCAL_RANK = LOCAL_RANK_VARIABLE
_LOCAL_RANK_READ = f"a `{_LOCAL_RANK}` read"
_SHOWN_CHARS = 40

_PIN_PER_RANK = 'device_map={"": int(os.environ.get("LOCAL_RANK", 0))}'

_TRIGGERS = (
    "device_map",
    *sorted({name.rpartition(".")[2] for name in (*_TRAINERS, *_FABRICS, *_WRAPPERS)}),
    *sorted(
        {
            name.partition(".")[0] if name.startswith("deepspeed.") else name.rpartition(".")[2]
            for name in _LAUNCHERS
        }
    ),
    _LOCAL_RANK,
    MASTER_ADDRESS_VARIABLE,
)


class DeviceMapUnderDistributed(Rule):
    """## What it does
    Finds `*.from_pretrained(..., device_map=...)` (and `transformers.pipeline(...,
    device_map=...)`) with a placement that is the same in every process:
    `"auto"`, `"balanced"`, `"balanced_low_0"`, `"sequential"`, a GPU index `0`,
    `"cuda"`/`"cuda:N"`, or a dict literal such as `{"": 0}` - in a project that
    trains on several processes. Evidence: a Lightning `Trainer` (or `Fabric`) with
    `strategy="ddp"`/`"fsdp"`/`"deepspeed..."` (or a `DDPStrategy(...)`,
    `FSDPStrategy(...)`, `DeepSpeedStrategy(...)`), `devices=` more than one GPU, or
    `num_nodes` > 1; `accelerate.Accelerator()` or `PartialState()`;
    `DistributedDataParallel` or `FullyShardedDataParallel`;
    `torch.distributed.init_process_group()`; reading `LOCAL_RANK` from the
    environment. Where it counts: for a model class (and what it calls), anywhere in
    the project, since trainers build their models from configurations no import
    shows; for other code, in its own file or in a module that imports it, directly
    or through others (the processes that may run it: an evaluation script or a web
    demo of their own are not under the training script's launcher). Test code, code
    under `if __name__ == "__main__":`, and the top-level code of a script that no
    module of the project imports, start their own processes: there only the file's
    own evidence counts; so does a function that only the `__main__` blocks of
    scripts run (a module run by its path, by a user or as a subprocess, is a
    process of its own even when the trainer imports it for something else). Code
    that runs in the first process only is not flagged: under `if rank == 0:`,
    `if local_rank in (-1, 0):`, `if accelerator.is_main_process:` (or
    `is_world_process_zero()`, `is_global_zero`), after `if not is_main_process:
    return`, or in a function decorated with `@rank_zero_only` or
    `@accelerator.on_main_process` (an export or an evaluation on rank 0).
    `distributed = true|false` in the configuration overrides the evidence.

    ## Why is this bad?
    `device_map` hands placement to accelerate, which attaches hooks to the model:
    before every forward they send the inputs to the hook's execution device,
    fixed when the model was loaded - GPU 0 (or the first GPU of the map) in
    every process. Under DDP each rank is meant to own one GPU: Lightning moves
    rank 1's weights to `cuda:1`, but the hooks still send its inputs to `cuda:0`,
    and the forward pass crashes with `Expected all tensors to be on the same
    device, but found at least two devices, cuda:0 and cuda:1!`. Moving the inputs
    by hand does not help: the hooks move them back. With `"auto"` every rank
    also loads a full copy of the model onto the same GPUs and runs out of memory.

    ## Example
    ```python
    # train.py
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")

    # wrapper.py
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    ```

    ## Use instead
    ```python
    # Let the trainer place the model (Lightning moves the LightningModule):
    model = AutoModelForCausalLM.from_pretrained(name)

    # or pin the model to this process's GPU:
    model = AutoModelForCausalLM.from_pretrained(
        name, device_map={"": int(os.environ.get("LOCAL_RANK", 0))}
    )

    # under accelerate:
    model = AutoModelForCausalLM.from_pretrained(
        name, device_map={"": PartialState().local_process_index}
    )
    ```

    ## Fix safety
    No automatic fix: whether the trainer should place the model or each rank
    should pin it depends on how the model is used (sharded inference, a frozen
    backbone inside a LightningModule, ...). `device_map="cpu"`, `None` and any
    value computed at run time (`{"": local_rank}`, `{"": accelerator.process_index}`)
    are not flagged, nor is any `device_map` in a project without sign of
    distributed training (single-process inference with `device_map="auto"` is
    the intended use), nor in a test or script whose own code shows none (a
    generation script or a unit test inside a project that also trains with DDP).
    A single-process function that library code runs can be silenced with
    `# noqa: DEV005`.
    """

    code = "DEV005"
    collects_facts = True  # DEV006 asks whether the project trains distributed
    name = "device-map-under-distributed"
    summary = "`device_map` that pins every rank to the same GPU, in a distributed project"
    node_types = ("Call", "Subscript", "Attribute", "ImportFrom")
    # A report is a `device_map=` keyword. A fact needs the last name of the callee or
    # wrapper it resolves to, which the text always holds (an alias binds a name written
    # in this file to a dotted name written in it too): `Trainer`, `Fabric`,
    # `Accelerator`, `PartialState`, `init_process_group`, `DistributedDataParallel`,
    # `FullyShardedDataParallel`; for deepspeed's calls the package (`initialize` is in
    # most files), there only a module of a package named `deepspeed` escapes; a
    # `LOCAL_RANK` read needs that string (the prefilter also reads literals' values).
    triggers = _TRIGGERS
    screen_types = (ast.Call, ast.Attribute, ast.Subscript, ast.Assign, *BINDING_TYPES)

    VALID = (
        # Single-process inference: `device_map="auto"` is what it is for.
        "import torch\n"
        "from transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
        'model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")\n'
        'tokenizer = AutoTokenizer.from_pretrained("gpt2")\n'
        'inputs = tokenizer("hi", return_tensors="pt").to(model.device)\n'
        "print(model.generate(**inputs))\n",
        # A processor has no weights to place: its `device_map` places nothing, also under
        # distributed training (INVALID: the model loaded beside it).
        "import pytorch_lightning as pl\nimport transformers\n"
        "from transformers import AutoProcessor\n\n"
        'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n'
        'processor = AutoProcessor.from_pretrained("m", device_map="auto")\n'
        'tokenizer = transformers.AutoTokenizer.from_pretrained("m", device_map="auto")\n',
        # Pinned per rank, from the environment or from accelerate.
        "import os\n"
        "from accelerate import Accelerator, PartialState\n"
        "from transformers import AutoModel\n\n"
        "accelerator = Accelerator()\n"
        "local_rank = int(os.environ['LOCAL_RANK'])\n"
        "a = AutoModel.from_pretrained(\n"
        '    "m", device_map={"": int(os.environ.get("LOCAL_RANK", 0))}\n'
        ")\n"
        'b = AutoModel.from_pretrained("m", device_map={"": local_rank})\n'
        'c = AutoModel.from_pretrained("m", device_map={"": accelerator.process_index})\n'
        'd = AutoModel.from_pretrained("m", device_map={"": PartialState().local_process_index})\n',
        # The CPU, nothing, or a value computed at run time.
        "import pytorch_lightning as pl\n"
        "from transformers import AutoModel\n\n"
        'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n'
        'a = AutoModel.from_pretrained("m", device_map="cpu")\n'
        'b = AutoModel.from_pretrained("m", device_map=None)\n'
        'c = AutoModel.from_pretrained("m", device_map=args.device_map)\n'
        'd = AutoModel.from_pretrained("m", device_map={"": 0, **extra})\n'
        'e = AutoModel.from_pretrained("m", **{"device_map": "auto"})\n',
        # Trainers that run one process: one device, "auto" strategy, DataParallel.
        "import lightning as L\n"
        "import torch\n"
        "from transformers import AutoModel\n\n"
        'one = L.Trainer(accelerator="gpu", devices=1, strategy="auto", num_nodes=1)\n'
        'listed = L.Trainer(devices=[0], precision="16-mixed")\n'
        'model = torch.nn.DataParallel(AutoModel.from_pretrained("m", device_map="auto"))\n',
        # Look-alikes of the evidence: HF's own Trainer, "ddp" outside a Trainer,
        # writing LOCAL_RANK, a Trainer class of the project itself.
        "import os\n"
        "from transformers import AutoModel, Trainer, TrainingArguments\n\n"
        'os.environ["LOCAL_RANK"] = "0"\n'
        'config = {"strategy": "ddp", "devices": 2}\n'
        'args = TrainingArguments("out", ddp_backend="nccl")\n'
        'trainer = Trainer(model=AutoModel.from_pretrained("m", device_map="auto"), args=args)\n\n'
        "class Runner:\n"
        "    def Trainer(self, strategy):\n"
        "        return strategy\n\n"
        'Runner().Trainer(strategy="ddp")\n',
        # A notebook: Lightning's Trainer runs (evidence), then a later cell binds the name
        # to Hugging Face's; nothing places a model.
        "from lightning.pytorch import Trainer\n\n"
        'trainer = Trainer(accelerator="gpu", devices=2, strategy="ddp")\n\n'
        "from transformers import Trainer\n",
        # Code that runs in the first process only: under a rank-0 or main-process test,
        # after the other processes left, or decorated to run on rank 0.
        "import torch.distributed as dist\n"
        "from accelerate import Accelerator\n"
        "from lightning.pytorch.utilities import rank_zero_only\n"
        "from transformers import AutoModel\n\n"
        "accelerator = Accelerator()\n\n"
        "def export(path, args):\n"
        "    if dist.get_rank() == 0:\n"
        '        AutoModel.from_pretrained(path, device_map="auto").save_pretrained("a")\n'
        "    if args.local_rank in (-1, 0) and args.merge:\n"
        '        AutoModel.from_pretrained(path, device_map="auto").save_pretrained("b")\n'
        "    if accelerator.process_index != 0:\n"
        "        pass\n"
        "    else:\n"
        '        AutoModel.from_pretrained(path, device_map="auto").save_pretrained("c")\n\n'
        "def convert(path, is_main_process=True):\n"
        "    if not is_main_process:\n"
        "        return None\n"
        '    return AutoModel.from_pretrained(path, device_map="auto")\n\n'
        "@rank_zero_only\n"
        "def evaluate(path):\n"
        '    return AutoModel.from_pretrained(path, device_map="auto")\n',
        # `device_map="mps"` has one device to choose from.
        "import torch.distributed as dist\n"
        "from transformers import AutoModel\n\n"
        'dist.init_process_group("gloo")\n'
        'model = AutoModel.from_pretrained("m", device_map="mps")\n',
    )
    INVALID = (
        Invalid(
            # The processor's look-alike (VALID): the model it serves has weights to place.
            "import pytorch_lightning as pl\n"
            "from transformers import AutoModelForVision2Seq, AutoProcessor\n\n"
            'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n'
            'processor = AutoProcessor.from_pretrained("m")\n'
            'model = AutoModelForVision2Seq.from_pretrained("m", device_map="auto")\n',
            line=6,
            column=64,
        ),
        Invalid(
            "import pytorch_lightning as pl\n"
            "from transformers import AutoModelForCausalLM\n\n"
            'trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n'
            'model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")\n',
            line=5,
            column=65,
        ),
        Invalid(
            "from lightning.pytorch import Trainer as T\n"
            "from lightning.pytorch.strategies import DDPStrategy\n"
            "from transformers import AutoModel\n\n"
            "def main():\n"
            '    model = AutoModel.from_pretrained("bert-base-uncased", device_map={"": 0})\n'
            "    T(strategy=DDPStrategy(find_unused_parameters=True)).fit(model)\n",
            line=6,
            column=71,
        ),
        Invalid(
            "import lightning as L\n"
            "from transformers import AutoModel\n\n"
            'trainer = L.Trainer(devices=[0, 1], precision="bf16-mixed")\n'
            'model = AutoModel.from_pretrained("m", device_map="cuda:0")\n',
            line=5,
            column=51,
        ),
        Invalid(
            "import pytorch_lightning\n"
            "from transformers import AutoModel\n\n"
            "trainer = pytorch_lightning.Trainer(devices=-1)\n"
            'model = AutoModel.from_pretrained("m", device_map="balanced")\n',
            line=5,
            column=51,
        ),
        Invalid(
            "from lightning import Trainer\n"
            "from transformers import AutoModel\n\n"
            'trainer = Trainer(accelerator="gpu", devices=4, num_nodes=2)\n'
            'model = AutoModel.from_pretrained("m", device_map=0)\n',
            line=5,
            column=51,
        ),
        Invalid(
            "from accelerate import Accelerator\n"
            "from transformers import AutoModelForSeq2SeqLM\n\n"
            "accelerator = Accelerator(mixed_precision='bf16')\n"
            'model = AutoModelForSeq2SeqLM.from_pretrained("t5-small", device_map="cuda")\n',
            line=5,
            column=70,
        ),
        Invalid(
            "import torch\n"
            "from torch.nn.parallel import DistributedDataParallel as DDP\n"
            "from transformers import AutoModel\n\n"
            "def build(rank):\n"
            '    model = AutoModel.from_pretrained("m", device_map={"": "cuda:0"})\n'
            "    return DDP(model, device_ids=[rank])\n",
            line=6,
            column=55,
        ),
        Invalid(
            "import torch\n"
            "import transformers\n\n"
            "def unwrap(model):\n"
            "    if isinstance(model, torch.nn.parallel.DistributedDataParallel):\n"
            "        return model.module\n"
            "    return model\n\n"
            'model = transformers.AutoModel.from_pretrained("m", device_map="balanced_low_0")\n',
            line=9,
            column=64,
        ),
        Invalid(
            "import os\n"
            "from transformers import AutoModel, pipeline\n\n"
            'rank = int(os.getenv("LOCAL_RANK", "0"))\n'
            'pipe = pipeline("text-generation", model="gpt2", device_map="sequential")\n',
            line=5,
            column=61,
        ),
        Invalid(
            "from lightning.fabric import Fabric\n"
            "from transformers import AutoModel\n\n"
            'fabric = Fabric(accelerator="cuda", devices="0,1", strategy="fsdp")\n'
            'model = AutoModel.from_pretrained("m", device_map={"encoder": 0, "decoder": "cpu"})\n',
            line=5,
            column=51,
        ),
        Invalid(
            "from os import environ\n"
            "from transformers import pipeline as hf_pipeline\n\n"
            'rank = int(environ.get("LOCAL_RANK", 0))\n'
            'pipe = hf_pipeline("text-generation", model="gpt2", device_map="auto")\n',
            line=5,
            column=64,
        ),
        Invalid(
            # The guard covers the message only: every rank loads the model.
            "from accelerate import Accelerator\n"
            "from transformers import AutoModel\n\n"
            "accelerator = Accelerator()\n\n"
            "def merge(path, rank):\n"
            "    if accelerator.is_main_process or rank == 1:\n"
            '        print("merging")\n'
            '    return AutoModel.from_pretrained(path, device_map="auto")\n',
            line=9,
            column=55,
        ),
    )

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """Each report or fact of ``visit`` needs one of these, with the callee (or the
        environment, or the wrapper) resolved through every binding its name may have
        had: a call of ``from_pretrained`` or a pipeline with a literal ``device_map=``, of
        a ``Trainer``/``Fabric`` given one of the keywords its evidence reads, of a
        launcher or an environment getter (``"LOCAL_RANK"`` among its arguments); a
        ``LOCAL_RANK`` subscript of ``os.environ`` (read or not); a wrapper named by an
        attribute, or by an import (where libcst sees attributes ``ast`` does not)."""
        names = Bindings.of(found)
        return (
            any(_may_report_or_signal(call, names) for call in found.of_type(ast.Call))
            or any(_may_name_wrapper(node, names) for node in found.of_type(ast.Attribute))
            or any(_may_read_local_rank(node, names) for node in found.of_type(ast.Subscript))
            or any(_may_set_loopback_master(node, names) for node in found.of_type(ast.Assign))
            or any(_may_start_group_by_rank(call, names) for call in found.of_type(ast.Call))
            or any(_imports_wrapper(node) for node in found.of_type(*BINDING_TYPES))
        )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if isinstance(node, cst.Call):
            self._visit_call(node, context)
        elif isinstance(node, cst.Attribute):
            if node.attr.value in _WRAPPER_NAMES:
                self._wrapper_reference(node, context)
        elif isinstance(node, cst.Subscript):
            self._environ_subscript(node, context)
        elif isinstance(node, cst.ImportFrom):
            self._import(node, context)

    # Evidence of distributed training ---------------------------------------------------

    def _signal(self, context: FileContext, description: str, node: cst.CSTNode) -> None:
        """One fact per kind of evidence and file is enough to name it."""
        seen = context.state(self).setdefault("signals", set())
        assert isinstance(seen, set)
        if description not in seen:
            seen.add(description)
            context.add_fact(DistributedSignal(description, 0), node)

    def _visit_call(self, node: cst.Call, context: FileContext) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value not in _INTERESTING_CALLS:
            return  # most method calls: no name lookup (a bare name may be an alias)
        qualified = context.qualified_name(func)
        if qualified is not None:
            if qualified in _TRAINERS or qualified in _FABRICS:
                evidence = _launcher_evidence(node, context)
                if evidence is not None:
                    short = qualified.rpartition(".")[2]
                    self._signal(context, f"`{short}({evidence})`", node)
            elif qualified in _LAUNCHERS:
                self._signal(context, f"`{_LAUNCHERS[qualified]}`", node)
                rank = keyword_argument(node, "rank") if qualified in PROCESS_GROUP_INITS else None
                if rank is not None and _reads_local_rank(rank.value, context):
                    description = "a process group started with the local rank"
                    context.add_fact(SingleNode(description), node)
            elif qualified in _ENV_GETTERS and _is_local_rank(first_positional(node)):
                self._signal(context, _LOCAL_RANK_READ, node)
        if _places_model(node, qualified):
            argument = keyword_argument(node, "device_map")
            if (
                argument is not None
                and _pins_one_placement(argument.value)
                and not on_one_process(context.ancestors)
            ):
                shown = context.code_for(argument.value)
                if len(shown) > _SHOWN_CHARS:
                    shown = shown[: _SHOWN_CHARS - 3] + "..."
                data = {"value": shown, "module": context.module_name}
                if context.scope.function_name is None and context.scope.class_name is None:
                    data["top_level"] = "1"
                if in_main_guard(context.ancestors):
                    data["main_guard"] = "1"
                context.report(self.code, argument.value, data=data)

    def _wrapper_reference(self, node: cst.Attribute, context: FileContext) -> None:
        wrapper = _WRAPPERS.get(context.qualified_name(node) or "")
        if wrapper is not None:
            self._signal(context, f"`{wrapper}`", node)

    def _import(self, node: cst.ImportFrom, context: FileContext) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        for alias in node.names:
            wrapper = _WRAPPERS.get(f"{module}.{dotted_name(alias.name)}")
            if wrapper is not None:
                self._signal(context, f"`{wrapper}`", node)

    def _environ_subscript(self, node: cst.Subscript, context: FileContext) -> None:
        """``os.environ["LOCAL_RANK"]`` read (not written) somewhere in the project; and
        ``os.environ["MASTER_ADDR"] = "localhost"``, a set-up on one machine."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        if _sets_a_loopback_master(context):
            context.add_fact(SingleNode(f"`{MASTER_ADDRESS_VARIABLE}` set to this host"), node)
            return
        if not _is_local_rank_string(node.slice[0].slice.value):
            return
        if context.qualified_name(node.value) != "os.environ":
            return
        parent = context.ancestors[-1] if context.ancestors else None
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)):
            return
        self._signal(context, _LOCAL_RANK_READ, node)

    # The candidate -----------------------------------------------------------------------

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        data = candidate.data
        module = data["module"]
        if "main_guard" in data or index.runs_alone(module, "top_level" in data):
            distributed = index.distributed_in(module)
        elif scope.model_code:
            distributed = index.distributed  # the trainer may build the model from a config
        elif scripts := _scripts_running(candidate, index):
            distributed = index.distributed_in(*sorted(scripts))
        else:
            distributed = index.distributed_importing(module)
        if not distributed.value:
            return None
        return Resolution(
            f"`device_map={candidate.data['value']}` under distributed training "
            f"({distributed.reason}) pins every rank to the same GPU; drop `device_map` "
            f"and let the trainer place the model, or use `{_PIN_PER_RANK}` "
            "(`PartialState().local_process_index` under accelerate)"
        )


def _scripts_running(candidate: Candidate, index: ProjectIndex) -> frozenset[str]:
    """The scripts whose ``__main__`` blocks alone run the function the call is in."""
    function = candidate.scope.function_name
    return index.scripts_running(function) if function is not None else frozenset()


def _may_report_or_signal(call: ast.AST, names: Bindings) -> bool:
    """``_visit_call``, generously: could it report ``call`` or record a signal for it?"""
    assert isinstance(call, ast.Call)
    func = call.func
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if isinstance(func, ast.Attribute) and func.attr not in _INTERESTING_CALLS:
        return False  # as in ``_visit_call``: the callee's last name is the attribute's
    callees = names.resolutions(func)
    places = (isinstance(func, ast.Attribute) and func.attr == "from_pretrained") or (
        not callees.isdisjoint(_PIPELINES)
    )
    return (
        (places and isinstance(keywords.get("device_map"), (ast.Constant, ast.Dict)))
        or not callees.isdisjoint(_LAUNCHERS)
        or (
            not callees.isdisjoint(_TRAINERS | _FABRICS)
            and not _LAUNCHER_KEYWORDS.isdisjoint(keywords)
        )
        or (not callees.isdisjoint(_ENV_GETTERS) and _mentions_local_rank(call))
    )


def _mentions_local_rank(call: ast.Call) -> bool:
    return any(
        isinstance(argument, ast.Constant) and argument.value == _LOCAL_RANK
        for argument in call.args
    )


def _may_name_wrapper(node: ast.AST, names: Bindings) -> bool:
    assert isinstance(node, ast.Attribute)
    return node.attr in _WRAPPER_NAMES and names.may_be(node, _WRAPPERS)


def _may_read_local_rank(node: ast.AST, names: Bindings) -> bool:
    assert isinstance(node, ast.Subscript)
    return may_be_key(node, _LOCAL_RANK) and names.may_be(node.value, ENVIRONMENTS)


def _imports_wrapper(node: ast.AST) -> bool:
    """An import naming a wrapper (``_import``), or a module path through one."""
    if isinstance(node, ast.ImportFrom):
        parts = [*(node.module or "").split("."), *(alias.name for alias in node.names)]
    else:
        assert isinstance(node, ast.Import)
        parts = [part for alias in node.names for part in alias.name.split(".")]
    return not _WRAPPER_NAMES.isdisjoint(parts)


def _places_model(call: cst.Call, qualified: str | None) -> bool:
    """A pipeline, or ``from_pretrained`` of what has weights to place: not a tokenizer's or
    a processor's (``AutoProcessor.from_pretrained(path, device_map="auto")`` places
    nothing; transformers passes the keyword on to no model)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "from_pretrained":
        loader = dotted_name(func.value) or ""
        return not loads_a_processor(loader.rpartition(".")[2])
    return qualified in _PIPELINES


def _pins_one_placement(value: cst.BaseExpression) -> bool:
    """A literal ``device_map`` that is the same in every process, and not only the CPU."""
    if isinstance(value, cst.SimpleString) and value.evaluated_value in _PLACEMENT_STRATEGIES:
        return True
    if isinstance(value, cst.Dict):
        values = []
        for element in value.elements:
            if not isinstance(element, cst.DictElement):
                return False  # ``**other``: unknown at lint time
            if not isinstance(element.value, (cst.SimpleString, cst.Integer)):
                return False  # computed per process
            values.append(element.value)
        return any(_accelerator(v) for v in values)
    return _accelerator(value)


def _accelerator(value: cst.BaseExpression) -> bool:
    """``0``, ``"cuda"``, ``"cuda:1"``: a GPU; ``"mps"`` has only one device to choose."""
    literal = device_literal(value)
    return literal is not None and not literal.strip("\"'").startswith("mps")


def _launcher_evidence(call: cst.Call, context: FileContext) -> str | None:
    """``strategy="ddp"``, ``devices=2``, ``num_nodes=2`` given to a Trainer or Fabric."""
    found = []
    for argument in call.args:
        if argument.keyword is None:
            continue
        key, value = argument.keyword.value, argument.value
        if key == "strategy":
            if isinstance(value, cst.SimpleString):
                text = value.evaluated_value
                if isinstance(text, str) and text.lower().startswith(_STRATEGY_PREFIXES):
                    found.append(f"strategy={value.value}")
            elif isinstance(value, cst.Call):
                strategy = (dotted_name(value.func) or "").rpartition(".")[2]
                if strategy in _STRATEGY_CLASSES:
                    found.append(f"strategy={strategy}(...)")
        elif key == "devices" and _several_devices(value):
            found.append(f"devices={context.code_for(value)}")
        elif key == "num_nodes":
            count = _integer(value)
            if count is not None and count > 1:
                found.append(f"num_nodes={count}")
    return ", ".join(found) or None


def _several_devices(value: cst.BaseExpression) -> bool:
    """``devices=2``, ``-1``, ``[0, 1]``, ``"0,1"``: one process per device."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return len(value.elements) > 1
    if isinstance(value, cst.SimpleString):
        text = value.evaluated_value
        if not isinstance(text, str):
            return False
        parts = [part for part in text.split(",") if part.strip()]
        if len(parts) > 1:
            return True
        text = text.strip()
        return text == "-1" or (text.isdigit() and int(text) > 1)
    count = _integer(value)
    return count is not None and (count > 1 or count == -1)


def _integer(value: cst.BaseExpression) -> int | None:
    if isinstance(value, cst.Integer):
        number = ast.literal_eval(value.value)
        return number if isinstance(number, int) else None
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
    ):
        number = _integer(value.expression)
        return None if number is None else -number
    return None


def _is_local_rank(argument: cst.Arg | None) -> bool:
    return argument is not None and _is_local_rank_string(argument.value)


def _is_local_rank_string(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.SimpleString) and value.evaluated_value == _LOCAL_RANK


def _may_set_loopback_master(assign: ast.AST, names: Bindings) -> bool:
    """What ``_sets_a_loopback_master`` may find: a loopback host assigned to a
    ``MASTER_ADDR`` key of what may be ``os.environ``."""
    return may_set_environment(assign, names, MASTER_ADDRESS_VARIABLE) in LOOPBACK_HOSTS


def _may_start_group_by_rank(call: ast.AST, names: Bindings) -> bool:
    """A call that may start a process group (``PROCESS_GROUP_INITS``) given ``rank=``."""
    assert isinstance(call, ast.Call)
    return any(k.arg == "rank" for k in call.keywords) and names.may_be(
        call.func, frozenset(PROCESS_GROUP_INITS)
    )


def _sets_a_loopback_master(context: FileContext) -> bool:
    """The subscript being visited is ``os.environ["MASTER_ADDR"]`` assigned a loopback
    host (``= "localhost"``): the processes meet on this machine."""
    ancestors = context.ancestors
    if len(ancestors) < 2 or not isinstance(ancestors[-1], cst.AssignTarget):
        return False
    assign, subscript = ancestors[-2], ancestors[-1].target
    if not isinstance(assign, cst.Assign) or not isinstance(subscript, cst.Subscript):
        return False
    value, index = assign.value, subscript.slice[0].slice
    return (
        isinstance(value, (cst.SimpleString, cst.ConcatenatedString))
        and value.evaluated_value in LOOPBACK_HOSTS
        and isinstance(index, cst.Index)
        and isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString))
        and index.value.evaluated_value == MASTER_ADDRESS_VARIABLE
        and context.qualified_name(subscript.value) == "os.environ"
    )


def _reads_local_rank(value: cst.BaseExpression, context: FileContext) -> bool:
    """``value`` reads ``LOCAL_RANK`` from the environment, itself or through a name the
    function assigns from it (``local_rank = int(os.getenv("LOCAL_RANK", 0))``)."""
    function = next(
        (n for n in reversed(context.ancestors) if isinstance(n, cst.FunctionDef)), None
    )
    sources: list[cst.CSTNode] = [value]
    if isinstance(value, cst.Name) and function is not None:
        sources += [
            assign.value
            for assign in descendants(function.body)
            if isinstance(assign, cst.Assign)
            and any(dotted_name(t.target) == value.value for t in assign.targets)
        ]
    return any(
        isinstance(node, cst.SimpleString) and node.evaluated_value == LOCAL_RANK_VARIABLE
        for source in sources
        for node in descendants(source)
    )
