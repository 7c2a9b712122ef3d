"""Reductions over dims (`dim` an int or a tuple, `keepdim`), and softmax."""
from __future__ import annotations

import math

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype, return_types
from .. import parts as _parts
from .._dtype import get_default_dtype
from .._errors import hinted
from ..autograd.grad_mode import STATE
from . import common
from . import _prim
from ._prim import MultiOutputPrimitive, Primitive, check_saved_outputs


def _kept_shape(shape, dims):
    """The shape a reduction over `dims` would have with keepdim=True."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _expand_back(grad, ctx):
    """Broadcast a reduced gradient back over the dims that were reduced."""
    if not ctx.keepdim and grad.ndim:  # (a full reduction's 0-d gradient expands as it is)
        grad = grad.reshape(_kept_shape(ctx.shape, ctx.dims))
    return _prim.expand(grad, ctx.shape)


def _reduce(a, ufunc, dims, keepdim, dtype):
    """sum/prod over dims. On NumPy through the ufunc itself (arr.sum() detours through NumPy's
    Python wrappers, whose warnings about inf and nan would reach the learner)."""
    arr = a._data
    dev = a._device
    if dev.type == "cpu":
        out = (_np_add if ufunc == "add" else _np_multiply).reduce(arr, axis=dims, dtype=dtype, keepdims=keepdim)
    else:
        out = getattr(arr, "sum" if ufunc == "add" else "prod")(axis=dims, keepdims=keepdim, dtype=dtype)
    return out if out.ndim <= 1 else common.row_major(out, dev.xp)  # PyTorch's results are row-major


def _numpy_ufuncs():
    from .._device import cpu
    return cpu.xp.add, cpu.xp.multiply  # the CPU's array module: NumPy


_np_add, _np_multiply = _numpy_ufuncs()


def _mean(a, dims, keepdim, count, out):
    """The mean in dtype `out`. A half mean is summed in float32 straight from the input and rounded
    once at the end, as PyTorch's CPU kernel does (so mean(dtype=float16) of large ints stays finite)."""
    acc = out if out.itemsize > 2 else a._device.xp.dtype("float32")
    total = _reduce(a, "add", dims, keepdim, acc)
    if not count:  # the mean of nothing: nan, silently
        with _np_quiet(a):
            return (total / acc.type(count)).astype(out, copy=False)
    return (total / acc.type(count)).astype(out, copy=False)


class Sum(Primitive):
    _node_name = "SumBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        if dtype.np.itemsize == 2 and dtype.is_floating_point:  # half: summed in float, rounded once (PyTorch)
            if a._data.dtype != dtype.np:  # (after the input is cast to half: 70000 is inf there)
                a = type(a)._make(a._data.astype(dtype.np), a._device)
            return _reduce(a, "add", dims, keepdim, a._device.xp.dtype("float32")).astype(dtype.np)
        if not keepdim and len(dims) == a._data.ndim and a._device.type == "cpu":  # a.sum(), the commonest
            return _np_add.reduce(a._data, axis=dims, dtype=dtype.np)
        return _reduce(a, "add", dims, keepdim, dtype.np)

    @staticmethod
    def backward(ctx, grad):
        if _parts.reduce_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.reduce_backward("sum", grad, tuple(ctx.shape), ctx.dims, ctx.keepdim),)
        return (_expand_back(grad, ctx),)


class SumDim(Sum):
    _node_name = "SumBackward1"  # PyTorch's name for sum over given dims; the full sum is SumBackward0


class Mean(Primitive):
    _node_name = "MeanBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        count = 1
        for d in dims:
            count *= a.shape[d]
        ctx.count = count
        return _mean(a, dims, keepdim, count, dtype.np)  # (the engine casts the gradient back to a's dtype)

    @staticmethod
    def backward(ctx, grad):
        if _parts.reduce_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.reduce_backward("mean", grad, tuple(ctx.shape), ctx.dims, ctx.keepdim),)
        return (_expand_back(grad, ctx) / ctx.count,)


class MeanDim(Mean):
    _node_name = "MeanBackward1"


