"""Writing by index: the scatter family, index_add / index_fill / index_copy / index_put,
masked_select / masked_scatter, take / put, index_select and take_along_dim.

Every op here is out of place (a new tensor); the in-place methods (`scatter_`, `index_add_`,
...) run the same primitive through the in-place machinery of inplace.py, so autograd sees
them as PyTorch does. Backward formulas are written with these same ops (a scatter's
gradient is a gather, an index_add's is an index_select), so second derivatives work.
"""
from __future__ import annotations

import warnings

from .. import _dtype
from ..autograd.grad_mode import STATE
from . import common
from ._prim import Primitive
from .inplace_prim import write_inplace
from .index import Gather, IndexPutInto, _convert_key, check_alive, index_add_flat


# ---- array helpers ---------------------------------------------------------------------

_CUPY_AT_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")


def _ufunc_at(xp, name, buf, idx, vals):
    """buf[idx] op= vals for a flat buf, repeated indices combining: NumPy's ufunc.at. CuPy runs
    .at for add, maximum and minimum only; a product is then taken in passes, the k-th
    occurrence of every index in pass k, so that no pass writes one place twice."""
    if name == "add":
        return index_add_flat(xp, buf, idx, vals)
    ufunc = getattr(xp, name)
    if name != "multiply" and xp.__name__ != "numpy" and buf.dtype.name not in _CUPY_AT_TYPES:
        # CuPy's maximum.at / minimum.at run on 32- and 64-bit types only; a wider type holds
        # every value of a narrower one exactly, so the max is taken there and written back
        wide = "float32" if buf.dtype.kind == "f" else "int32"
        tmp = buf.astype(wide)
        ufunc.at(tmp, idx, vals.astype(wide))
        buf[...] = tmp.astype(buf.dtype)
        return None
    if name != "multiply" or xp.__name__ == "numpy":
        return ufunc.at(buf, idx, vals)
    order = xp.argsort(idx, kind="stable")
    s = idx[order]
    rank = xp.arange(s.size) - xp.searchsorted(s, s, side="left")  # occurrence number of each index
    for k in range(int(rank.max()) + 1 if rank.size else 0):
        pick = order[rank == k]
        buf[idx[pick]] = ufunc(buf[idx[pick]], vals[pick])


def _check_range(xp, idx, size, dim):
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _scatter_positions(xp, index, dim, shape):
    """Flat positions, in a row-major array of `shape`, of every entry of a scatter index: along
    `dim` the index's value, along every other dim the entry's own coordinate."""
    pos, stride, k = 0, 1, index.ndim
    for d in range(k - 1, -1, -1):
        coord = index if d == dim else xp.arange(index.shape[d]).reshape((1,) * d + (-1,) + (1,) * (k - d - 1))
        pos = pos + coord * stride
        stride *= shape[d]
    return xp.broadcast_to(xp.asarray(pos), index.shape).reshape(-1)


def _src_region(src, index):
    """The part of src a scatter reads: its leading corner the shape of index."""
    return src[tuple(slice(0, n) for n in index.shape)]


def _pad_to(g, shape):
    """g placed in the leading corner of zeros(shape) (the gradient of _src_region)."""
    if tuple(g.shape) == tuple(shape):
        return g
    return IndexPutInto.apply(g, key=tuple(slice(0, n) for n in g.shape), shape=tuple(shape), accumulate=False)


# ---- scatter --------------------------------------------------------------------------

_REDUCE_UFUNC = {"sum": "add", "add": "add", "prod": "multiply", "multiply": "multiply",
                 "amax": "maximum", "amin": "minimum", "mean": "add"}


class Scatter(Primitive):
    """out = a, with out[index[i][j]][j] = src[i][j] (dim 0), the src elements where index says."""
    _node_name = "ScatterBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        xp = a._device.xp
        out = a._data.copy()
        pos = _scatter_positions(xp, index, dim, out.shape)
        out.reshape(-1)[pos] = _src_region(src._data, index).reshape(-1)
        return out

    @staticmethod
    def backward(ctx, grad):
        ga = ScatterValue.apply(grad, 0, dim=ctx.dim, index=ctx.index) if ctx.needs_input_grad[0] else None
        gs = _pad_to(Gather.apply(grad, dim=ctx.dim, index=ctx.index), ctx.src_shape) \
            if ctx.needs_input_grad[1] else None
        return ga, gs


