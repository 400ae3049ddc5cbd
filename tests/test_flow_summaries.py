"""Flow summaries carry the device flow across files: CPU tensors handed to a helper of
another file, returned to a caller in another file, or passed through one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from conftest import lint_project

from devlint import runner
from devlint.analysis import FileAnalysis, FileJob, analyze_bytes
from devlint.facts import FlowSummary
from devlint.flow.cache import FileFlows
from devlint.flow.summary import summarise

HELPERS = """\
import torch


def weighted(logits: torch.Tensor, targets: torch.Tensor, alpha: torch.Tensor):
    return alpha[targets] * logits


def weighted_after_move(logits: torch.Tensor, alpha: torch.Tensor):
    alpha = alpha.to(logits.device)
    return alpha * logits


def doubled(t: torch.Tensor):
    return t * 2


def ones_like_rows(x: torch.Tensor):
    return torch.ones(x.size(0))


def placed(t: torch.Tensor, over_gpu: bool):
    return t.cuda() if over_gpu else t


def moves_arguments(function):
    return function


@moves_arguments
def wrapped(logits: torch.Tensor, alpha: torch.Tensor):
    return alpha * logits
"""


def test_summary_says_what_parameters_meet_and_what_the_result_follows() -> None:
    module = cst.parse_module(HELPERS)
    flows = FileFlows(lambda: module, lambda node: None)
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    summaries = [summarise(flows.function(f, None), f"pkg.{f.name.value}") for f in functions]
    assert summaries == [
        FlowSummary(
            "pkg.weighted",
            ("logits", "targets", "alpha"),
            # A CPU index into the device `alpha` is legal: `targets` reaches no meeting.
            (("alpha", ("logits", "targets")), ("logits", ("alpha",))),
            ("alpha", "logits"),  # an index does not give the result its device
        ),
        # Moved to the logits' device first: it meets nothing but the logits' device.
        FlowSummary("pkg.weighted_after_move", ("logits", "alpha"), (), ("logits",)),
        FlowSummary("pkg.doubled", ("t",), (), ("t",)),
        FlowSummary("pkg.ones_like_rows", ("x",), (), ()),
        # Moved on one path, as it was on the other: the helper places it, its result
        # does not follow the tensor a caller passes.
        FlowSummary("pkg.placed", ("t", "over_gpu"), (), ()),
        FlowSummary("pkg.moves_arguments", ("function",), (), ()),
        # A decorator that is not known to pass the arguments on as they are may move
        # them first: no parameter meets anything a caller passes.
        FlowSummary("pkg.wrapped", ("logits", "alpha"), (), ("alpha", "logits")),
    ]


MODEL = """\
import torch
from torch import nn

from pkg.helpers import doubled, ones_like_rows, placed, weighted, weighted_after_move, wrapped


class Model(nn.Module):
    def forward(self, x, labels):
        {body}
