"""`minitorch.backends.cudnn`: there is no cuDNN under minitorch (its GPU backend is CuPy).

The flags can be set, as in PyTorch, and change nothing."""
from __future__ import annotations

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
