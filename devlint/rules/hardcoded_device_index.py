"""DEV009: a GPU index written into code that is not a script's entry point."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache
from itertools import pairwise

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import FirstChosenGpuCurrent, FixedCurrentGpu, Reference
from devlint.index import ProjectIndex, is_test_module
from devlint.nodes import (
    dotted_name,
    earlier_statements,
    first_positional,
    in_main_guard,
    iter_children,
    keyword_argument,
)
from devlint.rules._devices import (
    BINDING_TYPES,
    Bindings,
    may_be_device_literal,
    may_set_environment,
)
from devlint.rules._first_chosen_gpu import first_of_a_list
from devlint.rules.base import FileContext, Invalid, Rule, RuleSettings
from devlint.skeleton import Skeleton
from devlint.symbols import (
    BARRIER_FUNCTIONS,
    CUDA_VISIBLE_DEVICES,
    DDP_CLASSES,
    DDP_DEVICE_KEYWORDS,
    DEVICE_ARGUMENT_MOVES,
    DEVICE_TYPES,
    GLOBAL_RANK_NAMES,
    GLOBAL_RANK_VARIABLES,
    LOCAL_RANK_NAMES,
    SET_DEVICE_FUNCTIONS,
)

_LOCAL_RANK = 'int(os.environ["LOCAL_RANK"])'
_ENVIRONMENT_SETTERS = frozenset({"os.environ.update", "os.putenv"})
"""Calls that set environment variables; ``os.environ.setdefault`` keeps what the
launcher set, so it is a default the user can override, not a hard-coded choice."""
_TORCH_DEVICE = frozenset({"torch.device"})
_TAKING_A_DEVICE = _TORCH_DEVICE | SET_DEVICE_FUNCTIONS
"""Callees whose positional arguments ``visit`` reads as a device (or its index)."""
_PINNING_CALLS = DDP_CLASSES | BARRIER_FUNCTIONS
"""Calls whose ``DDP_DEVICE_KEYWORDS`` keywords name the GPU each process uses."""
_RANK_WORDS = GLOBAL_RANK_NAMES | GLOBAL_RANK_VARIABLES
_TRIGGERS = tuple(
    sorted(
        {name.rpartition(".")[2] for name in SET_DEVICE_FUNCTIONS}  # set_device
        | {
            k
            for k in DDP_DEVICE_KEYWORDS
            if not any(o != k and o in k for o in DDP_DEVICE_KEYWORDS)
        }
        | {CUDA_VISIBLE_DEVICES}
        | {k for k in _RANK_WORDS if not any(o != k and o in k for o in _RANK_WORDS)}
    )
)
"""Names every candidate spells: see ``HardcodedDeviceIndex.triggers``."""


class HardcodedDeviceIndex(Rule):
    """## What it does
    Finds a literal GPU index given to `torch.cuda.set_device(0)`, to
    `DistributedDataParallel(..., device_ids=[0], output_device=0)` (or
    `FullyShardedDataParallel(..., device_id=0)`), and a literal
    `os.environ["CUDA_VISIBLE_DEVICES"] = "0"` (also through `os.environ.update`
    and `os.putenv`), in code that is not a script's entry point: library
    functions, module-level code of modules that other modules import, methods.
    Also a GPU chosen by the process's global rank: `dist.get_rank()` (any
    `get_rank()`), `self.global_rank`, `process_index`, `os.environ["RANK"]` (or
    `SLURM_PROCID`, `OMPI_COMM_WORLD_RANK`, `PMI_RANK`), or a variable of the function
    assigned only these, given to `set_device`, to `device_ids=`/`output_device=`/
    `device_id=` (also of `torch.distributed.barrier`), to `.to()`, `.cuda()`,
    `device=` or `torch.device()`, directly or as `f"cuda:{rank}"` / `"xpu:" + str(rank)`,
    also in a branch that checks the device type exists (`if is_musa_available():`).

    ## Why is this bad?
    Under `torchrun`, `accelerate launch` or Lightning every process trains on its
    own GPU, and the launcher tells it which (`LOCAL_RANK`, a per-process
    `CUDA_VISIBLE_DEVICES`). A hard-coded `set_device(0)` or `device_ids=[0]`
    puts every process on GPU 0: the other GPUs idle while GPU 0 runs out of
    memory, or NCCL fails with `Duplicate GPU detected`. The global rank counts the
    processes of every node: on the second node of eight GPUs it is 8 to 15, GPUs that
    are not there (`invalid device ordinal`); the local rank is the index. Setting
    `CUDA_VISIBLE_DEVICES` from library code silently overrides what the launcher
    (or the user, on the command line) chose, and does nothing at all once CUDA is
    initialised.

    ## Example
    ```python
    # mylib/distributed.py
    def init_distributed():
        dist.init_process_group("nccl")
        torch.cuda.set_device(0)

    def wrap(model):
        return DistributedDataParallel(model, device_ids=[0])
    ```

    ## Use instead
    ```python
    # mylib/distributed.py
    def init_distributed():
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        return local_rank

    def wrap(model, local_rank):
        return DistributedDataParallel(model, device_ids=[local_rank])
    ```
    Or let the trainer (Lightning, accelerate) place each process and wrap the model.

    ## Fix safety
    No fix: the right index comes from the launcher, and where to read it is the
    author's decision. The message says what to use instead.

    The entry point is the user's explicit choice and is not flagged: code under
    `if __name__ == "__main__":` and, in a module that no module of the project
    imports (a script), its top level and the functions only that code calls (all
    of its functions, when it has a `__main__` block). Code in a module that other
    modules import is library code and is flagged whoever calls it: another script
    or launcher may run it tomorrow. So is a function that nothing in the project
    calls (an API, a callback). Test modules (`test_*.py`, `*_test.py`,
    `conftest.py`, modules of a `tests` package) are a test runner's entry points
    and are not flagged either. Also not flagged: an index computed at run time
    (`set_device(local_rank)`), a rank mapped onto the node's GPUs
    (`rank % torch.cuda.device_count()`, right when each node runs one process per GPU
    in rank order, as launchers do), a rank the function receives as a parameter
    (`mp.spawn` on one node passes the local one), a global rank in a project whose own
    distributed set-up runs on one machine (`os.environ["MASTER_ADDR"] = "localhost"`, or
    `init_process_group(..., rank=local_rank)` with `LOCAL_RANK` read into it: there the
    global rank is the local one; DEV005 collects that evidence), a literal used as the
    fallback in an `except` handler whose `try` sets the device from a computed index,
    `os.environ.setdefault(...)` (a default the launcher overrides),
    `CUDA_VISIBLE_DEVICES` set to `""` or `"-1"` (no GPU at all), GPU 0 after the
    function set `CUDA_VISIBLE_DEVICES` to a value computed at run time
    (`str(local_rank)`: the process sees its own GPU alone, as GPU 0), code under
    `if torch.cuda.is_available():` or a `device_count()` check, and an index in a branch
    that only the process of that local rank runs (`if local_rank == 0:
    dist.barrier(device_ids=[0])`).
    """

    code = "DEV009"
    name = "hardcoded-device-index"
    summary = (
        "GPU index written in or taken from the global rank (`set_device(0)`, `device_ids=[rank]`)"
    )
    fix_safety = "none"
    node_types = ("Call", "Assign", "Import")
    # `torch.cuda.set_device` is resolved from names written in the file (a relative import
    # inside a package named `torch` aside): it spells `set_device`. A DDP/FSDP report
    # spells its keyword (`device_id` is in `device_ids`; rarer than the class names). An
    # environment report names `CUDA_VISIBLE_DEVICES` as a keyword or a string, whose value
    # the prefilter also reads as Python does (`"CUDA_" "VISIBLE_DEVICES"`, escapes); it is
    # rarer than `environ` and `putenv`, which those reports spell too. The facts of
    # `_record_module_level` and `_record_import` are structural (the ast walk's): no trigger.
    triggers = _TRIGGERS
    records_references = True
    collects_facts = True  # DEV001 asks which callers are scripts' code (entry_only)
    screen_types = (ast.Call, ast.Assign, *BINDING_TYPES)

    VALID = (
        # A script's entry point chooses the GPU: the guard, and functions only it calls.
        "import os\nimport torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        "def setup():\n"
        "    torch.cuda.set_device(0)\n\n"
        "def main(model):\n"
        "    setup()\n"
        "    return DDP(model, device_ids=[0], output_device=0)\n\n"
        'if __name__ == "__main__":\n'
        '    os.environ["CUDA_VISIBLE_DEVICES"] = "1"\n'
        "    main(None)\n",
        # Indices chosen at run time, defaults the launcher overrides, and no GPU at all.
        "import os\nimport torch\nimport torch.distributed as dist\n\n"
        "def init(model):\n"
        '    local_rank = int(os.environ["LOCAL_RANK"])\n'
        "    torch.cuda.set_device(local_rank)\n"
        '    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")\n'
        '    os.environ["CUDA_VISIBLE_DEVICES"] = ""\n'
        "    return torch.nn.parallel.DistributedDataParallel(\n"
        "        model, device_ids=[local_rank], output_device=local_rank\n"
        "    )\n",
        # The process made its own GPU the only one it sees: GPU 0 is that GPU.
        "import os\nimport torch\n\n"
        "def init(local_rank):\n"
        '    os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)\n'
        "    torch.cuda.set_device(0)\n",
        # A checked, explicit single-GPU choice; a fallback when no index was given.
        "import torch\n\n"
        "def init():\n"
        "    if torch.cuda.device_count() == 1:\n"
        "        torch.cuda.set_device(0)\n\n"
        "def init_from(device: str):\n"
        "    try:\n"
        '        torch.cuda.set_device(int(device.split(":")[1]))\n'
        "    except IndexError:\n"
        "        torch.cuda.set_device(0)\n",
        # Top-level code of a script that nothing imports.
        'import os\n\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n',
        # The local rank, a rank mapped onto the node's GPUs, a rank given as a parameter.
        "import os\nimport torch\nimport torch.distributed as dist\n\n"
        "def init(model, rank):\n"
        "    global_rank = dist.get_rank()\n"
        '    local_rank = int(os.environ["LOCAL_RANK"])\n'
        "    torch.cuda.set_device(global_rank % torch.cuda.device_count())\n"
        '    model.to(f"cuda:{local_rank}")\n'
        "    dist.barrier(device_ids=[local_rank])\n"
        '    print(f"cuda:{global_rank}", global_rank)\n'
        "    return torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])\n",
        # A project whose own set-up runs on one machine (the rendezvous on this host, or
        # the local rank given as the rank): its global rank is the local one.
        "import os\nimport torch\nimport torch.distributed as dist\n\n"
        "def start(rank, world_size):\n"
        '    os.environ["MASTER_ADDR"] = "localhost"\n'
        '    dist.init_process_group("nccl", rank=rank, world_size=world_size)\n\n'
        "def load(path):\n"
        '    return torch.load(path, map_location=torch.device("cuda", dist.get_rank()))\n',
        "import os\nimport torch.distributed as dist\n"
        "from torch.nn.parallel import DistributedDataParallel\n\n"
        "def init():\n"
        '    local_rank = int(os.getenv("LOCAL_RANK", 0))\n'
        '    dist.init_process_group(backend="nccl", rank=local_rank)\n\n'
        "def wrap(model):\n"
        "    rank = dist.get_rank()\n"
        "    return DistributedDataParallel(model, device_ids=[rank])\n",
        # Only the process whose local rank is that index runs the branch: its own GPU.
        "import torch\nimport torch.distributed as dist\n\n"
        "def first_waits(local_rank):\n"
        "    if local_rank == 0:\n"
        "        dist.barrier(device_ids=[0])\n\n"
        "def pin_first(args):\n"
        "    if args.local_rank == 1:\n"
        "        torch.cuda.set_device(1)\n",
    )
    INVALID = (
        Invalid(
            "import torch\n\ndef init_distributed():\n    torch.cuda.set_device(0)\n",
            line=4,
            column=27,
        ),
        # A branch for one local rank names another GPU; the first process of a group (or of
        # all, on another node's count) may be on any GPU.
        Invalid(
            "import torch.distributed as dist\n\n"
            "def first_waits(local_rank):\n"
            "    if local_rank == 0:\n"
            "        dist.barrier(device_ids=[1])\n",
            line=5,
            column=33,
        ),
        Invalid(
            "import torch\nimport torch.distributed as dist\n\n"
            "def pin(group):\n"
            "    if dist.get_rank(group) == 0:\n"
            "        torch.cuda.set_device(0)\n",
            line=6,
            column=31,
        ),
        Invalid(
            "from torch.nn.parallel import DistributedDataParallel\n\n"
            "def wrap(model):\n"
            "    return DistributedDataParallel(model, device_ids=[0], output_device=0)\n",
            line=4,
            column=54,
        ),
        Invalid(
            "import os\n\n"
            "class Launcher:\n"
            "    def configure(self):\n"
            '        os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n',
            line=5,
            column=46,
        ),
        Invalid(
            "import torch\nfrom torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n\n"
            "class Strategy:\n"
            "    def wrap(self, model):\n"
            '        torch.cuda.set_device("cuda:1")\n'
            "        return FSDP(model, device_id=torch.cuda.current_device())\n",
            line=6,
            column=31,
        ),
        Invalid(
            "import os\n\n"
            "def configure():\n"
            '    os.environ.update({"CUDA_VISIBLE_DEVICES": "2", "OMP_NUM_THREADS": "4"})\n',
            line=4,
            column=48,
        ),
        Invalid(
            # The global rank as a GPU index: past the last GPU on the second node.
            "import os\nimport torch\n\n"
            "def init_npu():\n"
            '    rank = int(os.environ["RANK"])\n'
            "    torch.npu.set_device(rank)\n",
            line=6,
            column=26,
        ),
        Invalid(
            # A branch that checks the device type exists does not make the rank local.
            "import os\nimport torch\nfrom mmengine.device import is_musa_available\n\n"
            "def init_dist():\n"
            '    rank = int(os.environ["RANK"])\n'
            "    if is_musa_available():\n"
            "        torch.musa.set_device(rank)\n",
            line=8,
            column=31,
        ),
        Invalid(
            "import torch\nimport torch.distributed as dist\n\n"
            "class PipelineModule(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.global_rank = dist.get_rank()\n"
            '        self.to(f"cuda:{self.global_rank}")\n',
            line=8,
            column=17,
        ),
        Invalid(
            "import torch\n\n"
            "class Backend:\n"
            "    def new_group(self, ranks):\n"
            "        rank = self.get_rank()\n"
            '        return torch.tensor(ranks).to("xpu:" + str(rank))\n',
            line=6,
            column=39,
        ),
        Invalid(
            "import torch.distributed as dist\n\n"
            "class State:\n"
            "    def wait_for_everyone(self):\n"
            "        dist.barrier(device_ids=[self.process_index])\n",
            line=5,
            column=33,
        ),
        Invalid(
            # A rendezvous on a host the caller names: the ranks may span nodes.
            "import os\nimport torch.distributed as dist\n"
            "from torch.nn.parallel import DistributedDataParallel\n\n"
            "def start(host):\n"
            '    os.environ["MASTER_ADDR"] = host\n'
            '    dist.init_process_group("nccl")\n\n'
            "def wrap(model):\n"
            "    return DistributedDataParallel(model, device_ids=[dist.get_rank()])\n",
            line=10,
            column=54,
        ),
        Invalid(
            "from os import environ\n\n"
            "def pin_first_gpu():\n"
            '    environ["CUDA_VISIBLE_DEVICES"] = "0"\n',
            line=4,
            column=39,
        ),
    )

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """A candidate (the References are the skeleton's) is a call of what may resolve,
        through every binding its name may have had, to a ``SET_DEVICE_FUNCTIONS``
        function given a GPU that may be literal, to a ``DDP_CLASSES`` wrapper given one
        (or a list holding one) by a ``DDP_DEVICE_KEYWORDS`` keyword, or to an environment
        setter; or a string assigned to ``CUDA_VISIBLE_DEVICES`` of what may be
        ``os.environ``."""
        names = Bindings.of(found)
        if any(_may_pin_gpu(call, names) for call in found.of_type(ast.Call)) or any(
            _may_set_visible_devices(assign, names) for assign in found.of_type(ast.Assign)
        ):
            return True
        ranks = _may_hold_rank(found)
        return any(_may_use_rank(call, names, ranks) for call in found.of_type(ast.Call))

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        at_module_level = context.scope.function_name is None
        if isinstance(node, cst.Assign):
            self._visit_assign(node, context)
            return
        if isinstance(node, cst.Import):
            self._record_import(node, context)
            return
        assert isinstance(node, cst.Call)
        if at_module_level:
            self._record_module_level(node, context)
        # A branch that checks a device type exists chooses that type, and its literal
        # index with it; a global rank there is still past the node's last GPU.
        checked = context.in_checked_branch
        callee = context.qualified_name(node.func) or ""
        if callee in SET_DEVICE_FUNCTIONS:
            argument = first_positional(node) or keyword_argument(node, "device")
            if argument is None:
                return
            choice = first_of_a_list(argument.value)
            if choice is not None and callee == "torch.cuda.set_device":
                context.add_fact(FirstChosenGpuCurrent(choice), node)  # the user's first GPU
            if _device_index(argument.value, context) is None:
                self._report_rank(context, argument.value, _global_rank(argument.value, context))
                return
            own = _own_gpu(argument.value, context)
            if not checked and not own and not _fallback(callee, context):
                # whatever the rank: not each process's (a fallback or a checked branch is)
                context.add_fact(FixedCurrentGpu(), node)
                self._report(context, argument.value, "set_device")
        elif callee in _PINNING_CALLS:
            for keyword in DDP_DEVICE_KEYWORDS:
                argument = keyword_argument(node, keyword)
                if argument is None:
                    continue
                pins = _pins_gpu(argument.value, context)
                if not checked and pins and not _own_gpu(argument.value, context):
                    barrier = callee in BARRIER_FUNCTIONS
                    self._report(context, argument.value, "barrier" if barrier else keyword)
                    return  # one finding per wrapper
                if self._report_rank(context, argument.value, _rank_among(argument.value, context)):
                    return
        elif callee in _ENVIRONMENT_SETTERS:
            value = _visible_devices_argument(node)
            if not checked and value is not None and _visible_devices_literal(value):
                self._report(context, value, "environment")
        else:
            for device in _device_arguments(node, callee):
                self._report_rank(context, device, _rank_device(device, context))

    def _visit_assign(self, node: cst.Assign, context: FileContext) -> None:
        if context.in_checked_branch or not _visible_devices_literal(node.value):
            return
        if _sets_visible_devices(node, context):
            self._report(context, node.value, "environment")

    def _record_module_level(self, call: cst.Call, context: FileContext) -> None:
        """Module-level calls (and functions handed over there) for the index's call graph."""
        guarded = in_main_guard(context.ancestors)
        names = [call.func, *(arg.value for arg in call.args)]
        seen = context.state(self).setdefault("references", set())
        assert isinstance(seen, set)
        for value in names:
            dotted = dotted_name(value)
            if dotted is None:
                continue
            callee = context.qualified_name(value)
            if callee is None:
                if "." in dotted:
                    continue
                callee = f"{context.module_name}.{dotted}"
            key = (callee, guarded)
            if key not in seen:
                seen.add(key)
                context.add_fact(Reference(callee, main_guard=guarded))  # no line: no positions

    def _record_import(self, node: cst.Import, context: FileContext) -> None:
        """``import pkg.env`` runs ``pkg/env.py``; the file's aliases only show ``pkg``."""
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is not None and "." in name and alias.asname is None:
                caller = context.scope.function_name or ""
                guarded = in_main_guard(context.ancestors)
                context.add_fact(Reference(name, caller, main_guard=guarded))

    def _report_rank(self, context: FileContext, node: cst.CSTNode, rank: str | None) -> bool:
        """Report ``node``, a device index computed from ``rank`` (the global rank)."""
        if rank is None:
            return False
        self._report(context, node, "rank", rank=rank)
        return True

    def _report(self, context: FileContext, node: cst.CSTNode, what: str, rank: str = "") -> None:
        if context.scope.function_name is not None:
            where = "function"
        elif in_main_guard(context.ancestors):
            where = "guard"
        else:
            where = "module"
        context.report(
            self.code,
            node,
            data={
                "what": what,
                "literal": context.code_for(node),
                "where": where,
                "module": context.module_name,
                "rank": rank,
            },
        )

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        data = candidate.data
        if data["where"] == "guard" or is_test_module(data["module"]):
            return None
        if data["where"] == "module" and not index.imported(data["module"]):
            return None
        function = candidate.scope.function_name
        if data["where"] == "function" and function is not None and index.entry_only(function):
            return None
        literal, what = data["literal"], data["what"]
        if what == "rank" and index.single_node is not None:
            return None  # the project's own set-up runs on one machine: the rank is local
        if what == "rank":
            return Resolution(
                f"`{literal}` uses the global rank (`{data['rank']}`) as a device index: on "
                "every node but the first it names a GPU that is not there; use the local "
                f"rank, `{_LOCAL_RANK}`"
            )
        if what == "set_device":
            return Resolution(
                f"`torch.cuda.set_device({literal})` puts every process on the same GPU; "
                f"use the launcher's `{_LOCAL_RANK}`, or let the trainer set the device"
            )
        if what == "barrier":
            return Resolution(
                f"`device_ids={literal}` makes every process's barrier run on the same GPU; "
                f"use `device_ids=[local_rank]` with `local_rank = {_LOCAL_RANK}`"
            )
        if what == "environment":
            return Resolution(
                f"`{CUDA_VISIBLE_DEVICES}` = {literal} outside the script's entry point "
                "overrides the GPUs the launcher gave each process; set it on the command "
                'line or under `if __name__ == "__main__":`'
            )
        return Resolution(
            f"`{what}={literal}` puts every process's replica on the same GPU; use "
            f"`{what}={'[local_rank]' if what == 'device_ids' else 'local_rank'}` with "
            f"`local_rank = {_LOCAL_RANK}`, or let the trainer wrap the model"
        )


def _may_pin_gpu(call: ast.AST, names: Bindings) -> bool:
    assert isinstance(call, ast.Call)
    callees = names.resolutions(call.func)
    if not callees.isdisjoint(_ENVIRONMENT_SETTERS):
        return True
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if not callees.isdisjoint(SET_DEVICE_FUNCTIONS):
        given = [*call.args[:1], *([keywords["device"]] if "device" in keywords else [])]
        if any(_may_be_index(value, names) or _first_element(value) for value in given):
            return True  # a literal GPU, or the first of a list (``FirstChosenGpuCurrent``)
    if not callees.isdisjoint(_PINNING_CALLS):
        for keyword in DDP_DEVICE_KEYWORDS:
            value = keywords.get(keyword)
            elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            if any(_may_be_index(element, names) for element in elements):
                return True
    return False


def _first_element(node: ast.AST) -> bool:
    """``gpu_ids[0]``: what ``first_of_a_list`` may name."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
        and node.slice.value == 0
    )


def _may_hold_rank(found: Skeleton) -> set[str]:
    """Names of the file that ``_global_rank`` may read as a global rank: those assigned
    an expression that spells a rank word or another such name (to a fixed point)."""
    assigns = [node for node in found.of_type(ast.Assign) if isinstance(node, ast.Assign)]
    ranks: set[str] = set()
    while True:
        more = {
            target.id
            for assign in assigns
            if _spells_rank(assign.value, ranks)
            for target in assign.targets
            if isinstance(target, ast.Name) and target.id not in ranks
        }
        if not more:
            return ranks
        ranks |= more


def _spells_rank(node: ast.AST, ranks: set[str]) -> bool:
    """A rank word (``get_rank``, ``RANK``, ...) or a name of ``ranks`` occurs in ``node``."""
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and (part.id in ranks or part.id in GLOBAL_RANK_NAMES):
            return True
        if isinstance(part, ast.Attribute) and part.attr in GLOBAL_RANK_NAMES:
            return True
        if isinstance(part, ast.Constant) and part.value in GLOBAL_RANK_VARIABLES:
            return True
    return False


def _may_use_rank(call: ast.AST, names: Bindings, ranks: set[str]) -> bool:
    """A device index or device argument of ``call`` (as ``visit`` finds them: ``device=``
    and the DDP keywords of any call, the positional arguments only of ``.to(d)``,
    ``.cuda(i)`` and of what may resolve to ``torch.device`` or a ``SET_DEVICE_FUNCTIONS``
    function) spells a global rank."""
    assert isinstance(call, ast.Call)
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    given = [keywords.get(keyword) for keyword in ("device", *DDP_DEVICE_KEYWORDS)]
    func = call.func
    if (isinstance(func, ast.Attribute) and func.attr in DEVICE_ARGUMENT_MOVES) or names.may_be(
        func, _TAKING_A_DEVICE
    ):
        given += call.args
    return any(value is not None and _spells_rank(value, ranks) for value in given)


def _may_be_index(node: ast.AST | None, names: Bindings) -> bool:
    """``_device_index`` of the same expression could find a literal GPU."""
    if isinstance(node, ast.Call):
        return names.may_be(node.func, _TORCH_DEVICE)
    return node is not None and may_be_device_literal(node)


def _may_set_visible_devices(assign: ast.AST, names: Bindings) -> bool:
    return may_set_environment(assign, names, CUDA_VISIBLE_DEVICES) is not None


def _fallback(callee: str, context: FileContext) -> bool:
    """In an ``except`` handler whose ``try`` calls ``callee`` too: a default used only when
    the index computed there (``set_device(int(index))``) cannot be had."""
    ancestors = context.ancestors
    for position, node in enumerate(ancestors[:-1]):
        if isinstance(node, cst.Try) and isinstance(ancestors[position + 1], cst.ExceptHandler):
            stack: list[cst.CSTNode] = [node.body]
            while stack:
                current = stack.pop()
                if isinstance(current, cst.Call) and context.qualified_name(current.func) == callee:
                    computed = first_positional(current)
                    if computed is not None and _device_index(computed.value, context) is None:
                        return True
                stack.extend(current.children)
    return False


def _device_index(node: cst.BaseExpression, context: FileContext) -> str | None:
    """``0``, ``"cuda:1"``, ``torch.device("cuda", 1)``: a GPU written as a literal."""
    if isinstance(node, cst.Integer):
        return node.value
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str):
            kind, _, index = value.partition(":")
            if kind in DEVICE_TYPES and index.isdigit():
                return node.value
        return None
    if isinstance(node, cst.Call) and context.qualified_name(node.func) == "torch.device":
        positional = [arg.value for arg in node.args if arg.keyword is None]
        if len(positional) == 1:
            return _device_index(positional[0], context)
        if len(positional) == 2 and isinstance(positional[1], cst.Integer):
            return positional[1].value
    return None


def _pins_gpu(node: cst.BaseExpression, context: FileContext) -> bool:
    """``[0]``, ``(0, 1)`` or ``0``: GPUs given by number."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return any(
            isinstance(element, cst.Element) and _device_index(element.value, context) is not None
            for element in node.elements
        )
    return _device_index(node, context) is not None