class ScatterValue(Primitive):
    _node_name = "ScatterBackward1"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value, *, dim, index):
        ctx.dim, ctx.index = dim, index
        out = a._data.copy()
        out.reshape(-1)[_scatter_positions(a._device.xp, index, dim, out.shape)] = getattr(value, "_data", value)
        return out

    @staticmethod
    def backward(ctx, grad):
        return ScatterValue.apply(grad, 0, dim=ctx.dim, index=ctx.index), None


class ScatterAdd(Primitive):
    _node_name = "ScatterAddBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        xp = a._device.xp
        out = a._data.copy()
        index_add_flat(xp, out.reshape(-1), _scatter_positions(xp, index, dim, out.shape),
                       _src_region(src._data, index).reshape(-1))
        return out

    @staticmethod
    def backward(ctx, grad):
        gs = _pad_to(Gather.apply(grad, dim=ctx.dim, index=ctx.index), ctx.src_shape) \
            if ctx.needs_input_grad[1] else None
        return grad, gs


class ScatterReduce(Primitive):
    """scatter_reduce: every position combines the src elements sent to it (and, with
    include_self, its own value) by sum, prod, mean, amax or amin."""
    _node_name = "ScatterReduceBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx, a, src, *, dim, index, reduce, include_self):
        ctx.save_for_backward(a, src)
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        xp = a._device.xp
        out = a._data.copy()
        flat = out.reshape(-1)
        pos = _scatter_positions(xp, index, dim, out.shape)
        vals = _src_region(src._data, index).reshape(-1)
        if not include_self:  # positions that receive something start from the op's identity
            flat[pos] = _identity(xp, reduce, out.dtype)
        _ufunc_at(xp, _REDUCE_UFUNC[reduce], flat, pos, vals)
        if reduce == "mean":
            count = xp.zeros(flat.shape, dtype=out.dtype) + (1 if include_self else 0)
            index_add_flat(xp, count, pos, xp.ones(pos.shape, dtype=out.dtype))
            count = xp.maximum(count, 1)
            flat[...] = flat // count if out.dtype.kind in "iub" else flat / count
        return out

    @staticmethod
    def backward(ctx, grad):
        a, src = ctx.saved_tensors
        out = ctx.saved_output
        dim, index, reduce = ctx.dim, ctx.index, ctx.reduce
        T = common.tensor_cls()
        srcr = src[tuple(slice(0, n) for n in index.shape)]
        if reduce in ("sum", "add"):
            ga = grad if ctx.include_self else ScatterValue.apply(grad, 0, dim=dim, index=index)
            gs = Gather.apply(grad, dim=dim, index=index)
        elif reduce == "mean":
            ones = T._make(a._device.xp.ones(index.shape, dtype=a._data.dtype), a._device)
            count = ScatterAdd.apply(a * 0 + (1 if ctx.include_self else 0), ones, dim=dim, index=index)
            count = count.clamp(min=1)
            ga = grad / count if ctx.include_self else ScatterValue.apply(grad / count, 0, dim=dim, index=index)
            gs = Gather.apply(grad / count, dim=dim, index=index)
        elif reduce in ("amax", "amin"):
            # ties share the gradient evenly, between the input itself and the src elements;
            # without include_self, positions nothing was sent to keep (and pass back) their value
            self_hit = (a == out) if ctx.include_self else a != a
            src_hit = srcr == Gather.apply(out, dim=dim, index=index)
            count = ScatterAdd.apply(self_hit.to(grad.dtype), src_hit.to(grad.dtype), dim=dim, index=index)
            share = grad / count.clamp(min=1)
            ga = share * self_hit if ctx.include_self else ScatterValue.apply(grad, 0, dim=dim, index=index)
            gs = Gather.apply(share, dim=dim, index=index) * src_hit
        else:  # prod: the product of the others is out / x, where x is not 0
            if bool((srcr == 0).any()) or (ctx.include_self and bool((a == 0).any())):
                raise NotImplementedError(
                    "scatter_reduce(reduce='prod') backward is not supported when an input element is 0")
            ga = grad * out / a if ctx.include_self else ScatterValue.apply(grad, 0, dim=dim, index=index)
            gs = Gather.apply(grad * out, dim=dim, index=index) / srcr
        return ga, _pad_to(gs, src.shape)


