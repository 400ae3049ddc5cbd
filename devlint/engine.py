"""The run: files in, findings (and fixed text) out.

Per file (analysis.py, in worker processes or from the cache): read bytes,
decode, parse once, one traversal (facts + candidates). Per project: merge the
facts into an index, then resolve every candidate into a Finding with the scope
knowledge only the whole project has. Fixing re-analyses a file against the
same index until no applicable fix is left.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from devlint.analysis import FileAnalysis, FileJob, analyze_text
from devlint.cache import Cache, CheckedFile, ProjectFindings
from devlint.candidates import Candidate, Needed, Requirement
from devlint.config import DEFAULT_EXCLUDE, Config, ConfigError, is_packaged
from devlint.discovery import find_project_root, marks_a_project
from devlint.facts import ReturnedOutput
from devlint.findings import Applicability, Finding
from devlint.fixer import apply_fixes, choose_fixes, verify
from devlint.named_calls import may_call
from devlint.notebook import NotebookSource, decode_file, is_notebook
from devlint.rules import SelectionError, all_rules, select_codes
from devlint.rules.base import Rule, RuleSettings
from devlint.runner import Runner, content_digest
from devlint.source import SourceError, SourceText, split_lines
from devlint.stars import star_bound

if TYPE_CHECKING:  # a run the findings cache answers loads none of these
    from devlint.index import ProjectIndex

MAX_FIX_PASSES = 4
"""Fixing converges in one or two passes; the bound stops a rule that keeps rewriting."""

PROCESSOR_MARKERS = (b"return_tensors", b"apply_chat_template")
"""Without one of these in any file of a project, no processor output exists there."""


@dataclass(frozen=True)
class Overrides:
    """What the command line says on top of (and before) the configuration files."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass
class FileResult:
    """One file: its analysis and, after resolution, its findings."""

    path: Path
    display: str
    job: FileJob
    """Where the file is in its project; what to run there once ``choose_rules`` chose."""
    analysis: FileAnalysis = field(default_factory=FileAnalysis)
    findings: list[Finding] = field(default_factory=list)
    _source: SourceText | None = None
    _original: bytes | None = None
    analysed_digest: bytes | None = None
    """``content_digest`` of the bytes the analysis read (None: unknown)."""
    in_view: bool = True
    """Whether the run's paths name the file: False for the rest of its project, which
    is analysed so that the named files' findings are complete, never reported or fixed."""

    @property
    def original(self) -> bytes:
        """The bytes the findings are about, read once (only files that need them are read)."""
        if self._original is None:
            try:
                self._original = self.path.read_bytes()
            except OSError:
                self._original = b""
        return self._original

    @property
    def source(self) -> SourceText | None:
        """The decoded text, or None when the file cannot be read or decoded."""
        if self._source is None:
            try:
                self._source = decode_file(self.path, self.original)
            except SourceError:
                return None
        return self._source

    def changed_since_analysis(self) -> bool:
        """Whether the file's bytes (read now, if not yet) differ from those analysed."""
        return self.analysed_digest is not None and (
            content_digest(self.original) != self.analysed_digest
        )

    def replace_text(self, text: str) -> None:
        assert self._source is not None
        self._source = replace(self._source, text=text)

    def reported_findings(self) -> list[Finding]:
        """The findings as the user reads them: in a notebook, rows count within the cell."""
        if self.findings and is_notebook(self.path) and isinstance(self.source, NotebookSource):
            return self.source.to_cells(self.findings)
        return self.findings


