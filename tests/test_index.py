"""``ProjectIndex.scope_info``: which code is model code or a device context, across files.

Each answer decides whether the rules report anywhere in that code, so each kind of
evidence has a case here, with a look-alike that must not count.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lint_project, package_findings

from devlint.candidates import Scope, ScopeInfo
from devlint.index import ProjectIndex

CHECK = "from torch import Tensor\n\n\ndef check(x: Tensor):\n    return x\n"
FILES = {
    "lib/__init__.py": "from lib.framework import Module\n",
    "lib/framework.py": "import torch\n\nModule = torch.nn.Module\n",
    "lib/nets.py": (
        "from functools import partial\n\nimport torch\nfrom lib import Module\n\n\n"
        "class Res(Module):\n"
        "    def __init__(self):\n"
        "        self.shortcut = partial(self.pad, planes=2)\n"
        "        self.apply(partial(self.init_weights, std=0.02))\n\n"
        "    def pad(self, x, planes):\n        return x\n\n"
        "    def init_weights(self, m, std):\n        return m\n\n"
        "    def forward(self, x):\n        return self.shortcut(x)\n\n\n"
        "class Mining:\n"
        "    @staticmethod\n"
        "    def hardest(d):\n        return d\n\n"
        "    @staticmethod\n"
        "    def unused(d):\n        return d\n\n\n"
        "class MaskMixin:\n"
        "    def mask(self, x):\n        return x\n\n\n"
        "class Net(MaskMixin, Module):\n"
        "    def forward(self, x):\n        return Mining.hardest(self.mask(x))\n\n\n"
        "class Dice(torch.nn.modules.loss._Loss):\n"
        "    def forward(self, x):\n        return x\n\n\n"
        "class Unrelated:\n"
        "    def mask(self, x):\n        return x\n"
    ),
    "lib/sampling.py": (
        "import torch\n\n\n"
        "class Sampler:\n"
        "    def __init__(self, model):\n        self.model = model\n\n"
        "    def sample(self, n):\n        return helper(n)\n\n\n"
        "class Trainer:\n"
        "    def __init__(self, device):\n        self.device: str = device\n\n"
        "    def step(self, batch):\n        return batch\n\n\n"
        "class Frames(torch.utils.data.Dataset):\n"
        "    def __init__(self, device):\n        self.device = device\n\n"
        "    def __getitem__(self, i):\n        return i\n\n"
        "    def move(self, x, device):\n        return x\n\n\n"
        "class Keeper:\n"
        "    def __init__(self, device):\n        self.device = device\n\n\n"
        "class Clips(Keeper, torch.utils.data.Dataset):\n"
        "    def __getitem__(self, i):\n        return i\n\n\n"
        "class Config:\n"
        "    def __init__(self, name):\n        self.model_name = name\n\n\n"
        "def helper(n):\n    return n\n\n\n"
        "def make_grid(n, *, device):\n    return grid_helper(n)\n\n\n"
        "def grid_helper(n):\n    return n\n\n\n"
        "def plain(n):\n    return n\n"
    ),
    "lib/ops.py": (
        "from typing import Optional\n\nfrom torch import Tensor, nn\n"
        "from torch.autograd import Function\n\n\n"
        "def cumsum(x: Tensor, dim: int = 0):\n    return inner(x)\n\n\n"
        "def inner(x):\n    return x\n\n\n"
        "def load(model: nn.Module, state):\n    return state\n\n\n"
        "def maybe(x: Optional[Tensor], y: Tensor = None):\n    return x\n\n\n"
        "def iou(boxes_a, boxes_b):\n    return pairwise(boxes_a.contiguous(), boxes_b)\n\n\n"
        "def area(boxes, pad=None):\n    return boxes.copy(), pad.new_zeros(1)\n\n\n"
        "class Gather(Function):\n"
        "    @staticmethod\n    def backward(ctx, grad):\n        return grad\n\n\n"
        "class Gather2(Gather):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        return x\n"
    ),
    "lib/heads.py": (
        "from mmcv.runner import BaseModule\nfrom mmengine.hooks import Hook\n"
        "from mmengine.model import BaseModel\n\n\n"
        "class Head(BaseModule):\n"
        "    def forward(self, x):\n        return x\n\n\n"
        "class Detector(BaseModel):\n"
        "    def forward(self, x):\n        return x\n\n\n"
        "class Logger(Hook):\n"
        "    def after_iter(self, runner):\n        return runner\n"
    ),
    "tests/test_ops.py": CHECK,
    "tests/unittests/__init__.py": "",
    "tests/unittests/helpers.py": CHECK,
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> ProjectIndex:
    project = lint_project(tmp_path_factory.mktemp("index"), FILES)
    assert project.index is not None
    return project.index


def method(class_name: str, name: str) -> Scope:
    return Scope(
        class_name=class_name,
        function_name=f"{class_name}.{name}",
        method=name,
        has_self=True,
    )


def function(name: str) -> Scope:
    return Scope(function_name=name)


MODEL = ScopeInfo(model_code=True, device_context=True)
CASES = [
    # A base class renamed at module level and re-exported from the package.
    (method("lib.nets.Net", "forward"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    # A mixin's method runs with `self` a model; here on the forward path.
    (method("lib.nets.MaskMixin", "mask"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    (method("lib.nets.Unrelated", "mask"), ScopeInfo()),
    # A method bound by `partial` for later (a shortcut a block calls) runs on the forward
    # path; one bound to initialise weights through `apply` runs once.
    (method("lib.nets.Res", "pad"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    (method("lib.nets.Res", "init_weights"), MODEL),
    # OpenMMLab's module bases (mmcv, mmengine) are modules; their hooks are not.
    (method("lib.heads.Head", "forward"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    (method("lib.heads.Detector", "forward"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    (method("lib.heads.Logger", "after_iter"), ScopeInfo()),
    # torch's private bases are modules too.
    (method("lib.nets.Dice", "forward"), ScopeInfo(**{**vars(MODEL), "forward_path": True})),
    # A static method that model code calls through its class's name; not one it does not.
    (
        Scope(class_name="lib.nets.Mining", function_name="lib.nets.Mining.hardest"),
        ScopeInfo(model_code=True, device_context=True, forward_path=True),
    ),
    (Scope(class_name="lib.nets.Mining", function_name="lib.nets.Mining.unused"), ScopeInfo()),
    # Classes that store a model or a device know their device; a `model_name` is no model.
    (method("lib.sampling.Sampler", "sample"), ScopeInfo(device_context=True)),
    (method("lib.sampling.Trainer", "step"), ScopeInfo(device_context=True, device_aware=True)),
    (
        method("lib.sampling.Trainer", "__init__"),
        ScopeInfo(device_context=True, device_aware=True, in_init=True),
    ),
    (method("lib.sampling.Config", "__init__"), ScopeInfo()),
    # Data-loading code storing a device stays DEV011's (data pipeline), not a device context.
    (method("lib.sampling.Frames", "__getitem__"), ScopeInfo()),
    (method("lib.sampling.Frames", "move"), ScopeInfo()),
    (method("lib.sampling.Clips", "__getitem__"), ScopeInfo()),  # what a base stores
    # What they call, and functions told their device, with what those call.
    (function("lib.sampling.helper"), ScopeInfo(device_context=True)),
    (function("lib.sampling.make_grid"), ScopeInfo(device_context=True)),
    (function("lib.sampling.grid_helper"), ScopeInfo(device_context=True)),
    (function("lib.sampling.plain"), ScopeInfo()),
    # Functions whose inputs tell them their device: a parameter without a default annotated
    # as a tensor or a module (or used as a tensor), autograd Functions (through project
    # bases too); not what they call, not `Optional[Tensor]` or a defaulted parameter, not
    # tests.
    (function("lib.ops.cumsum"), ScopeInfo(knows_inputs=True)),
    (function("lib.ops.load"), ScopeInfo(knows_inputs=True)),
    (function("lib.ops.inner"), ScopeInfo()),
    (function("lib.ops.maybe"), ScopeInfo()),
    # Or without an annotation, used as only a tensor is; not as an array, not a default.
    (function("lib.ops.iou"), ScopeInfo(knows_inputs=True)),
    (function("lib.ops.area"), ScopeInfo()),
    (
        Scope(class_name="lib.ops.Gather", function_name="lib.ops.Gather.backward"),
        ScopeInfo(knows_inputs=True),
    ),
    (
        Scope(class_name="lib.ops.Gather2", function_name="lib.ops.Gather2.forward"),
        ScopeInfo(knows_inputs=True),
    ),
    (function("tests.test_ops.check"), ScopeInfo()),
    (function("unittests.helpers.check"), ScopeInfo()),  # in tests/, by its path
]


@pytest.mark.parametrize(
    ("scope", "expected"), CASES, ids=lambda c: getattr(c, "function_name", "")
)
def test_scope_info(index: ProjectIndex, scope: Scope, expected: ScopeInfo) -> None:
    assert index.scope_info(scope) == expected


def test_two_files_of_one_module_name_do_not_break_the_index(tmp_path: Path) -> None:
    """``util.py`` beside ``util/__init__.py`` (site-packages has such pairs): the index
    knows where each class it holds is defined."""
    project = lint_project(
        tmp_path,
        {
            "lib/__init__.py": "",
            "lib/util.py": "import torch\n\nclass A(torch.nn.Module):\n"
            "    def forward(self, x):\n        return x.cuda()\n",
            "lib/util/__init__.py": "import torch\n\nclass B(torch.nn.Module):\n"
            "    def forward(self, x):\n        return x.cuda()\n",
        },
    )
    assert project.index is not None
    for name in ("lib.util.A", "lib.util.B"):
        assert project.index.scope_info(method(name, "forward")).model_code


BACKEND_FILES = {
    "lib/__init__.py": "",
    # Gaudi's operators in a module-level lambda; Gaudi's library imported in a function.
    "lib/gaudi_lambda.py": "import torch\n\n"
    "cast = lambda x: torch.ops.hpu.cast_to_fp8_v2(x)[0]\n\n\n"
    "def f(x):\n    return x\n",
    "lib/gaudi_local.py": "def f(x):\n"
    "    import habana_frameworks.torch.core as htcore\n\n"
    "    htcore.mark_step()\n    return x\n",
    "lib/megatron_code.py": "from megatron.core import mpu\n\n\ndef f(x):\n    return x\n",
    "lib/ascend.py": "import torch_npu\n\n\ndef f(x):\n    return x\n",
    # A host runtime's inference binds to the CPU; its converter of torch models does not.
    "lib/ov_runtime.py": "import openvino as ov\n\n\ndef f(x):\n"
    "    return ov.Core().compile_model(x)\n",
    "lib/ov_convert.py": "def f(model):\n"
    "    from openvino.frontend.pytorch import ModuleExtension\n\n"
    "    return ModuleExtension(model)\n",
    # The project's own package named like the runtime (checked inside a namespace package).
    "openvino/__init__.py": "",
    "openvino/helpers.py": "def g(x):\n    return x\n",
    "openvino/patcher.py": "from openvino.helpers import g\n\n\ndef f(x):\n    return g(x)\n",
    # The project's own wrapper of a host runtime (a class deriving from the runtime's)
    # binds the modules that use it, however many steps away; a function calling the
    # runtime binds its own module, not its callers' (a helper may call it only when it is
    # there), and a helper of the wrapper's module that does not reach it binds nothing.
    "lib/npu_base.py": "from intel_npu_acceleration_library.backend.factory import NNFactory\n"
    "from intel_npu_acceleration_library.backend.runtime import adapt_output_tensor\n\n\n"
    "class Factory(NNFactory):\n    pass\n\n\n"
    "def run(x):\n    return adapt_output_tensor(x, x.shape, x.dtype)\n\n\n"
    "def shape_of(x):\n    return x.shape\n",
    "lib/npu_layer.py": "from lib.npu_base import Factory\n\n\n"
    "class Layer(Factory):\n    pass\n\n\n"
    "def f(x):\n    return x\n",
    "lib/npu_runner.py": "from lib import npu_base\n\n\n"
    "def run_twice(x):\n    return npu_base.run(npu_base.run(x))\n\n\n"
    "def f(x):\n    return x\n",
    "lib/npu_user.py": "from lib.npu_runner import run_twice\n\n\n"
    "def f(x):\n    return run_twice(x)\n",
    "lib/npu_layer_user.py": "def f(x):\n"
    "    from lib.npu_layer import Layer\n\n    return Layer()(x)\n",
    "lib/npu_helper_user.py": "from lib.npu_base import shape_of\n\n\n"
    "def f(x):\n    return shape_of(x)\n",
    # A converter extension building the runtime's graph (an opset's operations, a Model)
    # binds its users to nothing: a graph node is no tensor.
    "lib/ov_ops.py": "import openvino as ov\nimport openvino.opset14 as ops\n\n\n"
    "def convert_cell(context):\n"
    "    return ov.Model([ops.result(ops.constant(0))], [])\n",
    "lib/ov_patcher.py": "from lib.ov_ops import convert_cell\n\n\n"
    "def f(x):\n    return convert_cell(x)\n",
    # CUDA-only kernels: a rasterizer library, an extension compiled from `.cu` sources when
    # the module is imported, a compiled one it imports. Not sources of C++ alone, nor a
    # compilation left to a function, nor the project's own module named like an extension,
    # nor the modules calling the kernels' wrappers.
    "lib/raster.py": "import nvdiffrast.torch as dr\n\n\ndef f(x):\n    return x\n",
    "lib/jit_kernels.py": "from torch.utils.cpp_extension import load\n\n"
    'ops = load(name="ops", sources=["ops.cpp", "ops_kernel.cu"])\n\n\n'
    "def f(x):\n    return ops.run(x)\n",
    "lib/jit_host.py": "import torch.utils.cpp_extension\n\n"
    'ops = torch.utils.cpp_extension.load("ops", ["ops.cpp"])\n\n\n'
    "def f(x):\n    return ops.run(x)\n",
    "lib/jit_later.py": "from torch.utils.cpp_extension import load\n\n\n"
    "def f(x):\n"
    '    return load(name="ops", sources=["ops_kernel.cu"]).run(x)\n',
    "lib/built.py": "import pointnet2_cuda\n\n\ndef f(x):\n    return pointnet2_cuda.sample(x)\n",
    "ops_cuda.py": "def g(x):\n    return x\n",
    "lib/own_ops.py": "import ops_cuda\n\n\ndef f(x):\n    return ops_cuda.g(x)\n",
    "lib/kernel_user.py": "from lib.jit_kernels import f as render\n\n\n"
    "def f(x):\n    return render(x)\n",
    # Nor kernels the module may do without: an import with a fallback, a compilation
    # under a test or in a lambda, an import in a function.
    "lib/knn_fallback.py": "try:\n    import knn_cuda\nexcept ImportError:\n"
    "    knn_cuda = None\n\n\ndef f(x):\n    return knn_cuda.knn(x)\n",
    "lib/jit_tested.py": "import torch\nfrom torch.utils.cpp_extension import load\n\n"
    "if torch.cuda.is_available():\n"
    '    ops = load(name="ops", sources=["ops_kernel.cu"])\n\n\n'
    "def f(x):\n    return ops.run(x)\n",
    "lib/jit_lambda.py": "from torch.utils.cpp_extension import load\n\n"
    'build = lambda: load(name="ops", sources=["ops_kernel.cu"])\n\n\n'
    "def f(x):\n    return build().run(x)\n",
    "lib/built_later.py": "def f(x):\n    import pointnet2_cuda\n\n"
    "    return pointnet2_cuda.sample(x)\n",
    # A compiled module the project's build declares from `.cu` sources (setup.py's
    # `CUDAExtension`, also in a function, also named relative to its folder), imported
    # whenever the module is; not one with a CPU implementation too (a source for the CPU,
    # in a `cpu/` folder too, or a `CppExtension` of the same name), nor one declared from
    # C++ alone, nor a library's module of the same last name (`torch._C`).
    "setup.py": "from setuptools import setup\n"
    "from torch.utils.cpp_extension import CUDAExtension, CppExtension\n\n\n"
    "def extensions():\n"
    '    return [CUDAExtension("lib.ops._ext", ["src/ext.cpp", "src/pool_kernel.cu"])]\n\n\n'
    "setup(ext_modules=[\n"
    '    *extensions(),\n    CUDAExtension(name="_grid", sources=["grid.cpp", "grid.cu"]),\n'
    '    CUDAExtension("lib.nms_ext", ["nms_cpu.cpp", "nms_kernel.cu"]),\n'
    '    CUDAExtension("lib.roi_ext", ["csrc/cpu/roi.cpp", "csrc/cuda/roi.cu"]),\n'
    '    CUDAExtension("lib.box_ext", ["box.cpp", "box.cu"]),\n'
    '    CppExtension("lib.box_ext", ["box.cpp"]),\n'
    '    CppExtension("lib.host_ext", ["host.cpp"]),\n'
    '    CUDAExtension("_C", ["c.cpp", "c.cu"]),\n'
    "])\n",
    "lib/ops/__init__.py": "",
    "lib/ops/pool.py": "from ._ext import pool_forward\n\n\n"
    "def f(x):\n    return pool_forward(x)\n",
    "lib/ops/grid.py": "import _grid\n\n\ndef f(x):\n    return _grid.run(x)\n",
    "lib/nms.py": "from lib.nms_ext import nms\n\n\ndef f(x):\n    return nms(x)\n",
    "lib/host.py": "from lib.host_ext import run\n\n\ndef f(x):\n    return run(x)\n",
    "lib/roi.py": "from lib.roi_ext import roi\n\n\ndef f(x):\n    return roi(x)\n",
    "lib/box.py": "from lib.box_ext import box\n\n\ndef f(x):\n    return box(x)\n",
    "lib/tracing.py": "from torch._C import _get_tracing_state\n\n\n"
    "def f(x):\n    return _get_tracing_state()\n",
    # A kernel library the module imports whenever it is imported binds it (also a part of
    # one: sgl-kernel's FlashMLA); one it calls on one path among others does not (flash
    # attention beside SDPA, imported with a fallback), nor a part of a library whose other
    # kernels have CPU builds.
    "lib/flash_backend.py": "from flashinfer import BatchDecodeWrapper\n\n\n"
    "def f(x):\n    return BatchDecodeWrapper(x)\n",
    "lib/mla_backend.py": "from sgl_kernel.flash_mla import mla_decode\n\n\n"
    "def f(x):\n    return mla_decode(x)\n",
    "lib/flash_optional.py": "import torch\n\ntry:\n"
    "    from flash_attn import flash_attn_func\nexcept ImportError:\n"
    "    flash_attn_func = None\n\n\n"
    "def f(q, k, v):\n    if flash_attn_func is None:\n"
    "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
    "    return flash_attn_func(q, k, v)\n",
    "lib/portable_kernels.py": "from sgl_kernel import silu_and_mul\n\n\n"
    "def f(x):\n    return silu_and_mul(x)\n",
    # Asking whether a backend is there, naming it, or calling torch's own operators binds
    # to none.
    "lib/portable.py": "import torch\n\n\ndef f(x):\n"
    '    if getattr(torch, "hpu", None) is not None:\n'
    '        return torch.ops.aten.add(x, 1).to("hpu")\n'
    "    return x\n",
}


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("lib.gaudi_lambda", {"hpu"}),
        ("lib.gaudi_local", {"hpu"}),
        ("lib.megatron_code", {"cuda"}),
        ("lib.ascend", {"npu"}),
        ("lib.ov_runtime", {"cpu"}),
        ("lib.ov_convert", set()),
        ("openvino.patcher", set()),
        ("lib.portable", set()),
        ("lib.npu_layer", {"cpu"}),
        ("lib.npu_runner", set()),
        ("lib.npu_user", set()),
        ("lib.npu_layer_user", {"cpu"}),
        ("lib.npu_helper_user", set()),
        ("lib.ov_patcher", set()),
        ("lib.raster", {"cuda"}),
        ("lib.jit_kernels", {"cuda"}),
        ("lib.jit_host", set()),
        ("lib.jit_later", set()),
        ("lib.built", {"cuda"}),
        ("lib.own_ops", set()),
        ("lib.kernel_user", set()),
        ("lib.knn_fallback", set()),
        ("lib.jit_tested", set()),
        ("lib.jit_lambda", set()),
        ("lib.built_later", set()),
        ("lib.flash_backend", {"cuda"}),
        ("lib.mla_backend", {"cuda"}),
        ("lib.flash_optional", set()),
        ("lib.portable_kernels", set()),
        ("lib.ops.pool", {"cuda"}),
        ("lib.ops.grid", {"cuda"}),
        ("lib.nms", set()),
        ("lib.host", set()),
        ("lib.roi", set()),
        ("lib.box", set()),
        ("lib.tracing", set()),
    ],
)
def test_backends(tmp_path: Path, module: str, expected: set[str]) -> None:
    """A module is bound to the device types whose only-there libraries or operators it
    uses (``ProjectIndex.backends``)."""
    project = lint_project(tmp_path, BACKEND_FILES)
    assert project.index is not None
    assert project.index.backends(function(f"{module}.f")) == expected


NPU_PIPELINE_FILES = {
    "pkg/__init__.py": "",
    "pkg/npu_base.py": "from intel_npu_acceleration_library.backend.factory import NNFactory\n\n\n"
    "class Factory(NNFactory):\n    pass\n",
    "pkg/decoder.py": "import torch\nimport torch.distributed as dist\n\n"
    "from pkg.npu_base import Factory\n\n\n"
    "class Layers(Factory):\n    pass\n\n\n"
    "class DecodeRunner:\n"
    "    def __init__(self, model):\n        self.model = model\n\n"
    "    def shutdown(self):\n"
    "        control = torch.tensor(-2, dtype=torch.int)\n"
    "        dist.broadcast(control, src=0)\n",
}


def test_a_pipeline_built_on_the_projects_wrapper_of_a_host_runtime_computes_on_the_host(
    tmp_path: Path,
) -> None:
    """A module deriving its layers from the project's own wrapper of Intel's NPU library
    is bound to that host runtime as the wrapper is: its control tensors are CPU tensors
    for a CPU process group, no finding; the same module built on a plain class is one."""
    assert package_findings(tmp_path / "npu", NPU_PIPELINE_FILES, "DEV003") == []
    files = dict(NPU_PIPELINE_FILES)
    files["pkg/npu_base.py"] = "class Factory:\n    pass\n"
    assert package_findings(tmp_path / "gpu", files, "DEV003") == [("decoder.py", 16, 19)]


CPU_RUNTIME_FILES = {
    # `optimum/` is a namespace package (no `__init__.py`): the files name their modules
    # from it, as its users import them.
    "optimum/intel/__init__.py": "",
    "optimum/intel/base.py": "import torch\n\n\nclass RuntimeModel:\n"
    "    def __init__(self, model):\n        self.model = model\n\n"
    "    @property\n    def device(self):\n        return torch.device('cpu')\n",
    "optimum/intel/vision.py": "import numpy as np\nimport torch\n\n"
    "from optimum.intel.base import RuntimeModel\n\n\n"
    "class VisionModel(RuntimeModel):\n"
    "    def merge(self, vision_embeds, inputs_embeds, input_ids):\n"
    "        feats = torch.from_numpy(vision_embeds)\n"
    "        return inputs_embeds.masked_scatter((input_ids == 3).unsqueeze(-1), feats)\n",
}


def test_a_class_whose_base_says_its_device_is_the_cpu_is_no_device_context(
    tmp_path: Path,
) -> None:
    """A base (named through the namespace package above the checked folder) whose
    ``device`` is ``torch.device("cpu")`` tells its subclasses they compute on the CPU:
    storing a model makes them no device context, so CPU tensors there meet nothing."""
    project = lint_project(tmp_path, CPU_RUNTIME_FILES)
    assert project.index is not None
    assert project.index.resolve("optimum.intel.base.RuntimeModel", "intel.vision") == (
        "intel.base.RuntimeModel"
    )
    assert not project.index.class_kind("intel.vision.VisionModel").device_context
    assert [f.code for r in project.files for f in r.findings] == []


def test_a_class_whose_device_is_an_accelerator_stays_a_device_context(tmp_path: Path) -> None:
    """The same subclass under a base whose ``device`` follows its model is a device
    context, and the CPU tensor meeting the input is a finding."""
    files = dict(CPU_RUNTIME_FILES)
    files["optimum/intel/base.py"] = files["optimum/intel/base.py"].replace(
        "torch.device('cpu')", "self.model.device"
    )
    project = lint_project(tmp_path, files)
    assert project.index is not None
    assert project.index.class_kind("intel.vision.VisionModel").device_context
    assert [(f.code, f.start.row) for r in project.files for f in r.findings] == [("DEV003", 9)]


REFUSING_BASE = (
    "from torch import nn\n\n\n"
    "class Chain(nn.Module):\n"
    "    def __setattr__(self, name, value):\n"
    "        if isinstance(value, nn.Module):\n"
    '            raise ValueError("append it instead")\n'
    "        super().__setattr__(name, value)\n"
)
KEEPING = (
    "from torch import nn\n\nfrom pkg.chain import Chain\n\n\n"
    "class Adapter(Chain):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self._passthrough = [nn.Linear(4, 4)]\n"
)


@pytest.mark.parametrize(
    ("base", "keeping", "expected"),
    [
        # Another file's base refuses module attributes: the list is kept on purpose.
        (REFUSING_BASE, KEEPING, []),
        # It refuses what is no module: modules register as usual.
        (
            REFUSING_BASE.replace("if isinstance", "if not isinstance"),
            KEEPING,
            [("adapter.py", 9, 29)],
        ),
        # The class's own `__setattr__`, which refuses nothing, is the one that runs.
        (
            REFUSING_BASE,
            KEEPING + "\n    def __setattr__(self, name, value):\n"
            "        object.__setattr__(self, name, value)\n",
            [("adapter.py", 9, 29)],
        ),
    ],
)
def test_a_class_whose_setattr_refuses_modules_keeps_them_in_lists_on_purpose(
    tmp_path: Path, base: str, keeping: str, expected: list[tuple[str, int, int]]
) -> None:
    files = {"pkg/chain.py": base, "pkg/adapter.py": keeping}
    assert package_findings(tmp_path, files, "DEV008") == expected


def test_a_library_name_is_not_taken_for_a_project_definition_ending_the_same(
    tmp_path: Path,
) -> None:
    """``torch.utils.data.Dataset`` ends with ``data.Dataset``, the project's own class, but
    no folder of the project spells ``torch/utils``: it is torch's Dataset, and both
    datasets' ``.cuda()`` are DEV011's."""
    files = {
        "data.py": "import torch\n\n\nclass Dataset(torch.utils.data.Dataset):\n"
        "    def __getitem__(self, i):\n        return torch.zeros(3).cuda()\n",
        "train.py": "import torch\nfrom torch.utils.data import Dataset\n\n\n"
        "class Pairs(Dataset):\n    def __getitem__(self, i):\n"
        "        return torch.zeros(3).cuda()\n",
    }
    project = lint_project(tmp_path, files)
    found = sorted(
        (Path(r.display).name, f.code, f.start.row) for r in project.files for f in r.findings
    )
    assert found == [("data.py", "DEV011", 6), ("train.py", "DEV011", 7)]


def test_a_rebuilt_index_keeps_the_call_graph_only_while_the_references_are_the_same(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    from devlint.facts import Reference

    project = lint_project(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    g()\n"})
    facts = [r.analysis.facts for r in project.files if r.analysis.facts is not None]
    first = ProjectIndex(facts)
    graph = first._graph
    same = ProjectIndex(facts, same_structure=first)
    assert same._graph is graph
    called = [replace(f, facts=(*f.facts, Reference("pkg.a.f"))) for f in facts]
    other = ProjectIndex(called, same_structure=first)
    assert other._graph is not graph
    assert "pkg.a.f" in other._graph[0]
