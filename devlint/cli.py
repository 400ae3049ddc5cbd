"""The command line: ``devlint check``, ``fix``, ``rules``, ``rule``.

Exit codes (as ruff's): 0 nothing left to report, 1 findings (or pending fixes)
left, 2 usage, configuration or internal error. No traceback without ``--debug``.
"""

from __future__ import annotations

import dataclasses
import difflib
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar, get_args

import click
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from devlint import __version__
from devlint.config import Config, ConfigError, config_for_directory, load_config
from devlint.discovery import DiscoveryError, discover_files
from devlint.docs import rule_documentation
from devlint.engine import FileResult, Overrides, Project, check_project, fix_file, plan_projects
from devlint.findings import Applicability, Finding
from devlint.fixer import FixError, write_atomically
from devlint.report import OutputFormat
from devlint.report.json import render_json
from devlint.report.text import render_summary, render_text
from devlint.rules import SelectionError, all_rules, rule_by_code
from devlint.source import split_lines

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
    color: bool | None


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
        click.option("--statistics", is_flag=True, help="Print a count per rule instead."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are left."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the cache."),
        click.option("--cache-dir", type=click.Path(path_type=Path), help="Cache location."),
        click.option("--jobs", type=click.IntRange(min=1), help="Worker processes."),
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
        click.option("--color/--no-color", default=None, help="Force colour on or off."),
        click.option("--debug", is_flag=True, help="Show tracebacks on internal errors."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _run_options(paths: tuple[Path, ...], **kwargs: Any) -> RunOptions:
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
        color=kwargs["color"],
    )


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


def _console(color: bool | None, *, stderr: bool = False) -> Console:
    if color is None:
        return Console(stderr=stderr, highlight=False)
    return Console(stderr=stderr, highlight=False, force_terminal=color, no_color=not color)


def _load(options: RunOptions) -> list[Project]:
    config_for: Callable[[Path], Config] = config_for_directory
    if options.config is not None:
        if not options.config.is_file():
            raise UserError(f"config file '{options.config}' does not exist")
        fixed = load_config(options.config)

        def the_given_config(_: Path) -> Config:
            return fixed

        config_for = the_given_config
    files = discover_files(options.paths, config_for, force_exclude=options.force_exclude)
    projects = plan_projects(files, config_for, options.overrides)
    for project in projects:
        check_project(project)
    return projects


def _unsafe(options: RunOptions, project: Project) -> bool:
    if options.unsafe_fixes is not None:
        return options.unsafe_fixes
    return project.config.unsafe_fixes


def _report(
    options: RunOptions, results: Sequence[FileResult], *, unsafe: bool, console: Console
) -> None:
    """Print the results' findings in the chosen format."""
    findings = sorted((f for result in results for f in result.findings), key=Finding.sort_key)
    if options.output_format == "json":
        click.echo(render_json(findings), nl=False)
    elif options.statistics:
        _print_statistics(findings, console, unsafe=unsafe)
    else:
        sources = {r.display: r.source.text for r in results if r.source is not None}
        render_text(findings, sources, console, unsafe_fixes=unsafe, summary=not options.quiet)


def _print_statistics(findings: Sequence[Finding], console: Console, *, unsafe: bool) -> None:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(
        (f.code, f.name)
        for f in findings
        if f.fix is not None and (unsafe or f.fix.applicability is Applicability.SAFE)
    )
    table = Table(box=None, show_header=True, header_style="bold")
    for column in ("count", "code", "name", "fixable"):
        table.add_column(column, justify="right" if column in ("count", "fixable") else "left")
    for (code, name), count in sorted(counts.items()):
        table.add_row(str(count), code, name, str(fixable[(code, name)]))
    console.print(table)
    render_summary(findings, console, unsafe_fixes=unsafe)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="devlint", message="%(prog)s %(version)s")
def main() -> None:
    """Find and fix device bugs in PyTorch, Lightning and HuggingFace code."""


@main.command()
@shared_options
@guarded
def check(paths: tuple[Path, ...], **kwargs: Any) -> None:
    """Report device bugs in PATHS (default: the current folder)."""
    options = _run_options(paths, **kwargs)
    projects = _load(options)
    unsafe = any(_unsafe(options, project) for project in projects)
    results = [result for project in projects for result in project.files]
    _report(options, results, unsafe=unsafe, console=_console(options.color))
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


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


@main.command()
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
    err = _console(options.color, stderr=True)
    out = _console(options.color)
    results = [result for project in projects for result in project.files]
    as_checked = [dataclasses.replace(r, findings=list(r.findings)) for r in results]
    show_diff = not write and options.output_format == "text" and not options.statistics
    fixed_findings = fixed_files = 0
    failed = False
    for project in projects:
        unsafe = _unsafe(options, project)
        for result in project.files:
            before_text = result.source.text if result.source else ""
            outcome = fix_file(project, result, unsafe=unsafe)
            if outcome is None:
                continue
            if outcome.error is not None:
                err.print(f"devlint: error: {result.display}: {outcome.error}; not changed")
                failed = True
                continue
            fixed_findings += outcome.fixed
            fixed_files += 1
            if show_diff:
                click.echo(unified_diff(result.display, before_text, outcome.text), nl=False)
            if write:
                assert result.source is not None
                try:
                    new = result.source.encode(outcome.text)
                    write_atomically(result.path, result.original, new)
                except FixError as error:
                    err.print(f"devlint: error: {error}")
                    failed = True
    sys.stdout.flush()  # the diff (stdout) before the summary (stderr) on a terminal
    unsafe_any = any(_unsafe(options, project) for project in projects)
    left = [f for result in results for f in result.findings]
    if write:
        if left or options.output_format == "json":
            _report(options, results, unsafe=unsafe_any, console=out)
        if not options.quiet:
            fixed = _count(fixed_findings, "finding")
            err.print(f"Fixed {fixed} in {_count(fixed_files, 'file')}.")
    elif not show_diff:
        _report(options, as_checked, unsafe=unsafe_any, console=out)
    elif not options.quiet:
        message = f"Would fix {_count(fixed_findings, 'finding')} in {_count(fixed_files, 'file')}"
        if left:
            message += f"; {len(left)} would be left (run `devlint check`)"
        err.print(message + ".")
    if failed:
        sys.exit(EXIT_ERROR)
    pending = fixed_files > 0 and not write
    sys.exit(EXIT_FINDINGS if (left or pending) and not options.exit_zero else EXIT_CLEAN)


@main.command("rules")
def list_rules() -> None:
    """List every rule: code, name, default, fix safety, summary."""
    table = Table(header_style="bold")
    for column in ("code", "name", "default", "fix", "summary"):
        table.add_column(column)
    for rule in all_rules():
        default = "on" if rule.default_enabled else "off"
        table.add_row(rule.code, rule.name, default, rule.fix_safety, rule.summary)
    Console(highlight=False).print(table)


@main.command("rule")
@click.argument("code")
def show_rule(code: str) -> None:
    """Show the documentation of rule CODE (e.g. DEV004)."""
    rule = rule_by_code(code)
    if rule is None:
        click.echo(f"devlint: error: unknown rule '{code}' (see `devlint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    console = Console(highlight=False)
    console.print(f"[bold]{rule.code} {rule.name}[/bold]", markup=True)
    console.print(
        f"Fix: {rule.fix_safety}. On by default: {'yes' if rule.default_enabled else 'no'}."
    )
    console.print()
    console.print(Markdown(rule_documentation(rule)))
