"""The example projects in ``fixtures/``, end to end through the command line.

Each folder of ``fixtures/`` holding a ``pyproject.toml`` is a project. Next to
each ``X.py`` of a project:

- ``X.py.expected``: the findings ``devlint check`` must report for ``X.py``, one
  per line, sorted by position: ``ROW:COL CODE FIX`` with FIX ``safe``, ``unsafe``
  or ``none`` (the applicability of the fix offered). No file: no findings.
- ``X.py.fixed``: the exact bytes of ``X.py`` after ``devlint fix --write``.
- ``X.py.unsafe-fixed``: the same after ``devlint fix --write --unsafe-fixes``.

Without ``.fixed`` (or ``.unsafe-fixed``) the file must come out unchanged.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from click.testing import CliRunner, Result

from devlint.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXPECTED, FIXED, UNSAFE_FIXED = ".expected", ".fixed", ".unsafe-fixed"
EXPECTATION_SUFFIXES = (EXPECTED, FIXED, UNSAFE_FIXED)
_LINE = re.compile(r"(?P<row>\d+):(?P<column>\d+) (?P<code>DEV\d{3}) (?P<fix>safe|unsafe|none)")
_HUNK = re.compile(r"@@ -(?P<start>\d+)(?:,(?P<old>\d+))? \+\d+(?:,(?P<new>\d+))? @@")

Mode = Literal["safe", "unsafe"]
Row = tuple[int, int, str, str]
"""A finding as the expectations spell it: row, column, code, fix applicability."""


def projects() -> list[Path]:
    return sorted(marker.parent for marker in FIXTURES.glob("*/pyproject.toml"))


def python_files(project: Path) -> list[str]:
    """The project's ``.py`` files, as POSIX paths relative to the project."""
    return sorted(
        path.relative_to(project).as_posix()
        for path in project.rglob("*.py")
        if "__pycache__" not in path.parts
    )


def expected_findings(project: Path, name: str) -> list[Row]:
    path = project / (name + EXPECTED)
    if not path.is_file():
        return []
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _LINE.fullmatch(line.strip())
        assert match is not None, f"{path}:{number}: not `ROW:COL CODE FIX`: {line!r}"
        rows.append((int(match["row"]), int(match["column"]), match["code"], match["fix"]))
    return rows


def expected_bytes(project: Path, name: str, mode: Mode) -> bytes:
    """What ``name`` must contain after fixing in ``mode``."""
    suffixes = (UNSAFE_FIXED, FIXED) if mode == "unsafe" else (FIXED,)
    for suffix in suffixes:
        path = project / (name + suffix)
        if path.is_file():
            return path.read_bytes()
    return (project / name).read_bytes()


def left_after_fixing(project: Path, mode: Mode) -> bool:
    """Whether findings without an applicable fix remain once every fix is applied."""
    left = {"none"} if mode == "unsafe" else {"none", "unsafe"}
    return any(
        row[3] in left for name in python_files(project) for row in expected_findings(project, name)
    )


def unparsable(project: Path) -> set[str]:
    return {
        name
        for name in python_files(project)
        if any(row[2] == "DEV000" for row in expected_findings(project, name))
    }


def as_row(finding: dict[str, Any]) -> Row:
    fix = finding["fix"]
    applicability = "none" if fix is None else fix["applicability"]
    location = finding["location"]
    return (location["row"], location["column"], finding["code"], applicability)


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    """Run devlint from ``path`` so that displayed file names are relative to it."""
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def invoke(where: Path, *args: str) -> Result:
    """``devlint ARGS .`` from ``where``, in process, without a cache to leave behind."""
    with working_directory(where):
        result = CliRunner().invoke(main, [*args, "--no-cache", "."])
    assert result.exit_code in (0, 1), (
        f"devlint {' '.join(args)} exited {result.exit_code}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}\n{result.exception!r}"
    )
    return result


def snapshot(project: Path) -> dict[str, bytes]:
    return {name: (project / name).read_bytes() for name in python_files(project)}


def copy_project(project: Path, destination: Path) -> Path:
    target = destination / project.name
    shutil.copytree(
        project,
        target,
        ignore=shutil.ignore_patterns(
            *(f"*{suffix}" for suffix in EXPECTATION_SUFFIXES), "__pycache__"
        ),
    )
    return target


@dataclass(frozen=True)
class Check:
    exit_code: int
    findings: list[dict[str, Any]]


