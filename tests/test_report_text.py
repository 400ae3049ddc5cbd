"""Exact text output: what users read and what CI logs keep."""

from __future__ import annotations

import io
import re

from rich.console import Console

from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.report.text import render_summary, render_text

SOURCE = (
    "import torch\n"
    "\n"
    "class Model(LightningModule):\n"
    "    def forward(self, x):\n"
    "        return x.cuda()\n"
)

SAFE = Fix(
    Applicability.SAFE,
    "Replace `.cuda()` with `.to(self.device)`",
    (Edit(Location(5, 17), Location(5, 24), ".to(self.device)"),),
)
UNSAFE = Fix(
    Applicability.UNSAFE,
    'Use `map_location="cpu"`',
    (Edit(Location(5, 16), Location(5, 22), '"cpu"'),),
)


def finding(
    start: tuple[int, int] = (5, 17),
    end: tuple[int, int] = (5, 24),
    *,
    path: str = "model.py",
    code: str = "DEV002",
    message: str = "`.cuda()` in model code",
    fix: Fix | None = None,
) -> Finding:
    return Finding(
        path=path,
        code=code,
        name="cuda-call",
        message=message,
        start=Location(*start),
        end=Location(*end),
        fix=fix,
    )


def plain_console() -> Console:
    return Console(file=io.StringIO(), force_terminal=False, width=200, color_system=None)