@dataclass
class Project:
    """Files sharing a project root: one configuration, one index."""

    root: Path
    config: Config
    overrides: Overrides = Overrides()
    files: list[FileResult] = field(default_factory=list)
    index: ProjectIndex | None = None
    cache_dir: Path | None = None
    """Where analyses of this project's files are cached; None: no cache."""

    def viewed(self) -> list[FileResult]:
        """The files the run reports and fixes."""
        return [result for result in self.files if result.in_view]

    @cached_property
    def rules(self) -> tuple[Rule, ...]:
        """The rules on in the project, chosen (and their modules imported) only once a
        file is to be analysed: a run the findings cache answers needs none."""
        codes = enabled_codes(self.config, self.overrides)
        return tuple(rule for rule in all_rules() if rule.code in codes)

    @cached_property
    def settings(self) -> RuleSettings:
        return RuleSettings(
            processor_names=frozenset(self.config.processor_names),
            processor_outputs=self._mentions_processors(),
            mentions=not self.packaged,
        )

    @cached_property
    def packaged(self) -> bool:
        """The project is packaged for others to install (``config.is_packaged``)."""
        return is_packaged(self.root)

    def _mentions_processors(self) -> bool:
        return any(_mentions(result, PROCESSOR_MARKERS) for result in self.files)


def _mentions(result: FileResult, markers: Iterable[bytes]) -> bool:
    """Whether the file's bytes contain one of ``markers`` (a cheap test before any parsing)."""
    data = _bytes_now(result)
    return data is not None and any(marker in data for marker in markers)


def _bytes_now(result: FileResult) -> bytes | None:
    """The bytes already held (a buffer read from stdin), else read afresh and not kept:
    questions about every file of a big project must not hold them all."""
    try:
        return result.path.read_bytes() if result._original is None else result._original
    except OSError:
        return None


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


def module_name(
    path: Path, root: Path, packages: dict[Path, tuple[str, ...]] | None = None
) -> tuple[str, bool]:
    """The dotted name Python would import ``path`` as, and whether it is a package.

    Inside packages (folders with ``__init__.py``) the name goes up to the top
    package. Other files are named by their path from the project root
    (``scripts/model.py`` -> ``scripts.model``): unique within the project, and
    the index matches imports like ``from model import Net`` to it (see
    ``ProjectIndex.resolve``). ``packages``: what is known of folders already asked
    (shared by the files of a run, so that each folder is looked at once).
    """
    path = Path(os.path.abspath(path))
    is_package = path.name == "__init__.py"
    package = _package(path.parent, {} if packages is None else packages)
    if not package:
        try:
            relative = path.relative_to(Path(os.path.abspath(root))).with_suffix("")
        except ValueError:
            return path.stem, is_package
        return ".".join(relative.parts), is_package
    return ".".join(package if is_package else (*package, path.stem)), is_package


def _package(folder: Path, known: dict[Path, tuple[str, ...]]) -> tuple[str, ...]:
    """The dotted name's parts of the package ``folder`` is, from the top one (empty: not
    a package)."""
    if folder not in known:
        inside = folder.parent != folder and (folder / "__init__.py").is_file()
        known[folder] = (*_package(folder.parent, known), folder.name) if inside else ()
    return known[folder]


def resolve(project: Project, result: FileResult) -> None:
    """Turn the file's candidates into findings, given the project index."""
    assert project.index is not None
    if result.analysis.error is not None:
        result.findings = [result.analysis.error]
        return
    if result.analysis.not_checked:
        return  # nothing to resolve: the run reports the file as not checked
    ignored = project.config.ignored_codes(result.path)
    rules = {rule.code: rule for rule in project.rules}
    findings = []
    literal_moves = _LiteralMoves()
    for candidate in result.analysis.candidates:
        rule = rules.get(candidate.code)
        if rule is None:
            continue
        if candidate.suppressed or _matches_any(candidate.code, ignored):
            if rule.replaces_literal_devices:
                literal_moves.drop(candidate)  # silenced, but the literal stays
            continue
        if candidate.needs and not any(map(project.index.holds, candidate.needs)):
            continue  # it depends on another file's flow, which does not show it
        if not all(map(project.index.holds, candidate.provided)):
            continue  # made from another file's data, which its flow does not show
        scope = project.index.scope_info(candidate.scope)
        never_runs = project.index.never_runs(candidate.scope, result.job.module)
        verdict = None if never_runs else rule.resolve(candidate, scope, project.index)
        if verdict is None:
            if rule.replaces_literal_devices:
                literal_moves.drop(candidate)
            continue
        finding = Finding(
            result.display,
            rule.code,
            rule.name,
            verdict.message,
            candidate.start,
            candidate.end,
            verdict.fix,
        )
        if rule.replaces_literal_devices:
            literal_moves.add(candidate, finding)
        findings.append(finding)
    findings = literal_moves.together(findings)
    if is_notebook(result.path) and isinstance(result.source, NotebookSource):
        findings = result.source.restrict(findings)  # none on masked IPython lines
    result.findings = sorted(findings, key=Finding.sort_key)


