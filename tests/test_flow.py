"""The device-flow model: origins, joins, loops, and where CPU tensors meet the device."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from devlint.facts import resolve_alias
from devlint.flow.cache import FileFlows
from devlint.flow.inference import FunctionFlow
from devlint.flow.meetings import MeetingKind
from devlint.flow.values import Origin, Value
from devlint.nodes import dotted_name, reads_a_device
from devlint.traversal import Traversal

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"

F_ = Origin.FOLLOWS
CPU = Origin.CPU
HOST = Origin.HOST
LIT = Origin.LITERAL
UNK = Origin.UNKNOWN


class Analysed:
    """A module parsed once, its flows from the file's cache, and questions for tests."""

    def __init__(self, body: str) -> None:
        self.module = cst.parse_module(HEADER + textwrap.dedent(body))
        facts = Traversal(self.module, "snippet", False, ()).run().facts

        def resolve(node: cst.BaseExpression) -> str | None:
            name = dotted_name(node)
            return None if name is None else resolve_alias(name, facts.aliases)

        self.flows = FileFlows(lambda: self.module, resolve)

    def function(self, name: str) -> tuple[cst.FunctionDef, cst.ClassDef | None]:
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                return statement, None
            if isinstance(statement, cst.ClassDef):
                for member in statement.body.body:
                    if isinstance(member, cst.FunctionDef) and member.name.value == name:
                        return member, statement
        raise KeyError(name)

    def flow(self, name: str = "forward") -> FunctionFlow:
        return self.flows.function(*self.function(name))

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def value(self, source: str, name: str = "forward") -> Value:
        """The value of the last expression in ``name`` whose code is ``source``."""
        flow = self.flow(name)
        found = [value for node, value in flow.values.items() if self.code(node) == source]
        assert found, f"{source!r} was not evaluated"
        return found[-1]

    def meetings(self, name: str = "forward") -> list[tuple[str, str, str]]:
        """(where made, kind, where met) for each meeting of the function."""
        return [
            (self.code(m.made), m.kind.value, self.code(m.at)) for m in self.flow(name).meetings
        ]


def origins(value: Value) -> set[Origin]:
    return set(value.origins)


MODULE = """
class M(nn.Module):
    def __init__(self, n, scale=0.5):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.logvar = torch.full((10,), 0.0)
        self.scale = scale
        self.register_buffer("table", torch.zeros(4))

    def forward(
        self, x, p, t: torch.Tensor, lengths: int, device=None, config=None, mask=None,
        layer: nn.Module = None, dv: "torch.device" = None,
    ):
        mask = mask[:, None]
{body}
"""


def in_forward(body: str) -> Analysed:
    return Analysed(MODULE.format(body=textwrap.indent(textwrap.dedent(body), " " * 8)))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("x", {F_}),  # named like a tensor
        ("t", {F_}),  # annotated
        ("mask", {F_}),  # used as a tensor
        ("p", {UNK}),  # neither: as likely a number (a dropout rate)
        ("lengths", {HOST}),  # annotated int
        ("device", {F_}),  # a device parameter
        ("layer.weight", {F_}),  # a module, by its annotation
        ("torch.zeros(3, device=dv)", {F_}),  # a device, by its annotation
        ("config", {HOST}),
        ("x.device", {F_}),
        ("self.device", {F_}),
        ("self.proj(x)", {F_}),
        ("nn.Embedding.from_pretrained(torch.zeros(3, 1))", {F_}),  # a module its class built
        ("self.table", {F_}),  # a registered buffer
        ("self.scale", {HOST}),  # a number: the default of __init__'s parameter
        ("torch.zeros_like(x)", {F_}),
        ("x.new_zeros(3)", {F_}),
        ("x[0, 1:]", {F_}),
        ("x.float().view(-1)", {F_}),
        ("torch.zeros(3)", {CPU}),
        ("torch.tensor([1.0, 2.0])", {CPU}),
        ("torch.from_numpy(arr)", {CPU}),
        ("torch.tensor(x)", {F_}),  # a tensor keeps its device
        ("torch.tensor(3.0)", {HOST}),  # 0-dim
        ("torch.rand([])", {HOST}),
        ("torch.rand(())", {HOST}),
        ("torch.Tensor([])", {CPU}),  # legacy: a list is data, here an empty 1-D tensor
        ("torch.Tensor(x + 1)", {F_}),  # legacy, of a tensor: an alias, on its device
        ("torch.Tensor(torch.zeros(3))", {CPU}),
        ("torch.Tensor(3)", {CPU}),  # legacy, of a size
        ("torch.onnx.operators.shape_as_tensor(x)", {CPU}),  # a shape, always on the CPU
        ("torch.zeros(3, device=x.device)", {F_}),
        ('torch.zeros(3, device="cuda")', {LIT}),
        ('torch.device("cuda:1")', {LIT}),
        ("torch.zeros(3).cuda()", {LIT}),
        ("torch.zeros(3).cpu()", {CPU}),
        ("torch.zeros(3).to(x.device)", {F_}),
        ("torch.zeros(3).to(torch.float16)", {CPU}),  # a cast, not a move
        # A tensor type names a device type: another tensor's puts it where that one is, a
        # GPU one on the current GPU; a dtype (also a parameter, which may be one) casts.
        ("torch.zeros(3).type(x.type())", {F_}),
        ("torch.zeros(3).type(torch.zeros(2).type())", {CPU}),
        ("torch.zeros(3).type(torch.cuda.FloatTensor)", {LIT}),
        ('torch.zeros(3).type("torch.cuda.LongTensor")', {LIT}),
        ("torch.zeros(3).type(torch.float32)", {CPU}),
        ("torch.zeros(3).type(p)", {CPU}),
        ("x.sum().item()", {HOST}),
        ("x.shape[0]", {HOST}),
        ("len(x)", {HOST}),
        ('tokenizer(texts, return_tensors="pt")', {CPU}),
        ("x + torch.zeros(3)", {F_}),  # the CPU operand is blamed where they meet
        ("helper(x)", {UNK}),
        ("torch.tensor(helper(x))", {CPU}),  # a plain function's result is copied as data
        ("torch.as_tensor(helper(x))", {UNK}),  # as_tensor takes a tensor as it is
        ("torch.tensor(p + 1)", {UNK}),  # not what a call returned: the flow cannot place it
    ],
)
def test_origins(expression: str, expected: set[Origin]) -> None:
    analysed = in_forward(f"arr = numpy_array()\nresult = {expression}\n")
    assert origins(analysed.value(expression)) == expected


