"""Jupyter notebooks as Python source: code cells joined into one module, and back.

A notebook becomes one *virtual* Python text, so that the analysis, the rules and
the fixer see nothing but Python (a class defined in cell 1 is known in cell 3,
as it is in the kernel). Each code cell is preceded by a marker comment naming
the cell, so the cells can be told apart again in any version of the text, also
after fixes added or removed lines:

    # devlint: cell 1
    import torch
    # devlint: cell 3
    pass  # devlint: masked IPython syntax
    model = Model().cuda()

IPython syntax that is not Python (``%magic``, ``!shell``, ``x = !ls``,
``obj?``, ``pip install ...`` with automagic, whole ``%%cell`` magics) is
replaced line by line by a placeholder at the same indentation, so that the text
parses and every row keeps its number. A masked line never gets a finding or an
edit (``restrict``), and writing the notebook back restores it as it was.

Findings stay in virtual rows inside the engine (that is what fixes edit) and
are mapped to ``cell N``, row within the cell, only for the report
(``to_cells``). Writing a fixed notebook replaces the JSON text of the changed
cells' ``source`` values and nothing else, so outputs, metadata, key order,
indentation, escapes and the final newline stay byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from devlint.findings import Edit, Finding, Fix, Location, cell_name
from devlint.source import SourceError, SourceText, decode_source, split_lines

NOTEBOOK_SUFFIX = ".ipynb"

MARKER = "# devlint: cell "
"""Starts the line before each code cell in the virtual text, followed by its number."""

PLACEHOLDER = "pass  # devlint: masked IPython syntax"
"""What a masked line becomes (after its indentation)."""

_MARKER_LINE = re.compile(r"# devlint: cell (\d+)(?:\r\n|\r|\n)?")
_LINE_BREAKS = ("\r\n", "\n", "\r")

_MAGIC_ASSIGNMENT = re.compile(r"[\w.\[\]'\", ]+?\s*=\s*[!%]")
"""``files = !ls``, ``result = %timeit -o f()``: an assignment from IPython syntax."""

_AUTOMAGIC = re.compile(r"(?:pip|conda|mamba|cd)\s+[\w\-./~'\"$]")
"""``pip install x`` without ``%``: IPython runs it as a magic (automagic is on by default)."""


def is_notebook(path: object) -> bool:
    """Whether ``path`` (a str or Path) names a notebook."""
    return str(path).endswith(NOTEBOOK_SUFFIX)


def decode_file(path: object, data: bytes) -> SourceText:
    """The Python text devlint checks for a file: the source itself, or a notebook's code."""
    if is_notebook(path):
        return decode_notebook(data)
    return decode_source(data)


@dataclass(frozen=True)
class CodeCell:
    """One code cell, as the notebook holds it and as the virtual text shows it."""

    number: int
    """1-based position among all the notebook's cells (markdown cells count too)."""
    source: str
    """The cell's code (a list of lines in the JSON is joined)."""
    as_list: bool
    """The JSON holds ``source`` as a list of lines (else as one string)."""
    masked_text: str
    """``source`` with IPython syntax replaced by placeholders."""
    masked: tuple[str, ...]
    """The masked lines (without line breaks), in order."""


@dataclass(frozen=True)
class Notebook:
    """What writing the notebook back needs: its JSON text and its code cells."""

    json_text: str
    bom: str
    cells: tuple[CodeCell, ...]


