"""Differential benchmark: the runtime oracle (``devlint.testing``) against ``devlint check``.

    python bench/oracle.py [--limit N] [--jobs J] [--only TYPE ...] [--static-scope SCOPE]

Builds transformers' models from their default configurations, cut to two layers,
on the ``meta`` device (no download, no memory for weights), one per model type of
``AutoModel``'s mapping, gives each dummy inputs for its main input, and runs its
forward through ``find_device_mixes`` (every mix of the run, on the virtual second
GPU) while tracing which lines of transformers run. Then it compares with
``python -m devlint check --select ALL --output-format json`` on the same installed
sources:

- recall: every oracle crash (where two devices met, and where the odd tensor was
  made) should carry a static finding at one of those lines;
- precision: every static finding of the meeting kinds (DEV003, DEV004, DEV007) on a
  line that ran (for DEV007, an ``__init__`` line run while building) should be a
  place where the oracle saw a crash.

It prints a table and every disagreement with file:line. No other installed library
ships models that build offline without torchvision (which does not work with this
torch), so transformers is the corpus. Not part of the test suite (a sample of it
is: tests/runtime/test_oracle_bench.py).
"""

from __future__ import annotations

import argparse
import inspect
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch
import transformers
from transformers.models.auto import configuration_auto, modeling_auto

from devlint.testing.check import run_watched
from devlint.testing.watch import Watch

LIBRARY = Path(transformers.__file__).resolve().parent
SOURCES = LIBRARY.parent
"""Where ``devlint check`` runs: findings are named ``transformers/...`` from here."""
MEETING_RULES = ("DEV003", "DEV004", "DEV007")
LAYER_KEYS = frozenset(
    {"num_hidden_layers", "num_layers", "n_layer", "n_layers", "encoder_layers"}
    | {"decoder_layers", "num_encoder_layers", "num_decoder_layers", "depth", "num_blocks"}
)
"""Config fields holding a number of layers: cut to two so that each forward is short."""
SECONDS_PER_MODEL = 90

Line = tuple[str, int]
"""A file (relative to SOURCES) and a line."""


@dataclass
class Crash:
    rule: str | None
    meeting: Line | None
    made: Line | None
    devices: tuple[str, str]

    def lines(self) -> set[Line]:
        return {line for line in (self.meeting, self.made) if line is not None}


@dataclass
class Outcome:
    """What happened to one model type."""

    model_type: str
    stage: str  # "config", "build", "inputs", "run" (failed there) or "ran"
    reason: str = ""
    crashes: list[Crash] = field(default_factory=list)
    built_lines: set[Line] = field(default_factory=set)
    ran_lines: set[Line] = field(default_factory=set)


# Building ---------------------------------------------------------------------------------


def model_types() -> list[tuple[str, str]]:
    """(model type, base model class name) for every type of ``AutoModel``'s mapping."""
    found = []
    for model_type, names in modeling_auto.MODEL_MAPPING_NAMES.items():
        name = names if isinstance(names, str) else names[0]
        if model_type in configuration_auto.CONFIG_MAPPING_NAMES:
            found.append((model_type, name))
    return found


def small(config: Any, training: bool = False, seen: set[int] | None = None) -> Any:
    """``config`` (and its sub-configs) with at most two layers, MoE experts run eagerly.

    In training mode, LayerDrop is switched on (it is 0 by default) so that its code runs.
    """
    seen = set() if seen is None else seen
    if id(config) in seen:
        return config
    seen.add(id(config))
    config._experts_implementation = "eager"  # grouped_mm wants bf16 on a CPU build
    for key, value in list(vars(config).items()):
        if isinstance(value, transformers.PretrainedConfig):
            small(value, training, seen)
        elif training and "layerdrop" in key and isinstance(value, float):
            setattr(config, key, 0.5)
        elif key in LAYER_KEYS and isinstance(value, int) and value > 2:
            for other, listed in list(vars(config).items()):
                if isinstance(listed, list) and len(listed) == value:
                    setattr(config, other, listed[:2])  # per-layer settings (layer_types)
            setattr(config, key, 2)
    return config