def test_cpu_made_values_name_where_they_were_made() -> None:
    analysed = in_forward("a = torch.arange(3)\nb = a[:2].float()\n")
    made = analysed.value("a[:2].float()").made
    assert [analysed.code(node) for node in made] == ["torch.arange(3)"]


def test_branches_are_joined() -> None:
    analysed = in_forward(
        """
        if mask is None:
            mask = torch.ones(3)
        else:
            pass
        y = mask
        """
    )
    assert origins(analysed.value("mask", "forward")) == {F_, CPU}


def test_loops_run_to_a_fixed_point() -> None:
    """On the second pass ``h`` holds the tensor made at the end of the first."""
    analysed = in_forward(
        """
        h = x
        out = x
        for _ in range(3):
            out = out + h
            h = torch.ones(3)
        """
    )
    assert analysed.meetings() == [("torch.ones(3)", "operator", "out + h")]


def test_tuple_unpacking_pairs_values() -> None:
    analysed = in_forward("a, b = torch.zeros(2), x\nn, d = x.shape\nc = a + n\n")
    assert origins(analysed.value("a + n")) == {CPU}
    assert analysed.meetings() == []


def test_a_starred_source_fills_the_targets_between_its_neighbours() -> None:
    # `*x.shape` gives the first two names (host sizes); `x.device` stays with `device`
    analysed = in_forward(
        "b, n, k, device = *x.shape, 4, x.device\n"
        "i = torch.arange(k)\n"
        "y = i + n * k\n"
        "z = torch.ones(b, device=device) + x\n"
    )
    assert origins(analysed.value("n * k")) == {HOST}
    assert origins(analysed.value("device")) == {F_}
    assert analysed.meetings() == []


def test_a_device_is_a_context_for_the_factories_in_its_block() -> None:
    analysed = in_forward(
        """
        with batch.ids.device:
            k = torch.zeros(3)
        with x.device:
            j = torch.ones(3)
        with torch.device("cpu"):
            c = torch.zeros(3)
        with self.device:
            s = torch.ones(2)
        y = x + k + j + c + s
        """
    )
    assert analysed.meetings() == [
        ("torch.zeros(3)", "operator", "x + k + j + c"),
        ("torch.ones(2)", "operator", "x + k + j + c + s"),
    ]


def test_comprehensions_and_appends_carry_their_elements() -> None:
    analysed = in_forward(
        """
        parts = [torch.zeros(2) for _ in range(3)]
        rows = []
        for _ in range(2):
            rows.append(torch.ones(2))
        y = x + torch.stack(parts) + torch.cat(rows)
        """
    )
    assert [(made, kind) for made, kind, _ in analysed.meetings()] == [
        ("torch.zeros(2)", "operator"),
        ("torch.ones(2)", "operator"),
    ]


@pytest.mark.parametrize(
    ("body", "kind", "at"),
    [
        ("y = x + torch.arange(4)", MeetingKind.OPERATOR, "x + torch.arange(4)"),
        ("y = torch.arange(4) < t", MeetingKind.COMPARISON, "torch.arange(4) < t"),
        ("x += torch.arange(4)", MeetingKind.IN_PLACE, "x += torch.arange(4)"),
        (
            "y = torch.cat([x, torch.arange(4)])",
            MeetingKind.FUNCTION,
            "torch.cat([x, torch.arange(4)])",
        ),
        (
            "y = F.cross_entropy(x, t, weight=torch.arange(4))",
            MeetingKind.FUNCTION,
            "F.cross_entropy(x, t, weight=torch.arange(4))",
        ),
        (
            "y = x.masked_fill(torch.arange(4) > 2, 0)",
            MeetingKind.METHOD,
            "x.masked_fill(torch.arange(4) > 2, 0)",
        ),
        ("y = self.proj(torch.arange(4))", MeetingKind.MODULE_CALL, "self.proj(torch.arange(4))"),
        ("y = torch.arange(4)[t]", MeetingKind.INDEX, "torch.arange(4)[t]"),
        ("x[x > 0] = torch.arange(4)", MeetingKind.WRITE, "x[x > 0]"),  # index_put_
        ("x[mask, :] = torch.arange(4)", MeetingKind.WRITE, "x[mask, :]"),
        ("x.data = torch.arange(4)", MeetingKind.WRITE, "x.data"),
        ("y = x * torch.arange(4).cuda()", None, ""),  # moved before it meets x
    ],
)
def test_meeting_kinds(body: str, kind: MeetingKind | None, at: str) -> None:
    analysed = in_forward(body + "\n")
    expected = [("torch.arange(4)", kind.value, at)] if kind is not None else []
    assert analysed.meetings() == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Where PyTorch checks that every tensor is on one device before a TensorIterator.
        (
            "y = torch.stack([x.sum(), torch.tensor(0.0)])",
            [("torch.tensor(0.0)", "function", "torch.stack([x.sum(), torch.tensor(0.0)])")],
        ),
        (
            "y = torch.clamp(x, max=torch.log(torch.tensor(1.0 / 0.01))).exp()",
            [
                (
                    "torch.tensor(1.0 / 0.01)",
                    "function",
                    "torch.clamp(x, max=torch.log(torch.tensor(1.0 / 0.01)))",
                )
            ],
        ),
        (
            "high = torch.tensor(3.0) * 2\ny = x.clamp(0, high)",
            [("torch.tensor(3.0)", "method", "x.clamp(0, high)")],
        ),
        (
            "y = x.clamp_max(torch.rand([]))",
            [("torch.rand([])", "method", "x.clamp_max(torch.rand([]))")],
        ),
        # A TensorIterator lets one 0-dim CPU tensor meet a CUDA one; `where` moves it.
        ("y = x * torch.tensor(2.0) - torch.log(torch.tensor(4.0)) < torch.rand([])", []),
        ("y = torch.where(x > 0, x, torch.tensor(0.0)) + torch.maximum(x, torch.tensor(1.0))", []),
        ("y = x.masked_fill(x > 0, torch.tensor(0.0)).clamp(0, 1)", []),
        ("y = x.clamp(max=torch.tensor(3.0).to(x.device))", []),  # moved first
        # A TensorIterator never lets a 0-dim CPU tensor be the output a CUDA kernel writes.
        (
            "total = torch.tensor(0.0)\nfor t in range(3):\n    total += x.sum()",
            [("torch.tensor(0.0)", "updated", "total += x.sum()")],
        ),
        (
            "total = torch.zeros([])\ntotal.mul_(x.mean())",
            [("torch.zeros([])", "updated", "total.mul_(x.mean())")],
        ),
        # Its input it may be; a copy crosses devices; `+` (not in place) makes a new tensor.
        ("x += torch.tensor(2.0)\nx.sub_(torch.rand([]))", []),
        ("last = torch.tensor(0.0)\nlast.copy_(x.mean())", []),
        ("total = torch.tensor(0.0)\ntotal = total + x.sum()", []),
        ("total = torch.tensor(0.0)\ntotal += 1", []),  # host data
        ("y = torch.stack([torch.tensor(0.0), torch.tensor(1.0)])", []),  # all on the CPU
        # One element of a 1-D CPU tensor, picked by a counter, is 0-dim: it is still refused
        # where 0-dim tensors are, but not by a stack of elements of one schedule, which may
        # be the input instead (`s = mask` on the other path): one device either way.
        (
            "s = torch.arange(4.0)\nfor i in range(3):\n    y = torch.stack([x, s[i + 1]])",
            [("torch.arange(4.0)", "function", "torch.stack([x, s[i + 1]])")],
        ),
        (
            "s = torch.arange(4.0) if lengths else mask\nfor i in range(3):\n"
            "    y = torch.stack([s[i], s[i - 1]]) * x",
            [],
        ),
    ],
)
def test_zero_dim_cpu_tensors_meet_only_operations_that_refuse_them(
    body: str, expected: list[tuple[str, str, str]]
) -> None:
    assert in_forward(body + "\n").meetings() == expected


