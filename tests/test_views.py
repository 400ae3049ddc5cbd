"""A path is a view on its project: a file's findings do not depend on how it was named.

Checking a file, a folder or a buffer on stdin analyses the file's whole project and
reports the named files only; ``fix --write`` writes only them. A run that checks no
file says so on stderr.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import FIXTURES

from devlint.cli import main
from devlint.config import DEFAULT_EXCLUDE
from devlint.discovery import PROJECT_MARKERS, SOURCE_SUFFIXES

Finding = dict[str, Any]

BASE = "import pytorch_lightning as pl\n\n\nclass Base(pl.LightningModule):\n    pass\n"
MODEL = (
    "from base import Base\n\n\nclass Model(Base):\n"
    "    def forward(self, x):\n        return x.cuda()\n"
)
MODEL_FIXED = MODEL.replace("x.cuda()", "x.to(self.device)")
OTHER = MODEL.replace("Model", "Other")
NO_FILE = "devlint: warning: no file checked: no .py or .ipynb file to check in the given paths"


def fixture_projects() -> list[Path]:
    """Every project under ``fixtures/``: a folder holding a project marker."""
    return sorted(
        {
            marker.parent
            for name in PROJECT_MARKERS
            for marker in FIXTURES.rglob(name)
            if not set(marker.relative_to(FIXTURES).parts) & set(DEFAULT_EXCLUDE)
        }
    )


def sources(project: Path) -> list[str]:
    """The project's source files (those of projects nested in it excluded), POSIX, relative."""
    nested = [p for p in fixture_projects() if project in p.parents]
    return sorted(
        path.relative_to(project).as_posix()
        for path in project.rglob("*")
        if path.name.endswith(SOURCE_SUFFIXES)
        and "__pycache__" not in path.parts
        and not any(folder in path.parents for folder in nested)
    )


def folders(project: Path) -> list[str]:
    """Every folder of the project below its root that holds a source file."""
    above = (name.split("/")[:-1] for name in sources(project))
    return sorted(
        {"/".join(parts[:depth]) + "/" for parts in above for depth in range(1, len(parts) + 1)}
    )


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run(where: Path, *args: str, input: bytes | None = None) -> Result:
    with working_directory(where):
        return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def json_check(where: Path, *args: str, input: bytes | None = None) -> list[Finding]:
    result = run(where, "check", "--output-format", "json", "--jobs", "1", *args, input=input)
    findings: list[Finding] = json.loads(result.stdout)
    assert result.exit_code == (1 if findings else 0), result.output
    return findings


_WHOLE: dict[Path, list[Finding]] = {}


def whole(project: Path) -> list[Finding]:
    """``devlint check .`` at the project's root, without a cache: the reference."""
    if project not in _WHOLE:
        _WHOLE[project] = json_check(project, "--no-cache", ".")
        named = {finding["filename"] for finding in _WHOLE[project]}
        assert named <= set(sources(project)), named
    return _WHOLE[project]


def of(findings: list[Finding], name: str) -> list[Finding]:
    return [finding for finding in findings if finding["filename"] == name]


