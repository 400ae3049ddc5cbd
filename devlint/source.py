"""Bytes to text and back, losing nothing: encoding cookies, BOM and newlines survive."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""Python's line ends; ``str.splitlines`` also breaks on form feeds and more."""


class SourceError(Exception):
    """The file's bytes cannot be turned into Python source text."""

    def __init__(self, message: str, row: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.row, self.column = row, column
        """Where in the file the problem is (a notebook's JSON error has a place)."""


@dataclass(frozen=True)
class SourceText:
    """Decoded source plus the codec that turns it back into the original bytes."""

    text: str
    encoding: str

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)

    def views(self, display: str) -> dict[str, str]:
        """The texts the user reads, by the name rows count in (a notebook has one per cell)."""
        return {display: self.text}


def decode_source(data: bytes) -> SourceText:
    """Decode as Python does (PEP 263 cookie, UTF-8 BOM) without translating newlines."""
    if b"\x00" in data:
        raise SourceError("source contains a NUL byte")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        # Undecodable bytes in the first two lines also land here; say which bytes.
        encoding = "utf-8"
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            pass
        else:
            if str(error).startswith("unknown encoding"):
                # A codec a package registers as the program starts (`coding:
                # future_fstrings`) transforms UTF-8 source: read it as written.
                return SourceText(text, encoding)
            raise SourceError(str(error)) from None
    try:
        return SourceText(data.decode(encoding), encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceError(f"cannot decode as {encoding}: {error}") from None


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer sees them, each keeping its line break.

    ``str.splitlines`` is wrong here: it also breaks on form feeds and other
    characters that are not line ends in Python source.
    """
    lines: list[str] = []
    start = 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text) or not lines:
        lines.append(text[start:])
    return lines


def lines_without_breaks(text: str) -> list[str]:
    """Lines as Python's tokenizer sees them, without their line breaks."""
    return LINE_BREAK.split(text)


def line_offsets(text: str) -> list[int]:
    """Offset in ``text`` of the start of each line (index 0 is row 1)."""
    return [0, *(match.end() for match in LINE_BREAK.finditer(text))]
