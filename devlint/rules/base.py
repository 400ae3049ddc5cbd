"""What a rule is: metadata, documentation, examples, and two hooks.

A rule never walks the tree. It names the node types it wants (``node_types``);
the single traversal calls ``visit`` for each such node with a FileContext, and
the rule reports candidates there. Later, once the project is known, the engine
calls ``resolve`` with what the index knows about the candidate's scope.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from devlint.findings import Applicability, Fix

if TYPE_CHECKING:  # a warm run loads this module, and must load none of these
    import libcst as cst

    from devlint.candidates import Candidate, Requirement, Resolution, Scope, ScopeInfo
    from devlint.facts import Fact, FileFacts
    from devlint.flow.inference import FunctionFlow
    from devlint.flow.meetings import Handoff, Meeting
    from devlint.index import ProjectIndex
    from devlint.skeleton import Skeleton

Side = Literal["start", "end", "line_start", "next_line_start"]
"""Where an edit boundary sits relative to its node; the line sides remove whole lines."""


@dataclass(frozen=True)
class PendingEdit:
    """An edit anchored to nodes; the engine turns node positions into locations."""

    start_node: cst.CSTNode
    start_side: Side
    end_node: cst.CSTNode
    end_side: Side
    content: str


def replace(node: cst.CSTNode, content: str) -> PendingEdit:
    return PendingEdit(node, "start", node, "end", content)


def insert_after(node: cst.CSTNode, content: str) -> PendingEdit:
    return PendingEdit(node, "end", node, "end", content)


def delete_lines(node: cst.CSTNode) -> PendingEdit:
    """Delete the whole lines a statement occupies, line breaks included."""
    return PendingEdit(node, "line_start", node, "next_line_start", "")


def delete_between(after: cst.CSTNode, through: cst.CSTNode) -> PendingEdit:
    """Delete from the end of ``after`` to the end of ``through`` (``x.cuda()`` -> ``x``)."""
    return PendingEdit(after, "end", through, "end", "")


@dataclass(frozen=True)
class RuleSettings:
    """Configuration that rules read while they visit a file."""

    processor_names: frozenset[str] = frozenset()
    """Extra callee names that behave like HF processors (``processor-names``)."""
    processor_outputs: bool = True
    """Some file of the project asks a processor for tensors (``return_tensors``): without
    one, no value can carry unmoved processor output and DEV004 has nothing to follow."""
    returning_output: frozenset[str] = frozenset()
    """Names of the project's functions known (from a first pass over the project) to
    return unmoved processor output: only calls of these can carry it into a file."""
    returning_on_any_receiver: frozenset[str] = frozenset()
    """Those of ``returning_output`` that a method call on any receiver may reach
    (``ProjectIndex.returning_on_any_receiver``); the others, only on ``self`` or on a name
    the file binds."""
    flow_summaries: frozenset[str] = frozenset()
    """Qualified names of this file's functions whose flow summaries a candidate of another
    file needs (a later pass asks): only these are summarised, the flow costs."""
    flow_results: frozenset[str] = frozenset()
    """Last names of the project functions whose callers' use of the result a candidate
    needs: only calls of these are followed for whether their results meet the device."""
    mentions: bool = False
    """The project is not packaged for others to call: each file's analysis records the
    names its text uses (``FileFacts.mentions``), from which the index tells the code that
    never runs (``ProjectIndex.never_runs``). A packaged project's files need not."""


