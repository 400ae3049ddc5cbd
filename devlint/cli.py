"""The command line: ``devlint check``, ``fix``, ``rules``, ``rule``.

Exit codes (as ruff's): 0 nothing left to report, 1 findings (or pending fixes)
left, 2 usage, configuration or internal error. No traceback without ``--debug``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar, get_args

import click
from rich.console import Console
from rich.table import Table

from devlint import __version__
from devlint.cache import CACHE_FOLDER
from devlint.config import (
    Config,
    ConfigError,
    config_for_directory,
    formatter_line_length,
    load_config,
)
from devlint.discovery import Discovery, DiscoveryError, discover
from devlint.docs import rule_documentation, rule_examples
from devlint.engine import FileResult, Overrides, Project, check_projects, fix_file, plan_projects
from devlint.findings import Applicability, Finding
from devlint.fixer import (
    FixError,
    choose_fixes,
    long_fixed_lines,
    remove_stale_temporaries,
    write_atomically,
)
from devlint.progress import progress_for
from devlint.report import OutputFormat
from devlint.report.github import render_github
from devlint.report.json import render_json
from devlint.report.statistics import (
    count_by_rule,
    render_statistics_json,
    render_statistics_text,
)
from devlint.report.text import render_summary, render_text
from devlint.rules import SelectionError, all_rules, rule_by_code
from devlint.runner import Runner
from devlint.source import split_lines
from devlint.stdin import STDIN, StdinBuffer, adopt, buffer_result, discover_buffer

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

F = TypeVar("F", bound=Callable[..., Any])


class UserError(Exception):
    """A problem the user can fix (a bad path, a bad config): one line, exit 2."""


@dataclass(frozen=True)
class RunOptions:
    """The options ``check`` and ``fix`` share."""

    paths: tuple[Path, ...]
    overrides: Overrides
    unsafe_fixes: bool | None
    output_format: str
    statistics: bool
    exit_zero: bool
    config: Path | None
    quiet: bool
    force_exclude: bool
    respect_gitignore: bool | None
    """Overrides the configuration's ``respect-gitignore``; None: as configured."""
    no_cache: bool
    cache_dir: Path | None
    jobs: int | None
    prefilter: bool
    debug: bool
    color: bool | None
    stdin: StdinBuffer | None = None
    """Source read from stdin (``-`` or ``--stdin-filename``), checked as its path."""