class _LiteralMoves:
    """The literal device choices of a file's functions (``Rule.replaces_literal_devices``),
    whose fixes go together: a function that keeps one literal (its rules drop it, or find
    it without a fix) keeps them all, as a fix would move its other values to an anchor that
    may not be the device the literal names (a CPU input's ``.device`` next to a kept
    ``.cuda()``); and one unsafe fix makes the function's other fixes unsafe too, so that a
    run without ``--unsafe-fixes`` does not apply half of them."""

    def __init__(self) -> None:
        self._found: dict[str, list[Finding]] = {}
        self._dropped: dict[str, list[Candidate]] = {}

    def drop(self, candidate: Candidate) -> None:
        if candidate.scope.function_name is not None:
            self._dropped.setdefault(candidate.scope.function_name, []).append(candidate)

    def add(self, candidate: Candidate, finding: Finding) -> None:
        if candidate.scope.function_name is not None:  # module level: no values to keep together
            self._found.setdefault(candidate.scope.function_name, []).append(finding)

    def together(self, findings: list[Finding]) -> list[Finding]:
        changed: dict[int, Finding] = {}
        for function, found in self._found.items():
            fixes = [(finding, finding.fix) for finding in found if finding.fix is not None]
            if len(fixes) < len(found) or any(
                # another rule may report the same call (DEV001 its literal, DEV011 the move)
                not any(f.start <= dropped.end and dropped.start <= f.end for f in found)
                for dropped in self._dropped.get(function, ())
            ):
                changed.update((id(finding), replace(finding, fix=None)) for finding, _ in fixes)
            elif any(fix.applicability is Applicability.UNSAFE for _, fix in fixes):
                for finding, fix in fixes:
                    unsafe = replace(fix, applicability=Applicability.UNSAFE)
                    changed[id(finding)] = replace(finding, fix=unsafe)
        return [changed.get(id(finding), finding) for finding in findings]


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
    files: Iterable[Path],
    config_for: Callable[[Path], Config],
    overrides: Overrides,
    *,
    prefilter: bool = True,
    named: Collection[Path] | None = None,
) -> list[Project]:
    """Group files by project root; each project gets its configuration once, and each
    file a job saying where it is (``choose_rules`` adds what to run).

    ``named``: the files in the run's view (see ``Discovery``); None: all of them.
    """
    projects: dict[Path, Project] = {}
    packages: dict[Path, tuple[str, ...]] = {}
    for path in files:
        root = find_project_root(path)
        project = projects.get(root)
        if project is None:
            config = config_for(path.parent if path.is_file() else path)
            project = projects[root] = Project(root, config, overrides)
        display = display_path(path)
        name, is_package = module_name(path, root, packages)
        where = (str(path), display, _relative_to(path, root), name, is_package)
        job = FileJob(*where, codes=(), settings=RuleSettings(), prefilter=prefilter)
        in_view = named is None or path in named
        project.files.append(FileResult(path, display, job, in_view=in_view))
    return list(projects.values())


def choose_rules(project: Project) -> None:
    """Give the project's jobs their rules and settings: only once its files are to be
    analysed, as choosing imports every rule and reads every file for the settings."""
    chosen = tuple(rule.code for rule in project.rules)
    for result in project.files:
        result.job = replace(result.job, codes=chosen, settings=project.settings)


