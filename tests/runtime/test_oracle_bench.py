"""A sample of ``bench/oracle.py``: two known-clean architectures, the table it prints."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import runtime_support as rt

pytestmark = rt.QUIET

BENCH = Path(__file__).resolve().parents[2] / "bench" / "oracle.py"
ROWS = (
    "architectures tried",
    "built (on meta)",
    "ran (forward finished)",
    "oracle crash sites",
    "static findings (all rules)",
    "  of the meeting kinds",
    "  of those on lines that ran",
    "recall: crash sites with a finding",
    "precision: executed findings that crashed",
    "seconds",
)


def harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("oracle_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_known_clean_models_run_clean_and_the_table_has_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = harness()
    options = ["--only", "bert", "vit", "--jobs", "1", "--static-scope", "executed"]
    comparison = bench.main([*options, "--cache-dir", str(tmp_path)])
    printed = capsys.readouterr().out.splitlines()
    rows = printed[1 : 1 + len(ROWS)]
    assert [line[: len(row)] for line, row in zip(rows, ROWS, strict=True)] == list(ROWS)
    table = {row: line[len(row) :].strip() for line, row in zip(rows, ROWS, strict=True)}
    assert all(re.fullmatch(r"\d+(/\d+| in \d+ architectures)?", value) for value in table.values())
    assert [table[row] for row in ROWS[:4]] == ["2", "2", "2", "0 in 0 architectures"]
    assert table["recall: crash sites with a finding"] == "0/0"
    assert [o.model_type for o in comparison.outcomes] == ["bert", "vit"]
    assert all(o.stage == "ran" and o.crashes == [] for o in comparison.outcomes)
    ran = {file for o in comparison.outcomes for file, _ in o.ran_lines}
    assert "transformers/models/bert/modeling_bert.py" in ran
    assert "transformers/models/vit/modeling_vit.py" in ran
    assert printed[1 + len(ROWS) :][:2] == ["", "Crashes without a static finding (recall):"]
