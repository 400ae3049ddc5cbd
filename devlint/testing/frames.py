"""Which line of Python is to blame: the innermost frame that is not torch's own machinery."""

from __future__ import annotations

import os
import sys
import sysconfig
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

import torch

_TORCH = str(Path(torch.__file__).resolve().parent) + os.sep
_HERE = str(Path(__file__).resolve().parent) + os.sep
_STDLIB = str(Path(sysconfig.get_paths()["stdlib"]).resolve()) + os.sep
_INSTALLED = tuple(
    {str(Path(sysconfig.get_paths()[key]).resolve()) + os.sep for key in ("purelib", "platlib")}
)


@dataclass(frozen=True)
class Site:
    """A line of code: where two devices met, or where a tensor was made."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{_shown(self.filename)}:{self.lineno}"


def _shown(filename: str) -> str:
    """The path relative to the working directory when it lies inside it."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive (Windows)
        return filename
    return filename if relative.startswith(os.pardir) else relative


_resolved: dict[str, str] = {}


def _real(filename: str) -> str:
    if filename not in _resolved:
        _resolved[filename] = (
            filename if filename.startswith("<") else str(Path(filename).resolve())
        )
    return _resolved[filename]


def is_machinery(filename: str) -> bool:
    """torch, the standard library, frozen modules and this package: never the culprit."""
    real = _real(filename)
    if real.startswith("<"):
        return real.startswith("<frozen")
    in_stdlib = real.startswith(_STDLIB) and not real.startswith(_INSTALLED)
    return real.startswith((_TORCH, _HERE)) or in_stdlib


def is_installed(filename: str) -> bool:
    """A file of an installed library (site-packages), as opposed to the user's own code."""
    return _real(filename).startswith(_INSTALLED)


def calling_frames() -> Iterator[tuple[FrameType, int]]:
    """The frames calling this one, innermost first (this package's own are skipped later)."""
    return traceback.walk_stack(sys._getframe(1))


def raised_frames(
    tb: TracebackType | None, callers: Iterable[tuple[FrameType, int]] = ()
) -> list[tuple[FrameType, int]]:
    """The frames an exception passed through, innermost first, then ``callers``."""
    inner = [(frame, line) for frame, line in traceback.walk_tb(tb)]
    return [*reversed(inner), *callers]


def culprit(frames: Iterable[tuple[FrameType, int]], *, own_code: bool) -> Site | None:
    """The innermost frame outside the machinery (and, with ``own_code``, outside libraries)."""
    for frame, line in frames:
        filename = frame.f_code.co_filename
        if is_machinery(filename) or (own_code and is_installed(filename)):
            continue
        return Site(_real(filename), line)
    return None
