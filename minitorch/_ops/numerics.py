"""Elementwise functions composed around a few small primitives: logaddexp / logaddexp2 (log of a
sum of exponentials without overflow), isposinf / isneginf / isreal, gcd / lcm, and the
statistics of data PyTorch names quantile, nanquantile, cov and corrcoef; plus the index
helpers tril_indices / triu_indices, block_diag, diagflat and trapezoid."""
from __future__ import annotations

import math

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from . import common
from ._prim import Primitive
from .more import _d, _floats_only, _tensors_only, _xp
from .pointwise import binary


class LogAddExp(Primitive):
    """log(e^a + e^b); d/da = e^a / (e^a + e^b) = sigmoid(a - b)."""
    _node_name = "LogaddexpBackward0"
    base2 = False

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = _xp(a, b)
        return (xp.logaddexp2 if cls.base2 else xp.logaddexp)(_d(a), _d(b))

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        d = (a - b) * math.log(2) if cls.base2 else a - b
        return grad * d.sigmoid(), grad * (-d).sigmoid()


class LogAddExp2(LogAddExp):
    """log2(2^a + 2^b)."""
    _node_name = "Logaddexp2Backward0"
    base2 = True


def logaddexp(a, b):
    _tensors_only("logaddexp", a, b)
    _floats_only("logaddexp", common.result_dtype(a, b))
    return binary(LogAddExp, a, b, "logaddexp")


def logaddexp2(a, b):
    _tensors_only("logaddexp2", a, b)
    _floats_only("logaddexp2", common.result_dtype(a, b))
    return binary(LogAddExp2, a, b, "logaddexp2")


def isposinf(a):
    return a == math.inf if a.dtype.is_floating_point else a.new_zeros(a.shape, dtype=_dtype.bool)


def isneginf(a):
    return a == -math.inf if a.dtype.is_floating_point else a.new_zeros(a.shape, dtype=_dtype.bool)


def isreal(a):
    return a.new_ones(a.shape, dtype=_dtype.bool)  # minitorch has no complex dtypes


class _IntegerBinary(Primitive):
    differentiable = False
    _fn = None

    @classmethod
    def forward(cls, ctx, a, b):
        return getattr(_xp(a, b), cls._fn)(_d(a), _d(b))


class Gcd(_IntegerBinary):
    _fn = "gcd"


class Lcm(_IntegerBinary):
    _fn = "lcm"


def _integer_binary(cls, op, a, b):
    _tensors_only(op, a, b)
    dt = common.result_dtype(a, b)
    if dt.is_floating_point or dt is _dtype.bool:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt._short}'")
    return binary(cls, a, b, op)


def gcd(a, b):
    return _integer_binary(Gcd, "gcd", a, b)


def lcm(a, b):
    return _integer_binary(Lcm, "lcm", a, b)


# ---- statistics of data ----------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@_amp.float32_cpu
def quantile(a, q, dim=None, keepdim=False, *, interpolation="linear", out=None, ignore_nan=False):
    """The q-th quantiles along `dim` (of the flattened tensor when dim is None), interpolated
    between the two nearest sorted values as PyTorch does; q a number or a 1-D tensor of them (its
    dim comes first in the result). NaN in a row makes that row's result NaN, unless ignore_nan
    (nanquantile), which ranks only the numbers."""
    T = common.tensor_cls()
    op = "nanquantile" if ignore_nan else "quantile"
    if not a.dtype.is_floating_point or a.dtype.itemsize < 4:
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Found {interpolation}")
    scalar_q = not isinstance(q, T)
    qs = [float(q)] if scalar_q else [float(v) for v in q.reshape(-1).tolist()]
    if not scalar_q and q.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if not scalar_q and q.dtype is not a.dtype:
        raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {v}" if scalar_q else
                               f"{op}() q values must be in the range [0, 1]")
    if a.numel() == 0 and dim is None:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    x = a.reshape(-1) if dim is None else a
    d = 0 if dim is None else common.wrap_dims((dim,), x.ndim, op)[0] if x.ndim else 0
    x = x if x.ndim else x.reshape(1)
    values = x.sort(dim=d).values  # NaN sorts last
    nan = x.isnan()
    n = x.shape[d]
    count = (~nan).sum(d, keepdim=True) if ignore_nan else None
    results = []
    for v in qs:
        if ignore_nan:
            rank = (count - 1).clamp(min=0).to(a.dtype) * v
        else:
            rank = x.new_full([1] * x.ndim, (n - 1) * v)
        lo, hi = rank.floor(), rank.ceil()
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = rank.round()
        expand = list(values.shape)
        expand[d] = 1
        lo_i, hi_i = lo.long().expand(expand), hi.long().expand(expand)
        below, above = values.gather(d, lo_i), values.gather(d, hi_i)
        if interpolation == "midpoint":
            r = below + (above - below) * 0.5
        elif interpolation == "linear":
            r = below.lerp(above, (rank - lo).expand(expand))
        else:
            r = below
        has_nan = (count == 0) if ignore_nan else nan.any(d, keepdim=True)
        r = r.masked_fill(has_nan, math.nan)
        if not keepdim:
            r = r.squeeze(d) if dim is not None else r.reshape(())
        elif dim is None:
            r = r.reshape([1] * a.ndim)
        results.append(r)
    if scalar_q:
        return results[0]
    from .join import stack
    return stack(results, 0)


