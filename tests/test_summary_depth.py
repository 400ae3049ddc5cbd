"""A helper's result follows its argument through another file's helper: summaries
compose, a few calls deep (``FlowSummary.returns_via``)."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_project

CONVERSIONS = """\
import torch

pi = torch.tensor(3.14159265)


def deg2rad(tensor: torch.Tensor) -> torch.Tensor:
    return tensor * pi.to(tensor.device).type(tensor.dtype) / 180.0
"""

ROTATIONS = """\
import torch

import geo


def angle_to_rotation_matrix(angle: torch.Tensor) -> torch.Tensor:
    radians = geo.deg2rad(angle)
    cos, sin = torch.cos(radians), torch.sin(radians)
    return torch.stack([cos, sin, -sin, cos], dim=-1).view(*angle.shape, 2, 2)
"""

FRAMES = """\
import torch

from geo.rotations import angle_to_rotation_matrix


def rotation_about(angle: torch.Tensor) -> torch.Tensor:
    return angle_to_rotation_matrix(angle)
"""

DETECTOR = """\
import torch
from torch import nn

from geo import {helper}


class Detector(nn.Module):
    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        rotation = {helper}(torch.zeros(coords.size(0)))
        return coords[:, None, :] @ rotation
"""


def _findings(folder: Path, helper: str, exports: str = "*") -> list[tuple[str, int, int]]:
    files = {
        "geo/__init__.py": f"from geo.conversions import {exports}\nfrom geo.frames import *\n",
        "geo/frames.py": FRAMES,
        "geo/conversions.py": CONVERSIONS,
        "geo/rotations.py": ROTATIONS,
        "detector.py": DETECTOR.format(helper=helper),
    }
    project = lint_project(folder, files, select=("DEV003",))
    return [
        (Path(r.display).name, f.start.row, f.start.column)
        for r in project.files
        for f in r.findings
    ]


def test_the_result_follows_the_argument_through_another_files_helper(tmp_path: Path) -> None:
    assert _findings(tmp_path, "angle_to_rotation_matrix") == [("detector.py", 9, 45)]


def test_two_helpers_of_other_files_deep(tmp_path: Path) -> None:
    assert _findings(tmp_path, "rotation_about") == [("detector.py", 9, 35)]


def test_an_inner_helper_devlint_cannot_see_says_nothing(tmp_path: Path) -> None:
    # `geo.deg2rad` is not bound: its result, and so the rotation's, are unknown.
    assert _findings(tmp_path, "angle_to_rotation_matrix", exports="pi") == []
