"""Exact fused multiply-add in NumPy, and the C library's own log/sin/cos on arrays.

PyTorch's CPU kernels are compiled so that `a * b + c` becomes one fused instruction,
fma(a, b, c): the product and the sum are rounded *once*. Plain NumPy rounds twice, and the
last bit differs in a few percent of cases, so reproducing PyTorch's numbers needs a true fma:

- float32: the product of two float32 values is exact in float64, and the float64 sum is
  rounded once more; rounding that to float32 is correct except when the float64 sum sits
  exactly halfway between two float32 values, where the sum's own rounding error decides.
- float64: Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums",
  IEEE Trans. Computers 2008): an exact product (Dekker), an exact sum (Knuth), and one
  addition rounded to odd, then one ordinary rounding.

NumPy's log and sin may be vectorised approximations that differ from the C library's in
the last bit; PyTorch calls the C library, and so does Python's `math` module, so `libm()`
maps a `math` function over an array.
"""
from __future__ import annotations

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1: splits a float64 into two 26-bit halves
_LOW29, _HALF29 = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)


def fma32(a, b, c):
    """round_float32(a * b + c), computed exactly, for float32 arrays (or scalars)."""
    a, b, c = (np.asarray(v, np.float32) for v in (a, b, c))
    s = np.multiply(a, b, dtype=np.float64)  # exact: 24 + 24 bits fit in 53
    s = np.add(s, c, out=s if s.ndim and s.shape == np.broadcast(s, c).shape else None)
    halfway = (np.atleast_1d(s).view(np.uint64) & _LOW29) == _HALF29  # the 29 bits float32 drops
    if halfway.any():
        shape = np.broadcast(a, b, c).shape
        s = np.array(s, copy=True, ndmin=1)
        idx = np.nonzero(halfway)
        p = np.multiply(*(np.broadcast_to(v, s.shape)[idx] for v in (a, b)), dtype=np.float64)
        s[idx] = _nudge(s[idx], _sum_error(p, np.broadcast_to(c, s.shape)[idx].astype(np.float64), s[idx]))
        s = s.reshape(shape)
    return s.astype(np.float32)


def fma64(a, b, c):
    """round_float64(a * b + c), computed exactly, for float64 arrays (or scalars)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    uh = a * b
    ul = _product_error(a, b, uh)
    th = c + uh
    tl = _sum_error(c, uh, th)
    v = tl + ul
    v = _nudge_to_odd(v, _sum_error(tl, ul, v))
    return th + v


def _sum_error(x, y, s):
    """The rounding error of s = x + y (Knuth's TwoSum): x + y == s + error exactly."""
    yy = s - x
    return (x - (s - yy)) + (y - yy)


def _product_error(a, b, p):
    """The rounding error of p = a * b (Dekker's TwoProduct): a * b == p + error exactly."""
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(x):
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _nudge(s, err):
    """Move s one step toward the side its rounding error lies on (so a later rounding of s
    to fewer bits cannot land on the wrong side of a halfway point)."""
    return np.where(err > 0, np.nextafter(s, np.inf), np.where(err < 0, np.nextafter(s, -np.inf), s))


def _nudge_to_odd(s, err):
    """Round to odd: an inexact result keeps the neighbour whose last mantissa bit is 1."""
    even = (np.atleast_1d(s).view(np.uint64) & np.uint64(1)).reshape(np.shape(s)) == 0
    return np.where(even & (err != 0), _nudge(s, err), s)


def libm(fn, x):
    """math.<fn> over a float64 array: the C library's result for every element."""
    x = np.asarray(x, np.float64)
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)

