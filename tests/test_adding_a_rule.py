"""The README's promise: a new rule is one new module in ``devlint/rules/``.

The rule the README's "Adding a rule" section lists is put, as written there, in a
temporary folder on the rules package's path; nothing else changes. It must then be
registered, documented by ``devlint rule``, run on its own examples and known to the
prefilter by its triggers.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import lint_snippet

import devlint.rules
from devlint.cli import main
from devlint.rules import all_rules, rule_by_code, select_codes
from devlint.rules.base import Rule

README = Path(__file__).resolve().parent.parent / "README.md"
MODULE = "default_tensor_type"


def _readme_rule() -> str:
    """The first Python listing of the README's "Adding a rule" section (fenced with four
    backticks: the docstring's examples use three)."""
    text = README.read_text()
    section = text[text.index("### Adding a rule") :]
    listing = re.search(r"````python\n(.*?)````", section, re.DOTALL)
    assert listing is not None
    return listing[1]


@pytest.fixture
def new_rule(tmp_path: Path) -> Iterator[Rule]:
    """The README's rule, as ``devlint/rules/default_tensor_type.py`` would add it."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / f"{MODULE}.py").write_text(_readme_rule())
    original = list(devlint.rules.__path__)
    devlint.rules.__path__.append(str(folder))
    all_rules.cache_clear()
    try:
        rule = rule_by_code("DEV099")
        assert rule is not None
        yield rule
    finally:
        devlint.rules.__path__[:] = original
        sys.modules.pop(f"devlint.rules.{MODULE}", None)
        all_rules.cache_clear()


def test_the_readme_rule_is_registered_and_on_by_default(new_rule: Rule) -> None:
    assert type(new_rule).__module__ == f"devlint.rules.{MODULE}"
    assert "DEV099" in select_codes(None, (), ())


def test_the_readme_rule_flags_its_invalid_examples_only(new_rule: Rule, tmp_path: Path) -> None:
    for number, example in enumerate(new_rule.INVALID):
        _, result = lint_snippet(tmp_path / f"invalid{number}", example.code)
        found = [(f.code, f.start.row, f.start.column) for f in result.findings]
        assert found == [("DEV099", example.line, example.column)]
    for number, source in enumerate(new_rule.VALID):
        _, result = lint_snippet(tmp_path / f"valid{number}", source)
        assert [f.code for f in result.findings] == []


def test_the_readme_rule_is_documented(new_rule: Rule) -> None:
    result = CliRunner().invoke(main, ["rule", "DEV099"])
    assert result.exit_code == 0
    assert result.output.startswith("DEV099 default-tensor-type\n")
    assert "## What it does\nFinds calls of `torch.set_default_tensor_type`." in result.output


def test_the_prefilter_parses_only_files_with_the_readme_rule_trigger(
    new_rule: Rule, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (project / "typed.py").write_text(new_rule.INVALID[0].code)
    (project / "plain.py").write_text("import torch\nx = torch.ones(2)\n")
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--debug", "--jobs", "1", "--select", "DEV099", str(project)]
    )
    assert result.exit_code == 1
    assert "2 files: 1 parsed, 1 skipped by the prefilter" in result.stderr
