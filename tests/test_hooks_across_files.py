"""DEV007 where the batch method that runs a class's method is a base class's, in another
file: a LightningModule base whose ``training_step`` calls ``self.train_step_gen``, which
the subclass defines. ``self.device`` in the subclass's ``__init__`` is the CPU there (the
trainer has not moved the module yet), so the tensor it places stays behind."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_project, package_findings

BASE = """\
import pytorch_lightning as pl


class Base(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return self.train_step_gen(batch)

    def describe(self):
        return "base"
"""

TRAINER = """\
import torch

from pkg.base import Base


class Trainer(Base):
    def __init__(self, n):
        super().__init__()
        self.net = torch.nn.Linear(n, n)
        self.support = torch.linspace(0, 1, n, device=self.device)

    def train_step_gen(self, batch):
        return (self.net(batch) * self.support).sum()
"""


def test_a_kept_tensor_met_in_a_method_a_base_of_another_file_calls_with_the_batch(
    tmp_path: Path,
) -> None:
    files = {"pkg/base.py": BASE, "pkg/trainer.py": TRAINER}
    assert package_findings(tmp_path, files, "DEV007") == [("trainer.py", 10, 9)]


def test_quiet_where_the_class_overrides_the_batch_method_that_called_it(tmp_path: Path) -> None:
    own_step = "    def training_step(self, batch, batch_idx):\n        return batch.sum()\n\n"
    trainer = TRAINER.replace("    def train_step_gen", own_step + "    def train_step_gen")
    files = {"pkg/base.py": BASE, "pkg/trainer.py": trainer}
    assert package_findings(tmp_path, files, "DEV007") == []


def test_quiet_where_no_batch_method_of_a_base_calls_it(tmp_path: Path) -> None:
    base = BASE.replace("self.train_step_gen(batch)", "batch.sum()")
    files = {"pkg/base.py": base, "pkg/trainer.py": TRAINER}
    assert package_findings(tmp_path, files, "DEV007") == []


READER = """\
import pytorch_lightning as pl


class Base(pl.LightningModule):
    def boost(self, rewards, actions):
        return rewards + (actions.float() * self.boosts).sum(1)
"""

KEEPER = """\
import torch

from pkg.base import Base


class Keeper(Base):
    def __init__(self, n):
        super().__init__()
        self.net = torch.nn.Linear(n, n)
        self.boosts = torch.zeros([1, n], device=self.device)

    def training_step(self, batch, batch_idx):
        return self.boost(self.net(batch.x), batch.actions)
"""


def test_a_kept_tensor_that_an_inherited_method_of_another_file_meets_with_its_arguments(
    tmp_path: Path,
) -> None:
    files = {"pkg/base.py": READER, "pkg/keeper.py": KEEPER}
    assert package_findings(tmp_path, files, "DEV007") == [("keeper.py", 10, 9)]


def test_the_message_names_the_inherited_method_that_meets_it(tmp_path: Path) -> None:
    logged = '        self.log("seen", 1.0)\n        return self.boost('
    keeper = KEEPER.replace("        return self.boost(", logged)
    files = {"pkg/__init__.py": "", "pkg/base.py": READER, "pkg/keeper.py": keeper}
    project = lint_project(tmp_path, files, select=("DEV007",))
    assert [f.message for r in project.files for f in r.findings] == [
        "`self.boosts` is a plain tensor attribute (made by `torch.zeros()`), not a buffer: "
        "moving the module leaves it behind, and it meets the device in `boost()`, called at "
        'line 14; use `self.register_buffer("boosts", ..., persistent=False)` (buffers follow '
        "dtype casts such as `.half()`)"
    ]


def test_quiet_where_the_inherited_method_meets_it_with_nothing_on_the_device(
    tmp_path: Path,
) -> None:
    base = READER.replace("(actions.float() * self.boosts).sum(1)", "self.boosts.tolist()[0]")
    files = {"pkg/base.py": base, "pkg/keeper.py": KEEPER}
    assert package_findings(tmp_path, files, "DEV007") == []


def test_quiet_where_the_caller_hands_the_inherited_method_cpu_tensors(tmp_path: Path) -> None:
    keeper = KEEPER.replace("batch.actions)", "torch.ones(3, 1))")
    files = {"pkg/base.py": READER, "pkg/keeper.py": keeper}
    assert package_findings(tmp_path, files, "DEV007") == []


def test_quiet_where_the_base_moves_the_attribute_itself(tmp_path: Path) -> None:
    moving = (
        "    def on_fit_start(self):\n"
        "        self.boosts = self.boosts.to(self.device)\n\n"
        "    def boost("
    )
    base = READER.replace("    def boost(", moving)
    files = {"pkg/base.py": base, "pkg/keeper.py": KEEPER}
    assert package_findings(tmp_path, files, "DEV007") == []


STEPPING_READER = (
    READER
    + """
    def training_step(self, batch, batch_idx):
        return self.train_step_gen(batch)
"""
)

STEPPING_KEEPER = """\
import torch

from pkg.base import Base


class Keeper(Base):
    def __init__(self, n):
        super().__init__()
        self.net = torch.nn.Linear(n, n)
        self.boosts = torch.zeros([1, n], device=self.device)

    def export(self):
        return self.boosts * self.net.weight

    def train_step_gen(self, batch):
        return self.boost(self.net(batch.x), batch.actions)
"""


def test_a_method_off_the_batch_path_meeting_it_first_hides_no_later_one_on_it(
    tmp_path: Path,
) -> None:
    # `export` meets it but runs with no batch; `train_step_gen`, which the base's
    # `training_step` calls, hands it to the inherited `boost`, which meets it.
    files = {"pkg/base.py": STEPPING_READER, "pkg/keeper.py": STEPPING_KEEPER}
    project = lint_project(tmp_path, {"pkg/__init__.py": "", **files}, select=("DEV007",))
    assert [(f.start.row, f.message) for r in project.files for f in r.findings] == [
        (
            10,
            "`self.boosts` is a plain tensor attribute (made by `torch.zeros()`), not a "
            "buffer: moving the module leaves it behind, and it meets the device in `boost()`, "
            'called at line 16; use `self.register_buffer("boosts", ..., persistent=False)` '
            "(buffers follow dtype casts such as `.half()`)",
        )
    ]