def _codes(value: str | None, option: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    codes = tuple(code.strip() for code in value.split(",") if code.strip())
    if not codes:
        raise UserError(f"{option}: no rule codes given")
    return codes


def shared_options(command: F) -> F:
    """Options common to ``check`` and ``fix`` (in the order ``--help`` lists them)."""
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option("--select", help="Comma-separated rule codes or prefixes to enable."),
        click.option("--extend-select", help="Codes to enable on top of the selection."),
        click.option("--ignore", help="Codes to disable."),
        click.option(
            "--unsafe-fixes/--no-unsafe-fixes",
            default=None,
            help="Also apply (or show as applicable) fixes marked unsafe.",
        ),
        click.option(
            "--output-format",
            type=click.Choice(get_args(OutputFormat)),
            default="text",
            show_default=True,
        ),
        click.option(
            "--statistics",
            is_flag=True,
            help="Print a count per rule instead of the findings (text or json).",
        ),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are left."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the cache."),
        click.option("--cache-dir", type=click.Path(path_type=Path), help="Cache location."),
        click.option("--jobs", type=click.IntRange(min=1), help="Worker processes."),
        click.option(
            "--no-prefilter",
            is_flag=True,
            hidden=True,  # for the benchmark and tests: findings must not change
            help="Parse every file, even those no rule has a trigger in.",
        ),
        click.option(
            "--config",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Use this TOML file instead of the nearest pyproject.toml.",
        ),
        click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary."),
        click.option(
            "--force-exclude",
            is_flag=True,
            help="Apply exclude to paths given explicitly too (for pre-commit).",
        ),
        click.option(
            "--respect-gitignore/--no-respect-gitignore",
            default=None,
            help="Skip files .gitignore ignores (default: the respect-gitignore setting, true).",
        ),
        click.option(
            "--stdin-filename",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Read the source from stdin and check it as this file (PATHS: `-` or none).",
        ),
        click.option("--color/--no-color", default=None, help="Force colour on or off."),
        click.option("--debug", is_flag=True, help="Show tracebacks on internal errors."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _run_options(paths: tuple[Path, ...], **kwargs: Any) -> RunOptions:
    if kwargs["statistics"] and kwargs["output_format"] not in ("text", "json"):
        raise UserError(
            f"--statistics cannot be used with --output-format {kwargs['output_format']} "
            "(only with text or json)"
        )
    return RunOptions(
        paths=paths or (Path("."),),
        overrides=Overrides(
            select=_codes(kwargs["select"], "--select"),
            extend_select=_codes(kwargs["extend_select"], "--extend-select") or (),
            ignore=_codes(kwargs["ignore"], "--ignore") or (),
        ),
        unsafe_fixes=kwargs["unsafe_fixes"],
        output_format=kwargs["output_format"],
        statistics=kwargs["statistics"],
        exit_zero=kwargs["exit_zero"],
        config=kwargs["config"],
        quiet=kwargs["quiet"],
        force_exclude=kwargs["force_exclude"],
        respect_gitignore=kwargs["respect_gitignore"],
        no_cache=kwargs["no_cache"],
        cache_dir=kwargs["cache_dir"],
        jobs=kwargs["jobs"],
        prefilter=not kwargs["no_prefilter"],
        debug=kwargs["debug"],
        color=kwargs["color"],
        stdin=_stdin(paths, kwargs["stdin_filename"]),
    )


def _stdin(paths: tuple[Path, ...], stdin_filename: Path | None) -> StdinBuffer | None:
    """The buffer to check when PATHS is ``-`` or ``--stdin-filename`` is given, else None."""
    if STDIN not in paths and stdin_filename is None:
        return None
    if any(path != STDIN for path in paths):
        raise UserError("stdin (`-`, `--stdin-filename`) cannot be checked with other paths")
    return StdinBuffer(stdin_filename or STDIN, sys.stdin.buffer.read())


def guarded(command: F) -> F:
    """Turn expected errors into one line and exit 2; tracebacks only with ``--debug``."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (UserError, ConfigError, DiscoveryError, SelectionError) as error:
            click.echo(f"devlint: error: {error}", err=True)
            sys.exit(EXIT_ERROR)
        except KeyboardInterrupt:
            click.echo("devlint: interrupted", err=True)
            sys.exit(130)
        except Exception as error:
            if kwargs.get("debug"):
                traceback.print_exc()
            else:
                click.echo(
                    f"devlint: internal error: {type(error).__name__}: {error} "
                    "(run with --debug for the traceback)",
                    err=True,
                )
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def _console(color: bool | None = None, *, stderr: bool = False) -> Console:
    """A console that styles only a terminal, or as --color/--no-color say.

    A non-empty ``NO_COLOR`` (no-color.org) turns all styling off: rich alone would
    drop the colours but keep bold and underline.
    """
    if color is None:
        plain = os.environ.get("NO_COLOR", "") != ""
        return Console(stderr=stderr, highlight=False, color_system=None if plain else "auto")
    return Console(stderr=stderr, highlight=False, force_terminal=color, no_color=not color)


def _load(options: RunOptions, *, reuse_findings: bool = False) -> list[Project]:
    config_for: Callable[[Path], Config] = config_for_directory
    if options.config is not None:
        if not options.config.is_file():
            raise UserError(f"config file '{options.config}' does not exist")
        fixed = load_config(options.config)

        def the_given_config(_: Path) -> Config:
            return fixed

        config_for = the_given_config
    force, respect = options.force_exclude, options.respect_gitignore
    if options.stdin is None:
        discovery = discover(
            options.paths, config_for, force_exclude=force, respect_gitignore=respect
        )
    else:
        discovery = discover_buffer(
            options.stdin, config_for, force_exclude=force, respect_gitignore=respect
        )
    if not discovery.named and not options.quiet:
        click.echo(f"devlint: warning: {_nothing_checked(discovery)}", err=True)
    files = discovery.files
    projects = plan_projects(
        files, config_for, options.overrides, prefilter=options.prefilter, named=discovery.named
    )
    for project in projects:
        project.cache_dir = _cache_dir(options, project)
    started = time.perf_counter()
    quiet = options.quiet or options.stdin is not None
    with (
        Runner(options.jobs or os.cpu_count() or 1) as runner,
        progress_for(len(files), quiet=quiet) as progress,
    ):
        if options.stdin is not None:
            adopt(projects, runner, options.stdin)
        runner.progress = progress
        check_projects(projects, runner, reuse_findings=reuse_findings)
    if options.debug:
        stats = runner.stats
        skipped = sum(not result.analysis.parsed for p in projects for result in p.files)
        click.echo(
            f"devlint: {len(files)} files: {len(files) - skipped} parsed, {skipped} skipped by "
            f"the prefilter; {stats.analysed} analyses made, {stats.cached} from cache, "
            f"{stats.crashed} crashed the parser; {time.perf_counter() - started:.2f}s",
            err=True,
        )
    return projects


def _nothing_checked(discovery: Discovery) -> str:
    """Why a run has no file to check, and how to include what was left out."""
    reasons = []
    if discovery.excluded:
        reasons.append(f"{_count(discovery.excluded, 'given path')} excluded by `exclude`")
    if discovery.gitignored:
        ignored = _count(discovery.gitignored, "path")
        reasons.append(f"{ignored} ignored by .gitignore, which --no-respect-gitignore checks")
    because = f" ({'; '.join(reasons)})" if reasons else ""
    return f"no file checked: no .py or .ipynb file to check in the given paths{because}"


def _cache_dir(options: RunOptions, project: Project) -> Path | None:
    """``--no-cache`` > ``--cache-dir`` > ``cache-dir`` in the configuration > the default."""
    if options.no_cache:
        return None
    if options.cache_dir is not None:
        return options.cache_dir
    return project.config.cache_dir or project.root / CACHE_FOLDER


def _unsafe(options: RunOptions, project: Project) -> bool:
    if options.unsafe_fixes is not None:
        return options.unsafe_fixes
    return project.config.unsafe_fixes


def _report(
    options: RunOptions, results: Sequence[FileResult], *, unsafe: bool, console: Console
) -> None:
    """Print the results' findings in the chosen format."""
    findings = sorted(
        (f for result in results for f in result.reported_findings()), key=Finding.sort_key
    )
    if options.statistics:
        counts = count_by_rule(findings, unsafe_fixes=unsafe)
        if options.output_format == "json":
            click.echo(render_statistics_json(counts), nl=False)
            return
        render_statistics_text(counts, console)
        if not options.quiet:
            render_summary(findings, console, unsafe_fixes=unsafe)
    elif options.output_format == "json":
        click.echo(render_json(findings), nl=False)
    elif options.output_format == "sarif":
        from devlint.report.sarif import render_sarif  # here: it imports every rule

        unchecked = {r.display: r.analysis.not_checked or "" for r in _unchecked(results)}
        log = render_sarif(findings, source_root=Path.cwd(), not_checked=unchecked)
        click.echo(log, nl=False)
    elif options.output_format == "github":
        click.echo(render_github(findings), nl=False)
    else:
        shown = [r for r in results if r.findings]  # only these files are read again
        sources = {
            name: text
            for r in shown
            if r.source is not None
            for name, text in r.source.views(r.display).items()  # a notebook's: one per cell
        }
        # "All checks passed!" would not be true of a file devlint could not check.
        summary = not options.quiet and (bool(findings) or not _unchecked(results))
        render_text(findings, sources, console, unsafe_fixes=unsafe, summary=summary)


def _unchecked(results: Sequence[FileResult]) -> list[FileResult]:
    """The files devlint could not check though Python accepts them (``not_checked``)."""
    return [result for result in results if result.analysis.not_checked]


def _report_unchecked(results: Sequence[FileResult]) -> bool:
    """Say on stderr which files devlint could not check, as the tool's errors (one line
    each, whatever the output format): a limit of devlint, not a finding about the code.
    Returns whether there were any (the run then exits with 2)."""
    unchecked = _unchecked(results)
    for result in unchecked:
        click.echo(f"devlint: error: {result.display}: {result.analysis.not_checked}", err=True)
    return bool(unchecked)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="devlint", message="%(prog)s %(version)s")
