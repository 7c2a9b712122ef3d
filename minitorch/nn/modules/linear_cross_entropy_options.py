"""`torch.nn.LinearCrossEntropyOptions`: how F.linear_cross_entropy may split a large batch into
chunks so that the (batch, classes) logits are never all in memory at once (an LLM's vocabulary
head). minitorch checks the options as PyTorch does and computes the loss the plain way,
linear then cross_entropy: the same values and gradients (README: "Differences from PyTorch")."""
from __future__ import annotations

import dataclasses

from ... import _dtype

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (_dtype.float16, _dtype.float32, _dtype.float64):
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")
