"""`minitorch.backends.cuda`: is the CUDA backend (CuPy) installed, and PyTorch's matmul switches
(accepted; NumPy and CuPy matmuls keep full float32 precision either way)."""
from __future__ import annotations

import importlib.util


def is_built() -> bool:
    """True when CuPy is installed (whether a GPU is there: minitorch.cuda.is_available())."""
    return importlib.util.find_spec("cupy") is not None


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()
