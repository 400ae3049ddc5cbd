"""Per-file facts that other files need: imports, classes and their bases, calls.

Collected during the file's single traversal, then merged into the project index.
Plain data, so they can be cached and sent between processes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from devlint.symbols import (
    CPU_SOURCE_WORD,
    DEVICE_ARGUMENT_MOVES,
    EXTENSION_COMPILERS,
    EXTENSION_DECLARATIONS,
    KERNEL_SOURCE_TYPES,
    PLAIN_DECORATORS,
    PLAIN_VALUE_BUILTINS,
    RUN_TIME_LOOKUPS,
    STATELESS_NN_MODULES,
    TENSOR_ONLY_METHODS,
)

T = TypeVar("T")


@dataclass(frozen=True)
class CallShape:
    """How a call passes its arguments: which of the callee's parameters it leaves to their
    defaults (a caller relying on ``device="cuda"``)."""

    callee: str
    """As ``FunctionFacts.calls`` names it; ``self.<method>`` for a method called on self."""
    positional: int
    """How many arguments it passes by position."""
    keywords: tuple[str, ...] = ()
    """The keywords it passes, sorted."""
    unpacks: bool = False
    """It passes ``*args`` or ``**kwargs``: any parameter may be given."""
    kept_as_device: bool = False
    """It is (part of) the value a method assigns to the device its object keeps
    (``self.device = assign_device(gpu)[0]``: ``names_the_device``)."""
    places: bool = False
    """Its value is used as a device: kept as one (``kept_as_device``, or a local
    ``device = pick()``) or handed straight to a placement (``x.to(pick())``,
    ``torch.zeros(n, device=pick())``): a device the callee returns places tensors."""
    told_move: bool = False
    """It moves to a device it is told (``moves_to_a_told_device``: ``x.to(device)``,
    ``x.cuda(rank)``), or what it makes is moved so at once (``Net(c).eval().to(device)``)."""


@dataclass(frozen=True)
class FunctionFacts:
    """A module-level function or a method, and whom it calls."""

    name: str
    """Qualified name: ``pkg.mod.func`` or ``pkg.mod.Class.method``."""
    calls: tuple[str, ...] = ()
    """Qualified names of the functions it calls (resolved through imports)."""
    self_calls: tuple[str, ...] = ()
    """Names of the methods it calls on ``self``."""
    takes_device: bool = False
    """It has a parameter named ``device``: it is told where to work."""
    takes_inputs: bool = False
    """A parameter without a default is annotated as a tensor or a module (``x: Tensor``,
    ``model: nn.Module``), or has no annotation and the function calls a tensor-only method
    on it (``boxes.contiguous()``, ``TENSOR_ONLY_METHODS``): its inputs tell it its device
    (``input_annotation``)."""
    bound_methods: tuple[str, ...] = ()
    """Names of the methods it binds with ``functools.partial(self.<method>, ...)``, not to
    hand to ``apply``, or stores on ``self`` (``stored_method``): callbacks kept for later
    (a block's ``downsample``, a hook, ``self.assign = self.sinkhorn``)."""
    call_shapes: tuple[CallShape, ...] = ()
    """How its calls of ``calls`` and ``self_calls`` pass their arguments."""
    steps: tuple[str, ...] = ()
    """Those of its calls made as whole statements of its body (``set_up()``, ``rank =
    set_up()``, ``self.set_up()`` as written; not under an ``if``, a loop, a ``try`` or a
    ``with``): they run whenever it runs, before the statements that follow."""


@dataclass(frozen=True)
class ClassFacts:
    """A class definition with its bases resolved as far as this file knows."""

    name: str
    bases: tuple[str, ...] = ()
    """Qualified names of the bases; bases that are not plain names are left out."""
    methods: tuple[str, ...] = ()
    defines_device: bool = False
    """The class defines ``device`` itself (a property or an attribute)."""
    device_on_cpu: bool = False
    """Its own ``device`` property returns only the CPU (``torch.device("cpu")``): the class
    says it computes on the CPU (a wrapper of a CPU runtime such as OpenVINO)."""
    stores: frozenset[str] = frozenset()
    """What its methods store on ``self`` that says it works on a device: ``device``
    (``self.device = ...``) and ``model`` (``self.model = ...``, ``self.ema_model``)."""
    skips_base_init: bool = False
    """The class's own ``__init__`` calls no ``__init__`` (no ``super().__init__()``, no
    ``Base.__init__(self)``): what its bases store there is never set on its objects."""
    stores_no_state: bool = False
    """Its methods store on ``self`` only parameter-free ``torch.nn`` modules
    (``STATELESS_NN_MODULES``) and values made without calls (``kept``)."""
    kept: frozenset[str] = frozenset()
    """The attributes its methods assign a value made without calls (``self.k = k``):
    a module handed in, if a method calls it (``self.k(x)``), else no state."""
    refuses: frozenset[str] = frozenset()
    """The classes whose instances its own ``__setattr__`` refuses as attribute values (it
    raises under ``if isinstance(value, X):``): a module class there keeps its modules out
    of its attributes, and out of registration, on purpose."""


@dataclass(frozen=True)
class ReturnedOutput:
    """A function returns processor output that is still on the CPU.

    Either it makes the output itself (``source`` at ``line``), or it returns what
    another function returns (``via``, a callee reference; see ``CalleeRef``).
    """

    function: str
    source: str
    line: int = 0
    kind: str = "batch"
    """``batch`` (a BatchEncoding/BatchFeature, which has ``.to``) or ``dict``."""
    via: str | None = None


@dataclass(frozen=True)
class DistributedSignal:
    """Evidence that the project trains on several processes (``strategy="ddp"``)."""

    description: str
    line: int = 0


@dataclass(frozen=True)
class SingleNode:
    """Evidence that the project's own distributed set-up runs on one machine: the rank-0
    address set to this host (``os.environ["MASTER_ADDR"] = "localhost"``), or a process
    group started with the local rank as the rank. There the global rank is the local one."""

    description: str
    line: int = 0


@dataclass(frozen=True)
class DeviceOption:
    """A command-line option that lets the user say where to compute
    (``parser.add_argument("--gpu", dest="gpu_ids")``)."""

    names: frozenset[str]
    """The names its value goes by: the option's own (``gpu_ids`` for ``--gpu-ids``) and its
    ``dest=``: the program may make that value its current GPU (``set_device(args.gpu)``,
    ``os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu_ids``), choosing which GPU the process
    computes on, as its current one, not another device."""
    gpu: bool
    """It may name a GPU or another accelerator (``other_devices.chooses_a_gpu``), not only
    switch the GPU on or off (``--no-cuda``)."""


@dataclass(frozen=True)
class FixedCurrentGpu:
    """The project's code makes a GPU named by a constant the current device
    (``torch.cuda.set_device(0)``): every process that runs it works on that GPU, whatever
    its rank, not on one of its own."""

    line: int = 0


@dataclass(frozen=True)
class FirstChosenGpuCurrent:
    """The project's code makes the first GPU of the user's list of GPUs the current device
    (``torch.cuda.set_device(opt.gpu_ids[0])``): where that list is not empty, the current
    GPU is the one the user chose first."""

    choice: str
    """The list's name (its last part: ``gpu_ids`` for ``self.opt.gpu_ids``)."""
    line: int = 0


@dataclass(frozen=True)
class DeviceConstant:
    """A module-level constant holding a literal device: ``DEVICE = torch.device("cuda")``.

    An empty ``literal`` says the name is bound more than once (not a constant).
    """

    name: str
    literal: str
    line: int = 0
    path: str = ""
    """The defining file as displayed; the index fills it in."""


@dataclass(frozen=True)
class Reference:
    """Code that reaches a function in a way the functions' call lists do not show.

    A call made by module-level code (``main()`` under ``if __name__ == "__main__":``),
    or a function handed over as an argument (``mp.spawn(worker)``,
    ``DataLoader(ds, collate_fn=pad)``, ``collate_fn=Collator(...)``), anywhere.
    """

    callee: str
    """Qualified name as written (resolved through imports); for ``self.method``,
    ``<class>.<method>`` with ``on_self`` set."""
    caller: str = ""
    """The qualified function it is in; empty for module-level code."""
    main_guard: bool = False
    """Inside ``if __name__ == "__main__":`` (runs only when the file is a script)."""
    keyword: str = ""
    """The keyword argument it is passed as (``collate_fn``); empty for a call."""
    on_self: bool = False
    """``self.method``: the method the caller's class (or a base) defines."""
    line: int = 0


@dataclass(frozen=True)
class FlowSummary:
    """What a function's device flow says to its callers in other files, from its own code.

    Which parameters reach a point where PyTorch needs one device (and what they meet
    there), and which ones its result follows. Callers compose it through the index.
    """

    function: str
    params: tuple[str, ...]
    """Its parameters in positional order (``self`` included for a method)."""
    meets: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each parameter that reaches a meeting point, with the parameters it meets there
    (``""``: a tensor surely on the computation's device that no parameter gives); also
    each ``self.<name>`` a method reads that its class's file does not set (a subclass's)."""
    returns: tuple[str, ...] = ()
    """The parameters whose device its result follows."""
    returns_via: tuple[tuple[str, int | str, str], ...] = ()
    """Calls of other files' functions whose result its result may be: the callee (as its
    file resolves it), an argument's slot, and the parameter that argument follows. Its
    result follows that parameter where the callee's result follows the slot."""
    meets_via: tuple[tuple[str, int | str, str, tuple[tuple[int | str, str], ...]], ...] = ()
    """Calls of other files' functions that its parameters reach: the callee (as its file
    resolves it), the argument's slot, the parameter that argument follows, and the call's
    other arguments on the device (each slot with the parameter it follows, ``""``: none).
    The parameter meets those where the callee's parameter at the slot meets them."""
    meets_via_parts: tuple[
        tuple[str, int | str, str, int, str, int | str, tuple[tuple[int | str, str], ...]], ...
    ] = ()
    """Elements of other files' results handed on (``a, b = check(a, b)``, then
    ``curve(a, b)``): the first callee, the slot of the argument following the parameter,
    the parameter, the element's position, then as ``meets_via`` the second callee, its slot
    and the arguments beside. The parameter meets those where the first callee's element
    follows the slot (its ``parts_via``) and the second callee's parameter meets them."""
    parts: tuple[str, ...] = ()
    """Where each element of the tuple it returns (``return a, b``) comes from: one of
    ``PART_ORIGINS`` (empty: no ``return`` writes a tuple out)."""
    parts_via: tuple[tuple[str, ...], ...] = ()
    """The parameters each element of that tuple follows."""
    joins: tuple[str, ...] = ()
    """Parameters holding a sequence of tensors it joins into one (``torch.cat(xs)``): the
    tensors a caller collects there meet one another, 0-dim ones too."""
    data: bool = False
    """Every ``return`` gives Python data, no tensor (``response.json()``, a list of
    numbers): ``torch.tensor`` of its result, or of an element, makes a CPU tensor."""
    line: int = 0


