"""Shared by the runtime tests: fixture copies, ``devlint fix`` on them, imports, checkpoints.

The runtime tests run the ``fixtures/runtime_*`` projects with the real torch,
Lightning and transformers: as written (where they crash on this CPU-only
machine), and after ``devlint fix --write`` (safe fixes only) on a copy. No
model or tokenizer comes from a hub: the checkpoints the fixtures load with
``from_pretrained`` are built here, tiny, in a temporary folder.

Device types on a machine without a GPU: ``cpu``, and ``meta``, whose tensors
have shapes but no data. A module moved to ``meta`` whose code makes a tensor
on the CPU (``torch.zeros(n)``) or leaves processor output on the CPU fails
with ``Tensor on device cpu is not on the expected device meta!`` (or the
reverse), the CPU-only twin of ``Expected all tensors to be on the same
device``: this is how the tests observe, without a GPU, that the fixed code
follows the module's device.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _require(name: str) -> Any:
    """Import a runtime dependency; a missing one is an error on CI, a skip elsewhere."""
    if os.environ.get("CI"):
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"{name} missing: pip install -e '.[dev]'")


torch = _require("torch")
lightning = _require("lightning")
transformers = _require("transformers")

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
EXPECTATIONS = ("*.expected", "*.fixed", "*.unsafe-fixed")

NO_CUDA_REASON = (
    f"no CUDA device (torch {torch.__version__}, CUDA build: {torch.version.cuda is not None}): "
    "the runtime tests ran on CPU only"
)
HAS_CUDA = torch.cuda.is_available()

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not HAS_CUDA, reason=NO_CUDA_REASON)),
]
"""Where the fixed fixtures must train: the CPU always, a GPU where there is one."""

needs_no_cuda = pytest.mark.skipif(
    HAS_CUDA, reason="a GPU is present: code written for one GPU runs there as written"
)
"""For the tests that show the fixtures, as written, crash without a GPU."""

CUDA_MISSING = "Torch not compiled with CUDA enabled|Found no NVIDIA driver"
"""What torch raises for ``.cuda()`` or ``.to("cuda:0")`` on a CPU build or without a driver."""

ON_META = r"Tensor on device (cpu|meta) is not on the expected device (meta|cpu)!"
"""A CPU tensor meeting a ``meta`` one: the device mix-up, observable without a GPU."""

QUIET = pytest.mark.filterwarnings(
    # from_pretrained returns modules in eval mode; Lightning says so at every fit.
    r"ignore:Found \d+ module\(s\) in eval mode:UserWarning",
    # Lightning 2.6 on torch 2.13: an internal deprecation, nothing the fixtures do.
    "ignore:`isinstance\\(treespec, LeafSpec\\)` is deprecated",
)
"""Library warnings that say nothing about the fixtures; every runtime test module uses it."""

if not HAS_CUDA:
    warnings.warn(f"devlint runtime tests: {NO_CUDA_REASON}", stacklevel=1)


# Fixture copies and devlint ---------------------------------------------------------------


def copy_fixture(name: str, destination: Path) -> Path:
    """A copy of ``fixtures/NAME`` in ``destination``, without the expectation files."""
    target = destination / name
    shutil.copytree(
        FIXTURES / name, target, ignore=shutil.ignore_patterns(*EXPECTATIONS, "__pycache__")
    )
    return target


def devlint_fix(project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``python -m devlint fix --write`` (safe fixes only) on ``project``, in place.

    Runs whichever ``devlint`` this interpreter imports (``PYTHONPATH`` decides), as
    a user would. The exit code is not checked here: what the fixed code does is
    what the runtime tests judge.
    """
    result = subprocess.run(
        [sys.executable, "-m", "devlint", "fix", "--write", "--no-cache", *options, "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode in (0, 1), f"devlint crashed:\n{result.stdout}\n{result.stderr}"
    return result


class Projects:
    """Copies of the runtime fixtures, as written and fixed, made once per session."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._copies: dict[tuple[str, tuple[str, ...] | None], Path] = {}

    def original(self, name: str) -> Path:
        return self._copy(name, None)

    def fixed(self, name: str, *options: str) -> Path:
        """The project after ``devlint fix --write OPTIONS`` (e.g. ``--select DEV001``)."""
        return self._copy(name, options)

    def _copy(self, name: str, options: tuple[str, ...] | None) -> Path:
        key = (name, options)
        if key not in self._copies:
            label = "original" if options is None else "fixed"
            project = copy_fixture(name, self._factory.mktemp(f"{name}-{label}"))
            if options is not None:
                devlint_fix(project, *options)
            self._copies[key] = project
        return self._copies[key]


@pytest.fixture(scope="session")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Projects:
    return Projects(tmp_path_factory)


# Importing a copy -------------------------------------------------------------------------


@contextmanager
def imported(root: Path, *modules: str) -> Iterator[list[ModuleType]]:
    """Import ``modules`` (of one package) from the folder ``root``; forget them on exit.

    Objects made from the modules stay usable after the exit; a later import of the
    same package (from another copy of the project) starts afresh.
    """
    package = modules[0].partition(".")[0]

    def forget() -> None:
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]

    forget()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield [importlib.import_module(module) for module in modules]
    finally:
        sys.path.remove(str(root))
        forget()


Loader = Callable[..., list[ModuleType]]


@pytest.fixture
def load() -> Iterator[Loader]:
    """``load(root, "pkg.a", "pkg.b")``: the modules imported from a copy, forgotten afterwards."""
    stack = ExitStack()

    def loader(root: Path, *modules: str) -> list[ModuleType]:
        return stack.enter_context(imported(root, *modules))

    with stack:
        yield loader


# Training ---------------------------------------------------------------------------------


def trainer(model: Any, device: str, root: Path, **options: Any) -> Any:
    """The Trainer of the issue: three steps, nothing written but under ``root``.

    From the package ``model`` derives from: ``lightning.pytorch`` or the older
    ``pytorch_lightning`` (the seed's), which refuse each other's modules.
    """
    bases = {cls.__module__.partition(".")[0] for cls in type(model).__mro__}
    package = "pytorch_lightning" if "pytorch_lightning" in bases else "lightning.pytorch"
    return importlib.import_module(package).Trainer(
        accelerator=device,
        devices=1,
        max_steps=3,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=root,
        **options,
    )


def snapshot(module: Any) -> dict[str, Any]:
    """The module's parameters and buffers, copied to the CPU."""
    return {name: value.detach().cpu().clone() for name, value in module.state_dict().items()}


def assert_same_tensors(first: dict[str, Any], second: dict[str, Any]) -> None:
    assert first.keys() == second.keys()
    different = [name for name in first if not torch.equal(first[name], second[name])]
    assert different == [], f"differ after the fix: {different}"


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in before if not torch.equal(before[name], after[name])]


class Reached(Exception):
    """Raised by a hook to stop a forward pass once it has seen what it came for."""


@contextmanager
def inputs_seen_by(model: Any, *, stop: bool = True) -> Iterator[dict[str, Any]]:
    """Record the device of every tensor passed to ``model``'s forward (then stop there).

    HF language models cannot run to the end on ``meta`` (they call ``.item()``), so
    the tests look at what reaches the model instead.
    """
    seen: dict[str, Any] = {}

    def hook(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        tensors = {str(i): a for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
        tensors.update({k: v for k, v in kwargs.items() if isinstance(v, torch.Tensor)})
        seen.update({name: tensor.device.type for name, tensor in tensors.items()})
        if stop:
            raise Reached

    handle = model.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        yield seen
    finally:
        handle.remove()


# Tiny checkpoints, built here -------------------------------------------------------------

VOCAB = (
    *("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"),
    *("what", "is", "the", "capital", "of", "a", "an", "city", "?"),
    *("france", "italy", "spain", "paris", "rome", "madrid", "answer", "question"),
)


def text_checkpoint(folder: Path) -> Path:
    """A one-layer GPT-2 with a BERT word-piece tokenizer over ``VOCAB``, saved to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab_file = folder / "vocab.txt"
    vocab_file.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    # transformers 5 reads the word list from `vocab=`; it ignores `vocab_file=`.
    tokenizer = transformers.BertTokenizerFast(vocab=str(vocab_file))
    assert len(tokenizer) == len(VOCAB), "the tokenizer did not read the vocabulary file"
    tokenizer.save_pretrained(folder)
    config = transformers.GPT2Config(
        vocab_size=len(VOCAB),
        n_embd=32,
        n_layer=1,
        n_head=2,
        n_positions=64,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


def image_checkpoint(folder: Path, num_labels: int = 3) -> Path:
    """A one-layer ViT classifier and an image processor with its defaults, saved to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    processor = transformers.ViTImageProcessorPil()  # PIL backend: no torchvision needed
    processor.save_pretrained(folder)
    size = processor.size["height"]
    config = transformers.ViTConfig(
        image_size=size,
        patch_size=32,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        num_labels=num_labels,
    )
    torch.manual_seed(0)
    transformers.ViTForImageClassification(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def text_ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return text_checkpoint(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture(scope="session")
def image_ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return image_checkpoint(tmp_path_factory.mktemp("tiny-vit"))