@dataclass(frozen=True)
class NotebookSource(SourceText):
    """A notebook's virtual Python text; ``encode`` turns a (fixed) text into notebook bytes."""

    notebook: Notebook

    def encode(self, text: str) -> bytes:
        """The notebook's bytes with the code cells of ``text``; only changed cells differ."""
        layout = _Layout(text, self.notebook.cells)
        changes: dict[int, str | list[str]] = {}
        for cell in self.notebook.cells:
            new = layout.cell_source(cell)
            if new != cell.source:
                changes[cell.number] = new.splitlines(keepends=True) if cell.as_list else new
        if not changes:
            return (self.notebook.bom + self.notebook.json_text).encode("utf-8")
        json_text = _splice(self.notebook.json_text, changes)
        _check_splice(self.notebook.json_text, json_text, changes)
        return (self.notebook.bom + json_text).encode("utf-8")

    def views(self, display: str) -> dict[str, str]:
        """Each code cell's text (IPython lines as written), named ``display:cell N``."""
        layout = _Layout(self.text, self.notebook.cells)
        return {
            cell_name(display, cell.number): layout.cell_source(cell)
            for cell in self.notebook.cells
            if cell.number in layout.lines
        }

    def restrict(self, findings: Sequence[Finding]) -> list[Finding]:
        """Drop findings on masked lines, and fixes that would edit a masked line,
        a cell marker or more than one cell."""
        layout = _Layout(self.text, self.notebook.cells)
        kept = []
        for finding in findings:
            home = layout.code_row(finding.start.row)
            if home is None:
                continue
            fix = finding.fix
            if fix is not None and not all(layout.within(edit, home[0]) for edit in fix.edits):
                finding = replace(finding, fix=None)
            kept.append(finding)
        return kept

    def to_cells(self, findings: Sequence[Finding]) -> list[Finding]:
        """The findings with ``cell`` set and rows (of them and their edits) counted in the cell."""
        layout = _Layout(self.text, self.notebook.cells)
        mapped = []
        for finding in findings:
            cell, start = layout.locate(finding.start)
            _, end = layout.locate(finding.end, cell)
            fix = finding.fix
            if fix is not None:
                edits = tuple(
                    Edit(layout.locate(e.start, cell)[1], layout.locate(e.end, cell)[1], e.content)
                    for e in fix.edits
                )
                fix = Fix(fix.applicability, fix.message, edits)
            mapped.append(replace(finding, cell=cell, start=start, end=end, fix=fix))
        return mapped


def decode_notebook(data: bytes) -> NotebookSource:
    """Read a notebook's JSON; a file that is not a notebook raises SourceError saying why."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(
            f"not a valid notebook: not UTF-8 ({error.reason} at byte {error.start})"
        ) from None
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    json_text = text[len(bom) :]
    try:
        document = json.loads(json_text)
    except json.JSONDecodeError as error:
        raise SourceError(
            f"not a valid notebook: invalid JSON: {error.msg}", error.lineno, error.colno
        ) from None
    except RecursionError:
        raise SourceError("not a valid notebook: JSON nested too deeply") from None
    cells = tuple(_code_cells(document))
    virtual = "".join(_virtual_cell(cell) for cell in cells)
    return NotebookSource(virtual, "utf-8", Notebook(json_text, bom, cells))


def _code_cells(document: Any) -> Iterator[CodeCell]:
    if not isinstance(document, dict):
        raise SourceError("not a valid notebook: the top level is not a JSON object")
    cells = document.get("cells")
    if not isinstance(cells, list):
        if "worksheets" in document:
            raise SourceError(
                "not a valid notebook: nbformat 3 is not supported "
                "(convert it with `jupyter nbconvert --to notebook --nbformat 4`)"
            )
        raise SourceError('not a valid notebook: no "cells" list')
    if not _is_python(document.get("metadata")):
        return
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise SourceError(f"not a valid notebook: cell {number} is not a JSON object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            text, as_list = "".join(source), True
        elif isinstance(source, str):
            text, as_list = source, False
        else:
            raise SourceError(
                f'not a valid notebook: cell {number}: "source" is not a string or list of strings'
            )
        masked_text, masked = mask_cell(text)
        yield CodeCell(number, text, as_list, masked_text, masked)


def _is_python(metadata: Any) -> bool:
    """False only when the notebook says its kernel's language is not Python (R, Julia...)."""
    if not isinstance(metadata, dict):
        return True
    for section, key in (("kernelspec", "language"), ("language_info", "name")):
        table = metadata.get(section)
        language = table.get(key) if isinstance(table, dict) else None
        if isinstance(language, str) and language:
            return "python" in language.lower()
    return True


def _virtual_cell(cell: CodeCell) -> str:
    text = f"{MARKER}{cell.number}\n{cell.masked_text}"
    return text if text.endswith(_LINE_BREAKS) else text + "\n"


def mask_cell(source: str) -> tuple[str, tuple[str, ...]]:
    """The cell's text with IPython syntax masked, and the masked lines (without breaks)."""
    lines = split_lines(source) if source else []
    first = next((line for line in lines if line.strip()), "")
    whole_cell = first.lstrip().startswith("%%")
    out: list[str] = []
    masked: list[str] = []
    quote: str | None = None
    depth = 0
    continued = magic_continues = False
    indent = ""
    for line in lines:
        content = line.rstrip("\r\n")
        brk = line[len(content) :]
        if whole_cell or magic_continues:  # a continued magic line keeps its first line's indent
            masked.append(content)
            out.append(("" if whole_cell else indent) + PLACEHOLDER + brk)
            magic_continues = not whole_cell and content.endswith("\\")
            continue
        indent = content[: len(content) - len(content.lstrip())]
        code_end = len(content)
        if quote is None and depth == 0 and not continued:
            _, _, code_end = _scan(content, None, 0)
            if _is_magic(content.strip(), content[:code_end].strip()):
                masked.append(content)
                out.append(indent + PLACEHOLDER + brk)
                magic_continues = content.endswith("\\")
                continue
        quote, depth, code_end = _scan(content, quote, depth)
        continued = quote is None and code_end == len(content) and content.endswith("\\")
        out.append(line)
    return "".join(out), tuple(masked)


