"""``devlint.testing.check_devices``: each device bug proved on CPU, and look-alikes left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import device_mix_modules as mods
import pytest
import runtime_support as rt
from runtime_support import torch

from devlint.testing import VIRTUAL, DeviceMixError, check_devices, find_device_mixes
from devlint.testing.frames import Site
from devlint.testing.mix import RULE_NAMES

pytestmark = rt.QUIET
text_ckpt = rt.text_ckpt

SOURCE = Path(mods.__file__).resolve()
X = torch.randn(3, 4)
T = torch.tensor([1, 2, 3])


def marked(name: str) -> Site:
    """The line of ``device_mix_modules.py`` that ends with ``# <- name``."""
    lines = SOURCE.read_text(encoding="utf-8").splitlines()
    (number,) = [i for i, line in enumerate(lines, 1) if line.endswith(f"# <- {name}")]
    return Site(str(SOURCE), number)


def mix(module: Any, *args: Any, **kwargs: Any) -> DeviceMixError:
    with pytest.raises(DeviceMixError) as caught:
        check_devices(module, *args, **kwargs)
    return caught.value


@pytest.mark.parametrize(
    ("module", "args", "rule", "line", "other"),
    [
        (mods.LiteralDevice, (X,), "DEV001", "literal", "cuda:0"),
        (mods.LiteralIndex, (X,), "DEV001", "index", "cuda:0"),
        (mods.LiteralFactory, (X,), "DEV001", "factory-device", "cuda"),
        (mods.CudaCall, (X,), "DEV002", "cuda", "cuda:0"),
        (mods.SubmoduleCuda, (X,), "DEV002", "module-cuda", "cuda:0"),
        (mods.AsksCuda, (X,), "DEV001", "current-device", "cuda"),
        (mods.CpuFactory, (X,), "DEV003", "meets", "cpu"),
        (mods.CpuScalarBound, (X,), "DEV003", "scalar-bound", "cpu"),
        (mods.CpuScalarTotal, (X,), "DEV003", "scalar-updated", "cpu"),
        (mods.CpuAttribute, (X, T), "DEV007", "indexed", "cpu"),
        (mods.PlainList, (X,), "DEV008", "list-meets", "cpu"),
    ],
)
def test_each_bug_is_reported_at_its_line_with_its_rule(
    module: type[Any], args: tuple[Any, ...], rule: str, line: str, other: str
) -> None:
    error = mix(module(), *args)
    assert (error.rule, error.site, error.devices) == (rule, marked(line), ("cpu:1", other))


@pytest.mark.parametrize(
    ("module", "args", "made"),
    [
        (mods.CpuFactory, (X,), "made"),
        (mods.CpuAttribute, (X, T), "attribute"),
        (mods.PlainList, (X,), "container"),
    ],
)
def test_the_error_names_where_the_odd_tensor_was_made(
    module: type[Any], args: tuple[Any, ...], made: str
) -> None:
    assert mix(module(), *args).origin.site == marked(made)


def test_processor_output_fed_to_the_model_is_dev004(text_ckpt: Path) -> None:
    tokenizer = rt.transformers.AutoTokenizer.from_pretrained(text_ckpt)
    error = mix(mods.Tokenizing(tokenizer), ["what is the capital of france ?", "a city"])
    assert (error.rule, error.site, error.devices) == ("DEV004", marked("fed"), ("cpu:1", "cpu"))
    assert error.origin.site == marked("tokenized")


def test_processor_output_moved_first_is_clean(text_ckpt: Path) -> None:
    tokenizer = rt.transformers.AutoTokenizer.from_pretrained(text_ckpt)
    text = "what is the capital of france ?"
    out = check_devices(mods.TokenizingMoved(tokenizer), [text])
    tokens = len(tokenizer(text)["input_ids"])  # the words, [CLS] and [SEP]
    assert (out.device, out.shape) == (VIRTUAL, (1, tokens, 8))


def test_look_alikes_run_clean_and_the_output_is_on_the_virtual_device() -> None:
    out = check_devices(mods.LookAlikes(), X, T)
    assert (out.device, out.shape, out.dtype) == (VIRTUAL, (2, 4), torch.float32)


