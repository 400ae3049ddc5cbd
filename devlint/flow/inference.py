"""Device flow inside one function: each expression's origins, in statement order.

Branches are joined, loops run to a fixed point (bounded), and every operation where
a CPU-made tensor meets a tensor on the computation's device is recorded as a
``Meeting``. Only what the function's own code shows is used: calls of project
functions give unknown values (their summaries are a later layer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Protocol, cast

import libcst as cst

from devlint.device_flags import flag_says_gpu
from devlint.flow.meetings import (
    Handoff,
    Meeting,
    MeetingKind,
    Operand,
    collective_group,
    may_happen,
    meetings_among,
    meetings_in_collective,
    meetings_indexed,
    meetings_updated,
    meetings_written,
    places_by_backend,
    refuses_scalars,
    surely_on_device,
)
from devlint.flow.values import (
    CHOSEN_CPU,
    FOLLOWS,
    HOST,
    HOST_ARRAY,
    HOST_SEQUENCE,
    LITERAL,
    UNKNOWN,
    Origin,
    Value,
    as_device,
    as_passed,
    as_returned,
    captured,
    combine,
    element_of_cpu_vectors,
    fixed_at_construction,
    from_parameter,
    join,
    made_on_cpu,
    moved,
    moved_from,
    put_on_cpu,
    scalar_on_cpu,
    stored_factory,
    tied_to,
)
from devlint.nodes import (
    annotation_names,
    attribute_of_self,
    casts_dtype_only,
    descendants,
    dotted_name,
    first_positional,
    has_double_star,
    holds_an_integer,
    is_none,
    is_self,
    is_static_method,
    iter_children,
    keyword_argument,
    loads_a_processor,
    names_a_device,
    names_a_move_helper,
    names_the_cpu,
    none_test,
    parameter_names,
    reads_a_device,
    self_attribute_values,
    stateless_module,
    statement_assignments,
    tested_as_a_gpu_tensor,
    unpacked,
    values_assigned,
)
from devlint.symbols import (
    ACCELERATOR_CARRYING_METHODS,
    ACCELERATOR_PREDICATES,
    ARGUMENT_PLACED_PACKAGES,
    ARRAY_TENSOR_FACTORIES,
    AUGMENTED_ASSIGNMENT_METHODS,
    CARRYING_LIBRARIES,
    COLLECTION_UPDATERS,
    COLLECTIVE_FUNCTIONS,
    CONFIG_PARAMETERS,
    COUNTING_ITERABLES,
    CPU_ARGUMENTS,
    CPU_LIBRARIES,
    CPU_RESULT_FUNCTIONS,
    CROSS_DEVICE_METHODS,
    DATA_FACTORIES,
    DATASET_PARAMETER_NAMES,
    DEVICE_TYPES,
    EXPORT_ONLY_CHECKS,
    FULL_REDUCTIONS,
    FUNCTION_TRANSFORMS,
    HOST_ANNOTATIONS,
    HOST_ARRAY_LIBRARIES,
    HYPERPARAMETER_ROOTS,
    IN_PLACE_UPDATES,
    INDEXING_METHODS,
    INPUT_PLACING_MODELS,
    ITERATING_BUILTINS,
    JOINING_FUNCTIONS,
    LEGACY_TENSOR_TYPES,
    MEETING_FUNCTIONS,
    MODULE_CLASSES,
    MODULE_MAPPINGS,
    MODULE_REGISTRARS,
    MODULE_TENSOR_METHODS,
    MOVE_METHODS,
    NON_TENSOR_RESULTS,
    NUMBER_LIBRARIES,
    NUMBER_LIBRARY_SEQUENCES,
    NUMBER_TYPES,
    PROGRESS_WRAPPERS,
    SETUP_METHODS,
    SILENT_BUILTINS,
    STATELESS_NN_MODULES,
    STORABLE_FACTORIES,
    TENSOR_ARGUMENT_METHODS,
    TENSOR_FACTORIES,
    TENSOR_HOST_ATTRIBUTES,
    TENSOR_PARAMETER_NAMES,
    TRAINER_BASES,
    TRAINER_PLACING_METHODS,
    TRANSPARENT_DECORATORS,
    VIEW_METHODS,
)

Resolver = Callable[["cst.BaseExpression"], "str | None"]
"""The file's import resolution: ``F.relu`` -> ``torch.nn.functional.relu``, else None."""

_FACTORIES = TENSOR_FACTORIES | LEGACY_TENSOR_TYPES | ARRAY_TENSOR_FACTORIES
_LOOP_PASSES = 3
"""Passes over a loop body before its values are taken as settled."""
_COMBINING_BUILTINS = frozenset({"sum", "max", "min", "abs"})
_SEQUENCE_METHODS = frozenset({"tolist", "numpy"})
_PROBES = frozenset({"hasattr", "getattr"})
"""Builtins that ask an object of unknown type about an attribute."""
_SHAPING_METHODS = frozenset({"view", "reshape", "unsqueeze", "expand", "repeat", "unflatten"})
"""Methods that give a tensor dimensions (with arguments): it is no 0-dim scalar any more."""
_SEQUENCE_TYPES = frozenset({"list", "tuple", "List", "Tuple", "Sequence"})
"""Annotations of Python data that is a sequence (``torch.tensor`` of it has dimensions)."""


@dataclass(frozen=True)
class ClassModel:
    """What a class's own code says about ``self``: its methods and what ``__init__``
    stores in its attributes (a submodule, a parameter, a CPU tensor, a number)."""

    node: cst.ClassDef | None
    methods: Mapping[str, cst.FunctionDef]
    attributes: Mapping[str, Value]
    built: Mapping[cst.CSTNode, Value] = field(default_factory=dict)
    """Each expression of ``__init__`` as built there: a tensor made (or given) at
    construction keeps its creation site even when ``__init__`` places it on a device,
    since a plain attribute stays there when the module moves."""
    scalars: frozenset[cst.CSTNode] = frozenset()
    """Creation sites of ``torch.tensor(<a parameter>)`` never reshaped in ``__init__``: the
    configuration may be one number, and a 0-dim tensor meets any device."""
    classes: Mapping[str, str] = field(default_factory=dict)
    """The qualified class each attribute ``__init__`` sets by a call of one is made of
    (``self.loss = nn.CTCLoss()``: ``torch.nn.CTCLoss``)."""
    lists: frozenset[str] = frozenset()
    """Attributes ``__init__`` sets to a list or tuple written out (or a comprehension), or
    to a local one: ``self.values[i]`` is one of its tensors, not an element of one."""

    def attribute(self, name: str) -> Value:
        """``self.<name>`` outside ``__init__``: what ``__init__`` leaves there. Anything
        else is unknown: a base class in another file may store a number as well as a
        submodule there (``self.rank_dropout``)."""
        if name == "device":
            return FOLLOWS
        if name in TENSOR_HOST_ATTRIBUTES:
            return HOST
        return self.attributes.get(name, UNKNOWN)


NO_CLASS = ClassModel(None, {}, {})


class Callees(Protocol):
    """What the flow of a function may learn about the functions of the same file it calls
    (``self.helper(...)``, ``helper(...)``): the file's cache answers, once each."""

    def returned(self, callee: cst.FunctionDef, owner: cst.ClassDef | None) -> Value:
        """What ``callee`` returns (unknown while it is being analysed: recursion)."""
        ...

    def returned_parts(
        self, callee: cst.FunctionDef, owner: cst.ClassDef | None
    ) -> tuple[Value, ...]:
        """The elements of the tuple ``callee`` returns (``FunctionFlow.returned_parts``)."""
        ...

    def own_flow(self, callee: cst.FunctionDef, owner: cst.ClassDef | None) -> FunctionFlow | None:
        """The flow of ``callee`` from its own code (None while it is being analysed, or
        while the class model of ``__init__`` is being built)."""
        ...

    def called_with(
        self, callee: cst.FunctionDef, owner: cst.ClassDef | None, bound: Mapping[str, Value]
    ) -> FunctionFlow | None:
        """The flow of ``callee`` with these values for some parameters (a call that passes
        CPU tensors: where they meet inside is where they meet); None while recursing."""
        ...

    def cpu_process_groups(self) -> bool:
        """Whether the file makes a process group that takes CPU tensors (gloo)."""
        ...


@dataclass(frozen=True)
class Surroundings:
    """What a function's flow needs from outside its body."""

    resolve: Resolver
    owner: ClassModel = NO_CLASS
    functions: Mapping[str, cst.FunctionDef] = field(default_factory=dict)
    """The module-level functions of the file, by name."""
    callees: Callees | None = None


_CallOut = tuple[str, tuple[tuple[int | str, Value], ...]]
"""A call of another file's function: the callee, and each argument's slot and value."""
_Beside = tuple[tuple[int | str, str], ...]
"""A call's other arguments on the device: each slot with a parameter it follows (``""``:
none)."""
_PartSource = tuple[str, int | str, str, int]
"""Where an element of another file's result may come from: the callee, the slot of an
argument that follows a parameter, that parameter, and the element's position."""
_PassedPart = tuple[str, int | str, str, int, str, int | str, _Beside]
"""An element of another file's result handed to another file's function: its
``_PartSource``, then that function, the slot, and the call's other arguments on the device."""


@dataclass(frozen=True)
class FunctionFlow:
    """The device flow of one function, for rules to query."""

    function: cst.FunctionDef
    meetings: tuple[Meeting, ...]
    """Every meeting of a CPU-made tensor with the computation's device, in order."""
    returned: Value
    """What the function returns, joined over its ``return`` statements, or for a generator
    over its ``yield``s (the start of a summary: ``params`` says which parameters reach it)."""
    values: Mapping[cst.CSTNode, Value]
    """The value of each expression the analysis evaluated (its last pass in a loop)."""
    reaching: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Parameters that reach a meeting point, each with the parameters it meets there
    (``""``: a tensor surely on the device that no parameter gives): a caller that passes
    a CPU tensor there mixes devices (the summary other files read). Also ``self.<name>``,
    an attribute the file's class does not set (``_inherited_attribute``): a subclass that
    keeps a CPU tensor there mixes devices where it calls the method."""
    handoffs: tuple[Handoff, ...] = ()
    """CPU-made tensors passed to functions of other files."""
    results_meeting: frozenset[cst.CSTNode] = frozenset()
    """Calls of functions of other files whose results meet the computation's device."""
    returned_whole: tuple[cst.CSTNode, ...] = ()
    """Creation sites of tensors a ``return`` gives whole, not as one element of a tuple or
    list it returns: a caller meeting the result with the device meets those (not those
    converted to the type a parameter gives, which the caller's type places)."""
    returned_via: tuple[tuple[str, int | str, str], ...] = ()
    """Calls of other files' functions whose result it may return: the callee, an argument's
    slot and a parameter that argument follows. Where the callee's result follows that
    slot, this function's result follows the parameter (``FlowSummary.returns_via``)."""
    returned_scalars: tuple[cst.CSTNode, ...] = ()
    """Creation sites of 0-dim CPU tensors a ``return`` gives whole where another gives a
    tensor on the computation's device: a caller joining its results (``torch.stack``)
    mixes the devices, where arithmetic would not."""
    passed_on: tuple[tuple[str, int | str, str, tuple[tuple[int | str, str], ...]], ...] = ()
    """Calls of other files' functions given a tensor that follows a parameter: the callee,
    the argument's slot, the parameter, and the call's other arguments on the device (each
    slot with a parameter it follows, ``""`` for none). Where the callee's parameter meets
    one of those, so does this function's (``FlowSummary.meets_via``)."""
    passed_parts: tuple[_PassedPart, ...] = ()
    """Elements of other files' results handed on to other files' functions (``a, b =
    check(a, b)``, then ``curve(a, b)``): where the first callee's element follows the
    parameter's slot and the second callee's parameter meets one of the arguments beside it,
    so does the parameter (``FlowSummary.meets_via_parts``)."""
    forwarded: _CallOut | None = None
    """The call of another file's function whose result the function returns whole, as it
    returned it (``return check(a, b)``): to its callers in the file, calling it is calling
    that function with their arguments in place of its parameters."""
    joined: frozenset[str] = frozenset()
    """Parameters holding a sequence of tensors that ``torch.cat``/``torch.stack`` joins
    into one (``torch.cat(xs)``, ``torch.cat([x.unsqueeze(0) for x in xs])``): the tensors
    a caller collects there meet one another, 0-dim ones too."""
    typed_by: frozenset[str] = frozenset()
    """Parameters giving the tensor type a tensor is converted to (``t.type(kind)``): a
    call that gives another tensor's type (``make_grid(n, x.type())``) puts it where that
    tensor is, which only the call's own analysis of the function sees."""
    results_handed: tuple[tuple[cst.CSTNode, str, int | str], ...] = ()
    """Calls of other files' functions whose results (alone, or collected in a list) it
    hands to another file's function: the call, that function, and the slot."""
    passes_through: bool = False
    """The ``forwarded`` call hands on the function's own ``*args, **kwargs`` unchanged
    (``return f(*args, **kwargs)``): its callers' arguments are that call's."""
    returned_parts: tuple[Value, ...] = ()
    """The elements of the tuple the function's ``return``s write out (``return a, b``),
    each joined over the returns (one that gives anything else gives its whole value to
    each: unpacking a tensor gives its rows, on its device): what a caller unpacking the
    result (``x, y = f()``) binds to each name. Empty when no ``return`` writes one out."""
    result_parts: Mapping[cst.CSTNode, tuple[cst.CSTNode, int]] = field(default_factory=dict)
    callees: Mapping[cst.CSTNode, str] = field(default_factory=dict)
    """The function of another file each call calls, as the file resolves it (a call of a
    function of this file that forwards its result stands for the call it forwards)."""
    wrapped: bool = False
    """The function is decorated by a wrapper that may move or convert its arguments first
    (``wraps_arguments``): what its parameters meet inside is not what callers pass."""
    """Elements of the results of other files' functions taken apart here (``a, b = f(x)``,
    ``f(x)[1]``, ``out = f(x); out[1]``): the node standing for each (the target, the
    subscript) in ``Value.calls`` and ``results_meeting``, with the call and the position."""
    copied_answers: Mapping[cst.CSTNode, tuple[str, ...]] = field(default_factory=dict)
    """Creation sites of ``torch.tensor(x)`` of what a method of an object ``__init__``
    made returned (``Value.answers``), each with those methods, qualified: a CPU tensor
    where they all return Python data (their summaries say), else a copy of a tensor."""

    def meetings_of(self, made: cst.CSTNode) -> tuple[Meeting, ...]:
        """Where the tensor made at ``made`` meets the computation's device, first first."""
        return tuple(meeting for meeting in self.meetings if meeting.made is made)

    def parts_meeting(self, call: cst.CSTNode) -> list[int | None]:
        """What of the result of ``call`` (another file's function) meets the device here:
        the result itself (None), or elements of the tuple it returns, first first."""
        found: list[int | None] = [None] if call in self.results_meeting else []
        for stand_in, (of, part) in self.result_parts.items():
            if of is call and stand_in in self.results_meeting:
                found.append(part)
        return found


def analyse_function(
    function: cst.FunctionDef, around: Surroundings, bound: Mapping[str, Value] | None = None
) -> FunctionFlow:
    """The flow of ``function`` (a method of ``around.owner`` if that is a class).

    Inputs follow the computation, except in setup methods (``__init__``), whose
    parameters are configuration as often as tensors: there they are unknown. ``bound``
    gives some parameters the values a caller passes.
    """
    inference = _Inference(around)
    setup = function.name.value in SETUP_METHODS
    given = {name: as_passed(found) for name, found in (bound or {}).items()}
    uses: tuple[set[str], set[str]] | None = None
    sequences: set[str] = set()

    def used_as_tensor(name: str) -> bool:
        # Walking the body costs: only for a parameter that neither its annotation, nor
        # its default, nor its name places.
        nonlocal uses
        if setup:
            return False
        if name in TENSOR_PARAMETER_NAMES:
            return True
        if uses is None:
            uses = _used_as_tensors(function.body)
        return name in uses[0] or name in uses[1]

    def placed_by_use(name: str) -> bool:
        placed = used_as_tensor(name)
        if placed and name not in TENSOR_PARAMETER_NAMES and uses and name in uses[1]:
            sequences.add(name)
        return placed

    entry: dict[str, Value] = {}
    for param in _parameters(function):
        name = param.name.value
        entry[name] = (
            given.get(name)
            or _factory_default(param, around.resolve)
            or _parameter_value(param, partial(placed_by_use, name), around.resolve)
        )
        if name in given and _surely_not_none(given[name]):
            inference.not_none.add(name)
    inference.function, inference.env = function, dict(entry)
    placed = (frozenset(sequences), frozenset().union(*uses or (), TENSOR_PARAMETER_NAMES))
    inference.sequences, inference.tensors = placed
    not_none = set(inference.not_none)  # the first pass forgets the names it rebinds
    inference.run(function.body)
    handed = _as_handed(entry, inference.moved_inputs, given)
    if handed != entry:
        inference = _Inference(around)
        inference.function, inference.not_none, inference.env = function, not_none, handed
        inference.sequences, inference.tensors = placed
        inference.run(function.body)
    results = inference.results
    returned = as_returned(join(*results.values)) if results.values else HOST
    on_cpu = _modules_read_as_arrays(function.body)
    return FunctionFlow(
        function,
        tuple(
            meeting
            for meeting in inference.meetings
            if may_happen(meeting)
            and not (
                meeting.kind is MeetingKind.MODULE_CALL
                and (meeting.made in inference.counts or _calls_one_of(meeting.at, on_cpu))
            )
        ),
        returned,
        inference.values,
        {name: frozenset(partners) for name, partners in inference.reaching.items()},
        tuple(inference.handoffs),
        frozenset(inference.results_meeting),
        tuple(
            site
            for site in dict.fromkeys(results.whole)
            if site in returned.made and site not in inference.typed_sites
        ),
        _returned_via(returned, inference.calls_out, inference.result_parts),
        returned_scalars=tuple(
            site for site in dict.fromkeys(results.whole) if site in returned.scalars
        )
        if returned.follows
        else (),
        passed_on=_passed_on(inference.calls_out, inference.passed_on),
        passed_parts=_passed_parts(
            inference.calls_out, inference.result_parts, inference.passed_parts
        ),
        forwarded=_forwarded(returned, inference.calls_out),
        joined=frozenset(inference.joined),
        typed_by=frozenset(inference.typed_by),
        results_handed=tuple(inference.results_handed),
        passes_through=bool(set(returned.calls) & inference.passing_through),
        returned_parts=_positionwise(results.tuples),
        result_parts=inference.result_parts,
        callees={call: callee for call, (callee, _) in inference.calls_out.items()},
        wrapped=wraps_arguments(function, around.resolve),
        copied_answers=inference.copied_answers,
    )


