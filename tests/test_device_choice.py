"""Literal devices a test chooses, as a script does (DEV001, DEV002): quiet in test code,
flagged in the same code outside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_snippet

_CUDA_CALL = (
    "import unittest\nimport torch\n\n"
    "class ModelTest(unittest.TestCase):\n"
    "    def setUp(self):\n"
    "        self.model = build()\n\n"
    "    def test_fp16(self):\n"
    "        tokens = torch.LongTensor([7, 2]).cuda()\n"
    "        self.model(tokens)\n"
)
_LITERAL = (
    "import unittest\nimport torch\n\n"
    "class ModelTest(unittest.TestCase):\n"
    "    def setUp(self):\n"
    "        self.model = build()\n\n"
    "    def test_fp16(self):\n"
    '        tokens = torch.LongTensor([7, 2]).to("cuda")\n'
    "        self.model(tokens)\n"
)


@pytest.mark.parametrize(
    ("source", "code", "column"), [(_CUDA_CALL, "DEV002", 43), (_LITERAL, "DEV001", 46)]
)
def test_a_test_chooses_its_device(source: str, code: str, column: int, tmp_path: Path) -> None:
    _, in_test = lint_snippet(tmp_path / "a", source, select=(code,), name="test_model.py")
    assert in_test.findings == []
    _, elsewhere = lint_snippet(tmp_path / "b", source, select=(code,), name="checks.py")
    assert [(f.code, f.start.row, f.start.column) for f in elsewhere.findings] == [
        (code, 9, column)
    ]