def test_an_item_of_a_list_of_vectors_is_a_whole_vector() -> None:
    """``values[i]`` of a list of 1-D CPU tensors (local, or kept on ``self`` by
    ``__init__``) is one of the vectors, not a 0-dim element: it meets the device."""
    analysed = Analysed(
        """
        class M(nn.Module):
            def __init__(self, levels):
                super().__init__()
                kept = [torch.linspace(-1, 1, n) for n in levels]
                self.values = kept

            def forward(self, x):
                local = [torch.arange(4.0), torch.arange(4.0)]
                for i in range(2):
                    x = x - self.values[i] + local[i]
                return x
        """
    )
    assert analysed.meetings() == [
        ("torch.linspace(-1, 1, n)", "operator", "x - self.values[i]"),
        ("torch.arange(4.0)", "operator", "x - self.values[i] + local[i]"),
        ("torch.arange(4.0)", "operator", "x - self.values[i] + local[i]"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        "y = x[torch.arange(4)]",  # a CPU index into a device tensor
        "y = torch.rand(1) < 0.5",  # a Python number
        "y = torch.arange(4) * x.shape[0] + lengths",  # host values
        "y = torch.arange(4)[: x.shape[1]].to(x.device) + x",  # moved after a slice
        "y = torch.cat([torch.zeros(1), torch.ones(2)]).to(x.device) + x",
        "placeholder = torch.zeros(3)",  # meets nothing
        "y = x * torch.tensor(3.0) + torch.rand([])",  # 0-dim scalars
        "y = torch.arange(4) * self.scale",  # a number stored by __init__
        "y = torch.rand(4) < p",  # a parameter never used as a tensor
        'self.log("loss", torch.tensor([1.0]))',  # an inherited method, not a submodule
        "packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lens))\ny = packed + x",
        "y = torch.arange(4) + torch.ones(4)",  # two CPU tensors
        # Only the other tensor's shape is read: its device does not matter.
        "y = torch.arange(4).expand_as(x) + torch.ones(4).view_as(x).reshape_as(x)",
        "y = torch.arange(4).expand_as(x).type_as(x) * x",
        "y = helper(torch.arange(4), x)",  # a function of another file: a later layer
        "x.copy_(torch.ones(4))",  # copies across devices
        "x[0] = torch.ones(4)\nx[:, :4] = torch.ones(4)",  # plain indices copy across devices
        "x[idx] = torch.ones(4)",  # an index that may be a number
        "b = torch.zeros(4)\nb[torch.arange(2)] = torch.ones(2)",  # a CPU tensor written into one
        "x[x > 0] = torch.tensor(0.0)",  # a 0-dim value goes to the indexed tensor's device
        "x.data = torch.zeros(1, device=x.device)\nx.data = x.data.cpu()",  # placed, chosen
        "b = torch.zeros(4)\nb.data = x",  # a device tensor written into a CPU one moves it
        # A mapping's keys are Python data: writing under one is no tensor index.
        "for k, v in x.items():\n    x[k] = torch.arange(4)\nfor k in x.keys():\n"
        "    x[k] = torch.ones(4)",
        "for name in x:\n    x[name] = torch.ones(4)",  # a name a loop binds may be a key
        # A placeholder of size 0 cannot meet a tensor of data in arithmetic on any device.
        "b = torch.empty(0) if lengths else x\ny = x * b + torch.arange(0)",
        # One element of a one-dimensional factory's tensor is 0-dim.
        "t = torch.linspace(0, 1, 10)\ny = x * t[-1] + torch.arange(4)[0]",
        # Moved on the path where it is not None; None on the other.
        "m = torch.ones(4) if lengths else None\n"
        "if m is not None:\n    m = m.to(x.device)\ny = x + m",
        # Both operands come from the same branches: CPU on one path, the input on the other.
        "if mask is None:\n    a = torch.arange(4)\n    b = torch.arange(4)\n"
        "else:\n    a = mask\n    b = mask\ny = a - b",
    ],
)
def test_look_alikes_do_not_meet(body: str) -> None:
    assert in_forward(body + "\n").meetings() == []


