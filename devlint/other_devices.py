"""What in a module's code offers to compute somewhere other than the current GPU: the CPU
or another accelerator named as a device, a GPU named by a number other than 0 or one
chosen at run time (not the GPU made current: ``set_device(rank)`` moves the current GPU,
and what follows it, together), a question which devices exist, an option that lets the
user choose one, a framework told where to compute (``Trainer(accelerator="gpu")``: it
may be told the CPU instead). A program
whose code offers none of these runs every tensor on the current GPU, so a literal
``"cuda"`` or ``.cuda()`` there cannot disagree with any other tensor
(``ProjectIndex.runs_on_the_current_gpu_only``). Both walks (the ``ast`` skeleton and the
libcst traversal) record what they see with these predicates, so they agree."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from devlint.facts import DeviceOption, resolve_alias
from devlint.symbols import (
    AVAILABILITY_CHECKS,
    DEFAULT_DEVICE_SETTERS,
    DEVICE_TYPES,
    ENVIRONMENTS,
    LOCAL_RANK_NAMES,
)

OTHER_DEVICE_TYPES = (DEVICE_TYPES - {"cuda"}) | {"cpu"}

VISIBLE_GPUS = "CUDA_VISIBLE_DEVICES"
"""The environment variable that chooses which GPUs a process sees, the first as its
current one."""

ENVIRONMENT_NAMES = ENVIRONMENTS | {name.rpartition(".")[2] for name in ENVIRONMENTS}
"""How a module writes the process's environment, as written (``os.environ``, or
``environ`` after ``from os import environ``)."""

RUNS_ON_IMPORT = "on import"
"""A call that runs whenever its module is imported (``DeviceOffers.call``'s ``runs``)."""

RUNS_WHEN_RUN = "when run"
"""A call that runs whenever its module runs as a program, not when it is imported."""

DEFAULT_SETTER_NAMES = frozenset(name.rpartition(".")[2] for name in DEFAULT_DEVICE_SETTERS)
"""The last names of ``DEFAULT_DEVICE_SETTERS``, as a call's name ends."""

_DEVICE_OPTION_WORDS = frozenset({"device", "devices", "gpu", "gpus", "cpu", "cuda", "accelerator"})
"""Words of a command-line option that chooses where to compute (``--device``,
``--gpu_ids``, ``--no-cuda``); not ``--multigpus`` (how many, not where)."""

_KINDS = "|".join(sorted(DEVICE_TYPES | {"gpu", "tpu", "mlu", "musa"}))
_AVAILABILITY_HELPER = re.compile(
    rf"^_?(is_(\w+_)?({_KINDS})_available|has_(\w+_)?({_KINDS}))$", re.IGNORECASE
)
"""Helpers and flags that say whether a device type exists (``is_npu_available()``,
``IS_CUDA_AVAILABLE``, ``is_torch_xla_available()``, ``_has_mps()``): a branch on them
chooses a device deliberately."""


def availability_helper(name: str) -> bool:
    """``name`` is a helper or flag that says whether a device type exists."""
    return _AVAILABILITY_HELPER.match(name) is not None


def asks_by_name(last: str, *, attribute: bool, of_a_call: bool) -> bool:
    """A test's name whose last part is ``last`` asks whether a device type exists: a
    helper or flag (``is_npu_available``, ``IS_CUDA_AVAILABLE``), or ``torch.cuda.is_available``
    as an ``attribute`` (not of a call's result, ``of_a_call``: not
    ``get_accelerator().is_available()``, which asks about whatever accelerator there is)."""
    if availability_helper(last):
        return True
    return attribute and last in AVAILABILITY_CHECKS and not of_a_call


def names_an_availability_check(qualified: str) -> bool:
    """The qualified name of a call asks which devices exist, as
    ``nodes.asks_which_devices_exist`` reads a test: ``torch.cuda.is_available``,
    ``torch.cuda.device_count``, a helper such as ``accelerate.utils.is_npu_available``; not
    ``torch.distributed.is_available()``, which asks whether torch was built with it."""
    owner, _, last = qualified.rpartition(".")
    if availability_helper(last):
        return True
    builds = owner == "torch.distributed" or owner.startswith("torch.distributed.")
    return last in AVAILABILITY_CHECKS and owner.startswith("torch.") and not builds


DEVICE_CALL_NAMES = frozenset({"device", *AVAILABILITY_CHECKS})
"""Last names of the calls a walk records (with the literal arguments it sees) for
``call_offers_another_device``: ``torch.device`` and the checks of which devices exist."""

DEVICE_KEYWORDS = frozenset({"device", "type", "index"})
"""Keywords that name the device of ``x.cuda(device=...)``, ``torch.device(type=...)``."""

DEFAULT_GPU = (0, "cuda", "cuda:0")
"""Literal arguments that name the current GPU of a program that never sets one."""


def names_another_device(text: str) -> bool:
    """A string naming the CPU or another accelerator (``"cpu"``, ``"mps"``), a GPU other
    than the first (``"cuda:1"``), or one chosen at run time (``f"cuda:{rank}"``,
    ``"cuda:%d" % rank``)."""
    kind, colon, index = text.partition(":")
    if kind == "cuda":  # `"cuda:{}".format(rank)`, `"cuda:%d" % rank` too
        return bool(colon) and index != "0" and " " not in index
    return kind in OTHER_DEVICE_TYPES and (not index or index.isdigit())


def names_another_gpu(text: str) -> bool:
    """``names_another_device``, but not the CPU: a GPU other than the first, or one chosen
    at run time, or another accelerator (where a ``.cuda()`` tensor is not either)."""
    return names_another_device(text) and text.partition(":")[0] != "cpu"


_FRAMEWORK_DEVICE_WORDS = frozenset({"devices", "gpu", "gpus", "cpu", "cuda", "accelerator"})
"""Words of a keyword argument that hands a framework the choice of device
(``Trainer(accelerator="gpu", devices=1)``, ``TrainingArguments(use_cpu=...)``,
``from_pretrained(device_map=...)``); not ``device=``, which places one tensor."""


_NOT_A_CHOICE_WORDS = frozenset(
    {
        "per", "max", "min", "memory", "mem", "low", "usage", "cflags", "flags", "extra",
        "kwargs", "split", "offload", "offloading", "size", "batch", "ims", "minibatch",
        "default", "cache", "cached", "time",
    }
)  # fmt: skip
"""Words that make a keyword with a device word say something else of a device than where
to compute: a size or a share (``ims_per_gpu``, ``max_gpu_memory``, ``low_cpu_mem_usage``),
a build flag (``extra_cuda_cflags``), a copy kept elsewhere (``offload_to_cpu``)."""


def hands_over_the_device(keyword: str) -> bool:
    """A keyword argument by which a framework (Lightning's ``Trainer``, transformers'
    ``TrainingArguments``, ``device_map=``) is told where to compute: it may be told the
    CPU without changing the code. A device word, and none that says it is a size, a
    share, a build flag or a copy (``_NOT_A_CHOICE_WORDS``)."""
    words = set(keyword.lower().split("_"))
    return keyword == "device_map" or (
        not _FRAMEWORK_DEVICE_WORDS.isdisjoint(words) and _NOT_A_CHOICE_WORDS.isdisjoint(words)
    )


def keeps_the_gpu(keyword: str, value: object) -> bool:
    """A keyword given a literal that keeps the GPU on (``with_cuda=True``,
    ``use_gpu=True``, ``no_cuda=False``, ``cpu=False``): where it hands over the device
    (``DeviceOffers.call``), it tells the framework the one choice, which offers no other."""
    return type(value) is bool and value == _gpu_on(keyword)


def may_matter(value: str) -> bool:
    """A string whose exact value the predicates here read: one naming a device, a device
    option, the CPU or the first GPU. (The two walks agree on the others whatever they
    make of escapes: libcst evaluates only strings written without them.)"""
    return (
        names_another_device(value) or chooses_a_device(value) or value in ("cpu", "cuda", "cuda:0")
    )


def stays_on(option_type: str | None, default: str | None) -> bool:
    """``add_argument("--use_cuda", type=bool, default=True)``, its ``type`` and ``default``
    as written: ``bool("False")`` is True, so no value the command line gives turns it off
    (but the empty string). A switch that so keeps the GPU on (``_gpu_on``) offers no other
    device; one that keeps the CPU on (``--no_cuda``) still does."""
    return option_type == "bool" and default == "True"


_OFF_WORDS = frozenset({"no", "not", "cpu", "disable", "without"})


def _gpu_on(option: str) -> bool:
    """An option that, on, says to compute on the GPU (``--use_cuda``, ``--gpu``), not on
    the CPU (``--no_cuda``, ``--nocuda``, ``--cpu``)."""
    words = set(re.split(r"[-_]+", option.lower().lstrip("-")))
    off = any(word in _OFF_WORDS or word.startswith("no") for word in words)
    return not off and not words.isdisjoint({"cuda", "gpu", "gpus"})


def chooses_a_device(option: str) -> bool:
    """A command-line option (``parser.add_argument("--gpu_ids", ...)``) that lets the user
    say where to compute."""
    if not option.startswith("-"):
        return False
    words = re.split(r"[-_]+", option.lower().lstrip("-"))
    return not _DEVICE_OPTION_WORDS.isdisjoint(words)


_SWITCH_WORDS = frozenset({"cpu", "cuda"})
"""The device words of an option that only switches between the GPU and the CPU
(``--cuda``, ``--no-cuda``, ``--use_cpu``): it names no GPU."""


def hands_over_a_gpu(keyword: str) -> bool:
    """``hands_over_the_device``, by a keyword that may name a GPU or another accelerator
    (``devices=``, ``gpus=``, ``accelerator=``, ``device_map=``), not one that only switches
    the GPU on or off (``cuda=False``, ``use_cpu=True``: a project's own builder told to
    build on the CPU)."""
    return hands_over_the_device(keyword) and _may_name_a_gpu(keyword)


def _may_name_a_gpu(handing: str) -> bool:
    """``hands_over_a_gpu`` of a keyword that hands over the device."""
    words = set(handing.lower().split("_"))
    return handing == "device_map" or not (words & _FRAMEWORK_DEVICE_WORDS) <= _SWITCH_WORDS


def chooses_a_gpu(option: str) -> bool:
    """``chooses_a_device``, by an option that may name a GPU or another accelerator
    (``--device``, ``--gpu_ids``), not one that only switches the GPU on or off."""
    words = set(re.split(r"[-_]+", option.lower().lstrip("-")))
    return chooses_a_device(option) and not (words & _DEVICE_OPTION_WORDS) <= _SWITCH_WORDS


def call_offers_another_device(qualified: str, literals: tuple[object, ...] | None) -> bool:
    """A call of ``qualified`` with its positional arguments' ``literals`` (None: an
    argument that is no literal, or a keyword) asks which devices exist
    (``torch.cuda.is_available()``; not ``device_count()``, which counts GPUs to share
    work among: it offers no other device) or names a device other than the current GPU
    (``torch.device(args.device)``). Not ``torch.cuda.set_device(rank)``: it changes which
    GPU is current, where the rest then goes."""
    if qualified.rpartition(".")[2] == "device_count":
        return False
    if names_an_availability_check(qualified):
        return True
    if qualified != "torch.device":
        return False
    if literals is None or not literals or len(literals) > 2:
        return True
    return literals[0] not in DEFAULT_GPU or (len(literals) == 2 and literals[1] != 0)


LITERAL_CHOICE = "<a choice of literals>"
"""The first argument as written, where it is a choice between string literals
(``"cuda" if use_cuda else "cpu"``): what it may be, its strings say."""


A_TENSORS_DEVICE = "<a tensor's device>"
"""The first argument as written, where it asks a tensor for its GPU
(``x.get_device()``): it follows that tensor, it chooses nothing (not ``d.index``, which
may be a device chosen at run time)."""


def makes_a_gpu_current(called: str | None) -> bool:
    """A call of ``called`` (resolved through the module's imports) is
    ``torch.cuda.set_device``: the GPU its argument names (``f"cuda:{rank}"``) becomes the
    current one, where ``.cuda()`` puts tensors too; it offers no other."""
    return called == "torch.cuda.set_device"


def call_offers_another_gpu(
    qualified: str, literals: tuple[object, ...] | None, written_argument: str | None
) -> bool:
    """``call_offers_another_device``, but not the CPU alone: any device chosen at run time
    (``torch.device(args.device)``, ``torch.device(cfg["device"])``,
    ``torch.device("cuda", index=rank)``) or ``torch.device("cuda", 1)``; not
    ``torch.cuda.is_available()`` (the CPU else), not ``torch.device("cpu")``, nor
    ``torch.device("cuda" if ... else "cpu")`` (``written_argument`` is
    ``LITERAL_CHOICE``), whose strings say what it offers."""
    if qualified != "torch.device" or not call_offers_another_device(qualified, literals):
        return False
    if literals is None:
        return written_argument != LITERAL_CHOICE
    kind = literals[0] if literals and isinstance(literals[0], str) else ""
    return kind.partition(":")[0] != "cpu"


def moves_by_a_gpu_number(literals: tuple[object, ...] | None) -> bool:
    """``x.cuda(gpu)`` with positional ``literals`` (None: not all literals, or a ``device``
    keyword): a GPU other than the current one's 0, or chosen at run time."""
    return literals is None or (bool(literals) and literals[0] != 0)


FRAMEWORKS_CHOOSING_DEVICES = frozenset({"Accelerator"})
"""Classes that choose the device at run time from the launch configuration
(accelerate's ``Accelerator()``: the CPU where no GPU is given)."""

_PROCESS_GPU_WORDS = frozenset({"rank", "gpu", "gpu_id", "device_id"})


def names_a_process_gpu(written: str | None) -> bool:
    """``local_rank``, ``args.gpu``, ``self.device_id``: a name holding a GPU's number,
    chosen at run time."""
    if written is None:
        return False
    last = written.rpartition(".")[2].lower()
    return last in _PROCESS_GPU_WORDS or last.endswith("_rank") or last in LOCAL_RANK_NAMES


NOT_A_LITERAL = object()
"""A value that no literal gives (``local_rank``)."""


NUMBERED_GPU = "numbered GPU"
"""A GPU by a number chosen at run time (``DeviceOffers``' kinds of offer)."""
ANOTHER_GPU = "another GPU"
"""Another GPU or accelerator, not by a number chosen at run time alone."""
ANOTHER_DEVICE = "another device"
"""Any offer but a GPU by a number chosen at run time alone, or the CPU by name alone: the
CPU's too."""
DEVICE_GIVEN = "a device given"
"""A device named by a plain name the code is given and nothing else
(``torch.device(device)``, ``_given_a_device``): the device of whoever gives it, a choice
where a script, a module's top level or a module with device options names it
(``ProjectIndex._places``); in a library's function or class, its caller's, which offers
the device where it chooses it."""
CPU_BY_NAME = "the CPU by name"
"""The CPU named by a literal argument of a call under no ``if`` and nothing else
(``x.to("cpu")``, ``load(w, device="cpu")``; ``DeviceOffers.string``): one value placed
there on purpose (an EMA's copy, weights loaded before a move) in a library's function or
class; the program's choice where a script, a module's top level or a module with device
options names it (``ProjectIndex._places``)."""


def offers_a_gpu(kinds: Iterable[str]) -> bool:
    """What offers ``kinds`` may offer a GPU other than the current one, or another
    accelerator (a device given may be either, or the CPU)."""
    return not {NUMBERED_GPU, ANOTHER_GPU, DEVICE_GIVEN}.isdisjoint(kinds)


def option_kinds(option: DeviceOption) -> frozenset[str]:
    """What a command-line option that lets the user say where to compute offers, where
    the program does not make its value its current GPU (``DeviceOffers``' kinds)."""
    return frozenset({ANOTHER_GPU, ANOTHER_DEVICE} if option.gpu else {ANOTHER_DEVICE})


def device_option(option: str, dest: str | None) -> DeviceOption:
    """The ``DeviceOption`` of an option written ``option`` (``chooses_a_device``), whose
    value ``dest=`` names (None: not given)."""
    names = {option.lstrip("-").replace("-", "_"), *([dest] if dest else [])}
    return DeviceOption(frozenset(names), chooses_a_gpu(option))


TOP_LEVEL = ""
"""Where code outside a module's top-level definitions and ``__main__`` block is
(``DeviceOffers``' places): it runs whenever the module is imported."""


@dataclass
class _Seen:
    """What one place of a module offers (``DeviceOffers``)."""

    any: bool = False
    """What was seen offers a device other than a GPU by a number chosen at run time, or
    the CPU by name."""
    cpu: bool = False
    """What was seen names the CPU by a literal (``CPU_BY_NAME``)."""
    gpu: bool = False
    """What was seen names a GPU other than the current one (or another accelerator),
    not the CPU alone (``offered_gpu``), nor a GPU by a number chosen at run time."""
    numbered: bool = False
    """What was seen names a GPU by a number chosen at run time (``f"cuda:{rank}"``,
    ``x.cuda(args.gpu)``, ``device_ids=[local_rank]``): the current one where the process
    made it so (``set_device(local_rank)``)."""
    calls: set[tuple[str, tuple[object, ...] | None, str | None]] = field(default_factory=set)
    """``torch.device(...)`` and availability checks, as ``DeviceOffers.call`` is given them:
    resolved through the module's imports at the end (``DeviceOffers._kinds``)."""
    options: set[DeviceOption] = field(default_factory=set)
    """Command-line options that let the user say where to compute (``--gpu``): what they
    offer the program decides (``ProjectIndex``), where their value may become its current
    GPU (``DeviceOffers.gpu_choices``)."""


class DeviceOffers:
    """What one walk of a module saw that offers another device, by place: each top-level
    definition, the ``__main__`` block (``MAIN_GUARD_NAME``), and the rest (``TOP_LEVEL``),
    as ``facts.mentions_by_definition`` reads the text. Each walk feeds it what it reads, as
    plain values (a string's value, a call's name and literal arguments), and keeps out what
    names the CPU only to load weights or to take a tensor to the host (``exempt``, by node
    id)."""

    def __init__(self) -> None:
        self.exempt: set[int] = set()
        """Nodes inside ``map_location=`` or an ``assert``'s test, and the ``"cpu"`` of
        ``x.to("cpu").numpy()``."""
        self._places: dict[str, _Seen] = {}
        self._held: dict[tuple[str, str], _Seen] = {}
        """What values assigned to names that nothing else in the module reads offer, by
        place and name (``held_places``)."""
        self._visible: set[str] = set()
        """The names (``gpu`` of ``args.gpu``, ``args`` too) the values the module makes
        ``CUDA_VISIBLE_DEVICES`` read: an option of the module by one of these names
        chooses the GPU the process sees (``option_places`` leaves it out)."""
        self._chosen: set[str] = set()
        """The attributes those values read as values (``gpu`` of ``args.gpu``): an option
        of that name in a module that loads this one chooses the visible GPU too
        (``gpu_choices``)."""
        self._made_current: set[tuple[str, str]] = set()
        """``set_device(args.gpu)`` calls as written, with the attribute they pass
        (``gpu``): those of ``torch.cuda.set_device`` make it the current GPU."""
        self._default_devices: set[tuple[str, str | None, str]] = set()
        """``torch.set_default_device(d)`` and the like: the call as written, the device or
        tensor type it names (a string, or its first argument as written), and when it
        surely runs (``RUNS_ON_IMPORT``, ``RUNS_WHEN_RUN`` or ``""``)."""

    def string(
        self,
        value: str,
        place: str,
        *,
        an_argument: bool = False,
        holder: Callable[[], str | None] = lambda: None,
    ) -> None:
        """A string literal of the code (not a docstring), at ``place``; ``an_argument``:
        an argument of a call under no ``if`` (``x.to("cpu")``, ``load(w, device="cpu")``),
        where naming the CPU places one value (``CPU_BY_NAME``); anywhere else (assigned,
        returned, a default, an outcome of a condition) it may choose the program's device.
        ``holder``: asked only where it names a device, the name whose assigned value it is
        in, where nothing else in the module reads that name (``held_places``)."""
        if names_another_device(value):
            seen = self._seen(place, holder())
            kind, _, index = value.partition(":")
            if kind == "cuda" and not index.isdigit():
                seen.numbered = True  # `f"cuda:{rank}"`, `"cuda:%d" % rank`
                return
            if kind == "cpu" and an_argument:
                seen.cpu = True
                return
            seen.any = True
            seen.gpu = seen.gpu or names_another_gpu(value)

    def call(
        self,
        written: str | None,
        last: str,
        method: bool,
        literals: tuple[object, ...] | None,
        strings: list[str],
        keywords: list[str],
        process_gpus: list[object],
        written_argument: str | None,
        place: str,
        *,
        runs: str = "",
        switch_stays_on: bool = False,
        dest: str | None = None,
        keeping: frozenset[str] = frozenset(),
        holder: Callable[[], str | None] = lambda: None,
    ) -> None:
        """A call written ``written`` (None: no dotted name), whose name ends in ``last``
        (``method``: on a value, ``x.cuda()``), with its positional arguments' ``literals``
        (``call_offers_another_device``), its positional string arguments, the names of
        its keyword arguments, and the GPUs it pins a process's model to
        (``DistributedDataParallel(model, device_ids=[local_rank])``: literal values,
        ``NOT_A_LITERAL`` for others), its first positional argument as written (a
        dotted name, or None) and the place it is at; ``runs``: ``RUNS_ON_IMPORT`` where it
        runs whenever the module is imported (a statement of its body under no block),
        ``RUNS_WHEN_RUN`` where only when it runs as a program (directly in its
        ``__main__`` block), else ``""``; ``switch_stays_on``: an option the command line
        cannot turn off (``stays_on``); ``dest``: the string its ``dest=`` keyword gives;
        ``keeping``: its keywords given a literal that keeps the GPU on (``keeps_the_gpu``);
        ``holder``: asked only where the call offers something, the name whose assigned value
        the call is in where nothing else in the module reads that name (``held_places``):
        its options are the module's all the same, a parser's whatever holds them."""
        if written is not None and last in DEFAULT_SETTER_NAMES:
            named = strings[0] if strings else written_argument
            self._default_devices.add((written, named, runs))
        if last == "set_defaults":  # `parser.set_defaults(gpus=0)`: the options' defaults
            strings = [*strings, *(f"--{keyword}" for keyword in keywords)]
            keywords = []
        handed = [k for k in keywords if hands_over_the_device(k) and k not in keeping]
        gpu = (
            any(map(_may_name_a_gpu, handed))
            or any(gpu not in (0, NOT_A_LITERAL) for gpu in process_gpus)  # `device_ids=[1]`
            or last in FRAMEWORKS_CHOOSING_DEVICES
            or (
                method
                and last == "cuda"
                and literals is not None
                and moves_by_a_gpu_number(literals)
            )
        )
        tensors = written_argument == A_TENSORS_DEVICE  # `.cuda(x.get_device())`
        numbered = (
            NOT_A_LITERAL in process_gpus  # the model's, the current GPU or not
            or (method and last == "cuda" and literals is None and not tensors)  # `.cuda(gpu)`
            # `net.to(local_rank)`: that GPU, which need not be current
            or (method and last == "to" and names_a_process_gpu(written_argument))
        )
        options = [
            device_option(s, dest)
            for s in strings
            if chooses_a_device(s) and not (switch_stays_on and _gpu_on(s))
        ]
        device_call = last in DEVICE_CALL_NAMES and written is not None and not tensors
        if options:
            self._places.setdefault(place, _Seen()).options.update(options)
        if not (gpu or numbered or handed or device_call):
            return
        # `Accelerator()` sets up its process's state, which other code may read
        chooses = last in FRAMEWORKS_CHOOSING_DEVICES
        seen = self._seen(place, None if chooses else holder())
        seen.gpu = seen.gpu or gpu
        seen.numbered = seen.numbered or numbered
        seen.any = seen.any or gpu or bool(handed)
        if device_call and written is not None:
            if not DEVICE_KEYWORDS.isdisjoint(keywords):
                literals = None  # `torch.device("cuda", index=rank)`: not all literals
            seen.calls.add((written, literals, written_argument))

    def _seen(self, place: str, held: str | None) -> _Seen:
        if held is None:
            return self._places.setdefault(place, _Seen())
        return self._held.setdefault((place, held), _Seen())

    def makes_visible(self, names: Iterable[tuple[str, bool]]) -> None:
        """The value the module makes ``CUDA_VISIBLE_DEVICES`` reads ``names``, each with
        whether it is an attribute read as a value: an option of one of these names chooses
        which GPU the process sees, as its first and current one, not a device to compute
        on."""
        for name, attribute in names:
            self._visible.add(name)
            if attribute:
                self._chosen.add(name)

    def makes_current(self, written: str, names: Iterable[tuple[str, bool]]) -> None:
        """A call written ``written`` that makes a GPU current (``makes_a_gpu_current``) is
        given a value that reads ``names`` (as ``makes_visible``): the attributes read as
        values (``gpu`` of ``set_device(args.gpu)``, of ``set_device(f"cuda:{args.gpu}")``)
        choose the current GPU where the call is ``torch.cuda.set_device``."""
        self._made_current.update((written, name) for name, attribute in names if attribute)

    def gpu_choices(self, aliases: Mapping[str, str]) -> frozenset[str]:
        """``FileFacts.gpu_choices``: the attributes (``gpu`` of ``args.gpu``) the values
        the module makes the GPUs the process sees read as values (``CUDA_VISIBLE_DEVICES``),
        and those it passes to ``torch.cuda.set_device``, resolved through its imports."""
        current = {
            attribute
            for written, attribute in self._made_current
            if makes_a_gpu_current(resolve_alias(written, aliases) or written)
        }
        return frozenset(self._chosen | current)

    def option_places(self) -> tuple[tuple[str, frozenset[DeviceOption]], ...]:
        """``FileFacts.option_places``: each place with command-line options that let the
        user say where to compute, and those options, but those the module itself makes
        the GPU the process sees (``makes_visible``)."""
        found = (
            (place, frozenset(o for o in seen.options if o.names.isdisjoint(self._visible)))
            for place, seen in self._places.items()
        )
        return tuple(sorted((place, options) for place, options in found if options))

    def _kinds(self, seen: _Seen, aliases: Mapping[str, str]) -> frozenset[str]:
        """What ``seen`` offers, its options aside (``option_places``): ``NUMBERED_GPU`` (a
        GPU by a number chosen at run time), ``ANOTHER_GPU`` (another GPU or accelerator
        otherwise), ``ANOTHER_DEVICE`` (any other offer, the CPU's too), ``CPU_BY_NAME``
        and ``DEVICE_GIVEN`` (offers only where the code chooses the program's devices)."""
        calls = [
            (resolve_alias(written, aliases) or written, literals, first)
            for written, literals, first in seen.calls
        ]
        given = [call for call in calls if _given_a_device(*call)]
        chosen = [call for call in calls if call not in given]
        gpu = seen.gpu or any(call_offers_another_gpu(*call) for call in chosen)
        other = (
            gpu
            or seen.any
            or any(call_offers_another_device(called, literals) for called, literals, _ in chosen)
        )
        found = {NUMBERED_GPU} if seen.numbered else set()
        found.update(
            kind
            for kind, offered in (
                (ANOTHER_GPU, gpu),
                (ANOTHER_DEVICE, other),
                (CPU_BY_NAME, not other and seen.cpu),
                (DEVICE_GIVEN, bool(given)),
            )
            if offered
        )
        return frozenset(found)

    def offering_places(self, aliases: Mapping[str, str]) -> tuple[tuple[str, frozenset[str]], ...]:
        """``FileFacts.offering_places``: each place that offers another device, its options
        aside (``option_places``), with what it offers (``_kinds``)."""
        found = ((place, self._kinds(seen, aliases)) for place, seen in self._places.items())
        return tuple(sorted((place, kinds) for place, kinds in found if kinds))

    def held_places(
        self, aliases: Mapping[str, str]
    ) -> tuple[tuple[str, str, frozenset[str]], ...]:
        """``FileFacts.held_offers``: what each value assigned to a name that nothing else
        in the module reads offers (``_kinds``), with its place and that name. A device
        chosen into a name never read (``device = torch.device("cuda" if
        torch.cuda.is_available() else "cpu")`` in a script that then calls ``.cuda()``)
        chooses nothing."""
        found = ((*key, self._kinds(seen, aliases)) for key, seen in self._held.items())
        return tuple(sorted((place, name, kinds) for place, name, kinds in found if kinds))

    def gpu_default(self, aliases: Mapping[str, str]) -> str:
        """``FileFacts.gpu_default``: when a call that makes factories without ``device=``
        put their tensors on the GPU (``set_default_tensor_type("torch.cuda.FloatTensor")``,
        ``set_default_device("cuda")``) surely runs: ``RUNS_ON_IMPORT`` before
        ``RUNS_WHEN_RUN``; ``""`` where none does, or where a call of the module sets another
        default (a CPU type, a device chosen at run time, one this reading cannot name)."""
        found = ""
        for written, named, runs in self._default_devices:
            if (resolve_alias(written, aliases) or written) not in DEFAULT_DEVICE_SETTERS:
                continue
            if not _names_the_gpu(written, named):
                return ""
            if runs == RUNS_ON_IMPORT or not found:
                found = runs
        return found


def _given_a_device(called: str, literals: tuple[object, ...] | None, first: str | None) -> bool:
    """``torch.device(device)``: a device named by a plain name the code is given
    (``DEVICE_GIVEN``); not a process's GPU (``torch.device(local_rank)``), not a
    configuration's attribute (``torch.device(cfg.device)``), not a choice of literals."""
    return (
        called == "torch.device"
        and literals is None
        and first is not None
        and first != LITERAL_CHOICE
        and "." not in first
        and not names_a_process_gpu(first)
    )


def _names_the_gpu(setter: str, named: str | None) -> bool:
    """The default ``setter`` is given is the GPU: a CUDA tensor type (as a string or a
    name), or a device string of the GPU."""
    if named is None or named == LITERAL_CHOICE:
        return False
    if setter.endswith("tensor_type"):
        return ".cuda." in f".{named}"
    kind, colon, index = named.partition(":")
    return kind == "cuda" and (not colon or index.isdigit())
