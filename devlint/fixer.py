"""Applying fixes: text edits in, verified source out, written without ever losing a file."""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import signal
import stat
import tempfile
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import libcst as cst

from devlint.findings import Edit, Finding, Fix
from devlint.source import line_offsets, lines_without_breaks


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
        with warnings.catch_warnings():  # the user's code: not devlint's to warn about
            warnings.simplefilter("ignore")
            compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return _first_line(error)
    return None


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def long_fixed_lines(before: str, after: str, limit: int) -> int:
    """How many lines the fixes wrote (new or changed) that are longer than ``limit``
    characters: devlint never wraps them, the project's formatter does."""
    old, new = lines_without_breaks(before), lines_without_breaks(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return sum(
        len(line) > limit
        for kind, _, _, start, end in matcher.get_opcodes()
        if kind in ("replace", "insert")
        for line in new[start:end]
    )


TEMPORARY_SUFFIX = ".devlint-tmp"
"""Temporary files are named ``.NAME.XXXXXXXX.devlint-tmp`` beside the file NAME they replace."""

_HELD_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)
)
_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}" + re.escape(TEMPORARY_SUFFIX))


def write_atomically(path: Path, original: bytes, new: bytes) -> None:
    """Replace ``path`` with ``new`` unless it changed since it was read as ``original``.

    The data goes to a temporary file in the same folder, which then replaces the
    original in one ``os.replace``: a reader (or a crash) sees the old or the new
    file, never a mix. The original permission bits (and owner, when allowed) are
    kept, and a symlink stays a symlink: its target is what gets rewritten. A file
    without write permission is not rewritten, even by root: replacing it would
    only need the folder's permission, and its owner made it read-only.

    Ctrl-C (and SIGTERM) wait until the temporary file has replaced the original or
    been removed. Only SIGKILL (or a power cut) can leave a temporary file behind;
    ``remove_stale_temporaries`` deletes it on the next ``fix --write``.
    """
    path = Path(os.path.realpath(path))
    try:
        current = path.read_bytes()
        info = path.stat()
    except OSError as error:
        raise FixError(f"cannot read {path}: {error.strerror or error}") from None
    if current != original:
        raise FixError(f"{path} changed on disk while devlint was fixing it; not written")
    mode = stat.S_IMODE(info.st_mode)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise FixError(f"cannot write {path}: the file is read-only; not written")
    with _signals_held():
        try:
            handle, temporary = tempfile.mkstemp(
                dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX
            )
        except OSError as error:
            raise FixError(f"cannot write to {path.parent}: {error.strerror or error}") from None
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(new)
            os.chmod(temporary, mode)
            _keep_owner(temporary, info)
            os.replace(temporary, path)
        except BaseException as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            if isinstance(error, OSError):
                raise FixError(f"cannot write {path}: {error.strerror or error}") from None
            raise


def _keep_owner(temporary: str, info: os.stat_result) -> None:
    """Give the new file the original's owner and group (root can; others keep their own)."""
    if not hasattr(os, "chown") or (info.st_uid, info.st_gid) == (os.geteuid(), os.getegid()):
        return
    with contextlib.suppress(OSError):
        os.chown(temporary, info.st_uid, info.st_gid)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block is over, then act on them as usual.

    Python runs signal handlers in the main thread whichever thread the signal
    reached (torch, for one, starts threads), so a handler that only takes note
    holds them everywhere; elsewhere than the main thread nothing can be held.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def take_note(number: int, _: object) -> None:
        received.append(number)

    previous = {number: signal.signal(number, take_note) for number in _HELD_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        if received:
            signal.raise_signal(received[0])


def remove_stale_temporaries(paths: Iterable[Path]) -> list[Path]:
    """Delete the temporary files a killed ``fix --write`` left beside ``paths``.

    Only names ``write_atomically`` makes are touched, and only in the folders
    that hold (the targets of) ``paths``. Returns what was removed.
    """
    removed: list[Path] = []
    folders = {Path(os.path.realpath(path)).parent for path in paths}
    for folder in sorted(folders):
        try:
            with os.scandir(folder) as entries:
                names = [
                    entry.name
                    for entry in entries
                    if _TEMPORARY.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
                ]
        except OSError:
            continue
        for name in names:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
                removed.append(folder / name)
    return removed