def check_projects(
    projects: Iterable[Project], runner: Runner, *, reuse_findings: bool = False
) -> None:
    """Analyse every file (all projects in one batch), then index and resolve per project.

    ``reuse_findings`` (a check, which needs no index afterwards): a project whose files
    and configuration are all as a cached run saw them gets that run's findings.
    """
    projects = list(projects)
    remember: dict[int, str] = {}
    if reuse_findings and not runner.buffers:
        remember = {id(p): key for p in projects if (key := _findings_key(p)) is not None}
        projects = [p for p in projects if not _restore_findings(p, remember.get(id(p)), runner)]
    _analyse_and_resolve(projects, runner)
    for project in projects:
        key = remember.get(id(project))
        if key is not None and project.cache_dir is not None:
            checked = (
                CheckedFile(tuple(r.findings), r.analysis.parsed, r.analysis.not_checked)
                for r in project.files
            )
            Cache(project.cache_dir).put(key, ProjectFindings(tuple(checked)))


def _findings_key(project: Project) -> str | None:
    """The key of the project's findings in its cache (None: no cache). It holds what
    chooses the rules (the configuration, the command line's selection; devlint's code
    is in every key), not the rules: a run the cache answers imports no rule."""
    if project.cache_dir is None:
        return None
    shared = (str(project.root), project.config, project.overrides, project.packaged)
    return Cache.project_key(shared, ((r.job, _bytes_now(r)) for r in project.files))


def _restore_findings(project: Project, key: str | None, runner: Runner) -> bool:
    """Give the project's files the findings cached under ``key``, if any."""
    if key is None or project.cache_dir is None:
        return False
    entry = Cache(project.cache_dir).get_project(key)
    if entry is None or len(entry.files) != len(project.files):
        return False
    for result, checked in zip(project.files, entry.files, strict=True):
        result.analysis = FileAnalysis(parsed=checked.parsed, not_checked=checked.not_checked)
        result.findings = list(checked.findings)
    runner.restored([result.job for result in project.files])
    return True


def _analyse_and_resolve(projects: list[Project], runner: Runner) -> None:
    for project in projects:  # first: a bad selection stops the run before any work
        choose_rules(project)
    work = [
        (result.job, Cache(project.cache_dir) if project.cache_dir else None)
        for project in projects
        for result in project.files
    ]
    results = [result for project in projects for result in project.files]
    for result, analysis in zip(results, runner.analyze(work), strict=True):
        result.analysis = analysis
        result.analysed_digest = runner.digests.get(result.job.path)
        if analysis.facts is not None:  # later passes need not ask CPython again
            result.job = replace(result.job, read_before=True)
    _bind_star_imports(projects, runner)
    for project in projects:
        _index(project)
    _parse_skipped_files_that_matter(projects, runner)
    _follow_returned_output(projects, runner)
    _parse_files_flow_needs(projects, runner)
    _summarise_returned_calls(projects, runner)
    for project in projects:
        for result in project.files:
            resolve(project, result)


def _bind_star_imports(projects: list[Project], runner: Runner) -> None:
    """Analyse again the files whose star imports bind names that other files of the
    project define or import (``devlint.stars``), the walk knowing them: ``torch`` and
    ``nn`` reach many a file only so. Files without a star import are not touched; the
    names a file is analysed with are part of its cache key, so a change in a file its
    star imports read gives a new analysis."""
    work: list[tuple[FileResult, FileJob, Cache | None]] = []
    for project in projects:
        facts = {r.job.module: r.analysis.facts for r in project.files if r.analysis.facts}
        if not any(found.stars for found in facts.values()):
            continue
        bound = star_bound(facts)
        cache = Cache(project.cache_dir) if project.cache_dir else None
        for result in project.files:
            if result.analysis.facts is None:
                continue
            names = bound.get(result.job.module, ())
            if names != result.job.star_bound:
                work.append((result, replace(result.job, star_bound=names), cache))
    analyses = runner.analyze([(job, cache) for _, job, cache in work]) if work else []
    for (result, job, _), analysis in zip(work, analyses, strict=True):
        result.job, result.analysis = job, analysis
        result.analysed_digest = runner.digests.get(job.path)