class Prod(Primitive):
    _node_name = "ProdBackward1"
    saves_output = True  # as PyTorch's: a later in-place change of the result is caught

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        if dtype is _dtype.float16:
            return _half_prod(a, dims, keepdim)
        return _reduce(a, "multiply", dims, keepdim, dtype.np)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = ctx.saved_output  # (unpacking checks its version)
        g = _expand_back(grad, ctx)
        if not bool((a == 0).any()):  # PyTorch's formula: the product over the element (inf / inf is nan there too)
            return (g * (_expand_back(out, ctx) / a),)
        # d prod / d a_i = product of the others; computed without dividing, so zeros are fine
        return (g * _prod_of_others(a, ctx.dims),)


def _half_prod(a, dims, keepdim):
    """PyTorch multiplies half values in half, rounding after each step (so 60000 * 2 * 0.5 is inf);
    NumPy's half reduction keeps a float32 product. A running product along the reduced dims does it."""
    xp = a._device.xp
    lead = [n for d, n in enumerate(a.shape) if d not in dims]
    moved = xp.moveaxis(a._data.astype(xp.float16, copy=False), dims, tuple(range(-len(dims), 0)))
    flat = moved.reshape(*lead, math.prod(a.shape[d] for d in dims))  # (a size, not -1: lead may hold a 0)
    with _np_quiet(a):
        out = flat.cumprod(axis=-1)[..., -1] if flat.shape[-1] else xp.ones(lead, xp.float16)
    if keepdim:
        out = out.reshape([1 if d in dims else n for d, n in enumerate(a.shape)])
    return out.copy()  # (row-major, and not a view of the running product)


class ProdAll(Prod):
    _node_name = "ProdBackward0"  # prod() of all elements; ProdBackward1 is prod along a dim

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if not STATE.enabled and int((a == 0).sum()) > 1:  # PyTorch's shortcut: each product of others has a 0
            ctx.saved_output  # noqa: B018 (unpacking checks its version)
            return (a.new_zeros(a.shape),)
        return Prod.backward(ctx, grad)


def _prod_of_others(a, dims):
    """For each element, the product of the other elements in its reduced group."""
    from .join import cat
    if a.numel() == 0:
        return a.new_ones(a.shape)  # no elements, no products
    moved = a.permute(tuple(d for d in range(a.ndim) if d not in dims) + tuple(dims))
    lead = moved.shape[:a.ndim - len(dims)]
    flat = moved.reshape(*lead, math.prod(a.shape[d] for d in dims))  # (a size, not -1: lead may hold a 0)
    n = flat.shape[-1]
    ones = flat.new_ones((*lead, 1))
    left = cat([ones, flat[..., :-1]], -1).cumprod(-1) if n > 1 else ones
    right = cat([flat[..., 1:], ones], -1).flip(-1).cumprod(-1).flip(-1) if n > 1 else ones
    res = (left * right).reshape(moved.shape)
    inv = [0] * a.ndim
    for i, d in enumerate([d for d in range(a.ndim) if d not in dims] + list(dims)):
        inv[d] = i
    return res.permute(tuple(inv))


def _cumsum(x, dim):
    """PyTorch's running sum: floats accumulate in double from +0. (so -0. inputs sum to 0.) and each
    prefix is rounded to the dtype; integers in their own dtype. A 0-d input is copied as it is."""
    if x.ndim == 0:
        return x.copy()
    if x.dtype.kind != "f":
        return x.cumsum(axis=dim, dtype=x.dtype)
    acc = x.cumsum(axis=dim, dtype="float64")
    acc += 0.0
    return acc.astype(x.dtype, copy=False)


class Cumsum(Primitive):
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        return common.row_major(_cumsum(a._data, dim), a._device.xp)

    @staticmethod
    def backward(ctx, grad):
        return (grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim) if grad.ndim else grad,)


