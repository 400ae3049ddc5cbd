"""Recognising hard-coded devices and the calls that place tensors, shared by rules."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence
from functools import cache

import libcst as cst

from devlint.facts import absolute_module
from devlint.nodes import (
    asks_a_tensors_device,
    asks_which_devices_exist,
    attribute_of_self,
    descendants,
    dotted_name,
    first_positional,
    has_self,
    is_none,
    iter_children,
    keyword_argument,
    keyword_switched_on,
    names_a_device,
)
from devlint.rules._anchors import innermost_function
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import (
    ALLOCATOR_REGISTRARS,
    AVAILABILITY_CHECKS,
    CONFIG_PARAMETERS,
    CUDA_ONLY_WRAPPERS,
    DEVICE_ARGUMENT_MOVES,
    DEVICE_NAMING_KEYWORDS,
    DEVICE_TYPES,
    ENVIRONMENTS,
    MODULE_MOVING_METHODS,
    RECORD_CLASS_DECORATORS,
    RECORD_FIELD_FUNCTIONS,
    SILENT_BUILTINS,
    TEXT_BUILTINS,
    TEXT_METHODS,
    TOLD_DEVICE_SWITCHES,
    TORCH_MODULE_BASES,
)


def device_literal(node: cst.BaseExpression) -> str | None:
    """The source text of a literal accelerator device (``"cuda:1"``, ``"mps"``, ``0``).

    ``"cpu"`` and strings that are not devices give None, as do f-strings and names:
    only a device nobody can change without editing the code counts.
    """
    if isinstance(node, cst.Integer):
        return node.value
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str) and names_a_device(value):
            return node.value
    return None


def device_if_available(node: cst.BaseExpression) -> str | None:
    """The literal device of ``"cuda" if torch.cuda.is_available() else "cpu"``: the one
    the expression picks wherever that device type exists, whatever device the code it
    runs in was put on; None for any other expression."""
    if not isinstance(node, cst.IfExp):
        return None
    if not any(map(asks_which_devices_exist, descendants(node.test))):
        return None
    return device_literal(node.body)


def cuda_target_is_literal(call: cst.Call) -> bool:
    """``x.cuda()``, ``x.cuda(1)``, ``x.cuda(device="cuda:1")``, ``x.cuda(None)``: the current
    GPU or one written into the code.

    Not ``x.cuda(index)``, ``x.cuda(t.device)`` or ``x.cuda(*args, **kwargs)``: a device
    chosen at run time, the caller's explicit choice (as ``x.to(device)`` is).
    """
    if any(arg.star for arg in call.args):
        return False
    device = first_positional(call) or keyword_argument(call, "device")
    if device is None:
        return True
    value = device.value
    return is_none(value) or device_literal(value) is not None


def self_attribute(node: cst.BaseExpression) -> str | None:
    """``x`` for ``self.x``, and for chains starting there (``self.x[0].to(d)``, ``self.x.T``)."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Call):
            node = node.func
            continue
        if (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ):
            return node.attr.value
        node = node.value
    return None


