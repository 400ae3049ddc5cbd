"""Machine-readable output in ruff's JSON shape, so tools that read ruff can read devlint."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from devlint.findings import Edit, Finding, Fix, Location


def render_json(findings: Sequence[Finding]) -> str:
    """Return the findings as a JSON array (indented, trailing newline, non-ASCII kept)."""
    return json.dumps([_finding(f) for f in findings], indent=2, ensure_ascii=False) + "\n"


def _finding(finding: Finding) -> dict[str, Any]:
    cell = {} if finding.cell is None else {"cell": finding.cell}  # rows then count in the cell
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "filename": finding.path,
        **cell,
        "location": _location(finding.start),
        "end_location": _location(finding.end),
        "fix": None if finding.fix is None else _fix(finding.fix),
        # Rules have no documentation pages online yet.
        "url": None,
    }


def _fix(fix: Fix) -> dict[str, Any]:
    return {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": [_edit(e) for e in fix.edits],
    }


def _edit(edit: Edit) -> dict[str, Any]:
    return {
        "content": edit.content,
        "location": _location(edit.start),
        "end_location": _location(edit.end),
    }


def _location(location: Location) -> dict[str, int]:
    return {"row": location.row, "column": location.column}
