"""Tests for devlint.config: loading, validation, nearest-config search, matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from devlint import config as config_module
from devlint.config import (
    DEFAULT_EXCLUDE,
    Config,
    ConfigError,
    config_for_directory,
    formatter_line_length,
    load_config,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def pyproject(folder: Path, body: str) -> Path:
    return write(folder / "pyproject.toml", f"[tool.devlint]\n{body}\n")


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


def test_every_key_is_read(tmp_path: Path) -> None:
    source = pyproject(
        tmp_path,
        """
select = ["DEV001", "DEV01"]
ignore = ["DEV"]
extend-select = ["ALL"]
exclude = ["gen"]
extend-exclude = ["old/"]
per-file-ignores = { "tests/*" = ["DEV001"], "conftest.py" = [] }
unsafe-fixes = true
distributed = false
device-aware-bases = ["MyBase", "pkg.Base"]
processor-names = ["encode"]
respect-gitignore = false
cache-dir = ".cache/devlint"
""",
    )
    assert load_config(source) == Config(
        source=source,
        root=tmp_path,
        select=("DEV001", "DEV01"),
        ignore=("DEV",),
        extend_select=("ALL",),
        exclude=("gen",),
        extend_exclude=("old/",),
        per_file_ignores=(("tests/*", ("DEV001",)), ("conftest.py", ())),
        unsafe_fixes=True,
        distributed=False,
        device_aware_bases=("MyBase", "pkg.Base"),
        processor_names=("encode",),
        respect_gitignore=False,
        cache_dir=tmp_path / ".cache" / "devlint",
    )


def test_pyproject_without_table_gives_defaults(tmp_path: Path) -> None:
    source = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    assert load_config(source) == Config(source=source, root=tmp_path)


def test_other_file_reads_top_level_table(tmp_path: Path) -> None:
    source = write(tmp_path / "conf" / "devlint.toml", 'select = ["DEV002"]\n')
    assert load_config(source) == Config(source=source, root=tmp_path / "conf", select=("DEV002",))


def test_other_file_also_accepts_tool_table(tmp_path: Path) -> None:
    source = write(tmp_path / "devlint.toml", '[tool.devlint]\nignore = ["DEV003"]\n')
    assert load_config(source).ignore == ("DEV003",)


def test_relative_source_gets_absolute_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    loaded = load_config(Path("pyproject.toml"))
    assert (loaded.source, loaded.root) == (Path("pyproject.toml"), tmp_path)


P = "[tool.devlint] "
RULE_CODE_HINT = " (expected ALL or DEV followed by up to 3 digits)"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('selct = ["DEV001"]', P + "unknown key 'selct' (did you mean 'select'?)"),
        ("extend_select = []", P + "unknown key 'extend_select' (did you mean 'extend-select'?)"),
        ("colour = true", P + "unknown key 'colour'"),
        ('select = "DEV001"', P + "'select' must be a list of rule codes, got str"),
        ("ignore = [1]", P + "'ignore' must be a list of rule codes, got int item 1"),
        ('select = ["E501"]', P + "'select' has invalid rule code 'E501'" + RULE_CODE_HINT),
        (
            'extend-select = ["DEV0001"]',
            P + "'extend-select' has invalid rule code 'DEV0001'" + RULE_CODE_HINT,
        ),
        ('ignore = ["dev001"]', P + "'ignore' has invalid rule code 'dev001'" + RULE_CODE_HINT),
        ('exclude = "build"', P + "'exclude' must be a list of gitignore patterns, got str"),
        ('extend-exclude = [""]', P + "'extend-exclude' has invalid gitignore pattern ''"),
        ('exclude = ["# note"]', P + "'exclude' has invalid gitignore pattern '# note'"),
        ('exclude = ["!"]', P + "'exclude' has invalid gitignore pattern '!'"),
        (
            'per-file-ignores = ["tests"]',
            P + "'per-file-ignores' must be a table of pattern = [rule codes], got list",
        ),
        (
            'per-file-ignores = { "tests/*" = "DEV001" }',
            P + "'per-file-ignores' entry 'tests/*' must be a list of rule codes, got str",
        ),
        (
            'per-file-ignores = { "tests/*" = ["X1"] }',
            P + "'per-file-ignores' entry 'tests/*' has invalid rule code 'X1'" + RULE_CODE_HINT,
        ),
        (
            'per-file-ignores = { "!" = ["DEV001"] }',
            P + "'per-file-ignores' has invalid gitignore pattern '!'",
        ),
        ('unsafe-fixes = "yes"', P + "'unsafe-fixes' must be true or false, got str"),
        ("respect-gitignore = 1", P + "'respect-gitignore' must be true or false, got int"),
        ('distributed = "yes"', P + "'distributed' must be true, false or \"auto\", got 'yes'"),
        ("distributed = 0", P + "'distributed' must be true, false or \"auto\", got int"),
        (
            'device-aware-bases = ["my base"]',
            P + "'device-aware-bases' has invalid name 'my base' (expected a dotted Python name)",
        ),
        (
            "processor-names = [{}]",
            P + "'processor-names' must be a list of names, got dict item {}",
        ),
        ("cache-dir = 3", P + "'cache-dir' must be a path string, got int"),
    ],
)
def test_validation_errors(tmp_path: Path, body: str, message: str) -> None:
    source = pyproject(tmp_path, body)
    assert error_of(source) == f"{source}: {message}"


def test_tool_devlint_must_be_a_table(tmp_path: Path) -> None:
    source = write(tmp_path / "pyproject.toml", "[tool]\ndevlint = 3\n")
    assert error_of(source) == f"{source}: [tool.devlint] must be a table, got int"


def test_top_level_errors_have_no_section(tmp_path: Path) -> None:
    source = write(tmp_path / "devlint.toml", "selec = []\n")
    assert error_of(source) == f"{source}: unknown key 'selec' (did you mean 'select'?)"


def test_invalid_toml_names_line_and_column(tmp_path: Path) -> None:
    source = write(tmp_path / "pyproject.toml", "[tool.devlint]\nselect = [DEV001]\n")
    assert error_of(source) == f"{source}: invalid TOML: Invalid value (at line 2, column 11)"


def test_non_utf8_file(tmp_path: Path) -> None:
    source = tmp_path / "pyproject.toml"
    source.write_bytes(b"# \xff\n")
    assert error_of(source) == f"{source}: invalid TOML: not UTF-8 (byte 2)"


def test_unreadable_file_names_os_reason(tmp_path: Path) -> None:
    assert error_of(tmp_path / "missing.toml") == (
        f"{tmp_path / 'missing.toml'}: cannot read: No such file or directory"
    )
    (tmp_path / "folder.toml").mkdir()
    assert (
        error_of(tmp_path / "folder.toml")
        == f"{tmp_path / 'folder.toml'}: cannot read: Is a directory"
    )


def test_nearest_config_skips_pyproject_without_table(tmp_path: Path) -> None:
    outer = pyproject(tmp_path, 'select = ["DEV001"]')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    (tmp_path / "pkg" / "src").mkdir()
    found = config_for_directory(tmp_path / "pkg" / "src")
    assert (found.source, found.root, found.select) == (outer, tmp_path, ("DEV001",))


def test_nested_project_uses_its_own_config(tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = ["DEV001"]')
    inner = pyproject(tmp_path / "vendor" / "lib", 'select = ["DEV002"]')
    (tmp_path / "vendor" / "lib" / "deep").mkdir()
    found = config_for_directory(tmp_path / "vendor" / "lib" / "deep")
    assert (found.source, found.root, found.select) == (
        inner,
        tmp_path / "vendor" / "lib",
        ("DEV002",),
    )
    assert config_for_directory(tmp_path / "vendor").select == ("DEV001",)


def test_defaults_when_no_config(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert config_for_directory(tmp_path / "a") == Config(source=None, root=tmp_path / "a")


def test_config_for_directory_reports_broken_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.devlint\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: invalid TOML: "):
        config_for_directory(tmp_path)


def test_each_toml_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject(tmp_path, 'select = ["DEV001"]')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    folders = [tmp_path / "pkg" / f"m{i}" / "sub" for i in range(20)]
    for folder in folders:
        folder.mkdir(parents=True)
    reads: list[Path] = []
    real_read = config_module._read_toml

    def counting_read(path: Path) -> dict[str, object]:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(config_module, "_read_toml", counting_read)
    configs = {config_for_directory(folder) for folder in folders + folders}
    assert len(configs) == 1
    assert sorted(reads) == [tmp_path / "pkg" / "pyproject.toml", tmp_path / "pyproject.toml"]


def test_per_file_ignores_matching(tmp_path: Path) -> None:
    config = Config(
        source=None,
        root=tmp_path,
        per_file_ignores=(
            ("tests/*", ("DEV001",)),
            ("conftest.py", ("DEV002", "DEV001")),
            ("/scripts/", ("DEV009",)),
            ("!src/**", ("DEV01",)),
        ),
    )
    assert config.ignored_codes(tmp_path / "tests" / "test_a.py") == {"DEV001", "DEV01"}
    assert config.ignored_codes(tmp_path / "pkg" / "deep" / "conftest.py") == {
        "DEV001",
        "DEV002",
        "DEV01",
    }
    assert config.ignored_codes(tmp_path / "scripts" / "run.py") == {"DEV009", "DEV01"}
    assert config.ignored_codes(tmp_path / "pkg" / "scripts" / "run.py") == {"DEV01"}
    assert config.ignored_codes(tmp_path / "src" / "model.py") == frozenset()
    assert config.ignored_codes(tmp_path / "src" / "tests" / "test_b.py") == frozenset()


def test_per_file_ignores_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(source=None, root=tmp_path, per_file_ignores=(("tests/*", ("DEV001",)),))
    monkeypatch.chdir(tmp_path)
    assert config.ignored_codes(Path("tests/test_a.py")) == {"DEV001"}


def test_default_exclude_matches_anywhere(tmp_path: Path) -> None:
    config = Config(source=None, root=tmp_path)
    assert config.exclude == DEFAULT_EXCLUDE
    for excluded in ["build", "a/b/__pycache__", "pkg.egg-info", "x/site-packages", ".venv"]:
        assert config.is_excluded(tmp_path / excluded, is_dir=True), excluded
    assert config.is_excluded(tmp_path / "build" / "lib" / "m.py", is_dir=False)
    assert not config.is_excluded(tmp_path / "builder" / "m.py", is_dir=False)
    assert not config.is_excluded(tmp_path, is_dir=True)


def test_exclude_replaces_defaults(tmp_path: Path) -> None:
    config = load_config(pyproject(tmp_path, 'exclude = ["generated"]'))
    assert config.is_excluded(tmp_path / "generated", is_dir=True)
    assert not config.is_excluded(tmp_path / "build", is_dir=True)


def test_extend_exclude_adds_to_defaults(tmp_path: Path) -> None:
    config = load_config(pyproject(tmp_path, 'extend-exclude = ["generated", "/top_only.py"]'))
    assert config.is_excluded(tmp_path / "generated", is_dir=True)
    assert config.is_excluded(tmp_path / "build", is_dir=True)
    assert config.is_excluded(tmp_path / "top_only.py", is_dir=False)
    assert not config.is_excluded(tmp_path / "pkg" / "top_only.py", is_dir=False)


def test_directory_only_pattern(tmp_path: Path) -> None:
    config = Config(source=None, root=tmp_path, exclude=("out/",))
    (tmp_path / "out").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "out").write_text("")
    assert config.is_excluded(tmp_path / "out")
    assert not config.is_excluded(tmp_path / "pkg" / "out")
    assert config.is_excluded(tmp_path / "out" / "a.py", is_dir=False)


def test_path_outside_root_matches_its_own_components(tmp_path: Path) -> None:
    config = Config(source=None, root=tmp_path / "conf", exclude=("build",))
    assert config.is_excluded(tmp_path / "elsewhere" / "build" / "a.py", is_dir=False)
    assert not config.is_excluded(tmp_path / "elsewhere" / "a.py", is_dir=False)


def test_formatter_line_length_is_ruffs_then_blacks_else_88(tmp_path: Path) -> None:
    assert formatter_line_length(tmp_path) == 88
    write(tmp_path / "pyproject.toml", "[tool.black]\nline-length = 79\n")
    assert formatter_line_length(tmp_path) == 79
    write(
        tmp_path / "pyproject.toml",
        "[tool.black]\nline-length = 79\n[tool.ruff]\nline-length = 99\n",
    )
    assert formatter_line_length(tmp_path) == 99
    write(tmp_path / "ruff.toml", "line-length = 120\n")
    assert formatter_line_length(tmp_path) == 120
    write(tmp_path / "ruff.toml", "line-length = [\n")  # unreadable: only a hint, skipped
    assert formatter_line_length(tmp_path) == 99
    write(tmp_path / "pyproject.toml", '[tool.ruff]\nline-length = "long"\n')
    assert formatter_line_length(tmp_path) == 88
