"""Padding modules: a fixed F.pad as a layer (zeros, a constant, reflection, replication,
circular), in 1-D, 2-D and 3-D."""
from __future__ import annotations

import numbers

from . import functional as F
from .module import Module


class _PadNd(Module):
    _nd = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        if isinstance(padding, numbers.Integral):
            padding = (int(padding),) * (2 * self._nd)
        padding = tuple(padding)
        if len(padding) != 2 * self._nd:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple of {2 * self._nd} ints, "
                             f"got {padding}")
        self.padding = padding
        if self._mode == "constant":
            self.value = value

    def forward(self, input):  # noqa: A002
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding, value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _classes(mode, prefix, base=_PadNd):
    return [type(f"{prefix}{nd}d", (base,), {"_nd": nd, "_mode": mode, "__module__": __name__}) for nd in (1, 2, 3)]


ConstantPad1d, ConstantPad2d, ConstantPad3d = _classes("constant", "ConstantPad", _ConstantPadNd)
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = _classes("reflect", "ReflectionPad")
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = _classes("replicate", "ReplicationPad")
CircularPad1d, CircularPad2d, CircularPad3d = _classes("circular", "CircularPad")


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


ZeroPad1d, ZeroPad2d, ZeroPad3d = _classes("constant", "ZeroPad", _ZeroPadNd)
