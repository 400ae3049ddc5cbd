"""Where a literal device is the code's own choice of device, not one it ignores (DEV001,
DEV002): under the user's device flag, for a buffer only collectives read (or under an NCCL
backend), in one rank's code of a distributed job, in a class that put the model it uses
on that device, or in one whose kept device is the process's current GPU.

All hold only for a literal without an index (``"cuda"``, ``.cuda()``,
``torch.device("cuda")``): the current device, which whoever set up the process chose
(per rank, under distributed training). ``"cuda:0"`` pins every rank to GPU 0 whatever
the flag says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import libcst as cst

from devlint.candidates import Candidate, ScopeInfo
from devlint.device_flags import flag_says_gpu
from devlint.facts import names_the_device
from devlint.flow.cache import process_group_backend
from devlint.index import ProjectIndex
from devlint.nodes import (
    annotation_names,
    attribute_of_self,
    chain_root,
    descendants,
    dotted_name,
    earlier_statements,
    first_positional,
    is_self,
    iter_children,
    keyword_argument,
    self_attribute_values,
    unpacked,
    values_assigned,
)
from devlint.rules._devices import device_literal
from devlint.symbols import (
    COLLECTIVE_FUNCTIONS,
    CURRENT_DEVICE_FUNCTIONS,
    CURRENT_DEVICE_STREAMS,
    CURRENT_GPU_SETTERS,
    DEVICE_SWITCHES,
    LOCAL_RANK_NAMES,
    ONE_DEVICE_PER_PROCESS_TYPES,
    PROCESS_GROUP_TYPES,
    SET_DEVICE_FUNCTIONS,
    TENSOR_FACTORIES,
)

if TYPE_CHECKING:
    from devlint.rules.base import FileContext, Rule


def under_a_device_flag(ancestors: Sequence[cst.CSTNode], *, cpu: bool = False) -> bool:
    """In the branch an ``if`` (or ``x if ... else y``) on a device flag takes for the GPU:
    ``if use_cuda: model.cuda()``, ``"cuda" if self.gpu else "cpu"``, the ``else`` of
    ``if args.cpu:``; with ``cpu``, the branch it takes for the CPU. The flag is the user's
    choice of device."""
    return next(_device_flag_tests(ancestors, cpu=cpu), None) is not None


def _device_flag_tests(
    ancestors: Sequence[cst.CSTNode], *, cpu: bool = False
) -> Iterator[cst.BaseExpression]:
    """The tests of the device flags ``under_a_device_flag`` finds, innermost last."""
    for position, node in enumerate(ancestors):
        if not isinstance(node, (cst.If, cst.IfExp)):
            continue
        inside = ancestors[position + 1] if position + 1 < len(ancestors) else None
        says_gpu = flag_says_gpu(_kept_flag(node.test, ancestors), settings=not cpu)
        if says_gpu is None or inside is None or inside is node.test:
            continue
        taken = says_gpu != cpu
        in_body = inside is node.body
        if (in_body and taken) or (not in_body and not taken and inside is node.orelse):
            yield node.test


def _kept_flag(test: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> cst.BaseExpression:
    """The device flag ``self.<name>`` keeps (``self.dp = conf["use_gpu"]``, every value the
    enclosing class assigns it a flag saying the same), or ``test`` itself: the object's
    own name for the user's choice of device."""
    attribute = attribute_of_self(test)
    if attribute is None or flag_says_gpu(test) is not None:
        return test
    classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    if classdef is None:
        return test
    values = self_attribute_values(classdef).get(attribute, ())
    says = {flag_says_gpu(value) for value in values}
    return values[0] if len(says) == 1 and None not in says else test