PART_ORIGINS = ("cpu", "param", "follows", "unknown")
"""``FlowSummary.parts``: made on the CPU here, follows a parameter (``parts_via``), follows
the computation (no parameter gives it), or unknown."""


@dataclass(frozen=True)
class ResultHanded:
    """A result of a call of ``callee`` (a function of another file) is handed, collected
    with the results of other calls or alone, to ``receiver`` (another file's function, as
    this file resolves it) at ``slot``: where ``receiver`` joins that parameter's tensors
    (``FlowSummary.joins``), the callee's results meet one another."""

    callee: str
    receiver: str
    slot: int | str
    line: int = 0


@dataclass(frozen=True)
class ResultMeets:
    """The result of a call of ``callee`` (a function of another file) meets the device."""

    callee: str
    part: int | None = None
    """The element of the tuple it returns that meets it (``a, b = f(x)``, ``f(x)[1]``);
    None: the result itself."""
    line: int = 0


@dataclass(frozen=True)
class ResultsMeeting:
    """Where the results of calls of the functions named ``followed`` meet the device, in
    each function of a file: followed in the walk that found candidates needing it (a
    ``Needed.RESULT_MEETS`` whose callers may be in the same file), so that the later
    pass asking the file for these facts (``RuleSettings.flow_results``) need not parse
    it again."""

    followed: frozenset[str]
    """Last names of the functions whose calls were followed."""
    functions: tuple[tuple[ResultMeets | ResultHanded, ...], ...] = ()
    """For each function (in file order) whose calls of them meet the device or are handed
    on: those facts, in the order an analysis adds them."""

    def facts(self, results: frozenset[str]) -> tuple[ResultMeets | ResultHanded, ...] | None:
        """The facts an analysis asking for ``results`` (and no summary) adds; None when
        some of ``results`` was not followed. (A function that calls none of ``results``,
        itself or through a forwarding function of the file, has no fact naming them.)"""
        if not results <= self.followed:
            return None
        return tuple(
            fact
            for function in self.functions
            for fact in function
            if fact.callee.rpartition(".")[2] in results
        )


