"""The torch.special functions beyond the core's special math: xlog1py, entr, ndtr and ndtri,
each with PyTorch's node name and gradient (ndtr is PyTorch's composition of erf)."""
from __future__ import annotations

import math

from .. import _dtype
from . import _specfun, common
from ._prim import Primitive
from .more import _d, _xp
from .pointwise import Mul, _fp_quiet, binary, where
from .special import erf


class Xlog1py(Primitive):
    """x * log1p(y), 0 where x == 0 (unless y is NaN);  d/dx = log1p(y) (0 at x == 0, y <= -1),
    d/dy = x / (1 + y)."""
    _node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x if isinstance(x, common.tensor_cls()) else None,
                              y if isinstance(y, common.tensor_cls()) else None)
        ctx.scalars = (_d(x), _d(y))
        xp = _xp(x, y)
        a, b = xp.asarray(_d(x)), xp.asarray(_d(y))
        with _fp_quiet():
            out = xp.where((a == 0) & ~xp.isnan(b), 0, a * xp.log1p(b))
        dt = a.dtype if isinstance(x, common.tensor_cls()) else b.dtype
        return out.astype(xp.result_type(a, b) if a.ndim and b.ndim else dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        tx, ty = ctx.saved_tensors
        x = tx if tx is not None else ctx.scalars[0]
        y = ty if ty is not None else ctx.scalars[1]
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = where((x == 0) & (y <= -1), 0.0, xlog1py(grad, y))
        if ctx.needs_input_grad[1]:
            gy = grad * x / (y + 1)
        return gx, gy


def xlog1py(x, y):
    T = common.tensor_cls()
    if not isinstance(x, T) and not isinstance(y, T):
        raise TypeError("special_xlog1py(): expected at least one Tensor argument")
    return binary(Xlog1py, x, y, "special_xlog1py", floating=True)


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


def _floating(x):
    return x if x.dtype.is_floating_point else x.to(_dtype.get_default_dtype())


def entr(x):
    return Entr.apply(_floating(x))


class _MulByNumber(Mul):
    """A tensor times a number inside one of PyTorch's C++ compositions: its mul.Scalar overload,
    which names its node MulBackward1 (a Python `t * n` is MulBackward0)."""
    _node_name = "MulBackward1"


def ndtr(x):
    """The standard normal CDF, composed as PyTorch composes it: (1 + erf(x / sqrt 2)) / 2."""
    return _MulByNumber.apply(1 + erf(_floating(x) * math.sqrt(0.5)), 0.5)


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


def ndtri(p):
    return Ndtri.apply(_floating(p))
