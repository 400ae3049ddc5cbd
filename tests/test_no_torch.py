"""The linter never imports torch, nor ``devlint.testing`` (the optional runtime oracle)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "devlint"

CHECK_THEN_LOOK = """
import sys
import devlint.cli
from devlint.rules import all_rules
all_rules()
try:
    devlint.cli.main(["check", "--no-cache", "--jobs", "1", "--select", "ALL", sys.argv[1]])
except SystemExit as done:
    assert done.code == 1, done.code
loaded = sorted(n for n in sys.modules if n.partition(".")[0] == "torch" or n == "devlint.testing")
print(loaded)
"""


def test_a_check_with_every_rule_loads_neither_torch_nor_the_oracle() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK_THEN_LOOK, str(REPO / "fixtures" / "runtime_seed")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


def test_no_module_of_the_linter_imports_torch_or_the_oracle() -> None:
    importing = []
    for path in PACKAGE.rglob("*.py"):
        if PACKAGE / "testing" in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(n == "torch" or n.startswith(("torch.", "devlint.testing")) for n in names):
                importing.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert importing == []
