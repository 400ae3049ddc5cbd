"""Small questions about libcst nodes (and device names) that the traversal, the flow
and the rules all ask."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache

import libcst as cst

from devlint.other_devices import asks_by_name
from devlint.symbols import (
    DEVICE_TYPES,
    LEGACY_TENSOR_TYPES,
    MOVE_HELPER_NAMES,
    PROCESSOR_LOADERS,
    STATELESS_NN_MODULES,
    TENSOR_TUPLE_RESULTS,
    TORCH_DTYPES,
    WEIGHTED_LOSS_KEYWORDS,
)


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    # Asked of most nodes of a file: `type(...) is` (libcst's node classes have no
    # subclasses) spares the ABC machinery behind `isinstance`.
    if type(node) is cst.Name:
        return node.value
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def chain_root(node: cst.BaseExpression) -> str | None:
    """``mask`` in ``mask.view(1, -1)[0].to(d)``: the variable a chain of calls starts from."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def is_static_method(function: cst.FunctionDef) -> bool:
    """``@staticmethod``: called on an instance (``self.f(x)``), ``x`` is its first parameter."""
    return any(
        dotted_name(decorator.decorator) == "staticmethod" for decorator in function.decorators
    )


def is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def attribute_of_self(node: cst.BaseExpression) -> str | None:
    """``x`` for exactly ``self.x`` (not for longer chains)."""
    if isinstance(node, cst.Attribute) and is_self(node.value):
        return node.attr.value
    return None


def names_a_device(value: str) -> bool:
    """``"cuda"``, ``"cuda:1"``, ``"mps"``: an accelerator, with or without an index."""
    kind, _, index = value.partition(":")
    return kind in DEVICE_TYPES and (not index or index.isdigit())


def asks_which_devices_exist(node: cst.CSTNode) -> bool:
    """``node`` (one node of a test) asks whether a device type exists: a helper or flag
    such as ``is_npu_available``, ``IS_CUDA_AVAILABLE``, or ``torch.cuda.is_available``
    (which names its device; not ``get_accelerator().is_available()``, which asks about
    whatever accelerator there is, not necessarily a literal's)."""
    if isinstance(node, cst.Name):
        return asks_by_name(node.value, attribute=False, of_a_call=False)
    if not isinstance(node, cst.Attribute):
        return False
    of_a_call = isinstance(node.value, cst.Call)
    return asks_by_name(node.attr.value, attribute=True, of_a_call=of_a_call)


def names_a_move_helper(func: cst.BaseExpression) -> bool:
    """``to_device(batch, d)``, ``utils.move_to(x, d)``: a helper named for moving its
    argument to a device (``MOVE_HELPER_NAMES``, as whole words of its name: not
    ``remove_tokens``)."""
    name = (dotted_name(func) or "").rpartition(".")[2]
    return any(f"_{fragment}_" in f"_{name}_" for fragment in MOVE_HELPER_NAMES)


def loads_a_processor(loader: str) -> bool:
    """``AutoTokenizer``, ``CLIPProcessor``: a class whose ``from_pretrained`` loads a
    tokenizer or processor, which has no weights and makes CPU tensors."""
    return any(kind in loader for kind in PROCESSOR_LOADERS)