Fact = (
    ReturnedOutput
    | DistributedSignal
    | SingleNode
    | FixedCurrentGpu
    | FirstChosenGpuCurrent
    | DeviceConstant
    | Reference
    | FlowSummary
    | ResultMeets
    | ResultHanded
)
"""Facts rules contribute during the traversal, for the whole project to use."""


@dataclass(frozen=True)
class GlooCall:
    """A call that spells the gloo backend (``"gloo"``) as an argument: where its callee
    makes a process group with the backend given there, it makes one that takes CPU
    tensors (``new_group(ranks, backend="gloo")``, a project function handing it on)."""

    callee: str
    """Qualified name as written (resolved through imports)."""
    slot: int | str
    """The argument spelling gloo: a position, or a keyword."""
    attribute: str = ""
    """The attribute its result is assigned to (``self.cpu_group = ...``), if any, as
    ``attribute_key`` names it."""


@dataclass(frozen=True)
class BackendParameter:
    """A function hands its parameter on as the backend of a process group it makes
    (``new_group(ranks, backend=backend)``): its callers choose the group's backend."""

    function: str
    parameter: str
    position: int | None = None
    """Where a call passes it positionally (None: a method, called with a receiver)."""


@dataclass(frozen=True)
class FileFacts:
    """Everything about one file that the project index needs."""

    module: str
    path: str = ""
    """The file as displayed to the user, for messages that point into it."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Module-level names bound by imports and definitions, to qualified names."""
    classes: tuple[ClassFacts, ...] = ()
    functions: tuple[FunctionFacts, ...] = ()
    facts: tuple[Fact, ...] = ()
    stars: tuple[str, ...] = ()
    """The modules its ``from <module> import *`` statements name (absolute), in order."""
    top_level_calls: tuple[str, ...] = ()
    """Qualified names of the calls its code outside functions makes (module level, class
    bodies, lambdas there: ``cast = lambda x: torch.ops.hpu.cast_to_fp8_v2(x)``)."""
    compiled_for: tuple[str, ...] = ()
    """The device types of the kernel sources it compiles into an extension whenever it is
    imported (``compiled_types``): by a statement of its body, not under ``try``/``if``
    (a fallback may run instead) nor in a lambda or function (run only when called)."""
    declared_extensions: tuple[tuple[str, str], ...] = ()
    """The compiled extension modules it declares, each with the one device type its kernels
    run on (``declared_extensions``): ``("pkg._ext", "cuda")`` in a ``setup.py``."""
    loads: tuple[str, ...] = ()
    """The modules the import statements of its body load whenever it is imported (not
    under ``try``/``if``: an ``except ImportError`` may fall back to other code)."""
    exports: tuple[str, ...] | None = None
    """The names its ``__all__`` lists; None: it has none, or one that is not a list of
    strings (a star import of it then binds its public names)."""
    gloo_calls: tuple[GlooCall, ...] = ()
    """Calls in its functions that spell the gloo backend as an argument."""
    backend_parameters: tuple[BackendParameter, ...] = ()
    """Its functions that hand a parameter on as a process group's backend."""
    offering_places: tuple[tuple[str, frozenset[str]], ...] = ()
    """Where its code offers to compute somewhere other than the current GPU
    (``other_devices``): names the CPU or another accelerator as a device (not to load
    weights onto, ``map_location=``, nor to take a tensor to the host, ``.to("cpu")``), a GPU
    other than the first or one chosen at run time, asks which devices exist, or tells a
    framework where to compute (``accelerator=``, ``devices=``, ``device_map=``). Each place
    is a top-level definition, its ``__main__`` block (``MAIN_GUARD_NAME``) or the rest
    (``other_devices.TOP_LEVEL``), with what it offers there (``other_devices.NUMBERED_GPU``,
    ``ANOTHER_GPU``, ``ANOTHER_DEVICE``, and ``CPU_BY_NAME`` / ``DEVICE_GIVEN``, which offer
    only where the code chooses the program's devices): what runs with a script's code is
    what the script may run. Command-line options aside (``option_places``)."""
    held_offers: tuple[tuple[str, str, frozenset[str]], ...] = ()
    """What a value it assigns to a name that nothing else in its text reads
    (``reads_name``) offers, as ``offering_places``, with the place and the name
    (``other_devices.DeviceOffers.held_places``): a function's local offers nothing, a
    module's name only where another module may read it (``ProjectIndex._places``)."""
    option_places: tuple[tuple[str, frozenset[DeviceOption]], ...] = ()
    """Where it lets the user choose a device on the command line, by place as
    ``offering_places``, but the options whose value it makes the GPU the process sees
    itself: an option whose value it or a module it loads makes the current GPU
    (``gpu_choices``) offers no other."""
    gpu_choices: frozenset[str] = frozenset()
    """The attributes read as the values it makes the GPUs the process sees
    (``os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu_ids``: ``gpu_ids``; not a method
    called, nor a bare name), and those it passes to ``torch.cuda.set_device``
    (``set_device(args.gpu)``: ``gpu``)."""
    gpu_default: str = ""
    """When it surely makes factories without ``device=`` put their tensors on the GPU
    (``torch.set_default_tensor_type("torch.cuda.FloatTensor")``): whenever it is imported,
    only when it runs as a program, or never (``other_devices.DeviceOffers.gpu_default``)."""
    starts_loader_workers: bool = False
    """A call of it may give a data loader worker processes (``may_start_workers``):
    ``num_workers=4``, ``num_workers=args.workers``, ``DataLoader(ds, **options)``."""
    builds_loaders: bool = False
    """It makes a data loader itself (``DataLoader(dataset, ...)``: ``builds_loaders``)."""
    loader_builders: tuple[str, ...] = ()
    """The calls it makes that may be a framework's trainer or loader builder
    (``may_build_loaders``), resolved through its imports (``transformers.Trainer``), else
    as written: a library's gives its loaders workers its calls may not show."""
    main_block: bool = False
    """It has an ``if __name__ == "__main__":`` block: a program's entry point."""
    mentions: frozenset[str] = frozenset()
    """The names its text uses (``mentioned_names``, read as ``mentions_by_definition``
    reads it: its top level's and its definitions'): what it may call, build or look up."""
    definition_mentions: tuple[tuple[str, frozenset[str]], ...] = ()
    """Each top-level ``def`` or ``class`` with the names its own text uses, and its
    ``__main__`` block's (``mentions_by_definition``): what it may call, build or look up
    when it runs."""
    top_level_mentions: frozenset[str] = frozenset()
    """The names the text outside its top-level definitions uses, and the definitions it
    registers by a decorator: what runs whenever the module is imported or run."""
    looks_up_names: bool = False
    """Its text looks up a name computed at run time (``looks_up_names``): what it and the
    modules it imports define may run though no text names it."""
    lists_members: bool = False
    """Its text lists an object's members (``lists_members``: ``inspect.getmembers(m)``)."""
    loaders: frozenset[str] = frozenset()
    """The loaders of code by a computed name its text uses (``loaders_used``):
    ``import_module``, ``instantiate``."""
    assigned_attributes: frozenset[str] = frozenset()
    """The attributes (``attribute_key``) its code assigns a value other than a
    ``gloo_calls`` result: what else such an attribute may hold. Its class bodies' fields
    count (a generated ``__init__`` fills them), ``setattr(x, "name", v)`` too, and None
    where an object starts with it (``__init__``): a collective given None runs over the
    default group."""


