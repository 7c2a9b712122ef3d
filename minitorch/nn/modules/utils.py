"""`torch.nn.modules.utils`: PyTorch's helpers that turn an int into a tuple of n ints (a kernel
size 3 into (3, 3)), which custom layers import."""
from __future__ import annotations

import collections
from itertools import repeat


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: F.pad's order, last dim first."""
    return tuple(x for x in reversed(t) for _ in range(n))
