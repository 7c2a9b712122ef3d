"""`minitorch.version`, as programs print `torch.version.cuda` to see what they run on. minitorch is
not built against CUDA: `cuda` is None, as in PyTorch's CPU build (a GPU is reached through CuPy,
see minitorch.cuda)."""
from __future__ import annotations

__version__ = "0.1.0"
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