def _own_gpu(node: cst.BaseExpression, context: FileContext) -> bool:
    """``device_ids=[0]`` under ``if local_rank == 0:``: the branch runs only in the process
    whose rank on its node is that index, so the GPU is its own. Not under a rank of all
    processes or of a group (``dist.get_rank(group) == 0``): that process may be anywhere.
    GPU 0 of a process that made its own GPU the only one it sees is its own too."""
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1:
        node = node.elements[0].value
    if not isinstance(node, cst.Integer):
        return False
    if node.value == "0" and _sees_only_its_own_gpu(context):
        return True
    ancestors = context.ancestors
    return any(
        isinstance(branch, cst.If) and inside is branch.body and _pins_rank(branch.test, node.value)
        for branch, inside in pairwise(ancestors)
    )


def _sets_visible_devices(node: cst.Assign, context: FileContext) -> bool:
    """``os.environ["CUDA_VISIBLE_DEVICES"] = ...``."""
    for target in node.targets:
        subscript = target.target
        if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
            continue
        index = subscript.slice[0].slice
        if (
            context.qualified_name(subscript.value) == "os.environ"
            and isinstance(index, cst.Index)
            and _is_visible_devices(index.value)
        ):
            return True
    return False


def _sees_only_its_own_gpu(context: FileContext) -> bool:
    """A statement of the function before the node's (in its block or an enclosing one)
    sets ``CUDA_VISIBLE_DEVICES`` to one GPU's number computed at run time
    (``str(hvd.local_rank())``): the process then sees its own GPU alone, as GPU 0."""
    return any(
        isinstance(small, cst.Assign)
        and _one_gpu_at_run_time(small.value)
        and _sets_visible_devices(small, context)
        for earlier in earlier_statements(context.ancestors)
        if isinstance(earlier, cst.SimpleStatementLine)
        for small in earlier.body
    )


