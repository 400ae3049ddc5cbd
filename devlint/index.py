"""The project index: what every file's facts say together.

It answers the questions one file cannot: is this class (whose base lives in
another file) model code, does it have ``.device``, is this helper function
called from a forward path?
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from devlint.candidates import Scope, ScopeInfo
from devlint.facts import (
    ClassFacts,
    DeviceConstant,
    DistributedSignal,
    FileFacts,
    FunctionFacts,
    ReturnedOutput,
)
from devlint.symbols import (
    FORWARD_PATH_HOOKS,
    FORWARD_PATH_METHODS,
    LIGHTNING_MODULE_BASES,
    METRIC_BASES,
    PRETRAINED_MODEL_BASES,
    SETUP_METHODS,
    TORCH_MODULE_BASES,
    TORCH_NN_NON_MODULES,
)

_HF_MODEL_CLASS = re.compile(
    r"^(?!TF|Flax|DataCollator|Auto)[A-Z]\w*(PreTrainedModel|Model|For[A-Z]\w*)$"
)
"""transformers classes that are PreTrainedModel subclasses (``BertModel``, ``...ForCausalLM``)."""

_MAX_ALIAS_HOPS = 8


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

    def __or__(self, other: ClassKind) -> ClassKind:
        return ClassKind(
            self.model or other.model,
            self.device_aware or other.device_aware,
            self.lightning or other.lightning,
        )


_LIGHTNING = ClassKind(model=True, device_aware=True, lightning=True)
_DEVICE_AWARE = ClassKind(model=True, device_aware=True)
_MODULE = ClassKind(model=True)
_OTHER = ClassKind()


def is_forward_method(name: str) -> bool:
    if name in FORWARD_PATH_METHODS or name in FORWARD_PATH_HOOKS or name.endswith("_step"):
        return True
    return name.startswith("on_") and name.endswith(("_batch_start", "_batch_end"))


class ProjectIndex:
    """Facts of all files of one project, and the answers derived from them."""

    def __init__(
        self,
        facts: Iterable[FileFacts],
        device_aware_bases: Iterable[str] = (),
        distributed: bool | str = "auto",
    ):
        self._modules: dict[str, FileFacts] = {}
        self._classes: dict[str, ClassFacts] = {}
        self._functions: dict[str, FunctionFacts] = {}
        self._returns: dict[str, list[tuple[ReturnedOutput, FileFacts]]] = {}
        self._signals: list[tuple[DistributedSignal, FileFacts]] = []
        self._constants: dict[str, DeviceConstant] = {}
        for file_facts in facts:
            self._modules[file_facts.module] = file_facts
            self._classes.update((c.name, c) for c in file_facts.classes)
            self._functions.update((f.name, f) for f in file_facts.functions)
            for fact in file_facts.facts:
                if isinstance(fact, ReturnedOutput):
                    self._returns.setdefault(fact.function, []).append((fact, file_facts))
                elif isinstance(fact, DistributedSignal):
                    self._signals.append((fact, file_facts))
                else:
                    self._constants[fact.name] = replace(fact, path=file_facts.path)
        self._module_of = {
            name: file_facts.module
            for file_facts in self._modules.values()
            for name in (
                *(c.name for c in file_facts.classes),
                *(f.name for f in file_facts.functions),
            )
        }
        self._by_last_name: dict[str, list[str]] = {}
        for definition in self._module_of:
            self._by_last_name.setdefault(definition.rpartition(".")[2], []).append(definition)
        self._extra_bases = frozenset(device_aware_bases)
        self._distributed_setting = distributed
        self._kinds: dict[str, ClassKind] = {}
        self._origins: dict[str, Origin | None] = {}

    def canonical(self, name: str) -> str:
        """Follow re-exports: ``pkg.Model`` -> ``pkg.models.Model`` via ``pkg/__init__.py``."""
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
        ``proj.models.base.Base`` is the one definition whose name ends that way.
        """
        found = self.canonical(name)
        if found in self._module_of:
            return found
        package = near.rpartition(".")[0]
        while package:
            sibling = self.canonical(f"{package}.{name}")
            if sibling in self._module_of:
                return sibling
            package = package.rpartition(".")[0]
        endings = self._by_last_name.get(name.rpartition(".")[2], [])
        matches = [definition for definition in endings if definition.endswith(f".{name}")]
        return matches[0] if len(matches) == 1 else found

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
            if kind.model and facts.defines_device:
                kind |= _DEVICE_AWARE
        self._kinds[name] = kind
        return kind

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
        if name in TORCH_MODULE_BASES:
            return _MODULE
        if module == "torch.nn" and short[:1].isupper() and short not in TORCH_NN_NON_MODULES:
            return _MODULE
        return _OTHER

    def _method_table(self, class_name: str) -> dict[str, str]:
        """Method name -> qualified name of the definition a call on ``self`` reaches."""
        table: dict[str, str] = {}
        seen: set[str] = set()
        order = [class_name]
        while order:
            name = self.canonical(order.pop(0))
            facts = self._classes.get(name)
            if facts is None or name in seen:
                continue
            seen.add(name)
            for method in facts.methods:
                table.setdefault(method, f"{name}.{method}")
            order.extend(self.resolve(base, self._module_of[name]) for base in facts.bases)
        return table

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
            reached = set(todo)
            while todo:
                function = self._functions.get(table[todo.pop()])
                for callee in function.self_calls if function else ():
                    if callee in table and callee not in reached:
                        reached.add(callee)
                        todo.append(callee)
            found.update(table[method] for method in reached)
        return frozenset(found)

    @cached_property
    def _model_functions(self) -> frozenset[str]:
        roots = [
            f"{name}.{method}"
            for name, facts in self._classes.items()
            if self.class_kind(name).model
            for method in facts.methods
        ]
        return self._reachable(roots)

    @cached_property
    def _forward_functions(self) -> frozenset[str]:
        return self._reachable(self._forward_methods)

    def scope_info(self, scope: Scope) -> ScopeInfo:
        if scope.class_name is not None:
            kind = self.class_kind(scope.class_name)
            if not kind.model:
                return ScopeInfo()
            return ScopeInfo(
                model_code=True,
                # Inside `def device(self)` itself, self.device would call itself.
                device_aware=kind.device_aware and scope.has_self and scope.method != "device",
                lightning=kind.lightning,
                in_init=scope.method in SETUP_METHODS,
                forward_path=scope.function_name in self._forward_methods,
            )
        if scope.function_name is not None:
            return ScopeInfo(
                model_code=scope.function_name in self._model_functions,
                forward_path=scope.function_name in self._forward_functions,
            )
        return ScopeInfo()

    # Cross-file facts contributed by rules ---------------------------------------

    @cached_property
    def distributed(self) -> Distributed:
        """Configuration wins; else any signal in any file of the project."""
        if isinstance(self._distributed_setting, bool):
            return Distributed(self._distributed_setting, "`distributed` in the configuration")
        for signal, file_facts in self._signals:
            return Distributed(True, f"{signal.description} at {file_facts.path}:{signal.line}")
        return Distributed(False, "no sign of distributed training")

    def device_constant(self, name: str) -> DeviceConstant | None:
        """The module-level device constant ``name`` (qualified) refers to, if it is one."""
        return self._constants.get(self.canonical(name))

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
            candidates = [
                function
                for function in self._functions
                if function.rpartition(".")[2] == name
                and function.rpartition(".")[0] in self._classes
            ]
        origins = [self._origin_of(function) for function in candidates]
        if not origins or any(origin is None for origin in origins):
            return None
        return origins[0]

    def _origin_of(self, function: str) -> Origin | None:
        for fact, file_facts in self._returns.get(function, ()):
            if fact.via is None:
                short = function.removeprefix(f"{file_facts.module}.")
                return Origin(short, fact.source, file_facts.path, fact.line, fact.kind)
            origin = self.processor_origin(fact.via)
            if origin is not None:
                return origin if fact.kind == "batch" else replace(origin, kind=fact.kind)
        return None
