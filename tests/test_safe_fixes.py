"""A safe fix never changes working code (issue 15): overrides of the module's own moves,
devices chosen at run time, and ``.cuda()`` deleted only from what the trainer moves."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from conftest import lint_project, lint_snippet

from devlint.cli import main
from devlint.findings import Applicability

MODEL_MIXIN = """\
from functools import wraps

import torch
import torch.nn as nn


class ModelMixin(nn.Module):
    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @wraps(torch.nn.Module.cuda)
    def cuda(self, *args, **kwargs):
        if getattr(self, "is_loaded_in_8bit", False):
            raise ValueError("8-bit models are already on their devices")
        return super().cuda(*args, **kwargs)

    @wraps(torch.nn.Module.to)
    def to(self, *args, **kwargs):
        self._move_cache("cuda")
        return super().to(*args, **kwargs)

    def _move_cache(self, where):
        self.cache = self.cache.cuda()
        self.cache = self.cache.to("cuda")
"""
"""A model base class overriding ``cuda`` and ``to`` (diffusers' ``ModelMixin`` does)."""


def test_an_override_of_the_modules_own_moves_is_neither_reported_nor_rewritten(
    in_tmp: Path,
) -> None:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (in_tmp / "modeling.py").write_text(MODEL_MIXIN)
    check = CliRunner().invoke(main, ["check", "--no-cache", "--select", "ALL", "."])
    assert (check.exit_code, check.stdout) == (0, "All checks passed!\n")
    fix = CliRunner().invoke(main, ["fix", "--write", "--no-cache", "--select", "ALL", "."])
    assert fix.exit_code == 0
    assert (in_tmp / "modeling.py").read_text() == MODEL_MIXIN


def test_the_same_helper_outside_the_overrides_is_still_reported(tmp_path: Path) -> None:
    source = MODEL_MIXIN.replace("self._move_cache(", "self._other(")
    _, result = lint_snippet(tmp_path, source, select=("DEV001", "DEV002"))
    found = [(f.code, f.start.row, f.start.column) for f in result.findings]
    assert found == [("DEV002", 24, 33), ("DEV001", 25, 36)]


def test_a_device_chosen_at_run_time_is_kept_and_not_reported(tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x, weight, idx, device):\n"
        "        a = x.cuda(idx)\n"
        "        b = weight.cuda(x.device)\n"
        "        c = x.cuda(device=device, non_blocking=True)\n"
        "        return a + b + c + x.cuda(0)\n"
    )
    _, result = lint_snippet(tmp_path, source, select=("DEV002", "DEV011"))
    assert [(f.code, f.start.row, f.start.column) for f in result.findings] == [("DEV002", 8, 30)]
    (literal,) = result.findings
    assert literal.fix is not None and literal.fix.applicability is Applicability.SAFE
    assert [edit.content for edit in literal.fix.edits] == ["to(self.device)"]


def test_an_argument_to_would_not_take_leaves_no_fix(tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, x):\n"
        "        return x.cuda(0, True)\n"
    )
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    assert [(f.code, f.start.row, f.fix) for f in result.findings] == [("DEV002", 5, None)]


def test_a_module_class_from_another_file_makes_the_deletion_safe(tmp_path: Path) -> None:
    model = (
        "import pytorch_lightning as pl\n"
        "from blocks import Adapter, Table\n\n"
        "class M(pl.LightningModule):\n"
        "    def __init__(self, adapter: Adapter, table: Table):\n"
        "        super().__init__()\n"
        "        self.adapter = adapter.cuda()\n"
        "        self.table = table.cuda()\n"
    )
    blocks = (
        "import torch.nn as nn\n\nclass Adapter(nn.Module):\n    pass\n\nclass Table:\n    pass\n"
    )
    project = lint_project(tmp_path, {"model.py": model, "blocks.py": blocks}, select=("DEV002",))
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    adapter, table = result.findings
    assert (adapter.start.row, table.start.row) == (7, 8)
    assert adapter.fix is not None and adapter.fix.applicability is Applicability.SAFE
    assert table.fix is None
    assert "not known to be one" in table.message