def _one_gpu_at_run_time(value: cst.BaseExpression) -> bool:
    """``str(local_rank)`` or ``f"{rank}"``: one GPU's number, computed at run time (not a
    list such as ``",".join(gpus)`` or a name that may hold one)."""
    if isinstance(value, cst.Call):
        return dotted_name(value.func) == "str" and len(value.args) == 1
    if isinstance(value, cst.FormattedString):
        held = [part for part in value.parts if isinstance(part, cst.FormattedStringExpression)]
        texts = [part for part in value.parts if isinstance(part, cst.FormattedStringText)]
        return len(held) == 1 and not texts
    return False


def _pins_rank(test: cst.BaseExpression, index: str) -> bool:
    """``local_rank == 0`` (also ``0 == args.local_rank``) for the index 0."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    (comparison,) = test.comparisons
    if not isinstance(comparison.operator, cst.Equal):
        return False
    for rank, number in ((test.left, comparison.comparator), (comparison.comparator, test.left)):
        if not (isinstance(number, cst.Integer) and number.value == index):
            continue
        if (dotted_name(rank) or "").rpartition(".")[2] in LOCAL_RANK_NAMES:
            return True
    return False


def _is_visible_devices(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, (cst.SimpleString, cst.ConcatenatedString))
        and node.evaluated_value == CUDA_VISIBLE_DEVICES
    )


def _visible_devices_literal(node: cst.BaseExpression) -> bool:
    """A literal list of GPUs: ``"0"``, ``"0,1"``; not ``""`` or ``"-1"`` (no GPU at all)."""
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return False
    value = node.evaluated_value
    if not isinstance(value, str):
        return False
    value = value.strip()
    return bool(value) and value != "-1" and any(char.isdigit() for char in value)


def _visible_devices_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The value given to ``CUDA_VISIBLE_DEVICES`` by ``os.environ.update``/``os.putenv``."""
    keyword = keyword_argument(call, CUDA_VISIBLE_DEVICES)
    if keyword is not None:
        return keyword.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if len(positional) == 2 and _is_visible_devices(positional[0]):
        return positional[1]  # os.putenv("CUDA_VISIBLE_DEVICES", "0")
    if len(positional) == 1 and isinstance(positional[0], cst.Dict):
        for element in positional[0].elements:
            if isinstance(element, cst.DictElement) and _is_visible_devices(element.key):
                return element.value
    return None


