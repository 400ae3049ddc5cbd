"""Which files need libcst: most files of a big project cannot have a finding.

Parsing with libcst is most of devlint's cost. Every rule names its triggers:
strings one of which occurs in any file where it can report a candidate or add
a fact (``Rule.triggers``), and may screen the file's ``ast`` nodes for what its
visit could report (``Rule.screen``). A file that no rule that runs on it needs
gets only its structural facts, from ``ast`` (``devlint.skeleton``).
Most rules keep candidates only in model code (or data pipelines); for them a
file they need waits (``Verdict.pending``) until the project index says
whether it defines such code (``engine._parse_skipped_files_that_matter``).

Two things keep this exact, and ``tests/test_prefilter.py`` checks both: the
trigger lists and screens are complete, and the skeleton equals the traversal's
facts.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from devlint.facts import FileFacts
from devlint.rules import running_rules
from devlint.rules.base import Pending, Rule, RuleSettings, Trigger
from devlint.skeleton import Skeleton


@dataclass(frozen=True)
class Verdict:
    parse: bool
    """Some rule that runs may report or add a fact here, whatever the index says."""
    pending: tuple[Pending, ...] = ()
    """Rules that may report here if the index recognises code the file defines (or the
    code at the places they saw)."""


def occurs(triggers: tuple[Trigger, ...] | None, code: str, package: str) -> bool:
    """A trigger is in the code. A word that names the file's own top-level package counts
    as there: a relative import (``from . import zeros`` in ``torch/``) binds a name to
    ``torch.zeros`` with no ``torch`` in the code."""
    if triggers is None:
        return True
    for trigger in triggers:
        words = (trigger,) if isinstance(trigger, str) else trigger
        if all(word.strip("\n") == package or word in code for word in words):
            return True
    return False


def verdict(
    found: Skeleton, module: str, codes: tuple[str, ...], settings: RuleSettings
) -> Verdict:
    """What the rules that run on a file (``codes``, and those collecting facts) need,
    given what ``ast`` found in it and its module name."""
    package = module.partition(".")[0]
    pending: list[Pending] = []
    for rule in _running(codes):
        if rule.screen_types and not found.from_ast:
            continue  # only ``ast``'s nodes can tell whether a rule with a screen needs the file
        if not occurs(rule.file_triggers(settings), found.code, package):
            continue
        defers = rule.defers_to_index()
        if defers and rule.parse_anyway(found):
            return Verdict(parse=True)
        sightings = rule.sightings(found, settings) if defers else None
        if sightings is not None:
            if sightings:
                pending.append((rule.code, sightings))
            continue
        if rule.screen_types and not rule.screen(found, settings):
            continue
        if not defers:
            return Verdict(parse=True)
        pending.append((rule.code, None))
    return Verdict(parse=False, pending=tuple(pending))


def screen_types(codes: tuple[str, ...]) -> frozenset[type[ast.AST]]:
    """The kinds of ``ast`` nodes the screens of the rules that run read."""
    return frozenset(kind for rule in _running(codes) for kind in rule.screen_types)


def _running(codes: tuple[str, ...]) -> list[Rule]:
    """The rules whose ``visit`` the traversal calls (DEV000 visits nothing)."""
    return [rule for rule in running_rules(codes) if rule.node_types]


def parse_at_once(text: str, module: str, codes: tuple[str, ...], settings: RuleSettings) -> bool:
    """A rule without a screen certainly wants the file: a trigger is in the raw text
    (docstrings and comments count here, escapes do not), so reading it with ``ast`` first
    would be wasted.
    Only ever a reason to parse, never to skip: that takes ``verdict`` on the code."""
    raw = Skeleton(FileFacts(module), text, text, from_ast=False)
    return verdict(raw, module, codes, settings).parse
