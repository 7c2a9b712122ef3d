"""The out-of-place twins of writing through a view: select_scatter, slice_scatter,
diagonal_scatter and as_strided_scatter return a copy of the input with `src` written where the
view (select, slice, diagonal, as_strided) would look. Beside them: empty_strided, histogramdd and
index_reduce.

Each scatter is one primitive. Its forward copies the input and writes src through the view of
the copy; its backward is the same pair read the other way: the input's gradient is the incoming
one with the view's part zeroed (the same scatter, of zeros), src's is the view of it.
"""
from __future__ import annotations

import math
import warnings

from .. import _dtype
from . import common
from ._prim import Primitive
from .index import Gather, index_add_flat
from .scatter import ScatterAdd, ScatterReduce, ScatterValue


class _ViewScatter(Primitive):
    """A copy of `a` with src written into view(copy)."""

    @staticmethod
    def view(t, **kw):
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, a, src, **kw):
        ctx.kw, ctx.src_dtype = kw, src.dtype
        out = common.tensor_cls()._make(a._data.copy(), a._device)  # a fresh row-major buffer
        cls.view(out, **kw)._data[...] = src._data
        return out._data

    @classmethod
    def backward(cls, ctx, grad):
        ga = gs = None
        if ctx.needs_input_grad[0]:
            ga = cls.apply(grad, grad.new_zeros(cls.view(grad.detach(), **ctx.kw).shape), **ctx.kw)
        if ctx.needs_input_grad[1]:
            gs = cls.view(grad, **ctx.kw).to(ctx.src_dtype)
        return ga, gs


class SelectScatter(_ViewScatter):
    _node_name = "SelectScatterBackward0"

    @staticmethod
    def view(t, *, dim, index):
        return t.select(dim, index)


class SliceScatter(_ViewScatter):
    _node_name = "SliceScatterBackward0"

    @staticmethod
    def view(t, *, dim, start, end, step):
        return t[(slice(None),) * dim + (slice(start, end, step),)]


class DiagonalScatter(_ViewScatter):
    _node_name = "DiagonalScatterBackward0"

    @staticmethod
    def view(t, *, offset, dim1, dim2):
        return t.diagonal(offset, dim1, dim2)


class AsStridedScatter(_ViewScatter):
    _node_name = "AsStridedScatterBackward0"

    @staticmethod
    def view(t, *, size, stride, storage_offset):
        # (the positions are those of a row-major buffer: the gradient is made one first)
        return t.contiguous().as_strided(size, stride, storage_offset)


def _scatter(cls, op, a, src, **kw):
    T = common.tensor_cls()
    if not isinstance(src, T):
        raise TypeError(f"{op}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    common.same_device(op, a, src)
    slot = cls.view(a.detach(), **kw)  # the view's own checks (dims, index range, sizes)
    if tuple(slot.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(slot.shape)}")
    return cls.apply(a, src, **kw)


def select_scatter(input, src, dim, index):  # noqa: A002
    """input with src written at input.select(dim, index)."""
    dim = common.wrap_dim(dim, input.ndim, "select_scatter")
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension "
                         f"{dim}")
    return _scatter(SelectScatter, "select_scatter", input, src, dim=dim, index=index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """input with src written at input[..., start:end:step, ...] (the slice along dim)."""
    dim = common.wrap_dim(dim, input.ndim, "slice_scatter")
    return _scatter(SliceScatter, "slice_scatter", input, src, dim=dim, start=start, end=end, step=step)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """input with src written on its diagonal (input.diagonal(offset, dim1, dim2))."""
    return _scatter(DiagonalScatter, "diagonal_scatter", input, src, offset=offset, dim1=dim1, dim2=dim2)


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    """input with src written where input.as_strided(size, stride, storage_offset) looks."""
    return _scatter(AsStridedScatter, "as_strided_scatter", input, src, size=tuple(size), stride=tuple(stride),
                    storage_offset=0 if storage_offset is None else int(storage_offset))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of the given size and strides over a buffer just large enough for them (zeros here:
    PyTorch's memory is uninitialized, so no program may rely on its contents)."""
    from .._factories import _size, _size_sequence, int_list
    size = _size((_size_sequence(size, "empty_strided"),), "empty_strided")
    stride = int_list((stride,), "empty_strided", "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    from .._factories import zeros
    need = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buf = zeros(need, dtype=dtype, device=device)
    xp, a = buf._device.xp, buf._data
    view = xp.lib.stride_tricks.as_strided(a, size, tuple(s * a.itemsize for s in stride))
    out = common.tensor_cls()._make(view, buf._device)
    return out.requires_grad_() if requires_grad else out


# ---- histogramdd ------------------------------------------------------------------------

def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """The D-dimensional histogram of the points in input's last dim: per dim, `bins` equal bins over
    `range` (default: the data's min to max) or the given edges; a point on an inner edge falls in
    the bin to its right, one on the last edge in the last bin, one outside every range in none."""
    from .. import return_types
    from .._factories import linspace
    T = common.tensor_cls()
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype._short}'")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    D = input.shape[-1]
    xp = input._device.xp
    pts = input._data.reshape(-1, D)
    if isinstance(bins, int):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} elements, "
                           f"but got {len(range)}")
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, T):
            edges.append(b)
            continue
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
        elif pts.shape[0]:
            lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:  # a single value: a unit-wide range around it
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(linspace(lo, hi, int(b) + 1, dtype=input.dtype, device=input.device))
    shape = tuple(e.shape[0] - 1 for e in edges)
    keep = xp.ones(pts.shape[0], dtype=bool)
    flat = xp.zeros(pts.shape[0], dtype=xp.int64)
    for d, e in enumerate(edges):
        ed, x = e._data, pts[:, d]
        pos = xp.searchsorted(ed, x, side="right") - 1
        pos = xp.where(x == ed[-1], shape[d] - 1, pos)
        keep &= (x >= ed[0]) & (x <= ed[-1])
        flat = flat * shape[d] + xp.clip(pos, 0, max(shape[d] - 1, 0))
    w = xp.ones(pts.shape[0], dtype=pts.dtype) if weight is None else weight._data.reshape(-1).astype(pts.dtype)
    hist = xp.zeros(math.prod(shape), dtype=pts.dtype)
    index_add_flat(xp, hist, flat[keep], w[keep])
    hist = hist.reshape(shape)
    if density:
        total = hist.sum()
        for d, e in enumerate(edges):
            widths = xp.diff(e._data).reshape((1,) * d + (-1,) + (1,) * (D - d - 1))
            hist = hist / widths
        hist = hist / total
    hist_t = T._make(hist.astype(pts.dtype), input._device)
    named = getattr(return_types, "histogramdd", None) or return_types._return_type("histogramdd",
                                                                                     ("hist", "bin_edges"))
    return named(hist_t, tuple(edges))


