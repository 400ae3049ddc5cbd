"""An editor's buffer, read from stdin: ``devlint check - --stdin-filename PATH``.

The buffer is checked as the file PATH would be: PATH's configuration,
``per-file-ignores`` and project apply, and findings name PATH (which need not
exist yet). Without ``--stdin-filename`` it is named ``-`` and configured from
the working directory.

The buffer is checked in its project, as any named file is (``discovery``): the
project's other files are read from disk and analysed with it, the buffer standing
in for PATH's contents, and only the buffer's findings are reported. A buffer
outside any project (or named ``-``) is checked alone, rather than walking
whatever folder the editor was started in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from devlint.config import Config
from devlint.discovery import Discovery, discover
from devlint.engine import FileResult, Project
from devlint.runner import Runner

STDIN = Path("-")
"""The path argument that means stdin, and the name of an unnamed buffer."""


@dataclass(frozen=True)
class StdinBuffer:
    """Source read from stdin, and the path it is checked as."""

    path: Path
    data: bytes

    @property
    def named(self) -> bool:
        return self.path != STDIN


def discover_buffer(
    buffer: StdinBuffer,
    config_for: Callable[[Path], Config],
    *,
    force_exclude: bool,
    respect_gitignore: bool | None,
) -> Discovery:
    """What to analyse with the buffer: its path and the rest of its project."""
    if not buffer.named:
        return Discovery([buffer.path], frozenset({buffer.path}), excluded=0, gitignored=0)
    return discover(
        [buffer.path],
        config_for,
        force_exclude=force_exclude,
        respect_gitignore=respect_gitignore,
        unsaved=True,
    )


def buffer_result(projects: Sequence[Project]) -> tuple[Project, FileResult] | None:
    """The buffer's project and result (the only file in view); None when
    ``--force-exclude`` left it out."""
    viewed = ((project, result) for project in projects for result in project.viewed())
    return next(viewed, None)


def adopt(projects: Sequence[Project], runner: Runner, buffer: StdinBuffer) -> None:
    """Make the buffer what is checked at its path (the file on disk, if any, is not read)."""
    found = buffer_result(projects)
    if found is not None:
        found[1]._original = buffer.data
        runner.buffers[found[1].job.path] = buffer.data
