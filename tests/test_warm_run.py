"""A run the findings cache answers: what it loads, and that it answers only for what it saw.

Such a run must stay a small fraction of a parse (``bench/run.py``): it reads every file's
bytes and one cache entry, and imports no parser, no flow model, no index and no rule.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

import devlint.index
import devlint.rules
from devlint.cli import main

RULE_MODULES = sorted(
    f"devlint.rules.{path.stem}"
    for path in Path(devlint.rules.__path__[0]).glob("*.py")
    if path.stem not in ("__init__", "base")
)
"""Every rule module, and the helpers only rules use (``_devices``, ...)."""

_RUN_AND_LIST_MODULES = """\
import atexit, sys
def loaded():
    stand_in = "parse_module" not in vars(sys.modules.get("libcst", sys))
    real = [m for m in sys.modules if not (m == "libcst" and stand_in)]
    sys.stderr.write("\\nMODULES " + " ".join(sorted(real)) + "\\n")
atexit.register(loaded)
sys.argv = ["devlint", *sys.argv[1:]]
from devlint.entry import main
main()
"""
"""``devlint`` as the command line runs it, then the modules it loaded (``libcst`` only
once really imported: until then a stand-in holds its place, ``devlint.lazy_import``)."""


def _run(*arguments: str, cwd: Path) -> tuple[int, str, set[str]]:
    """Exit code, stdout and loaded modules of ``devlint <arguments>`` in a new process."""
    completed = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES, *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(devlint.__file__).parent.parent)},
    )
    listing = completed.stderr.rpartition("\nMODULES ")[2].split()
    return completed.returncode, completed.stdout, set(listing)


def test_a_warm_run_imports_no_parser_flow_index_or_rule_and_prints_the_same(
    tmp_path: Path,
) -> None:
    fixtures = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, fixtures)
    check = ("check", "--cache-dir", str(tmp_path / "cache"), ".")
    cold_code, cold_output, cold_modules = _run(*check, cwd=fixtures)
    assert cold_code == 1 and "DEV003" in cold_output
    assert {"libcst", "devlint.index", "devlint.flow.inference"} <= cold_modules
    warm_code, warm_output, warm_modules = _run(*check, cwd=fixtures)
    assert (warm_code, warm_output) == (cold_code, cold_output)
    heavy = {"libcst", "devlint.flow", "devlint.index", "devlint.skeleton", *RULE_MODULES}
    assert {m for m in warm_modules if m.split(".")[0] == "libcst"} == set()
    assert warm_modules & heavy == set()
    assert {m for m in warm_modules if m.startswith("devlint.flow")} == set()
    assert {"multiprocessing", "rich.progress", "devlint.report.sarif"} & warm_modules == set()


def findings(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _two_file_project(root: Path) -> Path:
    """``model.py``'s ``.cuda()`` is a finding only while ``base.py`` makes it model code."""
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (root / "base.py").write_text("import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n")
    (root / "model.py").write_text(
        "from base import Base\n\nclass M(Base):\n    def forward(self, x):\n"
        "        return x.cuda()\n"
    )
    return root


def _codes(found: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(f["code"], f["location"]["row"]) for f in found]  # type: ignore[index]


def test_an_unchanged_project_gets_its_findings_without_an_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _two_file_project(tmp_path / "p")
    cache = str(tmp_path / "cache")
    cold = findings("--cache-dir", cache, str(project))
    assert _codes(cold) == [("DEV002", 5)]

    def no_index(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index was built")

    with monkeypatch.context() as patched:
        patched.setattr(devlint.index, "ProjectIndex", no_index)
        assert findings("--cache-dir", cache, str(project)) == cold
        uncached = CliRunner().invoke(main, ["check", "--no-cache", str(project)])
        assert uncached.exit_code == 2 and "the index was built" in uncached.output


def test_a_change_in_one_file_changes_the_cached_findings_of_another(tmp_path: Path) -> None:
    project = _two_file_project(tmp_path / "p")
    cache = str(tmp_path / "cache")
    assert len(findings("--cache-dir", cache, str(project))) == 1
    (project / "base.py").write_text("class Base:\n    pass\n")
    assert findings("--cache-dir", cache, str(project)) == []
    configured = tmp_path / "devlint.toml"
    configured.write_text('[tool.devlint]\ndevice-aware-bases = ["base.Base"]\n')
    assert len(findings("--cache-dir", cache, "--config", str(configured), str(project))) == 1


def test_a_new_configuration_or_selection_is_not_answered_from_the_cache(tmp_path: Path) -> None:
    """Each run in a process of its own, as from a shell: the configuration is read once
    per process."""
    project = _two_file_project(tmp_path / "p")
    cache = str(tmp_path / "cache")

    def codes(*arguments: str) -> list[tuple[object, object]]:
        check = ("check", "--output-format", "json", "--cache-dir", cache, *arguments)
        return _codes(json.loads(_run(*check, "model.py", cwd=project)[1]))

    everything = [("DEV002", 5)]
    assert codes() == everything
    assert codes() == everything
    # The command line's selection: another key, each time.
    assert codes("--select", "DEV003") == []
    assert codes("--ignore", "DEV002") == []
    assert codes("--select", "DEV002") == everything
    assert codes() == everything
    # The project's configuration, edited after a warm run.
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[project]\nname = "p"\n\n[tool.devlint]\nignore = ["DEV002"]\n')
    assert codes() == []
    pyproject.write_text('[project]\nname = "p"\n\n[tool.devlint]\nselect = ["DEV003"]\n')
    assert codes() == []
    pyproject.write_text('[project]\nname = "p"\n')
    assert codes() == everything
