"""Workers and the cache change how fast devlint is, never what it finds."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from devlint import analysis, runner
from devlint.analysis import FileAnalysis, FileJob
from devlint.cache import Cache
from devlint.cli import main
from devlint.rules.base import RuleSettings


def findings(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.fixture
def fixtures_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, copy)
    monkeypatch.chdir(copy)
    return copy


@pytest.mark.usefixtures("workers_for_any_work")
def test_same_findings_with_one_or_two_workers_and_with_a_cold_or_warm_cache(
    fixtures_copy: Path, tmp_path: Path
) -> None:
    serial = findings("--no-cache", "--jobs", "1", ".")
    assert serial
    assert findings("--no-cache", "--jobs", "2", ".") == serial
    cache = tmp_path / "cache"
    assert findings("--cache-dir", str(cache), ".") == serial
    entries = [p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert entries
    assert findings("--cache-dir", str(cache), ".") == serial


@pytest.mark.usefixtures("workers_for_any_work")
def test_warm_run_reads_every_file_from_the_cache(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for number in range(6):
        (project / f"m{number}.py").write_text("import torch\nx = torch.zeros(3)\n")
    cache = Cache(tmp_path / "cache")
    jobs = [
        (
            FileJob(str(path), path.name, path.name, path.stem, False, ("DEV001",), RuleSettings()),
            cache,
        )
        for path in sorted(project.glob("*.py"))
    ]
    with runner.Runner(2) as cold:
        first = cold.analyze(jobs)
    assert (cold.stats.cached, cold.stats.analysed) == (0, 6)
    with runner.Runner(2) as warm:
        assert warm.analyze(jobs) == first
    assert (warm.stats.cached, warm.stats.analysed) == (6, 0)
    (project / "m0.py").write_text("import torch\nx = torch.ones(3)\n")
    with runner.Runner(2) as edited:
        edited.analyze(jobs)
    assert (edited.stats.cached, edited.stats.analysed) == (5, 1)


def test_corrupt_cache_entries_are_misses(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache")
    job = FileJob("m.py", "m.py", "m.py", "m", False, (), RuleSettings())
    key = Cache.key(job, b"x = 1\n")
    cache.put(key, FileAnalysis())
    assert cache.get(key) == FileAnalysis()
    entry = tmp_path / "cache" / key[:2] / key[2:]
    entry.write_bytes(b"not a pickle")
    assert cache.get(key) is None
    assert (tmp_path / "cache" / ".gitignore").read_text().endswith("*\n")


def crash_on_marker(job: FileJob, data: bytes) -> FileAnalysis:
    """Stands in for a parser crash: the worker process dies on this file."""
    if b"CRASH" in data:
        os._exit(70)
    return analysis.analyze_bytes(job, data)


@pytest.mark.usefixtures("workers_for_any_work")
def test_a_worker_crash_costs_only_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "analyze_bytes", crash_on_marker)
    paths = []
    for number in range(5):
        path = tmp_path / f"m{number}.py"
        path.write_text("# CRASH\n" if number == 2 else "x = 1\n")
        paths.append(path)
    jobs = [
        (FileJob(str(p), p.name, p.name, p.stem, False, (), RuleSettings()), None) for p in paths
    ]
    with runner.Runner(2) as run:
        results = run.analyze(jobs)
        # Later passes start new workers, since the crash took the pool down.
        again = run.analyze(jobs[:4])
    crashed = "cannot parse: the parser crashed on this file"
    assert [r.error.message if r.error else None for r in results] == [
        None,
        None,
        crashed,
        None,
        None,
    ]
    assert [r.error.message if r.error else None for r in again] == [None, None, crashed, None]
    assert run.stats.crashed == 2


def report_worker(job: FileJob, data: bytes) -> FileAnalysis:
    """Stands in for an analysis: says which process made it (taking long enough that
    every worker of the pool gets files)."""
    time.sleep(0.05)
    return FileAnalysis(error=analysis.syntax_error_finding(job.display, str(os.getpid())))


def _small_files(folder: Path, count: int) -> list[tuple[FileJob, None]]:
    paths = [folder / f"m{number}.py" for number in range(count)]
    for path in paths:
        path.write_text("x = 1\n")
    return [
        (FileJob(str(p), p.name, p.name, p.stem, False, (), RuleSettings()), None) for p in paths
    ]


def test_later_passes_reuse_the_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A later pass goes to the running workers, even one of two files only."""
    monkeypatch.setattr(runner, "analyze_bytes", report_worker)
    jobs = _small_files(tmp_path, 8)
    with runner.Runner(2) as run:
        with monkeypatch.context() as big:  # as if the first pass were worth the workers
            big.setattr(runner, "_POOL_START_BYTES", 0)
            first = {r.error.message for r in run.analyze(jobs) if r.error}
        second = {r.error.message for r in run.analyze(jobs) if r.error}
        third = {r.error.message for r in run.analyze(jobs[:2]) if r.error}
    assert str(os.getpid()) not in first and len(first) <= 2
    assert second <= first and third <= first  # new workers would have new process ids


def test_a_few_small_files_are_analysed_without_starting_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "analyze_bytes", report_worker)
    jobs = _small_files(tmp_path, 8)
    with runner.Runner(2) as run:
        made_by = {r.error.message for r in run.analyze(jobs) if r.error}
    assert made_by == {str(os.getpid())}


def test_cache_keys_are_the_same_in_every_process(tmp_path: Path) -> None:
    """Set order follows the per-process string hash; a key must not."""
    script = (
        "from devlint.analysis import FileJob\n"
        "from devlint.cache import Cache\n"
        "from devlint.rules.base import RuleSettings\n"
        "names = frozenset(f'function_{n}' for n in range(20))\n"
        "settings = RuleSettings(processor_names=names, returning_output=names)\n"
        "job = FileJob('m.py', 'm.py', 'm.py', 'm', False, ('DEV004',), settings)\n"
        "print(Cache.key(job, b''))\n"
    )
    keys = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(keys) == 1


def test_the_run_collects_garbage_as_the_workers_do_and_restores_the_setting() -> None:
    """The parent holds every file's analysis for the whole run: Python's default setting
    made it walk them in a full collection again and again (8 in a cold run of the bench
    corpus)."""
    saved = gc.get_threshold()
    with runner.Runner(1):
        assert gc.get_threshold() == runner._PARSING_GC_THRESHOLD
    assert gc.get_threshold() == saved
