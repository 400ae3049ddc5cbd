"""DEV004 across functions and files: the seed bug survives renaming and indirection."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_project, lint_snippet

from devlint.engine import FileResult, _calls_any, fix_file

WRAPPER = """\
import torch.nn as nn
from transformers import AutoProcessor, IdeficsForVisionText2Text


class LMMWrapper(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.processor = AutoProcessor.from_pretrained(name)
        self.model = IdeficsForVisionText2Text.from_pretrained(name)

    def process_input(self, texts, images):
        inputs = self.processor(texts, images, return_tensors="pt", padding=True)
        return inputs
"""

MODEL = """\
import pytorch_lightning as pl


class ICVModel(pl.LightningModule):
    def __init__(self, lmm):
        super().__init__()
        self.lmm = lmm

    def forward(self, texts, images):
        query_inputs = self.lmm.process_input(texts, images)
        return self.lmm.model(**query_inputs, labels=query_inputs["input_ids"])
"""

FIXED_LINE = "        query_inputs = self.lmm.process_input(texts, images).to(self.device)\n"


def findings(tmp_path: Path, wrapper: str, model: str) -> list[tuple[str, int, int, str]]:
    project = lint_project(
        tmp_path,
        {"icv/__init__.py": "", "icv/lmm.py": wrapper, "icv/model.py": model},
        select=("DEV004",),
    )
    return [
        (Path(f.path).name, f.start.row, f.start.column, f.message)
        for result in project.files
        for f in result.findings
    ]


def test_seed_is_reported_at_the_model_call_naming_the_source(in_tmp: Path) -> None:
    assert findings(in_tmp, WRAPPER, MODEL) == [
        (
            "model.py",
            11,
            31,
            "`query_inputs` holds processor output from `LMMWrapper.process_input` "
            "(icv/lmm.py:12), still on the CPU when it reaches `self.lmm.model(...)`; "
            "move it with `.to(self.device)`",
        )
    ]


def test_seed_fix_moves_the_value_where_it_is_assigned(tmp_path: Path) -> None:
    project = lint_project(
        tmp_path, {"icv/__init__.py": "", "icv/lmm.py": WRAPPER, "icv/model.py": MODEL}
    )
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    outcome = fix_file(project, result, unsafe=False)
    assert outcome is not None and outcome.error is None
    assert outcome.text == MODEL.replace(
        "        query_inputs = self.lmm.process_input(texts, images)\n", FIXED_LINE
    )
    assert result.findings == []


RENAMINGS = {
    "method": (
        WRAPPER.replace("process_input", "prepare"),
        MODEL.replace("process_input", "prepare"),
    ),
    "wrapper attribute": (WRAPPER, MODEL.replace("self.lmm", "self.backbone")),
    "model attribute": (
        WRAPPER.replace("self.model", "self.net"),
        MODEL.replace("self.lmm.model", "self.lmm.net"),
    ),
    "lightning alias": (
        WRAPPER,
        MODEL.replace("import pytorch_lightning as pl", "import lightning.pytorch as L").replace(
            "pl.LightningModule", "L.LightningModule"
        ),
    ),
    "lightning from-import": (
        WRAPPER,
        MODEL.replace(
            "import pytorch_lightning as pl", "from lightning import LightningModule as Base"
        ).replace("pl.LightningModule", "Base"),
    ),
    "tokenizer instead of processor": (
        WRAPPER.replace("AutoProcessor", "AutoTokenizer")
        .replace("self.processor", "self.tok")
        .replace("(texts, images, return_tensors", "(texts, return_tensors"),
        MODEL,
    ),
    "source two calls deep": (
        WRAPPER.replace(
            '        inputs = self.processor(texts, images, return_tensors="pt", padding=True)\n'
            "        return inputs\n",
            "        return self._encode(texts, images)\n\n"
            "    def _encode(self, texts, images):\n"
            '        return self.processor(texts, images, return_tensors="pt", padding=True)\n',
        ),
        MODEL,
    ),
}


@pytest.mark.parametrize(("wrapper", "model"), RENAMINGS.values(), ids=RENAMINGS.keys())
def test_renaming_does_not_break_it(tmp_path: Path, wrapper: str, model: str) -> None:
    found = findings(tmp_path, wrapper, model)
    assert [(name, row) for name, row, _, _ in found] == [("model.py", 11)]
    assert "LMMWrapper." in found[0][3]


def test_two_definitions_that_disagree_are_not_trusted(tmp_path: Path) -> None:
    other = "class Other:\n    def process_input(self, texts, images):\n        return texts\n"
    project = lint_project(
        tmp_path,
        {
            "icv/__init__.py": "",
            "icv/lmm.py": WRAPPER,
            "icv/other.py": other,
            "icv/model.py": MODEL,
        },
        select=("DEV004",),
    )
    assert [f for r in project.files for f in r.findings] == []


def test_partial_move_names_the_keys_left_behind(tmp_path: Path) -> None:
    model = MODEL.replace(
        "        return self.lmm.model(",
        '        query_inputs["pixel_values"] = query_inputs["pixel_values"].to(self.device)\n'
        "        return self.lmm.model(",
    )
    (found,) = findings(tmp_path, WRAPPER, model)
    assert found[3].endswith(
        "only 'pixel_values' was moved, 'input_ids' still on the CPU; "
        "move it with `.to(self.device)`"
    )


def test_moved_in_the_wrapper_is_quiet(tmp_path: Path) -> None:
    wrapper = WRAPPER.replace(
        "        return inputs\n", "        return inputs.to(self.model.device)\n"
    )
    assert findings(tmp_path, wrapper, MODEL) == []


def test_plain_dict_source_gets_a_comprehension_fix(tmp_path: Path) -> None:
    wrapper = WRAPPER.replace(
        "        return inputs\n", "        return {k: v for k, v in inputs.items()}\n"
    )
    project = lint_project(
        tmp_path, {"icv/__init__.py": "", "icv/lmm.py": wrapper, "icv/model.py": MODEL}
    )
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    outcome = fix_file(project, result, unsafe=False)
    assert outcome is not None
    assert (
        "        query_inputs = {k: v.to(self.device) for k, v in "
        "self.lmm.process_input(texts, images).items()}\n"
    ) in outcome.text


@pytest.mark.parametrize(
    ("code", "calls"),
    [
        ("y = encode(x)\n", True),
        ("y = tok.encode (x)\n", True),
        ("y = encode(\n    x)\n", True),
        ("y = encode \\\n    (x)\n", True),
        ("from m import encode as e\n", True),
        ("y = reencode(x)\n", False),
        ("y = encoder(x)\n", False),
        ("y = encode\n", False),
        ("y = encode_all(x)\n", False),
        # The first match (`encode`, a comment, `(`) is no whole word; the later one is.
        ("y = xencode # encode(\n(x)\n", True),
        ("y = \u00e9encode(x)\n", False),
    ],
)
def test_calls_any_reads_names_as_whole_words_before_a_call_or_as(
    tmp_path: Path, code: str, calls: bool
) -> None:
    path = tmp_path / "m.py"
    path.write_text(code, encoding="utf-8")
    result = FileResult(path, "m.py", job=None)  # type: ignore[arg-type]
    assert _calls_any(result, {"encode", "preprocess"}) is calls


_FRAMES = """\
import numpy as np
import torch


def channels_first(img):
    return img.transpose(2, 0, 1)


class ClipToTensor:
    def __init__(self, numpy=False):
        self.numpy = numpy

    def __call__(self, clip):
        if {first}:
            frames = {one}
        else:
            frames = {other}
        for i, img in enumerate(clip):
            frames[i] = channels_first(img)
        if self.numpy:
            return frames
        return torch.from_numpy(np.stack(frames))
"""


@pytest.mark.parametrize(
    ("one", "other", "found"),
    [
        # On every path an array in host memory: what is written into it is copied there.
        ("np.zeros([len(clip), 3, 8, 8])", "np.empty([len(clip), 3, 8, 8])", []),
        # A list on one path holds the input's tensors themselves, whichever path it is.
        ("[None] * len(clip)", "np.zeros([len(clip), 3, 8, 8])", [("DEV003", 22, 16)]),
        ("np.zeros([len(clip), 3, 8, 8])", "[None] * len(clip)", [("DEV003", 22, 16)]),
    ],
)
def test_a_host_array_is_one_on_every_path(
    tmp_path: Path, one: str, other: str, found: list[tuple[str, int, int]]
) -> None:
    source = _FRAMES.format(first="self.numpy", one=one, other=other)
    _, result = lint_snippet(tmp_path, source, select=("DEV003",))
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == found