def test_keyword_unpacking_and_with_blocks_carry_tensors() -> None:
    analysed = in_forward(
        """
        inputs = {"ids": torch.ones(3)}
        with torch.no_grad():
            y = self.proj(**inputs)
        """
    )
    assert analysed.meetings() == [("torch.ones(3)", "module call", "self.proj(**inputs)")]


def test_attributes_set_in_the_function_are_followed() -> None:
    analysed = in_forward("self.cache = torch.ones(3)\ny = x * self.cache\n")
    assert analysed.meetings() == [("torch.ones(3)", "operator", "x * self.cache")]


def test_a_cpu_attribute_from_init_meets_a_device_index() -> None:
    """``self.logvar[t]``: made in ``__init__``, met in ``forward`` (what DEV007 asks)."""
    analysed = in_forward("y = self.logvar[t]\n")
    assert analysed.meetings() == [("torch.full((10,), 0.0)", "index", "self.logvar[t]")]


def test_calls_of_the_files_own_functions() -> None:
    """A CPU tensor passed to a helper meets where the helper mixes it; one a helper
    returns meets in its caller, and the file's cache finds it from the helper's side."""
    analysed = Analysed(
        """
        def scaled(x, table):
            return x * table

        class M(nn.Module):
            def forward(self, x):
                return scaled(x, torch.ones(3)) + self._bias()

            def _bias(self):
                return torch.zeros(3)

            def moved(self, x):
                return scaled(x, torch.ones(3).to(x.device))
        """
    )
    assert analysed.meetings() == [
        ("torch.ones(3)", "operator", "x * table"),
        ("torch.zeros(3)", "operator", "scaled(x, torch.ones(3)) + self._bias()"),
    ]
    assert analysed.meetings("moved") == []
    bias, owner = analysed.function("_bias")
    made = analysed.flow("_bias").returned.made[0]
    found = analysed.flows.meetings_of(made, bias, owner)
    assert [analysed.code(m.at) for m in found] == ["scaled(x, torch.ones(3)) + self._bias()"]


def test_unpacking_a_helpers_tuple_binds_each_name_to_its_element() -> None:
    """``a, b = f(x)`` where ``f`` writes out the tuple it returns: each name gets its own
    element, joined with what any other ``return`` gives whole (a tensor's rows)."""
    analysed = Analysed(
        """
        def split(x, k):
            if k == 0:
                return x.new(0)
            return x * 2, torch.arange(k)

        class M(nn.Module):
            def forward(self, x):
                y, idx = split(x, 3)
                n = int(idx)
                z, _ = split(torch.ones(3), 3)
                for a, b in split(x, 2):
                    x = x + b
                return y + x, z + x, idx + x
        """
    )
    y, idx = analysed.value("y"), analysed.value("idx")
    assert (origins(y), origins(idx)) == ({F_}, {F_, CPU})
    assert [analysed.code(site) for site in idx.made] == ["torch.arange(k)"]
    assert y.made == ()
    assert analysed.meetings() == [
        ("torch.arange(k)", "operator", "x + b"),  # a loop unpacks each element
        ("torch.ones(3)", "operator", "z + x"),
        ("torch.arange(k)", "operator", "idx + x"),
    ]
    returned = analysed.flow("split")
    assert [origins(part) for part in returned.returned_parts] == [{F_}, {F_, CPU}]


def test_a_helper_returning_no_tuple_written_out_gives_no_elements() -> None:
    analysed = Analysed(
        """
        def pair(x):
            return (x, torch.arange(3)) if x.dim() else (x, x)

        class M(nn.Module):
            def forward(self, x):
                y, idx = pair(x)
                return y + x
        """
    )
    assert analysed.flow("pair").returned_parts == ()
    assert analysed.meetings() == [("torch.arange(3)", "operator", "y + x")]


def test_recursion_is_bounded() -> None:
    analysed = Analysed(
        """
        def down(x, n):
            return down(x, n - 1) + torch.ones(3)
        """
    )
    assert analysed.meetings("down") == []


def test_returned_value_names_the_parameters_it_derives_from() -> None:
    """What a summary of the function reads."""
    analysed = Analysed("def f(x, y):\n    return x * 2\n")
    returned = analysed.flow("f").returned
    assert origins(returned) == {F_}
    assert returned.params == {"x"}


CALLERS = """
class Pipeline:
    def embed(self, w):
        return w[:, None] * torch.arange(8)[None, :]

    def __call__(self, latents, scale):
{calls}

def _private(w):
    return w[:, None] * torch.ones(3)

def public(w):
    return w[:, None] * torch.ones(3)

def run(scale, x):
    return _private(torch.full((3,), scale)) + public(torch.full((3,), scale))
"""

ARANGE_MEETS_W = [("torch.arange(8)", "operator", "w[:, None] * torch.arange(8)[None, :]")]


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        # Every caller passes host data or a CPU tensor: the helper works on the CPU.
        ("return self.embed(torch.tensor(2.0).repeat(3))", []),
        ("return self.embed(torch.linspace(0, 1, 4).cpu())", []),
        # A value the flow cannot place, but the caller moves the result to the device.
        ("return self.embed(torch.tensor(scale - 1)).to(latents.device)", []),
        # ... not moved, only cast: the parameter keeps following the computation.
        ("return self.embed(torch.tensor(scale - 1)).to(torch.float16)", ARANGE_MEETS_W),
        # One caller passes a device tensor: it is on the device there.
        (
            "a = self.embed(torch.tensor(2.0).repeat(3))\nreturn a, self.embed(latents)",
            ARANGE_MEETS_W,
        ),
        # Called with `*args`, passed on as a callback, or never called: nothing to learn.
        ("return self.embed(*[torch.tensor(2.0).repeat(3)])", ARANGE_MEETS_W),
        ("f = self.embed\nreturn self.embed(torch.tensor(2.0).repeat(3)), f", ARANGE_MEETS_W),
        ("return latents", ARANGE_MEETS_W),
    ],
)
def test_callers_in_the_file_say_where_a_parameter_is(calls: str, expected: list[object]) -> None:
    analysed = Analysed(CALLERS.format(calls=textwrap.indent(calls, " " * 8)))
    assert analysed.meetings("embed") == expected


