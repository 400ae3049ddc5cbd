"""The run: files in, findings (and fixed text) out.

Per file: read bytes, decode, parse once, one traversal (facts + candidates).
Per project: merge the facts into an index, then resolve every candidate into a
Finding with the scope knowledge only the whole project has. Fixing re-analyses
a file against the same index until no applicable fix is left.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst

from devlint.candidates import Candidate
from devlint.config import Config
from devlint.discovery import find_project_root
from devlint.facts import FileFacts
from devlint.findings import Finding, Location
from devlint.fixer import apply_fixes, choose_fixes, verify
from devlint.index import ProjectIndex
from devlint.rules import all_rules, rule_by_code, select_codes
from devlint.rules.base import Rule
from devlint.source import SourceError, SourceText, decode_source
from devlint.traversal import Traversal

MAX_FIX_PASSES = 4
"""Fixing converges in one or two passes; the bound stops a rule that keeps rewriting."""

SYNTAX_ERROR = "DEV000"


@dataclass(frozen=True)
class Overrides:
    """What the command line says on top of (and before) the configuration files."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass
class FileResult:
    """One file's analysis and, after resolution, its findings."""

    path: Path
    display: str
    source: SourceText | None = None
    original: bytes = b""
    facts: FileFacts | None = None
    candidates: tuple[Candidate, ...] = ()
    findings: list[Finding] = field(default_factory=list)


@dataclass
class Project:
    """Files sharing a project root: one configuration, one index."""

    root: Path
    config: Config
    codes: frozenset[str]
    rules: tuple[Rule, ...]
    files: list[FileResult] = field(default_factory=list)
    index: ProjectIndex | None = None


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is below it, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def module_name(path: Path) -> tuple[str, bool]:
    """The dotted name Python would import ``path`` as, and whether it is a package.

    Inside packages (folders with ``__init__.py``) the name goes up to the top
    package; a loose script is named by its stem, as its siblings import it.
    """
    path = path.resolve()
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.stem, is_package


def syntax_error_finding(display: str, reason: str, row: int = 1, column: int = 1) -> Finding:
    rule = rule_by_code(SYNTAX_ERROR)
    assert rule is not None
    where = Location(max(row, 1), max(column, 1))
    return Finding(display, rule.code, rule.name, reason, where, where)


def _parse_error(text: str, display: str, error: Exception) -> Finding:
    """DEV000 with Python's own message and position when it has one (they read best)."""
    try:
        ast.parse(text)
    except SyntaxError as syntax:
        return syntax_error_finding(
            display, f"SyntaxError: {syntax.msg}", syntax.lineno or 1, syntax.offset or 1
        )
    except (RecursionError, MemoryError, ValueError):
        pass
    if isinstance(error, cst.ParserSyntaxError):
        message = error.message.splitlines()[0]
        return syntax_error_finding(
            display, f"cannot parse: {message}", error.raw_line, error.raw_column + 1
        )
    if isinstance(error, RecursionError):
        return syntax_error_finding(display, "cannot parse: too deeply nested")
    return syntax_error_finding(display, f"cannot parse: {error}")


def analyze_text(result: FileResult, text: str, rules: Sequence[Rule]) -> None:
    """Parse and traverse ``text``; set the result's facts and candidates, or a DEV000."""
    try:
        module = cst.parse_module(text)
        name, is_package = module_name(result.path)
        outcome = Traversal(module, name, is_package, rules).run()
    except (cst.ParserSyntaxError, RecursionError, SyntaxError, ValueError) as error:
        result.facts, result.candidates = None, ()
        result.findings = [_parse_error(text, result.display, error)]
        return
    result.facts, result.candidates = outcome.facts, outcome.candidates


