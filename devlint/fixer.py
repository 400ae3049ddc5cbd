"""Applying fixes: text edits in, verified source out, written without ever losing a file."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import libcst as cst

from devlint.findings import Edit, Finding, Fix
from devlint.source import line_offsets


class FixError(Exception):
    """A fix could not be applied or written; the file is left as it was."""


def choose_fixes(findings: Iterable[Finding], *, unsafe: bool) -> list[Finding]:
    """Findings whose fixes can be applied together: applicable and not overlapping.

    Overlapping fixes are left for the next pass, when they are recomputed on the
    already-fixed text.
    """
    chosen: list[Finding] = []
    taken: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for finding in sorted(findings, key=Finding.sort_key):
        fix = finding.fix
        if fix is None or (fix.applicability.value == "unsafe" and not unsafe):
            continue
        spans = [_span(edit) for edit in fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        chosen.append(finding)
    return chosen


def _span(edit: Edit) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((edit.start.row, edit.start.column), (edit.end.row, edit.end.column))


def _overlaps(
    a: tuple[tuple[int, int], tuple[int, int]], b: tuple[tuple[int, int], tuple[int, int]]
) -> bool:
    """Spans overlap, or are both insertions at the same point (their order is unknown)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def apply_fixes(text: str, fixes: Sequence[Fix]) -> str:
    """Apply the (non-overlapping) edits of ``fixes`` to ``text``."""
    starts = line_offsets(text)

    def offset(row: int, column: int) -> int:
        if row > len(starts):
            return len(text)
        return min(starts[row - 1] + column - 1, len(text))

    edits = sorted(
        (edit for fix in fixes for edit in fix.edits),
        key=lambda edit: (edit.start, edit.end),
        reverse=True,
    )
    for edit in edits:
        begin = offset(edit.start.row, edit.start.column)
        end = offset(edit.end.row, edit.end.column)
        text = text[:begin] + edit.content + text[end:]
    return text


def verify(text: str, original: str, filename: str) -> str | None:
    """Why the fixed text is not valid Python, or None when it is.

    It must parse, and compile unless the original did not compile either (Python
    rejects some code only when compiling, ``continue`` outside a loop for one:
    that is not the fix's doing).
    """
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as error:
        return _first_line(error)
    problem = _compile_error(text, filename)
    if problem is not None and _compile_error(original, filename) is None:
        return problem
    return None


def _compile_error(text: str, filename: str) -> str | None:
    try:
        compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return _first_line(error)
    return None


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def write_atomically(path: Path, original: bytes, new: bytes) -> None:
    """Replace ``path`` with ``new`` unless it changed since it was read as ``original``.

    The data goes to a temporary file in the same folder, which then replaces the
    original in one ``os.replace``: a reader (or a crash) sees the old or the new
    file, never a mix. The original permission bits are kept, and a symlink stays a
    symlink: its target is what gets rewritten.
    """
    path = Path(os.path.realpath(path))
    try:
        current = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as error:
        raise FixError(f"cannot read {path}: {error.strerror or error}") from None
    if current != original:
        raise FixError(f"{path} changed on disk while devlint was fixing it; not written")
    try:
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".devlint-tmp"
        )
    except OSError as error:
        raise FixError(f"cannot write to {path.parent}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(new)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise FixError(f"cannot write {path}: {error.strerror or error}") from None
        raise