def _is_magic(stripped: str, code: str) -> bool:
    """Whether a line starting a statement is IPython syntax rather than Python."""
    if not stripped:
        return False
    if stripped.startswith(("%", "!", "?")) or code.endswith("?"):
        return True
    return bool(_MAGIC_ASSIGNMENT.match(stripped) or _AUTOMAGIC.match(stripped))


def _scan(line: str, quote: str | None, depth: int) -> tuple[str | None, int, int]:
    """Carry string and bracket state through one line (without its break).

    Returns the string still open at the end (its quote), the bracket depth and
    where the code ends (the start of a comment, else the line's length).
    """
    position = 0
    while position < len(line):
        char = line[position]
        if quote is not None:
            if char == "\\":
                position += 2
            elif line.startswith(quote, position):
                position += len(quote)
                quote = None
            else:
                position += 1
            continue
        if char == "#":
            return quote, depth, position
        if char in "\"'":
            triple = line[position : position + 3]
            quote = triple if triple in ('"""', "'''") else char
            position += len(quote)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        position += 1
    if quote in ('"', "'") and not line.endswith("\\"):
        quote = None  # an unterminated one-line string: Python's error, not ours to carry on
    return quote, depth, len(line)


class _Layout:
    """Where each row of a virtual text belongs: rows are 1-based, as in findings."""

    def __init__(self, text: str, cells: Sequence[CodeCell]) -> None:
        self.ends_with_break = {cell.number: cell.source.endswith(_LINE_BREAKS) for cell in cells}
        self.rows: list[tuple[int, int] | None] = []
        """Per row: (cell number, row in the cell), or None for a marker."""
        self.masked: set[int] = set()
        self.lines: dict[int, list[str]] = {}
        current: list[str] | None = None
        number = 0
        for row, line in enumerate(split_lines(text) if text else [], start=1):
            marker = _MARKER_LINE.fullmatch(line)
            if marker is not None:
                number = int(marker.group(1))
                current = self.lines[number] = []
                self.rows.append(None)
                continue
            if current is None:
                self.rows.append(None)
                continue
            current.append(line)
            self.rows.append((number, len(current)))
            if line.strip() == PLACEHOLDER:
                self.masked.add(row)

    def code_row(self, row: int) -> tuple[int, int] | None:
        """(cell, row in cell) of a row holding the cell's own code, else None."""
        if not 1 <= row <= len(self.rows) or row in self.masked:
            return None
        return self.rows[row - 1]

    def within(self, edit: Edit, cell: int) -> bool:
        """Whether the edit changes only unmasked code rows of ``cell``."""
        last = edit.end.row
        if edit.end.column == 1 and edit.end.row > edit.start.row:
            last -= 1  # the edit ends where that row starts: the row itself is untouched
        for row in range(edit.start.row, last + 1):
            home = self.code_row(row)
            if home is None or home[0] != cell:
                return False
        return True

    def locate(self, where: Location, cell: int | None = None) -> tuple[int | None, Location]:
        """The cell and in-cell location of a virtual location.

        A marker row, or a row past the end, is the end of the cell before it (where
        an edit deleting the cell's last line ends, or a parser reports an unclosed
        bracket). With ``cell`` given, a location outside that cell is clamped to its
        start or end.
        """
        row = where.row
        home = self.rows[row - 1] if 1 <= row <= len(self.rows) else None
        if home is not None and cell in (None, home[0]):
            return home[0], Location(home[1], where.column)
        before = next(
            (self.rows[r] for r in range(min(row, len(self.rows) + 1) - 2, -1, -1) if self.rows[r]),
            None,
        )
        if cell is None:
            if before is None:
                return None, where
            cell = before[0]
        lines = self.lines.get(cell, [])
        if before is None or before[0] != cell:
            return cell, Location(1, 1)
        if self.ends_with_break.get(cell, True):
            return cell, Location(len(lines) + 1, 1)  # after the last line's break
        last = lines[-1].rstrip("\r\n") if lines else ""
        return cell, Location(max(len(lines), 1), len(last) + 1)

    def cell_source(self, cell: CodeCell) -> str:
        """The cell's code in this text, with masked lines restored as they were."""
        lines = self.lines.get(cell.number)
        if lines is None:
            return cell.source
        restored = []
        originals = iter(cell.masked)
        for line in lines:
            content = line.rstrip("\r\n")
            if content.strip() == PLACEHOLDER:
                content = next(originals, content)
            restored.append(content + line[len(line.rstrip("\r\n")) :])
        text = "".join(restored)
        if text.endswith("\n") and not cell.source.endswith(_LINE_BREAKS):
            text = text[:-1]  # the break added after the cell's last line
        return text