def _as_handed(
    entry: Mapping[str, Value], moved: set[str], given: Mapping[str, Value]
) -> dict[str, Value]:
    """The parameters as the function's callers hand them: one whose data the function
    moves to a device itself (``moved``) is not there yet, its caller keeps it where it made
    it (on the host, most often): before the move it follows nothing. Not the ``device``
    parameter (moves to it place other tensors), nor what a caller's call says it passes
    (``given``)."""
    return {
        name: (
            replace(UNKNOWN, params=found.params)
            if name in moved and name not in given and found.follows and name != "device"
            else found
        )
        for name, found in entry.items()
    }


def _modules_read_as_arrays(body: cst.BaseSuite) -> frozenset[str]:
    """The modules whose output the function turns into a NumPy array as it comes
    (``policy(x0).detach().numpy()``, no ``.cpu()``), directly or through the names it
    assigns the output to (``masks, scores = predictor(x)`` ... ``masks.numpy()``):
    ``.numpy()`` refuses a device tensor, so the function runs them on the CPU (or they hand
    back CPU data, moving what they are given themselves): a CPU tensor handed to them
    meets no device. Not through a name the function also moves (``masks.cpu()``) or
    rebinds from something made of it (``masks = post(masks)``): that path may be another."""
    found = set()
    read: set[str] = set()
    for node in descendants(body):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            continue
        if node.func.attr.value != "numpy" or node.args:
            continue  # `.numpy(force=True)` copies a device tensor to the CPU first
        receiver = _unviewed(node.func.value)
        name = dotted_name(receiver.func) if isinstance(receiver, cst.Call) else None
        if name is not None:
            found.add(name)
        elif isinstance(receiver, cst.Name):
            read.add(receiver.value)
    return frozenset(found | _callees_read_as_arrays(body, read))


def _callees_read_as_arrays(body: cst.BaseSuite, read: set[str]) -> set[str]:
    """The callees whose results the function assigns to the names of ``read``, when it
    binds such a name only to calls' results that do not take the name itself."""
    if not read:
        return set()
    callees: dict[str, set[str]] = {name: set() for name in read}
    spoiled: set[str] = set()
    for node in descendants(body):
        if isinstance(node, cst.Attribute) and node.attr.value in _MOVES_AWAY:
            spoiled.add(dotted_name(node.value) or "")  # `masks.cpu()`: a path that moves it
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [target.target for target in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        names = {t.value for target in targets for t in unpacked(target) if isinstance(t, cst.Name)}
        names &= read
        value = _unviewed(node.value) if isinstance(node, cst.Assign) else None
        callee = dotted_name(value.func) if isinstance(value, cst.Call) else None
        if not isinstance(value, cst.Call) or callee is None or _takes_any(value, names):
            spoiled.update(names)
        for name in names:
            callees[name].add(callee or "")
    return {callee for name in read - spoiled for callee in callees[name]}


def _takes_any(call: cst.Call, names: set[str]) -> bool:
    """``call`` reads one of ``names`` (not as a keyword's name: ``f(masks=None)``)."""
    return any(
        isinstance(found, cst.Name) and found.value in names
        for part in (call.func, *(arg.value for arg in call.args))
        for found in descendants(part)
    )


_MOVES_AWAY = MOVE_METHODS | {"cpu"}
"""A tensor's methods that put it on another device: after one, ``.numpy()`` may work."""


def _unviewed(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without the views taken of it (``out.detach().view(-1)`` -> ``out``)."""
    while _views(node):
        node = cast("cst.Attribute", cast("cst.Call", node).func).value
    return node


def _views(node: cst.BaseExpression) -> bool:
    """``x.detach()``, ``x.view(...)``: a call that sees its receiver's data another way."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in VIEW_METHODS
    )


def _calls_one_of(node: cst.CSTNode, names: frozenset[str]) -> bool:
    return bool(names) and isinstance(node, cst.Call) and dotted_name(node.func) in names


def wraps_arguments(function: cst.FunctionDef, resolve: Resolver) -> bool:
    """Whether a decorator of ``function`` is not known to pass the arguments on as they are
    (``TRANSPARENT_DECORATORS``; ``@torch.no_grad()`` as ``@torch.no_grad``)."""
    for decorator in function.decorators:
        named = decorator.decorator
        if isinstance(named, cst.Call):
            named = named.func
        qualified = resolve(named) or dotted_name(named) or ""
        if "." not in qualified:
            qualified = f"builtins.{qualified}"
        if qualified not in TRANSPARENT_DECORATORS and not qualified.endswith(".setter"):
            return True
    return False


def _returned_via(
    returned: Value,
    calls_out: Mapping[cst.CSTNode, tuple[str, tuple[tuple[int | str, Value], ...]]],
    result_parts: Mapping[cst.CSTNode, tuple[cst.CSTNode, int]],
) -> tuple[tuple[str, int | str, str], ...]:
    """``FunctionFlow.returned_via``: the calls of other files' functions the result holds
    (or one element of: taken as their whole result)."""
    calls = (result_parts[call][0] if call in result_parts else call for call in returned.calls)
    found = {
        (callee, slot, param)
        for call in calls
        if call in calls_out
        for callee, slots in (calls_out[call],)
        for slot, argument in slots
        for param in argument.params
    }
    return tuple(sorted(found, key=repr))


def _passed_on(
    calls_out: Mapping[cst.CSTNode, tuple[str, tuple[tuple[int | str, Value], ...]]],
    through_the_file: Iterable[tuple[str, int | str, str, tuple[tuple[int | str, str], ...]]],
) -> tuple[tuple[str, int | str, str, tuple[tuple[int | str, str], ...]], ...]:
    """``FunctionFlow.passed_on``: each parameter's tensor handed to another file's function,
    with the arguments beside it that are surely on the device (also by a function of the
    file it calls: ``through_the_file``)."""
    found = set(through_the_file)
    for callee, slots in calls_out.values():
        for slot, argument in slots:
            if not argument.on_device:
                continue
            beside = tuple(
                sorted(
                    {
                        (other_slot, param)
                        for other_slot, other in slots
                        if other_slot != slot and surely_on_device(other)
                        for param in (other.params - argument.params if other.params else {""})
                    },
                    key=repr,
                )
            )
            if beside:
                found.update((callee, slot, param, beside) for param in argument.params)
    return tuple(sorted(found, key=repr))


def _part_sources(
    found: Value,
    calls_out: Mapping[cst.CSTNode, _CallOut],
    result_parts: Mapping[cst.CSTNode, tuple[cst.CSTNode, int]],
) -> set[_PartSource]:
    """Where ``found``, an element of other files' results (``a, b = f(x, y)``), may come
    from: each call's arguments on the device that follow a parameter, whose summary the
    index reads to know which one the element follows."""
    sources: set[_PartSource] = set()
    for stand_in in found.calls:
        if stand_in not in result_parts:
            continue
        call, position = result_parts[stand_in]
        if call not in calls_out:
            continue
        callee, slots = calls_out[call]
        for slot, argument in slots:
            if argument.on_device:
                sources.update((callee, slot, param, position) for param in argument.params)
    return sources


def _passed_parts(
    calls_out: Mapping[cst.CSTNode, _CallOut],
    result_parts: Mapping[cst.CSTNode, tuple[cst.CSTNode, int]],
    through_the_file: Iterable[_PassedPart],
) -> tuple[_PassedPart, ...]:
    """``FunctionFlow.passed_parts``: elements of other files' results handed to another
    file's function here (and by the file's functions it calls: ``through_the_file``)."""
    found = set(through_the_file)
    for callee, slots in calls_out.values():
        for slot, argument in slots:
            sources = _part_sources(argument, calls_out, result_parts)
            if not sources:
                continue
            beside: set[tuple[int | str, str]] = set()
            for other_slot, other in slots:
                if other_slot == slot:
                    continue
                if surely_on_device(other):
                    beside.update((other_slot, param) for param in other.params or {""})
                for _, _, param, _ in _part_sources(other, calls_out, result_parts):
                    beside.add((other_slot, param))
            if beside:
                given = tuple(sorted(beside, key=repr))
                found.update((*source, callee, slot, given) for source in sources)
    return tuple(sorted(found, key=repr))


def _forwarded(returned: Value, calls_out: Mapping[cst.CSTNode, _CallOut]) -> _CallOut | None:
    """``FunctionFlow.forwarded``: the one call of another file's function whose result
    ``returned`` is, as it returned it."""
    if len(returned.calls) != 1 or returned.made or returned.params or returned.tied:
        return None
    call = returned.calls[0]
    return calls_out.get(call) if returned.origins == UNKNOWN.origins else None


def _positionwise(returns: Sequence[list[Value] | Value]) -> tuple[Value, ...]:
    """Each position's values joined over the tuples written out (all as long), with the
    whole of any other value returned."""
    written = [found for found in returns if isinstance(found, list)]
    if not written or len({len(found) for found in written}) > 1:
        return ()
    whole = [found for found in returns if isinstance(found, Value)]
    return tuple(as_returned(join(*column, *whole)) for column in zip(*written, strict=True))


def class_model(
    node: cst.ClassDef,
    resolve: Resolver,
    functions: Mapping[str, cst.FunctionDef] | None = None,
    callees: Callees | None = None,
) -> ClassModel:
    """Methods of the class, and the attributes its ``__init__`` leaves on ``self`` (with
    ``callees``, also what the helpers it calls return: ``self.grid = self.make_grid(n)``)."""
    methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
    init = methods.get("__init__")
    if init is None:
        return ClassModel(node, methods, {})
    around = Surroundings(resolve, ClassModel(node, methods, {}), functions or {}, callees)
    inference = _Inference(around, construction=True)
    inference.function = init
    for param in _parameters(init):
        inference.env[param.name.value] = _construction_parameter(param, resolve)
    inference.run(init.body)
    attributes = {
        key[5:]: found
        for key, found in inference.env.items()
        if key.startswith("self.") and "." not in key[5:]
    }
    scalars = frozenset(inference.maybe_scalar - inference.shaped)
    classes = _attribute_classes(init, resolve)
    lists = frozenset(name[5:] for name in inference.lists if name.startswith("self."))
    return ClassModel(node, methods, attributes, inference.values, scalars, classes, lists)


def _construction_parameter(param: cst.Param, resolve: Resolver) -> Value:
    """A parameter of ``__init__``: configuration (a list or tuple when its default or its
    annotation says so: ``torch.tensor(mean)`` of it is no 0-dim scalar), except one
    annotated as a tensor, which the caller made wherever it was (the parameter is its
    creation site here)."""
    factory = _factory_default(param, resolve)
    if factory is not None:
        return factory
    annotation = param.annotation.annotation if param.annotation else None
    names = annotation_names(annotation) if annotation else set()
    if isinstance(annotation, (cst.Name, cst.Attribute)):  # not `float | Tensor`
        named = resolve(annotation) or dotted_name(annotation) or ""
        if named.endswith("Tensor"):
            return Value(UNKNOWN.origins, (param,))
    found = _parameter_value(param, lambda: False, resolve)
    listed = isinstance(param.default, (cst.List, cst.Tuple)) or bool(names & _SEQUENCE_TYPES)
    return HOST_SEQUENCE if found.only_host and listed else found


def _factory_default(param: cst.Param, resolve: Resolver) -> Value | None:
    """A parameter whose default is a torch factory, uncalled (``window_fn=torch.hann_window``):
    called without ``device=``, the default makes CPU tensors."""
    default = param.default
    if isinstance(default, (cst.Name, cst.Attribute)):
        return _named_factory(default, resolve)
    return None


def _named_factory(node: cst.Name | cst.Attribute, resolve: Resolver) -> Value | None:
    """``torch.hann_window`` (or an alias of it) named, not called: ``stored_factory``."""
    last = node.value if isinstance(node, cst.Name) else node.attr.value
    if last not in STORABLE_FACTORIES or resolve(node) != f"torch.{last}":
        return None
    return stored_factory(node)


def _attribute_classes(init: cst.FunctionDef, resolve: Resolver) -> dict[str, str]:
    """``self.<name> = <Class>(...)`` statements of ``init``'s own body, its ``if`` branches
    too (``if classification: self.softmax = nn.LogSoftmax(1)``): name -> class, unless two
    branches build different classes; also through ``<Class>.from_pretrained(...)`` and
    moves of the result (``.to(device)``)."""
    found: dict[str, str] = {}
    differing: set[str] = set()
    for statement in _branch_statements(init.body):
        for small in statement.body:
            if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)):
                continue
            made = small.value
            while isinstance(made.func, cst.Attribute) and isinstance(made.func.value, cst.Call):
                made = made.func.value  # `Pipeline.from_pretrained(name).to(device)`
            qualified = resolve(made.func)
            if qualified is not None and qualified.endswith(".from_pretrained"):
                qualified = qualified.rpartition(".")[0]
            for target in small.targets:
                name = dotted_name(target.target)
                if qualified is None or name is None or not name.startswith("self."):
                    continue
                if found.setdefault(name[5:], qualified) != qualified:
                    differing.add(name[5:])
    return {name: built for name, built in found.items() if name not in differing}


def _item_name(container: str, key: str | bytes) -> str:
    """How ``env`` holds the item of a dict written out under a string key: by the
    string's value (``'m'`` and ``"m"`` alike)."""
    return f"{container}[{key!r}]"


def places_by_default(factory: cst.Call) -> bool:
    """A factory call whose arguments leave its tensor where the factory puts it by
    default: no ``device=``, ``out=`` or ``**kwargs``. Only such a call makes a tensor of
    its own (``Value.made``): the others go where their arguments say."""
    return not has_double_star(factory) and not any(
        keyword_argument(factory, keyword) is not None for keyword in ("device", "out")
    )


def returns_a_dict(function: cst.FunctionDef) -> bool:
    """Every ``return`` of ``function`` (and there is one) gives a dict written out: a
    display or comprehension, or a local name only ever bound to one."""
    returns = [node for node in descendants(function.body) if isinstance(node, cst.Return)]

    def a_dict(value: cst.BaseExpression | None) -> bool:
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return True
        if not isinstance(value, cst.Name):
            return False
        given = values_assigned(value.value, function)
        return bool(given) and all(isinstance(v, (cst.Dict, cst.DictComp)) for v in given)

    return bool(returns) and all(a_dict(node.value) for node in returns)