def under_a_test_of_the_device(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Inside an ``if`` (or ``x if ... else y``) whose test reads a device (``device``,
    ``device_*``, ``*_device``, also as an attribute of ``self`` or of the configuration:
    ``args.device``): a function told its device translating it (``if device == "gpu":``,
    ``if out_device.startswith("cuda"):``), its choice. Not a tensor's ``.device``
    (``if "cuda" in str(self.conv.weight.device):``): that asks where a tensor is, and a
    ``.cuda()`` under it goes to the current GPU, not to that tensor's."""
    return any(
        isinstance(node, (cst.If, cst.IfExp)) and _reads_device(node.test) for node in ancestors
    )


def under_a_device_switch(
    ancestors: Sequence[cst.CSTNode], qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """Inside ``with torch.cuda.device(weight.device):`` (``TOLD_DEVICE_SWITCHES``) in the
    same function, the switch told its device at run time: there the current GPU, so
    ``"cuda"`` and ``.cuda()``, is that device, the code's own choice. Not
    ``torch.cuda.device(0)`` nor ``torch.cuda.device(MAIN_GPU)``: a GPU written into the
    code pins every process to it."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return False  # a function defined in the block runs where its caller is
        if isinstance(node, cst.With) and any(
            isinstance(item.item, cst.Call)
            and qualified_name(item.item.func) in TOLD_DEVICE_SWITCHES
            and _told_at_run_time(item.item, qualified_name)
            for item in node.items
        ):
            return True
    return False


def _told_at_run_time(
    switch: cst.Call, qualified_name: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """The switch's device, or stream, is one the code was given: a tensor's ``.device`` or
    ``.get_device()``, a variable or attribute (``gpu_id``, ``self.copy_stream``), a
    ``torch.device`` built from one. Not a literal, ``None`` or ``-1`` (no switch at all), a
    module constant (``MAIN_GPU``), nor a stream made on the spot (on the current GPU)."""
    arg = first_positional(switch) or keyword_argument(switch, "device")
    arg = arg or keyword_argument(switch, "stream")
    if arg is None:
        return False
    value = arg.value
    if isinstance(value, cst.Call):
        if asks_a_tensors_device(value):
            return True
        return qualified_name(value.func) == "torch.device" and not all(
            isinstance(part.value, (cst.SimpleString, cst.Integer)) for part in value.args
        )  # torch.device("cuda", 1) is as literal as "cuda:1"
    if isinstance(value, cst.Attribute):
        name = value.attr.value
    elif isinstance(value, cst.Name):
        name = value.value
    else:
        return False
    return name != "None" and not name.isupper()


def _reads_device(node: cst.CSTNode) -> bool:
    name = None
    if isinstance(node, cst.Name):
        name = node.value
    elif isinstance(node, cst.Attribute):
        name = node.attr.value if _told_its_device(node.value) else None
    if name is not None and (
        name == "device" or name.startswith("device_") or name.endswith("_device")
    ):
        return True
    if isinstance(node, cst.Attribute):
        return _reads_device(node.value)  # not its attribute's own name
    return any(_reads_device(child) for child in node.children)


def _told_its_device(owner: cst.BaseExpression) -> bool:
    """``self`` or the configuration (``args``, ``cfg``): what holds a device chosen for
    the code, not a tensor that is somewhere."""
    return isinstance(owner, cst.Name) and (
        owner.value == "self" or owner.value in CONFIG_PARAMETERS
    )


def moves_its_input(
    moved: str | None, tensor_param: str | None, ancestors: Sequence[cst.CSTNode]
) -> bool:
    """The move is of ``moved``, a parameter of the enclosing function (outermost), and no
    other tensor parameter offers its device: ``def to_gpu(x: Tensor): return x.cuda()``
    moves its input, as it is for. (After ``.cpu()`` the caller passes no ``moved``.)"""
    if moved is None or tensor_param not in (None, moved):
        return False
    function = next((node for node in ancestors if isinstance(node, cst.FunctionDef)), None)
    if function is None:
        return False
    params = function.params
    return any(
        param.name.value == moved
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
    )


def is_map_location(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The visited node is the ``map_location=`` argument of a call (DEV006 reports it)."""
    parent = ancestors[-1] if ancestors else None
    return (
        isinstance(parent, cst.Arg)
        and parent.keyword is not None
        and parent.keyword.value == "map_location"
    )


# Screens: the same questions, asked generously of ``ast`` nodes ------------------------

BINDING_TYPES: tuple[type[ast.AST], ...] = (ast.Import, ast.ImportFrom)
"""The nodes ``Bindings`` reads: a screen that uses it lists them in ``screen_types``."""


class Bindings:
    """Every qualified name each name of a file may stand for somewhere in the traversal.

    The traversal resolves a name through the bindings seen so far: every import (even in
    a function), every module-level definition (``module.name``) and module-level alias
    assignment (``Module = nn.Module``) binds one, and a later one replaces it. So a name
    may stand for its final alias, for what any import or alias assignment of the file
    binds it to (a relative import read both as in a package and as in a module), and for
    ``module.name``.
    """

    def __init__(self, found: Skeleton) -> None:
        self._module = found.facts.module
        self._targets: dict[str, set[str]] = {}
        self._resolved: dict[str, frozenset[str]] = {}
        """``resolutions`` by dotted name: screens ask about every call of a file, and a
        file calls the same few names again and again."""
        self._of_node: dict[int, frozenset[str]] = {}
        """``resolutions`` by node (the skeleton keeps its nodes alive): every screen asks
        about the same calls."""
        for name, target in (*found.facts.aliases.items(), *found.assigned_aliases):
            self._bind(name, target)
        for node in found.of_type(*BINDING_TYPES):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    head = alias.name.partition(".")[0]
                    self._bind(alias.asname or head, alias.name if alias.asname else head)
            elif isinstance(node, ast.ImportFrom):
                for is_package in (False, True):
                    base = absolute_module(self._module, is_package, node.level, node.module)
                    for alias in node.names:
                        name = alias.name
                        self._bind(alias.asname or name, f"{base}.{name}" if base else name)

    @classmethod
    def of(cls, found: Skeleton) -> Bindings:
        """The file's bindings, made once for all the screens that read them (each asks
        about the same calls)."""
        global _last_bindings
        if _last_bindings is None or _last_bindings[0] is not found:
            _last_bindings = (found, cls(found))
        return _last_bindings[1]

    def _bind(self, name: str, target: str) -> None:
        self._targets.setdefault(name, set()).add(target)

    def resolutions(self, node: ast.AST) -> frozenset[str]:
        """What ``node``, a dotted name, may resolve to (``qualified_name``), or nothing."""
        known = self._of_node.get(id(node))
        if known is None:
            known = self._of_node[id(node)] = self._resolutions(node)
        return known

    def _resolutions(self, node: ast.AST) -> frozenset[str]:
        name = dotted(node)
        if name is None:
            return frozenset()
        found = self._resolved.get(name)
        if found is None:
            head, dot, rest = name.partition(".")
            targets = {*self._targets.get(head, ()), f"{self._module}.{head}"}
            found = self._resolved[name] = frozenset(f"{t}{dot}{rest}" for t in targets)
        return found

    def may_bind(self, name: str) -> bool:
        """Whether ``name`` may be bound to a qualified name somewhere (``qualified_name``
        resolves a dotted name only through such a binding of its head)."""
        return name in self._targets

    def may_be(self, node: ast.AST, names: Collection[str]) -> bool:
        """Whether ``node`` may resolve to one of ``names``. A dotted name keeps its last
        part in every resolution (``x.FloatTensor``): asked of every call of a file, most
        are answered by that part alone."""
        if isinstance(node, ast.Attribute) and node.attr not in _last_parts(frozenset(names)):
            return False
        return not self.resolutions(node).isdisjoint(names)


@cache
def _last_parts(names: frozenset[str]) -> frozenset[str]:
    return frozenset(name.rpartition(".")[2] for name in names)


_last_bindings: tuple[Skeleton, Bindings] | None = None
"""``Bindings.of``'s: the screens of one file run one after the other."""


def may_be_device_literal(node: ast.AST) -> bool:
    """``device_literal`` of the same expression could be a device: an integer, or a string
    naming one (also concatenated, which ``device_literal`` does not read)."""
    if not isinstance(node, ast.Constant):
        return False
    value = node.value
    return isinstance(value, int) or (isinstance(value, str) and names_a_device(value))


def may_be_key(node: ast.Subscript, key: str) -> bool:
    """``x["key"]``, as libcst reads its one index: ``x["key",]`` too, a tuple to ``ast``."""
    index = node.slice
    if isinstance(index, ast.Tuple) and len(index.elts) == 1:
        index = index.elts[0]
    return isinstance(index, ast.Constant) and index.value == key


def may_set_environment(assign: ast.AST, names: Bindings, key: str) -> str | None:
    """The string ``assign`` may put under ``key`` of what may be ``os.environ``
    (``os.environ["MASTER_ADDR"] = "localhost"``), or None."""
    assert isinstance(assign, ast.Assign)
    if not (isinstance(assign.value, ast.Constant) and isinstance(assign.value.value, str)):
        return None
    if any(
        isinstance(target, ast.Subscript)
        and may_be_key(target, key)
        and names.may_be(target.value, ENVIRONMENTS)
        for target in assign.targets
    ):
        return assign.value.value
    return None


def record_device_field(
    literal: cst.CSTNode,
    ancestors: Sequence[cst.CSTNode],
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> int | None:
    """Where the generated ``__init__`` takes the field whose default ``literal`` is: a
    ``device`` field of a class whose decorator writes its ``__init__`` from its fields
    (``RECORD_CLASS_DECORATORS``), given as its value or a field declaration's
    ``default=``. Its place among the class's fields (-1: keyword only), or None."""
    at = len(ancestors) - 1
    while at >= 0 and isinstance(ancestors[at], (cst.Arg, cst.Call)):
        at -= 1  # out of `attr.ib(default=...)`
    if at < 3:
        return None
    classdef, block, line, field = ancestors[at - 3 : at + 1]
    if not (
        isinstance(field, cst.AnnAssign)
        and isinstance(line, cst.SimpleStatementLine)
        and isinstance(block, cst.IndentedBlock)
        and isinstance(classdef, cst.ClassDef)
        and dotted_name(field.target) == "device"
    ):
        return None
    value = field.value
    declaration = _field_declaration(value, qualified_name)
    if declaration is not None:
        declared = keyword_argument(declaration, "default")
        value = declared.value if declared is not None else None
    if value is not literal:
        return None
    decorator = next(
        (
            d.decorator
            for d in classdef.decorators
            if qualified_name(_called_or_named(d.decorator)) in RECORD_CLASS_DECORATORS
        ),
        None,
    )
    if decorator is None:
        return None
    return _init_position(field, block, classdef, decorator, qualified_name)


def _called_or_named(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def _field_declaration(
    value: cst.BaseExpression | None,
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> cst.Call | None:
    """``value`` when it declares a field (``attr.ib(...)``, ``dataclasses.field(...)``)."""
    if isinstance(value, cst.Call) and qualified_name(value.func) in RECORD_FIELD_FUNCTIONS:
        return value
    return None


def _switched_on(call: cst.BaseExpression | None, name: str) -> bool:
    """A call (a decorator's or a field declaration's) switching on ``name``
    (``kw_only=True``: ``keyword_switched_on``)."""
    return isinstance(call, cst.Call) and keyword_switched_on(call, name)


def _init_position(
    field: cst.AnnAssign,
    block: cst.IndentedBlock,
    classdef: cst.ClassDef,
    decorator: cst.BaseExpression,
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> int:
    """``field``'s place among the parameters of the ``__init__`` ``decorator`` writes: the
    fields it takes in order (a field declaration's, or an annotation where the decorator
    reads annotations: not ``attr.s`` without ``auto_attribs``), less ``init=False`` and
    ``ClassVar`` ones. -1 (keyword only) where it cannot be placed: after ``KW_ONLY`` or
    under ``kw_only=True``, or in a class whose bases other than torch's module may add
    fields first."""

    def annotation(node: cst.AnnAssign) -> str:
        written = node.annotation.annotation
        if isinstance(written, cst.Subscript):
            written = written.value
        return (dotted_name(written) or "").rpartition(".")[2]

    bases = [qualified_name(base.value) for base in classdef.bases]
    if _switched_on(decorator, "kw_only") or any(
        base not in TORCH_MODULE_BASES | {"object"} for base in bases
    ):
        return -1
    named = qualified_name(_called_or_named(decorator)) or ""
    reads_annotations = not named.endswith((".s", ".attrs")) or _switched_on(
        decorator, "auto_attribs"
    )
    position = 0
    for statement in block.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.AnnAssign) and annotation(small) == "KW_ONLY":
                return -1 if small is not field else position
            if isinstance(small, cst.AnnAssign):
                call = _field_declaration(small.value, qualified_name)
                if annotation(small) == "ClassVar" or not (call or reads_annotations):
                    continue
            elif isinstance(small, cst.Assign):
                call = _field_declaration(small.value, qualified_name)
                if call is None:
                    continue
            else:
                continue
            if small is field:
                return -1 if _switched_on(call, "kw_only") else position
            init = keyword_argument(call, "init") if call is not None else None
            if init is None or dotted_name(init.value) != "False":
                position += 1
    return -1


def stores_its_device_parameter(function: cst.FunctionDef) -> bool:
    """The function runs ``self.device = device`` (its parameter) at its top level."""
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and isinstance(small.value, cst.Name)
                    and small.value.value == "device"
                    and any(dotted_name(t.target) == "self.device" for t in small.targets)
                ):
                    return True
    return False


def places_with_its_device(classdef: cst.ClassDef) -> bool:
    """A method of the class places tensors with ``self.device``: ``x.to(self.device)``,
    ``x.cuda(self.device)``, ``torch.zeros(n, device=self.device)``."""
    for node in descendants(classdef.body):
        if not isinstance(node, cst.Call):
            continue
        keyword = keyword_argument(node, "device")
        if keyword is not None and dotted_name(keyword.value) == "self.device":
            return True
        first = first_positional(node)
        if (
            first is not None
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in DEVICE_ARGUMENT_MOVES
            and dotted_name(first.value) == "self.device"
        ):
            return True
    return False


# Whether a literal device places anything ----------------------------------------------
#
# A literal device is a finding where it places a tensor or module: handed to `.to(...)`,
# `device=`, `.cuda(...)`, directly or through a name, attribute or return that then
# places. Not where it only names, compares or probes a device: these say so.


def asks_a_backend(name: str) -> bool:
    """``name`` (qualified) is a function of a device backend's module
    (``torch.cuda.get_device_properties``, ``torch.xpu.get_device_capability``): it asks
    about or sets up that backend's devices, and places no tensor."""
    parts = name.split(".")
    return len(parts) > 2 and parts[0] == "torch" and parts[1] in DEVICE_TYPES


def only_compared(literal: cst.CSTNode, ancestors: Sequence[cst.CSTNode]) -> bool:
    """The literal is the value of a local name whose every use only names the device
    (``default = torch.device("cuda", 0)``, ``if devices == {default}:``; ``places_with``):
    it asks where tensors are and places none."""
    parent = ancestors[-1] if ancestors else None
    function = innermost_function(ancestors)
    if not (isinstance(parent, cst.Assign) and parent.value is literal and function):
        return False
    if len(parent.targets) != 1 or not isinstance(parent.targets[0].target, cst.Name):
        return False
    return not places_with(parent.targets[0].target.value, function.body)


def places_with(
    name: str, body: cst.CSTNode, owner: cst.ClassDef | None = None, *, indexed: bool = False
) -> bool:
    """Whether the device ``name`` holds may place a tensor or module in ``body``: a read of
    it, or of a local name set from it (``device_type = str(device).split(":")[0]``), may
    reach a use that does more than name the device. Uses that only name it: a comparison
    or truth test (``device == "cuda"``, ``.startswith("cuda")``), a lookup key
    (``backends[device]``; not for an ``indexed`` device, ``0`` or ``"cuda:1"``, which
    picks one GPU's entry: ``traces[device]``), autocast's device type and the keywords
    that name a backend (``pin_memory_device=``, ``DEVICE_NAMING_KEYWORDS``), the backend
    whose devices a call counts (``backend(device).device_count()``), a builtin that reads
    it (``print``, ``isinstance``), an exception's message. A private attribute of
    ``owner`` (the class of ``body``'s method) set from it, ``self._device = device``, is
    followed through the class: only the class reads it, and so are the names each method
    sets from it. Any other use (a call, a return, a public attribute or a container that
    keeps it) may place."""
    scope = owner if owner is not None else body
    parents: dict[int, cst.CSTNode] = {}
    for node in descendants(scope):
        for child in iter_children(node):
            parents[id(child)] = node
    bound = {id(target) for target in _rebound(scope)}

    def function_of(node: cst.CSTNode) -> int:
        return _function_of(node, parents) if owner is not None else 0  # one function

    reads: dict[tuple[int, str], list[cst.CSTNode]] = {}
    for node in descendants(scope):
        if id(node) in bound:
            continue
        if isinstance(node, cst.Name) and _is_read(node, parents):
            reads.setdefault((function_of(node), node.value), []).append(node)
        elif owner is not None and _private_of_self(node):
            assert isinstance(node, cst.Attribute)
            reads.setdefault((0, f"self.{node.attr.value}"), []).append(node)
    start = (function_of(next(iter(descendants(body)), body)), name)
    tracked, pending = {start}, [start]
    while pending:
        for read in reads.get(pending.pop(), ()):
            reached = _names_reached(read, parents, indexed=indexed)
            if reached is None or (owner is None and any("." in key for key in reached)):
                return True
            where = function_of(read)
            keys = {(0, key) if "." in key else (where, key) for key in reached}
            pending.extend(keys - tracked)
            tracked.update(keys)
    return False


def _function_of(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> int:
    """The ``id`` of the outermost function ``node`` is in (0: none): a name of one method
    is not another's, but a closure reads its method's names."""
    found, current = 0, parents.get(id(node))
    while current is not None:
        if isinstance(current, cst.FunctionDef):
            found = id(current)
        current = parents.get(id(current))
    return found


def _rebound(body: cst.CSTNode) -> list[cst.CSTNode]:
    """The names and attributes assignments bind (``device, enabled = "cpu", False``,
    ``self._device = device``): no reads."""
    found: list[cst.CSTNode] = []
    for node in descendants(body):
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign)):
            stack: list[cst.CSTNode] = [node.target]
            while stack:
                target = stack.pop()
                if isinstance(target, (cst.Name, cst.Attribute)):
                    found.append(target)
                elif isinstance(target, (cst.Tuple, cst.List)):
                    stack.extend(element.value for element in target.elements)
    return found


def _private_of_self(node: cst.CSTNode) -> bool:
    """``self._device``: an attribute only its class reads, by convention."""
    attribute = attribute_of_self(node) if isinstance(node, cst.Attribute) else None
    return attribute is not None and attribute.startswith("_") and not attribute.startswith("__")


def _is_read(name: cst.Name, parents: dict[int, cst.CSTNode]) -> bool:
    """``name`` is a name read, not an attribute's, a keyword's or a definition's."""
    parent = parents.get(id(name))
    if isinstance(parent, cst.Attribute):
        return parent.value is name
    if isinstance(parent, cst.Arg):
        return parent.value is name
    return not isinstance(
        parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.AsName, cst.ImportAlias)
    )


def _names_reached(
    read: cst.CSTNode, parents: dict[int, cst.CSTNode], *, indexed: bool
) -> tuple[str, ...] | None:
    """The local names a read device is assigned to, if it only names the device on the
    way (``places_with``); None where it may place."""
    child = read
    while True:
        parent = parents.get(id(child))
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
            return ()
        if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is child:
            return ()
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return ()
        if isinstance(parent, _CARRIERS):
            child = parent  # the value, in a container, or text made from it
        elif isinstance(parent, (cst.Index, cst.SubscriptElement)):
            return None if indexed else ()  # a lookup key: a backend's, or one GPU's entry
        elif isinstance(parent, cst.Subscript) and parent.value is child:
            child = parent  # `str(device).split(":")[0]`
        elif isinstance(parent, cst.Attribute) and parent.value is child:
            call = parents.get(id(parent))
            if isinstance(call, cst.Call) and call.func is parent:
                if parent.attr.value in ("startswith", "endswith"):
                    return ()
                if parent.attr.value not in TEXT_METHODS:
                    return None
                child = call
            elif parent.attr.value == "type":
                child = parent
            else:
                return None
        elif isinstance(parent, cst.Arg) and parent.value is child:
            call = parents.get(id(parent))
            if not isinstance(call, cst.Call):
                return None
            if _only_names(call, parent, parents):
                return ()
            if dotted_name(call.func) not in _SAME_DEVICE_BUILDERS:
                return None
            child = call
        elif isinstance(parent, cst.DictElement):
            key = parent.key
            named = (
                isinstance(key, cst.SimpleString) and key.evaluated_value in DEVICE_NAMING_KEYWORDS
            )
            return () if key is child or named else None
        elif isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is child:
            targets = (
                [t.target for t in parent.targets]
                if isinstance(parent, cst.Assign)
                else [parent.target]
            )
            keys = []
            for target in targets:
                if isinstance(target, cst.Name):
                    keys.append(target.value)
                elif _private_of_self(target):
                    assert isinstance(target, cst.Attribute)
                    keys.append(f"self.{target.attr.value}")
                else:
                    return None
            return tuple(keys)
        else:
            return None


_CARRIERS = (
    cst.IfExp,
    cst.BooleanOperation,
    cst.Element,
    cst.Tuple,
    cst.List,
    cst.Set,
    cst.FormattedString,
    cst.FormattedStringExpression,
)
"""Expressions whose value holds the device read in them, followed to their use."""

_SAME_DEVICE_BUILDERS = TEXT_BUILTINS | {"getattr", "torch.device"}
"""Calls whose result is the device (or its text, or its ``type``): followed, as is text
made from it (``TEXT_METHODS``)."""


def _only_names(call: cst.Call, arg: cst.Arg, parents: dict[int, cst.CSTNode]) -> bool:
    """``arg`` of ``call`` names a device without placing on it: autocast's device type, a
    backend-naming keyword, a builtin that reads it, the backend a call then counts or
    asks about (``backend(device).device_count()``), an exception's message."""
    func = dotted_name(call.func) or ""
    keyword = arg.keyword.value if arg.keyword is not None else None
    if keyword in DEVICE_NAMING_KEYWORDS:
        return True
    if func.endswith("autocast") and arg is first_positional(call):
        return True
    if func in SILENT_BUILTINS and func not in TEXT_BUILTINS:
        return True
    parent = parents.get(id(call))
    if isinstance(parent, cst.Raise):
        return True
    if isinstance(parent, cst.Attribute) and parent.attr.value in AVAILABILITY_CHECKS:
        return isinstance(parents.get(id(parent)), cst.Call)
    return False


def in_a_probe(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The literal is in a function that answers yes or no (``-> bool``, or every
    ``return`` gives ``True``/``False``, ``bool(...)``, a comparison or ``not x``):
    ``_mps_supports_bfloat16``, ``triton_xpu_available``. Its tensors are made to ask
    whether something works on that device, and it keeps none of them (``self.buffer =
    x.cuda()``, ``cache[k] = torch.ones(1, device="cuda")``: one that does places it)."""
    function = innermost_function(ancestors)
    if function is None or _keeps_a_placed_value(function):
        return False
    returns = function.returns
    if returns is not None and dotted_name(returns.annotation) == "bool":
        return True
    values = [node.value for node in descendants(function.body) if isinstance(node, cst.Return)]
    return bool(values) and all(_truth_value(value) for value in values)


def _keeps_a_placed_value(function: cst.FunctionDef) -> bool:
    """The function stores, in an attribute or an item, a value moved with ``.to``/``.cuda``
    or made with ``device=``."""
    for node in descendants(function.body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            if any(isinstance(t, (cst.Attribute, cst.Subscript)) for t in targets) and any(
                isinstance(part, cst.Call) and _places(part) for part in descendants(node.value)
            ):
                return True
        elif isinstance(node, cst.Expr) and _moves_in_place(node.value):
            return True
    return False


def _moves_in_place(value: cst.BaseExpression) -> bool:
    """``self.model.cuda()``, ``model.to("cuda")`` as a statement: a module moved in place
    (not ``torch.zeros(1).cuda()``, a probe's tensor dropped at once)."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    receiver = value.func.value
    return value.func.attr.value in DEVICE_ARGUMENT_MOVES and isinstance(
        receiver, (cst.Name, cst.Attribute)
    )


def _places(call: cst.Call) -> bool:
    func = call.func
    moves = isinstance(func, cst.Attribute) and func.attr.value in DEVICE_ARGUMENT_MOVES
    return moves or keyword_argument(call, "device") is not None


def _truth_value(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("True", "False")
    if isinstance(value, cst.Call):
        return dotted_name(value.func) == "bool"
    if isinstance(value, cst.UnaryOperation):
        return isinstance(value.operator, cst.Not)
    return isinstance(value, cst.Comparison)


def returned_as_is(literal: cst.CSTNode, ancestors: Sequence[cst.CSTNode]) -> bool:
    """The literal is what its function returns (``return torch.device("cuda")``, or a
    branch of ``a if test else b`` or ``a or b`` returned): that function's answer to
    "which device?", which places only where a caller places with it."""
    node = literal
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Return):
            return True
        if not (
            (isinstance(parent, cst.IfExp) and node in (parent.body, parent.orelse))
            or isinstance(parent, cst.BooleanOperation)
        ):
            return False
        node = parent
    return False


def in_a_callback(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The literal is in a nested function that its enclosing function hands to a library
    that keeps it as an allocator (``triton.set_allocator(alloc_fn)``,
    ``ALLOCATOR_REGISTRARS``) and never calls: it runs where that library calls it, on the
    device the library works on (the current one). Not any callee: ``checkpoint(fn, x)``
    or ``model.apply(init)`` run it with the caller's tensors."""
    functions = [node for node in ancestors if isinstance(node, cst.FunctionDef)]
    if len(functions) < 2:
        return False
    enclosing, nested = functions[-2], functions[-1]
    name = nested.name.value
    handed = called = False
    for node in descendants(enclosing.body):
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name) and node.func.value == name:
                called = True
            elif dotted_name(node.func) in ALLOCATOR_REGISTRARS:
                handed |= any(dotted_name(arg.value) == name for arg in node.args)
    return handed and not called


def in_a_data_parallel_wrapper(
    ancestors: Sequence[cst.CSTNode],
    qualified_name: Callable[[cst.BaseExpression], str | None],
) -> bool:
    """The code is in a class built around ``nn.DataParallel`` (``CUDA_ONLY_WRAPPERS``: it
    derives from it, or its ``__init__`` always builds one, not under an ``if``): CUDA-only
    by construction, and DataParallel scatters its inputs from any GPU, so the current one
    is right there. (One built only when several GPUs exist leaves a plain module, which
    the CPU and a single other GPU run too.)"""
    classdef = next((node for node in reversed(ancestors) if isinstance(node, cst.ClassDef)), None)
    if classdef is None:
        return False
    if any(qualified_name(base.value) in CUDA_ONLY_WRAPPERS for base in classdef.bases):
        return True
    init = next(
        (
            statement
            for statement in classdef.body.body
            if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__"
        ),
        None,
    )
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return False
    return any(
        isinstance(node, cst.Call) and qualified_name(node.func) in CUDA_ONLY_WRAPPERS
        for statement in init.body.body
        if isinstance(statement, cst.SimpleStatementLine)
        for node in descendants(statement)
    )


def moves_only_its_parts(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The code is in a method that does nothing but move the object's parts, some to the
    host and some to a device (``self.model = self.model.cuda()``, ``self.vae.cpu()``,
    perhaps under ``if``/``else``): an offload switch, whose job is placing, as the class's
    own ``cuda``/``to`` overrides are. (One that only moves parts to the GPU may be state
    set up on the forward path.)"""
    function = innermost_function(ancestors)
    if function is None or not has_self(function):
        return False
    statements: list[cst.CSTNode] = [function.body]
    moves: set[str] = set()
    while statements:
        statement = statements.pop()
        if isinstance(statement, cst.IndentedBlock):
            statements.extend(statement.body)
        elif isinstance(statement, cst.Else):
            statements.append(statement.body)
        elif isinstance(statement, cst.If):
            statements.append(statement.body)
            if statement.orelse is not None:
                statements.append(statement.orelse)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                move = _part_move(small)
                if move is None:
                    return False
                moves.add(move)
        else:
            return False
    return "cpu" in moves and len(moves) > 1


def _part_move(small: cst.BaseSmallStatement) -> str | None:
    """``cuda`` for ``self.model.cuda()`` or ``self.model = self.model.cuda()``, also for
    each of a list of parts: ``self.heads = [h.cuda() for h in self.heads]``."""
    if isinstance(small, cst.Expr):
        value = small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1:
        value = small.value
        if isinstance(value, cst.ListComp):
            return _each_part_move(dotted_name(small.targets[0].target), value)
        if dotted_name(small.targets[0].target) != _moved_part(value):
            return None
    else:
        return None
    if _moved_part(value) is None:
        return None
    assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
    return value.func.attr.value


def _each_part_move(target: str | None, value: cst.ListComp) -> str | None:
    """``cuda`` for ``[h.cuda() for h in self.heads]`` assigned back to ``self.heads``."""
    loop = value.for_in
    element = value.elt
    if (
        target is None
        or loop.inner_for_in is not None
        or loop.ifs
        or dotted_name(loop.iter) != target
        or not target.startswith("self.")
        or not isinstance(loop.target, cst.Name)
        or not isinstance(element, cst.Call)
        or not isinstance(element.func, cst.Attribute)
        or element.func.attr.value not in MODULE_MOVING_METHODS
        or dotted_name(element.func.value) != loop.target.value
    ):
        return None
    return element.func.attr.value


def _moved_part(value: cst.BaseExpression) -> str | None:
    """``self.model`` for ``self.model.cuda()`` (a move, ``MODULE_MOVING_METHODS``)."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in MODULE_MOVING_METHODS
    ):
        return None
    part = dotted_name(value.func.value)
    return part if part is not None and part.startswith("self.") else None
