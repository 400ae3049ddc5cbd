"""`fix --write` never loses or mixes up a file, whatever goes wrong while it writes.

Writing is a temporary file in the same folder plus one `os.replace`. These tests
make every step fail in turn (the replace, the folder, the file's permissions, a
concurrent edit, Ctrl-C) and check that the file is either its old or its new
version, that no temporary file is left, that the error is one line, and that
the other files are still fixed. The last tests kill a real `devlint fix
--write` on a tree of hundreds of files at random moments.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from devlint import cli, engine, fixer
from devlint.cli import main
from devlint.findings import Applicability, Edit, Finding, Fix, Location
from devlint.fixer import FixError, choose_fixes, remove_stale_temporaries, write_atomically

BUGGY = (
    "import torch\n"
    "import pytorch_lightning as pl\n"
    "\n"
    "\n"
    "class Model(pl.LightningModule):\n"
    "    def forward(self, x):\n"
    "        x = x.cuda()\n"
    '        return x.to("cuda:1") + torch.zeros(4)\n'
)
FIXED = (
    BUGGY.replace("x.cuda()", "x.to(self.device)")
    .replace('"cuda:1"', "self.device")
    .replace("zeros(4)", "zeros(4, device=self.device)")
)
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["fix", "--write", "--no-cache", *args])


def make_project(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def temporaries(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if "devlint-tmp" in path.name)


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("devlint: error")]


def test_a_failing_replace_leaves_the_file_and_no_temporary(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(in_tmp, {"a/broken.py": BUGGY, "b/fine.py": BUGGY})
    real_replace = os.replace

    def failing_replace(source: Any, target: Any) -> None:
        if str(target).endswith("broken.py"):
            raise OSError(5, "Input/output error")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", failing_replace)
    result = invoke(".")
    assert result.exit_code == 2
    assert error_lines(result) == [
        f"devlint: error: cannot write {in_tmp / 'a' / 'broken.py'}: Input/output error"
    ]
    assert (in_tmp / "a" / "broken.py").read_text() == BUGGY
    assert (in_tmp / "b" / "fine.py").read_text() == FIXED
    assert temporaries(in_tmp) == []


@pytest.mark.parametrize("step", ["write", "chmod", "replace"])
def test_ctrl_c_while_writing_removes_the_temporary(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    make_project(in_tmp, {"model.py": BUGGY})

    def interrupt(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    target = {"write": "fdopen", "chmod": "chmod", "replace": "replace"}[step]
    monkeypatch.setattr(fixer.os, target, interrupt)
    result = invoke(".")
    assert (result.exit_code, result.stderr) == (130, "devlint: interrupted\n")
    assert (in_tmp / "model.py").read_text() == BUGGY
    assert temporaries(in_tmp) == []


def test_an_unwritable_folder_is_one_line_and_the_run_goes_on(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(in_tmp, {"locked/model.py": BUGGY, "open/model.py": BUGGY})
    locked = in_tmp / "locked"
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: make the folder refuse it
            real_mkstemp = fixer.tempfile.mkstemp

            def refusing_mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
                if Path(kwargs["dir"]) == locked:
                    raise PermissionError(13, "Permission denied")
                return real_mkstemp(*args, **kwargs)

            monkeypatch.setattr(fixer.tempfile, "mkstemp", refusing_mkstemp)
        result = invoke(".")
    finally:
        locked.chmod(0o755)
    assert result.exit_code == 2
    assert error_lines(result) == [f"devlint: error: cannot write to {locked}: Permission denied"]
    assert (locked / "model.py").read_text() == BUGGY
    assert (in_tmp / "open" / "model.py").read_text() == FIXED
    assert temporaries(in_tmp) == []


def test_a_read_only_file_is_not_replaced_even_by_root(in_tmp: Path) -> None:
    make_project(in_tmp, {"frozen.py": BUGGY, "other.py": BUGGY})
    frozen = in_tmp / "frozen.py"
    frozen.chmod(0o444)
    result = invoke(".")
    assert result.exit_code == 2
    assert error_lines(result) == [
        f"devlint: error: cannot write {frozen}: the file is read-only; not written"
    ]
    assert frozen.read_text() == BUGGY
    assert stat.S_IMODE(frozen.stat().st_mode) == 0o444
    assert (in_tmp / "other.py").read_text() == FIXED
    assert temporaries(in_tmp) == []


def test_the_summary_counts_only_the_fixes_written(in_tmp: Path) -> None:
    """A file that could not be written keeps its findings, and the summary says so."""
    make_project(in_tmp, {"frozen.py": BUGGY, "other.py": BUGGY})
    (in_tmp / "frozen.py").chmod(0o444)
    result = invoke("--output-format", "json", ".")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Fixed 3 findings in 1 file; 3 fixable findings left in 1 unchanged file (errors above)."
    )
    left = json.loads(result.stdout)
    assert [(f["filename"], f["code"], f["location"]["row"]) for f in left] == [
        ("frozen.py", "DEV002", 7),
        ("frozen.py", "DEV001", 8),
        ("frozen.py", "DEV003", 8),
    ]
    (in_tmp / "other.py").write_text(BUGGY)
    (in_tmp / "other.py").chmod(0o444)
    nothing = invoke(".")
    assert nothing.exit_code == 2
    assert nothing.stderr.splitlines()[-1] == (
        "Nothing fixed; 6 fixable findings left in 2 unchanged files (errors above)."
    )
    assert "Found 6 findings (6 fixable)" in nothing.stdout


def test_a_file_changed_after_the_check_is_not_fixed(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The findings' positions are about the bytes analysed: others would be corrupted."""
    make_project(in_tmp, {"edited.py": BUGGY, "other.py": BUGGY})
    edited = "# a line the user added meanwhile\n" + BUGGY
    real_check = cli.check_projects

    def check_then_edit(*args: Any, **kwargs: Any) -> None:
        real_check(*args, **kwargs)
        (in_tmp / "edited.py").write_text(edited)

    monkeypatch.setattr(cli, "check_projects", check_then_edit)
    result = invoke(".")
    assert result.exit_code == 2
    assert error_lines(result) == [
        "devlint: error: edited.py: changed on disk after devlint read it; not changed"
    ]
    assert (in_tmp / "edited.py").read_text() == edited
    assert (in_tmp / "other.py").read_text() == FIXED


