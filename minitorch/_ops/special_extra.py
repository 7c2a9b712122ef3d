"""The torch.special functions beyond the core's special math: xlog1py, entr, ndtr and ndtri,
each with PyTorch's node name and gradient (ndtr is PyTorch's composition of erf)."""
from __future__ import annotations

import math

from . import _specfun, common
from ._prim import Primitive
from .more import Xlogy
from .pointwise import Mul, _fp_quiet, binary, unary
from .special import erf


class Xlog1py(Xlogy):
    """x * log1p(y), 0 where x == 0 (unless y is NaN);  d/dx = log1p(y) (0 at x == 0, y <= -1),
    d/dy = x / (1 + y)."""
    _node_name = "SpecialXlog1PyBackward0"
    log, shift = "log1p", 1

    @staticmethod
    def outer(grad, b):
        return xlog1py(grad, b)


class Xlog1pyScalarSelf(Xlog1py):
    _node_name = "SpecialXlog1PyBackward1"  # xlog1py(number, tensor)


class Xlog1pyScalarOther(Xlog1py):
    _node_name = "SpecialXlog1PyBackward2"  # xlog1py(tensor, number)


def xlog1py(input, other):
    T = common.tensor_cls()
    if not isinstance(input, T) and not isinstance(other, T):
        raise TypeError("special_xlog1py(): expected at least one Tensor argument")
    cls = (Xlog1py if isinstance(input, T) and isinstance(other, T) else Xlog1pyScalarOther if isinstance(input, T)
           else Xlog1pyScalarSelf)
    return binary(cls, input, other, "special_xlog1py", floating=True)


class Entr(Primitive):
    """-x ln x for x > 0, 0 at 0, -inf below;  d/dx = -(1 + ln x)."""
    _node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp, a = x._device.xp, x._data
        with _fp_quiet():
            return xp.where(a > 0, -a * xp.log(a), xp.where(a == 0, 0, xp.where(a < 0, -xp.inf, a))).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * -(1 + x.log()),)


def entr(input):
    return unary(Entr, input, floating=True)


class _MulByNumber(Mul):
    """A tensor times a number inside one of PyTorch's C++ compositions: its mul.Scalar overload,
    which names its node MulBackward1 (a Python `t * n` is MulBackward0)."""
    _node_name = "MulBackward1"


def ndtr(input):
    """The standard normal CDF, composed as PyTorch composes it: (1 + erf(x / sqrt 2)) / 2."""
    return _MulByNumber.apply(1 + erf(input * math.sqrt(0.5)), 0.5)


class Ndtri(Primitive):
    """The inverse of ndtr: sqrt(2) erfinv(2p - 1);  d/dp = sqrt(2 pi) exp(ndtri(p)^2 / 2)."""
    _node_name = "SpecialNdtriBackward0"
    saves_output = True
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, p):
        xp, a = p._device.xp, p._data
        with _fp_quiet():
            return (_specfun.erfinv(xp, a * 2 - 1) * math.sqrt(2)).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        out = ctx.saved_output
        return (grad * math.sqrt(2 * math.pi) * (out * out / 2).exp(),)


def ndtri(input):
    return unary(Ndtri, input, floating=True)
