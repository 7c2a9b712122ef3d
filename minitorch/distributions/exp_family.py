"""ExponentialFamily lives beside Distribution (distribution.py); this module is where PyTorch's
import path finds it."""
from .distribution import ExponentialFamily

__all__ = ["ExponentialFamily"]