def _identity(xp, reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


# ---- index_select / index_add / index_fill / index_copy ----------------------------------

def _along(dim, index, ndim):
    """The key that selects `index` along `dim`."""
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


class IndexSelect(Primitive):
    _node_name = "IndexSelectBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, dim, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index
        return a._device.xp.take(a._data, index, axis=dim) if a.ndim else a._data[()].copy().reshape(())

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # the index is saved for backward, as in PyTorch
        return (IndexAddInto.apply(grad, shape=ctx.shape, dim=ctx.dim, index=ctx.index),)


class IndexAddInto(Primitive):
    """zeros(shape) with `src` added in at `index` along dim (index_select's backward)."""
    _node_name = "IndexAddBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, src, *, shape, dim, index):
        ctx.dim, ctx.index = dim, index
        xp = src._device.xp
        z = xp.zeros(shape, dtype=src._data.dtype)
        _index_add_array(xp, z, dim, index, src._data)
        return z

    @staticmethod
    def backward(ctx, grad):
        return (IndexSelect.apply(grad, dim=ctx.dim, index=ctx.index),)


def _index_add_array(xp, out, dim, index, src):
    if out.ndim == 0:
        out[...] += src.reshape(())
        return
    pos = xp.arange(out.size).reshape(out.shape)
    pos = xp.take(pos, index, axis=dim)
    index_add_flat(xp, out.reshape(-1), pos.reshape(-1), src.reshape(-1))


class IndexAdd(Primitive):
    _node_name = "IndexAddBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, dim, index, alpha):
        ctx.dim, ctx.index, ctx.alpha, ctx.src_shape = dim, index, alpha, src.shape
        xp = a._device.xp
        out = a._data.copy()
        s = src._data if alpha == 1 else src._data * alpha
        _index_add_array(xp, out, dim, index, s.astype(out.dtype, copy=False))
        return out

    @staticmethod
    def backward(ctx, grad):
        gs = None
        if ctx.needs_input_grad[1]:
            gs = IndexSelect.apply(grad, dim=ctx.dim, index=ctx.index)
            gs = (gs * ctx.alpha if ctx.alpha != 1 else gs).reshape(ctx.src_shape)
        return grad, gs


class IndexFill(Primitive):
    _node_name = "IndexFillBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value, *, dim, index):
        ctx.dim, ctx.index = dim, index
        out = a._data.copy()
        out[_along(dim, index, out.ndim) if out.ndim else ()] = getattr(value, "_data", value)
        return out

    @staticmethod
    def backward(ctx, grad):
        ga = IndexFill.apply(grad, 0, dim=ctx.dim, index=ctx.index)
        gv = None
        if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1]:
            xp = grad._device.xp
            unique = xp.unique(ctx.index)  # a repeated index fills its slot once
            gv = IndexSelect.apply(grad, dim=ctx.dim, index=unique).sum()
        return ga, gv


class IndexFillTensor(IndexFill):
    _node_name = "IndexFillBackward1"


class IndexCopy(Primitive):
    _node_name = "IndexCopyBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        out = a._data.copy()
        out[_along(dim, index, out.ndim) if out.ndim else ()] = src._data
        return out

    @staticmethod
    def backward(ctx, grad):
        ga = IndexFill.apply(grad, 0, dim=ctx.dim, index=ctx.index) if ctx.needs_input_grad[0] else None
        gs = IndexSelect.apply(grad, dim=ctx.dim, index=ctx.index).reshape(ctx.src_shape) \
            if ctx.needs_input_grad[1] else None
        return ga, gs


class IndexPutAccumulate(Primitive):
    """a with values added in at key (repeated indices add up): index_put(accumulate=True)."""
    _node_name = "IndexPutBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, v, *, key):
        ctx.key = key
        xp = a._device.xp
        out = a._data.copy()
        pos = xp.arange(out.size).reshape(out.shape)[key]
        index_add_flat(xp, out.reshape(-1), pos.reshape(-1), xp.broadcast_to(v._data, pos.shape).reshape(-1))
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, grad[ctx.key]


