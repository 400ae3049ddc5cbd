"""GitHub Actions output: one ``::error`` workflow command per finding, escaped for the runner."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from devlint.cli import main
from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.report.github import annotation, render_github

HARDCODED = Finding(
    path="src/pkg/model.py",
    code="DEV001",
    name="hardcoded-device",
    message='Hard-coded device "cuda:1" in model code; use `self.device`',
    start=Location(7, 21),
    end=Location(7, 29),
    fix=Fix(Applicability.SAFE, "Use `self.device`", (Edit(Location(7, 21), Location(7, 29), ""),)),
)
MULTILINE = Finding(
    path="train.py",
    code="DEV005",
    name="device-map-under-distributed",
    message="`device_map` pins every rank",
    start=Location(12, 5),
    end=Location(14, 1),
)


def _unescape(text: str) -> str:
    """What the Actions runner does to a message or property value."""
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    """Split a workflow command the way the runner does: command, properties, message."""
    assert line.startswith("::")
    head, message = line[2:].split("::", 1)
    command, _, listed = head.partition(" ")
    properties = dict(item.split("=", 1) for item in listed.split(","))
    return command, {key: _unescape(value) for key, value in properties.items()}, _unescape(message)


def test_lines_are_exact() -> None:
    assert render_github([HARDCODED, MULTILINE]) == (
        "::error file=src/pkg/model.py,line=7,endLine=7,col=21,endColumn=29,"
        "title=DEV001 (hardcoded-device)::"
        'Hard-coded device "cuda:1" in model code; use `self.device`\n'
        # The runner drops columns from a span over several lines, so none are written.
        "::error file=train.py,line=12,endLine=14,"
        "title=DEV005 (device-map-under-distributed)::`device_map` pins every rank\n"
    )


def test_no_findings_print_nothing() -> None:
    assert render_github([]) == ""


def test_message_escapes_percent_and_line_breaks_only() -> None:
    finding = Finding(
        "a.py", "DEV002", "cuda-call", "100% on GPU 0,\r\nnot: %0A", Location(1, 1), Location(1, 5)
    )
    assert annotation(finding) == (
        "::error file=a.py,line=1,endLine=1,col=1,endColumn=5,title=DEV002 (cuda-call)::"
        "100%25 on GPU 0,%0D%0Anot: %250A"
    )


def test_property_values_escape_commas_and_colons() -> None:
    finding = Finding("odd,dir/c:d%e.py", "DEV777", "x:y,z", "m", Location(2, 3), Location(2, 4))
    assert annotation(finding) == (
        "::error file=odd%2Cdir/c%3Ad%25e.py,line=2,endLine=2,col=3,endColumn=4,"
        "title=DEV777 (x%3Ay%2Cz)::m"
    )


def test_the_runner_reads_back_what_was_written() -> None:
    finding = Finding(
        "we,ird:na%me/m.py",
        "DEV001",
        "hardcoded-device",
        'uses "cuda:0" :: here,\nand 50%\r\nthere',
        Location(3, 4),
        Location(3, 9),
    )
    (line,) = render_github([finding]).splitlines()
    command, properties, message = _parse(line)
    assert command == "error"
    assert properties == {
        "file": "we,ird:na%me/m.py",
        "line": "3",
        "endLine": "3",
        "col": "4",
        "endColumn": "9",
        "title": "DEV001 (hardcoded-device)",
    }
    assert message == finding.message


def test_cli_prints_one_line_per_finding(in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (in_tmp / "model.py").write_text(
        "import lightning as L\n"
        "\n"
        "\n"
        "class Classifier(L.LightningModule):\n"
        "    def forward(self, x):\n"
        '        return x.to("cuda:1").cuda()\n'
    )
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--output-format", "github", "."])
    assert result.exit_code == 1
    assert result.stdout == (
        "::error file=model.py,line=6,endLine=6,col=21,endColumn=29,"
        "title=DEV001 (hardcoded-device)::"
        'Hard-coded device "cuda:1" in model code; use `self.device`\n'
        "::error file=model.py,line=6,endLine=6,col=31,endColumn=37,"
        "title=DEV002 (cuda-call)::`.cuda()` in model code; use `.to(self.device)`\n"
    )
    zero = runner.invoke(main, ["check", "--output-format", "github", "--exit-zero", "."])
    assert (zero.exit_code, zero.stdout) == (0, result.stdout)


def test_notebook_findings_name_the_cell_instead_of_a_file_line() -> None:
    finding = Finding(
        "train.ipynb", "DEV002", "cuda-call", "use .to", Location(2, 18), Location(2, 24), cell=3
    )
    assert annotation(finding) == (
        "::error file=train.ipynb,title=DEV002 (cuda-call)::cell 3, line 2: use .to"
    )
