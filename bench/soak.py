"""Real-code soak: check and fix pinned real ML packages; nothing may break.

Usage (from the repository root; downloads the pinned wheels from PyPI once):

    python bench/soak.py [--workdir DIR] [--only NAME ...] [--jobs N]

For each package it pip-downloads the pinned wheel (``--no-deps``), copies its
Python sources into a fresh folder, and runs ``devlint check --select ALL`` and
``devlint fix --write --unsafe-fixes --select ALL`` there, then asserts:

- no traceback (and no "devlint: error" line: a refused fix is a devlint bug);
- every file that compiled before compiles after;
- files without findings are byte-identical, and fixed files changed only on
  lines that had findings;
- a second ``fix --write`` changes nothing, and no temporary file is left.

It prints a table (files, findings per rule, fixed files, failures) and the
failures in detail, and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = {
    "timm": "1.0.15",
    "torchmetrics": "1.7.1",
    "peft": "0.15.2",
    "open_clip_torch": "2.32.0",
    "x-transformers": "2.3.1",
    "vit-pytorch": "1.10.1",
    "denoising-diffusion-pytorch": "2.1.1",
    "pytorch-forecasting": "1.3.0",
    "sentence-transformers": "4.1.0",
    "trl": "0.17.0",
    "lm_eval": "0.4.8",
    "lightning-bolts": "0.7.0",
}
"""Pinned: model zoos, metrics, research code and Lightning projects. The same
bytes every run, so a new failure is devlint's doing."""

DEVLINT = [sys.executable, "-m", "devlint"]
COMMON = ["--select", "ALL", "--no-cache", "--no-color"]


@dataclass
class Report:
    """One package's results."""

    name: str
    files: int = 0
    findings: Counter[str] = field(default_factory=Counter)
    fixed_files: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def download(name: str, version: str, wheels: Path) -> Path:
    """The package's wheel (or sdist) in ``wheels``, downloaded if not there yet."""
    stem = name.replace("-", "_").lower()
    for found in sorted(wheels.iterdir()):
        lowered = found.name.lower().replace("-", "_")
        if lowered.startswith(f"{stem}_{version}") or lowered.startswith(f"{stem}-{version}"):
            return found
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
    subprocess.run([*pip, "--dest", str(wheels), f"{name}=={version}"], check=True)
    return download(name, version, wheels)