def main() -> None:
    """Find and fix device bugs in PyTorch, Lightning and HuggingFace code."""


@main.command(short_help="Report device bugs (exit 1 when any is found).")
@shared_options
@guarded
def check(paths: tuple[Path, ...], **kwargs: Any) -> None:
    """Report device bugs in PATHS (default: the current folder)."""
    options = _run_options(paths, **kwargs)
    projects = _load(options, reuse_findings=True)
    unsafe = any(_unsafe(options, project) for project in projects)
    results = [result for project in projects for result in project.viewed()]
    if results or options.output_format != "text":  # no "All checks passed!" for no file
        _report(options, results, unsafe=unsafe, console=_console(options.color))
    if _report_unchecked(results):
        sys.exit(EXIT_ERROR)
    found = any(result.findings for result in results)
    sys.exit(EXIT_FINDINGS if found and not options.exit_zero else EXIT_CLEAN)


def unified_diff(display: str, before: str, after: str) -> str:
    """A ``git diff``-style patch; a missing final newline is marked as diff does."""

    def lines(text: str) -> list[str]:
        split = split_lines(text) if text else []
        if split and not split[-1].endswith(("\n", "\r")):
            split[-1] += "\n\\ No newline at end of file\n"
        return split

    return "".join(
        difflib.unified_diff(lines(before), lines(after), f"a/{display}", f"b/{display}")
    )


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def coloured_diff(diff: str) -> str:
    """The diff in git's colours: file headers bold, hunk headers cyan, removed lines red,
    added ones green. Hunk headers give each hunk's length, so a removed line that starts
    with ``--`` is not taken for a header. Line ends stay outside the colour codes."""
    coloured = []
    old = new = 0  # lines of the current hunk still to come
    for line in split_lines(diff):
        body = line.rstrip("\r\n")
        style: dict[str, Any] = {"bold": True}
        if body.startswith("\\"):  # \ No newline at end of file
            style = {"dim": True}
        elif old or new:
            if body.startswith("-"):
                style, old = {"fg": "red"}, old - 1
            elif body.startswith("+"):
                style, new = {"fg": "green"}, new - 1
            else:
                style, old, new = {}, old - 1, new - 1
        elif hunk := _HUNK.match(body):
            style = {"fg": "cyan"}
            old, new = (int(count) if count is not None else 1 for count in hunk.groups())
        coloured.append(click.style(body, **style) + line[len(body) :] if style else line)
    return "".join(coloured)