def _setting(config: Any, *keys: str, default: Any) -> Any:
    for part in (
        config,
        getattr(config, "vision_config", None),
        getattr(config, "audio_config", None),
    ):
        for key in keys:
            value = getattr(part, key, None) if part is not None else None
            if value is not None:
                return value
    return default


def dummy_inputs(model: Any, config: Any) -> dict[str, torch.Tensor] | None:
    """Inputs for the model's main input (and ``decoder_input_ids``), or None if unknown."""
    name = model.main_input_name
    if name == "input_ids":
        inputs = {"input_ids": torch.ones(2, 8, dtype=torch.long)}
    elif name == "pixel_values":
        size = _setting(config, "image_size", default=224)
        size = size[-1] if isinstance(size, (list, tuple)) else size
        size = size.get("height", 224) if isinstance(size, dict) else size
        channels = _setting(config, "num_channels", default=3)
        inputs = {"pixel_values": torch.zeros(2, channels, size, size)}
    elif name == "input_values":
        inputs = {"input_values": torch.zeros(2, 16_000)}
    elif name == "input_features":
        bins = _setting(config, "num_mel_bins", "feature_size", default=80)
        inputs = {"input_features": torch.zeros(2, bins, 3000)}
    else:
        return None
    if "decoder_input_ids" in inspect.signature(model.forward).parameters:
        inputs["decoder_input_ids"] = torch.ones(2, 4, dtype=torch.long)
    return inputs


# Tracing ----------------------------------------------------------------------------------


class LineTrace:
    """The lines of the library that run while inside (``sys.settrace``, library files only)."""

    def __init__(self) -> None:
        self.lines: set[Line] = set()
        self._ours: dict[str, str | None] = {}

    def _relative(self, filename: str) -> str | None:
        if filename not in self._ours:
            path = Path(filename).resolve()
            inside = path.is_relative_to(LIBRARY)
            self._ours[filename] = str(path.relative_to(SOURCES)) if inside else None
        return self._ours[filename]

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        relative = self._relative(frame.f_code.co_filename)
        if relative is None:
            return None
        lines = self.lines

        def line(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                lines.add((relative, frame.f_lineno))
            return line

        lines.add((relative, frame.f_lineno))
        return line

    def __enter__(self) -> LineTrace:
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)


# Running one model ------------------------------------------------------------------------


