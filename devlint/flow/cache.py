"""The flows of one file, each computed once, on the first rule that asks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from functools import partial

import libcst as cst

from devlint.flow.callers import (
    Site,
    mentions,
    names_anywhere,
    off_device_parameters,
    references,
    typed_parameters,
)
from devlint.flow.inference import (
    NO_CLASS,
    ClassModel,
    FunctionFlow,
    Resolver,
    Surroundings,
    _parameters,
    analyse_function,
    class_model,
    wraps_arguments,
)
from devlint.flow.meetings import Handoff, Meeting, refused_as_scalar
from devlint.flow.values import CHOSEN_CPU, UNKNOWN, Value, from_parameter
from devlint.nodes import (
    descendants,
    dotted_name,
    is_static_method,
    iter_children,
    names_callee,
)
from devlint.symbols import CPU_ARGUMENTS, CPU_LENGTHS_FUNCTIONS, PROCESS_GROUP_INITS

_MAX_CALL_DEPTH = 3
"""Calls of the file's own functions followed into one another (deeper: unknown)."""


class FileFlows:
    """Per-file cache of function flows and class models, keyed by their nodes; it also
    answers a flow's questions about the file's functions it calls (``Callees``)."""

    def __init__(
        self, module: Callable[[], cst.Module], resolve: Resolver, text: str | None = None
    ) -> None:
        self._module = module
        self._text = text
        """The file's source, if known: searches for calls it never spells are skipped."""
        self._resolve = resolve
        self._functions: dict[cst.FunctionDef, FunctionFlow] = {}
        self._classes: dict[cst.ClassDef, ClassModel] = {}
        self._top_level: dict[str, cst.FunctionDef] | None = None
        self._settled: set[cst.FunctionDef] = set()
        """Functions whose callers have been asked about their parameters."""
        self._asking = False
        self._active: list[cst.FunctionDef] = []
        """Functions being analysed, innermost last: a call back into one is recursion."""
        self._building = 0
        """Class models being built: the flows of the helpers their ``__init__`` calls see
        ``self`` without attributes yet, and are not kept."""
        self._lengths: frozenset[str] | None = None
        self._cpu_groups: bool | None = None
        self._on_cpu_inputs: dict[cst.FunctionDef, FunctionFlow] = {}
        self._calls_on_self: dict[cst.FunctionDef, frozenset[str]] = {}
        self._nested_in: dict[cst.FunctionDef, tuple[cst.FunctionDef, cst.ClassDef | None]] | None
        self._nested_in = None

    def function(self, node: cst.FunctionDef, owner: cst.ClassDef | None) -> FunctionFlow:
        """The flow of ``node``, a method of ``owner`` if given (its parameters as its
        callers in the file pass them, once they can be asked: ``_callers_bound``)."""
        found = self._functions.get(node)
        if found is None:
            found = self._functions[node] = self._analyse(node, owner, None)
        if node not in self._settled and not self._active and not self._asking:
            self._settled.add(node)
            found, _ = self._as_called(node, owner, found)
            self._functions[node] = found
        return found

    def _as_called(
        self,
        node: cst.FunctionDef,
        owner: cst.ClassDef | None,
        found: FunctionFlow,
        *,
        public: bool = False,
    ) -> tuple[FunctionFlow, bool]:
        """The flow of ``node`` (``found`` as it is alone) with its parameters bound as the
        file's calls pass them (``_callers_bound``), and whether any was bound."""
        self._asking = True  # the callers' own flows are taken as they are
        try:
            bound: dict[str, Value] = {}
            for _ in range(_MAX_CALL_DEPTH):  # each binding may show the next partner
                more = self._callers_bound(node, owner, found, public=public)
                if more.keys() <= bound.keys():
                    break
                bound = {**more, **bound}
                found = self._analyse(node, owner, bound)
        finally:
            self._asking = False
        return found, bool(bound)

    def _analyse(
        self, node: cst.FunctionDef, owner: cst.ClassDef | None, bound: Mapping[str, Value] | None
    ) -> FunctionFlow:
        self._active.append(node)
        try:
            return analyse_function(node, self._surroundings(owner), bound)
        finally:
            self._active.pop()

    def _callers_bound(
        self,
        node: cst.FunctionDef,
        owner: cst.ClassDef | None,
        flow: FunctionFlow,
        *,
        public: bool = False,
    ) -> dict[str, Value]:
        """Parameters where a CPU tensor meets them in ``flow`` that no call in the file
        sends to the device (``_off_device``); each then holds an unknown value, still
        named after the parameter (a call passing it on asks this function's callers). Also
        the tensor types every call gives (``_types_given``)."""
        given = self._types_given(node, owner, flow, public=public)
        partners = {
            name
            for meeting in flow.meetings
            for name in flow.values.get(meeting.partner, UNKNOWN).params
            if not name.endswith("device")  # a device, not a tensor: None picks a default
        }
        lengths = {name: CHOSEN_CPU for name in partners & self._cpu_lengths()} if partners else {}
        if not partners:
            return {**given, **lengths}
        off = self._off_device(node, owner, frozenset(partners), (), public=public)
        unknown = {name: replace(UNKNOWN, params=frozenset({name})) for name in off}
        return {**given, **unknown, **lengths}

    def _types_given(
        self,
        node: cst.FunctionDef,
        owner: cst.ClassDef | None,
        flow: FunctionFlow,
        *,
        public: bool = False,
    ) -> dict[str, Value]:
        """Parameters giving a tensor type (``FunctionFlow.typed_by``) that every call in the
        file gives a device tensor's (``decode(out, dtype=x.type())``): each then holds a
        value on the device, where the tensors converted to it are."""
        if not flow.typed_by:
            return {}
        found = self._call_sites(node, owner, (), public=public)
        if found is None:
            return {}
        sites, bound_first = found
        typed = typed_parameters(node, bound_first, flow.typed_by, sites)
        return {name: from_parameter(name) for name in typed}

    def _off_device(
        self,
        node: cst.FunctionDef,
        owner: cst.ClassDef | None,
        names: frozenset[str],
        asked: tuple[cst.FunctionDef, ...],
        *,
        public: bool = False,
    ) -> frozenset[str]:
        """The parameters ``names`` of ``node`` that no call in the file passes a tensor that
        may be on a device (``callers.off_device_parameters``), also where a caller passes
        its own parameter on and none of its callers does (a few calls up, ``asked`` the
        functions below; ``_call_sites``)."""
        found = self._call_sites(node, owner, asked, public=public)
        if found is None:
            return frozenset()
        sites, bound_first = found
        return off_device_parameters(node, bound_first, names, sites)

    def _call_sites(
        self,
        node: cst.FunctionDef,
        owner: cst.ClassDef | None,
        asked: tuple[cst.FunctionDef, ...],
        *,
        public: bool = False,
    ) -> tuple[list[Site], bool] | None:
        """Every call of ``node`` in the file, in its caller's flow, and whether its first
        parameter is bound by the call (``self``, ``cls``); None where some call is out of
        sight. Methods, private and nested functions only: a public function's callers are
        elsewhere too (``public``: a public function of the module asked all the same, for
        ``meets_only_by_callers_elsewhere``)."""
        name = node.name.value
        method = owner is not None
        enclosing = self._enclosing().get(node) if owner is None else None
        if not (method or name.startswith("_") or enclosing or public):
            return None
        if wraps_arguments(node, self._resolve):
            return None  # what its callers pass, a wrapper may move first
        scope: cst.CSTNode = owner if owner is not None else self._module()
        callers = self._callers_in(owner)
        receivers: tuple[str, ...] = ("self",) if method else ()
        if enclosing is not None:  # a nested function: only the function around it calls it
            scope, callers = enclosing[0], [enclosing]
        elif owner is not None and _without_self(node):  # `Cls.f(...)` anywhere in the file
            scope, callers = self._module(), self._callers_in(None)
            receivers = ("self", "cls", owner.name.value)
        expected = references(self._module().code_for_node(scope), name, receivers)
        sites: list[Site] = []
        for caller, caller_owner in callers:
            if caller is node or not mentions(caller.body, name, receivers):
                continue
            caller_flow = self.function(caller, caller_owner)
            upstream = partial(self._passed_on_off_device, caller, caller_owner, (*asked, node))
            sites += [
                Site(call, caller_flow, upstream)
                for call in caller_flow.values
                if isinstance(call, cst.Call) and names_callee(call.func, name, receivers)
            ]
        if not sites or len(sites) != expected:
            return None  # called nowhere we see, or also from code no flow evaluates
        return sites, method and not is_static_method(node)  # `self` or `cls` bound first

    def _passed_on_off_device(
        self,
        caller: cst.FunctionDef,
        owner: cst.ClassDef | None,
        asked: tuple[cst.FunctionDef, ...],
        params: frozenset[str],
    ) -> bool:
        """Whether the parameters ``params`` of ``caller`` are off the device by its own
        callers (``_off_device``), within ``_MAX_CALL_DEPTH`` calls up."""
        if caller in asked or len(asked) > _MAX_CALL_DEPTH:
            return False
        return params <= self._off_device(caller, owner, params, asked)

    def _enclosing(self) -> Mapping[cst.FunctionDef, tuple[cst.FunctionDef, cst.ClassDef | None]]:
        """Each function defined inside another one: that function, and its class if it is
        a method (built once, when a nested function's parameters are first asked about)."""
        if self._nested_in is None:
            self._nested_in = {}
            for function, owner in self._callers_in(None):
                stack = [(child, function) for child in iter_children(function.body)]
                while stack:
                    current, around = stack.pop()
                    if isinstance(current, cst.FunctionDef):
                        # the functions defined in it are called from it, not from `function`
                        self._nested_in[current] = (around, owner if around is function else None)
                        around = current
                    stack.extend((child, around) for child in iter_children(current))
        return self._nested_in

    def _cpu_lengths(self) -> frozenset[str]:
        """Names the file passes, as they are, as the ``lengths`` of ``pack_padded_sequence``,
        which takes them on the CPU only: a parameter of that name holds CPU lengths in the
        file's other functions too (asked once, and only of a flow whose meetings a
        parameter takes part in)."""
        if self._lengths is None and not self._spells(CPU_LENGTHS_FUNCTIONS):
            self._lengths = frozenset()
        if self._lengths is None:
            self._lengths = frozenset(
                name
                for node in descendants(self._module())
                if isinstance(node, cst.Call)
                for name in _lengths_passed(node, self._resolve)
            )
        return self._lengths

    def cpu_process_groups(self) -> bool:
        """Whether the file makes a process group (``PROCESS_GROUP_INITS``) that takes CPU
        tensors: its collectives then take them (asked once, and only by a flow with one)."""
        if self._cpu_groups is None:
            only_gloo = self._names_only_gloo()
            self._cpu_groups = self._spells(PROCESS_GROUP_INITS) and any(
                isinstance(node, cst.Call) and _takes_cpu_tensors(node, self._resolve, only_gloo)
                for node in descendants(self._module())
            )
        return self._cpu_groups

    def _names_only_gloo(self) -> bool:
        """The file names the gloo backend as a string and never NCCL: a backend it does
        not spell where it makes a group is gloo (CrypTen's ``DISTRIBUTED_BACKEND``)."""
        text = (self._text or "").lower()
        return any(f"{quote}gloo{quote}" in text for quote in "'\"") and "nccl" not in text

    def _spells(self, functions: Iterable[str]) -> bool:
        """Whether the source may call one of ``functions``: any import form spells the
        last part of its name (unknown source: it may)."""
        text = self._text
        return text is None or any(name.rpartition(".")[2] in text for name in functions)

    def _callers_in(
        self, owner: cst.ClassDef | None
    ) -> list[tuple[cst.FunctionDef, cst.ClassDef | None]]:
        """The methods of ``owner``; else the module's functions and its classes' methods."""
        if owner is not None:
            return [(method, owner) for method in self.owner(owner).methods.values()]
        found: list[tuple[cst.FunctionDef, cst.ClassDef | None]] = [
            (function, None) for function in self._functions_by_name().values()
        ]
        for statement in self._module().body:
            if isinstance(statement, cst.ClassDef):
                found += [(method, statement) for method in self.owner(statement).methods.values()]
        return found

    def meets_only_by_callers_elsewhere(self, made: cst.CSTNode, function: cst.FunctionDef) -> bool:
        """The tensor made at ``made`` in ``function``, a public function of the module,
        meets the device there, but no longer where its parameters are what the file's own
        calls pass them (as a private function's are, ``_callers_bound``): its meetings
        rest on callers in other files, if there are any (``ProjectIndex.named_only_in``)."""
        found = self.function(function, None)
        if not found.meetings_of(made) or function in self._active or self._asking:
            return False
        rebound, bound = self._as_called(function, None, found, public=True)
        return bound and not rebound.meetings_of(made)

    def meetings_of(
        self, made: cst.CSTNode, function: cst.FunctionDef, owner: cst.ClassDef | None
    ) -> tuple[Meeting, ...]:
        """Where the tensor made at ``made`` in ``function`` meets the device: there, or in
        the class's other methods (or the file's functions) that get it by a call. Not
        where it arrives kept in an attribute ``__init__`` set from the call: a plain
        tensor attribute is DEV007's question (``construction_meetings``), and the
        ``.to(device)`` there may well have placed it."""
        flow = self.function(function, owner)
        found = flow.meetings_of(made)
        if found or not any(site is made for site in flow.returned.made):
            return found
        siblings = self.owner(owner).methods if owner is not None else self._functions_by_name()
        name = function.name.value
        for sibling in siblings.values():
            if sibling is function or sibling in self._active:
                continue
            if names_anywhere(sibling.body, name):
                found += self.function(sibling, owner).meetings_of(made)
        return found

    def meetings_with_cpu_inputs(
        self, made: cst.CSTNode, function: cst.FunctionDef, owner: cst.ClassDef | None
    ) -> tuple[Meeting, ...]:
        """Where the tensor made at ``made`` in ``function`` meets the device when every
        parameter but a device arrives on the CPU (a collate function's samples): what it
        still meets then is on a device ``function`` chose itself (``batch.to(device)``)."""
        found = self._on_cpu_inputs.get(function)
        if found is None:
            bound = {
                param.name.value: CHOSEN_CPU
                for param in _parameters(function)
                if not param.name.value.endswith("device")
            }
            found = self._on_cpu_inputs[function] = self._analyse(function, owner, bound)
        return found.meetings_of(made)

    def owner(self, node: cst.ClassDef) -> ClassModel:
        found = self._classes.get(node)
        if found is None:
            methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
            self._classes[node] = ClassModel(node, methods, {})  # while ``__init__`` runs
            # What ``__init__`` builds is the same whichever function first asks for the
            # class: the methods being analysed then are no recursion of its calls.
            active, self._active = self._active, []
            self._building += 1
            try:
                found = class_model(node, self._resolve, self._functions_by_name(), self)
            finally:
                self._building -= 1
                self._active = active
            self._classes[node] = found
        return found

    def construction_meetings(
        self,
        built: cst.BaseExpression,
        owner: cst.ClassDef,
        runs_with_batch: Callable[[str], bool],
    ) -> tuple[Meeting, ...]:
        """Where the tensors that ``built``, an expression of ``owner.__init__``, holds as
        built (``ClassModel.built``) meet the device: in the methods ``runs_with_batch``
        names and the methods of the class they call, first first. A tensor that may be
        0-dim (``ClassModel.scalars``) only where even a 0-dim one fails (``x.clamp(max=t)``)."""
        found: list[Meeting] = []
        for flow, sites, scalars in self._construction_flows(built, owner, runs_with_batch):
            found += [
                meeting
                for meeting in flow.meetings
                if meeting.made in sites
                and (meeting.made not in scalars or refused_as_scalar(meeting))
            ]
        return tuple(found)

    def construction_handoffs(
        self,
        built: cst.BaseExpression,
        owner: cst.ClassDef,
        runs_with_batch: Callable[[str], bool],
    ) -> tuple[tuple[Handoff, FunctionFlow], ...]:
        """Where the tensors ``built`` holds (as ``construction_meetings`` reads it) are
        handed to functions of other files by those methods, each with the method's flow:
        whether they meet the device there is the callees' summaries' to say. Not a tensor
        that may be 0-dim: what the callee does with it decides whether it fails."""
        found: list[tuple[Handoff, FunctionFlow]] = []
        for flow, sites, scalars in self._construction_flows(built, owner, runs_with_batch):
            found += [
                (handoff, flow)
                for handoff in flow.handoffs
                if handoff.made in sites and handoff.made not in scalars
            ]
        return tuple(found)

    def _construction_flows(
        self,
        built: cst.BaseExpression,
        owner: cst.ClassDef,
        runs_with_batch: Callable[[str], bool],
    ) -> Iterator[tuple[FunctionFlow, tuple[cst.CSTNode, ...], frozenset[cst.CSTNode]]]:
        """The flows of the methods that run with the batch (and those they reach), with
        where ``built``'s tensors were made and which of those may be 0-dim."""
        model = self.owner(owner)
        value = model.built.get(built, UNKNOWN)
        sites, scalars = value.made, model.scalars.union(value.scalars)
        sites += value.scalars
        if not sites:
            return
        roots = [name for name in model.methods if runs_with_batch(name)]
        for method in self._reached(owner, roots + self._hooks(owner, runs_with_batch)):
            yield self.function(method, owner), sites, scalars

    def _hooks(self, owner: cst.ClassDef, runs_with_batch: Callable[[str], bool]) -> list[str]:
        """Methods of ``owner`` that the batch methods of a base class of the file call on
        ``self`` (``Transform.forward`` calling ``self._apply_transform``): an override
        runs with the batch where the base's forward calls it."""
        methods = self.owner(owner).methods
        found: list[str] = []
        for base in self._bases_in_file(owner):
            inherited = self.owner(base).methods
            roots = [name for name in inherited if runs_with_batch(name)]
            for method in self._reached(base, roots):
                found += [name for name in methods if mentions(method.body, name, ("self",))]
        return found

    def _bases_in_file(self, owner: cst.ClassDef) -> list[cst.ClassDef]:
        """The classes of the module ``owner`` derives from by name, transitively."""
        classes = {
            statement.name.value: statement
            for statement in self._module().body
            if isinstance(statement, cst.ClassDef)
        }
        found: list[cst.ClassDef] = []
        todo = [owner]
        while todo:
            for base in todo.pop().bases:
                named = base.value.value if isinstance(base.value, cst.Name) else None
                held = classes.get(named or "")
                if held is not None and held is not owner and held not in found:
                    found.append(held)
                    todo.append(held)
        return found

    def _reached(self, owner: cst.ClassDef, roots: Iterable[str]) -> list[cst.FunctionDef]:
        """The methods named ``roots`` and those they call on ``self``, transitively."""
        methods = self.owner(owner).methods
        todo = [name for name in roots if name in methods]
        reached = set(todo)
        while todo:
            for name in self._called_on_self(methods[todo.pop()], methods) - reached:
                reached.add(name)
                todo.append(name)
        return [methods[name] for name in sorted(reached)]

    def _called_on_self(
        self, method: cst.FunctionDef, methods: Mapping[str, cst.FunctionDef]
    ) -> frozenset[str]:
        """The ``methods`` of its class that ``method`` names on ``self`` (once each: DEV007
        asks from each method of a class in turn)."""
        found = self._calls_on_self.get(method)
        if found is None:
            found = self._calls_on_self[method] = frozenset(
                name for name in methods if mentions(method.body, name, ("self",))
            )
        return found

    # Callees --------------------------------------------------------------------

    def returned(self, callee: cst.FunctionDef, owner: cst.ClassDef | None) -> Value:
        flow = self._returning(callee, owner)
        return flow.returned if flow is not None else UNKNOWN

    def returned_parts(
        self, callee: cst.FunctionDef, owner: cst.ClassDef | None
    ) -> tuple[Value, ...]:
        flow = self._returning(callee, owner)
        return flow.returned_parts if flow is not None else ()

    def own_flow(self, callee: cst.FunctionDef, owner: cst.ClassDef | None) -> FunctionFlow | None:
        if self._building:
            return None  # what `__init__` builds asks nothing of the summaries: no cost there
        return self._returning(callee, owner)

    def _returning(
        self, callee: cst.FunctionDef, owner: cst.ClassDef | None
    ) -> FunctionFlow | None:
        """The flow of ``callee`` whose result a call uses; None while it is being
        analysed (recursion)."""
        if callee in self._active or len(self._active) > _MAX_CALL_DEPTH:
            return None
        if self._building:
            return self._analyse(callee, owner, None)
        return self.function(callee, owner)

    def called_with(
        self, callee: cst.FunctionDef, owner: cst.ClassDef | None, bound: Mapping[str, Value]
    ) -> FunctionFlow | None:
        if callee in self._active or len(self._active) > _MAX_CALL_DEPTH:
            return None
        self._active.append(callee)
        try:
            return analyse_function(callee, self._surroundings(owner), bound)
        finally:
            self._active.pop()

    def _surroundings(self, owner: cst.ClassDef | None) -> Surroundings:
        model = self.owner(owner) if owner is not None else NO_CLASS
        return Surroundings(self._resolve, model, self._functions_by_name(), self)

    def _functions_by_name(self) -> Mapping[str, cst.FunctionDef]:
        if self._top_level is None:
            self._top_level = {
                statement.name.value: statement
                for statement in self._module().body
                if isinstance(statement, cst.FunctionDef)
            }
        return self._top_level


