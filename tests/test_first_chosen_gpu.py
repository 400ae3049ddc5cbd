"""A program whose options parser makes the first of the user's GPUs current
(``torch.cuda.set_device(opt.gpu_ids[0])``): its ``.cuda()`` (DEV002) and legacy CUDA
constructors (DEV001) that run only when that list is not empty land on the chosen GPU;
those that also run when it is empty (the CPU) are findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_OPTIONS = (
    "import argparse\n\nimport torch\n\n\n"
    "class Options:\n"
    "    def parse(self):\n"
    "        opt = argparse.ArgumentParser().parse_args()\n"
    '        opt.gpu_ids = [int(i) for i in opt.gpu_ids.split(",") if int(i) >= 0]\n'
    "        if len(opt.gpu_ids) > 0:\n"
    "            torch.cuda.set_device({first})\n"
    "        return opt\n"
)
_MODEL = (
    "import torch\n\n\n"
    "class Model(torch.nn.Module):\n"
    "    def __init__(self, opt):\n"
    "        super().__init__()\n"
    "        self.opt = opt\n"
    "        self.net = torch.nn.Conv2d(3, 3, 1)\n\n"
    "    def use_gpu(self):\n"
    "        return len(self.opt.gpu_ids) > 0\n\n"
    "    def forward(self, data):\n"
    "        {test}\n"
    "            data = data.cuda()\n"
    "        return self.net(data)\n"
)


@pytest.mark.parametrize(
    "test",
    [
        "if len(self.opt.gpu_ids) > 0:",
        "if self.use_gpu():",
        "if self.opt.gpu_ids:",
        "if self.opt.isTrain and len(self.opt.gpu_ids) >= 1:",
        "if not self.opt.gpu_ids:\n            pass\n        else:",
        "if len(self.opt.gpu_ids) == 0:\n            pass\n        else:",
    ],
)
def test_a_move_run_only_when_gpus_were_chosen_lands_on_the_first(
    test: str, tmp_path: Path
) -> None:
    files = {
        "pkg/options.py": _OPTIONS.format(first="opt.gpu_ids[0]"),
        "pkg/model.py": _MODEL.format(test=test),
    }
    assert findings(tmp_path, files, "DEV002") == []


@pytest.mark.parametrize(
    ("first", "test"),
    [
        ("opt.gpu_ids[0]", "if self.opt.isTrain:"),  # runs on the CPU too
        ("opt.gpu_ids[0]", "if not self.opt.gpu_ids:"),  # runs only on the CPU
        ("opt.gpu_ids[0]", "if len(self.opt.gpu_ids) > 1:"),  # several GPUs: not a test
        ("opt.gpu_ids[0]", "if self.opt.other_ids:"),  # another list
        ("opt.local_rank", "if self.use_gpu():"),  # the set-up makes no list's first current
    ],
)
def test_a_move_that_may_run_without_the_chosen_gpu_is_flagged(
    first: str, test: str, tmp_path: Path
) -> None:
    files = {
        "pkg/options.py": _OPTIONS.format(first=first),
        "pkg/model.py": _MODEL.format(test=test),
    }
    assert findings(tmp_path, files, "DEV002") == [("model.py", 15, 25)]


def test_a_legacy_constructor_under_the_chosen_gpus_lands_on_the_first(tmp_path: Path) -> None:
    model = _MODEL.format(test="if self.use_gpu():").replace(
        "data = data.cuda()", "data = torch.cuda.FloatTensor(data.shape)"
    )
    files = {"pkg/options.py": _OPTIONS.format(first="opt.gpu_ids[0]"), "pkg/model.py": model}
    assert findings(tmp_path, files, "DEV001") == []
    files["pkg/options.py"] = _OPTIONS.format(first="opt.local_rank")
    assert findings(tmp_path, files, "DEV001") == [("model.py", 15, 20)]


def test_the_set_up_of_tests_chooses_for_no_program(tmp_path: Path) -> None:
    files = {
        "pkg/tests/__init__.py": "",
        "pkg/tests/test_options.py": _OPTIONS.format(first="opt.gpu_ids[0]"),
        "pkg/model.py": _MODEL.format(test="if self.use_gpu():"),
    }
    assert findings(tmp_path, files, "DEV002") == [("model.py", 15, 25)]


def test_a_move_in_a_conditional_expression_on_the_chosen_gpus_lands_on_the_first(
    tmp_path: Path,
) -> None:
    """The ``.cuda()`` is the body of ``x if gpu_ids else y`` itself (review, round 17)."""
    model = _MODEL.format(test="if True:").replace(
        "data = data.cuda()", "data = data.cuda() if self.opt.gpu_ids else data"
    )
    files = {"pkg/options.py": _OPTIONS.format(first="opt.gpu_ids[0]"), "pkg/model.py": model}
    assert findings(tmp_path, files, "DEV002") == []


def test_a_guard_method_of_two_statements_on_one_line_is_no_test(tmp_path: Path) -> None:
    """``ids = self.opt.gpu_ids; return len(ids) > 0`` is not read as the guard, and the
    file is still checked (it crashed the check, review of round 17)."""
    model = _MODEL.format(test="if self.use_gpu():").replace(
        "        return len(self.opt.gpu_ids) > 0\n",
        "        ids = self.opt.gpu_ids; return len(ids) > 0\n",
    )
    files = {"pkg/options.py": _OPTIONS.format(first="opt.gpu_ids[0]"), "pkg/model.py": model}
    assert findings(tmp_path, files, "DEV002") == [("model.py", 15, 25)]