def _names_one_of(node: cst.BaseExpression, names: set[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in names


def _branch_statements(block: cst.BaseSuite) -> Iterator[cst.SimpleStatementLine]:
    """The simple statements of ``block`` and of the ``if``/``else`` branches in it, in
    order (not loops, nested functions or classes)."""
    if not isinstance(block, cst.IndentedBlock):
        return
    for statement in block.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        branch: cst.If | cst.Else | None = statement if isinstance(statement, cst.If) else None
        while branch is not None:
            yield from _branch_statements(branch.body)
            branch = branch.orelse if isinstance(branch, cst.If) else None


_Local = cst.FunctionDef | cst.Lambda
"""A function defined inside another: a ``def``, or a lambda bound to a name."""


def _parameter_names(function: _Local, method: bool) -> list[str]:
    """The names positional arguments bind to, ``self`` (or ``cls``) left out of a method's
    (a static method has none)."""
    params = function.params
    names = [param.name.value for param in (*params.posonly_params, *params.params)]
    static = isinstance(function, cst.FunctionDef) and is_static_method(function)
    return names[1:] if method and names and not static else names


def _parameters(function: cst.FunctionDef) -> Iterable[cst.Param]:
    return _parameters_of(function.params)


def _parameters_of(params: cst.Parameters) -> Iterable[cst.Param]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            every.append(extra)
    return [param for param in every if param.name.value not in ("self", "cls")]


def _used_as_tensors(body: cst.BaseSuite) -> tuple[set[str], set[str]]:
    """Names the body uses as a tensor would be used (``x.shape``, ``x[:, 0]``): a
    parameter without them is as likely a number (``dropout``, ``max_len``). Not one it
    asks ``hasattr`` or ``getattr`` about: an object whose type the code does not know (a
    model whose submodules it probes), whatever it reads of it. Then, apart, the
    sequences it only takes apart (``a, b = inputs``, ``for a in inputs``) where one of
    the parts is used so, or named like a tensor (``x``): they hold tensors; a part it
    calls is a function or a module (``for model in models: model(x)``), and one it only
    reads by string keys (``meta["pad_shape"]``) a record of anything, no tensor."""
    keyed: set[str] = set()  # read by a string key (`meta["pad_shape"]`): a dict, maybe
    read: set[str] = set()  # read otherwise (`x.shape`, `x[:, 0]`)
    probed: set[str] = set()
    called: set[str] = set()
    parts: list[tuple[cst.BaseAssignTargetExpression, str]] = []  # bound to a name's parts
    stack: list[cst.CSTNode] = list(iter_children(body))
    while stack:
        node = stack.pop()
        kind = type(node)  # `isinstance` on libcst's classes goes through ABCMeta: slow
        if kind is cst.Attribute or kind is cst.Subscript:
            value = cast("cst.Attribute | cst.Subscript", node).value
            if type(value) is cst.Name:
                if kind is cst.Subscript and _keyed(cast("cst.Subscript", node)):
                    keyed.add(value.value)
                else:
                    read.add(value.value)
        elif kind is cst.Call:
            call = cast("cst.Call", node)
            func = call.func
            first = call.args[0].value if call.args else None
            probe = type(func) is cst.Name and func.value in _PROBES
            if probe and type(first) is cst.Name:
                probed.add(first.value)
            if type(func) is cst.Name:
                called.add(func.value)
        elif kind is cst.Assign:
            assign = cast("cst.Assign", node)
            if type(assign.value) is cst.Name:
                for assigned in assign.targets:
                    if type(assigned.target) in (cst.Tuple, cst.List):
                        parts.append((assigned.target, assign.value.value))
        elif kind is cst.For or kind is cst.CompFor:
            loop = cast("cst.For | cst.CompFor", node)
            if type(loop.iter) is cst.Name:
                parts.append((loop.target, loop.iter.value))
        if kind is not cst.FunctionDef and kind is not cst.ClassDef and kind is not cst.Lambda:
            stack.extend(iter_children(node))
    named = [
        (whole, [n.value for n in unpacked(target) if type(n) is cst.Name])
        for target, whole in parts
    ]
    used = keyed | read
    used -= called & {name for _, names in named for name in names}
    used -= probed
    sequences: set[str] = set()
    grown = True
    while grown:  # `a, b = inputs; (c, d) = a`: a part of a part counts too
        before = len(sequences)
        for whole, names in named:
            tensors = (used - (keyed - read)) | sequences | TENSOR_PARAMETER_NAMES
            if whole not in used and any(name in tensors for name in names):
                sequences.add(whole)
        grown = len(sequences) > before
    return used, sequences - probed


def _keyed(node: cst.Subscript) -> bool:
    """``meta["pad_shape"]``: read by a string key."""
    return all(
        isinstance(element.slice, cst.Index) and type(element.slice.value) is cst.SimpleString
        for element in node.slice
    )


def _parameter_value(param: cst.Param, tensor: Callable[[], bool], resolve: Resolver) -> Value:
    """What a parameter holds on entry: by its annotation (its names as the file's imports
    resolve them: ``from torch import Tensor as T``), its default, its name, and
    (``tensor``, asked last) whether the function uses it as a tensor."""
    name = param.name.value
    if name == "device":
        return from_parameter(name)
    if name in CONFIG_PARAMETERS:
        return HOST_SEQUENCE
    if name == DATASET_PARAMETER_NAMES[0] or name.endswith(DATASET_PARAMETER_NAMES[1:]):
        return CHOSEN_CPU  # a dataset's samples are on the CPU, where data loading made them
    if param.annotation is not None:
        kind = _annotation_kind(param.annotation.annotation, resolve)
        if kind == "tensor":
            return from_parameter(name)
        return HOST if kind == "host" else UNKNOWN
    default = param.default
    if default is not None and not is_none(default):
        return HOST  # a number, a string, a flag: not a tensor
    return from_parameter(name) if tensor() else UNKNOWN


def _annotation_kind(annotation: cst.BaseExpression, resolve: Resolver) -> str:
    """``tensor`` when it names a tensor, or a module or a device (``nn.Module``,
    ``torch.device``: on the computation's device as a tensor input is), as written or
    through the file's imports (``from torch import Tensor as T``); ``host`` when only
    Python data, else ``other``."""
    names = annotation_names(annotation)
    if "Callable" in names:
        return "other"  # a function, whatever tensors it takes or returns
    resolved = (
        resolve(part)
        for part in (annotation, *descendants(annotation))
        if isinstance(part, (cst.Name, cst.Attribute))
    )
    if _names_a_placed_type(names) or _names_a_placed_type(
        found.rpartition(".")[2] for found in resolved if found is not None
    ):
        return "tensor"
    return "host" if names and all(name in HOST_ANNOTATIONS for name in names) else "other"


def _names_a_placed_type(names: Iterable[str]) -> bool:
    """A tensor, a module or a device type among ``names`` (last parts)."""
    return any(name.endswith(("Tensor", "Module", ".device")) or name == "device" for name in names)


@dataclass
class _Results:
    """What a function gives its callers: its ``return`` values, or, for a generator, what
    it yields (what iterating over its call gives; its ``return`` only ends the loop)."""

    values: list[Value] = field(default_factory=list)
    whole: list[cst.CSTNode] = field(default_factory=list)
    """Where the CPU tensors given whole (not as an element of a tuple written out) were
    made, 0-dim ones too."""
    tuples: list[list[Value] | Value] = field(default_factory=list)
    """Per result: the elements of the tuple it writes out, else its value."""


class _Inference:
    """One pass over a function body, updating ``env`` statement by statement."""

    def __init__(self, around: Surroundings, *, construction: bool = False) -> None:
        self._around = around
        self._construction = construction
        """Inferring ``__init__`` for the class model: see ``ClassModel.built``."""
        self.maybe_scalar: set[cst.CSTNode] = set()
        self.shaped: set[cst.CSTNode] = set()
        """For ``ClassModel.scalars``: the sites made, and those given dimensions."""
        self._resolve = around.resolve
        self._owner = around.owner
        self.env: dict[str, Value] = {}
        """Values of local names and of attribute chains assigned here (``self.mask``)."""
        self.meetings: list[Meeting] = []
        self._seen: set[tuple[int, int]] = set()
        self.values: dict[cst.CSTNode, Value] = {}
        self._returned = _Results()
        self._yielded = _Results()
        self._unpackable: dict[cst.CSTNode, Callable[[], tuple[Value, ...]]] = {}
        """Calls of this file's functions, with what gives the elements of the tuple they
        return: a target unpacking the call binds each name to its own element."""
        self.function: cst.FunctionDef | None = None
        self.sequences: frozenset[str] = frozenset()
        """Parameters that only what the function takes out of them places as tensors
        (``x, n = inputs``, then ``x.shape``): a part taken out of one is a tensor only if
        it is one of ``tensors``."""
        self.tensors: frozenset[str] = frozenset()
        """The names the function places as tensors, by their names or their uses (with
        ``sequences``)."""
        self._by_backend: bool | None = None
        self.lists: set[str] = set()
        """Names last bound to a list or tuple written out: ``torch.tensor`` of one makes a
        CPU tensor, even of tensors on a device (it copies their values)."""
        self.dicts: set[str] = set()
        """Names bound to a dict written out (``{...}``, a comprehension): ``d[k] = v`` stores
        ``v`` there for ``d[k]`` to give back (``_item_key``), as a name does."""
        self.keyed_dicts: set[str] = set()
        """Those of ``dicts`` written with a string for every key: each item is held under
        its key, so the dict's own value is its items' as they are now (``_rewrite_item``)."""
        self.not_none: set[str] = set()
        """Parameters a caller passes a tensor (not None) and not rebound since: an
        ``if x is None:`` branch on them does not run for that call."""
        self.reaching: dict[str, set[str]] = {}
        self.passed_on: set[tuple[str, int | str, str, tuple[tuple[int | str, str], ...]]] = set()
        """``FunctionFlow.passed_on`` through the file's functions it calls."""
        self.passed_parts: set[_PassedPart] = set()
        """``FunctionFlow.passed_parts`` through the file's functions it calls."""
        self.handoffs: list[Handoff] = []
        self.results_meeting: set[cst.CSTNode] = set()
        self.calls_out: dict[cst.CSTNode, _CallOut] = {}
        """Each call of another file's function: its callee and its arguments' values."""
        self.answering: dict[cst.CSTNode, str] = {}
        """Each call of a method of an object ``__init__`` made: the method (``Value.answers``)."""
        self.copied_answers: dict[cst.CSTNode, tuple[str, ...]] = {}
        """``FunctionFlow.copied_answers``."""
        self.joined: set[str] = set()
        """``FunctionFlow.joined``."""
        self.typed_by: set[str] = set()
        """``FunctionFlow.typed_by``."""
        self.typed_sites: set[cst.CSTNode] = set()
        """Creation sites of tensors converted to the type a parameter gives (``typed_by``):
        each call puts them where its type says, so no caller in another file is told
        they are on the CPU (``FunctionFlow.returned_whole``)."""
        self.results_handed: dict[tuple[cst.CSTNode, str, int | str], None] = {}
        """``FunctionFlow.results_handed``."""
        self.passing_through: set[cst.CSTNode] = set()
        """Calls of other files' functions given the function's own ``*args, **kwargs``."""
        self.result_parts: dict[cst.CSTNode, tuple[cst.CSTNode, int]] = {}
        """``FunctionFlow.result_parts``."""
        self._stand_ins: dict[tuple[cst.CSTNode, int], cst.CSTNode] = {}
        self._written: cst.Subscript | None = None
        """The target of the assignment being bound, while it is evaluated."""
        self._default_device: Value | None = None
        """The device a ``with torch.device(d):`` block around the statement makes the
        default: factories there without ``device=`` are made on it, not on the CPU."""
        self.nested: dict[str, _Local] = {}
        """Functions defined in this one (``def``, or a lambda bound to a name), by the name
        that still holds them."""
        self.inlining: frozenset[_Local] = frozenset()
        """The nested functions whose calls are being inferred around this pass (recursion)."""
        self.counts: set[cst.CSTNode] = set()
        self.moved_inputs: set[str] = set()
        """Parameters whose data the function moves to a device itself (``x.to(self.device)``,
        ``to_device(batch, d)``, also after deriving from them): see ``_as_handed``. Not
        ``x.to(other)`` (where another tensor is), nor a move to the parameter's own device
        (``m.to(x.device)``), nor ``.cuda()`` (the current GPU, often where the input is
        found to be: ``if x.is_cuda: t = t.cuda()``)."""
        """Creation sites of tensors whose elements bound a slice (``x[: counts[b]]``): a
        count per item, which the modules it is handed to use as numbers too."""

    # Statements --------------------------------------------------------------

    def run(self, block: cst.BaseSuite) -> None:
        if isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self._small(small)
            return
        assert isinstance(block, cst.IndentedBlock)
        for statement in block.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._small(small)
            else:
                self._compound(statement)

    def _small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Expr):
            self.eval(node.value)
        elif isinstance(node, cst.Assign):
            found = self.eval(node.value)
            for target in node.targets:
                self._bind(target.target, found, node.value)
                held = _list_holder(target.target)
                if held is not None and self._is_a_list(node.value):
                    self.lists.add(held)
                self._note_dict(target.target, node.value)
                if isinstance(node.value, cst.Lambda) and isinstance(target.target, cst.Name):
                    self.nested[target.target.value] = node.value
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self._bind(node.target, self.eval(node.value), node.value)
            self._note_dict(node.target, node.value)
        elif isinstance(node, cst.AugAssign):
            current = self.eval(node.target)
            change = self.eval(node.value)
            self._meet(node, MeetingKind.IN_PLACE, [(node.target, current), (node.value, change)])
            operator = cst.Module(body=[]).code_for_node(node.operator).strip()
            if AUGMENTED_ASSIGNMENT_METHODS.get(operator) in IN_PLACE_UPDATES:
                self._record(meetings_updated(node, (node.target, current), (node.value, change)))
            self._bind(node.target, combine(current, change), node.value)
        elif isinstance(node, cst.Return):
            self._give(self._returned, node.value)
        elif isinstance(node, cst.Assert):
            self.eval(node.test)
        elif isinstance(node, cst.Raise) and node.exc is not None:
            self.eval(node.exc)

    def _compound(self, node: cst.BaseStatement) -> None:
        if isinstance(node, cst.If) and _string_dispatch(node):
            self._dispatch(node)
        elif isinstance(node, cst.If) and self._export_only(node.test):
            self.eval(node.test)
            if node.orelse is not None:
                self._else(node.orelse)  # the body is the ONNX export's graph, not a device path
        elif isinstance(node, cst.If):
            self.eval(node.test)
            none_in_body, none_in_orelse = none_test(node.test)
            if none_in_body in self.not_none:
                if node.orelse is not None:
                    self._else(node.orelse)
                return
            if none_in_orelse in self.not_none:
                self.run(node.body)
                return
            before = dict(self.env)
            tested = none_in_body or none_in_orelse
            if tested is not None and tested not in before:
                # `self.low` read from what `__init__` left: the path that skips the test's
                # branch still holds that
                before[tested] = self.values.get(cast("cst.Comparison", node.test).left, UNKNOWN)
            host_in_body, host_in_orelse = none_in_body, none_in_orelse
            if host_in_body is None and host_in_orelse is None:
                host_in_body, host_in_orelse = self._tensor_test(node.test)
            if host_in_body is not None:
                self.env[host_in_body] = HOST
            module_in_body = self._tested_module(node.test)
            if module_in_body is not None:
                self.env[module_in_body] = from_parameter(module_in_body)
            cpu_in_body, cpu_in_orelse = _cpu_test(node.test)
            body = partial(self.run, node.body)
            on_accelerator = _accelerator_test(self._kept_test(node.test), self._resolve)
            if on_accelerator is not None:
                body = partial(self._on_accelerator, on_accelerator, body)
            self._on_cpu(cpu_in_body, body)
            after_body, self.env = self.env, before
            if host_in_orelse is not None:
                self.env = {**before, host_in_orelse: HOST}
            if node.orelse is not None:
                self._on_cpu(cpu_in_orelse, partial(self._else, node.orelse))
            if _leaves(node.body) and not (node.orelse is not None and _leaves(node.orelse)):
                return  # `if self.low is None: return x`: what follows sees the other path
            if node.orelse is not None and _leaves(node.orelse):
                self.env = after_body
                return
            self.env = _join_envs(after_body, self.env)
            moved_there = _moved_unless_there(node, after_body)
            if moved_there in after_body:
                self.env[moved_there] = after_body[moved_there]
            # a test that a tensor is on the GPU (`if x.is_cuda: t = t.cuda()`) decides it too:
            # where it is not, `t` stays with `x` on the CPU (another accelerator the project
            # would have to offer: DEV002 takes such a `.cuda()` as where `x` is, too)
            if node.orelse is None and (
                self._decides_the_gpu(node.test) or on_accelerator is not None
            ):
                for name, found in after_body.items():
                    if _moves(before.get(name), found):
                        self.env[name] = found
        elif isinstance(node, (cst.For, cst.While)):
            self._loop(node)
        elif isinstance(node, cst.With):
            outer = self._default_device
            for item in node.items:
                found = self.eval(item.item)
                if item.asname is not None:
                    self._bind(item.asname.name, found, item.item)
                # not `torch.device("cpu")` nor `"meta"`; one read at run time may be any
                if _names_a_device(item.item, self._resolve) and (
                    found.on_device or found.origins == UNKNOWN.origins
                ):
                    self._default_device = found
            self.run(node.body)
            self._default_device = outer
        elif isinstance(node, cst.Try):
            before = dict(self.env)
            self.run(node.body)
            branches = [self.env]
            for handler in node.handlers:
                self.env = dict(before)
                self.run(handler.body)
                branches.append(self.env)
            self.env = _join_envs(*branches)
            if node.orelse is not None:
                self.run(node.orelse.body)
            if node.finalbody is not None:
                self.run(node.finalbody.body)
        elif isinstance(node, cst.FunctionDef):
            self.env[node.name.value] = self._closure(node.params, node.body)
            self.nested[node.name.value] = node
        elif isinstance(node, cst.ClassDef):
            self.env[node.name.value] = UNKNOWN  # a nested class has its own flow
        elif isinstance(node, cst.Match):
            self.eval(node.subject)
            before = dict(self.env)
            branches = []
            for case in node.cases:
                self.env = dict(before)
                self.run(case.body)
                branches.append(self.env)
            self.env = _join_envs(before, *branches)

    def _export_only(self, test: cst.BaseExpression) -> bool:
        """``if torch.onnx.is_in_onnx_export():``: a branch only an export takes."""
        return isinstance(test, cst.Call) and self._resolve(test.func) in EXPORT_ONLY_CHECKS

    def _on_cpu(self, name: str | None, branch: Callable[[], None]) -> None:
        """Run ``branch``, where the tensor ``name`` is known to be on the CPU (``if
        x.device == torch.device("cpu"):``): nothing it meets there is on a device, and the
        CPU tensors made there are where it is, so they meet it after the branch too."""
        held = self.env.get(name) if name is not None else None
        if name is None or held is None or not held.on_device:
            branch()
            return
        earlier = {id(site) for found in self.env.values() for site in found.made}
        on_cpu = Value(frozenset({Origin.CPU}), params=held.params, tied=held.tied)
        self.env = {**self.env, name: on_cpu}
        branch()
        if self.env.get(name) is on_cpu:
            made = (site for found in self.env.values() for site in found.made)
            self.env[name] = tied_to(held, tuple(s for s in made if id(s) not in earlier))

    def _on_accelerator(self, name: str, branch: Callable[[], None]) -> None:
        """Run ``branch``, where the tensor ``name`` is known to be on an accelerator (``if
        x.is_cuda:``): whatever CPU tensor it may hold elsewhere, it holds none there."""
        held = self.env.get(name)
        if held is None or not held.made:
            branch()
            return
        origins = (held.origins & {Origin.FOLLOWS, Origin.LITERAL}) or LITERAL.origins
        there = replace(held, origins=origins, made=(), scalars=())
        self.env = {**self.env, name: there}
        branch()
        if self.env.get(name) is there:
            self.env[name] = held

    def _unpacks_a_device(self, call: cst.Call) -> bool:
        """``call`` takes ``**kw`` that may name a device: a dict the function or the class
        builds with a ``device`` key (``self.tpdv = dict(dtype=..., device=device)``), or
        one it cannot read (``**kwargs``, a parameter); not one built without it
        (``dict(dtype=torch.float32)``)."""
        unpacked = [arg.value for arg in call.args if arg.star == "**"]
        for value in unpacked:
            built = self._dicts_kept(value)
            if not built or any(_names_a_device_key(found) for found in built):
                return True
        return False

    def _dicts_kept(self, node: cst.BaseExpression) -> list[cst.BaseExpression]:
        """What the function assigns the local ``node``, or the class's methods the
        attribute ``self.<name>``; empty where that is not every value a dict literal or a
        ``dict(...)`` call (what it holds is unknown)."""
        attribute = attribute_of_self(node)
        found: Sequence[cst.BaseExpression]
        if isinstance(node, cst.Name) and self.function is not None:
            found = _assignments_by_name(self.function).get(node.value, ())
        elif attribute is not None and self._owner.node is not None:
            found = self_attribute_values(self._owner.node).get(attribute, ())
        else:
            return []
        built = all(
            isinstance(value, cst.Dict)
            or (isinstance(value, cst.Call) and dotted_name(value.func) == "dict")
            for value in found
        )
        return list(found) if built else []

    def _moves_where_tested(self, test: cst.BaseExpression) -> bool:
        """A move under ``test`` puts a value where the rest is (``_decides_the_gpu``, or
        a test that a tensor is on an accelerator): the path that skips it moves nothing."""
        kept = self._kept_test(test)
        return self._decides_the_gpu(kept) or _accelerator_test(kept, self._resolve) is not None

    def _kept_test(self, test: cst.BaseExpression) -> cst.BaseExpression:
        """The test a local keeps (``is_cuda = x.is_cuda``, then ``if is_cuda:``), where every
        plain assignment of it in the function is one test that a tensor is on an
        accelerator; else ``test`` itself."""
        if not isinstance(test, cst.Name) or self.function is None:
            return test
        assigned = _assignments_by_name(self.function).get(test.value, ())
        tested = {_accelerator_test(value, self._resolve) for value in assigned}
        return assigned[0] if len(tested) == 1 and None not in tested else test

    def _decides_the_gpu(self, test: cst.BaseExpression) -> bool:
        """A test that decides whether the code runs on the GPU at all: the accelerator
        exists, the caller gave a device, the user's device flag says so. A move in its
        branch (no ``else``) puts the value where everything else that test moved is; the
        path that skips it moved nothing."""
        return self._asks_availability(test) or _told_a_device(test) or flag_says_gpu(test) is True

    def _asks_availability(self, test: cst.BaseExpression) -> bool:
        """``torch.cuda.is_available()`` (alone or joined with ``and``): the branch runs
        wherever the accelerator exists, and the path that skips it has none to use."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._asks_availability(test.left) or self._asks_availability(test.right)
        if not isinstance(test, cst.Call):
            return False
        module, _, name = (self._resolve(test.func) or "").rpartition(".")
        return name == "is_available" and module.rpartition(".")[2] in DEVICE_TYPES

    def _dispatch(self, node: cst.If) -> None:
        """``if mode == "a": ... elif mode == "b": ...``: one branch runs, none is skipped
        (the options are checked where the mode is set), so what was bound before the chain
        and rebound in every branch is a placeholder that is never used."""
        before = dict(self.env)
        branches = []
        current: cst.If | cst.Else | None = node
        while isinstance(current, cst.If):
            self.env = dict(before)
            self.eval(current.test)
            self.run(current.body)
            branches.append(self.env)
            current = current.orelse
        self.env = _join_envs(*branches)

    def _else(self, orelse: cst.If | cst.Else) -> None:
        if isinstance(orelse, cst.If):
            self._compound(orelse)
        else:
            self.run(orelse.body)

    def _loop(self, node: cst.For | cst.While) -> None:
        before = dict(self.env)
        for _ in range(_LOOP_PASSES):
            start = dict(self.env)
            if isinstance(node, cst.For):
                self._bind_element(node.target, node.iter)
            else:
                self.eval(node.test)
            self.run(node.body)
            self.env = _join_envs(start, self.env)
            if self.env == start:
                break
        if node.orelse is not None:
            self.run(node.orelse.body)
        self.env = _join_envs(before, self.env)

    # Bindings ----------------------------------------------------------------

    def _note_dict(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``d = {...}`` (or a dict comprehension), or ``d = make_batch(...)`` of a function
        of this file whose every ``return`` gives one (``returns_a_dict``): ``d`` is a dict
        written out (``dicts``), whose items a subscript picks."""
        if not isinstance(target, cst.Name):
            return
        called = value.func if isinstance(value, cst.Call) else None
        if isinstance(called, cst.Name) and called.value not in self.env:  # no local of it
            function = self._around.functions.get(called.value)
            if function is not None and returns_a_dict(function):
                self.dicts.add(target.value)
        if isinstance(value, (cst.Dict, cst.DictComp)):
            self.dicts.add(target.value)
        if isinstance(value, cst.Dict):
            items = [
                (element.key.evaluated_value, element.value)
                for element in value.elements
                if isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString)
            ]
            if items and len(items) == len(value.elements):
                for key, item in items:
                    self.env[_item_name(target.value, key)] = self.values.get(item, UNKNOWN)
                self.keyed_dicts.add(target.value)

    def _rewrite_item(self, container: cst.BaseExpression) -> None:
        """An item of a dict of ``keyed_dicts`` was written (``batch["lr"] = lr.to(d)``):
        the dict now holds its items as they are (``return batch`` gives the moved one)."""
        if not (isinstance(container, cst.Name) and container.value in self.keyed_dicts):
            return
        prefix = f"{container.value}["
        items = [found for key, found in self.env.items() if key.startswith(prefix)]
        self.env[container.value] = _collection(items)

    def _item_key(self, node: cst.Subscript) -> str | None:
        """``d[k]`` or ``d["mask"]`` of a dict written out here (``dicts``), by a name or a
        string: the item a write there stores and a read gives back, until ``d`` or ``k`` is
        bound again (``_forget_items``)."""
        container = node.value
        if not (isinstance(container, cst.Name) and container.value in self.dicts):
            return None
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        key = node.slice[0].slice.value
        if isinstance(key, cst.Name):
            return f"{container.value}[{key.value}]"
        if isinstance(key, cst.SimpleString):
            return _item_name(container.value, key.evaluated_value)
        return None

    def _forget_items(self, name: str) -> None:
        """``name`` is bound again: the items it held as a dict, or picked as a key, are gone."""
        if not self.dicts:
            return
        stale = [k for k in self.env if k.startswith(f"{name}[") or k.endswith(f"[{name}]")]
        for key in stale:
            del self.env[key]

    def _is_a_list(self, node: cst.BaseExpression) -> bool:
        """A list or tuple written out, or a name bound to one."""
        return _is_sequence_literal(node) or (
            isinstance(node, cst.Name) and node.value in self.lists
        )

    def _bind(self, target: cst.BaseExpression, found: Value, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self._forget_items(target.value)
            self.env[target.value] = found
            self.nested.pop(target.value, None)
            self.not_none.discard(target.value)
            self.lists.discard(target.value)
            self.dicts.discard(target.value)
            self.keyed_dicts.discard(target.value)
        elif isinstance(target, cst.Attribute):
            self.lists.discard(_list_holder(target) or "")
            if target.attr.value == "data":
                self._write(target, self.eval(target.value), target.value, found, source)
            name = dotted_name(target)
            if name is not None:
                self.env[name] = found
        elif isinstance(target, cst.Subscript):
            self._written = target
            self.eval(target)
            if self._indexed_by_tensor(target):
                into = self.values.get(target.value, UNKNOWN)
                self._write(target, into, target.value, found, source)
            container = dotted_name(_outermost_container(target.value))
            held = self.env.get(container) if container is not None else None
            if container is not None and held is not None and held.only_host and not held.array:
                self.env[container] = join(held, found)  # d["mask"] = torch.ones(n)
            key = self._item_key(target)
            if key is not None:
                self.env[key] = found
                self._rewrite_item(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
            parts = None if starred else self._parts(source, len(target.elements))
            call = self._call_result(found)
            for position, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    call = None  # the positions after ``*rest`` are unknown
                if parts is not None:
                    part = parts[position]
                elif call is not None:
                    part = self._result_part(element.value, call, position)
                else:
                    part = self._part_of_input(element.value, found, source)
                self._bind(element.value, part, source)

    def _part_of_input(
        self, target: cst.BaseExpression, whole: Value, source: cst.CSTNode
    ) -> Value:
        """What ``target`` takes out of ``source``, an input the function takes apart
        (``x, size = inputs``, ``for x in inputs``): a tensor where the function uses it as
        one, else as likely a number (a size, a count) as a parameter that is not would be."""
        taken_from_input = (
            isinstance(source, cst.Name)
            and source.value in self.sequences
            and whole.params == {source.value}
            and whole.follows
        )
        if taken_from_input and isinstance(target, cst.Name) and target.value not in self.tensors:
            return replace(UNKNOWN, params=whole.params)
        return whole

    def _write(
        self,
        at: cst.BaseExpression,
        into: Value,
        into_node: cst.BaseExpression,
        found: Value,
        source: cst.CSTNode,
    ) -> None:
        """``found``, the value of ``source``, written into a tensor (``at``: ``a.data``,
        ``a[mask]``); only when ``source`` is the very expression that gave it (not one part
        of a tuple unpacked into several targets)."""
        if isinstance(source, cst.BaseExpression) and self.values.get(source) is found:
            self._record(meetings_written(at, (into_node, into), (source, found)))

    def _indexed_by_tensor(self, target: cst.Subscript) -> bool:
        """``a[mask]``, ``a[x > 0, :]``: an index that is a tensor makes an assignment an
        ``index_put_``, which needs the written tensor on ``a``'s device. A name counts when
        it holds a tensor made here or is a tensor parameter itself: one bound by a loop may
        be a key (``for name in batch: batch[name] = ...``)."""
        tensors = {Origin.CPU, Origin.FOLLOWS, Origin.LITERAL}
        for element in target.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            index = element.slice.value
            found = self.values.get(index, UNKNOWN)
            if not found.origins & tensors:
                continue
            if not isinstance(index, cst.Name) or found.made or found.params == {index.value}:
                return True
        return False

    def _parts(self, source: cst.CSTNode, count: int) -> list[Value] | None:
        """The values of a tuple literal unpacked element by element (``a, b = x, y``), or
        of the tuple a function of this file returns (``a, b = f(x)``)."""
        if source in self._unpackable:
            returned = self._unpackable[source]()
            return list(returned) if len(returned) == count else None
        if not isinstance(source, (cst.Tuple, cst.List)):
            return None
        stars = [e for e in source.elements if isinstance(e, cst.StarredElement)]
        if not stars:
            if len(source.elements) != count:
                return None
            return [self.values.get(element.value, UNKNOWN) for element in source.elements]
        if len(stars) > 1 or len(source.elements) - 1 > count:
            return None
        # `b, n, d, device = *x.shape, x.device`: the starred part fills the targets between
        # the elements before it and those after it, each one of its elements
        position = source.elements.index(stars[0])
        before = [self.values.get(e.value, UNKNOWN) for e in source.elements[:position]]
        after = [self.values.get(e.value, UNKNOWN) for e in source.elements[position + 1 :]]
        spread = self.values.get(stars[0].value, UNKNOWN)
        if _only_cpu_vectors(spread):
            spread = element_of_cpu_vectors(spread)
        return before + [spread] * (count - len(before) - len(after)) + after

    def _call_result(self, found: Value) -> cst.CSTNode | None:
        """The call of another file's function whose result ``found`` is, as it returned it
        (not derived from it, nor one element of it), else None."""
        if len(found.calls) != 1 or found.made or found.params or found.tied:
            return None
        call = found.calls[0]
        return call if call in self.calls_out and found.origins == UNKNOWN.origins else None

    def _result_part(self, stand_in: cst.CSTNode, call: cst.CSTNode, position: int) -> Value:
        """Element ``position`` of the result of ``call`` (another file's function), which
        ``stand_in`` stands for wherever it goes: its summary may know where it comes from."""
        first = self._stand_ins.setdefault((call, position), stand_in)  # one per element
        self.result_parts[first] = (call, position)
        return Value(UNKNOWN.origins, calls=(first,))

    def _bind_element(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """Bind a loop or comprehension target to an element of ``iterable``."""
        iterable = self._unwrapped(iterable)
        parts = self._element_parts(iterable)
        unpacked = target if isinstance(target, (cst.Tuple, cst.List)) else None
        if parts is not None and unpacked is not None and len(parts) == len(unpacked.elements):
            for element, part in zip(unpacked.elements, parts, strict=True):
                if _only_cpu_vectors(part):
                    part = element_of_cpu_vectors(part)  # `zip(xs, torch.tensor(weights))`
                self._bind(element.value, part, element.value)
            return
        found = join(*parts) if parts else self.eval(iterable)
        if self._owner.classes.get(attribute_of_self(iterable) or "") in MODULE_MAPPINGS:
            found = HOST  # `for name in self.heads`: the names of a ModuleDict
        self._unpackable.pop(iterable, None)  # `for a, b in f()` unpacks each element
        if parts is None and _only_cpu_vectors(found):
            found = element_of_cpu_vectors(found)  # each is 0-dim: it meets any device
        self._bind(target, self._part_of_input(target, found, iterable), iterable)

    def _unwrapped(self, iterable: cst.BaseExpression) -> cst.BaseExpression:
        """The iterable a progress bar wraps (``tqdm(range(n))``): its elements are the loop's."""
        while isinstance(iterable, cst.Call) and self._resolve(iterable.func) in PROGRESS_WRAPPERS:
            wrapped = first_positional(iterable)
            if wrapped is None:
                break
            iterable = wrapped.value
        return iterable

    def _element_parts(self, iterable: cst.BaseExpression) -> list[Value] | None:
        """``zip(a, b)`` and ``enumerate(a)`` yield tuples; ``range`` yields numbers; a
        mapping's ``items()`` yields its keys (Python data: names, node types) with its
        values, and ``keys()`` the keys alone."""
        if not isinstance(iterable, cst.Call):
            return None
        method = iterable.func.attr.value if isinstance(iterable.func, cst.Attribute) else None
        if method in ("items", "keys") and not iterable.args:
            mapping = self.eval(iterable)
            return [HOST, mapping] if method == "items" else [HOST]
        if self._resolve(iterable.func) in COUNTING_ITERABLES:
            return [HOST]
        if not isinstance(iterable.func, cst.Name):
            return None
        name = iterable.func.value
        if name not in ("zip", "enumerate", "range") or iterable.func.value in self.env:
            return None
        values = [self.eval(arg.value) for arg in iterable.args]
        if name == "range":
            return [HOST]
        if name == "enumerate":
            return [HOST, values[0] if values else UNKNOWN]
        return values

    # Expressions -------------------------------------------------------------

    def eval(self, node: cst.BaseExpression) -> Value:
        found = self._eval(node)
        self.values[node] = found
        return found

    def _eval(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, cst.Name):
            found = self._name(node.value)
            if found is UNKNOWN and node.value not in self.env:
                return _named_factory(node, self._resolve) or found
            return found
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.Ellipsis)):
            return HOST
        if isinstance(node, cst.SimpleString):
            return _string(node)
        if isinstance(node, (cst.ConcatenatedString, cst.FormattedString)):
            return HOST
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Subscript):
            return self._subscript(node)
        if isinstance(node, cst.Call):
            return self._under_default_device(node, self._call(node))
        if isinstance(node, cst.BinaryOperation):
            left, right = self.eval(node.left), self.eval(node.right)
            if _is_sequence_literal(node.left) or _is_sequence_literal(node.right):
                return _collection([left, right])  # `(a,) + b.split(n)`: tuples joined
            self._meet(node, MeetingKind.OPERATOR, [(node.left, left), (node.right, right)])
            return combine(left, right)
        if isinstance(node, cst.Comparison):
            return self._comparison(node)
        if isinstance(node, cst.UnaryOperation):
            operand = self.eval(node.expression)
            return HOST if isinstance(node.operator, cst.Not) else operand
        if isinstance(node, cst.BooleanOperation):
            return join(self.eval(node.left), self.eval(node.right))
        if isinstance(node, cst.IfExp):
            self.eval(node.test)
            body, orelse = self.eval(node.body), self.eval(node.orelse)
            if _moves(orelse, body) and self._moves_where_tested(node.test):
                return body  # `t.cuda() if x.is_cuda else t`: else `t` stays with `x`
            return join(body, orelse)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return _collection([self.eval(element.value) for element in node.elements])
        if isinstance(node, cst.Dict):
            return self._dict(node)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._comprehension(node)
        if isinstance(node, cst.NamedExpr):
            found = self.eval(node.value)
            self._bind(node.target, found, node.value)
            return found
        if isinstance(node, cst.Lambda):
            return self._closure(node.params, node.body)
        if isinstance(node, cst.Await):
            return self.eval(node.expression)
        if isinstance(node, cst.Yield):
            self._give(self._yielded, node.value)
        return UNKNOWN

    def _give(self, results: _Results, given: cst.BaseExpression | cst.From | None) -> None:
        """Record what a ``return`` or a ``yield`` gives (``yield from xs``: the items of
        ``xs``, which a loop over the generator binds as a loop over ``xs`` would)."""
        if isinstance(given, cst.From):
            given = given.item
        found = self.eval(given) if given is not None else HOST
        results.values.append(found)
        if not isinstance(given, (cst.Tuple, cst.List)):
            results.whole.extend((*found.made, *found.scalars))
        written = given if isinstance(given, cst.Tuple) else None
        parts = self._parts(written, len(written.elements)) if written else None
        results.tuples.append(found if parts is None else parts)

    @property
    def results(self) -> _Results:
        """What the function gives its callers: what it yields, if it is a generator."""
        return self._yielded if self._yielded.values else self._returned

    def _closure(self, params: cst.Parameters, body: cst.CSTNode) -> Value:
        """A nested function or lambda: it has its own flow; what matters here is which CPU
        tensors of this scope it captures and computes with, given tensors on the device
        (its body is inferred once so, with its parameters on the device)."""
        inner = _Inference(self._around, construction=self._construction)
        inner.function = self.function
        inner.env = dict(self.env)
        inner.dicts = set(self.dicts)
        inner.keyed_dicts = set(self.keyed_dicts)
        for param in _parameters_of(params):
            inner.env[param.name.value] = from_parameter(param.name.value)
        if isinstance(body, cst.BaseExpression):
            inner.eval(body)
        elif isinstance(body, cst.BaseSuite):
            inner.run(body)
        return captured(*(made_on_cpu(meeting.made) for meeting in inner.meetings))

    def _name(self, name: str) -> Value:
        found = self.env.get(name)
        if found is not None:
            return found
        return HOST if name in ("None", "True", "False") else UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        name = dotted_name(node)
        if name is not None:
            if name in self.env:
                return self.env[name]
            if f"{name}.".startswith(HYPERPARAMETER_ROOTS):
                return HOST  # configuration: Python data (most often a number)
        attribute = node.attr.value
        if is_self(node.value):
            return self._owner.attribute(attribute)
        factory = _named_factory(node, self._resolve)
        if factory is not None:
            return factory
        base = self.eval(node.value)
        if attribute == "device":
            return as_device(base)
        if attribute in TENSOR_HOST_ATTRIBUTES:
            return HOST
        return base

    def _subscript(self, node: cst.Subscript) -> Value:
        written, self._written = node is self._written, None
        base = self.eval(node.value)
        key = None if written else self._item_key(node)
        if key is not None and key in self.env:
            picked = node.slice[0].slice
            assert isinstance(picked, cst.Index)  # as `_item_key` asked
            self.eval(picked.value)
            return self.env[key]
        if self._element_of_one_dimension(base, node):
            return element_of_cpu_vectors(base)  # `torch.linspace(0, 1, n)[i]`: 0-dim
        call = self._call_result(base)
        position = _integer_index(node)
        if call is not None and position is not None and not written:
            return self._result_part(node, call, position)
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = self.eval(element.slice.value)
                if written:
                    continue  # `t[index] = v` (index_put_) copies the index to `t`'s device
                if (
                    (base.made or base.params or base.calls or base.chosen)
                    and Origin.HOST not in base.origins  # a dict or list of tensors: an item
                    and not _names_one_of(node.value, self.dicts)  # a dict written out here
                    and index.on_device
                    and not index.single
                ):
                    pair: list[Operand] = [(node.value, base), (element.slice.value, index)]
                    self._meet(node, MeetingKind.INDEX, pair, blamed=0)
                    self._record(meetings_indexed(node, pair[0], pair[1]))
            elif isinstance(element.slice, cst.Slice):
                for bound in (element.slice.lower, element.slice.upper, element.slice.step):
                    if bound is not None:
                        self.eval(bound)
                        if isinstance(bound, cst.Subscript):  # `x[: counts[b]]`
                            self.counts.update(self.values.get(bound.value, UNKNOWN).made)
        return base

    def _element_of_one_dimension(self, base: Value, node: cst.Subscript) -> bool:
        """``t[-1]``, ``t[i + 1]`` of a CPU tensor that only one-dimensional factories made:
        an index that is a Python number (a loop counter) picks one element; so do as many
        number indices as a factory gave sizes (``m[i][j]``, ``m[i, j]`` of
        ``torch.rand((n, n))``)."""
        indices: list[cst.SubscriptElement] = []
        current: cst.BaseExpression = node
        while isinstance(current, cst.Subscript):
            indices[:0] = current.slice
            current = current.value
        if self._holds_a_list(current):
            indices = indices[1:]  # `xs[k][i]`: the first index picks a tensor of the list
        if not indices or not _cpu_tensors_of_rank(base, len(indices)):
            return False
        for element in indices:
            index = element.slice
            if not isinstance(index, cst.Index) or _adds_or_keeps_dimensions(index.value):
                return False
            found = self.values.get(index.value) or self.eval(index.value)
            if not found.only_host or found.sequence:
                return False
        return True

    def _holds_a_list(self, node: cst.BaseExpression) -> bool:
        """``values`` or ``self.values`` bound to a list of tensors: an item is a whole one."""
        if isinstance(node, cst.Name):
            return node.value in self.lists
        return attribute_of_self(node) in self._owner.lists

    def _comparison(self, node: cst.Comparison) -> Value:
        left_node: cst.BaseExpression = node.left
        left = self.eval(left_node)
        results = [left]
        for target in node.comparisons:
            right = self.eval(target.comparator)
            results.append(right)
            identity = isinstance(target.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot))
            devices = _is_a_device_object(left_node) or _is_a_device_object(target.comparator)
            if not identity and not devices:
                pair: list[Operand] = [(left_node, left), (target.comparator, right)]
                self._meet(node, MeetingKind.COMPARISON, pair)
            left_node, left = target.comparator, right
        return combine(*results)

    def _dict(self, node: cst.Dict) -> Value:
        found = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key)
            found.append(self.eval(element.value))
        return _collection(found)

    def _comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp
    ) -> Value:
        outside = dict(self.env)
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self._bind_element(clause.target, clause.iter)
            for condition in clause.ifs:
                self.eval(condition.test)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.eval(node.key)
            element = self.eval(node.value)
        else:
            element = self.eval(node.elt)
        self.env = outside
        return _collection([element])

    # Calls -------------------------------------------------------------------

    def _under_default_device(self, node: cst.Call, found: Value) -> Value:
        """A call's result in a ``with torch.device(d):`` block: the tensors a function
        makes there without ``device=`` are made on ``d`` (this file's functions, and
        other files', whose summaries assume the CPU default). torch's own calls are
        placed by ``_factory`` (``torch.from_numpy`` stays on the CPU), and a method of a
        value gives what that value holds."""
        if self._default_device is None:
            return found
        func = node.func
        qualified = self._resolve(func)
        if qualified is not None and qualified.split(".", 1)[0] == "torch":
            return found
        named = isinstance(func, cst.Name) or (
            isinstance(func, cst.Attribute) and is_self(func.value)
        )
        if not (named or qualified is not None):
            return found  # a method of a value (`t.float()`): where `t` is, made before or not
        if found.made:
            return moved(self._default_device)
        return replace(found, calls=()) if found.calls else found

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        if isinstance(func, cst.Attribute) and not is_self(func.value):
            receiver: Value | None = self.eval(func.value)
        else:
            receiver = None
        arguments = [(arg, self.eval(arg.value)) for arg in node.args]
        if names_a_move_helper(func) and arguments and arguments[0][0].keyword is None:
            # what it moves (its first argument), not what names the device (`x.device`)
            others = set().union(*(found.params for _, found in arguments[1:]))
            self.moved_inputs.update(arguments[0][1].params - others)
        local = isinstance(func, cst.Name) and func.value in self.env
        qualified = None if local else self._resolve(func)
        if qualified is not None and qualified.split(".", 1)[0] == "torch":
            return self._torch_call(node, qualified, arguments)
        tensors_asked = keyword_argument(node, "return_tensors")
        if tensors_asked is not None and _is_string(tensors_asked.value, "pt"):
            return made_on_cpu(node)  # processor output: CPU tensors
        if isinstance(func, cst.Attribute) and is_self(func.value):
            return self._self_call(node, func.attr.value, arguments)
        trainer = self._trainer_call(func, arguments)
        if trainer is not None:
            return trainer
        if qualified is not None and qualified.split(".", 1)[0] in CPU_LIBRARIES | NUMBER_LIBRARIES:
            self._read_on_host(qualified, arguments)
            return _host_result(qualified)  # np.random.randint(...), as a named import's
        if receiver is not None and isinstance(func, cst.Attribute):
            found = self._method(node, func, receiver, arguments)
            if self._construction and receiver.made and func.attr.value in MOVE_METHODS:
                found = fixed_at_construction(found, receiver.made)
            if self._construction and node.args and func.attr.value in _SHAPING_METHODS:
                self.shaped.update(receiver.made)
            head = dotted_name(func)
            imported = head is not None and head.partition(".")[0] not in self.env
            if found is receiver and receiver == UNKNOWN and qualified and imported:
                return self._external(node, qualified, arguments)  # `module.helper(x)`
            answering = self._held_method(func)
            if answering is not None:
                self.answering[node] = answering
                found = replace(found, answers=(node,))
            return found
        if isinstance(func, cst.Name) and not local:
            return self._named_call(node, func.value, qualified, arguments)
        callee = self.eval(func)
        if callee.on_device:
            return self._module_call(node, func, arguments)
        if isinstance(func, cst.Call) and self._resolve(func.func) in FUNCTION_TRANSFORMS:
            return self._transformed_call(func, arguments)
        nested = self.nested.get(func.value) if isinstance(func, cst.Name) else None
        if nested is not None and nested not in self.inlining:
            return self._nested_call(node, nested, arguments)
        return self._closure_call(node, func, callee, arguments)

    def _held_method(self, func: cst.Attribute) -> str | None:
        """``self.<attribute>.<method>`` of an object ``__init__`` made of a class that is not
        torch's (``self.client = Client(url)``): the method, qualified through that class
        (``pkg.client.Client.generate``), whose summary says what it returns."""
        held = self._owner.classes.get(attribute_of_self(func.value) or "")
        if held is None or held.split(".", 1)[0] == "torch":
            return None
        return f"{held}.{func.attr.value}"

    def _read_on_host(self, qualified: str, arguments: Sequence[tuple[cst.Arg, Value]]) -> None:
        """A name handed to a library that reads host memory (``np.isnan(m)``): the code holds
        it on the host, so from here on it is no tensor on the device for a CPU one to meet
        (``torch.Tensor(m)`` after it is host data too). Not a CPU tensor made here, which
        stays blamed wherever it meets the device."""
        if qualified.split(".", 1)[0] not in HOST_ARRAY_LIBRARIES:
            return
        for arg, found in arguments:
            if isinstance(arg.value, cst.Name) and found.on_device and not found.made:
                self.env[arg.value.value] = CHOSEN_CPU

    def _trainer_call(
        self, func: cst.BaseExpression, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value | None:
        """In a subclass of transformers' Trainer, what the base does with a tensor:
        ``super()._prepare_inputs(inputs)`` puts it on the device the trainer trains on;
        ``self.accelerator.gather(t)`` (accelerate's) leaves it on its own. None elsewhere."""
        if not (isinstance(func, cst.Attribute) and arguments and self._in_trainer()):
            return None
        name, receiver = func.attr.value, func.value
        given = arguments[0][1]
        if name in TRAINER_PLACING_METHODS and _calls_super(receiver):
            return moved_from(FOLLOWS, given)
        if name in ACCELERATOR_CARRYING_METHODS and attribute_of_self(receiver) == "accelerator":
            return given
        return None

    def _in_trainer(self) -> bool:
        """The class this function is a method of names transformers' Trainer as a base."""
        owner = self._owner.node
        if owner is None:
            return False
        return any(self._resolve(base.value) in TRAINER_BASES for base in owner.bases)

    def _nested_call(
        self, node: cst.Call, function: _Local, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        """A call of a function defined in this one (``check_val(low)`` in ``__init__``, or
        ``dot(g, shift)`` of ``dot = lambda grad, shift: ...``: a lambda bound to a name is
        such a function): what it returns given these arguments and this scope's names, each
        element of a tuple it writes out apart; the CPU tensors passed or captured meet what
        they meet inside (its own flow reports those it makes). A tensor it makes is made at
        this call for the caller: each call's its own."""
        inner = _Inference(self._around, construction=self._construction)
        inner.function = self.function
        inner.env = dict(self.env)
        inner.dicts = set(self.dicts)
        inner.keyed_dicts = set(self.keyed_dicts)
        inner.nested = dict(self.nested)
        inner.inlining = self.inlining | {function}
        bound = _bound(function, arguments, method=False)
        for param in _parameters_of(function.params):
            name = param.name.value
            inner.env[name] = bound.get(name) or _parameter_value(
                param, lambda: False, self._resolve
            )
        if isinstance(function.body, cst.BaseExpression):
            inner._give(inner._returned, function.body)  # a lambda returns its body
        else:
            inner.run(function.body)
        inside = {id(site) for site in inner.values}
        self._record(meeting for meeting in inner.meetings if id(meeting.made) not in inside)
        if inner.maybe_scalar - inner.shaped:
            self.maybe_scalar.add(node)

        def at_call(found: Value) -> Value:
            sites = tuple(site for site in found.made if id(site) not in inside)
            return found if len(sites) == len(found.made) else replace(found, made=(*sites, node))

        results = inner.results
        parts = tuple(at_call(part) for part in _positionwise(results.tuples))
        self._unpackable[node] = lambda: parts
        return at_call(join(*results.values)) if results.values else HOST

    def _transformed_call(
        self, transform: cst.Call, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        """``torch.vmap(torch.diag)(x)``: a torch function's result is on its first tensor
        argument's device; any other function's is unknown here."""
        function = first_positional(transform)
        named = self._resolve(function.value) if function is not None else None
        if named is None or named.split(".", 1)[0] != "torch":
            return UNKNOWN
        tensors = [found for _, found in arguments if not found.only_host]
        return tensors[0] if tensors else UNKNOWN

    def _closure_call(
        self,
        node: cst.Call,
        func: cst.BaseExpression,
        callee: Value,
        arguments: Sequence[tuple[cst.Arg, Value]],
    ) -> Value:
        """A call of a closure over CPU tensors (``captured``): they meet its arguments. A
        torch factory named elsewhere (``stored_factory``) makes its tensor here."""
        if callee.factories and not has_double_star(node):
            device = keyword_argument(node, "device")
            if device is None:
                return made_on_cpu(node)
            return moved(self.values.get(device.value, UNKNOWN))
        if callee.made:
            operands: list[Operand] = [(arg.value, found) for arg, found in arguments]
            self._meet(node, MeetingKind.CLOSURE, [(func, callee), *operands], blamed=0)
        return UNKNOWN

    def _named_call(
        self,
        node: cst.Call,
        name: str,
        qualified: str | None,
        arguments: Sequence[tuple[cst.Arg, Value]],
    ) -> Value:
        if name == "self":
            forward = self._owner.methods.get("forward")
            if forward is not None:  # the class's own forward: where its arguments meet
                return self._local_call(node, forward, self._owner.node, arguments, method=True)
            return self._module_call(node, node.func, arguments)
        if qualified is None and name in ITERATING_BUILTINS | SILENT_BUILTINS:
            return HOST_SEQUENCE if name in ("list", "tuple", "sorted") else HOST
        if qualified is None and name in _COMBINING_BUILTINS:
            return combine(*(found for _, found in arguments))
        function = self._around.functions.get(name)
        if function is not None and (qualified or name).endswith(name):
            return self._local_call(node, function, None, arguments)
        found = self._library_call(qualified or name, arguments)
        if found is UNKNOWN and qualified is not None:
            return self._external(node, qualified, arguments)
        return found

    def _external(
        self, node: cst.Call, qualified: str, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        """A function this file imports: the CPU tensors passed to it are handed off, and its
        result is unknown, remembered as this call's (the callee's summary may know it)."""
        slots = _slots(arguments)
        placed = tuple(slot for slot, found in slots if surely_on_device(found))
        for slot, found in slots:
            for site in found.made:
                self.handoffs.append(Handoff(site, node, qualified, slot, placed))
            self.results_handed.update(
                dict.fromkeys((call, qualified, slot) for call in found.calls)
            )
        self.calls_out[node] = (qualified, tuple(slots))
        if self.function is not None and _passes_own_arguments(node, self.function):
            self.passing_through.add(node)
        return Value(UNKNOWN.origins, calls=(node,))

    def _library_call(self, qualified: str, arguments: Sequence[tuple[cst.Arg, Value]]) -> Value:
        """A call of something the file imports or defines (not torch's, not a local)."""
        root = qualified.split(".", 1)[0]
        last = qualified.rpartition(".")[2]
        if root in CPU_LIBRARIES | NUMBER_LIBRARIES:
            return _host_result(qualified)
        carrying = root in CARRYING_LIBRARIES or qualified.rpartition(".")[0] in CARRYING_LIBRARIES
        if carrying and arguments:
            return arguments[0][1]
        if last == "from_pretrained":
            loader = qualified.rpartition(".")[0].rpartition(".")[2]
            return UNKNOWN if loads_a_processor(loader) else FOLLOWS
        if last[:1].isupper():
            return self._constructed(arguments)
        return UNKNOWN

    def _tensor_test(self, test: cst.BaseExpression) -> tuple[str | None, str | None]:
        """``if isinstance(p, Tensor):`` -> (None, ``p``): on the other path ``p`` is no
        tensor; also with ``and p.ndim > 0`` (or ``p.dim() > 0``), where it is at most a
        0-dim one, which meets any device. ``if not isinstance(p, Tensor):`` -> (``p``,
        None). ``if isinstance(p, (int, float)):`` -> (``p``, None): a number in the body.
        Python data either way, as after ``if p is None``."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        if negated:
            assert isinstance(test, cst.UnaryOperation)
            test = test.expression
        name = None
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            name = self._tested_tensor(test.left)
            if negated or name is None or not _has_dimensions(test.right, name):
                return None, None
        else:
            name = self._tested_tensor(test)
        if name is None:
            number = _tested_number(test)
            if number is None:
                return None, None
            return (None, number) if negated else (number, None)
        return (name, None) if negated else (None, name)

    def _tested_tensor(self, test: cst.BaseExpression) -> str | None:
        """``p`` of ``isinstance(p, torch.Tensor)``."""
        if not (
            isinstance(test, cst.Call)
            and dotted_name(test.func) == "isinstance"
            and len(test.args) == 2
            and self._resolve(test.args[1].value) == "torch.Tensor"
        ):
            return None
        return dotted_name(test.args[0].value)

    def _tested_module(self, test: cst.BaseExpression) -> str | None:
        """``p`` of ``isinstance(p, nn.Module)``, a parameter that may be a module or a plain
        function (``model: Union[nn.Module, Callable]``): where the test holds, a module
        its caller gave, on the computation's device as an input annotated so is."""
        if not (
            isinstance(test, cst.Call)
            and dotted_name(test.func) == "isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)
            and self._resolve(test.args[1].value) in MODULE_CLASSES
            and self.function is not None
        ):
            return None
        name = test.args[0].value.value
        return name if any(p.name.value == name for p in _parameters(self.function)) else None

    def _in_setup(self) -> bool:
        """Module-level code or a setup method (``__init__``): what it builds is kept."""
        return self.function is None or self.function.name.value in SETUP_METHODS

    def _constructed(self, arguments: Sequence[tuple[cst.Arg, Value]]) -> Value:
        """An instance of a class: in ``__init__`` a submodule or a parameter, which moves
        with the module; elsewhere an object built from the tensors it is given (a model
        output), and one built from no tensor (a helper object, a module made there and
        left on the CPU) is on no device we know."""
        setup = self._in_setup()
        given = [found for _, found in arguments if found.origins - {Origin.HOST}]
        if setup or not given:
            return FOLLOWS if setup else UNKNOWN
        return combine(*given, meets=False)

    def _self_call(
        self, node: cst.Call, name: str, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        if name in MODULE_REGISTRARS and arguments:
            registered = arguments[0][0].value
            if isinstance(registered, cst.SimpleString):
                key = registered.evaluated_value
                if isinstance(key, str):
                    self.env[f"self.{key}"] = FOLLOWS
            return HOST
        method = self._owner.methods.get(name)
        if method is not None:
            return self._local_call(node, method, self._owner.node, arguments, method=True)
        if name in MODULE_TENSOR_METHODS:
            return FOLLOWS  # self.parameters(), self.buffers(): on the module's device
        if name not in self._owner.attributes and f"self.{name}" not in self.env:
            self._hand_kept_tensors(node, name, arguments)
            return UNKNOWN  # an inherited method (``self.log``), not a submodule we know
        attribute = self.env.get(f"self.{name}", self._owner.attribute(name))
        if not attribute.on_device:
            return self._closure_call(node, node.func, attribute, arguments)
        held = self._owner.classes.get(name)
        if held in INPUT_PLACING_MODELS:
            return FOLLOWS  # it moves what it is given to its own device
        module, _, built = (held or "").rpartition(".")
        if module == "torch.nn" and built in STATELESS_NN_MODULES and len(arguments) == 1:
            return arguments[0][1]  # self.softmax(x): no parameters, no device; x's device
        return self._module_call(node, node.func, _device_arguments(held, arguments))

    def _hand_kept_tensors(
        self, node: cst.Call, method: str, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> None:
        """``self.boost_rewards(r, a)``, a method of a base class in another file: it may
        read the CPU tensors the class keeps, each handed to it as ``self.<attribute>``
        (its summary says whether it meets the device there: ``reaching``). The arguments
        not on the CPU count as on the device, as the parameters of a method of the file
        are (``_parameter_value``): what a batch method hands on is the batch's."""
        owner = self._owner.node
        qualified = self._resolve(owner.name) if owner is not None else None
        if qualified is None:
            return
        placed = tuple(
            slot + 1 if isinstance(slot, int) else slot  # `self` is the method's first
            for slot, found in _slots(arguments)
            if not (found.made or found.only_host or Origin.CPU in found.origins)
        )
        for attribute, kept in self._owner.attributes.items():
            for site in self.env.get(f"self.{attribute}", kept).made:
                handed = Handoff(site, node, f"{qualified}.{method}", f"self.{attribute}", placed)
                self.handoffs.append(handed)

    def _local_call(
        self,
        node: cst.Call,
        function: cst.FunctionDef,
        owner: cst.ClassDef | None,
        arguments: Sequence[tuple[cst.Arg, Value]],
        *,
        method: bool = False,
    ) -> Value:
        """A function of this file: a CPU tensor passed where it meets the device inside
        meets it here; the result is what the function returns, with the CPU tensors
        passed (made here or put there: ``.cpu()``) in place of its parameters."""
        callees = self._around.callees
        if callees is None:
            return UNKNOWN
        bound = _bound(function, arguments, method)
        starred = any(arg.star for arg, _ in arguments)  # `**kw` may pass the device
        defaults = {} if starred else _cpu_defaults_left(function, bound)
        bound = {**bound, **defaults}
        passes_cpu = bool(defaults) or any(
            found.made or Origin.CPU in found.origins for _, found in arguments
        )
        # A wrapper may move the arguments first: the function's own flow, not the call's.
        wrapped = wraps_arguments(function, self._resolve)
        own = None if wrapped else callees.own_flow(function, owner)
        self._reach_through(own, bound)
        typed = own is not None and any(
            bound[name].on_device for name in own.typed_by if name in bound
        )
        if wrapped or (not passes_cpu and not typed and not _fills_none_default(function, bound)):
            if own is not None and own.forwarded is not None:
                callee, slots = own.forwarded  # as if this called that function itself
                given = tuple((slot, _in_caller_terms(v, bound)) for slot, v in slots)
                if own.passes_through:
                    given = _slots(arguments)
                self.calls_out[node] = (callee, given)
                return Value(UNKNOWN.origins, calls=(node,))
            returned = callees.returned(function, owner)
            tied = [bound[name].tied for name in returned.params if name in bound]
            self._unpackable[node] = lambda: tuple(
                tied_to(_in_caller_terms(part, bound), *tied)
                for part in callees.returned_parts(function, owner)
            )
            return tied_to(_in_caller_terms(returned, bound), *tied)
        flow = callees.called_with(function, owner, bound)
        if flow is None:
            return UNKNOWN
        passed = {id(site) for _, found in arguments for site in found.made}
        for meeting in flow.meetings:
            key = (id(meeting.made), id(meeting.at))
            if id(meeting.made) in passed and key not in self._seen:
                self._seen.add(key)
                self.meetings.append(meeting)
        parts = flow.returned_parts
        self._unpackable[node] = lambda: parts
        return flow.returned

    def _reach_through(self, flow: FunctionFlow | None, bound: Mapping[str, Value]) -> None:
        """What this function's parameters meet inside a function of the file it passes them
        to (``bound``: by the callee's parameter names), in this function's terms: which of
        its parameters meet which there, and which it hands on to other files' functions."""
        if flow is None:
            return

        def ours(name: str) -> set[str]:
            found = bound.get(name)
            if found is None or not found.on_device:
                return set()
            return set(found.params) or ({""} if surely_on_device(found) else set())

        def carried(name: str) -> set[str]:
            """``ours``, also as an element of another file's result (``_part_sources``)."""
            return ours(name) | self._params_of(bound.get(name))

        # Neither what the callee itself has on a device (``""``: a helper that chooses a
        # device may choose it for the caller's tensors too, which move together there), nor
        # a parameter that both sides may follow (`x.to(device)` and `y.to(device)` meet on
        # the device given: neither meets `device`).
        for name, partners in flow.reaching.items():
            own = ours(name)
            met = set().union(*(ours(p) - own for p in partners if p != ""))
            for param in own - {""}:
                if met:
                    self.reaching.setdefault(param, set()).update(met)
        for callee, slot, name, beside in flow.passed_on:
            own = ours(name)
            given = {(s, q) for s, p in beside if p != "" for q in ours(p) - own}
            for param in own - {""}:
                if given:
                    self.passed_on.add((callee, slot, param, tuple(sorted(given, key=repr))))
            # An element of another file's result handed on in the callee's place.
            sources = self._sources(bound.get(name))
            given = {(s, q) for s, p in beside if p != "" for q in carried(p)}
            if sources and given:
                beside_here = tuple(sorted(given, key=repr))
                self.passed_parts.update((*source, callee, slot, beside_here) for source in sources)
        for first, first_slot, name, position, callee, slot, beside in flow.passed_parts:
            given = {(s, q) for s, p in beside if p != "" for q in carried(p)}
            for param in ours(name) - {""}:
                if given:
                    entry = (first, first_slot, param, position, callee, slot)
                    self.passed_parts.add((*entry, tuple(sorted(given, key=repr))))

    def _sources(self, found: Value | None) -> set[_PartSource]:
        """``_part_sources`` of ``found`` here."""
        if found is None:
            return set()
        return _part_sources(found, self.calls_out, self.result_parts)

    def _params_of(self, found: Value | None) -> set[str]:
        """The parameters an element of another file's result may follow (``_part_sources``)."""
        return {param for _, _, param, _ in self._sources(found)}

    def _module_call(
        self, node: cst.Call, callee: cst.BaseExpression, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        """A module or model called with tensors: they must be on its device, which is the
        one a module moved to a tensor's device took (``T.Resample(a, b).to(wave.device)``).
        One told the device (``denoiser(audio=a, device=d)``) puts what it is given there
        itself: the caller chose where it computes, and the tensors meet nothing here."""
        if _told_the_device(node):
            return FOLLOWS
        operands: list[Operand] = [(arg.value, found) for arg, found in arguments]
        held = self.values.get(callee)
        placed = held if held is not None and held.on_device else FOLLOWS
        self._meet(node, MeetingKind.MODULE_CALL, [*operands, (callee, placed)])
        return FOLLOWS

    def _method(
        self,
        node: cst.Call,
        func: cst.Attribute,
        receiver: Value,
        arguments: Sequence[tuple[cst.Arg, Value]],
    ) -> Value:
        name = func.attr.value
        if name == "to":
            if casts_dtype_only(node):
                return receiver
            named = keyword_argument(node, "device")
            target = named or first_positional(node)
            if target is None and self._unpacks_a_device(node):
                # `x.to(**self.tpdv)`, a `dict(dtype=..., device=...)` kept for it: a move
                return moved_from(moved(UNKNOWN), receiver)
            if target is None:
                return receiver
            if holds_an_integer(target.value, self.function):
                return moved_from(LITERAL, receiver)  # `.to(local_rank)`: that GPU
            device = self.values.get(target.value, UNKNOWN)
            said = (
                named is not None
                or reads_a_device(dotted_name(target.value) or "")
                or self._string_parameter(target.value)
            )
            if not (said or not device.only_host):
                return receiver
            if said and device.on_device:  # to a device, not `.to(other)`: like `other`
                # not to a parameter's own device (`m.to(x.device)`): there `x` is placed
                self.moved_inputs.update(receiver.params - device.params)
            return moved_from(moved(device), receiver)
        if name == "cuda":
            return moved_from(LITERAL, receiver)
        if name == "cpu":
            return put_on_cpu(node)
        if name == "type_as" and arguments:
            return moved(arguments[0][1])
        if name == "type" and arguments:
            kind = arguments[0][0].value
            converted = self._tensor_type(kind, set())
            if converted is not None:
                return moved_from(converted, receiver)
            if isinstance(kind, cst.Name) and kind.value in self.typed_by:
                self.typed_sites.update(receiver.made)
            return receiver
        if name in NON_TENSOR_RESULTS:
            return HOST_SEQUENCE if name in _SEQUENCE_METHODS else HOST
        if name in FULL_REDUCTIONS and not arguments:
            return _reduced(receiver)
        holder = _outermost_container(func.value)
        if name in COLLECTION_UPDATERS and isinstance(holder, (cst.Name, cst.Attribute)):
            container = dotted_name(holder)
            if container is not None and receiver.origins & HOST.origins:
                self.env[container] = join(receiver, *(found for _, found in arguments))
            return HOST
        meets = name in TENSOR_ARGUMENT_METHODS and name not in CROSS_DEVICE_METHODS
        if name in IN_PLACE_UPDATES:  # `total.add_(loss)`
            for arg, found in arguments:
                self._record(meetings_updated(node, (func.value, receiver), (arg.value, found)))
        if meets and (receiver.made or receiver.on_device):
            operands: list[Operand] = [(func.value, receiver)]
            operands += [(arg.value, found) for arg, found in arguments]
            scalars = refuses_scalars(MeetingKind.METHOD, name)
            self._meet(node, MeetingKind.METHOD, operands, scalars=scalars)
            found = combine(receiver, *(found for _, found in arguments))
            if name in INDEXING_METHODS and receiver.origins == CHOSEN_CPU.origins:
                # on the CPU tensor it indexes, which alone is to blame where it meets the
                # device: its CPU index met it here, and moves with it
                return replace(found, made=receiver.made)
            return found
        if name.startswith("new_"):
            placed = keyword_argument(node, "device")
            return moved(self.values.get(placed.value, UNKNOWN)) if placed else receiver
        return receiver  # views, casts, reductions: on the receiver's device

    def _tensor_type(self, node: cst.BaseExpression, seen: set[str]) -> Value | None:
        """Where ``t.type(node)`` puts ``t``, or None where ``node`` may be a dtype (a cast,
        which keeps ``t`` where it is). A tensor type names a device type: another tensor's
        (``x.type()``, ``'torch.cuda.FloatTensor'`` on a GPU) puts ``t`` where that tensor
        is, as ``t.type_as(x)`` does; a GPU one (``torch.cuda.FloatTensor``, also as a
        string) on the current GPU, as ``.cuda()`` does; a name bound only to tensor types
        (chosen by a condition, ``torch.FloatTensor`` the CPU's) where any of them puts it.
        A parameter gives what its caller does: a dtype (``.type(torch.float16)``) casts, as
        a type the function alone cannot know."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value != "type" or node.args:
                return None
            return moved(self.values.get(node.func.value, UNKNOWN))
        if _legacy_tensor_type(node, self._resolve) == "torch.cuda":
            return LITERAL
        if isinstance(node, cst.IfExp):
            return self._chosen_tensor_type((node.body, node.orelse), seen)
        if not isinstance(node, cst.Name) or self.function is None or node.value in seen:
            return None
        assigned = values_assigned(node.value, self.function)
        if assigned:
            return self._chosen_tensor_type(assigned, seen | {node.value})
        if not any(param.name.value == node.value for param in _parameters(self.function)):
            return None
        self.typed_by.add(node.value)
        given = self.env.get(node.value, UNKNOWN)  # another tensor's type, as a call binds it
        return moved(given) if given.on_device else None

    def _chosen_tensor_type(
        self, options: Sequence[cst.BaseExpression], seen: set[str]
    ) -> Value | None:
        """Where ``t.type(o)`` puts ``t`` for any ``o`` of ``options``, each a tensor type, at
        least one with a device (``_tensor_type``); a CPU one is the code's choice, made where
        the other tensors are on the CPU too (``if x.is_cuda``), and adds nothing."""
        placed: list[Value] = []
        for option in options:
            found = self._tensor_type(option, seen)
            if found is not None:
                placed.append(found)
            elif _legacy_tensor_type(option, self._resolve) != "torch":
                return None
        return join(*placed) if placed else None

    def _string_parameter(self, node: cst.BaseExpression) -> bool:
        """A parameter annotated ``str``: handed to ``.to()``, a device (no dtype is a
        string), the one the caller names (``def _odin(self, x, dev: str)``)."""
        if not isinstance(node, cst.Name) or self.function is None:
            return False
        return any(
            param.name.value == node.value
            and param.annotation is not None
            and annotation_names(param.annotation.annotation) <= {"str", "Optional", "None"}
            and "str" in annotation_names(param.annotation.annotation)
            for param in _parameters(self.function)
        )

    def _torch_call(
        self, node: cst.Call, qualified: str, arguments: Sequence[tuple[cst.Arg, Value]]
    ) -> Value:
        module, _, name = qualified.rpartition(".")
        if module == "torch" and name in _FACTORIES:
            return self._factory(node, name)
        if qualified in CPU_RESULT_FUNCTIONS:
            return CHOSEN_CPU
        if qualified.startswith("torch.ops.") and not qualified.startswith("torch.ops.aten."):
            return UNKNOWN  # another library's custom op: its library places the result
        if qualified == "torch.device":
            return arguments[0][1] if arguments else UNKNOWN
        if module == "torch.nn" and stateless_module(node, name) and not self._in_setup():
            return UNKNOWN  # nn.Softmax(dim=-1)(x) made on the spot: no device of its own
        if name[:1].isupper() and module.startswith(ARGUMENT_PLACED_PACKAGES):
            return self._constructed(arguments)  # Normal(loc, scale): where loc and scale are
        if name[:1].isupper():
            return FOLLOWS  # nn.Linear(...), nn.Parameter(...): moves with the module
        if module.startswith("torch.nn.") and module.rpartition(".")[2][:1].isupper():
            return FOLLOWS  # nn.Embedding.from_pretrained(t): a module built by its class
        placed = keyword_argument(node, "device")
        if placed is not None and module == "torch" and qualified not in MEETING_FUNCTIONS:
            # torch.sparse_coo_tensor(indices, values, device=d), zeros_like(x, device=d):
            # a constructor told its device copies what it is given there
            return moved(self.values.get(placed.value, UNKNOWN))
        if name.endswith("_like"):
            return arguments[0][1] if arguments else UNKNOWN
        if qualified in MEETING_FUNCTIONS:
            operands = list(self._spread(arguments))
            scalars = refuses_scalars(MeetingKind.FUNCTION, name)
            self._meet(node, MeetingKind.FUNCTION, operands, scalars=scalars)
            sequence = first_positional(node)
            if name in JOINING_FUNCTIONS and sequence is not None and self.function is not None:
                self.joined.update(_sequence_parameters(sequence.value, self.function))
            return combine(*(found for _, found in operands))
        if qualified in COLLECTIVE_FUNCTIONS and not self._places_by_backend():
            group = collective_group(node, qualified)
            sources = self._bindings(group) if group is not None else []
            operands = list(self._spread(arguments))
            self._record(meetings_in_collective(node, operands, group, sources))
        if not arguments:
            return UNKNOWN
        first = arguments[0][1]
        if name in FULL_REDUCTIONS and len(arguments) == 1:
            return _reduced(first)
        if not first.only_host:
            return first  # torch.sin(x), F.pad(x, ...): on the first tensor's device
        if all(found.only_host for _, found in arguments):
            return combine(*(found for _, found in arguments))  # torch.log(torch.tensor(2.0))
        return UNKNOWN

    def _spread(self, arguments: Sequence[tuple[cst.Arg, Value]]) -> Iterable[Operand]:
        """Each tensor a call receives, the elements of a list literal one by one."""
        for arg, found in arguments:
            if isinstance(arg.value, (cst.List, cst.Tuple)) and not arg.star:
                for element in arg.value.elements:
                    yield element.value, self.values.get(element.value, UNKNOWN)
            else:
                yield arg.value, found

    def _factory(self, node: cst.Call, name: str) -> Value:
        if not places_by_default(node):
            return self._placed(node)
        self._sizes_are_numbers(node, name)
        if name in ARRAY_TENSOR_FACTORIES:
            return made_on_cpu(node)  # shares the array's memory: on the CPU in any block
        if self._default_device is not None:
            return moved(self._default_device)
        first = first_positional(node)
        if name in DATA_FACTORIES:
            return self._from_data(node, first)
        if name == "Tensor" and first is not None and len(node.args) == 1:
            aliased = self.values.get(first.value, UNKNOWN)
            handed = bool(aliased.params) and aliased.origins == UNKNOWN.origins
            if aliased.on_device or aliased.made or handed:
                # torch.Tensor(t) of a tensor (one a caller hands over too) is an alias of
                # t, on its device
                return aliased
        if name not in LEGACY_TENSOR_TYPES and first is not None and _is_empty_shape(first.value):
            return scalar_on_cpu(node)  # torch.rand([]): 0-dim (`torch.Tensor([])` is empty data)
        return made_on_cpu(node)

    def _placed(self, node: cst.Call) -> Value:
        """A factory its arguments place: with ``device=`` alone, where that device is;
        with ``out=`` or ``**kwargs``, unknown."""
        device = keyword_argument(node, "device")
        if device is None or has_double_star(node) or keyword_argument(node, "out") is not None:
            return UNKNOWN
        placed = moved(self.values.get(device.value, UNKNOWN))
        return fixed_at_construction(placed, (node,)) if self._construction else placed

    def _sizes_are_numbers(self, node: cst.Call, name: str) -> None:
        """The names and attributes a factory takes as its sizes or range
        (``torch.arange(0, rope.dim, 2)``) are Python numbers, wherever they are read next
        (``/ rope.dim``): an attribute of a module is not its tensor."""
        if name not in _ONE_DIMENSIONAL_FACTORIES and name not in _SIZED_FACTORIES:
            return
        for arg in node.args:
            sized = dotted_name(arg.value) if arg.keyword is None and not arg.star else None
            if sized is not None and sized != "self":
                self.env[sized] = HOST

    def _from_data(self, node: cst.Call, payload: cst.Arg | None) -> Value:
        """``torch.tensor(data)``: a tensor keeps its device; Python data goes to the CPU,
        except a single number (a 0-dim scalar)."""
        if payload is None:
            return UNKNOWN
        data = payload.value
        if isinstance(data, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
            return made_on_cpu(node)
        if isinstance(data, cst.Name) and data.value in self.lists:
            return made_on_cpu(node)
        found = self.values.get(data, UNKNOWN)
        methods = tuple(self.answering[call] for call in found.answers if call in self.answering)
        if methods and len(methods) == len(found.answers) and not (found.made or found.params):
            # a copy of a tensor the object gives, or of its Python data: its summary says
            self.copied_answers[node] = methods
            return made_on_cpu(node)
        if self._construction and found == UNKNOWN and isinstance(data, cst.Name):
            self.maybe_scalar.add(node)  # configuration: Python data, or one number
            return made_on_cpu(node)
        if self._copied_as_data(node, data, found):
            return made_on_cpu(node)
        if not found.only_host:
            return found
        return made_on_cpu(node) if found.sequence else scalar_on_cpu(node)

    def _copied_as_data(self, node: cst.Call, data: cst.BaseExpression, found: Value) -> bool:
        """``torch.tensor(x)`` of what a call the flow knows nothing of returned
        (``rewards = reward_fn(texts)``, a plain function): PyTorch warns when it copies a
        tensor so, so code writes it for Python data, which it puts on the CPU. Not
        ``torch.as_tensor``, which takes tensors as they are, nor another file's result,
        whose summary may know where it is, nor data the flow cannot place otherwise
        (``torch.tensor(scale - 1)`` of a parameter)."""
        factory = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if factory != "tensor" or found != UNKNOWN:
            return False
        sources = self._bindings(data) if isinstance(data, cst.Name) else [data]
        return bool(sources) and all(isinstance(source, cst.Call) for source in sources)

    def _bindings(self, name: cst.BaseExpression) -> list[cst.BaseExpression]:
        """What the function assigns to ``name``, a local name (every plain assignment)."""
        if not isinstance(name, cst.Name) or self.function is None:
            return []
        return [
            node.value
            for node in descendants(self.function.body)
            if isinstance(node, cst.Assign)
            and any(
                isinstance(target.target, cst.Name) and target.target.value == name.value
                for target in node.targets
            )
        ]

    def _places_by_backend(self) -> bool:
        """The function places its collectives' tensors by the backend: they meet nothing
        (asked once, and only of a function that calls a collective)."""
        if self._by_backend is None:
            body = self.function.body if self.function is not None else None
            callees = self._around.callees
            self._by_backend = (body is not None and places_by_backend(body)) or (
                callees is not None and callees.cpu_process_groups()
            )
        return self._by_backend

    def _meet(
        self,
        at: cst.CSTNode,
        kind: MeetingKind,
        operands: Sequence[Operand],
        blamed: int | None = None,
        *,
        scalars: bool = False,
    ) -> None:
        """Record where CPU tensors among ``operands`` meet the device: only the operand at
        position ``blamed`` when given (a CPU index into a device tensor is legal); 0-dim
        ones too where the operation refuses ``scalars``."""
        found = meetings_among(at, kind, operands, scalars=scalars)
        if blamed is not None:
            found = (meeting for meeting in found if meeting.cpu is operands[blamed][0])
        self._record(found)
        self._summarise_meeting(operands, blamed)

    def _record(self, meetings: Iterable[Meeting]) -> None:
        for meeting in meetings:
            key = (id(meeting.made), id(meeting.at))
            if key not in self._seen:
                self._seen.add(key)
                self.meetings.append(meeting)

    def _summarise_meeting(self, operands: Sequence[Operand], blamed: int | None = None) -> None:
        """What a summary of the function needs from a meeting: results of other files'
        functions that meet the device, and which parameters meet which (only the operand
        at ``blamed`` when given)."""
        values = [found for _, found in operands]
        placed = {position for position, found in enumerate(values) if surely_on_device(found)}
        if not placed:
            return
        for position, (operand, found) in enumerate(operands):
            if blamed is not None and position != blamed:
                continue
            partners = [values[other] for other in placed if other != position]
            for call in found.calls:
                if any(call not in partner.tied for partner in partners):
                    self.results_meeting.add(call)
            inherited = self._inherited_attribute(operand, found)
            if inherited is not None and partners:
                met = {p for o in partners for p in o.params or {""}}
                self.reaching.setdefault(inherited, set()).update(met)
            if not found.on_device:
                continue
            for name in found.params:
                met = {p for o in partners if name not in o.params for p in o.params or {""}}
                if met:
                    self.reaching.setdefault(name, set()).update(met)

    def _inherited_attribute(self, node: cst.CSTNode, found: Value) -> str | None:
        """``self.<name>`` (as ``reaching`` keys it) read where no method of the class in
        this file gives it a value: what a subclass keeps there, a tensor its ``__init__``
        made on the CPU perhaps, is handed to this method (``_hand_kept_tensors``). One the
        class sets itself (``self.boosts = self.boosts.to(self.device)`` in a hook) is the
        class's own business."""
        if found != UNKNOWN or not (isinstance(node, cst.Attribute) and is_self(node.value)):
            return None
        name = node.attr.value
        if name in self._owner.attributes or name in _set_on_self(self._owner.node):
            return None
        return f"self.{name}"


@lru_cache(maxsize=64)
def _set_on_self(owner: cst.ClassDef | None) -> frozenset[str]:
    """The attributes some method of the class assigns on ``self`` (``self.x = ...``,
    ``self.x += ...``, ``self.x: T = ...``)."""
    if owner is None:
        return frozenset()
    targets: list[cst.BaseExpression] = []
    for statement in descendants(owner.body):
        if isinstance(statement, cst.Assign):
            targets += [t for target in statement.targets for t in unpacked(target.target)]
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
            targets.append(statement.target)
    return frozenset(name for target in targets if (name := attribute_of_self(target)))


def _slots(arguments: Sequence[tuple[cst.Arg, Value]]) -> tuple[tuple[int | str, Value], ...]:
    """Each argument's slot (a position, or a keyword) with its value, up to a ``*args``,
    after which the positions are unknown."""
    slots: list[tuple[int | str, Value]] = []
    for position, (arg, found) in enumerate(arguments):
        if arg.star:
            break
        slots.append((arg.keyword.value if arg.keyword else position, found))
    return tuple(slots)


def _sequence_parameters(
    node: cst.BaseExpression, function: cst.FunctionDef, seen: frozenset[str] = frozenset()
) -> set[str]:
    """The parameters of ``function`` whose elements the sequence ``node`` holds: the
    parameter itself, a comprehension over one, or a local name bound only to those."""
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return _sequence_parameters(node.for_in.iter, function, seen)
    if not isinstance(node, cst.Name) or node.value in seen:
        return set()
    if node.value in parameter_names(function):
        return {node.value}
    assigned = values_assigned(node.value, function)
    found = [_sequence_parameters(value, function, seen | {node.value}) for value in assigned]
    return set.intersection(*found) if found and all(found) else set()


def _passes_own_arguments(call: cst.Call, function: cst.FunctionDef) -> bool:
    """``f(*args, **kwargs)`` inside ``def g(*args, **kwargs)``: every argument of the call
    is one of the function's own starred parameters, handed on unchanged."""
    params = function.params
    named = (*params.posonly_params, *params.params, *params.kwonly_params)
    if any(param.name.value not in ("self", "cls") for param in named):
        return False  # it keeps some arguments for itself: the positions differ
    own = {"*": params.star_arg, "**": params.star_kwarg}
    names = {star: param.name.value for star, param in own.items() if isinstance(param, cst.Param)}
    return bool(call.args) and all(
        arg.star in names and isinstance(arg.value, cst.Name) and arg.value.value == names[arg.star]
        for arg in call.args
    )


def _calls_super(node: cst.BaseExpression) -> bool:
    """``super()`` (or ``super(Cls, self)``): the next class of the method resolution order."""
    return isinstance(node, cst.Call) and dotted_name(node.func) == "super"


def _bound(
    function: _Local, arguments: Sequence[tuple[cst.Arg, Value]], method: bool
) -> dict[str, Value]:
    """The values a call passes, by the callee's parameter names (those we can place)."""
    names = _parameter_names(function, method)
    bound: dict[str, Value] = {}
    for position, (arg, found) in enumerate(arguments):
        if arg.star:
            break  # the positions after ``*args`` are unknown
        if arg.keyword is not None:
            bound[arg.keyword.value] = found
        elif position < len(names):
            bound[names[position]] = found
    return bound


def _cpu_defaults_left(function: cst.FunctionDef, bound: Mapping[str, Value]) -> dict[str, Value]:
    """The device parameters defaulting to the CPU (``device=torch.device("cpu")``, or
    ``device=None`` that the function only hands on as ``device=``, which a factory reads
    as its own default, the CPU) that a call leaves to their default: the default chooses
    the CPU for what the function places there, whatever its flow alone says of a
    ``device`` parameter (the computation's). A None the function may replace (``if device
    is None: device = x.device``) is no choice of the CPU."""
    return {
        param.name.value: CHOSEN_CPU
        for param in _parameters(function)
        if param.default is not None
        and param.name.value.endswith("device")
        and param.name.value not in bound
        and (
            names_the_cpu(param.default)
            or (is_none(param.default) and _only_handed_as_device(function, param.name.value))
        )
    }


def _only_handed_as_device(function: cst.FunctionDef, name: str) -> bool:
    """Every use of ``name`` in the function is the ``device=`` of a call: it is never
    tested, replaced or read otherwise."""
    handed = 0
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Arg) and node.keyword is not None:
            value = node.value
            if (
                node.keyword.value == "device"
                and isinstance(value, cst.Name)
                and value.value == name
            ):
                handed += 1
            else:
                stack.append(value)  # `name=` names the argument: it reads nothing
            continue
        if isinstance(node, cst.Name) and node.value == name:
            return False  # read, tested or bound otherwise
        stack.extend(iter_children(node))
    return handed > 0


def _in_caller_terms(returned: Value, bound: Mapping[str, Value]) -> Value:
    """What a function of the file returns, its parameters replaced by the parameters of
    the caller that the arguments bound to them derive from (``to_dtype(x)`` in a helper
    that moved ``x`` to ``tensor.device`` first follows ``tensor``, not the helper's ``x``);
    so are the parameters it moved (``Value.moved_params``)."""

    def in_caller_terms(names: frozenset[str]) -> frozenset[str]:
        return frozenset().union(*(bound[name].params for name in names if name in bound))

    return replace(
        returned,
        params=in_caller_terms(returned.params),
        moved_params=in_caller_terms(returned.moved_params),
    )


def _string_dispatch(node: cst.If) -> bool:
    """An ``if``/``elif`` chain without ``else`` that compares one name with a different
    string in each test (``self.mode == "additive"``): a dispatch on a configured option."""
    subjects: set[str | None] = set()
    options: set[object] = set()
    count = 0
    current: cst.If | cst.Else | None = node
    while isinstance(current, cst.If):
        test = current.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            return False
        target = test.comparisons[0]
        if not (
            isinstance(target.operator, cst.Equal)
            and isinstance(target.comparator, cst.SimpleString)
        ):
            return False
        subjects.add(dotted_name(test.left))
        options.add(target.comparator.evaluated_value)
        count += 1
        current = current.orelse
    named = len(subjects) == 1 and None not in subjects
    return current is None and count >= 2 and named and len(options) == count


def _fills_none_default(function: cst.FunctionDef, bound: Mapping[str, Value]) -> bool:
    """The call passes a tensor for a parameter that defaults to None: the function's
    ``if x is None:`` branches do not run for it, its general flow would join them in."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        name = param.name.value
        if is_none(param.default) and name in bound and _surely_not_none(bound[name]):
            return True
    return False


def _surely_not_none(found: Value) -> bool:
    """A tensor on some device, never a host value such as None."""
    return bool(found.origins) and not found.origins & {Origin.HOST, Origin.UNKNOWN}


def _cpu_test(test: cst.BaseExpression) -> tuple[str | None, str | None]:
    """``if x.device == torch.device("cpu"):`` (``x.device.type == "cpu"``, ``x.is_cpu``)
    -> (``x``, None): ``x`` is on the CPU in the body; with ``!=`` or ``not``, (None,
    ``x``): it is on the other path."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        in_body, in_orelse = _cpu_test(test.expression)
        return in_orelse, in_body
    if isinstance(test, cst.Attribute) and test.attr.value == "is_cpu":
        return dotted_name(test.value), None
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None, None
    target = test.comparisons[0]
    sides = (test.left, target.comparator)
    for side, other in (sides, sides[::-1]):
        held = _device_of(side)
        if held is not None and names_the_cpu(other):
            if isinstance(target.operator, cst.Equal):
                return held, None
            return (None, held) if isinstance(target.operator, cst.NotEqual) else (None, None)
    return None, None


def _accelerator_test(test: cst.BaseExpression, resolve: Resolver) -> str | None:
    """``x`` of ``if x.is_cuda:`` (``is_mps``, ``is_xpu``; alone or joined with ``and``) or
    of ``if isinstance(x, torch.cuda.FloatTensor):``: in the body, ``x`` is on an
    accelerator."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _accelerator_test(test.left, resolve) or _accelerator_test(test.right, resolve)
    if isinstance(test, cst.Attribute) and test.attr.value in ACCELERATOR_PREDICATES:
        return dotted_name(test.value)
    tested = tested_as_a_gpu_tensor(test, resolve)
    return dotted_name(tested) if tested is not None else None


def _moves(held: Value | None, found: Value) -> bool:
    """``found`` is ``held``, a tensor made on the CPU (0-dim too), moved (``t.cuda()``,
    ``t.to(device)`` with a ``device`` a helper may return as None elsewhere)."""
    if held is None or not (held.made or held.scalars):
        return False
    if found.made or found.scalars:
        return False
    return set(held.made) <= set(found.moved_sites)


def _device_of(node: cst.BaseExpression) -> str | None:
    """``x`` of ``x.device`` or ``x.device.type``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        node = node.value
    if isinstance(node, cst.Attribute) and node.attr.value == "device":
        return dotted_name(node.value)
    return None


def _leaves(branch: cst.BaseSuite | cst.If | cst.Else) -> bool:
    """The branch ends in a ``return`` or ``raise``: the code after the ``if`` never sees
    what it bound (an ``elif`` chain leaves only if each of its branches does)."""
    if isinstance(branch, cst.If):
        return _leaves(branch.body) and branch.orelse is not None and _leaves(branch.orelse)
    suite = branch.body if isinstance(branch, cst.Else) else branch
    statements = suite.body
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _has_dimensions(test: cst.BaseExpression, name: str) -> bool:
    """``p.ndim > 0`` or ``p.dim() > 0``: ``p`` is no 0-dim tensor."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    left = test.left.func if isinstance(test.left, cst.Call) else test.left
    zero = isinstance(target.comparator, cst.Integer) and target.comparator.value == "0"
    return (
        dotted_name(left) in (f"{name}.ndim", f"{name}.dim")
        and zero
        and isinstance(target.operator, (cst.GreaterThan, cst.NotEqual))
    )


_ONE_DIMENSIONAL_FACTORIES = ("arange", "linspace", "logspace", "randperm")
"""Factories whose tensors have one dimension: an integer index leaves a 0-dim tensor."""


def _adds_or_keeps_dimensions(index: cst.BaseExpression) -> bool:
    """``t[None]``, ``t[...]``, ``t[True]``: host values that pick no single element."""
    if isinstance(index, cst.Ellipsis):
        return True
    return isinstance(index, cst.Name) and index.value in ("None", "True", "False")


def _integer_index(node: cst.Subscript) -> int | None:
    """``k`` of ``x[k]``, a literal position counted from the start, else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    found = index.evaluated_value if isinstance(index, cst.Integer) else None
    return found if isinstance(found, int) else None


def _moved_unless_there(node: cst.If, after_body: Mapping[str, Value]) -> str | None:
    """``x`` of ``if x.device != d: x = x.to(d)`` or ``if x.is_cuda: x = x.cpu()`` (no
    ``else``): where the body puts it either way, so what the body made of it is what it
    holds after."""
    test = node.test
    if node.orelse is not None:
        return None
    if isinstance(test, cst.Attribute) and test.attr.value in ACCELERATOR_PREDICATES:
        name = dotted_name(test.value)
        held = after_body.get(name) if name is not None else None
        return name if held is not None and held.origins == CHOSEN_CPU.origins else None
    if not isinstance(test, cst.Comparison):
        return None
    if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.NotEqual):
        return None
    for side in (test.left, test.comparisons[0].comparator):
        if _is_a_device_object(side) and isinstance(side, cst.Attribute):
            return dotted_name(side.value)
    return None


def _outermost_container(node: cst.BaseExpression) -> cst.BaseExpression:
    """``rows`` for ``rows[c][layer]``: what a list nested in a container holds, the
    container holds (``rows[c][layer].append(t)``, ``mins[layer][pole] = t``)."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return node


def _tested_number(test: cst.BaseExpression) -> str | None:
    """``p`` of ``isinstance(p, (int, float))``: a Python number where the test holds."""
    if not (
        isinstance(test, cst.Call)
        and dotted_name(test.func) == "isinstance"
        and len(test.args) == 2
    ):
        return None
    types = test.args[1].value
    named = types.elements if isinstance(types, cst.Tuple) else [cst.Element(types)]
    if not all(dotted_name(element.value) in NUMBER_TYPES for element in named):
        return None
    return dotted_name(test.args[0].value)


def _told_a_device(test: cst.BaseExpression) -> bool:
    """``if device is not None:`` (no ``else``), also with a test that the same device is
    an accelerator (``and device.type != "cpu"``): a move in the body goes where the caller
    asked; a caller that gives no device (or the CPU) keeps the data where it made it, and
    all of it with it (whisper features, graph builders, collectives helpers take
    ``device=None``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        told = _given_device(test.left) or _given_device(test.right)
        return told is not None and all(
            _given_device(part) == told or _tests_accelerator(part, told)
            for part in (test.left, test.right)
        )
    return _given_device(test) is not None


def _given_device(test: cst.BaseExpression) -> str | None:
    """``device`` of ``device is not None`` (any name ending in ``device``)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    comparison = test.comparisons[0]
    compared_with_none = is_none(comparison.comparator)
    name = dotted_name(test.left) or ""
    told = (
        isinstance(comparison.operator, cst.IsNot)
        and compared_with_none
        and name.endswith("device")
    )
    return name if told else None


def _tests_accelerator(test: cst.BaseExpression, device: str) -> bool:
    """``device.type != "cpu"``, ``device.type == "cuda"`` of the ``device`` the caller
    gave (not ``== "cpu"``, nor another name's type: ``x.device.type`` is a tensor's)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    comparison = test.comparisons[0]
    compared = comparison.comparator
    if dotted_name(test.left) != f"{device}.type" or not isinstance(compared, cst.SimpleString):
        return False
    kind = compared.evaluated_value
    if isinstance(comparison.operator, cst.NotEqual):
        return kind == "cpu"
    return isinstance(comparison.operator, cst.Equal) and kind in DEVICE_TYPES


def _is_a_device_object(node: cst.BaseExpression) -> bool:
    """``x.device`` or ``torch.device(...)``: comparing devices (``x.device != dv``) is no
    meeting of tensors."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "device"
    return isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith("device")


def _host_result(qualified: str) -> Value:
    """What a function of a host library returns: a number (``math.sqrt``,
    ``random.randrange``), or data that may be an array (``np.arange``)."""
    root = qualified.split(".", 1)[0]
    if root in NUMBER_LIBRARIES and qualified not in NUMBER_LIBRARY_SEQUENCES:
        return HOST
    return HOST_ARRAY if root in HOST_ARRAY_LIBRARIES else HOST_SEQUENCE


_SIZED_FACTORIES = ("zeros", "ones", "empty", "rand", "randn")
"""Factories whose positional arguments are the size: one integer written out (``torch.rand(2)``)
makes a one-dimensional tensor."""


def _cpu_tensors_of_rank(tensor: Value, rank: int) -> bool:
    """A value that may be a CPU tensor, and whose CPU tensors factories made with ``rank``
    dimensions (one-dimensional ones: ``_one_dimensional``; more: as many sizes written out,
    ``torch.rand(n, m)``, ``torch.rand((n, m))``)."""
    if rank == 1:
        return _cpu_vectors(tensor)
    return (
        Origin.CPU in tensor.origins
        and bool(tensor.made)
        and all(isinstance(site, cst.Call) and _sizes_given(site) == rank for site in tensor.made)
    )


def _sizes_given(factory: cst.Call) -> int | None:
    """How many dimensions a sized factory's sizes written out give it (``torch.rand(n, m)``,
    ``torch.zeros((n, m))``: 2); None when one name may hold a whole shape."""
    name = (dotted_name(factory.func) or "").rpartition(".")[2]
    sizes = [arg.value for arg in factory.args if arg.keyword is None]
    if name not in _SIZED_FACTORIES or any(arg.star for arg in factory.args) or not sizes:
        return None
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        return None if any(isinstance(e, cst.StarredElement) for e in elements) else len(elements)
    return len(sizes) if len(sizes) > 1 else None


def _cpu_vectors(tensor: Value) -> bool:
    """A value that may be a CPU tensor, and whose CPU tensors only one-dimensional factories
    (``arange``, ``linspace``, a size of one integer) made."""
    return (
        Origin.CPU in tensor.origins
        and bool(tensor.made)
        and all(isinstance(site, cst.Call) and _one_dimensional(site) for site in tensor.made)
    )


def _only_cpu_vectors(tensor: Value) -> bool:
    """Surely CPU tensors that only one-dimensional factories made: what a loop over one
    yields is an element, not one of the tensors of a tuple a function may have returned."""
    return tensor.origins - {Origin.HOST} == {Origin.CPU} and _cpu_vectors(tensor)


def _one_dimensional(factory: cst.Call) -> bool:
    name = (dotted_name(factory.func) or "").rpartition(".")[2]
    if name in _ONE_DIMENSIONAL_FACTORIES:
        return True
    sizes = [arg.value for arg in factory.args if arg.keyword is None and not arg.star]
    if name in DATA_FACTORIES:
        return bool(sizes) and _flat_list(sizes[0])
    return name in _SIZED_FACTORIES and len(sizes) == 1 and isinstance(sizes[0], cst.Integer)


def _flat_list(data: cst.BaseExpression) -> bool:
    """A list or tuple written out with no list in it (``[a, b]``, ``[1 / n] * n``): the
    data of a one-dimensional tensor."""
    if isinstance(data, cst.BinaryOperation) and isinstance(data.operator, cst.Multiply):
        data = data.left if isinstance(data.left, (cst.List, cst.Tuple)) else data.right
    if not isinstance(data, (cst.List, cst.Tuple)) or not data.elements:
        return False
    nested = (cst.List, cst.Tuple, cst.ListComp, cst.StarredElement)
    return not any(
        isinstance(element, cst.StarredElement) or isinstance(element.value, nested)
        for element in data.elements
    )


def _reduced(tensor: Value) -> Value:
    """A tensor reduced to one element (``t.sum()``): a 0-dim CPU tensor meets any device,
    a 0-dim device tensor still needs its device, which is the reduced tensor's own: where
    it was made on the CPU, so is the result (``lengths / lengths.max()`` never mixes)."""
    if not tensor.made and not tensor.calls:
        return replace(tensor, single=True) if tensor.on_device else tensor
    origins = (tensor.origins - {Origin.CPU}) | {Origin.HOST}
    found = Value(origins, (), False, tensor.params, tensor.tied)
    return tied_to(found, tensor.made, tensor.calls)  # a callee's CPU tensor, reduced: 0-dim


def _join_envs(*envs: Mapping[str, Value]) -> dict[str, Value]:
    """Names bound on any path, each holding what any path left in it; an item of a dict
    (``Inference._item_key``) that a path did not write holds there what the dict held."""
    joined: dict[str, Value] = {}
    for env in envs:
        for name, found in env.items():
            held = joined.get(name)
            joined[name] = found if held is None or held == found else join(held, found)
    for name in [name for name in joined if name.endswith("]")]:
        container = name.partition("[")[0]
        for env in envs:
            if name not in env:
                joined[name] = join(joined[name], env.get(container, UNKNOWN))
    return joined


def _collection(elements: Sequence[Value]) -> Value:
    """A list, tuple or dict: its tensors' origins, or host data (a sequence) without."""
    found = combine(*elements, meets=False) if elements else HOST
    return HOST_SEQUENCE if found.only_host else found


def _legacy_tensor_type(node: cst.BaseExpression, resolve: Resolver) -> str | None:
    """The module of the tensor type ``node`` names (``torch.FloatTensor``: ``"torch"``, the
    CPU's; ``torch.cuda.FloatTensor`` or ``"torch.cuda.FloatTensor"``: ``"torch.cuda"``)."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        name = text if isinstance(text, str) else ""
    else:
        name = (resolve(node) or "") if isinstance(node, cst.Attribute) else ""
    module, _, short = name.rpartition(".")
    return module if short in LEGACY_TENSOR_TYPES and module in ("torch", "torch.cuda") else None


def _string(node: cst.SimpleString) -> Value:
    """A device string names a device; any other string is host data."""
    text = node.evaluated_value
    if isinstance(text, str):
        if names_a_device(text):
            return LITERAL
        if text.partition(":")[0] == "cpu":
            return CHOSEN_CPU
    return HOST


def _list_holder(target: cst.BaseExpression) -> str | None:
    """``values`` or ``self.values``: a name whose list ``_Inference.lists`` may note."""
    if isinstance(target, cst.Name):
        return target.value
    attribute = attribute_of_self(target)
    return None if attribute is None else f"self.{attribute}"


def _is_sequence_literal(node: cst.BaseExpression) -> bool:
    """A list or tuple written out (or a comprehension): an operator on it concatenates or
    repeats Python sequences, it computes nothing on a device."""
    return isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp))


def _is_string(node: cst.BaseExpression, text: str) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == text


def _is_empty_shape(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple)) and not node.elements


@lru_cache(maxsize=64)
def _assignments_by_name(
    function: cst.FunctionDef,
) -> Mapping[str, tuple[cst.BaseExpression, ...]]:
    """What the function's plain assignments give each local (``name = ...``), read from
    its statements (``statement_assignments``), once per function: every ``if`` on a name
    asks."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for assign in statement_assignments(function.body):
        for target in assign.targets:
            if isinstance(target.target, cst.Name):
                found.setdefault(target.target.value, []).append(assign.value)
    return {name: tuple(values) for name, values in found.items()}


def _names_a_device_key(built: cst.BaseExpression) -> bool:
    """A dict literal with a ``"device"`` key, or a ``dict(...)`` call with a ``device``
    keyword (or a mapping it copies or unpacks, which may hold one)."""
    if isinstance(built, cst.Dict):
        return any(
            not isinstance(element, cst.DictElement)
            or (
                isinstance(element.key, cst.SimpleString)
                and element.key.evaluated_value == "device"
            )
            for element in built.elements
        )
    assert isinstance(built, cst.Call)
    return any(arg.keyword is None or arg.keyword.value == "device" for arg in built.args)


def _told_the_device(call: cst.Call) -> bool:
    """``call`` names the device to compute on: a ``device=`` that is not ``None``."""
    told = keyword_argument(call, "device")
    return told is not None and not is_none(told.value)


def _device_arguments(
    callee: str | None, arguments: Sequence[tuple[cst.Arg, Value]]
) -> Sequence[tuple[cst.Arg, Value]]:
    """The arguments of a call of ``callee`` that must be on its device: not those it takes
    on the CPU on purpose (``CPU_ARGUMENTS``: the targets and lengths of ``nn.CTCLoss``)."""
    taken = CPU_ARGUMENTS.get(callee or "")
    if taken is None:
        return arguments
    positions = set(taken.values())
    kept = []
    for position, (arg, found) in enumerate(arguments):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword in taken or (keyword is None and not arg.star and position in positions):
            continue
        kept.append((arg, found))
    return kept


def _names_a_device(
    item: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """A ``with`` item that is a ``torch.device``: ``torch.device("cuda", i)``, or a tensor's
    (or model's) ``x.device``. Not the object's own ``self.device``, which a class may set
    to a switch such as ``torch.cuda.device(rank)`` that leaves factories on the CPU."""
    if isinstance(item, cst.Call):
        return resolve(item.func) == "torch.device"
    return (
        isinstance(item, cst.Attribute) and item.attr.value == "device" and not is_self(item.value)
    )
