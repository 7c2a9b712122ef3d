"""torch.finfo and torch.iinfo: the limits of a floating-point or integer dtype
(`torch.finfo(torch.float32).eps`, `torch.iinfo(torch.uint8).max`), read from NumPy's (bfloat16's,
which NumPy lacks, from its format)."""
from __future__ import annotations

import numpy as np

from . import _dtype


def _g(x):
    return f"{x:.6g}"


class finfo:  # noqa: N801 (PyTorch's name)
    """bits, eps, max, min, tiny (= smallest_normal) and resolution of a floating-point dtype."""

    def __init__(self, type=None):  # noqa: A002
        dt = _dtype.get_default_dtype() if type is None else type
        if not isinstance(dt, _dtype.dtype) or not dt.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        if dt is _dtype.bfloat16:  # (no NumPy type to ask: float32's exponent, 8 significant bits)
            self.bits, self.eps, self.max, self.resolution = 16, 2.0 ** -7, (2 - 2.0 ** -7) * 2.0 ** 127, 0.01
            self.min, self.tiny = -self.max, 2.0 ** -126
        else:
            info = np.finfo(dt.np)
            self.bits = int(info.bits)
            self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
            self.tiny = float(info.smallest_normal)
            self.resolution = 10.0 ** -int(info.precision)
        self.smallest_normal = self.tiny
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
                f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:  # noqa: N801
    """bits, max and min of an integer dtype."""

    def __init__(self, type):  # noqa: A002
        if not isinstance(type, _dtype.dtype) or type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "minitorch"