class Cumprod(Primitive):
    _node_name = "CumprodBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        if a.ndim == 0:  # the product of one element is that element
            return a._data.copy()
        x = a._data
        # PyTorch's running product of floats is kept wider (half in float, float in double), each
        # prefix rounded to the dtype: [1e20, 1e20, 1e-20] gives [1e20, inf, 1e20] in float32
        acc = {"e": "float32", "f": "float64"}.get(x.dtype.char, x.dtype)
        with _np_quiet(a):
            out = x.cumprod(axis=dim, dtype=acc).astype(x.dtype, copy=False)
        return common.row_major(out, a._device.xp)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if a.ndim == 0:
            return (grad,)
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
    """max() of all elements (MaxBackward1): ties share the gradient evenly, as in amax, but a NaN
    result shares it among the NaNs (PyTorch's evenly_distribute_backward), not among no one."""
    _node_name = "MaxBackward1"

    @staticmethod
    def backward(ctx, grad):
        from .pointwise import where
        (a,) = ctx.saved_tensors
        out = ctx.saved_output
        mask = a.isnan() if bool(out.isnan()) else a == out
        return (where(mask, grad / mask.sum(), 0.0),)


class MinAll(AMin):
    _node_name = "MinBackward1"
    backward = MaxAll.backward


class MaxDim(MultiOutputPrimitive):
    """max/min along one dim: (values, indices); the gradient goes to the chosen index."""
    _node_name = "MaxBackward0"
    fn = "argmax"
    saved_outputs = (1,)

    @classmethod
    def forward(cls, ctx, a, *, dim, keepdim):
        xp = a._device.xp
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        if a.ndim == 0:  # a 0-d tensor is its own max along dim 0 (or -1), at index 0
            ctx.idx = None
            return a._data.copy(), xp.zeros((), xp.int64)
        idx = getattr(a._data, cls.fn)(axis=dim, keepdims=True)
        vals = xp.take_along_axis(a._data, idx, axis=dim)
        ctx.idx = idx
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return vals, idx.astype(xp.int64, copy=False)

    @staticmethod
    def backward(ctx, grad, _grad_idx):
        from .index import check_alive, scatter_along
        check_alive(ctx)  # the indices are saved for backward, as in PyTorch
        check_saved_outputs(ctx)
        if ctx.idx is None:
            return (grad,)
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return (scatter_along(grad, ctx.idx, ctx.dim, ctx.shape),)


class MinDim(MaxDim):
    _node_name = "MinBackward0"
    fn = "argmin"


class LogSoftmax(Primitive):
    _node_name = "LogSoftmaxBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        x = a._data
        if not x.size:  # (NumPy has no max of nothing)
            return x.copy()
        xp = a._device.xp

        def log_softmax(x):
            shifted = x - x.max(axis=dim, keepdims=True)  # stable: exp never overflows
            return shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
        return common.row_major(_prim.in_float(log_softmax, x), xp)  # (half computes in float, as PyTorch)

    @staticmethod
    def backward(ctx, grad):
        return (_prim.in_float(lambda g, y: g - _prim.exp(y) * _prim.sum_keepdim(g, ctx.dim), grad,
                               ctx.saved_output),)


class Softmax(Primitive):
    _node_name = "SoftmaxBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        x = a._data
        if not x.size:  # (NumPy has no max of nothing)
            return x.copy()
        xp = a._device.xp

        def softmax(x):
            e = xp.exp(x - x.max(axis=dim, keepdims=True))
            return e / e.sum(axis=dim, keepdims=True)
        return common.row_major(_prim.in_float(softmax, x), xp)  # (half computes in float, as PyTorch)

    @staticmethod
    def backward(ctx, grad):
        return (_prim.in_float(lambda g, y: y * (g - _prim.sum_keepdim(g * y, ctx.dim)), grad, ctx.saved_output),)


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


# ---- std, var, norm, logsumexp: one node each, as PyTorch records them ------------------

def _unsqueezed(t, ctx):
    """A reduced result shaped to broadcast against the input (the reduced dims back as 1)."""
    return t if ctx.keepdim else t.reshape(_kept_shape(ctx.shape, ctx.dims))


