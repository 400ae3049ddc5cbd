"""Objects a class holds, of classes other files define: ``torch.tensor`` of what a method
of one returns is a CPU tensor where that method, as its own file's flow summarises it,
returns Python data on every path (``response.json()``); a module's method returns
tensors, which ``torch.tensor`` copies on their device."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import package_findings

from devlint.cli import main

CLIENT = """\
import requests


class Client:
    def __init__(self, url):
        self.url = url

    def generate(self, prompts):
        response = requests.post(self.url, json={"prompts": prompts})
        return response.json()
"""

MODULE_CLIENT = """\
import torch
from torch import nn


class Client(nn.Module):
    def __init__(self, url):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def generate(self, prompts):
        return self.proj(prompts)
"""

INHERITED = """\
from pkg.base import Remote


class Client(Remote):
    pass
"""

TRAINER = """\
import torch

from pkg.client import Client


class Trainer:
    def __init__(self, model, url):
        self.model = model
        self.client = Client(url)

    def step(self, prompts, prompt_ids: torch.Tensor):
        completion_ids = self.client.generate(prompts)
        completion_ids = [torch.tensor(ids) for ids in completion_ids]
        completion_ids = torch.stack(completion_ids)
        return torch.cat([prompt_ids, completion_ids], dim=1)
"""

FOUND = [("trainer.py", 13, 27)]


def test_a_copy_of_the_python_data_another_files_object_returns_is_on_the_cpu(
    tmp_path: Path,
) -> None:
    files = {"pkg/client.py": CLIENT, "pkg/trainer.py": TRAINER}
    assert package_findings(tmp_path, files, "DEV003") == FOUND


def test_a_copy_of_what_a_held_module_returns_is_on_its_device(tmp_path: Path) -> None:
    files = {"pkg/client.py": MODULE_CLIENT, "pkg/trainer.py": TRAINER}
    assert package_findings(tmp_path, files, "DEV003") == []


def test_the_method_is_found_through_the_held_class_bases(tmp_path: Path) -> None:
    remote = CLIENT.replace("class Client:", "class Remote:")
    files = {"pkg/base.py": remote, "pkg/client.py": INHERITED, "pkg/trainer.py": TRAINER}
    assert package_findings(tmp_path, files, "DEV003") == FOUND


def _findings(project: Path, cache: Path) -> list[tuple[str, int, int]]:
    arguments = ["check", "--select", "DEV003", "--output-format", "json"]
    result = CliRunner().invoke(main, [*arguments, "--cache-dir", str(cache), str(project)])
    assert result.exit_code in (0, 1), result.output
    return [
        (Path(f["filename"]).name, f["location"]["row"], f["location"]["column"])
        for f in json.loads(result.stdout)
    ]


def test_a_warm_run_sees_the_other_file_change_what_its_method_returns(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "client.py").write_text(CLIENT)
    (project / "pkg" / "trainer.py").write_text(TRAINER)
    cache = tmp_path / "cache"
    assert _findings(project, cache) == FOUND
    assert _findings(project, cache) == FOUND  # warm: answered from the cache
    (project / "pkg" / "client.py").write_text(MODULE_CLIENT)
    assert _findings(project, cache) == []
    (project / "pkg" / "client.py").write_text(CLIENT)
    assert _findings(project, cache) == FOUND
