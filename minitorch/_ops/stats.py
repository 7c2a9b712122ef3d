"""Statistics and distances: std_mean, var_mean, count_nonzero, dist, cdist."""
from __future__ import annotations

import warnings

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from . import common
from ._prim import MultiOutputPrimitive, Primitive, check_saved_outputs
from .pointwise import _check_sub, where
from .reduce import _wide


def _kept(grad, shape, dims, keepdim):
    """A reduced gradient reshaped so it broadcasts over the input (the reduced dims as 1)."""
    if keepdim:
        return grad
    return grad.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))


def _welford_inf(xp, x, dims, mean):
    """The mean as PyTorch's one-pass (Welford) update leaves it when the data holds an infinity:
    mean += (x - mean) / n turns the mean infinite there, and nan at any element after it."""
    inf = xp.isinf(x)
    if not inf.any():
        return mean
    last = len(dims)
    rows = xp.moveaxis(inf, dims, tuple(range(-last, 0))).reshape(mean.shape[:0] + tuple(
        n for i, n in enumerate(x.shape) if i not in dims) + (-1,))
    after = rows.any(-1) & (xp.argmax(rows, -1) < rows.shape[-1] - 1)
    return xp.where(after.reshape(mean.shape), xp.nan, mean)


class VarMean(MultiOutputPrimitive):
    """(var, mean) in one pass over the data; each output's gradient adds up in backward."""
    _node_name = "VarMeanBackward0"
    root = False  # True: std instead of var

    @classmethod
    def forward(cls, ctx, a, *, dims, correction, keepdim):
        ctx.save_for_backward(a)
        ctx._materialize_grads = False  # (an output that gets no gradient takes no part, as in PyTorch)
        ctx.dims, ctx.keepdim, ctx.shape = dims, keepdim, a.shape
        xp, x = a._device.xp, _wide(a._data)  # (half precision: reduced in float32, as PyTorch)
        n = 1
        for d in dims:
            n *= x.shape[d]
        dof = max(n - correction, 0)
        ctx.n, ctx.dof, ctx.raw_dof = n, dof, n - correction  # (PyTorch's backward divides by the raw one)
        with warnings.catch_warnings():  # too few degrees of freedom give inf / nan, silently
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = x.mean(axis=dims, keepdims=True)
            var = ((x - mean) ** 2).sum(axis=dims, keepdims=keepdim) / x.dtype.type(dof)
            spread = xp.sqrt(var) if cls.root else var
            mean = _welford_inf(xp, x, dims, mean)
        dt = a._data.dtype
        return spread.astype(dt, copy=False), (mean if keepdim else mean.squeeze(dims)).astype(dt)

    @classmethod
    def backward(cls, ctx, g_spread, g_mean):
        (a,) = ctx.saved_tensors
        check_saved_outputs(ctx)
        centered = a - a.mean(ctx.dims, keepdim=True)
        g = None if g_mean is None else _kept(g_mean, ctx.shape, ctx.dims, ctx.keepdim) / ctx.n
        if g_spread is None:  # only the mean is used: PyTorch skips the spread's term (a zero gradient
            return (g.expand(ctx.shape).contiguous(),)  # for it is used: 0 * nan is nan, dof <= 0 or nan data)
        d_var = 2 * centered / ctx.raw_dof
        if cls.root:  # d std = d var / (2 std), and 0 where std is 0 (constant data), as PyTorch
            std = ((centered * centered).sum(ctx.dims, keepdim=True) / ctx.dof).sqrt()
            d_var = where(std == 0, 0.0, d_var / (2 * where(std == 0, 1.0, std)))
        spread = _kept(g_spread, ctx.shape, ctx.dims, ctx.keepdim) * d_var
        return (spread if g is None else g + spread,)


class StdMean(VarMean):
    _node_name = "StdMeanBackward0"
    root = True
    saved_outputs = (0,)  # (PyTorch's backward reads the std it computed)