def _diffs(result: FileResult, before: str, after: str) -> str:
    """The diff of a fixed file; a notebook's has one per changed cell (``path:cell N``)."""
    assert result.source is not None
    old = dataclasses.replace(result.source, text=before).views(result.display)
    new = dataclasses.replace(result.source, text=after).views(result.display)
    return "".join(
        unified_diff(name, old.get(name, ""), text)
        for name, text in new.items()
        if old.get(name) != text
    )


def _fix_stdin(options: RunOptions, projects: Sequence[Project]) -> int:
    """Print the fixed buffer, and only it, to stdout; the findings left go to stderr.

    As ruff does: the exit code is 1 when findings are left in the printed source
    (fixes are not "pending": they are in the output), 2 when a fix failed (the
    source is then printed unchanged).
    """
    assert options.stdin is not None
    out = sys.stdout.buffer
    data = options.stdin.data
    found = buffer_result(projects)
    code, left = EXIT_CLEAN, []
    if found is not None and _report_unchecked([found[1]]):
        code, found = EXIT_ERROR, None  # printed unchanged: devlint could not check it
    if found is not None:
        project, result = found
        err = _console(options.color, stderr=True)
        unsafe = _unsafe(options, project)
        outcome = fix_file(project, result, unsafe=unsafe)
        try:
            if outcome is not None and outcome.error is not None:
                raise FixError(f"{result.display}: {outcome.error}; not changed")
            if outcome is not None and result.source is not None:
                data = result.source.encode(outcome.text)
        except FixError as error:
            err.print(f"devlint: error: {error}")
            code = EXIT_ERROR
        else:
            left = result.reported_findings()
            if left and not options.quiet:
                sources = result.source.views(result.display) if result.source else {}
                render_text(left, sources, err, unsafe_fixes=unsafe)
    out.write(data)
    out.flush()
    if code == EXIT_CLEAN and left and not options.exit_zero:
        code = EXIT_FINDINGS
    return code


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {plural or noun + 's'}"