BASE_INIT_STEP = "super().__init__"
"""Among ``FunctionFacts.steps``: an ``__init__`` runs its base's (``super().__init__()``,
``Base.__init__(self)``) as a whole statement of its body, whatever else it runs."""


def resolve_alias(dotted: str, aliases: Mapping[str, str]) -> str | None:
    """``nn.Module`` -> ``torch.nn.Module`` when ``nn`` is bound to ``torch.nn``."""
    head, dot, rest = dotted.partition(".")
    target = aliases.get(head)
    if target is None:
        return None
    return f"{target}{dot}{rest}"


def assigned_alias(
    targets: Sequence[T],
    value: T,
    dotted: Callable[[T], str | None],
    aliases: Mapping[str, str],
) -> tuple[str, str] | None:
    """A module-level ``Module = torch.nn.Module`` binds a name as an import would.

    Returns the name and what it stands for, when one plain name is assigned a dotted
    name that ``aliases`` (the bindings so far) resolve; libraries re-export their base
    classes this way. ``dotted`` reads a node of either walk (libcst or ``ast``).
    """
    if len(targets) != 1:
        return None
    name = dotted(targets[0])
    source = dotted(value)
    if name is None or "." in name or source is None:
        return None
    resolved = resolve_alias(source, aliases)
    return None if resolved is None else (name, resolved)