class FileContext(Protocol):
    """What the traversal offers a rule while it visits one file."""

    @property
    def settings(self) -> RuleSettings: ...

    @property
    def module_name(self) -> str:
        """The dotted name of the visited module (``pkg.config``)."""
        ...

    @property
    def source(self) -> str:
        """The visited file's text, for a quick look before a walk of the whole tree."""
        ...

    @property
    def scope(self) -> Scope: ...

    @property
    def in_checked_branch(self) -> bool:
        """Under ``if torch.cuda.is_available():`` or similar: an explicit choice."""
        ...

    @property
    def ancestors(self) -> Sequence[cst.CSTNode]:
        """The nodes enclosing the visited one, outermost first (its parent last)."""
        ...

    def qualified_name(self, node: cst.BaseExpression) -> str | None:
        """``nn.Module`` -> ``torch.nn.Module`` through this file's imports, else None."""
        ...

    def annotates_tensor(self, annotation: cst.BaseExpression) -> bool:
        """A tensor type is named anywhere in the annotation (``Optional[Tensor]``,
        ``"torch.Tensor"``), through this file's imports (``facts.tensor_annotation``)."""
        ...

    def flow(self) -> FunctionFlow | None:
        """The device flow of the innermost function around the visited node (None outside
        any): computed once per function of the file, for every rule that asks."""
        ...

    def meetings_of(self, made: cst.CSTNode) -> tuple[Meeting, ...]:
        """Where the tensor made at ``made`` (in the visited function) meets the device:
        in that function, or, once returned, in the file's functions that call it."""
        ...

    def meets_only_by_callers_elsewhere(self, made: cst.CSTNode) -> str | None:
        """Where the visited function is a public function of the module, none of whose
        calls in the file passes its parameters the device, and the tensor made at
        ``made`` meets the device only through them: its qualified name (whether any other
        file names it, the index says); else None."""
        ...

    def meetings_with_cpu_inputs(self, made: cst.CSTNode) -> tuple[Meeting, ...]:
        """Where the tensor made at ``made`` meets the device in the visited function when
        every input but a device arrives on the CPU (``FileFlows.meetings_with_cpu_inputs``)."""
        ...

    def construction_meetings(
        self, built: cst.BaseExpression, runs_with_batch: Callable[[str], bool]
    ) -> tuple[Meeting, ...]:
        """In a class's ``__init__``: where the tensors ``built`` (an expression there) holds
        as built meet the device, in the class's methods that ``runs_with_batch`` names and
        the methods they call on ``self`` (``FileFlows.construction_meetings``)."""
        ...

    def construction_handoffs(
        self, built: cst.BaseExpression, runs_with_batch: Callable[[str], bool]
    ) -> tuple[tuple[Handoff, FunctionFlow], ...]:
        """In a class's ``__init__``: where those same methods hand the tensors ``built``
        holds to functions of other files, each with the flow of the method that does
        (``FileFlows.construction_handoffs``)."""
        ...

    def code_for(self, node: cst.CSTNode) -> str:
        """The source text libcst generates for ``node``."""
        ...

    def mark(self, node: cst.CSTNode, tag: str) -> None:
        """Leave a note on a node that a later visit (of a child) can read."""
        ...

    def marks(self, node: cst.CSTNode) -> frozenset[str]: ...

    def note(self, tag: str, name: str, *, per_class: bool = False, per_file: bool = False) -> None:
        """Note something about a variable of the current function (``moved``, ...).

        With ``per_class=True`` the note is about the enclosing class instead (an
        attribute ``self.name``, seen in any of its methods); outside a class it is dropped.
        With ``per_file=True`` it is about the whole file: it outweighs candidates anywhere
        in it (a class that another part of the file defines or uses).
        """
        ...

    def add_fact(self, fact: Fact, node: cst.CSTNode | None = None) -> None:
        """Contribute a fact for the project index; its ``line`` becomes ``node``'s line."""
        ...

    def state(self, rule: Rule) -> dict[str, object]:
        """Scratch space for ``rule`` that lives as long as this file's traversal."""
        ...

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        *,
        end: cst.CSTNode | None = None,
        data: Mapping[str, str] | None = None,
        fixes: Mapping[str, tuple[PendingEdit, ...]] | None = None,
        unless_noted: Sequence[tuple[str, str]] = (),
        lines: Mapping[str, cst.CSTNode] | None = None,
        needs: tuple[Requirement, ...] = (),
        provided: tuple[Requirement, ...] = (),
    ) -> None:
        """Record a candidate spanning ``node`` (through ``end``, when given).

        ``lines={"key": other_node}`` adds ``data["key"]``: the line ``other_node`` is on.
        ``needs``: it holds only if another file's flow shows one of these (the index says).
        ``provided``: and only if it shows all of these (``Candidate.provided``).

        ``unless_noted=[(tag, name), ...]`` drops it if the same function notes one of
        them anywhere, before or after (``mask = torch.zeros(n)`` ... ``mask.to(d)``),
        if any method of the same class notes one with ``per_class=True``, or if any
        code of the file notes one with ``per_file=True``.
        """
        ...