# A device index computed from the global rank -------------------------------------------

_ENVIRONMENT_READERS = frozenset({"os.environ.get", "os.getenv"})
_CONVERSIONS = frozenset({"int", "str"})
_NAME_DEPTH = 3
"""How many assignments (``rank = ...; r = rank``) a rank is followed through."""


def _device_arguments(call: cst.Call, callee: str) -> list[cst.BaseExpression]:
    """Where a call takes a device: ``.to(d)``, ``.cuda(d)``, ``device=d``, and the index of
    ``torch.device("cuda", i)`` (or its one argument)."""
    found = []
    if callee == "torch.device":
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        found.extend(positional[1:2] if len(positional) == 2 else positional[:1])
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value in DEVICE_ARGUMENT_MOVES:
        first = first_positional(call)
        if first is not None:
            found.append(first.value)
    device = keyword_argument(call, "device")
    if device is not None:
        found.append(device.value)
    return found


def _rank_device(node: cst.BaseExpression, context: FileContext) -> str | None:
    """The global rank ``node`` names a device by: the rank itself (an index), or a device
    string built from it (``f"cuda:{rank}"``, ``"xpu:" + str(rank)``)."""
    if isinstance(node, cst.FormattedString) and len(node.parts) == 2:
        text, formatted = node.parts
        if (
            isinstance(text, cst.FormattedStringText)
            and _is_device_prefix(text.value)
            and isinstance(formatted, cst.FormattedStringExpression)
        ):
            return _global_rank(formatted.expression, context)
        return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        prefix = node.left
        if isinstance(prefix, cst.SimpleString) and _is_device_prefix(prefix.evaluated_value):
            return _global_rank(node.right, context)
        return None
    return _global_rank(node, context)


