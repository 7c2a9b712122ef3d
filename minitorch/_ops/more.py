"""The rest of the torch functions beginner code meets, each small: more binary math (hypot,
xlogy, copysign, fmax/fmin, heaviside, signbit), NaN-skipping and paired reductions (nansum,
nanmean, aminmax), running max/min and logcumsumexp, products (vdot, inner, tensordot, kron,
cross), and shape helpers (dstack, column_stack, tensor_split, cartesian_prod, atleast_*d,
rot90, fliplr, flipud).

A primitive where PyTorch records one node (its grad_fn name shows); a composition of existing
ops where PyTorch composes too.
"""
from __future__ import annotations

import math

from .. import _dtype, return_types
from . import common
from ._prim import MultiOutputPrimitive, Primitive, check_saved_outputs
from .convert import preserved
from .pointwise import _quiet, binary, where, zeros_like_grad
from .reduce import _expand_back, _reduce_dtype



def _d(x):
    return getattr(x, "_data", x)


def _xp(a, b):
    return (a if hasattr(a, "_device") else b)._device.xp


def _tensors_only(op, *xs):
    T = common.tensor_cls()
    for x, (name, pos) in zip(xs, (("input", 1), ("other", 2))):
        if not isinstance(x, T):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _floats_only(op, dt):
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{dt._short}'")


# ---- binary math ---------------------------------------------------------------------------------