@dataclass(frozen=True)
class Invalid:
    """An example the rule must flag, where, and the exact result of its fix."""

    code: str
    line: int
    column: int
    fixed: str | None = None
    """The source after applying the rule's fix; None when the rule offers none."""
    unsafe: bool = False
    """The fix is offered only with ``--unsafe-fixes``."""


@dataclass(frozen=True)
class Sighting:
    """Where a screen saw what may become a candidate: for ``may_report_in`` to judge."""

    scope: Scope
    """Only its class, function and method names are set: what the index reads to place
    it (``ProjectIndex.scope_info``)."""
    name: str = ""
    """What the candidate names, for a rule whose ``resolve`` reads one (DEV010: the
    ``qualified`` name in its data); empty: it may name anything."""
    follows_inputs: bool = False
    """The screen saw evidence that the function's tensors follow its inputs' device
    (DEV003: ``follows_inputs`` in its data); False: it may have none."""
    anywhere: bool = False
    """The rule may report there whatever the index says of the scope (DEV003: a CPU
    tensor handed to a collective); False: only where ``may_report_in`` places it."""


Pending = tuple[str, frozenset[Sighting] | None]
"""A rule waiting on the index for a file, and where it may report there (None: anywhere
in the file; see ``Rule.sightings``)."""

Trigger = str | tuple[str, ...]
"""A string the code must contain, or strings it must all contain (``Rule.triggers``)."""