class _Late(Exception):
    """The model took longer than SECONDS_PER_MODEL."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Late


def _relative(site: Any) -> Line | None:
    if site is None:
        return None
    path = Path(site.filename)
    inside = path.is_relative_to(SOURCES)
    return (str(path.relative_to(SOURCES)) if inside else str(path), site.lineno)


Job = tuple[str, str, bool]
"""Model type, base model class name, whether to run it in training mode."""


def run_one(job: Job) -> Outcome:
    """Build one model type on ``meta`` and run its forward through the oracle."""
    model_type, class_name, training = job
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS_PER_MODEL)
    try:
        return _run_one(model_type, class_name, training)
    except _Late:
        return Outcome(model_type, "run", f"over {SECONDS_PER_MODEL} s")
    finally:
        signal.alarm(0)


def _run_one(model_type: str, class_name: str, training: bool) -> Outcome:
    try:
        config = small(configuration_auto.CONFIG_MAPPING[model_type](), training)
        model_class = getattr(transformers, class_name)
    except Exception as error:  # the harness measures; any failure is a row
        return Outcome(model_type, "config", _reason(error))
    try:
        with LineTrace() as built, torch.device("meta"):
            model = model_class(config).train(training)
    except Exception as error:
        return Outcome(model_type, "build", _reason(error))
    outcome = Outcome(model_type, "run", built_lines=built.lines)
    inputs = dummy_inputs(model, config)
    if inputs is None:
        outcome.stage, outcome.reason = "inputs", f"main input {model.main_input_name}"
        return outcome
    watch = Watch(collect=True)
    with LineTrace() as ran:
        try:
            with torch.no_grad():
                run_watched(model, (), inputs, "forward", watch)
            outcome.stage = "ran"
        except Exception as error:
            outcome.reason = _reason(error)
    outcome.ran_lines = ran.lines
    outcome.crashes = [
        Crash(
            mix.rule,
            _relative(mix.meeting),
            _relative(mix.origin.site),
            mix.devices,
        )
        for mix in watch.found
    ]
    return outcome


def _reason(error: BaseException) -> str:
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first[:120]}"


def run_all(jobs: list[Job], workers: int) -> Iterator[Outcome]:
    """Each model in a forked worker (the parent has imported torch and transformers)."""
    if workers <= 1:
        yield from map(run_one, jobs)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(
        workers, initializer=torch.set_num_threads, initargs=(1,), maxtasksperchild=8
    ) as pool:
        yield from pool.imap_unordered(run_one, jobs)


# The static side --------------------------------------------------------------------------


def static_findings(paths: list[str], cache: Path) -> list[dict[str, Any]]:
    """``devlint check --select ALL`` on ``paths`` (relative to SOURCES), as JSON.

    The files are copied into a project of their own: named in place, each would be
    checked with its whole project, which for site-packages may be every installed
    package (a ``.git`` above it, as pyenv's)."""
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "sources"
        for path in paths:
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(SOURCES / path, project / path)
        (project / "pyproject.toml").write_text(
            "[tool.devlint]\nexclude = []\nrespect-gitignore = false\n"
        )
        command = [sys.executable, "-m", "devlint", "check", "--select", "ALL"]
        command += ["--output-format", "json", "--exit-zero"]
        command += ["--cache-dir", str(cache), *paths]
        done = subprocess.run(
            command,
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        )
    if done.returncode != 0:
        raise SystemExit(f"devlint check failed ({done.returncode}): {done.stderr[-2000:]}")
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


# Comparing --------------------------------------------------------------------------------


@dataclass
class Comparison:
    outcomes: list[Outcome]
    findings: list[dict[str, Any]]
    seconds: float

    def __post_init__(self) -> None:
        self.at: dict[Line, list[dict[str, Any]]] = {}
        for finding in self.findings:
            key = (finding["filename"], finding["location"]["row"])
            self.at.setdefault(key, []).append(finding)
        self.sites: dict[tuple[Any, ...], set[str]] = {}
        for outcome in self.outcomes:
            for crash in outcome.crashes:
                key = (crash.rule, crash.meeting, crash.made, crash.devices)
                self.sites.setdefault(key, set()).add(outcome.model_type)
        self.ran_lines = set().union(*(o.ran_lines for o in self.outcomes))
        self.built_lines = set().union(*(o.built_lines for o in self.outcomes))
        self.crash_lines = set().union(*(Crash(*key).lines() for key in self.sites))

    def missed(self) -> list[tuple[tuple[Any, ...], set[str]]]:
        """Crashes with no static finding at the meeting line or where the tensor was made."""
        return [
            (key, types)
            for key, types in sorted(self.sites.items(), key=str)
            if not any(line in self.at for line in Crash(*key).lines())
        ]

    def executed_meeting_findings(self) -> list[dict[str, Any]]:
        found = []
        for finding in self.findings:
            key = (finding["filename"], finding["location"]["row"])
            ran = self.built_lines if finding["code"] == "DEV007" else self.ran_lines
            if finding["code"] in MEETING_RULES and key in ran:
                found.append(finding)
        return found

    def alarms(self) -> list[dict[str, Any]]:
        """Meeting-kind findings on lines that ran, where the oracle saw no crash."""
        return [
            finding
            for finding in self.executed_meeting_findings()
            if (finding["filename"], finding["location"]["row"]) not in self.crash_lines
        ]

    def table(self) -> str:
        stages = Counter(o.stage for o in self.outcomes)
        tried = len(self.outcomes)
        built = tried - stages["config"] - stages["build"]
        crashed_types = {t for types in self.sites.values() for t in types}
        executed = self.executed_meeting_findings()
        meeting = [f for f in self.findings if f["code"] in MEETING_RULES]
        covered = len(self.sites) - len(self.missed())
        confirmed = len(executed) - len(self.alarms())
        rows = [
            ("architectures tried", str(tried)),
            ("built (on meta)", str(built)),
            ("ran (forward finished)", str(stages["ran"])),
            ("oracle crash sites", f"{len(self.sites)} in {len(crashed_types)} architectures"),
            ("static findings (all rules)", str(len(self.findings))),
            ("  of the meeting kinds", str(len(meeting))),
            ("  of those on lines that ran", str(len(executed))),
            ("recall: crash sites with a finding", f"{covered}/{len(self.sites)}"),
            ("precision: executed findings that crashed", f"{confirmed}/{len(executed)}"),
            ("seconds", f"{self.seconds:.0f}"),
        ]
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)

    def report(self) -> str:
        lines = [self.table(), ""]
        lines.append("Crashes without a static finding (recall):")
        for (rule, meeting, made, devices), types in self.missed():
            lines.append(
                f"  met at {_line(meeting)}, made at {_line(made)}: {devices[0]} and "
                f"{devices[1]}, rule {rule or '-'} [{', '.join(sorted(types))}]"
            )
        lines.append("Findings on lines that ran, without a crash (precision):")
        for finding in self.alarms():
            lines.append(
                f"  {finding['filename']}:{finding['location']['row']}: {finding['code']} "
                f"{finding['message']}"
            )
        failed = Counter(
            f"{o.stage}: {o.reason.partition(':')[0]}" for o in self.outcomes if o.stage != "ran"
        )
        lines.append("Why the others did not run to the end:")
        lines.extend(f"  {count:4}  {why}" for why, count in failed.most_common())
        return "\n".join(lines)


