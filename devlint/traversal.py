"""The one traversal of a parsed file: collects FileFacts and feeds every rule.

libcst's own ``visit`` rebuilds every node on the way back up; a linter only
reads, so this module walks the node fields directly with an explicit stack
(no recursion limit for deeply nested expressions). Positions are computed only
when the file produced candidates, and only for the defs and classes holding them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import libcst as cst
from libcst._position import CodePosition
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from devlint.candidates import Candidate, Needed, Requirement, Scope
from devlint.default_branches import skipped_by_defaults
from devlint.facts import (
    BASE_INIT_STEP,
    MAIN_GUARD_NAME,
    WEIGHT_APPLIERS,
    BackendParameter,
    CallShape,
    Fact,
    FileFacts,
    GlooCall,
    ResultHanded,
    ResultMeets,
    ResultsMeeting,
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
    tensor_annotation,
)
from devlint.findings import Edit, Location
from devlint.flow.cache import FileFlows
from devlint.flow.inference import FunctionFlow
from devlint.flow.meetings import Handoff, Meeting
from devlint.flow.summary import summarise
from devlint.loader_workers import (
    builds_loaders,
    may_build_loaders,
    may_start_workers,
    names_workers,
)
from devlint.nodes import (
    annotation_names,
    asks_a_tensors_device,
    asks_which_devices_exist,
    child_fields,
    descendants,
    dotted_name,
    first_positional,
    has_self,
    is_main_test,
    is_none,
    is_self,
    iter_children,
    keyword_argument,
    names_a_device,
    names_the_cpu,
    push_children,
    required_parameters,
    statement_assignments,
    tested_as_a_gpu_tensor,
    untyped_parameters,
)
from devlint.other_devices import (
    A_TENSORS_DEVICE,
    DEFAULT_SETTER_NAMES,
    DEVICE_CALL_NAMES,
    DEVICE_KEYWORDS,
    ENVIRONMENT_NAMES,
    LITERAL_CHOICE,
    NOT_A_LITERAL,
    OTHER_DEVICE_TYPES,
    RUNS_ON_IMPORT,
    RUNS_WHEN_RUN,
    TOP_LEVEL,
    VISIBLE_GPUS,
    DeviceOffers,
    keeps_the_gpu,
    makes_a_gpu_current,
    stays_on,
)
from devlint.rules.base import PendingEdit, Rule, RuleSettings
from devlint.source import LINE_BREAK, split_lines
from devlint.symbols import (
    CPU_RESULT_METHODS,
    DDP_DEVICE_KEYWORDS,
    DEVICE_PREDICATES,
    GPU_SETTING_OWNERS,
    GPU_SETTINGS,
    PLACING_KEYWORDS,
    PROCESS_GROUP_INITS,
    PROGRAM_EXITS,
    TENSOR_PARAMETER_NAMES,
)

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)


def _mentions_availability_check(test: cst.CSTNode, *, tensor_predicates: bool = True) -> bool:
    """The test asks which devices exist (or where a tensor is): the branch is deliberate."""
    stack = [test]
    while stack:
        node = stack.pop()
        if asks_which_devices_exist(node):
            return True
        if isinstance(node, cst.Attribute):
            if not tensor_predicates:
                stack.extend(iter_children(node))
                continue
            if node.attr.value in DEVICE_PREDICATES:
                return True
            if node.attr.value == "device" and _compared_with_an_accelerator(node, test):
                return True  # x.device == torch.device("cuda"): x.is_cuda spelled out
            inner = node.value
            device_type = isinstance(inner, cst.Attribute) and inner.attr.value == "device"
            if node.attr.value in ("type", "index") and device_type:
                return True  # x.device.type == "mps", x.device.index != current_device()
        if tensor_predicates and _compares_a_values_device(node):
            return True  # get_device(layer) == CPU: x.device asked through a helper
        if tensor_predicates and tested_as_a_gpu_tensor(node, dotted_name) is not None:
            return True  # isinstance(x, torch.cuda.FloatTensor): x.is_cuda, the old way
        stack.extend(iter_children(node))
    return False


_DEVICE_OF_HELPER = re.compile(r"^_?(get|infer|find)_(\w+_)?device$")
"""Helpers that say where a value is (``get_device(model)``, ``infer_module_device(m)``)."""


def _compares_a_values_device(node: cst.CSTNode) -> bool:
    """``get_device(layers[0]) == CPU``: an ``==``/``!=`` with a helper's answer to where its
    argument is on one side, as ``x.device == ...`` asks it."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    if not isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
        return False
    for side in (node.left, node.comparisons[0].comparator):
        if isinstance(side, cst.Call) and side.args:
            func = side.func
            name = func.value if isinstance(func, cst.Name) else None
            if isinstance(func, cst.Attribute):
                name = func.attr.value
            if name is not None and _DEVICE_OF_HELPER.match(name):
                return True
    return False


def _off_an_accelerator(test: cst.BaseExpression) -> bool:
    """``x.device != torch.device("cuda")`` (the whole test): true where ``x`` is anywhere
    but on that accelerator."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    if not isinstance(test.comparisons[0].operator, cst.NotEqual):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return any(
        isinstance(side, cst.Attribute)
        and side.attr.value == "device"
        and _compared_with_an_accelerator(side, test)
        for side in sides
    )


def _compared_with_an_accelerator(device: cst.Attribute, test: cst.CSTNode) -> bool:
    """``device`` (``x.device``) is a side of an ``==``/``!=`` in ``test`` whose other side
    names an accelerator (``torch.device("cuda")``, ``"cuda:0"``)."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            sides = (node.left, node.comparisons[0].comparator)
            compared = isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual))
            if compared and any(side is device for side in sides):
                other = sides[1] if sides[0] is device else sides[0]
                if isinstance(other, cst.Call) and other.args:
                    other = other.args[0].value
                text = other.evaluated_value if isinstance(other, cst.SimpleString) else None
                return isinstance(text, str) and names_a_device(text)
        stack.extend(iter_children(node))
    return False


class _LocalTests:
    """A function's assignments to names (in its branches and loops too, not in functions
    it defines) and the helpers it defines, read once for all its tests
    (``Traversal._asks_through_locals``)."""

    def __init__(self, body: cst.IndentedBlock) -> None:
        self.helpers = {s.name.value: s for s in body.body if isinstance(s, cst.FunctionDef)}
        self.assigned = [
            (small.value, {t.target.value for t in small.targets if isinstance(t.target, cst.Name)})
            for small in statement_assignments(body)
        ]
        """Each assignment's value and the names it binds, in order."""
        self._checks: dict[str, bool] = {}

    def helper_checks(self, name: str) -> bool:
        """Whether the helper ``name`` tests which devices exist (or where tensors are)."""
        found = self._checks.get(name)
        if found is None:
            found = self._checks[name] = _mentions_availability_check(self.helpers[name].body)
        return found


