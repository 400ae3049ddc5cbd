"""Renderers that turn findings into what the user reads, one module per output format.

They only format: choosing findings, colour and the exit code belong to the caller.
"""

from typing import Literal

OutputFormat = Literal["text", "json", "sarif", "github"]
"""The values of ``--output-format`` that have a renderer."""