def _to_json(outcome: Outcome) -> str:
    data = asdict(outcome)
    data["built_lines"] = sorted(outcome.built_lines)
    data["ran_lines"] = sorted(outcome.ran_lines)
    return json.dumps(data)


def _from_json(text: str) -> Outcome:
    data = json.loads(text)

    def line(value: list[Any] | None) -> Line | None:
        return None if value is None else (value[0], value[1])

    crashes = [
        Crash(c["rule"], line(c["meeting"]), line(c["made"]), tuple(c["devices"]))
        for c in data.pop("crashes")
    ]
    built = {(f, n) for f, n in data.pop("built_lines")}
    ran = {(f, n) for f, n in data.pop("ran_lines")}
    return Outcome(**data, crashes=crashes, built_lines=built, ran_lines=ran)


def recorded(path: Path | None) -> dict[str, Outcome]:
    """The outcomes a previous run wrote to ``--record`` (its model types are not run again)."""
    if path is None or not path.exists():
        return {}
    outcomes = [_from_json(line) for line in path.read_text().splitlines() if line.strip()]
    return {outcome.model_type: outcome for outcome in outcomes}


def _line(line: Line | None) -> str:
    return "?" if line is None else f"{line[0]}:{line[1]}"


def main(argv: list[str] | None = None) -> Comparison:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="the first N model types (0: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", nargs="*", default=None, help="these model types")
    parser.add_argument(
        "--static-scope",
        choices=("package", "executed"),
        default="package",
        help="check all of transformers (cached between runs) or only the files that ran",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "devlint-oracle-cache",
        help="devlint's cache for the static check",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="append each outcome to this file; model types already in it are not run again",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="run the forward in training mode (dropout, LayerDrop: paths eval mode skips)",
    )
    options = parser.parse_args(argv)
    jobs = [(model_type, name, options.train) for model_type, name in model_types()]
    if options.only is not None:
        jobs = [job for job in jobs if job[0] in options.only]
    if options.limit:
        jobs = jobs[: options.limit]
    started = time.perf_counter()
    done = recorded(options.record)
    outcomes = [done[job[0]] for job in jobs if job[0] in done]
    for outcome in run_all([job for job in jobs if job[0] not in done], options.jobs):
        outcomes.append(outcome)
        progress = f"{len(outcomes):4}/{len(jobs)} {outcome.model_type}: {outcome.stage}"
        print(progress, file=sys.stderr)
        if options.record is not None:
            with options.record.open("a") as record:
                record.write(_to_json(outcome) + "\n")
    outcomes.sort(key=lambda o: o.model_type)
    if options.static_scope == "package":
        paths = [LIBRARY.name]
    else:
        paths = sorted({f for o in outcomes for f, _ in o.ran_lines | o.built_lines})
    findings = static_findings(paths, options.cache_dir) if paths else []
    comparison = Comparison(outcomes, findings, time.perf_counter() - started)
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    print(comparison.report())
    return comparison


if __name__ == "__main__":
    main()