def exports_after(
    current: tuple[str, ...] | None, listed: Sequence[object] | None, *, added: bool
) -> tuple[str, ...] | None:
    """``FileFacts.exports`` after ``__all__ = [...]`` (``added``: ``__all__ += [...]``);
    ``listed``: the literal's values as a walk read them, None when it is no literal."""
    if listed is None or not all(isinstance(name, str) for name in listed):
        return None
    names = tuple(name for name in listed if isinstance(name, str))
    if not added:
        return names
    return None if current is None else current + names


def absolute_module(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module a relative import (``from ..x import y``) refers to."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if target:
        parts.append(target)
    return ".".join(parts)


def class_facts(
    name: str,
    bases: Iterable[str],
    methods: Iterable[str],
    defines_device: bool,
    stores: Iterable[str],
    aliases: Mapping[str, str],
    init_calls_init: bool,
    stored: Iterable[tuple[str, tuple[str, ...]]] = (),
    device_on_cpu: bool = False,
    refused: Iterable[str] = (),
) -> ClassFacts:
    """A class as a walk saw it, its bases resolved through the file's ``aliases``
    (the libcst traversal and the ``ast`` skeleton both build facts with these).
    ``stored``: each value its methods assign to ``self.<attribute>`` (or an item of
    it), as the attribute and the callees of the calls in the value (``""``: a callee
    without a dotted name); ``refused``: the classes its ``__setattr__`` refuses, as spelt."""
    resolved = tuple(resolve_alias(base, aliases) or base for base in bases)
    methods = tuple(methods)
    skips = "__init__" in methods and not init_calls_init
    kept = {attribute for attribute, callees in stored if not callees}
    no_state = all(
        _makes_no_state(resolve_alias(callee, aliases) or callee)
        for _, callees in stored
        for callee in callees
    )
    return ClassFacts(
        name,
        resolved,
        methods,
        defines_device,
        device_on_cpu,
        frozenset(stores),
        skips,
        no_state,
        frozenset(kept),
        frozenset(resolve_alias(refuse, aliases) or refuse for refuse in refused),
    )


def _makes_no_state(callee: str) -> bool:
    """A call that makes a ``torch.nn`` module without parameters or buffers, or a number
    or string (``int(k)``)."""
    if callee in PLAIN_VALUE_BUILTINS:
        return True
    module, _, short = callee.rpartition(".")
    return module == "torch.nn" and short in STATELESS_NN_MODULES


def resolved_calls(calls: Iterable[str], aliases: Mapping[str, str]) -> tuple[str, ...]:
    """``calls`` resolved through the module's imports; calls that none resolves are left out."""
    found = (resolve_alias(call, aliases) for call in sorted(calls))
    return tuple(call for call in found if call is not None)


def resolved_or_written(calls: Iterable[str], aliases: Mapping[str, str]) -> tuple[str, ...]:
    """``calls`` resolved through the module's imports, else as written, sorted."""
    return tuple(sorted(resolve_alias(call, aliases) or call for call in calls))


_COMPILER_NAMES = frozenset(name.rpartition(".")[2] for name in EXTENSION_COMPILERS)


def may_compile(called: str) -> bool:
    """A call written ``called`` may compile an extension (``EXTENSION_COMPILERS``): the
    walks read the kernel sources it is given (``compiled_types`` resolves it)."""
    return called.rpartition(".")[2] in _COMPILER_NAMES


_DECLARATION_NAMES = frozenset(name.rpartition(".")[2] for name in EXTENSION_DECLARATIONS)


def may_declare_an_extension(called: str) -> bool:
    """A call written ``called`` may declare an extension module (``EXTENSION_DECLARATIONS``):
    the walks read the module's name and sources (``declared_extensions`` resolves it)."""
    return called.rpartition(".")[2] in _DECLARATION_NAMES


def declared_extensions(
    declarations: Iterable[tuple[str, str, tuple[str, ...]]], aliases: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """``FileFacts.declared_extensions``: of the calls ``(called as written, the module name
    given, the strings they are given)`` that declare an extension
    (``EXTENSION_DECLARATIONS``), the modules every declaration of which lists kernel
    sources of one device type and no C++ source with the CPU in its path
    (``CPU_SOURCE_WORD``: an extension that runs on the CPU too chooses its kernels by the
    tensors' device; so does one also declared for the CPU alone, a ``CppExtension``
    fallback), each with that type."""
    kinds: dict[str, set[str]] = {}
    refused: set[str] = set()
    for called, module, strings in declarations:
        if resolve_alias(called, aliases) not in EXTENSION_DECLARATIONS:
            continue
        found = kernel_source_types(strings)
        sources = (s.lower() for s in strings if s.endswith((".cpp", ".cc", ".c")))
        if len(found) != 1 or any(CPU_SOURCE_WORD in source for source in sources):
            refused.add(module)
        kinds.setdefault(module, set()).update(found)
    return tuple(
        sorted(
            (module, kind)
            for module, found in kinds.items()
            if module not in refused and len(found) == 1
            for kind in found
        )
    )


def kernel_source_types(strings: Iterable[str]) -> frozenset[str]:
    """The device types of the kernel source files ``strings`` name (``"kernel.cu"``: cuda,
    ``KERNEL_SOURCE_TYPES``)."""
    return frozenset(
        kind
        for text in strings
        for suffix, kind in KERNEL_SOURCE_TYPES.items()
        if text.endswith(suffix)
    )


def compiled_types(
    builds: Iterable[tuple[str, str]], aliases: Mapping[str, str]
) -> tuple[str, ...]:
    """``FileFacts.compiled_for``: of the module-level calls given kernel sources, ``(called
    as written, their device type)``, those that compile an extension (``EXTENSION_COMPILERS``,
    resolved through the module's imports)."""
    return tuple(
        sorted(
            {
                kind
                for called, kind in builds
                if resolve_alias(called, aliases) in EXTENSION_COMPILERS
            }
        )
    )


def function_facts(
    name: str,
    calls: Collection[str],
    self_calls: Iterable[str],
    takes_device: bool,
    aliases: Mapping[str, str],
    takes_inputs: bool = False,
    bound_methods: Iterable[str] = (),
    call_shapes: Iterable[CallShape] = (),
    resolved: Collection[str] = frozenset(),
    untyped: Collection[str] = frozenset(),
    steps: Collection[str] = frozenset(),
) -> FunctionFacts:
    """A function as a walk saw it; calls that no alias resolves are left out (of its call
    shapes, but for moves to a told device: ``CallShape.told_move``). Names in
    ``resolved`` were resolved as the walk met their call, through an import of the
    function's own: sibling closures may each import a
    different ``install``, and the module's last binding is not theirs. ``untyped``: its
    parameters without a default or an annotation, tensors if ``calls`` says so.
    ``steps``: the calls made as whole statements of its body, resolved as ``calls``."""
    takes_inputs = takes_inputs or any(
        receiver in untyped and method in TENSOR_ONLY_METHODS
        for receiver, _, method in (call.rpartition(".") for call in calls)
    )

    def resolved_call(call: str) -> str | None:
        return call if call in resolved else resolve_alias(call, aliases)

    found = (resolved_call(call) for call in sorted(calls))
    made = (
        call if call.startswith("self.") or call == BASE_INIT_STEP else resolved_call(call)
        for call in sorted(steps)
    )
    shapes = set()
    for shape in call_shapes:
        if not shape.callee.startswith("self.") and shape.callee not in resolved:
            callee = resolve_alias(shape.callee, aliases)
            if callee is not None:
                shape = replace(shape, callee=callee)
            elif not shape.told_move:  # a local's move (`net.to(device)`) tells the index
                continue
        shapes.add(shape)
    return FunctionFacts(
        name,
        tuple(call for call in found if call is not None),
        tuple(sorted(self_calls)),
        takes_device,
        takes_inputs,
        tuple(sorted(bound_methods)),
        tuple(sorted(shapes, key=_shape_order)),
        tuple(call for call in made if call is not None),
    )


WEIGHT_APPLIERS = frozenset({"apply", "named_apply"})
"""Calls that run a callback over a module's submodules once (weight initialisation)."""


def bound_method(func: str | None, first: str | None, aliases: Mapping[str, str]) -> str | None:
    """The method ``partial(self.<method>, ...)`` binds: ``func`` and ``first`` are the
    dotted callee and first argument as written (imports resolve ``partial``)."""
    if func is None or first is None:
        return None
    if (resolve_alias(func, aliases) or func) != "functools.partial":
        return None
    head, dot, method = first.partition(".")
    return method if head == "self" and dot and "." not in method else None


def stored_method(target: str | None, value: str | None) -> str | None:
    """The method ``self.<attribute> = self.<method>`` keeps to call later (``target`` and
    ``value`` dotted, as written): a callback such as ``self.assign = self.sinkhorn``."""
    if target is None or value is None or not target.startswith("self."):
        return None
    head, dot, method = value.partition(".")
    return method if head == "self" and dot and "." not in method else None


def moves_to_a_told_device(
    attribute: str | None, arguments: Sequence[T], literal: Callable[[T], bool]
) -> bool:
    """A move (``.to``, ``.cuda``; ``attribute`` is the method called) given a device that
    is no string literal (``literal`` says which of the ``arguments``, the first positional
    and a ``device=``, are): ``x.to(device)``, ``x.cuda(rank)``, ``x.to(other)``; not
    ``x.to("cuda")`` nor ``x.cuda()``. A dtype (``x.to(torch.half)``) counts too: the
    walks cannot tell it from a device."""
    if attribute == "cuda":
        return bool(arguments)
    return attribute == "to" and any(not literal(argument) for argument in arguments)


def moved_calls(moved: Any, call: type[Any], attribute: type[Any]) -> Iterator[int]:
    """The calls (by id) of the chain a move to a told device moves, ``moved`` its receiver
    (``Net(c)`` and ``Net(c).eval()`` in ``Net(c).eval().to(d)``): what they make is moved
    so at once (``CallShape.told_move``). ``call`` and ``attribute`` are the walk's node
    types, ``ast``'s or libcst's, whose chains are spelled alike (``.func``, ``.value``)."""
    while isinstance(moved, (call, attribute)):
        if isinstance(moved, call):
            yield id(moved)
            moved = moved.func
        else:
            moved = moved.value


def _shape_order(shape: CallShape) -> tuple[str, int, tuple[str, ...], bool, bool]:
    return shape.callee, shape.positional, shape.keywords, shape.unpacks, shape.kept_as_device


def attribute_key(attribute: str, owner: str | None) -> str:
    """How ``assigned_attributes`` and ``GlooCall.attribute`` name an attribute:
    ``Class.name`` for one a method of ``owner`` assigns on ``self`` (or its class body
    declares), which only that class's family holds; the bare name for one of another
    object, which may be any class's."""
    return f"{owner}.{attribute}" if owner else attribute


def gloo_slots(arguments: Iterable[tuple[int | str | None, object]]) -> Iterator[int | str]:
    """The slots (positions, keywords) among a call's ``arguments`` (each slot with its
    literal value, if any) that spell the gloo backend: ``GlooCall.slot``."""
    for slot, value in arguments:
        if slot is not None and isinstance(value, str) and "gloo" in value:
            yield slot


def backend_parameter(
    function: str,
    positional: Sequence[str],
    keyword_only: Collection[str],
    method: bool,
    backend: str | None,
) -> BackendParameter | None:
    """The ``BackendParameter`` of ``function`` (its parameters ``positional`` and
    ``keyword_only``), whose call making a process group passes the name ``backend``."""
    if backend is None:
        return None
    if backend in positional:
        return BackendParameter(function, backend, None if method else positional.index(backend))
    if backend in keyword_only:
        return BackendParameter(function, backend)
    return None


def tensor_annotation(annotation: str | None, aliases: Mapping[str, str]) -> bool:
    """An annotation (dotted, as written; imports resolve) that names a tensor type:
    ``Tensor``, ``torch.FloatTensor``, ``T`` after ``from torch import Tensor as T``. The
    one answer to "is this annotated as a tensor"; a caller decides whether a name inside
    ``Optional[...]`` counts."""
    return _annotated_type(annotation, aliases).endswith("Tensor")


def input_annotation(annotation: str | None, aliases: Mapping[str, str]) -> bool:
    """A parameter annotated so holds a tensor (``tensor_annotation``) or a module
    (``nn.Module``). Not ``Optional[Tensor]``: maybe no input at all."""
    return (
        tensor_annotation(annotation, aliases) or _annotated_type(annotation, aliases) == "Module"
    )


def _annotated_type(annotation: str | None, aliases: Mapping[str, str]) -> str:
    """The last part of the type a dotted annotation names, through the file's imports."""
    if annotation is None:
        return ""
    return (resolve_alias(annotation, aliases) or annotation).rpartition(".")[2]


def placed_arguments(method: str | None, args: Sequence[T], keywords: Sequence[T]) -> list[T]:
    """The arguments of a call that place with their value: ``x.to(d)``'s and
    ``x.cuda(d)``'s first positional (``method`` the called attribute's name), and the
    values of its ``PLACING_KEYWORDS`` (``keywords``)."""
    placed = [args[0]] if method in DEVICE_ARGUMENT_MOVES and args else []
    return [*placed, *keywords]


def names_the_device(attribute: str) -> bool:
    """``self.<attribute>`` names the device an object keeps: ``device``,
    ``current_device``, ``_device`` (as a parameter of that name names the device a
    function is told)."""
    return "." not in attribute and attribute.endswith("device")


def stored_evidence(attribute: str) -> str | None:
    """What storing ``self.<attribute>`` says about a class (``ClassFacts.stores``)."""
    if attribute == "device":
        return "device"
    if attribute == "model" or attribute.endswith("_model"):
        return "model"
    return None


_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t][^\n]*)",
    re.MULTILINE,
)
_EXPORT_LIST = re.compile(r"^__all__[ \t]*\+?=[ \t]*[\[(][^\])]*[\])]", re.MULTILINE)
_OWN_NAME = re.compile(r"\b(?:def|class)[ \t]+\w+|\bsuper\([ \t]*\w+[ \t]*,")
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_DECORATOR = re.compile(r"[ \t]*@[ \t]*([\w.]+)")
_RENAMED = re.compile(r"(\w+)[ \t]+as[ \t]+\w+")
_NAME = re.compile(r"[A-Za-z_]\w*")


