"""One file's analysis: bytes in, facts and candidate findings out.

This is the unit of work that runs in worker processes and that the cache
stores, so its inputs (FileJob) and output (FileAnalysis) are plain, picklable
data. Only this module (and the traversal and rules it calls) needs libcst.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
import warnings
from dataclasses import dataclass, replace
from itertools import chain
from typing import TYPE_CHECKING

from devlint.findings import Finding, Location
from devlint.notebook import decode_file
from devlint.rules import running_rules
from devlint.source import LINE_BREAK, SourceError

if TYPE_CHECKING:  # a warm run loads this module, and must load none of these
    from devlint.candidates import Candidate
    from devlint.facts import FileFacts, ResultsMeeting
    from devlint.rules.base import Pending, RuleSettings
    from devlint.skeleton import Skeleton

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
    prefilter: bool = True
    """Skip libcst when no rule has a trigger in the file (off: ``--no-prefilter``)."""
    star_bound: tuple[tuple[str, str], ...] = ()
    """The names its ``from <module> import *`` statements bind, to qualified names, as the
    project's other files say (``devlint.stars``): the walk starts knowing them."""
    asked: tuple[str, ...] = ()
    """With ``prefilter``: the rules the project index says may report in this file, which
    the prefilter found were all that needed it (``engine``'s later passes). The file is
    parsed for them, and only they (and those collecting facts) walk it."""
    read_before: bool = False
    """An earlier pass of the run read these bytes without a DEV000 (``engine``): CPython
    accepted them, or they never needed asking (``_needs_python_first``). Not asked again."""


@dataclass(frozen=True)
class FileAnalysis:
    """What the project needs from one file: its facts and candidates, or its DEV000."""

    facts: FileFacts | None = None
    candidates: tuple[Candidate, ...] = ()
    error: Finding | None = None
    parsed: bool = True
    """False when the prefilter let the file skip libcst (its facts come from ``ast``)."""
    pending: tuple[Pending, ...] = ()
    """Of a file not parsed: the rules that may report in it if it defines model code
    (or if the code where they saw something is)."""
    results_meeting: ResultsMeeting | None = None
    """Of a parsed file whose candidates need to know where results of functions meet the
    device: where they do in this file (the flow-needs pass reads it, not the file)."""
    not_checked: str = ""
    """Why devlint could not check a file CPython accepts (libcst cannot parse it): a limit
    of the tool, not a finding about the code, so no DEV000; the run reports it as an error
    (exit code 2)."""


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
    """Parse once and walk once; a file neither parser accepts is a DEV000.

    Unless the prefilter finds that no rule needs the file: then only ``ast`` reads it.
    """
    import libcst as cst

    from devlint.prefilter import parse_at_once, verdict
    from devlint.traversal import Traversal

    found: Skeleton | None = None
    asked = job.prefilter and bool(job.asked)
    if job.prefilter and not asked and not parse_at_once(text, job.module, job.codes, job.settings):
        found = _skeleton(job, text)
        needs = verdict(found, job.module, job.codes, job.settings) if found else None
        if found is not None and needs is not None and not needs.parse:
            facts = _with_mentions(found.facts, job, text)
            return FileAnalysis(facts, parsed=False, pending=needs.pending)
    # Read by `ast` for the prefilter (or read in an earlier pass), the text is one CPython
    # accepts: no need to ask again.
    if found is None and not job.read_before and _needs_python_first(text):
        rejected = _python_rejects(text, job.display)
        if rejected is not None:
            return FileAnalysis(error=rejected)
    try:
        module = cst.parse_module(text)
        rules = running_rules(job.asked if asked else job.codes)
        traversal = Traversal(
            module,
            job.module,
            job.is_package,
            rules,
            text=text,
            path=job.in_project,
            settings=job.settings,
            star_bound=job.star_bound,
        )
        outcome = traversal.run()
    except (cst.ParserSyntaxError, RecursionError, SyntaxError, ValueError) as error:
        rejected = _python_rejects(text, job.display)
        if rejected is not None:
            return FileAnalysis(error=rejected)
        return FileAnalysis(not_checked=_libcst_limit(error))
    facts = _with_mentions(outcome.facts, job, text)
    return FileAnalysis(facts, outcome.candidates, results_meeting=outcome.results_meeting)


def _with_mentions(facts: FileFacts, job: FileJob, text: str) -> FileFacts:
    """``facts`` with the names the text uses, where the project wants them
    (``RuleSettings.mentions``): read from the text, whichever walk made the facts."""
    if not job.settings.mentions:
        return facts
    from devlint.facts import lists_members, loaders_used, looks_up_names, mentions_by_definition

    module = f"{facts.module}."
    defined = {
        name.removeprefix(module)
        for name in chain((c.name for c in facts.classes), (f.name for f in facts.functions))
        if name.startswith(module) and "." not in name.removeprefix(module)
    }
    definitions, top_level = mentions_by_definition(text, defined)
    return replace(
        facts,
        mentions=top_level.union(*(words for _, words in definitions)),
        definition_mentions=definitions,
        top_level_mentions=top_level,
        looks_up_names=looks_up_names(text),
        loaders=loaders_used(text),
        lists_members=lists_members(text),
    )


