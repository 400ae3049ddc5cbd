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


_BLOCKS = "import torch.nn as nn\n\nclass Adapter(nn.Module):\n    pass\n\nclass Table:\n    pass\n"


def _lightning_init(*moves: str) -> str:
    """A LightningModule whose ``__init__`` stores each ``name.cuda()`` of ``moves``."""
    stores = "".join(f"        self.{name} = {name}.cuda()\n" for name in moves)
    return (
        "import pytorch_lightning as pl\n"
        "from blocks import Adapter, Table\n\n"
        "class M(pl.LightningModule):\n"
        "    def __init__(self, adapter: Adapter, table: Table):\n"
        "        super().__init__()\n" + stores
    )


def test_a_module_class_from_another_file_makes_the_deletion_safe(tmp_path: Path) -> None:
    files = {"model.py": _lightning_init("adapter"), "blocks.py": _BLOCKS}
    project = lint_project(tmp_path, files, select=("DEV002",))
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    (adapter,) = result.findings
    assert adapter.start.row == 7
    assert adapter.fix is not None and adapter.fix.applicability is Applicability.SAFE


def test_a_class_not_known_to_be_a_module_leaves_no_fix(tmp_path: Path) -> None:
    files = {"model.py": _lightning_init("table"), "blocks.py": _BLOCKS}
    project = lint_project(tmp_path, files, select=("DEV002",))
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    (table,) = result.findings
    assert (table.start.row, table.fix) == (7, None)
    assert "not known to be one" in table.message


def test_a_literal_left_in_the_function_withdraws_its_other_fixes(tmp_path: Path) -> None:
    """The fixes of one function's literal devices go together: with ``table.cuda()`` kept,
    deleting ``adapter.cuda()`` alone would split the two (engine ``_LiteralMoves``)."""
    files = {"model.py": _lightning_init("adapter", "table"), "blocks.py": _BLOCKS}
    project = lint_project(tmp_path, files, select=("DEV002",))
    (result,) = [r for r in project.files if r.path.name == "model.py"]
    assert [(f.start.row, f.fix) for f in result.findings] == [(7, None), (8, None)]


def test_a_literal_another_rule_reports_is_not_one_left(tmp_path: Path) -> None:
    """DEV001 drops the literal of ``.to("cuda")`` in a collate function, which DEV011
    reports and fixes: the function keeps no literal, so its fixes stay."""
    source = (
        "import torch\n\n"
        "def pad_collate(batch):\n"
        "    images = torch.stack([image for image, _ in batch])\n"
        "    labels = torch.stack([label for _, label in batch])\n"
        '    return images.to("cuda"), labels.cuda()\n'
    )
    _, result = lint_snippet(tmp_path, source, select=("ALL",))
    fixes = [(f.code, f.start.column, f.fix and f.fix.applicability) for f in result.findings]
    assert fixes == [("DEV011", 19, Applicability.UNSAFE), ("DEV011", 38, Applicability.UNSAFE)]


def test_one_unsafe_fix_makes_the_functions_other_fixes_unsafe(tmp_path: Path) -> None:
    """Applying only the safe half of one function's fixes would split its values."""
    source = (
        "import torch\n\n"
        "class Sampler:\n"
        "    def __init__(self, model, device, use_cuda):\n"
        "        self.model = model\n"
        "        self.device = device\n"
        "        self.use_cuda = use_cuda\n\n"
        "    def sample(self, x):\n"
        "        noise = torch.randn(3).cuda()\n"
        "        x = x.cuda() if self.use_cuda else x\n"
        "        return self.model(x + noise)\n"
    )
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    fixes = [(f.start.row, f.fix and f.fix.applicability) for f in result.findings]
    assert fixes == [(10, Applicability.UNSAFE), (11, Applicability.UNSAFE)]


def test_a_literal_silenced_by_noqa_is_still_one_left(tmp_path: Path) -> None:
    """``# noqa`` keeps ``a.cuda()`` out of the report, not out of the code: the function's
    other ``.cuda()`` keeps its finding but loses its fix (it would move ``y`` elsewhere)."""
    source = (
        "from torch import Tensor\n\n"
        "def scale(x: Tensor, y: Tensor) -> Tensor:\n"
        "    b = (x * 2).cuda()  # noqa: DEV002\n"
        "    return b * y.cuda()\n"
    )
    _, result = lint_snippet(tmp_path, source, select=("DEV002",))
    assert [(f.code, f.start.row, f.fix) for f in result.findings] == [("DEV002", 5, None)]


def test_a_literal_ignored_for_the_file_is_still_one_left(tmp_path: Path) -> None:
    """A per-file ignore of DEV001 silences ``device="cuda"``; DEV002's fix of the same
    function would put ``y`` beside it on another device, so it is withdrawn."""
    source = (
        "import torch\nfrom torch import Tensor\n\n"
        "def scale(x: Tensor, y: Tensor) -> Tensor:\n"
        '    b = torch.zeros(3, device="cuda")\n'
        "    return b * y.cuda()\n"
    )
    config = (
        '[tool.devlint]\nselect = ["DEV001", "DEV002"]\n'
        '[tool.devlint.per-file-ignores]\n"snippet.py" = ["DEV001"]\n'
    )
    _, result = lint_snippet(tmp_path, source, pyproject=config)
    assert [(f.code, f.start.row, f.fix) for f in result.findings] == [("DEV002", 6, None)]