# ---- masked_select / masked_scatter / take / put -----------------------------------------

class MaskedSelect(Primitive):
    _node_name = "MaskedSelectBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, mask):
        xp = a._device.xp
        shape = tuple(common.broadcast_shapes(a.shape, mask.shape, op="masked_select"))
        m = xp.broadcast_to(mask, shape)
        ctx.shape, ctx.mask = shape, m
        return xp.broadcast_to(a._data, shape)[m]

    @staticmethod
    def backward(ctx, grad):
        return (IndexPutInto.apply(grad, key=(ctx.mask,), shape=ctx.shape, accumulate=False),)


class MaskedScatter(Primitive):
    _node_name = "MaskedScatterBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, mask):
        xp = a._device.xp
        m = xp.broadcast_to(mask, a.shape)
        n = int(m.sum())
        if n > src.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.mask, ctx.n, ctx.src_shape = m, n, src.shape
        out = a._data.copy()
        out[m] = src._data.reshape(-1)[:n]
        return out

    @staticmethod
    def backward(ctx, grad):
        from .index import masked_fill
        T = common.tensor_cls()
        mask = T._make(ctx.mask, grad._device)
        ga = masked_fill(grad, mask, 0.0) if ctx.needs_input_grad[0] else None
        gs = None
        if ctx.needs_input_grad[1]:
            picked = grad[mask]
            size = 1
            for s in ctx.src_shape:
                size *= s
            gs = IndexPutInto.apply(picked, key=(slice(0, ctx.n),), shape=(size,), accumulate=False)
            gs = gs.reshape(ctx.src_shape)
        return ga, gs


class Take(Primitive):
    _node_name = "TakeBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, index):
        ctx.shape, ctx.index = a.shape, index
        return a._data.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        n = 1
        for s in ctx.shape:
            n *= s
        flat = IndexPutInto.apply(grad, key=(ctx.index,), shape=(n,), accumulate=True)
        return (flat.reshape(ctx.shape),)


class Put(Primitive):
    _node_name = "PutBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, index, accumulate):
        ctx.index, ctx.accumulate, ctx.src_shape = index, accumulate, src.shape
        xp = a._device.xp
        out = a._data.copy()
        flat = out.reshape(-1)
        vals = src._data.reshape(-1)
        if accumulate:
            index_add_flat(xp, flat, index.reshape(-1), vals)
        else:
            flat[index.reshape(-1)] = vals
        return out

    @staticmethod
    def backward(ctx, grad):
        T = common.tensor_cls()
        ga = gs = None
        if ctx.needs_input_grad[0]:
            if ctx.accumulate:
                ga = grad
            else:
                zeros = T._make(grad._device.xp.zeros(ctx.src_shape, dtype=grad._data.dtype), grad._device)
                ga = Put.apply(grad, zeros, index=ctx.index, accumulate=False)
        if ctx.needs_input_grad[1]:
            gs = Take.apply(grad, index=ctx.index).reshape(ctx.src_shape)
        return ga, gs


# ---- argument checks ---------------------------------------------------------------------

def _index_array(a, index, op, allow_int32=False):
    T = common.tensor_cls()
    if not isinstance(index, T):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    ok = (_dtype.int64, _dtype.int32) if allow_int32 else (_dtype.int64,)
    if index.dtype not in ok:
        want = "int32/int64" if allow_int32 else "int64"
        if op in ("scatter", "scatter_add", "scatter_reduce"):
            raise RuntimeError(f"{op}(): Expected dtype int64 for index")
        raise RuntimeError(f"{op}(): Expected dtype {want} for index but got: {index.dtype._short}")
    arr = common.to_device_of(index, a._device)._data
    return arr.astype(a._device.xp.int64, copy=False)