def mentioned_names(text: str) -> frozenset[str]:
    """The names a module's text uses, read from the text alone: every word of its code,
    comments and strings (``getattr(self, "load")``, a registry's ``"ResNet"``), but not
    where it only defines or re-exports a name: the name of a ``def`` or ``class``, a class
    naming itself in ``super(Name, self)``, an import statement (but for the name it renames:
    ``from m import ResNet as Backbone`` uses ``ResNet``), ``__all__``. A definition under a
    decorator that is not a plain wrapper (``PLAIN_DECORATORS``) counts as used: the
    decorator may register it (``@register_model``) for a lookup by a name the code never
    writes."""
    registered = _registered(text)
    renamed = {
        name
        for statement in _IMPORT_STATEMENT.findall(text)
        for name in _RENAMED.findall(statement)
    }
    for pattern in (_IMPORT_STATEMENT, _EXPORT_LIST, _OWN_NAME):
        text = pattern.sub(" ", text)
    return frozenset(_NAME.findall(text)).union(registered, renamed)


MAIN_GUARD_NAME = "__main__"
"""How ``mentions_by_definition`` names a module's ``if __name__ == "__main__":`` block."""
_MAIN_GUARD = re.compile(
    r"if[ \t(]+(?:__name__[ \t]*==[ \t]*['\"]__main__['\"]"
    r"|['\"]__main__['\"][ \t]*==[ \t]*__name__)"
)
_TOP_LEVEL_DEFINITION = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")
_CONTINUATION = tuple(" \t#)]}")
"""How a line of one statement that began above may start: indented, a comment, or the
closing bracket of a signature (``) -> None:`` at the margin)."""