class Hypot(Primitive):
    _node_name = "HypotBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order
    saves_output = True

    @staticmethod
    def forward(ctx, a, b):
        need = ctx.needs_input_grad  # (saved only where a gradient reads it, as PyTorch: a later in-place
        if need:  # change of the other one is no error)
            ctx.save_for_backward(a if need[0] else None, b if need[1] else None)
        return _xp(a, b).hypot(_d(a), _d(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        out = ctx.saved_output
        need = ctx.needs_input_grad  # (in PyTorch's order: grad / out alone can overflow in half)
        return (grad * a / out if need[0] else None), (grad * b / out if need[1] else None)


class Xlogy(Primitive):
    """x * log(y), and 0 where x is 0 (unless y is NaN). torch.special.xlog1py is the same with
    log1p(y): `shift` 1, its pole at y = -1 (_ops/special_extra.py)."""
    _node_name = "XlogyBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order
    log, shift = "log", 0

    @staticmethod
    def outer(grad, b):  # the function itself, for d/dx = log(y) (recorded, for a second derivative)
        return xlogy(grad, b)

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(*(t for t in (a, b) if hasattr(t, "_device")))
        ctx.numbers = tuple(None if hasattr(t, "_device") else t for t in (a, b))
        xp, t = _xp(a, b), a if hasattr(a, "_device") else b
        x, y = (xp.asarray(_d(v), dtype=t._data.dtype) for v in (a, b))  # a number: in the tensor's dtype
        with _quiet(t):
            out = x * getattr(xp, cls.log)(y)
        return xp.where((x == 0) & ~xp.isnan(y), 0, out).astype(out.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, grad):
        saved = list(ctx.saved_tensors)
        a, b = (saved.pop(0) if n is None else n for n in ctx.numbers)
        ga = None
        if ctx.needs_input_grad[0]:  # log(b + shift), and 0 where a is 0 at or past the pole (PyTorch's formula)
            ga = cls.outer(grad, b)
            if hasattr(b, "_data"):
                ga = ga.masked_fill((a == 0) & (b <= -cls.shift), 0.0)
            elif b <= -cls.shift:
                ga = ga.masked_fill(a == 0, 0.0)
        gb = grad * a / (b + cls.shift if cls.shift else b) if ctx.needs_input_grad[1] else None
        return ga, gb


class XlogyScalarSelf(Xlogy):
    _node_name = "XlogyBackward1"  # xlogy(number, tensor)


class XlogyScalarOther(Xlogy):
    _node_name = "XlogyBackward2"  # xlogy(tensor, number)


class Copysign(Primitive):
    _node_name = "CopysignBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a)
        return _xp(a, b).copysign(_d(a), _d(b))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors  # d|a| sign(b) / da: 0 where a is 0, as PyTorch
        return grad * where(a == 0, 0.0, ctx.saved_output / where(a == 0, 1.0, a)), zeros_like_grad(grad)


class CopysignScalar(Copysign):
    _node_name = "CopysignBackward1"


class Fmax(Primitive):
    """maximum that skips NaN; a tie sends the whole gradient to the first operand."""
    _node_name = "FmaxBackward0"
    pack_order = (1, 0)  # PyTorch saves `other` before `self`: saved_tensors_hooks see that order
    first = staticmethod(lambda a, b: a >= b)

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        # written out, as PyTorch's: the first operand on a tie (fmax(-0., 0.) is -0.), the other one's NaN skipped
        xp, x, y = a._device.xp, a._data, b._data
        keep = cls.first(x, y) | xp.isnan(y) if x.dtype.kind == "f" else cls.first(x, y)
        return xp.where(keep, x, y)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx.saved_tensors
        to_a = cls.first(a, b) | b.isnan()
        return where(to_a, grad, 0.0), where(to_a, 0.0, grad)


class Fmin(Fmax):
    _node_name = "FminBackward0"
    first = staticmethod(lambda a, b: a <= b)


class Heaviside(Primitive):
    """0 below zero, 1 above, `values` at zero. PyTorch has no derivative for it: backward says so."""
    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, b):
        xp, x = a._device.xp, a._data
        return xp.where(x == 0, b._data, (x > 0).astype(x.dtype)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def hypot(input, other):
    _tensors_only("hypot", input, other)
    common.shapes_first("hypot", input, other)
    _floats_only("hypot", common.result_dtype(input, other))
    return binary(Hypot, input, other, "hypot")


def xlogy(input, other):
    T = common.tensor_cls()
    if not isinstance(input, T) and not isinstance(other, T):
        raise TypeError("xlogy(): expected at least one Tensor argument")
    cls = (Xlogy if isinstance(input, T) and isinstance(other, T) else XlogyScalarOther if isinstance(input, T)
           else XlogyScalarSelf)
    return binary(cls, input, other, "xlogy", floating=True)


def copysign(input, other):
    _tensors_only("copysign", input)
    return binary(Copysign if isinstance(other, common.tensor_cls()) else CopysignScalar, input, other, "copysign",
                  floating=True)


def fmax(input, other):
    _tensors_only("fmax", input, other)
    return binary(Fmax, input, other, "fmax")


def fmin(input, other):
    _tensors_only("fmin", input, other)
    return binary(Fmin, input, other, "fmin")


def heaviside(input, values):
    _tensors_only("heaviside", input, values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    common.same_device("heaviside", input, values)
    common.broadcast_shapes(input.shape, values.shape, op="heaviside")
    return Heaviside.apply(input, values)


def signbit(input):
    x = input._data
    out = input._device.xp.signbit(x) if x.dtype.kind == "f" else (x < 0)
    return common.tensor_cls()._make(out, input._device)


def positive(input):
    if input.dtype is _dtype.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- reductions ------------------------------------------------------------------------------

class NanSum(Primitive):
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dtype):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        x = a._data
        with _quiet(a):  # (NumPy's nansum is Python code: its warnings would name NumPy, not minitorch)
            return a._device.xp.nansum(x, axis=dims, keepdims=keepdim, dtype=dtype.np) if x.dtype.kind == "f" \
                else x.sum(axis=dims, keepdims=keepdim, dtype=dtype.np)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (_expand_back(grad, ctx) * a.isnan().logical_not(),)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dims = common.wrap_dims(None if dim.__class__ in (list, tuple) and not dim else dim, input.ndim, "nansum")
    return NanSum.apply(input, dims=dims, keepdim=keepdim, dtype=_reduce_dtype(input, dtype))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype._short}")
    return nansum(input, dim, keepdim) / (~input.isnan()).sum(dim, keepdim)


class AMinMax(MultiOutputPrimitive):
    """(amin, amax) in one node; ties share each gradient evenly, as amin and amax do."""
    _node_name = "AminmaxBackward0"
    saved_outputs = (0, 1)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim):
        ctx.save_for_backward(a)
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        lo, hi = a._data.min(axis=dims, keepdims=keepdim), a._data.max(axis=dims, keepdims=keepdim)
        ctx.lo, ctx.hi = lo, hi
        return lo, hi

    @staticmethod
    def backward(ctx, g_lo, g_hi):
        (a,) = ctx.saved_tensors
        check_saved_outputs(ctx)
        make = type(a)._make
        total = 0
        for g, ext in ((g_lo, ctx.lo), (g_hi, ctx.hi)):
            mask = a == _expand_back(make(ext, a._device), ctx)
            total = total + _expand_back(g, ctx) * mask / mask.sum(dim=ctx.dims, keepdim=True)
        return (total,)


