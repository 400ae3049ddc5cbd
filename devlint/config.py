"""The ``[tool.devlint]`` configuration: loading, validation and path matching.

Configuration is read once per project and validated up front, so that a typo
in a key or a rule code stops the run with one clear line (exit 2) instead of
silently checking the wrong things.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal

from pathspec import GitIgnoreSpec

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".devlint_cache",
    ".ipynb_checkpoints",
    "site-packages",
)

PYPROJECT = "pyproject.toml"

_RULE_CODE = re.compile(r"ALL|DEV[0-9]{0,3}")


class ConfigError(Exception):
    """One-line, user-facing: names the file, and the key (or TOML line) at fault."""


@dataclass(frozen=True)
class Config:
    """Settings for one project; the defaults are what an unconfigured project gets."""

    source: Path | None
    root: Path
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool = False
    distributed: Literal["auto"] | bool = "auto"
    device_aware_bases: tuple[str, ...] = ()
    processor_names: tuple[str, ...] = ()
    respect_gitignore: bool = True
    cache_dir: Path | None = None

    def is_excluded(self, path: Path, *, is_dir: bool | None = None) -> bool:
        """Whether ``exclude``/``extend-exclude`` drop ``path``.

        ``is_dir`` lets a caller that already knows (a directory walk) spare a
        stat; it matters for directory-only patterns such as ``build/``.
        """
        relative = self._relative(path)
        if not relative:
            return False
        if is_dir is None:
            is_dir = path.is_dir()
        return self._exclude_spec.match_file(relative + "/" if is_dir else relative)

    def ignored_codes(self, path: Path) -> frozenset[str]:
        """Rule codes (or prefixes) that ``per-file-ignores`` switch off for ``path``."""
        relative = self._relative(path)
        codes: set[str] = set()
        for matches, entry_codes in self._per_file_matchers:
            if matches(relative):
                codes.update(entry_codes)
        return frozenset(codes)

    @functools.cached_property
    def _absolute_root(self) -> str:
        return os.path.abspath(self.root)

    @property
    def _exclude_spec(self) -> GitIgnoreSpec:
        return _compiled(self.exclude + self.extend_exclude)

    @functools.cached_property
    def _per_file_matchers(self) -> tuple[tuple[Callable[[str], bool], tuple[str, ...]], ...]:
        return tuple((_pattern_matcher(pattern), codes) for pattern, codes in self.per_file_ignores)

    def _relative(self, path: Path) -> str:
        """``path`` relative to the root, "/"-separated; "" for the root itself.

        A path outside the root has nothing to be relative to, so its own
        components (without anchor or "..") are matched instead: unanchored
        patterns such as ``build`` or ``conftest.py`` still work there.
        """
        absolute = os.path.abspath(path)
        root = self._absolute_root
        if absolute == root:
            return ""
        prefix = root if root.endswith(os.sep) else root + os.sep
        if absolute.startswith(prefix):
            return absolute[len(prefix) :].replace(os.sep, "/")
        pure = PurePath(os.path.normpath(path))
        parts = pure.parts[1:] if pure.anchor else pure.parts
        return "/".join(part for part in parts if part != "..")


@functools.cache
def _compiled(patterns: tuple[str, ...]) -> GitIgnoreSpec:
    """Patterns compiled once per run: every folder without a configuration of its own
    has a Config of its own, and they all share the default patterns."""
    return GitIgnoreSpec.from_lines(patterns)


def _pattern_matcher(pattern: str) -> Callable[[str], bool]:
    """A per-file-ignores pattern as a predicate; a leading ``!`` negates it, as in ruff."""
    if pattern.startswith("!"):
        spec = GitIgnoreSpec.from_lines([pattern[1:]])
        return lambda relative: not spec.match_file(relative)
    spec = GitIgnoreSpec.from_lines([pattern])
    return spec.match_file


class _BadValue(Exception):
    """A validation failure, before the file and table are known to prefix it."""


def _type_name(value: object) -> str:
    return type(value).__name__


def _string_list(context: str, value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _BadValue(f"{context} must be a list of {what}, got {_type_name(value)}")
    for item in value:
        if not isinstance(item, str):
            raise _BadValue(
                f"{context} must be a list of {what}, got {_type_name(item)} item {item!r}"
            )
    return tuple(value)


def _rule_codes(context: str, value: object) -> tuple[str, ...]:
    codes = _string_list(context, value, "rule codes")
    for code in codes:
        if not _RULE_CODE.fullmatch(code):
            raise _BadValue(
                f"{context} has invalid rule code {code!r}"
                " (expected ALL or DEV followed by up to 3 digits)"
            )
    return codes


def _is_valid_pattern(pattern: str) -> bool:
    """False for what gitignore would refuse or silently drop (blank, comment)."""
    try:
        compiled = GitIgnoreSpec.from_lines([pattern]).patterns
    except ValueError:
        return False
    return bool(compiled) and compiled[0].include is not None


def _codes(key: str, value: object) -> tuple[str, ...]:
    return _rule_codes(f"'{key}'", value)


def _patterns(key: str, value: object) -> tuple[str, ...]:
    patterns = _string_list(f"'{key}'", value, "gitignore patterns")
    for pattern in patterns:
        if not _is_valid_pattern(pattern):
            raise _BadValue(f"'{key}' has invalid gitignore pattern {pattern!r}")
    return patterns


def _names(key: str, value: object) -> tuple[str, ...]:
    names = _string_list(f"'{key}'", value, "names")
    for name in names:
        if not all(part.isidentifier() for part in name.split(".")):
            raise _BadValue(f"'{key}' has invalid name {name!r} (expected a dotted Python name)")
    return names


def _flag(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _BadValue(f"'{key}' must be true or false, got {_type_name(value)}")
    return value


def _distributed(key: str, value: object) -> Literal["auto"] | bool:
    if isinstance(value, bool):
        return value
    if value == "auto":
        return "auto"
    got = repr(value) if isinstance(value, str) else _type_name(value)
    raise _BadValue(f"'{key}' must be true, false or \"auto\", got {got}")


def _per_file_ignores(key: str, value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise _BadValue(
            f"'{key}' must be a table of pattern = [rule codes], got {_type_name(value)}"
        )
    entries: list[tuple[str, tuple[str, ...]]] = []
    for pattern, codes in value.items():
        if not _is_valid_pattern(pattern.removeprefix("!")):
            raise _BadValue(f"'{key}' has invalid gitignore pattern {pattern!r}")
        entries.append((pattern, _rule_codes(f"'{key}' entry {pattern!r}", codes)))
    return tuple(entries)


def _path(key: str, value: object) -> Path:
    if not isinstance(value, str):
        raise _BadValue(f"'{key}' must be a path string, got {_type_name(value)}")
    return Path(value).expanduser()


# TOML key -> (Config field, validator returning the field's value).
_KEYS: dict[str, tuple[str, Callable[[str, object], Any]]] = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "extend-select": ("extend_select", _codes),
    "exclude": ("exclude", _patterns),
    "extend-exclude": ("extend_exclude", _patterns),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "unsafe-fixes": ("unsafe_fixes", _flag),
    "distributed": ("distributed", _distributed),
    "device-aware-bases": ("device_aware_bases", _names),
    "processor-names": ("processor_names", _names),
    "respect-gitignore": ("respect_gitignore", _flag),
    "cache-dir": ("cache_dir", _path),
}


def _read_toml(path: Path) -> dict[str, Any]:
    """Parse one TOML file; the single place configuration is read from disk."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
        return tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        # Errors at the very end (an unclosed array) give no line: name the last one.
        last = f"(at end of document, line {len(text.splitlines()) or 1})"
        message = str(exc).replace("(at end of document)", last)
        raise ConfigError(f"{path}: invalid TOML: {message}") from None


