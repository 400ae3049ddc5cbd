"""One answer to "is this annotated as a tensor" (``facts.tensor_annotation``), imports
resolved, for the index's facts, the scope a fix borrows ``.device`` from, and DEV003."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.analysis import FileJob, analyze_text
from devlint.facts import input_annotation, tensor_annotation
from devlint.rules.base import RuleSettings
from devlint.traversal import Traversal

IMPORTS = (
    "import torch\nimport torch as th\nfrom typing import Optional\n"
    "from torch import Tensor, Tensor as T, FloatTensor as F\nfrom torch import nn\n"
)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("Tensor", True),
        ("torch.Tensor", True),
        ("th.FloatTensor", True),
        ("T", True),
        ("F", True),
        ("nn.Module", False),
        ("int", False),
        ("Optional", False),
        (None, False),
    ],
)
def test_tensor_annotation_resolves_imports(annotation: str | None, expected: bool) -> None:
    aliases = {"T": "torch.Tensor", "F": "torch.FloatTensor", "th": "torch", "nn": "torch.nn"}
    assert tensor_annotation(annotation, aliases) is expected


def test_an_input_is_a_tensor_or_a_module() -> None:
    aliases = {"T": "torch.Tensor", "M": "torch.nn.Module"}
    assert input_annotation("T", aliases)
    assert input_annotation("M", aliases)
    assert not input_annotation("M", {})
    assert not input_annotation("Optional", aliases)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("T", True),
        ("torch.Tensor", True),
        ("Optional[Tensor]", True),
        ("Optional[T]", True),
        ('"torch.Tensor"', True),
        ('"Optional[T]"', True),
        ("Optional[int]", False),
        ('"nn.Module"', False),
        ("U", False),
    ],
)
def test_a_tensor_named_anywhere_in_the_annotation(annotation: str, expected: bool) -> None:
    module = cst.parse_module(IMPORTS)
    traversal = Traversal(module, "m", False, ())
    traversal.run()  # records the file's imports
    assert traversal.annotates_tensor(cst.parse_expression(annotation)) is expected


@pytest.mark.parametrize(
    ("annotation", "borrowed"),
    [
        ("T", "x"),
        ("torch.Tensor", "x"),
        ("th.Tensor", "x"),
        ("Optional[Tensor]", None),  # may be None when the fix runs
        ('"torch.Tensor"', None),
        ("int", None),
    ],
)
def test_a_fix_borrows_the_device_of_a_parameter_annotated_as_a_tensor(
    annotation: str, borrowed: str | None
) -> None:
    source = f"{IMPORTS}\ndef f(x: {annotation}, y):\n    return y.cuda()\n"
    job = FileJob("m.py", "m.py", "m.py", "m", False, ("DEV002",), RuleSettings(), False)
    (candidate,) = analyze_text(job, source).candidates
    assert (candidate.code, candidate.start.row) == ("DEV002", 8)
    assert candidate.scope.tensor_param == borrowed
