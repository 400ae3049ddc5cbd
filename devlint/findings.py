"""What a check produces: findings, and fixes expressed as plain text edits.

Everything here is plain, immutable data so that it can be cached, sent between
processes and serialised to JSON without touching libcst.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, order=True)
class Location:
    """A position in a file: 1-based row, 1-based column counted in characters."""

    row: int
    column: int


class Applicability(str, Enum):
    """Whether a fix may be applied without the user opting in (``--unsafe-fixes``)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``start`` (inclusive) and ``end`` (exclusive)."""

    start: Location
    end: Location
    content: str


@dataclass(frozen=True)
class Fix:
    """A set of edits that together repair one finding."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    """One problem in one file, with the fix devlint can offer for it (if any)."""

    path: str
    code: str
    name: str
    message: str
    start: Location
    end: Location
    fix: Fix | None = None
    cell: int | None = None
    """A notebook's cell (1-based); ``start``, ``end`` and the fix's rows then count in it."""

    def sort_key(self) -> tuple[str, int, Location, str]:
        return (self.path, self.cell or 0, self.start, self.code)

    @property
    def source_name(self) -> str:
        """What the rows count in: the path, or ``path:cell N`` in a notebook."""
        return cell_name(self.path, self.cell)


def cell_name(path: str, cell: int | None) -> str:
    """``train.ipynb:cell 3`` for a notebook cell, else the path."""
    return path if cell is None else f"{path}:cell {cell}"
