"""``fixtures/runtime_datamodule``: a ViT fine-tuned from a LightningDataModule.

The DataModule's collate function returns image-processor output (a
``BatchFeature``): correct, the trainer moves batches, and devlint leaves it
alone. The classifier's ``classify`` helper calls the processor itself and
feeds the model unmoved (DEV004): it works on the CPU, where the code was run,
and breaks on any other device. After ``devlint fix --write`` training and
``classify`` give bit-identical results on the CPU, and ``classify`` follows the
module to ``meta``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import runtime_support as rt
from runtime_support import DEVICES, ON_META, torch

pytestmark = rt.QUIET
projects = rt.projects
load = rt.load
image_ckpt = rt.image_ckpt

NAME = "runtime_datamodule"
LABELS = ("empty", "filled", "hollow")


def build(load: rt.Loader, project: Path, checkpoint: Path) -> tuple[Any, Any, Any]:
    """The classifier, the DataModule, and the module ``shapes.data``."""
    data, model = load(project, "shapes.data", "shapes.model")
    torch.manual_seed(0)
    classifier = model.ShapeClassifier(str(checkpoint))
    datamodule = data.ShapesDataModule(str(checkpoint), batch_size=8, size=32)
    return classifier, datamodule, data


def images(data: Any, count: int = 4) -> list[Any]:
    rng = np.random.default_rng(7)
    return [data.draw(i % len(LABELS), rng) for i in range(count)]


def test_it_runs_as_written_and_the_fix_changes_no_result(
    projects: rt.Projects, load: rt.Loader, image_ckpt: Path, tmp_path: Path
) -> None:
    """It already ran on the CPU: after the fix, the same seed gives the same bits."""
    results = []
    for project in (projects.original(NAME), projects.fixed(NAME)):
        classifier, datamodule, data = build(load, project, image_ckpt)
        torch.manual_seed(0)
        fit = rt.trainer(classifier, "cpu", tmp_path)
        fit.fit(classifier, datamodule=datamodule)
        assert fit.global_step == 3
        pictures = images(data)
        results.append((rt.snapshot(classifier), classifier.classify(pictures)))
    rt.assert_same_tensors(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]
    assert len(results[1][1]) == 4 and set(results[1][1]) <= set(LABELS)


@pytest.mark.parametrize("device", DEVICES)
def test_after_fix_it_trains_and_classifies(
    projects: rt.Projects, load: rt.Loader, image_ckpt: Path, device: str, tmp_path: Path
) -> None:
    classifier, datamodule, data = build(load, projects.fixed(NAME), image_ckpt)
    before = rt.snapshot(classifier)
    fit = rt.trainer(classifier, device, tmp_path)
    fit.fit(classifier, datamodule=datamodule)
    assert fit.global_step == 3
    assert "model.classifier.weight" in rt.changed(before, rt.snapshot(classifier))

    classifier.to(device).eval()
    pixel_values = datamodule.processor(images(data), return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        logits = classifier(pixel_values.to(device))
    assert logits.shape == (4, len(LABELS)) and logits.device.type == device
    labels = classifier.classify(images(data))
    assert len(labels) == 4 and set(labels) <= set(LABELS)


def test_classify_follows_the_module_after_fix_only(
    projects: rt.Projects, load: rt.Loader, image_ckpt: Path
) -> None:
    """On ``meta`` the ViT runs to its logits with the fixed code, not with the original."""
    original, _, data = build(load, projects.original(NAME), image_ckpt)
    with pytest.raises(RuntimeError, match=ON_META):
        original.to("meta").classify(images(data))

    fixed, _, data = build(load, projects.fixed(NAME), image_ckpt)
    fixed.to("meta")
    logits = []

    def keep_logits(module: Any, args: Any, output: Any) -> None:
        logits.append(output.logits)
        raise rt.Reached  # `.tolist()` has no data to read on meta

    handle = fixed.model.register_forward_hook(keep_logits)
    try:
        with pytest.raises(rt.Reached):
            fixed.classify(images(data))
    finally:
        handle.remove()
    assert [(t.shape, t.device.type) for t in logits] == [((4, len(LABELS)), "meta")]


def test_the_collated_batch_is_moved_by_the_trainer(
    projects: rt.Projects, load: rt.Loader, image_ckpt: Path
) -> None:
    """Why devlint does not flag the collate function: Lightning moves its ``BatchFeature``."""
    classifier, datamodule, _ = build(load, projects.original(NAME), image_ckpt)
    datamodule.setup("fit")
    batch = next(iter(datamodule.train_dataloader()))
    assert type(batch).__name__ == "BatchFeature"
    assert {key: value.device.type for key, value in batch.items()} == {
        "pixel_values": "cpu",
        "labels": "cpu",
    }
    moved = classifier.transfer_batch_to_device(batch, torch.device("meta"), 0)
    assert {key: value.device.type for key, value in moved.items()} == {
        "pixel_values": "meta",
        "labels": "meta",
    }
