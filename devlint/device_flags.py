"""A device flag: a test that decides whether the code runs on the GPU at all (``use_cuda``,
``args.cpu``, ``n_gpus > 0``, ``self.device == "gpu"``). The flag is the user's choice of
device: a literal device under it is that choice (DEV001, DEV002), and a move under it
puts the value where everything else the flag moved is (the flow)."""

from __future__ import annotations

import re

import libcst as cst

from devlint.nodes import attribute_of_self

_DEVICE_FLAG = re.compile(
    r"^(?P<prefix>use|using|on|with|enable|runon|want|force|no|n|num)?"
    r"(?P<device>cuda|gpu|gpus|cpu)(enabled|on|mode)?$"
)
"""A flag that says whether to run on the GPU (``use_cuda``, ``self.gpu``, ``args.cpu``,
``no_cuda``, a count such as ``n_gpus`` compared with 0), spelled in any case, underscores
dropped."""

_ACCELERATOR_NAMES = frozenset({"gpu", "cuda"})
"""What a device setting compared with a string says "on the GPU" with."""


def flag_says_gpu(test: cst.BaseExpression, *, settings: bool = True) -> bool | None:
    """Whether ``test`` being true means "on the GPU" (True), "on the CPU" (False), or
    is no device flag (None). A flag is a name, an attribute or a configuration's key
    (``conf["use_gpu"]``; not a call), perhaps under
    ``not``; under ``and``, any flag operand (a true ``and`` makes every operand true).
    Without ``settings``, a device setting compared with a string (``self.device ==
    "cuda"``) is no flag: its false side may be another accelerator (``"mps"``), not the
    CPU."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = flag_says_gpu(test.expression, settings=settings)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        left = flag_says_gpu(test.left, settings=settings)
        return left if left is not None else flag_says_gpu(test.right, settings=settings)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        compared = test.comparisons[0]
        if isinstance(compared.operator, cst.Equal) and _device_setting_says_gpu(
            test.left, compared.comparator
        ):
            return True if settings else None  # `if self.device == "gpu":`
        if isinstance(compared.operator, (cst.In, cst.Equal)) and not _says_off(
            compared.comparator
        ):
            return flag_says_gpu(test.left)  # `if self.use_cuda in ("all", "batch"):`
        if isinstance(compared.operator, (cst.GreaterThan, cst.NotEqual)) and _says_off(
            compared.comparator
        ):
            return flag_says_gpu(test.left)  # `if self.gpus > 0:`, a count of GPUs
        return None
    if isinstance(test, (cst.Name, cst.Attribute, cst.Subscript)):
        name = _flag_name(test)
        if name is None:
            return None
        match = _DEVICE_FLAG.match(name.lower().replace("_", ""))
        if match is None:
            return None
        return (match["device"] != "cpu") != (match["prefix"] == "no")
    return None


def _flag_name(test: cst.Name | cst.Attribute | cst.Subscript) -> str | None:
    """The name a flag is read by: ``use_cuda``, ``args.cuda``'s ``cuda``, a configuration's
    key (``conf["use_gpu"]``'s ``use_gpu``), else None."""
    if isinstance(test, cst.Name):
        return test.value
    if isinstance(test, cst.Attribute):
        return test.attr.value
    index = test.slice[0].slice if len(test.slice) == 1 else None
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        key = index.value.evaluated_value
        return key if isinstance(key, str) else None
    return None


def _device_setting_says_gpu(setting: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``device == "gpu"``, ``self.device == "cuda"``: the device the code was told to run
    on (a name or the object's own attribute; not a tensor's ``x.device``, which says where
    that tensor is, not where the code runs) is the GPU."""
    if not (isinstance(value, cst.SimpleString) and value.evaluated_value in _ACCELERATOR_NAMES):
        return False
    if isinstance(setting, cst.Name):
        return setting.value.endswith("device")
    attribute = attribute_of_self(setting)
    return attribute is not None and attribute.endswith("device")


def _says_off(value: cst.BaseExpression) -> bool:
    """``False``, ``None``, ``0``, ``"cpu"``, ``-1`` (the GPU index that names the CPU:
    ``gpu=-1``)...: a value a GPU flag compared with it is off at (or that says nothing of
    the GPU)."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return isinstance(value.expression, cst.Integer) and value.expression.value == "1"
    if isinstance(value, cst.Name):
        return value.value in ("False", "None")
    if isinstance(value, cst.Integer):
        return value.value == "0"
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value in ("", "cpu", "none", "no", "false")
    return False