def under_the_kept_gpu_flag(
    ancestors: Sequence[cst.CSTNode],
    classdef: cst.ClassDef,
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> bool:
    """Under a device flag that is the one the class chose its kept device with
    (``kept_gpu_flags``), or an ``and`` with it: there the device it keeps is the current
    GPU, which an index-less literal names too (``if self.cuda:`` after ``if self.cuda:
    self.device = torch.device("cuda")``)."""
    return _under_one_of(kept_gpu_flags(classdef, qualified_name), ancestors)


def under_the_placing_gpu_flag(
    ancestors: Sequence[cst.CSTNode],
    classdef: cst.ClassDef,
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> bool:
    """Under a device flag that is one the class's ``__init__`` puts the module's own parts
    on the current GPU under (``placed_gpu_flags``), or an ``and`` with it: there the
    module is on that GPU, and so is its batch, unless its user moves it elsewhere."""
    return _under_one_of(placed_gpu_flags(classdef, qualified_name), ancestors)


def _under_one_of(kept: frozenset[str], ancestors: Sequence[cst.CSTNode]) -> bool:
    """Under one of the class's device flags ``kept`` (source text, ``self.`` left out):
    outside ``__init__``, only as the object's attribute."""
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    choosing = function is not None and function.name.value == "__init__"
    return bool(kept) and any(
        _flag_key(part) in kept
        # another method's own `cuda` (a parameter) is not the flag `__init__` kept
        and (choosing or attribute_of_self(part) is not None)
        for test in _device_flag_tests(ancestors)
        for part in _conjuncts(test)
    )


def kept_gpu_flags(
    classdef: cst.ClassDef, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> frozenset[str]:
    """The device flags (source text) under which the class keeps the current GPU as its
    device: ``if self.cuda: self.device = torch.device("cuda")`` (any other device in that
    ``if``'s other branches), ``self.device = "cuda" if self.use_gpu else "cpu"``. Empty
    unless every device the class keeps is chosen so: a device it is told may be any GPU."""
    flags: set[str] = set()
    gpu_branches: set[int] = set()
    others: list[tuple[tuple[cst.If, bool], ...]] = []
    for assign, path in _device_assignments(classdef.body, ()):
        value = assign.value
        if value is None:
            continue  # `self.device: torch.device`, a declaration
        if isinstance(value, cst.Call) and _names_a_device_type(value, qualified_name):
            value = value.args[0].value  # torch.device("cuda" if flag else "cpu")
        if (
            isinstance(value, cst.IfExp)
            and _the_current_gpu(value.body, qualified_name)
            and flag_says_gpu(value.test, settings=False)
        ):
            flags.add(_flag_key(value.test))
        elif _the_current_gpu(value, qualified_name) and path and path[-1][1]:
            test = path[-1][0].test
            if not flag_says_gpu(test, settings=False):
                return frozenset()
            flags.add(_flag_key(test))
            gpu_branches.add(id(path[-1][0]))
        else:
            others.append(path)
    for path in others:  # another device in the flag's other branch: the flag chose it
        if not any(not in_body and id(branch) in gpu_branches for branch, in_body in path):
            return frozenset()
    return frozenset(flags)


def placed_gpu_flags(
    classdef: cst.ClassDef, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> frozenset[str]:
    """The device flags (source text) under which the class's ``__init__`` puts parts of
    the module itself on the current GPU, in the flag's GPU branch: ``self.pi =
    nn.Parameter(pi.cuda())``, ``self.encoder = self.encoder.to("cuda")``,
    ``self.encoder.cuda()``. Empty for a class that keeps a device (``kept_gpu_flags``)."""
    init = next(
        (
            method
            for method in classdef.body.body
            if isinstance(method, cst.FunctionDef) and method.name.value == "__init__"
        ),
        None,
    )
    if init is None or _keeps_a_device(classdef):
        return frozenset()
    flags = set()
    for node, path in _in_branches(init.body, ()):
        if isinstance(node, cst.Assign):
            placed = any(
                attribute_of_self(target.target) is not None for target in node.targets
            ) and _moves_the_module(node.value, qualified_name)
        elif isinstance(node, cst.Expr):  # `self.core.cuda()`
            placed = _moves_the_module(node.value, qualified_name)
        else:
            continue
        test = path[-1][0].test if path and path[-1][1] else None
        if placed and test is not None and flag_says_gpu(_kept_flag(test, [classdef])) is True:
            flags.add(_flag_key(test))
    return frozenset(flags)


def _moves_the_module(
    value: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """``value`` puts the module, or a part of it, on the current device: moves ``self``, an
    attribute of it or a module it builds (``self.cuda()``, ``self.net.to("cuda")``,
    ``nn.DataParallel(self.core.cuda())``, ``nn.Linear(4, 4).cuda()``), or makes a parameter
    there (``nn.Parameter(pi.cuda())``); not a plain tensor (``torch.zeros(4).cuda()``),
    which the module's own moves would leave where it is."""
    for node in descendants(value):
        if not isinstance(node, cst.Call):
            continue
        if qualified_name(node.func) == "torch.nn.Parameter" and any(
            _places_on_the_current_device(argument.value, qualified_name) for argument in node.args
        ):
            return True
        if moves_to_the_current_device(node):
            moved = cast(cst.Attribute, node.func).value
            built = (qualified_name(moved.func) if isinstance(moved, cst.Call) else None) or ""
            if (
                is_self(moved)
                or attribute_of_self(moved) is not None
                or (built.startswith("torch.nn.") and "functional" not in built)
            ):
                return True
    return False


def _device_assignments(
    node: cst.CSTNode, path: tuple[tuple[cst.If, bool], ...]
) -> Iterator[tuple[cst.Assign | cst.AnnAssign, tuple[tuple[cst.If, bool], ...]]]:
    """Each assignment of the kept device (``self.device = ...``, ``self._device``; not
    another device it knows, such as a pipeline's ``self.last_device``) under ``node``,
    with the ``if`` branches it is in (True: the body)."""
    for found, where in _in_branches(node, path):
        if isinstance(found, (cst.Assign, cst.AnnAssign)) and any(
            _targets_the_kept_device(target) for target in _assignment_targets(found)
        ):
            yield found, where


def _in_branches(
    node: cst.CSTNode, path: tuple[tuple[cst.If, bool], ...]
) -> Iterator[tuple[cst.CSTNode, tuple[tuple[cst.If, bool], ...]]]:
    """``node`` and each node under it, with the ``if`` branches it is in (True: the body;
    an ``elif`` is in the ``else`` of the ``if`` before it)."""
    yield node, path
    if isinstance(node, cst.If):
        yield from _in_branches(node.body, (*path, (node, True)))
        if node.orelse is not None:
            yield from _in_branches(node.orelse, (*path, (node, False)))
        return
    for child in iter_children(node):
        yield from _in_branches(child, path)


def _assignment_targets(assign: cst.Assign | cst.AnnAssign) -> list[cst.BaseExpression]:
    if isinstance(assign, cst.AnnAssign):
        return [assign.target]
    return [target.target for target in assign.targets]


def kept_process_gpu(
    classdef: cst.ClassDef, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> str | None:
    """Whether the device the class keeps is the process's own GPU, which its launcher
    made current, so that an index-less literal names it too: ``"current"`` where it is
    built from ``torch.cuda.current_device()`` or from an index whose owner makes its GPU
    current (``torch.device(f"cuda:{accelerator.local_process_index}")``), ``"literal"``
    where it is ``"cuda"`` itself, ``"local_rank"`` where from another local rank (current
    where the project sets it), or None. Another device it keeps can only be the user's,
    given to ``__init__``, in a branch where it places no model: ``__init__`` places
    nothing with it, or only in branches that exclude that one (``if n > 1: gpu`` / ``elif
    auto: device`` / ``else: gpu``, then ``model.to(self._device)`` only under ``else``),
    and no other method keeps a model placed on it. A device the class picks itself
    (``"cpu"`` in the other branch) or another method sets may be any."""
    kinds: set[str] = set()
    others = []
    for method in classdef.body.body:
        if not isinstance(method, cst.FunctionDef):
            continue
        for assign, path in _device_assignments(method.body, ()):
            if assign.value is None:
                continue  # `self.device: torch.device`, a declaration
            kind = _process_gpu_kind(_local_value(assign.value, method), qualified_name)
            if kind is not None:
                kinds.add(kind)
                continue
            told = _parameters_named(assign.value, method)
            if method.name.value != "__init__" or not told:
                return None
            others.append((method, path, told))
    for init, path, told in others:
        if any(
            not _excludes(where, path)
            for where in _placements_with(told, path, init, qualified_name)
        ):
            return None
    if others and _keeps_a_model_placed_later(classdef, qualified_name):
        return None
    if not kinds:
        return None
    return next(kind for kind in ("local_rank", "literal", "current") if kind in kinds)


def _parameters_named(value: cst.BaseExpression, method: cst.FunctionDef) -> set[str]:
    """The parameters of ``method`` that ``value`` names (``device`` in
    ``torch.device(device)``)."""
    params = method.params
    names = {param.name.value for param in (*params.posonly_params, *params.params)}
    names |= {param.name.value for param in params.kwonly_params}
    return _names_in(value) & names


def _names_in(node: cst.CSTNode) -> set[str]:
    """The names and attribute chains ``node`` reads (``device``, ``self.device_map``), not
    the attribute names alone (``device`` of ``torch.device``)."""
    found = list(descendants(node))
    attributes = {id(part.attr) for part in found if isinstance(part, cst.Attribute)}
    return {
        name
        for part in found
        if isinstance(part, (cst.Name, cst.Attribute))
        and id(part) not in attributes
        and (name := dotted_name(part)) is not None
    }


def _process_gpu_kind(
    value: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> str | None:
    """``"literal"`` for ``"cuda"``, ``"current"`` for ``torch.cuda.current_device()`` or
    ``f"cuda:{<index>}"`` (also in ``torch.device(...)``) with an index in
    ``CURRENT_GPU_SETTERS``, ``"local_rank"`` with another of ``LOCAL_RANK_NAMES``, else
    None."""
    if _the_current_gpu(value, qualified_name):
        return "literal"
    if isinstance(value, cst.Call) and _names_a_device_type(value, qualified_name):
        value = value.args[0].value
    if isinstance(value, cst.Call):
        return "current" if qualified_name(value.func) in CURRENT_DEVICE_FUNCTIONS else None
    if not isinstance(value, cst.FormattedString) or len(value.parts) != 2:
        return None
    text, index = value.parts
    if not (
        isinstance(text, cst.FormattedStringText)
        and text.value == "cuda:"
        and isinstance(index, cst.FormattedStringExpression)
    ):
        return None
    name = (dotted_name(index.expression) or "").rpartition(".")[2]
    if name in CURRENT_GPU_SETTERS:
        return "current"
    return "local_rank" if name in LOCAL_RANK_NAMES else None


def _local_value(value: cst.BaseExpression, method: cst.FunctionDef) -> cst.BaseExpression:
    """What a local name holds where the method assigns it once (``device = "cuda"`` before
    ``self.device = device``); else ``value`` itself."""
    if not isinstance(value, cst.Name):
        return value
    found = values_assigned(value.value, method)
    return found[0] if len(found) == 1 else value


def _placements_with(
    told: set[str],
    path: tuple[tuple[cst.If, bool], ...],
    init: cst.FunctionDef,
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> Iterator[tuple[tuple[cst.If, bool], ...]]:
    """The branches of each placement of a model in ``__init__`` with the user's device,
    which the branch ``path`` keeps: a move (``.to(...)``) or a loader's
    ``device=``/``device_map=`` given the kept device, the parameters ``told`` it comes
    from, or an attribute set from those in the same branch (``self.device_map =
    device_map if device_map else device``). Not a tensor made there
    (``torch.tensor([2]).to(self.device)``): a model's inputs follow the device."""
    told = {"self.device", "self._device"} | told
    same = [id(branch) for branch, _ in path]
    for node, where in _in_branches(init.body, ()):
        if (
            isinstance(node, (cst.Assign, cst.AnnAssign))
            and node.value is not None
            and [id(branch) for branch, _ in where] == same
            and not _names_in(node.value).isdisjoint(told - {"self.device", "self._device"})
        ):
            told |= {
                f"self.{name}"
                for target in _assignment_targets(node)
                if (name := attribute_of_self(target)) is not None
            }
    for node, where in _in_branches(init.body, ()):
        if _places_with(node, told, qualified_name):
            yield where


def _places_with(
    node: cst.CSTNode, told: set[str], qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """``node`` places a model with one of the names ``told``: a move (``.to(...)``) or a
    loader's ``device=``/``device_map=``, not of a tensor made there."""
    if not isinstance(node, cst.Call) or _makes_a_tensor(node, qualified_name):
        return False
    given = [keyword_argument(node, word) for word in ("device", "device_map")]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
        if _makes_a_tensor(node.func.value, qualified_name):
            return False
        given += list(node.args)
    return any(arg is not None and not _names_in(arg.value).isdisjoint(told) for arg in given)


def _keeps_a_model_placed_later(
    classdef: cst.ClassDef, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """A method other than ``__init__`` keeps on ``self`` a model it places on the kept
    device (``self.model = load(path).to(self.device)``): there the user's device is."""
    kept = {"self.device", "self._device"}
    for method in classdef.body.body:
        if not isinstance(method, cst.FunctionDef) or method.name.value == "__init__":
            continue
        for node in descendants(method.body):
            if (
                isinstance(node, (cst.Assign, cst.AnnAssign))
                and node.value is not None
                and any(attribute_of_self(target) for target in _assignment_targets(node))
                and any(_places_with(at, kept, qualified_name) for at in descendants(node.value))
            ):
                return True
    return False


def _makes_a_tensor(
    node: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """The chain ``node`` starts with a call of a torch tensor factory (``torch.tensor(ids)``,
    ``torch.zeros(n).long()``): a tensor made here, not a model."""
    first = None
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            first = node
            node = node.func
        else:
            node = node.value
    name = qualified_name(first.func) if first is not None else None
    return name is not None and name.removeprefix("torch.") in TENSOR_FACTORIES


def _excludes(one: tuple[tuple[cst.If, bool], ...], other: tuple[tuple[cst.If, bool], ...]) -> bool:
    """The branches ``one`` cannot run with ``other``: one of them takes an ``if`` the
    other takes the other way, or one with the same test (``if auto: ... else: ...``
    twice)."""
    taken = {(_flag_key(branch.test), in_body) for branch, in_body in other}
    return any((_flag_key(branch.test), not in_body) in taken for branch, in_body in one)


def _targets_the_kept_device(target: cst.BaseExpression) -> bool:
    """``self.device`` or ``self._device``, also in ``self.device, self.dtype = ...``."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_targets_the_kept_device(element.value) for element in target.elements)
    return attribute_of_self(target) in ("device", "_device")


def _names_a_device_type(
    call: cst.Call, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """``torch.device(x)`` with one argument (not a helper that picks one: ``pick_device``)."""
    return qualified_name(call.func) == "torch.device" and len(call.args) == 1


def _the_current_gpu(
    node: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """``"cuda"`` or ``torch.device("cuda")``: the current GPU, no index."""
    if isinstance(node, cst.Call) and _names_a_device_type(node, qualified_name):
        node = node.args[0].value
    return isinstance(node, cst.SimpleString) and node.evaluated_value == "cuda"


def _conjuncts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """``test`` and, for ``a and b``, each operand."""
    yield test
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _conjuncts(test.left)
        yield from _conjuncts(test.right)


def _flag_key(test: cst.BaseExpression) -> str:
    """The flag's source text, ``self.`` left out: ``self.use_gpu`` is the ``use_gpu`` that
    ``__init__`` was given and kept."""
    return cst.Module(body=[]).code_for_node(test).removeprefix("self.")


def _collective_names() -> frozenset[str]:
    """Collective names that mean a collective even in a project's own wrapper
    (``distributed_utils.all_reduce``); not ``gather``, ``reduce``, ``send``..., which
    name other things too (``torch.gather``, ``functools.reduce``)."""
    last = {name.rpartition(".")[2] for name in COLLECTIVE_FUNCTIONS}
    return frozenset(name for name in last if name.startswith(("all_", "broadcast", "reduce_")))


_WRAPPED_COLLECTIVES = _collective_names()
_TWO_TENSORS = ("all_gather", "reduce_scatter", "all_to_all", "gather", "scatter")
"""Collectives whose first two arguments are both tensors (output, input)."""


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    return any(
        isinstance(found, (cst.Name, cst.Attribute)) and dotted_name(found) in names
        for found in descendants(node)
    )


def _targets(target: cst.BaseExpression) -> Iterator[str]:
    for found in unpacked(target):
        name = dotted_name(found)
        if name is not None:
            yield name


def only_collectives_read(
    literal: cst.CSTNode,
    ancestors: Sequence[cst.CSTNode],
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> bool:
    """The function hands what the literal makes to collectives (all_reduce, broadcast,
    all_gather...), and every tensor those collectives get is made on the current device
    (by this literal or another without an index): communication buffers, which NCCL needs
    on the current device (its set-up chose it per rank). A collective that also gets
    another tensor (an input's sum) leaves the finding: that tensor has its own device."""
    collectives = _collectives(ancestors, qualified_name)
    if not collectives:
        return False
    function = next(n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef))
    assigns = [n for n in descendants(function.body) if isinstance(n, (cst.Assign, cst.AnnAssign))]
    holder = next(
        (n for n in reversed(ancestors) if isinstance(n, (cst.Assign, cst.AnnAssign))), None
    )
    own = _derived(set(_assigned(holder)) if holder is not None else set(), assigns)
    made = _derived(
        {
            name
            for assign in assigns
            if assign.value is not None
            and _places_on_the_current_device(assign.value, qualified_name)
            for name in _assigned(assign)
        },
        assigns,
    )
    inside = {id(node) for node in ancestors} | {id(literal)}
    reached = False
    for call in collectives:
        name = (dotted_name(call.func) or "").rpartition(".")[2]
        positional = [arg for arg in call.args if arg.keyword is None]
        for arg in positional[: 2 if name.startswith(_TWO_TENSORS) else 1]:
            if _mentions(arg.value, own) or any(id(n) in inside for n in descendants(arg.value)):
                reached = True
            elif not _mentions(arg.value, made) and not _places_on_the_current_device(
                arg.value, qualified_name
            ):
                return False
    return reached


def _collectives(
    ancestors: Sequence[cst.CSTNode], qualified_name: Callable[[cst.BaseExpression], str | None]
) -> list[cst.Call]:
    """The collective calls (all_reduce, broadcast...) of the innermost enclosing function."""
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    if function is None:
        return []
    return [
        call
        for call in descendants(function.body)
        if isinstance(call, cst.Call) and _is_collective(call, qualified_name)
    ]


def _assigned(assign: cst.Assign | cst.AnnAssign) -> Iterator[str]:
    if isinstance(assign, cst.AnnAssign):
        yield from _targets(assign.target)
        return
    for target in assign.targets:
        yield from _targets(target.target)


def _derived(names: set[str], assigns: Sequence[cst.Assign | cst.AnnAssign]) -> set[str]:
    """``names`` and every name assigned a value computed from them, in the function."""
    found = set(names)
    grown = bool(found)
    while grown:
        grown = False
        for assign in assigns:
            if assign.value is not None and _mentions(assign.value, found):
                new = set(_assigned(assign)) - found
                if new:
                    found |= new
                    grown = True
    return found


def _places_on_the_current_device(
    value: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """``value`` makes or moves something onto a device named without an index:
    ``t.cuda()``, ``t.to("cuda")``, ``device="cuda"``, ``torch.device("cuda")``,
    ``torch.cuda.ByteTensor(n)``."""
    for node in descendants(value):
        if not isinstance(node, cst.Call):
            continue
        if moves_to_the_current_device(node):
            return True
        name = qualified_name(node.func) or ""
        if name.startswith("torch.cuda.") and name.endswith("Tensor"):
            return True
        keyword = keyword_argument(node, "device")
        first = first_positional(node)
        literal = keyword.value if keyword is not None else None
        if name == "torch.device" and first is not None and len(node.args) == 1:
            literal = first.value
        if (
            isinstance(literal, cst.SimpleString)
            and device_literal(literal) is not None
            and without_index(literal.value)
        ):
            return True
    return False


def under_a_nccl_test(ancestors: Sequence[cst.CSTNode]) -> bool:
    """In the branch an ``if`` takes when the process group's backend is NCCL
    (``if dist.get_backend(group) == "nccl":``), which communicates on the current GPU."""
    for position, node in enumerate(ancestors[:-1]):
        if isinstance(node, (cst.If, cst.IfExp)) and ancestors[position + 1] is node.body:
            test = node.test
            if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
                compared = test.comparisons[0]
                sides = (test.left, compared.comparator)
                if isinstance(compared.operator, cst.Equal) and any(
                    isinstance(side, cst.SimpleString) and side.evaluated_value == "nccl"
                    for side in sides
                ):
                    return True
    return False


def _starts_nccl_groups(
    module: cst.CSTNode, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """The file itself starts its process group with the NCCL backend
    (``init_process_group(backend="nccl")``): its collectives communicate on the current
    GPU, which its own set-up chose for the rank."""
    return any(
        isinstance(node, cst.Call) and process_group_backend(node, qualified_name) == "nccl"
        for node in descendants(module)
    )


def _is_collective(
    call: cst.Call, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    if qualified_name(call.func) in COLLECTIVE_FUNCTIONS:
        return True
    return (dotted_name(call.func) or "").rpartition(".")[2] in _WRAPPED_COLLECTIVES


def without_index(literal: str) -> bool:
    """``"cuda"``, ``'hpu'`` (source text): the current device of its type; not ``"cuda:1"``
    nor ``0`` (GPU 0)."""
    return literal[:1] in "'\"" and ":" not in literal


def names_the_current_device(literal: str) -> bool:
    """``without_index``, or index 0 of a type whose processes each see one device
    (``"hpu:0"``, ``ONE_DEVICE_PER_PROCESS_TYPES``): the process's current device of its
    type."""
    kind, _, index = literal.strip("'\"").partition(":")
    return without_index(literal) or (kind in ONE_DEVICE_PER_PROCESS_TYPES and index == "0")


def moves_to_the_current_device(call: cst.Call) -> bool:
    """``x.cuda()`` or ``x.to("cuda")``: a move to the current device, no index."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value == "cuda":
        return not call.args
    first = first_positional(call)
    if func.attr.value != "to" or first is None or not isinstance(first.value, cst.SimpleString):
        return False
    return without_index(first.value.value) and device_literal(first.value) is not None


def class_placements(classdef: cst.ClassDef) -> dict[int, bool] | None:
    """Where the class puts a model on the current device, unconditionally: a statement at
    the top of one of its methods that is a move (``model.cuda()``,
    ``model.eval().to("cuda")``) or assigns one to ``self`` (``self.model =
    load(path).cuda()``) or to the name the method returns (``model = model.cuda()`` in a
    method ending ``return model``). Maps each such move call (by id) to whether the class
    built what it moves (True), or got it as a parameter of the method (False: a caller's model, on
    the caller's device). None when the class keeps a device (``self.device = ...``,
    ``self._device = ...``): its literals ignore that device, whatever they are for."""
    if _keeps_a_device(classdef):
        return None
    found: dict[int, bool] = {}
    for method in classdef.body.body:
        if not isinstance(method, cst.FunctionDef):
            continue
        params = method.params
        received = {
            param.name.value
            for param in (*params.posonly_params, *params.params, *params.kwonly_params)
        }
        returned = _returned_name(method)
        for statement in method.body.body:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            if isinstance(small, cst.Expr) or (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and (
                    attribute_of_self(small.targets[0].target) is not None
                    or dotted_name(small.targets[0].target) == returned
                )
            ):
                value = small.value
            else:
                continue
            move = _move_in_chain(value)
            if move is not None:
                assert isinstance(move.func, cst.Attribute)
                found[id(move)] = chain_root(move.func.value) not in received
    return found


def _returned_name(method: cst.FunctionDef) -> str | None:
    """The name the method's last statement returns (``return model``): a method that
    builds what it returns (``_init_model``), whose caller keeps it."""
    last = method.body.body[-1] if method.body.body else None
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return):
        value = last.body[-1].value
        return value.value if isinstance(value, cst.Name) else None
    return None


def _keeps_a_device(classdef: cst.ClassDef) -> bool:
    """A method of the class assigns ``self.device`` (or ``self._device``...)."""
    for node in descendants(classdef.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                name = attribute_of_self(target.target)
                if name is not None and names_the_device(name):
                    return True
    return False


def keeps_a_current_stream(
    classdef: cst.ClassDef, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """A method of the class keeps a CUDA stream of the current GPU on ``self``
    (``self.copy_stream = torch.cuda.Stream()``, ``torch.cuda.current_stream()``; not one
    told its device): the object runs its work there, so the current GPU is its device,
    as a kept ``self.device`` would be. Not one made inside ``with torch.cuda.device(gpu):``
    (``DEVICE_SWITCHES``): that stream is on ``gpu``."""
    switched = {
        id(inner)
        for block in descendants(classdef.body)
        if isinstance(block, cst.With)
        and any(
            isinstance(item.item, cst.Call) and qualified_name(item.item.func) in DEVICE_SWITCHES
            for item in block.items
        )
        for inner in descendants(block.body)
    }
    for node in descendants(classdef.body):
        if (
            not isinstance(node, (cst.Assign, cst.AnnAssign))
            or node.value is None
            or id(node) in switched
        ):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else (node,)
        if all(attribute_of_self(target.target) is None for target in targets):
            continue
        for call in descendants(node.value):
            if (
                isinstance(call, cst.Call)
                and qualified_name(call.func) in CURRENT_DEVICE_STREAMS
                and all(arg.keyword is not None for arg in call.args)
                and keyword_argument(call, "device") is None
            ):
                return True
    return False


def _move_in_chain(value: cst.BaseExpression) -> cst.Call | None:
    """The move to the current device in ``load(p).eval().cuda().half()``, if any."""
    node = value
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            if moves_to_the_current_device(node):
                return node
            node = node.func
        else:
            node = node.value
    return None


def own_choice(
    call: cst.Call,
    ancestors: Sequence[cst.CSTNode],
    qualified_name: Callable[[cst.BaseExpression], str | None],
    classes: ClassChoices,
) -> str | None:
    """Why a move or placement ``call`` on the current device is the code's own choice:
    ``"flag"`` (``under_a_device_flag``; ``"distributed_flag"`` in a function that runs
    collectives, one rank of a distributed job; ``"kept_flag"`` under the flag the class
    chose the current GPU as its kept device with: ``under_the_kept_gpu_flag``;
    ``"placed_flag"`` under one its ``__init__`` put the module itself on the current GPU
    under: ``under_the_placing_gpu_flag``),
    ``"nccl"`` (``under_a_nccl_test``),
    ``"collective"`` (``only_collectives_read``; not where an input tensor or module tells
    the device),
    ``"class"`` (the class put its model there: ``class_placements``; not the placement of
    a model a caller gave it), ``"process_gpu"``, ``"kept_cuda"`` or ``"local_rank_gpu"``
    (the device the class keeps is the current GPU, ``"cuda"`` itself, or a local rank's:
    ``kept_process_gpu``),
    ``"streams"`` (the class keeps a CUDA stream of the current
    GPU: ``keeps_a_current_stream``), ``"meta"`` (``module.to_empty(device="cuda")`` materialises
    meta tensors, which have no device to follow), ``"set_device"``
    (``after_setting_the_device``), ``"rank"`` (``_handed_a_process_group``: one rank's code)
    or ``"collectives"`` (the function runs collectives on the default group; neither in a
    class that keeps its device), or None. ``classes`` caches what each class chose."""
    if under_a_device_flag([*ancestors, call]):
        classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
        if classdef is not None and under_the_kept_gpu_flag(
            [*ancestors, call], classdef, qualified_name
        ):
            return "kept_flag"
        if _collectives(ancestors, qualified_name):
            return "distributed_flag"
        if classdef is not None and under_the_placing_gpu_flag(
            [*ancestors, call], classdef, qualified_name
        ):
            return "placed_flag"
        return "flag"
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to_empty":
        return "meta"  # materialising meta tensors: there is no device yet to follow
    if after_setting_the_device(call, ancestors, qualified_name):
        return "set_device"
    classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    placements = classes.placements
    if classdef is not None and id(classdef) not in placements:
        placements[id(classdef)] = class_placements(classdef)
    if only_collectives_read(call, ancestors, qualified_name) and _starts_nccl_groups(
        ancestors[0], qualified_name
    ):
        return "nccl"  # whatever device a class keeps (its batches'), NCCL needs the GPU
    if classdef is not None and placements[id(classdef)] is None:
        if id(classdef) not in classes.kept_gpu:
            classes.kept_gpu[id(classdef)] = kept_process_gpu(classdef, qualified_name)
        kept = classes.kept_gpu[id(classdef)]
        if kept is not None:  # the device it keeps is the current GPU (a local rank's where set)
            return {"current": "process_gpu", "literal": "kept_cuda"}.get(kept, "local_rank_gpu")
        return None  # the class keeps its device: that is the one to use
    if under_a_nccl_test(ancestors):
        return "nccl"
    if only_collectives_read(call, ancestors, qualified_name):
        return "collective"
    if classdef is not None:
        placed = placements[id(classdef)]
        if placed and placed.get(id(call), True):
            return "class"
    if _handed_a_process_group(ancestors):
        return "rank"
    if _collectives(ancestors, qualified_name):
        return "collectives"
    if classdef is not None and keeps_a_current_stream(classdef, qualified_name):
        return "streams"  # last: it adds to the other choices, never replaces one
    return None


def _handed_a_process_group(ancestors: Sequence[cst.CSTNode]) -> bool:
    """An enclosing function, or the ``__init__`` of the class, is handed a process group or
    a framework's bundle of them (``pg: ProcessGroup``, ``parallel_context:
    ParallelContext``): the code runs as one rank of a distributed job, inside the set-up
    that made the rank's GPU current (NCCL needs it so)."""
    functions = [node for node in ancestors if isinstance(node, cst.FunctionDef)]
    classdef = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    if classdef is not None:
        functions += [
            method
            for method in classdef.body.body
            if isinstance(method, cst.FunctionDef) and method.name.value == "__init__"
        ]
    return any(
        param.annotation is not None
        and not annotation_names(param.annotation.annotation).isdisjoint(PROCESS_GROUP_TYPES)
        for function in functions
        for param in (
            *function.params.posonly_params,
            *function.params.params,
            *function.params.kwonly_params,
        )
    )


def after_setting_the_device(
    call: cst.Call,
    ancestors: Sequence[cst.CSTNode],
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> bool:
    """A statement of the function before the one holding ``call`` (in its block or an
    enclosing one) sets the current device (``torch.cuda.set_device(gpu)``): the code just
    chose the device it then uses."""
    return any(
        isinstance(node, cst.Call) and qualified_name(node.func) in SET_DEVICE_FUNCTIONS
        for earlier in earlier_statements([*ancestors, call])
        for node in descendants(earlier)
    )


@dataclass
class ClassChoices:
    """What ``own_choice`` learnt of each class of a file so far, by the class's id."""

    placements: dict[int, dict[int, bool] | None] = field(default_factory=dict)
    """``class_placements``."""
    kept_gpu: dict[int, str | None] = field(default_factory=dict)
    """``kept_process_gpu``."""


def class_choices(rule: Rule, context: FileContext) -> ClassChoices:
    """The file's ``ClassChoices``, for ``own_choice``."""
    return cast(ClassChoices, context.state(rule).setdefault("classes", ClassChoices()))


def moves_its_input_there(candidate: Candidate, scope: ScopeInfo, index: ProjectIndex) -> bool:
    """The literal moves the function's own input (``moves_input``: ``def to_gpu(x): return
    x.cuda()``), which is what the function is for: outside code that knows its device, or
    in a project that pins each process to its GPU (``pins_each_process_gpu``), where that
    GPU is the current one and code told no device (not model code, which its user moves
    anywhere; no kept device, no ``device`` parameter) has no other to move to."""
    if "moves_input" not in candidate.data:
        return False
    if not scope.device_context:
        return True
    told = scope.model_code or scope.device_aware or candidate.scope.device_param
    return not told and index.pins_each_process_gpu


def pinned_there(candidate: Candidate, scope: ScopeInfo, index: ProjectIndex) -> bool:
    """The candidate's code runs only after a launcher of the project made the process's
    GPU current (``runs_on_its_pinned_gpu``), so the current GPU is the process's, and it
    is told no device (``self.device``, a ``device`` parameter) that may be another."""
    told = scope.device_aware or candidate.scope.device_param
    return not told and index.runs_on_its_pinned_gpu(candidate.scope)


_FLAG_CHOICES = frozenset({"flag", "distributed_flag", "kept_flag", "placed_flag"})
"""The choices ``own_choice`` makes under the user's device flag."""


def on_the_gpu_the_program_offers(candidate: Candidate, index: ProjectIndex) -> bool:
    """The candidate's literal of the current GPU runs only under a device flag that says
    "GPU" (``own_choice``), in a program that offers no GPU other than the current one
    (``runs_on_the_current_gpu_or_the_cpu``): where the user chose the GPU, it is the one
    every tensor is on; where the CPU, the literal does not run."""
    flagged = candidate.data.get("chosen") in _FLAG_CHOICES
    return flagged and index.runs_on_the_current_gpu_or_the_cpu(candidate.scope)


def chose_the_device(candidate: Candidate, scope: ScopeInfo, index: ProjectIndex) -> bool:
    """The candidate's literal is where the code chose its device (``own_choice``), or it is
    in test code, which chooses its device as a script does. A flag does not choose in a
    LightningModule (the trainer does), nor does a class's placement in model code or in a
    class that keeps a device (``self.device``), whose literal then ignores it. Nor does a
    flag in such a class, nor on the forward path of model code: the device kept, or the
    batch's, is the one to use, and the flag only says "a GPU", not which one. In a
    function that runs collectives it says which one too: the rank's GPU, which the
    distributed set-up made current (NCCL needs it so), as the batch's. Nor does a class's
    placement in a method that takes a ``device`` parameter and ignores it. A class whose
    kept device is the current GPU chooses it, but not in model code (a module is moved
    where its user wants: the device it keeps is the bug), a LightningModule or a method
    told a device (a local rank's GPU is the current one only in a project that sets it).
    One rank's code (handed a process group, or running collectives in a project whose
    set-up makes each rank's GPU current) chooses the rank's GPU unless it is told a device
    (``self.device``, a ``device`` parameter) or its project makes devices of other types
    current too: there the code abstracts its accelerator, and ``"cuda"`` is one type among
    several."""
    if index.runs_alone(candidate.data.get("module", ""), at_top_level=False):
        return True
    choice = candidate.data.get("chosen")
    if choice == "distributed_flag":
        return not scope.lightning and not scope.device_aware
    if choice in ("flag", "placed_flag"):
        forward = scope.model_code and scope.forward_path
        if scope.lightning or scope.device_aware:
            return False
        if not forward:
            return True
        # the class put itself on that GPU under the flag, and no project code moves it
        class_name = candidate.scope.class_name or ""
        placed = choice == "placed_flag" and not candidate.scope.device_param
        return placed and not index.placed_on_a_told_device(class_name)
    if choice == "class":  # not where the caller tells it the device (`device` ignored)
        told = candidate.scope.device_param
        return not scope.model_code and not scope.device_aware and not told
    if choice == "collective" and not scope.knows_inputs:
        return True  # else an input tensor or module tells the device, unless one rank's:
    types = index.current_device_types
    if choice in ("collective", "collectives") and "cuda" not in types:
        return False  # the default group's ranks: no set-up of the project made a GPU current
    if choice in ("collective", "collectives", "rank"):
        told = scope.device_aware or candidate.scope.device_param
        return not scope.lightning and not told and not types - {"cuda"}
    if choice == "kept_flag":  # the device the class keeps is that GPU (not: the trainer's,
        return not scope.lightning and not candidate.scope.device_param  # nor the one told)
    if choice in ("process_gpu", "local_rank_gpu", "kept_cuda"):  # not a method told one
        if scope.model_code:
            return False  # a module keeping the current GPU ignores where it is moved
        if choice == "local_rank_gpu" and "cuda" not in index.current_device_types:
            return False  # no set-up of the project made the local rank's GPU current
        told = candidate.scope.device_param and not scope.in_init  # `__init__`'s: checked
        return not scope.lightning and not told
    if choice == "streams":  # not where the caller tells it the device (`device` ignored)
        return not scope.lightning and not candidate.scope.device_param
    return choice in ("nccl", "meta", "set_device")