def _is_device_prefix(text: str | bytes) -> bool:
    """``"cuda:"``: a device string that an index completes."""
    if not isinstance(text, str):
        return False
    kind, colon, rest = text.partition(":")
    return kind in DEVICE_TYPES and colon == ":" and not rest


def _rank_among(node: cst.BaseExpression, context: FileContext) -> str | None:
    """The global rank among GPU indices given as ``[rank]``, ``(rank,)`` or ``rank``."""
    if isinstance(node, (cst.List, cst.Tuple)):
        for element in node.elements:
            if isinstance(element, cst.Element):
                rank = _global_rank(element.value, context)
                if rank is not None:
                    return rank
        return None
    return _global_rank(node, context)


def _global_rank(node: cst.BaseExpression, context: FileContext, depth: int = 0) -> str | None:
    """The code of the global rank ``node`` holds: ``dist.get_rank()``, ``self.global_rank``,
    ``accelerator.process_index``, ``int(os.environ["RANK"])``, or a variable of the
    function that every assignment sets to one of these. Arithmetic on it
    (``rank % torch.cuda.device_count()``) is not followed: that maps ranks onto GPUs."""
    if isinstance(node, cst.Attribute):
        return context.code_for(node) if node.attr.value in GLOBAL_RANK_NAMES else None
    if isinstance(node, cst.Subscript):
        if context.qualified_name(node.value) == "os.environ" and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and _is_rank_variable(index.value):
                return context.code_for(node)
        return None
    if isinstance(node, cst.Call):
        name = dotted_name(node.func) or ""
        if name.rpartition(".")[2] in GLOBAL_RANK_NAMES:
            return context.code_for(node)
        first = first_positional(node)
        if first is None:
            return None
        if context.qualified_name(node.func) in _ENVIRONMENT_READERS:
            return context.code_for(node) if _is_rank_variable(first.value) else None
        if name in _CONVERSIONS and len(node.args) == 1:
            return _global_rank(first.value, context, depth)
        return None
    if isinstance(node, cst.Name) and depth < _NAME_DEPTH:
        values = _assigned_values(node.value, context)
        ranks = [_global_rank(value, context, depth + 1) for value in values]
        if ranks and all(rank is not None for rank in ranks):
            return ranks[0]
    return None