def _scatter_args(a, dim, index, src, op):
    T = common.tensor_cls()
    d = common.wrap_dim(dim, a.ndim, op)
    idx = _index_array(a, index, op, allow_int32=True)
    if idx.ndim != a.ndim and not (idx.ndim <= 1 and a.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, T):
        if src.dtype is not a.dtype:
            raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
        src = common.to_device_of(src, a._device)
        if idx.ndim != src.ndim and not (idx.ndim <= 1 and src.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if a.ndim == 0:  # a 0-d tensor scatters as one element
        idx = idx.reshape(())
    for i in range(idx.ndim):
        too_big_self = i != d and idx.shape[i] > a.shape[i]
        too_big_src = isinstance(src, T) and src.ndim and idx.shape[i] > src.shape[i]
        if too_big_self or too_big_src:
            src_s = f" and to be no larger size than src {list(src.shape)}" if isinstance(src, T) else ""
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart "
                               f"from dimension {d}{src_s}")
    xp = a._device.xp
    _check_range(xp, idx, a.shape[d] if a.ndim else 1, d)
    if a.ndim == 0:
        idx = idx.reshape(())
    return d, idx, src


def _value_for(a, value):
    """A Python number as scatter/index_fill write it: cast to the tensor's dtype (2.7 -> 2)."""
    if a.dtype.is_floating_point:
        return value
    return int(value) if a.dtype is not _dtype.bool else bool(value)


def _reduce_arg(reduce, op):
    if reduce is None:
        return None
    if reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    return reduce


# ---- public functions -------------------------------------------------------------------

def scatter(a, dim, index, src=None, *, value=None, reduce=None):
    T = common.tensor_cls()
    if src is None:
        src = value
    reduce = _reduce_arg(reduce, "scatter")
    d, idx, src = _scatter_args(a, dim, index, src, "scatter")
    if reduce is not None:
        if isinstance(src, T):
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=2)
        else:
            src = a.new_full(idx.shape, _value_for(a, src))
        return ScatterReduce.apply(a, src, dim=d, index=idx, reduce="sum" if reduce == "add" else "prod",
                                   include_self=True)
    if isinstance(src, T):
        return Scatter.apply(a, src, dim=d, index=idx)
    return ScatterValue.apply(a, _value_for(a, src), dim=d, index=idx)


def scatter_add(a, dim, index, src):
    d, idx, src = _scatter_args(a, dim, index, src, "scatter_add")
    return ScatterAdd.apply(a, src, dim=d, index=idx)


_REDUCE_NAMES = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
                 "min": "amin"}


def _scatter_reduce_arg(reduce):
    if reduce not in _REDUCE_NAMES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _REDUCE_NAMES[reduce]


def scatter_reduce(a, dim, index, src, reduce, *, include_self=True):
    reduce = _scatter_reduce_arg(reduce)
    d, idx, src = _scatter_args(a, dim, index, src, "scatter_reduce")
    return ScatterReduce.apply(a, src, dim=d, index=idx, reduce=reduce, include_self=include_self)


def _index_1d(a, dim, index, op):
    d = common.wrap_dim(dim, a.ndim, op)
    idx = _index_array(a, index, op, allow_int32=True)
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    idx = idx.reshape(-1)
    _check_range(a._device.xp, idx, a.shape[d] if a.ndim else 1, d)
    return d, idx


def _same_dtype(a, src, op):
    if src.dtype is not a.dtype:
        raise RuntimeError(f"{op}(): self ({a.dtype._short}) and source ({src.dtype._short}) must have the same "
                           "scalar type")


def _source_shape_check(a, d, idx, src, op):
    want = list(a.shape)
    if want:
        want[d] = idx.size
    if src.ndim and list(src.shape) != want:
        if op == "index_copy_" and src.ndim == a.ndim and src.shape[d] != idx.size:
            raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                             f"({src.shape[d]})")
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(src.shape)}")


def index_add(a, dim, index, source, *, alpha=1):
    d, idx = _index_1d(a, dim, index, "index_add_")
    _same_dtype(a, source, "index_add_")
    _source_shape_check(a, d, idx, source, "index_add_")
    return IndexAdd.apply(a, common.to_device_of(source, a._device), dim=d, index=idx, alpha=alpha)


def index_fill(a, dim, index, value):
    T = common.tensor_cls()
    d, idx = _index_1d(a, dim, index, "index_fill_")
    if isinstance(value, T):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return IndexFillTensor.apply(a, common.to_device_of(value, a._device).to(a.dtype), dim=d, index=idx)
    return IndexFill.apply(a, _value_for(a, value), dim=d, index=idx)


