"""Odd and hostile input: a DEV000 finding or one clear line, never a traceback or a hang.

Every case sits in a project beside an ordinary buggy model, which must still be
reported (and fixed): one bad file never stops the others. Only ``--debug``
shows a traceback.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from devlint import runner
from devlint.cli import main

MODEL = (
    "import torch\n"
    "import pytorch_lightning as pl\n"
    "\n"
    "\n"
    "class Model(pl.LightningModule):\n"
    "    def forward(self, x):\n"
    '        return x.to("cuda:1") + x.cuda()\n'
)
MODEL_FIXED = MODEL.replace('"cuda:1"', "self.device").replace("x.cuda()", "x.to(self.device)")
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def run(*args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--no-cache"])


def findings(*args: str) -> list[tuple[str, str, str]]:
    """(file, code, message) of every finding; asserts a clean run of `check`."""
    result = run("check", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    return [(f["filename"], f["code"], f["message"]) for f in json.loads(result.stdout)]


def project(root: Path, files: dict[str, str | bytes]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def nested(depth: int, separator: str = "") -> str:
    return "x = " + separator.join(["("] * depth) + "1" + separator.join([")"] * depth) + "\n"


BAD_FILES: dict[str, tuple[bytes, str]] = {
    "nul.py": (b"x = 1\x00\n", "cannot decode file: source contains a NUL byte"),
    "latin1_without_cookie.py": (
        b"x = 'caf\xe9'\n",
        "cannot decode file: cannot decode as utf-8: 'utf-8' codec can't decode byte 0xe9"
        " in position 8: invalid continuation byte",
    ),
    "unknown_cookie.py": (
        b"# -*- coding: klingon -*-\nx = '\xe9'\n",
        "cannot decode file: cannot decode as utf-8: 'utf-8' codec can't decode byte 0xe9"
        " in position 31: invalid continuation byte",
    ),
    "syntax.py": (b"def f(:\n    pass\n", "SyntaxError: invalid syntax"),
    "compile_only.py": (b"x = 1\nreturn x\n", ""),  # parses; Python rejects it only compiling
    "deep_one_line.py": (nested(3000).encode(), "SyntaxError: too many nested parentheses"),
    "deep_lines.py": (nested(3000, "\n").encode(), "SyntaxError: too many nested parentheses"),
    "deep_unary.py": (("x = (\n" + "-\n" * 30_000 + "1)\n").encode(), "too deeply nested"),
    "deep_attributes.py": (("x = (a\n" + ".b\n" * 30_000 + ")\n").encode(), "too deeply nested"),
    "deep_continuations.py": (
        ("x = \\\n" + "-\\\n" * 30_000 + "1\n").encode(),
        "too deeply nested",
    ),
    "long_elif_chain.py": (
        ("if a:\n    pass\n" + "elif a:\n    pass\n" * 30_000).encode(),
        "too deeply nested",
    ),
}

# Files CPython accepts and libcst cannot parse. A file no rule has a trigger in is never
# given to libcst (tests/test_prefilter.py); these call `.cuda()` in a model, so they are.
NOT_CHECKED: dict[str, tuple[bytes, str]] = {
    "form_feed_before_indent.py": (
        b"import torch\n\nclass A(torch.nn.Module):\n"
        b"    def f(self, x):\n\x0c        return x.cuda()\n",
        "tokenizer error: no matching outer block for dedent",
    ),
    # Tab-indented method bodies under space-indented methods (funasr's fsmn_kws/model.py):
    # libcst keeps a block's indent as what it adds to its parent's, and here it adds none.
    "tabs_under_spaces.py": (
        b"import torch\n\nclass A(torch.nn.Module):\n"
        b"    def f(self, x):\n\t\t    return x.cuda()\n\n"
        b"    def g(self, x):\n\t\t    return x\n",
        "tokenizer error: no matching outer block for dedent",
    ),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_each_bad_file_is_dev000_and_the_rest_is_checked_and_fixed(in_tmp: Path, name: str) -> None:
    content, message = BAD_FILES[name]
    project(in_tmp, {name: content, "model.py": MODEL})
    found = findings(".")
    if name == "compile_only.py":
        assert [(file, code) for file, code, _ in found if file == name] == []
    else:
        ((file, code, text),) = [entry for entry in found if entry[0] == name]
        assert (file, code) == (name, "DEV000")
        assert message in text
    assert [(f, c) for f, c, _ in found if f == "model.py"] == [
        ("model.py", "DEV001"),
        ("model.py", "DEV002"),
    ]
    fixed = run("fix", "--write", ".")
    assert fixed.exit_code == (0 if name == "compile_only.py" else 1)
    assert "Traceback" not in fixed.output
    assert (in_tmp / name).read_bytes() == content
    assert (in_tmp / "model.py").read_text() == MODEL_FIXED


def test_a_codec_registered_at_run_time_is_read_as_utf8(in_tmp: Path) -> None:
    """``# -*- coding: future_fstrings -*-`` names a codec a package registers as the
    program starts, which turns UTF-8 source into older Python: the file is checked and
    fixed as the UTF-8 it is, its cookie kept."""
    model = "# -*- coding: future_fstrings -*-\n" + MODEL
    project(in_tmp, {"model.py": model.encode()})
    assert [(f, c) for f, c, _ in findings(".")] == [("model.py", "DEV001"), ("model.py", "DEV002")]
    assert run("fix", "--write", ".").exit_code == 0
    assert (in_tmp / "model.py").read_text() == "# -*- coding: future_fstrings -*-\n" + MODEL_FIXED


@pytest.mark.parametrize("name", NOT_CHECKED)
@pytest.mark.parametrize("cache", [False, True], ids=["cold", "warm"])
def test_a_file_python_accepts_and_libcst_cannot_parse_is_an_error_of_devlint(
    in_tmp: Path, name: str, cache: bool
) -> None:
    """Not a DEV000 (nothing is wrong with the code): one line on stderr, as ruff and black
    report what they cannot read, and exit code 2 (the run did not check everything, in
    any output format, even with --exit-zero and from the cache); the rest is checked."""
    content, reason = NOT_CHECKED[name]
    project(in_tmp, {name: content, "model.py": MODEL})
    args = ["check", "--output-format", "json", "--exit-zero", "."]
    if cache:
        CliRunner().invoke(main, args)
    result = CliRunner().invoke(main, args if cache else [*args, "--no-cache"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"devlint: error: {name}: not checked: libcst cannot parse it, though Python can "
        f"({reason})\n"
    )
    found = [(f["filename"], f["code"]) for f in json.loads(result.stdout)]
    assert found == [("model.py", "DEV001"), ("model.py", "DEV002")]
    fixed = run("fix", "--write", ".")
    assert fixed.exit_code == 2
    assert (in_tmp / name).read_bytes() == content
    assert (in_tmp / "model.py").read_text() == MODEL_FIXED


@pytest.mark.parametrize(
    "command", [("check",), ("fix",), ("fix", "--write")], ids=["check", "fix", "write"]
)
def test_only_a_file_devlint_cannot_check_is_not_all_checks_passed(
    in_tmp: Path, command: tuple[str, ...]
) -> None:
    content, _ = NOT_CHECKED["tabs_under_spaces.py"]
    project(in_tmp, {"tabs_under_spaces.py": content})
    result = run(*command, ".")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("devlint: error: tabs_under_spaces.py: not checked: ")
    assert "All checks passed!" not in result.stderr


def test_a_buffer_devlint_cannot_check_is_printed_unchanged_with_the_error(in_tmp: Path) -> None:
    """``fix -`` prints the buffer as it came, says why on stderr and exits with 2."""
    content, reason = NOT_CHECKED["tabs_under_spaces.py"]
    result = CliRunner().invoke(
        main, ["fix", "--no-cache", "--stdin-filename", "model.py", "-"], input=content
    )
    assert (result.exit_code, result.stdout_bytes) == (2, content)
    assert result.stderr == (
        "devlint: error: model.py: not checked: libcst cannot parse it, though Python can "
        f"({reason})\n"
    )


def test_all_bad_files_together_in_text_output(in_tmp: Path) -> None:
    project(in_tmp, {name: content for name, (content, _) in BAD_FILES.items()})
    (in_tmp / "model.py").write_text(MODEL)
    result = run("check", ".")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stdout.count(" DEV000 ") == len(BAD_FILES) - 1
    assert "model.py:7:21: DEV001" in result.stdout


def test_empty_and_blank_files_are_clean(in_tmp: Path) -> None:
    project(
        in_tmp,
        {
            "empty.py": b"",
            "blank.py": b"\n\n  \n",
            "bom_only.py": b"\xef\xbb\xbf",
            "comment_only.py": b"# nothing here",
            "crlf_only.py": b"\r\n",
            "form_feed_only.py": b"\x0c",
        },
    )
    assert findings(".") == []
    result = run("fix", "--write", ".")
    assert (result.exit_code, result.stderr) == (0, "All checks passed!\n")


def test_a_20000_function_file_is_checked_in_reasonable_time(in_tmp: Path) -> None:
    functions = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(20_000))
    project(in_tmp, {"huge.py": MODEL + "\n\n" + functions})
    started = time.perf_counter()
    found = findings("huge.py")
    elapsed = time.perf_counter() - started
    assert [code for _, code, _ in found] == ["DEV001", "DEV002"]
    # About 5-15 s on a laptop (libcst's parse is most of it); the bound catches a
    # quadratic slip, not noise.
    assert elapsed < 90, f"{elapsed:.1f}s for 20,000 functions"


def test_a_folder_named_like_a_python_file_is_walked(in_tmp: Path) -> None:
    project(in_tmp, {"x.py/model.py": MODEL, "x.py/inner.py/__init__.py": ""})
    assert [(f, c) for f, c, _ in findings(".")] == [
        ("x.py/model.py", "DEV001"),
        ("x.py/model.py", "DEV002"),
    ]
    assert next((f, c) for f, c, _ in findings("x.py")) == ("x.py/model.py", "DEV001")


def test_folders_nested_deeper_than_the_recursion_limit(in_tmp: Path) -> None:
    project(in_tmp, {"model.py": MODEL})
    chain = ["deep"]
    for _ in range(1100):  # os.makedirs itself recurses: one level at a time
        os.mkdir(chain[-1])
        chain.append(chain[-1] + "/d")
    bottom = Path(chain[-2])
    (bottom / "model.py").write_text(MODEL)
    try:
        found = findings(".")
        assert [(f, c) for f, c, _ in found] == [
            (f"{bottom}/model.py", "DEV001"),
            (f"{bottom}/model.py", "DEV002"),
            ("model.py", "DEV001"),
            ("model.py", "DEV002"),
        ]
    finally:  # bottom up: shutil.rmtree (and so pytest's clean-up) recurses too
        for path in (bottom / "model.py", *(bottom / ".devlint_cache").glob("*")):
            path.unlink(missing_ok=True)
        for folder in reversed(chain[:-1]):
            os.rmdir(folder)


def test_symlink_loops_are_skipped_when_walking_and_dev000_when_named(in_tmp: Path) -> None:
    project(in_tmp, {"pkg/model.py": MODEL})
    os.symlink("loop_b.py", in_tmp / "pkg" / "loop_a.py")
    os.symlink("loop_a.py", in_tmp / "pkg" / "loop_b.py")
    os.symlink("..", in_tmp / "pkg" / "parent")  # a folder loop
    os.symlink("pkg", in_tmp / "pkg" / "self")
    os.symlink("missing.py", in_tmp / "pkg" / "dangling.py")
    found = findings(".")
    assert {f for f, _, _ in found} == {"pkg/model.py"}
    named = findings("pkg/loop_a.py", "pkg/model.py")
    assert named[0][:2] == ("pkg/loop_a.py", "DEV000")
    assert named[0][2].startswith("cannot read file: ")
    assert [f for f, _, _ in named[1:]] == ["pkg/model.py", "pkg/model.py"]
    result = run("fix", "--write", "pkg")
    assert result.exit_code == 0
    assert (in_tmp / "pkg" / "model.py").read_text() == MODEL_FIXED


@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_path_that_does_not_exist_is_exit_2_in_one_line(in_tmp: Path, command: str) -> None:
    project(in_tmp, {"model.py": MODEL})
    result = run(command, "model.py", "no/such/file.py")
    assert (result.exit_code, result.stderr) == (
        2,
        "devlint: error: path 'no/such/file.py' does not exist\n",
    )
    assert (in_tmp / "model.py").read_text() == MODEL


@pytest.mark.parametrize(
    ("toml", "where"),
    [
        ('[tool.devlint]\nselect = ["DEV001"\n', "(at end of document, line 2)"),
        ("[tool.devlint]\nselect = = 1\n", "line 2, column 10"),
        ("[tool.devlint\n", "line 1, column 14"),
    ],
)
def test_a_broken_pyproject_is_exit_2_naming_file_and_line(
    in_tmp: Path, toml: str, where: str
) -> None:
    (in_tmp / "sub").mkdir()
    (in_tmp / "sub" / "model.py").write_text(MODEL)
    (in_tmp / "sub" / "pyproject.toml").write_text(toml)
    for command in ("check", "fix"):
        result = run(command, "sub")
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"devlint: error: {in_tmp / 'sub' / 'pyproject.toml'}: ")
        assert where in result.stderr
    assert (in_tmp / "sub" / "model.py").read_text() == MODEL


def test_an_unreadable_file_is_dev000(in_tmp: Path) -> None:
    if AS_ROOT:
        pytest.skip("root reads files whatever their mode (see the simulated case below)")
    project(in_tmp, {"secret.py": MODEL, "model.py": MODEL})
    (in_tmp / "secret.py").chmod(0)
    try:
        found = findings(".")
    finally:
        (in_tmp / "secret.py").chmod(0o644)
    assert found[-1] == ("secret.py", "DEV000", "cannot read file: Permission denied")
    assert [f for f, _, _ in found[:-1]] == ["model.py", "model.py"]


def test_an_unreadable_file_is_dev000_simulated(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root, chmod 000 does not stop reading: refuse the open the way the OS would."""
    project(in_tmp, {"secret.py": MODEL, "model.py": MODEL})

    def refusing_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(runner, "open", refusing_open, raising=False)
    found = findings(".")
    assert found[-1] == ("secret.py", "DEV000", "cannot read file: Permission denied")
    assert [f for f, _, _ in found[:-1]] == ["model.py", "model.py"]
    assert run("fix", "--write", ".").exit_code == 1
    assert (in_tmp / "model.py").read_text() == MODEL_FIXED


def test_python_warnings_about_the_users_code_are_not_printed(in_tmp: Path) -> None:
    """Compiling to verify a fix must not echo Python's SyntaxWarnings on the user's code."""
    noisy = 'import re\n\nPATTERN = re.compile("\\d+")\nPAIR = (1, 2)(3)\nassert (PAIR, 1)\n'
    project(in_tmp, {"model.py": noisy + "\n\n" + MODEL.replace("import torch\n", "")})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run("fix", "--write", ".")
    assert result.exit_code == 0
    assert "Warning" not in result.stderr
    assert [str(warning.message) for warning in caught] == []


def test_only_debug_shows_a_traceback(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(in_tmp, {"model.py": MODEL})

    def explode(*_: object, **__: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("devlint.cli.fix_file", explode)
    plain = run("fix", "--write", ".")
    assert plain.exit_code == 2
    assert plain.stderr == (
        "devlint: internal error: RecursionError: maximum recursion depth exceeded "
        "(run with --debug for the traceback)\n"
    )
    debug = run("fix", "--write", "--debug", ".")
    assert debug.exit_code == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert (in_tmp / "model.py").read_text() == MODEL
