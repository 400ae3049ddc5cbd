"""Real-world accuracy: recall on device-bug fixes from public history, precision on look-alikes.

Usage (from the repository root):

    python bench/accuracy/run.py [--mirrors DIR] [--only ID ...] [--jobs N] [--json FILE]

The set is references only (see bench/accuracy/README.md): ``cases/*.toml`` name a fix
commit, its files and the buggy lines of its parent; ``lookalikes/*.toml`` name correct
lines of released packages (pip-downloaded) or of repositories at a commit; ``judgments``
hold hand verdicts on the other findings. The files are materialised at run time from
the bare git mirrors the ``fetch`` tool makes (``DIR/<owner>+<name>``) and from pip
downloads cached in $TMPDIR, each into its own project, and ``devlint check --select
ALL`` runs there.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from soak import download, unpack  # noqa: E402  (bench/soak.py: pip download, unpack)

from devlint.config import builds_a_package  # noqa: E402

DEVLINT = [sys.executable, "-m", "devlint", "check", "--select", "ALL"]
DEVLINT += ["--output-format", "json", "--no-cache", "--exit-zero", "--jobs", "1", "."]
PROJECT = '[project]\nname = "{name}"\n\n[tool.devlint]\nexclude = []\nrespect-gitignore = false\n'
"""Each materialised folder is its own project; nothing in it is excluded."""
PACKAGED = '\n[build-system]\nrequires = ["setuptools"]\n'
"""Added where the source is packaged for others to install (a released package, a
repository whose root builds one): code it never calls may be its users' to call. A
case's folder always gets it: it holds only some files of its project, and code they do
not call may be called by the rest."""

CASE_KEYS = {"id", "repo", "commit", "files", "buggy", "rule", "kind", "summary"}
LOOKALIKE_KEYS = {"id", "package", "version", "repo", "commit", "path", "lines", "rule", "why"}
JUDGMENT_KEYS = {"case", "source", "path", "line", "code", "verdict", "why"}
HEX40 = re.compile(r"[0-9a-f]{40}")


class SetError(Exception):
    """A malformed entry in the set: the message names the file and the reason."""


@dataclass(frozen=True)
class Case:
    id: str
    repo: str
    commit: str
    files: tuple[str, ...]
    buggy: dict[str, frozenset[int]]
    rule: str
    kind: str
    summary: str


@dataclass(frozen=True)
class Lookalike:
    id: str
    source: str  # "package==version" or "owner/name@commit"
    path: str
    lines: frozenset[int]
    rule: str
    why: str


@dataclass(frozen=True)
class Judgment:
    origin: str  # a case id or a look-alike source
    path: str
    line: int
    code: str
    verdict: bool
    why: str


@dataclass
class Finding:
    """One devlint finding, where it came from and how it was judged."""

    origin: str  # the case id or the look-alike source
    repo: str  # the repository or package read: duplicates across its cases are one
    side: str  # "before", "after" or "lookalike"
    path: str
    line: int
    code: str
    message: str
    text: str  # the stripped source line: the key that joins duplicates, never stored
    verdict: str = "unjudged"  # "true", "false" or "unjudged"
    reason: str = ""


@dataclass
class CaseResult:
    case: Case
    found: bool = False
    found_any: bool = False
    cleared: bool = True
    error: str = ""
    findings: list[Finding] = field(default_factory=list)


# ---------------------------------------------------------------- reading the set


def _table(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SetError(f"{path}: {error}") from None


def _entries(path: Path, kind: str, keys: set[str], required: set[str]) -> list[dict[str, Any]]:
    data = _table(path)
    extra = set(data) - {kind}
    if extra:
        raise SetError(f"{path}: unknown table {sorted(extra)[0]!r} (expected [[{kind}]])")
    entries = data.get(kind, [])
    for number, entry in enumerate(entries, 1):
        where = f"{path}: {kind} #{number}"
        if unknown := set(entry) - keys:
            raise SetError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        if missing := required - set(entry):
            raise SetError(f"{where}: missing key {sorted(missing)[0]!r}")
    return list(entries)


def load_cases(root: Path) -> list[Case]:
    cases = []
    for path in sorted((root / "cases").glob("*.toml")):
        for entry in _entries(path, "case", CASE_KEYS, CASE_KEYS):
            where = f"{path}: case {entry['id']!r}"
            if not HEX40.fullmatch(entry["commit"]):
                raise SetError(f"{where}: commit must be 40 lowercase hex digits")
            buggy = {name: frozenset(rows) for name, rows in entry["buggy"].items()}
            if not buggy or not set(buggy) <= set(entry["files"]):
                raise SetError(f"{where}: buggy must name lines in files listed in files")
            cases.append(
                Case(
                    entry["id"],
                    entry["repo"],
                    entry["commit"],
                    tuple(entry["files"]),
                    buggy,
                    entry["rule"],
                    entry["kind"],
                    entry["summary"],
                )
            )
    _unique_ids([case.id for case in cases], "case")
    return cases


def load_lookalikes(root: Path) -> list[Lookalike]:
    lookalikes = []
    for path in sorted((root / "lookalikes").glob("*.toml")):
        required = {"id", "path", "lines", "rule", "why"}
        for entry in _entries(path, "lookalike", LOOKALIKE_KEYS, required):
            where = f"{path}: lookalike {entry['id']!r}"
            if "package" in entry and "version" in entry and "repo" not in entry:
                source = f"{entry['package']}=={entry['version']}"
            elif "repo" in entry and "commit" in entry and "package" not in entry:
                if not HEX40.fullmatch(entry["commit"]):
                    raise SetError(f"{where}: commit must be 40 lowercase hex digits")
                source = f"{entry['repo']}@{entry['commit']}"
            else:
                raise SetError(f"{where}: give package + version, or repo + commit")
            lookalikes.append(
                Lookalike(
                    entry["id"],
                    source,
                    entry["path"],
                    frozenset(entry["lines"]),
                    entry["rule"],
                    entry["why"],
                )
            )
    _unique_ids([lookalike.id for lookalike in lookalikes], "lookalike")
    return lookalikes


def load_judgments(root: Path) -> list[Judgment]:
    files = [root / "judgments.toml", *sorted((root / "judgments").glob("*.toml"))]
    judgments = []
    for path in files:
        if not path.exists():
            continue
        required = {"path", "line", "code", "verdict", "why"}
        for entry in _entries(path, "judgment", JUDGMENT_KEYS, required):
            if ("case" in entry) == ("source" in entry):
                raise SetError(f"{path}: judgment {entry}: give case or source, not both")
            if entry["verdict"] not in ("true", "false"):
                raise SetError(f"{path}: judgment {entry}: verdict is 'true' or 'false'")
            judgments.append(
                Judgment(
                    entry.get("case") or entry["source"],
                    entry["path"],
                    entry["line"],
                    entry["code"],
                    entry["verdict"] == "true",
                    entry["why"],
                )
            )
    return judgments


def _unique_ids(ids: list[str], kind: str) -> None:
    repeated = [name for name, count in Counter(ids).items() if count > 1]
    if repeated:
        raise SetError(f"{kind} id {repeated[0]!r} is used more than once")


# ---------------------------------------------------------------- materialising


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The bare git dir the ``fetch`` tool made for ``owner/name``, if it is there."""
    folder = mirrors / repo.replace("/", "+")
    for candidate in (folder / "repo", folder):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def git(repository: Path, *args: str) -> bytes:
    completed = subprocess.run(
        ["git", "--git-dir", str(repository), *args], capture_output=True, check=False
    )
    if completed.returncode:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SetError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return completed.stdout


