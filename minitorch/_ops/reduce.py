"""Reductions over dims (`dim` an int or a tuple, `keepdim`), and softmax."""
from __future__ import annotations

import collections

from .. import _dtype
from .._dtype import get_default_dtype
from . import common
from ._prim import MultiOutputPrimitive, Primitive

# PyTorch returns (values, indices) from max/min/median/sort as a named tuple
values_indices = collections.namedtuple("values_indices", ["values", "indices"])


def _kept_shape(shape, dims):
    """The shape a reduction over `dims` would have with keepdim=True."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _expand_back(grad, ctx):
    """Broadcast a reduced gradient back over the dims that were reduced."""
    if not ctx.keepdim:
        grad = grad.reshape(_kept_shape(ctx.shape, ctx.dims))
    return grad.expand(ctx.shape)


class Sum(Primitive):
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return a._data.sum(axis=dims, keepdims=keepdim, dtype=dtype.np)

    @staticmethod
    def backward(ctx, grad):
        return (_expand_back(grad, ctx),)


class SumDim(Sum):
    _node_name = "SumBackward1"  # PyTorch's name for sum over given dims; the full sum is SumBackward0


class Mean(Primitive):
    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a, *, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        count = 1
        for d in dims:
            count *= a.shape[d]
        ctx.count = count
        return a._data.mean(axis=dims, keepdims=keepdim, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return (_expand_back(grad, ctx) / ctx.count,)


class MeanDim(Mean):
    _node_name = "MeanBackward1"


class Prod(Primitive):
    _node_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return a._data.prod(axis=dims, keepdims=keepdim, dtype=dtype.np)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        g = _expand_back(grad, ctx)
        # d prod / d a_i = product of the others; computed without dividing, so zeros are fine
        others = _prod_of_others(a, ctx.dims)
        return (g * others,)


class ProdAll(Prod):
    _node_name = "ProdBackward0"  # prod() of all elements; ProdBackward1 is prod along a dim


def _prod_of_others(a, dims):
    """For each element, the product of the other elements in its reduced group."""
    from .join import cat
    moved = a.permute(*[d for d in range(a.ndim) if d not in dims], *dims)
    lead = moved.shape[:a.ndim - len(dims)]
    flat = moved.reshape(*lead, -1)
    n = flat.shape[-1]
    ones = flat.new_ones((*lead, 1))
    left = cat([ones, flat[..., :-1]], -1).cumprod(-1) if n > 1 else ones
    right = cat([flat[..., 1:], ones], -1).flip(-1).cumprod(-1).flip(-1) if n > 1 else ones
    res = (left * right).reshape(moved.shape)
    inv = [0] * a.ndim
    for i, d in enumerate([d for d in range(a.ndim) if d not in dims] + list(dims)):
        inv[d] = i
    return res.permute(*inv)


class Cumsum(Primitive):
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        return a._data.cumsum(axis=dim, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return (grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim),)


class Cumprod(Primitive):
    _node_name = "CumprodBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        return a._data.cumprod(axis=dim, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = ctx.saved_output
        if bool((a == 0).any()):  # dividing by the input would give nan; prod's double backward gets here
            return (_cumprod_grad_with_zeros(a, grad, ctx.dim),)
        return ((grad * out).flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim) / a,)


def _cumprod_grad_with_zeros(a, grad, dim):
    """grad_k = sum over j >= k of grad_j * prod(a_i for i <= j, i != k), for all k at once:
    row k of an n x n table is `a` with a_k replaced by 1, cumprod'ed (O(n^2) memory, no division)."""
    from .._tensor import Tensor
    from .pointwise import where
    xp, n = a._device.xp, a.shape[dim]
    am, gm = a.movedim(dim, -1), grad.movedim(dim, -1)
    diag = Tensor._make(xp.eye(n, dtype=bool), a._device)
    upper = Tensor._make(xp.triu(xp.ones((n, n), dtype=a._data.dtype)), a._device)  # [k, j] = j >= k
    others = where(diag, 1.0, am.unsqueeze(-2)).cumprod(-1)  # [..., k, j] = prod(a_i, i <= j, i != k)
    return (others * gm.unsqueeze(-2) * upper).sum(-1).movedim(-1, dim)


