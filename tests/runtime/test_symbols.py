"""The library knowledge in ``devlint.symbols`` is checked against the pinned libraries.

Every list there names things in torch, Lightning or transformers; a misspelt or
vanished name would silently never match. Each list is checked here against the dev
dependencies (torch, lightning, transformers, as pyproject pins them), and a list
that no check covers fails: a new list must say how it is checked, or why it cannot be.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

import numpy
import pytest
from runtime_support import lightning, torch, transformers

from devlint import symbols


def resolve(qualified: str) -> object:
    """The object ``a.b.C`` names: the longest importable module, then attributes."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise ImportError(qualified)


def missing_attributes(owner: object, names: Iterable[str]) -> list[str]:
    return sorted(name for name in names if not hasattr(owner, name))


def check_qualified(names: Iterable[str]) -> list[str]:
    missing = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    return sorted(missing)


def check_positions(
    loaders: dict[str, int], owner: Callable[[str], object], parameter: str = "map_location"
) -> list[str]:
    """``{function: position}``: ``parameter`` is that positional parameter."""
    wrong = []
    for name, position in loaders.items():
        parameters = list(inspect.signature(owner(name)).parameters)  # type: ignore[arg-type]
        parameters = [p for p in parameters if p not in ("self", "cls")]  # as a caller counts
        if parameters[position] != parameter:
            wrong.append(f"{name}: {parameters}")
    return wrong


def check_cpu_arguments(functions: dict[str, dict[str, int]]) -> list[str]:
    """``{function or module class: {parameter: position}}``: each parameter is there."""
    wrong = []
    for name, taken in functions.items():
        owner = resolve(name)
        called = owner.forward if isinstance(owner, type) else owner  # type: ignore[attr-defined]
        parameters = [p for p in inspect.signature(called).parameters if p != "self"]
        wrong += [f"{name}: {p}" for p, at in taken.items() if parameters[at : at + 1] != [p]]
    return wrong


def keywords_of(*callables: Any) -> set[str]:
    return {name for c in callables for name in inspect.signature(c).parameters}


def _factory_takes(keyword: str) -> bool:
    try:
        torch.empty(1, **{keyword: False})
    except TypeError:
        return False
    return True


LM = lightning.pytorch.LightningModule
MODULE = torch.nn.Module
METRIC = importlib.import_module("torchmetrics").Metric  # installed with lightning
TENSOR = torch.Tensor

PLUGIN_DEVICE_TYPES = {
    "npu": "registered at run time by the torch_npu plugin",
    "mlu": "registered at run time by the torch_mlu plugin",
    "musa": "registered at run time by the torch_musa plugin",
    "hpu": "registered at run time by Habana's plugin",
}

FIRST_PROCESS_OWNERS = (lightning.pytorch.Trainer, transformers.Trainer)
"""Where ``MAIN_PROCESS_FLAGS`` live, but for accelerate's."""
ACCELERATE_ONLY = frozenset(
    {"is_main_process", "is_local_main_process", "on_main_process", "on_local_main_process"}
    | {"local_process_index"}
)
"""Names of accelerate's ``PartialState`` and ``Accelerator`` (not a dependency here)."""
RANK_OWNERS = (torch.distributed, lightning.pytorch.Trainer, transformers.TrainingArguments)
"""Where the names of a process's global rank come from."""
LOCAL_RANK_OWNERS = (lightning.pytorch.Trainer, transformers.TrainingArguments)
"""Where the names of a process's rank on its node come from, but accelerate's."""