def _index(project: Project, *, same_structure: bool = False) -> None:
    """(Re)build the project's index; ``same_structure``: the files' modules, classes,
    functions and imports are as the current index has them, so what it derived from
    them holds."""
    from devlint.index import ProjectIndex

    project.index = ProjectIndex(
        (r.analysis.facts for r in project.files if r.analysis.facts is not None),
        project.config.device_aware_bases,
        project.config.distributed,
        packaged=project.packaged,
        names_without_facts=_names_without_facts(project),
        same_structure=project.index if same_structure else None,
    )


def _names_without_facts(project: Project) -> frozenset[str] | None:
    """The names the texts of the project's files that gave no facts use (a Python 2 file,
    which does not parse, still names the code it runs: ``facts.written_words``); None
    where some file's names are unknown: one cannot be read, the configuration excludes
    files beyond the defaults (an excluded script still runs the code it names), or no
    marker (``.git``, ``pyproject.toml``...) says where the project is, so that a run of one
    folder reads the rest of it."""
    if not project.settings.mentions:
        return frozenset()
    if not marks_a_project(project.root):
        return None  # no project around the files named: its other files are unread
    config = project.config
    if config.extend_exclude or set(config.exclude) - set(DEFAULT_EXCLUDE):
        return None
    from devlint.facts import written_words

    names: set[str] = set()
    for result in project.files:
        if result.analysis.facts is None:
            data = _bytes_now(result)
            if data is None:
                return None
            names |= written_words(data.decode("utf-8", "replace"))
    return frozenset(names)


def _structure(result: FileResult) -> object:
    facts = result.analysis.facts
    return (facts.aliases, facts.classes, facts.functions) if facts is not None else None


def _parse_skipped_files_that_matter(projects: list[Project], runner: Runner) -> None:
    """Parse the files the prefilter skipped, where only the whole project says they matter.

    Rules that keep candidates only in model code (or data pipelines) leave a file
    with their triggers ``pending`` until the index says whether it defines such code; it
    is then walked only by the rules that may report there (``FileJob.asked``). And
    ``return f(...)`` tells the index that a function returns whatever ``f`` returns,
    a fact only the libcst traversal records, in any file: it matters when ``f``
    returns processor output, so the skipped files naming such a function are judged
    again, the prefilter knowing the names (DEV004's screen then looks for their calls).
    That can find more such functions: the index is rebuilt and the search repeated.
    """
    first_round = True
    while True:
        work: list[tuple[FileResult, FileJob, Cache | None]] = []
        for project in projects:
            index = project.index
            assert index is not None
            names = frozenset(index.returning_output())
            cache = Cache(project.cache_dir) if project.cache_dir else None
            for result in project.files:
                if result.analysis.parsed:
                    continue
                settings = _knowing_output(result.job.settings, index)
                # What code is model code does not change as the rounds add facts. Parsed
                # knowing the names found so far, a file needs no later pass unless more are.
                asked = _asked(project, result) if first_round else ()
                new_names = settings != result.job.settings
                if asked:
                    if new_names and _calls_any(result, names, index.returning_on_any_receiver):
                        job = replace(result.job, prefilter=False, settings=settings)
                    else:  # no other rule's verdict changes: only the asked ones walk it
                        job = replace(result.job, settings=settings, asked=asked)
                    work.append((result, job, cache))
                elif new_names:
                    if _calls_any(result, names, index.returning_on_any_receiver):
                        work.append((result, replace(result.job, settings=settings), cache))
                    else:  # knowing the names changes nothing here: no later pass asks again
                        result.job = replace(result.job, settings=settings)
        first_round = False
        # Files parsed here add no fact but these (they had no trigger of a rule adding one).
        if not _reanalyse(projects, work, runner):
            return


def _knowing_output(settings: RuleSettings, index: ProjectIndex) -> RuleSettings:
    """``settings`` knowing the names under which the index found functions returning
    processor output, and which of them a call on any receiver may reach."""
    return replace(
        settings,
        returning_output=frozenset(index.returning_output()),
        returning_on_any_receiver=index.returning_on_any_receiver,
    )


