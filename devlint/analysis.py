"""One file's analysis: bytes in, facts and candidate findings out.

This is the unit of work that runs in worker processes and that the cache
stores, so its inputs (FileJob) and output (FileAnalysis) are plain, picklable
data. Only this module (and the traversal and rules it calls) needs libcst.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from devlint.candidates import Candidate
from devlint.facts import FileFacts
from devlint.findings import Finding, Location
from devlint.notebook import decode_file
from devlint.rules.base import RuleSettings
from devlint.source import SourceError

SYNTAX_ERROR = "DEV000"
SYNTAX_ERROR_NAME = "syntax-error"


@dataclass(frozen=True)
class FileJob:
    """Everything the analysis of one file depends on, besides its bytes."""

    path: str
    display: str
    in_project: str
    """The path relative to the project root, used in messages about the file."""
    module: str
    is_package: bool
    codes: tuple[str, ...]
    """The rules to run."""
    settings: RuleSettings


@dataclass(frozen=True)
class FileAnalysis:
    """What the project needs from one file: its facts and candidates, or its DEV000."""

    facts: FileFacts | None = None
    candidates: tuple[Candidate, ...] = ()
    error: Finding | None = None


def syntax_error_finding(display: str, reason: str, row: int = 1, column: int = 1) -> Finding:
    where = Location(max(row, 1), max(column, 1))
    return Finding(display, SYNTAX_ERROR, SYNTAX_ERROR_NAME, reason, where, where)


def analyze_bytes(job: FileJob, data: bytes) -> FileAnalysis:
    """Decode and analyse a file's bytes (a notebook: its code); undecodable bytes are DEV000."""
    try:
        text = decode_file(job.path, data).text
    except SourceError as error:
        reason = f"cannot decode file: {error}"
        return FileAnalysis(
            error=syntax_error_finding(job.display, reason, error.row, error.column)
        )
    return analyze_text(job, text)


def analyze_text(job: FileJob, text: str) -> FileAnalysis:
    """Parse once and walk once; a file neither parser accepts is a DEV000."""
    import libcst as cst

    from devlint.rules import all_rules
    from devlint.traversal import Traversal

    if _needs_python_first(text):
        rejected = _python_rejects(text, job.display)
        if rejected is not None:
            return FileAnalysis(error=rejected)
    try:
        module = cst.parse_module(text)
        rules = [rule for rule in all_rules() if rule.code in job.codes or rule.collects_facts]
        traversal = Traversal(
            module,
            job.module,
            job.is_package,
            rules,
            text=text,
            path=job.in_project,
            settings=job.settings,
        )
        outcome = traversal.run()
    except (cst.ParserSyntaxError, RecursionError, SyntaxError, ValueError) as error:
        rejected = _python_rejects(text, job.display)
        return FileAnalysis(error=rejected or _libcst_error(job.display, error))
    return FileAnalysis(outcome.facts, outcome.candidates)


_LONG_LINE = re.compile(r"[^\r\n]{2000}")
_MAX_NESTING = 100
_KEEP_BRACKETS = str.maketrans(
    "", "", "".join(chr(code) for code in range(128) if chr(code) not in "()[]{}")
)


def _needs_python_first(text: str) -> bool:
    """Could this text be nested deeply enough to crash libcst's native parser?

    CPython refuses such input with a clear message, so it is asked first; for
    ordinary files (the vast majority) this cheap test says no and saves the
    second parse. Brackets inside strings and comments only make it cautious.
    """
    if _LONG_LINE.search(text):
        return True
    depth = deepest = 0
    for char in text.translate(_KEEP_BRACKETS):
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest > _MAX_NESTING


def _python_rejects(text: str, display: str) -> Finding | None:
    """DEV000 when CPython's own parser rejects the text, with its message and position."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        row, column = error.lineno or 1, error.offset or 1
        return syntax_error_finding(display, f"SyntaxError: {error.msg}", row, column)
    except (RecursionError, MemoryError):
        return syntax_error_finding(display, "cannot parse: too deeply nested")
    except ValueError as error:
        return syntax_error_finding(display, f"cannot parse: {error}")
    return None


def _libcst_error(display: str, error: Exception) -> Finding:
    import libcst as cst

    if isinstance(error, cst.ParserSyntaxError):
        # Called once CPython accepted the text: say so, or the user looks for a bug
        # that is not there (libcst rejects e.g. a form feed before an indent).
        message = f"libcst cannot parse this file, though Python can: {error.message}"
        return syntax_error_finding(
            display, message.splitlines()[0], error.raw_line, error.raw_column + 1
        )
    if isinstance(error, RecursionError):
        return syntax_error_finding(display, "cannot parse: too deeply nested")
    return syntax_error_finding(display, f"cannot parse: {error}")