CHECKS: dict[str, Callable[[Any], list[str]]] = {
    # Qualified names of classes and functions.
    "LIGHTNING_MODULE_BASES": check_qualified,
    "PRETRAINED_MODEL_BASES": check_qualified,
    "METRIC_BASES": check_qualified,
    "TRAINER_BASES": check_qualified,
    "OPTIMIZER_BASES": check_qualified,
    "TORCH_MODULE_BASES": check_qualified,
    "LIGHTNING_DATAMODULE_BASES": check_qualified,
    "DATASET_BASES": check_qualified,
    "DDP_CLASSES": check_qualified,
    "CUDA_ONLY_WRAPPERS": check_qualified,
    "AUTOGRAD_FUNCTION_BASES": check_qualified,
    "SET_DEVICE_FUNCTIONS": lambda v: check_qualified(
        n for n in v if n.split(".")[1] not in PLUGIN_DEVICE_TYPES
    ),
    "DEVICE_SWITCHES": check_qualified,
    "TOLD_DEVICE_SWITCHES": check_qualified,
    "OTHER_ACCELERATOR_NAMESPACES": lambda v: check_qualified(
        n for n in v if n.split(".")[1] not in PLUGIN_DEVICE_TYPES
    ),
    "CURRENT_DEVICE_STREAMS": lambda v: (
        check_qualified(v) or sorted(n for n in v if "device" not in keywords_of(resolve(n)))
    ),
    "BARRIER_FUNCTIONS": lambda v: (
        check_qualified(v) or sorted({"device_ids"} - keywords_of(*map(resolve, v)))
    ),
    "MAIN_PROCESS_FLAGS": lambda v: [
        n
        for n in sorted(set(v) - ACCELERATE_ONLY)
        if not any(hasattr(owner, n) for owner in FIRST_PROCESS_OWNERS)
    ],
    "MAIN_PROCESS_DECORATORS": lambda v: missing_attributes(
        lightning.pytorch.utilities, set(v) - ACCELERATE_ONLY
    ),
    "IMAGE_ONLY_KEYS": lambda v: sorted(
        set(v) ^ set(transformers.CLIPImageProcessor.model_input_names)
    ),
    "GLOBAL_RANK_NAMES": lambda v: [
        n for n in sorted(v) if not any(hasattr(owner, n) for owner in RANK_OWNERS)
    ],
    "LOCAL_RANK_NAMES": lambda v: [
        n
        for n in sorted(set(v) - ACCELERATE_ONLY)
        if not any(hasattr(owner, n) for owner in LOCAL_RANK_OWNERS)
    ],
    "CURRENT_GPU_SETTERS": lambda v: sorted(set(v) - ACCELERATE_ONLY),
    "DEFAULT_DEVICE_SETTERS": check_qualified,
    "ENVIRONMENTS": check_qualified,
    "CURRENT_DEVICE_FUNCTIONS": check_qualified,
    "MAP_LOCATION_LOADERS": lambda v: check_qualified(v) or check_positions(v, resolve),
    "MAP_LOCATION_METHODS": lambda v: check_positions(v, lambda name: getattr(LM, name)),
    # torch.<name>
    "TENSOR_FACTORIES": lambda v: missing_attributes(torch, v),
    "LEGACY_TENSOR_TYPES": lambda v: missing_attributes(torch, v),
    "INTEGER_TENSOR_TYPES": lambda v: sorted(set(v) - symbols.LEGACY_TENSOR_TYPES),
    "DATA_FACTORIES": lambda v: sorted(set(v) - symbols.TENSOR_FACTORIES),
    "INTEGER_FACTORIES": lambda v: sorted(set(v) - symbols.TENSOR_FACTORIES),
    "STORABLE_FACTORIES": lambda v: sorted(set(v) - symbols.TENSOR_FACTORIES),
    "ARRAY_TENSOR_FACTORIES": lambda v: missing_attributes(torch, v),
    "TORCH_DTYPES": lambda v: [
        n for n in sorted(v) if not isinstance(getattr(torch, n, None), torch.dtype)
    ],
    "INTEGER_DTYPES": lambda v: [
        n for n in sorted(v) if getattr(torch, n).is_floating_point or getattr(torch, n).is_complex
    ],
    "FLOAT_DTYPES": lambda v: [
        n
        for n in sorted(v)
        if not (getattr(torch, n).is_floating_point or getattr(torch, n).is_complex)
    ],
    "DEVICE_TYPES": lambda v: [
        t for t in sorted(v) if t not in PLUGIN_DEVICE_TYPES and not _is_device_type(t)
    ],
    "ONE_DEVICE_PER_PROCESS_TYPES": lambda v: sorted(set(v) - symbols.DEVICE_TYPES),
    "KERNEL_SOURCE_TYPES": lambda v: sorted(set(v.values()) - symbols.DEVICE_TYPES),
    "EXTENSION_MODULE_TYPES": lambda v: sorted(set(v.values()) - symbols.DEVICE_TYPES),
    "EXTENSION_COMPILERS": check_qualified,
    "EXTENSION_DECLARATIONS": check_qualified,
    "NN_MODULE_METHODS": lambda v: missing_attributes(torch.nn.Module, v),
    "AVAILABILITY_CHECKS": lambda v: [
        n
        for n in sorted(v)
        if not any(
            hasattr(resolve(m), n) for m in ("torch.cuda", "torch.backends.cuda", "torch.mps")
        )
    ],
    # A factory takes them (torch.empty's signature is not inspectable: call it).
    "HOST_MEMORY_KEYWORDS": lambda v: [k for k in sorted(v) if not _factory_takes(k)],
    "GPU_SETTINGS": check_qualified,
    # `torch.backends.cudnn`, and its last name as `import ... as cudnn` writes it
    "GPU_SETTING_OWNERS": lambda v: (
        check_qualified(n for n in v if "." in n)
        + sorted(n for n in v if "." not in n and not any(q.endswith(f".{n}") for q in v))
    ),
    "DEVICE_NAMING_KEYWORDS": lambda v: [
        k
        for k in sorted(v)
        if not any(
            k in inspect.signature(resolve(f)).parameters
            for f in ("torch.autocast", "torch.utils.data.DataLoader")
        )
    ],
    # torch.Tensor / torch.nn
    "TENSOR_ARGUMENT_METHODS": lambda v: missing_attributes(TENSOR, v),
    "CPU_RESULT_METHODS": lambda v: missing_attributes(TENSOR, v),
    "ARGUMENT_PLACED_PACKAGES": check_qualified,
    "MOVE_METHODS": lambda v: missing_attributes(TENSOR, v),
    "DEVICE_ARGUMENT_MOVES": lambda v: missing_attributes(TENSOR, v),
    "VIEW_METHODS": lambda v: missing_attributes(TENSOR, v),
    "TENSOR_ONLY_METHODS": lambda v: (
        missing_attributes(TENSOR, v)
        + sorted(
            n for n in v if hasattr(numpy.ndarray, n) or hasattr(list, n) or hasattr(torch.Size, n)
        )
    ),
    "NON_TENSOR_RESULTS": lambda v: missing_attributes(TENSOR, v),
    "TENSOR_TUPLE_RESULTS": lambda v: (
        missing_attributes(torch, v)
        + [n for n in sorted(v) if not isinstance(_call_on_a_cube(n), tuple)]
    ),
    "DEVICE_PREDICATES": lambda v: missing_attributes(TENSOR, v),
    "PLAIN_VALUE_BUILTINS": lambda v: missing_attributes(builtins, v),
    "ACCELERATOR_PREDICATES": lambda v: missing_attributes(TENSOR, v),
    "STATELESS_NN_MODULES": lambda v: [
        n for n in sorted(v) if not issubclass(getattr(torch.nn, n, object), MODULE)
    ],
    "TORCH_NN_NON_MODULES": lambda v: missing_attributes(torch.nn, v),
    "MODULE_MOVING_METHODS": lambda v: missing_attributes(MODULE, v),
    "CHILD_CALLED_METHODS": lambda v: missing_attributes(MODULE, v),
    "MODULE_ONLY_METHODS": lambda v: (
        missing_attributes(MODULE, v) + sorted(n for n in v if hasattr(TENSOR, n))
    ),
    "MODULE_DICT_TAKEN_KEYS": lambda v: missing_attributes(torch.nn.ModuleDict(), v),
    "WEIGHTED_LOSS_KEYWORDS": lambda v: sorted(
        set(v) - keywords_of(torch.nn.CrossEntropyLoss, torch.nn.BCEWithLogitsLoss)
    ),
    "DDP_DEVICE_KEYWORDS": lambda v: sorted(
        set(v) - keywords_of(*(resolve(name) for name in symbols.DDP_CLASSES))
    ),
    "DATASET_ITEM_METHODS": lambda v: sorted(
        set(v)
        - {"__getitems__", "__next__"}
        - {n for n in v if hasattr(torch.utils.data.Dataset, n)}
        - {n for n in v if hasattr(torch.utils.data.IterableDataset, n)}
    ),
    "MAP_STYLE_DATASET_PROTOCOL": lambda v: missing_attributes(torch.utils.data.TensorDataset, v),
    "MAP_STYLE_ITEM_METHODS": lambda v: sorted(
        set(v) - {"__getitems__"} - {n for n in v if hasattr(torch.utils.data.Dataset, n)}
    ),
    "TRAINER_PLACING_METHODS": lambda v: missing_attributes(transformers.Trainer, v),
    "COLLATE_KEYWORDS": lambda v: sorted(
        set(v) - keywords_of(torch.utils.data.DataLoader, transformers.Trainer)
    ),
    # Lightning and transformers
    "FORWARD_PATH_METHODS": lambda v: sorted(
        set(v) - {n for n in v if hasattr(MODULE, n) or hasattr(transformers.GenerationMixin, n)}
    ),
    "FORWARD_PATH_HOOKS": lambda v: missing_attributes(LM, v),
    "SETUP_METHODS": lambda v: missing_attributes(LM, v),
    "BATCH_TRANSFER_HOOKS": lambda v: missing_attributes(lightning.pytorch.LightningDataModule, v),
    "PROCESSOR_METHODS": lambda v: missing_attributes(
        transformers.PreTrainedTokenizerBase, set(v) - symbols.REMOVED_PROCESSOR_METHODS
    ),
    "REMOVED_PROCESSOR_METHODS": lambda v: sorted(
        n for n in v if hasattr(transformers.PreTrainedTokenizerBase, n)
    ),
    "PROCESSOR_LOADERS": lambda v: [n for n in v if not hasattr(transformers, f"Auto{n}")],
    "MEETING_FUNCTIONS": check_qualified,
    "CPU_RESULT_FUNCTIONS": check_qualified,
    "CPU_ARGUMENTS": lambda v: check_qualified(v) or check_cpu_arguments(v),
    "EXPORT_ONLY_CHECKS": check_qualified,
    "CPU_LENGTHS_FUNCTIONS": check_qualified,
    "COLLECTIVE_FUNCTIONS": check_qualified,
    "COLLECTIVE_GROUPS": lambda v: check_qualified(v) or check_positions(v, resolve, "group"),
    "PROCESS_GROUP_INITS": lambda v: check_qualified(v) or check_positions(v, resolve, "backend"),
    "SCALAR_REFUSING_OPERATIONS": lambda v: (
        sorted(n for n in v if not (hasattr(torch, n) or hasattr(TENSOR, n)))
        + sorted(n for n in v if not _checks_devices_first(n))
    ),
    # torch functions joining a sequence: a subset of the ones refusing 0-dim CPU tensors.
    "JOINING_FUNCTIONS": lambda v: (
        missing_attributes(torch, v) + sorted(set(v) - symbols.SCALAR_REFUSING_OPERATIONS)
    ),
    "TENSOR_HOST_ATTRIBUTES": lambda v: sorted(
        n for n in v if not (hasattr(TENSOR, n) or hasattr(MODULE(), n))
    ),
    "FULL_REDUCTIONS": lambda v: missing_attributes(TENSOR, v) + missing_attributes(torch, v),
    "CROSS_DEVICE_METHODS": lambda v: (
        missing_attributes(TENSOR, v) + sorted(set(v) - symbols.TENSOR_ARGUMENT_METHODS)
    ),
    "IN_PLACE_UPDATES": lambda v: missing_attributes(TENSOR, v),
    "INDEXING_METHODS": lambda v: (
        missing_attributes(TENSOR, v) + sorted(set(v) - symbols.TENSOR_ARGUMENT_METHODS)
    ),
    "AUGMENTED_ASSIGNMENT_METHODS": lambda v: missing_attributes(TENSOR, v.values()),
    "MODULE_TENSOR_METHODS": lambda v: missing_attributes(MODULE, v),
    "MODULE_REGISTRARS": lambda v: sorted(
        n for n in v if not (hasattr(MODULE, n) or hasattr(METRIC, n))
    ),
    # Python's standard library
    "NUMBER_LIBRARIES": check_qualified,
    "NUMBER_LIBRARY_SEQUENCES": check_qualified,
    # tqdm (a dependency of transformers)
    "COUNTING_ITERABLES": check_qualified,
    "PROGRESS_WRAPPERS": check_qualified,
    "TRANSPARENT_DECORATORS": check_qualified,
    "MODULE_MAPPINGS": check_qualified,
    "FUNCTION_TRANSFORMS": check_qualified,
    # the standard library's dataclasses and attrs (here through jsonschema)
    "RECORD_CLASS_DECORATORS": check_qualified,
    "RECORD_FIELD_FUNCTIONS": check_qualified,
    # Python's builtins
    "ITERATING_BUILTINS": lambda v: missing_attributes(builtins, v),
    "UNPACKING_BUILTINS": lambda v: missing_attributes(builtins, v),
    "SILENT_BUILTINS": lambda v: missing_attributes(builtins, v),
    "TEXT_BUILTINS": lambda v: missing_attributes(builtins, v),
    "TEXT_METHODS": lambda v: missing_attributes(str, v),
    "NUMBER_TYPES": lambda v: missing_attributes(builtins, v),
}
"""Each list of ``devlint.symbols`` and how it is checked: the check returns what is wrong."""

