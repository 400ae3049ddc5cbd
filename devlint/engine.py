"""The run: files in, findings (and fixed text) out.

Per file: read bytes, decode, parse once, one traversal (facts + candidates).
Per project: merge the facts into an index, then resolve every candidate into a
Finding with the scope knowledge only the whole project has. Fixing re-analyses
a file against the same index until no applicable fix is left.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst

from devlint.candidates import Candidate
from devlint.config import Config, ConfigError
from devlint.discovery import find_project_root
from devlint.facts import FileFacts
from devlint.findings import Finding, Location
from devlint.fixer import apply_fixes, choose_fixes, verify
from devlint.index import ProjectIndex
from devlint.rules import SelectionError, all_rules, rule_by_code, select_codes
from devlint.rules.base import Rule, RuleSettings
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
    root: Path = Path()
    """The project root the file belongs to."""
    in_project: str = ""
    """The path relative to the project root: how messages about it name it, whatever
    folder devlint runs from."""
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
    rules: tuple[Rule, ...]
    files: list[FileResult] = field(default_factory=list)
    index: ProjectIndex | None = None

    @property
    def settings(self) -> RuleSettings:
        return RuleSettings(processor_names=frozenset(self.config.processor_names))


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is below it, else as given."""
    try:
        # abspath, not resolve: a symlink is shown (and written) as the user named it.
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _relative_to(path: Path, root: Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return display_path(path)


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    """The dotted name Python would import ``path`` as, and whether it is a package.

    Inside packages (folders with ``__init__.py``) the name goes up to the top
    package. Other files are named by their path from the project root
    (``scripts/model.py`` -> ``scripts.model``): unique within the project, and
    the index matches imports like ``from model import Net`` to it (see
    ``ProjectIndex.resolve``).
    """
    path = Path(os.path.abspath(path))
    is_package = path.name == "__init__.py"
    if not (path.parent / "__init__.py").is_file():
        try:
            relative = path.relative_to(Path(os.path.abspath(root))).with_suffix("")
        except ValueError:
            return path.stem, is_package
        return ".".join(relative.parts), is_package
    parts = [] if is_package else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), is_package


def syntax_error_finding(display: str, reason: str, row: int = 1, column: int = 1) -> Finding:
    rule = rule_by_code(SYNTAX_ERROR)
    assert rule is not None
    where = Location(max(row, 1), max(column, 1))
    return Finding(display, rule.code, rule.name, reason, where, where)


def _python_rejects(text: str, display: str) -> Finding | None:
    """DEV000 when CPython's own parser rejects the text, with its message and position.

    Asked first, because its messages read best and because it refuses input so
    deeply nested that libcst's native parser would crash the whole process.
    """
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
    if isinstance(error, cst.ParserSyntaxError):
        message = error.message.splitlines()[0]
        return syntax_error_finding(
            display, f"cannot parse: {message}", error.raw_line, error.raw_column + 1
        )
    if isinstance(error, RecursionError):
        return syntax_error_finding(display, "cannot parse: too deeply nested")
    return syntax_error_finding(display, f"cannot parse: {error}")


def analyze_text(
    result: FileResult, text: str, rules: Sequence[Rule], settings: RuleSettings
) -> None:
    """Parse and traverse ``text``; set the result's facts and candidates, or a DEV000."""
    result.facts, result.candidates = None, ()
    rejected = _python_rejects(text, result.display)
    if rejected is not None:
        result.findings = [rejected]
        return
    try:
        module = cst.parse_module(text)
        name, is_package = module_name(result.path, result.root)
        traversal = Traversal(
            module, name, is_package, rules, path=result.in_project, settings=settings
        )
        outcome = traversal.run()
    except (cst.ParserSyntaxError, RecursionError, SyntaxError, ValueError) as error:
        result.findings = [_libcst_error(result.display, error)]
        return
    result.facts, result.candidates = outcome.facts, outcome.candidates


def analyze_file(result: FileResult, rules: Sequence[Rule], settings: RuleSettings) -> None:
    """Read, decode and analyse the file of ``result``; a failure at any step is a DEV000."""
    try:
        result.original = result.path.read_bytes()
    except OSError as error:
        reason = f"cannot read file: {error.strerror}"
        result.findings = [syntax_error_finding(result.display, reason)]
        return
    try:
        result.source = decode_source(result.original)
    except SourceError as error:
        result.findings = [syntax_error_finding(result.display, f"cannot decode file: {error}")]
        return
    analyze_text(result, result.source.text, rules, settings)


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
        if rule is None or _matches_any(candidate.code, ignored):
            continue
        scope = project.index.scope_info(candidate.scope)
        verdict = rule.resolve(candidate, scope, project.index)
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


def _matches_any(code: str, selectors: Iterable[str]) -> bool:
    """``DEV001`` matches ``DEV001``, the prefix ``DEV00`` and ``ALL``."""
    return any(selector == "ALL" or code.startswith(selector) for selector in selectors)


def enabled_codes(config: Config, overrides: Overrides) -> frozenset[str]:
    """Rules on for a project. As in ruff, a ``--select`` on the command line starts
    afresh: the configuration's select, extend-select and ignore no longer apply."""
    if overrides.select is not None:
        return select_codes(overrides.select, overrides.extend_select, overrides.ignore)
    select_codes(None, overrides.extend_select, overrides.ignore)  # the command line's own errors
    try:
        return select_codes(
            config.select,
            (*config.extend_select, *overrides.extend_select),
            (*config.ignore, *overrides.ignore),
        )
    except SelectionError as error:
        raise ConfigError(f"{config.source}: [tool.devlint] {error}") from None


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
            project = projects[root] = Project(root, config, rules)
        project.files.append(FileResult(path, display_path(path), root, _relative_to(path, root)))
    return list(projects.values())


def check_project(project: Project) -> None:
    """Analyse every file of the project, build its index, resolve all findings."""
    for result in project.files:
        analyze_file(result, project.rules, project.settings)
    project.index = ProjectIndex(
        (result.facts for result in project.files if result.facts is not None),
        project.config.device_aware_bases,
        project.config.distributed,
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
        problem = verify(new_text, result.source.text, result.display)
        if problem is not None:
            codes = ", ".join(sorted({finding.code for finding in chosen}))
            return FixOutcome(
                result.source.text, 0, f"fix by {codes} produced invalid code ({problem})"
            )
        text, fixed = new_text, fixed + len(chosen)
        analyze_text(result, text, project.rules, project.settings)
        resolve(project, result)
    if fixed == 0:
        return None
    result.source = replace(result.source, text=text)
    return FixOutcome(text, fixed)