def test_a_file_changed_while_fixing_is_not_overwritten(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(in_tmp, {"edited.py": BUGGY, "other.py": BUGGY})
    edited = BUGGY + "# saved by an editor while devlint was fixing\n"
    real_write = cli.write_atomically

    def edit_then_write(path: Path, original: bytes, new: bytes) -> None:
        if path.name == "edited.py":
            path.write_text(edited)
        real_write(path, original, new)

    monkeypatch.setattr(cli, "write_atomically", edit_then_write)
    result = invoke(".")
    assert result.exit_code == 2
    assert error_lines(result) == [
        f"devlint: error: {in_tmp / 'edited.py'} changed on disk while devlint was fixing it;"
        " not written"
    ]
    assert (in_tmp / "edited.py").read_text() == edited
    assert (in_tmp / "other.py").read_text() == FIXED
    assert temporaries(in_tmp) == []


def test_mode_and_owner_are_kept(in_tmp: Path) -> None:
    make_project(in_tmp, {"script.py": BUGGY})
    script = in_tmp / "script.py"
    script.chmod(0o751)
    owner = (script.stat().st_uid, script.stat().st_gid)
    if AS_ROOT:
        owner = (4321, 4321)
        os.chown(script, *owner)
    assert invoke(".").exit_code == 0
    assert script.read_text() == FIXED
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    assert (script.stat().st_uid, script.stat().st_gid) == owner


def test_write_atomically_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FixError, match="cannot read"):
        write_atomically(tmp_path / "gone.py", b"", b"x = 1\n")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_waits_until_the_file_is_replaced(tmp_path: Path) -> None:
    """A SIGINT arriving mid-write takes effect once the new file is in place.

    A second thread is running, as torch's are: the signal may reach it, and is
    held all the same.
    """
    path = tmp_path / "model.py"
    path.write_bytes(b"old\n")
    real_replace = os.replace
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()

    def replace_after_a_signal(source: Any, target: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the signal would have been handled by now, were it not held
        real_replace(source, target)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(fixer.os, "replace", replace_after_a_signal)
            with pytest.raises(KeyboardInterrupt):
                write_atomically(path, b"old\n", b"new\n")
    finally:
        stop.set()
        other.join()
    assert path.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_mid_write_ends_the_process_after_the_replace(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_bytes(b"old\n")
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from devlint import fixer\n"
        "real = os.replace\n"
        "def replace(source, target):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    real(source, target)\n"
        "fixer.os.replace = replace\n"
        "fixer.write_atomically(Path(sys.argv[1]), b'old\\n', b'new\\n')\n"
        "print('not reached')\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=False
    )
    assert (completed.returncode, completed.stdout) == (-signal.SIGTERM, "")
    assert path.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]