NOT_LIBRARY_NAMES = {
    "CPU_SOURCE_WORD": "a word in the names of C++ source files, not a library name",
    "PLAIN_DECORATORS": "last names of decorators as written, read from text",
    "PROGRAM_EXITS": "Python's own calls that end a program, as written",
    "RUN_TIME_LOOKUPS": "loaders of several libraries (importlib, hydra, ldm...), dunders",
    "MODULE_LOADERS": "last names of loaders of modules (importlib, imp, runpy), builtins",
    "ENTRY_FILES": "file names tools load, not library names",
    "CPU_LIBRARIES": "names of other libraries (numpy, matplotlib...), not dependencies here",
    "HOST_ARRAY_LIBRARIES": "names of other libraries (numpy, scipy...), not dependencies here",
    "BACKEND_LIBRARIES": "names of other libraries (Megatron-LM, Gaudi's, Ascend's), not here",
    "KERNEL_LIBRARIES": "names of kernel libraries (FlashAttention, FlashInfer...), not here",
    "BACKEND_FREE_PARTS": "parts of other libraries (OpenVINO's converters), not here",
    "BACKEND_OP_NAMESPACES": "made from DEVICE_TYPES; torch.ops makes any namespace on access",
    "PROCESSOR_SUFFIXES": "endings of variable names that users choose",
    "MOVE_HELPER_NAMES": "fragments of helper names that users choose",
    "HYPERPARAMETER_ROOTS": "attribute paths that users choose",
    "DATASET_MODULE_PREFIXES": "torchvision, which does not install beside this torch",
    "TEST_PACKAGES": "folder names of projects",
    "PROCESS_GROUP_TYPES": "class names as annotations spell them, frameworks' among them",
    "CUDA_VISIBLE_DEVICES": "an environment variable",
    "GLOBAL_RANK_VARIABLES": "environment variables of launchers",
    "LOCAL_RANK_VARIABLE": "an environment variable of launchers",
    "MASTER_ADDRESS_VARIABLE": "an environment variable of launchers",
    "LOOPBACK_HOSTS": "host names",
    "HOST_ANNOTATIONS": "Python's and typing's names for data",
    "TENSOR_PARAMETER_NAMES": "parameter names that users choose",
    "CONFIG_PARAMETERS": "parameter names that users choose",
    "DATASET_PARAMETER_NAMES": "parameter names (and endings) that users choose",
    "COLLATE_NAME_PART": "a part of the names users give collate functions",
    "CARRYING_LIBRARIES": "einops and torchvision.ops, not dependencies here",
    "LIBRARY_MODULE_BASES": "mmengine's and mmcv's classes, not dependencies here",
    "MODULE_CLASSES": "the union of the module bases above, each checked or said why not",
    "STATE_FREE_BASES": "torch's, Python's and mmengine's (not a dependency here) bases",
    "COLLECTION_UPDATERS": "methods of Python's containers",
    "INPUT_PLACING_MODELS": "pyannote.audio, not a dependency here",
    "ACCELERATOR_CARRYING_METHODS": "accelerate's Accelerator, not a dependency here",
    "ALLOCATOR_REGISTRARS": "Triton's, not a dependency here",
    "PLACING_KEYWORDS": "keyword names of torch's functions, not attributes",
}
"""Lists that name no API of the pinned libraries, and why."""


