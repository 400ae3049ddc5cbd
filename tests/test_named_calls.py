"""Which matches of a name in a file's text may be calls DEV004's screen counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import package_findings

from devlint.named_calls import may_call

NAMES = frozenset({"encode", "preprocess"})


@pytest.mark.parametrize(
    ("code", "bound", "calls"),
    [
        # Knowing nothing of the file's bindings (a file parsed with libcst): any match.
        ("y = tok.encode(x)\n", None, True),
        ("def encode(self, x):\n", None, True),
        # A definition is no call.
        ("def encode(self, x):\n", frozenset(), False),
        ("async def preprocess(x):\n", frozenset(), False),
        ("undef encode(x)\n", frozenset(), True),
        # A method of a receiver the file does not bind cannot be the project's function ...
        ("y = tok.encode(x)\n", frozenset(), False),
        ("y = [b for b in token.encode('utf-8')]\n", frozenset(), False),
        ("y = self.sp_model.encode(x)\n", frozenset(), False),
        ("y = a . b.encode(x)\n", frozenset(), False),
        # ... but one the file binds (an import, a definition) or `self` alone may be.
        ("y = tok.encode(x)\n", frozenset({"tok"}), True),
        ("y = tokenize.text.encode(x)\n", frozenset({"tokenize"}), True),
        ("y = self.encode(x)\n", frozenset(), True),
        ("y = encode(x)\n", frozenset(), True),
        ("from m import encode as e\n", frozenset(), True),
        # Not sure where the receiver starts: counted.
        ("y = f(x).encode(x)\n", frozenset(), True),
        ("y = 's'.encode(x)\n", frozenset(), True),
        ("y = (a.\n    tok.encode(x))\n", frozenset({"a"}), True),
        ("y = tok \\\n    .encode(x)\n", frozenset(), True),
        # One match that may be a call is enough.
        ("y = tok.encode(x)\nz = encode(x)\n", frozenset(), True),
    ],
)
def test_may_call_counts_what_the_screen_may_resolve(
    code: str, bound: frozenset[str] | None, calls: bool
) -> None:
    assert may_call(code, NAMES, bound) is calls


def test_a_name_any_receiver_may_reach_counts_on_every_receiver() -> None:
    code = "y = tok.encode(x)\n"
    assert may_call(code, NAMES, frozenset(), frozenset({"encode"})) is True
    assert may_call(code, NAMES, frozenset(), frozenset({"preprocess"})) is False


PREP = """\
from transformers import AutoProcessor

PROCESSOR = AutoProcessor.from_pretrained("m")


def encode(texts):
    return PROCESSOR(texts, return_tensors="pt")
"""

MODEL = """\
import pytorch_lightning as pl


class Model(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, texts):
        from pkg import prep

        inputs = prep.encode(texts)
        return self.net(**inputs)
"""


def test_a_file_skipped_at_first_is_read_again_where_a_bound_receiver_calls_the_name(
    tmp_path: Path,
) -> None:
    # `prep` is bound by an import inside the method: the text search must count it.
    files = {"pkg/prep.py": PREP, "pkg/model.py": MODEL}
    assert package_findings(tmp_path, files, "DEV004") == [("model.py", 13, 25)]
