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


def logaddexp(input, other):
    _tensors_only("logaddexp", input, other)
    _floats_only("logaddexp", common.result_dtype(input, other))
    return binary(LogAddExp, input, other, "logaddexp")


def logaddexp2(input, other):
    _tensors_only("logaddexp2", input, other)
    _floats_only("logaddexp2", common.result_dtype(input, other))
    return binary(LogAddExp2, input, other, "logaddexp2")


def isposinf(input):
    return input == math.inf if input.dtype.is_floating_point else input.new_zeros(input.shape, dtype=_dtype.bool)


def isneginf(input):
    return input == -math.inf if input.dtype.is_floating_point else input.new_zeros(input.shape, dtype=_dtype.bool)


def isreal(input):
    return input.new_ones(input.shape, dtype=_dtype.bool)  # minitorch has no complex dtypes


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


def gcd(input, other):
    return _integer_binary(Gcd, "gcd", input, other)


def lcm(input, other):
    return _integer_binary(Lcm, "lcm", input, other)


# ---- statistics of data ----------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@_amp.float32_cpu
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None, _ignore_nan=False):
    """The q-th quantiles along `dim` (of the flattened tensor when dim is None), interpolated
    between the two nearest sorted values as PyTorch does; q a number or a 1-D tensor of them (its
    dim comes first in the result). NaN in a row makes that row's result NaN, unless _ignore_nan
    (nanquantile), which ranks only the numbers."""
    T = common.tensor_cls()
    op = "nanquantile" if _ignore_nan else "quantile"
    if not input.dtype.is_floating_point or input.dtype.itemsize < 4:
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Found {interpolation}")
    scalar_q = not isinstance(q, T)
    qs = [float(q)] if scalar_q else [float(v) for v in q.reshape(-1).tolist()]
    if not scalar_q and q.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if not scalar_q and q.dtype is not input.dtype:
        raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {v}" if scalar_q else
                               f"{op}() q values must be in the range [0, 1]")
    if input.numel() == 0 and dim is None:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else common.wrap_dims((dim,), x.ndim, op)[0] if x.ndim else 0
    x = x if x.ndim else x.reshape(1)
    values = x.sort(dim=d).values  # NaN sorts last
    nan = x.isnan()
    n = x.shape[d]
    count = (~nan).sum(d, keepdim=True) if _ignore_nan else None
    results = []
    for v in qs:
        if _ignore_nan:
            rank = (count - 1).clamp(min=0).to(input.dtype) * v
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
        has_nan = (count == 0) if _ignore_nan else nan.any(d, keepdim=True)
        r = r.masked_fill(has_nan, math.nan)
        if not keepdim:
            r = r.squeeze(d) if dim is not None else r.reshape(())
        elif dim is None:
            r = r.reshape([1] * input.ndim)
        results.append(r)
    if scalar_q:
        return results[0]
    from .join import stack
    return stack(results, 0)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return quantile(input, q, dim, keepdim, interpolation=interpolation, _ignore_nan=True)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) over the columns (observations), as torch.cov; a 1-D
    input is one variable. Each observation counts fweights[i] times (integers) and weighs
    aweights[i]: the mean and the products are weighted by w = fweights * aweights, and the
    correction is scaled by sum(w * aweights) / sum(w) (numpy.cov's formula)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    for name, weights, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if weights is None:
            continue
        kind = "integral" if integral else "floating point"
        if weights.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{weights.ndim} dimensions")
        if weights.dtype.is_floating_point == integral or weights.dtype is _dtype.bool:
            raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                               f"{weights.dtype._short} dtype")
        if weights.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {weights.numel()} != {n}")
        if n and bool(weights.min() < 0):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weights if w is None else w * weights
    if w is None:
        from .._factories import tensor
        w_sum = tensor(n, device=x.device)
    else:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if bool(norm <= 0):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    centered = x - mean.unsqueeze(1)
    return (centered.mm((centered if w is None else centered * w).t()) / norm).squeeze()


def corrcoef(input):
    """Pearson's correlation coefficients of the rows, clipped to [-1, 1] as torch.corrcoef."""
    c = cov(input)
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


def diagflat(input, offset=0):
    return input.reshape(-1).diag(offset)


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


def ldexp(input, other):
    _tensors_only("ldexp", input, other)
    dt = common.result_dtype(input, other)
    dt = dt if dt.is_floating_point else _dtype.get_default_dtype()  # (integers give the default float)
    return Ldexp.apply(*(common.to_device_of(x.to(dt), input._device) for x in (input, other)))


class Nextafter(Primitive):
    """The next float after a towards b. PyTorch passes the gradient to a unchanged, none to b."""
    _node_name = "NextafterBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _xp(a, b).nextafter(_d(a), _d(b))

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * 0


def nextafter(input, other):
    _tensors_only("nextafter", input, other)
    _floats_only("nextafter", common.result_dtype(input, other))
    return binary(Nextafter, input, other, "nextafter")
