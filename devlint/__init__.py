"""devlint: find and fix device bugs in PyTorch, Lightning and HuggingFace code."""

__version__ = "0.1.0"