def nanquantile(a, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return quantile(a, q, dim, keepdim, interpolation=interpolation, ignore_nan=True)


def cov(a, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) over the columns (observations), as torch.cov; a 1-D
    input is one variable. Weights are not supported."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov(fweights=, aweights=) is not implemented in minitorch")
    if a.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{a.ndim} dimensions")
    x = a.reshape(1, -1) if a.ndim < 2 else a
    if not x.dtype.is_floating_point:
        x = x.to(_dtype.get_default_dtype())
    n = x.shape[1]
    centered = x - x.mean(1, keepdim=True)
    c = centered @ centered.mT / max(n - correction, 0)
    return c.squeeze()


def corrcoef(a):
    """Pearson's correlation coefficients of the rows, clipped to [-1, 1] as torch.corrcoef."""
    c = cov(a)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return c.clamp(-1, 1)


# ---- index helpers ---------------------------------------------------------------------------

def _tri_indices(row, col, offset, lower, dtype, device):
    from .._factories import tensor
    pairs = [(i, j) for i in range(row) for j in range(col) if (j - i <= offset if lower else j - i >= offset)]
    return tensor([[p[0] for p in pairs], [p[1] for p in pairs]], dtype=dtype or _dtype.int64, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a row x col matrix, row by row."""
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, False, dtype, device)


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D) placed along the diagonal of one matrix, zeros elsewhere."""
    from .._factories import zeros
    from .join import cat
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not mats:
        return zeros(1, 0)
    dt = common.result_dtype(*mats) if len(mats) > 1 else mats[0].dtype
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        parts = [zeros(r, left, dtype=dt, device=m.device), m.to(dt), zeros(r, cols - left - c, dtype=dt,
                                                                              device=m.device)]
        rows.append(cat(parts, 1))
        left += c
    return cat(rows, 0)


def diagflat(a, offset=0):
    return a.reshape(-1).diag(offset)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of y along dim by the trapezoidal rule, at the points x (or spacing dx, 1 by
    default)."""
    d = common.wrap_dims((dim,), y.ndim, "trapezoid")[0]
    n = y.shape[d]
    if n == 0:
        return y.sum(d)
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is None:
        return ((left + right) * (1.0 if dx is None else dx) / 2).sum(d)
    T = common.tensor_cls()
    if not isinstance(x, T):
        raise TypeError("trapezoid(): x must be a Tensor")
    dxs = x.diff(dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return ((left + right) * dxs / 2).sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d = common.wrap_dims((dim,), y.ndim, "cumulative_trapezoid")[0]
    n = y.shape[d]
    left, right = y.narrow(d, 0, max(n - 1, 0)), y.narrow(d, min(1, n), max(n - 1, 0))
    if x is None:
        return ((left + right) * (1.0 if dx is None else dx) / 2).cumsum(d)
    dxs = x.diff(dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return ((left + right) * dxs / 2).cumsum(d)



# ---- ldexp and nextafter -----------------------------------------------------------------------

class Ldexp(Primitive):
    """a * 2^b;  d/da = 2^b,  d/db = a 2^b ln 2."""
    _node_name = "LdexpBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a._data * a._device.xp.exp2(b._data).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        scale = 2.0 ** b
        return grad * scale, grad * a * scale * math.log(2)


def ldexp(a, b):
    _tensors_only("ldexp", a, b)
    dt = common.result_dtype(a, b)
    dt = dt if dt.is_floating_point else _dtype.get_default_dtype()  # (integers give the default float)
    return Ldexp.apply(*(common.to_device_of(x.to(dt), a._device) for x in (a, b)))


class Nextafter(Primitive):
    """The next float after a towards b. PyTorch passes the gradient to a unchanged, none to b."""
    _node_name = "NextafterBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _xp(a, b).nextafter(_d(a), _d(b))

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * 0


def nextafter(a, b):
    _tensors_only("nextafter", a, b)
    _floats_only("nextafter", common.result_dtype(a, b))
    return binary(Nextafter, a, b, "nextafter")
