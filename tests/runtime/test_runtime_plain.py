"""``fixtures/runtime_plain``: code that already runs, and must run the same after the fix.

``tinynet/layers.py`` holds plain ``nn.Module`` layers written to follow their
input (``device=x.device``, buffers, ``new_zeros``): devlint reports nothing
there and the fix leaves the file alone. ``tinynet/regressor.py`` is a
LightningModule written and run on a laptop CPU, with ``torch.zeros(...)`` in
``forward`` and ``torch.randn(...)`` in ``training_step`` (DEV003): it trains on
the CPU as written, gives bit-identical results after the fix for the same
seed, and only the fixed version follows the module to another device.
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

NAME = "runtime_plain"
BATCH, SEQ, FEATURES = 8, 6, 4


def batch(device: str = "cpu", size: int = BATCH) -> tuple[Any, Any, Any]:
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(size, SEQ, FEATURES, generator=generator)
    lengths = torch.randint(1, SEQ + 1, (size,), generator=generator)
    target = x[..., 0].sum(dim=1) / lengths
    return x.to(device), lengths.to(device), target.to(device)


def loader() -> Any:
    data = torch.utils.data.TensorDataset(*batch(size=48))
    return torch.utils.data.DataLoader(data, batch_size=BATCH, shuffle=True)


def test_the_fix_leaves_the_plain_layers_alone(projects: rt.Projects) -> None:
    original = (projects.original(NAME) / "tinynet" / "layers.py").read_bytes()
    assert (projects.fixed(NAME) / "tinynet" / "layers.py").read_bytes() == original


@pytest.mark.parametrize("device", [*DEVICES, pytest.param("meta", id="meta")])
def test_the_plain_layers_run_anywhere_as_written(
    projects: rt.Projects, load: rt.Loader, device: str
) -> None:
    (layers,) = load(projects.original(NAME), "tinynet.layers")
    encoder = layers.SequenceEncoder(FEATURES, dim=16).to(device)
    x, lengths, _ = batch(device)
    out = encoder(x, lengths)
    assert (out.shape, out.device.type) == ((BATCH, 16), device)


def test_it_runs_as_written_and_the_fix_changes_no_result(
    projects: rt.Projects, load: rt.Loader, tmp_path: Path
) -> None:
    results = []
    for project in (projects.original(NAME), projects.fixed(NAME)):
        (regressor,) = load(project, "tinynet.regressor")
        torch.manual_seed(0)
        model = regressor.SequenceRegressor(in_dim=FEATURES)
        fit = rt.trainer(model, "cpu", tmp_path)
        fit.fit(model, loader())
        assert fit.global_step == 3
        with torch.no_grad():
            results.append((rt.snapshot(model), model(*batch()[:2])))
    rt.assert_same_tensors(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])


@pytest.mark.parametrize("device", DEVICES)
def test_after_fix_it_trains_and_predicts(
    projects: rt.Projects, load: rt.Loader, device: str, tmp_path: Path
) -> None:
    (regressor,) = load(projects.fixed(NAME), "tinynet.regressor")
    model = regressor.SequenceRegressor(in_dim=FEATURES)
    before = rt.snapshot(model)
    fit = rt.trainer(model, device, tmp_path)
    fit.fit(model, loader())
    assert fit.global_step == 3
    assert "head.weight" in rt.changed(before, rt.snapshot(model))
    model.to(device).eval()
    with torch.no_grad():
        out = model(*batch(device)[:2])
    assert (out.shape, out.device.type) == ((BATCH,), device)


def test_only_the_fixed_regressor_follows_the_module(
    projects: rt.Projects, load: rt.Loader, recwarn: pytest.WarningsRecorder
) -> None:
    (original,) = load(projects.original(NAME), "tinynet.regressor")
    model = original.SequenceRegressor(in_dim=FEATURES).to("meta")
    with pytest.raises(RuntimeError, match=ON_META):
        model(*batch("meta")[:2])

    (fixed,) = load(projects.fixed(NAME), "tinynet.regressor")
    model = fixed.SequenceRegressor(in_dim=FEATURES).to("meta")
    out = model(*batch("meta")[:2])
    assert (out.shape, out.device.type) == ((BATCH,), "meta")
    loss = model.training_step(batch("meta"), 0)  # self.log only warns here
    assert (loss.shape, loss.device.type) == ((), "meta")
