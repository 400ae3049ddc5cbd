"""The rule registry: every ``Rule`` subclass in this package, found once, by code.

Adding a rule means adding one module here; nothing else lists rules.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache

from devlint.rules.base import Rule


class SelectionError(ValueError):
    """A rule code in ``select``/``ignore`` that matches no rule."""


@cache
def all_rules() -> tuple[Rule, ...]:
    """One instance of every rule, ordered by code."""
    found: list[Rule] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            defined_here = isinstance(value, type) and value.__module__ == module.__name__
            if defined_here and issubclass(value, Rule):
                found.append(value())
    return tuple(sorted(found, key=lambda rule: rule.code))


def running_rules(codes: Iterable[str]) -> list[Rule]:
    """The rules a traversal runs for these selected codes: them, and those collecting facts."""
    return [rule for rule in all_rules() if rule.code in codes or rule.collects_facts]


def rule_by_code(code: str) -> Rule | None:
    return next((rule for rule in all_rules() if rule.code == code.upper()), None)


ALWAYS_ON = frozenset({"DEV000"})
"""A file that is not checked must never look clean."""


def _matching(selector: str, option: str) -> set[str]:
    selector = selector.strip().upper()
    if selector == "ALL":
        return {rule.code for rule in all_rules()}
    codes = {rule.code for rule in all_rules() if rule.code.startswith(selector)}
    if not codes:
        raise SelectionError(f"{option}: unknown rule code or prefix '{selector}'")
    return codes


def select_codes(
    select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str]
) -> frozenset[str]:
    """The enabled codes: ``select`` (or the defaults), plus ``extend_select``, minus ``ignore``."""
    if select is None:
        enabled = {rule.code for rule in all_rules() if rule.default_enabled}
    else:
        enabled = set().union(*(_matching(code, "select") for code in select))
    enabled |= set().union(*(_matching(code, "extend-select") for code in extend_select))
    enabled -= set().union(*(_matching(code, "ignore") for code in ignore))
    return frozenset(enabled | ALWAYS_ON)
