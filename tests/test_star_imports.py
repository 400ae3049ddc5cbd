"""Star imports: what ``from <module> import *`` binds, and findings that need it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from devlint.analysis import FileJob, analyze_text
from devlint.cli import main
from devlint.facts import FileFacts
from devlint.rules.base import RuleSettings
from devlint.stars import star_bound


def _facts(
    module: str,
    aliases: dict[str, str] | None = None,
    stars: tuple[str, ...] = (),
    exports: tuple[str, ...] | None = None,
) -> FileFacts:
    return FileFacts(module, aliases=aliases or {}, stars=stars, exports=exports)


def _bound(*facts: FileFacts) -> dict[str, dict[str, str]]:
    return {
        module: dict(names) for module, names in star_bound({f.module: f for f in facts}).items()
    }


def test_a_star_binds_the_public_names_a_module_imports_and_defines() -> None:
    common = _facts(
        "pkg.common",
        {
            "torch": "torch",
            "nn": "torch.nn",
            "F": "torch.nn.functional",
            "top_k": "pkg.common.top_k",
            "_private": "pkg.common._private",
        },
    )
    user = _facts("pkg.user", {"Net": "pkg.user.Net"}, stars=("pkg.common",))
    assert _bound(common, user) == {
        "pkg.user": {
            "torch": "torch",
            "nn": "torch.nn",
            "F": "torch.nn.functional",
            "top_k": "pkg.common.top_k",
        }
    }


def test_all_says_what_a_star_binds_underscored_names_included() -> None:
    common = _facts(
        "pkg.common",
        {"torch": "torch", "helper": "pkg.common.helper", "_kernel": "pkg.common._kernel"},
        exports=("helper", "_kernel", "missing"),
    )
    user = _facts("pkg.user", stars=("pkg.common",))
    assert _bound(common, user) == {
        "pkg.user": {"helper": "pkg.common.helper", "_kernel": "pkg.common._kernel"}
    }


def test_stars_are_followed_transitively_and_the_last_binding_wins() -> None:
    leaf = _facts("pkg.a.leaf", {"torch": "torch", "rotate": "pkg.a.leaf.rotate"})
    middle = _facts("pkg.a", {"rotate": "pkg.a.rotate"}, stars=("pkg.a.leaf",))
    other = _facts("pkg.b", {"torch": "numpy"})
    top = _facts("pkg", stars=("pkg.a", "pkg.b"))
    bound = _bound(leaf, middle, other, top)
    assert bound["pkg.a"] == {"torch": "torch", "rotate": "pkg.a.leaf.rotate"}
    # pkg.a's own definition wins over its star; pkg.b's star comes after pkg.a's.
    assert bound["pkg"] == {"torch": "numpy", "rotate": "pkg.a.rotate"}


def test_a_cycle_of_stars_ends() -> None:
    first = _facts("pkg.first", {"torch": "torch"}, stars=("pkg.second",))
    second = _facts("pkg.second", {"nn": "torch.nn"}, stars=("pkg.first",))
    bound = _bound(first, second)
    assert bound["pkg.first"] == {"nn": "torch.nn", "torch": "torch"}
    assert bound["pkg.second"] == {"torch": "torch"}
    assert _bound(_facts("pkg.self", {"torch": "torch"}, stars=("pkg.self",))) == {
        "pkg.self": {"torch": "torch"}
    }


def test_a_star_from_outside_the_project_leaves_its_names_and_earlier_stars_unknown() -> None:
    common = _facts("pkg.common", {"torch": "torch", "nn": "torch.nn"})
    late = _facts("pkg.late", stars=("pkg.common", "torch"))
    early = _facts("pkg.early", stars=("torch", "pkg.common"))
    only = _facts("pkg.only", stars=("torch.nn",))
    bound = _bound(common, late, early, only)
    assert "pkg.late" not in bound  # `from torch import *` may bind `torch` or `nn` again
    assert bound["pkg.early"] == {"torch": "torch", "nn": "torch.nn"}
    assert "pkg.only" not in bound


def test_a_module_of_the_project_that_devlint_does_not_see_binds_nothing_known() -> None:
    common = _facts("pkg.common", {"torch": "torch"})
    user = _facts("pkg.user", stars=("pkg.common", "pkg._compiled", "pkg.missing"))
    assert _bound(common, user) == {"pkg.user": {"torch": "torch"}}


def test_a_script_star_imports_its_sibling() -> None:
    helpers = _facts("scripts.helpers", {"torch": "torch"})
    train = _facts("scripts.train", stars=("helpers",))
    assert _bound(helpers, train) == {"scripts.train": {"torch": "torch"}}


_MODULE = """\
from .common import *
from torch import *
__all__ = names = ["Net", "train"]
__all__ += ("evaluate",)
"""


@pytest.mark.parametrize("prefilter", [True, False], ids=["ast", "libcst"])
def test_both_walks_record_star_imports_and_all(prefilter: bool) -> None:
    job = FileJob("m.py", "m.py", "m.py", "pkg.models", False, ("DEV003",), RuleSettings())
    facts = analyze_text(FileJob(**{**job.__dict__, "prefilter": prefilter}), _MODULE).facts
    assert facts is not None
    assert facts.stars == ("pkg.common", "torch")
    assert facts.exports == ("Net", "train", "evaluate")
    computed = analyze_text(job, "__all__ = base.__all__ + ['x']\n__all__ += ['y']\n").facts
    assert computed is not None and computed.exports is None


@pytest.mark.parametrize("prefilter", [True, False], ids=["ast", "libcst"])
def test_the_walk_starts_knowing_what_the_star_imports_bind(prefilter: bool) -> None:
    text = "from .common import *\n\nclass Net(nn.Module):\n    pass\n"
    bound = (("nn", "torch.nn"), ("torch", "torch"))
    job = FileJob("m.py", "m.py", "m.py", "pkg.m", False, ("DEV003",), RuleSettings(), prefilter)
    facts = analyze_text(FileJob(**{**job.__dict__, "star_bound": bound}), text).facts
    assert facts is not None
    assert facts.classes[0].bases == ("torch.nn.Module",)
    assert facts.aliases["torch"] == "torch"


_COMMON = """\
import torch
from torch import nn
"""

_SAMPLER = """\
from sampler_pkg.common import *