def index_copy(a, dim, index, source):
    d, idx = _index_1d(a, dim, index, "index_copy_")
    if source.dtype is not a.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{a.dtype._short} and (source) {source.dtype._short}")
    _source_shape_check(a, d, idx, source, "index_copy_")
    return IndexCopy.apply(a, common.to_device_of(source, a._device), dim=d, index=idx)


def _put_key(a, indices, op):
    T = common.tensor_cls()
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, T):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(i).__name__}")
    key, _ = _convert_key(a, tuple(indices), op)
    return key


def index_put(a, indices, values, accumulate=False):
    from .index import IndexPut
    key = _put_key(a, indices, "index_put")
    if values.dtype is not a.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {a.dtype._short} for "
                           f"the destination and {values.dtype._short} for the source.")
    values = common.to_device_of(values, a._device)
    try:
        if accumulate:
            return IndexPutAccumulate.apply(a, values, key=key)
        return IndexPut.apply(a, values, key=key)
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(a._data[key].shape)}") from None


def masked_select(a, mask):
    if mask.dtype is not _dtype.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    common.same_device("masked_select", a, mask)
    return MaskedSelect.apply(a, mask=common.to_device_of(mask, a._device)._data)


def masked_scatter(a, mask, source):
    if mask.dtype is not _dtype.bool:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if source.dtype is not a.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{a.dtype._short} and {source.dtype._short}")
    common.broadcast_shapes(a.shape, mask.shape, op="masked_scatter")
    return MaskedScatter.apply(a, common.to_device_of(source, a._device),
                               mask=common.to_device_of(mask, a._device)._data)


def _flat_index(a, index, op):
    idx = _index_array(a, index, op)
    n = a.numel()
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return idx % n if n else idx


def take(a, index):
    return Take.apply(a, index=_flat_index(a, index, "take"))


def put(a, index, source, accumulate=False):
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if source.dtype is not a.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{a.dtype._short} and source.dtype = {source.dtype._short}")
    return Put.apply(a, common.to_device_of(source, a._device), index=_flat_index(a, index, "put_"),
                     accumulate=bool(accumulate))