COMPOSITES_REACHING = {
    **dict.fromkeys(("stack", "hstack", "vstack", "dstack", "concat", "concatenate"), "cat"),
    **dict.fromkeys(("clip", "clip_"), "clamp"),
}
"""Operations with no CUDA kernel of their own, and the one their tensors reach there."""


def _native_functions() -> dict[str, dict[str, Any]]:
    """ATen's operator declarations (``native_functions.yaml``, shipped in torchgen), by name."""
    yaml = pytest.importorskip("yaml")
    torchgen = importlib.import_module("torchgen")
    path = Path(torchgen.__file__).parent / "packaged/ATen/native/native_functions.yaml"
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {entry["func"].split("(")[0]: entry for entry in entries}


def _has_cuda_kernel(entry: dict[str, Any], declared: dict[str, dict[str, Any]]) -> bool:
    keys = {key.strip() for keys in (entry.get("dispatch") or {}) for key in keys.split(",")}
    delegate = entry.get("structured_delegate")
    if delegate is not None and _has_cuda_kernel(declared[delegate], declared):
        return True
    return "CUDA" in keys


def _operand_tensors(arguments: str) -> bool:
    """The overload takes several tensors (``clamp.Tensor``, ``cat``), not numbers for all
    but ``self`` (``clamp``)."""
    return "Tensor[]" in arguments or arguments.count("Tensor") > 1


