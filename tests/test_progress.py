"""The progress bar: only for a person at a terminal, drawn by the parent as files finish."""

from __future__ import annotations

import functools
import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from devlint import cli, progress
from devlint.analysis import FileJob
from devlint.progress import MIN_FILES, ProgressBar, progress_for, wants_progress
from devlint.rules.base import RuleSettings
from devlint.runner import Runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def terminal() -> tuple[Console, io.StringIO]:
    """A console that behaves as a terminal, writing to a buffer the test can read."""
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=100, _environ={}), buffer


def wanted(
    files: int = MIN_FILES + 1,
    *,
    quiet: bool = False,
    console: Console | None = None,
    stdout_is_terminal: bool = True,
    environ: dict[str, str] | None = None,
) -> bool:
    return wants_progress(
        files,
        quiet=quiet,
        console=console or terminal()[0],
        stdout_is_terminal=stdout_is_terminal,
        environ=environ or {},
    )


def test_shown_for_many_files_at_a_terminal() -> None:
    assert wanted()
    assert not wanted(MIN_FILES)
    assert MIN_FILES == 200


def test_never_with_quiet_in_ci_or_when_piped() -> None:
    assert not wanted(quiet=True)
    assert not wanted(environ={"CI": "true"})
    assert not wanted(environ={"CI": "1"})
    assert wanted(environ={"CI": ""})
    assert wanted(environ={"CI": "false"})
    assert not wanted(stdout_is_terminal=False)
    piped = Console(file=io.StringIO(), _environ={})
    assert not wanted(console=piped)
    dumb = Console(file=io.StringIO(), force_terminal=True, _environ={"TERM": "dumb"})
    assert not wanted(console=dumb)


def test_progress_for_yields_nothing_when_not_wanted() -> None:
    console, buffer = terminal()
    with progress_for(10, quiet=False, console=console, stdout_is_terminal=True, environ={}) as bar:
        assert bar is None
    assert buffer.getvalue() == ""


def jobs(folder: Path, count: int) -> list[tuple[FileJob, None]]:
    folder.mkdir(exist_ok=True)
    made = []
    for number in range(count):
        path = folder / f"m{number}.py"
        path.write_text("x = 1\n")
        made.append(
            (FileJob(str(path), path.name, path.name, path.stem, False, (), RuleSettings()), None)
        )
    return made


@pytest.mark.usefixtures("workers_for_any_work")
@pytest.mark.parametrize("workers", [1, 2])
def test_the_runner_advances_the_bar_once_per_file(tmp_path: Path, workers: int) -> None:
    console, buffer = terminal()
    work = jobs(tmp_path / "src", 12)
    with progress_for(12, quiet=False, console=console, stdout_is_terminal=True, environ={}) as bar:
        assert bar is None  # 12 files: too few for a bar
    with ProgressBar(console, 12) as bar:
        assert (bar.completed, bar.total) == (0, 12)  # the total is known from the start
        with Runner(workers) as runner:
            runner.progress = bar
            runner.analyze(work)
            assert (bar.completed, bar.total) == (12, 12)
            runner.analyze(work[:3])  # a second pass over some files: they are done already
            assert (bar.completed, bar.total) == (12, 12)
    shown = buffer.getvalue()
    assert "Checking" in shown
    assert "12/12" in shown


def test_cached_files_advance_the_bar_too(tmp_path: Path) -> None:
    from devlint.cache import Cache

    cache = Cache(tmp_path / "cache")
    work = [(job, cache) for job, _ in jobs(tmp_path / "src", 5)]
    Runner(1).analyze(work)
    console, _ = terminal()
    with ProgressBar(console, 5) as bar:
        runner = Runner(1)
        runner.progress = bar
        runner.analyze(work)
        assert runner.stats.cached == 5
        assert bar.completed == 5


class RecordingBar(ProgressBar):
    """A bar that remembers (completed, total) after every step."""

    def __init__(self, console: Console, total: int) -> None:
        super().__init__(console, total)
        self.steps = [(self.completed, self.total)]

    def advance(self) -> None:
        super().advance()
        self.steps.append((self.completed, self.total))


@pytest.mark.parametrize("cached", [False, True])
def test_the_bar_counts_the_files_checked_monotonically(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, cached: bool
) -> None:
    """multifile_package is analysed in several passes (11 analyses of 7 files); a warm
    check reads the project's findings from the cache without analysing anything."""
    shutil.copytree(FIXTURES / "multifile_package", in_tmp / "p")
    bars: list[RecordingBar] = []

    def recording(console: Console, total: int) -> RecordingBar:
        bars.append(RecordingBar(console, total))
        return bars[-1]

    console, _ = terminal()
    forced = functools.partial(progress_for, console=console, stdout_is_terminal=True, environ={})
    monkeypatch.setattr(cli, "progress_for", forced)
    monkeypatch.setattr(progress, "MIN_FILES", 0)
    monkeypatch.setattr(progress, "ProgressBar", recording)
    cache = [] if cached else ["--no-cache"]
    if cached:
        CliRunner().invoke(cli.main, ["check", "p"])
        bars.clear()
    result = CliRunner().invoke(cli.main, ["check", "--debug", *cache, "p"])
    assert result.exit_code == 1
    assert "devlint: 7 files:" in result.stderr
    made = "0 analyses made, 7 from cache" if cached else "11 analyses made, 0 from cache"
    assert made in result.stderr
    (bar,) = bars
    assert bar.steps == [(done, 7) for done in range(8)]


def test_the_cli_draws_the_bar_on_stderr_only(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for number in range(4):
        (in_tmp / f"m{number}.py").write_text("x = 1\n")
    console, buffer = terminal()
    forced = functools.partial(progress_for, console=console, stdout_is_terminal=True, environ={})
    monkeypatch.setattr(cli, "progress_for", forced)
    monkeypatch.setattr(progress, "MIN_FILES", 3)
    result = CliRunner().invoke(cli.main, ["check", "--no-cache", "."])
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")
    assert "4/4" in buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    quiet = CliRunner().invoke(cli.main, ["check", "--no-cache", "--quiet", "."])
    assert quiet.exit_code == 0
    assert buffer.getvalue() == ""