@pytest.fixture(scope="module")
def caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache per fixture project shared by its views: they must not disturb each other."""
    return tmp_path_factory.mktemp("view-caches")


def cache_of(caches: Path, project: Path) -> str:
    return str(caches / project.relative_to(FIXTURES).as_posix().replace("/", "-"))


def file_params() -> list[Any]:
    return [
        pytest.param(project, name, id=f"{project.relative_to(FIXTURES)}/{name}")
        for project in fixture_projects()
        for name in sources(project)
    ]


def folder_params() -> list[Any]:
    return [
        pytest.param(project, folder, id=f"{project.relative_to(FIXTURES)}/{folder}")
        for project in fixture_projects()
        for folder in folders(project)
    ]


def test_the_fixtures_have_projects_files_and_folders() -> None:
    assert len(fixture_projects()) >= 10
    assert all(sources(project) for project in fixture_projects())
    assert "src/detpkg/models/" in folders(FIXTURES / "multifile_package")
    assert sum(len(of(whole(p), n)) for p in fixture_projects() for n in sources(p)) >= 40


@pytest.mark.parametrize(("project", "name"), file_params())
def test_a_file_checked_alone_has_its_findings_from_the_whole_project(
    caches: Path, project: Path, name: str
) -> None:
    alone = json_check(project, "--cache-dir", cache_of(caches, project), name)
    assert alone == of(whole(project), name)


@pytest.mark.parametrize(("project", "name"), file_params())
def test_a_file_read_from_stdin_has_its_findings_from_the_whole_project(
    caches: Path, project: Path, name: str
) -> None:
    data = (project / name).read_bytes()
    options = ("--cache-dir", cache_of(caches, project), "-", "--stdin-filename", name)
    assert json_check(project, *options, input=data) == of(whole(project), name)


@pytest.mark.parametrize(("project", "name"), file_params())
def test_a_file_named_from_its_own_folder_has_the_same_findings(project: Path, name: str) -> None:
    """From inside the project the root is spelled absolute; the findings do not change."""
    folder, _, base = name.rpartition("/")
    here = json_check(project / folder, "--no-cache", base)
    expected = [{**f, "filename": base} for f in of(whole(project), name)]
    assert here == expected


@pytest.mark.parametrize(("project", "folder"), folder_params())
def test_a_folder_checked_alone_has_its_files_findings_from_the_whole_project(
    caches: Path, project: Path, folder: str
) -> None:
    below = [f for f in whole(project) if f["filename"].startswith(folder)]
    assert json_check(project, "--cache-dir", cache_of(caches, project), folder) == below


def test_the_detector_of_the_issue_has_its_six_findings() -> None:
    """The report: alone, ``detector.py`` said "All checks passed!"; its folder, 1 of 10."""
    project = FIXTURES / "multifile_package"
    alone = json_check(project, "--no-cache", "src/detpkg/models/detector.py")
    assert [(f["code"], f["location"]["row"]) for f in alone] == [
        ("DEV002", 13),
        ("DEV001", 18),
        ("DEV002", 24),
        ("DEV003", 26),
        ("DEV003", 26),
        ("DEV001", 31),
    ]
    assert len(json_check(project, "--no-cache", "src/detpkg/models/")) == 10


def test_several_projects_in_one_run_each_see_their_own(tmp_path: Path) -> None:
    """Two projects whose ``base.py`` differ: a file's model code is its own project's."""
    for name, base in (("a", BASE), ("b", "class Base:\n    pass\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
        (tmp_path / name / "base.py").write_text(base)
        (tmp_path / name / "model.py").write_text(MODEL)
    findings = json_check(tmp_path, "--no-cache", "a/model.py", "b/model.py")
    assert [(f["filename"], f["code"]) for f in findings] == [("a/model.py", "DEV002")]


def test_a_file_in_no_project_is_checked_alone(tmp_path: Path) -> None:
    """No marker above it: its folder is not a project, so ``base.py`` beside it is not read."""
    loose = tmp_path / "loose"
    loose.mkdir()
    if any((folder / m).exists() for folder in loose.parents for m in PROJECT_MARKERS):
        pytest.skip("the temporary folder lies inside a project")
    (loose / "base.py").write_text(BASE)
    (loose / "model.py").write_text(MODEL)
    assert json_check(loose, "--no-cache", "model.py") == []
    assert [f["code"] for f in json_check(loose, "--no-cache", ".")] == ["DEV002"]


def make_project(root: Path, config: str = "") -> Path:
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n' + config)
    (root / "base.py").write_text(BASE)
    (root / "model.py").write_text(MODEL)
    (root / "other.py").write_text(OTHER)
    return root


def test_per_file_ignores_apply_to_a_file_named_alone(in_tmp: Path) -> None:
    make_project(in_tmp, '\n[tool.devlint.per-file-ignores]\n"tests/*" = ["DEV002"]\n')
    (in_tmp / "tests").mkdir()
    (in_tmp / "tests" / "test_model.py").write_text(MODEL)
    assert json_check(in_tmp, "--no-cache", "tests/test_model.py") == []
    assert [f["filename"] for f in json_check(in_tmp, "--no-cache", "model.py")] == ["model.py"]


def test_excluded_files_are_not_context_and_named_ones_follow_force_exclude(
    in_tmp: Path,
) -> None:
    """An excluded base class is not read for the others, as in ``check .``; excluded
    files named together are checked together (without ``--force-exclude``)."""
    make_project(in_tmp, '\n[tool.devlint]\nextend-exclude = ["legacy/"]\n')
    (in_tmp / "legacy").mkdir()
    (in_tmp / "base.py").rename(in_tmp / "legacy" / "base.py")
    (in_tmp / "model.py").write_text(MODEL.replace("from base", "from legacy.base"))
    (in_tmp / "legacy" / "old.py").write_text(MODEL)
    assert json_check(in_tmp, "--no-cache", "model.py") == []
    assert json_check(in_tmp, "--no-cache", ".") == []
    named = json_check(in_tmp, "--no-cache", "legacy/base.py", "legacy/old.py")
    assert [(f["filename"], f["code"]) for f in named] == [("legacy/old.py", "DEV002")]
    options = ("check", "--no-cache", "--force-exclude", "legacy/base.py", "legacy/old.py")
    forced = run(in_tmp, *options)
    assert (forced.exit_code, forced.stdout) == (0, "")
    assert forced.stderr == f"{NO_FILE} (2 given paths excluded by `exclude`)\n"


def test_a_view_and_the_whole_run_share_the_findings_cache_without_poisoning(
    in_tmp: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    make_project(in_tmp)
    cache = str(tmp_path_factory.mktemp("cache"))
    every = json_check(in_tmp, "--no-cache", ".")
    assert [f["filename"] for f in every] == ["model.py", "other.py"]
    assert json_check(in_tmp, "--cache-dir", cache, "model.py") == of(every, "model.py")
    assert json_check(in_tmp, "--cache-dir", cache, ".") == every
    assert json_check(in_tmp, "--cache-dir", cache, "other.py") == of(every, "other.py")
    (in_tmp / "base.py").write_text("class Base:\n    pass\n")  # no longer model code
    assert json_check(in_tmp, "--cache-dir", cache, "model.py") == []
    assert json_check(in_tmp, "--cache-dir", cache, ".") == []


def test_fix_write_on_a_file_writes_only_that_file(in_tmp: Path) -> None:
    make_project(in_tmp)
    result = run(in_tmp, "fix", "--write", "--no-cache", "model.py")
    assert result.exit_code == 0, result.output
    assert (in_tmp / "model.py").read_text() == MODEL_FIXED
    assert (in_tmp / "other.py").read_text() == OTHER  # it has a fix too, but was not named
    diff = run(in_tmp, "fix", "--no-cache", "other.py")
    assert (diff.exit_code, diff.stdout.count("+++ b/")) == (1, 1)
    assert "+++ b/other.py" in diff.stdout


def test_fix_write_on_a_fixture_file_gives_its_fixed_file_and_touches_no_other(
    tmp_path: Path,
) -> None:
    project = shutil.copytree(FIXTURES / "multifile_package", tmp_path / "multifile_package")
    name = "src/detpkg/models/detector.py"
    before = {n: (project / n).read_bytes() for n in sources(project)}
    assert any(of(whole(FIXTURES / "multifile_package"), n) for n in before if n != name)
    run(project, "fix", "--write", "--no-cache", name)
    after = {n: (project / n).read_bytes() for n in sources(project)}
    assert after[name] == (FIXTURES / "multifile_package" / f"{name}.fixed").read_bytes()
    assert {n: b for n, b in after.items() if n != name} == {
        n: b for n, b in before.items() if n != name
    }


def gitignored_project(root: Path) -> Path:
    """A repository whose ``scratch/`` folder .gitignore ignores; the model is there."""
    root.mkdir(exist_ok=True)
    make_project(root)
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("scratch/\n")
    (root / "scratch").mkdir()
    (root / "model.py").rename(root / "scratch" / "model.py")
    (root / "other.py").unlink()
    return root


def test_a_run_that_checks_no_file_says_why_on_stderr_and_exits_0(in_tmp: Path) -> None:
    gitignored_project(in_tmp)
    ignored = f"{NO_FILE} (1 path ignored by .gitignore, which --no-respect-gitignore checks)\n"
    for where, args in ((in_tmp, ("scratch",)), (in_tmp / "scratch", ())):
        result = run(where, "check", "--no-cache", *args)
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", ignored)
        as_json = run(where, "check", "--no-cache", "--output-format", "json", *args)
        assert (as_json.exit_code, as_json.stdout, as_json.stderr) == (0, "[]\n", ignored)
        quiet = run(where, "check", "--no-cache", "--quiet", *args)
        assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    for fix in (("fix",), ("fix", "--write"), ("fix", "--statistics")):
        result = run(in_tmp, *fix, "--no-cache", "scratch")
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", ignored)
    (in_tmp / "empty").mkdir()
    empty = run(in_tmp, "check", "--no-cache", "empty")
    assert (empty.exit_code, empty.stdout, empty.stderr) == (0, "", f"{NO_FILE}\n")


def test_no_respect_gitignore_checks_the_ignored_files(in_tmp: Path) -> None:
    flag, setting = gitignored_project(in_tmp / "flag"), gitignored_project(in_tmp / "setting")
    for args in (("--no-respect-gitignore", "scratch"), ("--no-respect-gitignore", ".")):
        findings = json_check(flag, "--no-cache", *args)
        assert [(f["filename"], f["code"]) for f in findings] == [("scratch/model.py", "DEV002")]
    (setting / "pyproject.toml").write_text("[tool.devlint]\nrespect-gitignore = false\n")
    assert len(json_check(setting, "--no-cache", ".")) == 1
    assert json_check(setting, "--no-cache", "--respect-gitignore", ".") == []
