"""Helpers shared by the tests: lint a snippet as a one-file project."""

from __future__ import annotations

from pathlib import Path

import pytest

from devlint import runner
from devlint.config import config_for_directory
from devlint.engine import FileResult, Overrides, Project, check_projects, plan_projects
from devlint.runner import Runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def lint_snippet(
    folder: Path,
    source: str,
    *,
    select: tuple[str, ...] | None = None,
    name: str = "snippet.py",
    pyproject: str = '[project]\nname = "snippet"\n',
) -> tuple[Project, FileResult]:
    """Check ``source`` as the only file of a fresh project in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(pyproject)
    path = folder / name
    path.write_bytes(source.encode())
    (project,) = plan_projects([path], config_for_directory, Overrides(select=select))
    check_projects([project], Runner(1))
    (result,) = project.files
    return project, result


def lint_project(
    folder: Path, files: dict[str, str], *, select: tuple[str, ...] | None = None
) -> Project:
    """Check a project made of ``files`` (path -> source) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "snippet"\n')
    paths = []
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    (project,) = plan_projects(sorted(paths), config_for_directory, Overrides(select=select))
    check_projects([project], Runner(1))
    return project


def package_findings(folder: Path, files: dict[str, str], code: str) -> list[tuple[str, int, int]]:
    """``(file name, line, column)`` of each ``code`` finding in a package ``pkg`` made of
    ``files``."""
    project = lint_project(folder, {"pkg/__init__.py": "", **files}, select=(code,))
    return [
        (Path(result.display).name, finding.start.row, finding.start.column)
        for result in project.files
        for finding in result.findings
    ]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the test from an empty folder so displayed paths are short and stable."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def workers_for_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start worker processes however few bytes a test's files hold (a run starts them
    only for work big enough to pay for them), so that the test sees them at work."""
    monkeypatch.setattr(runner, "_POOL_START_BYTES", 0)
