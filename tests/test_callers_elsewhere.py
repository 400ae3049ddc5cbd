"""A public function whose every call is in its own file is read as a private one: where
none of those calls passes it the device, its CPU tensors meet no device tensor.

A helper's parameters are taken to be on the computation's device. For a method, or a
private or nested function, the file's own calls decide (``flow/callers.py``); for a
public function of a program's module, they decide only once the index knows that no
other file names it (``FileFlows.meets_only_by_callers_elsewhere``,
``ProjectIndex.named_only_in``): alias-free-gan's augmentation matrices, built on the CPU
from CPU samples and moved as a whole (``C.to(img)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings as findings

_AUGMENT = """\
import torch


def luma_flip(axis, i):
    batch = i.shape[0]
    eye = torch.eye(4).unsqueeze(0).repeat(batch, 1, 1)
    axis = torch.tensor(axis + (0,))
    flip = 2 * torch.ger(axis, axis) * i.view(-1, 1, 1)
    return eye - flip


def sample(size):
    i = torch.randint(0, 2, (size,)).float()
    return luma_flip((1.0, 1.0, 1.0), {argument})


def augment(img):
    noise = torch.randn(img.shape, device=img.device)
    mat = sample(img.shape[0]).to(img)
    return img @ mat + noise
"""

_TRAIN = """\
import torch

from pkg.aug import augment


def train(images, device):
    for img in images:
        print(augment(img.to(device)))


if __name__ == "__main__":
    train([torch.rand(2, 4, 4)], "cuda" if torch.cuda.is_available() else "cpu")
"""

_CALLER = """\
from pkg.aug import luma_flip


def flip(x):
    return luma_flip((1.0, 1.0, 1.0), x)
"""

_LOOKUP = "import importlib\n\nm = importlib.import_module(name)\nrun = getattr(m, function)\n"

_FOUND = [("aug.py", 6, 11)]


@pytest.mark.parametrize(
    ("argument", "more", "expected"),
    [
        ("i", {}, []),
        ("i", {"pkg/other.py": _CALLER}, _FOUND),
        ("i", {"pkg/other.py": "from pkg.aug import luma_flip\n"}, []),
        ("i", {"setup.py": "from setuptools import setup\n\nsetup(name='pkg')\n"}, _FOUND),
        ("i.cuda()", {}, _FOUND),
        ("i", {"pkg/load.py": _LOOKUP}, _FOUND),
        ("i", {"pkg/load.py": "import importlib\n\nm = importlib.import_module(name)\n"}, []),
    ],
    ids=[
        "every call in its file passes CPU data",
        "another file calls it",
        "another file only imports it",
        "a package others may call",
        "its file's call passes the device",
        "code found by a computed name",
        "a module loaded by a computed name, nothing looked up in it",
    ],
)
def test_a_public_function_called_only_in_its_file_is_judged_by_those_calls(
    argument: str, more: dict[str, str], expected: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    files = {"pkg/aug.py": _AUGMENT.format(argument=argument), "pkg/train.py": _TRAIN, **more}
    assert sorted(findings(tmp_path, files, "DEV003")) == expected
