"""Benchmark devlint against a bare libcst parse of the same files, in one run.

Usage (from the repository root; downloads two wheels from PyPI):

    python bench/run.py [--current] [--corpus DIR] [--with-torchfix] [--limit N]

It times, on this machine and in this one invocation (so the ratios hold even
on a noisy machine): parsing every file with ``libcst.parse_module`` in one
process (the baseline), a cold ``devlint check`` (empty cache), a warm one
(nothing changed), a warm one after editing one file, a cold one in one process, one
without the prefilter, and optionally TorchFix.
It prints seconds, ratios to the baseline, the peak memory of any devlint
process, how many files were analysed or read from the cache, and checks that
every run found the same findings.

``--current`` measures a current release instead (issue 14): transformers 5.x, its
top-level modules and ``models/a*`` to ``models/c*``, with lightning 2.6.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

CORPUS = {"transformers": "4.46.3", "lightning": "2.4.0"}
"""Pinned wheels: the corpus must be the same from one run to the next."""

CURRENT = {"transformers": "5.25.0", "lightning": "2.6.6"}
"""A current release (``--current``), pinned as well: the newest transformers 5.x."""


def _current_member(member: str) -> bool:
    """What ``--current`` keeps: all of lightning; transformers' top-level modules and
    its models whose names start with a, b or c."""
    parts = member.split("/")
    if parts[0] != "transformers":
        return True
    if len(parts) == 2:
        return True
    return len(parts) > 3 and parts[1] == "models" and parts[2][:1] in ("a", "b", "c")


def build_corpus(target: Path, pins: dict[str, str], keep: Callable[[str], bool]) -> Path:
    """Download the pinned wheels and unpack their ``.py`` files that ``keep`` accepts
    into ``target``."""
    if target.exists() and any(target.rglob("*.py")):
        return target
    with tempfile.TemporaryDirectory() as download:
        for name, version in pins.items():
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--quiet",
                    "--dest",
                    download,
                    f"{name}=={version}",
                ],
                check=True,
            )
        for wheel in Path(download).glob("*.whl"):
            project = target / wheel.name.split("-")[0]
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    if member.endswith(".py") and keep(member):
                        archive.extract(member, project)
            # a released package, as its own repository builds it (code it never calls is
            # its users' to call: devlint reads no names for what never runs there)
            (project / "pyproject.toml").write_text(
                f'[project]\nname = "{project.name}"\n\n[build-system]\nrequires = ["setuptools"]\n'
            )
    return target


def parse_only(files: list[Path]) -> float:
    """The baseline: one process, ``libcst.parse_module`` on every file, nothing else."""
    script = (
        "import sys, time, libcst\n"
        "paths = sys.argv[1:]\n"
        "start = time.perf_counter()\n"
        "for path in paths:\n"
        "    try:\n"
        "        libcst.parse_module(open(path, 'rb').read())\n"
        "    except Exception:\n"
        "        pass\n"
        "print(time.perf_counter() - start)\n"
    )
    listing = Path(tempfile.mkstemp(suffix=".txt")[1])
    listing.write_text("\n".join(map(str, files)))
    wrapper = (
        f"import sys; sys.argv[1:] = open({str(listing)!r}).read().split('\\n'); exec({script!r})"
    )
    completed = subprocess.run(
        [sys.executable, "-c", wrapper], capture_output=True, text=True, check=True
    )
    return float(completed.stdout.strip())


def devlint(corpus: Path, cache: Path, *extra: str) -> tuple[float, list[dict[str, object]], str]:
    """Seconds, findings (JSON) and the ``--debug`` statistics line of one run."""
    start = time.perf_counter()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "devlint",
            "check",
            "--output-format",
            "json",
            "--exit-zero",
            "--debug",
            "--cache-dir",
            str(cache),
            *extra,
            str(corpus),
        ],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if completed.returncode != 0:
        sys.exit(f"devlint failed:\n{completed.stderr}")
    statistics = [line for line in completed.stderr.splitlines() if "files:" in line]
    summary = statistics[-1].split(": ", 1)[1].rsplit(";", 1)[0] if statistics else ""
    return elapsed, json.loads(completed.stdout), summary


def torchfix(corpus: Path) -> float:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "torchfix"], check=True)
    start = time.perf_counter()
    subprocess.run(["torchfix", str(corpus)], capture_output=True)
    return time.perf_counter() - start


def working_copy(pristine: Path, target: Path, limit: int | None) -> Path:
    """A copy of the corpus (its first ``limit`` files) that the runs may edit: the
    downloaded corpus stays the same bytes from one run to the next."""
    files = sorted(pristine.rglob("*.py"))[:limit]
    for path in [*files, *pristine.rglob("pyproject.toml")]:
        copy = target / path.relative_to(pristine)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(path.read_bytes())
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="where the corpus is (built if empty)")
    parser.add_argument(
        "--current",
        action="store_true",
        help="transformers 5.x (top level, models/a*-c*) and lightning 2.6 instead",
    )
    parser.add_argument("--with-torchfix", action="store_true")
    parser.add_argument("--limit", type=int, help="use only the first N files (quick runs)")
    options = parser.parse_args()

    pins = CURRENT if options.current else CORPUS
    default = "devlint-bench-current" if options.current else "devlint-bench"
    target = options.corpus or Path(tempfile.gettempdir()) / default
    keep = _current_member if options.current else (lambda member: True)
    pristine = build_corpus(target, pins, keep)
    with tempfile.TemporaryDirectory() as folder:
        corpus = working_copy(pristine, Path(folder) / "corpus", options.limit)
        files = sorted(corpus.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        pinned = ", ".join(f"{name}=={version}" for name, version in pins.items())
        print(f"corpus: {len(files)} files, {lines} lines ({pinned})")
        baseline = parse_only(files)
        rows: list[tuple[str, float, str]] = [("parse only (libcst, 1 process)", baseline, "")]
        cache = Path(folder) / "cache"
        cold, cold_found, cold_stats = devlint(corpus, cache)
        rows.append(("devlint cold (empty cache)", cold, cold_stats))
        warm, warm_found, warm_stats = devlint(corpus, cache)
        rows.append(("devlint warm (nothing changed)", warm, warm_stats))
        touched = files[len(files) // 2]
        touched.write_text(touched.read_text() + "\n# edited\n")
        edit, edit_found, edit_stats = devlint(corpus, cache)
        rows.append(("devlint warm, one file edited", edit, edit_stats))
        # A view (pre-commit's file list, an editor): the named file's project is read
        # whole, from the cache, and only the named file reported.
        view, view_found, view_stats = devlint(touched, cache)
        rows.append(("devlint warm, that file named", view, view_stats))
        touched.write_text(touched.read_text() + "# edited again\n")
        edited_view, edited_view_found, edited_view_stats = devlint(touched, cache)
        rows.append(("devlint warm, that file edited and named", edited_view, edited_view_stats))
        serial, serial_found, serial_stats = devlint(
            corpus, Path(folder) / "serial", "--jobs", "1", "--no-cache"
        )
        rows.append(("devlint cold, --jobs 1, no cache", serial, serial_stats))
        unfiltered, unfiltered_found, unfiltered_stats = devlint(
            corpus, Path(folder) / "unfiltered", "--no-prefilter", "--no-cache"
        )
        rows.append(("devlint cold, no prefilter, no cache", unfiltered, unfiltered_stats))
        if options.with_torchfix:
            rows.append(("TorchFix", torchfix(corpus), ""))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    width = max(len(name) for name, _, _ in rows)
    print(f"\n{'run':<{width}}  {'seconds':>8}  {'ratio':>6}  files")
    for name, seconds, statistics in rows:
        print(f"{name:<{width}}  {seconds:8.2f}  {seconds / baseline:6.3f}  {statistics}")
    print(f"\npeak memory of any devlint process: {peak:.0f} MB")
    same = cold_found == warm_found == edit_found == serial_found == unfiltered_found
    # The view's findings are the whole run's for that file (comments added at its end).
    named = [f for f in edit_found if Path(str(f["filename"])).resolve() == touched.resolve()]
    same = same and view_found == edited_view_found == named
    print(f"findings: {len(cold_found)}; identical across runs: {'yes' if same else 'NO'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