def test_callers_of_a_public_function_may_be_elsewhere() -> None:
    analysed = Analysed(CALLERS.format(calls="        return latents"))
    assert analysed.meetings("_private") == []
    assert analysed.meetings("public") == [
        ("torch.ones(3)", "operator", "w[:, None] * torch.ones(3)")
    ]


def test_a_helper_given_cpu_tensors_returns_cpu_tensors() -> None:
    """``.cpu()`` results passed to a helper: its result is not on the device."""
    analysed = Analysed(
        """
        def similarity(a, b):
            return a @ b.T

        def score(model, x, device):
            sim = similarity(model(x).cpu(), model(x).cpu())
            return sim - torch.tensor([0.5, 0.25]), similarity(x, x) - torch.tensor([0.5])
        """
    )
    assert analysed.meetings("score") == [
        ("torch.tensor([0.5])", "operator", "similarity(x, x) - torch.tensor([0.5])")
    ]


def test_a_reduction_is_on_the_reduced_tensors_device() -> None:
    """``lengths.max()`` of a tensor made on the CPU on one path is on the CPU there."""
    analysed = in_forward(
        "if mask is None:\n"
        "    lengths = torch.ones(x.shape[0])\n"
        "else:\n"
        "    lengths = mask.sum(dim=1)\n"
        "y = lengths / lengths.max()\n"
        "z = lengths / x.max()\n"
    )
    assert analysed.meetings() == [("torch.ones(x.shape[0])", "operator", "lengths / x.max()")]


CONSTRUCTED = """
class M(nn.Module):
    def __init__(self, n, pad: torch.Tensor, device):
        super().__init__()
        self.grid = self.make_grid(n)
        self.scale = torch.ones(n).to(device)
        self.pad = pad
        self.index = torch.arange(n)
        mean = torch.zeros(3)
        self.normalize = lambda x: x - mean
        self.pick = lambda x: x[:, mean.long()]

    @staticmethod
    def make_grid(n):
        return torch.stack([torch.arange(n), torch.arange(n)]).float()

    def forward(self, x):
        y = self.shifted(x) * self.scale
        return self.normalize(y), x[:, self.index] == self.pad, self.pick(x)

    def shifted(self, x):
        return x - self.grid

    def collate(self, batch):
        return torch.tensor(batch) + self.grid + self.index
"""


CONFIGURED = """
class Clip(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low = torch.tensor(low)
        self.high = torch.tensor(high)

    def forward(self, x):
        return (x - self.low).clamp_max(self.high)
"""


def test_a_tensor_of_configuration_meets_the_device_only_where_one_number_would_too() -> None:
    analysed = Analysed(CONFIGURED)
    _, owner = analysed.function("__init__")
    assert owner is not None

    def shown(target: str) -> list[tuple[str, str, str]]:
        built = _init_value(analysed, target)
        found = analysed.flows.construction_meetings(built, owner, lambda name: True)
        return [(analysed.code(m.made), m.kind.value, analysed.code(m.at)) for m in found]

    assert shown("self.low") == []  # one number would meet `x` in arithmetic
    assert shown("self.high") == [
        ("torch.tensor(high)", "method", "(x - self.low).clamp_max(self.high)")
    ]


def _init_value(analysed: Analysed, target: str) -> cst.BaseExpression:
    init, _ = analysed.function("__init__")
    for line in init.body.body:
        statement = line.body[0] if isinstance(line, cst.SimpleStatementLine) else None
        if isinstance(statement, cst.Assign) and analysed.code(statement.targets[0].target) == (
            target
        ):
            return statement.value
    raise KeyError(target)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # Built by a helper of the class; met in a method forward calls.
        ("self.grid", [("torch.arange(n)", "operator", "x - self.grid")] * 2),
        # Placed in __init__: a plain attribute stays there when the module moves.
        ("self.scale", [("torch.ones(n)", "operator", "self.shifted(x) * self.scale")]),
        # The caller's tensor, given to __init__.
        ("self.pad", [("pad: torch.Tensor", "comparison", "x[:, self.index] == self.pad")]),
        # Only an index into a device tensor, and in a collate method: it meets nothing.
        ("self.index", []),
        # A closure that computes with what it captured meets what it is called with ...
        ("self.normalize", [("torch.zeros(3)", "closure call", "self.normalize(y)")]),
        # ... one that only indexes with it does not.
        ("self.pick", []),
    ],
)
def test_what_init_builds_meets_the_device_in_methods_that_run_with_the_batch(
    target: str, expected: list[tuple[str, str, str]]
) -> None:
    analysed = Analysed(CONSTRUCTED)
    _, owner = analysed.function("__init__")
    assert owner is not None
    found = analysed.flows.construction_meetings(
        _init_value(analysed, target), owner, lambda name: name == "forward"
    )
    shown = [(analysed.code(m.made).strip(", "), m.kind.value, analysed.code(m.at)) for m in found]
    assert shown == expected


STORED_FACTORY = """
class Spectrum(nn.Module):
    def __init__(self, n, window_fn=torch.hann_window, pad_fn=F.pad):
        super().__init__()
        self.n = n
        self.window_fn = window_fn
        self.pad_fn = pad_fn

    def forward(self, x, noise_fn=torch.randn):
        placed = self.window_fn(self.n, device=x.device)
        window = self.window_fn(self.n)
        other = self.pad_fn(x, (1, 1))
        y = x * noise_fn(3) + other
        return torch.stft(y, self.n, window=window) * placed
"""


def test_a_torch_factory_named_uncalled_makes_cpu_tensors_where_it_is_called() -> None:
    # `window_fn=torch.hann_window` is a function: called without `device=` (in forward, as
    # an attribute; or as a parameter's default) it makes a CPU tensor there.
    analysed = Analysed(STORED_FACTORY)
    assert origins(analysed.value("self.window_fn(self.n, device=x.device)")) == {F_}
    assert origins(analysed.value("self.pad_fn(x, (1, 1))")) == {UNK}  # not a factory
    assert analysed.meetings() == [
        ("noise_fn(3)", "operator", "x * noise_fn(3)"),
        ("self.window_fn(self.n)", "function", "torch.stft(y, self.n, window=window)"),
    ]


LEAVING = """
class M(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.low = torch.zeros(n)

    def forward(self, x, flag: bool):
        y = x
        if flag:
            y = torch.zeros(3)
            return y
        if self.low is None:
            return x
        return (x + y) * self.low

    def pick(self, x, flag: bool):
        if flag:
            mask = torch.ones(3)
        else:
            raise ValueError("no mask")
        return x * mask
"""


