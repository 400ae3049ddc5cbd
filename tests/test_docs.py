"""The README's rules table is the one the code generates."""

from __future__ import annotations

from pathlib import Path

from devlint.docs import README_BEGIN, README_END, rules_table_markdown

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_rules_table_matches_the_rules() -> None:
    text = README.read_text()
    begin = text.index(README_BEGIN) + len(README_BEGIN)
    end = text.index(README_END)
    assert text[begin:end].strip() == rules_table_markdown()


def test_readme_starts_with_install_and_test_commands() -> None:
    lines = README.read_text().splitlines()
    commands = [line for line in lines[:6] if line.startswith("pip install")]
    assert commands[0].startswith("pip install . && devlint check fixtures/")
    assert commands[1].startswith("pip install -e '.[dev]' && python -m pytest")
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install -e '.[dev]' && python -m pytest\n" in ci