# ---- index_reduce -----------------------------------------------------------------------

class IndexReduce(ScatterReduce):
    """self with each slice source[i] (along dim) combined into self[index[i]] by prod, mean,
    amax or amin: scatter_reduce with the index spread over source's other dims. The gradient is
    scatter_reduce's, and for prod PyTorch's, which zeros do not break: each factor's gradient is
    the product of the others, out / x where x is not 0, else the product with x replaced by 1
    (0 where another factor is 0 too)."""
    _node_name = "IndexReduceBackward0"

    @staticmethod
    def backward(ctx, grad):
        if ctx.reduce != "prod":
            return ScatterReduce.backward(ctx, grad)
        a, src = ctx.saved_tensors
        out, inc = ctx.saved_output, ctx.include_self
        kw = dict(dim=ctx.dim, index=ctx.index)
        if inc:
            a1 = a.masked_fill(a == 0, 1)
            ga = grad * IndexReduce.apply(a1, src, reduce="prod", include_self=True, **kw) / a1
        else:  # the positions src was sent to do not depend on self
            ga = ScatterValue.apply(grad, 0, **kw)
        zero = src == 0
        zeros_there = Gather.apply(ScatterAdd.apply(a * 0, zero.to(a.dtype), **kw), **kw)
        single = zero & (zeros_there == 1)
        others = IndexReduce.apply(a, src.masked_fill(single, 1), reduce="prod", include_self=inc, **kw)
        gs = Gather.apply(grad * others, **kw).where(single, Gather.apply(grad * out, **kw) / src.masked_fill(zero, 1))
        return ga, gs


def _index_reduce_args(a, dim, index, source, reduce, op):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    d = common.wrap_dim(dim, max(a.ndim, 1), op)
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype._short}")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if a.dtype is not source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({a.dtype._short}) and source ({source.dtype._short}) must have "
                           "the same scalar type")
    n = index.numel()
    src_n = source.shape[d] if source.ndim else 1
    if n != src_n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({src_n}), for dim: {d}")
    xp = a._device.xp
    idx = index._data.reshape(-1).astype(xp.int64)
    size = a.shape[d] if a.ndim else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    idx = xp.where(idx < 0, idx + size, idx)
    shape = [1] * max(source.ndim, 1)
    shape[d] = -1
    full = xp.broadcast_to(idx.reshape(shape), source.shape or (1,))
    return d, xp.ascontiguousarray(full)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    d, full = _index_reduce_args(input, dim, index, source, reduce, "index_reduce")
    return IndexReduce.apply(input, source, dim=d, index=full, reduce=reduce, include_self=bool(include_self))


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    from . import inplace
    from .inplace_prim import write_inplace
    inplace.check_inplace(self, "index_reduce_")
    d, full = _index_reduce_args(self, dim, index, source, reduce, "index_reduce_")
    return write_inplace(self, IndexReduce, (source,), dict(dim=d, index=full, reduce=reduce,
                                                             include_self=bool(include_self)), "index_reduce_")


INPLACE = {"index_reduce_": index_reduce_}
