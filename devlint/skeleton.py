"""A file's structural facts from CPython's ``ast``, for files no rule needs to see.

The project index needs every file's imports, classes, functions and calls, even
of files where no rule can report anything (a base class, a re-export, a caller).
The traversal collects them while the rules run; for the files the prefilter
lets skip libcst, this module collects the same facts from ``ast``, which parses
about ten times faster. Both must agree exactly: ``tests/test_prefilter.py``
compares them on every fixture, example and generated program.

The libcst traversal visits a class's body before its bases and decorators, a
``case`` body before its guard and an ``except`` body before its type; the walk
here keeps that order, because a module-level call is resolved through the
imports seen so far.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from devlint.candidates import Scope
from devlint.facts import (
    Fact,
    FileFacts,
    Reference,
    absolute_module,
    class_facts,
    function_facts,
    resolve_alias,
)
from devlint.source import split_lines


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Constant) and any(node.value is v for v in (True, False, None)):
        parts.append(repr(node.value))  # names to libcst, as they were in Python 2
    else:
        return None
    return ".".join(reversed(parts))


@dataclass
class _Function:
    name: str
    class_name: str | None
    """The class it is a method of."""
    calls: set[str] = field(default_factory=set)
    self_calls: set[str] = field(default_factory=set)


@dataclass
class _Class:
    name: str
    bases: list[str]
    defines_device: bool
    methods: list[str] = field(default_factory=list)


_WORD_OF: dict[type[ast.AST], Callable[[Any], tuple[str, ...]]] = {
    ast.Name: lambda node: (node.id,),
    ast.Attribute: lambda node: (node.attr,),
    ast.keyword: lambda node: (node.arg or "",),
    ast.arg: lambda node: (node.arg,),
    ast.FunctionDef: lambda node: (node.name,),
    ast.AsyncFunctionDef: lambda node: (node.name,),
    ast.ClassDef: lambda node: (node.name,),
    ast.alias: lambda node: (node.name, node.asname or ""),
    ast.ImportFrom: lambda node: (node.module or "",),
    ast.Global: lambda node: tuple(node.names),
    ast.Nonlocal: lambda node: tuple(node.names),
}
"""The identifiers each kind of node holds (string values: ``_Walk._constant``)."""

_IMPORT_PARTS = (ast.alias, ast.ImportFrom)

_LEAVE = object()
"""Stack marker: the node below it is being left."""


class _Walk:
    def __init__(
        self,
        text: str,
        module: str,
        is_package: bool,
        references: bool,
        collect: frozenset[type[ast.AST]],
    ) -> None:
        self._text = text
        self._references = references
        self._module = module
        self._is_package = is_package
        self._aliases: dict[str, str] = {}
        self._classes: list[_Class] = []
        self._functions: list[_Function] = []
        self._frames: list[_Class | _Function | None] = []
        self._frame: _Class | _Function | None = None
        """The innermost class or (outermost) function: the traversal's scope."""
        self._function: _Function | None = None
        self._facts: list[Fact] = []
        self._seen_references: set[tuple[str, bool]] = set()
        self._main_guards = 0
        self.words: list[str] = []
        """What rules can read in the code: every identifier, and every string literal's
        value as Python evaluates it (escapes, concatenation), quoted; not comments, nor
        strings that are statements on their own (docstrings), which no rule reads."""
        self.module_words: list[str] = []
        """The words outside every function and class, and of every import."""
        self._inert: set[int] = set()
        self.nodes: dict[type[ast.AST], list[ast.AST]] = {kind: [] for kind in collect}
        """The nodes of the kinds the rules' screens read, in the order of the walk."""
        self.frames: dict[int, _Class | _Function | None] = {}
        """The scope frame each collected node is in (by the node's id)."""

    @cached_property
    def _lines(self) -> list[str]:
        """Lines as ``ast`` numbers them; needed only for rare questions, so split on demand."""
        return split_lines(self._text)

    def run(self, tree: ast.Module) -> None:
        """Visit every node once (an explicit stack: no recursion limit), in libcst's order."""
        reordered = _REORDERED
        frames = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        # Most nodes (operators, tuples, ``if``s...) hold no word or fact: skip ``_enter``.
        busy = {*self.nodes, *_WORD_OF, *_ACTIONS, ast.Constant, ast.Expr}
        stack: list[object] = [tree]
        while stack:
            node = stack.pop()
            if node is _LEAVE:
                stack.pop()
                self._frames.pop()
                self._update_function()
                continue
            assert isinstance(node, ast.AST)
            kind = type(node)
            if kind in busy:
                self._enter(node, kind)
            if kind in frames:
                stack += (node, _LEAVE)
            if kind in reordered:
                stack += reversed(reordered[kind](self, node))
                continue
            children: list[ast.AST] = []
            for name in _child_fields(kind):
                value = getattr(node, name, None)
                if isinstance(value, list):
                    children += [item for item in value if isinstance(item, ast.AST)]
                elif isinstance(value, ast.AST):
                    children.append(value)
            stack += reversed(children)

    def facts(self, path: str) -> FileFacts:
        aliases = self._aliases
        return FileFacts(
            module=self._module,
            path=path,
            aliases=dict(aliases),
            classes=tuple(
                class_facts(c.name, c.bases, c.methods, c.defines_device, aliases)
                for c in self._classes
            ),
            functions=tuple(
                function_facts(f.name, f.calls, f.self_calls, aliases) for f in self._functions
            ),
            facts=tuple(self._facts),
        )

    # Order -------------------------------------------------------------------

    def _main_guard_children(self, node: ast.If) -> list[object]:
        """A main-guard ``if`` body is bracketed by markers, so the walk knows it is inside."""
        if not self._is_main_test(node.test):
            return [node.test, *node.body, *node.orelse]
        return [node.test, _GUARD_OPEN, *node.body, _GUARD_CLOSE, *node.orelse]

    # Events ------------------------------------------------------------------

    def _enter(self, node: ast.AST, kind: type[ast.AST]) -> None:
        collected = self.nodes.get(kind)
        if collected is not None:
            collected.append(node)
            self.frames[id(node)] = self._frame
        word = _WORD_OF.get(kind)
        if word is not None:
            # An import anywhere binds a name the module's own code resolves (traversal).
            self._add_words(word(node), binds_module_names=kind in _IMPORT_PARTS)
        elif kind is ast.Constant:
            self._constant(node)  # type: ignore[arg-type]
        elif kind is ast.Expr and type(node.value) is ast.Constant:  # type: ignore[attr-defined]
            self._inert.add(id(node.value))  # type: ignore[attr-defined]
        action = _ACTIONS.get(kind)
        if action is not None:
            action(self, node)

    def _marker(self, node: _Marker) -> None:
        self._main_guards += 1 if node is _GUARD_OPEN else -1

    def _add_words(self, words: tuple[str, ...], *, binds_module_names: bool = False) -> None:
        self.words += words
        if not self._frames or binds_module_names:
            self.module_words += words

    def _constant(self, node: ast.Constant) -> None:
        value = node.value
        if id(node) in self._inert:
            return
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if isinstance(value, str):
            self._add_words((f'"{value}"',))

    def _innermost_frame(self) -> _Class | _Function | None:
        return next((frame for frame in reversed(self._frames) if frame is not None), None)

    def _update_function(self) -> None:
        frame = self._frame = self._innermost_frame()
        self._function = frame if isinstance(frame, _Function) else None

    def _enter_class(self, node: ast.ClassDef) -> None:
        enclosing = self._innermost_frame()
        name = f"{enclosing.name if enclosing else self._module}.{node.name}"
        bases = [
            dotted(base.value if isinstance(base, ast.Starred) else base) for base in node.bases
        ]
        frame = _Class(name, [base for base in bases if base], self._defines_device(node))
        self._classes.append(frame)
        if not self._frames:
            self._aliases[node.name] = name
        self._frames.append(frame)
        self._frame = frame
        self._function = None

    def _enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self._function is not None:
            self._frames.append(None)  # a nested function belongs to its enclosing one
            return
        if not self._frames:
            self._aliases[node.name] = f"{self._module}.{node.name}"
        owner = self._frames[-1] if self._frames else None
        method_of = owner if isinstance(owner, _Class) else None
        owner_name = method_of.name if method_of else None
        frame = _Function(f"{owner_name or self._module}.{node.name}", owner_name)
        if method_of is not None:
            method_of.methods.append(node.name)
        self._functions.append(frame)
        self._frames.append(frame)
        self._frame = self._function = frame

    def _defines_device(self, node: ast.ClassDef) -> bool:
        if self._on_header_line(node.body[0]):
            return False  # `class A: device = x` (a one-line body): the traversal skips it too
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if statement.name == "device":
                    return True
                continue
            targets: list[ast.expr] = []
            if isinstance(statement, ast.Assign):
                targets = statement.targets
            elif isinstance(statement, ast.AnnAssign):
                targets = [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "device" for t in targets):
                return True
        return False

    def _on_header_line(self, first: ast.stmt) -> bool:
        """Whether the statement shares its logical line with what comes before it (lines
        joined by backslashes count as one)."""
        row = first.lineno - 1
        before = self._lines[row].encode()[: first.col_offset]
        while not before.strip() and row > 0 and self._lines[row - 1].rstrip("\r\n").endswith("\\"):
            row -= 1
            before = self._lines[row].rstrip("\r\n")[:-1].encode()
        return bool(before.strip())

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                self._aliases[alias.asname] = alias.name
            else:
                head = alias.name.split(".", 1)[0]
                self._aliases[head] = head
                if self._references and "." in alias.name:  # `import pkg.env` runs pkg/env.py
                    caller = self._function.name if self._function else ""
                    guarded = self._main_guards > 0
                    self._facts.append(Reference(alias.name, caller, main_guard=guarded))

    def _import_from(self, node: ast.ImportFrom) -> None:
        base = absolute_module(self._module, self._is_package, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                return
            bound = alias.asname or alias.name
            self._aliases[bound] = f"{base}.{alias.name}" if base else alias.name

    def _call(self, node: ast.Call) -> None:
        if self._function is not None:
            name = dotted(node.func)
            if name is None:
                return
            if name.startswith("self.") and name.count(".") == 1:
                self._function.self_calls.add(name[5:])
            else:
                self._function.calls.add(name)
            return
        if not self._references:
            return
        # Module-level code: the call, and the functions it hands over, are references.
        values = [node.func]
        values += [arg.value if isinstance(arg, ast.Starred) else arg for arg in node.args]
        values += [keyword.value for keyword in node.keywords]
        guarded = self._main_guards > 0
        for value in values:
            name = dotted(value)
            if name is None:
                continue
            callee = resolve_alias(name, self._aliases)
            if callee is None:
                if "." in name:
                    continue
                callee = f"{self._module}.{name}"
            if (callee, guarded) not in self._seen_references:
                self._seen_references.add((callee, guarded))
                self._facts.append(Reference(callee, main_guard=guarded))

    def _is_main_test(self, test: ast.expr) -> bool:
        """``__name__ == "__main__"``, the string a single literal (as the traversal sees it)."""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return False
        if not isinstance(test.ops[0], ast.Eq):
            return False
        sides = [test.left, test.comparators[0]]
        names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
        strings = [s for s in sides if _single_literal(s, "__main__", self._lines)]
        return len(names) == 1 and len(strings) == 1


_REORDERED: dict[type[ast.AST], Callable[[_Walk, Any], list[object]]] = {
    ast.ClassDef: lambda _, n: [*n.body, *n.bases, *n.keywords, *n.decorator_list],
    ast.ExceptHandler: lambda _, n: [*n.body, *([n.type] if n.type else [])],
    ast.match_case: lambda _, n: [n.pattern, *n.body, *([n.guard] if n.guard else [])],
    ast.If: _Walk._main_guard_children,
}
"""Child nodes in the order the libcst traversal visits their counterparts, where it
differs from ``ast``'s. (Tables of the class, not of each walk: a walk that referred to
itself would live, with every node it kept, until the next full garbage collection.)"""


_TOKEN_FIELDS = frozenset({"ctx", "op", "ops"})
"""Fields holding only tokens (``Load``, ``Add``, ``Eq``): no word, fact or screen reads them."""


_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _child_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(n for n in kind._fields if n not in _TOKEN_FIELDS)
    return fields


class _Marker(ast.AST):
    """Brackets the body of ``if __name__ == "__main__":`` in the walk."""


_GUARD_OPEN = _Marker()
_GUARD_CLOSE = _Marker()

_ACTIONS: dict[type[ast.AST], Callable[[_Walk, Any], None]] = {
    ast.Call: _Walk._call,
    ast.FunctionDef: _Walk._enter_function,
    ast.AsyncFunctionDef: _Walk._enter_function,
    ast.ClassDef: _Walk._enter_class,
    ast.Import: _Walk._import,
    ast.ImportFrom: _Walk._import_from,
    _Marker: _Walk._marker,
}


def _single_literal(node: ast.expr, value: str, lines: list[str]) -> bool:
    """A string constant written as one literal (``"a" "b"`` is two, an f-string none)."""
    if not isinstance(node, ast.Constant) or node.value != value:
        return False
    if node.end_lineno != node.lineno or node.end_col_offset is None:
        return False
    code = lines[node.lineno - 1].encode()[node.col_offset : node.end_col_offset].decode()
    body = code.lstrip("rRuUbB")
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    return body.endswith(quote) and quote not in body[len(quote) : len(body) - len(quote)]


@dataclass(frozen=True)
class Skeleton:
    facts: FileFacts
    """The facts the libcst traversal would collect from the file with no rule running."""
    code: str
    """The words rules can read, one per line (see ``_Walk.words``): the prefilter looks
    for triggers here, not in the text, where ``"\\x63uda"`` hides a ``"cuda"`` and a
    docstring shows words no rule reads."""
    module_code: str
    """The same, of the code outside every function and class and of every import (an
    import in a function binds a module-wide name for the traversal)."""
    nodes: Mapping[type[ast.AST], Sequence[ast.AST]] = field(default_factory=dict)
    """The nodes of the kinds asked for (``Rule.screen_types``), for the rules' screens."""
    from_ast: bool = True
    """False for raw text taken as its own code (``prefilter.parse_at_once``): no nodes,
    so rules with a screen do not judge it."""
    frames: Mapping[int, _Class | _Function | None] = field(default_factory=dict)

    def of_type(self, *kinds: type[ast.AST]) -> Iterator[ast.AST]:
        """The nodes of these kinds (each must have been asked for), kind by kind."""
        for kind in kinds:
            yield from self.nodes[kind]

    def scope_of(self, node: ast.AST) -> Scope:
        """The scope the traversal would give a candidate at ``node`` (one of ``nodes``):
        its class, function and method names (what the index reads to place it)."""
        frame = self.frames[id(node)]
        if not isinstance(frame, _Function):
            return Scope(class_name=frame.name if frame is not None else None)
        method = frame.name.rpartition(".")[2] if frame.class_name is not None else None
        return Scope(class_name=frame.class_name, function_name=frame.name, method=method)


def skeleton(
    tree: ast.Module,
    text: str,
    module: str,
    is_package: bool,
    path: str,
    *,
    references: bool,
    collect: Iterable[type[ast.AST]] = (),
) -> Skeleton:
    """``references``: also the References a rule ``records_references`` adds (DEV009).
    ``collect``: the kinds of nodes to keep for the rules' screens."""
    walk = _Walk(text, module, is_package, references, frozenset(collect))
    walk.run(tree)
    return Skeleton(
        walk.facts(path),
        _lines_of(walk.words),
        _lines_of(walk.module_words),
        walk.nodes,
        frames=walk.frames,
    )


def _lines_of(words: list[str]) -> str:
    """One word per line, each line ended: ``"\\nload\\n"`` finds the whole word ``load``."""
    return "\n" + "\n".join(words) + "\n"