# Writing back: the JSON text is edited in place, only where a code cell's source is.

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _splice(json_text: str, changes: Mapping[int, str | list[str]]) -> str:
    """``json_text`` with the ``source`` of the changed cells (by number) replaced."""
    ensure_ascii = not any(ord(char) > 127 for char in json_text) and bool(
        re.search(r"\\u[0-9a-fA-F]{4}", json_text)
    )
    replacements: list[tuple[int, int, str]] = []
    cells = _last_member(json_text, 0, "cells")
    assert cells is not None
    for number, (start, _) in enumerate(_items(json_text, cells[0]), start=1):
        if number not in changes:
            continue
        span = _last_member(json_text, start, "source")
        if span is None:  # no "source" key (read as empty): add one first
            raise SourceError(f'cell {number} has no "source" to rewrite')
        new = _render(json_text, span, changes[number], ensure_ascii)
        replacements.append((*span, new))
    for start, end, new in sorted(replacements, reverse=True):
        json_text = json_text[:start] + new + json_text[end:]
    return json_text


def _render(
    json_text: str, span: tuple[int, int], value: str | list[str], ensure_ascii: bool
) -> str:
    """The new JSON of a ``source`` value, laid out as the old one was."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=ensure_ascii)
    if not value:
        return "[]"
    start, end = span
    old_items = list(_items(json_text, start)) if json_text[start] == "[" else []
    raw: dict[str, str] = {}
    for item_start, item_end in old_items:  # unchanged lines keep their exact escapes
        token = json_text[item_start:item_end]
        raw.setdefault(json.loads(token), token)
    tokens = [raw.get(line) or json.dumps(line, ensure_ascii=ensure_ascii) for line in value]
    if not old_items:
        return "[" + ", ".join(tokens) + "]"
    opening = json_text[start + 1 : old_items[0][0]]
    closing = json_text[old_items[-1][1] : end - 1]
    # Lines are separated as the old first two were (one line: a comma, then the opening's space).
    between = json_text[old_items[0][1] : old_items[1][0]] if old_items[1:] else "," + opening
    return "[" + opening + between.join(tokens) + closing + "]"


def _check_splice(before: str, after: str, changes: Mapping[int, str | list[str]]) -> None:
    """The spliced JSON must be the old document with just those sources replaced."""
    expected = json.loads(before)
    for number, value in changes.items():
        expected["cells"][number - 1]["source"] = value
    if json.loads(after) != expected:
        from devlint.fixer import FixError  # only on this path: the fixer needs libcst

        raise FixError("rewriting the notebook's JSON went wrong (a devlint bug); not written")


def _skip_space(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    assert match is not None
    return match.end()


def _value_end(text: str, position: int) -> int:
    return int(_DECODER.raw_decode(text, position)[1])


def _last_member(text: str, position: int, name: str) -> tuple[int, int] | None:
    """Span of the value of key ``name`` in the object at ``position`` (the last, as json does)."""
    found = None
    for key, start, end in _members(text, position):
        if key == name:
            found = (start, end)
    return found


def _members(text: str, position: int) -> Iterator[tuple[str, int, int]]:
    """Key and value span of each member of the JSON object starting at ``position``."""
    position = _skip_space(text, position)
    assert text[position] == "{"
    position = _skip_space(text, position + 1)
    if text[position] == "}":
        return
    while True:
        key, position = _DECODER.raw_decode(text, position)
        position = _skip_space(text, position)  # at ":"
        start = _skip_space(text, position + 1)
        end = _value_end(text, start)
        yield key, start, end
        position = _skip_space(text, end)
        if text[position] != ",":
            return
        position = _skip_space(text, position + 1)


def _items(text: str, position: int) -> Iterator[tuple[int, int]]:
    """Span of each item of the JSON array starting at ``position``."""
    assert text[position] == "["
    position = _skip_space(text, position + 1)
    if text[position] == "]":
        return
    while True:
        end = _value_end(text, position)
        yield position, end
        position = _skip_space(text, end)
        if text[position] != ",":
            return
        position = _skip_space(text, position + 1)
