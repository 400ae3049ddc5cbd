"""What ``from <module> import *`` binds, read from the facts of the project's files.

A star import binds the names its module lists in ``__all__`` (without one: every name
not starting with ``_``), among them those the module imports itself (``import torch``,
``from torch import nn``) and those its own star imports bind, transitively. In an import
cycle a module gives what it binds without the cycle. A module outside the project
(``from torch import *``) binds names devlint cannot know: they stay unknown, and so
does what the file's earlier star imports bound, which it may bind again. A module of
one of the project's packages that devlint does not see (a compiled extension) binds
nothing known and leaves the rest as it is: the package's own names are the project's.
A file's own imports and definitions win over what its star imports bind.
"""

from __future__ import annotations

from collections.abc import Mapping

from devlint.facts import FileFacts

Bindings = tuple[tuple[str, str], ...]
"""Bound names and the qualified names they stand for, sorted (``FileJob.star_bound``)."""


def star_bound(modules: Mapping[str, FileFacts]) -> dict[str, Bindings]:
    """For each module of ``modules`` (the project's, by name) whose star imports bind
    something: what they bind there."""
    stars = _Stars(modules)
    found = {}
    for module, facts in modules.items():
        if facts.stars:
            bound = stars.bound(module)
            if bound:
                found[module] = tuple(sorted(bound.items()))
    return found


class _Stars:
    """Star imports resolved module by module, each once."""

    def __init__(self, modules: Mapping[str, FileFacts]) -> None:
        self._modules = modules
        self._packages = frozenset(module.partition(".")[0] for module in modules)
        self._bound: dict[str, dict[str, str]] = {}
        self._open: set[str] = set()
        """Modules whose star imports are being resolved: met again, a cycle."""

    def bound(self, module: str) -> dict[str, str]:
        """The names the star imports of ``module`` (a project module) bind in it."""
        known = self._bound.get(module)
        if known is not None:
            return known
        if module in self._open:
            return {}
        self._open.add(module)
        found: dict[str, str] = {}
        for star in self._modules[module].stars:
            exported = self._exports(self._project_module(star, module))
            if exported is not None:
                found.update(exported)
            elif star.partition(".")[0] not in self._packages:
                found.clear()  # another library's module may bind any of these names again
        self._open.discard(module)
        self._bound[module] = found
        return found

    def _exports(self, module: str | None) -> dict[str, str] | None:
        """What ``from <module> import *`` binds; None: unknown (not a project module)."""
        facts = self._modules.get(module) if module is not None else None
        if module is None or facts is None:
            return None
        names = {**self.bound(module), **facts.aliases}
        if facts.exports is None:
            return {name: target for name, target in names.items() if not name.startswith("_")}
        return {name: names[name] for name in facts.exports if name in names}

    def _project_module(self, name: str, near: str) -> str | None:
        """The project module a star import in ``near`` names: as written, or (a script's
        ``from model import *``, in a folder that is no package) a sibling's name."""
        if name in self._modules:
            return name
        package = near.rpartition(".")[0]
        while package:
            if f"{package}.{name}" in self._modules:
                return f"{package}.{name}"
            package = package.rpartition(".")[0]
        return None
