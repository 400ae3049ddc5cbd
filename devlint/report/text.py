"""Human-readable output: each finding with its source line, a caret underline and fix hint.

Everything that comes from the user's files (paths, source, messages) is rendered as
``rich.text.Text``, never as markup, so a ``[red]`` in the code prints as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from devlint.findings import Applicability, Finding, Fix
from devlint.source import lines_without_breaks

_TAB_WIDTH = 4
"""Columns per tab stop when showing source lines (tabs are expanded so carets line up)."""

# C0 controls show as their one-cell Unicode "control picture", DEL and C1 controls as
# U+FFFD; a tab outside source lines (where it is expanded to tab stops) is one space.
_CONTROL_PICTURES: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20)},
    ord("\t"): " ",
    0x7F: "\N{SYMBOL FOR DELETE}",
    **{code: "\N{REPLACEMENT CHARACTER}" for code in range(0x80, 0xA0)},
}


def render_text(
    findings: Sequence[Finding],
    sources: Mapping[str, str],
    console: Console,
    *,
    unsafe_fixes: bool,
    summary: bool = True,
) -> None:
    """Print every finding in the given order, then (unless told not to) the summary line.

    ``sources`` maps a finding's ``source_name`` (its path, or ``path:cell N`` in a
    notebook) to that text; findings whose text is absent are shown without a snippet.
    """
    lines_by_path: dict[str, list[str]] = {}
    for finding in findings:
        _print(console, _header(finding))
        line = _source_line(finding, sources, lines_by_path)
        if line is not None:
            shown, offset, width = _underlined(line, finding)
            _print(console, Text(shown))
            _print(console, Text.assemble(" " * offset, ("^" * width, "bold red")))
        if finding.fix is not None:
            _print(console, _hint(finding.fix, unsafe_fixes=unsafe_fixes))
        console.print()
    if summary:
        render_summary(findings, console, unsafe_fixes=unsafe_fixes)


def render_summary(findings: Sequence[Finding], console: Console, *, unsafe_fixes: bool) -> None:
    """Print one line counting the findings and the fixes available now or with opt-in."""
    if not findings:
        _print(console, Text("All checks passed!", style="bold green"))
        return
    fixable = 0
    hidden = 0
    for finding in findings:
        if finding.fix is None:
            continue
        if finding.fix.applicability is Applicability.SAFE or unsafe_fixes:
            fixable += 1
        else:
            hidden += 1
    summary = f"Found {_count(len(findings), 'finding')}"
    if fixable or hidden:
        extra = f", {hidden} with --unsafe-fixes" if hidden else ""
        summary += f" ({fixable} fixable{extra})"
    _print(console, Text(summary, style="bold"))


def _print(console: Console, text: Text) -> None:
    # soft_wrap: a long source line must stay one line (carets below it), even in a pipe.
    console.print(text, soft_wrap=True, markup=False, highlight=False, emoji=False)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _header(finding: Finding) -> Text:
    return Text.assemble(
        (_printable(finding.source_name), "bold"),
        f":{finding.start.row}:{finding.start.column}: ",
        (finding.code, "bold red"),
        " ",
        _printable(finding.message),
    )


def _hint(fix: Fix, *, unsafe_fixes: bool) -> Text:
    if fix.applicability is Applicability.SAFE or unsafe_fixes:
        label = Text("fix available", style="cyan")
    else:
        label = Text("unsafe fix available (--unsafe-fixes)", style="yellow")
    return Text.assemble(label, ": ", _printable(fix.message))


def _source_line(
    finding: Finding, sources: Mapping[str, str], lines_by_path: dict[str, list[str]]
) -> str | None:
    """The finding's start row, or None when the file or row is not available."""
    name = finding.source_name
    lines = lines_by_path.get(name)
    if lines is None:
        source = sources.get(name)
        if source is None:
            return None
        lines = lines_by_path[name] = lines_without_breaks(source)
    if not 1 <= finding.start.row <= len(lines):
        return None
    return lines[finding.start.row - 1]


def _underlined(line: str, finding: Finding) -> tuple[str, int, int]:
    """The line as displayed, and where (offset, width) to put carets under the span.

    Offsets are measured in terminal cells of the displayed text, so tabs, wide
    characters and replaced control characters keep the carets aligned.
    """
    pieces: list[str] = []
    for char in line:
        if char == "\t":
            pieces.append(" " * (_TAB_WIDTH - cell_len("".join(pieces)) % _TAB_WIDTH))
        else:
            pieces.append(_printable(char))
    start = min(max(finding.start.column - 1, 0), len(line))
    end = len(line)  # a span that runs onto later rows is underlined to the end of this one
    if finding.end.row == finding.start.row:
        end = min(max(finding.end.column - 1, start), len(line))
    offset = cell_len("".join(pieces[:start]))
    width = max(cell_len("".join(pieces[start:end])), 1)
    return "".join(pieces), offset, width


def _printable(text: str) -> str:
    """Replace control characters so none can reach the terminal or shift columns."""
    return text.translate(_CONTROL_PICTURES)