"""


def check(tmp_path: Path, body: str) -> list[tuple[str, int, int, str]]:
    model = MODEL.replace("{body}", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/model.py": model}
    project = lint_project(tmp_path, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column, f.message)
        for r in project.files
        for f in r.findings
    ]


def test_a_cpu_tensor_handed_to_a_helper_that_meets_it_with_the_device(tmp_path: Path) -> None:
    found = check(tmp_path, "return weighted(x, labels, torch.full((3,), 0.25))\n")
    assert found == [
        (
            "model.py",
            9,
            36,
            "`torch.full()` makes a CPU tensor that meets the computation's device in "
            "`weighted` (called at line 9); pass `device=x.device`",
        )
    ]


def test_no_finding_when_the_helper_moves_it_first(tmp_path: Path) -> None:
    assert check(tmp_path, "return weighted_after_move(x, torch.ones(3))\n") == []


def test_no_finding_when_what_it_meets_in_the_helper_is_on_the_cpu_too(tmp_path: Path) -> None:
    body = "return weighted(torch.zeros(3), torch.arange(3), torch.ones(3)).sum().item()\n"
    assert check(tmp_path, body) == []


def test_a_cpu_tensor_passed_through_a_helper_meets_the_device_here(tmp_path: Path) -> None:
    found = check(tmp_path, "return x + doubled(torch.arange(3))\n")
    assert [(name, row, column) for name, row, column, _ in found] == [("model.py", 9, 28)]


def test_no_finding_when_the_helper_places_what_it_returns(tmp_path: Path) -> None:
    assert check(tmp_path, "return x + placed(torch.arange(3), True)\n") == []


def test_no_finding_when_a_wrapper_may_move_the_arguments(tmp_path: Path) -> None:
    assert check(tmp_path, "return wrapped(x, torch.ones(3))\n") == []


def test_a_cpu_tensor_returned_to_a_caller_in_another_file(tmp_path: Path) -> None:
    found = check(tmp_path, "return x * ones_like_rows(x)[:, None]\n")
    assert found == [
        (
            "helpers.py",
            18,
            12,
            "`torch.ones()` makes a CPU tensor that meets the computation's device where "
            "callers of `ones_like_rows` in other files use it; pass `device=x.device`",
        )
    ]


def test_no_finding_when_the_caller_moves_the_result(tmp_path: Path) -> None:
    assert check(tmp_path, "return x * ones_like_rows(x).to(x.device)\n") == []


def test_a_test_meeting_a_helpers_result_is_no_caller_that_decides(tmp_path: Path) -> None:
    """A test checks a helper's result against what it likes (a tensor it is handed):
    that says nothing of where the library's own callers, which move it, use it."""
    model = MODEL.replace("{body}", "return x * ones_like_rows(x).to(x.device)")
    meets = (
        "import torch\nfrom pkg.helpers import ones_like_rows\n\n\n"
        "def test_rows(x: torch.Tensor):\n"
        "    assert (x * ones_like_rows(x)).sum() > 0\n"
    )
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/model.py": model}
    for path, expected in (("tests/test_rows.py", []), ("pkg/rows.py", [("helpers.py", 18)])):
        project = lint_project(
            tmp_path / path.replace("/", "_"), {**files, path: meets}, select=("DEV003",)
        )
        found = [(Path(r.display).name, f.start.row) for r in project.files for f in r.findings]
        assert found == expected, path


KEEPER = """\
import torch
from torch import nn

from pkg.helpers import doubled, weighted, weighted_after_move, wrapped


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = {made}

    def forward(self, x, labels):
        {body}
"""


def kept(tmp_path: Path, body: str, made: str = "torch.full((3,), 0.25)") -> list[tuple[int, str]]:
    """DEV007 in a module that keeps ``made`` as ``self.alpha`` and runs ``body``."""
    model = KEEPER.replace("{made}", made).replace("{body}", body)
    files = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/model.py": model}
    project = lint_project(tmp_path, files, select=("DEV007",))
    return [(f.start.row, f.message) for r in project.files for f in r.findings]


def test_a_kept_cpu_tensor_handed_to_a_helper_that_meets_it_with_the_device(
    tmp_path: Path,
) -> None:
    assert kept(tmp_path, "return weighted(x, labels, self.alpha)") == [
        (
            10,
            "`self.alpha` is a plain tensor attribute (made by `torch.full()`), not a buffer: "
            "moving the module leaves it behind, and it meets the device in `weighted()`, "
            'called at line 13; use `self.register_buffer("alpha", ..., persistent=False)` '
            "(buffers follow dtype casts such as `.half()`)",
        )
    ]


def test_a_kept_cpu_tensor_passed_through_a_helper_meets_the_device_here(
    tmp_path: Path,
) -> None:
    assert [row for row, _ in kept(tmp_path, "return x + doubled(self.alpha)")] == [10]


def test_no_finding_when_the_helper_moves_the_kept_tensor_or_may(tmp_path: Path) -> None:
    assert kept(tmp_path, "return weighted_after_move(x, self.alpha)") == []
    assert kept(tmp_path, "return wrapped(x, self.alpha)") == []
    assert kept(tmp_path, "return doubled(self.alpha).sum().item() * x") == []


