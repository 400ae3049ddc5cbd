"""devlint: find and fix device bugs in PyTorch, Lightning and HuggingFace code."""

__version__ = "0.1.0"

from devlint.lazy_import import import_lazily

import_lazily("libcst")  # a run that parses nothing (all from the cache) never loads it