def output(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def render(
    findings: list[Finding], sources: dict[str, str] | None = None, *, unsafe_fixes: bool = False
) -> str:
    console = plain_console()
    sources = {"model.py": SOURCE} if sources is None else sources
    render_text(findings, sources, console, unsafe_fixes=unsafe_fixes)
    return output(console)


def summary(findings: list[Finding], *, unsafe_fixes: bool = False) -> str:
    console = plain_console()
    render_summary(findings, console, unsafe_fixes=unsafe_fixes)
    return output(console)


def test_safe_fix() -> None:
    assert render([finding(fix=SAFE)]) == (
        "model.py:5:17: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        "fix available: Replace `.cuda()` with `.to(self.device)`\n"
        "\n"
        "Found 1 finding (1 fixable)\n"
    )


def test_unsafe_fix_hidden() -> None:
    assert render([finding(fix=UNSAFE)]) == (
        "model.py:5:17: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        'unsafe fix available (--unsafe-fixes): Use `map_location="cpu"`\n'
        "\n"
        "Found 1 finding (0 fixable, 1 with --unsafe-fixes)\n"
    )


def test_unsafe_fix_enabled() -> None:
    assert render([finding(fix=UNSAFE)], unsafe_fixes=True) == (
        "model.py:5:17: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        'fix available: Use `map_location="cpu"`\n'
        "\n"
        "Found 1 finding (1 fixable)\n"
    )


def test_no_fix() -> None:
    assert render([finding()]) == (
        "model.py:5:17: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_span_over_several_rows_underlines_to_end_of_start_row() -> None:
    source = "x = torch.zeros(\n    3, 4\n)\n"
    found = finding((1, 5), (3, 2), message="factory without device")
    assert render([found], {"model.py": source}) == (
        "model.py:1:5: DEV002 factory without device\n"
        "x = torch.zeros(\n"
        "    ^^^^^^^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_span_at_end_of_line_gets_one_caret() -> None:
    found = finding((1, 6), (2, 1), message="unexpected EOF")
    assert render([found], {"model.py": "f(1, \n"}) == (
        "model.py:1:6: DEV002 unexpected EOF\nf(1, \n     ^\n\nFound 1 finding\n"
    )


def test_empty_span_gets_one_caret() -> None:
    assert render([finding((5, 16), (5, 16))]) == (
        "model.py:5:16: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "               ^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_tabs_are_expanded_in_line_and_carets() -> None:
    source = "class M(LightningModule):\n\tdef forward(self, x):\n\t\treturn x.cuda()\n"
    # "\t\treturn x" is 10 characters: `.cuda()` starts at column 11.
    found = finding((3, 11), (3, 18), fix=SAFE)
    assert render([found], {"model.py": source}) == (
        "model.py:3:11: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        "fix available: Replace `.cuda()` with `.to(self.device)`\n"
        "\n"
        "Found 1 finding (1 fixable)\n"
    )


def test_tab_inside_span_and_after_text() -> None:
    source = "ab\tc = 1\n"
    assert render([finding((1, 2), (1, 4))], {"model.py": source}) == (
        "model.py:1:2: DEV002 `.cuda()` in model code\nab  c = 1\n ^^^\n\nFound 1 finding\n"
    )


def test_markup_in_source_and_message_prints_literally() -> None:
    source = 'x = torch.zeros(3).to("cuda")  # [red]not markup[/red] :smile:\n'
    found = finding((1, 23), (1, 29), code="DEV001", message='device literal [bold]"cuda"')
    assert render([found], {"model.py": source}) == (
        'model.py:1:23: DEV001 device literal [bold]"cuda"\n'
        'x = torch.zeros(3).to("cuda")  # [red]not markup[/red] :smile:\n'
        "                      ^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_long_line_is_not_wrapped() -> None:
    source = "y = " + "x + " * 80 + "torch.zeros(3).cuda()\n"
    column = source.index(".cuda") + 1
    out = render([finding((1, column), (1, column + 7))], {"model.py": source})
    assert out == (
        f"model.py:1:{column}: DEV002 `.cuda()` in model code\n"
        + source
        + " " * (column - 1)
        + "^^^^^^^\n"
        + "\nFound 1 finding\n"
    )


def test_control_characters_are_shown_harmlessly() -> None:
    source = "s = '\x1b[31m'; x.cuda()\n"
    found = finding((1, 15), (1, 22))
    assert render([found], {"model.py": source}) == (
        "model.py:1:15: DEV002 `.cuda()` in model code\n"
        "s = '\N{SYMBOL FOR ESCAPE}[31m'; x.cuda()\n"
        "              ^^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_wide_characters_keep_carets_aligned() -> None:
    source = "名前 = x.cuda()\n"
    assert render([finding((1, 7), (1, 14))], {"model.py": source}) == (
        "model.py:1:7: DEV002 `.cuda()` in model code\n"
        "名前 = x.cuda()\n"
        "        ^^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_only_python_line_breaks_count_as_rows() -> None:
    source = "a = 1\r\n\x0cb = 2\rc = x.cuda()\n"
    assert render([finding((3, 6), (3, 13))], {"model.py": source}) == (
        "model.py:3:6: DEV002 `.cuda()` in model code\n"
        "c = x.cuda()\n"
        "     ^^^^^^^\n"
        "\n"
        "Found 1 finding\n"
    )


def test_missing_source_or_row_skips_snippet() -> None:
    missing_file = finding(path="gone.py", code="DEV000", message="cannot read file")
    missing_row = finding((40, 1), (40, 2), fix=SAFE)
    assert render([missing_file, missing_row]) == (
        "gone.py:5:17: DEV000 cannot read file\n"
        "\n"
        "model.py:40:1: DEV002 `.cuda()` in model code\n"
        "fix available: Replace `.cuda()` with `.to(self.device)`\n"
        "\n"
        "Found 2 findings (1 fixable)\n"
    )


def test_findings_keep_given_order_with_blank_line_between() -> None:
    other = "import torch\n\nt = torch.load(path, map_location=0)\n"
    first = finding(fix=SAFE)
    second = finding((3, 35), (3, 36), path="other.py", code="DEV006", message="map_location")
    assert render([second, first], {"model.py": SOURCE, "other.py": other}) == (
        "other.py:3:35: DEV006 map_location\n"
        "t = torch.load(path, map_location=0)\n"
        "                                  ^\n"
        "\n"
        "model.py:5:17: DEV002 `.cuda()` in model code\n"
        "        return x.cuda()\n"
        "                ^^^^^^^\n"
        "fix available: Replace `.cuda()` with `.to(self.device)`\n"
        "\n"
        "Found 2 findings (1 fixable)\n"
    )


def test_no_findings() -> None:
    assert render([]) == "All checks passed!\n"
    assert summary([]) == "All checks passed!\n"


def test_summary_singular_without_fix() -> None:
    assert summary([finding()]) == "Found 1 finding\n"


def test_summary_plural_without_fix() -> None:
    assert summary([finding(), finding()]) == "Found 2 findings\n"


def test_summary_mixed_fixable() -> None:
    findings = [finding(fix=SAFE)] * 5 + [finding(fix=UNSAFE)] * 2 + [finding()]
    assert summary(findings) == "Found 8 findings (5 fixable, 2 with --unsafe-fixes)\n"
    assert summary(findings, unsafe_fixes=True) == "Found 8 findings (7 fixable)\n"


def test_colour_only_when_console_is_a_terminal() -> None:
    findings = [finding(fix=SAFE), finding(fix=UNSAFE)]
    coloured = Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=200)
    render_text(findings, {"model.py": SOURCE}, coloured, unsafe_fixes=False)
    text = output(coloured)
    assert "\x1b[1mmodel.py\x1b[0m" in text
    assert "\x1b[1;31mDEV002\x1b[0m" in text

    plain = plain_console()
    render_text(findings, {"model.py": SOURCE}, plain, unsafe_fixes=False)
    assert "\x1b" not in output(plain)
    assert output(plain) == re.sub(r"\x1b\[[0-9;]*m", "", text)