def _moments(cls, op, a, dim, unbiased, keepdim, correction):
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{op} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # std_mean(x, False): the legacy (input, unbiased) form
        dim, unbiased = None, dim
    if unbiased is not None:
        correction = 1 if unbiased else 0
    if correction is None:
        correction = 1
    empty_list = isinstance(dim, (list, tuple)) and not dim
    dims = common.wrap_dims(None if empty_list else dim, a.ndim, op)
    n = 1 if a.numel() else 0  # (PyTorch's factor: input numel over output numel, 0 for an empty input)
    for d in dims:
        n *= a.shape[d]
    if n - correction <= 0:
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return tuple(cls.apply(a, dims=dims, correction=correction, keepdim=keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moments(StdMean, "std_mean", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moments(VarMean, "var_mean", input, dim, unbiased, keepdim, correction)


def count_nonzero(input, dim=None):
    from .._tensor import Tensor
    if isinstance(dim, (list, tuple)) and not dim:  # (as sum: no dims are all of them)
        dim = None
    dims = common.wrap_dims(dim, input.ndim, "count_nonzero")
    xp = input._device.xp
    return Tensor._make(xp.asarray(xp.count_nonzero(input._data, axis=dims if dim is not None else None))
                        .astype(xp.int64), input._device)


# ---- distances: p-norms of differences ------------------------------------------------

def _pnorm(xp, d, p, axis):
    a = xp.abs(d)
    if p == 0:
        return (a != 0).sum(axis=axis).astype(d.dtype)
    if p == float("inf"):
        if a.size == 0:  # the largest of nothing: 0, the norm of an empty vector
            return a.sum(axis=axis)
        return a.max(axis=axis)
    if p == 1:
        return a.sum(axis=axis)
    if p == 2:
        return xp.sqrt((a * a).sum(axis=axis))
    return (a ** p).sum(axis=axis) ** (1.0 / p)


def _pnorm_grad(d, norm, p, axis):
    """d norm_p(d) / d d, with norm kept (broadcastable to d); 0 where the norm is 0."""
    if p == 0:
        return d * 0
    if p == float("inf"):
        hit = d.abs() == norm
        return d.sign() * hit / hit.sum(axis, keepdim=True)
    if p == 1:
        return d.sign()
    zero = norm == 0
    safe = where(zero, 1.0, norm)
    if p == 2:
        return where(zero, 0.0, d / safe)
    mag = where(d == 0, 0.0, d.abs() ** (p - 1))  # |d|^(p-1): 0 at d = 0 even when p < 1
    return where(zero, 0.0, d.sign() * mag / safe ** (p - 1))


class Dist(Primitive):
    _node_name = "DistBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, b, *, p):
        ctx.save_for_backward(a, b)
        ctx.p = p
        return _pnorm(a._device.xp, a._data - b._data, p, None).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if ctx.p == 0:  # PyTorch's norm gradient for p=0 is undefined (no gradient); negating it fails
            if ctx.needs_input_grad[1]:
                raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                                   "argument #0 'self'")
            return None, None
        d = a - b
        g = grad * _pnorm_grad(d.reshape(-1), ctx.saved_output, ctx.p, 0).reshape(d.shape)
        return g, -g  # the engine sums each back to its input's shape


class Cdist(Primitive):
    _node_name = "CdistBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, x1, x2, *, p):
        ctx.save_for_backward(x1, x2)
        ctx.p = p
        d = x1._data[..., :, None, :] - x2._data[..., None, :, :]
        return _pnorm(x1._device.xp, d, p, -1).astype(x1._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x1, x2 = ctx.saved_tensors
        d = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # [..., P, R, M]
        g = grad.unsqueeze(-1) * _pnorm_grad(d, ctx.saved_output.unsqueeze(-1), ctx.p, -1)
        return g.sum(-2), -g.sum(-3)


def _float_pair(op, a, b):
    dev = common.same_device(op, a, b)
    _check_sub(a, b)  # PyTorch computes a - b first, which refuses bools
    dt = common.result_dtype(a, b)
    if not dt.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {dt._short} "
                           "instead.")
    return common.to_device_of(a, dev).to(dt), common.to_device_of(b, dev).to(dt)


@_amp.float32_gpu
def dist(input, other, p=2):
    if isinstance(p, str) or not isinstance(p, (int, float)) and not hasattr(p, "__float__"):
        raise TypeError(f"dist(): argument 'p' (position 3) must be Number, not {type(p).__name__}")
    input, other = _float_pair("dist", input, other)
    common.broadcast_shapes(input.shape, other.shape, op="dist")
    return Dist.apply(input, other, p=float(p))


@_amp.float32
def cdist(x1, x2, p=2.0, compute_mode=None):
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t.dtype._short}")
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    common.same_device("cdist", x1, x2)
    mm_path = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or compute_mode in (
        None, "use_mm_for_euclid_dist_if_necessary") and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    if x1.dtype is _dtype.float16 and not mm_path and x1.numel() and x2.numel():
        raise NotImplementedError("\"cdist\" not implemented for 'Half' (only its matrix-product path, p=2 with more "
                                  "than 25 rows, runs in half: convert with .float())")
    if x1.dtype is not x2.dtype and not (x1.numel() and x2.numel()):  # nothing to compute: PyTorch checks no
        x2 = x2.to(x1.dtype)                                            # dtypes, the result is x1's
    if x1.dtype is not x2.dtype:  # (in the words of the kernel PyTorch's path ends in)
        from .linalg import _CTYPE
        raise RuntimeError((f"expected m1 and m2 to have the same dtype, but got: {_CTYPE[x1.dtype.name]} != "
                            f"{_CTYPE[x2.dtype.name]}" if mm_path else
                            f"expected scalar type {x1.dtype._short} but found {x2.dtype._short}")
                           + " (cdist does not promote: convert one, e.g. x2.to(x1.dtype))")
    batch = common.broadcast_shapes(x1.shape[:-2], x2.shape[:-2], op="cdist")
    x1 = x1.expand(*batch, *x1.shape[-2:]) if x1.shape[:-2] != batch else x1
    x2 = x2.expand(*batch, *x2.shape[-2:]) if x2.shape[:-2] != batch else x2
    return Cdist.apply(x1, x2, p=float(p))


