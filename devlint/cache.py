"""A cache of file analyses, keyed by everything an analysis depends on.

The key covers the file's bytes, the job (path in the project, module name,
rules, rule settings) and devlint's own code, so a stale entry can never be
found: a change anywhere gives a new key. Entries are written atomically; a
corrupt, truncated or foreign entry reads as a miss, never as an error.
Reading the cache imports neither libcst nor any rule.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from dataclasses import fields, is_dataclass
from functools import cache
from pathlib import Path

from devlint import __version__
from devlint.analysis import FileAnalysis, FileJob

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

    def get(self, key: str) -> FileAnalysis | None:
        try:
            with open(self._path(key), "rb") as stream:
                value = pickle.load(stream)
        except Exception:  # missing, truncated, corrupt or from another version: a miss
            return None
        return value if isinstance(value, FileAnalysis) else None

    def put(self, key: str, analysis: FileAnalysis) -> None:
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
                pickle.dump(analysis, stream, protocol=pickle.HIGHEST_PROTOCOL)
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
