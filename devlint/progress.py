"""A progress bar on stderr for long runs, shown only where a person is watching.

The bar is drawn by the parent process as analyses arrive (the runner tells it);
workers never print. It is transient: once the files are analysed it disappears,
and the report is printed as if it had never been there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console

MIN_FILES = 200
"""A bar is shown for runs of more than this many files; shorter runs end before it helps."""


def wants_progress(
    files: int,
    *,
    quiet: bool,
    console: Console,
    stdout_is_terminal: bool,
    environ: Mapping[str, str],
) -> bool:
    """Whether a run of ``files`` files should show a bar on ``console`` (stderr).

    Only for a person at a terminal: never with ``--quiet``, in CI (``CI`` set, as
    every CI service does), or when stderr or stdout is not a terminal (piped
    output is read by a program, or paged).
    """
    if quiet or files <= MIN_FILES or not stdout_is_terminal:
        return False
    if environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    return console.is_terminal and not console.is_dumb_terminal


class ProgressBar:
    """The runner's progress, drawn with rich; use as a context manager.

    It counts files: its total is the number of files the run checks, known before
    it starts, and each file advances it once, whether its analysis was read from
    the cache or made (the few files a run analyses again do not count twice).
    """

    def __init__(self, console: Console, total: int) -> None:
        # Here: most runs (piped, CI, a warm cache) show no bar and need not import it.
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("Checking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._bar.add_task("check", total=total)

    def advance(self) -> None:
        self._bar.advance(self._task)

    @property
    def completed(self) -> int:
        return int(self._bar.tasks[0].completed)

    @property
    def total(self) -> int:
        return int(self._bar.tasks[0].total or 0)

    def __enter__(self) -> ProgressBar:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._bar.stop()


@contextmanager
def progress_for(
    files: int,
    *,
    quiet: bool,
    console: Console | None = None,
    stdout_is_terminal: bool | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[ProgressBar | None]:
    """A bar for a run of ``files`` files when one is wanted (see ``wants_progress``), else None."""
    console = console if console is not None else Console(stderr=True)
    if stdout_is_terminal is None:
        stdout_is_terminal = sys.stdout.isatty()
    wanted = wants_progress(
        files,
        quiet=quiet,
        console=console,
        stdout_is_terminal=stdout_is_terminal,
        environ=os.environ if environ is None else environ,
    )
    if not wanted:
        yield None
        return
    with ProgressBar(console, files) as bar:
        yield bar