def _returned_output(result: FileResult) -> set[ReturnedOutput]:
    facts = result.analysis.facts
    return {f for f in facts.facts if isinstance(f, ReturnedOutput)} if facts is not None else set()


def _calls_any(
    result: FileResult, names: Iterable[str], on_any_receiver: frozenset[str] = frozenset()
) -> bool:
    """Whether the file's code (decoded: any encoding, a notebook's cells) may call one of
    the functions (``may_call``); only such calls can be DEV004's. A file the prefilter let
    skip libcst is judged as DEV004's screen would judge it: by the names it binds."""
    data = _bytes_now(result)
    try:
        text = decode_file(result.path, data).text if data is not None else ""
    except SourceError:
        return False
    facts = result.analysis.facts
    bound = frozenset(facts.aliases) if facts is not None and not result.analysis.parsed else None
    return may_call(text, frozenset(names), bound, on_any_receiver)


def _asked(project: Project, result: FileResult) -> tuple[str, ...]:
    """The rules waiting on the index (``FileAnalysis.pending``) that may report here."""
    facts, index = result.analysis.facts, project.index
    if facts is None or index is None:
        return ()
    rules = {rule.code: rule for rule in project.rules}
    return tuple(
        code
        for code, sightings in result.analysis.pending
        if code in rules and rules[code].may_report_in(facts, index, sightings)
    )


def _reanalyse(
    projects: list[Project], work: list[tuple[FileResult, FileJob, Cache | None]], runner: Runner
) -> bool:
    """Analyse the files again; rebuild the index of every project where a file's
    returned-output facts changed. Whether any did: there may be more functions
    returning processor output, and more files to analyse again."""
    if not work:
        return False
    before = {id(result): (_returned_output(result), _structure(result)) for result, _, _ in work}
    analyses = runner.analyze([(job, cache) for _, job, cache in work])
    learnt, restructured = set(), set()
    for (result, job, _), analysis in zip(work, analyses, strict=True):
        result.job, result.analysis = job, analysis
        result.analysed_digest = runner.digests.get(job.path)
        returned, structure = before[id(result)]
        if _returned_output(result) != returned:
            learnt.add(id(result))
        if _structure(result) != structure:  # e.g. libcst rejects what ast read
            restructured.add(id(result))
    for project in projects:
        if any(id(result) in learnt for result in project.files):
            # In file order: which origin a message names depends on it.
            same = not any(id(result) in restructured for result in project.files)
            _index(project, same_structure=same)
    return bool(learnt)


def _follow_returned_output(projects: list[Project], runner: Runner) -> None:
    """Later passes for the files that call functions returning processor output.

    Only the whole project tells which functions return unmoved processor output
    (through other functions, in other files). Following every call's result in
    the first pass would cost much; instead, the few files that name one of the
    functions found so far are analysed again, knowing their names. That can find
    more (``out = g(t); return out`` makes ``f`` one): the index is rebuilt and the
    files naming the new functions analysed again, until no new one turns up.
    """
    while True:
        work: list[tuple[FileResult, FileJob, Cache | None]] = []
        for project in projects:
            assert project.index is not None
            names = project.index.returning_output() if project.settings.processor_outputs else ()
            if not names:
                continue
            settings = _knowing_output(project.settings, project.index)
            cache = Cache(project.cache_dir) if project.cache_dir else None
            for result in project.files:
                if result.analysis.facts is None or result.job.settings == settings:
                    continue  # a DEV000, or analysed knowing these names already
                if _calls_any(result, names, project.index.returning_on_any_receiver):
                    # A file parsed once (perhaps because the index asked) stays parsed.
                    prefilter = result.job.prefilter and not result.analysis.parsed
                    job = replace(result.job, settings=settings, prefilter=prefilter)
                    work.append((result, job, cache))
        if not _reanalyse(projects, work, runner):
            return


def _reported_if_shown(
    candidate: Candidate, rules: Mapping[str, Rule], index: ProjectIndex
) -> bool:
    """Whether the rule would report ``candidate`` where it stands, were its needs shown:
    only then is another file's flow worth a second analysis."""
    rule = rules.get(candidate.code)
    return (
        rule is not None
        and not candidate.suppressed
        and rule.resolve(candidate, index.scope_info(candidate.scope), index) is not None
    )


