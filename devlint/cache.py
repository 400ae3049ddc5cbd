"""A cache of file analyses, keyed by everything an analysis depends on.

The key covers the file's bytes, the job (path in the project, module name,
rules, rule settings) and devlint's own code, so a stale entry can never be
found: a change anywhere gives a new key. A check also stores each project's
findings, under a key covering all its files and its configuration. Entries are
written atomically; a corrupt, truncated or foreign entry reads as a miss, never
as an error.
Reading the cache imports neither libcst nor any rule.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

from devlint import __version__
from devlint.analysis import FileAnalysis, FileJob
from devlint.findings import Finding

CACHE_FOLDER = ".devlint_cache"


@cache
def _code_fingerprint() -> str:
    """devlint's version and its source files' sizes and times: edits invalidate entries."""
    package = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()


def _stable_repr(value: object) -> str:
    """``repr``, but the same in every process: sets are sorted (their order follows the
    per-process string hash, and a key that changes between runs is never found)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(_stable_repr, value))) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(map(_stable_repr, value)) + ")"
    if is_dataclass(value) and not isinstance(value, type):
        parts = (f"{f.name}={_stable_repr(getattr(value, f.name))}" for f in fields(value))
        return f"{type(value).__name__}({', '.join(parts)})"
    return repr(value)


@dataclass(frozen=True)
class CheckedFile:
    findings: tuple[Finding, ...]
    parsed: bool
    not_checked: str = ""
    """``FileAnalysis.not_checked``: a warm run reports it again."""


@dataclass(frozen=True)
class ProjectFindings:
    """A checked project, file by file in the order of its files: when nothing it depends
    on changed, a re-run reads this one entry and skips the index and the resolution."""

    files: tuple[CheckedFile, ...]


_Entry = TypeVar("_Entry", FileAnalysis, ProjectFindings)


class Cache:
    """Analyses stored as one pickle per key under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(job: FileJob, data: bytes) -> str:
        digest = hashlib.sha256(_code_fingerprint().encode())
        digest.update(_stable_repr(job).encode())
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / key[2:]

    @staticmethod
    def project_key(shared: object, files: Iterable[tuple[FileJob, bytes | None]]) -> str:
        """The key of a whole project's findings: what its files share (configuration,
        rules, settings), each file's job and its bytes' digest (None: unreadable)."""
        digest = hashlib.sha256(_code_fingerprint().encode())
        digest.update(_stable_repr(shared).encode())
        for job, content in files:
            place = (job.path, job.display, job.in_project, job.module, job.is_package)
            digest.update(f"\0{place!r}{job.prefilter}\0".encode())
            digest.update(content or b"unreadable")
        return digest.hexdigest()

    def get(self, key: str) -> FileAnalysis | None:
        return self._load(key, FileAnalysis)

    def get_project(self, key: str) -> ProjectFindings | None:
        return self._load(key, ProjectFindings)

    def _load(self, key: str, kind: type[_Entry]) -> _Entry | None:
        try:
            with open(self._path(key), "rb") as stream:
                value = pickle.load(stream)
        except Exception:  # missing, truncated, corrupt or from another version: a miss
            return None
        return value if isinstance(value, kind) else None

    def put(self, key: str, entry: FileAnalysis | ProjectFindings) -> None:
        """Store an entry; failing to write (read-only folder, full disk) is not an error."""
        path = self._path(key)
        try:
            self._prepare()
            path.parent.mkdir(exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(entry, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException as error:  # Ctrl-C included: never leave the temporary file
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            if not isinstance(error, (OSError, pickle.PicklingError)):
                raise

    def _prepare(self) -> None:
        """Create the folder with a .gitignore, so that it never shows in ``git status``."""
        if (self.folder / ".gitignore").exists():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            (self.folder / ".gitignore").write_text("# Created by devlint.\n*\n")