def test_no_finding_for_a_kept_0_dim_tensor_handed_to_a_helper(tmp_path: Path) -> None:
    # Arithmetic takes a 0-dim CPU tensor: what the helper does with it decides.
    assert kept(tmp_path, "return weighted(x, labels, self.alpha)", "torch.tensor(0.25)") == []


CONVERT = """\
import numpy as np
import torch


def to_tensor(pic):
    return torch.as_tensor(np.array(pic))


def fit(a: torch.Tensor, b: torch.Tensor):
    if b is None:
        return torch.tensor(0.0), torch.ones(a.shape[0])
    return (a - b).square().sum(1), a.norm(dim=1)


def distances(words: list):
    found = [len(word) for word in words]
    return torch.tensor(found)
"""

USES = """\
import torch
from torch import nn

from pkg.convert import distances, fit, to_tensor


class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(2))

    def forward(self, pic, x):
        image = to_tensor(pic)
        weights = torch.rand(3, device=image.device)
        score = fit(x, x)
        self.total += distances(["a", "bc"]).sum()
        return weights * image + score
"""


def test_results_of_other_files_met_by_what_took_their_device_or_reduced(tmp_path: Path) -> None:
    """Weights made on the converted image's own device, a tuple returned whole, and a
    0-dim reduction of a callee's CPU tensor: nothing there can mix devices."""
    files = {"pkg/__init__.py": "", "pkg/convert.py": CONVERT, "pkg/uses.py": USES}
    project = lint_project(tmp_path, files, select=("DEV003",))
    assert [f for r in project.files for f in r.findings] == []


def test_the_same_results_met_by_device_tensors_are_found(tmp_path: Path) -> None:
    uses = USES.replace("device=image.device", "device=x.device").replace(
        'distances(["a", "bc"]).sum()', 'distances(["a", "bc"])'
    )
    files = {"pkg/__init__.py": "", "pkg/convert.py": CONVERT, "pkg/uses.py": uses}
    project = lint_project(tmp_path, files, select=("DEV003",))
    found = [(Path(r.display).name, f.start.row) for r in project.files for f in r.findings]
    assert found == [("convert.py", 6), ("convert.py", 17)]


TESTED = """\
import torch
from torch import nn


class Probe(nn.Module):
    def forward(self, x):
        return x + torch.arange(x.shape[-1])
"""


TESTED_ATTRIBUTE = """\
import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.tensor([1.0, 2.0])

    def forward(self, x):
        return x * self.w
"""


@pytest.mark.parametrize(
    ("code", "source", "line"),
    [("DEV003", TESTED, 7), ("DEV007", TESTED_ATTRIBUTE, 8)],
    ids=["DEV003", "DEV007"],
)
def test_no_finding_in_test_modules(tmp_path: Path, code: str, source: str, line: int) -> None:
    """A test places its tensors where it means to run (a module it defines runs where the
    test puts its inputs); the same code in the package is reported."""
    files = {"pkg/__init__.py": "", "pkg/probe.py": source, "tests/test_probe.py": source}
    project = lint_project(tmp_path, files, select=(code,))
    found = [(Path(r.display).name, f.start.row) for r in project.files for f in r.findings]
    assert found == [("probe.py", line)]


MOVER = """\
def cast(x, dtype=None):
    return x if dtype is None else x.type(dtype)


def to_device(x, tensor, dtype=None):
    if x.device != tensor.device:
        x = x.to(tensor.device)
    return cast(x, dtype)
"""

LOSS = """\
import torch
from torch import nn

from pkg.mover import cast, to_device


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.loss(x, {passed}(torch.arange(x.shape[0]), {given}))
"""