def _without_self(method: cst.FunctionDef) -> bool:
    """A static or class method: callers elsewhere in the file call it on the class."""
    return is_static_method(method) or any(
        dotted_name(decorator.decorator) == "classmethod" for decorator in method.decorators
    )


def _lengths_passed(call: cst.Call, resolve: Resolver) -> Iterable[str]:
    """The name given as the CPU ``lengths`` of ``call``, if it calls such a function."""
    callee = resolve(call.func)
    if callee not in CPU_LENGTHS_FUNCTIONS:
        return ()
    position = CPU_ARGUMENTS[callee]["lengths"]
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    named = [arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "lengths"]
    chosen = named or positional[position : position + 1]
    if chosen and isinstance(chosen[0].value, cst.Name):
        return (chosen[0].value.value,)
    return ()


def _takes_cpu_tensors(call: cst.Call, resolve: Resolver, only_gloo: bool) -> bool:
    """Whether ``call`` makes a process group that takes CPU tensors: its backend names gloo,
    or is read from a setting in a file that names only gloo. Not one left to the default,
    which on a GPU machine is NCCL alone."""
    backend = _backend_argument(call, resolve)
    if backend is None:
        return False
    spelt = process_group_backend(call, resolve)
    return "gloo" in spelt if spelt is not None else only_gloo


def process_group_backend(call: cst.Call, resolve: Resolver) -> str | None:
    """The backend ``call`` makes a process group with, if it makes one and spells it
    (``init_process_group("nccl")``, ``new_group(backend="gloo")``)."""
    backend = _backend_argument(call, resolve)
    spelt = backend.evaluated_value if isinstance(backend, cst.SimpleString) else None
    return spelt if isinstance(spelt, str) else None


def _backend_argument(call: cst.Call, resolve: Resolver) -> cst.BaseExpression | None:
    """What ``call`` passes as the backend, if it makes a process group and passes one."""
    position = PROCESS_GROUP_INITS.get(resolve(call.func) or "")
    if position is None:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    named = [arg for arg in call.args if arg.keyword is not None and arg.keyword.value == "backend"]
    chosen = named or positional[position : position + 1]
    return chosen[0].value if chosen else None
