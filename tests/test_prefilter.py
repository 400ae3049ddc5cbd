"""The prefilter changes how fast devlint is, never what it finds.

It skips libcst for files where no rule that runs has a trigger, and takes their
facts from ``ast``. Three things make that exact, each tested here: every
rule's trigger list and screen are complete (on every fixture and rule example), the ``ast``
skeleton equals the traversal's structural facts (there, and on generated
programs), and whole runs find the same with and without the prefilter.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
from click.testing import CliRunner
from conftest import FIXTURES, lint_project, lint_snippet
from hypothesis import HealthCheck, given, settings

from devlint.analysis import FileJob, _identifiers_as_written, analyze_text
from devlint.candidates import Candidate, ScopeInfo
from devlint.cli import main
from devlint.engine import fix_file
from devlint.facts import (
    DeviceOption,
    FileFacts,
    FirstChosenGpuCurrent,
    FixedCurrentGpu,
    ReturnedOutput,
)
from devlint.index import ProjectIndex
from devlint.notebook import decode_file
from devlint.other_devices import (
    ANOTHER_DEVICE,
    ANOTHER_GPU,
    CPU_BY_NAME,
    DEVICE_GIVEN,
    RUNS_ON_IMPORT,
    RUNS_WHEN_RUN,
)
from devlint.prefilter import occurs
from devlint.rules import all_rules
from devlint.rules.base import Rule, RuleSettings, Sighting
from devlint.skeleton import Skeleton, skeleton
from devlint.traversal import Traversal

RULES = [rule for rule in all_rules() if rule.node_types]
REFERENCES = [rule for rule in RULES if rule.records_references]
EVERYTHING = RuleSettings(processor_outputs=True)
SCREENED = {kind for rule in RULES for kind in rule.screen_types}


def _sources() -> Iterator[tuple[str, str]]:
    """Every fixture file and every rule example, with a name for the test ids."""
    for path in sorted(FIXTURES.rglob("*.py")):
        text = decode_file(path, path.read_bytes()).text
        yield str(path.relative_to(FIXTURES)), text
    for rule in RULES:
        for number, valid in enumerate(rule.VALID):
            yield f"{rule.code}-valid-{number}", valid
        for number, invalid in enumerate(rule.INVALID):
            yield f"{rule.code}-invalid-{number}", invalid.code


TRICKY = (
    # Devices spelt with escapes, concatenations and f-strings: the two walks read each
    # string the other way and must agree on what the module offers (other_devices).
    'import os\nrank = int(os.environ["LOCAL_RANK"])\ndevice = "cuda:" f"{rank}"\n'
    'device = ("cp"\n          "u")\ndevice = "cpu\\n".strip()\ndevice = f"cpu\\n".strip()\n'
    'p.add_argument("--devic\\x65")\nx = torch.load("a", map_location=lambda s, l: s.cuda(1))\n'
    'def f(x):\n    """cpu"""\n    "cpu"\n    return x\nassert torch.cuda.is_available()\n'
    'y = x.to("cpu").numpy()\nz = net.to("cpu").eval()\n',
    # A one-line class body after a backslash: libcst sees no `device` attribute.
    "import torch.nn as nn\nclass Base(nn.Module): \\\n    device = None\n",
    # A name an import inside a function binds for the module's own code (DEV010).
    "def _bind():\n    global make\n    from torch import device as make\n\n"
    "_bind()\nGPU = make(0)\n",
    'if __name__ == "__main__":\n    main(run, *args, key=value)\nelse:\n    other()\n',
    # A name imported, used in a device position, then bound again by a `def` (DEV010
    # sees the import's name there, the skeleton's last binding is the function).
    "import torch.nn as nn\nfrom cfg import DEVICE\n\nclass M(nn.Module):\n"
    "    def forward(self, x):\n        return x.to(DEVICE)\n\ndef DEVICE():\n    pass\n",
    # Module-level alias assignments bind names as imports do, in both walks.
    "import torch\nModule = torch.nn.Module\nzeros = torch.zeros\n\nclass M(Module):\n"
    "    def forward(self, x):\n        return x + zeros(3)\n\nzeros = None\n",
    # Methods bound by `partial` for later, and to hand to `apply` (not kept).
    "import functools\nfrom functools import partial\nimport torch.nn as nn\n\n"
    "class M(nn.Module):\n    def __init__(self):\n"
    "        self.a = partial(self.pad, 2)\n        self.b = functools.partial(self.other)\n"
    "        self.apply(partial(self.init))\n        named_apply(partial(self.init2), self)\n"
    "        p = partial(*fns)\n        q = partial(self.x.y)\n        r = partial(f=self.g)\n",
    # Moves to a told device, of a value built at once too; literal devices are not told.
    "from nets import Net, Other, Third\n\n"
    "def build(conf, device, rank):\n    net = Net(conf).eval().to(device)\n"
    '    net.cuda(rank)\n    net.to("cuda")\n    net.to("cu" "da")\n    net.cuda()\n'
    "    return Other(conf).to(device=device), Third().to(f'cuda:{rank}')\n",
    # Characters NFKC changes, in a comment and strings only (the identifiers agree).
    'import torch  # \ufb01ne\nGPU = torch.device("\uff43uda")\n'
    'x = torch.zeros(3, device="\ufb01")\n',
    # Kernel sources as ast reads them: concatenated whole, none inside an f-string.
    "from torch.utils.cpp_extension import load\n"
    'ops = load(name="ops", sources=["render.cpp", "render_kernel.c" "u"])\n',
    "from torch.utils.cpp_extension import load\n"
    'ops = load(name="ops", sources=[f"{\'render_kernel.cu\'}", "a.c" f"u"])\n',
    # Extension modules declared in a function too, by keyword, by a concatenated name,
    # not by a star argument nor an f-string; sources for the CPU too.
    "from torch.utils.cpp_extension import CUDAExtension as CE\n"
    "def exts(a):\n"
    '    return [CE("pkg._a", ["a.cpp", "a.cu"]), CE(name="_b" "x", sources=["b.c" "u"]),\n'
    '            CE(*a, "b.cu"), CE(f"_c", ["c.cu"]), CE("_d", ["d_cpu.cpp", "d.cu"])]\n',
    # What offers only the CPU, and what a GPU of the user's choice.
    'import torch\np.add_argument("--no-cuda")\np.add_argument("--use_cpu")\n'
    'd = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
    'import torch\np.add_argument("--gpu_ids")\nd = torch.device(args.device)\n',
    'import torch\nd = torch.device("cuda", 1)\ne = torch.device("cpu")\nx.cuda(2)\n',
    'import torch\nd = torch.device("cuda" if a else "cp" "u")\n',
    'import torch\nd = torch.device("cuda" if a else "c" f"pu")\n',
    'import torch\nd = torch.device(*args)\ne = torch.device(cfg["device"])\n',
    'import torch\nd = torch.device(type="cuda", index=rank)\n',
    # Only what every import of the module runs loads or compiles: not under try/if, nor
    # in a lambda.
    "import torch\nfrom torch.utils.cpp_extension import load\nimport knn_cuda, pkg.x_cuda\n"
    "from . import ops_cuda\ntry:\n    import fast_cuda\nexcept ImportError:\n"
    "    fast_cuda = None\nif torch.cuda.is_available():\n"
    '    ops = load(name="ops", sources=["a.cu"])\n'
    'build = lambda: load(name="ops", sources=["b.cu"])\n',
    # Process groups: backends concatenated as ast reads them (split too), attributes on
    # `self` or another object, by `setattr`, as class fields, and None where an object
    # starts with it (not where a method resets it).
    "import torch.distributed as dist\nfrom dataclasses import dataclass\n\n"
    "@dataclass\nclass Params:\n    group: object = None\n    other: int\n\n"
    "class Comm:\n    def __init__(self, ranks, backend):\n        self.idle = None\n"
    '        self.a = dist.new_group(ranks, backend="cpu:gloo," "cuda:nccl")\n'
    '        self.b = dist.new_group(ranks, "gl" "oo")\n'
    '        self.c, self.d = dist.new_group(ranks, backend=b"gloo"), None\n'
    '        self.e = dist.new_group(ranks, backend=f"gloo")\n'
    "        self.f = dist.new_group(ranks, backend=backend)\n"
    '        setattr(self, "g", self.a)\n        holder.h = dist.new_group(backend="gloo")\n\n'
    "    def close(self):\n        self.a = None\n",
)
SOURCES = [*_sources(), *((f"tricky-{n}", text) for n, text in enumerate(TRICKY))]


def _parse(text: str) -> tuple[ast.Module, cst.Module] | None:
    if not _identifiers_as_written(text):
        return None  # ast normalises identifiers, libcst does not: such files are not skipped
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text), cst.parse_module(text)
    except (SyntaxError, cst.ParserSyntaxError, RecursionError, ValueError):
        return None


def _traversal_facts(module: cst.Module, text: str, rules: list[Rule]) -> FileFacts:
    traversal = Traversal(
        module, "pkg.mod", False, rules, text=text, path="pkg/mod.py", settings=EVERYTHING
    )
    return traversal.run().facts


def _assert_same_structure(text: str) -> None:
    parsed = _parse(text)
    if parsed is None:
        return
    tree, module = parsed
    for rules in ([], REFERENCES):
        expected = _traversal_facts(module, text, rules)
        found = skeleton(tree, text, "pkg.mod", False, "pkg/mod.py", references=bool(rules))
        assert found.facts.aliases == expected.aliases
        assert found.facts.classes == expected.classes
        assert found.facts.functions == expected.functions
        assert found.facts.top_level_calls == expected.top_level_calls
        assert found.facts.compiled_for == expected.compiled_for
        assert found.facts.declared_extensions == expected.declared_extensions
        assert found.facts.loads == expected.loads
        assert found.facts.exports == expected.exports
        assert found.facts.gloo_calls == expected.gloo_calls
        assert found.facts.backend_parameters == expected.backend_parameters
        assert found.facts.assigned_attributes == expected.assigned_attributes
        assert found.facts.offering_places == expected.offering_places
        assert found.facts.option_places == expected.option_places
        assert found.facts.gpu_choices == expected.gpu_choices
        assert found.facts.gpu_default == expected.gpu_default
        assert found.facts.starts_loader_workers == expected.starts_loader_workers
        assert found.facts.builds_loaders == expected.builds_loaders
        assert found.facts.loader_builders == expected.loader_builders
        assert found.facts.main_block == expected.main_block
        # A GPU set by a constant, or as the first of a list, needs no skeleton: DEV009's
        # screen passes wherever one is (the next test checks it), so libcst walks every
        # file that holds one.
        current = (FixedCurrentGpu, FirstChosenGpuCurrent)
        wanted = [fact for fact in expected.facts if not isinstance(fact, current)]
        assert Counter(found.facts.facts) == Counter(wanted)  # order means nothing


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[name for name, _ in SOURCES])
def test_the_ast_skeleton_equals_the_traversal_facts(name: str, text: str) -> None:
    _assert_same_structure(text)


def _both_walks(text: str) -> Skeleton:
    """The skeleton of ``text``, once both walks are found to agree on its facts."""
    _assert_same_structure(text)
    tree, _ = _parse(text) or (None, None)
    assert tree is not None
    return skeleton(tree, text, "pkg.mod", False, "pkg/mod.py", references=False)


_MAIN = 'if __name__ == "__main__":\n'
_CUDA_TYPE = 'set_default_tensor_type("torch.cuda.FloatTensor")\n'


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("import torch\n\ntorch." + _CUDA_TYPE, RUNS_ON_IMPORT),
        ("import torch as th\n\n" + _MAIN + "    th." + _CUDA_TYPE, RUNS_WHEN_RUN),
        (
            "from torch import set_default_tensor_type\n\n" + _MAIN + "    " + _CUDA_TYPE,
            RUNS_WHEN_RUN,
        ),
        ('import torch\n\ntorch.set_default_device("cuda:0")\n', RUNS_ON_IMPORT),
        ("import torch\n\n" + _MAIN + "    pass\nelse:\n    torch." + _CUDA_TYPE, ""),
        ("import torch\n\n" + _MAIN + "    if len(__file__) > 3:\n        torch." + _CUDA_TYPE, ""),
        ("import torch\n\n\ndef main():\n    torch." + _CUDA_TYPE, ""),
        ("import torch\n\nf = lambda: torch." + _CUDA_TYPE, ""),
        ("import torch\n\ntorch." + _CUDA_TYPE + "torch.set_default_device(device)\n", ""),
        ("import torch\n\ntorch.set_default_tensor_type(torch.DoubleTensor)\n", ""),
    ],
)
def test_both_walks_read_a_gpu_default_alike(text: str, when: str) -> None:
    """``FileFacts.gpu_default``: only a setter that surely runs (on import, or when the
    module runs as a program), and none setting another default."""
    found = _both_walks(text)
    assert found.facts.gpu_default == when


@pytest.mark.parametrize(
    ("call", "workers"),
    [
        ("DataLoader(data, batch_size=4)", False),
        ("DataLoader(data, num_workers=0)", False),
        ("DataLoader(data, num_workers=4)", True),
        ("DataLoader(data, num_workers=args.workers)", True),
        ("DataLoader(data, **options)", True),
        ("DataLoader(data, 4, True, None, None, 2)", True),
        ("build_dataloader(data, workers_per_gpu=2)", True),
        ("TrainingArguments(out, dataloader_num_workers=0)", False),
        ("make_batches(*data)", False),
    ],
)
def test_both_walks_read_loader_workers_alike(call: str, workers: bool) -> None:
    """``FileFacts.starts_loader_workers``: a keyword naming workers other than the literal
    0, or a loader given its options by unpacking or positionally."""
    text = f"from torch.utils.data import DataLoader\n\nloader = {call}\n"
    found = _both_walks(text)
    assert found.facts.starts_loader_workers is workers


@pytest.mark.parametrize(
    "visible",
    [
        'os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu\n',
        "environ['CUDA_VISIBLE_DEVICES'] = f'{args.gpu}'\n",
        'os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, args.gpu))\n',
        'os.environ["CUDA_DEVICE_ORDER"] = args.gpu\n',
        "os.environ[key] = args.gpu\n",
    ],
)
def test_both_walks_read_what_a_gpu_option_makes_visible(visible: str) -> None:
    text = (
        "import argparse\nimport os\nfrom os import environ\n\n"
        'args = argparse.ArgumentParser().add_argument("--gpu").parse_args()\n' + visible
    )
    _assert_same_structure(text)


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[name for name, _ in SOURCES])
def test_every_rule_has_a_trigger_and_passes_its_screen_where_it_reports_or_adds_a_fact(
    name: str, text: str
) -> None:
    parsed = _parse(text)
    if parsed is None:
        return
    tree, module = parsed
    found = skeleton(tree, text, "pkg.mod", False, "pkg/mod.py", references=False, collect=SCREENED)
    structural = Counter(_traversal_facts(module, text, REFERENCES).facts)
    index = ProjectIndex([])
    for rule in RULES:
        traversal = Traversal(
            module, "pkg.mod", False, [rule], text=text, path="pkg/mod.py", settings=EVERYTHING
        )
        outcome = traversal.run()
        # A function returning what another returns needs no trigger: the engine parses
        # the files naming functions that return processor output (see engine.py).
        own_facts = [
            fact
            for fact in (Counter(outcome.facts.facts) - structural).elements()
            if not (isinstance(fact, ReturnedOutput) and fact.via is not None)
        ]
        if outcome.candidates or own_facts:
            assert occurs(rule.file_triggers(EVERYTHING), found.code, "pkg"), rule.code
        if own_facts and rule.defers_to_index():
            assert rule.parse_anyway(found), rule.code
        if outcome.candidates or (own_facts and not rule.defers_to_index()):
            assert not rule.screen_types or rule.screen(found, EVERYTHING), rule.code
        sightings = rule.sightings(found, EVERYTHING)
        for candidate in outcome.candidates if sightings is not None else ():
            assert any(_places(s, candidate) for s in sightings), (rule.code, candidate.scope)
        # Outside model code only where the rule lets the file through whatever the index
        # knows (DEV003 in a file that calls a collective: its sightings say anywhere;
        # DEV001 where a function replaces its device parameter: it parses the file anyway).
        anywhere = (rule.defers_to_index() and rule.parse_anyway(found)) or (
            sightings is None and rule.may_report_in(outcome.facts, index, None)
        )
        for candidate in outcome.candidates if rule.only_in_model_code and not anywhere else ():
            # Outside model code a candidate is kept only where the index, asked before
            # parsing, says the rule may report (DEV003: a library function whose
            # tensors follow its inputs), or a skipped file would lose it.
            placing = (
                None
                if sightings is None
                else frozenset(s for s in sightings if _places(s, candidate))
            )
            for scope in OUTSIDE_MODEL_CODE:
                kept = rule.resolve(candidate, scope, index) is not None
                assert not kept or rule.may_report_in(found.facts, index, placing), (
                    rule.code,
                    scope,
                )


def _places(sighting: Sighting, candidate: Candidate) -> bool:
    """Whether the index judges the sighting as it judges the candidate: the same scope
    (``ProjectIndex.scope_info`` reads its names) and, if the sighting says, the same name."""
    seen, actual = sighting.scope, candidate.scope
    same_scope = (seen.class_name, seen.function_name, seen.method) == (
        actual.class_name,
        actual.function_name,
        actual.method,
    )
    return same_scope and sighting.name in ("", candidate.data.get("qualified"))


OUTSIDE_MODEL_CODE = (
    ScopeInfo(),
    ScopeInfo(device_aware=True, lightning=True, in_init=True, forward_path=True),
    ScopeInfo(device_aware=True, forward_path=True),
)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(hypothesmith.from_grammar(auto_target=False) | hypothesmith.from_node(auto_target=False))
def test_the_ast_skeleton_equals_the_traversal_facts_on_generated_programs(text: str) -> None:
    _assert_same_structure(text)


def findings(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["check", "--output-format", "json", "--no-cache", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def in_project(root: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Write a project (its pyproject and ``files``) at ``root`` and work from there."""
    for name, text in {"pyproject.toml": '[project]\nname = "p"\n', **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.chdir(root)


def test_same_findings_with_and_without_the_prefilter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    monkeypatch.chdir(tmp_path / "fixtures")
    everything = ("--select", "ALL")
    assert findings(*everything, ".") == findings("--no-prefilter", *everything, ".")
    assert findings(".") == findings("--no-prefilter", ".")


def test_a_skipped_file_between_processor_output_and_the_model_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wrap`` has no trigger, but returns what ``encode`` returns: processor output."""
    files = {
        "encoding.py": "def encode(processor, texts):\n"
        '    return processor(texts, return_tensors="pt")\n',
        "wrapping.py": "from encoding import encode\n\n\ndef wrap(processor, texts):\n"
        "    return encode(processor, texts)\n",
        "model.py": "import pytorch_lightning as pl\nfrom wrapping import wrap\n\n\n"
        "class Model(pl.LightningModule):\n"
        "    def forward(self, texts):\n"
        "        inputs = wrap(self.processor, texts)\n"
        "        return self.model(**inputs)\n",
        "helpers.py": "def double(x):\n    return 2 * x\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    expected = [("model.py", 8, "DEV004")]
    for extra in ((), ("--no-prefilter",)):
        found = findings(*extra, ".")
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found] == expected
    result = CliRunner().invoke(main, ["check", "--no-cache", "--debug", "--jobs", "1", "."])
    assert "4 files: 3 parsed, 1 skipped by the prefilter" in result.stderr


def test_a_file_the_index_asks_for_is_walked_only_by_the_rules_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``model.py`` waits on the index for DEV003 alone: parsed for it, no other rule walks
    it. ``tokenized.py`` also calls a function found to return processor output, which
    DEV004's screen now reads: every rule walks it. The findings are those of a full run."""
    model = "import torch\nfrom base import Base\n{imports}\n\nclass Net(Base):\n"
    files = {
        "base.py": "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n",
        "encoding.py": "def encode(processor, texts):\n"
        '    return processor(texts, return_tensors="pt")\n',
        "model.py": model.format(imports="")
        + "    def forward(self, x):\n        return x + torch.zeros(3)\n",
        "tokenized.py": model.format(imports="from encoding import encode")
        + "    def forward(self, texts, x):\n"
        "        inputs = encode(self.processor, texts)\n"
        "        return self.model(**inputs), x + torch.zeros(3)\n",
    }
    project = lint_project(tmp_path / "p", files)
    jobs = {result.path.name: result.job for result in project.files}
    assert (jobs["model.py"].prefilter, jobs["model.py"].asked) == (True, ("DEV003",))
    assert (jobs["tokenized.py"].prefilter, jobs["tokenized.py"].asked) == (False, ())
    found = sorted(
        (result.path.name, finding.start.row, finding.start.column, finding.code)
        for result in project.files
        for finding in result.findings
    )
    expected = [
        ("model.py", 7, 20, "DEV003"),
        ("tokenized.py", 8, 27, "DEV004"),
        ("tokenized.py", 8, 42, "DEV003"),
    ]
    assert found == expected
    monkeypatch.chdir(tmp_path / "p")
    unfiltered = [
        (Path(str(f["filename"])).name, f["location"]["row"], f["location"]["column"], f["code"])
        for f in findings("--no-prefilter", ".")
    ]
    assert sorted(unfiltered) == expected


def test_a_file_without_triggers_is_clean_even_if_libcst_cannot_parse_it(tmp_path: Path) -> None:
    """Nothing can be found there, so libcst's own limits (a form feed) do not matter."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "m.py").write_bytes(b"class A:\n    def f(self):\n\x0c        return 1\n")
    assert findings(str(tmp_path)) == []
    args = ["check", "--no-cache", "--no-prefilter", str(tmp_path)]
    unfiltered = CliRunner().invoke(main, args)
    assert (unfiltered.exit_code, unfiltered.stdout) == (2, "")  # parsed, and not checked


@pytest.mark.parametrize(
    ("text", "skipped"),
    [
        # A string and a comment: ast reads the same names as libcst.
        ('NAME = "\ufb01le"  # \ufb01ne\n', True),
        ("\ufb01le = 1\n", False),  # ast reads `file`, libcst the ligature
        ('x = f"{\ufb01le}"\n', False),  # an f-string holds an identifier
        ("Bas\u0301e = 1\n", False),  # an accent typed apart: ast composes it, libcst not
    ],
)
def test_ast_reads_a_file_only_if_nfkc_leaves_its_identifiers_as_written(
    text: str, skipped: bool
) -> None:
    job = FileJob("m.py", "m.py", "m.py", "m", False, ("DEV001",), EVERYTHING)
    assert analyze_text(job, text).parsed is not skipped


def test_fixing_a_file_the_index_asked_for_keeps_its_other_findings(tmp_path: Path) -> None:
    """model.py names no library: it is parsed because the index says ``Net`` is a model.
    After the safe fix, the findings left must still be known (fixing re-analyses the
    file without the prefilter: a fix may remove the only trigger that got it parsed)."""
    project = lint_project(
        tmp_path,
        {
            "base.py": "import pytorch_lightning as pl\nimport torch.nn as nn\n\n\n"
            "class Base(pl.LightningModule):\n    pass\n\n\n"
            "class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.proj = nn.Linear(2, 2)\n",
            "model.py": "from base import Base, Block\n\n\nclass Net(Base):\n"
            "    def __init__(self):\n        super().__init__()\n"
            "        self.blocks = [Block(), Block()]\n\n"
            "    def forward(self, x):\n        return x.cuda()\n",
        },
    )
    model = next(result for result in project.files if result.path.name == "model.py")
    assert [finding.code for finding in model.findings] == ["DEV008", "DEV002"]
    outcome = fix_file(project, model, unsafe=False)
    assert outcome is not None and "return x.to(self.device)" in outcome.text
    assert [(finding.code, finding.start.row) for finding in model.findings] == [("DEV008", 7)]


def test_names_of_output_functions_are_found_in_any_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wrapping.py`` is Latin-1: the name ``café`` is not its UTF-8 bytes there."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "enc.py").write_text(
        'def café(processor, texts):\n    return processor(texts, return_tensors="pt")\n',
        encoding="utf-8",
    )
    (tmp_path / "wrapping.py").write_bytes(
        "# -*- coding: latin-1 -*-\nfrom enc import café\n\n\n"
        "def wrap(processor, texts):\n    return café(processor, texts)\n".encode("latin-1")
    )
    (tmp_path / "model.py").write_text(
        "from wrapping import wrap\n\n\ndef run(model, processor, texts):\n"
        "    inputs = wrap(processor, texts)\n    return model(**inputs)\n"
    )
    monkeypatch.chdir(tmp_path)
    expected = findings("--no-prefilter", ".")
    assert [f["code"] for f in expected] == ["DEV004"]
    assert findings(".") == expected


def test_a_device_constant_imported_before_its_name_is_rebound_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index reads a file's last imports; the traversal, those seen so far."""
    files = {
        "cfg.py": 'DEVICE = "cuda:0"\n',
        "other.py": "DEVICE = None\n",
        "model.py": "import pytorch_lightning as pl\nfrom cfg import DEVICE\n\n\n"
        "class Net(pl.LightningModule):\n    def forward(self, x):\n"
        "        return x.to(DEVICE)\n\n\nfrom other import DEVICE\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    found = findings(".")
    assert [(f["code"], f["filename"], f["location"]["row"]) for f in found] == [
        ("DEV010", "model.py", 7)
    ]
    assert findings("--no-prefilter", ".") == found


def test_a_device_constant_imported_before_an_alias_assignment_rebinds_it_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "cfg.py": 'DEVICE = "cuda:0"\n',
        "model.py": "import pytorch_lightning as pl\nimport cfg\nfrom cfg import DEVICE\n\n\n"
        "class Net(pl.LightningModule):\n    def forward(self, x):\n"
        "        return x.to(DEVICE)\n\n\nDEVICE = cfg.OTHER\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    found = findings(".")
    assert [(f["code"], f["filename"], f["location"]["row"]) for f in found] == [
        ("DEV010", "model.py", 8)
    ]
    assert findings("--no-prefilter", ".") == found


def test_an_alias_assignment_used_before_its_name_is_rebound_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``facts.aliases`` keep a name's last binding; the screens read every one."""
    files = {
        "model.py": "import torch\nModule = torch.nn.Module\nhost = torch.device\n\n\n"
        "class Net(Module):\n    def forward(self, x):\n"
        '        return x.to(host("cuda"))\n\n\nhost = torch.get_default_device\n',
    }
    in_project(tmp_path / "p", files, monkeypatch)
    found = findings(".")
    assert [(f["code"], f["filename"], f["location"]["row"]) for f in found] == [
        ("DEV001", "model.py", 8)
    ]
    assert findings("--no-prefilter", ".") == found


def test_processor_output_held_in_variables_through_two_helpers_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``g`` returns output, which makes ``f`` one: a later pass must learn that, parsed
    or skipped ``a.py`` alike (``a.py`` names ``f`` only)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from transformers import AutoModel\nfrom .b import f\n\n"
        "def run(texts):\n    model = AutoModel.from_pretrained('x').cuda()\n"
        "    batch = f(texts)\n    return model(**batch)\n",
        "pkg/b.py": "from .c import g\n\ndef f(t):\n    out = g(t)\n    return out\n",
        "pkg/c.py": "from transformers import AutoTokenizer\n\n"
        "tok = AutoTokenizer.from_pretrained('x')\n\n"
        "def g(t):\n    enc = tok(t, return_tensors='pt')\n    return enc\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    found = findings(".")
    assert [(f["code"], f["filename"], f["location"]["row"]) for f in found] == [
        ("DEV004", "pkg/a.py", 7)
    ]
    assert findings("--no-prefilter", ".") == found


def test_a_collate_function_known_by_its_name_alone_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No data loader is handed ``pad_collate`` here, so only its name says what it is:
    the index cannot tell, the file must be parsed at once."""
    files = {
        "collate.py": "import torch\n\n\ndef pad_collate(batch):\n"
        "    return [torch.as_tensor(x).cuda() for x in batch]\n",
        "other.py": "import torch\n\n\ndef pad(batch):\n"
        "    return [torch.as_tensor(x).cuda() for x in batch]\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    found = findings(".")
    assert [(f["code"], f["filename"], f["location"]["row"]) for f in found] == [
        ("DEV011", "collate.py", 5)
    ]
    assert findings("--no-prefilter", ".") == found


def test_same_findings_with_and_without_the_prefilter_on_every_rule_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each example a module of one project (they may see one another, as files do)."""
    examples = {
        f"examples/{name.replace('-', '_').lower()}.py": text
        for name, text in _sources()
        if not name.endswith(".py")
    }
    in_project(tmp_path, examples, monkeypatch)
    everything = ("--select", "ALL")
    found = findings(*everything, ".")
    assert {f["code"] for f in found} >= {rule.code for rule in RULES}
    assert found == findings("--no-prefilter", *everything, ".")


CORPUS_SAMPLE = {
    "lightning": ("pytorch/core", "pytorch/callbacks"),
    "transformers": ("models/clip", "models/whisper", "models/bark"),  # bark: a DEV001
    "torchmetrics": ("functional/audio",),  # NISQA's modules: flows through CPU lengths
}
"""Released code the tests already install (the dev extra; lightning requires torchmetrics),
read where pip put it: files the prefilter skips, files it parses, and findings."""


def test_same_findings_with_and_without_the_prefilter_on_a_corpus_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for package, folders in CORPUS_SAMPLE.items():
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None, f"{package}: pip install -e .[dev]"
        for folder in folders:
            source = Path(spec.origin).parent / folder
            shutil.copytree(source, tmp_path / package / folder, ignore=_NOT_SOURCE)
    in_project(tmp_path, {}, monkeypatch)
    everything = ("--select", "ALL")
    found = findings(*everything, ".")
    assert found, "the sample holds code devlint flags"
    assert found == findings("--no-prefilter", *everything, ".")


_NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc")


@pytest.mark.parametrize(
    ("use", "screened"),
    [
        ("random.seed(rank)", False),  # a rank given to a call that takes no device
        ('print(f"cuda:{rank}", rank)', False),
        ("torch.cuda.set_device(rank)", True),
        ("model.to(rank)", True),
        ("model.cuda(rank)", True),
        ('torch.device("cuda", rank)', True),
        ("spawn(model, device=rank)", True),
        ("DDP(model, device_ids=[rank])", True),
    ],
)
def test_dev009s_screen_reads_a_rank_only_where_its_visit_reads_a_device(
    use: str, screened: bool
) -> None:
    text = (
        "import os\nimport random\nimport torch\nfrom torch.nn.parallel import "
        "DistributedDataParallel as DDP\n\n\ndef setup(model, spawn):\n"
        f'    rank = int(os.environ["RANK"])\n    {use}\n'
    )
    (rule,) = [rule for rule in RULES if rule.code == "DEV009"]
    found = skeleton(
        ast.parse(text), text, "pkg.mod", False, "pkg/mod.py", references=True, collect=SCREENED
    )
    assert rule.screen(found, EVERYTHING) is screened


@pytest.mark.parametrize(
    ("module", "sighted"),
    [("pkg.model", True), ("tests.test_model", False), ("pkg.conftest", False)],
)
def test_dev003_sees_no_factory_in_a_test_module(module: str, sighted: bool) -> None:
    """A test places its tensors where it means to run: DEV003's visit reports nothing in
    a test module, so the index is not asked to parse one for it."""
    text = (
        "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        return x + torch.ones(3)\n"
    )
    (rule,) = [rule for rule in RULES if rule.code == "DEV003"]
    path = module.replace(".", "/") + ".py"
    found = skeleton(ast.parse(text), text, module, False, path, references=False, collect=SCREENED)
    assert bool(rule.sightings(found, EVERYTHING)) is sighted


@pytest.mark.parametrize(
    ("body", "sighted"),
    [
        # layerdrop: a 0-dim draw beside a tuple growing in place, which never holds it
        ("p = torch.rand([])\nouts = ()\nouts += (x,)\nif p < 0.1:\n    return x", False),
        ("total = torch.tensor(0.0)\ntotal += x.sum()", True),
        ("zero = torch.zeros([])\nacc = zero * 1\nacc += x.sum()", True),  # derived
        ("acc = ()\nacc += x.sum()\nacc = torch.zeros([])", True),  # in a loop's order
        ("parts = []\nparts.append(torch.tensor(0.0))\nfor t in parts:\n    t += x", True),
        ("self.total = torch.tensor(0.0)\nself.total += x.sum()", True),
        ("def zero():\n    return torch.rand([])\nt = zero()\nt += x", True),  # nested
        ("def add(t=torch.tensor(0.0)):\n    t += x\n    return t", True),  # a default
        ("p = torch.rand([])\nouts = ()\nouts += (x,)\nreturn torch.stack([p, x])", True),
        # an operation refusing it, given other tensors (DETR's `torch.stack(intermediate)`)
        ("p = torch.rand([])\nh = [x]\nif p < 0.1:\n    return x\nreturn torch.stack(h)", False),
        ("return torch.stack([torch.tensor(1.0), x])", True),  # given it directly
        ("t = torch.tensor(0.0)\nreturn x.clamp(max=t)", True),  # a keyword
        ("total = torch.tensor(0.0)\ntotal.add_(x.sum())", True),  # the receiver
        ("p = torch.rand([])\nh = p * 2\nreturn torch.stack([h, x])", True),  # derived
        # put on the CPU: blamed only where indexed
        ("c = x.detach().cpu()\nreturn c.numpy()", False),
        ("c = x.cpu()\nreturn c[x > 0]", True),
        ("return x.cpu()[x > 0]", True),
        ("parts = [x.cpu()]\nreturn parts[0]", True),
    ],
)
def test_dev003s_screen_counts_a_0_dim_or_cpu_tensor_only_where_the_flow_may_blame_it(
    body: str, sighted: bool
) -> None:
    """The flow blames a 0-dim CPU tensor only as an operand of an operation that refuses
    it (``torch.stack([p, x])``, ``x.clamp(max=t)``, the receiver of ``t.add_(x)``) or as
    the target of an augmented assignment (``total += loss``: ``MeetingKind.UPDATED``),
    and a tensor put on the CPU (``x.cpu()``) only where it is indexed: beside
    transformers' layerdrop ``torch.rand([])``, ``all_hidden_states += (h,)`` and
    ``torch.stack(intermediate)`` ask for no parse. Any name bound from it, in any order,
    a container it is put in, an attribute of ``self``, a nested function returning it or
    a parameter defaulting to it may hold it."""
    indented = "".join(f"        {line}\n" for line in body.splitlines())
    text = (
        "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n"
        f"    def forward(self, x):\n{indented}"
    )
    (rule,) = [rule for rule in RULES if rule.code == "DEV003"]
    found = skeleton(
        ast.parse(text),
        text,
        "pkg.model",
        False,
        "pkg/model.py",
        references=False,
        collect=SCREENED,
    )
    assert bool(rule.sightings(found, EVERYTHING)) is sighted


def test_dev003_sees_a_collective_anywhere_only_in_the_functions_that_may_hand_it_a_tensor() -> (
    None
):
    """A collective blames a CPU tensor in any scope, so the index must parse the file
    whatever the scope is: but only where a collective may take the tensor, in a function
    calling one or linked to one by a name either way, through any number of calls (its
    result handed on, or a tensor handed to it). Elsewhere the index judges the scope as
    usual."""
    text = (
        "import torch\nimport torch.distributed as dist\n\n"
        "def _count(done):\n    return torch.tensor([len(done)])\n\n"
        "def lengths(batch):\n    return torch.tensor([len(b) for b in batch])\n\n"
        "def count_all(done):\n    dist.all_reduce(_count(done))\n\n"
        "def local(n):\n    t = torch.zeros(n)\n    dist.all_reduce(t)\n\n"
        "def sync(x):\n    dist.broadcast(x, 0)\n\n"
        "def relay(x):\n    sync(x)\n\n"
        "def caller(n):\n    relay(torch.ones(n))\n"
    )
    (rule,) = [rule for rule in RULES if rule.code == "DEV003"]
    found = skeleton(
        ast.parse(text), text, "pkg.sync", False, "pkg/sync.py", references=False, collect=SCREENED
    )
    sightings = rule.sightings(found, EVERYTHING)
    assert sightings is not None
    assert {s.scope.function_name: s.anywhere for s in sightings} == {
        "pkg.sync._count": True,
        "pkg.sync.lengths": False,
        "pkg.sync.local": True,
        "pkg.sync.caller": True,
    }


COLLECTIVE_SHAPES = (
    # A caller hands its CPU tensor to a function calling the collective.
    "import torch\nimport torch.distributed as dist\n\n\ndef sync(x):\n"
    "    dist.all_reduce(x)\n\n\ndef count_all(done):\n"
    "    total = torch.tensor([len(done)])\n    sync(total)\n    return total.item()\n",
    # A sibling makes it for a third function that hands it on.
    "import torch\nimport torch.distributed as dist\n\n\ndef make():\n"
    "    return torch.zeros(3)\n\n\ndef sync(t):\n    dist.all_reduce(t)\n\n\n"
    "def outer():\n    sync(make())\n",
    # Through a relay, from a method and from module level.
    "import torch\nimport torch.distributed as dist\n\n\ndef sync(x):\n"
    "    dist.all_reduce(x)\n\n\ndef relay(t):\n    sync(t)\n\n\nclass Counter:\n"
    "    def count(self, done):\n        relay(torch.tensor([len(done)]))\n\n\n"
    "sync(torch.zeros(2))\n",
)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        *(
            pytest.param(name, text, id=name)
            for name, text in _sources()
            if "torch.distributed" in text
        ),
        *(
            pytest.param(f"shape-{number}", text, id=f"shape-{number}")
            for number, text in enumerate(COLLECTIVE_SHAPES)
        ),
    ],
)
def test_dev003_finds_the_same_collective_meetings_with_and_without_the_prefilter(
    name: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rule example and fixture file about collectives, and the shapes where only a
    function linked to one calling a collective makes the tensor, as the sole module of a
    project (a fixture at its own path): the prefilter changes no finding."""
    path = name if name.endswith(".py") else "m.py"
    in_project(tmp_path / "p", {path: text}, monkeypatch)
    everything = ("--select", "ALL", ".")
    with_prefilter = findings(*everything)
    assert with_prefilter == findings("--no-prefilter", *everything)
    if name.startswith("shape-"):
        assert any(found["code"] == "DEV003" for found in with_prefilter)


@pytest.mark.parametrize(
    ("call", "on_any_receiver", "screened"),
    [
        ("encode(texts)", False, True),  # imported below: a qualified name
        ("coded(texts)", False, True),  # imported as `coded`
        ("self.encode(texts)", False, True),  # the class's method (``self:``)
        ("codec.encode(texts)", False, True),  # a module the file imports
        ("Tool.encode(self, texts)", False, True),  # a class the file defines
        ("self.sp_model.encode(texts)", False, False),  # any object's method (``m:``)
        ("tokenizer.encode(texts)", False, False),
        ("make()[0].encode(texts)", False, False),
        ("self.sp_model.encode(texts)", True, True),  # every method of the name returns it
        ("tokenizer.encode(texts)", True, True),
        ("self.sp_model.decode(texts)", True, False),
    ],
)
def test_dev004s_screen_reads_a_method_call_as_its_visit_names_the_callee(
    call: str, on_any_receiver: bool, screened: bool
) -> None:
    """A method called on a receiver the file binds to no qualified name is an ``m:``
    reference, which the index resolves only when every project method of that name
    returns processor output (``ProjectIndex.returning_on_any_receiver``)."""
    text = (
        "import codec\nfrom encoding import encode\nfrom encoding import encode as coded\n\n\n"
        f"class Tool:\n    def run(self, texts, tokenizer, make):\n        out = {call}\n"
    )
    (rule,) = [rule for rule in RULES if rule.code == "DEV004"]
    found = skeleton(
        ast.parse(text), text, "pkg.mod", False, "pkg/mod.py", references=True, collect=SCREENED
    )
    names = frozenset({"encode"})
    settings = RuleSettings(
        returning_output=names, returning_on_any_receiver=names if on_any_receiver else frozenset()
    )
    assert rule.screen(found, settings) is screened


@pytest.mark.parametrize("every_encode_returns_output", [False, True])
def test_a_method_call_on_any_receiver_is_followed_only_when_the_index_can_resolve_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every_encode_returns_output: bool
) -> None:
    """``tool.encode(texts)`` names no class: it reaches processor output only if every
    project method named ``encode`` returns some. ``Piece.encode`` (a tokenizer's own)
    does not, in the first project: ``pieces.py`` is then not parsed for the call."""
    piece = (
        "    def encode(self, processor, texts):\n"
        '        return processor(texts, return_tensors="pt")\n'
        if every_encode_returns_output
        else "    def encode(self, texts):\n        return [len(t) for t in texts]\n"
    )
    files = {
        "tool.py": "class Tool:\n    def encode(self, processor, texts):\n"
        '        return processor(texts, return_tensors="pt")\n',
        "piece.py": f"class Piece:\n{piece}",
        "pieces.py": "import pytorch_lightning as pl\n\n\nclass Model(pl.LightningModule):\n"
        "    def forward(self, tool, texts):\n"
        "        inputs = tool.encode(self.processor, texts)\n"
        "        return self.model(**inputs)\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    expected = [("pieces.py", 7, "DEV004")] if every_encode_returns_output else []
    for extra in ((), ("--no-prefilter",)):
        found = findings(*extra, ".")
        assert [(f["filename"], f["location"]["row"], f["code"]) for f in found] == expected
    result = CliRunner().invoke(main, ["check", "--no-cache", "--debug", "--jobs", "1", "."])
    parsed = 3 if every_encode_returns_output else 1
    assert f"3 files: {parsed} parsed, {3 - parsed} skipped by the prefilter" in result.stderr


def test_a_concatenated_gloo_backend_is_read_alike_with_and_without_the_prefilter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``groups.py`` (no trigger) is skipped and its skeleton read; with ``--no-prefilter``
    libcst reads it: both see the gloo group, and the collective over it takes CPU tensors."""
    files = {
        "groups.py": "import torch.distributed as dist\n\n\nclass Groups:\n"
        "    def __init__(self):\n"
        '        self.sync_group = dist.new_group([0, 1], backend="cpu:gloo," "cuda:nccl")\n',
        "trainer.py": "import torch\nimport torch.distributed as dist\n\n"
        "from groups import Groups\n\n\nclass Trainer(Groups):\n"
        "    def sync(self, count):\n        hits = torch.tensor([count])\n"
        "        dist.all_reduce(hits, group=self.sync_group)\n        return hits.item()\n",
    }
    in_project(tmp_path / "p", files, monkeypatch)
    assert findings("--select", "ALL", ".") == findings("--no-prefilter", "--select", "ALL", ".")
    assert findings("--no-prefilter", "--select", "DEV003", ".") == []


def test_a_barrier_alone_pins_the_gpu_and_says_so(tmp_path: Path) -> None:
    # The screen reads a barrier's device_ids= as the visit does: the file is not skipped.
    source = "import torch.distributed as dist\n\ndef wait():\n    dist.barrier(device_ids=[0])\n"
    _, result = lint_snippet(tmp_path, source, select=("DEV009",))
    assert [(f.start.row, f.start.column, f.message) for f in result.findings] == [
        (
            4,
            29,
            "`device_ids=[0]` makes every process's barrier run on the same GPU; use "
            '`device_ids=[local_rank]` with `local_rank = int(os.environ["LOCAL_RANK"])`',
        )
    ]


@pytest.mark.parametrize(
    ("option", "offers"),
    [
        ('"--use_cuda", type=bool, default=True', False),
        ('"--use_cuda", type=bool, default=False', True),
        ('"--use_cuda", action="store_true"', True),
        ('"--no_cuda", type=bool, default=True', True),
        ('"--gpu", type=bool, default=True', False),
    ],
)
def test_both_walks_read_a_switch_that_stays_on_alike(option: str, offers: bool) -> None:
    """``type=bool`` makes ``bool("False")`` True: with ``default=True`` the command line
    cannot turn the switch off, and one that keeps the GPU on offers no other device
    (``stays_on``); one that keeps the CPU on does."""
    text = f"import argparse\n\nargparse.ArgumentParser().add_argument({option})\n"
    found = _both_walks(text)
    assert bool(found.facts.option_places) is offers


def test_both_walks_place_a_main_guard_s_else_at_the_top_level() -> None:
    """The ``else:`` of ``if __name__ == "__main__":`` runs on import: what it offers is
    the top level's (``FileFacts.offering_places``), not the ``__main__`` block's."""
    text = (
        "import torch\n\n"
        'if __name__ == "__main__":\n    DEVICE = torch.device("cuda:1")\n'
        'else:\n    DEVICE = torch.device("cpu")\n'
        "print(DEVICE)\n"
    )
    found = _both_walks(text)
    assert [place for place, _ in found.facts.offering_places] == ["", "__main__"]


def test_both_walks_read_a_framework_s_loader_builders_alike() -> None:
    """``FileFacts.loader_builders``: trainers and loader builders, resolved through the
    module's imports, else as written (the index asks whether the project defines them)."""
    text = (
        "from transformers import Trainer as HFTrainer\nimport detectron2.data as d2\n\n"
        "HFTrainer(model=net)\nd2.build_detection_train_loader(cfg)\nmake_loader(data)\n"
        "DataLoader(data)\n"
    )
    found = _both_walks(text)
    assert found.facts.loader_builders == (
        "detectron2.data.build_detection_train_loader",
        "make_loader",
        "transformers.Trainer",
    )


@pytest.mark.parametrize(
    ("choose", "chosen", "options"),
    [
        (
            '    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, args.gpu_ids))\n'
            "    torch.cuda.set_device(args.local_rank)\n",
            {"gpu_ids", "local_rank"},
            {DeviceOption(frozenset({"no_cuda"}), gpu=False)},
        ),
        (
            "    net.set_device(args.device)\n    torch.cuda.set_device(rank)\n",
            set(),
            {
                DeviceOption(frozenset({"gpu_id", "gpu_ids"}), gpu=True),
                DeviceOption(frozenset({"no_cuda"}), gpu=False),
            },
        ),
        (
            "    th.cuda.set_device(args.gpu)\n",
            {"gpu"},
            {
                DeviceOption(frozenset({"gpu_id", "gpu_ids"}), gpu=True),
                DeviceOption(frozenset({"no_cuda"}), gpu=False),
            },
        ),
    ],
    ids=["made visible and current", "another set_device, a bare name", "torch renamed"],
)
def test_both_walks_read_the_gpu_a_program_chooses_alike(
    choose: str, chosen: set[str], options: set[DeviceOption]
) -> None:
    """``FileFacts.gpu_choices``: the attributes read as the values made the visible GPUs
    (not a method called, ``",".join``) or passed to ``torch.cuda.set_device`` (not another
    ``set_device``, nor a bare name); ``option_places``: each device option with the names
    its value goes by (``dest=``), but one the module makes visible itself."""
    text = (
        "import os\nimport argparse\nimport torch\nimport torch as th\n\n\ndef main():\n"
        "    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--gpu-id", dest="gpu_ids")\n'
        '    parser.add_argument("--no-cuda", action="store_true")\n'
        "    args = parser.parse_args()\n" + choose
    )
    found = _both_walks(text)
    assert found.facts.gpu_choices == frozenset(chosen)
    assert found.facts.option_places == (("main", frozenset(options)),)


def test_both_walks_read_an_escaped_dest_alike() -> None:
    """A ``dest=`` written with an escape is none (the traversal evaluates no such string),
    whatever else the line holds."""
    text = (
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument(\n    '--gpu',\n    dest='gpu\\x5fids',\n)\n"
        "parser.add_argument('--device', dest='device_name', help='a\\x5fb')\n"
    )
    found = _both_walks(text)
    assert found.facts.option_places == (
        (
            "",
            frozenset(
                {
                    DeviceOption(frozenset({"gpu"}), gpu=True),
                    DeviceOption(frozenset({"device", "device_name"}), gpu=True),
                }
            ),
        ),
    )


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        ('    return x.to("cpu")\n', {CPU_BY_NAME}),
        ('    return load(x, device=("cpu"))\n', {CPU_BY_NAME}),
        ('    if x:\n        return x.to("cpu")\n', {ANOTHER_DEVICE}),
        ('    if x:\n        pass\n    else:\n        x.to("cpu")\n', {ANOTHER_DEVICE}),
        ('    if x.to("cpu"):\n        pass\n', {CPU_BY_NAME}),
        ('    return x.to(*"cpu")\n', {ANOTHER_DEVICE}),
        ('    class Placed(Base, device="cpu"):\n        pass\n', {ANOTHER_DEVICE}),
        ('    return "cpu"\n', {ANOTHER_DEVICE}),
        ('    y = "cpu"\n    return y\n', {ANOTHER_DEVICE}),
        ('    def inner(d="cpu"):\n        pass\n', {ANOTHER_DEVICE}),
        ('    return torch.device("cpu")\n', {ANOTHER_DEVICE}),
        ('    return x.to("cpu" if x else "cuda")\n', {ANOTHER_DEVICE}),
        ('    return x.to(x and "cpu" or "cuda")\n', {ANOTHER_DEVICE}),
        ('    return x.to(f"cpu")\n', {ANOTHER_DEVICE}),
        ('    return torch.device("cuda" if x else "cpu")\n', {ANOTHER_DEVICE}),
        ("    return torch.device(x)\n", {DEVICE_GIVEN}),
        ("    return torch.device(x.device)\n", {ANOTHER_GPU, ANOTHER_DEVICE}),
        ("    return torch.device(local_rank)\n", {ANOTHER_GPU, ANOTHER_DEVICE}),
        ('    return torch.device("cuda", x)\n', {ANOTHER_GPU, ANOTHER_DEVICE}),
        (
            '    return torch.device(x), x.to("cuda:1")\n',
            {DEVICE_GIVEN, ANOTHER_GPU, ANOTHER_DEVICE},
        ),
    ],
    ids=[
        "the CPU by name, an argument",
        "the CPU by name, a keyword argument",
        "the CPU by name in an if",
        "the CPU by name in an else",
        "the CPU by name in an if's test",
        "the CPU by name, unpacked",
        "the CPU a class's keyword",
        "the CPU returned",
        "the CPU assigned",
        "the CPU a default",
        "the CPU's device made",
        "a choice of the CPU",
        "a choice of the CPU by and and or",
        "the CPU by name in an f-string's text",
        "a choice of the CPU's device",
        "a device given",
        "a tensor's device",
        "a process's GPU",
        "a GPU by a number given",
        "a device given and another GPU",
    ],
)
def test_both_walks_tell_a_choice_from_a_device_named_or_given(body: str, kinds: set[str]) -> None:
    """The CPU named by a literal argument of a call under no ``if``, and a device named by
    a plain name the code is given, offer the program a device only where the code chooses
    the program's devices (``ProjectIndex._chooses_devices``); the CPU assigned, returned,
    a default, under an ``if`` or an outcome of a condition may be a choice anywhere."""
    found = _both_walks("import torch\n\n\ndef place(x):\n" + body)
    assert dict(found.facts.offering_places) == {"place": frozenset(kinds)}


