"""The project index: what every file's facts say together.

It answers the questions one file cannot: is this class (whose base lives in
another file) model code, does it have ``.device``, is this helper function
called from a forward path?
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from functools import cached_property
from itertools import chain
from pathlib import PurePath

from devlint.candidates import Needed, Requirement, Scope, ScopeInfo
from devlint.facts import (
    BASE_INIT_STEP,
    MAIN_GUARD_NAME,
    BackendParameter,
    CallShape,
    ClassFacts,
    DeviceConstant,
    DistributedSignal,
    FileFacts,
    FirstChosenGpuCurrent,
    FixedCurrentGpu,
    FlowSummary,
    FunctionFacts,
    GlooCall,
    Reference,
    ResultHanded,
    ResultMeets,
    ReturnedOutput,
    SingleNode,
)
from devlint.other_devices import (
    CPU_BY_NAME,
    DEVICE_GIVEN,
    NUMBERED_GPU,
    RUNS_ON_IMPORT,
    TOP_LEVEL,
    names_an_availability_check,
    offers_a_gpu,
    option_kinds,
)
from devlint.symbols import (
    AUTOGRAD_FUNCTION_BASES,
    BACKEND_FREE_PARTS,
    BACKEND_LIBRARIES,
    BACKEND_OP_NAMESPACES,
    BATCH_TRANSFER_HOOKS,
    COLLATE_KEYWORDS,
    COLLATE_NAME_PART,
    COLLECTIVE_FUNCTIONS,
    DATASET_BASES,
    DATASET_MODULE_PREFIXES,
    DDP_CLASSES,
    DEVICE_TYPES,
    ENTRY_FILES,
    EXTENSION_MODULE_TYPES,
    FORWARD_PATH_HOOKS,
    FORWARD_PATH_METHODS,
    KERNEL_LIBRARIES,
    LIBRARY_MODULE_BASES,
    LIGHTNING_DATAMODULE_BASES,
    LIGHTNING_MODULE_BASES,
    MAP_STYLE_DATASET_PROTOCOL,
    MAP_STYLE_ITEM_METHODS,
    METRIC_BASES,
    MODULE_LOADERS,
    MODULE_MOVING_METHODS,
    NN_MODULE_METHODS,
    OPTIMIZER_BASES,
    OTHER_ACCELERATOR_NAMESPACES,
    PRETRAINED_MODEL_BASES,
    PROCESS_GROUP_INITS,
    RUN_TIME_LOOKUPS,
    SET_DEVICE_FUNCTIONS,
    SETUP_METHODS,
    STATE_FREE_BASES,
    TEST_PACKAGES,
    TORCH_MODULE_BASES,
    TORCH_NN_NON_MODULES,
    TRAINER_BASES,
)

_HF_MODEL_CLASS = re.compile(
    r"^(?!TF|Flax|DataCollator|Auto)[A-Z]\w*(PreTrainedModel|Model|For[A-Z]\w*)$"
)
"""transformers classes that are PreTrainedModel subclasses (``BertModel``, ``...ForCausalLM``)."""

_MAX_ALIAS_HOPS = 8

_MAX_MEETING_HOPS = 3
"""How many functions of other files a parameter is followed through to where it meets."""

_MOVES = MODULE_MOVING_METHODS | DEVICE_TYPES
"""The module's moves, and a class's own move to a device type (``def mps(self)``)."""


@dataclass(frozen=True)
class Origin:
    """Where unmoved processor output that a call returns is made, for messages."""

    function: str
    """The function that makes it, without its module (``LMMWrapper.process_input``)."""
    source: str
    path: str
    line: int
    kind: str
    """``batch`` (has ``.to``) or ``dict`` (a plain dict of tensors)."""


@dataclass(frozen=True)
class Distributed:
    """Whether the project trains on several processes, and why devlint thinks so."""

    value: bool
    reason: str


@dataclass(frozen=True)
class ClassKind:
    model: bool = False
    device_aware: bool = False
    lightning: bool = False
    dataset: bool = False
    """A ``torch.utils.data`` Dataset: data-loader code, not model code."""
    datamodule: bool = False
    """A LightningDataModule: the trainer moves the batches its loaders yield."""
    device_context: bool = False
    """Not a model, but it already knows its device: it stores one (``self.device``) or
    a model (``self.model``): samplers, trainers, pipelines; or its ``__init__`` is told
    one (a ``device`` parameter); or it is an optimizer, which updates its parameters
    where they are."""

    def __or__(self, other: ClassKind) -> ClassKind:
        return ClassKind(
            **{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)}
        )


_LIGHTNING = ClassKind(model=True, device_aware=True, lightning=True)
_DEVICE_AWARE = ClassKind(model=True, device_aware=True)
_MODULE = ClassKind(model=True)
_STORES_DEVICE = ClassKind(device_context=True, device_aware=True)
_STORES_MODEL = ClassKind(device_context=True)
_TOLD_DEVICE = ClassKind(device_context=True)
_OPTIMIZER = ClassKind(device_context=True)
_OTHER = ClassKind()
_DATASET = ClassKind(dataset=True)
_DATAMODULE = ClassKind(datamodule=True)
_REGISTERING = frozenset({"register_buffer", "register_parameter", "register_module", "add_module"})
"""Methods of ``nn.Module`` that give it state by name."""
_MAIN_GUARD = ":__main__"
"""Suffix of a module's name that stands for its ``if __name__ == "__main__":`` code."""


def _is_torch_nn_class(module: str, short: str) -> bool:
    """``torch.nn.Linear``, and the bases torch keeps in ``torch.nn.modules``, private ones
    included (``torch.nn.modules.loss._Loss``, ``_BatchNorm``): all modules."""
    if module != "torch.nn" and not module.startswith("torch.nn.modules"):
        return False
    if module == "torch.nn.modules._functions":  # autograd Functions
        return False
    return short.lstrip("_")[:1].isupper() and short not in TORCH_NN_NON_MODULES


def is_test_module(module: str) -> bool:
    """``tests/test_ddp.py``, ``ddp_test.py``, ``conftest.py``: a test runner's entry points."""
    parts = module.split(".")
    last = parts[-1]
    if last.startswith("test_") or last.endswith("_test") or last == "conftest":
        return True
    return any(part in TEST_PACKAGES for part in parts[:-1])


def _parameter_of(summary: FlowSummary, slot: int | str) -> str | None:
    """The parameter an argument binds: its keyword, or the name at its position."""
    if isinstance(slot, str):
        return slot
    return summary.params[slot] if slot < len(summary.params) else None


def is_forward_method(name: str) -> bool:
    if name in FORWARD_PATH_METHODS or name in FORWARD_PATH_HOOKS or name.endswith("_step"):
        return True
    return name.startswith("on_") and name.endswith(("_batch_start", "_batch_end"))


_STRUCTURAL = (
    "_forward_methods",
    "_model_functions",
    "_forward_functions",
    "_methods_named",
    "_mixed_into",
    "_context_functions",
    "_input_functions",
    "_bound_definitions",
    "_backends",
    "_group_attributes",
    "_cpu_group_modules",
    "_backend_parameters",
)
"""Answers of the index that depend on nothing but the project's structure and settings."""


_BUILDER_DEPTH = 4
"""How far ``placed_on_a_told_device`` follows the code building a module: what builds
the module it is part of, or calls the function returning it."""


