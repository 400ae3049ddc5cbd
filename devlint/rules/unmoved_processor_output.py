"""DEV004: HF processor/tokenizer output that reaches a model without ``.to(...)``."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import libcst as cst

from devlint.candidates import Candidate, Resolution, ScopeInfo
from devlint.facts import ReturnedOutput
from devlint.findings import Applicability
from devlint.index import ProjectIndex
from devlint.named_calls import receiver_may_name
from devlint.nodes import (
    attribute_of_self,
    descendants,
    dotted_name,
    first_positional,
    keyword_argument,
    loads_a_processor,
    names_a_move_helper,
)
from devlint.rules._devices import BINDING_TYPES, Bindings
from devlint.rules.base import (
    FileContext,
    Invalid,
    Rule,
    RuleSettings,
    Trigger,
    choose_fix,
    insert_after,
)
from devlint.rules.base import replace as edit
from devlint.skeleton import Skeleton, dotted
from devlint.symbols import (
    DEVICE_ARGUMENT_MOVES,
    IMAGE_ONLY_KEYS,
    PROCESSOR_METHODS,
    PROCESSOR_SUFFIXES,
    UNPACKING_BUILTINS,
)

_TENSOR_TESTS = frozenset({"hasattr", "isinstance", "torch.is_tensor"})
"""Calls that ask whether a value is a tensor (or can be moved)."""


@dataclass
class _Value:
    """A variable holding processor output that is still on the CPU."""

    origin: str
    """``direct`` (made in this function) or a callee reference (see ProjectIndex)."""
    source: str
    node: cst.BaseExpression
    """The assigned expression: where a fix appends ``.to(...)``."""
    made_at: cst.CSTNode
    """The processor call (or the call of the function returning its output)."""
    kind: str = "batch"
    moved_keys: set[str] = field(default_factory=set)
    keys: frozenset[str] | None = None
    """Every key the output holds, where the call says (None: not known)."""


@dataclass
class _Flow:
    """What one function (or the module body) knows about its variables so far."""

    values: dict[str, _Value] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    """Variable -> ``loaded`` (from_pretrained), ``moved`` (and moved), ``hooked`` (device_map)."""


@dataclass
class _FileState:
    flows: dict[str | None, _Flow] = field(default_factory=dict)
    processors: set[str] = field(default_factory=set)
    """Names and ``self.`` attributes bound to processors loaded with ``from_pretrained``."""
    attributes: dict[tuple[str, str], str] = field(default_factory=dict)
    """(class, attribute) -> ``module``, ``loaded``, ``hooked``: what ``self.<attr>`` holds."""


class UnmovedProcessorOutput(Rule):
    """## What it does
    Follows the output of a HuggingFace processor, tokenizer, feature extractor or
    image processor called with `return_tensors="pt"` (and of project functions
    that return it unmoved, in any file) to the model call it feeds, and reports
    the call when the value was never moved with `.to(...)`. The message names
    where the output was made, also when that is another function in another file.

    ## Why is this bad?
    Processors build their tensors on the CPU. The model lives on a GPU (the
    trainer put it there), so the forward pass fails with `Expected all tensors to
    be on the same device`. Because the tensors are made in one place (a wrapper's
    `process_input`) and used in another (the LightningModule's `forward`), grep
    cannot find this; moving one key by hand (`inputs["pixel_values"]`) leaves the
    others behind.

    ## Example
    ```python
    class ICVModel(pl.LightningModule):
        def forward(self, texts, images):
            inputs = self.lmm.process_input(texts, images)  # returns processor(...) output
            return self.lmm.model(**inputs, labels=inputs["input_ids"])
    ```

    ## Use instead
    ```python
    class ICVModel(pl.LightningModule):
        def forward(self, texts, images):
            inputs = self.lmm.process_input(texts, images).to(self.device)
            return self.lmm.model(**inputs, labels=inputs["input_ids"])
    ```

    ## Fix safety
    The fix moves the value where it is assigned, in the function that calls the
    model: `.to(self.device)` in a class that has `.device` (safe: it is where the
    module's weights are), `.to(model.device)` when the called model was loaded
    with `from_pretrained` and moved (safe, also in scripts). A plain `dict` (a
    source that returns `{k: v ...}` or `dict(...)`) has no `.to`; the fix then
    builds `{k: v.to(device) for k, v in ....items()}`. Otherwise there is no fix.
    Not flagged: output handed to a model of a host runtime (outside model code, in a
    module that uses OpenVINO's inference or Intel's NPU library, or the project's own code
    built on them: they take CPU tensors),
    output only used for shapes or decoding, moved by a helper whose
    name says so (`move_to_device`, `transfer_batch_to_device`), returned from a
    collate function (the trainer moves batches), models loaded with
    `device_map=...` (accelerate's hooks move their inputs), and a local `model`
    that a call made (`model, processor = load(name)`) and nothing here moved: it
    is where that call left it, as a loaded model never moved is on the CPU; likewise a
    model a class outside model code loads into `self.model` (`from_pretrained`, or
    `self.tokenizer, self.model = load(name)`) and never places (no move of it or of
    `self`, never handed to a call such as `accelerator.prepare(self.model)`), or into a
    module-level name nothing in the file moves or hands on. Nor a
    batch whose every key is moved: `pixel_values` of a processor given only `images=`
    (CLIP's, ViT's and SigLIP's return nothing else; one that adds a mask, as DETR's
    `pixel_mask`, is missed there), or a batch rebuilt with every tensor moved (`{k:
    v.to(d) if hasattr(v, "to") else v ...}`).
    """

    code = "DEV004"
    name = "unmoved-processor-output"
    summary = "Processor/tokenizer output reaches a model call without `.to(...)`"
    fix_safety = "safe"
    node_types = ("Assign", "Expr", "Return", "Call")
    # Output is made by a call with `return_tensors="pt"` (or, in the second pass, by a
    # call of a function named in `returning_output`: see `file_triggers`). The facts of
    # `return f(...)` need no trigger: the engine parses files that name such an `f`.
    triggers = ("return_tensors",)
    screen_types = (ast.Assign, ast.Return, ast.alias, *BINDING_TYPES)

    VALID = (
        # A module bound to a host runtime (OpenVINO): its models take CPU tensors.
        "import openvino as ov\n\n"
        "class Calibrator:\n"
        "    def __init__(self, model, tokenizer):\n"
        "        self.model = model\n"
        "        self.tokenizer = tokenizer\n"
        "        self.core = ov.Core()\n\n"
        "    def collect(self, texts):\n"
        "        for text in texts:\n"
        '            inputs = self.tokenizer(text, return_tensors="pt")\n'
        "            self.model.generate(**inputs, max_new_tokens=8)\n",
        # Moved at once, moved later, moved key by key through a comprehension.
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, texts):\n"
        '        a = self.tokenizer(texts, return_tensors="pt").to(self.device)\n'
        '        b = self.tokenizer(texts, return_tensors="pt")\n'
        "        b = b.to(self.device)\n"
        '        c = self.tokenizer(texts, return_tensors="pt")\n'
        "        c = {k: v.to(self.device) for k, v in c.items()}\n"
        "        return self.model(**a), self.model(**b), self.model(**c)\n",
        # Only used for shapes and decoding; moved by a helper.
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, texts):\n"
        '        enc = self.tokenizer(texts, return_tensors="pt")\n'
        '        n = enc["input_ids"].shape[1]\n'
        '        print(self.tokenizer.batch_decode(enc["input_ids"]))\n'
        "        enc = move_to_device(enc, self.device)\n"
        "        return self.model(**enc)[:, :n]\n",
        # A collate function returns the batch for the trainer to move.
        "from transformers import AutoTokenizer\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")\n\n'
        "def collate(batch):\n"
        '    return tokenizer([b["text"] for b in batch], return_tensors="pt", padding=True)\n',
        # Single-process inference: device_map="auto" hooks move the inputs.
        "from transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
        'tok = AutoTokenizer.from_pretrained("gpt2")\n'
        'model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")\n'
        'inputs = tok("hello", return_tensors="pt")\n'
        "out = model.generate(**inputs)\n",
        # A model left on the CPU takes CPU inputs.
        "from transformers import AutoModel, AutoTokenizer\n\n"
        'tok = AutoTokenizer.from_pretrained("bert-base-uncased")\n'
        'model = AutoModel.from_pretrained("bert-base-uncased")\n'
        'out = model(**tok("hello", return_tensors="pt"))\n',
        # A model that a helper loads and returns, never moved here: CPU model, CPU inputs.
        "def clip_reference(texts, images, name):\n"
        "    model, processor = load_clip(name)\n"
        '    inputs = processor(text=texts, images=images, return_tensors="pt")\n'
        "    other_model = build(name)\n"
        "    return model(**inputs), other_model(**inputs)\n",
        # Given only images, the processor returns only the pixels: moving them moves it all.
        "def image_embedding(encoder, processor, img):\n"
        '    inputs = processor(images=img * 255, return_tensors="pt")\n'
        "    inputs['pixel_values'] = inputs['pixel_values'].to(img.device)\n"
        "    return encoder(**inputs).image_embeds\n",
        # Every tensor of the batch moved, whatever else it holds kept as it is.
        "def caption(model, processor, image, device):\n"
        '    inputs = processor(text="<CAPTION>", images=image, return_tensors="pt")\n'
        "    batch = {\n"
        '        k: (v.to(device) if hasattr(v, "to") else v) for k, v in inputs.items()\n'
        "    }\n"
        "    return model.generate(**batch)\n",
        # Every key moved in a loop.
        "import torch.nn as nn\n\n"
        "class Encoder(nn.Module):\n"
        "    def forward(self, texts):\n"
        '        enc = self.tokenizer(texts, return_tensors="pt", padding=True)\n'
        "        for key in enc.keys():\n"
        "            enc[key] = enc[key].to(device=self.model.device)\n"
        "        return self.model(**enc).pooler_output\n",
        # NumPy arrays, for a model run by ONNX Runtime: nothing to move.
        "import pytorch_lightning as pl\n\n"
        "class M(pl.LightningModule):\n"
        "    def forward(self, texts):\n"
        '        enc = self.tokenizer(texts, return_tensors="np")\n'
        "        return self.onnx_model(**enc)\n",
        # A model its class loads and never places stays on the CPU, with its inputs.
        "from transformers import AutoModel, AutoTokenizer\n\n"
        "class Embedder:\n"
        "    def __init__(self, name):\n"
        "        self.tokenizer, self.text_model = load(name)\n\n"
        "    def __call__(self, texts):\n"
        '        tokens = self.tokenizer(texts, return_tensors="pt", padding=True)\n'
        "        return self.text_model(**tokens)\n",
        # A model the module loads at import and nothing moves stays on the CPU, too.
        "from transformers import BertModel, BertTokenizer\n\n"
        'tokenizer = BertTokenizer.from_pretrained("bert-base-uncased")\n'
        'model = BertModel.from_pretrained("bert-base-uncased")\n\n'
        "def embed(text):\n"
        '    encoded = tokenizer(text, return_tensors="pt")\n'
        "    return model(**encoded)\n",
    )
    INVALID = (
        Invalid(
            # The class places its model through a call on the way (`.eval().to(...)`).
            "from transformers import AutoModel, AutoTokenizer\n\n"
            "class Embedder:\n"
            "    def __init__(self, name, device):\n"
            "        self.tokenizer = AutoTokenizer.from_pretrained(name)\n"
            "        self.model = AutoModel.from_pretrained(name)\n"
            "        self.model.eval().to(device)\n\n"
            "    def __call__(self, texts):\n"
            '        tokens = self.tokenizer(texts, return_tensors="pt")\n'
            "        return self.model(**tokens)\n",
            line=11,
            column=27,
        ),
        Invalid(
            # The module's model placed by a function of the file: the inputs stay behind.
            "from transformers import BertModel, BertTokenizer\n\n"
            'tokenizer = BertTokenizer.from_pretrained("bert-base-uncased")\n'
            'model = BertModel.from_pretrained("bert-base-uncased")\n\n'
            "def use_gpu():\n"
            "    model.cuda()\n\n"
            "def embed(text):\n"
            '    encoded = tokenizer(text, return_tensors="pt")\n'
            "    return model(**encoded)\n",
            line=11,
            column=18,
        ),
        Invalid(
            # The same class placing its model elsewhere: the inputs stay behind.
            "from transformers import AutoModel, AutoTokenizer\n\n"
            "class Embedder:\n"
            "    def __init__(self, name):\n"
            "        self.tokenizer, self.text_model = load(name)\n\n"
            "    def __call__(self, texts):\n"
            '        tokens = self.tokenizer(texts, return_tensors="pt", padding=True)\n'
            "        return self.text_model(**tokens)\n\n"
            "    def cuda(self):\n"
            "        self.text_model.cuda()\n"
            "        return self\n",
            line=9,
            column=32,
        ),
        Invalid(
            # Only what is already on the device is moved: the CPU tensors stay.
            "def caption(model, processor, image, device):\n"
            '    inputs = processor(text="<CAPTION>", images=image, return_tensors="pt")\n'
            "    batch = {\n"
            "        k: (v.to(device) if v.is_cuda else v) for k, v in inputs.items()\n"
            "    }\n"
            "    return model.generate(**batch)\n",
            line=6,
            column=27,
        ),
        Invalid(
            # Given text too: the token ids stay on the CPU.
            "import torch\n\n"
            "class Scorer(torch.nn.Module):\n"
            "    def forward(self, texts, img):\n"
            '        inputs = self.processor(text=texts, images=img, return_tensors="pt")\n'
            "        inputs['pixel_values'] = inputs['pixel_values'].to(img.device)\n"
            "        return self.encoder(**inputs)\n",
            line=7,
            column=29,
        ),
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, texts):\n"
            '        enc = self.tokenizer(texts, return_tensors="pt", padding=True)\n'
            "        return self.model(**enc)\n",
            line=6,
            column=27,
            fixed="import pytorch_lightning as pl\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, texts):\n"
            '        enc = self.tokenizer(texts, return_tensors="pt", padding=True)'
            ".to(self.device)\n"
            "        return self.model(**enc)\n",
        ),
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "class Wrapper:\n"
            "    def process_input(self, texts, images):\n"
            '        out = self.processor(texts, images, return_tensors="pt")\n'
            "        return out\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, texts, images):\n"
            "        inputs = self.lmm.process_input(texts, images)\n"
            '        inputs["pixel_values"] = inputs["pixel_values"].to(self.device)\n'
            '        return self.lmm.model(**inputs, labels=inputs["input_ids"])\n',
            line=12,
            column=31,
            fixed="import pytorch_lightning as pl\n\n"
            "class Wrapper:\n"
            "    def process_input(self, texts, images):\n"
            '        out = self.processor(texts, images, return_tensors="pt")\n'
            "        return out\n\n"
            "class M(pl.LightningModule):\n"
            "    def forward(self, texts, images):\n"
            "        inputs = self.lmm.process_input(texts, images).to(self.device)\n"
            '        inputs["pixel_values"] = inputs["pixel_values"].to(self.device)\n'
            '        return self.lmm.model(**inputs, labels=inputs["input_ids"])\n',
        ),
        Invalid(
            "import pytorch_lightning as pl\n\n"
            "def encode(tokenizer, texts):\n"
            '    enc = tokenizer(texts, return_tensors="pt")\n'
            "    return {k: v for k, v in enc.items() if k != 'token_type_ids'}\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            '        inputs = encode(self.tokenizer, batch["text"])\n'
            "        return self.model(**inputs).loss\n",
            line=10,
            column=27,
            fixed="import pytorch_lightning as pl\n\n"
            "def encode(tokenizer, texts):\n"
            '    enc = tokenizer(texts, return_tensors="pt")\n'
            "    return {k: v for k, v in enc.items() if k != 'token_type_ids'}\n\n"
            "class M(pl.LightningModule):\n"
            "    def training_step(self, batch, batch_idx):\n"
            "        inputs = {k: v.to(self.device) for k, v in "
            'encode(self.tokenizer, batch["text"]).items()}\n'
            "        return self.model(**inputs).loss\n",
        ),
        Invalid(
            "import torch\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
            'tok = AutoTokenizer.from_pretrained("gpt2")\n'
            'model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")\n'
            'inputs = tok.apply_chat_template(msgs, return_tensors="pt")\n'
            "out = model.generate(inputs, max_new_tokens=20)\n",
            line=7,
            column=22,
            fixed="import torch\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
            'tok = AutoTokenizer.from_pretrained("gpt2")\n'
            'model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")\n'
            'inputs = tok.apply_chat_template(msgs, return_tensors="pt").to(model.device)\n'
            "out = model.generate(inputs, max_new_tokens=20)\n",
        ),
        Invalid(
            "import torch.nn as nn\n\n"
            "class Scorer(nn.Module):\n"
            "    def __init__(self, vocab):\n"
            "        super().__init__()\n"
            "        self.encoder = nn.Embedding(vocab, 8)\n\n"
            "    def score(self, texts):\n"
            '        enc = self.tokenizer(texts, return_tensors="pt")\n'
            "        return self.encoder(enc.input_ids)\n",
            line=10,
            column=29,
        ),
        Invalid(
            # A model built by a helper and moved here.
            "def score(tokenizer, texts, name, device):\n"
            "    model = build(name).to(device)\n"
            '    inputs = tokenizer(texts, return_tensors="pt")\n'
            "    return model(**inputs).logits\n",
            line=4,
            column=18,
            fixed="def score(tokenizer, texts, name, device):\n"
            "    model = build(name).to(device)\n"
            '    inputs = tokenizer(texts, return_tensors="pt").to(model.device)\n'
            "    return model(**inputs).logits\n",
        ),
        Invalid(
            # Made a plain dict: still the processor's CPU tensors.
            "import torch.nn as nn\n\n"
            "class Encoder(nn.Module):\n"
            "    def forward(self, texts):\n"
            '        batch = dict(self.tokenizer(texts, return_tensors="pt", padding=True))\n'
            "        return self.model(**batch).last_hidden_state\n",
            line=6,
            column=27,
        ),
    )

    # Traversal ---------------------------------------------------------------------

    def file_triggers(self, settings: RuleSettings) -> tuple[Trigger, ...] | None:
        if not settings.processor_outputs:
            return ()  # nothing to do in this project
        return (*self.triggers, *sorted(settings.returning_output))

    def screen(self, found: Skeleton, settings: RuleSettings) -> bool:
        """Processor output is held (a candidate needs it) or returned at once (a fact
        without ``via``) only where an assignment or a ``return`` has a call that makes it
        (``_classify``): one with ``return_tensors="pt"`` or, in the second pass, of a
        function named in ``returning_output``, perhaps within ``dict(...)``, as far as
        ``_callee_reference`` may resolve its call to one (``_Calls``)."""
        returning = settings.returning_output
        callers = _names_calling(returning, found.of_type(ast.alias)) if returning else set()
        calls = _Calls(returning, callers, settings.returning_on_any_receiver, Bindings.of(found))
        return any(
            isinstance(statement, (ast.Assign, ast.Return))
            and _makes_output(statement.value, calls)
            for statement in found.of_type(ast.Assign, ast.Return)
        )

    def visit(self, node: cst.CSTNode, context: FileContext) -> None:
        if not context.settings.processor_outputs:
            return
        state = context.state(self).setdefault("file", _FileState())
        assert isinstance(state, _FileState)
        flow = state.flows.setdefault(context.scope.function_name, _Flow())
        if isinstance(node, cst.Assign):
            self._assign(node, context, state, flow)
        elif isinstance(node, cst.Expr):
            self._statement(node, context, flow)
        elif isinstance(node, cst.Return):
            self._return(node, context, state, flow)
        elif isinstance(node, cst.Call):
            self._call(node, context, state, flow)

    def _assign(
        self, node: cst.Assign, context: FileContext, state: _FileState, flow: _Flow
    ) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        value = node.value
        if isinstance(target, cst.Subscript):
            self._move_key(target, value, flow)
            return
        if isinstance(target, cst.Tuple) and isinstance(value, cst.Call):
            owner = context.scope.class_name
            for element in target.elements:  # model, processor = load(name)
                if isinstance(element.value, cst.Name) and _names_a_model(element.value.value):
                    flow.models[element.value.value] = "loaded"
                attribute = attribute_of_self(element.value)
                told = any(
                    "device" in (dotted_name(arg.keyword or arg.value) or "") for arg in value.args
                )  # load(name, device): the loader places it
                if owner and attribute is not None and _names_a_model(attribute) and not told:
                    state.attributes[(owner, attribute)] = "loaded"  # self.model, ... = load()
            return
        name = dotted_name(target)
        if name is None:
            return
        self._remember_object(name, value, context, state, flow)
        if not isinstance(target, cst.Name):
            return
        model = flow.models.get(name)
        if model == "loaded" and _moves(value) and _root(value) == name:
            flow.models[name] = "moved"  # model = model.to(device)
        held = self._classify(value, context, state, flow)
        if held is None:
            flow.values.pop(name, None)
        else:
            flow.values[name] = held

    def _remember_object(
        self,
        name: str,
        value: cst.BaseExpression,
        context: FileContext,
        state: _FileState,
        flow: _Flow,
    ) -> None:
        """Record processors, pretrained models and modules bound to names or ``self.x``."""
        loader = _from_pretrained(value)
        if loader is not None:
            if loads_a_processor(loader):
                state.processors.add(name)
                return
            kind = "loaded"
            if keyword_argument(_unwrap_moves(value), "device_map") is not None:
                kind = "hooked"
            elif _moves(value):
                kind = "moved"
            if name.startswith("self.") and context.scope.class_name:
                state.attributes[(context.scope.class_name, name[5:])] = kind
            elif "." not in name:
                flow.models[name] = kind
            return
        if "." not in name and _names_a_model(name) and isinstance(value, cst.Call):
            # model = build(cfg): on the device that call gave it, which only a move here
            # says (as for a model loaded here); a model never moved takes CPU inputs. Not
            # `model = accelerator.prepare(model)`: the model it was, wrapped or moved.
            if not _rewraps(value, name):
                flow.models[name] = "moved" if _moves(value) else "loaded"
            return
        if name.startswith("self.") and context.scope.class_name and isinstance(value, cst.Call):
            qualified = context.qualified_name(value.func) or ""
            if qualified.startswith("torch.nn.") and qualified.rpartition(".")[2][:1].isupper():
                state.attributes[(context.scope.class_name, name[5:])] = "module"

    @staticmethod
    def _move_key(target: cst.Subscript, value: cst.BaseExpression, flow: _Flow) -> None:
        """``inputs["pixel_values"] = inputs["pixel_values"].to(device)``: one key moved."""
        variable = target.value
        if not isinstance(variable, cst.Name) or not _moves(value):
            return
        held = flow.values.get(variable.value)
        if held is None:
            return
        key = _string_key(target)
        if key is None:
            # inputs[key] = inputs[key].to(device) in a loop over the keys: all of them.
            flow.values.pop(variable.value)
        else:
            held.moved_keys.add(key)
            if held.keys is not None and held.keys <= held.moved_keys:
                flow.values.pop(variable.value)  # every key it holds: all of it moved

    def _statement(self, node: cst.Expr, context: FileContext, flow: _Flow) -> None:
        """``inputs.to(device)`` and ``model.cuda()`` as statements move in place."""
        value = node.value
        if not (isinstance(value, cst.Call) and _moves(value)):
            return
        assert isinstance(value.func, cst.Attribute)
        receiver = value.func.value
        if isinstance(receiver, cst.Name):
            flow.values.pop(receiver.value, None)
            if receiver.value in flow.models and flow.models[receiver.value] == "loaded":
                flow.models[receiver.value] = "moved"

    def _return(
        self, node: cst.Return, context: FileContext, state: _FileState, flow: _Flow
    ) -> None:
        function = context.scope.function_name
        if node.value is None or function is None:
            return
        held = self._classify(node.value, context, state, flow, any_callee=True)
        if held is None or held.moved_keys:
            return
        via = None if held.origin == "direct" else held.origin
        fact = ReturnedOutput(function, held.source, 0, held.kind, via)
        context.add_fact(fact, held.made_at if via is None else None)

    def _call(self, node: cst.Call, context: FileContext, state: _FileState, flow: _Flow) -> None:
        sink = self._sink(node, context, state, flow)
        if sink is None:
            return
        callee, model_variable = sink
        for arg in node.args:
            name, key = _carried(arg.value)
            held = flow.values.get(name) if name else None
            if held is None or (key is not None and key in held.moved_keys):
                continue
            unplaced = _never_placed(callee, context, state)
            self._report(context, node, arg, name or "", held, callee, model_variable, unplaced)
            return

    def _report(
        self,
        context: FileContext,
        call: cst.Call,
        arg: cst.Arg,
        variable: str,
        held: _Value,
        callee: str,
        model_variable: str | None,
        unplaced: bool,
    ) -> None:
        keys_used = sorted(
            key
            for other in call.args
            for name, key in [_carried(other.value)]
            if name == variable and key is not None and key not in held.moved_keys
        )
        data = {
            "variable": variable,
            "origin": held.origin,
            "source": held.source,
            "kind": held.kind,
            "sink": callee,
            "moved_keys": ",".join(sorted(held.moved_keys)),
            "keys_used": ",".join(keys_used),
        }
        if unplaced:
            data["unplaced_model"] = "yes"
        code = context.code_for(held.node)
        devices = {"self_device": "self.device"}
        if model_variable is not None:
            devices["model_device"] = f"{model_variable}.device"
        fixes = {}
        for variant, device in devices.items():
            fixes[f"{variant}_batch"] = (insert_after(held.node, f".to({device})"),)
            if not isinstance(held.node, (cst.Call, cst.Name, cst.Attribute, cst.Subscript)):
                code = f"({code})"
            fixes[f"{variant}_dict"] = (
                edit(held.node, f"{{k: v.to({device}) for k, v in {code}.items()}}"),
            )
        lines = {"source_line": held.made_at} if held.origin == "direct" else {}
        context.report(self.code, arg, data=data, fixes=fixes, lines=lines)

    # What the code means -----------------------------------------------------------

    def _classify(
        self,
        value: cst.BaseExpression,
        context: FileContext,
        state: _FileState,
        flow: _Flow,
        *,
        any_callee: bool = False,
    ) -> _Value | None:
        """The unmoved processor output ``value`` evaluates to, or None.

        The result of calling a project function may be such output; whether it is,
        the index says once the whole project is known. Returns always record the
        call (that is how the index learns it); other uses only for the functions
        a first pass found to return processor output (``returning_output``).
        """
        if isinstance(value, cst.Name):
            held = flow.values.get(value.value)
            return replace(held, node=value, moved_keys=set(held.moved_keys)) if held else None
        if isinstance(value, cst.DictComp):
            return self._comprehension(value, flow)
        if not isinstance(value, cst.Call) or _moves(value):
            return None
        callee = dotted_name(value.func) or ""
        if names_a_move_helper(value.func):
            return None
        if self._is_source(value, context, state):
            source = f"{context.code_for(value.func)}(...)"
            return _Value("direct", source, value, value, keys=_output_keys(value))
        if callee == "dict" and value.args:
            inner = self._classify(value.args[0].value, context, state, flow)
            return replace(inner, node=value, kind="dict") if inner else None
        reference = self._callee_reference(value, context)
        if reference is None:
            return None
        if not any_callee and reference.rpartition(".")[2].rpartition(":")[2] not in (
            context.settings.returning_output
        ):
            return None
        return _Value(reference, "", value, value)

    @staticmethod
    def _comprehension(value: cst.DictComp, flow: _Flow) -> _Value | None:
        """``{k: v for k, v in x.items()}`` keeps x's tensors where they are."""
        loop = value.for_in
        iterable = loop.iter
        if not (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items"
            and isinstance(iterable.func.value, cst.Name)
        ):
            return None
        held = flow.values.get(iterable.func.value.value)
        if held is None or _moves(value.value) or _moves_tensors(value.value):
            return None
        return replace(held, node=value, kind="dict", moved_keys=set())

    def _is_source(self, call: cst.Call, context: FileContext, state: _FileState) -> bool:
        """A processor-like call with ``return_tensors="pt"``."""
        tensors = keyword_argument(call, "return_tensors")
        if tensors is None or not _is_string(tensors.value, "pt"):
            return False
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "apply_chat_template":
            return True
        receiver = func
        if isinstance(func, cst.Attribute) and func.attr.value in PROCESSOR_METHODS:
            receiver = func.value
        return self._is_processor(receiver, context, state)

    @staticmethod
    def _is_processor(node: cst.BaseExpression, context: FileContext, state: _FileState) -> bool:
        name = dotted_name(node)
        if name is None:
            return False
        last = name.rpartition(".")[2]
        if name in state.processors or last in context.settings.processor_names:
            return True
        return any(last.lower().endswith(suffix) for suffix in PROCESSOR_SUFFIXES)

    @staticmethod
    def _callee_reference(call: cst.Call, context: FileContext) -> str | None:
        """How the index can find the function ``call`` runs (see ProjectIndex)."""
        func = call.func
        dotted = dotted_name(func)
        if dotted is not None and dotted.startswith("self.") and dotted.count(".") == 1:
            owner = context.scope.class_name
            return f"self:{owner}.{dotted[5:]}" if owner else None
        qualified = context.qualified_name(func)
        if qualified is not None:
            return f"q:{qualified}"
        if isinstance(func, cst.Attribute):
            return f"m:{func.attr.value}"
        return None

    def _sink(
        self, call: cst.Call, context: FileContext, state: _FileState, flow: _Flow
    ) -> tuple[str, str | None] | None:
        """``(callee text, model variable)`` when ``call`` runs a model, else None."""
        func = call.func
        name = dotted_name(func)
        if isinstance(func, cst.Name) and name in flow.models:
            kind = flow.models[func.value]
            return (func.value, func.value) if kind == "moved" else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            variable = func.value.value
            if variable in flow.models:
                if flow.models[variable] != "moved" or func.attr.value not in (
                    "generate",
                    "forward",
                ):
                    return None
                return (f"{variable}.{func.attr.value}", variable)
        if name is None:
            return None
        last = name.rpartition(".")[2]
        owner = context.scope.class_name
        if name.startswith("self.") and owner and name.count(".") == 1:
            held = state.attributes.get((owner, name[5:]))
            if held == "hooked":
                return None
            if held is not None:
                return (name, None)
        if isinstance(func, cst.Name) and _loaded_here_never_placed(func.value, context):
            return None
        if name in ("self", "self.forward") or last in ("model", "generate"):
            return (name, None)
        if last.endswith("_model"):
            return (name, None)
        unpacks = any(arg.star == "**" for arg in call.args)
        if (
            unpacks
            and name not in UNPACKING_BUILTINS
            and not self._is_processor_call(call, context, state)
        ):
            return (name, None)  # model(**inputs): whatever it is, it takes the tensors
        return None

    def _is_processor_call(self, call: cst.Call, context: FileContext, state: _FileState) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and self._is_processor(func.value, context, state):
            return True
        return self._is_processor(func, context, state)

    # Verdict -------------------------------------------------------------------------

    def resolve(
        self, candidate: Candidate, scope: ScopeInfo, index: ProjectIndex
    ) -> Resolution | None:
        data = candidate.data
        if index.computes_on_host(candidate.scope):
            return None  # the model is a host runtime's (OpenVINO): it takes CPU tensors
        if "unplaced_model" in data and not scope.model_code:
            return None  # a model its class loaded and never placed: on the CPU, as its inputs
        kind = data["kind"]
        if data["origin"] == "direct":
            where = f"`{data['source']}` (line {data['source_line']})"
        else:
            origin = index.processor_origin(data["origin"])
            if origin is None:
                return None
            where = f"`{origin.function}` ({origin.path}:{origin.line})"
            if kind == "batch":
                kind = origin.kind
        message = (
            f"`{data['variable']}` holds processor output from {where}, still on the CPU "
            f"when it reaches `{data['sink']}(...)`"
        )
        if data["moved_keys"]:
            moved = ", ".join(f"'{key}'" for key in data["moved_keys"].split(","))
            others = [k for k in data["keys_used"].split(",") if k]
            left = ", ".join(f"'{key}'" for key in others) if others else "the other keys"
            message += f"; only {moved} was moved, {left} still on the CPU"
        if scope.device_aware and not scope.in_init:
            fix = choose_fix(
                candidate, f"self_device_{kind}", Applicability.SAFE, "Move it to `self.device`"
            )
            return Resolution(f"{message}; move it with `.to(self.device)`", fix)
        if f"model_device_{kind}" in candidate.fixes:
            model = data["sink"].partition(".")[0]
            fix = choose_fix(
                candidate,
                f"model_device_{kind}",
                Applicability.SAFE,
                f"Move it to `{model}.device`",
            )
            return Resolution(f"{message}; move it with `.to({model}.device)`", fix)
        return Resolution(f"{message}; move it to the model's device")


def _makes_output(value: ast.expr | None, calls: _Calls) -> bool:
    """A call with ``return_tensors="pt"``, of one of the functions, or ``dict(...)`` of one
    (``_classify`` follows ``dict``'s first argument, a keyword's value too)."""
    if not isinstance(value, ast.Call):
        return False
    if _asks_for_pt(value) or calls.may_reach(value):
        return True
    arguments = [*value.args, *(keyword.value for keyword in value.keywords)]
    is_dict = isinstance(value.func, ast.Name) and value.func.id == "dict"
    return is_dict and any(_makes_output(argument, calls) for argument in arguments)


def _output_keys(call: cst.Call) -> frozenset[str] | None:
    """The keys a processor's batch holds: given only ``images=``, the pixels."""
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    if len(keywords) == len(call.args) and keywords == {"images", "return_tensors"}:
        return IMAGE_ONLY_KEYS
    return None


def _asks_for_pt(call: ast.Call) -> bool:
    """``f(..., return_tensors="pt")`` (what ``_is_source`` requires, as ``ast`` sees it)."""
    return any(
        keyword.arg == "return_tensors"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value == "pt"
        for keyword in call.keywords
    )


def _names_calling(functions: Iterable[str], imports: Iterable[ast.AST]) -> set[str]:
    """The names that may resolve to one of ``functions`` (``_callee_reference`` keeps a
    qualified name's last part): the functions' own names, and every ``as`` name given to
    an import of one of them (any import: a name may be bound more than once)."""
    names = set(functions)
    for alias in imports:
        assert isinstance(alias, ast.alias)
        if alias.asname is not None and alias.name.rpartition(".")[2] in functions:
            names.add(alias.asname)
    return names


@dataclass(frozen=True)
class _Calls:
    """Which calls may run a function returning processor output, as ``_callee_reference``
    names them for the index: ``g(...)`` (an import of ``f`` as ``g`` too), ``self.f(...)``
    (on the class), ``x.f(...)`` where ``x`` may be bound to a qualified name (an import, a
    module-level definition), and ``y.f(...)`` on any other receiver (``m:f``, which the
    index resolves only when every project method named ``f`` returns such output)."""

    functions: frozenset[str]
    callers: set[str]
    on_any_receiver: frozenset[str]
    bindings: Bindings

    def may_reach(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in self.callers
        if not isinstance(func, ast.Attribute) or func.attr not in self.functions:
            return False
        if func.attr in self.on_any_receiver:
            return True
        receiver = dotted(func.value)
        if receiver is None:
            return False  # no qualified name: an ``m:`` reference
        return receiver_may_name(receiver, self.bindings.may_bind)


def _is_string(node: cst.BaseExpression, value: str) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == value


def _string_key(node: cst.Subscript) -> str | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return key.evaluated_value
    return None


def _carried(value: cst.BaseExpression) -> tuple[str | None, str | None]:
    """The variable an argument passes on, and the key it selects: ``x``, ``x["k"]``, ``x.k``."""
    if isinstance(value, cst.Name):
        return value.value, None
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name):
        return value.value.value, _string_key(value)
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
        return value.value.value, value.attr.value
    return None, None


def _moves(value: cst.BaseExpression) -> bool:
    """``x.to(...)`` or ``x.cuda()`` (at the end of the chain)."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in DEVICE_ARGUMENT_MOVES
    )


def _moves_tensors(value: cst.BaseExpression) -> bool:
    """``v.to(device) if hasattr(v, "to") else v`` (or ``isinstance(v, torch.Tensor)``,
    ``torch.is_tensor(v)``): every value that is a tensor is moved, the rest kept."""
    if not isinstance(value, cst.IfExp) or not isinstance(value.test, cst.Call):
        return False
    test = value.test
    checked = first_positional(test)
    if dotted_name(test.func) not in _TENSOR_TESTS or checked is None:
        return False
    kept = value.orelse
    return (
        _moves(value.body)
        and isinstance(kept, cst.Name)
        and isinstance(checked.value, cst.Name)
        and checked.value.value == kept.value
        and _root(value.body) == kept.value
    )


def _unwrap_moves(value: cst.BaseExpression) -> cst.Call:
    """``Auto.from_pretrained(...).to(device)`` -> the ``from_pretrained`` call."""
    while _moves(value):
        assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        value = value.func.value
    assert isinstance(value, cst.Call)
    return value


def _root(value: cst.BaseExpression) -> str | None:
    while isinstance(value, (cst.Call, cst.Attribute)):
        value = value.func if isinstance(value, cst.Call) else value.value
    return value.value if isinstance(value, cst.Name) else None


def _from_pretrained(value: cst.BaseExpression) -> str | None:
    """The class name in ``X.from_pretrained(...)`` (possibly followed by ``.to(...)``)."""
    while _moves(value):
        assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        value = value.func.value
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return None
    if value.func.attr.value != "from_pretrained":
        return None
    return (dotted_name(value.func.value) or "").rpartition(".")[2] or None


def _rewraps(value: cst.BaseExpression, name: str) -> bool:
    """``wrap(name)``, ``name.to(device)`` or ``wrap(name).cuda()``: the same model again."""
    while isinstance(value, cst.Call):
        if any(dotted_name(arg.value) == name for arg in value.args):
            return True
        func = value.func
        if not isinstance(func, cst.Attribute):
            return False
        value = func.value
    return dotted_name(value) == name


def _never_placed(callee: str, context: FileContext, state: _FileState) -> bool:
    """``self.model(...)`` where the class loaded ``self.model`` (``from_pretrained``, or
    ``self.tokenizer, self.model = load(name)``) and none of its methods places it: no move
    of it or of ``self`` (``self.model.cuda()``, ``self.to(device)``), and never handed to
    a call that may (``accelerator.prepare(self.model)``). Nothing chose a device for it, so
    it is where it was loaded, on the CPU. (A module class may still be moved whole by its
    users: ``resolve`` keeps the finding in model code.)"""
    owner = context.scope.class_name
    attribute = callee[5:] if callee.startswith("self.") and callee.count(".") == 1 else None
    if owner is None or attribute is None or state.attributes.get((owner, attribute)) != "loaded":
        return False
    classdef = next((n for n in reversed(context.ancestors) if isinstance(n, cst.ClassDef)), None)
    if classdef is None:
        return False
    return not _placed_in(classdef, f"self.{attribute}", movers=("self", f"self.{attribute}"))


def _loaded_here_never_placed(name: str, context: FileContext) -> bool:
    """``model(...)`` where ``model`` is a module-level ``X.from_pretrained(...)`` that nothing
    in the file moves, hands to a call or rebinds from a function (``global model``): as
    ``_never_placed`` for a class's model, it stays on the CPU where it was loaded, with its
    inputs (an example module computing embeddings at import)."""
    module = context.ancestors[0] if context.ancestors else None
    if not isinstance(module, cst.Module):
        return False
    loaded = False
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            ):
                loaded = _from_pretrained(small.value) is not None and not _moves(small.value)
    if not loaded:
        return False
    return not _placed_in(module, name, movers=(name,))


def _placed_in(scope: cst.CSTNode, model: str, movers: tuple[str, ...]) -> bool:
    """Whether code in ``scope`` may place ``model``: a move of one of ``movers`` (through
    calls on the way, ``model.eval().cuda()``), ``model`` handed to a call or kept under
    another name (``m = model``, then ``m.cuda()``), or bound from a function (``global``)."""
    for node in descendants(scope):
        if isinstance(node, cst.Call) and _moves(node):
            assert isinstance(node.func, cst.Attribute)
            receiver = node.func.value
            while isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
                receiver = receiver.func.value
            if dotted_name(receiver) in movers:
                return True
        elif isinstance(node, (cst.Arg, cst.Assign)) and dotted_name(node.value) == model:
            return True  # handed on, or kept under another name
        elif isinstance(node, cst.Global) and any(n.name.value == model for n in node.names):
            return True
    return False


def _names_a_model(name: str) -> bool:
    """``model``, ``ref_model``: a variable that ``_sink`` would take for a model by name."""
    return name == "model" or name.endswith("_model")