@main.command(short_help="Show fixes as a diff, or apply them with --write.")
@click.option("--write", is_flag=True, help="Apply the fixes in place (default: show a diff).")
@shared_options
@guarded
def fix(paths: tuple[Path, ...], write: bool, **kwargs: Any) -> None:
    """Fix device bugs in PATHS: print a diff, or apply the fixes with --write.

    Without --write, text output is the diff; json and --statistics describe the
    findings as `check` would. With --write they describe what is left.
    """
    options = _run_options(paths, **kwargs)
    projects = _load(options)
    if options.stdin is not None:
        sys.exit(_fix_stdin(options, projects))
    err = _console(options.color, stderr=True)
    out = _console(options.color)
    results = [result for project in projects for result in project.viewed()]
    as_checked = [dataclasses.replace(r, findings=list(r.findings)) for r in results]
    show_diff = not write and options.output_format == "text" and not options.statistics
    tally = FixTally()
    if write:  # what a killed (kill -9) earlier run may have left
        remove_stale_temporaries(result.path for result in results)
    position = -1  # in results
    for project in projects:
        unsafe = _unsafe(options, project)
        line_length = formatter_line_length(project.root)
        for result in project.viewed():
            position += 1
            before_text = result.source.text if result.source else ""
            outcome = fix_file(project, result, unsafe=unsafe)
            if outcome is None:
                continue
            if outcome.error is not None:
                message = f"devlint: error: {result.display}: {outcome.error}; not changed"
                if outcome.details and not options.debug:
                    message += " (a devlint bug: --debug shows the details to report)"
                click.echo(message, err=True)  # one line: no wrapping, no markup
                if outcome.details and options.debug:
                    click.echo(outcome.details, err=True)
                fixable = len(choose_fixes(as_checked[position].findings, unsafe=unsafe))
                tally.not_fixed(results, position, as_checked[position], fixable)
                continue
            if show_diff:
                diff = _diffs(result, before_text, outcome.text)
                styled = out.color_system is not None  # a terminal, or --color; not NO_COLOR
                click.echo(coloured_diff(diff) if styled else diff, nl=False, color=styled)
            if write:
                assert result.source is not None
                try:
                    new = result.source.encode(outcome.text)
                    write_atomically(result.path, result.original, new)
                except FixError as error:
                    click.echo(f"devlint: error: {error}", err=True)
                    tally.not_fixed(results, position, as_checked[position], outcome.fixed)
                    continue
            tally.fixed_findings += outcome.fixed
            tally.fixed_files += 1
            long_lines = long_fixed_lines(before_text, outcome.text, line_length)
            if long_lines:
                tally.long_lines += long_lines
                tally.line_lengths.add(line_length)
    sys.stdout.flush()  # the diff (stdout) before the summary (stderr) on a terminal
    unsafe_any = any(_unsafe(options, project) for project in projects)
    left = [f for result in results for f in result.findings]
    # No "All checks passed!" for no file, nor when devlint could not check one.
    summarise = not options.quiet and bool(results) and (bool(left) or not _unchecked(results))
    if write:
        if left or options.output_format != "text":
            _report(options, results, unsafe=unsafe_any, console=out)
        if summarise:
            err.print(tally.summary(left, written=True, unsafe=unsafe_any), soft_wrap=True)
    elif not show_diff:
        if results or options.output_format != "text":
            _report(options, as_checked, unsafe=unsafe_any, console=out)
    elif summarise:
        err.print(tally.summary(left, written=False, unsafe=unsafe_any), soft_wrap=True)
    if _report_unchecked(results) or tally.failed_files:
        sys.exit(EXIT_ERROR)
    pending = tally.fixed_files > 0 and not write
    sys.exit(EXIT_FINDINGS if (left or pending) and not options.exit_zero else EXIT_CLEAN)


