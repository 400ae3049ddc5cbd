"""A file's structural facts from CPython's ``ast``, for files no rule needs to see.

The project index needs every file's imports, classes, functions and calls, even
of files where no rule can report anything (a base class, a re-export, a caller).
The traversal collects them while the rules run; for the files the prefilter
lets skip libcst, this module collects the same facts from ``ast``, which parses
about ten times faster. Both must agree exactly: ``tests/test_prefilter.py``
compares them on every fixture, example and generated program.

The libcst traversal visits a class's body before its bases and decorators, a
``case`` body before its guard and an ``except`` body before its type; the walk
here keeps that order, because a module-level call is resolved through the
imports seen so far.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from operator import attrgetter
from typing import Any

from devlint.candidates import Scope
from devlint.facts import (
    BASE_INIT_STEP,
    MAIN_GUARD_NAME,
    WEIGHT_APPLIERS,
    BackendParameter,
    CallShape,
    Fact,
    FileFacts,
    GlooCall,
    Reference,
    absolute_module,
    assigned_alias,
    attribute_key,
    backend_parameter,
    bound_method,
    class_facts,
    compiled_types,
    declared_extensions,
    exports_after,
    function_facts,
    gloo_slots,
    input_annotation,
    kernel_source_types,
    may_compile,
    may_declare_an_extension,
    moved_calls,
    moves_to_a_told_device,
    names_the_device,
    placed_arguments,
    reads_name,
    resolve_alias,
    resolved_calls,
    resolved_or_written,
    stored_evidence,
    stored_method,
)
from devlint.loader_workers import (
    builds_loaders,
    may_build_loaders,
    may_start_workers,
    names_workers,
)
from devlint.other_devices import (
    A_TENSORS_DEVICE,
    DEFAULT_SETTER_NAMES,
    DEVICE_CALL_NAMES,
    DEVICE_KEYWORDS,
    ENVIRONMENT_NAMES,
    LITERAL_CHOICE,
    NOT_A_LITERAL,
    RUNS_ON_IMPORT,
    RUNS_WHEN_RUN,
    TOP_LEVEL,
    VISIBLE_GPUS,
    DeviceOffers,
    asks_by_name,
    keeps_the_gpu,
    makes_a_gpu_current,
    may_matter,
    names_another_device,
    stays_on,
)
from devlint.source import split_lines
from devlint.symbols import (
    CPU_RESULT_METHODS,
    DDP_DEVICE_KEYWORDS,
    GPU_SETTING_OWNERS,
    GPU_SETTINGS,
    PLACING_KEYWORDS,
    PROCESS_GROUP_INITS,
    PROGRAM_EXITS,
)


def _a_choice_of_strings(node: ast.expr) -> bool:
    """``"cuda" if use_cuda else "cpu"``: a conditional whose every outcome is a string
    literal (``LITERAL_CHOICE``)."""
    if isinstance(node, ast.IfExp):
        return _a_choice_of_strings(node.body) and _a_choice_of_strings(node.orelse)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _a_device_choice(node: ast.expr) -> bool:
    """An expression that only names or chooses a device, doing nothing else: literals,
    names, attributes, subscripts, f-strings, and conditions, ``and``/``or``/``not`` and
    comparisons of them, and ``torch.device(...)`` or an availability check of them
    (``DEVICE_CALL_NAMES``); not a call that acts (``net.to("cpu")``), nor a walrus (as
    the traversal's)."""
    if isinstance(node, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.JoinedStr)):
        return True
    if isinstance(node, ast.IfExp):
        return all(map(_a_device_choice, (node.test, node.body, node.orelse)))
    if isinstance(node, ast.BoolOp):
        return all(map(_a_device_choice, node.values))
    if isinstance(node, ast.UnaryOp):
        return _a_device_choice(node.operand)
    if isinstance(node, ast.Compare):
        return all(map(_a_device_choice, (node.left, *node.comparators)))
    if isinstance(node, ast.Call):
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        return (
            last in DEVICE_CALL_NAMES
            and all(keyword.arg is not None for keyword in node.keywords)
            and not any(isinstance(arg, ast.Starred) for arg in node.args)
            and all(map(_a_device_choice, arguments))
        )
    return False


def _asks_a_tensors_device(node: ast.expr) -> bool:
    """``x.get_device()`` (as ``nodes.asks_a_tensors_device`` reads libcst)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get_device"
        and not node.args
        and not node.keywords
    )


def _plain_strings(node: ast.AST) -> Iterator[str]:
    """The values of the string literals in ``node``, not the pieces of f-strings (libcst
    reads those as no string either)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Constant) and isinstance(current.value, str):
            yield current.value
        elif not isinstance(current, ast.JoinedStr):
            stack.extend(ast.iter_child_nodes(current))


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Constant) and any(node.value is v for v in (True, False, None)):
        parts.append(repr(node.value))  # names to libcst, as they were in Python 2
    else:
        return None
    return ".".join(reversed(parts))