_CHOICE = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'


@pytest.mark.parametrize(
    ("body", "offered", "held"),
    [
        (f"device = {_CHOICE}\n", (), (("", "device"),)),
        (f"def main():\n    device = {_CHOICE}\n", (), (("main", "device"),)),
        (f"{_MAIN}    device = {_CHOICE}\n", (), (("__main__", "device"),)),
        (f"device = {_CHOICE}\nprint(device)\n", ("",), ()),
        (f"device = {_CHOICE}\nf(dev=device)\n", ("",), ()),
        (f"device = {_CHOICE}\n# device\n", ("",), ()),
        (f"device = {_CHOICE}\nprint(locals())\n", ("",), ()),
        (f"device = {_CHOICE}\ndef f():\n    global device\n", ("",), ()),
        (f"class Config:\n    device = {_CHOICE}\n", ("Config",), ()),
        (f"def main():\n    class Config:\n        device = {_CHOICE}\n", ("main",), ()),
        (f"device, rank = {_CHOICE}, 0\n", ("",), ()),
        (f"device = other = {_CHOICE}\n", ("",), ()),
        (f"device: torch.device = {_CHOICE}\n", ("",), ()),
        (f"device = lambda: {_CHOICE}\n", ("",), ()),
        (f"device = f(x=(lambda: {_CHOICE})())\n", ("",), ()),
        ('moved = net.to("cpu")\n', ("",), ()),
        ('device = (cpu := torch.device("cpu"))\n', ("",), ()),
        ('device = torch.device(*["cpu"])\n', ("",), ()),
        ('device = "cpu" if not args.cuda and x == 1 else f"cuda:{rank}"\n', (), (("", "device"),)),
        ("use_cuda = torch.cuda.is_available()\n", (), (("", "use_cuda"),)),
        ('device = 1\nx = torch.device("cpu")\n', (), (("", "x"),)),
        ('device = [1]\ndevice[torch.device("cpu")] = 2\n', ("",), ()),
        ('parser = f()\nflag = parser.add_argument("--cpu")\n', ("",), ()),
        ("accelerator = Accelerator()\n", ("",), ()),
        ("torch.cuda.set_device(f'cuda:{args.gpu}')\n", (), ()),
        ("torch.cuda.set_device(device='cuda:1')\n", (), ()),
        ("from torch.cuda import set_device\nset_device('cuda:1')\n", (), ()),
        ("set_device('cpu')\n", ("",), ()),
        ("x = x.cuda(y.get_device())\n", (), ()),
        ("x = x.cuda(y.get_device(0))\n", ("",), ()),
    ],
    ids=[
        "a module's name never read",
        "a function's local never read",
        "a main block's name never read",
        "read",
        "read as a keyword's value",
        "named in a comment",
        "names read by locals()",
        "declared global",
        "a class's attribute",
        "a class's attribute in a function",
        "unpacked",
        "assigned twice",
        "annotated",
        "a lambda",
        "in a lambda called",
        "a move",
        "a walrus",
        "unpacked arguments",
        "a choice of conditions",
        "a question never read",
        "another name never read",
        "a subscript's target",
        "an option's holder never read",
        "a framework choosing",
        "a GPU made current",
        "a GPU made current by keyword",
        "a GPU made current, imported",
        "a project's own set_device",
        "a tensor's GPU",
        "a call of another get_device",
    ],
)
def test_both_walks_hold_what_a_name_never_read_offers(
    body: str, offered: tuple[str, ...], held: tuple[tuple[str, str], ...]
) -> None:
    """What a value assigned to a name that nothing else in the module reads offers is held
    by that name (``FileFacts.held_offers``), not offered; a class's attribute, a name
    unpacked, assigned twice or annotated, one the text may read without spelling it, and
    the options an unread parser holds, offer as ever. ``torch.cuda.set_device``'s argument
    and a tensor's GPU offer nothing."""
    found = _both_walks("import torch\n\n" + body)
    facts = found.facts
    places = {place for place, _ in (*facts.offering_places, *facts.option_places)}
    assert tuple(sorted(places)) == offered
    assert tuple((place, name) for place, name, _ in found.facts.held_offers) == held


