"""Import a module on first use instead of at ``import`` time.

A warm run reads every file's analysis from the cache: it parses nothing, yet
the rules it resolves candidates with all ``import libcst``, which costs about
a fifth of a second, most of such a run. ``import_lazily("libcst")`` puts a
stand-in under that name: ``import libcst as cst`` binds the stand-in, and the
first attribute used on it (a parse, a rule's ``isinstance``) imports libcst
and copies its namespace in, after which attribute access costs what it costs
on any module. (``importlib.util.LazyLoader`` does not do here: every later
``import`` statement touches ``__spec__`` and so loads the module at once.)
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class _StandIn(types.ModuleType):
    """Takes the place of a module in ``sys.modules`` until something uses it."""

    def __getattr__(self, attribute: str) -> Any:
        # Only reached for names not yet copied in: the first use, or a submodule
        # imported after the copy (``libcst.metadata``).
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, attribute)


def import_lazily(name: str) -> None:
    """Make ``import name`` lazy (no-op when something already imported it)."""
    if name not in sys.modules:
        stand_in = _StandIn(name)
        stand_in.__spec__ = None  # read by every `import` statement: must not load
        sys.modules[name] = stand_in
