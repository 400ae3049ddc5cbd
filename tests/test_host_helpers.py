"""A helper whose every caller in the project moves its result to a device at once is a
host step (a collation, a filter kernel built before it meets the signal): the tensors it
computes with are host data from those callers, and a CPU tensor meeting them is no bug.
One caller that keeps the result as it is (or code no call shape records) keeps the
finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_HELPER = (
    "import torch\n\n\n"
    "def mask_tokens(inputs, mask_id):\n"
    "    probability = torch.full(inputs.shape, 0.15)\n"
    "    masked = torch.bernoulli(probability * (inputs != 0)).bool()\n"
    "    labels = inputs.clone()\n"
    "    inputs[masked] = mask_id\n"
    "    return inputs, labels\n"
)
_FLAGGED = [("collate.py", 5, 19)]


def _caller(body: str) -> str:
    return (
        "import torch\n\nfrom pkg.collate import mask_tokens\n\n\n"
        "def step(model, batch, device, mlm=True):\n"
        f"{body}"
        "    return model(inputs, labels=labels)\n"
    )


_MOVED_BY_NAME = (
    "    inputs, labels = mask_tokens(batch, 4) if mlm else (batch, batch)\n"
    "    inputs = inputs.to(device)\n"
    "    labels = labels.cuda()\n"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (_MOVED_BY_NAME, []),
        ("    inputs = mask_tokens(batch, 4).to(device=device)\n    labels = inputs\n", []),
        # A cast is no move, and one name of the two is left where the helper made it.
        (_MOVED_BY_NAME.replace("labels.cuda()", "labels.to(torch.float16)"), _FLAGGED),
        (_MOVED_BY_NAME.replace("labels.cuda()", "labels"), _FLAGGED),
    ],
)
def test_every_caller_moving_the_result_makes_a_helper_a_host_step(
    body: str, expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {"pkg/collate.py": _HELPER, "pkg/train.py": _caller(body)}
    assert findings(tmp_path, files, "DEV003") == expected


def test_one_caller_keeping_the_result_keeps_the_finding(tmp_path: Path) -> None:
    kept = "    inputs, labels = mask_tokens(batch, 4)\n"
    files = {
        "pkg/collate.py": _HELPER,
        "pkg/train.py": _caller(_MOVED_BY_NAME),
        "pkg/evaluate.py": _caller(kept),
    }
    assert findings(tmp_path, files, "DEV003") == _FLAGGED


def test_module_level_code_calling_the_helper_keeps_the_finding(tmp_path: Path) -> None:
    script = "from pkg.collate import mask_tokens\n\nmasked = mask_tokens(BATCH, 4)\n"
    files = {
        "pkg/collate.py": _HELPER,
        "pkg/train.py": _caller(_MOVED_BY_NAME),
        "pkg/demo.py": script,
    }
    assert findings(tmp_path, files, "DEV003") == _FLAGGED