def test_a_helper_of_another_file_that_moves_its_argument_then_casts_it(tmp_path: Path) -> None:
    """What a helper of the same file returns is in the caller's terms: ``cast(x)`` after
    ``x`` moved to ``tensor.device`` follows ``tensor``, not the ``x`` it was given."""
    module = cst.parse_module(MOVER)
    flows = FileFlows(lambda: module, lambda node: None)
    mover = module.body[1]
    assert isinstance(mover, cst.FunctionDef)
    summary = summarise(flows.function(mover, None), "pkg.mover.to_device")
    assert summary.returns == ("tensor",)
    for passed, given, expected in (("to_device", "x", []), ("cast", "None", [13])):
        loss = LOSS.replace("{passed}", passed).replace("{given}", given)
        files = {"pkg/__init__.py": "", "pkg/mover.py": MOVER, "pkg/loss.py": loss}
        project = lint_project(tmp_path / passed, files, select=("DEV003",))
        assert [f.start.row for r in project.files for f in r.findings] == expected


PLACED_OR_GIVEN = """\
import torch


def placed(t: torch.Tensor, over_gpu: bool):
    return t.cuda() if over_gpu else t


def either(t: torch.Tensor, u: torch.Tensor, over_gpu: bool, first: bool):
    return placed(u, over_gpu) if first else t
"""


def test_the_parameters_a_helper_places_are_named_in_the_callers_terms() -> None:
    """``placed`` moves its own ``t`` on one path; called with ``u``, that is the caller's
    ``u``, not the caller's ``t``, which ``either`` still returns as it was given."""
    module = cst.parse_module(PLACED_OR_GIVEN)
    flows = FileFlows(lambda: module, lambda node: None)
    either = module.body[-1]
    assert isinstance(either, cst.FunctionDef)
    assert summarise(flows.function(either, None), "pkg.either").returns == ("t",)


JOIN = """\
import torch


def joined(a: torch.Tensor, b: torch.Tensor):
    return torch.cat([a, b])
"""

RELAY = """\
import torch

from pkg.join import joined


def relayed(a: torch.Tensor, b: torch.Tensor):
    return joined(a, b)


def relayed_twice(a: torch.Tensor, b: torch.Tensor):
    return relayed(a.float(), b)


def with_itself(a: torch.Tensor, b: torch.Tensor):
    return joined(a, a) * 2, b


def placed_together(a: torch.Tensor, b: torch.Tensor, device: torch.device):
    if a.numel() > 100:
        a = a.to(device)
        b = b.to(device)
    return together(a, b)


def together(a: torch.Tensor, b: torch.Tensor):
    return a @ b
"""

CALLER = """\
import torch

from pkg.relay import placed_together, relayed, relayed_twice, with_itself


class Runner:
    def __init__(self, model):
        self.model = model

    def run(self, x):
        {body}
"""


def test_a_summary_names_the_other_files_functions_a_parameter_is_handed_to() -> None:
    module = cst.parse_module(RELAY)

    def resolve(node: cst.CSTNode) -> str | None:
        return "pkg.join.joined" if isinstance(node, cst.Name) and node.value == "joined" else None

    flows = FileFlows(lambda: module, resolve)
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    summaries = {f.name.value: summarise(flows.function(f, None), f.name.value) for f in functions}
    assert summaries["relayed"].meets_via == (
        ("pkg.join.joined", 0, "a", ((1, "b"),)),
        ("pkg.join.joined", 1, "b", ((0, "a"),)),
    )
    # Through a function of the same file, in the caller's own parameters.
    assert summaries["relayed_twice"].meets_via == summaries["relayed"].meets_via
    # Handed on beside itself only: nothing else it could meet there.
    assert summaries["with_itself"].meets_via == ()


def relay(tmp_path: Path, body: str) -> list[tuple[str, int, int, str]]:
    caller = CALLER.replace("{body}", body)
    files = {
        "pkg/__init__.py": "",
        "pkg/join.py": JOIN,
        "pkg/relay.py": RELAY,
        "pkg/run.py": caller,
    }
    project = lint_project(tmp_path, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column, f.message)
        for r in project.files
        for f in r.findings
    ]