def keyword_argument(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def keyword_switched_on(call: cst.Call, name: str) -> bool:
    """The call passes the option ``name``, and not as a literal ``False`` or ``None``
    (``pin_memory=True``, ``as_tuple=flag``)."""
    flag = keyword_argument(call, name)
    return flag is not None and not (
        isinstance(flag.value, cst.Name) and flag.value.value in ("False", "None")
    )


def asks_a_tensors_device(node: cst.BaseExpression) -> bool:
    """``x.get_device()``: the GPU a tensor is on (the skeleton reads ``ast`` alike)."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get_device"
        and not node.args
    )


def first_positional(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg
        break
    return None


def gives_a_tuple_of_tensors(node: cst.BaseExpression) -> bool:
    """``x.split(2)``, ``torch.nonzero(m, as_tuple=True)``, ``torch.where(m)``: a call (by
    its last name, torch's function or the tensor method) whose result is a tuple."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    if name in TENSOR_TUPLE_RESULTS:
        return True
    if name == "nonzero":
        return keyword_switched_on(node, "as_tuple")
    positional = [arg for arg in node.args if arg.keyword is None]
    return name == "where" and len(node.args) == 1 and len(positional) == 1


def has_double_star(call: cst.Call) -> bool:
    """``f(**kwargs)``: any keyword, ``device`` included, may arrive at run time."""
    return any(arg.star == "**" for arg in call.args)


def casts_dtype_only(call: cst.Call) -> bool:
    """``x.to(torch.float32)`` or ``x.to(dtype=y.dtype)``: a cast, no device is involved;
    also ``x.to(getattr(torch, self.dtype))``, a dtype the configuration names. A dtype is
    read by its last part under any module name (``th.float64`` with ``import torch as th``):
    no device is a module's attribute called ``float64`` (the object's own ``self.half`` is
    configuration, which may name a device)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "to"):
        return False
    if keyword_argument(call, "device") is not None:
        return False
    first = first_positional(call)
    if first is None:
        return keyword_argument(call, "dtype") is not None
    if _torch_attribute_by_name(first.value):
        return True
    name = dotted_name(first.value) or ""
    last = name.rpartition(".")[2]
    module = name.rpartition(".")[0]
    return last == "dtype" or (bool(module) and module != "self" and last in TORCH_DTYPES)


def _torch_attribute_by_name(node: cst.BaseExpression) -> bool:
    """``getattr(torch, name)``: what torch calls ``name``, a dtype where a tensor is cast."""
    if not (isinstance(node, cst.Call) and dotted_name(node.func) == "getattr"):
        return False
    first = first_positional(node)
    return first is not None and dotted_name(first.value) == "torch"


def annotation_names(node: cst.BaseExpression) -> set[str]:
    """Every bare name an annotation mentions (``Optional[Union[Tensor, float]]``), also
    inside a string annotation (``"torch.Tensor"``)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, cst.Attribute):
            found.add(current.attr.value)
        elif isinstance(current, cst.SimpleString):
            found.update(current.value.strip("\"'").replace("[", " ").replace("]", " ").split())
        stack.extend(iter_children(current))
    return found


_SKIPPED_FIELDS = frozenset(
    {"lpar", "rpar", "comma", "semicolon", "header", "footer", "leading_lines", "newline"}
    | {"lines_after_decorators", "colon", "equal", "dot", "whitespace", "operator", "star"}
)

_child_fields: dict[type[cst.CSTNode], tuple[str, ...]] = {}
_NEITHER, _NODE, _SEQUENCE = 0, 1, 2
_kinds: dict[type, int] = {}
"""What a field value of each type is: a node, a tuple or list of values, or neither."""


def child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of ``node_type`` that may hold child nodes, in order.

    A field typed ``str`` (``Name.value``, ``Integer.value``) never does: leaving it
    out means most leaves have no fields to read at all.
    """
    names = _child_fields.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS
            and not f.name.startswith("whitespace")
            and f.type not in (str, "str")
        )
        _child_fields[node_type] = names
    return names


def _kind_of(value_type: type) -> int:
    """What values of ``value_type`` are (``_kinds``), found once per type.

    ``isinstance(value, cst.CSTNode)`` is an ABC check: slow, for every field of every node.
    """
    kind = _kinds.get(value_type)
    if kind is None:
        if issubclass(value_type, cst.CSTNode):
            kind = _NODE
        elif issubclass(value_type, (tuple, list)):
            kind = _SEQUENCE
        else:
            kind = _NEITHER
        _kinds[value_type] = kind
    return kind


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Child nodes that can hold code (whitespace and punctuation are skipped)."""
    for name in child_fields(type(node)):
        value = getattr(node, name)
        kind = _kind_of(type(value))
        if kind == _NODE:
            yield value
        elif kind == _SEQUENCE:
            for item in value:
                if _kind_of(type(item)) == _NODE:
                    yield item


def earlier_statements(ancestors: Sequence[cst.CSTNode]) -> Iterator[cst.BaseStatement]:
    """The statements of the innermost function (or module) that run before the one the
    ancestors lead to: those before it in its block, then before each enclosing block's."""
    for position in range(len(ancestors) - 1, 0, -1):
        block, statement = ancestors[position - 1], ancestors[position]
        if isinstance(statement, cst.FunctionDef):
            return
        if not isinstance(block, cst.IndentedBlock) or statement not in block.body:
            continue
        yield from block.body[: block.body.index(statement)]


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it that can hold code, in no particular order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(iter_children(current))


def unpacked(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``target`` and, for ``a, (b, c) = ...``, every target it unpacks into."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [found for element in target.elements for found in unpacked(element.value)]
    return [target]


def values_assigned(name: str, function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """What the function's plain assignments give the local ``name`` (``name = ...``)."""
    return [
        statement.value
        for statement in descendants(function.body)
        if isinstance(statement, cst.Assign)
        and any(
            isinstance(target.target, cst.Name) and target.target.value == name
            for target in statement.targets
        )
    ]


def holds_an_integer(node: cst.BaseExpression, function: cst.FunctionDef | None) -> bool:
    """``node`` is a Python int as written: a literal, ``int(...)``, or a local every plain
    assignment of which is one (``local_rank = int(os.environ["LOCAL_RANK"])``). A dtype
    never is: ``t.to(local_rank)`` moves the tensor to that GPU."""

    def integer(value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Integer) or (
            isinstance(value, cst.Call) and dotted_name(value.func) == "int"
        )

    if integer(node):
        return True
    if not isinstance(node, cst.Name) or function is None:
        return False
    given = values_assigned(node.value, function)
    return bool(given) and all(integer(value) for value in given)


def push_children(
    node: cst.CSTNode, names: tuple[str, ...], stack: list[cst.CSTNode | None]
) -> None:
    """Push ``iter_children(node)`` onto ``stack`` last first, so the first pops first.

    ``names`` are ``child_fields(type(node))``. The walk's hot loop: no generator, no list
    to reverse, and a dict look-up per value type instead of ``isinstance``.
    """
    kinds = _kinds
    for name in reversed(names):
        value = getattr(node, name)
        kind = kinds.get(type(value))
        if kind is None:
            kind = _kind_of(type(value))
        if kind == _NODE:
            stack.append(value)
        elif kind == _SEQUENCE:
            for item in reversed(value):
                kind = kinds.get(type(item))
                if kind is None:
                    kind = _kind_of(type(item))
                if kind == _NODE:
                    stack.append(item)


def in_main_guard(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Inside the body of ``if __name__ == "__main__":`` (not its ``else``): code that
    runs only when the file is run as a script."""
    for position, node in enumerate(ancestors[:-1]):
        if not isinstance(node, cst.If) or ancestors[position + 1] is not node.body:
            continue
        if is_main_test(node.test):
            return True
    return False


def is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``, the string a single literal."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, cst.Equal):
        return False
    sides = [test.left, comparison.comparator]
    names = [side for side in sides if isinstance(side, cst.Name) and side.value == "__name__"]
    strings = [
        side
        for side in sides
        if isinstance(side, cst.SimpleString) and side.evaluated_value == "__main__"
    ]
    return len(names) == 1 and len(strings) == 1


def stateless_module(call: cst.Call, name: str) -> bool:
    """``call`` builds the ``torch.nn`` module ``name`` without parameters or buffers: one of
    ``STATELESS_NN_MODULES``, or a loss given no weight tensor (which it would hold as a
    buffer)."""
    if name in STATELESS_NN_MODULES:
        return True
    weighted = any(
        arg.keyword is None or arg.keyword.value in WEIGHTED_LOSS_KEYWORDS for arg in call.args
    )
    return name.endswith("Loss") and not weighted


def names_the_cpu(node: cst.BaseExpression) -> bool:
    """``"cpu"`` or ``torch.device("cpu")``."""
    if isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith("device"):
        first = first_positional(node)
        node = first.value if first is not None and len(node.args) == 1 else node
    return isinstance(node, cst.SimpleString) and node.evaluated_value == "cpu"


def names_callee(func: cst.BaseExpression, name: str, receivers: tuple[str, ...]) -> bool:
    """``<receiver>.<name>`` for a method (``self.f``; a static method's ``Cls.f`` too),
    ``<name>`` for a function (no ``receivers``)."""
    if receivers:
        return (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in receivers
            and func.attr.value == name
        )
    return isinstance(func, cst.Name) and func.value == name


def is_none(node: cst.BaseExpression | None) -> bool:
    """The literal ``None`` (not a missing node: a parameter without a default)."""
    return isinstance(node, cst.Name) and node.value == "None"


def parameter_names(function: cst.FunctionDef) -> set[str]:
    """Every name the function's parameters bind, ``self`` included (not ``*args``)."""
    params = function.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def required_parameters(function: cst.FunctionDef) -> list[cst.Param]:
    """The parameters a call must give (no default; not ``*args`` or ``**kwargs``)."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return [param for param in every if param.default is None]


def untyped_parameters(function: cst.FunctionDef) -> frozenset[str]:
    """Required parameters without an annotation: what the code does with them (a method
    only a tensor has, ``TENSOR_ONLY_METHODS``) is all that says what they hold."""
    return frozenset(
        param.name.value for param in required_parameters(function) if param.annotation is None
    )


def has_self(function: cst.FunctionDef) -> bool:
    """A method called on an object: its first parameter is ``self`` and no decorator makes
    it static or a class method."""
    for decorator in function.decorators:
        if dotted_name(decorator.decorator) in ("staticmethod", "classmethod"):
            return False
    params = [*function.params.posonly_params, *function.params.params]
    return bool(params) and params[0].name.value == "self"


def none_test(test: cst.BaseExpression) -> tuple[str | None, str | None]:
    """``if x is None:`` -> (``x``, None): ``x`` holds None in the body; ``if x is not
    None:`` -> (None, ``x``): it does on the other path."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None, None
    name = dotted_name(test.left)
    target = test.comparisons[0]
    none = is_none(target.comparator)
    if name is None or not none:
        return None, None
    if isinstance(target.operator, cst.Is):
        return name, None
    return (None, name) if isinstance(target.operator, cst.IsNot) else (None, None)


def tested_as_a_gpu_tensor(
    node: cst.CSTNode, resolve: Callable[[cst.BaseExpression], str | None]
) -> cst.BaseExpression | None:
    """``x`` of ``isinstance(x, torch.cuda.FloatTensor)``: whether ``x`` is on the GPU,
    asked by its legacy type (``resolve`` reads the type's dotted name)."""
    if not (isinstance(node, cst.Call) and dotted_name(node.func) == "isinstance"):
        return None
    if len(node.args) != 2:
        return None
    kind = node.args[1].value
    qualified = resolve(kind) if isinstance(kind, cst.Attribute) else None
    module, _, short = (qualified or "").rpartition(".")
    return node.args[0].value if module == "torch.cuda" and short in LEGACY_TENSOR_TYPES else None


_STATEMENT_PARTS = (
    cst.SimpleStatementLine,
    cst.BaseSuite,
    cst.BaseCompoundStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.Finally,
)


def statement_assignments(node: cst.CSTNode) -> Iterator[cst.Assign]:
    """The assignments among ``node``'s statements, also in the blocks of its ``if``,
    loops, ``with`` and ``try`` statements, in order; not in the functions or classes it
    defines."""
    for child in iter_children(node):
        if isinstance(child, cst.Assign):
            yield child
        elif isinstance(child, _STATEMENT_PARTS) and not isinstance(
            child, (cst.FunctionDef, cst.ClassDef)
        ):
            yield from statement_assignments(child)


@lru_cache(maxsize=64)
def self_attribute_values(classdef: cst.ClassDef) -> Mapping[str, tuple[cst.BaseExpression, ...]]:
    """What the class's methods assign each attribute of ``self`` (``self.x = ...``), once
    per class (nodes hash by identity): every question about one of them asks."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for node in descendants(classdef.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                attribute = attribute_of_self(target.target)
                if attribute is not None:
                    found.setdefault(attribute, []).append(node.value)
    return {attribute: tuple(values) for attribute, values in found.items()}


def reads_a_device(name: str) -> bool:
    """A dotted name whose last part names a device (``args.device``, ``self.dev``; not
    ``std_dev``, a tensor): ``x.to(self.dev)`` moves ``x`` there, whatever value the flow knows
    for it (a string read from the command line is a device's name, not a dtype)."""
    last = name.rpartition(".")[2]
    return last.endswith("device") or last == "dev"