@pytest.mark.parametrize(
    ("demand", "offered"),
    [
        ('if not torch.cuda.is_available():\n    raise OSError("CUDA only")\n', False),
        ("if not torch.cuda.is_available():\n    print('CUDA only')\n    sys.exit(1)\n", False),
        ("if not torch.cuda.is_available():\n    raise OSError\nelse:\n    pass\n", True),
        ("if not torch.cuda.is_available():\n    print('no GPU')\n", True),
        (
            "device = 'cuda'\nif device != 'cpu' and not torch.cuda.is_available():\n"
            "    raise SystemExit(1)\n",
            True,
        ),
        (
            "try:\n    if not torch.cuda.is_available():\n        raise RuntimeError\n"
            "except RuntimeError:\n    pass\n",
            True,
        ),
        (
            "def main():\n    if not torch.cuda.is_available():\n        raise OSError\n\n\n"
            'if __name__ == "__main__":\n    if not torch.cuda.is_available():\n'
            "        sys.exit(1)\n",
            False,
        ),
        (
            "def seed(s):\n    if torch.cuda.is_available():\n"
            "        torch.cuda.manual_seed_all(s); cudnn.deterministic = cudnn.benchmark = 0\n",
            False,
        ),
        ("if torch.cuda.is_available():\n    torch.cuda.manual_seed_all(0)\n    x = 1\n", True),
        (
            "if torch.cuda.is_available():\n    torch.cuda.manual_seed_all(0)\n"
            "    if x:\n        pass\n",
            True,
        ),
        ("if torch.cuda.is_available(): torch.cuda.synchronize()\n", False),
        ("load('ext', ['ext.cu'], with_cuda=True, no_cuda=False, verbose=True)\n", False),
        ("load('ext', ['ext.cu'], with_cuda=None)\n", True),
    ],
    ids=[
        "raising",
        "exiting",
        "with an else",
        "answered by a print",
        "asking more than that",
        "under a try",
        "in a function and a main block",
        "the GPU set up in one line",
        "the GPU set up and a name bound",
        "the GPU set up and a block",
        "the GPU waited for",
        "keywords keeping the GPU",
        "a keyword given None",
    ],
)
def test_both_walks_read_a_demand_for_the_gpu_alike(demand: str, offered: bool) -> None:
    """An ``if`` that raises or ends the program where the GPU is missing demands it, as an
    ``assert`` does, and one that only sets up the GPU where there is one chooses nothing
    (``GPU_SETTINGS``), nor does a keyword that keeps the GPU on (``with_cuda=True``): they
    offer no other device."""
    found = _both_walks("import sys\nimport torch\n\n" + demand)
    assert bool(found.facts.offering_places) is offered