def _parse_files_flow_needs(projects: list[Project], runner: Runner) -> None:
    """Analyse again the files whose flow facts a candidate needs (``Candidate.needs``,
    ``Candidate.provided``), naming what to compute: the summaries of the callees it hands
    CPU tensors to or made its data, and in the callers of a function returning one,
    whether its result meets the device.
    Skipped files are parsed (a helper that makes no tensor has a summary). One round:
    a file parsed here adds no candidate that needs more (it had no rule's trigger)."""
    for project in projects:
        index = project.index
        assert index is not None
        rules = {rule.code: rule for rule in project.rules}
        needs = {
            need
            for result in project.files
            for candidate in result.analysis.candidates
            if (candidate.needs or candidate.provided)
            and _reported_if_shown(candidate, rules, index)
            for need in (*candidate.needs, *candidate.provided)
        }
        summaries: dict[str, set[str]] = {}
        results: dict[str, set[str]] = {}
        for need in needs:
            for module in index.modules_showing(need):
                if need.kind in (Needed.RESULT_MEETS, Needed.RESULTS_JOINED):
                    results.setdefault(module, set()).add(need.function.rpartition(".")[2])
                else:
                    summaries.setdefault(module, set()).add(index.about(need))
        cache = Cache(project.cache_dir) if project.cache_dir else None
        work, shown = [], False
        for result in project.files:
            module = result.job.module
            if result.analysis.facts is None or (module not in summaries and module not in results):
                continue
            settings = replace(
                result.job.settings,
                flow_summaries=frozenset(summaries.get(module, ())),
                flow_results=frozenset(results.get(module, ())),
            )
            prefilter = result.job.prefilter and result.analysis.parsed
            job = replace(result.job, settings=settings, prefilter=prefilter)
            analysis = _shown_already(result, job)
            if analysis is None:
                work.append((result, job, cache))
            else:
                result.job, result.analysis, shown = job, analysis, True
        if work or shown:  # the facts the files add leave their structure as it was
            _index(project, same_structure=not work or _analyse_again(work, runner))


def _shown_already(result: FileResult, job: FileJob) -> FileAnalysis | None:
    """The analysis ``job`` gives, made from the file's own without parsing it again: when
    ``job`` only adds to a job that asked for no flow fact where results of functions meet
    the device (``flow_results``), and the walk that found the file's candidates already
    followed them (``FileAnalysis.results_meeting``)."""
    analysis, before, asked = result.analysis, result.job.settings, job.settings
    followed = analysis.results_meeting
    if followed is None or analysis.facts is None:
        return None
    if before.flow_summaries or before.flow_results or asked.flow_summaries:
        return None
    if replace(result.job, settings=replace(before, flow_results=asked.flow_results)) != job:
        return None
    found = followed.facts(asked.flow_results)
    if found is None:
        return None
    return replace(analysis, facts=replace(analysis.facts, facts=analysis.facts.facts + found))


def _analyse_again(work: list[tuple[FileResult, FileJob, Cache | None]], runner: Runner) -> bool:
    """Analyse the files again with their new jobs; whether their modules, classes,
    functions and imports stayed as they were (what the index may keep)."""
    structures = [_structure(result) for result, _, _ in work]
    analyses = runner.analyze([(job, cache) for _, job, cache in work])
    for (result, job, _), analysis in zip(work, analyses, strict=True):
        result.job, result.analysis = job, analysis
        result.analysed_digest = runner.digests.get(job.path)
    return structures == [_structure(result) for result, _, _ in work]


MAX_SUMMARY_DEPTH = 3
"""How many calls deep a function's result is followed into other files' functions."""


