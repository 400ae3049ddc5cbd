"""Jupyter notebooks: checked as one module, reported per cell, fixed in place byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from devlint.cli import main
from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.notebook import PLACEHOLDER, decode_notebook, mask_cell

IMPORTS = [
    "!pip install lightning\n",
    "%matplotlib inline\n",
    "import torch\n",
    "import pytorch_lightning as pl",
]
BASE = "class Base(pl.LightningModule):\n    pass\n"
TIMED = ["%%time\n", "model = Model()\n", "model.cuda()\n"]
MODEL = [
    "class Model(Base):\n",
    "    def forward(self, x):\n",
    "        return x.cuda() * 2\n",
]


def code(source: str | list[str], **extra: Any) -> dict[str, Any]:
    """A code cell as Jupyter writes it (its keys in Jupyter's order)."""
    return {
        "cell_type": "code",
        "execution_count": extra.pop("execution_count", None),
        "metadata": extra.pop("metadata", {}),
        "outputs": extra.pop("outputs", []),
        "source": source,
        **extra,
    }


def markdown(source: str | list[str]) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(cells: list[dict[str, Any]], *, indent: int | None = 1, ascii: bool = False) -> str:
    """The notebook as nbformat writes it by default (1-space indent, final newline)."""
    document = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.4"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=indent, ensure_ascii=ascii) + "\n"


def training_cells(model: list[str] = MODEL) -> list[dict[str, Any]]:
    """Markdown, then imports with magics, a base class, a ``%%time`` cell and the model."""
    return [
        markdown(["# Training ✨\n", "Fine-tune the model."]),
        code(IMPORTS, execution_count=1),
        code(
            BASE,
            execution_count=2,
            metadata={"tags": ["model"], "collapsed": False},
            outputs=[{"name": "stdout", "output_type": "stream", "text": ["défini\n"]}],
        ),
        code(TIMED, execution_count=3),
        code(model, execution_count=4),
    ]


def run(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def project(in_tmp: Path) -> Path:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "nb"\n')
    return in_tmp


def test_finding_in_a_later_cell_names_the_cell_and_the_row_within_it(project: Path) -> None:
    (project / "train.ipynb").write_text(notebook(training_cells()), encoding="utf-8")
    result = run("check", "--no-cache", "--no-color", ".")
    assert result.exit_code == 1
    assert result.output == (
        "train.ipynb:cell 5:3:18: DEV002 `.cuda()` in model code; use `.to(self.device)`\n"
        "        return x.cuda() * 2\n"
        "                 ^^^^^^\n"
        "fix available: Use `.to(self.device)`\n"
        "\n"
        "Found 1 finding (1 fixable)\n"
    )


def test_json_gives_the_cell_and_rows_within_it(project: Path) -> None:
    (project / "train.ipynb").write_text(notebook(training_cells()), encoding="utf-8")
    result = run("check", "--no-cache", "--output-format", "json", ".")
    where = {"row": 3, "column": 18}
    end = {"row": 3, "column": 24}
    assert json.loads(result.output) == [
        {
            "code": "DEV002",
            "name": "cuda-call",
            "message": "`.cuda()` in model code; use `.to(self.device)`",
            "filename": "train.ipynb",
            "cell": 5,
            "location": where,
            "end_location": end,
            "fix": {
                "applicability": "safe",
                "message": "Use `.to(self.device)`",
                "edits": [{"content": "to(self.device)", "location": where, "end_location": end}],
            },
            "url": None,
        }
    ]
    assert list(json.loads(result.output)[0])[:5] == ["code", "name", "message", "filename", "cell"]


def fixed_model() -> list[str]:
    return [line.replace("x.cuda()", "x.to(self.device)") for line in MODEL]


def test_fix_write_changes_only_the_fixed_cell_source(project: Path) -> None:
    path = project / "train.ipynb"
    path.write_text(notebook(training_cells()), encoding="utf-8")
    result = run("fix", "--write", "--no-cache", ".")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == notebook(training_cells(fixed_model())).encode()
    assert run("check", "--no-cache", ".").exit_code == 0


@pytest.mark.parametrize(
    ("indent", "ascii", "final_newline"),
    [(1, False, True), (2, False, False), (4, True, True), (None, False, False)],
    ids=["nbformat", "two-spaces-no-final-newline", "four-spaces-escaped", "one-line"],
)
def test_fix_write_keeps_the_json_layout_exactly(
    project: Path, indent: int | None, ascii: bool, final_newline: bool
) -> None:
    def text(model: list[str]) -> str:
        written = notebook(training_cells(model), indent=indent, ascii=ascii)
        return written if final_newline else written.rstrip("\n")

    path = project / "train.ipynb"
    path.write_text(text(MODEL), encoding="utf-8")
    assert run("fix", "--write", "--no-cache", ".").exit_code == 0
    assert path.read_bytes() == text(fixed_model()).encode()


def test_fix_write_keeps_key_order_and_a_string_source_without_final_newline(
    project: Path,
) -> None:
    model = "class Model(Base):\n    def forward(self, x):\n        return x.cuda()"
    cells = [
        code("import pytorch_lightning as pl\n\n" + BASE),
        {"source": model, "outputs": [], "metadata": {"z": 1, "a": 2}, "cell_type": "code"},
        markdown("The end"),
    ]
    path = project / "order.ipynb"
    path.write_text(notebook(cells), encoding="utf-8")
    assert run("fix", "--write", "--no-cache", ".").exit_code == 0
    cells[1]["source"] = model.replace("x.cuda()", "x.to(self.device)")
    assert path.read_bytes() == notebook(cells).encode()


def test_a_fix_that_deletes_a_cell_s_last_line_keeps_jupyter_s_line_convention(
    project: Path,
) -> None:
    init = [
        "from torch import nn\n",
        "class Net(pl.LightningModule):\n",
        "    def __init__(self):\n",
        "        super().__init__()\n",
        "        self.layer = nn.Linear(2, 2)\n",
        "        self.layer.cuda()",
    ]
    cells = [code(IMPORTS), code(init), code("print('done')\n")]
    path = project / "init.ipynb"
    path.write_text(notebook(cells), encoding="utf-8")
    assert run("fix", "--write", "--no-cache", ".").exit_code == 0
    cells[1]["source"] = [*init[:-2], "        self.layer = nn.Linear(2, 2)"]
    assert path.read_bytes() == notebook(cells).encode()


def test_fix_without_write_shows_a_diff_per_cell_and_changes_nothing(project: Path) -> None:
    path = project / "train.ipynb"
    original = notebook(training_cells()).encode()
    path.write_bytes(original)
    result = run("fix", "--no-cache", ".")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/train.ipynb:cell 5\n"
        "+++ b/train.ipynb:cell 5\n"
        "@@ -1,3 +1,3 @@\n"
        " class Model(Base):\n"
        "     def forward(self, x):\n"
        "-        return x.cuda() * 2\n"
        "+        return x.to(self.device) * 2\n"
    )
    assert path.read_bytes() == original


def test_magics_and_shell_lines_get_no_finding_and_are_kept(project: Path) -> None:
    model = [
        "class Model(Base):\n",
        "    def forward(self, x):\n",
        "        %time y = x.cuda()\n",
        "        !nvidia-smi\n",
        "        return x.cuda()\n",
    ]
    path = project / "magic.ipynb"
    path.write_text(notebook(training_cells(model)), encoding="utf-8")
    result = run("check", "--no-cache", "--output-format", "json", ".")
    rows = [(f["cell"], f["location"]["row"]) for f in json.loads(result.output)]
    assert rows == [(5, 5)]
    assert run("fix", "--write", "--no-cache", ".").exit_code == 0
    fixed = [*model[:4], "        return x.to(self.device)\n"]
    assert path.read_bytes() == notebook(training_cells(fixed)).encode()


def test_noqa_works_in_a_cell(project: Path) -> None:
    model = [MODEL[0], MODEL[1], "        return x.cuda() * 2  # noqa: DEV002\n"]
    (project / "train.ipynb").write_text(notebook(training_cells(model)), encoding="utf-8")
    assert run("check", "--no-cache", ".").output == "All checks passed!\n"


def test_corrupt_notebook_json_is_a_dev000_naming_the_problem(project: Path) -> None:
    (project / "bad.ipynb").write_text('{\n "cells": [\n  {,\n')
    (project / "train.ipynb").write_text(notebook(training_cells()), encoding="utf-8")
    result = run("check", "--no-cache", "--no-color", ".")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        "bad.ipynb:3:4: DEV000 cannot decode file: not a valid notebook: "
        "invalid JSON: Expecting property name enclosed in double quotes"
    )
    assert "train.ipynb:cell 5:3:18: DEV002" in result.output
    assert lines[-1] == "Found 2 findings (1 fixable)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "not a valid notebook: the top level is not a JSON object"),
        ('{"metadata": {}}', 'not a valid notebook: no "cells" list'),
        (
            '{"cells": [{"cell_type": "code", "source": 3}]}',
            'not a valid notebook: cell 1: "source" is not a string or list of strings',
        ),
        (b"\xff\xfe{}", "not a valid notebook: not UTF-8 (invalid start byte at byte 0)"),
    ],
)
def test_not_a_notebook_is_a_dev000(project: Path, content: str | bytes, message: str) -> None:
    data = content if isinstance(content, bytes) else content.encode()
    (project / "bad.ipynb").write_bytes(data)
    result = run("check", "--no-cache", "--output-format", "json", ".")
    (finding,) = json.loads(result.output)
    assert (finding["code"], finding["message"]) == ("DEV000", f"cannot decode file: {message}")
    assert "cell" not in finding