class Var(Primitive):
    """var = sum((x - mean)^2) / max(n - correction, 0); d/dx = 2 (x - mean) / (n - correction)."""
    _node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, a, *, dims, correction, keepdim):
        ctx.save_for_backward(a)
        dof = _dof(a.shape, dims, correction)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.dof = a.shape, dims, keepdim, _dof(a.shape, dims, correction, False)
        x = _wide(a._data)
        with _np_quiet(a):
            centered = x - x.mean(axis=dims, keepdims=True)
            return ((centered * centered).sum(axis=dims, keepdims=keepdim) / x.dtype.type(dof)).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        with _np_quiet(a):
            return (_unsqueezed(grad, ctx) * _two_over(ctx.dof) * (a - a.mean(dim=ctx.dims, keepdim=True)),)


class Std(Primitive):
    """std = sqrt(var); d/dx = d var/dx / (2 std), taken as 0 where std is 0 (constant data)."""
    _node_name = "StdBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dims, correction, keepdim):
        ctx.save_for_backward(a)
        dof = _dof(a.shape, dims, correction)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.dof = a.shape, dims, keepdim, _dof(a.shape, dims, correction, False)
        x = _wide(a._data)
        with _np_quiet(a):
            centered = x - x.mean(axis=dims, keepdims=True)
            var = (centered * centered).sum(axis=dims, keepdims=keepdim) / x.dtype.type(dof)
            return a._device.xp.sqrt(var).astype(a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        out = _unsqueezed(ctx.saved_output, ctx)
        with _np_quiet(a):
            g = (_unsqueezed(grad, ctx) / (out * 2)).masked_fill(out == 0, 0.0)
            return (g * _two_over(ctx.dof) * (a - a.mean(dim=ctx.dims, keepdim=True)),)


def _wide(x):
    """Half precision is reduced in float32 and rounded once, as PyTorch does (squares overflow
    float16 long before the result would)."""
    return x.astype("float32") if x.dtype.itemsize == 2 else x


def _two_over(dof):
    return 2.0 / dof if dof else float("inf")  # no degrees of freedom: inf * 0 = nan, as in PyTorch


def _dof(shape, dims, correction, clamped=True):
    """n - correction: the divisor of the forward (clamped at 0, as PyTorch's), or, unclamped, the
    one PyTorch's backward formula divides by (negative when correction > n)."""
    n = 1
    for d in dims:
        n *= shape[d]
    return builtins_max(n - correction, 0) if clamped else n - correction


class _np_quiet:
    """inf and nan where PyTorch gives them silently (0 degrees of freedom, 0 / 0)."""

    def __init__(self, t):
        self.np = t._device.xp if t._device.type == "cpu" else None

    def __enter__(self):
        if self.np is not None:
            self._old = self.np.seterr(all="ignore")

    def __exit__(self, *exc):
        if self.np is not None:
            self.np.seterr(**self._old)


class Norm(Primitive):
    """Vector p-norms over dims (LinalgVectorNormBackward0); the backward is PyTorch's norm_backward."""
    _node_name = "LinalgVectorNormBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, p, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim, ctx.p = a.shape, dims, keepdim, p
        xp, x = a._device.xp, _wide(a._data)
        with _np_quiet(a):
            return Norm._pnorm(xp, x, p, dims, keepdim).astype(a._data.dtype, copy=False)

    @staticmethod
    def _pnorm(xp, x, p, dims, keepdim):
        ax = xp.abs(x)
        if p == 2:
            return xp.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
        if p == float("inf"):
            return ax.max(axis=dims, keepdims=keepdim)
        if p == -float("inf"):
            return ax.min(axis=dims, keepdims=keepdim)
        if p == 0:
            return (x != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
        if p == 1:
            return ax.sum(axis=dims, keepdims=keepdim)
        return (ax ** x.dtype.type(p)).sum(axis=dims, keepdims=keepdim) ** x.dtype.type(1.0 / p)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p = ctx.p
        if p == 0:
            return (None,)  # a count of nonzeros: no gradient flows (PyTorch's choice)
        g, n = _unsqueezed(grad, ctx), _unsqueezed(ctx.saved_output, ctx)
        with _np_quiet(a):
            if p == 1:
                return (a.sign() * g,)
            if p == 2:
                return (g * (a / n).masked_fill(n == 0, 0.0),)
            if abs(p) == float("inf"):
                mask = (a.abs() == n) | a.isnan()
                return (a.sign() * (g / mask.sum(dim=ctx.dims, keepdim=True)) * mask,)
            if p < 1:
                scaled = a.sign() * (a.abs() ** (p - 1)).masked_fill(a == 0, 0.0)
                return (scaled * g * n ** (1 - p),)
            scaled = a.sign() * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
            return (scaled * (g / n ** (p - 1)).masked_fill(n == 0, 0.0),)


class LogSumExp(Primitive):
    """log(sum(exp(x))), shifted by the max so exp never overflows; d/dx = exp(x - result)."""
    _node_name = "LogsumexpBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        xp, x = a._device.xp, a._data
        if x.size == 0 or builtins_any(a.shape[d] == 0 for d in dims):
            return xp.full(_reduced_shape(a.shape, dims, keepdim), -xp.inf, dtype=x.dtype)
        m = x.max(axis=dims, keepdims=True)
        m = xp.where(xp.isinf(m), 0, m).astype(x.dtype, copy=False)
        with _np_quiet(a):
            out = xp.log(xp.exp(x - m).sum(axis=dims, keepdims=True)) + m
        return out if keepdim else out.reshape(_reduced_shape(a.shape, dims, False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        with _np_quiet(a):
            return (_unsqueezed(grad, ctx) * (a - _unsqueezed(ctx.saved_output, ctx)).exp(),)


def _reduced_shape(shape, dims, keepdim):
    return tuple(1 if i in dims else n for i, n in enumerate(shape)) if keepdim else \
        tuple(n for i, n in enumerate(shape) if i not in dims)


# ---- the public functions ----------------------------------------------------------------

def _np_names(op, dim, keepdim, axis, keepdims):
    """NumPy's `axis=` and `keepdims=`, which PyTorch accepts for dim and keepdim."""
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}() got an unexpected keyword argument 'axis' (dim is given too)")
        dim = axis
    return dim, (keepdim if keepdims is None else keepdims)


def _reduce_dtype(a, dtype, op="sum"):
    if dtype is None:  # integer and bool sums accumulate in int64, as PyTorch does
        return _dtype.int64 if not a.dtype.is_floating_point else a.dtype
    dt = _dtype.as_dtype(dtype, op)
    if not dt.is_floating_point and a.requires_grad and STATE.enabled:  # an integer result carries no gradient
        raise hinted(RuntimeError, f"Autograd not support dtype: {dt._short}",
                     f"a reduction of a tensor that requires grad into {dt}: reduce it detached (x.detach()) or "
                     "under torch.no_grad(), or keep a floating point dtype=")
    return dt


def _all_if_empty(dim):
    """PyTorch reads an empty dim list as all dims in sum, mean, var/std and amax/amin."""
    return None if dim.__class__ in (list, tuple) and not dim else dim


@_amp.float32_gpu
def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):  # noqa: A001
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("sum", dim, keepdim, axis, keepdims)
    node = Sum if dim is None else SumDim  # named by the call, as in PyTorch: sum(dim=[]) is SumBackward1
    dims = common.wrap_dims(_all_if_empty(dim), input.ndim, "sum")
    return node.apply(input, dims=dims, keepdim=keepdim, dtype=_reduce_dtype(input, dtype))


def _need_float(a, op, dtype=None):
    """var, std and norm compute in floating point: PyTorch refuses an integer input (and norm an integer
    or narrowing dtype=) rather than convert it."""
    fix = f"convert it first, e.g. x.float().{op}()"
    if not a.dtype.is_floating_point:
        if op in ("std", "var"):
            raise hinted(RuntimeError, "std and var only support floating point and complex dtypes",
                         f"got {a.dtype._short}: {fix}")
        raise hinted(RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                     f"Got {a.dtype._short}", fix)
    if dtype is not None:  # norm(dtype=): computed in a dtype at least as wide as the input's
        dt = _dtype.as_dtype(dtype, op)
        if not dt.is_floating_point:
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got {dt._short}")
        if dt.itemsize < a.dtype.itemsize:
            raise hinted(RuntimeError, f"linalg.vector_norm: the dtype of the input ({a.dtype._short}) should be "
                         f"convertible without narrowing to the specified dtype ({dt._short})",
                         "convert the result instead: x.norm().to(dtype)")
        return a.to(dt)
    return a


def _mean_dtype(a, dtype):
    """The dtype of a mean: dtype= when given (a floating point one), else the input's (floating point)."""
    if dtype is not None:
        dt = _dtype.as_dtype(dtype, "mean")
        if not dt.is_floating_point:
            raise hinted(RuntimeError, "mean(): could not infer output dtype. Optional dtype must be either a "
                         f"floating point or complex dtype. Got: {dt._short}", "pass dtype=torch.float32, say")
        return dt
    if not a.dtype.is_floating_point:
        raise hinted(RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a floating "
                     f"point or complex dtype. Got: {a.dtype._short}",
                     "convert it first, e.g. x.float().mean(), or pass dtype=torch.float32")
    return a.dtype


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("mean", dim, keepdim, axis, keepdims)
    dt = _mean_dtype(input, dtype)
    node = Mean if dim is None else MeanDim  # (named by the call, as sum)
    dims = common.wrap_dims(_all_if_empty(dim), input.ndim, "mean")
    return node.apply(input, dims=dims, keepdim=keepdim, dtype=dt)  # of nothing: nan


@_amp.float32
def prod(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("prod", dim, keepdim, axis, keepdims)
    if dim is not None and not isinstance(dim, int):  # PyTorch's prod takes a single dim
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = common.wrap_dims(dim, input.ndim, "prod")
    node = ProdAll if dim is None else Prod
    return node.apply(input, dims=dims, keepdim=keepdim, dtype=_reduce_dtype(input, dtype, "prod"))


def _no_bool_scan(a, dtype, op):
    """PyTorch's running sum and product have no bool kernel (a 0-d or empty input never reaches it)."""
    if dtype is not None and _dtype.as_dtype(dtype, op) is _dtype.bool and a.ndim and a.numel():
        raise hinted(NotImplementedError, f"\"{op}_out_cpu\" not implemented for 'Bool'",
                     f"{op} counts in an integer dtype: drop dtype=, or pass dtype=torch.int64")


@_amp.float32_gpu
def cumsum(input, dim=None, *, dtype=None, axis=None):
    dim = axis if dim is None else dim
    d = common.wrap_dim(dim, input.ndim, "cumsum")
    _no_bool_scan(input, dtype, "cumsum")
    input = input.to(_reduce_dtype(input, dtype))
    return Cumsum.apply(input, dim=d)


@_amp.float32_gpu
def cumprod(input, dim=None, *, dtype=None, axis=None):
    dim = axis if dim is None else dim
    d = common.wrap_dim(dim, input.ndim, "cumprod")
    _no_bool_scan(input, dtype, "cumprod")
    input = input.to(_reduce_dtype(input, dtype))
    return Cumprod.apply(input, dim=d)


def _check_nonempty(a, dims, op):
    """PyTorch's checks before a reduction that has no identity (max, min, argmax, amax, ...): an empty
    input needs a dim (`dims` None: none was given), and each reduced dim must have a size. The dims
    are checked as the caller wrote them, in range and non-empty one by one, before anything else looks
    at them (a repeated dim, say), and the message names each as written."""
    if dims is None:
        if a.numel() == 0:
            hint = f"the input has shape {list(a.shape)}: pass dim= to reduce along a dim of non-zero size"
            if op in ("argmax", "argmin"):  # (PyTorch's type and wording differ from max's)
                raise hinted(IndexError, f"{op}(): Expected reduction dim to be specified for input.numel() == 0.",
                             hint)
            raise hinted(RuntimeError, f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.", hint)
        return
    for d in dims:
        if a.shape[common.wrap_dim(d, a.ndim, op)] == 0:
            raise hinted(IndexError, f"{op}(): Expected reduction dim {d} to have non-zero size.",
                         f"the input has shape {list(a.shape)}; {op} of nothing has no value")


def _max_min(cls_all, cls_dim, op, a, dim=None, keepdim=False):
    T = common.tensor_cls()
    if isinstance(dim, T):  # max(a, b): the elementwise form
        from .pointwise import maximum, minimum
        return (maximum if op == "max" else minimum)(a, dim)
    if dim is None:
        _check_nonempty(a, None, op)
        return cls_all.apply(a, dims=tuple(range(a.ndim)), keepdim=False)
    d = common.wrap_dim(dim, a.ndim, op)
    if a.ndim:
        _check_nonempty(a, (d,), op)
    return getattr(return_types, op)(*cls_dim.apply(a, dim=d, keepdim=keepdim))


def max(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):  # noqa: A001,A002
    if axis is not None or keepdims is not None or other is not None:  # (max(input, other): the elementwise form)
        dim, keepdim = _np_names("max", dim if other is None else other, keepdim, axis, keepdims)
    return _max_min(MaxAll, MaxDim, "max", input, dim, keepdim)


def min(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):  # noqa: A001,A002
    if axis is not None or keepdims is not None or other is not None:  # (min(input, other): the elementwise form)
        dim, keepdim = _np_names("min", dim if other is None else other, keepdim, axis, keepdims)
    return _max_min(MinAll, MinDim, "min", input, dim, keepdim)


def _given(dim):
    """The dims as the caller wrote them (a tuple), or None where none was given."""
    dim = _all_if_empty(dim)
    return None if dim is None else tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)


def amax(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("amax", None if dim == () else dim, keepdim, axis, keepdims)
    if input.numel() == 0:
        _check_nonempty(input, _given(dim), "amax")
    dims = common.wrap_dims(_all_if_empty(dim), input.ndim, "amax")
    return AMax.apply(input, dims=dims, keepdim=keepdim)


def amin(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("amin", None if dim == () else dim, keepdim, axis, keepdims)
    if input.numel() == 0:
        _check_nonempty(input, _given(dim), "amin")
    dims = common.wrap_dims(_all_if_empty(dim), input.ndim, "amin")
    return AMin.apply(input, dims=dims, keepdim=keepdim)


def _arg(cls, op, a, dim, keepdim):
    if a.dtype is _dtype.bool:
        raise hinted(RuntimeError, f"{op}(): does not support bool input", f"convert it first, e.g. x.int().{op}()")
    d = None if dim is None else common.wrap_dim(dim, a.ndim, op)
    if a.ndim == 0:  # a single element: index 0, whatever the dim
        return a.new_zeros((), dtype=_dtype.int64)
    _check_nonempty(a, None if d is None else (d,), op)
    return cls.apply(a, dim=d, keepdim=keepdim)


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("argmax", dim, keepdim, axis, keepdims)
    return _arg(ArgMax, "argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("argmin", dim, keepdim, axis, keepdims)
    return _arg(ArgMin, "argmin", input, dim, keepdim)


def _all_any(cls, op, a, dim, keepdim):
    out = cls.apply(a, dims=common.wrap_dims(dim, a.ndim, op), keepdim=keepdim)
    return out.to(_dtype.uint8) if a.dtype is _dtype.uint8 else out  # PyTorch keeps uint8 for uint8 input


def all(input, dim=None, keepdim=False, *, axis=None, keepdims=None):  # noqa: A001
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("all", dim, keepdim, axis, keepdims)
    return _all_any(All, "all", input, dim, keepdim)


def any(input, dim=None, keepdim=False, *, axis=None, keepdims=None):  # noqa: A001
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names("any", dim, keepdim, axis, keepdims)
    return _all_any(Any, "any", input, dim, keepdim)


def _moments_args(op, a, dim, unbiased, keepdim, correction, axis, keepdims):
    """var and std take `(dim, unbiased, keepdim)` or `(dim, *, correction, keepdim)`, as in PyTorch;
    a first argument that is a bool is `unbiased`."""
    if dim.__class__ is bool:
        dim, unbiased = None, dim
    if axis is not None or keepdims is not None:
        dim, keepdim = _np_names(op, dim, keepdim, axis, keepdims)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    a = _need_float(a, op)
    dims = common.wrap_dims(_all_if_empty(dim), a.ndim, op)
    n = 1 if a.numel() else 0  # (PyTorch's factor: input numel over output numel, 0 for an empty input)
    for d in dims:
        n *= a.shape[d]
    if n - correction <= 0:
        import warnings
        warnings.warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return a, dims, correction, keepdim


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
    input, dims, correction, keepdim = _moments_args("var", input, dim, unbiased, keepdim, correction, axis, keepdims)
    return Var.apply(input, dims=dims, correction=correction, keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
    input, dims, correction, keepdim = _moments_args("std", input, dim, unbiased, keepdim, correction, axis, keepdims)
    return Std.apply(input, dims=dims, correction=correction, keepdim=keepdim)


@_amp.float32_gpu
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norms (2 by default) over `dim` (all dims when None): PyTorch's linalg.vector_norm."""
    input = _need_float(input, "norm", dtype)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):  # 'nuc': a matrix norm over two dims
        from ..linalg import matrix_norm
        return matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim)
    if input.numel() == 0 and (p < 0 or p == float("inf")):  # max |x|, or a sum of 1/|x|^k: no value for nothing
        _check_norm_identity(input, p, dim)
    dims = common.wrap_dims(_all_if_empty(dim) if not isinstance(dim, int) else dim, input.ndim, "norm")
    return Norm.apply(input, p=float(p), dims=dims, keepdim=keepdim)


def _check_norm_identity(a, p, dim):
    """PyTorch's check of an empty input to the inf and negative norms: a dim must be given, and each, as
    the caller wrote it, must be in range and have a size (as _check_nonempty)."""
    hint = f"the input has shape {list(a.shape)}; reduce over dims of non-zero size only"
    if _given(dim) is None:
        raise hinted(RuntimeError, f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
                     "operation does not have an identity", hint)
    for name in _given(dim):
        if a.shape[common.wrap_dim(name, a.ndim, "norm")] == 0:
            raise hinted(RuntimeError, f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {name}"
                         "because this dimension is empty and the operation does not have an identity", hint)


@_amp.float32_gpu
def logsumexp(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = _np_names("logsumexp", dim, keepdim, axis, keepdims)
    if dim is None:
        raise TypeError("logsumexp() missing 1 required positional arguments: \"dim\"")
    input = input if input.dtype.is_floating_point else input.to(get_default_dtype())
    dims = common.wrap_dims(_all_if_empty(dim), input.ndim, "logsumexp")
    if _given(dim) is None and input.numel() and not keepdim and input.ndim:
        # PyTorch reads () as every dim; its result then cannot take the kept-dims max it adds back
        raise hinted(RuntimeError, f"output with shape [] doesn't match the broadcast shape {[1] * input.ndim}",
                     "logsumexp over dim=() reduces every dim: pass keepdim=True, or the dims themselves")
    return LogSumExp.apply(input, dims=dims, keepdim=keepdim)


def _softmax(prim, a, op, dim, dtype):
    d = common.wrap_dim(dim, a.ndim, op)  # PyTorch checks the dim before the dtype
    a = a.to(_dtype.as_dtype(dtype, op)) if dtype is not None else a
    if not a.dtype.is_floating_point:
        if a.numel() == 0:  # PyTorch's kernel is never reached: an empty result of the input's dtype
            return a.clone()
        kernel = f"{op}_lastdim_kernel_impl" if d == builtins_max(a.ndim - 1, 0) else f"{op}_kernel_impl"
        raise hinted(NotImplementedError, f"\"{kernel}\" not implemented for '{a.dtype._short}'",
                     f"{op} needs a floating point tensor: call .float() first, or pass dtype=")
    return prim.apply(a, dim=d)


@_amp.float32_gpu
def softmax(input, dim=None, dtype=None, *, axis=None):
    return _softmax(Softmax, input, "softmax", axis if dim is None else dim, dtype)


@_amp.float32_gpu
def log_softmax(input, dim=None, dtype=None, *, axis=None):
    return _softmax(LogSoftmax, input, "log_softmax", axis if dim is None else dim, dtype)


import builtins as _b  # noqa: E402

builtins_max, builtins_abs, builtins_any = _b.max, _b.abs, _b.any