def test_a_cpu_tensor_meets_the_device_two_files_away(tmp_path: Path) -> None:
    assert relay(tmp_path, "return relayed(torch.zeros(3), x)") == [
        (
            "run.py",
            11,
            24,
            "`torch.zeros()` makes a CPU tensor that meets the computation's device in "
            "`relayed` (called at line 11); pass `device=x.device`",
        )
    ]


def test_a_cpu_tensor_meets_the_device_through_a_helper_of_the_other_file(tmp_path: Path) -> None:
    found = relay(tmp_path, "return relayed_twice(torch.zeros(3), x)")
    assert [(name, row, column) for name, row, column, _ in found] == [("run.py", 11, 30)]


def test_no_finding_where_it_meets_only_itself_or_cpu_tensors_there(tmp_path: Path) -> None:
    assert relay(tmp_path, "return with_itself(torch.zeros(3), x)") == []
    assert relay(tmp_path, "return relayed(torch.zeros(3), torch.ones(3))") == []


def test_no_finding_where_a_helper_moves_both_tensors_to_the_device_it_is_given(
    tmp_path: Path,
) -> None:
    """Both follow ``device`` on one path: they meet each other there, not ``device``."""
    assert relay(tmp_path, "return placed_together(torch.zeros(3), torch.ones(3), x.device)") == []


GENERATORS = """\
import torch


def shifts(n: int):
    for i in range(n):
        yield torch.full((4,), float(i))


def placed_shifts(x: torch.Tensor, n: int):
    for i in range(n):
        yield torch.full((4,), float(i), device=x.device)


def rows(t: torch.Tensor):
    yield from t
"""

LOOP = """\
import torch
from torch import nn

from pkg.generators import placed_shifts, rows, shifts


class Net(nn.Module):
    def forward(self, x):
        for item in {iterated}:
            x = x + item
        return x
"""


def iterate(tmp_path: Path, iterated: str) -> list[tuple[str, int, int, str]]:
    files = {
        "pkg/__init__.py": "",
        "pkg/generators.py": GENERATORS,
        "pkg/model.py": LOOP.replace("{iterated}", iterated),
    }
    project = lint_project(tmp_path, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column, f.message)
        for r in project.files
        for f in r.findings
    ]


def test_what_a_generator_of_another_file_yields_meets_the_device_in_the_loop(
    tmp_path: Path,
) -> None:
    """A generator's results are what it yields: its callers iterate over them."""
    assert iterate(tmp_path, "shifts(3)") == [
        (
            "generators.py",
            6,
            15,
            "`torch.full()` makes a CPU tensor that meets the computation's device where "
            "callers of `shifts` in other files use it; create it on the device of a tensor "
            "it meets",
        )
    ]


def test_a_cpu_tensor_passed_through_a_generator_meets_the_device_here(tmp_path: Path) -> None:
    found = iterate(tmp_path, "rows(torch.zeros(2, 4))")
    assert [(name, row, column) for name, row, column, _ in found] == [("model.py", 9, 26)]


def test_no_finding_for_a_generator_that_yields_on_the_device(tmp_path: Path) -> None:
    assert iterate(tmp_path, "placed_shifts(x, 3)") == []


CHECKED = """\
import torch


def checked(preds: torch.Tensor, target: torch.Tensor):
    return preds.float(), target.long()


def on_host(preds: torch.Tensor, target: torch.Tensor):
    return preds, target.cpu()


def curve(preds: torch.Tensor, target: torch.Tensor):
    order = torch.argsort(preds)
    return target[order]
"""

CURVES = """\
import torch

from pkg.checks import checked, curve, on_host


def unpacked(preds: torch.Tensor, target: torch.Tensor):
    preds, target = checked(preds, target)
    return curve(preds, target)


def _update(preds: torch.Tensor, target: torch.Tensor):
    return checked(preds, target)


def _compute(preds: torch.Tensor, target: torch.Tensor):
    return curve(preds, target)


def through_the_file(preds: torch.Tensor, target: torch.Tensor):
    preds, target = _update(preds, target)
    return _compute(preds, target)


def moved_to_the_host(preds: torch.Tensor, target: torch.Tensor):
    preds, target = on_host(preds, target)
    return curve(preds, target)
"""