def test_a_branch_that_returns_or_raises_binds_nothing_for_the_code_after_it() -> None:
    # `y` rebound in a branch that returns is still `x` after the `if`; `self.low` past
    # `if self.low is None: return` is what `__init__` left (not None, not host data).
    analysed = Analysed(LEAVING)
    assert origins(analysed.value("(x + y)")) == {F_}
    assert analysed.meetings() == [("torch.zeros(n)", "operator", "(x + y) * self.low")]
    assert analysed.meetings("pick") == [("torch.ones(3)", "operator", "x * mask")]


NESTED = """
class Clip(nn.Module):
    def __init__(self, low, high):
        super().__init__()

        def check(val):
            if val is None:
                return None, 0.0
            return torch.tensor(val), float(val)

        self.low, self.low_eps = check(low)
        self.high, _ = check(high)

    def forward(self, x):
        return x.clamp(self.low, self.high) + self.low_eps
"""


def test_a_function_nested_in_init_gives_each_call_its_own_result() -> None:
    # What `check` returns for each call, element by element; the tensor it makes is made
    # at each call (two attributes, two sites), and may be one number (0-dim) there.
    analysed = Analysed(NESTED)
    _, owner = analysed.function("__init__")
    assert owner is not None
    model = analysed.flows.owner(owner)
    made = {
        name: [analysed.code(site) for site in model.attributes[name].made]
        for name in ("low", "high", "low_eps")
    }
    assert made == {"low": ["check(low)"], "high": ["check(high)"], "low_eps": []}
    assert origins(model.attributes["low_eps"]) == {HOST}
    assert {analysed.code(site) for site in model.scalars} == {"check(low)", "check(high)"}
    assert analysed.meetings() == [
        ("check(low)", "method", "x.clamp(self.low, self.high)"),
        ("check(high)", "method", "x.clamp(self.low, self.high)"),
    ]


NESTED_TWO_DEEP = """\
def fit(design_np, weights: torch.Tensor):
    design = torch.Tensor(design_np)

    def solve(x: torch.Tensor):
        def gram(y: torch.Tensor):
            return y.T @ y + torch.eye(3)

        return gram(x)

    return solve(design), solve(weights)
"""


@pytest.mark.parametrize(
    ("passed", "meets"),
    [
        # Every call of `solve` in `fit` gives it a CPU matrix, which it hands `gram` as is.
        ("solve(design), solve(design)", []),
        # One call gives it `fit`'s tensor input: `gram`'s identity meets that.
        ("solve(design), solve(weights)", ["torch.eye(3)"]),
    ],
)
def test_a_nested_function_gets_what_the_functions_around_it_pass(
    passed: str, meets: list[str]
) -> None:
    analysed = Analysed(NESTED_TWO_DEEP.replace("solve(design), solve(weights)", passed))
    fit = analysed.function("fit")[0]
    solve = next(node for node in fit.body.body if isinstance(node, cst.FunctionDef))
    gram = next(node for node in solve.body.body if isinstance(node, cst.FunctionDef))
    flow = analysed.flows.function(gram, None)
    assert [analysed.code(meeting.made) for meeting in flow.meetings] == meets


CURVE = """
def curve(policy: nn.Module, n: int, weight: torch.Tensor):
    grid = torch.linspace(0, 1, n)
    drawn = policy(grid[:, None]).detach().numpy()
    return drawn, weight * grid
"""


@pytest.mark.parametrize(
    ("read", "meets"),
    [
        # `.numpy()` of the module's output as it comes: the module runs on the CPU here.
        (".detach().numpy()", [("torch.linspace(0, 1, n)", "operator", "weight * grid")]),
        # `.numpy(force=True)` copies a device tensor first: the module may be on the device.
        (
            ".detach().numpy(force=True)",
            [
                ("torch.linspace(0, 1, n)", "module call", "policy(grid[:, None])"),
                ("torch.linspace(0, 1, n)", "operator", "weight * grid"),
            ],
        ),
        # Through `.cpu()` first: the module may run on the device, and the grid meets it.
        (
            ".detach().cpu().numpy()",
            [
                ("torch.linspace(0, 1, n)", "module call", "policy(grid[:, None])"),
                ("torch.linspace(0, 1, n)", "operator", "weight * grid"),
            ],
        ),
    ],
)
def test_a_module_read_as_an_array_runs_on_the_cpu(
    read: str, meets: list[tuple[str, str, str]]
) -> None:
    analysed = Analysed(CURVE.replace(".detach().numpy()", read))
    assert analysed.meetings("curve") == meets


EXPORT = """
def export(predictor: nn.Module, image):
    masks, scores = predictor(image=torch.from_numpy(image), masks=None)
    return masks.detach().numpy(), scores
"""
_EXPORT_MET = [
    (
        "torch.from_numpy(image)",
        "module call",
        "predictor(image=torch.from_numpy(image), masks=None)",
    )
]


@pytest.mark.parametrize(
    ("change", "meets"),
    [
        # Names the module's output is unpacked into, read as arrays: it runs on the CPU.
        ("", []),
        # Moved to the CPU on some path: the module may run on the device.
        ("    masks = masks.cpu()\n", _EXPORT_MET),
        # Rebound from something made of it: that value is read, not the module's output.
        ("    masks = post(masks)\n", _EXPORT_MET),
        # Rebound from no call: the value read may be another.
        ("    masks = cached[0]\n", _EXPORT_MET),
    ],
)
def test_a_module_whose_unpacked_output_is_read_as_an_array_runs_on_the_cpu(
    change: str, meets: list[tuple[str, str, str]]
) -> None:
    source = EXPORT.replace("    return", f"{change}    return")
    assert Analysed(source).meetings("export") == meets


@pytest.mark.parametrize(
    ("test", "meets"),
    [
        # under the user's device flag, no `else`: the move is where the noise goes
        ("self.use_cuda", []),
        ('self.device == "gpu"', []),
        # a tensor's own device is no flag: `.cuda()` is the current GPU, not x's
        ('x.device == "cuda"', [("torch.rand(4)", "operator", "x * noise")]),
    ],
)
def test_a_move_under_a_device_flag_places_the_value(
    test: str, meets: list[tuple[str, str, str]]
) -> None:
    moved = f"noise = torch.rand(4)\nif {test}:\n    noise = noise.cuda()\nx * noise\n"
    assert in_forward(moved).meetings() == meets


