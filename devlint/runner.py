"""Running file analyses: from the cache when possible, else in worker processes.

Workers ignore Ctrl-C (the parent stops them), and a worker that dies (a parser
crash on a pathological file) costs only that file: it becomes a DEV000 and the
rest of the run goes on.
"""

from __future__ import annotations

import gc
import hashlib
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from devlint.analysis import FileAnalysis, FileJob, analyze_bytes, syntax_error_finding
from devlint.cache import Cache

if TYPE_CHECKING:  # multiprocessing is imported only by a run that starts workers
    from concurrent.futures import Future, ProcessPoolExecutor

_POOL_THRESHOLD = 4
"""Below this many files to analyse, starting workers costs more than it saves."""

_POOL_START_BYTES = 1_000_000
"""Below this many bytes to analyse, starting workers costs more than it saves: each
imports libcst and the rules (a third of a second) before it parses anything, and libcst
parses about a megabyte a second (a warm run after an edit analyses a file or two)."""


@dataclass
class RunStats:
    """How the files of a run were handled (for ``--debug`` and the benchmark)."""

    cached: int = 0
    analysed: int = 0
    crashed: int = 0


class Progress(Protocol):
    """Told, in the parent process, as each file of the run is done (once per file)."""

    def advance(self) -> None: ...


_PARSING_GC_THRESHOLD = (50_000, 20, 100)
"""libcst makes millions of short-lived objects: collecting after every 700 (Python's
default) spends a sixth of the parsing time looking at objects that are still alive."""