SCORE = """\
import torch
from torch import nn

from pkg.curves import moved_to_the_host, through_the_file, unpacked


class Score(nn.Module):
    def forward(self, x, y):
        return {call}(x, torch.zeros(len(y), dtype=torch.long))
"""


def handed_back(tmp_path: Path, call: str) -> list[tuple[str, int, int, str]]:
    files = {
        "pkg/__init__.py": "",
        "pkg/checks.py": CHECKED,
        "pkg/curves.py": CURVES,
        "pkg/score.py": SCORE.replace("{call}", call),
    }
    project = lint_project(tmp_path, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column, f.message)
        for r in project.files
        for f in r.findings
    ]


def test_elements_another_files_function_gives_back_are_what_it_was_given(tmp_path: Path) -> None:
    """``a, b = checked(a, b)``: the summary says each element follows its argument, so
    handing them on to ``curve`` (another file), where ``b`` is indexed by ``a``'s device
    order, is handing on the caller's tensors."""
    assert handed_back(tmp_path, "unpacked") == [
        (
            "score.py",
            9,
            28,
            "`torch.zeros()` makes a CPU tensor that meets the computation's device in "
            "`unpacked` (called at line 9); pass `device=x.device`",
        )
    ]


def test_a_function_of_the_file_returning_another_files_result_is_that_call(
    tmp_path: Path,
) -> None:
    """``_update`` returns ``checked(...)`` whole: unpacking it is unpacking that call."""
    found = handed_back(tmp_path, "through_the_file")
    assert [(name, row, column) for name, row, column, _ in found] == [("score.py", 9, 36)]


def test_no_finding_where_the_element_given_back_is_not_the_argument(tmp_path: Path) -> None:
    assert handed_back(tmp_path, "moved_to_the_host") == []


PLACED_BY_ITS_CALLER = """\
import torch
from torch import nn


class Block(nn.Module):
    def mask(self, size):
        return torch.zeros(size)

    def forward(self, x):
        return x + self.mask(x.shape[-1]).to(x.device)
"""


def test_a_file_whose_own_code_shows_where_a_result_meets_the_device_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mask`` returns a CPU tensor: whether it meets the device is up to its callers, here
    in the same file. The walk that found the candidate followed them already, so the pass
    asking the file for it does not parse it again, and adds the facts a second walk
    would."""
    parsed: list[str] = []

    def counted(job: FileJob, data: bytes) -> FileAnalysis:
        analysis = analyze_bytes(job, data)
        parsed.extend([job.module] if analysis.parsed else [])
        return analysis

    monkeypatch.setattr(runner, "analyze_bytes", counted)
    files = {"pkg/__init__.py": "", "pkg/block.py": PLACED_BY_ITS_CALLER}
    project = lint_project(tmp_path, files, select=("DEV003",))
    block = project.files[1]
    assert parsed == ["pkg.block"]
    assert block.job.settings.flow_results == {"mask"}  # asked, and answered without a walk
    assert block.analysis == analyze_bytes(block.job, PLACED_BY_ITS_CALLER.encode())
    assert block.findings == []


GRID = """\
import torch


def make_grid(size, type):
    return torch.arange(size).type(type)
"""

GRID_USER = """\
from torch import nn

from pkg.grid import make_grid


class Head(nn.Module):
    def forward(self, x):
        return x - make_grid(x.shape[1], x.type())
"""


def test_a_tensor_converted_to_the_type_a_caller_gives_is_not_on_the_cpu_there(
    tmp_path: Path,
) -> None:
    """Converted to the type its parameter gives, the tensor is where the caller's type
    says (``x.type()``: where ``x`` is): no caller in another file is told it is on the
    CPU."""
    files = {"pkg/__init__.py": "", "pkg/grid.py": GRID, "pkg/model.py": GRID_USER}
    project = lint_project(tmp_path, files, select=("DEV003",))
    assert [f for r in project.files for f in r.findings] == []
