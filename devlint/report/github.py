"""GitHub Actions workflow commands: one ``::error`` line per finding, shown inline in PRs.

``::error file=PATH,line=L,endLine=EL,col=C,endColumn=EC,title=CODE (name)::message``

Every finding is an ``error``: this format is for a job that fails on devlint's exit
code, so each annotation is one of the reasons the job failed. The runner drops
``col`` and ``endColumn`` from a span whose ``line`` and ``endLine`` differ, so such
spans are written without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from devlint.findings import Finding

_DATA_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
"""What the runner unescapes in a command's message (``%`` first, so it round-trips)."""

_PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})
"""Property values also escape the characters that end a value (``,``) or the list (``:``)."""


def render_github(findings: Sequence[Finding]) -> str:
    """Return one workflow-command line per finding (empty when there is none)."""
    return "".join(annotation(finding) + "\n" for finding in findings)


def annotation(finding: Finding) -> str:
    """The ``::error`` command for one finding, without the line break."""
    properties = [("file", PurePath(finding.path).as_posix())]
    message = finding.message
    if finding.cell is not None:
        # Rows count within a notebook cell, not in the .ipynb file: say so in words.
        message = f"cell {finding.cell}, line {finding.start.row}: {message}"
    else:
        properties.append(("line", str(finding.start.row)))
        properties.append(("endLine", str(finding.end.row)))
        if finding.start.row == finding.end.row:
            properties.append(("col", str(finding.start.column)))
            properties.append(("endColumn", str(finding.end.column)))
    properties.append(("title", f"{finding.code} ({finding.name})"))
    listed = ",".join(f"{key}={value.translate(_PROPERTY_ESCAPES)}" for key, value in properties)
    return f"::error {listed}::{message.translate(_DATA_ESCAPES)}"
