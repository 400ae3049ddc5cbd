"""Which tests are the user's device flag: the branch that decides whether the code runs on
the GPU at all (DEV001/DEV002 take a literal under it as the choice; the flow takes a move
under it as where the value goes)."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.device_flags import flag_says_gpu


@pytest.mark.parametrize(
    ("test", "says_gpu"),
    [
        ("use_cuda", True),
        ("self._use_cuda", True),
        ("not self._use_cuda", False),
        ("args.cpu", False),
        ("args.no_cuda", False),
        ("self.n_gpus > 0", True),
        # -1 is the GPU index that names the CPU
        ("self.gpu != -1", True),
        ("args.gpu > -1", True),
        ("self.gpu == -1", None),
        ('self.use_cuda in ("all", "batch")', True),
        ("use_cuda and fp16", True),
        ('self.device == "gpu"', True),
        ('device == "cuda"', True),
        ('self.device == "cpu"', None),
        # a configuration's key is a flag as an attribute is
        ('conf["use_gpu"]', True),
        ('not conf["no_cuda"]', True),
        ('conf["model"]', None),
        ("conf[0]", None),
        # a tensor's device says where that tensor is, not where the code runs
        ('x.device == "cuda"', None),
        ('self.model.device == "cuda"', None),
        ("torch.cuda.is_available()", None),
        ("fp16", None),
    ],
)
def test_flag_says_gpu(test: str, says_gpu: bool | None) -> None:
    assert flag_says_gpu(cst.parse_expression(test)) is says_gpu


@pytest.mark.parametrize(
    ("test", "says_gpu"),
    [
        ("use_cuda", True),
        ("args.cpu", False),
        # the false side of a device setting may be "mps" or "xpu", not the CPU
        ('self.device == "gpu"', None),
        ('not device == "cuda"', None),
    ],
)
def test_without_settings_a_device_string_is_no_flag(test: str, says_gpu: bool | None) -> None:
    assert flag_says_gpu(cst.parse_expression(test), settings=False) is says_gpu