def aminmax(input, *, dim=None, keepdim=False):
    dims = common.wrap_dims(dim, input.ndim, "aminmax")
    if dim is not None and input.ndim and input.shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None and keepdim:
        dims = tuple(range(input.ndim))
    lo, hi = AMinMax.apply(input, dims=dims, keepdim=keepdim)
    return return_types.aminmax(lo, hi)


class CumMax(MultiOutputPrimitive):
    """Running max along a dim: (values, indices of the latest max; a NaN, once seen, stays)."""
    _node_name = "CummaxBackward0"
    saved_outputs = (1,)
    better = staticmethod(lambda x, best: x >= best)

    @classmethod
    def forward(cls, ctx, a, *, dim):
        xp, x = a._device.xp, a._data
        xm = xp.moveaxis(x, dim, 0) if x.ndim else x.reshape(1)
        vals, idx = xp.empty_like(xm), xp.zeros(xm.shape, dtype="int64")
        with _quiet(a):
            for i in range(xm.shape[0]):
                if i == 0:
                    vals[0] = xm[0]
                    continue
                prev = vals[i - 1]
                take = xp.isnan(xm[i]) | (~xp.isnan(prev) & cls.better(xm[i], prev)) if x.dtype.kind == "f" \
                    else cls.better(xm[i], prev)
                vals[i] = xp.where(take, xm[i], prev)
                idx[i] = xp.where(take, i, idx[i - 1])
        # both results row-major, whatever the input's layout (PyTorch's)
        back = (lambda t: common.row_major(xp.moveaxis(t, 0, dim), xp)) if x.ndim else (lambda t: t.reshape(()))
        idx = back(idx)
        ctx.dim, ctx.shape, ctx.idx = dim, a.shape, idx
        return back(vals), idx

    @staticmethod
    def backward(ctx, grad, _):
        check_saved_outputs(ctx)
        idx = type(grad)._make(ctx.idx, grad._device)
        if not grad.ndim:
            return (grad,)
        return (grad.new_zeros(ctx.shape).scatter_add(ctx.dim, idx, grad),)


class CumMin(CumMax):
    _node_name = "CumminBackward0"
    better = staticmethod(lambda x, best: x <= best)


