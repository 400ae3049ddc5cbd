"""Finding, in a file's text, the calls that may run a function of a given name.

A later pass analyses again only the files that may call one of the project's functions
found to return processor output (``encode``, ``preprocess``): reading the text is much
cheaper than reading the file with ``ast`` again. The answer may be a wrong yes, never a
wrong no: a match counts unless it surely is no call DEV004's screen counts, which, for a
file not parsed with libcst, knows the names the file binds. Both ask the one question
which receivers may name such a function (``receiver_may_name``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

_GAP = r"(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n)|#[^\r\n]*)*"
"""What may stand between two tokens: blanks, line breaks (in brackets), continuation
backslashes and comments."""

_WORD = re.compile(r"\w")


def may_call(
    text: str,
    names: frozenset[str],
    bound: frozenset[str] | None,
    on_any_receiver: frozenset[str] = frozenset(),
) -> bool:
    """Whether the text may call one of the functions: a name, as a whole word (``encode``
    is not in ``encoder``), before a ``(`` or an ``as`` (imported under another name).
    With ``bound`` (the names the file binds), not where it is surely defined
    (``def encode(``) or a method of a receiver that cannot be the project's function
    (``_surely_no_call``), unless a call on any receiver may reach it
    (``on_any_receiver``)."""
    if not any(name in text for name in names):
        return False  # the common case, found without the regular expression
    call = _calls_of(names)
    found = call.search(text)
    while found is not None:
        start = found.start()
        if (start == 0 or not _WORD.match(text, start - 1)) and (  # a whole word
            bound is None
            or found.group("name") in on_any_receiver
            or not _surely_no_call(text, start, bound)
        ):
            return True
        found = call.search(text, start + 1)
    return False


@cache
def _calls_of(names: frozenset[str]) -> re.Pattern[str]:
    """A name, then a ``(`` or an ``as``; whether it is a whole word ``may_call`` asks of
    each match: an assertion before the names (``\\b``, a lookbehind) would keep the regex
    engine from skipping ahead to their first letters, three times slower on big files."""
    alternatives = "|".join(map(re.escape, sorted(names)))
    return re.compile(rf"(?P<name>{alternatives}){_GAP}(?:\(|as\b)")


def receiver_may_name(receiver: str, binds: Callable[[str], bool]) -> bool:
    """Whether ``receiver.f(...)``, a method called on a dotted name, may run the project's
    function ``f`` as the traversal names callees: on ``self`` alone (the class's own
    method), or on a name the file binds to a qualified name (``pkg.mod.f``, an import in
    a function too). Any other receiver's method is of an unknown class."""
    return receiver == "self" or binds(receiver.partition(".")[0])


def _surely_no_call(text: str, start: int, bound: frozenset[str]) -> bool:
    """The name at ``start`` is defined there (``def encode(``), or is a method called on a
    receiver written as a dotted name (``tok.encode(``, ``self.sp.encode(``) whose head the
    file does not bind, other than ``self`` alone: the screen resolves no such call."""
    position = _blanks_before(text, start)
    if text.endswith("def", 0, position) and (position == 3 or not _WORD.match(text, position - 4)):
        return True  # `def encode(`: a definition
    if position == 0 or text[position - 1] != ".":
        return False  # a call of the name itself, an import, or not sure
    parts = []
    while True:
        position = _blanks_before(text, position - 1)
        end = position
        while position > 0 and (text[position - 1].isalnum() or text[position - 1] == "_"):
            position -= 1
        if position == end:
            return False  # `f(x).encode(`, `"s".encode(`: no dotted name, or not sure
        parts.append(text[position:end])
        position = _blanks_before(text, position)
        if position == 0 or text[position - 1] != ".":
            break
    if position > 0 and text[position - 1] in "\n\r\\'\"":
        return False  # the receiver may go on before a line break: not sure
    return not receiver_may_name(".".join(reversed(parts)), bound.__contains__)


def _blanks_before(text: str, position: int) -> int:
    """Where the blanks (on the same line) ending at ``position`` start."""
    while position > 0 and text[position - 1] in " \t\f":
        position -= 1
    return position
