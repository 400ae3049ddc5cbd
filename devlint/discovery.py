"""Which files a run checks, and which project each one belongs to.

A path is a view on its project: findings depend on other files of the project
(a base class, a function returning processor output, a distributed trainer), so
a run reads the whole project of every file its paths name, and reports and
fixes only the named ones. A file's findings do not depend on how it was named.

Walking is where a linter wastes most time on large repositories, so excluded,
gitignored and virtualenv folders are pruned before they are entered, each
folder is listed once, and each ``.gitignore`` is compiled once per run.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pathspec import GitIgnoreSpec

from devlint.config import Config

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
PACKAGE_MODULE_MARKERS = ("setup.py", "setup.cfg")
"""Markers that, in a subpackage (an ``__init__.py`` there and in the folder above), are a
module of the package (``apps/setup.py`` holding a training set-up) or the build script of
an extension built in place, not a project's root: the project is the folder above, so its
imports of them resolve. A top-level package holding one is a project of its own."""
SOURCE_SUFFIXES = (".py", ".ipynb")

# A compiled .gitignore paired with the walked folder's path relative to the
# .gitignore's folder ("" for that folder itself, else ending in "/").
_Ignores = tuple[tuple[GitIgnoreSpec, str], ...]


class DiscoveryError(Exception):
    """A path given by the user cannot be checked; the message names it."""


def find_project_root(path: Path) -> Path:
    """The absolute project folder of ``path``: the nearest one holding a marker, else cwd."""
    return _project_of(path) or Path.cwd()


def _project_of(path: Path) -> Path | None:
    """The nearest folder above ``path`` holding a marker (None: the path is in no project)."""
    start = path if path.is_dir() else path.parent
    return _marked_folder(Path(os.path.abspath(start)))


_NEAREST: dict[Path, Path | None] = {}
"""The project folder of each folder seen (None: no marker up to the root)."""


def _marked_folder(directory: Path) -> Path | None:
    """The nearest folder from ``directory`` up holding a marker, memoised per folder.

    A loop, not recursion: folders can nest deeper than Python's recursion limit.
    """
    passed: list[Path] = []
    folder, found = directory, None
    while True:
        if folder in _NEAREST:
            found = _NEAREST[folder]
            break
        passed.append(folder)
        if marks_a_project(folder):
            found = folder
            break
        if folder.parent == folder:
            break
        folder = folder.parent
    for seen in passed:
        _NEAREST[seen] = found
    return found


@functools.cache
def marks_a_project(folder: Path) -> bool:
    """``folder`` holds a project marker (``PROJECT_MARKERS``; memoised per folder: every
    file of a project asks about the same few folders)."""
    markers = [marker for marker in PROJECT_MARKERS if (folder / marker).exists()]
    if (folder / "__init__.py").exists() and (folder.parent / "__init__.py").exists():
        return any(marker not in PACKAGE_MODULE_MARKERS for marker in markers)
    return bool(markers)


@dataclass(frozen=True)
class Discovery:
    """What a run analyses: the files its paths name, and the rest of their projects."""

    files: list[Path]
    """Every file to analyse, sorted, each project's spelled from its root as
    ``devlint check`` there would (so a view and the whole run share cache entries)."""
    named: frozenset[Path]
    """Those of ``files`` the paths name: the only ones reported and fixed."""
    excluded: int
    """Paths given that ``exclude`` drops (a folder; a file with ``--force-exclude``)."""
    gitignored: int
    """Files and folders below the given folders skipped because ``.gitignore`` ignores them."""


def discover(
    paths: Sequence[Path],
    config_for: Callable[[Path], Config],
    *,
    force_exclude: bool = False,
    respect_gitignore: bool | None = None,
    unsaved: bool = False,
) -> Discovery:
    """The files ``paths`` name (see ``discover_files``) with the rest of their projects.

    ``respect_gitignore`` overrides the configuration's ``respect-gitignore``.
    ``unsaved``: a path that does not exist is a file to be (an editor's buffer).
    A file in no project (no marker above it) is analysed alone, as named.
    """
    walker = _Walker(config_for, respect_gitignore)
    named, excluded = _named_files(paths, walker, config_for, force_exclude, unsaved)
    gitignored = walker.gitignored  # below the given folders (the projects' walks skip more)
    files: dict[str, Path] = {}
    view: set[Path] = set()
    spelled: dict[Path, Path] = {}  # each project's root, spelled for the walk
    for path in named:
        root = _project_of(path)
        if root is not None and root not in spelled:
            spelled[root] = _spelling(root)
            for file in walker.files_under(spelled[root]):
                if _marked_folder(Path(os.path.abspath(file.parent))) == root:
                    files.setdefault(walker.real(file), file)
        if root is not None:
            path = spelled[root] / Path(os.path.abspath(path)).relative_to(root)
        view.add(files.setdefault(walker.real(path), path))
    return Discovery(sorted(files.values()), frozenset(view), excluded, gitignored)


def _spelling(root: Path) -> Path:
    """How ``devlint check`` from the working directory spells a project's root: relative
    when the working directory is the root or above it, else absolute."""
    return Path(os.path.relpath(root)) if Path.cwd() in (root, *root.parents) else root


def discover_files(
    paths: Sequence[Path], config_for: Callable[[Path], Config], *, force_exclude: bool = False
) -> list[Path]:
    """Files to check under ``paths``, sorted and deduplicated, spelled as the caller spelled them.

    An explicit file is kept whatever its suffix and even when gitignored or
    excluded (the user named it), as in ruff; with ``force_exclude`` (what the
    pre-commit hooks pass along with every file name) ``exclude`` applies to it too.
    A file reached twice, through a symlink or two spellings, is checked once.
    """
    return _named_files(paths, _Walker(config_for), config_for, force_exclude)[0]


def _named_files(
    paths: Sequence[Path],
    walker: _Walker,
    config_for: Callable[[Path], Config],
    force_exclude: bool,
    unsaved: bool = False,
) -> tuple[list[Path], int]:
    """``discover_files``, and how many of the paths ``exclude`` dropped."""
    found: dict[str, Path] = {}
    excluded = 0
    for path in paths:
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            if not unsaved:
                raise DiscoveryError(f"path '{path}' does not exist") from None
            is_dir = False
        except OSError:
            is_dir = False  # unreadable: the checker reports it as a DEV000 finding
        if (is_dir or force_exclude) and _explicitly_excluded(path, is_dir, config_for):
            excluded += 1
            continue
        for file in walker.files_under(path) if is_dir else [path]:
            found.setdefault(walker.real(file), file)
    return sorted(found.values()), excluded


def _explicitly_excluded(path: Path, is_dir: bool, config_for: Callable[[Path], Config]) -> bool:
    """Whether ``exclude`` drops a path the user named, or one of its folders.

    Only folders strictly inside the path's project count: the project folder
    and those above it are where the project lives, not what it contains.
    """
    project = find_project_root(path)
    current, current_is_dir = path, is_dir
    while current != current.parent and project in Path(os.path.abspath(current)).parents:
        if config_for(current.parent).is_excluded(current, is_dir=current_is_dir):
            return True
        current, current_is_dir = current.parent, True
    return False


class _Walker:
    """One run's folder walk, holding the compiled ``.gitignore`` files."""

    def __init__(
        self, config_for: Callable[[Path], Config], respect_gitignore: bool | None = None
    ) -> None:
        self._config_for = config_for
        self._respect_gitignore = respect_gitignore
        self._gitignores: dict[str, GitIgnoreSpec | None] = {}
        self._real_folders: dict[str, str] = {}
        self.gitignored = 0
        """Files and folders skipped because ``.gitignore`` ignores them."""

    def real(self, path: Path) -> str:
        """``os.path.realpath(path)``, each folder resolved once per run (a deep tree
        costs a ``stat`` per folder of the path, per file): only a file's own name is
        looked at, in case it is a symlink."""
        folder, name = os.path.split(path)
        if name in ("", os.curdir, os.pardir):
            return os.path.realpath(path)
        if folder not in self._real_folders:
            self._real_folders[folder] = os.path.realpath(folder or os.curdir)
        real = os.path.join(self._real_folders[folder], name)
        return os.path.realpath(real) if os.path.islink(real) else real

    def files_under(self, top: Path) -> Iterator[Path]:
        """Source files below ``top``; symlinked folders are not entered, so no loops."""
        pending: list[tuple[Path, _Ignores]] = [(top, self._enclosing_ignores(top))]
        while pending:
            folder, ignores = pending.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue  # unreadable or vanished: skip it, check the rest
            names = {entry.name for entry in entries}
            if "pyvenv.cfg" in names:
                continue  # a virtualenv, whatever it is called
            if ".git" in names:
                ignores = ()  # a nested repository does not see the outer .gitignore files
            own = self._gitignore(folder) if ".gitignore" in names else None
            if own is not None:
                ignores = (*ignores, (own, ""))
            config = self._config_for(folder)
            respect = self._respect_gitignore
            if respect is None:
                respect = config.respect_gitignore
            for entry in entries:
                kind = _classify(entry)
                if kind is None:
                    continue
                is_dir = kind == "dir"
                child = folder / entry.name
                if config.is_excluded(child, is_dir=is_dir):
                    continue
                if respect and _gitignored(ignores, entry.name, is_dir):
                    self.gitignored += 1
                    continue
                if is_dir:
                    below = tuple((spec, f"{prefix}{entry.name}/") for spec, prefix in ignores)
                    pending.append((child, below))
                else:
                    yield child

    def _enclosing_ignores(self, top: Path) -> _Ignores:
        """The ``.gitignore`` files from ``top``'s repository root down to its parent."""
        absolute = Path(os.path.abspath(top))
        chain = [absolute, *absolute.parents]
        depth = next((i for i, folder in enumerate(chain) if (folder / ".git").exists()), 0)
        ignores: _Ignores = ()
        for folder in reversed(chain[1 : depth + 1]):
            spec = self._gitignore(folder)
            if spec is not None:
                ignores = (*ignores, (spec, f"{absolute.relative_to(folder).as_posix()}/"))
        return ignores

    def _gitignore(self, folder: Path) -> GitIgnoreSpec | None:
        key = os.path.abspath(folder / ".gitignore")
        if key not in self._gitignores:
            self._gitignores[key] = _compile_gitignore(Path(key))
        return self._gitignores[key]


def _classify(entry: os.DirEntry[str]) -> Literal["dir", "file"] | None:
    """A folder to walk, a source file to check, or neither.

    Symlinked folders are neither (no loops); symlinked files are checked.
    """
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.name.endswith(SOURCE_SUFFIXES) and entry.is_file():
            return "file"
    except OSError:
        pass  # cannot even stat it: nothing to check
    return None


def _gitignored(ignores: _Ignores, name: str, is_dir: bool) -> bool:
    """Gitignore precedence: the deepest ``.gitignore`` with a matching pattern decides."""
    for spec, prefix in reversed(ignores):
        verdict = spec.check_file(f"{prefix}{name}/" if is_dir else f"{prefix}{name}").include
        if verdict is not None:
            return verdict
    return False


def _compile_gitignore(path: Path) -> GitIgnoreSpec | None:
    """None when absent or unreadable; lines git would reject are dropped, as git does."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except ValueError:
        return GitIgnoreSpec.from_lines([line for line in lines if _compiles(line)])


def _compiles(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True