@pytest.mark.parametrize(
    ("test", "meets"),
    [
        # the caller gave a device: the move is where the noise goes
        ("device is not None", []),
        ('device is not None and device.type != "cpu"', []),
        ('device is not None and device.type == "cuda"', []),
        # moved only to the CPU, or by another tensor's device: the other path keeps it
        (
            'device is not None and device.type == "cpu"',
            [("torch.rand(4)", "operator", "x * noise")],
        ),
        (
            'device is not None and x.device.type != "cpu"',
            [("torch.rand(4)", "operator", "x * noise")],
        ),
    ],
)
def test_a_move_to_the_device_the_caller_gave_places_the_value(
    test: str, meets: list[tuple[str, str, str]]
) -> None:
    moved = f"noise = torch.rand(4)\nif {test}:\n    noise = noise.to(device)\nx * noise\n"
    assert in_forward(moved).meetings() == meets


def test_an_item_of_a_dict_is_read_back_until_the_dict_or_its_key_is_bound_again() -> None:
    analysed = in_forward(
        """
        found = {"a": torch.zeros(2, 3)}
        found["a"] = found["a"].to(x.device)
        kept = found["a"]
        key = "a"
        found[key] = torch.ones(2)
        key = "b"
        other = found[key]
        """
    )
    assert origins(analysed.value('found["a"].to(x.device)')) == {F_}
    assert origins(analysed.value('found["a"]')) == {F_}
    # the dict holds its items as they are now: the moved one, and `torch.ones(2)`, which a
    # key it cannot read picks as an element of a one-dimensional CPU tensor (host data);
    # not the CPU tensor "a" was before it moved
    assert origins(analysed.value("found[key]")) == {F_, HOST}
    assert analysed.value("found[key]").made == ()


def test_isinstance_of_a_module_places_the_parameter_where_it_holds() -> None:
    analysed = Analysed(
        "def score(model: Union[nn.Module, Callable], ids: torch.Tensor):\n"
        "    if isinstance(model, nn.Module):\n"
        "        return model(ids)\n"
        "    else:\n"
        "        return model(ids.tolist())\n"
    )
    assert origins(analysed.value("model(ids)", "score")) == {F_}
    assert origins(analysed.value("model(ids.tolist())", "score")) == {UNK}


def test_a_tensor_put_on_the_cpu_meets_a_device_index() -> None:
    """``.cpu()`` is a choice (no factory to blame in arithmetic), but a device index cannot
    pick from its result: the meeting names the ``.cpu()`` call; not an index derived from
    what the same choice moved."""
    analysed = Analysed(
        "def pick(x: torch.Tensor, scores: torch.Tensor, mps: bool):\n"
        "    rows = x.cpu()\n"
        "    a = rows + scores\n"
        "    b = rows[scores.argsort()]\n"
        "    if mps:\n"
        "        scores = scores.cpu()\n"
        "    return b, scores[scores > 0]\n"
    )
    assert analysed.meetings("pick") == [("x.cpu()", "index", "rows[scores.argsort()]")]


ANCHORS = """
class Anchors(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.pairs = self.make_pairs(n, device)

    def make_pairs(self, n, device):
        return [torch.arange(k, device=device) for k in range(n)]

    def forward(self, x):
        return torch.cat((torch.ones(x.shape[-1]), self.pairs[0]))
"""


@pytest.mark.parametrize("first", ["make_pairs", "forward"])
def test_what_init_builds_is_the_same_whichever_function_asks_first(first: str) -> None:
    """The class model is built once, by the first flow that reads ``self``: ``__init__``'s
    call of a method being analysed then is no recursion (it returned nothing before)."""
    analysed = Analysed(ANCHORS)
    analysed.flow(first)
    assert origins(analysed.value("self.pairs[0]")) == {F_}
    assert analysed.meetings() == [
        (
            "torch.ones(x.shape[-1])",
            "function",
            "torch.cat((torch.ones(x.shape[-1]), self.pairs[0]))",
        )
    ]


def test_a_device_parameter_left_to_a_cpu_default_places_on_the_cpu() -> None:
    """The default chooses the CPU where a call leaves it; a call that gives a device
    places there."""
    analysed = Analysed(
        "def grid(n: int, device: torch.device = torch.device('cpu')):\n"
        "    return torch.arange(n, device=device)\n\n"
        "def use(x: torch.Tensor):\n"
        "    return grid(3), grid(3, device=x.device), grid(3, 'cpu')\n"
    )
    assert origins(analysed.value("grid(3)", "use")) == {CPU}
    assert origins(analysed.value("grid(3, device=x.device)", "use")) == {F_}
    assert origins(analysed.value("grid(3, 'cpu')", "use")) == {CPU}


def test_a_parameter_the_function_moves_itself_is_handed_on_the_host() -> None:
    """Before the move (of the parameter, or of what derives from it) it follows nothing;
    a cast is no move, nor is ``.to(other)`` (where another tensor is), and a parameter only
    read keeps the computation's device."""
    analysed = Analysed(
        "def run(model, images: torch.Tensor, masks: torch.Tensor, ref: torch.Tensor, device):\n"
        "    scaled = images * 2\n"
        "    masks = masks.to(torch.float16)\n"
        "    near = ref * 3\n"
        "    alias = torch.Tensor(scaled)\n"
        "    return model(scaled.to(device)), scaled, masks, near.to(masks), near, alias\n"
    )
    assert origins(analysed.value("scaled", "run")) == {UNK}
    assert analysed.value("alias", "run").made == ()  # an alias of what the caller handed
    assert origins(analysed.value("scaled.to(device)", "run")) == {F_}
    assert origins(analysed.value("masks", "run")) == {F_}
    assert origins(analysed.value("near", "run")) == {F_}