def mentions_by_definition(
    text: str, defined: Container[str]
) -> tuple[tuple[tuple[str, frozenset[str]], ...], frozenset[str]]:
    """``mentioned_names`` of each top-level ``def`` or ``class`` (its decorators and
    lines up to the next statement at the margin) and of the ``if __name__ == "__main__":``
    block (as ``MAIN_GUARD_NAME``: it runs only when the module is the program), and of the
    rest of the text with the definitions it registers (``_registered``). Read from the
    lines alone, where a line at the margin starts a definition only if it names one the
    module ``defined`` (not a string's ``class Example:``): a string whose other lines reach
    the margin ends a definition early, which gives its rest to the top level (whose names
    always count), never the other way round."""
    definitions: list[tuple[str, list[str]]] = []
    rest: list[str] = []
    decorators: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if not line or line.startswith(_CONTINUATION):
            (current if current is not None else rest).append(line)
            continue
        if line.startswith("@"):
            decorators.append(line)
            current = None
            continue
        found = _TOP_LEVEL_DEFINITION.match(line)
        if found is not None and found[1] not in defined:
            (current if current is not None else rest).append(line)
            continue
        if found is None and _MAIN_GUARD.match(line) is None:
            rest.extend(decorators)
            decorators, current = [], None
            rest.append(line)
            continue
        current = [*decorators, line]
        decorators = []
        definitions.append((found[1] if found is not None else MAIN_GUARD_NAME, current))
    rest.extend(decorators)
    own = tuple((name, mentioned_names("\n".join(lines))) for name, lines in definitions)
    return own, mentioned_names("\n".join(rest)).union(_registered(text))