def _names_in(node: cst.CSTNode) -> set[str]:
    """Every bare name in ``node``."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        stack.extend(iter_children(current))
    return found


@dataclass(frozen=True)
class Anchor:
    """The code generated to learn a node's position: the innermost def or class around it.

    Generating only that (not the whole top-level class, often thousands of lines)
    keeps positions cheap; outside any def or class it is the top-level statement.
    """

    node: cst.CSTNode
    indent: tuple[str, ...]
    """The indentation of the blocks around ``node``, so its columns come out right."""
    top: cst.CSTNode
    """The top-level statement holding ``node``: the fallback when its code is not unique."""


def _generate_positions(
    module: cst.Module, node: cst.CSTNode, indent: Sequence[str] = ()
) -> tuple[str, dict[cst.CSTNode, CodeRange]]:
    """Code generation of ``node`` that records where each of its nodes lands.

    Positions start at line 1 of ``node``'s own code, whose first line starts at
    column 0 after ``indent``. This is libcst's PositionProvider without
    MetadataWrapper's extra visit of the whole tree.
    """
    provider = PositionProvider()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
        indent_tokens=list(indent),
    )
    node._codegen(state)
    computed = cast(dict[cst.CSTNode, CodeRange], provider._computed)
    return "".join(state.tokens), computed


class _ShiftedPositions(Mapping[cst.CSTNode, CodeRange]):
    """Positions generated per anchor from its line 1, moved to the anchor's line when read.

    Moving every node of every anchor up front costs a third as much as generating
    them, and the candidates and facts read only a few.
    """

    def __init__(self) -> None:
        self._parts: list[tuple[Mapping[cst.CSTNode, CodeRange], int]] = []

    def add(self, found: Mapping[cst.CSTNode, CodeRange], shift: int) -> None:
        """Add the positions of one anchor, whose first line is ``shift`` lines down."""
        self._parts.append((found, shift))

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        for found, shift in self._parts:
            span = found.get(node)
            if span is not None:
                return CodeRange(
                    CodePosition(span.start.line + shift, span.start.column),
                    CodePosition(span.end.line + shift, span.end.column),
                )
        raise KeyError(node)

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(dict.fromkeys(node for found, _ in self._parts for node in found))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _place_in_text(
    module: cst.Module, text: str, node: cst.CSTNode, indent: Sequence[str]
) -> tuple[dict[cst.CSTNode, CodeRange], int] | None:
    """``node``'s positions from its line 1 and its first line's distance from the file's.

    Code generation is lossless, so the code is in the file's text; found exactly
    once at a line start, that is where it is. None when it is not.
    """
    code, found = _generate_positions(module, node, indent)
    at = text.find(code)
    if at < 0 or text.find(code, at + 1) >= 0 or (at and text[at - 1] not in "\r\n"):
        return None
    return found, len(LINE_BREAK.findall(text, 0, at))


def node_positions(
    module: cst.Module, text: str, anchors: Iterable[Anchor]
) -> Mapping[cst.CSTNode, CodeRange]:
    """Positions of the nodes in some ``anchors`` of ``module``.

    Generating code is the expensive part of positions, so only the anchors that
    hold candidates are generated. One whose code is not unique in the text (a
    method copied into two classes) falls back to its top-level statement, and
    that to the whole module.
    """
    positions = _ShiftedPositions()
    for anchor in anchors:
        placed = _place_in_text(module, text, anchor.node, anchor.indent)
        if placed is None and anchor.top is not anchor.node:
            placed = _place_in_text(module, text, anchor.top, ())
        if placed is None:
            return _generate_positions(module, module)[1]
        positions.add(*placed)
    return positions


def _after_availability_guard(block: cst.IndentedBlock | cst.Module) -> list[cst.CSTNode]:
    """Statements after ``if not torch.cuda.is_available(): return``: a checked region."""
    for position, statement in enumerate(block.body):
        if not isinstance(statement, cst.If) or statement.orelse is not None:
            continue
        body = statement.body.body
        last = body[-1] if body else None
        exits = isinstance(last, cst.SimpleStatementLine) and isinstance(
            last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break)
        )
        # Only "no such device here" guards: after `if x.is_cuda: return ...` the rest of
        # the function still runs on every other device.
        if exits and _mentions_availability_check(statement.test, tensor_predicates=False):
            return list(block.body[position + 1 :])
    return []


def _tensor_param(function: cst.FunctionDef, aliases: Mapping[str, str]) -> str | None:
    """A parameter a fix may take ``.device`` from: annotated as a tensor (not inside
    ``Optional[...]``), or named like one."""
    # A parameter with a default (often None) may not hold a tensor when the fix runs.
    params = [
        param
        for param in (*function.params.posonly_params, *function.params.params)
        if param.default is None
    ]
    for param in params:
        annotation = param.annotation
        if annotation and tensor_annotation(dotted_name(annotation.annotation), aliases):
            return param.name.value
    for param in params:
        if param.annotation is None and param.name.value in TENSOR_PARAMETER_NAMES:
            return param.name.value
    return None


def _takes_inputs(function: cst.FunctionDef, aliases: Mapping[str, str]) -> bool:
    """``FunctionFacts.takes_inputs``, by annotations: a parameter without a default
    annotated as a tensor or a module."""
    return any(
        param.annotation is not None
        and input_annotation(dotted_name(param.annotation.annotation), aliases)
        for param in required_parameters(function)
    )


def _literal_strings(node: cst.BaseExpression) -> list[object] | None:
    """The values of a list or tuple literal of strings (None: not such a literal)."""
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    values: list[object] = []
    for element in node.elements:
        if not isinstance(element, cst.Element) or not isinstance(
            element.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return None
        values.append(element.value.evaluated_value)
    return values


def _a_choice_of_strings(node: cst.BaseExpression) -> bool:
    """As the skeleton's: a conditional whose every outcome is a string literal."""
    if isinstance(node, cst.IfExp):
        return _a_choice_of_strings(node.body) and _a_choice_of_strings(node.orelse)
    if isinstance(node, cst.ConcatenatedString):  # not with an f-string: ast's JoinedStr
        return _a_choice_of_strings(node.left) and _a_choice_of_strings(node.right)
    return isinstance(node, cst.SimpleString)