class Rule:
    """Base class of every rule. Subclasses fill in the class variables below.

    The class docstring is the rule's documentation, in the sections
    ``What it does``, ``Why is this bad?``, ``Example``, ``Use instead`` and
    ``Fix safety``; ``devlint rule CODE`` renders it.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    default_enabled: ClassVar[bool] = True
    collects_facts: ClassVar[bool] = False
    """The rule's visit also gathers facts other rules rely on, so it runs even when
    it is not selected (its own candidates are then dropped)."""
    fix_safety: ClassVar[str] = "none"
    """One word for the rules table: ``safe``, ``unsafe``, ``safe/unsafe`` or ``none``."""
    replaces_literal_devices: ClassVar[bool] = False
    """Its candidates are literal device choices (``.cuda()``, ``"cuda:0"``) and its fixes
    put values on another device (an anchor such as ``self.device``, or the CPU). Such fixes
    in one function go together or not at all (``engine.resolve``): a literal the function
    keeps would meet the values moved elsewhere."""
    triggers: ClassVar[tuple[Trigger, ...] | None] = None
    """Strings, one of which occurs in the code of every file where ``visit`` can report a
    candidate or add a fact (None: anywhere); a tuple of strings all of which occur.
    The code is the identifiers and string values (``devlint.skeleton``). A file with
    none of the triggers of the rules that run is not parsed with libcst at all (see
    ``devlint.prefilter``), so a trigger list must be complete: tests check it on every
    fixture and example."""
    records_references: ClassVar[bool] = False
    """The rule's own facts are References for module-level calls and ``import a.b``
    (the call graph of scripts), which ``devlint.skeleton`` reproduces without libcst."""
    only_in_model_code: ClassVar[bool] = False
    """``resolve`` drops every candidate outside model code (``ScopeInfo.model_code``;
    with ``reports_in_device_context``, outside a device context): a file with triggers
    need not be parsed unless the index says it defines such code (``may_report_in``),
    or one of the ``fact_triggers`` occurs."""
    reports_in_device_context: ClassVar[bool] = False
    """With ``only_in_model_code``: ``resolve`` keeps candidates in any device context
    (``ScopeInfo.device_context``: also classes that store a device or a model, and
    functions told their device), not only in model code (``in_scope``)."""
    reports_where_inputs_tell: ClassVar[bool] = False
    """With ``reports_in_device_context``: ``resolve`` also keeps candidates in functions
    whose inputs tell them their device (``ScopeInfo.knows_inputs``)."""
    fact_triggers: ClassVar[tuple[str, ...] | None] = ()
    """For a rule that defers to the index: strings, one of which occurs where ``visit``
    adds a fact (None: anywhere; empty: it adds none)."""
    node_types: ClassVar[tuple[str, ...]] = ()
    """Names of the libcst node classes ``visit`` wants (names, so that loading the rules
    does not load libcst: a warm run never parses)."""
    screen_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    """The ``ast`` node classes ``screen`` reads (empty: the rule has no screen)."""
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[Invalid, ...]] = ()

    def file_triggers(self, settings: RuleSettings) -> tuple[Trigger, ...] | None:
        """``triggers``, for rules whose triggers depend on the project's settings."""
        return self.triggers

    def defers_to_index(self) -> bool:
        """Whether ``resolve`` keeps candidates only in code the index recognises, so that
        a file with triggers waits for ``may_report_in`` (unless ``parse_anyway``)."""
        return self.only_in_model_code

    def parse_anyway(self, found: Skeleton) -> bool:
        """For a rule that defers to the index: the file may give it facts, or a candidate
        it keeps whatever the index says of its scope: parse it now."""
        return self.fact_triggers is None or any(t in found.code for t in self.fact_triggers)

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """From ``ast`` alone, where a trigger occurs: could ``visit`` report a candidate
        here (or, for a rule that does not defer to the index, add a fact)? A yes may be
        wrong, a no never: a file every rule says no to is not parsed with libcst. Reads
        only ``found.of_type(*screen_types)``, the file's facts and words. A rule that
        says where (``sightings``) says whether."""
        sightings = self.sightings(found, settings)
        return sightings is None or bool(sightings)

    def sightings(self, found: Skeleton, settings: RuleSettings) -> frozenset[Sighting] | None:
        """For a rule that defers to the index, instead of ``screen``: where in the file
        ``visit`` may report a candidate (none: it cannot), so that the index judges those
        places, not the whole file. Complete as a screen must be. None: not said."""
        return None

    def may_report_in(
        self, facts: FileFacts, index: ProjectIndex, sightings: frozenset[Sighting] | None
    ) -> bool:
        """For a rule that defers to the index: could ``resolve`` keep a candidate of the
        file that has these facts, at one of the ``sightings`` (None: anywhere)?"""
        if sightings is None:
            if self.reports_where_inputs_tell and index.defines_input_functions(facts):
                return True
            if self.reports_in_device_context:
                return index.defines_device_context(facts)
            return index.defines_model_code(facts)
        return any(self.in_scope(index.scope_info(sighting.scope)) for sighting in sightings)

    def in_scope(self, scope: ScopeInfo) -> bool:
        """Whether a rule that defers to the index may report in this scope."""
        if self.reports_where_inputs_tell and scope.knows_inputs:
            return True
        return scope.device_context if self.reports_in_device_context else scope.model_code

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        """Called for every node of a type in ``node_types``."""

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        """Turn a candidate into a finding's message and fix, or None to drop it."""
        return None


def where_the_device_is_known(scope: ScopeInfo) -> str:
    """How a message names a device context: model code, or other code that knows it."""
    return "in model code" if scope.model_code else "in code that already knows its device"


def borrowed_device_fix(candidate: Candidate, describe: str) -> tuple[str, Fix] | None:
    """The unsafe fix for code without ``self.device``: a tensor parameter's ``.device``.

    ``describe`` is the fix message with ``{device}`` where the borrowed device goes.
    Returns the parameter's name and the fix, or None when the traversal found none.
    """
    param = candidate.scope.tensor_param
    fix = choose_fix(
        candidate, "tensor_device", Applicability.UNSAFE, describe.format(device=f"{param}.device")
    )
    return (param, fix) if param is not None and fix is not None else None


def choose_fix(
    candidate: Candidate, variant: str, applicability: Applicability, message: str
) -> Fix | None:
    """The candidate's edits for ``variant`` as a Fix, if the traversal prepared them."""
    edits = candidate.fixes.get(variant)
    if not edits:
        return None
    return Fix(applicability, message, edits)
