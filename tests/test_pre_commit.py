"""The pre-commit hooks, run by the real pre-commit tool against a throwaway git repository.

``pre-commit try-repo`` installs the hooks' environment from a git repository the way
a user's ``pre-commit install`` would (building devlint from the repository, with its
dependencies from PyPI: this is the part that needs the network). It only sees what
is committed there (plus modified tracked files, not new ones), so the tests commit a
snapshot of this working tree into a temporary repository and try that: the same in a
clean CI clone and in a working tree with uncommitted files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest

from devlint.config import config_for_directory
from devlint.discovery import discover_files

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / ".pre-commit-hooks.yaml"
PACKAGED = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
"""With ``devlint/``, what pip needs to build and install devlint from the hooks repository."""

BAD = """\
import lightning as L
import torch


class Classifier(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.layer(x.cuda())
"""
FIXED = BAD.replace("x.cuda()", "x.to(self.device)")
BASE = "import lightning as L\n\n\nclass Base(L.LightningModule):\n    pass\n"
MODEL = (
    "from base import Base\n\n\nclass Model(Base):\n"
    "    def forward(self, x):\n        return x.cuda()\n"
)
MODEL_FIXED = MODEL.replace("x.cuda()", "x.to(self.device)")


def _environment(home: Path) -> dict[str, str]:
    """This process's environment, less git's per-repository variables (as in a git hook)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        PRE_COMMIT_HOME=str(home),
        GIT_AUTHOR_NAME="devlint tests",
        GIT_AUTHOR_EMAIL="tests@devlint.invalid",
        GIT_COMMITTER_NAME="devlint tests",
        GIT_COMMITTER_EMAIL="tests@devlint.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def _git(folder: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )


def _commit_all(folder: Path, env: dict[str, str]) -> None:
    _git(folder, env, "init", "-q")
    _git(folder, env, "add", "-A")
    _git(folder, env, "commit", "-q", "-m", "snapshot")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _environment(tmp_path_factory.mktemp("pre-commit-home"))


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    """This working tree's package and hooks file, committed in a repository of their own."""
    snapshot = tmp_path_factory.mktemp("hooks-repo")
    for name in PACKAGED:
        shutil.copy2(REPO / name, snapshot / name)
    shutil.copytree(
        REPO / "devlint", snapshot / "devlint", ignore=shutil.ignore_patterns("__pycache__")
    )
    _commit_all(snapshot, env)
    return snapshot


@pytest.fixture
def user_repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A user's repository whose LightningModule calls ``.cuda()`` in ``forward``."""
    repo = tmp_path / "user"
    repo.mkdir()
    (repo / "model.py").write_text(BAD)
    (repo / "README.md").write_text("not Python: the hooks are about model.py\n")
    _commit_all(repo, env)
    return repo


def _try_repo(
    hooks: Path, hook: str, user: Path, env: dict[str, str], files: tuple[str, ...] = ()
) -> tuple[int, str]:
    """Run ``hook`` on ``files`` (as a commit of them would), or on every file."""
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), hook]
    chosen = ["--files", *files] if files else ["--all-files"]
    done = subprocess.run(
        [*command, *chosen, "--color=never"],
        cwd=user,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return done.returncode, done.stdout + done.stderr


def test_the_check_hook_fails_and_prints_the_finding(
    hooks_repo: Path, user_repo: Path, env: dict[str, str]
) -> None:
    code, output = _try_repo(hooks_repo, "devlint", user_repo, env)
    assert code == 1, output
    assert "devlint" in output and "Failed" in output, output
    assert "model.py:11:29: DEV002 `.cuda()` in model code" in output, output
    assert (user_repo / "model.py").read_text() == BAD


def test_the_fix_hook_rewrites_the_file(
    hooks_repo: Path, user_repo: Path, env: dict[str, str]
) -> None:
    code, output = _try_repo(hooks_repo, "devlint-fix", user_repo, env)
    assert code == 1, output  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in output, output
    assert (user_repo / "model.py").read_text() == FIXED


@pytest.fixture
def package_repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A user's project whose model's base class is a LightningModule in another file,
    and another module with a finding of its own."""
    repo = tmp_path / "package"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "package"\n')
    (repo / "base.py").write_text(BASE)
    (repo / "model.py").write_text(MODEL)
    (repo / "other.py").write_text(MODEL.replace("Model", "Other"))
    _commit_all(repo, env)
    return repo


def test_the_hooks_check_the_files_passed_in_their_project(
    hooks_repo: Path, package_repo: Path, env: dict[str, str]
) -> None:
    """pre-commit passes only model.py; its finding needs base.py, which devlint reads."""
    code, output = _try_repo(hooks_repo, "devlint", package_repo, env, files=("model.py",))
    assert code == 1, output
    assert "model.py:6:18: DEV002 `.cuda()` in model code" in output, output
    assert "other.py" not in output, output
    code, output = _try_repo(hooks_repo, "devlint-fix", package_repo, env, files=("model.py",))
    assert code == 1 and "files were modified by this hook" in output, output
    assert (package_repo / "model.py").read_text() == MODEL_FIXED
    assert (package_repo / "other.py").read_text() == MODEL.replace("Model", "Other")


def test_the_manifest_declares_both_hooks_over_the_commits_files() -> None:
    hooks = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}
    assert set(hooks) == {"devlint", "devlint-fix"}
    assert hooks["devlint"]["entry"].split() == ["devlint", "check", "--force-exclude"]
    assert hooks["devlint-fix"]["entry"].split() == [
        "devlint",
        "fix",
        "--write",
        "--force-exclude",
    ]
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "jupyter"]
        # The commit's files, each checked in its whole project (devlint reads the rest).
        assert hook["pass_filenames"] is True
        assert hook["require_serial"] is True
        assert hook["args"] == []


def test_force_exclude_keeps_the_default_path_and_drops_excluded_names(in_tmp: Path) -> None:
    """What the hook's ``--force-exclude`` does with no file names and with some."""
    (in_tmp / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["legacy/"]\n')
    (in_tmp / "legacy").mkdir()
    (in_tmp / "legacy" / "old.py").write_text("x = 1\n")
    (in_tmp / "new.py").write_text("x = 1\n")
    found = discover_files([Path(".")], config_for_directory, force_exclude=True)
    assert found == [Path("new.py")]
    named = [Path("legacy/old.py"), Path("new.py")]
    assert discover_files(named, config_for_directory, force_exclude=True) == [Path("new.py")]
