"""An editor's buffer, read from stdin: ``devlint check - --stdin-filename PATH``.

The buffer is checked as the file PATH would be: PATH's configuration,
``per-file-ignores`` and project apply, and findings name PATH (which need not
exist yet). Without ``--stdin-filename`` it is named ``-`` and configured from
the working directory.

**The buffer is checked in its project.** devlint's findings depend on other
files: a class is model code because of a base class defined elsewhere, DEV004
follows processor output through functions in other modules, DEV005 asks whether
any file trains distributed. Checking the buffer alone would miss those findings
and report different things in the editor than ``devlint check`` does in CI. So
when PATH is inside a project (a folder with ``pyproject.toml``, ``setup.py``,
``setup.cfg`` or ``.git``), the project's other files are read from disk and
analysed with it, with the buffer standing in for PATH's contents; only the
buffer's findings are reported. The cache makes this cheap after the first run:
the other files are not parsed again until they change. A buffer outside any
project (or named ``-``) is checked alone, rather than walking whatever folder
the editor was started in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from devlint.config import Config
from devlint.discovery import PROJECT_MARKERS, discover_files, find_project_root
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


def files_around(buffer: StdinBuffer, config_for: Callable[[Path], Config]) -> list[Path]:
    """What to analyse with the buffer: its project's other files on disk, and its own path."""
    if not buffer.named:
        return [buffer.path]
    root = find_project_root(buffer.path)
    if not any((root / marker).exists() for marker in PROJECT_MARKERS):
        return [buffer.path]
    own = os.path.realpath(buffer.path)
    # Spelled as `devlint check .` from there would, so the cache entries are shared.
    top = root if Path.cwd() not in (root, *root.parents) else Path(os.path.relpath(root))
    others = [
        path
        for path in discover_files([top], config_for)
        if os.path.realpath(path) != own and find_project_root(path) == root
    ]
    return [*others, buffer.path]


def buffer_result(
    projects: Sequence[Project], buffer: StdinBuffer
) -> tuple[Project, FileResult] | None:
    """The buffer's project and result; None when ``--force-exclude`` left it out."""
    for project in projects:
        for result in project.files:
            if result.path == buffer.path:
                return project, result
    return None


def adopt(projects: Sequence[Project], runner: Runner, buffer: StdinBuffer) -> None:
    """Make the buffer what is checked at its path (the file on disk, if any, is not read)."""
    found = buffer_result(projects, buffer)
    if found is not None:
        found[1]._original = buffer.data
        runner.buffers[found[1].job.path] = buffer.data