class AMax(Primitive):
    """max/min over dims returning values only; ties share the gradient evenly (as PyTorch)."""
    _node_name = "AmaxBackward0"
    saves_output = True
    fn = "max"

    @classmethod
    def forward(cls, ctx, a, *, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return getattr(a._data, cls.fn)(axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = _expand_back(ctx.saved_output, ctx)
        mask = a == out
        count = mask.sum(dim=ctx.dims, keepdim=True)
        return (_expand_back(grad, ctx) * mask / count,)


class AMin(AMax):
    _node_name = "AminBackward0"
    fn = "min"


class MaxAll(AMax):
    _node_name = "MaxBackward1"  # max() of all elements: PyTorch's name, same gradient as amax


class MinAll(AMin):
    _node_name = "MinBackward1"


class MaxDim(MultiOutputPrimitive):
    """max/min along one dim: (values, indices); the gradient goes to the chosen index."""
    _node_name = "MaxBackward0"
    fn = "argmax"

    @classmethod
    def forward(cls, ctx, a, *, dim, keepdim):
        xp = a._device.xp
        idx = getattr(a._data, cls.fn)(axis=dim, keepdims=True)
        vals = xp.take_along_axis(a._data, idx, axis=dim)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.idx = idx
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return vals, idx.astype(xp.int64, copy=False)

    @staticmethod
    def backward(ctx, grad, _grad_idx):
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        from .index import scatter_along
        return (scatter_along(grad, ctx.idx, ctx.dim, ctx.shape),)


class MinDim(MaxDim):
    _node_name = "MinBackward0"
    fn = "argmin"


class LogSoftmax(Primitive):
    _node_name = "LogSoftmaxBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        x = a._data
        shifted = x - x.max(axis=dim, keepdims=True)  # stable: exp never overflows
        return shifted - a._device.xp.log(a._device.xp.exp(shifted).sum(axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (grad - y.exp() * grad.sum(dim=ctx.dim, keepdim=True),)


class Softmax(Primitive):
    _node_name = "SoftmaxBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        x = a._data
        e = a._device.xp.exp(x - x.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.saved_output
        return (y * (grad - (grad * y).sum(dim=ctx.dim, keepdim=True)),)


class _NoGradReduce(Primitive):
    differentiable = False
    fn = None

    @classmethod
    def forward(cls, ctx, a, *, dims, keepdim):
        return getattr(a._data, cls.fn)(axis=dims, keepdims=keepdim)


class All(_NoGradReduce):
    fn = "all"


class Any(_NoGradReduce):
    fn = "any"


class ArgMax(Primitive):
    differentiable = False
    fn = "argmax"

    @classmethod
    def forward(cls, ctx, a, *, dim, keepdim):
        xp = a._device.xp
        if dim is None:
            r = getattr(a._data.reshape(-1), cls.fn)()
            r = xp.asarray(r).reshape((1,) * a.ndim if keepdim else ())
        else:
            r = getattr(a._data, cls.fn)(axis=dim, keepdims=keepdim)
        return xp.asarray(r).astype(xp.int64, copy=False)


class ArgMin(ArgMax):
    fn = "argmin"


# ---- the public functions ----------------------------------------------------------------

def _reduce_dtype(a, dtype):
    if dtype is not None:
        return _dtype.as_dtype(dtype, "sum")
    # integer and bool sums accumulate in int64, as PyTorch does
    return _dtype.int64 if not a.dtype.is_floating_point else a.dtype


def _all_if_empty(dim):
    """PyTorch reads an empty dim list as all dims in sum, mean, var/std and amax/amin."""
    return None if dim.__class__ in (list, tuple) and not dim else dim


def sum(a, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    dim = _all_if_empty(dim)
    dims = common.wrap_dims(dim, a.ndim, "sum")
    return (Sum if dim is None else SumDim).apply(a, dims=dims, keepdim=keepdim, dtype=_reduce_dtype(a, dtype))


def _need_float(a, op, dtype=None):
    if dtype is not None:
        return a.to(_dtype.as_dtype(dtype, op))
    if not a.dtype.is_floating_point:
        if op in ("std", "var"):
            raise RuntimeError(f"std and var only support floating point and complex dtypes (got "
                               f"{a.dtype._short}: convert it first, e.g. x.float().{op}())")
        raise RuntimeError(
            f"{op}(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {a.dtype._short}. Convert it first, e.g. x.float().{op}()")
    return a


def mean(a, dim=None, keepdim=False, *, dtype=None):
    a = _need_float(a, "mean", dtype)
    dim = _all_if_empty(dim)
    dims = common.wrap_dims(dim, a.ndim, "mean")
    if a.numel() == 0:  # the mean of nothing is nan, which PyTorch gives without NumPy's warning
        import warnings
        from .pointwise import _fp_quiet
        with _fp_quiet(), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "Mean of empty slice"
            return (Mean if dim is None else MeanDim).apply(a, dims=dims, keepdim=keepdim)
    return (Mean if dim is None else MeanDim).apply(a, dims=dims, keepdim=keepdim)


def prod(a, dim=None, keepdim=False, *, dtype=None):
    if dim is not None and not isinstance(dim, int):  # PyTorch's prod takes a single dim
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = common.wrap_dims(dim, a.ndim, "prod")
    return (ProdAll if dim is None else Prod).apply(a, dims=dims, keepdim=keepdim, dtype=_reduce_dtype(a, dtype))


def cumsum(a, dim, *, dtype=None):
    d = common.wrap_dim(dim, a.ndim, "cumsum")
    a = a.to(_reduce_dtype(a, dtype))
    return Cumsum.apply(a, dim=d) if a.ndim else a.clone()


def cumprod(a, dim, *, dtype=None):
    d = common.wrap_dim(dim, a.ndim, "cumprod")
    a = a.to(_reduce_dtype(a, dtype))
    return Cumprod.apply(a, dim=d) if a.ndim else a.clone()


def _check_nonempty(a, dims, op):
    if not dims and a.numel() == 0:
        kind = IndexError if op in ("argmax", "argmin") else RuntimeError  # PyTorch's choice
        raise kind(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(
                f"{op}(): Expected reduction dim {d} to have non-zero size (the tensor has shape {list(a.shape)})")


def _max_min(cls_all, cls_dim, op, a, dim=None, keepdim=False):
    T = common.tensor_cls()
    if isinstance(dim, T):  # max(a, b): the elementwise form
        from .pointwise import maximum, minimum
        return (maximum if op == "max" else minimum)(a, dim)
    if dim is None:
        _check_nonempty(a, (), op)
        return cls_all.apply(a, dims=tuple(range(a.ndim)), keepdim=False)
    d = common.wrap_dim(dim, a.ndim, op)
    if a.ndim == 0:
        return values_indices(a.clone(), a.new_zeros((), dtype=_dtype.int64))
    _check_nonempty(a, (d,), op)
    return values_indices(*cls_dim.apply(a, dim=d, keepdim=keepdim))


def max(a, dim=None, keepdim=False):  # noqa: A001
    return _max_min(MaxAll, MaxDim, "max", a, dim, keepdim)


def min(a, dim=None, keepdim=False):  # noqa: A001
    return _max_min(MinAll, MinDim, "min", a, dim, keepdim)


def amax(a, dim=(), keepdim=False):
    dims = common.wrap_dims(_all_if_empty(dim), a.ndim, "amax")
    _check_nonempty(a, dims, "amax")
    return AMax.apply(a, dims=dims, keepdim=keepdim)


def amin(a, dim=(), keepdim=False):
    dims = common.wrap_dims(_all_if_empty(dim), a.ndim, "amin")
    _check_nonempty(a, dims, "amin")
    return AMin.apply(a, dims=dims, keepdim=keepdim)


def argmax(a, dim=None, keepdim=False):
    d = None if dim is None else common.wrap_dim(dim, a.ndim, "argmax")
    _check_nonempty(a, () if d is None else (d,), "argmax")
    return ArgMax.apply(a, dim=d if a.ndim else None, keepdim=keepdim)


def argmin(a, dim=None, keepdim=False):
    d = None if dim is None else common.wrap_dim(dim, a.ndim, "argmin")
    _check_nonempty(a, () if d is None else (d,), "argmin")
    return ArgMin.apply(a, dim=d if a.ndim else None, keepdim=keepdim)


def all(a, dim=None, keepdim=False):  # noqa: A001
    return All.apply(a, dims=common.wrap_dims(dim, a.ndim, "all"), keepdim=keepdim)


def any(a, dim=None, keepdim=False):  # noqa: A001
    return Any.apply(a, dims=common.wrap_dims(dim, a.ndim, "any"), keepdim=keepdim)


def var(a, dim=None, *, correction=1, keepdim=False, unbiased=None):
    """Composed from mean and sum, so its gradient comes for free."""
    if unbiased is not None:
        correction = 1 if unbiased else 0
    a = _need_float(a, "var")
    dims = common.wrap_dims(_all_if_empty(dim), a.ndim, "var")
    n = 1
    for d in dims:
        n *= a.shape[d]
    centered = a - a.mean(dim=dims, keepdim=True)
    return (centered * centered).sum(dim=dims, keepdim=keepdim) / builtins_max(n - correction, 0)


def std(a, dim=None, *, correction=1, keepdim=False, unbiased=None):
    _need_float(a, "std")
    return _root(var(a, dim, correction=correction, keepdim=keepdim, unbiased=unbiased), 2)


def _root(s, p):
    """s ** (1/p) for s >= 0, with gradient 0 (not inf * 0 = nan) where s == 0: PyTorch's choice
    for the norm of a zero vector and the std of constant data. `s` is replaced by 1 there
    before the root, so no inf appears even in a second derivative."""
    from .pointwise import where
    zero = s == 0
    safe = where(zero, 1.0, s)
    return where(zero, 0.0, safe.sqrt() if p == 2 else safe ** (1.0 / p))


def norm(a, p="fro", dim=None, keepdim=False):
    """Vector p-norms (2 by default) over `dim`, composed from abs, pow and sum."""
    a = _need_float(a, "norm")
    if p in ("fro", 2, 2.0):
        return _root((a * a).sum(dim=dim, keepdim=keepdim), 2)
    if p == float("inf"):
        return a.abs().amax(dim=() if dim is None else dim, keepdim=keepdim)
    if p == 1:
        return a.abs().sum(dim=dim, keepdim=keepdim)
    return _root((a.abs() ** p).sum(dim=dim, keepdim=keepdim), p)


def logsumexp(a, dim, keepdim=False):
    a = _need_float(a, "logsumexp") if a.dtype.is_floating_point else a.to(get_default_dtype())
    dims = common.wrap_dims(dim, a.ndim, "logsumexp")
    m = a.detach().amax(dim=dims, keepdim=True)
    m = m.masked_fill(m.isinf(), 0.0)
    out = (a - m).exp().sum(dim=dims, keepdim=True).log() + m
    return out if keepdim else out.squeeze(dims) if dims else out


def softmax(a, dim, dtype=None):
    a = a.to(_dtype.as_dtype(dtype)) if dtype is not None else a
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"softmax: expected a floating point tensor, got {a.dtype}; call .float() first")
    return Softmax.apply(a, dim=common.wrap_dim(dim, a.ndim, "softmax"))


def log_softmax(a, dim, dtype=None):
    a = a.to(_dtype.as_dtype(dtype)) if dtype is not None else a
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"log_softmax: expected a floating point tensor, got {a.dtype}; call .float() first")
    return LogSoftmax.apply(a, dim=common.wrap_dim(dim, a.ndim, "log_softmax"))


import builtins as _b  # noqa: E402

builtins_max = _b.max