def _prepare_worker() -> None:
    """Workers ignore Ctrl-C (the parent stops them) and collect garbage less often."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()  # what the worker inherits lives as long as the worker
    gc.set_threshold(*_PARSING_GC_THRESHOLD)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Analysing in this process: the same garbage-collection setting, for a while."""
    saved = gc.get_threshold()
    gc.set_threshold(*_PARSING_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def content_digest(data: bytes) -> bytes:
    """A file's fingerprint: fixing checks the file still has the bytes that were analysed."""
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass(frozen=True)
class _Task:
    """One file to analyse, and where to store its analysis (none: do not)."""

    job: FileJob
    data: bytes
    cache: Cache | None
    key: str


def _analyse_and_store(task: _Task) -> FileAnalysis:
    """Analyse a file and cache the result where it is made: in the workers, in parallel,
    rather than one by one in the parent once they are done."""
    return _store(task, analyze_bytes(task.job, task.data))


def _store(task: _Task, analysis: FileAnalysis) -> FileAnalysis:
    if task.cache is not None:
        task.cache.put(task.key, analysis)
    return analysis


def _read(job: FileJob) -> bytes | FileAnalysis:
    try:
        with open(job.path, "rb") as stream:
            return stream.read()
    except OSError as error:
        reason = f"cannot read file: {error.strerror or error}"
        return FileAnalysis(error=syntax_error_finding(job.display, reason))


class Runner:
    """Analyses files for one devlint run."""

    def __init__(self, jobs: int) -> None:
        self.workers = max(1, jobs)
        self.stats = RunStats()
        self.progress: Progress | None = None
        self.buffers: dict[str, bytes] = {}
        """Contents to analyse instead of the file at a job's path (stdin); never cached."""
        self.digests: dict[str, bytes] = {}
        """The digest of the bytes each job's path had when it was read for analysis."""
        self._pool: ProcessPoolExecutor | None = None
        self._done: set[str] = set()
        """The paths already counted as done for ``progress``."""
        self._saved_threshold = gc.get_threshold()

    def _advance(self, job: FileJob) -> None:
        """A file is done: the first time only, as later passes analyse some files again."""
        if self.progress is not None and job.path not in self._done:
            self._done.add(job.path)
            self.progress.advance()

    def restored(self, jobs: Sequence[FileJob]) -> None:
        """Files whose findings came from the cache without analysis: they are done too."""
        self.stats.cached += len(jobs)
        for job in jobs:
            self._advance(job)

    def analyze(self, work: Sequence[tuple[FileJob, Cache | None]]) -> list[FileAnalysis]:
        """Each job's analysis, in order: cached ones are read, the others computed."""
        results: list[FileAnalysis | None] = [None] * len(work)
        pending: list[tuple[int, _Task]] = []
        for position, (job, cache) in enumerate(work):
            data = _read(job) if job.path not in self.buffers else self.buffers[job.path]
            if isinstance(data, FileAnalysis):
                results[position] = data
                self._advance(job)
                continue
            self.digests[job.path] = content_digest(data)
            if job.path in self.buffers:
                cache = None
            key = Cache.key(job, data) if cache else ""
            hit = cache.get(key) if cache else None
            if hit is not None:
                self.stats.cached += 1
                results[position] = hit
                self._advance(job)
            else:
                pending.append((position, _Task(job, data, cache, key)))
        computed = self._run([task for _, task in pending])
        for (position, _), analysis in zip(pending, computed, strict=True):
            results[position] = analysis
        self.stats.analysed += len(pending)
        return [result for result in results if result is not None]

    def _run(self, work: list[_Task]) -> list[FileAnalysis]:
        if not self._worth_workers(work):
            analyses = []
            with _fewer_collections():
                for task in work:
                    analyses.append(_analyse_and_store(task))
                    self._advance(task.job)
            return analyses
        return self._in_pool(work)

    def _worth_workers(self, work: list[_Task]) -> bool:
        """Whether to analyse in worker processes rather than here. Workers already running
        take any two files or more: they share them, where this process would analyse them
        one after the other (a later pass often asks for two or three big files)."""
        if self.workers == 1 or len(work) < 2:
            return False
        if self._pool is not None:
            return True
        return len(work) >= _POOL_THRESHOLD and (
            sum(len(task.data) for task in work) >= _POOL_START_BYTES
        )

    def _in_pool(self, work: list[_Task]) -> list[FileAnalysis]:
        """Analyse in the run's worker processes, started once: later passes reuse them
        (each new worker would import libcst again)."""
        if self._pool is None:
            self._pool = _start_pool(self.workers)
        results = self._collect(self._pool, work)
        if all(result is not None for result in results):
            return [result for result in results if result is not None]
        self.close()  # a worker died, the pool with it: later passes start new workers
        # Redo the files the dead worker left, each alone, to find the culprit.
        return [
            result if result is not None else self._alone(task)
            for result, task in zip(results, work, strict=True)
        ]

    def _collect(
        self, executor: ProcessPoolExecutor, work: list[_Task]
    ) -> list[FileAnalysis | None]:
        """The analyses, None for files left by a worker that died."""
        from concurrent.futures.process import BrokenProcessPool

        results: list[FileAnalysis | None] = [None] * len(work)
        try:
            # Biggest files first: a big file started last keeps one worker busy alone.
            order = sorted(range(len(work)), key=lambda position: -len(work[position].data))
            futures: dict[int, Future[FileAnalysis]] = {
                position: executor.submit(_analyse_and_store, work[position]) for position in order
            }
            for position, future in futures.items():
                try:
                    results[position] = future.result()
                except BrokenProcessPool:
                    continue
                self._advance(work[position].job)
        except BaseException:
            executor.shutdown(wait=False, cancel_futures=True)
            if executor is self._pool:
                self._pool = None
            raise
        return results

    def _alone(self, task: _Task) -> FileAnalysis:
        """A file analysed in a worker of its own: if that one dies too, the file crashed
        the parser."""
        executor = _start_pool(1)
        (result,) = self._collect(executor, [task])
        executor.shutdown(wait=True)
        if result is not None:
            return result
        self.stats.crashed += 1
        reason = "cannot parse: the parser crashed on this file"
        crash = FileAnalysis(error=syntax_error_finding(task.job.display, reason))
        self._advance(task.job)
        return _store(task, crash)

    def close(self) -> None:
        """Stop the workers (at the end of a run)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> Runner:
        """For the run, this process collects garbage as the workers do: it holds every
        file's analysis and the project index, objects that live as long as the run, and
        Python's default setting walks them all again and again as the passes go on."""
        self._saved_threshold = gc.get_threshold()
        gc.set_threshold(*_PARSING_GC_THRESHOLD)
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
        gc.set_threshold(*self._saved_threshold)


def _start_pool(workers: int) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=_prepare_worker)