_WRITTEN_NAME = r"""[ \t]*(?:'\w+'|"\w+")[ \t]*"""
"""A name written out whole as a string (``"resnet"``; not ``"resnet" + arch``)."""
_LOOKUP = re.compile(
    rf"getattr\([ \t]*[\w.]+[ \t]*,(?!{_WRITTEN_NAME}[,)])"  # a name not written out
    rf"|(?:globals\(\)|__dict__|\bvars\([^()]*\))[ \t]*\[(?!{_WRITTEN_NAME}\])|\bFire\("
)


def looks_up_names(text: str) -> bool:
    """The text looks up a name computed at run time: ``getattr(self, f"forward_{mode}")``,
    ``getattr(models, cfg.arch)``, ``models.__dict__["resnet" + depth]``,
    ``vars(models)[arch]``, ``globals()[name]``, or hands a class to ``fire.Fire``, whose
    methods the command line names (not ``vars(args)`` read whole, an argument namespace's
    values, nor ``models.__dict__["resnet"]`` or ``getattr(m, "f")``, a name written out)."""
    return _LOOKUP.search(text) is not None


_LOADERS = "|".join(sorted(RUN_TIME_LOOKUPS))
_LOADER_USE = re.compile(
    rf"\b({_LOADERS})(?=[ \t]*\()"  # called: `importlib.import_module(name)`
    rf"|\b({_LOADERS})[ \t]+as[ \t]"  # imported under another name
    rf"|=[ \t]*[\w.]*\b({_LOADERS})[ \t]*$",  # bound to another name: `load = locate`
    re.MULTILINE,
)


def loaders_used(text: str) -> frozenset[str]:
    """The loaders of code by a computed name (``RUN_TIME_LOOKUPS``) the text calls
    (``importlib.import_module(name)``, ``instantiate(cfg)``, ``def
    __init_subclass__(cls)``), imports under another name or binds to one: not a word of a
    comment or a docstring alone (``# locate the file``), which loads nothing."""
    return frozenset(name for match in _LOADER_USE.findall(text) for name in match if name)


_MEMBER_LISTING = re.compile(
    r"\b(?:getmembers|dir)[ \t]*\("
    r"|(?:__dict__|\bvars\([^()]*\))[ \t]*\.[ \t]*(?:values|items|keys)[ \t]*\("
    r"|\bsys\.modules\b"
)


def lists_members(text: str) -> bool:
    """The text lists an object's members (``inspect.getmembers(module)``, ``dir(m)``,
    ``vars(m).values()``, ``m.__dict__.items()``, ``sys.modules``): with a module loaded by
    a computed name (``MODULE_LOADERS``), a class no text names may be found so."""
    return _MEMBER_LISTING.search(text) is not None


def written_words(text: str) -> frozenset[str]:
    """Every word of the text, its imports too: the names a file that does not parse may
    use (a Python 2 file imports and runs the project's code all the same)."""
    return frozenset(_NAME.findall(text))


_SCOPE_READERS = re.compile(r"(?<![\w.])(?:locals|globals|vars|eval|exec)[ \t]*\(")


def reads_name(text: str, name: str) -> bool:
    """A module's text may read ``name``, from the text alone: it writes the word other
    than as an attribute (``x.device``) or about to be bound or given as a keyword
    (``device =``, ``f(device=...)``); comments and strings count, and so does a ``def``, a
    parameter, a ``global`` or a ``del`` spelling it. Any name where the text may read
    names it does not spell (``locals()``, ``globals()``, ``vars()``, ``eval``, ``exec``)."""
    if _SCOPE_READERS.search(text) is not None:
        return True
    read = rf"(?<![\w.]){re.escape(name)}\b(?![ \t]*=(?!=))"
    return re.search(read, text) is not None


def _registered(text: str) -> set[str]:
    """The definitions under a decorator that may register them: each definition's lines
    just above it are read back while they are decorators (linear in the text)."""
    found: set[str] = set()
    for definition in _DEFINITION.finditer(text):
        end = definition.start()
        while end > 0:
            start = text.rfind("\n", 0, end - 1) + 1
            decorator = _DECORATOR.match(text, start, end)
            if decorator is None:
                break
            if decorator[1].rpartition(".")[2] not in PLAIN_DECORATORS:
                found.add(definition[1])
                break
            end = start
    return found
