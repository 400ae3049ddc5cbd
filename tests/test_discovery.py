"""Tests for devlint.discovery: the walk, exclusion, gitignore, project roots."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from devlint.config import Config, config_for_directory
from devlint.discovery import PROJECT_MARKERS, DiscoveryError, discover_files, find_project_root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository (just a ``.git`` folder) that is also the cwd."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")


def discover(*paths: str) -> list[str]:
    return [p.as_posix() for p in discover_files([Path(p) for p in paths], config_for_directory)]


def test_walk_is_sorted_relative_and_python_only(repo: Path) -> None:
    touch(repo, "z.py", "a.py", "pkg/b.py", "pkg/sub/c.py", "a-b.py", "notes.txt", "stub.pyi")
    assert discover(".") == ["a-b.py", "a.py", "pkg/b.py", "pkg/sub/c.py", "z.py"]
    assert discover("pkg") == ["pkg/b.py", "pkg/sub/c.py"]


def test_default_excludes_and_virtualenvs_are_skipped(repo: Path) -> None:
    touch(
        repo,
        "keep.py",
        ".git/hooks/h.py",
        "pkg/__pycache__/m.py",
        "build/lib/m.py",
        "dist/m.py",
        "pkg/node_modules/m.py",
        "x.egg-info/m.py",
        "env/pyvenv.cfg",
        "env/lib/python3.11/site.py",
    )
    assert discover(".") == ["keep.py"]


def test_exclude_replaces_defaults_and_extend_exclude_adds(repo: Path) -> None:
    touch(repo, "build/m.py", "gen/m.py", "old/m.py", "dist/m.py")
    (repo / "pyproject.toml").write_text(
        '[tool.devlint]\nexclude = ["gen"]\nextend-exclude = ["old/"]\n'
    )
    assert discover(".") == ["build/m.py", "dist/m.py"]


def test_nested_project_config_governs_its_tree(repo: Path) -> None:
    touch(repo, "gen/a.py", "sub/gen/b.py", "sub/build/c.py")
    (repo / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["gen"]\n')
    (repo / "sub" / "pyproject.toml").write_text("[tool.devlint]\nexclude = []\n")
    assert discover(".") == ["sub/build/c.py", "sub/gen/b.py"]


def test_gitignore_nested_and_negation(repo: Path) -> None:
    touch(
        repo,
        "main.py",
        "scratch.py",
        "logs/run.py",
        "pkg/gen_a.py",
        "pkg/keep.py",
        "pkg/deep/gen_b.py",
        "pkg/deep/gen_keep.py",
    )
    (repo / ".gitignore").write_text("# generated\nscratch.py\nlogs/\npkg/gen_*.py\n")
    (repo / "pkg" / ".gitignore").write_text("*.py\n!keep.py\n")
    (repo / "pkg" / "deep" / ".gitignore").write_text("gen_*\n!gen_keep.py\n")
    assert discover(".") == ["main.py", "pkg/deep/gen_keep.py", "pkg/keep.py"]


def test_gitignore_above_the_walked_folder_applies(repo: Path) -> None:
    touch(repo, "pkg/sub/a.py", "pkg/sub/skip.py", "pkg/sub/deep/skip.py")
    (repo / ".gitignore").write_text("/pkg/sub/skip.py\n")
    (repo / "pkg" / ".gitignore").write_text("deep/\n")
    assert discover("pkg/sub") == ["pkg/sub/a.py"]


def test_gitignore_outside_a_repository_applies_from_walked_folder(tmp_path: Path) -> None:
    touch(tmp_path, "proj/a.py", "proj/tmp.py")
    (tmp_path / ".gitignore").write_text("a.py\n")
    (tmp_path / "proj" / ".gitignore").write_text("tmp.py\n")
    found = discover_files([tmp_path / "proj"], config_for_directory)
    assert found == [tmp_path / "proj" / "a.py"]


def test_nested_repository_does_not_see_outer_gitignore(repo: Path) -> None:
    touch(repo, "vendor/lib/skip.py", "vendor/lib/.git/HEAD")
    (repo / ".gitignore").write_text("skip.py\n")
    assert discover(".") == ["vendor/lib/skip.py"]


def test_respect_gitignore_false(repo: Path) -> None:
    touch(repo, "a.py", "ignored.py")
    (repo / ".gitignore").write_text("ignored.py\n")
    (repo / "pyproject.toml").write_text("[tool.devlint]\nrespect-gitignore = false\n")
    assert discover(".") == ["a.py", "ignored.py"]


def test_explicit_gitignored_file_is_returned(repo: Path) -> None:
    touch(repo, "ignored.py", "script")
    (repo / ".gitignore").write_text("ignored.py\nscript\n")
    assert discover("ignored.py", "script") == ["ignored.py", "script"]


def test_explicit_excluded_file_is_checked_unless_forced(repo: Path) -> None:
    touch(repo, "build/m.py", "pkg/gen/m.py", "pkg/ok.py")
    (repo / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["/pkg/gen/"]\n')
    paths = ["build/m.py", "pkg/gen/m.py", "pkg/ok.py", "build", "pkg/gen"]
    assert discover(*paths) == ["build/m.py", "pkg/gen/m.py", "pkg/ok.py"]
    forced = discover_files([Path(p) for p in paths], config_for_directory, force_exclude=True)
    assert [p.as_posix() for p in forced] == ["pkg/ok.py"]


def test_explicit_file_excluded_by_default_config(repo: Path) -> None:
    touch(repo, "build/m.py")
    assert discover("build/m.py") == ["build/m.py"]
    path = repo / "build" / "m.py"
    assert discover_files([path], config_for_directory, force_exclude=True) == []


def test_project_folder_is_not_excluded_by_its_own_name(tmp_path: Path) -> None:
    project = tmp_path / "build"
    touch(project, "setup.py", "a.py")
    assert discover_files([project], config_for_directory) == [
        project / "a.py",
        project / "setup.py",
    ]


def test_folder_named_like_a_source_file(repo: Path) -> None:
    touch(repo, "x.py/inner.py")
    assert discover(".") == ["x.py/inner.py"]
    assert discover("x.py") == ["x.py/inner.py"]


def test_symlink_loop_terminates_and_symlinked_file_is_checked(repo: Path) -> None:
    touch(repo, "pkg/a.py", "elsewhere/real.py")
    os.symlink(repo, repo / "pkg" / "loop")
    os.symlink(repo / "elsewhere", repo / "pkg" / "linked_dir")
    os.symlink(repo / "elsewhere" / "real.py", repo / "pkg" / "link.py")
    os.symlink(repo / "missing.py", repo / "pkg" / "broken.py")
    assert discover("pkg") == ["pkg/a.py", "pkg/link.py"]


def test_explicit_symlinked_folder_is_walked(repo: Path) -> None:
    touch(repo, "elsewhere/real.py")
    os.symlink(repo / "elsewhere", repo / "alias")
    assert discover("alias") == ["alias/real.py"]


def test_nonexistent_path_raises_naming_it(repo: Path) -> None:
    touch(repo, "a.py")
    with pytest.raises(DiscoveryError) as caught:
        discover("a.py", "nope/")
    assert str(caught.value) == "path 'nope' does not exist"


def test_duplicates_are_removed(repo: Path) -> None:
    touch(repo, "pkg/a.py", "b.py")
    assert discover(".", "pkg", "pkg/a.py", "./b.py", str(repo / "b.py")) == ["b.py", "pkg/a.py"]


def test_unreadable_folder_is_skipped(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(repo, "a.py", "locked/b.py", "open/c.py")
    real_scandir = os.scandir

    def scandir(path: Path) -> Iterator[os.DirEntry[str]]:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert discover(".") == ["a.py", "open/c.py"]


def test_constant_config_is_used_everywhere(repo: Path) -> None:
    touch(repo, "a.py", "build/b.py", "sub/c.py")
    (repo / "sub" / "pyproject.toml").write_text('[tool.devlint]\nexclude = ["c.py"]\n')
    only = Config(source=None, root=repo, exclude=())
    found = discover_files([Path(".")], lambda _folder: only)
    assert [p.as_posix() for p in found] == ["a.py", "build/b.py", "sub/c.py"]


def test_find_project_root(repo: Path) -> None:
    touch(repo, "pkg/mod.py", "nested/setup.cfg", "nested/src/m.py")
    assert find_project_root(Path("pkg/mod.py")) == repo
    assert find_project_root(Path("pkg")) == repo
    assert find_project_root(Path("nested/src/m.py")) == repo / "nested"
    assert find_project_root(repo / "nested") == repo / "nested"


def test_a_setup_module_inside_a_package_is_no_project_root(repo: Path) -> None:
    """``pkg/apps/setup.py`` in a subpackage is a module of the package (a training set-up)
    or an extension's build script, not a project: its folder belongs to the project
    above, whose imports of it must resolve. A ``pyproject.toml`` there still makes a
    project, and so does a ``setup.py`` of a top-level package (a repository that is one)."""
    touch(repo, "pkg/__init__.py", "pkg/apps/__init__.py", "pkg/apps/setup.py", "pkg/apps/m.py")
    touch(repo, "pkg/ext/__init__.py", "pkg/ext/setup.cfg", "pkg/ext/m.py")
    touch(repo, "pkg/own/__init__.py", "pkg/own/pyproject.toml", "pkg/own/m.py")
    assert find_project_root(Path("pkg/apps/m.py")) == repo
    assert find_project_root(Path("pkg/ext/m.py")) == repo
    assert find_project_root(Path("pkg/own/m.py")) == repo / "pkg" / "own"
    touch(repo, "top/__init__.py", "top/setup.py", "top/m.py")  # a package that is a project
    assert find_project_root(Path("top/m.py")) == repo / "top"


def test_find_project_root_falls_back_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if any((folder / m).exists() for folder in tmp_path.parents for m in PROJECT_MARKERS):
        pytest.skip("a folder above tmp_path holds a project marker")
    touch(tmp_path, "loose/m.py")
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert find_project_root(tmp_path / "loose" / "m.py") == tmp_path / "cwd"