def _is_rank_variable(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value in GLOBAL_RANK_VARIABLES


def _assigned_values(name: str, context: FileContext) -> list[cst.BaseExpression]:
    """Every value the innermost function around the visited node assigns to ``name``
    (``name = value``), or nothing if it is a parameter or is bound any other way."""
    function = next(
        (node for node in reversed(context.ancestors) if isinstance(node, cst.FunctionDef)),
        None,
    )
    if function is None:
        return []
    found = _assignments(function).get(name)
    return list(found) if found is not None else []


@lru_cache(maxsize=32)
def _assignments(function: cst.FunctionDef) -> dict[str, tuple[cst.BaseExpression, ...] | None]:
    """What ``function`` assigns to each plain name it binds: the values of ``name = value``,
    or None for a parameter or a name bound any other way. One walk per function (nodes
    hash by identity), not one per name asked about."""
    params = function.params
    found: dict[str, tuple[cst.BaseExpression, ...] | None] = {
        param.name.value: None
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
    }
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # their own scopes
        if isinstance(current, cst.Assign):
            for target in current.targets:
                bound = target.target
                if isinstance(bound, cst.Name) and bound.value in found:
                    known = found[bound.value]
                    if known is not None:
                        found[bound.value] = (*known, current.value)
                elif isinstance(bound, cst.Name):
                    found[bound.value] = (current.value,)
            if all(isinstance(target.target, cst.Name) for target in current.targets):
                continue
        for name in _bound_otherwise(current):
            found[name] = None
        stack.extend(iter_children(current))
    return found


def _bound_otherwise(node: cst.CSTNode) -> Iterator[str]:
    """Names ``node`` binds in a way ``_assignments`` does not read: unpacking, a loop,
    ``with ... as``, an augmented or annotated assignment, ``:=``."""
    target: cst.CSTNode
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
        target = node.target
    elif isinstance(node, cst.AsName):
        target = node.name
    elif isinstance(node, cst.AssignTarget):
        target = node.target
    else:
        return
    for found in _names_in(target):
        if isinstance(found, cst.Name):
            yield found.value


def _names_in(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if isinstance(current, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            stack.extend(iter_children(current))
    return found
