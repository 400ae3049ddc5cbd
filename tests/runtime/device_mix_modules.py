"""Modules for ``test_check_devices``: one per device bug, and look-alikes that are fine.

A line a test expects ``check_devices`` to name ends with a ``# <- NAME`` marker;
the tests find their line numbers by it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


class LiteralDevice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).to("cuda:0")  # <- literal


class LiteralIndex(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.to(0))  # <- index


class LiteralFactory(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) + torch.zeros(4, device="cuda")  # <- factory-device


class CudaCall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bias = torch.ones(4)
        return self.fc(x) + bias.cuda()  # <- cuda


class SubmoduleCuda(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.head.cuda()  # <- module-cuda
        return self.head(self.fc(x))


class AsksCuda(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.to(torch.cuda.current_device()))  # <- current-device


class CpuFactory(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        noise = torch.randn(x.shape[0], 4)  # <- made
        return self.fc(x) + noise  # <- meets


class CpuAttribute(nn.Module):
    """A diffusion model's per-timestep log-variance, kept as a plain attribute."""

    def __init__(self, steps: int = 10) -> None:
        super().__init__()
        self.logvar = torch.zeros(steps)  # <- attribute
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.logvar[t][:, None].exp()  # <- indexed


class PlainList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = [nn.Linear(4, 4), nn.Linear(4, 4)]  # <- container

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)  # <- list-meets
        return x


class Tokenizing(nn.Module):
    """Tokenizes inside forward and feeds the tokenizer's tensors to its embedding."""

    def __init__(self, tokenizer: Any) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.embed = nn.Embedding(len(tokenizer), 8)

    def encode(self, texts: list[str]) -> Any:
        return self.tokenizer(texts, return_tensors="pt", padding=True)  # <- tokenized

    def forward(self, texts: list[str]) -> torch.Tensor:
        inputs = self.encode(texts)
        return self.embed(inputs["input_ids"])  # <- fed


class TokenizingMoved(Tokenizing):
    def forward(self, texts: list[str]) -> torch.Tensor:
        inputs = self.encode(texts).to(self.embed.weight.device)
        return self.embed(inputs["input_ids"])


class CpuScalarBound(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).clamp(max=torch.tensor(1.0))  # <- scalar-bound


class CpuScalarTotal(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        total = torch.tensor(0.0)
        total += self.fc(x).pow(2).mean()  # <- scalar-updated
        return total


class LookAlikes(nn.Module):
    """Everything here is right on any device."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("table", torch.arange(10.0))
        self.temperature = torch.tensor(0.07)  # 0-dim: a scalar on any device

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        h = self.fc(x) * torch.tensor(2.0) / self.temperature  # 0-dim CPU scalars
        h = torch.where(h > 0, h, torch.tensor(0.0)).clamp(max=3.0)  # `where` moves it
        h = h[torch.tensor([0, 1])]  # CPU indices into a device tensor
        h = h + self.table[t[:2]][:, None]  # a buffer indexed by a device index
        h = h + torch.zeros_like(h) + h.new_ones(4) + torch.ones(4, device=h.device)
        h = h + torch.arange(4).to(x.device) + torch.tensor([1.0]).to(h.device)
        h = h + torch.tensor([], device=h.device).sum()  # came back on `cpu` inside the mode
        mask = torch.ones(2, 4, dtype=torch.bool)
        h += torch.tensor(1.0)  # a 0-dim CPU tensor as the input of an in-place update
        return h.masked_fill(mask.to(h.device), 0.0).cpu().to(h.device)


class Raises(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.cache = torch.zeros(4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.fc(x)
        raise ValueError("not a device problem")


class Steps(nn.Module):
    """A Lightning-style ``training_step`` whose loss meets a CPU tensor only in that step."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], index: int) -> Any:
        x, y = batch
        weights = torch.ones(x.shape[0], 1)  # <- step-made
        return {"loss": ((self(x) - y) ** 2 * weights).mean()}  # <- step-meets


class Several(nn.Module):
    """Four bugs in two lines: ``find_device_mixes`` reports each and goes on."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.logvar = torch.zeros(10)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        h = self.fc(x).cuda() + torch.zeros(4)  # <- several-first
        return h * self.logvar[t][:, None] + torch.ones(3, 4).to("cuda:0")  # <- several-second