class Sampler(nn.Module):
    def generate(self, prompts: torch.Tensor):
        sample = torch.Tensor([])
        return torch.cat((prompts, sample[None]), dim=1)
"""


def _project(root: Path) -> Path:
    package = root / "sampler_pkg"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "sampler_pkg"\n')
    (package / "__init__.py").write_text("")
    (package / "common.py").write_text(_COMMON)
    (package / "sampler.py").write_text(textwrap.dedent(_SAMPLER))
    return root


def _findings(*args: str) -> list[tuple[str, int, int]]:
    result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return [
        (f["code"], f["location"]["row"], f["location"]["column"])
        for f in json.loads(result.stdout)
    ]


def test_a_finding_that_only_the_star_import_shows(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    assert _findings("--no-cache", str(project)) == [("DEV003", 6, 18)]
    (project / "sampler_pkg" / "common.py").write_text(
        "import numpy as torch\nfrom torch import nn\n"
    )
    assert _findings("--no-cache", str(project)) == []


def test_a_change_in_the_star_source_invalidates_the_importers_cached_analysis(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path / "p")
    cache = str(tmp_path / "cache")
    assert _findings("--cache-dir", cache, str(project)) == [("DEV003", 6, 18)]
    common = project / "sampler_pkg" / "common.py"
    common.write_text("import numpy as torch\nfrom torch import nn\n")
    assert _findings("--cache-dir", cache, str(project)) == []
    common.write_text(_COMMON)
    assert _findings("--cache-dir", cache, str(project)) == [("DEV003", 6, 18)]
    # Only the source changed: the importer's own analysis must not be reused as it was.
    common.write_text("import torch\nfrom torch import nn\n__all__ = ['nn']\n")
    assert _findings("--cache-dir", cache, str(project)) == []