def unpack(archive: Path, target: Path) -> None:
    """The archive's ``.py`` files under ``target``."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for member in wheel.namelist():
                if member.endswith(".py"):
                    wheel.extract(member, target)
        return
    shutil.unpack_archive(archive, target)
    for path in target.rglob("*"):
        if path.is_file() and path.suffix != ".py":
            path.unlink()


def sources(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*.py"))
        if path.is_file()
    }


def compiles(data: bytes, name: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def devlint(root: Path, *args: str, jobs: int | None) -> subprocess.CompletedProcess[str]:
    extra = ["--jobs", str(jobs)] if jobs else []
    return subprocess.run(
        [*DEVLINT, *args, *COMMON, *extra, "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def problems_in(completed: subprocess.CompletedProcess[str], what: str) -> list[str]:
    """A traceback, a `devlint: error` line, or an unexpected exit code."""
    found = []
    if "Traceback" in completed.stdout + completed.stderr:
        found.append(f"{what}: traceback:\n{completed.stderr[-2000:]}")
    found += [
        f"{what}: {line}"
        for line in completed.stderr.splitlines()
        if line.startswith("devlint: error") or line.startswith("devlint: internal error")
    ]
    if completed.returncode not in (0, 1):
        found.append(f"{what}: exit code {completed.returncode}")
    return found


def changed_rows(before: bytes, after: bytes) -> set[int]:
    """1-based rows of ``before`` that the change replaced or deleted (insertions: both sides)."""
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    rows: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag != "equal":
            rows.update(range(first + 1, last + 1) if last > first else (first, first + 1))
    return rows


def soak(name: str, version: str, workdir: Path, jobs: int | None) -> Report:
    report = Report(name)
    started = time.perf_counter()
    pristine = workdir / "pristine" / name
    if not pristine.exists():
        archive = download(name, version, workdir / "wheels")
        unpack(archive, pristine.with_suffix(".partial"))
        pristine.with_suffix(".partial").rename(pristine)
    root = workdir / "run" / name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(pristine, root)
    (root / "pyproject.toml").write_text(f'[project]\nname = "soak-{name}"\n')
    before = sources(root)
    report.files = len(before)

    checked = devlint(root, "check", "--output-format", "json", jobs=jobs)
    report.failures += problems_in(checked, "check")
    try:
        findings = json.loads(checked.stdout or "[]")
    except json.JSONDecodeError:
        report.failures.append(f"check: not JSON: {checked.stdout[:200]!r}")
        findings = []
    rows: dict[str, set[int]] = {}
    for finding in findings:
        report.findings[finding["code"]] += 1
        span = range(finding["location"]["row"], finding["end_location"]["row"] + 1)
        rows.setdefault(Path(finding["filename"]).as_posix(), set()).update(span)

    fixed = devlint(root, "fix", "--write", "--unsafe-fixes", "--output-format", "json", jobs=jobs)
    report.failures += problems_in(fixed, "fix")
    after = sources(root)
    for path, data in before.items():
        new = after.get(path)
        if new is None:
            report.failures.append(f"{path}: deleted")
            continue
        if new == data:
            continue
        report.fixed_files += 1
        if path not in rows:
            report.failures.append(f"{path}: changed, but had no findings")
            continue
        stray = sorted(changed_rows(data, new) - rows[path])
        if stray:
            report.failures.append(f"{path}: changed rows without findings: {stray[:10]}")
        if compiles(data, path) and not compiles(new, path):
            report.failures.append(f"{path}: compiled before the fixes, not after")
    report.failures += [f"{path}: appeared" for path in sorted(set(after) - set(before))]

    again = devlint(root, "fix", "--write", "--unsafe-fixes", jobs=jobs)
    report.failures += problems_in(again, "second fix")
    report.failures += [
        f"{path}: changed again by a second fix --write"
        for path, data in sources(root).items()
        if after.get(path) != data
    ]
    report.failures += [
        f"{path.relative_to(root)}: left behind"
        for path in root.rglob("*")
        if path.name.endswith(".devlint-tmp")
    ]
    report.seconds = time.perf_counter() - started
    return report


def table(reports: list[Report]) -> str:
    codes = sorted({code for report in reports for code in report.findings})
    header = ["package", "version", "files", *codes, "fixed files", "failures", "seconds"]
    rows = [
        [
            report.name,
            PACKAGES[report.name],
            str(report.files),
            *(str(report.findings[code]) for code in codes),
            str(report.fixed_files),
            str(len(report.failures)),
            f"{report.seconds:.0f}",
        ]
        for report in reports
    ]
    totals = Counter[str]()
    for report in reports:
        totals.update(report.findings)
    rows.append(
        [
            "total",
            "",
            str(sum(report.files for report in reports)),
            *(str(totals[code]) for code in codes),
            str(sum(report.fixed_files for report in reports)),
            str(sum(len(report.failures) for report in reports)),
            f"{sum(report.seconds for report in reports):.0f}",
        ]
    )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < 2 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(header), line(["-" * width for width in widths]), *map(line, rows)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "devlint-soak",
        help="wheels, pristine sources and the copies devlint rewrites",
    )
    parser.add_argument("--only", nargs="+", choices=sorted(PACKAGES), help="a subset")
    parser.add_argument("--jobs", type=int, help="devlint's --jobs")
    options = parser.parse_args()
    workdir: Path = options.workdir.resolve()
    (workdir / "wheels").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    reports = []
    for name in options.only or PACKAGES:
        print(f"soaking {name}=={PACKAGES[name]} ...", file=sys.stderr, flush=True)
        reports.append(soak(name, PACKAGES[name], workdir, options.jobs))
    print(table(reports))
    failures = [(report.name, failure) for report in reports for failure in report.failures]
    for name, failure in failures:
        print(f"FAIL {name}: {failure}")
    print("soak: " + (f"{len(failures)} failures" if failures else "clean"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