def _checks_devices_first(name: str) -> bool:
    """Every overload of ``name`` that takes tensors for its operands, when they are tensors,
    has a CUDA kernel whose generated wrapper checks that all are on one device (its
    ``device_check`` is not ``NoCheck``), or ``name`` is a composite that reaches one."""
    declared = _native_functions()
    reached = COMPOSITES_REACHING.get(name, name)
    tensors = [
        entry
        for full, entry in declared.items()
        if full.partition(".")[0] == reached
        and "out" not in full.partition(".")[2]
        and "Dimname" not in entry["func"]
        and _operand_tensors(entry["func"].partition("->")[0])
    ]
    return bool(tensors) and all(
        e.get("device_check", "ExactSame") == "ExactSame" and _has_cuda_kernel(e, declared)
        for e in tensors
    )


def test_the_device_check_reading_tells_exempting_operations_apart() -> None:
    assert [_checks_devices_first(n) for n in ("stack", "clamp_max", "add", "lt", "where")] == [
        True,
        True,
        False,
        False,
        False,
    ]


def _call_on_a_cube(name: str) -> object:
    """``torch.<name>`` of a 2x2x2 tensor (split in two where it takes a size)."""
    cube = torch.zeros(2, 2, 2)
    if name == "meshgrid":
        return torch.meshgrid(cube[0, 0], indexing="ij")
    if name == "unbind":
        return torch.unbind(cube)
    return getattr(torch, name)(cube, 2 if name != "split" else 1)


def _is_device_type(name: str) -> bool:
    try:
        torch.device(name)
    except RuntimeError:
        return False
    return True


def _lists() -> dict[str, Collection[object]]:
    return {
        name: value
        for name, value in vars(symbols).items()
        if name.isupper() and isinstance(value, (frozenset, tuple, dict, str))
    }


def test_every_list_is_checked_or_says_why_not() -> None:
    lists = set(_lists())
    assert lists - set(CHECKS) - set(NOT_LIBRARY_NAMES) == set()
    assert set(CHECKS) | set(NOT_LIBRARY_NAMES) <= lists


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_names_exist_in_the_pinned_libraries(name: str) -> None:
    assert CHECKS[name](_lists()[name]) == []


def test_a_misspelt_name_is_caught() -> None:
    assert check_qualified(["torch.nn.Modul", "lightning.pytorch.LightningModule"]) == [
        "torch.nn.Modul"
    ]
    assert missing_attributes(torch, ["zeros", "zeroes"]) == ["zeroes"]