def take_along_dim(a, indices, dim=None):
    from .index import gather
    if dim is None:
        return gather(a.reshape(-1), 0, indices.reshape(-1))
    d = common.wrap_dim(dim, a.ndim, "take_along_dim")
    if indices.ndim != a.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {a.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    shape_a = list(a.shape)
    shape_i = list(indices.shape)
    shape_a[d] = shape_i[d] = 1
    b = list(common.broadcast_shapes(shape_a, shape_i))
    ea, ei = list(b), list(b)
    ea[d], ei[d] = a.shape[d], indices.shape[d]
    return gather(a.expand(ea) if tuple(ea) != a.shape else a, d,
                  indices.expand(ei) if tuple(ei) != indices.shape else indices)


# ---- in-place forms ---------------------------------------------------------------------

def _run_(self, cls, others, kw, op):
    return write_inplace(self, cls, others, kw, op)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    T = common.tensor_cls()
    if src is None:
        src = value
    reduce = _reduce_arg(reduce, "scatter_")
    d, idx, src = _scatter_args(self, dim, index, src, "scatter")
    if reduce is not None:
        if not isinstance(src, T):
            src = self.new_full(idx.shape, _value_for(self, src))
        kw = dict(dim=d, index=idx, reduce="sum" if reduce == "add" else "prod", include_self=True)
        return _run_(self, ScatterReduce, (src,), kw, "scatter_")
    if isinstance(src, T):
        return _run_(self, Scatter, (src,), dict(dim=d, index=idx), "scatter_")
    return _run_(self, ScatterValue, (_value_for(self, src),), dict(dim=d, index=idx), "scatter_")


def scatter_add_(self, dim, index, src):
    d, idx, src = _scatter_args(self, dim, index, src, "scatter_add")
    return _run_(self, ScatterAdd, (src,), dict(dim=d, index=idx), "scatter_add_")


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    reduce = _scatter_reduce_arg(reduce)
    d, idx, src = _scatter_args(self, dim, index, src, "scatter_reduce")
    kw = dict(dim=d, index=idx, reduce=reduce, include_self=include_self)
    return _run_(self, ScatterReduce, (src,), kw, "scatter_reduce_")


def index_add_(self, dim, index, source, *, alpha=1):
    d, idx = _index_1d(self, dim, index, "index_add_")
    _same_dtype(self, source, "index_add_")
    _source_shape_check(self, d, idx, source, "index_add_")
    return _run_(self, IndexAdd, (common.to_device_of(source, self._device),), dict(dim=d, index=idx, alpha=alpha),
                 "index_add_")


def _warn_if_expanded(self, op, example):
    """PyTorch's first step of index_put_ and index_fill_, before any argument check."""
    from .index import _overlapping
    if _overlapping(self._data):
        warnings.warn(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning,
                      stacklevel=3)


def _into_expanded(self, value):
    """An indexed write PyTorch still makes into an expanded tensor (unrecorded): element by element,
    into the memory its elements share (other in-place ops refuse such a tensor)."""
    from .index import _overlapping
    T = common.tensor_cls()
    return _overlapping(self._data) and not (STATE.enabled and (
        self.requires_grad or isinstance(value, T) and value.requires_grad))


def _write_expanded(self, write):
    write(self._data)
    self._storage.version += 1
    return self


def index_fill_(self, dim, index, value):
    T = common.tensor_cls()
    _warn_if_expanded(self, "index_fill_", "tensor[mask] = scalar")
    d, idx = _index_1d(self, dim, index, "index_fill_")
    if isinstance(value, T):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        v = common.to_device_of(value, self._device).to(self.dtype)
        if _into_expanded(self, v):
            return _write_expanded(self, lambda arr: arr.__setitem__((slice(None),) * d + (idx,), v._data))
        return _run_(self, IndexFillTensor, (v,), dict(dim=d, index=idx), "index_fill_")
    value = _value_for(self, value)
    if _into_expanded(self, value):
        return _write_expanded(self, lambda arr: arr.__setitem__((slice(None),) * d + (idx,), value))
    return _run_(self, IndexFill, (value,), dict(dim=d, index=idx), "index_fill_")


def index_copy_(self, dim, index, source):
    index_copy(self.detach(), dim, index, source.detach())  # argument checks
    d, idx = _index_1d(self, dim, index, "index_copy_")
    return _run_(self, IndexCopy, (common.to_device_of(source, self._device),), dict(dim=d, index=idx),
                 "index_copy_")


def index_put_(self, indices, values, accumulate=False):
    from .index import IndexPut, write_until_out_of_range
    _warn_if_expanded(self, "index_put_", "tensor[indices] = tensor")
    try:
        index_put(self.detach(), indices, values.detach(), accumulate)  # argument checks
    except IndexError:
        if not (STATE.enabled and (self.requires_grad or values.requires_grad)):
            write_until_out_of_range(self._device.xp, self._data, _put_key(self, indices, "index_put_"),
                                     common.to_device_of(values, self._device)._data, accumulate)
        raise
    key = _put_key(self, indices, "index_put_")
    values = common.to_device_of(values, self._device)
    if _into_expanded(self, values):
        xp = self._device.xp
        return _write_expanded(self, lambda arr: (
            index_add_flat(xp, arr, key, values._data) if accumulate else arr.__setitem__(key, values._data)))
    cls = IndexPutAccumulate if accumulate else IndexPut
    return _run_(self, cls, (values,), dict(key=key), "index_put_")


def masked_scatter_(self, mask, source):
    masked_scatter(self.detach(), mask, source.detach())  # argument checks
    m = common.to_device_of(mask, self._device)._data
    return _run_(self, MaskedScatter, (common.to_device_of(source, self._device),), dict(mask=m), "masked_scatter_")


def put_(self, index, source, accumulate=False):
    put(self.detach(), index, source.detach(), accumulate)  # argument checks
    kw = dict(index=_flat_index(self, index, "put_"), accumulate=bool(accumulate))
    return _run_(self, Put, (common.to_device_of(source, self._device),), kw, "put_")