def test_syntax_error_in_a_cell_is_reported_in_that_cell(project: Path) -> None:
    cells = [code("import torch\n"), markdown("x"), code(["def f(:\n", "    pass\n"])]
    (project / "broken.ipynb").write_text(notebook(cells))
    result = run("check", "--no-cache", "--output-format", "json", ".")
    (finding,) = json.loads(result.output)
    assert finding["code"] == "DEV000"
    assert (finding["cell"], finding["location"]["row"]) == (3, 1)


def test_notebooks_without_code_or_in_other_languages_are_clean(project: Path) -> None:
    (project / "notes.ipynb").write_text(notebook([markdown("# Notes")]))
    (project / "empty.ipynb").write_text(notebook([]))
    r_notebook = json.loads(notebook([code("model$cuda() <- 1 %>% f")]))
    r_notebook["metadata"] = {"kernelspec": {"language": "R", "name": "ir"}}
    (project / "analysis.ipynb").write_text(json.dumps(r_notebook))
    result = run("check", "--no-cache", ".")
    assert (result.exit_code, result.output) == (0, "All checks passed!\n")


def test_checkpoints_folder_is_not_checked(project: Path) -> None:
    (project / ".ipynb_checkpoints").mkdir()
    (project / ".ipynb_checkpoints" / "train-checkpoint.ipynb").write_text(
        notebook(training_cells())
    )
    result = run("check", "--no-cache", ".")
    assert (result.exit_code, result.stdout) == (0, "")  # nothing was checked: not "passed"
    assert result.stderr.startswith("devlint: warning: no file checked")


