"""``fixtures/runtime_lightning``: a LightningModule written for one GPU.

As written it calls ``.cuda()`` in ``__init__`` (DEV002), ``x.to("cuda:0")`` in
``forward`` (DEV001), ``labels.cuda()`` in ``training_step`` (DEV002) and makes
``torch.arange``/``torch.zeros`` tensors on the CPU in ``forward`` and
``training_step`` (DEV003). Without a GPU it cannot even be built; after
``devlint fix --write`` it trains on the CPU (and on a GPU where there is one),
and on ``meta`` every tensor it makes follows the module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import runtime_support as rt
from runtime_support import DEVICES, ON_META, torch

pytestmark = rt.QUIET
projects = rt.projects
load = rt.load

NAME = "runtime_lightning"
BATCH = 16


def batches(module: Any, device: str = "cpu") -> Any:
    data = module.KeywordSequences(size=64, seed=0)
    loader = torch.utils.data.DataLoader(data, batch_size=BATCH)
    return loader, tuple(t.to(device) for t in next(iter(loader)))


@rt.needs_no_cuda
def test_as_written_it_cannot_be_built_without_a_gpu(
    projects: rt.Projects, load: rt.Loader
) -> None:
    (spotter,) = load(projects.original(NAME) / "src", "spotter")
    with pytest.raises((AssertionError, RuntimeError), match=rt.CUDA_MISSING):
        spotter.KeywordSpotter()


@pytest.mark.parametrize("device", DEVICES)
def test_after_fix_it_trains_and_predicts(
    projects: rt.Projects, load: rt.Loader, device: str, tmp_path: Path
) -> None:
    (spotter,) = load(projects.fixed(NAME) / "src", "spotter")
    torch.manual_seed(0)
    model = spotter.KeywordSpotter()
    before = rt.snapshot(model)
    loader, _ = batches(spotter)
    fit = rt.trainer(model, device, tmp_path)
    fit.fit(model, loader)
    assert fit.global_step == 3
    assert set(rt.changed(before, rt.snapshot(model))) >= {"head.weight", "conv.weight"}

    model.to(device).eval()
    _, (input_ids, lengths, _) = batches(spotter, device)
    with torch.no_grad():
        logits = model(input_ids, lengths)
    assert logits.shape == (BATCH, 3)
    assert logits.device.type == device


def test_after_fix_every_tensor_follows_the_module(
    projects: rt.Projects, load: rt.Loader, recwarn: pytest.WarningsRecorder
) -> None:
    """On ``meta``, a tensor left on the CPU (a missed ``torch.zeros(n)``) would raise."""
    (spotter,) = load(projects.fixed(NAME) / "src", "spotter")
    model = spotter.KeywordSpotter().to("meta")
    assert model.device.type == "meta"
    _, (input_ids, lengths, labels) = batches(spotter, "meta")
    logits = model(input_ids, lengths)
    assert (logits.shape, logits.device.type) == ((BATCH, 3), "meta")
    loss = model.training_step((input_ids, lengths, labels), 0)  # self.log only warns here
    assert (loss.shape, loss.device.type) == ((), "meta")


def test_without_the_factory_fixes_it_trains_on_cpu_but_mixes_devices(
    projects: rt.Projects, load: rt.Loader, tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    """The meta check is not vacuous: with DEV001/DEV002 fixed but not DEV003 it fails.

    On the CPU the missing ``device=`` is invisible (the CPU is where the tensors are
    made); on any other device, ``meta`` here or a GPU, the forward pass breaks.
    """
    project = projects.fixed(NAME, "--select", "DEV001,DEV002")
    (spotter,) = load(project / "src", "spotter")
    model = spotter.KeywordSpotter()
    loader, _ = batches(spotter)
    rt.trainer(model, "cpu", tmp_path).fit(model, loader)
    model = spotter.KeywordSpotter().to("meta")
    _, (input_ids, lengths, _) = batches(spotter, "meta")
    with pytest.raises(RuntimeError, match=ON_META):
        model(input_ids, lengths)