_LONG_LINE = 2000
"""Characters in one logical line (continuation backslashes joined) that call for CPython first."""
_LONG_SPAN = 5000
"""Characters between an outermost bracket and its closer that call for CPython first."""
_MAX_NESTING = 100
_MAX_ELIFS = 1000
_BRACKET = re.compile(r"[()\[\]{}]")
_CONTINUATION = re.compile(r"\\(?:\r\n|\r|\n)")


def _needs_python_first(text: str) -> bool:
    """Could this text be nested deeply enough to crash (or stall) libcst's native parser?

    CPython refuses such input with a clear message, so it is asked first; for
    ordinary files (the vast majority) this cheap test says no and saves the
    second parse. An expression thousands of levels deep needs a long logical
    line: a long physical line, lines joined by backslashes, or a long stretch
    inside brackets; or a long ``elif`` chain (each ``elif`` nests in the one
    before). Brackets inside strings and comments only make it cautious.
    """
    if text.count("elif") > _MAX_ELIFS:
        return True
    joined = _CONTINUATION.sub("", text) if "\\" in text else text
    if max(map(len, LINE_BREAK.split(joined))) >= _LONG_LINE:
        return True
    depth = opened = 0
    for match in _BRACKET.finditer(text):
        if match.group() in "([{":
            if depth == 0:
                opened = match.start()
            depth += 1
            if depth > _MAX_NESTING:
                return True
        elif depth > 0:
            depth -= 1
            if depth == 0 and match.start() - opened > _LONG_SPAN:
                return True
    return depth > 0 and len(text) - opened > _LONG_SPAN


def _skeleton(job: FileJob, text: str) -> Skeleton | None:
    """The file's facts from ``ast``; None if it cannot parse the text (libcst will say why)."""
    if not text.isascii() and not _identifiers_as_written(text):
        return None  # ast normalises identifiers (NFKC), libcst keeps them as written
    try:
        with warnings.catch_warnings():  # "invalid escape sequence": the user's business
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    from devlint.prefilter import screen_types
    from devlint.skeleton import skeleton

    references = any(rule.records_references for rule in running_rules(job.codes))
    return skeleton(
        tree,
        text,
        job.module,
        job.is_package,
        job.in_project,
        references=references,
        collect=screen_types(job.codes),
        star_bound=job.star_bound,
    )


def _identifiers_as_written(text: str) -> bool:
    """Whether NFKC leaves the text's identifiers as written, as ``ast`` makes them (libcst
    keeps them): true unless something other than a comment or a plain string changes.
    Tokenizing is slow, so only text NFKC changes (a ligature, a full-width letter) is."""
    if unicodedata.is_normalized("NFKC", text):
        return True
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.string.isascii():
                continue
            if token.type == tokenize.ERRORTOKEN:
                return False  # a combining accent, which CPython joins to the name before
            if unicodedata.is_normalized("NFKC", token.string):
                continue
            if token.type == tokenize.COMMENT:
                continue
            prefix = _QUOTE.split(token.string, maxsplit=1)[0]
            if token.type == tokenize.STRING and "f" not in prefix.lower():
                continue  # an f-string holds identifiers
            return False
    except (tokenize.TokenError, SyntaxError):
        return False
    return True


_QUOTE = re.compile("['\"]")


def _python_rejects(text: str, display: str) -> Finding | None:
    """DEV000 when CPython's own parser rejects the text, with its message and position."""
    try:
        with warnings.catch_warnings():  # "invalid escape sequence": the user's business
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as error:
        row, column = error.lineno or 1, error.offset or 1
        return syntax_error_finding(display, f"SyntaxError: {error.msg}", row, column)
    except (RecursionError, MemoryError):
        return syntax_error_finding(display, "cannot parse: too deeply nested")
    except ValueError as error:
        return syntax_error_finding(display, f"cannot parse: {error}")
    return None


def _libcst_limit(error: Exception) -> str:
    """Why libcst could not read a text CPython accepts (a form feed before an indent,
    tab-indented lines under space-indented ones), to report as the tool's error."""
    import libcst as cst

    reason = "too deeply nested" if isinstance(error, RecursionError) else str(error)
    if isinstance(error, cst.ParserSyntaxError):
        reason = error.message.splitlines()[0]
        if not reason.startswith("tokenizer error"):  # its position is always 1, 1
            reason += f" at line {error.raw_line}, column {error.raw_column + 1}"
    return f"not checked: libcst cannot parse it, though Python can ({reason})"
