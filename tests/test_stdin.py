"""Editors: the source comes on stdin and is checked (or fixed) as the file it will be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from devlint.cli import main

BASE = "import pytorch_lightning as pl\n\n\nclass Base(pl.LightningModule):\n    pass\n"
MODEL = (
    "from base import Base\n"
    "\n"
    "\n"
    "class Model(Base):\n"
    "    def forward(self, x):\n"
    "        return x.cuda()\n"
)
MODEL_FIXED = MODEL.replace("x.cuda()", "x.to(self.device)")
FINDING = "DEV002 `.cuda()` in model code; use `.to(self.device)`"


def run(*args: str, input: bytes | str) -> Result:
    data = input.encode() if isinstance(input, str) else input
    return CliRunner().invoke(main, list(args), input=data, catch_exceptions=False)


@pytest.fixture
def project(in_tmp: Path) -> Path:
    """A project whose base class lives in another file than the model being edited."""
    (in_tmp / "pyproject.toml").write_text(
        '[project]\nname = "p"\n\n[tool.devlint.per-file-ignores]\n"tests/*" = ["DEV002"]\n'
    )
    (in_tmp / "base.py").write_text(BASE)
    (in_tmp / "model.py").write_text("x = 1\n")  # on disk: an older, clean version
    return in_tmp


def test_check_reads_stdin_and_reports_it_as_the_given_path(project: Path) -> None:
    result = run(
        "check", "--no-cache", "--no-color", "-", "--stdin-filename", "model.py", input=MODEL
    )
    assert result.exit_code == 1
    assert result.stdout == (
        f"model.py:6:18: {FINDING}\n"
        "        return x.cuda()\n"
        "                 ^^^^^^\n"
        "fix available: Use `.to(self.device)`\n"
        "\n"
        "Found 1 finding (1 fixable)\n"
    )
    assert (project / "model.py").read_text() == "x = 1\n"


def test_the_project_around_the_buffer_gives_its_cross_file_findings(project: Path) -> None:
    """Base is a LightningModule only because of base.py, which is on disk."""
    (project / "src").mkdir()
    result = run(
        "check", "--output-format", "json", "--stdin-filename", "src/new_model.py", input=MODEL
    )
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)
    assert (finding["filename"], finding["code"]) == ("src/new_model.py", "DEV002")


def test_only_the_buffer_is_reported_not_the_project_around_it(project: Path) -> None:
    (project / "other.py").write_text(MODEL)
    result = run("check", "--no-cache", "-", "--stdin-filename", "model.py", input="y = 2\n")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_per_file_ignores_apply_to_the_stdin_filename(project: Path) -> None:
    result = run("check", "-", "--stdin-filename", "tests/test_model.py", input=MODEL)
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_configuration_is_the_one_of_the_stdin_filename(project: Path) -> None:
    nested = project / "nested"
    nested.mkdir()
    (nested / "pyproject.toml").write_text('[tool.devlint]\nignore = ["DEV002"]\n')
    (nested / "base.py").write_text(BASE)
    result = run("check", "-", "--stdin-filename", "nested/model.py", input=MODEL)
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_fix_prints_the_fixed_source_and_nothing_else(project: Path) -> None:
    result = run("fix", "-", "--stdin-filename", "model.py", input=MODEL)
    assert (result.exit_code, result.stdout, result.stderr) == (0, MODEL_FIXED, "")
    assert (project / "model.py").read_text() == "x = 1\n"


def test_fix_with_write_still_prints_and_writes_nothing(project: Path) -> None:
    result = run("fix", "--write", "-", "--stdin-filename", "model.py", input=MODEL)
    assert (result.exit_code, result.stdout) == (0, MODEL_FIXED)
    assert (project / "model.py").read_text() == "x = 1\n"


def test_fix_keeps_encoding_and_line_ends_byte_for_byte(project: Path) -> None:
    source = ("# -*- coding: latin-1 -*-\n# Modèle\n" + MODEL).replace("\n", "\r\n")
    result = run("fix", "-", "--stdin-filename", "model.py", input=source.encode("latin-1"))
    expected = source.replace("x.cuda()", "x.to(self.device)").encode("latin-1")
    assert (result.exit_code, result.stdout_bytes) == (0, expected)


def test_fix_leaves_unfixable_findings_on_stderr_and_exits_1(project: Path) -> None:
    plain = (
        "import torch\nfrom torch import nn\n\n\nclass Block(nn.Module):\n"
        "    def forward(self, x: torch.Tensor, y):\n        return x + y.cuda()\n"
    )
    result = run("fix", "--no-color", "-", "--stdin-filename", "block.py", input=plain)
    assert (result.exit_code, result.stdout) == (1, plain)
    assert result.stderr.startswith("block.py:7:22: DEV002")
    assert "unsafe fix available (--unsafe-fixes): Use `.to(x.device)`" in result.stderr
    quiet = run("fix", "--quiet", "-", "--stdin-filename", "block.py", input=plain)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (1, plain, "")
    unsafe = run("fix", "--unsafe-fixes", "-", "--stdin-filename", "block.py", input=plain)
    assert unsafe.exit_code == 0
    assert unsafe.stdout == plain.replace("y.cuda()", "y.to(x.device)")


def test_fix_of_unparsable_source_prints_it_unchanged(project: Path) -> None:
    broken = "def forward(self, x:\n    return x\n"
    result = run("fix", "-", "--stdin-filename", "model.py", input=broken)
    assert (result.exit_code, result.stdout) == (1, broken)
    assert result.stderr.startswith("model.py:1:")
    assert "DEV000" in result.stderr


def test_dash_alone_is_named_dash(in_tmp: Path) -> None:
    source = "import torch\nfrom torch import nn\n\n\nclass B(nn.Module):\n"
    source += "    def forward(self, x):\n        return x.cuda()\n"
    result = run("check", "--no-cache", "--output-format", "json", "-", input=source)
    [finding] = json.loads(result.stdout)
    assert (finding["filename"], finding["code"]) == ("-", "DEV002")
    assert run("fix", "-", input="x = 1\n").stdout == "x = 1\n"


def test_stdin_cannot_be_mixed_with_paths(project: Path) -> None:
    result = run("check", "-", "base.py", input=MODEL)
    assert result.exit_code == 2
    assert result.stderr == (
        "devlint: error: stdin (`-`, `--stdin-filename`) cannot be checked with other paths\n"
    )


def test_force_exclude_skips_an_excluded_stdin_filename(project: Path) -> None:
    args = ("--force-exclude", "-", "--stdin-filename", "build/model.py")
    checked = run("check", *args, input=MODEL)
    assert (checked.exit_code, checked.stdout) == (0, "")  # not "All checks passed!"
    assert checked.stderr == (
        "devlint: warning: no file checked: no .py or .ipynb file to check in the given paths "
        "(1 given path excluded by `exclude`)\n"
    )
    fixed = run("fix", *args, input=MODEL)
    assert (fixed.exit_code, fixed.stdout) == (0, MODEL)
    assert run("check", "-", "--stdin-filename", "build/model.py", input=MODEL).exit_code == 1


def test_the_buffer_is_never_read_from_or_written_to_the_cache(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    (project / "model.py").write_text(MODEL)
    assert run("check", "--cache-dir", str(cache), ".", input=b"").exit_code == 1
    entries = sorted(p for p in cache.rglob("*") if p.is_file())
    args = ("check", "--cache-dir", str(cache), "-", "--stdin-filename", "model.py")
    assert run(*args, input="y = 2\n").stdout == "All checks passed!\n"
    assert run(*args, input=MODEL).exit_code == 1
    assert sorted(p for p in cache.rglob("*") if p.is_file()) == entries


def test_a_notebook_buffer_is_fixed_as_a_notebook(project: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "source": MODEL.splitlines(True)}
    document = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(document, indent=1) + "\n"
    result = run("fix", "-", "--stdin-filename", "train.ipynb", input=text)
    assert result.exit_code == 0
    assert result.stdout == text.replace("x.cuda()", "x.to(self.device)")
    check = run("check", "-", "--stdin-filename", "train.ipynb", input=text)
    assert check.stdout.startswith(f"train.ipynb:cell 1:6:18: {FINDING}\n")
