"""`minitorch.backends`: the switches and probes of PyTorch's `torch.backends` that tutorials touch.

minitorch computes with NumPy on the CPU and CuPy on a GPU: there is no cuDNN and no Apple MPS,
so the probes answer False, and the switches (`cudnn.benchmark = True`, ...) are accepted and
change nothing. They exist so that `import minitorch as torch` runs such code unchanged.
"""
from __future__ import annotations

from . import cuda, cudnn, mps  # noqa: F401

__all__ = ["cuda", "cudnn", "mps"]