def test_the_cache_keys_on_the_notebook_bytes(project: Path, tmp_path: Path) -> None:
    path = project / "train.ipynb"
    path.write_text(notebook(training_cells()))
    cache = str(tmp_path / "cache")
    first = run("check", "--cache-dir", cache, "--output-format", "json", ".").output
    assert run("check", "--cache-dir", cache, "--output-format", "json", ".").output == first
    path.write_text(notebook(training_cells(fixed_model())))
    assert run("check", "--cache-dir", cache, ".").output == "All checks passed!\n"


def test_a_class_from_a_notebook_cell_is_not_confused_with_other_files(project: Path) -> None:
    """Python files beside the notebook are checked as usual, in the same project."""
    (project / "train.ipynb").write_text(notebook(training_cells()))
    (project / "plain.py").write_text("import torch\n\nx = torch.zeros(3).cuda()\n")
    result = run("check", "--no-cache", "--output-format", "json", ".")
    assert [(f["filename"], f.get("cell")) for f in json.loads(result.output)] == [
        ("train.ipynb", 5)
    ]


# Masking, unit by unit.


@pytest.mark.parametrize(
    "line",
    [
        "!pip install torch",
        "%matplotlib inline",
        "%load_ext autoreload",
        "files = !ls data/",
        "result = %timeit -o f()",
        "model?",
        "??model.forward",
        "pip install transformers",
        "cd ../data",
    ],
)
def test_ipython_lines_are_masked(line: str) -> None:
    masked, originals = mask_cell(f"import torch\n{line}\nx = 1\n")
    assert masked == f"import torch\n{PLACEHOLDER}\nx = 1\n"
    assert originals == (line,)