def _a_device_choice(node: cst.BaseExpression) -> bool:
    """An expression that only names or chooses a device (as the skeleton's)."""
    plain = (cst.BaseString, cst.Name, cst.Attribute, cst.Subscript, cst.BaseNumber, cst.Ellipsis)
    if isinstance(node, plain):
        return True
    if isinstance(node, cst.IfExp):
        return all(map(_a_device_choice, (node.test, node.body, node.orelse)))
    if isinstance(node, cst.BooleanOperation):
        return _a_device_choice(node.left) and _a_device_choice(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _a_device_choice(node.expression)
    if isinstance(node, cst.Comparison):
        return _a_device_choice(node.left) and all(
            _a_device_choice(target.comparator) for target in node.comparisons
        )
    if isinstance(node, cst.Call):
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        return (
            last in DEVICE_CALL_NAMES
            and not any(arg.star for arg in node.args)
            and all(_a_device_choice(arg.value) for arg in node.args)
        )
    return False


def _plain_strings(node: cst.CSTNode) -> Iterator[str]:
    """The values of the string literals in ``node`` as ``ast`` reads them (the skeleton's
    ``_plain_strings``): ``"a" "b"`` whole, none in an f-string."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.SimpleString, cst.ConcatenatedString)):
            value = current.evaluated_value
            if isinstance(value, str):
                yield value
        elif not isinstance(current, cst.FormattedString):
            stack.extend(iter_children(current))


def _class_node(ancestors: Sequence[cst.CSTNode]) -> cst.ClassDef | None:
    """The innermost class definition around the node being entered."""
    return next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)


def _defines_device(node: cst.ClassDef) -> bool:
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "device":
            return _returns_a_value(statement)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets: Sequence[cst.BaseExpression] = ()
                if isinstance(small, cst.Assign):
                    targets = [target.target for target in small.targets]
                elif isinstance(small, cst.AnnAssign):
                    targets = [small.target]
                if any(isinstance(t, cst.Name) and t.value == "device" for t in targets):
                    return True
    return False


def _device_on_cpu(node: cst.ClassDef) -> bool:
    """``ClassFacts.device_on_cpu``: its ``device`` method returns only the CPU."""
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "device":
            returned = _values_returned(statement)
            return bool(returned) and all(names_the_cpu(found) for found in returned)
    return False


def _refused(node: cst.ClassDef) -> list[str]:
    """The classes the class's own ``__setattr__`` refuses: the ``X`` of each ``if
    isinstance(value, X): raise ...`` in it (``X`` also one of a tuple, the test also one
    operand of ``and``)."""
    found: list[str] = []
    for statement in node.body.body:
        if not (isinstance(statement, cst.FunctionDef) and statement.name.value == "__setattr__"):
            continue
        stack: list[cst.CSTNode] = [statement.body]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.If) and _raises(current.body):
                found.extend(_tested_classes(current.test))
            if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                stack.extend(current.children)
    return found


def _small_statements(body: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements of the block itself (not of blocks nested in it)."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from line.body


def _raises(body: cst.BaseSuite) -> bool:
    return any(isinstance(small, cst.Raise) for small in _small_statements(body))


def _asks_which_devices_exist(test: cst.BaseExpression) -> bool:
    """``torch.cuda.is_available()`` or ``not`` it, and nothing else (as the skeleton's)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    return isinstance(test, cst.Call) and asks_which_devices_exist(test.func)


def _stops(body: cst.BaseSuite) -> bool:
    """The block raises or ends the program (``PROGRAM_EXITS``) as one of its statements
    (as the skeleton's ``_stops``)."""
    return _raises(body) or any(
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and dotted_name(small.value.func) in PROGRAM_EXITS
        for small in _small_statements(body)
    )


def _only_sets_up_the_gpu(body: cst.BaseSuite) -> bool:
    """Every statement of the block calls a setting of the GPU (``GPU_SETTINGS``) or
    assigns one (``cudnn.benchmark = True``): it places no tensor (as the skeleton's)."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    if not all(
        isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) for line in lines
    ):
        return False
    return all(
        (
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Call)
            and dotted_name(small.value.func) in GPU_SETTINGS
        )
        or (
            isinstance(small, cst.Assign)
            and all(
                isinstance(t.target, cst.Attribute)
                and dotted_name(t.target.value) in GPU_SETTING_OWNERS
                for t in small.targets
            )
        )
        for small in _small_statements(body)
    )


def _tested_classes(test: cst.BaseExpression) -> Iterator[str]:
    """``X`` of ``isinstance(v, X)`` (each of ``(X, Y)``), alone or an operand of ``and``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _tested_classes(test.left)
        yield from _tested_classes(test.right)
        return
    if not (isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance"):
        return
    if len(test.args) != 2:
        return
    tested = test.args[1].value
    kinds = [e.value for e in tested.elements] if isinstance(tested, cst.Tuple) else [tested]
    yield from (name for kind in kinds if (name := dotted_name(kind)) is not None)


def _returns_a_value(function: cst.FunctionDef) -> bool:
    """A ``return <value>`` of the function itself (``def device(self): next(...).device``
    without one gives None: no device to take)."""
    return bool(_values_returned(function))


def _values_returned(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """What the function's own ``return <value>`` statements give."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return) and node.value is not None:
            found.append(node.value)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(node.children)
    return found


def _calls_an_init(caller: str, func: cst.BaseExpression) -> bool:
    """``super().__init__(...)`` or ``Base.__init__(self, ...)`` inside ``__init__``."""
    return (
        caller.endswith(".__init__")
        and isinstance(func, cst.Attribute)
        and func.attr.value == "__init__"
    )


@dataclass
class _Class:
    name: str
    raw_bases: list[str]
    defines_device: bool
    device_on_cpu: bool
    scope: Scope
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
    scope: Scope
    owner: _Class | None
    """The class it is a method of."""
    calls: set[str] = field(default_factory=set)
    self_calls: set[str] = field(default_factory=set)
    bound: set[str] = field(default_factory=set)
    """Methods bound by ``partial(self.<method>, ...)``; ``applied``: those handed to
    ``apply`` (``FunctionFacts.bound_methods`` is the difference)."""
    applied: set[str] = field(default_factory=set)
    call_shapes: set[CallShape] = field(default_factory=set)
    imported: dict[str, str] = field(default_factory=dict)
    """What its own imports bind so far (name -> qualified name)."""
    resolved: set[str] = field(default_factory=set)
    """``function_facts``'s: calls resolved through ``imported`` as the walk met them."""
    takes_inputs: bool = False
    """``FunctionFacts.takes_inputs``."""
    node: cst.FunctionDef | None = None
    owner_node: cst.ClassDef | None = None
    step_calls: frozenset[int] = frozenset()
    """The calls (by id) that are whole statements of its body (``FunctionFacts.steps``)."""
    steps: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _RawCandidate:
    code: str
    node: cst.CSTNode
    end_node: cst.CSTNode
    scope: Scope
    data: Mapping[str, str]
    fixes: Mapping[str, tuple[PendingEdit, ...]]
    unless_noted: Sequence[tuple[str, str]]
    lines: Mapping[str, cst.CSTNode]
    anchor: Anchor
    needs: tuple[Requirement, ...] = ()
    provided: tuple[Requirement, ...] = ()


@dataclass(frozen=True)
class TraversalResult:
    facts: FileFacts
    candidates: tuple[Candidate, ...]
    results_meeting: ResultsMeeting | None = None


class Traversal:
    """Walks one module once, keeping track of scope, imports and rule callbacks.

    It implements ``devlint.rules.base.FileContext`` for the rules it calls.
    """

    def __init__(
        self,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        rules: Sequence[Rule],
        *,
        text: str | None = None,
        path: str = "",
        settings: RuleSettings | None = None,
        star_bound: Iterable[tuple[str, str]] = (),
    ) -> None:
        """``star_bound``: the names the module's star imports bind (``FileJob.star_bound``)."""
        self._module = module
        self._text = module.code if text is None else text
        """The source the module was parsed from (generating it again costs a lot)."""
        self._module_name = module_name
        self._is_package = is_package
        self._path = path
        self._settings = settings or RuleSettings()
        self._rule_state: dict[str, dict[str, object]] = {}
        self._facts_found: list[tuple[Fact, cst.CSTNode | None, Anchor]] = []
        """Facts, the node giving each its line, and that node's anchor."""
        self._gloo_calls: list[GlooCall] = []
        self._backend_parameters: list[BackendParameter] = []
        self._assigned_attributes: set[str] = set()
        self._stored_calls: dict[int, str] = {}
        """The calls whose result is assigned to an attribute: that attribute (by id)."""
        self._anchors = [Anchor(module, (), module)]
        """The top-level statement being walked, then the defs and classes inside it."""
        self._dispatch: dict[type[cst.CSTNode], list[Rule]] = {}
        for rule in rules:
            for type_name in rule.node_types:
                self._dispatch.setdefault(getattr(cst, type_name), []).append(rule)
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
        self._exports: tuple[str, ...] | None = None
        self._classes: list[_Class] = []
        self._functions: list[_Function] = []
        self._scopes: list[_Class | _Function | None] = []
        """Enclosing class and function frames; None for a nested function."""
        self._function: _Function | None = None
        self._kept_as_device: set[int] = set()
        """The calls in values assigned to the device an object keeps (by id)."""
        self._placed_with: set[int] = set()
        """The calls whose value is used as a device (``CallShape.places``, by id)."""
        self._told_moves: set[int] = set()
        """The calls that move to a device they are told, or whose value is moved so at
        once (``CallShape.told_move``, by id)."""
        self._scope = Scope()
        self._checked: set[int] = set()
        """Nodes that open an explicitly checked region (``if torch.cuda.is_available()``)."""
        self._checked_depth = 0
        self._ancestors: list[cst.CSTNode] = []
        self._marks: dict[int, set[str]] = {}
        self._notes: set[tuple[str | None, str, str]] = set()
        self._raw: list[_RawCandidate] = []
        self._reads: dict[str, bool] = {}
        """``reads_name``'s answers, by name."""
        self._skipped: dict[int, list[tuple[cst.CSTNode, str]]] = {}
        """``skipped_by_defaults`` of each function (by its node's id) a rule reports in,
        where the file calls it only directly (``_only_called``)."""
        self._local_tests: dict[int, _LocalTests] = {}
        """What ``_asks_through_locals`` reads of each function, by the function's id: a
        function with many ``if``s would be read again for each."""
        self._flows = FileFlows(lambda: self._module, self.qualified_name, self._text)
        self._device_offers = DeviceOffers()
        self._main_block = False
        self._starts_workers = False
        self._builds_loaders = False
        self._loader_builders: set[str] = set()

    # FileContext -------------------------------------------------------------

    @property
    def settings(self) -> RuleSettings:
        return self._settings

    @property
    def module_name(self) -> str:
        return self._module_name

    @property
    def source(self) -> str:
        return self._text

    @property
    def scope(self) -> Scope:
        return self._scope

    def add_fact(self, fact: Fact, node: cst.CSTNode | None = None) -> None:
        self._facts_found.append((fact, node, self._anchors[-1]))

    def state(self, rule: Rule) -> dict[str, object]:
        return self._rule_state.setdefault(rule.code, {})

    @property
    def in_checked_branch(self) -> bool:
        return self._checked_depth > 0

    @property
    def ancestors(self) -> Sequence[cst.CSTNode]:
        return self._ancestors

    def qualified_name(self, node: cst.BaseExpression) -> str | None:
        dotted = dotted_name(node)
        return None if dotted is None else resolve_alias(dotted, self._aliases)

    def annotates_tensor(self, annotation: cst.BaseExpression) -> bool:
        return any(tensor_annotation(name, self._aliases) for name in annotation_names(annotation))

    def flow(self) -> FunctionFlow | None:
        found = self._innermost_function()
        return self._flows.function(*found) if found is not None else None

    def meetings_of(self, made: cst.CSTNode) -> tuple[Meeting, ...]:
        found = self._innermost_function()
        return self._flows.meetings_of(made, *found) if found is not None else ()

    def meets_only_by_callers_elsewhere(self, made: cst.CSTNode) -> str | None:
        frames = [a for a in self._ancestors if isinstance(a, (cst.FunctionDef, cst.ClassDef))]
        function = frames[0] if len(frames) == 1 else None
        top_level = len(self._ancestors) > 1 and self._ancestors[1] is function
        if not isinstance(function, cst.FunctionDef) or not top_level:
            return None
        if function.name.value.startswith("_"):
            return None
        if not self._flows.meets_only_by_callers_elsewhere(made, function):
            return None
        return f"{self.module_name}.{function.name.value}"

    def meetings_with_cpu_inputs(self, made: cst.CSTNode) -> tuple[Meeting, ...]:
        found = self._innermost_function()
        if found is None:
            return ()
        return self._flows.meetings_with_cpu_inputs(made, *found)

    def construction_meetings(
        self, built: cst.BaseExpression, runs_with_batch: Callable[[str], bool]
    ) -> tuple[Meeting, ...]:
        found = self._innermost_function()
        if found is None or found[1] is None:
            return ()
        return self._flows.construction_meetings(built, found[1], runs_with_batch)

    def construction_handoffs(
        self, built: cst.BaseExpression, runs_with_batch: Callable[[str], bool]
    ) -> tuple[tuple[Handoff, FunctionFlow], ...]:
        found = self._innermost_function()
        if found is None or found[1] is None:
            return ()
        return self._flows.construction_handoffs(built, found[1], runs_with_batch)

    def _innermost_function(self) -> tuple[cst.FunctionDef, cst.ClassDef | None] | None:
        """The innermost function around the visited node, and its class if a method."""
        ancestors = self._ancestors
        for position in range(len(ancestors) - 1, -1, -1):
            function = ancestors[position]
            if isinstance(function, cst.FunctionDef):
                owner = ancestors[position - 2] if position >= 2 else None
                return function, owner if isinstance(owner, cst.ClassDef) else None
        return None

    def code_for(self, node: cst.CSTNode) -> str:
        return self._module.code_for_node(node)

    def mark(self, node: cst.CSTNode, tag: str) -> None:
        self._marks.setdefault(id(node), set()).add(tag)

    def marks(self, node: cst.CSTNode) -> frozenset[str]:
        return frozenset(self._marks.get(id(node), ()))

    def note(self, tag: str, name: str, *, per_class: bool = False, per_file: bool = False) -> None:
        if per_file:
            self._notes.add((_FILE_KEY, tag, name))
        elif not per_class:
            self._notes.add((self._scope.function_name, tag, name))
        elif self._scope.class_name is not None:
            self._notes.add((_class_key(self._scope.class_name), tag, name))

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        *,
        end: cst.CSTNode | None = None,
        data: Mapping[str, str] | None = None,
        fixes: Mapping[str, tuple[PendingEdit, ...]] | None = None,
        unless_noted: Sequence[tuple[str, str]] = (),
        lines: Mapping[str, cst.CSTNode] | None = None,
        needs: tuple[Requirement, ...] = (),
        provided: tuple[Requirement, ...] = (),
    ) -> None:
        provided = (*provided, *self._defaults_skipping(node))
        self._raw.append(
            _RawCandidate(
                code,
                node,
                end or node,
                self._scope,
                data or {},
                fixes or {},
                unless_noted,
                lines or {},
                self._anchors[-1],
                needs,
                provided,
            )
        )

    def _defaults_skipping(self, node: cst.CSTNode) -> Iterator[Requirement]:
        """That some call of the function ``node`` is in give a parameter whose default
        skips a branch around it (``default_branches``): else it never runs."""
        function = self._function
        if function is None or function.node is None or function.node.decorators:
            return  # a decorator may give it any argument
        if function.owner is not None and not function.scope.has_self:
            return  # a static or class method: which argument binds what, calls do not say
        skipped = self._skipped.get(id(function.node))
        if skipped is None:
            skipped = list(skipped_by_defaults(function.node))
            name = function.node.name.value
            if skipped and not self._only_called(name, on_self=function.owner is not None):
                skipped = []  # `layer._shift(x, True)`, `partial(self._shift, ...)`: unseen
            self._skipped[id(function.node)] = skipped
        params = function.node.params
        positional = [param.name.value for param in (*params.posonly_params, *params.params)]
        positional = positional[1:] if function.scope.has_self else positional
        for branch, parameter in skipped:
            if any(part is node for part in descendants(branch)):
                position = positional.index(parameter) if parameter in positional else None
                yield Requirement(
                    Needed.PARAMETER_GIVEN, function.name, parameter, position=position
                )

    def _only_called(self, name: str, *, on_self: bool) -> bool:
        """The file writes ``name`` only where it defines it or calls it directly: a
        method on ``self`` (``self._shift(x)``), a function by its name (``shift(x)``); not
        handed on (``partial(self._shift, ...)``) nor called on another object."""
        text = self._text
        for found in re.finditer(rf"\b{re.escape(name)}\b", text):
            before = text[max(0, found.start() - 5) : found.start()]
            if before.endswith("def "):
                continue
            called = re.match(r"[ \t]*\(", text[found.end() :]) is not None
            owner = before == "self." if on_self else not before.endswith(".")
            if not (called and owner):
                return False
        return True

    # The walk ----------------------------------------------------------------

    def run(self) -> TraversalResult:
        # None on the stack means "leave the innermost ancestor": pushed under a node's
        # children, it pops once they are all walked. A leaf is left at once.
        stack: list[cst.CSTNode | None] = [self._module]
        pop = stack.pop
        enter = self._enter
        leave = self._leave
        while stack:
            node = pop()
            if node is None:
                leave()
                continue
            enter(node)
            names = child_fields(type(node))
            if names:
                stack.append(None)
                push_children(node, names, stack)
            else:
                leave()
        self._raw = [raw for raw in self._raw if not self._outweighed(raw)]
        return TraversalResult(self._facts(), self._candidates(), self._results_meeting())

    def _outweighed(self, raw: _RawCandidate) -> bool:
        """A note in the same function (or class) says the candidate is fine after all."""
        owners = [raw.scope.function_name, _FILE_KEY]
        if raw.scope.class_name is not None:
            owners.append(_class_key(raw.scope.class_name))
        return any(
            (owner, tag, name) in self._notes for owner in owners for tag, name in raw.unless_noted
        )

    @cached_property
    def _positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Positions of every node a candidate or fact needs (computed on first use)."""
        anchors = {id(raw.anchor.node): raw.anchor for raw in self._raw}
        anchors.update((id(anchor.node), anchor) for _, node, anchor in self._facts_found if node)
        positions = node_positions(self._module, self._text, anchors.values())
        needed = [node for raw in self._raw for node in _nodes_of(raw)]
        needed += [node for _, node, _ in self._facts_found if node is not None]
        if any(node not in positions for node in needed):
            return _generate_positions(self._module, self._module)[1]
        return positions

    def _enter(self, node: cst.CSTNode) -> None:
        node_type = type(node)
        ancestors = self._ancestors
        if len(ancestors) == 1:
            self._anchors = [Anchor(node, (), node)]
        handler = _HANDLERS.get(node_type)
        if handler is not None:
            handler(self, node)
        if self._checked and id(node) in self._checked:
            self._checked_depth += 1
        rules = self._dispatch.get(node_type)
        if rules is not None:
            for rule in rules:
                rule.visit(node, self)
        ancestors.append(node)

    def _leave(self) -> None:
        """Leave the innermost ancestor: the node entered last whose children are all done."""
        node = self._ancestors.pop()
        node_type = type(node)
        if node_type is cst.ClassDef or node_type is cst.FunctionDef:
            self._anchors.pop()
            self._scopes.pop()
            self._update_scope()
        if self._checked and id(node) in self._checked:
            self._checked_depth -= 1

    def _enter_test(self, node: cst.If | cst.IfExp) -> None:
        if isinstance(node, cst.If):
            self._note_no_offer(node)
        if isinstance(node, cst.If) and is_main_test(node.test):
            self._main_block = True
        if _off_an_accelerator(node.test):
            # `if x.device != torch.device("cuda"): x = x.to("cuda")` imposes the device:
            # only the other branch runs where the tensor is there already.
            if node.orelse is not None:
                self._checked.add(id(node.orelse))
            return
        if _mentions_availability_check(node.test) or self._asks_through_locals(node.test):
            self._checked.add(id(node))

    def _asks_through_locals(self, test: cst.BaseExpression) -> bool:
        """``any_cuda = any(_is_cuda(v) for v in values)`` then ``if any_cuda:``: the test's
        names are set, in the function around it, from a test of which devices exist or
        where tensors are, made there or in a helper the function defines."""
        function = next(
            (n for n in reversed(self._ancestors) if isinstance(n, cst.FunctionDef)), None
        )
        if function is None or not isinstance(function.body, cst.IndentedBlock):
            return False
        local = self._local_tests.get(id(function))
        if local is None:
            local = self._local_tests[id(function)] = _LocalTests(function.body)
        asked = _names_in(test)
        values = [value for value, targets in local.assigned if targets & asked]
        if any(_mentions_availability_check(value) for value in values):
            return True
        return bool(local.helpers) and any(
            local.helper_checks(name)
            for value in (test, *values)
            for name in _names_in(value) & local.helpers.keys()
        )

    def _enter_block(self, node: cst.IndentedBlock | cst.Module) -> None:
        self._checked.update(id(statement) for statement in _after_availability_guard(node))

    def _enter_call(self, node: cst.Call) -> None:
        self._note_devices(node)
        self._note_extension(node)
        self._note_workers(node)
        if self._function is not None:
            self._record_call(node)
            return
        dotted = dotted_name(node.func)
        if dotted is not None:
            self._top_level_calls.add(dotted)
            if may_compile(dotted) and self._runs_on_import():
                sources = kernel_source_types(_plain_strings(node))
                self._kernel_builds.update((dotted, kind) for kind in sources)

    def _note_extension(self, node: cst.Call) -> None:
        """As the skeleton's ``_note_extension``: a call that may declare an extension
        module, with the name it gives the module, wherever it is."""
        called = dotted_name(node.func)
        if called is None:
            return
        if not may_declare_an_extension(resolve_alias(called, self._aliases) or called):
            return
        positional = [a for a in node.args if a.keyword is None]
        keywords = (a for a in node.args if a.keyword is not None and a.keyword.value == "name")
        first = positional[0] if positional else next(keywords, None)
        named = first.value if first is not None and not first.star else None
        strings = (cst.SimpleString, cst.ConcatenatedString)
        value = named.evaluated_value if isinstance(named, strings) else None
        if isinstance(value, str):
            given = tuple(sorted(_plain_strings(node)))
            self._extension_declarations.add((called, value, given))

    def _note_workers(self, node: cst.Call) -> None:
        """Whether the call may give a data loader worker processes (``may_start_workers``)."""
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        given = [
            a.value for a in node.args if a.keyword is not None and names_workers(a.keyword.value)
        ]
        workers = (
            None
            if not given
            else not all(isinstance(v, cst.Integer) and v.evaluated_value == 0 for v in given)
        )
        positional = sum(1 for a in node.args if a.keyword is None and not a.star)
        unpacks = any(a.star for a in node.args)
        self._builds_loaders = self._builds_loaders or builds_loaders(str(last))
        written = dotted_name(func)
        if written is not None and may_build_loaders(written):
            self._loader_builders.add(written)
        self._starts_workers = self._starts_workers or may_start_workers(
            str(last), workers, positional, unpacks
        )

    def _note_devices(self, node: cst.Call) -> None:
        """What the call says of devices other than the current GPU (``DeviceOffers``)."""
        offers = self._device_offers
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "map_location":
                offers.exempt.update(map(id, descendants(arg.value)))
        if id(node) in offers.exempt:
            return
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if not isinstance(last, str):
            return
        written = dotted_name(func)
        if written is not None and makes_a_gpu_current(resolve_alias(written, self._aliases)):
            offers.exempt.update(id(part) for arg in node.args for part in descendants(arg.value))
            if node.args and node.args[0].keyword is None and not node.args[0].star:
                offers.makes_current(written, _names_read(node.args[0].value))
        literals = _literals(node)
        taken = func.value if isinstance(func, cst.Attribute) else None
        to_host = isinstance(taken, cst.Call) and _takes_to_the_host(taken)
        if last in CPU_RESULT_METHODS and isinstance(taken, cst.Call) and to_host:
            offers.exempt.add(id(taken.args[0].value))  # `x.to("cpu").numpy()`: its values
        values = [_literal_value(a.value) for a in node.args if a.keyword is None and not a.star]
        strings = [value for value in values if isinstance(value, str)]
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        keeping = {
            a.keyword.value
            for a in node.args
            if a.keyword is not None and keeps_the_gpu(a.keyword.value, _a_bool(a.value))
        }
        method = isinstance(func, cst.Attribute)
        gpus = _process_gpus(node)
        given = node.args[0] if node.args and node.args[0].keyword is None else None
        first = dotted_name(given.value) if given is not None and not given.star else None
        value = given.value if given is not None and not given.star else None
        if isinstance(value, cst.IfExp) and _a_choice_of_strings(value):
            first = LITERAL_CHOICE
        elif value is not None and asks_a_tensors_device(value):
            first = A_TENSORS_DEVICE
        runs = ""
        if last in DEFAULT_SETTER_NAMES:  # only a default device's setter asks
            runs = (
                RUNS_ON_IMPORT
                if self._runs_on_import()
                else RUNS_WHEN_RUN
                if self._runs_when_run()
                else ""
            )
        offers.call(
            dotted_name(func),
            last,
            method,
            literals,
            strings,
            keywords,
            gpus,
            first,
            self._place(),
            runs=runs,
            switch_stays_on=stays_on(*(_option_word(node, word) for word in ("type", "default"))),
            dest=_keyword_string(node, "dest"),
            keeping=frozenset(keeping),
            holder=lambda: self._held_by(node),
        )

    def _note_no_offer(self, node: cst.Assert | cst.If) -> None:
        """A question which devices exist that offers no other device: ``assert
        torch.cuda.is_available()`` demands the GPU, as does ``if not
        torch.cuda.is_available(): raise ...`` (``_stops``), a statement of a module's, a
        function's or a ``__main__`` block's own body (not under a ``try`` that may catch
        it), asking nothing else; ``if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)`` only sets the GPU up (``_only_sets_up_the_gpu``)
        (as the skeleton's)."""
        if isinstance(node, cst.Assert) or (
            node.orelse is None
            and _asks_which_devices_exist(node.test)
            and (_only_sets_up_the_gpu(node.body) or (self._a_step() and _stops(node.body)))
        ):
            self._device_offers.exempt.update(map(id, descendants(node.test)))

    def _a_step(self) -> bool:
        """The node being entered is a statement of a module's, a function's or a
        ``__main__`` block's own body."""
        ancestors = self._ancestors
        if isinstance(ancestors[-1], cst.Module):
            return True
        if not isinstance(ancestors[-1], cst.IndentedBlock) or len(ancestors) < 2:
            return False
        owner = ancestors[-2]
        return isinstance(owner, cst.FunctionDef) or (
            isinstance(owner, cst.If) and is_main_test(owner.test)
        )

    def _enter_string(self, node: cst.SimpleString | cst.ConcatenatedString) -> None:
        """A string literal, whole (not a part of a concatenation) and not a statement of its
        own (a docstring), as ``ast`` sees one constant."""
        parent = self._ancestors[-1]
        if isinstance(parent, cst.ConcatenatedString) and parent.evaluated_value is not None:
            return  # read whole, as `ast` reads one constant; not beside an f-string
        if isinstance(parent, cst.Expr) or not _may_name_a_device(node):
            return
        value = node.evaluated_value
        if isinstance(value, str) and id(node) not in self._device_offers.exempt:
            an_argument = (
                isinstance(parent, cst.Arg)
                and not parent.star
                and isinstance(self._ancestors[-2], cst.Call)  # not a class's keyword
                and not self._under_a_branch()
            )
            self._device_offers.string(
                value, self._place(), an_argument=an_argument, holder=lambda: self._held_by(node)
            )

    def _under_a_branch(self) -> bool:
        """The node being entered is in the body or the ``else`` of an ``if`` (as the
        skeleton's ``_under_a_branch``)."""
        ancestors = self._ancestors
        return any(
            isinstance(ancestor, cst.If) and ancestors[i + 1] is not ancestor.test
            for i, ancestor in enumerate(ancestors[:-1])
        )

    def _enter_string_text(self, node: cst.FormattedStringText) -> None:
        """The literal text of an f-string (``"cuda:"`` of ``f"cuda:{rank}"``)."""
        if id(node) not in self._device_offers.exempt:
            self._device_offers.string(
                node.value, self._place(), holder=lambda: self._held_by(node)
            )

    def _held_by(self, node: cst.CSTNode) -> str | None:
        """The name whose assigned value ``node`` (being entered) is in, of a module or a
        function (a statement ``name = value``), where nothing else in the module reads that
        name (``reads_name``) (as the skeleton's)."""
        path = [*self._ancestors, node]
        statements = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
        at = next((i for i in range(len(path) - 2, -1, -1) if isinstance(path[i], statements)), 0)
        assign = path[at]
        if not isinstance(assign, cst.Assign) or path[at + 1] is not assign.value:
            return None
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if not isinstance(target, cst.Name) or not _a_device_choice(assign.value):
            return None
        scope = next(
            (p for p in reversed(path[:at]) if isinstance(p, (cst.FunctionDef, cst.ClassDef))),
            None,
        )
        if isinstance(scope, cst.ClassDef):
            return None
        read = self._reads.get(target.value)
        if read is None:
            read = self._reads[target.value] = reads_name(self._text, target.value)
        return None if read else target.value

    def _place(self) -> str:
        """Where the node entered is, as ``DeviceOffers`` keeps places: the top-level
        definition or the ``__main__`` block it is in, else ``TOP_LEVEL``."""
        ancestors = self._ancestors
        top = ancestors[1] if len(ancestors) > 1 else None
        if isinstance(top, (cst.FunctionDef, cst.ClassDef)):
            return top.name.value
        in_body = len(ancestors) > 2 and isinstance(top, cst.If) and ancestors[2] is top.body
        if in_body and isinstance(top, cst.If) and is_main_test(top.test):
            return MAIN_GUARD_NAME  # not its `else:`, which runs on import
        return TOP_LEVEL

    def _runs_on_import(self) -> bool:
        """The node entered runs whenever the module is imported: it is in a statement of
        the module's body, not under ``try``/``if`` or in a definition, nor in a lambda."""
        return not any(
            isinstance(node, (cst.BaseCompoundStatement, cst.Lambda)) for node in self._ancestors
        )

    def _runs_when_run(self) -> bool:
        """The node entered is in a statement of the module's ``__main__`` block that is
        under no other block (as the skeleton's ``_run_when_run``)."""
        ancestors = self._ancestors
        if len(ancestors) < 3:
            return False
        guard, block = ancestors[1], ancestors[2]
        if not (isinstance(guard, cst.If) and is_main_test(guard.test) and block is guard.body):
            return False
        return not any(
            isinstance(node, (cst.BaseCompoundStatement, cst.Lambda)) for node in ancestors[2:]
        )

    def _enter_param(self, node: cst.Param) -> None:
        if node.default is not None:
            # A default is the caller's to override, and `self` does not exist there.
            self._checked.add(id(node.default))

    def _enter_class(self, node: cst.ClassDef) -> None:
        self._enter_anchor(node)
        enclosing = self._innermost_frame()
        prefix = enclosing.name if enclosing else self._module_name
        name = f"{prefix}.{node.name.value}"
        bases = [dotted_name(arg.value) for arg in node.bases if arg.keyword is None]
        frame = _Class(
            name,
            [base for base in bases if base is not None],
            _defines_device(node),
            _device_on_cpu(node),
            Scope(class_name=name),
            refused=_refused(node),
        )
        self._classes.append(frame)
        if not self._scopes:
            self._aliases[node.name.value] = frame.name
        self._scopes.append(frame)
        self._update_scope()

    def _enter_function(self, node: cst.FunctionDef) -> None:
        self._enter_anchor(node)
        if self._function is not None:
            self._scopes.append(None)  # a nested function belongs to its enclosing one
            return
        if not self._scopes:
            self._aliases[node.name.value] = f"{self._module_name}.{node.name.value}"
        owner = self._scopes[-1] if self._scopes else None
        method_of = owner if isinstance(owner, _Class) else None
        prefix = method_of.name if method_of else self._module_name
        name = f"{prefix}.{node.name.value}"
        params = node.params
        frame = _Function(
            name,
            Scope(
                class_name=method_of.name if method_of else None,
                function_name=name,
                method=node.name.value if method_of else None,
                has_self=method_of is not None and has_self(node),
                tensor_param=_tensor_param(node, self._aliases),
                device_param=any(
                    param.name.value == "device"
                    for param in (*params.posonly_params, *params.params, *params.kwonly_params)
                ),
            ),
            method_of,
            takes_inputs=_takes_inputs(node, self._aliases),
            node=node,
            step_calls=_step_calls(node),
            owner_node=_class_node(self._ancestors) if method_of else None,
        )
        if method_of is not None:
            method_of.methods.append(node.name.value)
        self._functions.append(frame)
        self._scopes.append(frame)
        self._update_scope()

    def _enter_anchor(self, node: cst.ClassDef | cst.FunctionDef) -> None:
        """Make ``node`` the anchor, indented as the blocks around it indent their bodies.

        Only an indented block and a ``match`` (for its cases) add indentation in libcst's
        code generation.
        """
        default = self._module.default_indent
        indent = tuple(
            default if block.indent is None else block.indent
            for block in self._ancestors
            if isinstance(block, (cst.IndentedBlock, cst.Match))
        )
        self._anchors.append(Anchor(node, indent, self._anchors[0].top))

    def _innermost_frame(self) -> _Class | _Function | None:
        return next((frame for frame in reversed(self._scopes) if frame is not None), None)

    def _update_scope(self) -> None:
        """Make the innermost class or (outermost) function frame the current scope."""
        frame = self._innermost_frame()
        self._function = frame if isinstance(frame, _Function) else None
        self._scope = frame.scope if frame is not None else Scope()

    def _bind_import(self, name: str, target: str) -> None:
        """An import binds ``name`` in the module, and from here on in the function that
        runs it (``_Function.imported``)."""
        self._aliases[name] = target
        if self._function is not None:
            self._function.imported[name] = target

    def _record_import(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                if self._runs_on_import():
                    self._loads.add(full)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self._bind_import(alias.asname.name.value, full)
                else:
                    head = full.split(".", 1)[0]
                    self._bind_import(head, head)
            return
        target = dotted_name(node.module) if node.module is not None else None
        base = absolute_module(self._module_name, self._is_package, len(node.relative), target)
        if self._runs_on_import():
            self._loads.add(base)
        if isinstance(node.names, cst.ImportStar):
            self._stars.append(base)
            return
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else None
            if name is None:
                continue
            bound = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            self._bind_import(bound, f"{base}.{name}" if base else name)

    def _record_assignment(self, node: cst.Assign | cst.AnnAssign) -> None:
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        self._note_attributes(targets, node.value)
        if node.value is not None and any(map(_names_visible_gpus, targets)):
            self._device_offers.makes_visible(_names_read(node.value))
        owner = self._function.owner if self._function is not None else None
        if (
            self._function is not None
            and node.value is not None
            and any(isinstance(t, cst.Name) and names_the_device(t.value) for t in targets)
        ):
            calls = (part for part in descendants(node.value) if isinstance(part, cst.Call))
            self._placed_with.update(id(call) for call in calls)  # `device = pick()`
        elif isinstance(node.value, cst.Call) and any(isinstance(t, cst.Name) for t in targets):
            self._placed_with.add(id(node.value))  # `dev = pick()`: its uses are not followed
        if owner is not None:
            for target in targets:
                name = dotted_name(target)
                evidence = stored_evidence(name[5:]) if name and name.startswith("self.") else None
                if evidence is not None:
                    owner.stores.add(evidence)
                attribute = dotted_name(
                    target.value if isinstance(target, cst.Subscript) else target
                )
                if attribute and attribute.startswith("self.") and node.value is not None:
                    callees = tuple(
                        dotted_name(part.func) or ""
                        for part in descendants(node.value)
                        if isinstance(part, cst.Call)
                    )
                    owner.stored.append((attribute[5:], callees))
                kept = name is not None and name.startswith("self.") and names_the_device(name[5:])
                if kept and node.value is not None:
                    calls = (part for part in descendants(node.value) if isinstance(part, cst.Call))
                    self._kept_as_device.update(id(call) for call in calls)
                method = stored_method(name, dotted_name(node.value) if node.value else None)
                if method is not None and self._function is not None:
                    self._function.bound.add(method)
        if self._scopes or not isinstance(node, cst.Assign):
            return
        if any(dotted_name(target) == "__all__" for target in targets):  # `__all__ = names = [...]`
            self._exports = exports_after(None, _literal_strings(node.value), added=False)
        bound = assigned_alias(targets, node.value, dotted_name, self._aliases)
        if bound is not None:
            self._aliases[bound[0]] = bound[1]

    def _note_attributes(
        self, targets: Sequence[cst.BaseExpression], value: cst.BaseExpression | None
    ) -> None:
        """What attributes are assigned (``FileFacts.assigned_attributes``); a call that
        spells gloo keeps its attribute for its ``GlooCall`` instead."""
        none = value is None or is_none(value)
        starts = self._function is None or self._function.name.endswith(".__init__")
        if none and not starts:
            return
        spells_gloo = isinstance(value, cst.Call) and any(_gloo_slots(value))
        for target in targets:
            parts = (
                [e.value for e in target.elements]
                if isinstance(target, (cst.Tuple, cst.List))
                else [target]
            )
            for part in parts:
                key = self._attribute_key(part)
                if key is None:
                    continue
                if spells_gloo and part is target:
                    self._stored_calls[id(value)] = key
                else:
                    self._assigned_attributes.add(key)

    def _attribute_key(self, target: cst.BaseExpression) -> str | None:
        """``attribute_key`` of an assignment's target: an attribute, or a field of the
        class body it is in (None: neither)."""
        frame = self._innermost_frame()
        if isinstance(target, cst.Attribute):
            owner = self._function.owner if self._function is not None else None
            return attribute_key(
                target.attr.value, owner.name if owner and is_self(target.value) else None
            )
        if isinstance(target, cst.Name) and isinstance(frame, _Class):
            return attribute_key(target.value, frame.name)
        return None

    def _note_process_groups(self, node: cst.Call, name: str, function: _Function) -> None:
        """A call spelling gloo (``GlooCall``), and a backend handed on from a parameter of
        ``function`` to a call making a process group (``BackendParameter``)."""
        for slot in _gloo_slots(node):
            attribute = self._stored_calls.get(id(node), "")
            self._gloo_calls.append(GlooCall(name, slot, attribute))
        position = PROCESS_GROUP_INITS.get(resolve_alias(name, self._aliases) or name)
        if position is None or function.node is None:
            return
        positional = [arg for arg in node.args if arg.keyword is None and arg.star != "**"]
        named = [
            arg for arg in node.args if arg.keyword is not None and arg.keyword.value == "backend"
        ]
        chosen = named or positional[position : position + 1]
        backend = chosen[0].value if chosen else None
        params = function.node.params
        handed = backend_parameter(
            function.name,
            [param.name.value for param in (*params.posonly_params, *params.params)],
            {param.name.value for param in params.kwonly_params},
            function.owner is not None,
            backend.value if isinstance(backend, cst.Name) else None,
        )
        if handed is not None:
            self._backend_parameters.append(handed)

    def _record_added_exports(self, node: cst.AugAssign) -> None:
        """``__all__ += [...]`` at module level (see ``FileFacts.exports``)."""
        if not self._scopes and dotted_name(node.target) == "__all__":
            added = (
                _literal_strings(node.value) if isinstance(node.operator, cst.AddAssign) else None
            )
            self._exports = exports_after(self._exports, added, added=True)

    def _record_call(self, node: cst.Call) -> None:
        assert self._function is not None
        owner = self._function.owner
        if owner is not None and _calls_an_init(self._function.name, node.func):
            owner.init_calls_init = True
            if id(node) in self._function.step_calls:
                self._function.steps.add(BASE_INIT_STEP)
        self._mark_placed_arguments(node)
        self._mark_told_move(node)
        dotted = dotted_name(node.func)
        if dotted is None:
            return
        local = resolve_alias(dotted, self._function.imported)
        if local is not None:  # the function's own import of the name: the one in force here
            dotted = local
            self._function.resolved.add(local)
        self._note_process_groups(node, dotted, self._function)
        named = node.args[1].value if dotted == "setattr" and len(node.args) > 1 else None
        if isinstance(named, cst.SimpleString) and isinstance(named.evaluated_value, str):
            self._assigned_attributes.add(attribute_key(named.evaluated_value, None))
        if owner is not None and dotted == "setattr" and node.args:
            target = dotted_name(node.args[0].value)
            if target is not None and target.startswith("self"):
                owner.stored.append((target, (dotted,)))  # an attribute named at run time
        if id(node) in self._function.step_calls:
            self._function.steps.add(dotted)
        if dotted.startswith("self.") and dotted.count(".") == 1:
            self._function.self_calls.add(dotted[5:])
        else:
            self._function.calls.add(dotted)
        method = self._bound_method(node)
        if method is not None:
            self._function.bound.add(method)
        if dotted.rpartition(".")[2] in WEIGHT_APPLIERS:
            for arg in node.args:
                if isinstance(arg.value, cst.Call):
                    method = self._bound_method(arg.value)
                    if method is not None:
                        self._function.applied.add(method)
        args = node.args
        keywords = tuple(sorted(a.keyword.value for a in args if a.keyword is not None))
        positional = sum(1 for a in args if a.keyword is None and not a.star)
        unpacks = any(a.star for a in args)
        kept = id(node) in self._kept_as_device
        places = kept or id(node) in self._placed_with
        told = id(node) in self._told_moves
        shape = CallShape(dotted, positional, keywords, unpacks, kept, places, told)
        self._function.call_shapes.add(shape)

    def _mark_told_move(self, node: cst.Call) -> None:
        """A move to a told device (``moves_to_a_told_device``) joins ``_told_moves``, with
        each call of the chain it moves (``Net(c).eval()`` in ``Net(c).eval().to(d)``)."""
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        first = first_positional(node)
        device = keyword_argument(node, "device")
        arguments = [arg.value for arg in (first, device) if arg is not None]
        if not moves_to_a_told_device(
            func.attr.value,
            arguments,
            lambda arg: isinstance(arg, (cst.SimpleString, cst.ConcatenatedString)),
        ):
            return
        self._told_moves.add(id(node))
        self._told_moves.update(moved_calls(func.value, cst.Call, cst.Attribute))

    def _mark_placed_arguments(self, node: cst.Call) -> None:
        """The calls ``node`` places with (``placed_arguments``) join ``_placed_with``."""
        attribute = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        first = first_positional(node)
        keywords = [
            arg.value
            for arg in node.args
            if arg.keyword is not None and arg.keyword.value in PLACING_KEYWORDS
        ]
        for arg in placed_arguments(
            attribute, [first.value] if first is not None else [], keywords
        ):
            if isinstance(arg, cst.Call):
                self._placed_with.add(id(arg))

    def _bound_method(self, node: cst.Call) -> str | None:
        first = node.args[0] if node.args else None
        if first is None or first.star or first.keyword is not None:
            return None
        return bound_method(dotted_name(node.func), dotted_name(first.value), self._aliases)

    # Results -----------------------------------------------------------------

    def _facts(self) -> FileFacts:
        aliases = self._aliases
        return FileFacts(
            module=self._module_name,
            path=self._path,
            aliases=dict(aliases),
            classes=tuple(
                class_facts(
                    c.name,
                    c.raw_bases,
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
                    f.scope.device_param,
                    aliases,
                    f.takes_inputs,
                    f.bound - f.applied,
                    f.call_shapes,
                    f.resolved,
                    untyped_parameters(f.node) if f.node is not None else (),
                    f.steps,
                )
                for f in self._functions
            ),
            facts=tuple(
                dataclasses.replace(fact, line=self._positions[node].start.line) if node else fact
                for fact, node, _ in self._facts_found
            )
            + self._flow_facts(),
            stars=tuple(self._stars),
            exports=self._exports,
            top_level_calls=resolved_calls(self._top_level_calls, aliases),
            compiled_for=compiled_types(self._kernel_builds, aliases),
            declared_extensions=declared_extensions(self._extension_declarations, aliases),
            loads=tuple(sorted(self._loads)),
            gloo_calls=tuple(
                dataclasses.replace(call, callee=resolve_alias(call.callee, aliases) or call.callee)
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

    def _flow_facts(self) -> tuple[Fact, ...]:
        """What the device flow of this file's functions says to other files, where a later
        pass asks for it (``RuleSettings.flow_summaries``, ``flow_results``): summaries of
        the functions named, and the calls of the functions named whose results meet the
        device or are handed to another file's function (``ResultHanded``), also through a
        function of this file that forwards the call. The flow costs: the first pass
        computes none of it."""
        wanted, results = self._settings.flow_summaries, self._settings.flow_results
        if not (wanted or results):
            return ()
        found: list[Fact] = []
        calling = self._calling(results)
        for function in self._functions:
            node = function.node
            if node is None:
                continue
            if function.name in wanted:
                flow = self._flows.function(node, function.owner_node)
                found.append(summarise(flow, function.name))
            found.extend(self._results_facts(function, node, results, calling))
        return tuple(found)

    def _calling(self, results: frozenset[str]) -> frozenset[str]:
        """``results`` (last names) and the file's functions that call one of them, or one of
        those, and so on: each may forward its result to its callers."""
        calling = results
        while True:
            wider = calling | {
                function.name.rpartition(".")[2]
                for function in self._functions
                if any(call.rpartition(".")[2] in calling for call in function.calls)
            }
            if wider == calling:
                return calling
            calling = wider

    def _results_facts(
        self,
        function: _Function,
        node: cst.FunctionDef,
        results: frozenset[str],
        calling: frozenset[str],
    ) -> tuple[ResultMeets | ResultHanded, ...]:
        """Where ``function``'s calls of the functions named (last names) ``results`` have
        their results meet the device or handed to another file's function (sorted)."""
        called = (*function.calls, *function.self_calls)
        if not any(call.rpartition(".")[2] in calling for call in called):
            return ()
        flow = self._flows.function(node, function.owner_node)
        meeting: set[tuple[str, int | None]] = set()
        for met in flow.results_meeting:
            call, part = flow.result_parts.get(met, (met, None))
            callee = flow.callees.get(call) or (
                self.qualified_name(call.func) if isinstance(call, cst.Call) else None
            )
            if callee and callee.rpartition(".")[2] in results:
                meeting.add((callee, part))
        handed = {
            (flow.callees[call], receiver, slot)
            for call, receiver, slot in flow.results_handed
            if flow.callees.get(call, "").rpartition(".")[2] in results
        }
        return (
            *(ResultMeets(c, p) for c, p in sorted(meeting, key=repr)),
            *(ResultHanded(*entry) for entry in sorted(handed, key=repr)),
        )

    def _results_meeting(self) -> ResultsMeeting | None:
        """Where, in this file, the results of the functions the candidates' ``RESULT_MEETS``
        needs name meet the device: the file often calls them itself (a method and its
        helper), and the pass asking for it then need not parse the file again."""
        followed = frozenset(
            need.function.rpartition(".")[2]
            for raw in self._raw
            for need in raw.needs
            if need.kind is Needed.RESULT_MEETS
        )
        if not followed:
            return None
        calling = self._calling(followed)
        functions = (
            self._results_facts(function, function.node, followed, calling)
            for function in self._functions
            if function.node is not None
        )
        return ResultsMeeting(followed, tuple(found for found in functions if found))

    def _candidates(self) -> tuple[Candidate, ...]:
        if not self._raw:
            return ()
        positions = self._positions
        lines = split_lines(self._text)
        candidates = []
        for raw in self._raw:
            first: CodeRange = positions[raw.node]
            last: CodeRange = positions[raw.end_node]
            start = Location(first.start.line, first.start.column + 1)
            fixes = {
                variant: tuple(_to_edit(edit, positions) for edit in edits)
                for variant, edits in raw.fixes.items()
            }
            candidates.append(
                Candidate(
                    code=raw.code,
                    start=start,
                    end=Location(last.end.line, last.end.column + 1),
                    scope=raw.scope,
                    data={
                        **raw.data,
                        **{key: str(positions[n].start.line) for key, n in raw.lines.items()},
                    },
                    fixes=fixes,
                    needs=raw.needs,
                    provided=raw.provided,
                    suppressed=_suppressed(lines, start.row, raw.code),
                )
            )
        return tuple(candidates)


_HANDLERS: dict[type[cst.CSTNode], Callable[[Traversal, Any], None]] = {
    cst.ClassDef: Traversal._enter_class,
    cst.FunctionDef: Traversal._enter_function,
    cst.Import: Traversal._record_import,
    cst.ImportFrom: Traversal._record_import,
    cst.Assign: Traversal._record_assignment,
    cst.AnnAssign: Traversal._record_assignment,
    cst.AugAssign: Traversal._record_added_exports,
    cst.If: Traversal._enter_test,
    cst.IfExp: Traversal._enter_test,
    cst.IndentedBlock: Traversal._enter_block,
    cst.Module: Traversal._enter_block,
    cst.Call: Traversal._enter_call,
    cst.Param: Traversal._enter_param,
    cst.Assert: Traversal._note_no_offer,
    cst.SimpleString: Traversal._enter_string,
    cst.ConcatenatedString: Traversal._enter_string,
    cst.FormattedStringText: Traversal._enter_string_text,
}
"""What the walk itself does on entering a node of each type: one look-up, not a chain of
comparisons for every node. (A table of the class: one of each traversal, holding its
bound methods, would keep the traversal and its whole tree alive until a full collection.)"""


def _gloo_slots(call: cst.Call) -> Iterator[int | str]:
    """The arguments of ``call`` that spell the gloo backend (``gloo_slots``)."""
    positional = [arg for arg in call.args if arg.keyword is None and arg.star != "**"]
    named = [(arg.keyword.value, arg) for arg in call.args if arg.keyword is not None]
    slots: list[tuple[int | str | None, cst.Arg]] = [*enumerate(positional), *named]
    return gloo_slots((slot, _spelt_gloo(arg.value)) for slot, arg in slots)


def _spelt_gloo(value: cst.BaseExpression) -> str | bytes | None:
    """The value of a string literal (concatenated ones too, as ``ast`` reads them) whose
    source spells gloo: only it is evaluated (evaluating any other would echo Python's
    warnings about its escapes, ``"\\d"``)."""
    parts = _string_parts(value)
    if parts is None or "gloo" not in "".join(part.raw_value for part in parts):
        return None
    values = [part.evaluated_value for part in parts]
    return "".join(values) if all(isinstance(v, str) for v in values) else None  # type: ignore[arg-type]


def _string_parts(value: cst.BaseExpression) -> list[cst.SimpleString] | None:
    """The literals a string constant is written as (None: no constant, or an f-string)."""
    if isinstance(value, cst.SimpleString):
        return [value]
    if isinstance(value, cst.ConcatenatedString):
        left, right = _string_parts(value.left), _string_parts(value.right)
        return left + right if left is not None and right is not None else None
    return None


def _nodes_of(raw: _RawCandidate) -> Iterator[cst.CSTNode]:
    """Every node whose position the candidate needs."""
    yield raw.node
    yield raw.end_node
    yield from raw.lines.values()
    for edits in raw.fixes.values():
        for edit in edits:
            yield edit.start_node
            yield edit.end_node


_FILE_KEY = "the file"
"""Who owns a note made with ``per_file=True`` (no function is named with a space)."""


def _class_key(class_name: str) -> str:
    """Who owns a note made with ``per_class=True`` (no function is named with a space)."""
    return f"class {class_name}"


def _to_edit(edit: PendingEdit, positions: Mapping[cst.CSTNode, CodeRange]) -> Edit:
    def location(node: cst.CSTNode, side: str) -> Location:
        span = positions[node]
        if side == "line_start":
            return Location(span.start.line, 1)
        if side == "next_line_start":
            return Location(span.end.line + 1, 1)
        point = span.start if side == "start" else span.end
        # An expression's position leaves out its own parentheses; an edit must not:
        # ``torch.ones((a, b))`` gets ``, device=...`` after the tuple, not inside it.
        parens = getattr(node, "lpar" if side == "start" else "rpar", ())
        if isinstance(node, cst.BaseExpression) and parens:
            outer = positions.get(parens[0] if side == "start" else parens[-1])
            if outer is not None:
                point = outer.start if side == "start" else outer.end
        return Location(point.line, point.column + 1)

    return Edit(
        location(edit.start_node, edit.start_side),
        location(edit.end_node, edit.end_side),
        edit.content,
    )


def _suppressed(lines: Sequence[str], row: int, code: str) -> bool:
    """``# noqa`` or ``# noqa: CODE,...`` in the comment of the row where the finding starts."""
    if row > len(lines):
        return False
    comment = _comment(lines[row - 1])
    match = _NOQA.search(comment) if comment else None
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    return code in {part.strip().upper() for part in codes.split(",")}


def _comment(line: str) -> str | None:
    """The comment ending ``line``, skipping ``#`` inside string literals on it."""
    quote: str | None = None
    position = 0
    while position < len(line):
        char = line[position]
        if quote is None:
            if char == "#":
                return line[position:]
            if char in "\"'":
                triple = line[position : position + 3]
                quote = triple if triple in ('"""', "'''") else char
                position += len(quote)
                continue
        elif char == "\\":
            position += 2
            continue
        elif line.startswith(quote, position):
            position += len(quote)
            quote = None
            continue
        position += 1
    return None


def _literal_value(node: cst.BaseExpression) -> object:
    """An integer's or a string's value (a string as written with no escape: Python warns
    of invalid ones as it evaluates, and the user's code is the user's business), else
    None."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and "\\" not in _written(node):
        return node.evaluated_value
    return None


def _a_bool(node: cst.BaseExpression) -> bool | None:
    """``True`` or ``False`` as written, else None."""
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _written(node: cst.SimpleString | cst.ConcatenatedString) -> str:
    """The string literal's parts as written."""
    parts = (node,) if isinstance(node, cst.SimpleString) else descendants(node)
    return "".join(part.value for part in parts if isinstance(part, cst.SimpleString))


_DEVICE_SPELLINGS = ("cuda:", *sorted(OTHER_DEVICE_TYPES))


def _may_name_a_device(node: cst.SimpleString | cst.ConcatenatedString) -> bool:
    """The literal as written may name a device (``names_another_device``): no escapes, a
    device's name in it. Only those are evaluated: Python warns of invalid escapes as it
    evaluates a string, and the user's code is the user's business."""
    written = _written(node)
    if "\\" in written:
        return False
    if isinstance(node, cst.ConcatenatedString):  # `("cp" "u")`: only the whole spells it
        return True
    return any(spelling in written for spelling in _DEVICE_SPELLINGS)


def _names_read(value: cst.BaseExpression) -> Iterator[tuple[str, bool]]:
    """The names and attribute names ``value`` reads, each with whether it is an attribute
    read as a value (as the skeleton's ``_names_read``)."""
    parts = (value, *descendants(value))
    choosing = (cst.IfExp, cst.BooleanOperation, cst.Comparison)
    if any(isinstance(part, choosing) for part in parts):
        return
    called = {id(part.func) for part in parts if isinstance(part, cst.Call)}
    for part in parts:
        if isinstance(part, cst.Attribute):
            yield part.attr.value, id(part) not in called
        elif isinstance(part, cst.Name):
            yield part.value, False


def _names_visible_gpus(target: cst.BaseExpression) -> bool:
    """``os.environ["CUDA_VISIBLE_DEVICES"]``: what is assigned there chooses the GPUs the
    process sees (as the skeleton's ``_names_visible_gpus``)."""
    if not (isinstance(target, cst.Subscript) and dotted_name(target.value) in ENVIRONMENT_NAMES):
        return False
    element = target.slice[0].slice if len(target.slice) == 1 else None
    index = element.value if isinstance(element, cst.Index) else None
    return isinstance(index, cst.SimpleString) and index.evaluated_value == VISIBLE_GPUS


def _process_gpus(call: cst.Call) -> list[object]:
    """The GPUs the call pins one process's model to (``DDP_DEVICE_KEYWORDS``), as the
    skeleton's ``_process_gpus`` reads them."""
    found: list[object] = []
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value not in DDP_DEVICE_KEYWORDS:
            continue
        value = arg.value
        if isinstance(value, (cst.List, cst.Tuple)):
            if len(value.elements) != 1:
                continue  # several GPUs (or none): each replica's is made current
            value = value.elements[0].value  # `[*gpus]`: the starred name, no literal
        elif arg.keyword.value == "device_ids":
            continue  # `range(n)`, a list built elsewhere: as several
        found.append(value.evaluated_value if isinstance(value, cst.Integer) else NOT_A_LITERAL)
    return found


def _takes_to_the_host(call: cst.Call) -> bool:
    """``x.to("cpu")``, its value then read (``.numpy()``, ``.tolist()``): not a device to
    compute on (as the skeleton's ``_takes_to_the_host`` reads it)."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "to"
        and len(call.args) == 1
        and _literals(call) == ("cpu",)
    )


def _literals(call: cst.Call) -> tuple[object, ...] | None:
    """The call's positional arguments, each an integer or string literal; None when one is
    not, or a ``device``, ``type`` or ``index`` keyword names the device instead (as the
    skeleton's ``_literals`` reads them)."""
    values: list[object] = []
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value in DEVICE_KEYWORDS:
                return None
            continue
        value = arg.value
        if arg.star == "**":
            continue
        if arg.star:
            return None
        literal = _literal_value(value)
        if not isinstance(literal, (int, str)):
            return None
        values.append(literal)
    return tuple(values)


def _step_calls(node: cst.FunctionDef) -> frozenset[int]:
    """The calls (by id) that are whole statements of the function's body: ``set_up()``,
    ``rank = set_up()`` (``FunctionFacts.steps``)."""
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        lines = [line.body for line in body.body if isinstance(line, cst.SimpleStatementLine)]
    else:
        lines = [body.body] if isinstance(body, cst.SimpleStatementSuite) else []
    return frozenset(
        id(small.value)
        for smalls in lines
        for small in smalls
        if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign))
        and isinstance(small.value, cst.Call)
    )


def _keyword_string(call: cst.Call, keyword: str) -> str | None:
    """The string the call's ``keyword`` argument gives (``dest="gpu_ids"``), where it is a
    name (as the skeleton's ``_keyword_string``)."""
    argument = keyword_argument(call, keyword)
    value = _literal_value(argument.value) if argument is not None else None
    return value if isinstance(value, str) and value.isidentifier() else None


def _option_word(call: cst.Call, keyword: str) -> str | None:
    """The value of the call's ``keyword`` argument as a dotted name (``True`` too)."""
    argument = keyword_argument(call, keyword)
    return dotted_name(argument.value) if argument is not None else None
