"""``fixtures/runtime_seed``: the seed report's shape, with a real (tiny) causal LM.

``LMMWrapper`` (a plain ``nn.Module`` holding a tokenizer and a model loaded with
``from_pretrained``) returns tokenizer output unmoved from ``process_input``;
``ICVModel`` (a LightningModule) feeds it to ``self.lmm.model(**inputs, labels=...)``
(DEV004, across files) and moves its in-context vector with ``.to("cuda:0")``
(DEV001). Without a GPU the ``cuda:0`` crashes at once. The DEV004 bug is
invisible on the CPU (the tokenizer's tensors are already where the model is),
so the tests move the module to ``meta`` and look at the device of what reaches
the language model. ``check_devices`` shows both bugs as the second GPU would meet
them: the hard-coded ``cuda:0``, then (with it fixed) the tokenizer's CPU tensors
meeting the model on ``cpu:1``; after the fix, the forward and the training step
run clean on the virtual second GPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import runtime_support as rt
from runtime_support import DEVICES, VOCAB, torch

from devlint.testing import VIRTUAL, DeviceMixError, check_devices
from devlint.testing.frames import Site

pytestmark = rt.QUIET
projects = rt.projects
load = rt.load
text_ckpt = rt.text_ckpt

NAME = "runtime_seed"
PAIRS = [
    {"query_texts": "what is the capital of france ?", "answers": "paris"},
    {"query_texts": "what is the capital of italy ?", "answers": "rome"},
    {"query_texts": "what is the capital of spain ?", "answers": "madrid"},
    {"query_texts": "what is a capital ?", "answers": "a city"},
]
QUERY = {"query_texts": [p["query_texts"] for p in PAIRS], "answers": [p["answers"] for p in PAIRS]}


def build(load: rt.Loader, project: Path, checkpoint: Path) -> Any:
    """``ICVModel(LMMWrapper(checkpoint), ICVEncoder(...))``, as ``train.py`` builds it."""
    lmm_module, encoder_module, model_module = load(project, "icv.lmm", "icv.encoder", "icv.model")
    torch.manual_seed(0)
    lmm = lmm_module.LMMWrapper(str(checkpoint))
    encoder = encoder_module.ICVEncoder(lmm.num_layers, lmm.model.config.hidden_size)
    return model_module.ICVModel(lmm, encoder)


def data() -> Any:
    return torch.utils.data.DataLoader(PAIRS, batch_size=2)


def train(model: Any, device: str, root: Path) -> Any:
    fit = rt.trainer(model, device, root)
    fit.fit(model, data())
    return fit


def query_length(model: Any) -> int:
    texts = [
        q + " " + a + model.eos_token
        for q, a in zip(QUERY["query_texts"], QUERY["answers"], strict=True)
    ]
    return int(model.lmm.tokenizer(texts, return_tensors="pt", padding=True)["input_ids"].shape[1])


@rt.needs_no_cuda
def test_as_written_it_crashes_without_a_gpu(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path, tmp_path: Path
) -> None:
    model = build(load, projects.original(NAME), text_ckpt)
    with pytest.raises((AssertionError, RuntimeError), match=rt.CUDA_MISSING):
        train(model, "cpu", tmp_path)


@pytest.mark.parametrize("device", DEVICES)
def test_after_fix_it_learns_the_vectors(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path, device: str, tmp_path: Path
) -> None:
    model = build(load, projects.fixed(NAME), text_ckpt)
    before = rt.snapshot(model)
    fit = train(model, device, tmp_path)
    assert fit.global_step == 3
    moved = rt.changed(before, rt.snapshot(model))
    assert sorted(moved) == ["icv_encoder.icv", "icv_encoder.strength"], "the LM is frozen"

    model.to(device).eval()
    with torch.no_grad():
        outputs = model(**QUERY)
    assert outputs.logits.shape == (len(PAIRS), query_length(model), len(VOCAB))
    assert outputs.logits.device.type == device
    assert outputs.loss.shape == () and torch.isfinite(outputs.loss)


def test_after_fix_the_inputs_reach_the_model_on_the_modules_device(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path
) -> None:
    model = build(load, projects.fixed(NAME), text_ckpt).to("meta")
    assert model.device.type == "meta"
    with rt.inputs_seen_by(model.lmm.model) as seen, pytest.raises(rt.Reached):
        model(**QUERY)
    assert seen == dict.fromkeys(
        ("input_ids", "token_type_ids", "attention_mask", "labels"), "meta"
    )


def test_the_unmoved_inputs_are_observable_and_the_fix_keeps_cpu_results(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path, tmp_path: Path
) -> None:
    """With only DEV001 fixed the code trains on the CPU, yet feeds the LM CPU tensors.

    The DEV004 fix changes where the inputs go on other devices, and nothing on the
    CPU: the same seed gives bit-identical training and outputs with and without it.
    """
    partial = build(load, projects.fixed(NAME, "--select", "DEV001"), text_ckpt)
    on_meta = build(load, projects.fixed(NAME, "--select", "DEV001"), text_ckpt).to("meta")
    with rt.inputs_seen_by(on_meta.lmm.model) as seen, pytest.raises(rt.Reached):
        on_meta(**QUERY)
    assert set(seen.values()) == {"cpu"}, "the module is on meta, its inputs are not"

    fixed = build(load, projects.fixed(NAME), text_ckpt)
    results = []
    for model in (partial, fixed):
        torch.manual_seed(0)
        train(model, "cpu", tmp_path)
        with torch.no_grad():
            results.append((rt.snapshot(model), model(**QUERY).logits))
    rt.assert_same_tensors(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])


# The oracle: the seed's second-GPU crash, proved on the CPU --------------------------------


def line_of(path: Path, text: str) -> Site:
    """The one line of ``path`` containing ``text``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    (number,) = [i for i, line in enumerate(lines, 1) if text in line]
    return Site(str(path.resolve()), number)