@pytest.mark.parametrize(
    "source",
    [
        "x = (1\n     % 2)\n",
        'doc = """\n%not a magic\n!nor this\n"""\n',
        "y = 3  # is it?\n",
        "pip = 3\npip += 1\n",
        "x = 1 + \\\n    2\n",
        "value = d['a'] if x != 1 else 2\n",
    ],
)
def test_python_is_never_masked(source: str) -> None:
    assert mask_cell(source) == (source, ())


def test_masking_keeps_indentation_and_continuations() -> None:
    source = "for i in range(3):\n    !echo {i} \\\n      done\n    print(i)"
    masked, originals = mask_cell(source)
    assert masked == f"for i in range(3):\n    {PLACEHOLDER}\n    {PLACEHOLDER}\n    print(i)"
    assert originals == ("    !echo {i} \\", "      done")


def test_a_cell_magic_masks_the_whole_cell() -> None:
    masked, originals = mask_cell("%%bash\nfor f in *; do\n  echo $f\ndone")
    assert masked == "\n".join([PLACEHOLDER] * 4)
    assert originals == ("%%bash", "for f in *; do", "  echo $f", "done")


def test_masked_lines_and_markers_never_get_a_finding_or_an_edit() -> None:
    data = notebook([code("import torch\n!ls\nx = 1\n"), code("y = 2\n")]).encode()
    source = decode_notebook(data)
    assert source.text == (
        f"# devlint: cell 1\nimport torch\n{PLACEHOLDER}\nx = 1\n# devlint: cell 2\ny = 2\n"
    )

    def finding(row: int, edit: tuple[int, int, int, int] | None = None) -> Finding:
        fix = None
        if edit is not None:
            start, end = Location(edit[0], edit[1]), Location(edit[2], edit[3])
            fix = Fix(Applicability.SAFE, "fix", (Edit(start, end, "z"),))
        return Finding("n.ipynb", "DEV001", "x", "m", Location(row, 1), Location(row, 2), fix)

    kept = source.restrict(
        [
            finding(1),  # a marker
            finding(3),  # a masked line
            finding(2, (2, 1, 2, 3)),  # its own line: kept with its fix
            finding(4, (4, 1, 6, 2)),  # the edit runs into the next cell: the fix goes
            finding(4, (3, 1, 4, 2)),  # the edit touches a masked line: the fix goes
            finding(4, (4, 1, 5, 1)),  # the whole line with its break: fine
        ]
    )
    assert [(f.start.row, f.fix is not None) for f in kept] == [
        (2, True),
        (4, False),
        (4, False),
        (4, True),
    ]
    (mapped,) = source.to_cells([kept[-1]])
    assert (mapped.cell, mapped.start, mapped.end) == (1, Location(3, 1), Location(3, 2))
    assert mapped.fix is not None
    assert mapped.fix.edits[0].end == Location(4, 1)


def test_encoding_an_unchanged_text_gives_the_same_bytes() -> None:
    data = ("\ufeff" + notebook(training_cells(), indent=2)).encode()
    source = decode_notebook(data)
    assert source.encode(source.text) == data
