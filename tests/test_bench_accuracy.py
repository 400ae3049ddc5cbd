"""bench/accuracy/run.py: the committed set is well formed, and its scoring is right.

No mirror or network: the set is only parsed, and one case runs on a tiny git
repository made here.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("accuracy_run", ROOT / "bench/accuracy/run.py")
assert SPEC is not None and SPEC.loader is not None
accuracy = importlib.util.module_from_spec(SPEC)
sys.modules["accuracy_run"] = accuracy
SPEC.loader.exec_module(accuracy)


def test_the_committed_set_parses_with_unique_ids_and_enough_entries() -> None:
    cases = accuracy.load_cases(ROOT / "bench/accuracy")
    lookalikes = accuracy.load_lookalikes(ROOT / "bench/accuracy")
    accuracy.load_judgments(ROOT / "bench/accuracy")
    assert len(cases) >= 40
    assert len(lookalikes) >= len(cases)
    for case in cases:
        assert case.id.endswith(case.commit[:7]), case.id
        assert case.rule == "" or case.rule.startswith("DEV"), case.id


def test_an_unknown_key_is_an_error_naming_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "a__b.toml").write_text(
        '[[case]]\nid = "b-0000000"\nrepo = "a/b"\ncommit = "' + "0" * 40 + '"\n'
        'files = ["x.py"]\nbuggy = { "x.py" = [1] }\nrule = "DEV003"\nkind = "k"\n'
        'summary = "s"\nline = 3\n'
    )
    with pytest.raises(accuracy.SetError, match=r"a__b\.toml: case #1: unknown key 'line'"):
        accuracy.load_cases(tmp_path)


def git(repository: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-C", str(repository), *args], capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


@pytest.fixture
def fixed_repository(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose second commit fixes a CPU factory in a forward."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    git(work, "config", "user.email", "t@example.com")
    git(work, "config", "user.name", "t")
    model = work / "model.py"
    buggy = (
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        return x + torch.arange(3)\n"
    )
    model.write_text(buggy)
    git(work, "add", ".")
    git(work, "commit", "-qm", "bug")
    model.write_text(buggy.replace("torch.arange(3)", "torch.arange(3, device=x.device)"))
    git(work, "commit", "-qam", "fix")
    mirrors = tmp_path / "mirrors" / "o+r"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "repo")], check=True)
    return mirrors / "repo", git(work, "rev-parse", "HEAD")


def test_a_case_is_found_on_its_buggy_line_and_cleared_after_the_fix(
    tmp_path: Path, fixed_repository: tuple[Path, str]
) -> None:
    repository, commit = fixed_repository
    assert accuracy.git_dir(tmp_path / "mirrors", "o/r") == repository
    assert accuracy.added_rows(repository, commit + "^", commit, "model.py") == {7}
    case = accuracy.Case(
        "r-" + commit[:7], "o/r", commit, ("model.py",), {"model.py": frozenset({7})},
        "DEV003", "k", "s",
    )  # fmt: skip
    result = accuracy.run_case(case, repository, tmp_path / "work-dir")
    assert result.error == ""
    assert (result.found, result.found_any, result.cleared) == (True, True, True)
    assert [(f.side, f.line, f.code, f.verdict) for f in result.findings] == [
        ("before", 7, "DEV003", "true")
    ]


def test_a_verdict_covers_the_same_line_in_other_cases_of_the_repository() -> None:
    def finding(origin: str, line: int, verdict: str = "unjudged") -> Any:
        return accuracy.Finding(
            origin, "o/r", "before", "m.py", line, "DEV003", "", "x = f()", verdict
        )

    judged, twin, elsewhere = finding("r-1", 3), finding("r-2", 9), finding("r-3", 4)
    elsewhere.text = "y = g()"
    verdict = accuracy.Judgment("r-1", "m.py", 3, "DEV003", False, "placeholder")
    stale = accuracy.Judgment("r-1", "m.py", 5, "DEV003", True, "gone")
    assert accuracy.apply_judgments([judged, twin, elsewhere], [verdict, stale]) == [
        "r-1 m.py:5 DEV003"
    ]
    assert [f.verdict for f in (judged, twin, elsewhere)] == ["false", "false", "unjudged"]
    assert len(accuracy.distinct([judged, twin, elsewhere])) == 2


def test_a_verdict_covers_every_finding_of_its_line_in_the_copy_listed_last() -> None:
    def finding(side: str, verdict: str) -> Any:
        return accuracy.Finding(
            "r-1", "o/r", side, "m.py", 3, "DEV001", "", "a, b = f('cuda'), f('cuda')", verdict
        )

    before = finding("before", "true")
    first, second = finding("after", "false"), finding("after", "false")
    verdict = accuracy.Judgment("r-1", "m.py", 3, "DEV001", True, "still a bug after the fix")
    assert accuracy.apply_judgments([before, first, second], [verdict]) == []
    assert [f.reason for f in (first, second)] == ["judged: still a bug after the fix"] * 2
    assert before.reason == ""
