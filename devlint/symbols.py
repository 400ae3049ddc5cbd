"""Names of the libraries devlint knows about, kept as data.

Every name is fully qualified, as it is after import aliases are resolved
(``pl.LightningModule`` with ``import pytorch_lightning as pl`` becomes
``pytorch_lightning.LightningModule``).
"""

from __future__ import annotations

LIGHTNING_MODULE_BASES = frozenset(
    {
        f"{package}.{path}LightningModule"
        for package in ("lightning.pytorch", "pytorch_lightning", "lightning")
        for path in ("", "core.", "core.module.")
    }
)
"""Bases that make a class a LightningModule: model code that has ``.device``."""

PRETRAINED_MODEL_BASES = frozenset(
    {"transformers.PreTrainedModel", "transformers.modeling_utils.PreTrainedModel"}
)
"""transformers' base model class; its subclasses have ``.device``."""

METRIC_BASES = frozenset({"torchmetrics.Metric", "torchmetrics.metric.Metric"})
"""torchmetrics' base class: an ``nn.Module`` that tracks its own ``.device``."""

TORCH_MODULE_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.modules.Module"}
)
"""``torch.nn.Module`` itself: model code without ``.device``."""

TORCH_NN_NON_MODULES = frozenset(
    {"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer", "ParameterList"}
)
"""Capitalised names in ``torch.nn`` that are not modules (or not subclassed as such)."""

TENSOR_FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "range",
        "linspace",
        "logspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "randperm",
        "tensor",
        "as_tensor",
        "empty_strided",
        "tril_indices",
        "triu_indices",
    }
)
"""``torch.<name>(...)`` functions that create a tensor on the default (CPU) device."""

DATA_FACTORIES = frozenset({"tensor", "as_tensor"})
"""Factories whose first argument is data: a tensor argument keeps its device."""

LEGACY_TENSOR_TYPES = frozenset(
    {
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "ByteTensor",
        "CharTensor",
        "ShortTensor",
        "IntTensor",
        "LongTensor",
        "BoolTensor",
        "Tensor",
    }
)
"""Legacy constructors ``torch.FloatTensor(...)``: always CPU, no usable ``device=``."""

DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hpu", "npu", "xla", "ipu", "mtia"})
"""Accelerator device types that make a literal device string hard-coded. Not "cpu" (moving
to the CPU is a deliberate, portable choice) nor "meta" (lazy initialisation, no data)."""

CPU_RESULT_METHODS = frozenset({"cpu", "numpy", "tolist", "item"})
"""Methods whose call on a fresh tensor shows it is meant to live on the CPU."""

MOVE_METHODS = frozenset({"to", "cuda", "type_as"})
"""Methods that move a fresh tensor somewhere explicitly."""

FORWARD_PATH_METHODS = frozenset({"forward", "__call__", "generate"})
"""Methods that run on every batch, besides ``*_step`` and ``on_*`` hooks."""

AVAILABILITY_CHECKS = frozenset({"is_available", "device_count", "is_built"})
"""Calls that make a surrounding ``if`` an explicit, checked device choice."""

DEVICE_PREDICATES = frozenset({"is_cuda", "is_mps", "is_xpu", "is_cpu", "is_meta"})
"""Tensor attributes that make a surrounding ``if`` a deliberate per-device branch."""

CPU_LIBRARIES = frozenset(
    {"numpy", "matplotlib", "pandas", "PIL", "cv2", "sklearn", "scipy", "math", "seaborn"}
    | {"wandb", "json", "pickle", "csv", "logging", "plotly", "tensorboardX", "mlflow"}
)
"""Libraries whose functions take CPU tensors (or convert them): not model code."""

SETUP_METHODS = frozenset(
    {"__init__", "setup", "configure_model", "configure_sharded_model", "prepare_data"}
)
"""Methods that run before Lightning moves the module: ``self.device`` is still the CPU."""

TENSOR_ARGUMENT_METHODS = frozenset(
    {
        "index_select",
        "gather",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "masked_fill",
        "masked_fill_",
        "masked_select",
        "masked_scatter",
        "index_add",
        "index_add_",
        "index_copy",
        "index_fill",
        "index_put",
        "index_put_",
        "take",
        "take_along_dim",
        "where",
        "add",
        "add_",
        "sub",
        "sub_",
        "mul",
        "mul_",
        "div",
        "div_",
        "matmul",
        "mm",
        "bmm",
        "expand_as",
        "view_as",
        "reshape_as",
        "copy_",
        "lerp",
        "maximum",
        "minimum",
        "pow",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "repeat_interleave",
    }
)
"""Tensor methods whose tensor arguments must be on the receiver's device."""

ITERATING_BUILTINS = frozenset(
    {"zip", "enumerate", "list", "tuple", "iter", "sorted", "set", "int", "float", "bool"}
)
"""Builtins that turn a tensor into Python values: no device is involved any more."""
