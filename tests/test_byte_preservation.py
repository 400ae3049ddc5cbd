"""`fix --write` changes the fixed spans and not one byte more.

Each case writes a LightningModule with DEV001/DEV002 bugs (and one DEV003) in a
particular byte form, runs `devlint fix --write`, and compares the whole file with
the expected bytes: encoding, BOM, line ends, tabs, form feeds and a missing final
newline must all survive.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from devlint.cli import main

MODEL = (
    "import torch\n"
    "import pytorch_lightning as pl\n"
    "\n"
    "\n"
    "class Model(pl.LightningModule):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.layer = torch.nn.Linear(3, 4).cuda()\n"
    "        self.head = torch.nn.Linear(4, 2)\n"
    "        self.head.cuda()\n"
    "        self.scale = 2\n"
    "\n"
    "    def forward(self, x):\n"
    "        x = x.cuda()\n"
    '        y = self.layer(x.to("cuda:0"))\n'
    "        return self.head(y) + torch.zeros(2)\n"
)
"""DEV002 three ways (`.cuda()` on a built module, a `.cuda()` statement in
``__init__``, a tensor's `.cuda()` in ``forward``), DEV001 and DEV003."""


def fixed(text: str) -> str:
    """What the safe fixes make of MODEL's lines, whatever surrounds them."""
    replacements = [
        ("torch.nn.Linear(3, 4).cuda()", "torch.nn.Linear(3, 4)"),
        ("x = x.cuda()", "x = x.to(self.device)"),
        ('x.to("cuda:0")', "x.to(self.device)"),
        ("torch.zeros(2)", "torch.zeros(2, device=self.device)"),
    ]
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    # The `.cuda()` statement goes with its whole line, line end included.
    start = text.index("self.head.cuda()")
    line_start = text.rindex("\n", 0, start) + 1 if "\n" in text[:start] else 0
    line_start = max(line_start, text.rfind("\r", 0, start) + 1)
    end = start + len("self.head.cuda()")
    end += 2 if text.startswith("\r\n", end) else 1
    return text[:line_start] + text[end:]


def with_line_ends(text: str, ends: Callable[[int], str]) -> str:
    """``text`` with the line end of line ``i`` (0-based) replaced by ``ends(i)``."""
    lines = text.split("\n")
    body = "".join(line + ends(number) for number, line in enumerate(lines[:-1]))
    return body + lines[-1]


def latin1() -> tuple[bytes, bytes]:
    text = "# -*- coding: latin-1 -*-\n# Modèle écrit à Besançon: ½ ¾ ©\n" + MODEL.replace(
        "        return", "        label = 'déjà vu, naïve, £5'\n        return"
    )
    return text.encode("latin-1"), fixed(text).encode("latin-1")


def utf8_bom() -> tuple[bytes, bytes]:
    text = "# Modèle — ∑ 😀\n" + MODEL
    return b"\xef\xbb\xbf" + text.encode(), b"\xef\xbb\xbf" + fixed(text).encode()


def crlf() -> tuple[bytes, bytes]:
    text = MODEL.replace("\n", "\r\n")
    return text.encode(), fixed(text).encode()


def lone_cr() -> tuple[bytes, bytes]:
    text = MODEL.replace("\n", "\r")
    return text.encode(), fixed(text).encode()


def mixed_newlines() -> tuple[bytes, bytes]:
    text = with_line_ends(MODEL, lambda number: ("\n", "\r\n", "\r")[number % 3])
    return text.encode(), fixed(text).encode()


def tabs() -> tuple[bytes, bytes]:
    text = MODEL.replace("    ", "\t").replace("x = x.cuda()", "x = x.cuda()\t# tab\t")
    return text.encode(), fixed(text).encode()


def form_feeds() -> tuple[bytes, bytes]:
    text = MODEL.replace("\n\n\nclass", "\n\x0c\n\nclass").replace(
        "\n\n    def forward", "\n    \x0c\n    def forward"
    )
    text = text.replace("x = x.cuda()", "x = x.cuda()  \x0c# after a form feed")
    return text.encode(), fixed(text).encode()


def no_final_newline() -> tuple[bytes, bytes]:
    text = MODEL.rstrip("\n")
    return text.encode(), fixed(text).encode()


def crlf_without_final_newline() -> tuple[bytes, bytes]:
    text = MODEL.replace("\n", "\r\n").rstrip("\r\n")
    return text.encode(), fixed(text).encode()


def trailing_whitespace_and_continuations() -> tuple[bytes, bytes]:
    text = MODEL.replace("import torch\n", "import torch   \n").replace(
        "        return self.head(y)", "        return \\\n            self.head(y)"
    )
    return text.encode(), fixed(text).encode()


CASES = {
    case.__name__: case
    for case in (
        latin1,
        utf8_bom,
        crlf,
        lone_cr,
        mixed_newlines,
        tabs,
        form_feeds,
        no_final_newline,
        crlf_without_final_newline,
        trailing_whitespace_and_continuations,
    )
}


@pytest.mark.parametrize("name", CASES)
def test_fix_write_keeps_every_byte_outside_the_fixes(in_tmp: Path, name: str) -> None:
    before, after = CASES[name]()
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "p"\n')
    path = in_tmp / "model.py"
    path.write_bytes(before)
    compile(before, "model.py", "exec")  # each case is valid Python to begin with

    result = CliRunner().invoke(main, ["fix", "--write", "--no-cache", "."])

    assert (result.exit_code, result.stderr) == (0, "Fixed 5 findings in 1 file.\n")
    assert path.read_bytes() == after
    again = CliRunner().invoke(main, ["fix", "--write", "--no-cache", "."])
    assert (again.exit_code, again.stderr) == (0, "All checks passed!\n")
    assert path.read_bytes() == after


@pytest.mark.parametrize("name", ["latin1", "utf8_bom", "mixed_newlines"])
def test_the_diff_of_a_dry_run_matches_what_write_does(in_tmp: Path, name: str) -> None:
    before, _ = CASES[name]()
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (in_tmp / "model.py").write_bytes(before)
    dry = CliRunner().invoke(main, ["fix", "--no-cache", "."])
    assert dry.exit_code == 1
    assert dry.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert (in_tmp / "model.py").read_bytes() == before