def test_find_device_mixes_reports_every_mix_of_the_run_in_order() -> None:
    found = find_device_mixes(mods.Several(), X, T)
    first, second = marked("several-first"), marked("several-second")
    assert [(e.rule, e.site, e.devices[1]) for e in found] == [
        ("DEV002", first, "cuda:0"),
        ("DEV003", first, "cpu"),
        ("DEV007", second, "cpu"),
        ("DEV001", second, "cuda:0"),
    ]


def test_a_module_on_meta_needs_no_memory_for_its_weights() -> None:
    with torch.device("meta"):
        big = torch.nn.Sequential(torch.nn.Linear(4, 50_000), torch.nn.Linear(50_000, 4))
    assert check_devices(big, X).shape == (3, 4)
    assert {p.device.type for p in big.parameters()} == {"meta"}


def test_the_message_names_the_line_the_devices_the_origin_and_the_rule() -> None:
    error = mix(mods.CpuAttribute(), X, T)
    site, attribute = marked("indexed"), marked("attribute")
    assert str(error) == (
        f"{site}: found at least two devices, cpu:1 and cpu: "
        "a cpu tensor indexed by a cpu:1 tensor.\n"
        "  cpu:1 is the module's device (the virtual second GPU).\n"
        f"  The cpu tensor is the plain attribute `self.logvar` of CpuAttribute, at {attribute}.\n"
        "  devlint rule DEV007 (tensor-attribute-not-buffer): `devlint rule DEV007`."
    )


def test_sites_are_relative_to_the_working_directory_when_inside_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    site = marked("indexed")
    monkeypatch.chdir(SOURCE.parent)
    assert str(site) == f"device_mix_modules.py:{site.lineno}"
    monkeypatch.chdir(tmp_path)
    assert str(site) == f"{SOURCE}:{site.lineno}"


def test_a_training_step_is_run_and_its_loss_backpropagated() -> None:
    module = mods.Steps()
    error = mix(module, (X, torch.randn(3, 1)), 0, method="training_step")
    assert (error.rule, error.site, error.origin.site) == (
        "DEV003",
        marked("step-meets"),
        marked("step-made"),
    )
    assert module.fc.weight.grad is None


def state(module: torch.nn.Module) -> list[tuple[str, int]]:
    """Which objects the module holds: its parameters, buffers and attributes, by identity."""
    held = [(f"param {k}", id(v)) for k, v in module.named_parameters()]
    held += [(f"buffer {k}", id(v)) for k, v in module.named_buffers()]
    for name, sub in module.named_modules():
        held += [(f"{name}.{k}", id(v)) for k, v in vars(sub).items()]
    return held


@pytest.mark.parametrize(
    ("module", "args", "error"),
    [
        (mods.CpuAttribute, (X, T), DeviceMixError),
        (mods.SubmoduleCuda, (X,), DeviceMixError),
        (mods.Raises, (X,), ValueError),
    ],
)
def test_everything_is_restored_even_on_error(
    module: type[Any], args: tuple[Any, ...], error: type[Exception]
) -> None:
    model = module()
    before, weights = state(model), [p.detach().clone() for p in model.parameters()]
    with pytest.raises(error):
        check_devices(model, *args)
    assert state(model) == before
    assert all(p.device.type == "cpu" and not p.is_meta for p in model.parameters())
    assert all(torch.equal(p, w) for p, w in zip(model.parameters(), weights, strict=True))


def test_lightning_device_is_the_virtual_one_inside_and_restored_after() -> None:
    seen = []

    class Module(rt.lightning.LightningModule):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            seen.append(self.device)
            return self.fc(x) + torch.ones(4, device=self.device)

    module = Module()
    check_devices(module, X)
    assert (seen, module.device) == ([VIRTUAL], torch.device("cpu"))


def test_the_rule_names_are_the_linters() -> None:
    from devlint.rules import rule_by_code

    assert {code: getattr(rule_by_code(code), "name", None) for code in RULE_NAMES} == RULE_NAMES