def test_fix_write_removes_what_a_killed_run_left(in_tmp: Path) -> None:
    make_project(in_tmp, {"pkg/model.py": BUGGY, "pkg/clean.py": "x = 1\n"})
    left = [
        in_tmp / "pkg" / ".model.py.k2j_9x0a.devlint-tmp",
        in_tmp / "pkg" / ".clean.py.abcdefgh.devlint-tmp",
    ]
    kept = [in_tmp / "pkg" / "notes.devlint-tmp", in_tmp / "pkg" / ".model.py.x.tmp"]
    for path in left + kept:
        path.write_text("half a file")
    assert CliRunner().invoke(main, ["check", "--no-cache", "."]).exit_code == 1
    assert all(path.exists() for path in left)  # `check` never deletes anything
    result = invoke(".")
    assert result.exit_code == 0
    assert not any(path.exists() for path in left)
    assert all(path.exists() for path in kept)
    assert (in_tmp / "pkg" / "model.py").read_text() == FIXED


def test_remove_stale_temporaries_skips_folders_it_cannot_read(tmp_path: Path) -> None:
    assert remove_stale_temporaries([tmp_path / "missing" / "model.py"]) == []
    (tmp_path / ".a.py.12345678.devlint-tmp").mkdir()  # not a file: left alone
    assert remove_stale_temporaries([tmp_path / "a.py"]) == []


# Verified, converging fixes.


def with_extra_findings(
    monkeypatch: pytest.MonkeyPatch,
    extra: Callable[[engine.FileResult], list[Finding]],
) -> list[int]:
    """Make ``engine.resolve`` add ``extra(result)`` to every file's findings.

    Returns a list that grows by one for each resolution (each fixing pass).
    """
    calls: list[int] = []
    real_resolve = engine.resolve

    def resolve(project: engine.Project, result: engine.FileResult) -> None:
        real_resolve(project, result)
        calls.append(1)
        result.findings = sorted([*result.findings, *extra(result)], key=Finding.sort_key)

    monkeypatch.setattr(engine, "resolve", resolve)
    return calls


def finding(result: engine.FileResult, code: str, edit: Edit) -> Finding:
    fix = Fix(Applicability.SAFE, "test fix", (edit,))
    return Finding(result.display, code, "test", "test", edit.start, edit.end, fix)


