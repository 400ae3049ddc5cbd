"""JSON output keeps ruff's shape so existing tooling can read it."""

from __future__ import annotations

import json

from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.report.json import render_json

WITH_FIX = Finding(
    path="src/pkg/model.py",
    code="DEV002",
    name="cuda-call",
    message="`.cuda()` in model code",
    start=Location(5, 17),
    end=Location(5, 24),
    fix=Fix(
        Applicability.UNSAFE,
        "Replace `.cuda()` with `.to(self.device)`",
        (
            Edit(Location(5, 17), Location(5, 24), ".to(self.device)"),
            Edit(Location(1, 1), Location(1, 1), "import torch\n"),
        ),
    ),
)
WITHOUT_FIX = Finding(
    path="./train.py",
    code="DEV005",
    name="device-map-under-distributed",
    message='`device_map="auto"` under distributed training — use LOCAL_RANK',
    start=Location(12, 5),
    end=Location(14, 1),
)

EXPECTED = [
    {
        "code": "DEV002",
        "name": "cuda-call",
        "message": "`.cuda()` in model code",
        "filename": "src/pkg/model.py",
        "location": {"row": 5, "column": 17},
        "end_location": {"row": 5, "column": 24},
        "fix": {
            "applicability": "unsafe",
            "message": "Replace `.cuda()` with `.to(self.device)`",
            "edits": [
                {
                    "content": ".to(self.device)",
                    "location": {"row": 5, "column": 17},
                    "end_location": {"row": 5, "column": 24},
                },
                {
                    "content": "import torch\n",
                    "location": {"row": 1, "column": 1},
                    "end_location": {"row": 1, "column": 1},
                },
            ],
        },
        "url": None,
    },
    {
        "code": "DEV005",
        "name": "device-map-under-distributed",
        "message": '`device_map="auto"` under distributed training — use LOCAL_RANK',
        "filename": "./train.py",
        "location": {"row": 12, "column": 5},
        "end_location": {"row": 14, "column": 1},
        "fix": None,
        "url": None,
    },
]


def test_findings_with_and_without_fix() -> None:
    assert json.loads(render_json([WITH_FIX, WITHOUT_FIX])) == EXPECTED


def test_key_order() -> None:
    with_fix, without_fix = json.loads(render_json([WITH_FIX, WITHOUT_FIX]))
    keys = ["code", "name", "message", "filename", "location", "end_location", "fix", "url"]
    assert list(with_fix) == keys
    assert list(without_fix) == keys
    assert list(with_fix["location"]) == ["row", "column"]
    assert list(with_fix["fix"]) == ["applicability", "message", "edits"]
    assert list(with_fix["fix"]["edits"][0]) == ["content", "location", "end_location"]


def test_safe_applicability() -> None:
    fix = Fix(Applicability.SAFE, "m", (Edit(Location(1, 1), Location(1, 2), ""),))
    found = Finding("a.py", "DEV001", "hardcoded-device", "m", Location(1, 1), Location(1, 2), fix)
    assert json.loads(render_json([found]))[0]["fix"]["applicability"] == "safe"


def test_formatting() -> None:
    text = render_json([WITHOUT_FIX])
    assert text.endswith("}\n]\n")
    assert '\n  {\n    "code": "DEV005",\n' in text
    assert "—" in text  # ensure_ascii=False keeps non-ASCII readable


def test_no_findings() -> None:
    assert render_json([]) == "[]\n"
