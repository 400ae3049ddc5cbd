"""``--statistics``: a count of findings per rule instead of the findings, as text or JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from devlint.findings import Applicability, Finding


@dataclass(frozen=True)
class RuleCount:
    """How many findings one rule has, and how many of them can be fixed now."""

    code: str
    name: str
    count: int
    fixable: int


def count_by_rule(findings: Sequence[Finding], *, unsafe_fixes: bool) -> list[RuleCount]:
    """One count per rule that has findings, by code; unsafe fixes count only when enabled."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(
        (f.code, f.name)
        for f in findings
        if f.fix is not None and (unsafe_fixes or f.fix.applicability is Applicability.SAFE)
    )
    return [
        RuleCount(code, name, count, fixable[(code, name)])
        for (code, name), count in sorted(counts.items())
    ]


def render_statistics_text(counts: Sequence[RuleCount], console: Console) -> None:
    """A table with a header row; nothing at all when there is no finding."""
    if not counts:
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("count", "code", "name", "fixable"):
        table.add_column(column, justify="right" if column in ("count", "fixable") else "left")
    for rule in counts:
        table.add_row(str(rule.count), rule.code, rule.name, str(rule.fixable))
    console.print(table, soft_wrap=True)


def render_statistics_json(counts: Sequence[RuleCount]) -> str:
    """A JSON array in ruff's shape: ``code``, ``name``, ``count``, ``fixable`` (whether
    any is) and ``fixable_count``."""
    rows = [
        {
            "code": c.code,
            "name": c.name,
            "count": c.count,
            "fixable": c.fixable > 0,
            "fixable_count": c.fixable,
        }
        for c in counts
    ]
    return json.dumps(rows, indent=2) + "\n"