def _returns_a_value(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A ``return <value>`` of the function itself (as the traversal's)."""
    return bool(_values_returned(function))


def _values_returned(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """What the function's own ``return <value>`` statements give (as the traversal's)."""
    found: list[ast.expr] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node.value)
        elif not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _device_on_cpu(node: ast.ClassDef) -> bool:
    """``ClassFacts.device_on_cpu`` (as the traversal's): ``device`` returns only the CPU."""
    for statement in node.body:
        if (
            isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
            and statement.name == "device"
        ):
            returned = _values_returned(statement)
            return bool(returned) and all(_names_the_cpu(found) for found in returned)
    return False


def _names_the_cpu(node: ast.expr) -> bool:
    """``"cpu"`` or ``torch.device("cpu")`` (``nodes.names_the_cpu``)."""
    named = isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("device")
    if named and len(node.args) == 1 and not node.keywords:  # type: ignore[attr-defined]
        node = node.args[0]  # type: ignore[attr-defined]
    return isinstance(node, ast.Constant) and node.value == "cpu"


def _asks_which_devices_exist(test: ast.expr) -> bool:
    """``torch.cuda.is_available()`` or ``not`` it, and nothing else (as the traversal's)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not isinstance(test, ast.Call):
        return False
    func = test.func
    if isinstance(func, ast.Name):
        return asks_by_name(func.id, attribute=False, of_a_call=False)
    if not isinstance(func, ast.Attribute):
        return False
    of_a_call = isinstance(func.value, ast.Call)
    return asks_by_name(func.attr, attribute=True, of_a_call=of_a_call)


def _only_sets_up_the_gpu(body: list[ast.stmt]) -> bool:
    """Every statement of the block calls a setting of the GPU (``GPU_SETTINGS``) or
    assigns one (``cudnn.benchmark = True``): it places no tensor (as the traversal's)."""
    return all(
        (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and dotted(statement.value.func) in GPU_SETTINGS
        )
        or (
            isinstance(statement, ast.Assign)
            and all(
                isinstance(target, ast.Attribute) and dotted(target.value) in GPU_SETTING_OWNERS
                for target in statement.targets
            )
        )
        for statement in body
    )


def _a_bool(node: ast.expr) -> bool | None:
    """``True`` or ``False`` as written, else None (as the traversal's)."""
    value = node.value if type(node) is ast.Constant else None
    return value if type(value) is bool else None


def _stops(body: list[ast.stmt]) -> bool:
    """The block raises or ends the program (``PROGRAM_EXITS``) as one of its statements
    (as the traversal's ``_stops``)."""
    return any(
        isinstance(statement, ast.Raise)
        or (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and dotted(statement.value.func) in PROGRAM_EXITS
        )
        for statement in body
    )


def _refused(node: ast.ClassDef) -> list[str]:
    """The classes the class's own ``__setattr__`` refuses (as the traversal's)."""
    found: list[str] = []
    for statement in node.body:
        if not (isinstance(statement, ast.FunctionDef) and statement.name == "__setattr__"):
            continue
        stack: list[ast.AST] = list(statement.body)
        while stack:
            current = stack.pop()
            if isinstance(current, ast.If) and any(isinstance(s, ast.Raise) for s in current.body):
                found.extend(_tested_classes(current.test))
            if not isinstance(
                current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                stack.extend(ast.iter_child_nodes(current))
    return found


def _tested_classes(test: ast.expr) -> Iterator[str]:
    """``X`` of ``isinstance(v, X)`` (each of ``(X, Y)``), alone or an operand of ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for operand in test.values:
            yield from _tested_classes(operand)
        return
    if not (isinstance(test, ast.Call) and dotted(test.func) == "isinstance"):
        return
    if len(test.args) != 2:
        return
    tested = test.args[1]
    kinds = tested.elts if isinstance(tested, ast.Tuple) else [tested]
    yield from (name for kind in kinds if (name := dotted(kind)) is not None)


def _calls_an_init(caller: str, func: ast.expr) -> bool:
    """``super().__init__(...)`` or ``Base.__init__(self, ...)`` inside ``__init__``."""
    return (
        caller.endswith(".__init__") and isinstance(func, ast.Attribute) and func.attr == "__init__"
    )


@dataclass
class _Class:
    name: str
    bases: list[str]
    defines_device: bool
    device_on_cpu: bool
    methods: list[str] = field(default_factory=list)
    stores: set[str] = field(default_factory=set)
    init_calls_init: bool = False
    """Its ``__init__`` calls an ``__init__`` (``ClassFacts.skips_base_init``)."""
    stored: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    """What its methods assign to ``self`` (``class_facts``'s ``stored``)."""
    refused: list[str] = field(default_factory=list)
    """What its ``__setattr__`` refuses (``class_facts``'s ``refused``)."""


@dataclass
class _Function:
    name: str
    owner: _Class | None
    """The class it is a method of."""
    takes_device: bool
    takes_inputs: bool
    untyped: frozenset[str] = frozenset()
    """``function_facts``'s: parameters without a default or an annotation."""
    calls: set[str] = field(default_factory=set)
    self_calls: set[str] = field(default_factory=set)
    bound: set[str] = field(default_factory=set)
    """As the traversal's: methods ``partial`` binds, and those handed to ``apply``."""
    applied: set[str] = field(default_factory=set)
    call_shapes: set[CallShape] = field(default_factory=set)
    imported: dict[str, str] = field(default_factory=dict)
    """What its own imports bind so far (name -> qualified name)."""
    resolved: set[str] = field(default_factory=set)
    """``function_facts``'s: calls resolved through ``imported`` as the walk met them."""
    parameters: tuple[str, ...] = ()
    """Its positional parameters' names, in order."""
    keyword_only: frozenset[str] = frozenset()
    step_calls: frozenset[int] = frozenset()
    """The calls (by id) that are whole statements of its body (``FunctionFacts.steps``)."""
    steps: set[str] = field(default_factory=set)

    @property
    def class_name(self) -> str | None:
        return self.owner.name if self.owner is not None else None


_WORD_FIELD: dict[type[object], str] = {
    ast.Name: "id",
    ast.Attribute: "attr",
    ast.arg: "arg",
    ast.FunctionDef: "name",
    ast.AsyncFunctionDef: "name",
    ast.ClassDef: "name",
}
"""The field holding the one identifier of the kinds that hold one (most words; the
others, and string values, are added by the kind's action: ``_ACTIONS``)."""


class _Leave:
    """Stack marker: the class or function whose children lie above it is being left."""


_LEAVE = _Leave()


class _Walk:
    def __init__(
        self,
        text: str,
        module: str,
        is_package: bool,
        references: bool,
        collect: frozenset[type[ast.AST]],
        star_bound: Iterable[tuple[str, str]] = (),
    ) -> None:
        self._text = text
        self._references = references
        self._module = module
        self._is_package = is_package
        self._aliases: dict[str, str] = dict(star_bound)
        self._stars: list[str] = []
        self._top_level_calls: set[str] = set()
        self._kernel_builds: set[tuple[str, str]] = set()
        """Calls every import of the module runs that may compile kernel sources: (called as
        written, type)."""
        self._extension_declarations: set[tuple[str, str, tuple[str, ...]]] = set()
        """Calls that may declare an extension module: (called as written, the module's
        name, the strings they are given)."""
        self._loads: set[str] = set()
        self._body: list[ast.stmt] = []
        self._exports: tuple[str, ...] | None = None
        self._classes: list[_Class] = []
        self._functions: list[_Function] = []
        self._frames: list[_Class | _Function | None] = []
        self._frame: _Class | _Function | None = None
        """The innermost class or (outermost) function: the traversal's scope."""
        self._function: _Function | None = None
        self._kept_as_device: set[int] = set()
        """The calls in values assigned to the device an object keeps (by id)."""
        self._placed_with: set[int] = set()
        """The calls whose value is used as a device (``CallShape.places``, by id)."""
        self._told_moves: set[int] = set()
        """The calls that move to a device they are told, or whose value is moved so at
        once (``CallShape.told_move``, by id)."""
        self._facts: list[Fact] = []
        self._gloo_calls: list[GlooCall] = []
        self._backend_parameters: list[BackendParameter] = []
        self._assigned_attributes: set[str] = set()
        self._stored_calls: dict[int, str] = {}
        """The calls whose result is assigned to an attribute: that attribute (by id)."""
        self._seen_references: set[tuple[str, bool]] = set()
        self._main_guards = 0
        self.words: list[str] = []
        """What rules can read in the code: every identifier, and every string literal's
        value as Python evaluates it (escapes, concatenation), quoted; not comments, nor
        strings that are statements on their own (docstrings), which no rule reads."""
        self.module_words: list[str] = []
        """The words outside every function and class, and of every import."""
        self._inert: set[int] = set()
        self._device_offers = DeviceOffers()
        self._steps: set[int] = set()
        """The statements of a module's, a function's or a ``__main__`` block's own body
        (by id), not under another statement: ``_note_no_offer``'s."""
        self._formatted_text: set[int] = set()
        """The literal parts of f-strings (by id): libcst reads them as written."""
        self._arguments: set[int] = set()
        """The arguments of calls (by id), as written (not unpacked)."""
        self._branches: list[tuple[tuple[int, int], tuple[int, int]]] = []
        """Where the body and ``else`` of each ``if`` seen so far begin and end."""
        self._reads: dict[str, bool] = {}
        """``reads_name``'s answers, by name."""
        self._holder: tuple[str, tuple[int, int], tuple[int, int]] | None = None
        """The name the last assignment of a device choice (``_a_device_choice``) to one
        name outside a class's body binds, and where its value begins and ends
        (``_held_by``)."""
        self._main_block = False
        self._starts_workers = False
        self._builds_loaders = False
        self._loader_builders: set[str] = set()
        self.nodes: dict[type[ast.AST], list[ast.AST]] = {kind: [] for kind in collect}
        """The nodes of the kinds the rules' screens read, in the order of the walk."""
        self.frames: dict[int, _Class | _Function | None] = {}
        """The scope frame each collected node is in (by the node's id)."""
        self.assigned_aliases: list[tuple[str, str]] = []
        """Every module-level ``Name = dotted.name`` binding, in order (``assigned_alias``)."""

    @cached_property
    def _lines(self) -> list[str]:
        """Lines as ``ast`` numbers them; needed only for rare questions, so split on demand."""
        return split_lines(self._text)

    def run(self, tree: ast.Module) -> None:
        """Visit every node once (an explicit stack: no recursion limit), in libcst's order.

        This loop runs for every node of every file, so it is kept lean: what to do with a
        kind is looked up once per node (``_plans``), and a node pushes its fields' values
        as they are; a list is expanded when popped, an absent child (None) skipped."""
        self._body = tree.body
        self._steps.update(map(id, tree.body))
        collect = frozenset(self.nodes)
        plans = dict(_plans(collect))
        collected, word_field, action, _ = plans[ast.If]
        plans[ast.If] = (collected, word_field, action, self._if_children)
        nodes, frame_of, open_frames = self.nodes, self.frames, self._frames
        words, module_words = self.words, self.module_words
        stack: list[object] = [tree]
        pop = stack.pop
        while stack:
            node: Any = pop()
            kind = type(node)
            plan = plans.get(kind)
            if plan is None:
                if node is None:
                    continue
                # A kind first seen: a value that is no node (``_child_fields``), or a
                # subclass of ``ast.AST`` defined after ``_plans``.
                plan = plans[kind] = _plan(kind, collect)
            collected, word_field, action, children = plan
            if collected:
                nodes[kind].append(node)
                frame_of[id(node)] = self._frame
            if word_field is not None:
                word = getattr(node, word_field)
                words.append(word)
                if not open_frames:  # as ``_add_words``
                    module_words.append(word)
            if action is not None:
                action(self, node)
            if children is not None:
                stack += children(node)

    def facts(self, path: str) -> FileFacts:
        aliases = self._aliases
        return FileFacts(
            module=self._module,
            path=path,
            aliases=dict(aliases),
            classes=tuple(
                class_facts(
                    c.name,
                    c.bases,
                    c.methods,
                    c.defines_device,
                    c.stores,
                    aliases,
                    c.init_calls_init,
                    c.stored,
                    c.device_on_cpu,
                    c.refused,
                )
                for c in self._classes
            ),
            functions=tuple(
                function_facts(
                    f.name,
                    f.calls,
                    f.self_calls,
                    f.takes_device,
                    aliases,
                    f.takes_inputs,
                    f.bound - f.applied,
                    f.call_shapes,
                    f.resolved,
                    f.untyped,
                    f.steps,
                )
                for f in self._functions
            ),
            facts=tuple(self._facts),
            stars=tuple(self._stars),
            exports=self._exports,
            top_level_calls=resolved_calls(self._top_level_calls, aliases),
            compiled_for=compiled_types(self._kernel_builds, aliases),
            declared_extensions=declared_extensions(self._extension_declarations, aliases),
            loads=tuple(sorted(self._loads)),
            gloo_calls=tuple(
                replace(call, callee=resolve_alias(call.callee, aliases) or call.callee)
                for call in self._gloo_calls
            ),
            backend_parameters=tuple(self._backend_parameters),
            offering_places=self._device_offers.offering_places(aliases),
            held_offers=self._device_offers.held_places(aliases),
            option_places=self._device_offers.option_places(),
            gpu_choices=self._device_offers.gpu_choices(aliases),
            gpu_default=self._device_offers.gpu_default(aliases),
            starts_loader_workers=self._starts_workers,
            builds_loaders=self._builds_loaders,
            loader_builders=resolved_or_written(self._loader_builders, aliases),
            main_block=self._main_block,
            assigned_attributes=frozenset(self._assigned_attributes),
        )

    # Order -------------------------------------------------------------------

    def _if_children(self, node: ast.If) -> tuple[object, ...]:
        """An ``if``'s children, to push (last first): a main-guard body is bracketed by
        markers, so the walk knows it is inside."""
        if not self._is_main_test(node.test):
            return (node.orelse, node.body, node.test)
        self._steps.update(map(id, node.body))
        return (node.orelse, _GUARD_CLOSE, node.body, _GUARD_OPEN, node.test)

    # Events ------------------------------------------------------------------

    def _marker(self, node: _Marker) -> None:
        self._main_guards += 1 if node is _GUARD_OPEN else -1
        self._main_block = True

    def _leave(self, _: _Leave) -> None:
        self._frames.pop()
        self._update_function()

    def _keyword(self, node: ast.keyword) -> None:
        self._add_words((node.arg or "",))

    def _alias(self, node: ast.alias) -> None:
        # An import anywhere binds a name the module's own code resolves (traversal).
        self._add_words((node.name, node.asname or ""), binds_module_names=True)

    def _names(self, node: ast.Global | ast.Nonlocal) -> None:
        self._add_words(tuple(node.names))

    def _expr(self, node: ast.Expr) -> None:
        if type(node.value) is ast.Constant:
            self._inert.add(id(node.value))  # a docstring or other lone string: no rule reads it

    def _add_words(self, words: tuple[str, ...], *, binds_module_names: bool = False) -> None:
        self.words += words
        if not self._frames or binds_module_names:
            self.module_words += words

    def _constant(self, node: ast.Constant) -> None:
        value = node.value
        if id(node) in self._inert:
            return
        offers = self._device_offers
        if type(value) is str and id(node) not in offers.exempt and names_another_device(value):
            written = id(node) in self._formatted_text or self._as_written(node)
            an_argument = id(node) in self._arguments and not self._under_a_branch(node)
            offers.string(
                value if written else "",
                self._place(node),
                an_argument=an_argument,
                holder=lambda: self._held_by(node),
            )
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if isinstance(value, str):
            self._add_words((f'"{value}"',))

    def _innermost_frame(self) -> _Class | _Function | None:
        return next((frame for frame in reversed(self._frames) if frame is not None), None)

    def _update_function(self) -> None:
        frame = self._frame = self._innermost_frame()
        self._function = frame if isinstance(frame, _Function) else None

    def _enter_class(self, node: ast.ClassDef) -> None:
        enclosing = self._innermost_frame()
        name = f"{enclosing.name if enclosing else self._module}.{node.name}"
        bases = [
            dotted(base.value if isinstance(base, ast.Starred) else base) for base in node.bases
        ]
        frame = _Class(
            name,
            [base for base in bases if base],
            self._defines_device(node),
            _device_on_cpu(node),
            refused=_refused(node),
        )
        self._classes.append(frame)
        if not self._frames:
            self._aliases[node.name] = name
        self._frames.append(frame)
        self._frame = frame
        self._function = None

    def _enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._steps.update(map(id, node.body))
        if self._function is not None:
            self._frames.append(None)  # a nested function belongs to its enclosing one
            return
        if not self._frames:
            self._aliases[node.name] = f"{self._module}.{node.name}"
        owner = self._frames[-1] if self._frames else None
        method_of = owner if isinstance(owner, _Class) else None
        owner_name = method_of.name if method_of else None
        args = node.args
        takes_device = any(
            arg.arg == "device" for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)
        )
        required = [*args.posonlyargs, *args.args][: -len(args.defaults) or None] + [
            arg
            for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if default is None
        ]
        takes_inputs = any(
            arg.annotation is not None and input_annotation(dotted(arg.annotation), self._aliases)
            for arg in required
        )
        untyped = frozenset(arg.arg for arg in required if arg.annotation is None)
        frame = _Function(
            f"{owner_name or self._module}.{node.name}",
            method_of,
            takes_device,
            takes_inputs,
            untyped,
            parameters=tuple(arg.arg for arg in (*args.posonlyargs, *args.args)),
            keyword_only=frozenset(arg.arg for arg in args.kwonlyargs),
            step_calls=frozenset(
                id(statement.value)
                for statement in node.body
                if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign))
                and isinstance(statement.value, ast.Call)
            ),
        )
        if method_of is not None:
            method_of.methods.append(node.name)
        self._functions.append(frame)
        self._frames.append(frame)
        self._frame = self._function = frame

    def _defines_device(self, node: ast.ClassDef) -> bool:
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if statement.name == "device":
                    if _returns_a_value(statement):
                        break
                    return False
                continue
            targets: list[ast.expr] = []
            if isinstance(statement, ast.Assign):
                targets = statement.targets
            elif isinstance(statement, ast.AnnAssign):
                targets = [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "device" for t in targets):
                break
        else:
            return False
        # `class A: device = x` (a one-line body): the traversal skips it too. Asked last,
        # as it needs the text's lines, which most files never split.
        return not self._on_header_line(node.body[0])

    def _on_header_line(self, first: ast.stmt) -> bool:
        """Whether the statement shares its logical line with what comes before it (lines
        joined by backslashes count as one)."""
        row = first.lineno - 1
        before = self._lines[row].encode()[: first.col_offset]
        while not before.strip() and row > 0 and self._lines[row - 1].rstrip("\r\n").endswith("\\"):
            row -= 1
            before = self._lines[row].rstrip("\r\n")[:-1].encode()
        return bool(before.strip())

    def _bind_import(self, name: str, target: str) -> None:
        """An import binds ``name`` in the module, and from here on in the function that
        runs it (``_Function.imported``)."""
        self._aliases[name] = target
        if self._function is not None:
            self._function.imported[name] = target

    def _runs_on_import(self, statement: ast.stmt) -> bool:
        """``statement`` runs whenever the module is imported: it is one of the module's
        body, not under ``try``/``if`` or in a definition."""
        return any(statement is top for top in self._body)

    @cached_property
    def _run_on_import(self) -> frozenset[int]:
        """The nodes every import of the module runs (by id): those of the statements of
        its body that hold no block (``try``, ``if``, a definition), not in a lambda."""
        return _nodes_outside_lambdas(top for top in self._body if not hasattr(top, "body"))

    @cached_property
    def _run_when_run(self) -> frozenset[int]:
        """The nodes of the statements of the module's ``__main__`` block that hold no
        block (by id): every run of the module as a program runs them."""
        return _nodes_outside_lambdas(
            statement
            for top in self._body
            if isinstance(top, ast.If) and self._is_main_test(top.test)
            for statement in top.body
            if not hasattr(statement, "body")
        )

    def _note_extension(self, node: ast.Call) -> None:
        """A call that may declare an extension module, with the name it gives the module
        (``declared_extensions``), wherever it is: a ``setup.py``'s function runs at build
        time."""
        called = dotted(node.func)
        if called is None:
            return
        if not may_declare_an_extension(resolve_alias(called, self._aliases) or called):
            return
        keywords = (k.value for k in node.keywords if k.arg == "name")
        named = node.args[0] if node.args else next(keywords, None)
        if isinstance(named, ast.Constant) and isinstance(named.value, str):
            strings = tuple(sorted(_plain_strings(node)))
            self._extension_declarations.add((called, named.value, strings))

    def _import(self, node: ast.Import) -> None:
        if self._runs_on_import(node):
            self._loads.update(alias.name for alias in node.names)
        for alias in node.names:
            if alias.asname is not None:
                self._bind_import(alias.asname, alias.name)
            else:
                head = alias.name.split(".", 1)[0]
                self._bind_import(head, head)
                if self._references and "." in alias.name:  # `import pkg.env` runs pkg/env.py
                    caller = self._function.name if self._function else ""
                    guarded = self._main_guards > 0
                    self._facts.append(Reference(alias.name, caller, main_guard=guarded))

    def _import_from(self, node: ast.ImportFrom) -> None:
        self._add_words((node.module or "",), binds_module_names=True)  # as ``_alias``
        base = absolute_module(self._module, self._is_package, node.level, node.module)
        if self._runs_on_import(node):
            self._loads.add(base)
        for alias in node.names:
            if alias.name == "*":
                self._stars.append(base)
                return
            bound = alias.asname or alias.name
            self._bind_import(bound, f"{base}.{alias.name}" if base else alias.name)

    def _assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if (
            isinstance(node, ast.Assign)
            and len(targets) == 1
            and isinstance(targets[0], ast.Name)
            and not (self._frames and isinstance(self._frames[-1], _Class))
            and _a_device_choice(node.value)
        ):
            value = node.value
            end = (value.end_lineno or value.lineno, value.end_col_offset or 0)
            self._holder = (targets[0].id, (value.lineno, value.col_offset), end)
        self._note_attributes(targets, node.value)
        if node.value is not None and any(map(_names_visible_gpus, targets)):
            self._device_offers.makes_visible(_names_read(node.value))
        owner = self._function.owner if self._function is not None else None
        if (
            self._function is not None
            and node.value is not None
            and any(isinstance(t, ast.Name) and names_the_device(t.id) for t in targets)
        ):
            calls = (part for part in ast.walk(node.value) if isinstance(part, ast.Call))
            self._placed_with.update(id(call) for call in calls)  # `device = pick()`
        elif isinstance(node.value, ast.Call) and any(isinstance(t, ast.Name) for t in targets):
            self._placed_with.add(id(node.value))  # `dev = pick()`: its uses are not followed
        if owner is not None:
            for target in targets:
                name = dotted(target)
                evidence = stored_evidence(name[5:]) if name and name.startswith("self.") else None
                if evidence is not None:
                    owner.stores.add(evidence)
                attribute = dotted(target.value if isinstance(target, ast.Subscript) else target)
                if attribute and attribute.startswith("self.") and node.value is not None:
                    callees = tuple(
                        dotted(part.func) or ""
                        for part in ast.walk(node.value)
                        if isinstance(part, ast.Call)
                    )
                    owner.stored.append((attribute[5:], callees))
                kept = name is not None and name.startswith("self.") and names_the_device(name[5:])
                if kept and node.value is not None:
                    calls = (part for part in ast.walk(node.value) if isinstance(part, ast.Call))
                    self._kept_as_device.update(id(call) for call in calls)
                method = stored_method(name, dotted(node.value) if node.value else None)
                if method is not None and self._function is not None:
                    self._function.bound.add(method)
        if self._frames or not isinstance(node, ast.Assign):
            return
        if any(dotted(target) == "__all__" for target in targets):  # `__all__ = names = [...]`
            self._exports = exports_after(None, _literal_strings(node.value), added=False)
        bound = assigned_alias(targets, node.value, dotted, self._aliases)
        if bound is not None:
            self._aliases[bound[0]] = bound[1]
            self.assigned_aliases.append(bound)

    def _note_attributes(self, targets: Sequence[ast.expr], value: ast.expr | None) -> None:
        """What attributes are assigned (``FileFacts.assigned_attributes``); a call that
        spells gloo keeps its attribute for its ``GlooCall`` instead."""
        none = value is None or (isinstance(value, ast.Constant) and value.value is None)
        starts = self._function is None or self._function.name.endswith(".__init__")
        if none and not starts:
            return
        spells_gloo = isinstance(value, ast.Call) and any(_gloo_slots(value))
        for target in targets:
            for part in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                key = self._attribute_key(part)
                if key is None:
                    continue
                if spells_gloo and part is target:
                    self._stored_calls[id(value)] = key
                else:
                    self._assigned_attributes.add(key)

    def _attribute_key(self, target: ast.expr) -> str | None:
        """``attribute_key`` of an assignment's target: an attribute, or a field of the
        class body it is in (None: neither)."""
        if isinstance(target, ast.Attribute):
            owner = self._function.owner if self._function is not None else None
            on_self = isinstance(target.value, ast.Name) and target.value.id == "self"
            return attribute_key(target.attr, owner.name if owner and on_self else None)
        if isinstance(target, ast.Name) and isinstance(self._frame, _Class):
            return attribute_key(target.id, self._frame.name)
        return None

    def _note_process_groups(self, node: ast.Call, name: str, function: _Function) -> None:
        """A call spelling gloo (``GlooCall``), and a backend handed on from a parameter of
        ``function`` to a call making a process group (``BackendParameter``)."""
        for slot in _gloo_slots(node):
            attribute = self._stored_calls.get(id(node), "")
            self._gloo_calls.append(GlooCall(name, slot, attribute))
        position = PROCESS_GROUP_INITS.get(resolve_alias(name, self._aliases) or name)
        if position is None:
            return
        named = [k.value for k in node.keywords if k.arg == "backend"]
        chosen = named or node.args[position : position + 1]
        backend = chosen[0] if chosen else None
        handed = backend_parameter(
            function.name,
            function.parameters,
            function.keyword_only,
            function.owner is not None,
            backend.id if isinstance(backend, ast.Name) else None,
        )
        if handed is not None:
            self._backend_parameters.append(handed)

    def _added_exports(self, node: ast.AugAssign) -> None:
        """``__all__ += [...]`` at module level (see ``FileFacts.exports``)."""
        if not self._frames and dotted(node.target) == "__all__":
            added = _literal_strings(node.value) if isinstance(node.op, ast.Add) else None
            self._exports = exports_after(self._exports, added, added=True)

    def _mark_told_move(self, node: ast.Call) -> None:
        """A move to a told device (``moves_to_a_told_device``) joins ``_told_moves``, with
        each call of the chain it moves (``Net(c).eval()`` in ``Net(c).eval().to(d)``)."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        first = node.args[:1] if node.args and not isinstance(node.args[0], ast.Starred) else []
        arguments = first + [k.value for k in node.keywords if k.arg == "device"]
        if not moves_to_a_told_device(
            func.attr,
            arguments,
            lambda arg: isinstance(arg, ast.Constant) and isinstance(arg.value, str),
        ):
            return
        self._told_moves.add(id(node))
        self._told_moves.update(moved_calls(func.value, ast.Call, ast.Attribute))

    def _mark_placed_arguments(self, node: ast.Call) -> None:
        """The calls ``node`` places with (``placed_arguments``) join ``_placed_with``."""
        attribute = node.func.attr if isinstance(node.func, ast.Attribute) else None
        first = node.args[:1] if node.args and not isinstance(node.args[0], ast.Starred) else []
        keywords = [k.value for k in node.keywords if k.arg in PLACING_KEYWORDS]
        for arg in placed_arguments(attribute, first, keywords):
            if isinstance(arg, ast.Call):
                self._placed_with.add(id(arg))

    def _bound_method(self, node: ast.Call) -> str | None:
        first = node.args[0] if node.args else None
        if first is None or isinstance(first, ast.Starred):
            return None
        return bound_method(dotted(node.func), dotted(first), self._aliases)

    def _call(self, node: ast.Call) -> None:
        self._note_devices(node)
        self._note_extension(node)
        self._note_workers(node)
        if self._function is not None:
            owner = self._function.owner
            if owner is not None and _calls_an_init(self._function.name, node.func):
                owner.init_calls_init = True
                if id(node) in self._function.step_calls:
                    self._function.steps.add(BASE_INIT_STEP)
            self._mark_placed_arguments(node)
            self._mark_told_move(node)
            name = dotted(node.func)
            if name is None:
                return
            local = resolve_alias(name, self._function.imported)
            if local is not None:  # the function's own import of the name: the one in force here
                name = local
                self._function.resolved.add(local)
            named = node.args[1] if name == "setattr" and len(node.args) > 1 else None
            if isinstance(named, ast.Constant) and isinstance(named.value, str):
                self._assigned_attributes.add(attribute_key(named.value, None))
            if owner is not None and name == "setattr" and node.args:
                target = dotted(node.args[0])
                if target is not None and target.startswith("self"):
                    owner.stored.append((target, (name,)))  # an attribute named at run time
            self._note_process_groups(node, name, self._function)
            if id(node) in self._function.step_calls:
                self._function.steps.add(name)
            if name.startswith("self.") and name.count(".") == 1:
                self._function.self_calls.add(name[5:])
            else:
                self._function.calls.add(name)
            method = self._bound_method(node)
            if method is not None:
                self._function.bound.add(method)
            if name.rpartition(".")[2] in WEIGHT_APPLIERS:
                for arg in node.args:
                    method = self._bound_method(arg) if isinstance(arg, ast.Call) else None
                    if method is not None:
                        self._function.applied.add(method)
            keywords = tuple(sorted(k.arg for k in node.keywords if k.arg is not None))
            positional = sum(1 for a in node.args if not isinstance(a, ast.Starred))
            unpacks = len(node.args) != positional or any(k.arg is None for k in node.keywords)
            kept = id(node) in self._kept_as_device
            places = kept or id(node) in self._placed_with
            told = id(node) in self._told_moves
            shape = CallShape(name, positional, keywords, unpacks, kept, places, told)
            self._function.call_shapes.add(shape)
            return
        called = dotted(node.func)
        if called is not None:
            self._top_level_calls.add(called)
            if may_compile(called) and id(node) in self._run_on_import:
                sources = kernel_source_types(_plain_strings(node))
                self._kernel_builds.update((called, kind) for kind in sources)
        if not self._references:
            return
        # Module-level code: the call, and the functions it hands over, are references.
        values = [node.func]
        values += [arg.value if isinstance(arg, ast.Starred) else arg for arg in node.args]
        values += [keyword.value for keyword in node.keywords]
        guarded = self._main_guards > 0
        for value in values:
            name = dotted(value)
            if name is None:
                continue
            callee = resolve_alias(name, self._aliases)
            if callee is None:
                if "." in name:
                    continue
                callee = f"{self._module}.{name}"
            if (callee, guarded) not in self._seen_references:
                self._seen_references.add((callee, guarded))
                self._facts.append(Reference(callee, main_guard=guarded))

    def _under_a_branch(self, node: ast.expr) -> bool:
        """The node is in the body or the ``else`` of an ``if`` (as the traversal's)."""
        at = (node.lineno, node.col_offset)
        return any(start <= at < end for start, end in self._branches)

    def _formatted(self, node: ast.JoinedStr) -> None:
        self._formatted_text.update(id(value) for value in node.values)

    def _enter_if(self, node: ast.If) -> None:
        test_end = (node.test.end_lineno or node.test.lineno, node.test.end_col_offset or 0)
        self._branches.append(
            (test_end, (node.end_lineno or node.lineno, node.end_col_offset or 0))
        )
        self._note_no_offer(node)

    def _note_no_offer(self, node: ast.Assert | ast.If) -> None:
        """A question which devices exist that offers no other device: ``assert
        torch.cuda.is_available()`` demands the GPU, as does ``if not
        torch.cuda.is_available(): raise ...`` (``_stops``), a statement of a module's, a
        function's or a ``__main__`` block's own body (not under a ``try`` that may catch
        it), asking nothing else; ``if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)`` only sets the GPU up (``_only_sets_up_the_gpu``)
        (as the traversal's)."""
        if isinstance(node, ast.Assert) or (
            not node.orelse
            and _asks_which_devices_exist(node.test)
            and (
                _only_sets_up_the_gpu(node.body) or (id(node) in self._steps and _stops(node.body))
            )
        ):
            self._device_offers.exempt.update(map(id, ast.walk(node.test)))

    def _note_workers(self, node: ast.Call) -> None:
        """Whether the call may give a data loader worker processes (``may_start_workers``)."""
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        given = [k.value for k in node.keywords if k.arg is not None and names_workers(k.arg)]
        workers = (
            None
            if not given
            else not all(
                type(v) is ast.Constant and type(v.value) is int and v.value == 0 for v in given
            )
        )
        positional = sum(1 for a in node.args if not isinstance(a, ast.Starred))
        unpacks = positional != len(node.args) or any(k.arg is None for k in node.keywords)
        self._builds_loaders = self._builds_loaders or builds_loaders(str(last))
        written = dotted(func)
        if written is not None and may_build_loaders(written):
            self._loader_builders.add(written)
        self._starts_workers = self._starts_workers or may_start_workers(
            last, workers, positional, unpacks
        )

    def _note_devices(self, node: ast.Call) -> None:
        """What the call says of devices other than the current GPU (``DeviceOffers``)."""
        offers = self._device_offers
        self._arguments.update(map(id, node.args))
        self._arguments.update(id(keyword.value) for keyword in node.keywords)
        for keyword in node.keywords:
            if keyword.arg == "map_location":
                offers.exempt.update(map(id, ast.walk(keyword.value)))
        if id(node) in offers.exempt:
            return
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if last is None:
            return
        written = dotted(func)
        if written is not None and makes_a_gpu_current(resolve_alias(written, self._aliases)):
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            offers.exempt.update(id(part) for arg in arguments for part in ast.walk(arg))
            if node.args and not isinstance(node.args[0], ast.Starred):
                offers.makes_current(written, _names_read(node.args[0]))
        literals = self._written_literals(node)
        taken = func.value if isinstance(func, ast.Attribute) else None
        if last in CPU_RESULT_METHODS and isinstance(taken, ast.Call) and self._to_host(taken):
            offers.exempt.add(id(taken.args[0]))  # `x.to("cpu").numpy()`: a tensor's values
        strings = [
            a.value
            for a in node.args
            if type(a) is ast.Constant and type(a.value) is str and self._as_written(a)
        ]
        keywords = [keyword.arg for keyword in node.keywords if keyword.arg is not None]
        keeping = {
            keyword.arg
            for keyword in node.keywords
            if keyword.arg is not None and keeps_the_gpu(keyword.arg, _a_bool(keyword.value))
        }
        method = isinstance(func, ast.Attribute)
        gpus = _process_gpus(node)
        first = dotted(node.args[0]) if node.args else None
        if node.args and isinstance(node.args[0], ast.IfExp) and _a_choice_of_strings(node.args[0]):
            first = LITERAL_CHOICE
        elif node.args and _asks_a_tensors_device(node.args[0]):
            first = A_TENSORS_DEVICE
        runs = ""
        if last in DEFAULT_SETTER_NAMES:  # only a default device's setter asks
            runs = (
                RUNS_ON_IMPORT
                if id(node) in self._run_on_import
                else RUNS_WHEN_RUN
                if id(node) in self._run_when_run
                else ""
            )
        offers.call(
            dotted(func),
            last,
            method,
            literals,
            strings,
            keywords,
            gpus,
            first,
            self._place(node),
            runs=runs,
            switch_stays_on=stays_on(*(_option_word(node, word) for word in ("type", "default"))),
            dest=self._keyword_string(node, "dest"),
            keeping=frozenset(keeping),
            holder=lambda: self._held_by(node),
        )

    def _held_by(self, node: ast.expr) -> str | None:
        """The name whose assigned value ``node`` is in, of a module or a function (a
        statement ``name = value``), where nothing else in the module reads that name
        (``reads_name``) (as the traversal's)."""
        holder = self._holder
        if holder is None or not holder[1] <= (node.lineno, node.col_offset) < holder[2]:
            return None
        read = self._reads.get(holder[0])
        if read is None:
            read = self._reads[holder[0]] = reads_name(self._text, holder[0])
        return None if read else holder[0]

    def _as_written(self, node: ast.expr) -> bool:
        """A string literal that may matter (``may_matter``) is written without escapes, as
        the traversal, which evaluates no other, reads it; anything else passes."""
        value = node.value if isinstance(node, ast.Constant) else None
        if not isinstance(value, str) or not may_matter(value):
            return True
        return "\\" not in self._written(node)

    def _written(self, node: ast.expr) -> str:
        """The node as written: its own span on its line (ast's columns count UTF-8
        bytes), or all its lines where it spans several."""
        if node.lineno == node.end_lineno and node.end_col_offset is not None:
            line = self._lines[node.lineno - 1].encode()
            return line[node.col_offset : node.end_col_offset].decode(errors="replace")
        return "".join(self._lines[node.lineno - 1 : (node.end_lineno or node.lineno)])

    def _keyword_string(self, call: ast.Call, keyword: str) -> str | None:
        """The string the call's ``keyword`` argument gives (``dest="gpu_ids"``), where it
        is a name written without escapes (as the traversal's ``_keyword_string``, which
        evaluates no string written with one)."""
        value = next((k.value for k in call.keywords if k.arg == keyword), None)
        if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
            return None
        written = value.value.isidentifier() and "\\" not in self._written(value)
        return value.value if written else None

    def _written_literals(self, call: ast.Call) -> tuple[object, ...] | None:
        """``_literals``, where a string that may matter written with escapes is none
        (``_as_written``), as the traversal reads it."""
        found = _literals(call)
        return found if found is None or all(map(self._as_written, call.args)) else None

    def _to_host(self, call: ast.Call) -> bool:
        return _takes_to_the_host(call) and self._as_written(call.args[0])

    @cached_property
    def _place_spans(self) -> tuple[list[int], list[tuple[int, str]]]:
        """The first line of each top-level definition (its decorators') and of the
        ``__main__`` block, in order, and each one's last line and place (``_place``)."""
        starts: list[int] = []
        spans: list[tuple[int, str]] = []
        for statement in self._body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                place = statement.name
                first = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
            elif isinstance(statement, ast.If) and self._is_main_test(statement.test):
                place, first = MAIN_GUARD_NAME, statement.lineno
                statement = statement.body[-1]  # its `else:` runs on import
            else:
                continue
            starts.append(first)
            spans.append((statement.end_lineno or statement.lineno, place))
        return starts, spans

    def _place(self, node: ast.expr) -> str:
        """Where ``node`` is, as ``DeviceOffers`` keeps places: the top-level definition or
        the ``__main__`` block it is in, else ``TOP_LEVEL`` (read from its line: asked only
        where something offers a device)."""
        starts, spans = self._place_spans
        at = bisect_right(starts, node.lineno) - 1
        if at < 0 or node.lineno > spans[at][0]:
            return TOP_LEVEL
        return spans[at][1]

    def _is_main_test(self, test: ast.expr) -> bool:
        """``__name__ == "__main__"``, the string a single literal (as the traversal sees it)."""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return False
        if not isinstance(test.ops[0], ast.Eq):
            return False
        sides = [test.left, test.comparators[0]]
        names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
        if len(names) != 1:
            return False  # before the text is split into lines: most tests are no main guard
        strings = [s for s in sides if _single_literal(s, "__main__", self._lines)]
        return len(strings) == 1


_REORDERED: dict[type[object], tuple[str, ...]] = {
    ast.ClassDef: ("body", "bases", "keywords", "decorator_list"),
    ast.ExceptHandler: ("body", "type"),
    ast.match_case: ("pattern", "body", "guard"),
}
"""Child fields in the order the libcst traversal visits their counterparts, where it
differs from ``ast``'s (and ``_Walk._if_children``). (Tables of the module, not of each
walk: a walk that referred to itself would live, with every node it kept, until the
next full garbage collection.)"""


_TOKEN_FIELDS = frozenset({"ctx", "op", "ops"})
"""Fields holding only tokens (``Load``, ``Add``, ``Eq``): no word, fact or screen reads them."""

_SIGNATURE = re.compile(r"\w+\((.*)\)")
_NO_NODE_TYPES = frozenset({"identifier", "string", "int", "constant"})


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of ``kind`` that can hold nodes, in ``ast``'s order. ``ast`` documents
    each class with its ASDL signature, as ``ImportFrom(identifier? module, alias* names,
    int? level)``: fields of the builtin types (``_NO_NODE_TYPES``: ``Constant.value``,
    ``Global.names``...) hold no node. Without a signature every field is kept, which is
    only slower: a value that is no node is skipped when popped."""
    declared: dict[str, str] = {}
    match = _SIGNATURE.fullmatch(kind.__doc__ or "")
    for part in match[1].split(", ") if match else ():
        type_name, _, name = part.partition(" ")
        declared[name] = type_name
    if set(declared) != set(kind._fields):
        declared = {}
    return tuple(
        name
        for name in kind._fields
        if name not in _TOKEN_FIELDS and declared.get(name, "").rstrip("?*") not in _NO_NODE_TYPES
    )


class _Marker(ast.AST):
    """Brackets the body of ``if __name__ == "__main__":`` in the walk."""


_GUARD_OPEN = _Marker()
_GUARD_CLOSE = _Marker()

_ACTIONS: dict[type[object], Callable[[_Walk, Any], None]] = {
    ast.Constant: _Walk._constant,
    ast.Expr: _Walk._expr,
    ast.keyword: _Walk._keyword,
    ast.alias: _Walk._alias,
    ast.Global: _Walk._names,
    ast.Nonlocal: _Walk._names,
    ast.Call: _Walk._call,
    ast.FunctionDef: _Walk._enter_function,
    ast.AsyncFunctionDef: _Walk._enter_function,
    ast.ClassDef: _Walk._enter_class,
    ast.Import: _Walk._import,
    ast.ImportFrom: _Walk._import_from,
    ast.Assign: _Walk._assign,
    ast.AnnAssign: _Walk._assign,
    ast.AugAssign: _Walk._added_exports,
    ast.Assert: _Walk._note_no_offer,
    ast.If: _Walk._enter_if,
    ast.JoinedStr: _Walk._formatted,
    _Marker: _Walk._marker,
    _Leave: _Walk._leave,
}
"""What the walk does on entering a node of each kind, after collecting it and adding
its ``_WORD_FIELD``."""

_FRAMES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_Plan = tuple[
    bool, str | None, Callable[[_Walk, Any], None] | None, Callable[[Any], Iterable[object]] | None
]
"""For a kind of node: whether to collect it, its word field, its action, and what it
pushes on the stack (its children, last first; None for kinds that hold no node)."""


def _plan(kind: type[object], collect: frozenset[type[ast.AST]]) -> _Plan:
    """What the walk does with a node of the kind."""
    return (kind in collect, _WORD_FIELD.get(kind), _ACTIONS.get(kind), _children(kind))


def _children(kind: type[object]) -> Callable[[Any], Iterable[object]] | None:
    """What a node of the kind pushes: its child fields' values, last first (lists and
    Nones as they are), under a ``_LEAVE`` marker for a class or function."""
    if kind is list:
        return reversed
    fields = _REORDERED.get(kind) or (_child_fields(kind) if issubclass(kind, ast.AST) else ())
    if not fields:
        return None  # a Name, Constant, alias, Pass...: nothing to push
    children: Callable[[Any], Iterable[object]] = (
        attrgetter(*reversed(fields)) if len(fields) > 1 else _one_field(fields[0])
    )
    if kind not in _FRAMES:
        return children

    def framed(node: Any) -> tuple[object, ...]:
        return (_LEAVE, *children(node))

    return framed


def _one_field(name: str) -> Callable[[Any], Iterable[object]]:
    """What a node with one child field pushes (``attrgetter``, a C call, serves kinds
    with more; of one field it returns the value bare): a list's items at once."""

    def children(node: Any) -> Iterable[object]:
        value = getattr(node, name)
        return reversed(value) if type(value) is list else (value,)

    return children


@cache
def _plans(collect: frozenset[type[ast.AST]]) -> dict[type[object], _Plan]:
    """The plan of every kind of node, of the lists that fields hold, and of ``_LEAVE``
    (cached: built once per set of kinds to collect; the walk copies it)."""
    kinds: list[type[object]] = [list, _Leave]
    pending: list[type[object]] = [ast.AST]
    while pending:
        kind = pending.pop()
        kinds.append(kind)
        pending += kind.__subclasses__()
    return {kind: _plan(kind, collect) for kind in kinds}


def _single_literal(node: ast.expr, value: str, lines: list[str]) -> bool:
    """A string constant written as one literal (``"a" "b"`` is two, an f-string none)."""
    if not isinstance(node, ast.Constant) or node.value != value:
        return False
    if node.end_lineno != node.lineno or node.end_col_offset is None:
        return False
    code = lines[node.lineno - 1].encode()[node.col_offset : node.end_col_offset].decode()
    body = code.lstrip("rRuUbB")
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    return body.endswith(quote) and quote not in body[len(quote) : len(body) - len(quote)]


@dataclass(frozen=True)
class Skeleton:
    facts: FileFacts
    """The facts the libcst traversal would collect from the file with no rule running."""
    code: str
    """The words rules can read, one per line (see ``_Walk.words``): the prefilter looks
    for triggers here, not in the text, where ``"\\x63uda"`` hides a ``"cuda"`` and a
    docstring shows words no rule reads."""
    module_code: str
    """The same, of the code outside every function and class and of every import (an
    import in a function binds a module-wide name for the traversal)."""
    nodes: Mapping[type[ast.AST], Sequence[ast.AST]] = field(default_factory=dict)
    """The nodes of the kinds asked for (``Rule.screen_types``), for the rules' screens."""
    from_ast: bool = True
    """False for raw text taken as its own code (``prefilter.parse_at_once``): no nodes,
    so rules with a screen do not judge it."""
    frames: Mapping[int, _Class | _Function | None] = field(default_factory=dict)
    """The innermost class or (outermost) function of each of ``nodes``, by the node's id:
    what ``scope_of`` answers from."""
    assigned_aliases: Sequence[tuple[str, str]] = ()
    """Every name a module-level assignment binds as an alias, with what it stands for, in
    order: ``facts.aliases`` keeps only the last binding of a name, and code between two
    bindings resolves through the earlier one."""

    def of_type(self, *kinds: type[ast.AST]) -> Iterator[ast.AST]:
        """The nodes of these kinds (each must have been asked for), kind by kind."""
        for kind in kinds:
            yield from self.nodes[kind]

    def scope_of(self, node: ast.AST) -> Scope:
        """The scope the traversal would give a candidate at ``node`` (one of ``nodes``):
        its class, function and method names (what the index reads to place it)."""
        frame = self.frames[id(node)]
        if not isinstance(frame, _Function):
            return Scope(class_name=frame.name if frame is not None else None)
        method = frame.name.rpartition(".")[2] if frame.class_name is not None else None
        return Scope(class_name=frame.class_name, function_name=frame.name, method=method)


def skeleton(
    tree: ast.Module,
    text: str,
    module: str,
    is_package: bool,
    path: str,
    *,
    references: bool,
    collect: Iterable[type[ast.AST]] = (),
    star_bound: Iterable[tuple[str, str]] = (),
) -> Skeleton:
    """``references``: also the References a rule ``records_references`` adds (DEV009).
    ``collect``: the kinds of nodes to keep for the rules' screens. ``star_bound``: the
    names the module's star imports bind (``FileJob.star_bound``)."""
    walk = _Walk(text, module, is_package, references, frozenset(collect), star_bound)
    walk.run(tree)
    return Skeleton(
        walk.facts(path),
        _lines_of(walk.words),
        _lines_of(walk.module_words),
        walk.nodes,
        frames=walk.frames,
        assigned_aliases=tuple(walk.assigned_aliases),
    )


def _gloo_slots(call: ast.Call) -> Iterator[int | str]:
    """The arguments of ``call`` that spell the gloo backend (``gloo_slots``)."""
    arguments = [*enumerate(call.args), *((k.arg, k.value) for k in call.keywords)]
    return gloo_slots(
        (slot, arg.value if isinstance(arg, ast.Constant) else None) for slot, arg in arguments
    )


def _nodes_outside_lambdas(statements: Iterable[ast.AST]) -> frozenset[int]:
    """The nodes of ``statements`` (by id), but those in a lambda, which runs only when
    called."""
    stack: list[ast.AST] = list(statements)
    found: set[int] = set()
    while stack:
        current = stack.pop()
        if not isinstance(current, ast.Lambda):
            found.add(id(current))
            stack.extend(ast.iter_child_nodes(current))
    return frozenset(found)


def _names_read(value: ast.expr) -> Iterator[tuple[str, bool]]:
    """The names and attribute names ``value`` reads (``str(args.gpu)``: ``gpu`` too), each
    with whether it is an attribute read as a value (``args.gpu``; not ``",".join``, a
    method called); none where it chooses (``"" if args.cpu else args.gpu``: ``cpu`` still
    offers the CPU)."""
    parts = list(ast.walk(value))
    if any(isinstance(part, (ast.IfExp, ast.BoolOp, ast.Compare)) for part in parts):
        return
    called = {id(part.func) for part in parts if isinstance(part, ast.Call)}
    for part in parts:
        if isinstance(part, ast.Attribute):
            yield part.attr, id(part) not in called
        elif isinstance(part, ast.Name):
            yield part.id, False


def _names_visible_gpus(target: ast.expr) -> bool:
    """``os.environ["CUDA_VISIBLE_DEVICES"]`` (as the traversal's ``_names_visible_gpus``)."""
    return (
        isinstance(target, ast.Subscript)
        and dotted(target.value) in ENVIRONMENT_NAMES
        and isinstance(target.slice, ast.Constant)
        and target.slice.value == VISIBLE_GPUS
    )


def _process_gpus(call: ast.Call) -> list[object]:
    """The GPUs the call pins one process's model to (``DDP_DEVICE_KEYWORDS``:
    ``device_ids=[gpu]`` of DDP, ``device_id=`` of FSDP): an ``int`` literal's value, else
    ``NOT_A_LITERAL``. A ``device_ids`` of several GPUs (``range(n)``: ``DataParallel``)
    makes each replica's GPU current as it runs."""
    found: list[object] = []
    for keyword in call.keywords:
        if keyword.arg not in DDP_DEVICE_KEYWORDS:
            continue
        value = keyword.value
        if isinstance(value, (ast.List, ast.Tuple)):
            if len(value.elts) != 1:
                continue  # several GPUs (or none): each replica's is made current
            value = value.elts[0]
        elif keyword.arg == "device_ids":
            continue  # `range(n)`, a list built elsewhere: as several
        literal = isinstance(value, ast.Constant) and type(value.value) is int
        found.append(value.value if isinstance(value, ast.Constant) and literal else NOT_A_LITERAL)
    return found


def _takes_to_the_host(call: ast.Call) -> bool:
    """``x.to("cpu")``, its value then read (``.numpy()``, ``.tolist()``): not a device to
    compute on."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "to"
        and _literals(call) == ("cpu",)
        and not call.keywords
    )


def _literals(call: ast.Call) -> tuple[object, ...] | None:
    """The call's positional arguments, each an ``int`` or ``str`` literal; None when one is
    not, or a ``device``, ``type`` or ``index`` keyword names the device instead."""
    if any(keyword.arg in DEVICE_KEYWORDS for keyword in call.keywords):
        return None
    values = []
    for arg in call.args:
        if type(arg) is not ast.Constant or type(arg.value) not in (int, str):
            return None
        values.append(arg.value)
    return tuple(values)


def _literal_strings(node: ast.expr) -> list[object] | None:
    """The values of a list or tuple literal of constants (None: not such a literal)."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    if not all(isinstance(element, ast.Constant) for element in node.elts):
        return None
    return [element.value for element in node.elts if isinstance(element, ast.Constant)]


def _lines_of(words: list[str]) -> str:
    """One word per line, each line ended: ``"\\nload\\n"`` finds the whole word ``load``."""
    return "\n" + "\n".join(words) + "\n"


def _option_word(call: ast.Call, keyword: str) -> str | None:
    """The value of the call's ``keyword`` argument as a dotted name (``True`` too)."""
    value = next((k.value for k in call.keywords if k.arg == keyword), None)
    if isinstance(value, ast.Constant) and value.value is True:
        return "True"
    return dotted(value) if value is not None else None