_PACKAGE_TABLES = (
    "build-system",
    "tool.poetry",
    "project.scripts",
    "project.gui-scripts",
    "project.entry-points",
)
"""Tables of a ``pyproject.toml`` that build the project into a package for others to
install, or name its entry points (code that runs though nothing imports it);
``[project]`` alone may only list an application's dependencies (uv's)."""


def is_packaged(root: Path) -> bool:
    """The project at ``root`` is packaged for others to install: a ``setup.py`` or
    ``setup.cfg`` there, or a ``pyproject.toml`` with a ``[build-system]`` or
    ``[tool.poetry]`` table or entry points (one with only tools' settings or an
    application's dependencies packages nothing). An unreadable one counts."""
    if (root / "setup.py").exists() or (root / "setup.cfg").exists():
        return True
    if not (root / PYPROJECT).exists():
        return False
    try:
        return builds_a_package(_read_toml(root / PYPROJECT))
    except ConfigError:
        return True


def builds_a_package(document: dict[str, Any]) -> bool:
    """A parsed ``pyproject.toml`` builds a package or names entry points
    (``_PACKAGE_TABLES``)."""
    for dotted in _PACKAGE_TABLES:
        table: object = document
        for key in dotted.split("."):
            table = table.get(key) if isinstance(table, dict) else None
        if table is not None:
            return True
    return False