def test_a_move_to_an_inputs_own_device_or_the_current_gpu_hands_nothing_over() -> None:
    """``m.to(xyz.device)`` places ``m`` where ``xyz`` is, and ``if out.is_cuda: m.cuda()``
    finds the input on the GPU: neither says the caller hands ``xyz`` on the host."""
    analysed = Analysed(
        "def scale(xyz: torch.Tensor, w: torch.Tensor):\n"
        "    sc = torch.ones(3)\n"
        "    out = xyz / sc\n"
        "    mask = (out > 0).float()\n"
        "    if out.is_cuda:\n"
        "        mask = mask.cuda()\n"
        "    return out * mask, (xyz * w).to(xyz.device)\n"
    )
    assert origins(analysed.value("xyz", "scale")) == {F_}
    assert analysed.meetings("scale") == [("torch.ones(3)", "operator", "xyz / sc")]


def test_what_a_move_helper_or_a_move_to_another_tensors_device_hands_over() -> None:
    """A move helper moves its first argument, not the tensor that names the device
    (``to_device(batch, x.device)``); a name that only contains the helper's words
    (``remove_tokens``) is no move helper: neither makes ``x`` or ``y`` host data."""
    analysed = Analysed(
        "def run(model, batch, x: torch.Tensor, y: torch.Tensor):\n"
        "    batch = to_device(batch, x.device)\n"
        "    kept = remove_tokens(y)\n"
        "    return model(batch), x * 2, kept\n"
    )
    assert origins(analysed.value("x", "run")) == {F_}
    assert origins(analysed.value("y", "run")) == {F_}


def test_a_star_argument_may_pass_the_device_a_cpu_default_would_choose() -> None:
    """``grid(3, **options)`` may pass ``device``: its CPU default is not read as chosen."""
    analysed = Analysed(
        "def grid(n, device=torch.device('cpu')):\n"
        "    return torch.arange(n, device=device)\n"
        "\n"
        "def run(x: torch.Tensor, **options):\n"
        "    g = grid(3, **options)\n"
        "    return g * x\n"
    )
    assert origins(analysed.value("g", "run")) == {F_}


def test_only_an_augmented_assignment_that_calls_an_in_place_update_refuses_a_scalar() -> None:
    """``total += loss`` calls ``add_``, which refuses a 0-dim CPU ``total``; ``**=``
    (``pow_``) is not among the updates the oracle checks (``IN_PLACE_UPDATES``)."""
    analysed = Analysed(
        "def run(x: torch.Tensor):\n"
        "    total = torch.tensor(0.0)\n"
        "    total += x.sum()\n"
        "    power = torch.tensor(2.0)\n"
        "    power **= x.sum()\n"
        "    return total, power\n"
    )
    assert [made for made, _, _ in analysed.meetings("run")] == ["torch.tensor(0.0)"]


def test_a_tensor_read_or_written_through_a_cpu_index_is_where_the_indexed_one_is() -> None:
    """``torch.zeros(n).scatter(0, times, 1)``: the result is on the CPU tensor it writes
    into, made by ``zeros`` alone; ``times`` met it there and is to blame for nothing
    the result meets later."""
    analysed = Analysed(
        "def pattern(n: int, x: torch.Tensor):\n"
        "    times = torch.arange(0, n, 2)\n"
        "    spikes = torch.zeros(n).scatter(0, times, 1)\n"
        "    picked = x.index_select(0, times)\n"
        "    return x * spikes, picked\n"
    )
    spikes = analysed.value("torch.zeros(n).scatter(0, times, 1)", "pattern")
    assert [analysed.code(site) for site in spikes.made] == ["torch.zeros(n)"]
    assert origins(analysed.value("x.index_select(0, times)", "pattern")) == {F_}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # A sequence taken apart into tensors holds tensors: it follows, as its parts do.
        ("clean, lengths = inputs\ny = clean.clone()", {F_}),
        ("for part in inputs:\n    y = part.float()", {F_}),
        ("y = [part.float() for part in inputs]", {F_}),
        ("(a, b), c = inputs\nd, e = a\ny = d.sum()", {F_}),  # a part of a part
        # Parts never used as tensors are as likely numbers (a height and a width).
        ("h, w = inputs\ny = h * w", {UNK}),
        # A part it calls is a module or a function, whatever it reads of it.
        ("for model in inputs:\n    y = model.refine(model(y))", {UNK}),
    ],
)
def test_a_sequence_taken_apart_into_tensors_follows(body: str, expected: set[Origin]) -> None:
    analysed = Analysed(
        "class M(nn.Module):\n    def forward(self, inputs):\n"
        + textwrap.indent(body, " " * 8)
        + "\n"
    )
    assert origins(analysed.value("inputs")) == expected


def test_a_part_of_an_input_is_a_tensor_only_where_used_as_one() -> None:
    analysed = Analysed(
        "class M(nn.Module):\n    def forward(self, inputs):\n"
        "        x, size = inputs\n"
        "        h, w = size\n"
        "        keep = torch.arange(10) < h\n"
        "        for y, k in inputs:\n"
        "            keep = torch.arange(8) % k < y.sum()\n"
        "        return x.view(h, w)[keep]\n"
    )
    assert origins(analysed.value("inputs")) == {F_}
    assert origins(analysed.value("y.sum()")) == {F_}
    assert origins(analysed.value("h")) == {UNK}  # a size: as likely a number
    assert origins(analysed.value("k")) == {UNK}
    meeting = ("torch.arange(8)", "comparison", "torch.arange(8) % k < y.sum()")
    assert analysed.meetings() == [meeting]  # with the part used as a tensor only


def test_an_input_used_as_a_tensor_itself_keeps_every_part_on_the_device() -> None:
    analysed = Analysed(
        "class M(nn.Module):\n    def forward(self, inputs):\n"
        "        n = inputs[0].shape[0]\n"
        "        for s in inputs:\n"
        "            y = s * n\n"
    )
    assert origins(analysed.value("s")) == {F_}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("args.device", True),
        ("self.dev", True),
        ("std_dev", False),
        ("device", True),
        ("self.dtype", False),
        ("self.devices", False),
        ("developer", False),
    ],
)
def test_a_move_target_named_for_a_device(name: str, expected: bool) -> None:
    """``x.to(self.dev)`` is a move whatever the flow knows of ``self.dev`` (a string read
    from the command line); ``x.to(self.dtype)`` may be a cast."""
    assert reads_a_device(name) is expected