@dataclass(frozen=True)
class FixRun:
    """``fix --write`` applied twice to a copy of a project."""

    first: Result
    after_first: dict[str, bytes]
    second: Result
    after_second: dict[str, bytes]


@dataclass(frozen=True)
class DryRun:
    """``fix`` without ``--write`` on a copy of a project."""

    result: Result
    before: dict[str, bytes]
    after: dict[str, bytes]


class Runs:
    """devlint runs on the fixture projects, each done once per session and shared."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._checks: dict[Path, Check] = {}
        self._fixes: dict[tuple[Path, Mode], FixRun] = {}
        self._dry_runs: dict[tuple[Path, Mode], DryRun] = {}

    def check(self, project: Path) -> Check:
        if project not in self._checks:
            result = invoke(project, "check", "--output-format", "json")
            self._checks[project] = Check(result.exit_code, json.loads(result.stdout))
        return self._checks[project]

    def fix(self, project: Path, mode: Mode) -> FixRun:
        key = (project, mode)
        if key not in self._fixes:
            copy = copy_project(project, self._factory.mktemp(f"fix-{mode}"))
            options = ["fix", "--write", *(["--unsafe-fixes"] if mode == "unsafe" else [])]
            first = invoke(copy, *options)
            after_first = snapshot(copy)
            second = invoke(copy, *options)
            self._fixes[key] = FixRun(first, after_first, second, snapshot(copy))
        return self._fixes[key]

    def dry_run(self, project: Path, mode: Mode) -> DryRun:
        key = (project, mode)
        if key not in self._dry_runs:
            copy = copy_project(project, self._factory.mktemp(f"diff-{mode}"))
            before = snapshot(copy)
            options = ["fix", *(["--unsafe-fixes"] if mode == "unsafe" else [])]
            result = invoke(copy, *options)
            self._dry_runs[key] = DryRun(result, before, snapshot(copy))
        return self._dry_runs[key]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(tmp_path_factory)


def apply_unified_diff(patch: str, originals: dict[str, str]) -> dict[str, str]:
    """Apply a ``git diff``-style patch (``--- a/NAME``, ``+++ b/NAME``) strictly, no fuzz.

    Returns the new text of every file the patch names. The fixtures all end with
    a newline, so ``\\ No newline at end of file`` markers are not expected.
    """
    lines = patch.splitlines(keepends=True)
    patched: dict[str, str] = {}
    index = 0
    while index < len(lines):
        header = lines[index]
        assert header.startswith("--- a/"), f"expected a file header, got {header!r}"
        name = header[len("--- a/") :].rstrip("\n")
        assert lines[index + 1] == f"+++ b/{name}\n", lines[index + 1]
        assert name in originals, f"the diff names {name}, which is not a file of the project"
        assert name not in patched, f"the diff names {name} twice"
        index += 2
        old = originals[name].splitlines(keepends=True)
        new: list[str] = []
        position = 0
        while index < len(lines) and lines[index].startswith("@@"):
            hunk = _HUNK.match(lines[index])
            assert hunk is not None, lines[index]
            removing = int(hunk["old"] or 1)
            adding = int(hunk["new"] or 1)
            start = int(hunk["start"]) - (1 if removing else 0)
            assert start >= position, "hunks out of order"
            new.extend(old[position:start])
            position = start
            index += 1
            while removing or adding:
                kind, text = lines[index][0], lines[index][1:]
                assert kind in " -+", f"{name}: not a hunk line: {lines[index]!r}"
                if kind in " -":
                    assert position < len(old) and old[position] == text, (
                        f"{name}: the diff does not match line {position + 1}: {text!r}"
                    )
                    position, removing = position + 1, removing - 1
                if kind in " +":
                    new.append(text)
                    adding -= 1
                index += 1
        new.extend(old[position:])
        patched[name] = "".join(new)
    return patched


# Parameters ------------------------------------------------------------------------------


def file_params() -> list[Any]:
    return [
        pytest.param(project, name, id=f"{project.name}/{name}")
        for project in projects()
        for name in python_files(project)
    ]


def project_params() -> list[Any]:
    return [pytest.param(project, id=project.name) for project in projects()]


def mode_file_params() -> list[Any]:
    return [
        pytest.param(mode, project, name, id=f"{mode}-{project.name}/{name}")
        for mode in ("safe", "unsafe")
        for project in projects()
        for name in python_files(project)
    ]


def mode_project_params() -> list[Any]:
    return [
        pytest.param(mode, project, id=f"{mode}-{project.name}")
        for mode in ("safe", "unsafe")
        for project in projects()
    ]


# The expectations themselves -------------------------------------------------------------


def test_fixture_projects_exist() -> None:
    assert projects(), f"no fixture project (folder with a pyproject.toml) in {FIXTURES}"
    for project in projects():
        assert python_files(project), f"{project.name} has no .py file"


@pytest.mark.parametrize("project", project_params())
def test_expectation_files_are_consistent(project: Path) -> None:
    """Each expectation belongs to a ``.py`` file and agrees with the findings it lists."""
    names = set(python_files(project))
    for path in sorted(project.rglob("*")):
        suffix = next((s for s in EXPECTATION_SUFFIXES if path.name.endswith(".py" + s)), None)
        if suffix is None:
            continue
        name = path.relative_to(project).as_posix()[: -len(suffix)]
        assert name in names, f"{path.name} has no {name} next to it"
    for name in names:
        rows = expected_findings(project, name)
        assert rows == sorted(rows), f"{name}{EXPECTED} is not sorted by position"
        fixes = {row[3] for row in rows}
        assert (project / (name + FIXED)).is_file() == ("safe" in fixes), name
        assert (project / (name + UNSAFE_FIXED)).is_file() == ("unsafe" in fixes), name


# devlint check ---------------------------------------------------------------------------


@pytest.mark.parametrize(("project", "name"), file_params())
def test_check_reports_expected_findings(runs: Runs, project: Path, name: str) -> None:
    check = runs.check(project)
    actual = sorted(as_row(f) for f in check.findings if f["filename"] == name)
    assert actual == expected_findings(project, name)


@pytest.mark.parametrize("project", project_params())
def test_check_exit_code_and_file_names(runs: Runs, project: Path) -> None:
    check = runs.check(project)
    assert {f["filename"] for f in check.findings} <= set(python_files(project))
    expect_any = any(expected_findings(project, name) for name in python_files(project))
    assert check.exit_code == (1 if expect_any else 0)


def test_checking_all_fixtures_at_once_respects_project_boundaries(runs: Runs) -> None:
    """One run over ``fixtures/`` finds what one run per project finds, nothing more."""
    together = invoke(FIXTURES, "check", "--output-format", "json")
    alone = []
    for project in projects():
        for finding in runs.check(project).findings:
            alone.append({**finding, "filename": f"{project.name}/{finding['filename']}"})

    def key(finding: dict[str, Any]) -> str:
        return json.dumps(finding, sort_keys=True)

    assert sorted(json.loads(together.stdout), key=key) == sorted(alone, key=key)


# devlint fix --write ---------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "project", "name"), mode_file_params())
def test_fix_write_gives_expected_file(runs: Runs, mode: Mode, project: Path, name: str) -> None:
    fixed = runs.fix(project, mode).after_first[name]
    assert fixed.decode("utf-8") == expected_bytes(project, name, mode).decode("utf-8")
    assert fixed == expected_bytes(project, name, mode)


@pytest.mark.parametrize(("mode", "project"), mode_project_params())
def test_fix_write_is_idempotent_and_compiles(runs: Runs, mode: Mode, project: Path) -> None:
    run = runs.fix(project, mode)
    changed = [name for name in run.after_first if run.after_second[name] != run.after_first[name]]
    assert changed == [], "a second `fix --write` changed these files"
    broken = unparsable(project)
    for name, data in run.after_second.items():
        if name not in broken:
            compile(data, name, "exec", dont_inherit=True)
    exit_code = 1 if left_after_fixing(project, mode) else 0
    assert (run.first.exit_code, run.second.exit_code) == (exit_code, exit_code)


# devlint fix (dry run) -------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "project"), mode_project_params())
def test_fix_without_write_prints_diff_only(runs: Runs, mode: Mode, project: Path) -> None:
    run = runs.dry_run(project, mode)
    assert run.after == run.before, "`fix` without --write changed files"
    originals = {name: data.decode("utf-8") for name, data in run.before.items()}
    expected = {
        name: expected_bytes(project, name, mode).decode("utf-8")
        for name in originals
        if expected_bytes(project, name, mode) != run.before[name]
    }
    assert apply_unified_diff(run.result.stdout, originals) == expected
    pending = bool(expected) or left_after_fixing(project, mode)
    assert run.result.exit_code == (1 if pending else 0)