def test_a_fix_breaking_the_code_names_the_rule_and_debug_shows_the_edit(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(in_tmp, {"model.py": BUGGY, "other.py": BUGGY})
    broken = Edit(Location(8, 9), Location(8, 15), "return (")

    def bad_fix(result: engine.FileResult) -> list[Finding]:
        if result.path.name != "model.py" or "return x.to" not in (result.source or FAKE).text:
            return []
        return [finding(result, "DEV001", broken)]

    with_extra_findings(monkeypatch, bad_fix)
    plain = invoke(".")
    assert plain.exit_code == 2
    (line,) = error_lines(plain)
    assert line.startswith("devlint: error: model.py: fix by DEV001 produced invalid code (")
    assert line.endswith("); not changed (a devlint bug: --debug shows the details to report)")
    assert (in_tmp / "model.py").read_text() == BUGGY
    assert (in_tmp / "other.py").read_text() == FIXED  # the other file is still fixed

    debug = invoke("--debug", ".")
    assert debug.exit_code == 2
    assert "devlint: error: model.py: fix by DEV001 produced invalid code (" in debug.stderr
    assert "(a devlint bug" not in debug.stderr
    assert "  DEV001 at 8:9: replace 8:9-8:15 with 'return ('\n" in debug.stderr
    assert "--- before\n+++ after\n" in debug.stderr
    assert '\n-        return x.to("cuda:1") + torch.zeros(4)\n' in debug.stderr
    assert "\n+        return ( x.to(self.device)" in debug.stderr
    assert "Traceback" not in debug.stderr
    assert (in_tmp / "model.py").read_text() == BUGGY


FAKE = engine.SourceText("", "utf-8")


def test_overlapping_fixes_are_never_applied_together(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fixes rewriting the same span: one is applied, the other is recomputed after."""
    make_project(in_tmp, {"model.py": BUGGY})
    rival = Edit(Location(8, 21), Location(8, 29), '"cpu"')

    def rival_fix(result: engine.FileResult) -> list[Finding]:
        text = (result.source or FAKE).text
        return [finding(result, "DEV009", rival)] if '"cuda:1"' in text else []

    with_extra_findings(monkeypatch, rival_fix)
    assert invoke(".").exit_code == 0
    assert (in_tmp / "model.py").read_text() == FIXED  # DEV001 (first by code) won


@pytest.mark.parametrize(
    ("spans", "chosen"),
    [
        ([((1, 5), (1, 9)), ((1, 7), (1, 12))], 1),  # overlapping
        ([((1, 5), (1, 9)), ((1, 5), (1, 9))], 1),  # the same span
        ([((1, 5), (1, 5)), ((1, 5), (1, 5))], 1),  # two insertions at one point
        ([((1, 5), (2, 3)), ((1, 9), (1, 10))], 1),  # one inside a multi-line one
        ([((1, 5), (1, 9)), ((1, 9), (1, 12))], 2),  # touching, not overlapping
        ([((1, 5), (1, 9)), ((1, 9), (1, 9))], 2),  # an insertion right after
        ([((1, 5), (1, 9)), ((2, 1), (2, 4))], 2),  # other lines
    ],
)
def test_choose_fixes_keeps_only_non_overlapping_edits(
    spans: list[tuple[tuple[int, int], tuple[int, int]]], chosen: int
) -> None:
    findings = [
        Finding(
            "m.py",
            f"DEV00{number}",
            "test",
            "test",
            Location(*start),
            Location(*end),
            Fix(Applicability.SAFE, "fix", (Edit(Location(*start), Location(*end), "x"),)),
        )
        for number, (start, end) in enumerate(spans, start=1)
    ]
    picked = choose_fixes(findings, unsafe=False)
    assert len(picked) == chosen
    edits = [edit for f in picked if f.fix for edit in f.fix.edits]
    for first, second in itertools.combinations(edits, 2):
        assert first.end <= second.start or second.end <= first.start
        assert not first.start == first.end == second.start == second.end


def test_a_rule_that_never_converges_stops_at_the_bound(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each pass is verified; after MAX_FIX_PASSES the findings left are reported."""
    make_project(in_tmp, {"model.py": BUGGY})
    marker = Edit(Location(1, 1), Location(1, 1), "# again\n")
    calls = with_extra_findings(monkeypatch, lambda result: [finding(result, "DEV009", marker)])
    result = invoke(".")
    assert result.exit_code == 1  # the never-ending finding is left
    text = (in_tmp / "model.py").read_text()
    assert text == "# again\n" * engine.MAX_FIX_PASSES + FIXED
    assert len(calls) == 1 + engine.MAX_FIX_PASSES  # the check, then one per pass


def test_real_fixes_converge_in_one_pass_plus_the_recheck(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(in_tmp, {"model.py": TEMPLATE})
    calls = with_extra_findings(monkeypatch, lambda result: [])
    assert invoke(".").exit_code == 0
    assert (in_tmp / "model.py").read_text() == TEMPLATE_FIXED
    assert len(calls) == 2


# A real run, killed: every file must be its old or its new version.

TEMPLATE = BUGGY + (
    "\n\nclass Other(pl.LightningModule):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.head = torch.nn.Linear(4, 2).cuda()\n"
)
TEMPLATE_FIXED = FIXED + (
    "\n\nclass Other(pl.LightningModule):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.head = torch.nn.Linear(4, 2)\n"
)
CLEAN = "import torch\n\n\ndef helper(x):\n    return x.sum()\n"
PACKAGES, MODULES = 8, 30
"""240 files, 200 of which get fixed."""


@pytest.fixture(scope="module")
def large_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree") / "project"
    files = {}
    for package in range(PACKAGES):
        for module in range(MODULES):
            header = f"# module {package}.{module}\n"
            body = CLEAN if module % 6 == 5 else TEMPLATE
            files[f"pkg{package}/sub/mod{module}.py"] = header + body
    make_project(root, files)
    return root


def expected_after(path: Path, before: str) -> str:
    return before.replace(TEMPLATE, TEMPLATE_FIXED)


def start_fix(root: Path) -> subprocess.Popen[str]:
    """``python -m devlint fix --write`` in its own process group, as a shell would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "devlint", "fix", "--write", "--no-cache", "--jobs", "2", "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def snapshot(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def assert_each_file_old_or_new(before: dict[str, str], root: Path) -> int:
    """Every original file is either untouched or fully fixed; returns how many are new."""
    after = snapshot(root)
    extra = sorted(set(after) - set(before))
    assert extra == [], f"left in the folders: {extra}"
    assert set(after) == set(before)
    new = 0
    for name, text in before.items():
        fixed = expected_after(root / name, text)
        assert after[name] in (text, fixed), f"{name} is neither its old nor its new version"
        new += after[name] != text
    return new


@pytest.fixture(scope="module")
def full_run_seconds(large_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> float:
    """How long an uninterrupted run takes (and that it fixes every file)."""
    root = tmp_path_factory.mktemp("full") / "project"
    shutil.copytree(large_tree, root)
    before = snapshot(root)
    started = time.perf_counter()
    process = start_fix(root)
    _, stderr = process.communicate(timeout=300)
    elapsed = time.perf_counter() - started
    assert process.returncode == 0, stderr
    fixed = assert_each_file_old_or_new(before, root)
    assert fixed == PACKAGES * MODULES - PACKAGES * (MODULES // 6)
    return elapsed


def interrupted_run(
    large_tree: Path, root: Path, signal_number: int, moment: tuple[str, float]
) -> subprocess.CompletedProcess[str]:
    """Run on a copy of the tree and send the signal at ``moment``.

    ``("seconds", s)``: after ``s`` seconds, wherever the run is (start-up,
    analysis, fixing). ``("files", n)``: as soon as ``n`` files have been
    rewritten, so the signal surely lands among the writes.
    """
    shutil.copytree(large_tree, root)
    inodes = {path: path.stat().st_ino for path in root.rglob("*.py")}
    process = start_fix(root)
    kind, value = moment
    started = time.perf_counter()
    while process.poll() is None:
        if kind == "seconds" and time.perf_counter() - started >= value:
            break
        # A rewritten file is a new inode (os.replace): cheaper to watch than contents.
        if kind == "files" and sum(p.stat().st_ino != i for p, i in inodes.items()) >= value:
            break
        time.sleep(0.01)
    if process.poll() is None:
        os.killpg(process.pid, signal_number)
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def moments(full: float, seed: int) -> list[tuple[str, float]]:
    """A random moment anywhere in the run, then two among the writes, early and late."""
    rng = random.Random(seed)
    fixed = PACKAGES * MODULES - PACKAGES * (MODULES // 6)
    return [
        ("seconds", rng.uniform(0.3, full)),
        ("files", rng.randint(1, fixed // 3)),
        ("files", rng.randint(fixed // 2, fixed - 5)),
    ]


@pytest.mark.parametrize("trial", range(3))
def test_sigint_at_a_random_moment_leaves_old_or_new_files_and_nothing_else(
    large_tree: Path, full_run_seconds: float, tmp_path: Path, trial: int
) -> None:
    moment = moments(full_run_seconds, seed=5 + trial)[trial]
    root = tmp_path / "project"
    completed = interrupted_run(large_tree, root, signal.SIGINT, moment)
    assert "Traceback" not in completed.stderr, completed.stderr
    if completed.returncode != 0:  # interrupted before it finished
        assert (completed.returncode, completed.stderr) == (130, "devlint: interrupted\n")
    new = assert_each_file_old_or_new(snapshot(large_tree), root)
    if moment[0] == "files":
        assert new >= moment[1]


@pytest.mark.parametrize("trial", range(3))
def test_sigkill_at_a_random_moment_leaves_old_or_new_files_and_the_next_run_cleans_up(
    large_tree: Path, full_run_seconds: float, tmp_path: Path, trial: int
) -> None:
    """kill -9 cannot be caught: a temporary file may be left, and the next run removes it."""
    moment = moments(full_run_seconds, seed=9 + trial)[trial]
    root = tmp_path / "project"
    interrupted_run(large_tree, root, signal.SIGKILL, moment)
    before = snapshot(large_tree)
    left = {path: path.read_bytes() for path in temporaries(root)}
    for path in left:  # set aside: a temporary file never replaced anything
        path.unlink()
    new = assert_each_file_old_or_new(before, root)
    if moment[0] == "files":
        assert new >= moment[1]
    if trial != 0:
        return
    # One rerun (the slow part) shows that the next run finishes the job and leaves nothing.
    for path, data in left.items():
        path.write_bytes(data)
    (root / "pkg0" / "sub" / ".mod0.py.k1ll3d9x.devlint-tmp").write_text("import tor")
    rerun = start_fix(root)
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    assert snapshot(root) == {
        name: expected_after(root / name, text) for name, text in before.items()
    }
