"""Which names a fix may borrow a device from (devlint/rules/_anchors.py)."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.rules._anchors import (
    borrowable_device,
    device_is_an_index,
    known_tensor,
    updated_in_place,
)


def _function(code: str) -> cst.FunctionDef:
    found = cst.parse_module(code).body[0]
    assert isinstance(found, cst.FunctionDef)
    return found


@pytest.mark.parametrize(
    "body",
    [
        "    return x + 1\n",
        "    return x[0] + x[:, 1]\n",
        "    return x.view(-1).sum()\n",
        '    return x[i] if i is None else x["a"[0]:]\n',
        "    h = x.clone()\n    return h.to(x.device) + h.to(i.dtype)\n",
        "    h = x.cpu()\n    return h.cuda()\n",
    ],
)
def test_a_parameter_read_only_as_a_tensor_is_one(body: str) -> None:
    assert known_tensor("x", _function(f"def f(x, i):\n{body}"))


@pytest.mark.parametrize(
    "body",
    [
        "    a, b = x\n",
        "    for a in x:\n        pass\n",
        "    return [a for a in x]\n",
        "    return g(*x)\n",
        "    return g(**x)\n",
        '    return x["image"]\n',
        "    return x.items()\n",
        "    return x.keys()\n",
        "    return x.values()\n",
        "    return 0 if x is None else x\n",
        "    return None == x\n",
        "    return isinstance(x, dict)\n",
        "    if x:\n        return x\n",
        "    while x:\n        pass\n",
        "    assert x\n",
        "    return not x\n",
        "    return x or y\n",
        "    return y if x else 0\n",
        "    return y + 1\n",
        "    return self.x + g(x=y)\n",
        "    h = x.clone()\n    return h.cuda()\n",
        "    h = x[0]\n    g = h.view(-1)\n    return g.to(y.device)\n",
        '    return x.to("cuda:1") + y\n',
    ],
)
def test_a_parameter_read_otherwise_is_no_anchor(body: str) -> None:
    assert not known_tensor("x", _function(f"def f(self, x, y):\n{body}"))


def test_a_parameter_with_a_default_or_none_of_that_name_is_no_anchor() -> None:
    assert not known_tensor("x", _function("def f(x=None):\n    return x + 1\n"))
    assert not known_tensor("y", _function("def f(x):\n    return x + 1\n"))


@pytest.mark.parametrize(
    ("signature", "body", "index"),
    [
        ("device: int = -1", "    return device\n", True),
        ("device", "    if device >= 0:\n        pass\n", True),
        ("device", "    return device < 0\n", True),
        ("device", "    return device == -1\n", True),
        ("device", '    return device == "cpu"\n', False),
        ("device=None", "    return device\n", False),
        ("device", "    return device > 0\n", False),
    ],
)
def test_a_device_compared_with_the_cpu_sentinel_is_an_index(
    signature: str, body: str, index: bool
) -> None:
    assert device_is_an_index("device", _function(f"def f({signature}):\n{body}")) is index


@pytest.mark.parametrize(
    ("partner", "borrowable"),
    [
        ("h", True),  # a local the flow follows
        ("x", True),  # a parameter read only as a tensor
        ("self.w", True),
        ("emb.weight", True),  # emb is annotated
        ("rope.dim", False),  # an unknown object's attribute: maybe an int
        ("opt.x", False),  # a parameter without annotation
        ("g().x", False),
    ],
)
def test_a_partner_lends_its_device_only_when_known(partner: str, borrowable: bool) -> None:
    function = _function("def f(self, x, emb: Module, opt):\n    return x\n")
    node = cst.parse_expression(partner)
    assert borrowable_device(node, function) is borrowable


def test_the_updated_operand_of_an_in_place_update_is_not_moved() -> None:
    statement = cst.parse_statement("total += x")
    assert isinstance(statement, cst.SimpleStatementLine)
    update = statement.body[0]
    assert isinstance(update, cst.AugAssign)
    assert updated_in_place(update.target, update)
    assert not updated_in_place(update.value, update)
    call = cst.parse_expression("total.add_(x)")
    assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
    assert updated_in_place(call.func.value, call)
    assert not updated_in_place(call.args[0].value, call)
    plain = cst.parse_expression("total.add(x)")
    assert isinstance(plain, cst.Call) and isinstance(plain.func, cst.Attribute)
    assert not updated_in_place(plain.func.value, plain)
    into = cst.parse_expression("torch.index_select(t, 0, i, out=total)")
    assert isinstance(into, cst.Call)
    assert updated_in_place(into.args[-1].value, into)
    assert not updated_in_place(into.args[0].value, into)
