"""SARIF 2.1.0 output, the format GitHub code scanning and other result viewers read.

One run: ``tool.driver`` describes devlint and every rule it has (so that a result's
``ruleIndex`` points into that list whichever rules the run enabled), and each finding
becomes a result with its location and, when devlint has one, its fix.

Levels: ``DEV000`` (a file that could not be read or parsed, so nothing in it was
checked) is an ``error``; the rules' findings are ``warning``s. A device bug only
shows on some hardware (the code runs where it was written) and devlint finds it by
static inference, which can be wrong; as warnings they are shown in code scanning
without failing pull requests under GitHub's default settings, and a repository that
wants them to block raises its threshold (or runs ``devlint check``, whose exit code
fails on any finding).

Columns are 1-based code points, as devlint counts them, so the run says
``columnKind: unicodeCodePoints`` (SARIF's default is UTF-16 code units).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, Literal
from urllib.parse import quote

from devlint import __version__
from devlint.docs import rule_documentation
from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.rules import all_rules
from devlint.rules.base import Rule
from devlint.rules.syntax_error import SyntaxErrorRule

SCHEMA_URI = (
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
)
"""The ``$id`` of the official SARIF 2.1.0 JSON schema."""

SOURCE_ROOT = "%SRCROOT%"
"""The base that relative artifact URIs are resolved against: the working directory."""

Level = Literal["error", "warning"]


def level_of(code: str) -> Level:
    """The SARIF level of a rule's findings (see the module docstring for why)."""
    return "error" if code == SyntaxErrorRule.code else "warning"


def render_sarif(
    findings: Sequence[Finding],
    *,
    source_root: Path | None = None,
    not_checked: Mapping[str, str] | None = None,
) -> str:
    """Return one SARIF log (indented JSON, trailing newline) holding ``findings``.

    Relative paths are relative to ``source_root`` (the working directory the paths
    were displayed from); when given, the log records it as the absolute location of
    ``%SRCROOT%``, which local SARIF viewers use to open the files. Files devlint could
    not check (``not_checked``: path to reason) make the run's invocation unsuccessful,
    with one error notification each, so that a code-scanning service does not take them
    for clean.
    """
    rules = list(all_rules())
    descriptors = [_descriptor(rule) for rule in rules]
    index = {rule.code: position for position, rule in enumerate(rules)}
    results = []
    for finding in findings:
        if finding.code not in index:  # not a registered rule: describe it from the finding
            index[finding.code] = len(descriptors)
            descriptors.append(_bare_descriptor(finding))
        results.append(_result(finding, index[finding.code], source_root))
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "devlint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }
        },
        "columnKind": "unicodeCodePoints",
    }
    if source_root is not None:
        run["originalUriBaseIds"] = {SOURCE_ROOT: {"uri": _directory_uri(source_root)}}
    run["results"] = results
    if not_checked:
        run["invocations"] = [
            {
                "executionSuccessful": False,
                "toolExecutionNotifications": [
                    _notification(path, reason, source_root)
                    for path, reason in sorted(not_checked.items())
                ],
            }
        ]
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _descriptor(rule: Rule) -> dict[str, Any]:
    docs = rule_documentation(rule)
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _what_it_does(docs) or rule.summary},
    }
    if docs:
        descriptor["help"] = {"text": docs, "markdown": docs}
    descriptor["defaultConfiguration"] = {
        "enabled": rule.default_enabled,
        "level": level_of(rule.code),
    }
    descriptor["properties"] = {"fixSafety": rule.fix_safety}
    return descriptor


def _bare_descriptor(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.code,
        "name": finding.name,
        "shortDescription": {"text": finding.name},
        "defaultConfiguration": {"level": level_of(finding.code)},
    }


def _what_it_does(docs: str) -> str:
    """The text of the docs' "What it does" section (or first paragraph), on one line."""
    lines = docs.splitlines()
    heading = "## What it does"
    if heading in lines:
        body = lines[lines.index(heading) + 1 :]
        section = []
        for line in body:
            if line.startswith("#"):
                break
            section.append(line)
    else:
        section = docs.split("\n\n", 1)[0].splitlines()
    return " ".join(line.strip() for line in section if line.strip())


def _result(finding: Finding, rule_index: int, source_root: Path | None) -> dict[str, Any]:
    artifact = _artifact_location(finding.path, source_root)
    location: dict[str, Any] = {"artifactLocation": artifact}
    message = finding.message
    if finding.cell is None:
        location["region"] = _region(finding.start, finding.end)
    else:
        # Rows count within a notebook cell, not in the .ipynb file's JSON: name the
        # cell in the message and point at the notebook as a whole.
        message = f"cell {finding.cell}, line {finding.start.row}: {message}"
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": level_of(finding.code),
        "message": {"text": message},
        "locations": [{"physicalLocation": location}],
    }
    if finding.fix is not None and finding.cell is None:
        result["fixes"] = [_fix(finding.fix, artifact)]
    return result


def _fix(fix: Fix, artifact: dict[str, str]) -> dict[str, Any]:
    description = fix.message
    if fix.applicability is Applicability.UNSAFE:
        description += " (unsafe fix: devlint applies it only with --unsafe-fixes)"
    edits = sorted(fix.edits, key=lambda edit: (edit.start, edit.end))
    return {
        "description": {"text": description},
        "artifactChanges": [
            {
                "artifactLocation": artifact,
                "replacements": [_replacement(edit) for edit in edits],
            }
        ],
        "properties": {"applicability": fix.applicability.value},
    }


def _replacement(edit: Edit) -> dict[str, Any]:
    # An empty region (start == end) is an insertion point.
    return {
        "deletedRegion": _region(edit.start, edit.end),
        "insertedContent": {"text": edit.content},
    }


def _region(start: Location, end: Location) -> dict[str, int]:
    # devlint's end column is exclusive, as SARIF's endColumn is.
    return {
        "startLine": start.row,
        "startColumn": start.column,
        "endLine": end.row,
        "endColumn": end.column,
    }


def _notification(path: str, reason: str, source_root: Path | None) -> dict[str, Any]:
    """An error of devlint's own about the file at ``path`` (it could not check it)."""
    return {
        "level": "error",
        "message": {"text": reason},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact_location(path, source_root)}}
        ],
    }


def _artifact_location(path: str, source_root: Path | None) -> dict[str, str]:
    """A relative URI against ``%SRCROOT%``, or a ``file:`` URI for a path outside it."""
    pure = PurePath(path)
    if pure.is_absolute():
        return {"uri": Path(path).as_uri()}
    relative = pure.as_posix()
    if (relative == ".." or relative.startswith("../")) and source_root is not None:
        return {"uri": Path(os.path.normpath(source_root.absolute() / pure)).as_uri()}
    return {"uri": quote(relative, safe="/"), "uriBaseId": SOURCE_ROOT}


def _directory_uri(folder: Path) -> str:
    uri = folder.absolute().as_uri()
    return uri if uri.endswith("/") else uri + "/"