def _cum_pair(cls, op):
    values_indices = getattr(return_types, op)

    def f(input, dim):
        # (PyTorch checks no dim for an empty tensor: there is nothing to run along)
        if input.ndim == 0 and dim not in (0, -1):
            raise IndexError(f"{op}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        d = common.wrap_dim(dim, input.ndim, op) if input.numel() else 0
        return values_indices(*cls.apply(input, dim=d))
    f.__name__ = f.__qualname__ = op
    return f


cummax, cummin = _cum_pair(CumMax, "cummax"), _cum_pair(CumMin, "cummin")


class LogCumSumExp(Primitive):
    _node_name = "LogcumsumexpBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        xp = a._device.xp
        if a.ndim == 0:  # one element: its own log-sum-exp
            return a._data.copy()
        out = xp.moveaxis(a._data.copy(), dim, 0)  # a running logaddexp (CuPy has no ufunc.accumulate)
        with _quiet(a):
            for i in range(1, out.shape[0]):
                out[i] = xp.logaddexp(out[i - 1], out[i])
        return xp.ascontiguousarray(xp.moveaxis(out, 0, dim))

    @staticmethod
    def backward(ctx, grad):
        # d out_i / d x_j = exp(x_j - out_i) for j <= i: an n x n table along the dim (no overflow:
        # out_i >= x_j there)
        (a,) = ctx.saved_tensors
        if a.ndim == 0:
            return (grad,)
        x, out, g = a.movedim(ctx.dim, -1), ctx.saved_output.movedim(ctx.dim, -1), grad.movedim(ctx.dim, -1)
        n = x.shape[-1]
        lower = type(a)._make(a._device.xp.tri(n, dtype=bool), a._device)  # [i, j]: j <= i
        w = where(lower, (x.unsqueeze(-2) - out.unsqueeze(-1)).exp(), 0.0)
        return ((g.unsqueeze(-1) * w).sum(-2).movedim(-1, ctx.dim),)


def logcumsumexp(input, dim):
    d = common.wrap_dim(dim, input.ndim, "logcumsumexp")
    _floats_only("logcumsumexp_out", input.dtype)
    return LogCumSumExp.apply(input, dim=d)


# ---- products ------------------------------------------------------------------------------

def _same_dtype(a, b, msg="both inputs should have same dtype"):
    if a.dtype is not b.dtype:
        raise RuntimeError(msg)


def vdot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    _same_dtype(input, other, f"dot : expected both vectors to have same dtype, but found {input.dtype._short} and "
                      f"{other.dtype._short}")
    if input.shape != other.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    common.same_device("vdot", input, other)
    return Vdot.apply(input, other)


def _vdot_cls():
    from .linalg import Dot
    return type("Vdot", (Dot,), {"_node_name": "VdotBackward0", "__module__": __name__})


Vdot = _vdot_cls()


def tensordot(a, b, dims=2, out=None):
    """Contract `dims` trailing dims of a with leading dims of b (or the listed pairs): one matmul."""
    T = common.tensor_cls()
    if out is not None:
        raise NotImplementedError("tensordot(out=...) is not implemented in minitorch: assign the result")
    _same_dtype(a, b)
    if isinstance(dims, T):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims} (the tensors are "
                               f"{a.ndim}-D and {b.ndim}-D)")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    da = [common.wrap_dim(d, a.ndim, "tensordot") for d in da]
    db = [common.wrap_dim(d, b.ndim, "tensordot") for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j] and 1 in (a.shape[i], b.shape[j]):  # a size-1 dim broadcasts, as in PyTorch
            if a.shape[i] == 1:
                a = a.expand(*(b.shape[j] if d == i else -1 for d in range(a.ndim)))
            else:
                b = b.expand(*(a.shape[i] if d == j else -1 for d in range(b.ndim)))
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} in dim {i} and "
                               f"second has size {b.shape[j]} in dim {j}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    if not free_a and not free_b:  # every dim contracted: PyTorch's dot of the two flattened
        from .linalg import dot
        return dot(a.permute(da).flatten(), b.permute(db).flatten()).reshape(())
    k = math.prod(a.shape[d] for d in da)  # (sizes, not -1: a size-0 dim leaves -1 undecided)
    a2 = a.permute(free_a + da).reshape(math.prod(a.shape[d] for d in free_a), k)
    b2 = b.permute(db + free_b).reshape(k, math.prod(b.shape[d] for d in free_b))
    return (a2 @ b2).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def inner(input, other, *, out=None):
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    _same_dtype(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]), out=out)


def kron(input, other):
    """PyTorch's composition: a viewed as (a0, 1, a1, 1, ...) times b viewed as (1, b0, 1, b1, ...),
    the product viewed as (a0 * b0, a1 * b1, ...). So the result's layout (and the error when the
    product's layout can't be viewed so, as for some transposed inputs) is that of the product."""
    from .views import unsafe_view
    common.result_dtype(input, other)  # (its checks)
    common.same_device("kron", input, other)
    n = max(input.ndim, other.ndim)
    sa, sb = (1,) * (n - input.ndim) + tuple(input.shape), (1,) * (n - other.ndim) + tuple(other.shape)
    product = unsafe_view(input, [x for s in sa for x in (s, 1)]) * unsafe_view(other, [x for s in sb for x in (1, s)])
    return unsafe_view(product, [x * y for x, y in zip(sa, sb)])


class Cross(Primitive):
    _node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, *, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        return a._device.xp.cross(a._data, b._data, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return cross(b, grad, dim=ctx.dim), cross(grad, a, dim=ctx.dim)


def cross(input, other, dim=None):
    common.same_device("cross", input, other)
    shape = common.broadcast_shapes(input.shape, other.shape, op="cross")
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. (cross got {input.ndim}-D "
                           f"and {other.ndim}-D: unsqueeze one)")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions (cross takes vectors of 3)")
    d = common.wrap_dim(dim, len(shape), "cross")
    size = [t.shape[d - len(shape)] if t.ndim >= len(shape) - d else 1 for t in (input, other)]
    if size != [3, 3]:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {size[0]} and {size[1]}")
    if input.dtype is _dtype.bool:  # (after the shape checks, as PyTorch's kernel; NumPy would subtract bools)
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._short} but found {other.dtype._short}")
    return Cross.apply(input.expand(shape) if input.shape != shape else input,
                       other.expand(shape) if other.shape != shape else other, dim=d)


# ---- shapes ----------------------------------------------------------------------------------