def _summarise_returned_calls(projects: list[Project], runner: Runner) -> None:
    """Analyse again the files defining the functions whose results the summaries found so
    far may return (``FlowSummary.returns_via``), to summarise them too: a helper's result
    follows its argument through another file's helper (``deg2rad`` inside
    ``angle_to_rotation_matrix``). A few rounds, one call deeper each."""
    for _ in range(MAX_SUMMARY_DEPTH):
        work: list[tuple[FileResult, FileJob, Cache | None]] = []
        touched = []
        for project in projects:
            assert project.index is not None
            wanted = project.index.unsummarised_callees()
            if not wanted:
                continue
            modules: dict[str, set[str]] = {}
            for function in wanted:
                for module in project.index.modules_showing(
                    Requirement(Needed.PARAMETER_RETURNED, function)
                ):
                    modules.setdefault(module, set()).add(function)
            cache = Cache(project.cache_dir) if project.cache_dir else None
            before = len(work)
            for result in project.files:
                names = modules.get(result.job.module)
                if result.analysis.facts is None or not names:
                    continue
                settings = result.job.settings
                summaries = settings.flow_summaries | names
                if summaries == settings.flow_summaries:
                    continue
                job = replace(
                    result.job,
                    settings=replace(settings, flow_summaries=summaries),
                    prefilter=result.job.prefilter and result.analysis.parsed,
                )
                work.append((result, job, cache))
            if len(work) > before:
                touched.append(project)
        if not work:
            return
        same = _analyse_again(work, runner)
        for project in touched:
            _index(project, same_structure=same)


@dataclass(frozen=True)
class FixOutcome:
    """What fixing one file produced: the new text, or why there is none."""

    text: str
    fixed: int
    error: str | None = None
    details: str = ""
    """For ``--debug``: the edits and the resulting diff behind an error."""


def fix_file(project: Project, result: FileResult, *, unsafe: bool) -> FixOutcome | None:
    """Apply fixes to the file's text until none applies; None when nothing changed.

    The file's result is updated to the findings left in the fixed text. Every
    pass is verified; if a fix produces invalid code the file is left untouched
    and the outcome names the rule, since that is a devlint bug.
    """
    if not choose_fixes(result.findings, unsafe=unsafe) or result.source is None:
        return None
    if result.changed_since_analysis():
        # The findings' positions are about other bytes: applying them would corrupt the file.
        return FixOutcome(result.source.text, 0, "changed on disk after devlint read it")
    original = text = result.source.text
    fixed = 0
    for _ in range(MAX_FIX_PASSES):
        chosen = choose_fixes(result.findings, unsafe=unsafe)
        if not chosen:
            break
        new_text = apply_fixes(text, [finding.fix for finding in chosen if finding.fix])
        problem = verify(new_text, original, result.display)
        if problem is not None:
            # Blame the fixes that break the code on their own (else all of this pass's).
            culprits = [
                finding
                for finding in chosen
                if finding.fix
                and verify(apply_fixes(text, [finding.fix]), original, result.display) is not None
            ] or chosen
            codes = ", ".join(sorted({finding.code for finding in culprits}))
            message = f"fix by {codes} produced invalid code ({problem})"
            return FixOutcome(original, 0, message, _failure_details(culprits, text, new_text))
        text, fixed = new_text, fixed + len(chosen)
        result.replace_text(text)  # the text the findings are about (notebooks map rows by it)
        job = replace(result.job, prefilter=False, read_before=False)  # new text
        result.analysis = analyze_text(job, text)
        resolve(project, result)
    result.replace_text(text)
    return FixOutcome(text, fixed)


def _failure_details(chosen: Iterable[Finding], before: str, after: str) -> str:
    """What ``--debug`` shows of a fix that broke the code: each edit, then the diff."""
    lines = []
    for finding in chosen:
        assert finding.fix is not None
        for edit in finding.fix.edits:
            lines.append(
                f"  {finding.code} at {finding.start.row}:{finding.start.column}: replace "
                f"{edit.start.row}:{edit.start.column}-{edit.end.row}:{edit.end.column} "
                f"with {edit.content!r}\n"
            )
    diff = difflib.unified_diff(split_lines(before), split_lines(after), "before", "after")
    return "".join(["edits applied together:\n", *lines, *diff])