def analyze_file(path: Path, rules: Sequence[Rule]) -> FileResult:
    result = FileResult(path, display_path(path))
    try:
        result.original = path.read_bytes()
    except OSError as error:
        result.findings = [
            syntax_error_finding(result.display, f"cannot read file: {error.strerror}")
        ]
        return result
    try:
        result.source = decode_source(result.original)
    except SourceError as error:
        result.findings = [syntax_error_finding(result.display, f"cannot decode file: {error}")]
        return result
    analyze_text(result, result.source.text, rules)
    return result


def resolve(project: Project, result: FileResult) -> None:
    """Turn the file's candidates into findings, given the project index."""
    assert project.index is not None
    if result.facts is None:
        return
    ignored = project.config.ignored_codes(result.path)
    rules = {rule.code: rule for rule in project.rules}
    findings = []
    for candidate in result.candidates:
        rule = rules.get(candidate.code)
        if rule is None or candidate.code in ignored:
            continue
        verdict = rule.resolve(candidate, project.index.scope_info(candidate.scope))
        if verdict is None:
            continue
        findings.append(
            Finding(
                result.display,
                rule.code,
                rule.name,
                verdict.message,
                candidate.start,
                candidate.end,
                verdict.fix,
            )
        )
    result.findings = sorted(findings, key=Finding.sort_key)


def enabled_codes(config: Config, overrides: Overrides) -> frozenset[str]:
    """Rules on for a project. As in ruff, a ``--select`` on the command line starts
    afresh: the configuration's select, extend-select and ignore no longer apply."""
    if overrides.select is not None:
        return select_codes(overrides.select, overrides.extend_select, overrides.ignore)
    return select_codes(
        config.select,
        (*config.extend_select, *overrides.extend_select),
        (*config.ignore, *overrides.ignore),
    )


def plan_projects(
    files: Iterable[Path], config_for: Callable[[Path], Config], overrides: Overrides
) -> list[Project]:
    """Group files by project root; each project gets its configuration and rules once."""
    projects: dict[Path, Project] = {}
    for path in files:
        root = find_project_root(path)
        project = projects.get(root)
        if project is None:
            config = config_for(path.parent if path.is_file() else path)
            codes = enabled_codes(config, overrides)
            rules = tuple(rule for rule in all_rules() if rule.code in codes)
            project = projects[root] = Project(root, config, codes, rules)
        project.files.append(FileResult(path, display_path(path)))
    return list(projects.values())


def check_project(project: Project) -> None:
    """Analyse every file of the project, build its index, resolve all findings."""
    project.files = [analyze_file(result.path, project.rules) for result in project.files]
    project.index = ProjectIndex(
        (result.facts for result in project.files if result.facts is not None),
        project.config.device_aware_bases,
    )
    for result in project.files:
        resolve(project, result)


@dataclass(frozen=True)
class FixOutcome:
    """What fixing one file produced: the new text, or why there is none."""

    text: str
    fixed: int
    error: str | None = None


def fix_file(project: Project, result: FileResult, *, unsafe: bool) -> FixOutcome | None:
    """Apply fixes to the file's text until none applies; None when nothing changed.

    The file's result is updated to the findings left in the fixed text. Every
    pass is verified; if a fix produces invalid code the file is left untouched
    and the outcome names the rule, since that is a devlint bug.
    """
    if result.source is None:
        return None
    text, fixed = result.source.text, 0
    for _ in range(MAX_FIX_PASSES):
        chosen = choose_fixes(result.findings, unsafe=unsafe)
        if not chosen:
            break
        new_text = apply_fixes(text, [finding.fix for finding in chosen if finding.fix])
        problem = verify(new_text, result.display)
        if problem is not None:
            codes = ", ".join(sorted({finding.code for finding in chosen}))
            return FixOutcome(
                result.source.text, 0, f"fix by {codes} produced invalid code ({problem})"
            )
        text, fixed = new_text, fixed + len(chosen)
        analyze_text(result, text, project.rules)
        resolve(project, result)
    if fixed == 0:
        return None
    result.source = replace(result.source, text=text)
    return FixOutcome(text, fixed)