def _seq(tensors):
    return tuple(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors


def _atleast(n):
    def f(*tensors):
        ts = _seq(tensors)
        out = tuple(_lift(t, n) for t in ts)
        return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out
    f.__name__ = f.__qualname__ = f"atleast_{n}d"
    return f


def _lift(t, n):
    if t.ndim >= n:
        return t
    if t.ndim == 0:
        t = t.reshape(1)
        return t if n == 1 else t.reshape(1, 1) if n == 2 else t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0) if n == 2 else t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1)  # 2-D to 3-D


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def dstack(tensors):
    from .join import cat
    return cat([_lift(t, 3) for t in tensors], 2)


def column_stack(tensors):
    from .join import cat
    return cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)


def tensor_split(input, sections=None, dim=0, *, indices=None, tensor_indices_or_sections=None):  # noqa: A002
    """Split into `sections` parts, or at `indices`, or at what a tensor holds: PyTorch's three overloads, their
    argument named after each (by position, any of them)."""
    a, ios = input, _sections(sections, indices, tensor_indices_or_sections)
    T = common.tensor_cls()
    if a.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = common.wrap_dim(dim, a.ndim, "tensor_split")
    n = a.shape[d]
    if isinstance(ios, T):
        ios = ios.tolist()
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        size, extra = divmod(n, ios)
        bounds, start = [], 0
        for i in range(ios):
            stop = start + size + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [0] + list(ios) + [n]
        bounds = [(min(max(lo, 0), n), min(max(hi, lo, 0), n)) for lo, hi in zip(cuts, cuts[1:])]
    lead = (slice(None),) * d
    return tuple(a[lead + (slice(lo, hi),)] for lo, hi in bounds)


def _split_along(name, a, indices_or_sections, need):
    """hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-D), 0 or 2; a number of sections
    must divide the dim evenly."""
    if a.ndim < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor with "
                           f"{a.ndim} dimensions!")
    dim = {"hsplit": 1 if a.ndim > 1 else 0, "vsplit": 0, "dsplit": 2}[name]
    ios = indices_or_sections
    if isinstance(ios, int) and ios >= 0 and (ios == 0 or a.shape[dim] % ios):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{a.shape[dim]} is not divisible by the split_size {ios}!")
    return tensor_split(a, ios, dim)


def _sections(sections, indices, tensor_indices_or_sections=None):
    return (sections if sections is not None else indices if indices is not None else
            tensor_indices_or_sections)


def hsplit(input, sections=None, *, indices=None):  # noqa: A002  (PyTorch's two overloads, as tensor_split's)
    return _split_along("hsplit", input, _sections(sections, indices), 1)


def vsplit(input, sections=None, *, indices=None):  # noqa: A002
    return _split_along("vsplit", input, _sections(sections, indices), 2)


def dsplit(input, sections=None, *, indices=None):  # noqa: A002
    return _split_along("dsplit", input, _sections(sections, indices), 3)


def cartesian_prod(*tensors):
    from .join import stack
    from .shape_ops import meshgrid
    ts = _seq(tensors)
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.flatten() for g in grids], dim=1)


class Rot90(Primitive):
    _node_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, a, *, k, dims):
        ctx.k, ctx.dims = k, dims
        # PyTorch's layout: a flipped copy (laid out like a, as flip's), then transposed; k=0 a row-major copy
        xp, x, (d0, d1) = a._device.xp, a._data, dims
        if k in (1, 3):
            return preserved(a, xp.flip(x, axis=d1 if k == 1 else d0).copy()).swapaxes(d0, d1)
        return preserved(a, xp.flip(x, axis=dims).copy()) if k == 2 else x.copy()

    @staticmethod
    def backward(ctx, grad):
        return (rot90(grad, -ctx.k, ctx.dims),)


def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (common.wrap_dim(d, input.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return Rot90.apply(input, k=k % 4, dims=(d0, d1))


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    from .._factories import tensor
    return tensor(s, dtype=dtype or _dtype.get_default_dtype(), device=device, requires_grad=requires_grad)


__all__ = ["aminmax", "atleast_1d", "atleast_2d", "atleast_3d", "cartesian_prod", "column_stack", "copysign",
           "cross", "cummax", "cummin", "dstack", "fliplr", "flipud", "fmax", "fmin", "heaviside", "hypot", "inner",
           "kron", "logcumsumexp", "nanmean", "nansum", "positive", "rot90", "scalar_tensor", "signbit",
           "tensor_split", "tensordot", "vdot", "xlogy"]