def write_project(folder: Path, name: str, files: dict[str, bytes], *, packaged: bool) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    folder.mkdir(parents=True, exist_ok=True)
    text = PROJECT.format(name=name) + (PACKAGED if packaged else "")
    (folder / "pyproject.toml").write_text(text)


def packaged_at(repository: Path, commit: str) -> bool:
    """The repository's root at ``commit`` is packaged, as ``devlint.config.is_packaged``
    reads a folder: a ``setup.py`` or ``setup.cfg``, or a ``pyproject.toml`` that builds a
    package (``builds_a_package``)."""
    names = git(repository, "ls-tree", "--name-only", commit).decode().split()
    if "setup.py" in names or "setup.cfg" in names:
        return True
    if "pyproject.toml" not in names:
        return False
    try:
        document = tomllib.loads(git(repository, "show", f"{commit}:pyproject.toml").decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return True
    return builds_a_package(document)


def added_rows(repository: Path, parent: str, commit: str, path: str) -> set[int]:
    """1-based rows of ``path`` at ``commit`` that the commit added or changed."""
    diff = git(repository, "diff", "--no-color", "-U0", parent, commit, "--", path)
    rows: set[int] = set()
    for match in re.finditer(rb"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.MULTILINE):
        start, count = int(match[1]), int(match[2] or 1)
        rows.update(range(start, start + count))
    return rows


def run_devlint(folder: Path) -> list[dict[str, Any]]:
    completed = subprocess.run(DEVLINT, cwd=folder, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SetError(f"devlint exited {completed.returncode}: {completed.stderr.strip()[-500:]}")
    findings: list[dict[str, Any]] = json.loads(completed.stdout or "[]")
    return findings


def collect(
    folder: Path, origin: str, repo: str, side: str, rows: list[dict[str, Any]]
) -> list[Finding]:
    found = []
    lines: dict[str, list[str]] = {}
    for row in rows:
        path = Path(row["filename"])
        name = (path.relative_to(folder) if path.is_absolute() else path).as_posix()
        if name not in lines:
            data = (folder / name).read_bytes().decode("utf-8", "replace")
            lines[name] = data.splitlines()
        number = row["location"]["row"]
        text = lines[name][number - 1].strip() if 0 < number <= len(lines[name]) else ""
        found.append(Finding(origin, repo, side, name, number, row["code"], row["message"], text))
    return found


def run_case(case: Case, repository: Path, projects: Path) -> CaseResult:
    result = CaseResult(case)
    try:
        parent = git(repository, "rev-parse", f"{case.commit}^1").decode().strip()
        folders = {}
        for side, commit in (("before", parent), ("after", case.commit)):
            files = {path: git(repository, "show", f"{commit}:{path}") for path in case.files}
            folders[side] = projects / "cases" / case.id / side
            write_project(folders[side], f"accuracy-{side}", files, packaged=True)
        before = collect(
            folders["before"], case.id, case.repo, "before", run_devlint(folders["before"])
        )
        after = collect(
            folders["after"], case.id, case.repo, "after", run_devlint(folders["after"])
        )
        changed = {path: added_rows(repository, parent, case.commit, path) for path in case.files}
    except SetError as error:
        result.error = str(error)
        return result
    for finding in before:
        if finding.line in case.buggy.get(finding.path, ()):
            finding.verdict, finding.reason = "true", "on a buggy line"
            result.found_any = True
            result.found |= finding.code == case.rule
        result.findings.append(finding)
    for finding in after:
        if finding.line in changed.get(finding.path, ()):
            result.cleared &= finding.code != case.rule
            finding.verdict, finding.reason = "false", "on a line the fix wrote"
            result.findings.append(finding)
    return result


def run_source(
    source: str, lookalikes: list[Lookalike], mirrors: Path, workdir: Path, projects: Path
) -> list[Finding] | str:
    """The findings in one look-alike source (a whole package or repository), or an error.
    Downloads are kept in ``workdir``; the project is written under ``projects``."""
    folder = projects / "lookalikes" / re.sub(r"[^\w.=@-]", "_", source)
    try:
        if "==" in source:
            name, version = source.split("==")
            pristine = workdir / "pristine" / f"{name}-{version}"
            if not pristine.exists():
                archive = download(name, version, workdir / "wheels")
                partial = Path(tempfile.mkdtemp(prefix=f"{pristine.name}.", dir=pristine.parent))
                unpack(archive, partial)
                try:
                    partial.rename(pristine)
                except OSError:  # another run unpacked it first
                    shutil.rmtree(partial, ignore_errors=True)
            files = {
                path.relative_to(pristine).as_posix(): path.read_bytes()
                for path in pristine.rglob("*.py")
            }
            packaged = True
        else:
            repo, commit = source.split("@")
            repository = git_dir(mirrors, repo)
            if repository is None:
                return f"missing mirror {repo} (run the fetch tool for github:{repo})"
            # only the Python files: a mirror may lack some large blobs of other files
            data = io.BytesIO(git(repository, "archive", commit, "--", "*.py"))
            with tarfile.open(fileobj=data) as archive:
                files = {
                    member.name: archive.extractfile(member).read()  # type: ignore[union-attr]
                    for member in archive.getmembers()
                    if member.isfile() and member.name.endswith(".py")
                }
            packaged = packaged_at(repository, commit)
        write_project(folder, "accuracy-lookalike", files, packaged=packaged)
        for lookalike in lookalikes:
            if lookalike.path not in files:
                return f"look-alike {lookalike.id}: {lookalike.path} is not in {source}"
        # findings at several commits of one repository are the same findings
        repo = source.split("@")[0]
        findings = collect(folder, source, repo, "lookalike", run_devlint(folder))
    except (SetError, subprocess.CalledProcessError, OSError) as error:
        return str(error)
    marked = {(item.path, line): item for item in lookalikes for line in item.lines}
    for finding in findings:
        if (item := marked.get((finding.path, finding.line))) is not None:
            finding.verdict, finding.reason = "false", f"look-alike {item.id}"
    return findings


# ---------------------------------------------------------------- scoring


def apply_judgments(findings: list[Finding], judgments: list[Judgment]) -> list[str]:
    """Set hand verdicts, then give every unjudged finding the verdict of its twins.

    The same finding appears in several cases of one repository, at several commits
    and in the before and after copies; keyed by its repository, path, code and source
    line's text, one verdict (a judgment, a buggy line, a look-alike line) settles all
    of them. A judgment settles every finding of its place (two calls on one line) in the
    copy listed last (a case's after copy, where both have one). Returns the judgments
    that match no finding (stale after a devlint change)."""
    by_place: dict[tuple[str, str, int, str], list[Finding]] = {}
    for f in findings:
        held = by_place.setdefault((f.origin, f.path, f.line, f.code), [])
        if held and held[0].side != f.side:
            held.clear()
        held.append(f)
    stale = []
    for judgment in judgments:
        place = by_place.get((judgment.origin, judgment.path, judgment.line, judgment.code), [])
        if not place:
            stale.append(f"{judgment.origin} {judgment.path}:{judgment.line} {judgment.code}")
        for finding in place:
            finding.verdict = "true" if judgment.verdict else "false"
            finding.reason = f"judged: {judgment.why}"
    decided = {_text_key(f): f for f in findings if f.verdict != "unjudged"}
    for finding in findings:
        twin = decided.get(_text_key(finding))
        if finding.verdict == "unjudged" and twin is not None:
            finding.verdict, finding.reason = twin.verdict, twin.reason
    return stale


def _text_key(finding: Finding) -> tuple[str, str, str, str]:
    return (finding.repo, finding.path, finding.code, finding.text)


def distinct(findings: list[Finding]) -> list[Finding]:
    """One finding per repository, path, code, line text and verdict (cases share files)."""
    seen: dict[tuple[str, ...], Finding] = {}
    for finding in findings:
        seen.setdefault((*_text_key(finding), finding.verdict), finding)
    return list(seen.values())


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f}" if whole else "-"


def score(results: list[CaseResult], findings: list[Finding]) -> list[dict[str, Any]]:
    rules = sorted({r.case.rule for r in results if r.case.rule} | {f.code for f in findings})
    rows = []
    for rule in [*rules, "ALL"]:
        mine = [r for r in results if not r.error and (rule == "ALL" or r.case.rule == rule)]
        scored = [r for r in mine if r.case.rule]
        judged = [f for f in findings if rule == "ALL" or f.code == rule]
        true = sum(f.verdict == "true" for f in judged)
        false = sum(f.verdict == "false" for f in judged)
        rows.append(
            {
                "rule": rule,
                "cases": len(mine),
                "found": sum(r.found for r in mine),
                "found_any_rule": sum(r.found_any for r in mine),
                "recall": ratio(sum(r.found for r in scored), len(scored)),
                "cleared": ratio(sum(r.cleared for r in scored), len(scored)),
                "tp": true,
                "fp": false,
                "precision": ratio(true, true + false),
                "unjudged": sum(f.verdict == "unjudged" for f in judged),
            }
        )
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    header = ["rule", "cases", "found", "any rule", "recall", "cleared"]
    header += ["TP", "FP", "precision", "unjudged"]
    keys = ["rule", "cases", "found", "found_any_rule", "recall", "cleared"]
    keys += ["tp", "fp", "precision", "unjudged"]
    cells = [header, *([str(row[key]) for key in keys] for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    text = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in cells
    ]
    text.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(text)


# ---------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--only", nargs="+", metavar="ID", help="case or look-alike ids")
    parser.add_argument("--jobs", type=int, default=2, help="cases checked at once")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results")
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "devlint-accuracy"
    )
    options = parser.parse_args()
    try:
        cases = load_cases(HERE)
        lookalikes = load_lookalikes(HERE)
        judgments = load_judgments(HERE)
    except SetError as error:
        print(f"accuracy: {error}", file=sys.stderr)
        return 2
    if options.only:
        wanted = set(options.only)
        unknown = wanted - {c.id for c in cases} - {item.id for item in lookalikes}
        if unknown:
            print(f"accuracy: no case or look-alike {sorted(unknown)[0]!r}", file=sys.stderr)
            return 2
        cases = [case for case in cases if case.id in wanted]
        lookalikes = [item for item in lookalikes if item.id in wanted]
    workdir: Path = options.workdir.resolve()
    for kept in ("wheels", "pristine"):
        (workdir / kept).mkdir(parents=True, exist_ok=True)
    projects = Path(tempfile.mkdtemp(prefix="run-", dir=workdir))  # runs at once stay apart
    try:
        return report(options, cases, lookalikes, judgments, workdir, projects)
    finally:
        shutil.rmtree(projects, ignore_errors=True)


def report(
    options: argparse.Namespace,
    cases: list[Case],
    lookalikes: list[Lookalike],
    judgments: list[Judgment],
    workdir: Path,
    projects: Path,
) -> int:
    """Check every case and look-alike source, print the table and the lists."""

    problems: list[str] = []
    runnable = []
    for repo in sorted({case.repo for case in cases}):
        repository = git_dir(options.mirrors, repo)
        mine = [case for case in cases if case.repo == repo]
        if repository is None:
            problems.append(
                f"missing mirror {repo}: {len(mine)} cases skipped"
                f" (run the fetch tool for github:{repo})"
            )
        else:
            runnable += [(case, repository) for case in mine]
    sources: dict[str, list[Lookalike]] = defaultdict(list)
    for item in lookalikes:
        sources[item.source].append(item)

    with ThreadPoolExecutor(max(1, options.jobs)) as pool:
        case_jobs = [pool.submit(run_case, case, repo, projects) for case, repo in runnable]
        source_jobs = {
            source: pool.submit(run_source, source, items, options.mirrors, workdir, projects)
            for source, items in sources.items()
        }
        results = [job.result() for job in case_jobs]
        findings = [f for result in results for f in result.findings]
        for source, job in source_jobs.items():
            outcome = job.result()
            if isinstance(outcome, str):
                problems.append(f"{source}: {outcome}")
            else:
                findings += outcome
    problems += [f"{r.case.id}: {r.error}" for r in results if r.error]
    checked = {r.case.id for r in results if not r.error}
    checked |= {source for source, job in source_jobs.items() if not isinstance(job.result(), str)}
    stale = apply_judgments(findings, [j for j in judgments if j.origin in checked])
    problems += [f"judgment matches no finding: {place}" for place in stale]
    counted = distinct(findings)
    rows = score(results, counted)

    print(render(rows))
    misses = [r for r in results if not r.error and r.case.rule and not r.found]
    print(f"\nmisses ({len(misses)}):")
    for r in misses:
        also = " (another rule on the line)" if r.found_any else ""
        print(f"  {r.case.id}  {r.case.rule}  {r.case.kind}{also}")
    not_cleared = [r for r in results if not r.error and not r.cleared]
    print(f"\nnot cleared ({len(not_cleared)}):")
    for r in not_cleared:
        print(f"  {r.case.id}  {r.case.rule}")
    false = [f for f in counted if f.verdict == "false"]
    print(f"\nfalse alarms ({len(false)}):")
    for f in false:
        print(f"  {f.origin}  {f.path}:{f.line}  {f.code}  ({f.reason})  {f.message}")
    unjudged = [f for f in counted if f.verdict == "unjudged"]
    print(f"\nunjudged ({len(unjudged)}):")
    for f in unjudged:
        print(f"  {f.origin}  {f.path}:{f.line}  {f.code}  {f.message}")
    for problem in problems:
        print(f"PROBLEM {problem}")

    if options.json:
        options.json.write_text(
            json.dumps(
                {
                    "table": rows,
                    "misses": [
                        {"id": r.case.id, "rule": r.case.rule, "kind": r.case.kind} for r in misses
                    ],
                    "not_cleared": [r.case.id for r in not_cleared],
                    "findings": [asdict(f) | {"text": None} for f in counted],
                    "problems": problems,
                },
                indent=2,
            )
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