def _tool_table(document: dict[str, Any]) -> object | None:
    """The ``[tool.devlint]`` value of a parsed document, or None when absent."""
    tool = document.get("tool")
    return tool.get("devlint") if isinstance(tool, dict) else None


def _build(path: Path, table: object, section: str) -> Config:
    """Validate a devlint table from ``path`` into a Config rooted at the file's folder."""
    where = f"{path}: {section} " if section else f"{path}: "
    if not isinstance(table, dict):
        raise ConfigError(f"{where}must be a table, got {_type_name(table)}")
    root = Path(os.path.abspath(path.parent))
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            close = difflib.get_close_matches(key, _KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}unknown key '{key}'{hint}")
        field, validate = _KEYS[key]
        try:
            values[field] = validate(key, value)
        except _BadValue as exc:
            raise ConfigError(f"{where}{exc}") from None
    if "cache_dir" in values:
        values["cache_dir"] = root / values["cache_dir"]
    return Config(source=path, root=root, **values)


def load_config(toml_path: Path) -> Config:
    """Read a config file given explicitly (``--config``) or found by the search.

    A ``pyproject.toml`` holds its settings under ``[tool.devlint]``; any other
    file (``devlint.toml``) holds them at top level, or under ``[tool.devlint]``.
    """
    document = _read_toml(toml_path)
    table = _tool_table(document)
    if toml_path.name == PYPROJECT:
        return _build(toml_path, {} if table is None else table, "[tool.devlint]")
    if table is not None:
        return _build(toml_path, table, "[tool.devlint]")
    return _build(toml_path, document, "")


def config_for_directory(directory: Path) -> Config:
    """The Config governing ``directory``: the nearest configured pyproject, else defaults."""
    return _config_for_absolute(Path(os.path.abspath(directory)))


@functools.cache
def _config_for_absolute(directory: Path) -> Config:
    found = _configured_project(directory)
    return found if found is not None else Config(source=None, root=directory)


_NEAREST: dict[Path, Config | None] = {}
"""The nearest configuration of each folder seen (None: none up to the root)."""


def _configured_project(directory: Path) -> Config | None:
    """The nearest configuration from ``directory`` up, memoised per folder.

    A loop, not recursion: folders can nest deeper than Python's recursion limit.
    It stops at the first folder already known, so a walk costs one step per folder.
    """
    passed: list[Path] = []
    folder, found = directory, None
    while True:
        if folder in _NEAREST:
            found = _NEAREST[folder]
            break
        passed.append(folder)
        found = _configured_folder(folder)
        if found is not None or folder.parent == folder:
            break
        folder = folder.parent
    for seen in passed:
        _NEAREST[seen] = found
    return found


@functools.cache
def _configured_folder(folder: Path) -> Config | None:
    """Memoised per folder, so each pyproject on the way up is read once per run."""
    candidate = folder / PYPROJECT
    if candidate.is_file():
        table = _tool_table(_read_toml(candidate))
        if table is not None:
            return _build(candidate, table, "[tool.devlint]")
    return None


DEFAULT_LINE_LENGTH = 88
"""black's and ruff's default line length."""


def formatter_line_length(root: Path) -> int:
    """The line length the project's formatter keeps: ``line-length`` in the root's
    ``ruff.toml``, ``.ruff.toml``, ``[tool.ruff]`` or ``[tool.black]`` (ruff's order,
    then black's), else 88. Only for a hint, so an unreadable file counts as absent."""
    for name, table in (
        ("ruff.toml", ()),
        (".ruff.toml", ()),
        ("pyproject.toml", ("tool", "ruff")),
        ("pyproject.toml", ("tool", "black")),
    ):
        path = root / name
        if not path.is_file():
            continue
        try:
            value: object = _read_toml(path)
        except ConfigError:
            continue
        for key in table:
            value = value.get(key) if isinstance(value, dict) else None
        length = value.get("line-length") if isinstance(value, dict) else None
        if isinstance(length, int) and not isinstance(length, bool) and length > 0:
            return length
    return DEFAULT_LINE_LENGTH