def test_as_written_the_oracle_shows_the_hard_coded_first_gpu_meeting_rank_1s(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path
) -> None:
    project = projects.original(NAME)
    model = build(load, project, text_ckpt)
    for method, args in (("forward", ()), ("training_step", (QUERY, 0))):
        kwargs = QUERY if method == "forward" else {}
        with pytest.raises(DeviceMixError, match="found at least two devices, cpu:1 and cuda:0"):
            check_devices(model, *args, method=method, **kwargs)
    with pytest.raises(DeviceMixError) as caught:
        check_devices(model, **QUERY)
    error = caught.value
    assert (error.rule, error.site) == ("DEV001", line_of(project / "icv" / "model.py", "cuda:0"))


def test_with_the_device_fixed_the_oracle_shows_the_tokenizer_output_meeting_rank_1s(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path
) -> None:
    project = projects.fixed(NAME, "--select", "DEV001")
    model = build(load, project, text_ckpt)
    two_devices = "found at least two devices, cpu:1 and cpu:"
    with pytest.raises(DeviceMixError, match=two_devices) as caught:
        check_devices(model, **QUERY)
    error = caught.value
    assert error.rule == "DEV004"
    assert error.site == line_of(project / "icv" / "model.py", "self.lmm.model(")
    assert error.origin.site == line_of(project / "icv" / "lmm.py", 'return_tensors="pt"')


@pytest.mark.filterwarnings("ignore:You are trying to `self.log\\(\\)`:UserWarning")
def test_after_fix_the_oracle_runs_the_forward_and_the_training_step_clean(
    projects: rt.Projects, load: rt.Loader, text_ckpt: Path
) -> None:
    model = build(load, projects.fixed(NAME), text_ckpt)
    before = rt.snapshot(model)
    outputs = check_devices(model, **QUERY)
    assert outputs.logits.device == VIRTUAL
    assert outputs.logits.shape == (len(PAIRS), query_length(model), len(VOCAB))
    loss = check_devices(model, QUERY, 0, method="training_step")
    assert (loss.device, loss.shape) == (VIRTUAL, ())
    rt.assert_same_tensors(before, rt.snapshot(model))