@dataclass
class FixTally:
    """What ``fix`` did, for its summary: only fixes that were written (or, without
    --write, that would be) count as fixed."""

    fixed_findings: int = 0
    fixed_files: int = 0
    failed_findings: int = 0
    failed_files: int = 0
    long_lines: int = 0
    """Fixed lines longer than their project's formatter line length."""
    line_lengths: set[int] = dataclasses.field(default_factory=set)

    def not_fixed(
        self, results: list[FileResult], position: int, checked: FileResult, fixable: int
    ) -> None:
        """A file left as it is on disk: its findings are those it was checked with."""
        results[position] = checked
        self.failed_findings += fixable
        self.failed_files += 1

    def summary(self, left: Sequence[Finding], *, written: bool, unsafe: bool) -> str:
        """One line that says only what happened (or, without --write, would happen)."""
        if not (self.fixed_findings or self.failed_files or left):
            return "All checks passed!"
        if self.fixed_findings:
            verb = "Fixed" if written else "Would fix"
            files = _count(self.fixed_files, "file")
            parts = [f"{verb} {_count(self.fixed_findings, 'finding')} in {files}"]
        elif self.failed_files:
            parts = ["Nothing fixed"]
        else:
            parts = ["No fixes available"]
            hidden = sum(
                f.fix is not None and f.fix.applicability is Applicability.UNSAFE for f in left
            )
            if hidden and not unsafe:
                parts[0] += f" ({_count(hidden, 'fix', 'fixes')} with --unsafe-fixes)"
        if self.long_lines:
            limit = f"{min(self.line_lengths)} characters"
            if len(self.line_lengths) > 1:
                limit = "the line length"
            verb = ("is" if self.long_lines == 1 else "are") if written else "would be"
            lines = _count(self.long_lines, "fixed line")
            parts.append(f"{lines} {verb} longer than {limit} (run your formatter)")
        if self.failed_files:
            failed = _count(self.failed_findings, "fixable finding")
            in_files = _count(self.failed_files, "unchanged file")
            parts.append(f"{failed} left in {in_files} (errors above)")
        if left and not written:
            still = str(len(left)) if self.fixed_findings else _count(len(left), "finding")
            parts.append(f"{still} would be left (run `devlint check`)")
        return "; ".join(parts) + "."


@main.command("rules", short_help="List every rule, its default and fix safety.")
def list_rules() -> None:
    """List every rule: code, name, default, fix safety, summary."""
    columns = ("code", "name", "default", "fix", "summary")
    rows = [
        (
            rule.code,
            rule.name,
            "on" if rule.default_enabled else "off",
            rule.fix_safety,
            rule.summary,
        )
        for rule in all_rules()
    ]
    console = _console()
    if not console.is_terminal:  # a pipe or a CI log: one line per rule, nothing cut
        widths = [max(len(row[i]) for row in (columns, *rows)) for i in range(len(columns) - 1)]
        for row in (columns, *rows):
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            click.echo("  ".join([*cells, row[-1]]))
        return
    table = Table(header_style="bold")
    for column in columns[:-1]:
        table.add_column(column, no_wrap=True)  # codes and names are what users copy
    table.add_column(columns[-1], overflow="fold")  # a long word is folded, never cut
    for row in rows:
        table.add_row(*row)
    console.print(table)


@main.command("rule", short_help="Show one rule's documentation.")
@click.argument("code")
def show_rule(code: str) -> None:
    """Show the documentation of rule CODE (e.g. DEV004)."""
    rule = rule_by_code(code)
    if rule is None:
        click.echo(f"devlint: error: unknown rule '{code}' (see `devlint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    console = _console()
    header = f"Fix: {rule.fix_safety}. On by default: {'yes' if rule.default_enabled else 'no'}."
    if not console.is_terminal:  # a pipe: the Markdown as written, code lines never broken
        click.echo(f"{rule.code} {rule.name}\n{header}\n")
        click.echo(f"{rule_documentation(rule).rstrip()}\n\n{rule_examples(rule).rstrip()}")
        return
    from rich.markdown import Markdown  # here: it costs a tenth of a second to import

    console.print(f"[bold]{rule.code} {rule.name}[/bold]", markup=True)
    console.print(header)
    console.print()
    console.print(Markdown(rule_documentation(rule)))
    console.print()
    console.print(Markdown(rule_examples(rule)))
