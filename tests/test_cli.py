"""The command line as a user drives it: exit codes, output, config errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from devlint import __version__, engine
from devlint.cli import coloured_diff, main, unified_diff
from devlint.docs import rule_documentation, rule_examples
from devlint.findings import Applicability, Edit, Fix, Location
from devlint.fixer import long_fixed_lines
from devlint.rules import all_rules, rule_by_code

LIGHTNING = (
    "import torch\n"
    "import pytorch_lightning as pl\n"
    "\n"
    "\n"
    "class Model(pl.LightningModule):\n"
    "    def forward(self, x):\n"
    '        return x.to("cuda:1") + torch.arange(3)\n'
)
LIGHTNING_FIXED = LIGHTNING.replace('"cuda:1"', "self.device").replace(
    "arange(3)", "arange(3, device=self.device)"
)
PLAIN = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "\n"
    "class Block(nn.Module):\n"
    "    def forward(self, batch):\n"
    "        return batch.cuda()\n"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def project(root: Path, files: dict[str, str], config: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n' + config)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_check_reports_findings_with_source_and_exits_1(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    result = run("check", "--no-color", ".")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert (
        lines[0]
        == 'model.py:7:21: DEV001 Hard-coded device "cuda:1" in model code; use `self.device`'
    )
    assert lines[1] == '        return x.to("cuda:1") + torch.arange(3)'
    assert lines[2] == "                    ^^^^^^^^"
    assert lines[3] == "fix available: Use `self.device`"
    assert lines[5] == (
        "model.py:7:33: DEV003 `torch.arange()` makes a CPU tensor that meets the computation's"
        ' device at line 7 (`x.to("cuda:1") + torch.arange(3)`); pass `device=self.device`'
    )
    assert lines[-1] == "Found 2 findings (2 fixable)"


def test_check_clean_project_exits_0(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": "import torch\n\nx = torch.zeros(3)\n"})
    result = run("check", ".")
    assert (result.exit_code, result.output) == (0, "All checks passed!\n")


def test_exit_zero_keeps_output_but_exits_0(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    result = run("check", "--exit-zero", ".")
    assert result.exit_code == 0
    assert "Found 2 findings" in result.output


def test_json_output_shape(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    result = run("check", "--output-format", "json", "--select", "DEV001", ".")
    assert result.exit_code == 1
    assert json.loads(result.output) == [
        {
            "code": "DEV001",
            "name": "hardcoded-device",
            "message": 'Hard-coded device "cuda:1" in model code; use `self.device`',
            "filename": "model.py",
            "location": {"row": 7, "column": 21},
            "end_location": {"row": 7, "column": 29},
            "fix": {
                "applicability": "safe",
                "message": "Use `self.device`",
                "edits": [
                    {
                        "content": "self.device",
                        "location": {"row": 7, "column": 21},
                        "end_location": {"row": 7, "column": 29},
                    }
                ],
            },
            "url": None,
        }
    ]


def test_fix_without_write_prints_diff_and_changes_nothing(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    result = run("fix", ".")
    assert result.exit_code == 1
    assert (in_tmp / "model.py").read_text() == LIGHTNING
    assert result.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert '-        return x.to("cuda:1") + torch.arange(3)\n' in result.stdout
    assert "+        return x.to(self.device) + torch.arange(3, device=self.device)\n" in (
        result.stdout
    )
    assert "Would fix 2 findings in 1 file." in result.stderr


def test_fix_write_applies_safe_fixes_keeps_mode_and_converges(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    os.chmod(in_tmp / "model.py", 0o640)
    result = run("fix", "--write", ".")
    assert result.exit_code == 0
    assert (in_tmp / "model.py").read_text() == LIGHTNING_FIXED
    assert stat.S_IMODE((in_tmp / "model.py").stat().st_mode) == 0o640
    assert "Fixed 2 findings in 1 file." in result.stderr
    assert sorted(os.listdir(in_tmp)) == [".devlint_cache", "model.py", "pyproject.toml"]
    again = run("fix", "--write", ".")
    assert again.exit_code == 0
    assert (in_tmp / "model.py").read_text() == LIGHTNING_FIXED


CONTAINER = (
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class M(nn.Module):\n"
    "    def __init__(self, n):\n"
    "        super().__init__()\n"
    "        self.layers = [nn.Linear(4, 4) for _ in range(n)]\n"
)


def test_fix_summary_counts_unsafe_fixes_in_the_plural(in_tmp: Path) -> None:
    project(in_tmp, {"one.py": CONTAINER, "two.py": CONTAINER})
    dry = run("fix", ".")
    assert (dry.exit_code, dry.stderr) == (
        1,
        "No fixes available (2 fixes with --unsafe-fixes); "
        "2 findings would be left (run `devlint check`).\n",
    )


def test_fix_summary_never_claims_fixes_that_did_not_happen(in_tmp: Path) -> None:
    project(in_tmp, {"clean.py": "x = 1\n"})
    assert (run("fix", ".").exit_code, run("fix", ".").stderr) == (0, "All checks passed!\n")
    written = run("fix", "--write", ".")
    assert (written.exit_code, written.stderr) == (0, "All checks passed!\n")
    project(in_tmp, {"plain.py": PLAIN, "container.py": CONTAINER})
    dry = run("fix", ".")
    assert (dry.exit_code, dry.stdout) == (1, "")
    assert dry.stderr == (
        "No fixes available (1 fix with --unsafe-fixes); "
        "2 findings would be left (run `devlint check`).\n"
    )
    write = run("fix", "--write", ".")
    assert write.exit_code == 1
    assert write.stdout.endswith("Found 2 findings (0 fixable, 1 with --unsafe-fixes)\n")
    assert write.stderr == "No fixes available (1 fix with --unsafe-fixes).\n"
    unsafe = run("fix", "--unsafe-fixes", ".")
    assert (
        unsafe.stderr == "Would fix 1 finding in 1 file; 1 would be left (run `devlint check`).\n"
    )


def test_fix_summary_names_fixed_lines_longer_than_the_formatters_line_length(
    in_tmp: Path,
) -> None:
    """Fixes never wrap: the summary says which fixed lines the formatter has to."""
    project(in_tmp, {"model.py": LIGHTNING}, "[tool.black]\nline-length = 60\n")
    dry = run("fix", ".")
    assert dry.stderr == (
        "Would fix 2 findings in 1 file; "
        "1 fixed line would be longer than 60 characters (run your formatter).\n"
    )
    written = run("fix", "--write", ".")
    assert written.stderr == (
        "Fixed 2 findings in 1 file; "
        "1 fixed line is longer than 60 characters (run your formatter).\n"
    )
    assert (in_tmp / "model.py").read_text() == LIGHTNING_FIXED  # the 70-character line, unwrapped
    project(in_tmp, {"model.py": LIGHTNING}, "[tool.black]\nline-length = 70\n")
    assert run("fix", "--write", ".").stderr == "Fixed 2 findings in 1 file.\n"


def test_long_fixed_lines_counts_only_lines_the_fix_wrote() -> None:
    before = "x = 1\n" + "a" * 30 + "\ny = 2\n"
    after = "x = 1\n" + "a" * 30 + "\ny = 22222\nz = 3333\n"
    assert long_fixed_lines(before, after, 5) == 2  # the long unchanged line is not counted
    assert long_fixed_lines(before, after, 8) == 1
    assert long_fixed_lines(before, before, 5) == 0


def test_coloured_diff_follows_the_hunks() -> None:
    """A removed `-- x` or added `++ y` line is coloured as a line, not as a file header."""
    diff = unified_diff("m.py", "-- x\nkeep\nend", "++ y\nkeep\nend\n")
    bold, cyan, red, green, dim, reset = (
        "\x1b[1m",
        "\x1b[36m",
        "\x1b[31m",
        "\x1b[32m",
        "\x1b[2m",
        "\x1b[0m",
    )
    assert coloured_diff(diff) == (
        f"{bold}--- a/m.py{reset}\n{bold}+++ b/m.py{reset}\n{cyan}@@ -1,3 +1,3 @@{reset}\n"
        f"{red}--- x{reset}\n{green}+++ y{reset}\n keep\n{red}-end{reset}\n"
        f"{dim}\\ No newline at end of file{reset}\n{green}+end{reset}\n"
    )
    one_line = unified_diff("m.py", "a\r\n", "b\r\n")  # "@@ -1 +1 @@": a hunk of 1 line
    assert coloured_diff(one_line).splitlines(keepends=True)[3:] == [
        f"{red}-a{reset}\r\n",
        f"{green}+b{reset}\r\n",
    ]


@pytest.mark.parametrize(
    ("args", "env", "styled"),
    [
        ((), {}, False),  # a pipe
        (("--color",), {}, True),
        ((), {"TTY_COMPATIBLE": "1"}, True),  # what rich takes for a terminal
        ((), {"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}, False),
        (("--no-color",), {"TTY_COMPATIBLE": "1"}, False),
        (("--color",), {"NO_COLOR": "1"}, True),  # the flag wins over the environment
    ],
)
def test_fix_diff_and_check_are_styled_only_on_a_terminal_without_no_color(
    in_tmp: Path, args: tuple[str, ...], env: dict[str, str], styled: bool
) -> None:
    """NO_COLOR means no styling at all: no colour, and no bold either."""
    project(in_tmp, {"model.py": LIGHTNING})
    runner = CliRunner(env={"NO_COLOR": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None, **env})
    diff = runner.invoke(main, ["fix", *args, "."])
    assert diff.stdout.startswith(
        "\x1b[1m--- a/model.py\x1b[0m\n" if styled else "--- a/model.py\n"
    )
    assert ("\x1b[" in diff.stdout) is styled
    check = runner.invoke(main, ["check", *args, "."])
    assert ("\x1b[1m" in check.stdout) is styled
    assert ("\x1b[" in check.stdout) is styled


def test_unsafe_fixes_need_the_flag(in_tmp: Path) -> None:
    source = PLAIN.replace("batch", "x")
    project(in_tmp, {"block.py": source.replace("x.cuda()", "x + x.cuda(0)")})
    (in_tmp / "block.py").write_text(
        source.replace("(self, x)", "(self, x: torch.Tensor, y)").replace(
            "x.cuda()", "x + y.cuda()"
        )
    )
    safe_only = run("fix", "--write", ".")
    assert safe_only.exit_code == 1
    assert "y.cuda()" in (in_tmp / "block.py").read_text()
    assert "unsafe fix available (--unsafe-fixes): Use `.to(x.device)`" in safe_only.stdout
    unsafe = run("fix", "--write", "--unsafe-fixes", ".")
    assert unsafe.exit_code == 0
    assert "        return x + y.to(x.device)\n" in (in_tmp / "block.py").read_text()


def test_fix_with_findings_left_exits_1(in_tmp: Path) -> None:
    project(in_tmp, {"block.py": PLAIN})
    result = run("fix", "--write", ".")
    assert result.exit_code == 1
    assert (in_tmp / "block.py").read_text() == PLAIN
    assert "block.py:7:22: DEV002" in result.stdout


def test_syntax_error_is_dev000_and_other_files_are_checked(in_tmp: Path) -> None:
    project(in_tmp, {"a_broken.py": "def f(:\n    pass\n", "model.py": LIGHTNING})
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 1
    found = [(f["filename"], f["code"], f["location"]["row"]) for f in json.loads(result.output)]
    assert found == [
        ("a_broken.py", "DEV000", 1),
        ("model.py", "DEV001", 7),
        ("model.py", "DEV003", 7),
    ]
    assert "Traceback" not in result.output


def test_undecodable_file_is_dev000(in_tmp: Path) -> None:
    project(in_tmp, {})
    (in_tmp / "bad.py").write_bytes(b"x = '\xff\xfe'\n")
    result = run("check", "--output-format", "json", ".")
    (finding,) = json.loads(result.output)
    assert finding["code"] == "DEV000"
    assert finding["message"].startswith("cannot decode file: cannot decode as utf-8")


def test_noqa_suppresses_named_codes_only(in_tmp: Path) -> None:
    source = LIGHTNING.replace("arange(3)\n", "arange(3)  # noqa: DEV003\n")
    project(in_tmp, {"model.py": source, "bare.py": LIGHTNING.replace("(3)\n", "(3)  # noqa\n")})
    result = run("check", "--output-format", "json", ".")
    found = [(f["filename"], f["code"]) for f in json.loads(result.output)]
    assert found == [("model.py", "DEV001")]


def test_select_ignore_and_per_file_ignores(in_tmp: Path) -> None:
    config = (
        '[tool.devlint]\nignore = ["DEV003"]\n'
        '[tool.devlint.per-file-ignores]\n"legacy/*" = ["DEV001"]\n'
    )
    project(in_tmp, {"model.py": LIGHTNING, "legacy/old.py": LIGHTNING}, config)
    result = run("check", "--output-format", "json", ".")
    found = [(f["filename"], f["code"]) for f in json.loads(result.output)]
    assert found == [("model.py", "DEV001")]
    selected = run("check", "--output-format", "json", "--select", "DEV003", ".")
    found = [(f["filename"], f["code"]) for f in json.loads(selected.output)]
    assert found == [("legacy/old.py", "DEV003"), ("model.py", "DEV003")]


def test_bad_config_is_one_line_exit_2(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING}, "[tool.devlint]\nselct = []\n")
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "unknown key 'selct'" in result.stderr
    assert "pyproject.toml" in result.stderr


def test_unknown_rule_code_is_exit_2(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    result = CliRunner().invoke(main, ["check", "--select", "DEV9", "."])
    assert result.exit_code == 2
    assert result.stderr == "devlint: error: select: unknown rule code or prefix 'DEV9'\n"


def test_missing_path_is_exit_2(in_tmp: Path) -> None:
    result = CliRunner().invoke(main, ["check", "nope"])
    assert (result.exit_code, result.stderr) == (2, "devlint: error: path 'nope' does not exist\n")


def test_internal_error_has_no_traceback_without_debug(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(in_tmp, {"model.py": LIGHTNING})

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("devlint.cli.check_projects", explode)
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert result.stderr == (
        "devlint: internal error: RuntimeError: boom (run with --debug for the traceback)\n"
    )
    debug = CliRunner().invoke(main, ["check", "--debug", "."])
    assert debug.exit_code == 2
    assert "Traceback" in debug.stderr


def test_a_fix_that_breaks_code_is_not_written(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    broken = Fix(Applicability.SAFE, "break", (Edit(Location(7, 9), Location(7, 15), "return ("),))
    original_resolve = engine.resolve

    def resolve_with_bad_fix(project: engine.Project, result: engine.FileResult) -> None:
        original_resolve(project, result)
        result.findings = [
            finding.__class__(**{**finding.__dict__, "fix": broken})
            for finding in result.findings[:1]
        ]

    monkeypatch.setattr(engine, "resolve", resolve_with_bad_fix)
    result = CliRunner().invoke(main, ["fix", "--write", "."])
    assert result.exit_code == 2
    assert "model.py: fix by DEV001 produced invalid code" in result.stderr
    assert (in_tmp / "model.py").read_text() == LIGHTNING


def test_rules_and_rule_commands() -> None:
    table = run("rules")  # not a terminal: one plain line per rule, nothing cut
    assert table.exit_code == 0
    lines = table.output.splitlines()
    assert lines[0].split() == ["code", "name", "default", "fix", "summary"]
    assert lines[5] == (
        "DEV004  unmoved-processor-output      on       safe         "
        "Processor/tokenizer output reaches a model call without `.to(...)`"
    )
    assert [line.split("  ")[0] for line in lines[1:]] == [rule.code for rule in all_rules()]
    assert all(
        line.endswith(rule.summary) for line, rule in zip(lines[1:], all_rules(), strict=True)
    )
    doc = run("rule", "dev002")  # not a terminal: the Markdown as written, nothing wrapped
    assert doc.exit_code == 0
    rule = rule_by_code("DEV002")
    assert rule is not None
    assert doc.output == (
        f"DEV002 cuda-call\nFix: {rule.fix_safety}. On by default: yes.\n\n"
        f"{rule_documentation(rule).rstrip()}\n\n{rule_examples(rule).rstrip()}\n"
    )
    assert "Why is this bad?" in doc.output
    assert "Tested examples" in doc.output
    assert "self.layer = nn.Linear(3, 4).cuda()" in doc.output
    unknown = CliRunner().invoke(main, ["rule", "DEV999"])
    assert unknown.exit_code == 2


@pytest.mark.parametrize("width", [60, 80, 200])
def test_help_lists_each_command_with_a_whole_sentence(width: int) -> None:
    result = CliRunner().invoke(main, ["--help"], terminal_width=width)
    commands = result.output.split("Commands:\n")[1].splitlines()
    assert commands == [
        "  check  Report device bugs (exit 1 when any is found).",
        "  fix    Show fixes as a diff, or apply them with --write.",
        "  rule   Show one rule's documentation.",
        "  rules  List every rule, its default and fix safety.",
    ]


def test_version_and_python_m() -> None:
    assert run("--version").output == f"devlint {__version__}\n"
    completed = subprocess.run(
        [sys.executable, "-m", "devlint", "--version"], capture_output=True, text=True, check=False
    )
    assert (completed.returncode, completed.stdout) == (0, f"devlint {__version__}\n")


def test_symlinked_file_is_checked_once_and_fixed_through_the_link(in_tmp: Path) -> None:
    project(in_tmp, {"real/model.py": LIGHTNING})
    os.symlink("real/model.py", in_tmp / "link.py")
    found = json.loads(run("check", "--output-format", "json", ".").output)
    assert [(f["filename"], f["code"]) for f in found] == [
        ("link.py", "DEV001"),
        ("link.py", "DEV003"),
    ]
    assert run("fix", "--write", "link.py").exit_code == 0
    assert (in_tmp / "link.py").is_symlink()
    assert (in_tmp / "real" / "model.py").read_text() == LIGHTNING_FIXED


def test_code_python_rejects_only_when_compiling_does_not_block_fixes(in_tmp: Path) -> None:
    source = LIGHTNING + "\n\nfor item in []:\n    pass\nelse:\n    continue\n"
    project(in_tmp, {"model.py": source})
    result = run("fix", "--write", ".")
    assert result.exit_code == 0
    assert (in_tmp / "model.py").read_text() == LIGHTNING_FIXED + source[len(LIGHTNING) :]


def test_diff_keeps_form_feeds_inside_lines(in_tmp: Path) -> None:
    source = LIGHTNING.replace("\n\nclass", "\n\x0c\nclass")
    project(in_tmp, {"model.py": source})
    diff = run("fix", "model.py").stdout
    assert " \x0c\n" in diff
    assert diff.count("\n@@") + diff.startswith("@@") == 1


def test_fix_honours_output_format_statistics_and_quiet(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    dry_json = run("fix", "--output-format", "json", ".")
    assert [f["code"] for f in json.loads(dry_json.stdout)] == ["DEV001", "DEV003"]
    assert (in_tmp / "model.py").read_text() == LIGHTNING
    statistics = run("fix", "--statistics", ".")
    assert "--- a/model.py" not in statistics.stdout
    assert "DEV001" in statistics.stdout
    written = run("fix", "--write", "--output-format", "json", ".")
    assert (written.exit_code, written.stdout) == (0, "[]\n")
    project(in_tmp, {"model.py": LIGHTNING})
    quiet = run("check", "--quiet", ".")
    assert "Found" not in quiet.stdout
    assert quiet.stdout.startswith("model.py:7:21: DEV001")


def test_statistics_in_text_and_json_quiet_and_clean(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING, "block.py": PLAIN})
    table = [
        "count  code    name                    fixable",
        "    1  DEV001  hardcoded-device              1",
        "    1  DEV002  cuda-call                     0",
        "    1  DEV003  factory-without-device        1",
    ]
    text = run("check", "--statistics", ".")
    assert (text.exit_code, text.stdout.splitlines()) == (
        1,
        [*table, "Found 3 findings (2 fixable)"],
    )
    quiet = run("check", "--statistics", "-q", ".")
    assert (quiet.exit_code, quiet.stdout.splitlines()) == (1, table)
    as_json = run("check", "--statistics", "--output-format", "json", ".")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout) == [
        {
            "code": "DEV001",
            "name": "hardcoded-device",
            "count": 1,
            "fixable": True,
            "fixable_count": 1,
        },
        {"code": "DEV002", "name": "cuda-call", "count": 1, "fixable": False, "fixable_count": 0},
        {
            "code": "DEV003",
            "name": "factory-without-device",
            "count": 1,
            "fixable": True,
            "fixable_count": 1,
        },
    ]
    for name in ("model.py", "block.py"):
        (in_tmp / name).write_text("x = 1\n")
    assert run("check", "--statistics", ".").stdout == "All checks passed!\n"
    assert run("check", "--statistics", "-q", ".").stdout == ""
    assert run("check", "--statistics", "--output-format", "json", ".").stdout == "[]\n"


@pytest.mark.parametrize("output_format", ["sarif", "github"])
def test_statistics_with_sarif_or_github_is_a_usage_error(in_tmp: Path, output_format: str) -> None:
    project(in_tmp, {"model.py": LIGHTNING})
    for command in ("check", "fix"):
        result = run(command, "--statistics", "--output-format", output_format, ".")
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"devlint: error: --statistics cannot be used with --output-format {output_format} "
            "(only with text or json)\n",
        )


def test_per_file_ignores_accept_prefixes_and_all(in_tmp: Path) -> None:
    config = '[tool.devlint.per-file-ignores]\n"tests/*" = ["DEV00"]\n"other.py" = ["ALL"]\n'
    project(in_tmp, {"tests/t.py": LIGHTNING, "other.py": LIGHTNING, "m.py": LIGHTNING}, config)
    found = json.loads(run("check", "--output-format", "json", ".").output)
    assert {f["filename"] for f in found} == {"m.py"}


def test_unknown_code_in_config_names_the_file(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": LIGHTNING}, '[tool.devlint]\nselect = ["DEV999"]\n')
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert result.stderr == (
        f"devlint: error: {in_tmp / 'pyproject.toml'}: [tool.devlint] "
        "select: unknown rule code or prefix 'DEV999'\n"
    )
    empty = CliRunner().invoke(main, ["check", "--select", "", "."])
    assert (empty.exit_code, empty.stderr) == (2, "devlint: error: --select: no rule codes given\n")


def test_explicit_excluded_file_is_checked_unless_force_exclude(in_tmp: Path) -> None:
    project(in_tmp, {"build/model.py": LIGHTNING})
    assert run("check", "build/model.py").exit_code == 1
    assert run("check", "--force-exclude", "build/model.py").exit_code == 0
    assert run("check", ".").exit_code == 0


def test_noqa_inside_a_string_is_not_a_comment(in_tmp: Path) -> None:
    source = LIGHTNING.replace(
        '        return x.to("cuda:1")',
        '        self.log("note", "# noqa")\n        return x.to("cuda:1")',
    )
    project(in_tmp, {"model.py": source})
    found = json.loads(run("check", "--output-format", "json", "--select", "DEV001", ".").output)
    assert [f["code"] for f in found] == ["DEV001"]


def test_too_deep_nesting_is_dev000_and_the_run_goes_on(in_tmp: Path) -> None:
    project(in_tmp, {"deep.py": "x = " + "-" * 20_000 + "1\n", "model.py": LIGHTNING})
    result = run("check", "--output-format", "json", ".")
    found = [(f["filename"], f["code"]) for f in json.loads(result.output)]
    assert found == [("deep.py", "DEV000"), ("model.py", "DEV001"), ("model.py", "DEV003")]


def test_loose_files_with_the_same_name_do_not_share_classes(in_tmp: Path) -> None:
    plain = "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
    plain += '    def forward(self, y):\n        return y + torch.ones(3, device="cuda")\n'
    lightning = "import pytorch_lightning as pl\n\n\nclass Model(pl.LightningModule):\n"
    lightning += "    def forward(self, x):\n        return x\n"
    project(in_tmp, {"a/model.py": plain, "b/model.py": lightning})
    (finding,) = json.loads(run("check", "--output-format", "json", ".").output)
    assert (finding["filename"], finding["fix"]) == ("a/model.py", None)


def test_namespace_package_bases_resolve(in_tmp: Path) -> None:
    base = "import pytorch_lightning as pl\n\n\nclass BaseModel(pl.LightningModule):\n    pass\n"
    net = "from proj.models.base import BaseModel\n\n\nclass Net(BaseModel):\n"
    net += '    def forward(self, x):\n        return x.to("cuda")\n'
    project(in_tmp, {"src/proj/models/base.py": base, "src/proj/models/net.py": net})
    (finding,) = json.loads(run("check", "--output-format", "json", ".").output)
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"][0]["content"] == "self.device"