class ProjectIndex:
    """Facts of all files of one project, and the answers derived from them."""

    def __init__(
        self,
        facts: Iterable[FileFacts],
        device_aware_bases: Iterable[str] = (),
        distributed: bool | str = "auto",
        *,
        packaged: bool = False,
        names_without_facts: frozenset[str] | None = frozenset(),
        same_structure: ProjectIndex | None = None,
    ):
        """``packaged``: the project is packaged for others to install (``is_packaged``):
        code it never calls may be theirs to call. ``names_without_facts``: the names the
        files that gave no facts use (a Python 2 file's; None: some are unknown).
        ``same_structure``: an index of the same files' modules, classes, functions and
        imports (only the facts rules add differ), whose answers about them are reused."""
        self._packaged = packaged
        self._names_without_facts = names_without_facts
        self._modules: dict[str, FileFacts] = {}
        self._classes: dict[str, ClassFacts] = {}
        self._functions: dict[str, FunctionFacts] = {}
        self._returns: dict[str, list[tuple[ReturnedOutput, FileFacts]]] = {}
        self._signals: list[tuple[DistributedSignal, FileFacts]] = []
        self._single_node: list[tuple[SingleNode, FileFacts]] = []
        self._fixed_gpus: list[str] = []
        """The modules that make a GPU named by a constant current (``FixedCurrentGpu``)."""
        self._first_chosen: list[tuple[str, str]] = []
        """``FirstChosenGpuCurrent`` facts: the list's name, the module making it current."""
        self._constants: dict[str, DeviceConstant] = {}
        self._references: list[tuple[Reference, str]] = []
        self._summaries: dict[str, FlowSummary] = {}
        self._results_meeting: set[tuple[str, int | None]] = set()
        self._results_handed: set[tuple[str, str, int | str, str]] = set()
        """``ResultHanded`` facts: the callee, the receiver, its slot, the module handing."""
        self._module_of: dict[str, str] = {}
        """Where each class and function is defined: with ``_classes`` and ``_functions``,
        from the same files (two files of one module name: the later wins in all three)."""
        for file_facts in facts:
            self._modules[file_facts.module] = file_facts
            self._classes.update((c.name, c) for c in file_facts.classes)
            self._functions.update((f.name, f) for f in file_facts.functions)
            for name in (
                *(c.name for c in file_facts.classes),
                *(f.name for f in file_facts.functions),
            ):
                self._module_of[name] = file_facts.module
            for fact in file_facts.facts:
                if isinstance(fact, ReturnedOutput):
                    self._returns.setdefault(fact.function, []).append((fact, file_facts))
                elif isinstance(fact, DistributedSignal):
                    self._signals.append((fact, file_facts))
                elif isinstance(fact, SingleNode):
                    self._single_node.append((fact, file_facts))
                elif isinstance(fact, FixedCurrentGpu):
                    self._fixed_gpus.append(file_facts.module)
                elif isinstance(fact, FirstChosenGpuCurrent):
                    self._first_chosen.append((fact.choice, file_facts.module))
                elif isinstance(fact, Reference):
                    self._references.append((fact, file_facts.module))
                elif isinstance(fact, FlowSummary):
                    self._summaries[fact.function] = fact
                elif isinstance(fact, ResultMeets):
                    self._results_meeting.add((fact.callee, fact.part))
                elif isinstance(fact, ResultHanded):
                    handed = (fact.callee, fact.receiver, fact.slot, file_facts.module)
                    self._results_handed.add(handed)
                else:
                    self._constants[fact.name] = replace(fact, path=file_facts.path)
        self._by_last_name: dict[str, list[str]] = {}
        for definition in self._module_of:
            self._by_last_name.setdefault(definition.rpartition(".")[2], []).append(definition)
        self._extra_bases = frozenset(device_aware_bases)
        self._distributed_setting = distributed
        self._kinds: dict[str, ClassKind] = {}
        self._own_moves: dict[str, frozenset[str]] = {}
        self._placed_on_told: dict[str, bool] = {}
        """``placed_on_a_told_device``'s answers, by class."""
        self._init_reached: dict[str, frozenset[str]] = {}
        """``_runs_in_init``'s methods, by class."""
        self._origins: dict[str, Origin | None] = {}
        self._hand_over_cache: dict[frozenset[str], list[tuple[str, str]]] = {}
        self._returning: frozenset[str] | None = None
        self._canonical: dict[str, str] = {}
        self._resolved: dict[tuple[str, str], str] = {}
        """Answers of ``canonical`` and ``resolve``: the call graph asks the same many times."""
        self._method_tables: dict[str, dict[str, str]] = {}
        """Answers of ``_method_table``: scopes of one class ask it again and again."""
        self._runners_of: dict[tuple[str, str], list[str]] = {}
        """``_scripts_running``'s answers, by module and top-level definition."""
        self._script_offers: dict[str, Offers] = {}
        """``_offers_of_script``'s answers."""
        self._module_places: dict[tuple[str, str], dict[str, frozenset[str]]] = {}
        """``_places``' answers, by module and the script asked for."""
        if same_structure is not None:
            self._kinds = same_structure._kinds
            self._own_moves = same_structure._own_moves
            self._init_reached = same_structure._init_reached
            self._canonical = same_structure._canonical
            self._resolved = same_structure._resolved
            self._method_tables = same_structure._method_tables
            for name in _STRUCTURAL:
                if name in same_structure.__dict__:  # computed there (a cached_property)
                    self.__dict__[name] = same_structure.__dict__[name]
            # The call graph links the functions' calls and the files' references too.
            if (
                "_graph" in same_structure.__dict__
                and self._references == same_structure._references
            ):
                self.__dict__["_graph"] = same_structure.__dict__["_graph"]

    def canonical(self, name: str) -> str:
        """Follow re-exports: ``pkg.Model`` -> ``pkg.models.Model`` via ``pkg/__init__.py``."""
        found = self._canonical.get(name)
        if found is None:
            found = self._canonical[name] = self._follow_aliases(name)
        return found

    def _follow_aliases(self, name: str) -> str:
        for _ in range(_MAX_ALIAS_HOPS):
            if name in self._classes or name in self._functions:
                return name
            parts = name.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                module = self._modules.get(".".join(parts[:cut]))
                target = module.aliases.get(parts[cut]) if module else None
                if target is not None:
                    renamed = ".".join([target, *parts[cut + 1 :]])
                    if renamed != name:
                        name = renamed
                        break
            else:
                return name
        return name

    def resolve(self, name: str, near: str) -> str:
        """The project definition ``name``, as written in the module ``near``, refers to.

        Beyond re-exports (``canonical``), a script's ``from model import Net`` means
        its sibling ``scripts/model.py``, and in a namespace package or src layout
        ``proj.models.base.Base`` is the one definition whose name ends that way; checked
        inside a namespace package (``optimum/`` without ``__init__.py``), the written
        ``optimum.intel.base.Base`` is the one definition that ends it (``intel.base.Base``).
        """
        package = near.rpartition(".")[0]
        found = self._resolved.get((name, package))
        if found is None:
            found = self._resolved[name, package] = self._resolve_near(name, package)
        return found

    def _resolve_near(self, name: str, package: str) -> str:
        found = self.canonical(name)
        if found in self._module_of:
            return found
        for folder in self._search_folders(package):
            sibling = self.canonical(f"{folder}.{name}")
            if sibling in self._module_of:
                return sibling
        endings = self._by_last_name.get(name.rpartition(".")[2], [])
        matches = [
            definition
            for definition in endings
            if definition.endswith(f".{name}")
            or (name.endswith(f".{definition}") and self._filed_as(definition, name))
        ]
        return matches[0] if len(matches) == 1 else found

    def _filed_as(self, definition: str, written: str) -> bool:
        """The file defining ``definition`` lies in the folders ``written`` spells: the
        project was checked inside a namespace package (``optimum/intel/base.py``, module
        ``intel.base``, written ``optimum.intel.base.Base``), not a library's name that
        happens to end the same way (``torch.utils.data.Dataset``, ``data.Dataset``)."""
        module = self._module_of.get(definition)
        facts = self._modules.get(module or "")
        if facts is None or not facts.path:
            return False
        folders = written[: len(written) - len(definition) + len(module or "")].split(".")
        spelt = PurePath(facts.path).with_suffix("").parts
        if spelt and spelt[-1] == "__init__":
            spelt = spelt[:-1]
        return spelt[-len(folders) :] == tuple(folders)

    def _search_folders(self, package: str) -> list[str]:
        """Where an absolute import written in the folder ``package`` may find a project
        module besides the root: that folder (a script's, first on ``sys.path``), and the
        folders above it up to the first regular package (one with an ``__init__.py``).
        Python imports a module inside a package by the package's name, so no folder in
        it is on ``sys.path``: ``import transformers`` in ``pkg/eval/run.py`` is the
        library, not ``pkg/transformers``."""
        folders = []
        while package:
            folders.append(package)
            package = package.rpartition(".")[0]
            if package in self._modules:
                break
        return folders

    def class_kind(self, name: str) -> ClassKind:
        name = self.canonical(name)
        known = self._kinds.get(name)
        if known is not None:
            return known
        self._kinds[name] = _OTHER  # breaks inheritance cycles
        kind = self._external_kind(name)
        facts = self._classes.get(name)
        if facts is not None:
            for base in facts.bases:
                kind |= self.class_kind(self.resolve(base, self._module_of[name]))
            if facts.skips_base_init and not kind.model:
                # The bases' `__init__` never runs: the device or model they store is not set.
                kind = replace(kind, device_context=False, device_aware=False)
            if kind.model and facts.defines_device:
                kind |= _DEVICE_AWARE
            elif kind.model:
                pass  # `self.device = d` in a module goes stale once `.to()` moves it
            elif kind.dataset or kind.datamodule:
                # Data-loading code, whatever it or its bases store: DEV011's.
                kind = replace(kind, device_context=False, device_aware=False)
            elif facts.defines_device or "device" in facts.stores:
                kind |= _STORES_DEVICE
            elif "model" in facts.stores:
                kind |= _STORES_MODEL
            elif self._told_its_device(name):
                kind |= _TOLD_DEVICE
            if self._says_it_is_on_cpu(name, set()):
                # Its `device` is the CPU: what it stores computes there, no accelerator.
                kind = replace(kind, device_context=False, device_aware=False)
        self._kinds[name] = kind
        return kind

    def _told_its_device(self, name: str) -> bool:
        """The class's own ``__init__`` takes a ``device`` parameter: its objects are told
        their device when built, whether they keep it or hand it to what they build."""
        init = self._functions.get(f"{name}.__init__")
        return init is not None and init.takes_device

    def _says_it_is_on_cpu(self, name: str, seen: set[str]) -> bool:
        """The nearest ``device`` the class or a base of the project defines returns only
        the CPU (``ClassFacts.device_on_cpu``)."""
        facts = self._classes.get(name)
        if facts is None or name in seen:
            return False
        seen.add(name)
        if facts.defines_device:
            return facts.device_on_cpu
        module = self._module_of[name]
        return any(
            self._says_it_is_on_cpu(self.canonical(self.resolve(base, module)), seen)
            for base in facts.bases
        )

    def _external_kind(self, name: str) -> ClassKind:
        module, _, short = name.rpartition(".")
        if name in LIGHTNING_MODULE_BASES:
            return _LIGHTNING
        if name in self._extra_bases or short in self._extra_bases:
            return _DEVICE_AWARE
        if name in PRETRAINED_MODEL_BASES or name in METRIC_BASES:
            return _DEVICE_AWARE
        if module.split(".", 1)[0] == "transformers" and _HF_MODEL_CLASS.match(short):
            return _DEVICE_AWARE
        if name in TORCH_MODULE_BASES or name in DDP_CLASSES or name in LIBRARY_MODULE_BASES:
            return _MODULE
        if _is_torch_nn_class(module, short):
            return _MODULE
        if name in TRAINER_BASES:
            return _STORES_MODEL
        if name in OPTIMIZER_BASES:
            return _OPTIMIZER
        if name in LIGHTNING_DATAMODULE_BASES:
            return _DATAMODULE
        if name in DATASET_BASES:
            return _DATASET
        if f"{module}.".startswith(DATASET_MODULE_PREFIXES) and short[:1].isupper():
            return _DATASET
        return _OTHER

    def _lineage(self, class_name: str) -> Iterator[ClassFacts]:
        """The project's classes ``class_name`` is made of: itself, then its bases, nearest
        first (breadth first, each once)."""
        seen: set[str] = set()
        order = [class_name]
        while order:
            name = self.canonical(order.pop(0))
            facts = self._classes.get(name)
            if facts is None or name in seen:
                continue
            seen.add(name)
            yield facts
            order.extend(self.resolve(base, self._module_of[name]) for base in facts.bases)

    def _method_table(self, class_name: str) -> Mapping[str, str]:
        """Method name -> qualified name of the definition a call on ``self`` reaches."""
        table = self._method_tables.get(class_name)
        if table is None:
            table = {}
            for facts in self._lineage(class_name):
                for method in facts.methods:
                    table.setdefault(method, f"{facts.name}.{method}")
            self._method_tables[class_name] = table
        return table

    @cached_property
    def _mixed_into(self) -> dict[str, list[str]]:
        """Project classes that are no model themselves but are bases of one (mixins), and
        the model classes they are mixed into: their methods run with ``self`` a model."""
        found: dict[str, list[str]] = {}
        for name in self._classes:
            if self.class_kind(name).model:
                for facts in self._lineage(name):
                    if not self.class_kind(facts.name).model:
                        found.setdefault(facts.name, []).append(name)
        return found

    def _model_kind(self, class_name: str) -> ClassKind:
        """The class's kind, or for a mixin what every model class it is mixed into is."""
        kind = self.class_kind(class_name)
        models = self._mixed_into.get(self.canonical(class_name))
        if kind.model or not models:
            return kind
        kinds = [self.class_kind(model) for model in models]
        return ClassKind(
            model=True,
            device_aware=all(k.device_aware for k in kinds),
            lightning=all(k.lightning for k in kinds),
        )

    def _reachable(self, roots: Iterable[str]) -> frozenset[str]:
        """Functions reachable from ``roots`` through calls of project functions."""
        seen = set(roots)
        todo = list(seen)
        while todo:
            function = self._functions.get(todo.pop())
            if function is None:
                continue
            for callee in function.calls:
                target = self.resolve(callee, self._module_of[function.name])
                if target in self._functions and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return frozenset(seen)

    @cached_property
    def _forward_methods(self) -> frozenset[str]:
        found: set[str] = set()
        for name in self._classes:
            if not self.class_kind(name).model:
                continue
            table = self._method_table(name)
            todo = [method for method in table if is_forward_method(method)]
            todo += [m for m in self._bound_methods(table) if m in table and m not in todo]
            reached = set(todo)
            while todo:
                function = self._functions.get(table[todo.pop()])
                for callee in function.self_calls if function else ():
                    if callee in table and callee not in reached:
                        reached.add(callee)
                        todo.append(callee)
            found.update(table[method] for method in reached)
        return frozenset(found)

    def _bound_methods(self, table: Mapping[str, str]) -> list[str]:
        """Methods the class's methods bind with ``partial`` for later: a block built with
        ``downsample=partial(self._pad_shortcut, ...)`` runs it in its ``forward``."""
        found: list[str] = []
        for function_name in table.values():
            function = self._functions.get(function_name)
            found += function.bound_methods if function else ()
        return found

    @cached_property
    def _model_functions(self) -> frozenset[str]:
        roots = [
            f"{name}.{method}"
            for name, facts in self._classes.items()
            if self._model_kind(name).model
            for method in facts.methods
        ]
        return self._reachable(roots)

    @cached_property
    def _forward_functions(self) -> frozenset[str]:
        return self._reachable(self._forward_methods)

    @cached_property
    def _context_functions(self) -> frozenset[str]:
        """Functions of a device context (``ScopeInfo.device_context``) and what they call."""
        roots = [
            f"{name}.{method}"
            for name, facts in self._classes.items()
            if self._in_context(name)
            for method in facts.methods
        ]
        roots += [
            name
            for name, facts in self._functions.items()
            if facts.takes_device and not self.loads_data(name.rpartition(".")[0])
        ]
        return self._reachable(roots)

    @cached_property
    def _input_functions(self) -> frozenset[str]:
        """Functions whose inputs tell them their device (``ScopeInfo.knows_inputs``): those
        taking a tensor or a module, and the methods of autograd Functions; not tests."""
        found = {name for name, facts in self._functions.items() if facts.takes_inputs}
        for name, facts in self._classes.items():
            if any(set(c.bases) & AUTOGRAD_FUNCTION_BASES for c in self._lineage(name)):
                found.update(f"{name}.{method}" for method in facts.methods)
        return frozenset(
            name
            for name in found
            if not self._in_tests(self._module_of[name])
            and not name.rpartition(".")[2].startswith("test")
        )

    def _in_tests(self, module: str) -> bool:
        """Test code, by its module's name or its path (``tests/unit/helpers.py``, where
        ``tests`` is no package and the module is named ``unit.helpers``)."""
        path = PurePath(self._modules[module].path)
        return is_test_module(module) or (
            path.name != "" and is_test_module(".".join(path.with_suffix("").parts))
        )

    def loads_data(self, class_name: str) -> bool:
        """A Dataset or LightningDataModule: data-loading code, DEV011's whatever it knows."""
        if class_name not in self._classes:
            return False
        kind = self.class_kind(class_name)
        return kind.dataset or kind.datamodule

    def runs_in_data_loading(self, function: str) -> bool:
        """Whether ``function`` runs only where a data loader prepares samples, on the CPU
        (``_data_loading_functions``)."""
        return self.canonical(function) in self._data_loading_functions

    @cached_property
    def _data_loading_functions(self) -> frozenset[str]:
        """Data-loading code: the methods of Datasets and DataModules (not the hooks that
        move a batch to the device), what the item methods of a class with the map-style
        dataset protocol reach on ``self``, collate functions (handed to a loader as one,
        or named like one, or methods of a class named like one); then every project
        function whose callers are all data-loading code, however many calls away."""
        roots: set[str] = set()
        for name in self._classes:
            kind = self.class_kind(name)
            table = self._method_table(name)
            if kind.dataset or kind.datamodule:
                roots.update(
                    definition
                    for method, definition in table.items()
                    if method not in BATCH_TRANSFER_HOOKS
                )
            elif not kind.model and table.keys() >= MAP_STYLE_DATASET_PROTOCOL:
                roots.update(table[method] for method in MAP_STYLE_ITEM_METHODS if method in table)
        roots.update(self.handed_over_functions(COLLATE_KEYWORDS))
        for name in self._functions:
            names = [name, self._owner(name) or ""]
            if any(COLLATE_NAME_PART in part.rpartition(".")[2].lower() for part in names):
                roots.add(name)
        found = roots & self._functions.keys()
        todo = list(found)
        while todo:
            for callee in self._graph[1].get(todo.pop(), ()):
                if callee in found or callee not in self._functions:
                    continue
                if self._call_sites.get(callee, set()) <= found:
                    found.add(callee)
                    todo.append(callee)
        return frozenset(found)

    def is_module_class(self, name: str, near: str) -> bool:
        """Whether ``name``, as written in the module ``near``, is an ``nn.Module`` class:
        torch's, a model class of the project or of transformers (``AutoModel*`` included)."""
        if self.class_kind(self.resolve(name, near)).model:
            return True
        module, _, short = name.rpartition(".")
        return module.split(".", 1)[0] == "transformers" and short.startswith("AutoModel")

    def subclassed(self, name: str) -> bool:
        """A class of the project names ``name`` (qualified) among its bases: its objects
        run ``name``'s ``__init__`` too, under another name."""
        target = self.canonical(name)
        bases = (base for facts in self._classes.values() for base in facts.bases)
        return any(self.canonical(base) == target for base in bases)

    def is_record(self, name: str) -> bool:
        """``name`` (qualified) is a project class whose objects hold what they are given:
        it declares ``device`` in its body (``device: str``, a dataclass or NamedTuple
        field), no ``__init__`` of its own or of a project base, and is no model. Its
        ``device=`` is a label its readers may place with, not a placement."""
        name = self.canonical(name)
        facts = self._classes.get(name)
        return (
            facts is not None
            and facts.defines_device
            and "__init__" not in self._method_table(name)
            and not self.class_kind(name).model
        )

    def holds_no_state(self, name: str, near: str) -> bool:
        """Whether objects of ``name`` (as written in ``near``), a module class of the
        project, have no parameters, buffers or train/eval behaviour: it and its project
        bases store only what ``ClassFacts.stores_no_state`` allows, call none of what they
        keep (a module handed in) and register nothing; its other bases add no state
        (``STATE_FREE_BASES``). Leaving such modules unregistered loses nothing."""
        return self._holds_no_state(self.canonical(self.resolve(name, near)), set())

    def _holds_no_state(self, name: str, seen: set[str]) -> bool:
        found = self._classes.get(name)
        if found is None or name in seen or not found.stores_no_state:
            return False
        seen.add(name)
        called = {
            callee
            for method in found.methods
            for callee in getattr(self._functions.get(f"{name}.{method}"), "self_calls", ())
        }
        if called & (found.kept | _REGISTERING):
            return False
        return all(
            base in STATE_FREE_BASES
            or self._holds_no_state(self.resolve(base, self._module_of[name]), seen)
            for base in found.bases
        )

    def overrides(self, name: str, near: str, methods: frozenset[str]) -> bool:
        """Whether objects of ``name`` (as written in ``near``) run a project definition of
        one of ``methods``, their class's or a project base's."""
        return bool(methods & self._method_table(self.canonical(self.resolve(name, near))).keys())

    def refuses_modules(self, class_name: str) -> bool:
        """Whether the ``__setattr__`` that objects of ``class_name`` (qualified) run, their
        class's or a project base's, raises on a module value (``ClassFacts.refuses``): such
        a class keeps modules in plain containers on purpose, out of its registration."""
        name = self.canonical(class_name)
        definition = self._method_table(name).get("__setattr__")
        owner = self._classes.get(definition.rpartition(".")[0]) if definition else None
        if owner is None:
            return False
        near = self._module_of[owner.name]
        return any(self.is_module_class(refused, near) for refused in owner.refuses)

    def own_moves(self, class_name: str) -> frozenset[str]:
        """The class's definitions of the module's moves (``cuda``, ``to``, ``cpu``,
        ``_apply``, ...), inherited from project bases too, and what they call on ``self``
        that no other method calls (a helper ``forward`` shares is code like any other)."""
        name = self.canonical(class_name)
        found = self._own_moves.get(name)
        if found is None:
            moves = self.self_reachable(name, _MOVES)
            table = self._method_table(name)
            others = [method for method, found in table.items() if found not in moves]
            overrides = {table[m] for m in _MOVES if m in table}
            shared = self.self_reachable(name, others) - overrides
            found = self._own_moves[name] = moves - shared
        return found

    @cached_property
    def _meeting_results(self) -> dict[str, set[int | None]]:
        """The functions some call of which has its result meet the device, each with the
        elements of the tuple it returns that do (None: the result itself)."""
        found: dict[str, set[int | None]] = {}
        for callee, part in self._results_meeting:
            found.setdefault(self.canonical(callee), set()).add(part)
        return found

    @cached_property
    def _joined_results(self) -> frozenset[str]:
        """The functions whose results some caller hands to a function of another file that
        joins them into one tensor (``ResultHanded``, ``FlowSummary.joins``)."""
        found = set()
        for callee, receiver, slot, module in self._results_handed:
            target = self.canonical(self.resolve(receiver, module))
            summary = self._summaries.get(target)
            name = _parameter_of(summary, slot) if summary is not None else None
            if summary is not None and name in summary.joins:
                found.add(self.canonical(self.resolve(callee, module)))
        return frozenset(found)

    def placed_on_a_told_device(self, class_name: str) -> bool:
        """Project code may move an object of the class (or of a subclass) to a device it is
        told: a function building one moves it so at once (``Net(c).to(device)``), or that
        function, or another method of its class, moves something so (``net.to(device)``,
        ``self.net.cuda(rank)``: which object is not followed). So may the code building
        what it is part of or gets it from: a builder's class's builders are followed
        (``self.flow = Flow(u)`` in ``Outer``, then ``Outer(u).to(device)``), and its callers
        (``return Flow(u)``), ``_BUILDER_DEPTH`` steps, past which it counts as moved.
        Module-level code building one counts too: its moves are not recorded."""
        name = self.canonical(class_name)
        found = self._placed_on_told.get(name)
        if found is None:
            found = self._placed_on_told[name] = self._built_where_moved(name)
        return found

    def _built_where_moved(self, class_name: str) -> bool:
        """``placed_on_a_told_device``'s walk out from the code building the class."""
        seen: set[str] = set()
        builders = set(self._builders.get(class_name, ()))
        for _ in range(_BUILDER_DEPTH):
            builders -= seen
            if any(self._moves_to_a_told_device(builder) for builder in builders):
                return True
            seen |= builders
            owners = {owner for builder in builders if (owner := self._owner(builder))}
            builders = {caller for builder in builders for caller in self.callers(builder)}
            builders.update(built for owner in owners for built in self._builders.get(owner, ()))
        return bool(builders - seen)

    def _moves_to_a_told_device(self, function: str) -> bool:
        """``function`` (module-level code: always), or a method of its class, has a call
        that moves to a device it is told (``CallShape.told_move``)."""
        if function not in self._functions:
            return True
        owner = self._owner(function)
        methods = set(self._method_table(owner).values()) if owner else {function}
        return any(
            shape.told_move
            for method in methods | {function}
            if method in self._functions
            for shape in self._functions[method].call_shapes
        )

    def about(self, requirement: Requirement) -> str:
        """The function ``requirement`` is about, canonical; for one its summary shows, a
        method named through a class (that of an object ``__init__`` made, or ``self``'s
        own, ``self.boost_rewards``): the definition its class's bases give it."""
        function = self.canonical(requirement.function)
        by_callers = requirement.kind in (Needed.RESULT_MEETS, Needed.RESULTS_JOINED)
        if by_callers or function in self._functions:
            return function
        held, _, method = function.rpartition(".")
        return self._method_table(self.canonical(held)).get(method, function)

    def modules_showing(self, requirement: Requirement) -> frozenset[str]:
        """The project modules whose flow facts decide ``requirement``: the callee's, or
        for a result, those of its callers (module-level code included), but not tests:
        a test hands a helper's result to whatever it checks it against (a fixture, a
        stand-in model), which says nothing of where the library's own callers use it."""
        function = self.about(requirement)
        if requirement.kind is Needed.PARAMETER_GIVEN:
            return frozenset()  # the calls' shapes, every file's facts show
        if requirement.kind not in (Needed.RESULT_MEETS, Needed.RESULTS_JOINED):
            found = self._module_of.get(function)
            return frozenset({found}) if found is not None else frozenset()
        modules = set()
        for caller in self.callers(function):
            name = caller.partition(":")[0]
            module = self._module_of.get(name, name)
            if not (module in self._modules and self._in_tests(module)):
                modules.add(module)
        return frozenset(modules)

    def holds(self, requirement: Requirement) -> bool:
        """Whether the project's flow summaries show what a candidate needs from them."""
        function = self.about(requirement)
        part = requirement.part
        if requirement.kind is Needed.PARAMETER_GIVEN:
            return self._may_be_given(function, str(requirement.slot), requirement.position)
        if requirement.kind is Needed.RESULTS_JOINED:
            return function in self._joined_results
        if requirement.kind is Needed.RESULT_MEETS:
            # A row of a CPU result (`f(x)[0]`) is on the CPU too; a tuple meets nothing whole.
            met = self._meeting_results.get(function, set())
            return bool(met) if part is None else part in met
        summary = self._summaries.get(function)
        if summary is None:
            return False
        if requirement.kind is Needed.RESULT_DATA:
            return summary.data
        name = _parameter_of(summary, requirement.slot)
        if requirement.kind is Needed.PARAMETER_RETURNED:
            if name is not None and part is not None and part < len(summary.parts):
                return summary.parts[part] == "param" and name in summary.parts_via[part]
            return name is not None and self._returns_parameter(function, name, frozenset())
        placed = {_parameter_of(summary, slot) for slot in requirement.placed}
        given = {param for param in placed if param is not None}
        return name is not None and self._meets(function, name, given, frozenset())

    def _may_be_given(self, function: str, parameter: str, position: int | None) -> bool:
        """Some call of ``function`` may give ``parameter`` (at ``position``, or by its
        keyword, or unpacked), or not every call is known: where its uses are not all in
        the project's files (``_uses_known``), a module-level call (no shape kept), a
        module naming it that no call of its shapes runs (a reference: ``fn =
        self._shift``), a method other than a private one (``obj.m()`` calls no reading
        resolves; a constructor's, ``cls(...)``, ``partial(Block, ...)``)."""
        name = function.rpartition(".")[2]
        if self._owner(function) is not None and (
            not name.startswith("_") or name.startswith("__")
        ):
            return True
        module = self._module_of.get(function)
        if module is None or not self._uses_known(module, name):
            return True
        callers = self._call_sites.get(function, set())
        if any(caller not in self._functions for caller in callers):
            return True
        calling: set[str] = set()
        for caller, shape in self._shapes_calling(function, callers):
            calling.add(self._module_of[caller])
            passed = position is not None and shape.positional > position
            if shape.unpacks or passed or parameter in shape.keywords:
                return True
        return any(
            name in facts.mentions and other not in calling
            for other, facts in self._modules.items()
            if other != module
        )

    def _meets(self, function: str, parameter: str, placed: set[str], seen: frozenset[str]) -> bool:
        """Whether ``parameter`` of ``function`` (canonical) meets a tensor on the device, or
        one of its ``placed`` parameters (those given one): itself, or inside a function of
        another file it hands the parameter to (``meets_via``), a few calls deep."""
        summary = self._summaries.get(function)
        if summary is None or function in seen or len(seen) >= _MAX_MEETING_HOPS:
            return False
        partners = dict(summary.meets).get(parameter, ())
        if "" in partners or any(partner in placed for partner in partners):
            return True
        near = self._module_of.get(function, "")
        for callee, slot, param, beside in summary.meets_via:
            if param == parameter and self._meets_in(
                callee, slot, beside, near, placed, seen | {function}
            ):
                return True
        for first, first_slot, param, position, callee, slot, beside in summary.meets_via_parts:
            if param != parameter or not self._gives_back(first, first_slot, position, near):
                continue
            if self._meets_in(callee, slot, beside, near, placed, seen | {function}):
                return True
        return False

    def _meets_in(
        self,
        callee: str,
        slot: int | str,
        beside: tuple[tuple[int | str, str], ...],
        near: str,
        placed: set[str],
        seen: frozenset[str],
    ) -> bool:
        """Whether ``callee`` (as the module ``near`` names it), given a tensor at ``slot``,
        meets one of the arguments ``beside`` it that follow ``placed`` parameters there
        (``seen``: the functions on the way, the caller included)."""
        target = self.canonical(self.resolve(callee, near))
        inner = self._summaries.get(target)
        name = _parameter_of(inner, slot) if inner is not None else None
        if inner is None or name is None:
            return False
        given = {_parameter_of(inner, s) for s, p in beside if p == "" or p in placed}
        found = {g for g in given if g is not None}
        return self._meets(target, name, found, seen)

    def _gives_back(self, callee: str, slot: int | str, position: int, near: str) -> bool:
        """Whether element ``position`` of what ``callee`` (as ``near`` names it) returns is
        the tensor given at ``slot`` (``parts_via``): ``a, b = check(a, b)``."""
        summary = self._summaries.get(self.canonical(self.resolve(callee, near)))
        name = _parameter_of(summary, slot) if summary is not None else None
        if summary is None or name is None or position >= len(summary.parts):
            return False
        return summary.parts[position] == "param" and name in summary.parts_via[position]

    def _returns_parameter(self, function: str, parameter: str, seen: frozenset[str]) -> bool:
        """Whether the result of ``function`` (canonical) follows its ``parameter``: itself,
        or through what a function of another file it calls returns (``returns_via``)."""
        summary = self._summaries.get(function)
        if summary is None or function in seen:
            return False
        if parameter in summary.returns:
            return True
        for callee, slot, param in summary.returns_via:
            if param != parameter:
                continue
            target = self.canonical(self.resolve(callee, self._module_of.get(function, "")))
            inner = self._summaries.get(target)
            name = _parameter_of(inner, slot) if inner is not None else None
            if name is not None and self._returns_parameter(target, name, seen | {function}):
                return True
        return False

    def unsummarised_callees(self) -> frozenset[str]:
        """Project functions whose results summaries say theirs may be (``returns_via``),
        or that they hand a parameter or an element of a result to (``meets_via``,
        ``meets_via_parts``), and that have no summary yet: a later pass computes theirs."""
        found = set()
        for function, summary in self._summaries.items():
            callees = [callee for callee, _, _ in summary.returns_via]
            callees += [callee for callee, _, _, _ in summary.meets_via]
            callees += [entry[0] for entry in summary.meets_via_parts]
            callees += [entry[4] for entry in summary.meets_via_parts]
            for callee in callees:
                target = self.canonical(self.resolve(callee, self._module_of.get(function, "")))
                if target in self._functions and target not in self._summaries:
                    found.add(target)
        for _, receiver, _, module in self._results_handed:
            target = self.canonical(self.resolve(receiver, module))
            if target in self._functions and target not in self._summaries:
                found.add(target)
        return frozenset(found)

    def scope_info(self, scope: Scope) -> ScopeInfo:
        if scope.class_name is not None:
            if scope.function_name in self.own_moves(scope.class_name):
                return ScopeInfo(own_move=True)
            kind = self._model_kind(scope.class_name)
            if not kind.model and self.loads_data(scope.class_name):
                return ScopeInfo()
            if kind.model or kind.device_context:
                return ScopeInfo(
                    model_code=kind.model,
                    device_context=True,
                    # Inside `def device(self)` itself, self.device would call itself.
                    device_aware=kind.device_aware
                    and scope.has_self
                    and scope.method != "device"
                    and not (kind.model and self._runs_in_init(scope)),
                    lightning=kind.lightning,
                    in_init=scope.method in SETUP_METHODS,
                    forward_path=kind.model and scope.function_name in self._forward_methods,
                )
            # Else like a function: a static method model code calls through the class name.
        if scope.function_name is not None:
            return ScopeInfo(
                model_code=scope.function_name in self._model_functions,
                device_context=scope.function_name in self._context_functions,
                forward_path=scope.function_name in self._forward_functions,
                knows_inputs=scope.function_name in self._input_functions,
            )
        return ScopeInfo()

    def on_forward_path(self, class_name: str, method: str) -> bool:
        """Whether ``method`` of the model class ``class_name`` (as its file names it) runs
        on every batch: a forward method, or one that such a method of the class or of a
        base reaches by calls on ``self``, in whichever file the base is (a base's
        ``training_step`` calling ``self.train_step_gen``)."""
        return f"{class_name}.{method}" in self._forward_methods

    def _runs_in_init(self, scope: Scope) -> bool:
        """A method ``__init__`` calls on ``self`` (``populate_modules``), also through a
        project base's ``__init__``: a module's ``self.device`` reads its parameters, which
        may not exist yet there."""
        assert scope.class_name is not None
        if scope.method in SETUP_METHODS:
            return False
        name = self.canonical(scope.class_name)
        found = self._init_reached.get(name)
        if found is None:
            inits = [f"{facts.name}.__init__" for facts in self._lineage(name)]
            found = self._init_reached[name] = self._reached_on_self(
                self._method_table(name), [init for init in inits if init in self._functions]
            )
        return scope.function_name in found

    def defines_model_code(self, facts: FileFacts) -> bool:
        """Whether a class or function the file defines is model code (see ``scope_info``)."""
        if any(self.class_kind(found.name).model for found in facts.classes):
            return True
        return any(found.name in self._model_functions for found in facts.functions)

    def defines_device_context(self, facts: FileFacts) -> bool:
        """Whether a class or function the file defines is a device context."""
        if any(self._in_context(found.name) for found in facts.classes):
            return True
        return any(found.name in self._context_functions for found in facts.functions)

    def defines_input_functions(self, facts: FileFacts) -> bool:
        """Whether a function the file defines knows its inputs (``ScopeInfo.knows_inputs``)."""
        return any(
            f"{found.name}.{method}" in self._input_functions
            for found in facts.classes
            for method in found.methods
        ) or any(found.name in self._input_functions for found in facts.functions)

    def _in_context(self, class_name: str) -> bool:
        """The class's methods are a device context: model, mixin of one, or storing."""
        return self._model_kind(class_name).model or self.class_kind(class_name).device_context

    # Cross-file facts contributed by rules ---------------------------------------

    @cached_property
    def distributed(self) -> Distributed:
        """Configuration wins; else any signal in any file of the project."""
        if isinstance(self._distributed_setting, bool):
            return Distributed(self._distributed_setting, "`distributed` in the configuration")
        for signal, file_facts in self._signals:
            return Distributed(True, f"{signal.description} at {file_facts.path}:{signal.line}")
        return Distributed(False, "no sign of distributed training")

    @cached_property
    def single_node(self) -> str | None:
        """Where the project's own distributed set-up shows it runs on one machine
        (``SingleNode``), if it does: its global rank is then the local one."""
        for evidence, file_facts in self._single_node:
            return f"{evidence.description} at {file_facts.path}:{evidence.line}"
        return None

    def runs_alone(self, module: str, at_top_level: bool) -> bool:
        """Code of ``module`` runs in processes it starts itself: test code (a test runner
        runs it), or the top-level code of a module no project module imports (a script).
        Whether those are several is for its own code to say (``distributed_in``)."""
        if module not in self._modules:
            return False
        return self._in_tests(module) or (at_top_level and not self.imported(module))

    def distributed_in(self, *modules: str) -> Distributed:
        """``distributed``, from the signals of ``modules`` alone (configuration still wins)."""
        return self._distributed_among(set(modules), "in the script or test")

    def distributed_importing(self, module: str) -> Distributed:
        """``distributed``, from the signals of ``module`` and of the modules that import
        it (configuration still wins): the processes that may run its code."""
        return self._distributed_among(self._importing(module), "where its code runs")

    def _distributed_among(self, modules: set[str], where: str) -> Distributed:
        if isinstance(self._distributed_setting, bool):
            return self.distributed
        for signal, file_facts in self._signals:
            if file_facts.module in modules:
                return Distributed(True, f"{signal.description} at {file_facts.path}:{signal.line}")
        return Distributed(False, f"no sign of distributed training {where}")

    def backends(self, scope: Scope) -> frozenset[str]:
        """The device types the scope's module is bound to: it imports or calls a library
        that runs on that type only (``BACKEND_LIBRARIES``), calls its operators
        (``BACKEND_OP_NAMESPACES``), or launches kernels compiled for it (``_backends``).
        Such code runs there only, on the device the backend's set-up made current: a
        literal of that type without an index is that device, one of another type is still
        hard-coded."""
        module = self._module_of.get(scope.function_name or scope.class_name or "")
        return self._backends.get(module or "", frozenset())

    def computes_on_host(self, scope: Scope) -> bool:
        """The scope's module is bound to host runtimes alone (``backends`` is the CPU):
        its tensors are CPU tensors, so a CPU tensor made there meets no device. Not model
        code: a torch module there runs wherever it is moved (and may be exported)."""
        return self.backends(scope) == {"cpu"} and not self.scope_info(scope).model_code

    def _defines(self, name: str) -> bool:
        """``name`` is a definition of the project: ``openvino.patcher.f`` of a
        project checked inside the namespace package ``optimum/exporters/`` is its own, not
        the OpenVINO runtime's (a host runtime binds only as the library; a one-backend
        library checked as its own project, Megatron-LM, is still that backend's code)."""
        return self.canonical(name) in self._module_of

    @cached_property
    def _backends(self) -> dict[str, frozenset[str]]:
        """``backends`` of each module, read once (asked for every literal): the device types
        of the libraries it uses and of the project definitions it uses that are bound to
        one (``_bound_definitions``: a module using the project's wrapper of a library
        is bound to it as a module using the library is), and those of the kernels it
        compiles or imports compiled whenever it is imported (``FileFacts.compiled_for``,
        ``_extension_backend`` of ``FileFacts.loads``): their kernels run on the current
        device of that type. Not those under ``try``/``if``: a fallback may run instead."""
        bound: dict[str, frozenset[str]] = {}
        for module, facts in self._modules.items():
            used = chain(
                facts.aliases.values(),
                facts.top_level_calls,
                (call for function in facts.functions for call in function.calls),
            )
            kinds = frozenset(kind for name in used for kind in self._binds(name, module))
            kinds |= frozenset(facts.compiled_for)
            kinds |= {kind for name in facts.loads if (kind := self._extension_backend(name))}
            if kinds:
                bound[module] = kinds
        return bound

    def _binds(self, name: str, near: str) -> Iterator[str]:
        """The device types that using ``name`` (an import or a call, as written in the
        module ``near``) binds to: its library's, else the project definition's."""
        kind = self._library_backend(name)
        if kind is not None:
            yield kind
        yield from self._bound_definitions.get(self.resolve(name, near), ())

    def _extension_backend(self, name: str) -> str | None:
        """The device type of the compiled extension module that ``name`` is in: one the
        project's build declares (``_declared_extensions``: ``pkg.ops._ext``, loaded as
        ``from ._ext import f``), one named for its type (``EXTENSION_MODULE_TYPES``:
        ``pointnet2_cuda``), or the kernel library it is part of (``KERNEL_LIBRARIES``:
        ``flashinfer``), when no module of the project has that name."""
        if name not in self._modules:
            own = name.partition(".")[0] in self._top_packages  # not `torch._C` for `_C`
            for declared, device_type in self._declared_extensions.items():
                if name == declared or (own and name.endswith(f".{declared}")):
                    return device_type
        top = name.partition(".")[0]
        if top in self._modules:
            return None
        parts = name.split(".")
        for length in (2, 1):
            kind = KERNEL_LIBRARIES.get(".".join(parts[:length]))
            if kind is not None:
                return kind
        endings = EXTENSION_MODULE_TYPES.items()
        return next((kind for ending, kind in endings if top.endswith(ending)), None)

    @cached_property
    def _top_packages(self) -> frozenset[str]:
        """The first parts of the project's module names (its top-level packages)."""
        return frozenset(module.partition(".")[0] for module in self._modules)

    @cached_property
    def _declared_extensions(self) -> dict[str, str]:
        """The compiled extension modules the project's build declares
        (``FileFacts.declared_extensions``), each with its one device type."""
        return {
            module: kind
            for facts in self._modules.values()
            for module, kind in facts.declared_extensions
        }

    def _library_backend(self, name: str) -> str | None:
        """``_backend_of(name)``, but none for a project definition named like a host
        runtime (``_defines``)."""
        kind = _backend_of(name)
        return None if kind == "cpu" and self._defines(name) else kind

    @cached_property
    def _bound_definitions(self) -> dict[str, frozenset[str]]:
        """The device types each project class is bound to: those of the one-device
        libraries it derives from, and of the project classes it derives from that are
        bound, however many steps away. Not a function that calls such a library: a helper
        may call it only when it is there (``try: import megatron``), and binding every
        caller of the helper would silence code that runs anywhere."""
        direct: dict[str, set[str]] = {}
        users: dict[str, set[str]] = {}  # who derives from each class
        for name, facts in self._classes.items():
            for base in facts.bases:
                self._link_base(name, base, direct, users)
        bound: dict[str, set[str]] = {}
        for kind in {kind for kinds in direct.values() for kind in kinds}:
            roots = (name for name, kinds in direct.items() if kind in kinds)
            for name in _reachable(roots, users):
                bound.setdefault(name, set()).add(kind)
        return {name: frozenset(kinds) for name, kinds in bound.items()}

    def _link_base(
        self, user: str, name: str, direct: dict[str, set[str]], users: dict[str, set[str]]
    ) -> None:
        """Record that the project class ``user`` derives from ``name`` (a base, as its file
        resolves it): a library's class directly, or a project class."""
        kind = self._library_backend(name)
        if kind is not None:
            direct.setdefault(user, set()).add(kind)
        target = self.resolve(name, self._module_of[user])
        if target != user and target in self._classes:
            users.setdefault(target, set()).add(user)

    @cached_property
    def current_device_types(self) -> frozenset[str]:
        """The device types whose current device a function of the project sets
        (``torch.cuda.set_device(local_rank)``: ``cuda``; ``torch.npu.set_device``: ``npu``).
        Its set-up pins each process to its GPU; with other types, its code runs on several."""
        return frozenset(
            _sets_current(c for facts in self._functions.values() for c in facts.calls)
        )

    @cached_property
    def set_up_device_types(self) -> frozenset[str]:
        """The device types whose current device the project's own launcher code, not its
        tests, sets (``torch.cuda.set_device(local_rank)`` in a function or at a module's top
        level: a process's set-up; in a method it is one object's, on the thread that built
        it)."""
        own = [facts for module, facts in self._modules.items() if not self._in_tests(module)]
        launchers = chain(
            (call for facts in own for call in facts.top_level_calls),
            (
                call
                for facts in own
                for function in facts.functions
                if self._owner(function.name) is None
                for call in function.calls
            ),
        )
        return frozenset(_sets_current(launchers))

    @cached_property
    def first_chosen_gpu_current(self) -> frozenset[str]:
        """The user's lists of GPUs (``gpu_ids``) whose first GPU the project's own code, not
        its tests, makes current (``torch.cuda.set_device(opt.gpu_ids[0])``, also in a
        method: an options parser's): where such a list is not empty, the current GPU is
        the one the user chose."""
        return frozenset(
            choice for choice, module in self._first_chosen if not self._in_tests(module)
        )

    @cached_property
    def sets_each_process_gpu(self) -> bool:
        """The project's set-up makes each process's own GPU current (``set_up_device_types``),
        never one named by a constant (``set_device(0)``: every rank's, whichever GPU its
        tensors are on): the current GPU is the one the process computes on."""
        fixed = any(not self._in_tests(module) for module in self._fixed_gpus)
        return "cuda" in self.set_up_device_types and not fixed

    @cached_property
    def pins_each_process_gpu(self) -> bool:
        """The project's set-up makes each process's GPU current (``sets_each_process_gpu``),
        no code of it makes a device of another type current, and none calls into another
        accelerator (``OTHER_ACCELERATOR_NAMESPACES``: ``torch.backends.mps.is_available()``):
        every process works on its one GPU, which an index-less ``"cuda"`` or ``.cuda()``
        names, whichever GPU it is, and the project offers no other device to be on
        instead."""
        own = [facts for module, facts in self._modules.items() if not self._in_tests(module)]
        elsewhere = any(_calls_another_accelerator(facts) for facts in own)
        types = self.set_up_device_types
        return (
            self.sets_each_process_gpu
            and types == self.current_device_types == {"cuda"}
            and not elsewhere
        )

    def runs_on_the_current_gpu_only(self, scope: Scope) -> bool:
        """The scope is code of a program (a script: a module that no other imports, with a
        ``__main__`` block or an argument parser built at its top level, that imports the
        project's modules; not a model file's own self-test) none of whose code that runs
        with it (``_offers_running``), tests aside, offers a device other than the current GPU
        (``FileFacts.offers_other_devices``): no CPU or other accelerator, no GPU by a number
        or chosen at run time, no question which devices exist, no option to choose one.
        Every tensor it makes is on the current GPU (which ``set_device(rank)`` may choose),
        so an index-less ``"cuda"`` or ``.cuda()`` there agrees with all of them. A folder
        of modules with no such script is not known to be the whole program."""
        offers = self._offers_running(scope)
        return offers is not None and not offers.another_device

    def runs_on_the_current_gpu_or_the_cpu(self, scope: Scope) -> bool:
        """The scope is code of a program (``runs_on_the_current_gpu_only``) none of whose
        code that runs with it offers a GPU other than the current one, nor another
        accelerator: it may offer the CPU (``--no-cuda``, ``torch.cuda.is_available()``),
        but every tensor it puts on a GPU is on the current one, so an index-less ``"cuda"``
        or ``.cuda()`` the code takes only where it runs on the GPU (under a device flag)
        agrees with all of them."""
        offers = self._offers_running(scope)
        return offers is not None and not offers.another_gpu

    def _offers_running(self, scope: Scope) -> Offers | None:
        """What the code that runs with the scope's offers: that of each script that runs it
        (``_scripts_running``, ``_offers_of_script``) and the scope's own definition's; where
        no script is known to run it, what all the program's code offers. None where the
        project is no program (``_program_code``)."""
        program = self._program_code
        if not program:
            return None
        module, definition, runners = self._runners(scope)
        if not runners:
            return self._program_offers
        found = [self._offers_of_script(script) for script in runners]
        if definition:
            kinds = self._places(self._modules[module]).get(definition, frozenset())
            if all(script in self._pinned_scripts for script in runners):
                kinds = kinds - {NUMBERED_GPU}
            found.append(Offers(bool(kinds), offers_a_gpu(kinds)))
        return Offers(any(o.another_device for o in found), any(o.another_gpu for o in found))

    @cached_property
    def _program_offers(self) -> Offers:
        """What all the program's code offers (``_places``), for code no script is known to
        run. A GPU by a number chosen at run time in a script that nothing imports and that
        makes its process's GPU current (``_pinned_scripts``) is that current GPU."""
        offered: set[str] = set()
        for facts in self._program_code:
            pinned = facts.module in self._pinned_scripts and not self.imported(facts.module)
            for kinds in self._places(facts).values():
                offered |= kinds - {NUMBERED_GPU} if pinned else kinds
        return Offers(bool(offered), offers_a_gpu(offered))

    def _offers_of_script(self, script: str) -> Offers:
        """What the code ``script`` may run offers (``FileFacts.offering_places``): the top
        level of each program module it imports, its own ``__main__`` block, the top-level
        definitions it may run (``ScriptReach.definitions``), and all of a module whose
        names may be looked up at run time (``_looked_up_in``). A GPU by a number chosen at
        run time is the current one where the script's set-up made its process's GPU
        current (``_pinned_scripts``)."""
        found = self._script_offers.get(script)
        if found is None:
            reach = self._script_reach[script]
            program = {facts.module for facts in self._program_code}
            kinds: set[str] = set()
            for module in reach.modules & program:
                for place, offered in self._places(self._modules[module], script).items():
                    if (
                        place == TOP_LEVEL
                        or (place == MAIN_GUARD_NAME and module == script)
                        or f"{module}.{place}" in reach.definitions
                        or module in self._looked_up_in
                    ):
                        kinds |= offered
            if script in self._pinned_scripts:
                kinds.discard(NUMBERED_GPU)
            found = self._script_offers[script] = Offers(bool(kinds), offers_a_gpu(kinds))
        return found

    def _places(self, facts: FileFacts, script: str = "") -> dict[str, frozenset[str]]:
        """Each place of the module that offers another device, with what it offers
        (``FileFacts.offering_places``), its command-line options among them
        (``FileFacts.option_places``) but those whose value the module, or one it loads,
        or the ``script`` that runs it with what it loads, makes its current GPU or the one
        its process sees (``_gpu_choices_loaded``): ``--gpu`` read by ``set_device(args.gpu)``
        chooses which GPU is current, where ``.cuda()`` goes too."""
        script = script if facts.option_places else ""
        found = self._module_places.get((facts.module, script))
        if found is None:
            offered: dict[str, frozenset[str]] = {}
            for place, kinds in (*facts.offering_places, *self._read_held(facts)):
                if not self._chooses_devices(facts, place):
                    kinds = kinds - _FOLLOWED
                offered[place] = offered.get(place, frozenset()) | kinds
            found = {place: kinds for place, kinds in offered.items() if kinds}
            chosen = self._gpu_choices_loaded(facts.module) if facts.option_places else set()
            if script:
                chosen |= self._gpu_choices_loaded(script)
            for place, options in facts.option_places:
                for option in options:
                    if option.names.isdisjoint(chosen):
                        found[place] = found.get(place, frozenset()) | option_kinds(option)
            self._module_places[(facts.module, script)] = found
        return found

    def _read_held(self, facts: FileFacts) -> Iterator[tuple[str, frozenset[str]]]:
        """What the module's values assigned to names it never reads offer
        (``FileFacts.held_offers``), where another module may read the name
        (``_read_elsewhere``): a module's name, at its top level or in its ``__main__``
        block. A function's local read nowhere, and a script's ``device =
        torch.device("cuda" if torch.cuda.is_available() else "cpu")`` that its own code
        never uses, choose nothing."""
        for place, name, kinds in facts.held_offers:
            at_module_level = place in (TOP_LEVEL, MAIN_GUARD_NAME)
            if at_module_level and self._read_elsewhere(facts.module, name):
                yield place, kinds

    def _chooses_devices(self, facts: FileFacts, place: str) -> bool:
        """Code at ``place`` of the module may say where the program computes: the module's
        top level or ``__main__`` block, a script (``_scripts``, imported or not), a module
        with command-line options that choose a device (any: some may only choose the
        visible GPU, which errs toward more offers). Elsewhere (``_FOLLOWED``) the CPU named
        by a literal (``CPU_BY_NAME``: an EMA's CPU copy, a loader's ``device="cpu"``) is
        one value's place, and a device the code is given (``DEVICE_GIVEN``:
        ``torch.device(device)``) its caller's, not the program's choice."""
        return (
            place in (TOP_LEVEL, MAIN_GUARD_NAME)
            or bool(facts.option_places)
            or facts.module in self._script_set
        )

    @cached_property
    def _script_set(self) -> frozenset[str]:
        return frozenset(self._scripts)

    def _gpu_choices_loaded(self, module: str) -> set[str]:
        """The attributes whose values ``module`` or a module it loads, however far, tests
        aside, makes the GPUs a process sees or its current GPU (``FileFacts.gpu_choices``:
        ``os.environ["CUDA_VISIBLE_DEVICES"] = self.gpu_ids`` in the config module a script
        imports; ``set_device(opt.gpu_ids[0])``: ``_first_chosen``); not what a script it
        never loads does."""
        loaded = {
            m
            for m in _reachable((module,), self._imports)
            if m in self._modules and not self._in_tests(m)
        }
        chosen = {choice for choice, chooser in self._first_chosen if chooser in loaded}
        return chosen.union(*(self._modules[m].gpu_choices for m in loaded))

    @cached_property
    def _pinned_scripts(self) -> frozenset[str]:
        """The modules whose ``__main__`` block surely makes the process's GPU current before
        its work: it calls, as a whole statement (``FunctionFacts.steps``, not under a test:
        ``_setting_up_through``), a function that does so itself
        (``torch.cuda.set_device(local_rank)`` as a whole statement of its body), or one
        that calls such a function so, however far. There a GPU by the number the process
        chose is its current one, where ``.cuda()`` puts tensors too."""
        clean = self._clean_modules
        setters = {
            name
            for name, function in self._functions.items()
            if self._module_of[name] in clean
            and not self._in_tests(self._module_of[name])
            and _sets_current(function.steps) == {"cuda"}
        }
        set_up = setters | self._setting_up_through(setters, clean)
        return frozenset(
            name.removesuffix(_MAIN_GUARD) for name in set_up if name.endswith(_MAIN_GUARD)
        )

    def runs_no_loader_workers(self, scope: Scope) -> bool:
        """The scope is code of a program (``runs_on_the_current_gpu_only``) none of whose
        code that runs with it (``_code_running``) gives a data loader worker processes
        (``FileFacts.starts_loader_workers``) nor calls a library's trainer or loader
        builder (``FileFacts.loader_builders``: ``transformers.Trainer``, whose workers
        ``--dataloader_num_workers`` may set), and some of which makes a loader itself
        (``FileFacts.builds_loaders``): a Dataset's items and a collate function's batches
        are made in the process that iterates the loader."""
        own = self._code_running(scope)
        if not any(facts.builds_loaders for facts in own):
            return False
        return not any(
            facts.starts_loader_workers or any(not self._defines(c) for c in facts.loader_builders)
            for facts in own
        )

    def _code_running(self, scope: Scope) -> list[FileFacts]:
        """The program's code (``_program_code``) that runs with the scope's: the modules of
        the scripts that run it (``_scripts_running``) and of all they import, however far.
        The options of a script that never runs this code choose nothing for it (a CPU
        ``detect.py`` beside a GPU-only ``train.py`` that alone builds the loss). All the
        program's code where no script is known to run it."""
        program = self._program_code
        runners = self._runners(scope)[2] if program else []
        if not runners:
            return program
        reached = set().union(*(self._script_reach[script].modules for script in runners))
        return [facts for facts in program if facts.module in reached]

    def _runners(self, scope: Scope) -> tuple[str, str, list[str]]:
        """The scope's module, its top-level definition (empty: the module's top level) and
        the scripts that run it (``_scripts_running``; none where its module is unknown)."""
        module = self._module_of.get(scope.function_name or scope.class_name or "")
        if module is None:
            return "", "", []
        key = (module, _top_definition(scope, module))
        runners = self._runners_of.get(key)
        if runners is None:
            runners = self._runners_of[key] = self._scripts_running(*key)
        return (*key, runners)

    def _scripts_running(self, module: str, definition: str) -> list[str]:
        """The program's scripts that may run the top-level class or function
        ``definition`` of ``module`` (empty: code at its top level): the module is the script,
        or one it imports, however far, where the definition is one the script may run
        (``ScriptReach.definitions``) or its module's names may be looked up at run time
        (``_looked_up_in``: ``getattr(models, cfg.arch)``). None where the program finds
        code by a name computed at run time (``RUN_TIME_LOOKUPS``), where the project is
        packaged (others may run it; its texts are not read), or where a file without facts
        names it (a Python 2 script), nor where the program has more scripts than
        ``MAX_SCRIPTS_READ`` (each one's reach is read over all it imports)."""
        unread = self._names_without_facts
        if self._packaged or unread is None or definition in unread:
            return []
        if self._loads_code_by_name or len(self._scripts) > MAX_SCRIPTS_READ:
            return []
        scripts = self._script_reach
        qualified = f"{module}.{definition}"
        return [
            script
            for script, reach in scripts.items()
            if script == module
            or (module in reach.modules and (not definition or module in self._looked_up_in))
            or (definition and qualified in reach.definitions)
        ]

    @cached_property
    def _script_reach(self) -> dict[str, ScriptReach]:
        """What each script of the program (``_scripts``) may run."""
        return {script: ScriptReach(*self._definitions_run(script)) for script in self._scripts}

    @cached_property
    def _scripts(self) -> list[str]:
        """The program's scripts: modules of ``_program_code`` with a ``__main__`` block, or
        that no other imports and that call something at their top level (a notebook too)."""
        return [
            facts.module
            for facts in self._program_code
            if facts.main_block or (facts.top_level_calls and not self.imported(facts.module))
        ]

    @cached_property
    def _loads_code_by_name(self) -> bool:
        """A module of the program names a loader of code by a computed name
        (``FileFacts.loaders``: ``importlib.import_module``, ``instantiate``)."""
        return any(facts.loaders for facts in self._program_code)

    def _definitions_run(self, script: str) -> tuple[frozenset[str], frozenset[str]]:
        """The project modules ``script`` may load and the top-level definitions it may run.
        It loads the modules it imports, however far; it runs what their top level or its
        own ``__main__`` block names (not another's), every definition of a module whose
        names are looked up at run time (``_looked_up_in``), and what such a definition
        names, however many steps away. A name one of its modules defines is that definition
        (``collate_fn``, the script's own); a name they import from a module this reading
        cannot follow (``_blind_imports``) is any module's definition of that name, whose
        module it then loads too, and whose names are any module's."""
        modules = _reachable((script,), self._imports) & self._modules.keys()
        imported = frozenset(modules)
        own: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for module in imported:
            for name, words in self._modules[module].definition_mentions:
                if name != MAIN_GUARD_NAME:
                    own.setdefault(name, []).append((f"{module}.{name}", words))
        anywhere = self._definitions_named
        blind = self._blind_imports(imported)
        todo: list[tuple[str, bool]] = []
        seen: set[tuple[str, bool]] = set()
        run: set[str] = set()

        def use(words: Iterable[str], foreign: bool) -> None:
            fresh = {(word, foreign) for word in words} - seen
            seen.update(fresh)
            todo.extend(fresh)

        def load(found: set[str]) -> None:
            for module in found - modules:
                modules.add(module)
                use(self._modules[module].top_level_mentions, foreign=True)

        for module in imported:
            use(self._modules[module].top_level_mentions, foreign=False)
            if module in self._looked_up_in:  # `getattr(models, arch)`: any may run
                for name, words in self._modules[module].definition_mentions:
                    if name != MAIN_GUARD_NAME:
                        run.add(f"{module}.{name}")
                        use(words, foreign=False)
        use(dict(self._modules[script].definition_mentions).get(MAIN_GUARD_NAME, ()), False)
        while todo:
            name, foreign = todo.pop()
            if not foreign and name in own:
                found = own[name]
            elif foreign or blind is None:
                found = anywhere.get(name, [])
            else:
                found = anywhere.get(blind[name], []) if name in blind else []
            for qualified, words in found:
                if qualified in run:
                    continue
                run.add(qualified)
                home = qualified.rpartition(".")[0]
                if home not in modules:
                    load(_reachable((home,), self._imports) & self._modules.keys())
                use(words, foreign=home not in imported)
        return frozenset(modules), frozenset(run)

    def _blind_imports(self, modules: frozenset[str]) -> dict[str, str] | None:
        """The names ``modules`` bind by importing, from a module this reading cannot follow
        (``sys.path`` edits: ``from multibox_loss import MultiBoxLoss``, in a function too),
        a name the project defines: each with that name. Such a module is named like one of
        the project's (``multibox_loss``, not ``torchvision``). None where one of them
        imports such a module itself (``import multibox_loss``, ``from multibox_loss import
        *``): any name may then be one of its definitions."""
        named = self._definitions_named
        module_names = {module.rpartition(".")[2] for module in self._modules}
        found: dict[str, str] = {}
        for module in modules:
            facts = self._modules[module]
            for target in facts.stars:
                top = target.partition(".")[0]
                if top in module_names and top not in self._modules:
                    return None  # `from multibox_loss import *`
            for local, target in facts.aliases.items():
                if target.partition(".")[0] not in module_names:
                    continue  # a library's (`torchvision.models`), or the module's own
                if target.partition(".")[0] in self._modules or self._defines(target):
                    continue  # found: `from data import cfg`, a value of `data/__init__.py`
                last = target.rpartition(".")[2]
                if last not in named:
                    return None
                found[local] = found[last] = last
        return found

    @cached_property
    def _definitions_named(self) -> dict[str, list[tuple[str, frozenset[str]]]]:
        """Each top-level definition of the project, by its name, with the names its text
        uses (``FileFacts.definition_mentions``)."""
        found: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for module, facts in self._modules.items():
            for name, words in facts.definition_mentions:
                if name != MAIN_GUARD_NAME:
                    found.setdefault(name, []).append((f"{module}.{name}", words))
        return found

    @cached_property
    def makes_factories_on_the_gpu(self) -> bool:
        """The project is a program (``runs_on_the_current_gpu_only``) each of whose scripts
        (a module with a ``__main__`` block, or one nothing imports that calls something at
        its top level; not a test, nor one that runs nothing of torch) surely makes
        factories without ``device=`` put their tensors on the GPU (``FileFacts.gpu_default``:
        ``torch.set_default_tensor_type("torch.cuda.FloatTensor")`` in its body or directly
        in its ``__main__`` block, or in the body of a module it imports): a
        ``torch.zeros(n)`` of its code is no CPU tensor, whichever script runs it. (Whether
        a factory runs before the setter is not read: scripts set it as they start.)"""
        if not any(facts.gpu_default for facts in self._modules.values()):
            return False  # most projects: no module sets it, and nothing more to read
        if not self._program_code:
            return False
        scripts = [
            (module, self._modules[module])
            for module in self._scripts
            if not self._in_tests(module) and not self._runs_nothing_of_torch(module)
        ]
        return bool(scripts) and all(
            facts.gpu_default
            or any(
                self._modules[imported].gpu_default == RUNS_ON_IMPORT
                for imported in _reachable((module,), self._imports)
                if imported in self._modules
            )
            for module, facts in scripts
        )

    @cached_property
    def _program_code(self) -> list[FileFacts]:
        """The facts of the project's modules, tests aside, if it is a program
        (``runs_on_the_current_gpu_only``: it has a script with a ``__main__`` block or an
        argument parser at its top level); none if it is not. Not a script of another
        framework, one that no module imports and that runs nothing of torch
        (``_runs_nothing_of_torch``): it cannot run the project's tensors."""
        programs = self._programs(wide=False)
        if not programs:
            return []
        return [
            facts
            for module, facts in self._modules.items()
            if (not self._in_tests(module) or module in programs)  # `tools/test_net.py` runs
            and (self.imported(module) or not self._runs_nothing_of_torch(module))
        ]

    def _runs_nothing_of_torch(self, module: str) -> bool:
        """Neither the module nor a project module it imports, however far, uses torch or a
        framework built on it (a Caffe feature extractor's ``--gpu``, COLMAP's readers).
        Searched outwards from the module, stopping at the first that does (most scripts
        import torch themselves)."""
        reached = (self._modules.get(found) for found in _walk((module,), self._imports))
        return not any(facts is not None and _uses_torch(facts) for facts in reached)

    def _programs(self, *, wide: bool) -> set[str]:
        """The project's scripts: modules that no other imports, that import the project's
        modules and do their work when run, by a ``__main__`` block or an argument parser
        built at their top level, or, ``wide``, by any call of the project's code there
        (``opt = TrainOptions().parse()``, a script without a ``__main__`` guard; but also
        a Sphinx ``conf.py`` asking the version, so not where that would quiet findings)."""
        return {
            module
            for module, facts in self._modules.items()
            if self._runs_when_run(module, facts, wide=wide)
            and not self.imported(module)
            and self._imports.get(module, frozenset()) & self._modules.keys()
        }

    def _runs_when_run(self, module: str, facts: FileFacts, *, wide: bool) -> bool:
        if facts.main_block or _ARGUMENT_PARSER in facts.top_level_calls:
            return True
        calls = facts.top_level_calls if wide else ()
        return any(self.resolve(call, module) in self._module_of for call in calls)

    def named_only_in(self, qualified: str) -> bool:
        """``qualified``, a top-level function or name, is named in no other file of a
        program that is not packaged for others to call and whose files' names are all known
        (``_dead_code``'s reading: ``FileFacts.mentions``, ``names_without_facts``), and no
        code finds functions by a name computed at run time: every use of it is in its own
        file."""
        module, _, name = qualified.rpartition(".")
        return self._uses_known(module, name) and not any(
            name in facts.mentions for other, facts in self._modules.items() if other != module
        )

    def _uses_known(self, module: str, name: str) -> bool:
        """Every use of ``module``'s top-level ``name`` is in the project's files, which
        this reading sees: a program not packaged for others, no file without facts spells
        the name, no code finds code by a name computed at run time."""
        unread = self._names_without_facts
        if self._packaged or unread is None or name in unread or not self._programs(wide=True):
            return False
        return module not in self._looked_up_in and not self._finds_code_by_name

    def _read_elsewhere(self, module: str, name: str) -> bool:
        """Another module may read ``module``'s top-level ``name``: not all its uses are known
        (``_uses_known``), or a module that imports it, however far, names it, other than
        as a name of its own it never reads (``FileFacts.held_offers``: a script importing
        another's ``device`` it binds itself)."""
        return not self._uses_known(module, name) or any(
            name in facts.mentions
            and all(held != name for _, held, _ in facts.held_offers)
            and module in _reachable((other,), self._imports)
            for other, facts in self._modules.items()
            if other != module
        )

    @cached_property
    def _code_loaders(self) -> frozenset[str]:
        """The loaders of code by a computed name the project's files use
        (``RUN_TIME_LOOKUPS`` in the files without facts, ``FileFacts.loaders``)."""
        unread = self._names_without_facts or frozenset()
        return (RUN_TIME_LOOKUPS & unread).union(
            *(facts.loaders for facts in self._modules.values())
        )

    @cached_property
    def _finds_code_by_name(self) -> bool:
        """Some code may run a class or function by a name computed at run time: a loader
        other than a module loader (``instantiate``, ``__subclasses__``), or a module loaded
        by a computed name (``MODULE_LOADERS``) whose names some file looks up
        (``looks_up_names``) or whose members it lists (``lists_members``)."""
        loaders = self._code_loaders
        finding = any(f.looks_up_names or f.lists_members for f in self._modules.values())
        return bool(loaders - MODULE_LOADERS) or (bool(loaders) and finding)

    def never_runs(self, scope: Scope, module: str) -> bool:
        """The scope is code that nothing runs (``_dead_code``): a module of a program that
        nothing imports or runs, a class or function no code names, a method no code names
        of a class whose bases call none by name."""
        dead = self._dead_code
        return bool(dead) and any(
            name in dead for name in (module, scope.class_name, scope.function_name) if name
        )

    @cached_property
    def _dead_code(self) -> frozenset[str]:
        """What never runs in a program (``runs_on_the_current_gpu_only``'s: scripts that
        import the project's modules) that is not packaged for others to call, whose files'
        names are all known (``names_without_facts``: none excluded) and that finds no code
        by a name computed at run time (``RUN_TIME_LOOKUPS``: a config's ``instantiate``,
        ``__subclasses__``; a module loaded so, ``importlib.import_module``, only with a name
        looked up somewhere, ``getattr(module, cfg.name)``, or members listed,
        ``inspect.getmembers(module)``): its modules that no text of the
        project names (``FileFacts.mentions``; none where a module is loaded by a computed
        name), and its classes and functions that no code
        that may run names (``_words_of_live_code``: a helper only a dead function calls is
        dead too), tests aside. A module
        counts when no module imports it and it runs nothing itself (no ``__main__`` block,
        no call at its top level) and holds no class a framework may load (one derived
        from a base other than the project's, ``object`` and ``torch.nn.Module``: a Cog
        predictor); a method, when its class's bases are of those too and it overrides
        none of ``nn.Module``'s (``NN_MODULE_METHODS``: ``forward`` runs by ``__call__``)
        and is no dunder."""
        unread = self._names_without_facts
        if self._packaged or unread is None or not self._programs(wide=True):
            return frozenset()
        if self._finds_code_by_name:
            return frozenset()
        mentioned = unread.union(*(facts.mentions for facts in self._modules.values()))
        loaders = self._code_loaders
        alive = self._looked_up_in
        dead: set[str] = set()
        for module, facts in () if loaders else self._modules.items():
            if self._in_tests(module) or module in alive:
                continue
            if self._never_loaded(module, facts, mentioned):
                dead.add(module)
        used = self._words_of_live_code(frozenset(dead), unread)
        for name in self._classes:
            module = self._module_of[name]
            if name.rpartition(".")[2] in used or self._in_tests(module) or module in alive:
                continue
            if self._calls_no_method_by_name(name, set()):  # else a framework may load it
                dead.add(name)
        for name in self._functions:
            short = name.rpartition(".")[2]
            module = self._module_of[name]
            if short in used or short.startswith("__") or self._in_tests(module):
                continue
            if module in alive:
                continue
            owner = self._owner(name)
            if owner is None or (
                short not in NN_MODULE_METHODS and self._calls_no_method_by_name(owner, set())
            ):
                dead.add(name)
        return frozenset(dead)

    def _words_of_live_code(self, dead: frozenset[str], unread: frozenset[str]) -> set[str]:
        """The names used by code that may run (``_dead_code``'s): the top level of every
        module not ``dead`` (``FileFacts.top_level_mentions``), the files without facts
        (``unread``), and each top-level definition (``FileFacts.definition_mentions``)
        whose name such code uses, however many steps away; every definition of a test,
        of a module whose names are looked up at run time (``_looked_up_in``), a dunder
        (``__getattr__``) and a class a framework may load count from the start. Definitions
        of one name in several modules count together."""
        used = set(unread)
        waiting: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for module, facts in self._modules.items():
            if module in dead:
                continue
            used |= facts.top_level_mentions
            for name, words in facts.definition_mentions:
                qualified = f"{module}.{name}"
                loaded = qualified in self._classes and not self._calls_no_method_by_name(
                    qualified, set()
                )
                root = name.startswith("__") or module in self._looked_up_in
                if loaded or root or self._in_tests(module):
                    used |= words
                else:
                    waiting.setdefault(name, []).append((qualified, words))
        _run_by_name(used, lambda name: waiting.get(name, []))
        return used

    @cached_property
    def _looked_up_in(self) -> frozenset[str]:
        """The modules whose definitions may run by a name computed at run time: those that
        look one up (``FileFacts.looks_up_names``: ``getattr(self, f"forward_{mode}")``), the
        project modules they import (``getattr(models, cfg.arch)``) and those the packages
        among these import (``models/__init__.py`` importing the class from
        ``models/resnet.py``)."""
        found: set[str] = set()
        for module, facts in self._modules.items():
            if facts.looks_up_names:
                imported = self._imports.get(module, frozenset())
                found.update((module, *imported))
                for name in imported:
                    package = self._modules.get(name)
                    if package is not None and package.path.endswith("__init__.py"):
                        found.update(self._imports.get(name, frozenset()))
        return frozenset(found)

    def _never_loaded(self, module: str, facts: FileFacts, mentioned: frozenset[str]) -> bool:
        """``_dead_code``'s test of a module."""
        if self.imported(module) or facts.main_block or facts.top_level_calls:
            return False
        if facts.path.rpartition("/")[2] in ENTRY_FILES or module.rpartition(".")[2] in mentioned:
            return False
        return all(self._calls_no_method_by_name(c.name, set()) for c in facts.classes)

    def _calls_no_method_by_name(self, class_name: str, seen: set[str]) -> bool:
        """Every base of the class, however far up, is the project's, ``object`` or
        ``torch.nn.Module`` itself: none calls a method of it by a name (a framework's hook),
        but for ``nn.Module``'s own (``NN_MODULE_METHODS``). Not ``nn.Linear``, whose
        ``__init__`` calls ``reset_parameters``, nor any other library's class."""
        facts = self._classes.get(class_name)
        if facts is None or class_name in seen:
            return facts is not None
        seen.add(class_name)
        near = self._module_of[class_name]
        for base in facts.bases:
            target = self.resolve(base, near)
            if target in self._classes:
                if not self._calls_no_method_by_name(target, seen):
                    return False
                continue
            if target not in _PLAIN_BASES:
                return False
        return True

    def runs_on_its_pinned_gpu(self, scope: Scope) -> bool:
        """The scope's function runs only in processes whose own code made their GPU the
        current device (``_pinned_code``): an index-less ``"cuda"`` or ``.cuda()`` there
        names that GPU, whichever it is."""
        return scope.function_name in self._pinned_code

    @cached_property
    def _clean_modules(self) -> set[str]:
        """The modules that make no constant GPU current (``set_device(0)``: every rank's)
        and call no other accelerator (``OTHER_ACCELERATOR_NAMESPACES``)."""
        return {
            module
            for module, facts in self._modules.items()
            if module not in self._fixed_gpus and not _calls_another_accelerator(facts)
        }

    @cached_property
    def _pinned_code(self) -> frozenset[str]:
        """The project functions that run only after their process's GPU was made current:
        those that make it current themselves (``torch.cuda.set_device(local_rank)``, not
        in tests; module-level code too), and those each project caller of which is one of
        them, or, for a method no project code calls, each builder of an object of its
        class (``_builders``: an object's methods run in the process that built it). All in
        modules that make no constant GPU current (``set_device(0)``: every rank's) and
        call no other accelerator (``OTHER_ACCELERATOR_NAMESPACES``): code that may run on
        another type of device is not pinned to the GPU, whatever its launcher did."""
        pinned: set[str] = set()
        clean = self._clean_modules
        for module in clean:
            facts = self._modules[module]
            if _sets_current(facts.top_level_calls) == {"cuda"} and not self._in_tests(module):
                pinned.update((module, f"{module}{_MAIN_GUARD}"))
        waiting: dict[str, int] = {}
        dependents: dict[str, list[str]] = {}
        for name, function in self._functions.items():
            module = self._module_of[name]
            types = _sets_current(function.calls)
            if module not in clean or (types and types != {"cuda"}):
                continue
            if types and not self._in_tests(module):
                pinned.add(name)
                continue
            runners = self._call_sites.get(name, set()) - {name}
            owner = self._owner(name)
            if owner is not None and (not runners or name == f"{owner}.__init__"):
                runners = runners | self._builders.get(owner, set())  # `__init__`: each build
            waiting[name] = len(runners)
            for runner in runners:
                dependents.setdefault(runner, []).append(name)
        pinned |= self._setting_up_through(pinned, clean)
        todo = list(pinned)
        while todo:
            for name in dependents.get(todo.pop(), ()):
                waiting[name] -= 1
                if waiting[name] == 0 and name not in pinned:
                    pinned.add(name)
                    todo.append(name)
        return frozenset(pinned)

    def _setting_up_through(self, setters: set[str], clean: set[str]) -> set[str]:
        """The code that makes its process's GPU current by calling a project function that
        does (``rank = set_up()``, in a launcher, a constructor, a script's main block), and
        so on up: a function whose call of such a function is a whole statement of its body
        (``FunctionFacts.steps``: not under a test or in a loop, so it runs whenever the
        function does; ``if not use_cpu: set_up()`` may not) is set up as well. Not where
        either asks which devices exist (``torch.cuda.is_available()``,
        ``device_count()``): there is a way on without the GPU. A subclass whose
        ``__init__`` runs a set-up ``__init__`` (``super().__init__()``) is set up too.
        Callers in tests or in modules that are not ``clean`` (``_pinned_code``) do not
        count."""
        found: set[str] = set()
        todo = [setter for setter in setters if not self._asks_which_devices_exist(setter)]
        while todo:
            setter = todo.pop()
            for caller in self._call_sites.get(setter, ()):
                module = self._module_of.get(caller, caller.removesuffix(_MAIN_GUARD))
                if caller in setters or caller in found:
                    continue
                if module not in clean or self._in_tests(module):
                    continue
                if self._asks_which_devices_exist(caller):
                    continue
                if caller in self._functions and not self._calls_as_a_step(caller, setter):
                    continue
                found.add(caller)
                if caller == module:  # module level: its main block runs after it
                    found.add(f"{module}{_MAIN_GUARD}")
                if caller in self._functions:
                    todo.append(caller)
            for init in self._inits_running(setter):
                module = self._module_of[init]
                if init in found or module not in clean or self._in_tests(module):
                    continue
                if not self._asks_which_devices_exist(init):
                    found.add(init)
                    todo.append(init)
        return found

    def _inits_running(self, init: str) -> list[str]:
        """The ``__init__`` methods of the subclasses of ``init``'s class that run it as a
        whole statement of their body (``super().__init__(...)``: ``BASE_INIT_STEP``; not
        under a test), of classes with that one base (with several, which base's runs is
        not known)."""
        owner = self._owner(init)
        if owner is None or init != f"{owner}.__init__":
            return []
        return [
            f"{name}.__init__"
            for name, facts in self._classes.items()
            if "__init__" in facts.methods
            and [self.canonical(base) for base in facts.bases] == [owner]
            and BASE_INIT_STEP in getattr(self._functions.get(f"{name}.__init__"), "steps", ())
        ]

    def _calls_as_a_step(self, caller: str, callee: str) -> bool:
        """``caller`` calls ``callee`` (a function, or a class for its ``__init__``) as a
        whole statement of its body (``FunctionFacts.steps``)."""
        module, owner = self._module_of[caller], self._owner(caller)
        for step in self._functions[caller].steps:
            target: str | None
            method = step.removeprefix("self.")
            if method != step:  # `self.set_up()`: the method its class's table names
                target = self._method_table(owner).get(method) if owner else None
            else:
                target = self.resolve(step, module)
                if target in self._classes:
                    target = self._method_table(target).get("__init__")
            if target == callee:
                return True
        return False

    def _asks_which_devices_exist(self, name: str) -> bool:
        """The project function (or module's top level) asks which devices exist
        (``names_an_availability_check``)."""
        function = self._functions.get(name)
        facts = self._modules.get(name.removesuffix(_MAIN_GUARD))
        calls = function.calls if function else facts.top_level_calls if facts else ()
        return any(names_an_availability_check(call) for call in calls)

    @cached_property
    def _builders(self) -> dict[str, set[str]]:
        """Who builds an object of each project class: calls it or one of its subclasses,
        or is a method of it that code outside the class calls on the class itself
        (``Decoder.from_config(cfg)``: a classmethod may build one with ``cls(...)``); a
        subclass's ``super().step()`` runs on an object built already."""
        builders: dict[str, set[str]] = {}
        for name, facts in self._classes.items():
            sites = set(self._call_sites.get(name, set()))
            for method in facts.methods:
                if method == "__init__":
                    continue  # its callers are the class's: already in ``sites``
                qualified = f"{name}.{method}"
                callers = self._call_sites.get(qualified, set())
                if any(not self._inherits(caller, name) for caller in callers - {qualified}):
                    sites.add(qualified)
            for made in self._lineage(name):
                builders.setdefault(made.name, set()).update(sites)
        return builders

    def _inherits(self, function: str, class_name: str) -> bool:
        """``function`` is a method of ``class_name`` or of a class derived from it."""
        owner = self._owner(function)
        return owner is not None and any(c.name == class_name for c in self._lineage(owner))

    def runs_collectives(self, function: str) -> bool:
        """The project function calls a collective of ``torch.distributed`` (``all_reduce``,
        ``broadcast``...): it runs as one rank of a distributed job."""
        facts = self._functions.get(self.canonical(function))
        return facts is not None and not COLLECTIVE_FUNCTIONS.isdisjoint(facts.calls)

    def cpu_group_attribute(self, attribute: str) -> bool:
        """``attribute`` (``attribute_key``: ``Class.name`` for ``self.name`` read in a method
        of ``Class``) holds only process groups made with the gloo backend
        (``makes_cpu_group``): a collective given it takes CPU tensors. ``Class`` or a base
        assigns it such a group on ``self``, and nothing else: not its bases or subclasses
        (their methods run on the same objects), nor code assigning the name on another
        object, a keyword (``Params(group=g)``) or ``setattr``. An attribute of any other
        object (``ddp_model.process_group``) may be anyone's."""
        owner, _, name = attribute.rpartition(".")
        gloo, other = self._group_attributes
        if not owner or name in other.get("", ()):
            return False
        family = {facts.name for facts in self._lineage(owner)}
        related = (
            holder in family or owner in {facts.name for facts in self._lineage(holder)}
            for holder in other.get(name, ())
        )
        return not family.isdisjoint(gloo.get(name, ())) and not any(related)

    def makes_cpu_groups(self, module: str) -> bool:
        """The module's functions make a process group with the gloo backend, through a
        project function that hands the backend on too (``init_distrib(backend="gloo")``):
        its collectives take CPU tensors, as in a file that calls torch's own."""
        return module in self._cpu_group_modules

    @cached_property
    def _group_attributes(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """Attribute name -> the classes assigning it a gloo group on ``self``; and -> those
        assigning it anything else, with under "" the names assigned on other objects, by
        keyword or by ``setattr``."""
        gloo: dict[str, set[str]] = {}
        other: dict[str, set[str]] = {}
        for file_facts in self._modules.values():
            keys = set(file_facts.assigned_attributes)
            keys.update(
                k
                for function in file_facts.functions
                for shape in function.call_shapes
                for k in shape.keywords
            )
            for call in file_facts.gloo_calls:
                if call.attribute:
                    makes = self.makes_cpu_group(call, file_facts.module)
                    if makes:
                        owner, _, name = call.attribute.rpartition(".")
                        gloo.setdefault(name, set()).add(owner)
                    else:
                        keys.add(call.attribute)
            for key in keys:
                owner, _, name = key.rpartition(".")
                other.setdefault(name if owner else "", set()).add(owner or name)
        return gloo, other

    @cached_property
    def _cpu_group_modules(self) -> frozenset[str]:
        return frozenset(
            file_facts.module
            for file_facts in self._modules.values()
            if any(self.makes_cpu_group(call, file_facts.module) for call in file_facts.gloo_calls)
        )

    def makes_cpu_group(self, call: GlooCall, near: str) -> bool:
        """``call`` spells gloo where its callee takes a process group's backend: torch's
        ``PROCESS_GROUP_INITS``, or a project function's ``BackendParameter``."""
        position = PROCESS_GROUP_INITS.get(call.callee)
        if position is not None:
            return call.slot in (position, "backend")
        handed = self._backend_parameters.get(self.resolve(call.callee, near))
        return handed is not None and call.slot in (handed.position, handed.parameter)

    @cached_property
    def _backend_parameters(self) -> dict[str, BackendParameter]:
        return {
            handed.function: handed
            for file_facts in self._modules.values()
            for handed in file_facts.backend_parameters
        }

    def device_constant(self, name: str) -> DeviceConstant | None:
        """The module-level device constant ``name`` (qualified) refers to, if it is one."""
        return self._constants.get(self.canonical(name))

    def returning_output(self) -> frozenset[str]:
        if self._returning is None:
            self._returning = self._returning_output()
        return self._returning

    @cached_property
    def _returning_functions(self) -> frozenset[str]:
        """The project's functions that return unmoved processor output."""
        return frozenset(
            function
            for function in self._functions
            if function in self._returns and self._origin_of(function) is not None
        )

    @cached_property
    def returning_on_any_receiver(self) -> frozenset[str]:
        """The ``returning_output`` names that a method call on a receiver the file cannot
        name (``x.f(...)``, ``self.a.f(...)``: an ``m:`` reference) may reach: those whose
        every project method of the name returns such output (``processor_origin``)."""
        returning = self._returning_functions
        return frozenset(
            name
            for name in self.returning_output()
            if (methods := self._methods_named.get(name))
            and all(method in returning for method in methods)
        )

    def _returning_output(self) -> frozenset[str]:
        """Names under which the project's functions that return unmoved processor output
        are called: their own, and the names imports bind to them elsewhere."""
        returning = self._returning_functions
        names = {function.rpartition(".")[2] for function in returning}
        if returning:
            for file_facts in self._modules.values():
                names.update(
                    bound
                    for bound, target in file_facts.aliases.items()
                    if self.canonical(target) in returning
                )
        return frozenset(names)

    def processor_origin(self, callee: str) -> Origin | None:
        """Where the unmoved processor output returned by ``callee`` is made, if it is.

        ``callee`` is a reference recorded by the traversal: ``q:<qualified name>``,
        ``self:<class>.<method>`` (a method called on ``self``), or ``m:<method>``
        (a method on a receiver of unknown class: every project method of that
        name must return such output, or the answer is None).
        """
        if callee not in self._origins:
            self._origins[callee] = None  # breaks recursion through cycles
            self._origins[callee] = self._find_origin(callee)
        return self._origins[callee]

    def _find_origin(self, callee: str) -> Origin | None:
        kind, _, name = callee.partition(":")
        if kind == "q":
            candidates = [self.canonical(name)]
        elif kind == "self":
            owner, _, method = name.rpartition(".")
            definer = self._method_table(owner).get(method)
            candidates = [definer] if definer else []
        else:
            candidates = self._methods_named.get(name, [])
        origins = [self._origin_of(function) for function in candidates]
        if not origins or any(origin is None for origin in origins):
            return None
        return origins[0]

    @cached_property
    def _methods_named(self) -> dict[str, list[str]]:
        """Method name -> every project method of that name (for ``m:`` references)."""
        found: dict[str, list[str]] = {}
        for function in self._functions:
            owner, _, name = function.rpartition(".")
            if owner in self._classes:
                found.setdefault(name, []).append(function)
        return found

    def _origin_of(self, function: str) -> Origin | None:
        for fact, file_facts in self._returns.get(function, ()):
            if fact.via is None:
                short = function.removeprefix(f"{file_facts.module}.")
                return Origin(short, fact.source, file_facts.path, fact.line, fact.kind)
            origin = self.processor_origin(fact.via)
            if origin is not None:
                return origin if fact.kind == "batch" else replace(origin, kind=fact.kind)
        return None

    # Who reaches what: calls, references, scripts --------------------------------------------

    def self_reachable(self, class_name: str, methods: Iterable[str]) -> frozenset[str]:
        """Definitions of ``methods`` of ``class_name`` and of the methods they call on ``self``."""
        table = self._method_table(self.canonical(class_name))
        return self._reached_on_self(
            table, [table[method] for method in methods if method in table]
        )

    def _reached_on_self(self, table: Mapping[str, str], todo: list[str]) -> frozenset[str]:
        """``todo``'s definitions and those they reach by calls on ``self`` (``table``)."""
        reached = set(todo)
        while todo:
            function = self._functions.get(todo.pop())
            for callee in function.self_calls if function else ():
                target = table.get(callee)
                if target is not None and target not in reached:
                    reached.add(target)
                    todo.append(target)
        return frozenset(reached)

    def callers(self, name: str) -> frozenset[str]:
        """Who calls (or hands over) the project function or class ``name``.

        Qualified functions, or ``<module>`` for module-level code and
        ``<module>:__main__`` for its ``if __name__ == "__main__":`` block.
        """
        return frozenset(self._call_sites.get(self.canonical(name), ()))

    def handed_over(self, function: str, keywords: frozenset[str]) -> frozenset[str]:
        """Where ``function`` is passed as one of ``keywords`` (``collate_fn=pad``): callers
        as in ``callers``. An instance (``collate_fn=Pad()``) hands over ``Pad.__call__``."""
        function = self.canonical(function)
        return frozenset(
            caller for target, caller in self._hand_overs(keywords) if target == function
        )

    def handed_over_functions(self, keywords: frozenset[str]) -> frozenset[str]:
        """Every project function passed somewhere as one of ``keywords``."""
        return frozenset(target for target, _ in self._hand_overs(keywords))

    def _hand_overs(self, keywords: frozenset[str]) -> list[tuple[str, str]]:
        """(function handed over, caller) for each reference passing one as ``keywords``,
        found in one pass over the references."""
        if keywords not in self._hand_over_cache:
            found = []
            for reference, module in self._references:
                if reference.keyword not in keywords:
                    continue
                target = self._definition(reference, module)
                if target in self._classes:
                    target = self._method_table(target).get("__call__")
                if target is not None:
                    found.append((target, reference.caller or module))
            self._hand_over_cache[keywords] = found
        return self._hand_over_cache[keywords]

    def callers_leaving(self, function: str, parameter: str, position: int | None) -> list[str]:
        """The project functions, outside scripts and tests (which choose for themselves),
        with a call of ``function`` that leaves ``parameter`` to its default: not passed by
        keyword, nor as the ``position``-th argument (from 0, after ``self``; None: keyword
        only), nor perhaps through ``*args``/``**kwargs``, nor as the device an object that
        is no model keeps (``self.device = assign_device()``: choosing it is that class's
        job, as a literal it stored would be). Sorted."""
        return self._library_callers(
            function,
            lambda shape: (
                not shape.unpacks
                and parameter not in shape.keywords
                and (position is None or shape.positional <= position)
            ),
        )

    def callers_placing_with(self, function: str) -> list[str]:
        """The project functions, outside scripts and tests, that use what ``function``
        returns as a device (``CallShape.places``), but for an object that is no model
        keeping it as its device (its choice, as in ``callers_leaving``). Sorted."""
        return self._library_callers(function, lambda shape: shape.places)

    def _library_callers(self, function: str, counts: Callable[[CallShape], bool]) -> list[str]:
        """The callers of ``function`` (outside scripts and tests) with a call that
        ``counts``; not the value of a device kept by an object that is no model."""
        found = set()
        for caller, shape in self._shapes_calling(self.canonical(function), self._functions):
            if not counts(shape):
                continue
            owner = self._owner(caller)
            if shape.kept_as_device and owner is not None and not self._model_kind(owner).model:
                continue
            found.add(caller)
        return sorted(
            caller
            for caller in found
            if not self._in_tests(self._module_of[caller]) and not self.entry_only(caller)
        )

    def _shapes_calling(
        self, function: str, callers: Iterable[str]
    ) -> Iterator[tuple[str, CallShape]]:
        """The shapes of the calls in project functions ``callers`` that run ``function``
        (canonical; a class's ``__init__`` through the class's name, ``Embedder(width)``)."""
        defined_in, _, last = function.rpartition(".")
        if last == "__init__" and defined_in in self._classes:
            last = defined_in.rpartition(".")[2]
        for caller in callers:
            for shape in self._functions[caller].call_shapes:
                if shape.callee.rpartition(".")[2] != last:
                    continue
                if self._called(shape.callee, caller) == function:
                    yield caller, shape

    def _called(self, callee: str, caller: str) -> str | None:
        """The project function a call in ``caller`` runs (a class: its ``__init__``, the
        one its decorator writes where the project defines none: ``@dataclass``)."""
        if callee.startswith("self."):
            owner = self._owner(caller)
            found = self._method_table(owner).get(callee[5:]) if owner else None
        else:
            found = self.resolve(callee, self._module_of[caller])
            if found in self._classes:
                found = self._method_table(found).get("__init__", f"{found}.__init__")
        return self.canonical(found) if found is not None else None

    def scripts_running(self, function: str) -> frozenset[str]:
        """The modules whose ``if __name__ == "__main__":`` blocks are all that run
        ``function`` (through project functions): a module run as a script (``python
        tool.py``, a subprocess given its path) runs it in the script's own process, even
        when other modules import the module for something else. Empty when other code may
        run it too: a module's top level, or a function the project never calls (an API)."""
        start = self.canonical(function)
        seen, todo, scripts = {start}, [start], set()
        while todo:
            callers = self._call_sites.get(todo.pop())
            if not callers:
                return frozenset()
            for caller in callers:
                if caller.endswith(_MAIN_GUARD):
                    scripts.add(caller.removesuffix(_MAIN_GUARD))
                elif caller not in self._functions:
                    return frozenset()
                elif caller not in seen:
                    seen.add(caller)
                    todo.append(caller)
        return frozenset(scripts)

    def imported(self, module: str) -> bool:
        """Another module of the project imports ``module`` (or a module inside it)."""
        return module in self._imported_modules

    def entry_only(self, function: str) -> bool:
        """``function`` runs only when a script runs, as the user chose on its command line.

        Defined in a module that no project module imports, and reached only from
        its ``if __name__ == "__main__":`` block or its top level (every function of
        a module with such a block counts). A function of an imported module is
        library code: whoever calls it, others may too.
        """
        return self.canonical(function) in self._entry_only

    def _definition(self, reference: Reference, module: str) -> str | None:
        """The project function or class a reference names, if it names one."""
        if reference.on_self:
            owner, _, method = reference.callee.rpartition(".")
            return self._method_table(self.canonical(owner)).get(method)
        found = self.resolve(reference.callee, module)
        return found if found in self._functions or found in self._classes else None

    def _owner(self, function: str) -> str | None:
        owner = function.rpartition(".")[0]
        return owner if owner in self._classes else None

    @cached_property
    def _graph(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """Call sites (definition -> callers) and edges (caller -> functions it runs).

        A class called runs its ``__init__``; a class handed over as a keyword argument
        (``collate_fn=Pad()``) runs its ``__call__``.
        """
        sites: dict[str, set[str]] = {}
        edges: dict[str, set[str]] = {}

        def link(caller: str, target: str | None, entry_method: str = "__init__") -> None:
            if target is None:
                return
            sites.setdefault(target, set()).add(caller)
            if target in self._classes:
                target = self._method_table(target).get(entry_method)
                if target is None:
                    return
                sites.setdefault(target, set()).add(caller)
            edges.setdefault(caller, set()).add(target)

        for name, function in self._functions.items():
            module = self._module_of[name]
            for callee in function.calls:
                found = self.resolve(callee, module)
                if found in self._functions or found in self._classes:
                    link(name, found)
            owner = self._owner(name)
            if owner is not None:
                table = self._method_table(owner)
                for method in function.self_calls:
                    link(name, table.get(method))
        for reference, module in self._references:
            caller = reference.caller or (
                f"{module}{_MAIN_GUARD}" if reference.main_guard else module
            )
            method = "__call__" if reference.keyword else "__init__"
            link(caller, self._definition(reference, module), method)
        return sites, edges

    @property
    def _call_sites(self) -> dict[str, set[str]]:
        return self._graph[0]

    def _reach(self, roots: Iterable[str]) -> set[str]:
        return _reachable(roots, self._graph[1])

    @cached_property
    def _named_imports(self) -> dict[str, frozenset[str]]:
        """The project modules each module names in its imports and calls."""
        names: dict[str, set[str]] = {}
        for file_facts in self._modules.values():
            mentioned = names.setdefault(file_facts.module, set(file_facts.aliases.values()))
            mentioned.update(call for function in file_facts.functions for call in function.calls)
        for reference, near in self._references:  # `import pkg.env` shows only here
            names.setdefault(near, set()).add(reference.callee)
        named: dict[str, frozenset[str]] = {}
        for near, mentioned in names.items():
            modules = {self._module_named(name, near) for name in mentioned}
            named[near] = frozenset(module for module in modules if module not in (None, near))
        return named

    @cached_property
    def _imports(self) -> dict[str, frozenset[str]]:
        """The project modules each module imports (importing ``pkg.sub`` runs
        ``pkg/__init__.py`` too)."""
        imports: dict[str, frozenset[str]] = {}
        for near, named in self._named_imports.items():
            found: set[str] = set()
            for module in named:
                found.add(module)
                while "." in module:
                    module = module.rpartition(".")[0]
                    found.add(module)
            imports[near] = frozenset(found)
        return imports

    @cached_property
    def _imported_modules(self) -> frozenset[str]:
        return frozenset(module for found in self._imports.values() for module in found)

    @cached_property
    def _importers(self) -> dict[str, set[str]]:
        """The modules that import each module directly. Not a package's own modules that
        name nothing of it: a module of ``pkg`` imports ``pkg/__init__.py`` only because
        Python runs it first, not to use what it imports (``pkg.a`` reading ``LOCAL_RANK``
        does not run whatever ``pkg/__init__.py`` happens to import); ``from pkg import
        load`` in ``pkg.train`` does use it."""
        importers: dict[str, set[str]] = {}
        for near, found in self._imports.items():
            named = self._named_imports.get(near, frozenset())
            for imported in found:
                if imported in named or not near.startswith(f"{imported}."):
                    importers.setdefault(imported, set()).add(near)
        return importers

    def _importing(self, module: str) -> set[str]:
        """``module`` and the modules that import it, directly or through others."""
        return _reachable((module,), self._importers)

    def _module_named(self, name: str, near: str) -> str | None:
        """The project module that ``name`` (a module or something in one) lives in."""
        definition = self.resolve(name, near)
        if definition in self._module_of:
            return self._module_of[definition]
        packages = self._search_folders(near.rpartition(".")[0])
        for package in ("", *packages):  # `import lib` from scripts/train.py: scripts.lib
            parts = [*(package.split(".") if package else ()), *name.split(".")]
            depth = package.count(".") + 1 if package else 0
            for cut in range(len(parts), depth, -1):
                if ".".join(parts[:cut]) in self._modules:
                    return ".".join(parts[:cut])
        return None

    @cached_property
    def _entry_only(self) -> frozenset[str]:
        guarded = {module for module, facts in self._modules.items() if facts.main_block}
        sites = self._call_sites
        entry: set[str] = {f"{module}{_MAIN_GUARD}" for module in guarded}
        other: set[str] = set()
        for module in self._modules:
            (other if self.imported(module) else entry).add(module)
        for name in self._functions:
            module = self._module_of[name]
            if module in guarded and not self.imported(module):
                entry.add(name)  # a script's own function
            elif name not in sites:
                other.add(name)  # no known caller: an API, a callback, a test
        return frozenset(
            name
            for name in self._reach(entry) - self._reach(other)
            if name in self._functions and not self.imported(self._module_of[name])
        )


_PLAIN_BASES = frozenset({"object", "builtins.object", *TORCH_MODULE_BASES})
"""Bases that call no method of a subclass by name but ``nn.Module``'s own."""

_ARGUMENT_PARSER = "argparse.ArgumentParser"
"""Built at a module's top level, it makes the module a script (``python train.py``)."""


MAX_SCRIPTS_READ = 200
"""The most scripts whose reach ``ProjectIndex._scripts_running`` reads; a program with more
is read whole, as a library is (a folder of hundreds of examples)."""

_FOLLOWED = frozenset({CPU_BY_NAME, DEVICE_GIVEN})
"""Offers that choose the program's device only where code that chooses it makes them
(``ProjectIndex._chooses_devices``)."""


@dataclass(frozen=True)
class Offers:
    """What code offers besides the current GPU (``ProjectIndex._offers_running``)."""

    another_device: bool
    """Another device (``other_devices.ANOTHER_DEVICE``)."""
    another_gpu: bool
    """A GPU other than the current one, or another accelerator
    (``other_devices.offers_a_gpu``)."""


@dataclass(frozen=True)
class ScriptReach:
    """What one script of a program may run (``ProjectIndex._script_reach``)."""

    modules: frozenset[str]
    """The project modules it may load, itself included (``ProjectIndex._definitions_run``)."""
    definitions: frozenset[str]
    """The top-level classes and functions of the project it may run, qualified."""


def _run_by_name(
    used: set[str], definitions: Callable[[str], list[tuple[str, frozenset[str]]]]
) -> None:
    """Grow ``used`` by the names the definitions its names reach use (``definitions`` of a
    name: each qualified, with the names its text uses), however many steps away."""
    run: set[str] = set()
    todo = list(used)
    while todo:
        for qualified, words in definitions(todo.pop()):
            if qualified not in run:
                run.add(qualified)
                fresh = words - used
                used |= fresh
                todo.extend(fresh)


def _top_definition(scope: Scope, module: str) -> str:
    """The name of the top-level class or function of ``module`` the scope is in."""
    inside = (scope.function_name or scope.class_name or "").removeprefix(f"{module}.")
    return inside.partition(".")[0]


def _reachable(roots: Iterable[str], edges: Mapping[str, Iterable[str]]) -> set[str]:
    """``roots`` and every name the ``edges`` lead to from them, however many steps away."""
    return set(_walk(roots, edges))


def _walk(roots: Iterable[str], edges: Mapping[str, Iterable[str]]) -> Iterator[str]:
    """``_reachable``, one name at a time, roots first: a search can stop early."""
    seen = set(roots)
    todo = list(seen)
    yield from todo
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
                yield target


_TORCH_FRAMEWORKS = ("torch", "lightning", "pytorch_lightning", "transformers", "accelerate")
"""Top-level packages whose use makes a module one that may run torch code."""


def _uses_torch(facts: FileFacts) -> bool:
    """The module imports torch or a framework built on it, or calls into one (in a
    function too)."""
    names = chain(
        facts.aliases.values(),
        facts.top_level_calls,
        *(function.calls for function in facts.functions),
    )
    return any(name.partition(".")[0] in _TORCH_FRAMEWORKS for name in names)


def _calls_another_accelerator(facts: FileFacts) -> bool:
    """The module calls into an accelerator other than CUDA (``torch.xpu.is_available()``,
    ``OTHER_ACCELERATOR_NAMESPACES``): it offers that device too."""
    others = tuple(f"{namespace}." for namespace in OTHER_ACCELERATOR_NAMESPACES)
    calls = chain(facts.top_level_calls, *(function.calls for function in facts.functions))
    return any(call.startswith(others) for call in calls)


def _sets_current(calls: Iterable[str]) -> set[str]:
    """The device types whose current device ``calls`` set (``torch.cuda.set_device``)."""
    return {call.split(".")[1] for call in calls if call in SET_DEVICE_FUNCTIONS}


def _backend_of(name: str) -> str | None:
    """The device type that ``name`` (a qualified import or call) runs on alone, if any."""
    if name.startswith(BACKEND_FREE_PARTS):
        return None
    parts = name.split(".")
    return BACKEND_LIBRARIES.get(parts[0]) or BACKEND_OP_NAMESPACES.get(".".join(parts[:3]))
