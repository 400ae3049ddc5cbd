"""Every rule's own VALID and INVALID examples, and its documentation."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from conftest import lint_snippet

from devlint.engine import fix_file
from devlint.findings import Applicability
from devlint.rules import all_rules
from devlint.rules.base import Invalid, Rule

VALID = [
    pytest.param(rule, source, id=f"{rule.code}-valid-{number}")
    for rule in all_rules()
    for number, source in enumerate(rule.VALID)
]
INVALID = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{number}")
    for rule in all_rules()
    for number, example in enumerate(rule.INVALID)
]
SECTIONS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Use instead",
    "## Fix safety",
)


@pytest.mark.parametrize(("rule", "source"), VALID)
def test_valid_example_is_not_flagged(rule: Rule, source: str, tmp_path: Path) -> None:
    _, result = lint_snippet(tmp_path, source, select=(rule.code,))
    assert [(f.code, f.start) for f in result.findings] == []


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_invalid_example_is_flagged_and_fixed(rule: Rule, example: Invalid, tmp_path: Path) -> None:
    project, result = lint_snippet(tmp_path, example.code, select=(rule.code,))
    found = [(f.code, f.start.row, f.start.column) for f in result.findings]
    assert found == [(rule.code, example.line, example.column)]
    (finding,) = result.findings
    if example.fixed is None:
        assert finding.fix is None
        return
    assert finding.fix is not None
    expected = Applicability.UNSAFE if example.unsafe else Applicability.SAFE
    assert finding.fix.applicability is expected
    if example.unsafe:
        assert fix_file(project, result, unsafe=False) is None
    outcome = fix_file(project, result, unsafe=True)
    assert outcome is not None and outcome.error is None
    assert outcome.text == example.fixed
    assert [f.code for f in result.findings if f.fix is not None] == []


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_is_documented_with_examples(rule: Rule) -> None:
    doc = inspect.getdoc(type(rule)) or ""
    positions = [doc.find(section) for section in SECTIONS]
    assert -1 not in positions, f"{rule.code} documentation lacks a section"
    assert positions == sorted(positions)
    assert rule.VALID and rule.INVALID
    assert rule.name == rule.name.lower() and " " not in rule.name
    assert rule.fix_safety in {"safe", "unsafe", "safe/unsafe", "none"}


def test_codes_and_names_are_unique() -> None:
    codes = [rule.code for rule in all_rules()]
    names = [rule.name for rule in all_rules()]
    assert codes == sorted(set(codes))
    assert len(names) == len(set(names))
    assert codes[:4] == ["DEV000", "DEV001", "DEV002", "DEV003"]
