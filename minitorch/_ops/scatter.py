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
from . import inplace
from .pointwise import _fp_quiet, where as _where
from .._errors import hinted
from .index import (Gather, IndexPutInto, at_least_1d, check_alive, check_along, check_no_larger, first_outside,
                    index_add_flat)


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


def _scatter_positions(xp, index, dim, shape):
    """Flat positions, in a row-major array of `shape`, of every entry of a scatter index: along
    `dim` the index's value, along every other dim the entry's own coordinate."""
    if index.size == 0:  # (an empty index may have any rank)
        return xp.zeros(0, dtype=xp.int64)
    pos, stride, k = 0, 1, index.ndim
    for d in range(k - 1, -1, -1):
        coord = index if d == dim else xp.arange(index.shape[d]).reshape((1,) * d + (-1,) + (1,) * (k - d - 1))
        pos = pos + coord * stride
        stride *= shape[d]
    return xp.broadcast_to(xp.asarray(pos), index.shape).reshape(-1)


def _src_region(src, index):
    """The part of src a scatter reads: its leading corner the shape of index (a 0-d src is one element)."""
    if index.size == 0:  # (an empty index may have any rank)
        return src.reshape(-1)[:0]
    return at_least_1d(src)[tuple(slice(0, n) for n in index.shape)]


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
        pos = _scatter_positions(xp, index, dim, out.shape or (1,))
        out.reshape(-1)[pos] = _src_region(src._data, index).reshape(-1)
        return out

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
        ga = ScatterValue.apply(grad, 0, dim=ctx.dim, index=ctx.index) if ctx.needs_input_grad[0] else None
        gs = Gather.apply(grad, dim=ctx.dim, index=ctx.index) if ctx.needs_input_grad[1] else None
        return ga, gs


class ScatterValue(Primitive):
    _node_name = "ScatterBackward1"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value, *, dim, index):
        ctx.dim, ctx.index = dim, index
        out = a._data.copy()
        pos = _scatter_positions(a._device.xp, index, dim, out.shape or (1,))
        out.reshape(-1)[pos] = getattr(value, "_data", value)
        return out

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
        return ScatterValue.apply(grad, 0, dim=ctx.dim, index=ctx.index), None


class ScatterAdd(Primitive):
    _node_name = "ScatterAddBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, dim, index):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        xp = a._device.xp
        out = a._data.copy()
        index_add_flat(xp, out.reshape(-1), _scatter_positions(xp, index, dim, out.shape or (1,)),
                       _src_region(src._data, index).reshape(-1))
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx.needs_input_grad[1]:  # (the index is saved for the source's gradient only, as in PyTorch)
            check_alive(ctx)
        gs = Gather.apply(grad, dim=ctx.dim, index=ctx.index) if ctx.needs_input_grad[1] else None
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
        pos = _scatter_positions(xp, index, dim, out.shape or (1,))
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
        srcr = src.reshape(1) if src.ndim == 0 else src  # (all of it: a src larger than the index broadcasts, as in PyTorch)
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
        else:  # prod, PyTorch's formula: the product of the others, with the zeros taken out
            masked_self = a.masked_fill(a == 0, 1)
            if ctx.include_self:
                others = ScatterReduce.apply(masked_self, src, dim=dim, index=index, reduce="prod", include_self=True)
                ga = grad * others / masked_self
            else:
                ga = ScatterValue.apply(grad, 0, dim=dim, index=index)
            src_zero = srcr == 0
            zeros = ScatterAdd.apply(a * 0, src_zero.to(a.dtype), dim=dim, index=index)
            single = src_zero & (Gather.apply(zeros, dim=dim, index=index) == 1)  # the only zero sent there
            without = ScatterReduce.apply(a, srcr.masked_fill(single, 1), dim=dim, index=index, reduce="prod",
                                          include_self=ctx.include_self)
            gs = _where(single, Gather.apply(grad * without, dim=dim, index=index),
                       Gather.apply(grad * out, dim=dim, index=index) / srcr.masked_fill(src_zero, 1))
        return ga, gs


def _identity(xp, reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -xp.inf if reduce == "amax" else xp.inf
    if dtype.kind == "b":
        return reduce != "amax"
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
    if out.size == 0:  # (nothing to add into; PyTorch reads no index then)
        return
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
        if ctx.needs_input_grad[1]:  # (the index is saved for the source's gradient only, as in PyTorch)
            check_alive(ctx)
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
        if index.size and out.size:
            out[_along(dim, index, out.ndim) if out.ndim else ()] = getattr(value, "_data", value)
        return out

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
        if index.size and out.size:
            # (into a 0-d self every index is 0: the last source element written stays)
            out[_along(dim, index, out.ndim) if out.ndim else ()] = src._data if out.ndim else src._data.reshape(-1)[-1]
        return out

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
        return (IndexPutInto.apply(grad, key=(ctx.mask,), shape=ctx.shape, accumulate=False),)


def _shares_memory(xp, a, b):
    if hasattr(a, "__array_interface__"):
        return xp.shares_memory(a, b, max_work=10 ** 6)
    return False


class MaskedScatter(Primitive):
    _node_name = "MaskedScatterBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, src, *, mask, in_place=False):
        xp = a._device.xp
        m = xp.broadcast_to(mask, a.shape)
        n = int(m.sum())
        if n > src.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.mask, ctx.n, ctx.src_shape = m, n, src.shape
        if in_place and src._data.flags.c_contiguous and _shares_memory(xp, a._data, src._data):
            # PyTorch's kernel writes self in row-major order, reading the source as it goes: a source
            # that is self's own memory is read as written so far (no copy is taken)
            flat = src._data.reshape(-1)
            for k, at in enumerate(zip(*xp.nonzero(m))):
                a._data[at] = flat[k]
            return a._data.copy()
        out = a._data.copy()
        out[m] = src._data.reshape(-1)[:n]
        return out

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
        check_alive(ctx)  # (the index is saved for backward, as in PyTorch)
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
#
# Each family runs PyTorch's checks in PyTorch's order, so that when two things are wrong (a float
# index *and* an index out of range, say) the error is the one PyTorch gives: its type, and its
# words first (the hint rides along as a note).

def _need_tensor(x, op, name, pos):
    if not isinstance(x, common.tensor_cls()):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _index_of(a, index):
    """The index as an int64 array on a's device."""
    return common.to_device_of(index, a._device)._data.astype(a._device.xp.int64, copy=False)


def _long_hint(index):
    return f"got {index.dtype}: convert the index with .long()"


def _checked_value(a, value):
    """A Python number as a write converts it into a's dtype (2.7 into int64 is 2, -1 into uint8 is 255),
    or PyTorch's overflow error; half's range is checked too."""
    if a.dtype is _dtype.float16 and not isinstance(value, complex) and value == value \
            and abs(float(value)) != float("inf") and abs(float(value)) > 65504:
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
    return _dtype.checked_scalar(value, a.dtype)


def _scalar_of(value):
    """A 0-d value tensor as the Python number PyTorch's Scalar overloads read from it (.item())."""
    return value.item() if isinstance(value, common.tensor_cls()) else value


def _no_overlap(a, *others):
    """An in-place write may not read from memory it writes (PyTorch's assert_no_overlap; like it,
    only dense tensors are compared)."""
    def dense(x):
        return x.flags.c_contiguous or x.flags.f_contiguous
    xp = a._device.xp
    for t in others:
        if t is a or isinstance(t, common.tensor_cls()) and t._device == a._device and a._data.size \
                and t._data.size and dense(a._data) and dense(t._data) and xp.may_share_memory(a._data, t._data):
            raise hinted(RuntimeError, "unsupported operation: some elements of the input tensor and the written-to "
                         "tensor refer to a single memory location. Please clone() the tensor before performing the "
                         "operation.", "an in-place index op reads an argument that shares self's memory")


def _scatter_args(a, dim, index, src, op, reduce=None, in_place=False):
    """scatter / scatter_add / scatter_reduce: the dim; the index's dtype (int32 or int64, unless it is
    empty) and src's; the shapes (skipped for an empty index); the reduce argument; the range."""
    T = common.tensor_cls()
    _need_tensor(index, op, "index", 2)
    d = common.wrap_dim(dim, a.ndim, op)
    if index.numel() and index.dtype not in (_dtype.int64, _dtype.int32):
        raise hinted(RuntimeError, "scatter(): Expected dtype int32/int64 for index", _long_hint(index))
    if isinstance(src, T):
        if src.dtype is not a.dtype:
            raise hinted(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype",
                         f"{op}: self is {a.dtype}, src {src.dtype}: convert src with .to({a.dtype})")
        src = common.to_device_of(src, a._device)
    if index.numel():
        check_no_larger(a, d, index, op, src if isinstance(src, T) else None)
    if in_place:
        _no_overlap(a, index, src)
    if reduce is not None:
        reduce()
    idx = at_least_1d(_index_of(a, index))  # (a 0-d self or index counts as one element)
    check_along(idx, a.shape[d] if a.ndim else 1, d, op)
    return d, idx, src


def _scatter_value(a, src, idx):
    """A Python number src, converted as PyTorch's kernel converts it (after the range check; with an
    empty index the kernel never runs, and nothing is converted)."""
    if isinstance(src, common.tensor_cls()):
        return src
    return _checked_value(a, src) if idx.size else 0


def _reduce_arg(reduce):
    def check():
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
    return None if reduce is None else check


_REDUCE_NAMES = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
                 "max": "amax", "min": "amin"}  # (PyTorch's forward takes max and min too; its message omits them)


def _scatter_reduce_arg(reduce):
    def check():
        if reduce not in _REDUCE_NAMES:
            raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return check


def _empty_write_check(a, d, n_index):
    """index_fill_ and index_copy_ view self with `dim` resized to the number of indices and stride 0;
    PyTorch refuses that view when self is empty only along `dim` (its storage holds nothing)."""
    if a.numel() or not n_index:
        return
    sizes = list(a.shape) or [1]
    strides = list(a.stride()) or [1]
    sizes[d], strides[d] = n_index, 0
    if 0 in sizes:
        return
    item = a.element_size()
    need = (sum((n - 1) * st for n, st in zip(sizes, strides)) + 1 + a.storage_offset()) * item
    have = a.untyped_storage().nbytes()
    if need > have:
        raise hinted(RuntimeError, f"setStorage: sizes {sizes}, strides {strides}, storage offset "
                     f"{a.storage_offset()}, and itemsize {item} requiring a storage size of {need} are out of bounds "
                     f"for storage of size {have}", f"dim {d} of self {list(a.shape)} has no element to write")


def _index_fill_args(a, dim, index, value, in_place=False):
    """index_fill_: a tensor value's rank; the index's dtype (int64 only); a complex value; the dim;
    the index's rank; the value's conversion; then every index in [-size, size)."""
    T = common.tensor_cls()
    if isinstance(value, T) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    _need_tensor(index, "index_fill_", "index", 2)
    if index.dtype is not _dtype.int64:
        raise hinted(IndexError, "index_fill_(): Expected dtype int64 for index.", _long_hint(index))
    if in_place:  # (out of place, PyTorch fills a fresh clone)
        _no_overlap(a, index)
        _warn_if_expanded(a, "index_fill_", "tensor[mask] = scalar", stacklevel=4)
    number = _scalar_of(value)
    if isinstance(number, complex):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    d = common.wrap_dim(dim, a.ndim, "index_fill_")
    if index.ndim > 1:
        raise hinted(RuntimeError, "Index has to be a vector/scalar", f"got an index of shape {list(index.shape)}")
    idx = _index_of(a, index).reshape(-1)
    _empty_write_check(a, d, idx.size)
    number = _checked_value(a, number)
    n = a.shape[d] if a.ndim else 1
    if a.numel():
        bad = first_outside(idx, -n, n)
        if bad is not None:
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    if isinstance(value, T):
        return d, idx, common.to_device_of(value, a._device).to(a.dtype)
    return d, idx, number


def _index_copy_args(a, dim, index, source, in_place=False):
    """index_copy_: the dim; the index's rank; source's rank; the index's dtype (int64 only); source's
    dtype; the slice shapes; the number of indices; then every index in [0, size)."""
    _need_tensor(index, "index_copy_", "index", 2)
    _need_tensor(source, "index_copy_", "source", 3)
    d = common.wrap_dim(dim, a.ndim, "index_copy_")
    if in_place:
        _no_overlap(a, index, source)
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    k = index.numel()
    if source.ndim == 0 and k != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {k})")
    if source.ndim != a.ndim and source.ndim and a.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({a.ndim})")
    if index.dtype is not _dtype.int64:
        raise hinted(RuntimeError, f"index_copy_(): Expected a long tensor for index, but got {index.dtype._short}",
                     _long_hint(index))
    if source.dtype is not a.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{a.dtype._short} and (source) {source.dtype._short}")
    mine = [n for i, n in enumerate(a.shape) if i != d]
    theirs = [n for i, n in enumerate(source.shape) if i != d]
    if mine != theirs:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, mine))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, theirs))} at dimension 0.")
    if source.ndim and k != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({k}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    idx = _index_of(a, index).reshape(-1)
    _empty_write_check(a, d, k)
    n = a.shape[d] if a.ndim else 1
    if a.numel():
        bad = first_outside(idx, 0, n)
        if bad is not None:
            if in_place:
                _write_before_bad(a, d, idx, source, n)
            raise hinted(IndexError, f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {n}",
                         f"index_copy_ takes indices in [0, {n}), no negative ones")
    return d, idx, common.to_device_of(source, a._device)


def _index_add_args(a, dim, index, source, alpha, in_place=False):
    """index_add_: the dim; the index's rank and dtype (int32 or int64); source's dtype; the dim against
    source; the number of indices; source's shape; alpha's conversion; then every index in range."""
    _need_tensor(index, "index_add_", "index", 2)
    _need_tensor(source, "index_add_", "source", 3)
    d = common.wrap_dim(dim, a.ndim, "index_add_")
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index.dtype._short} and size: {list(index.shape)}")
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise hinted(RuntimeError, f"index_add_(): Expected dtype int32/int64 for index but got: "
                     f"{index.dtype._short}", _long_hint(index))
    if source.dtype is not a.dtype:
        raise RuntimeError(f"index_add_(): self ({a.dtype._short}) and source ({source.dtype._short}) must have the "
                           "same scalar type")
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    k = index.numel()
    if k != (source.shape[d] if source.ndim else 1):
        if not source.ndim:  # (PyTorch's message asks a 0-d source for its size along dim)
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({k}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {d}")
    if in_place:
        _no_overlap(a, index, source)
    if source.ndim != a.ndim or any(m != n for i, (m, n) in enumerate(zip(a.shape, source.shape)) if i != d):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}")
    # alpha is converted to self's dtype first (2.5 is 2 for an int64 tensor), by the kernel: not at all
    # when there is nothing to add
    alpha = _checked_value(a, alpha) if a.numel() and source.numel() else 1
    idx = _index_of(a, index).reshape(-1)
    n = a.shape[d] if a.ndim else 1
    if a.ndim > 1 and a.numel() == 0:  # (PyTorch's kernel for 2+ dims writes nothing, and checks nothing)
        return d, idx, common.to_device_of(source, a._device), alpha
    hint = f"index_add_ takes indices in [0, {n}), no negative ones"
    if a.ndim > 1 and index.dtype is _dtype.int64:  # (for an int32 index the kernel says it as below)
        bad = first_outside(idx, 0, n)
        if bad is not None:
            if in_place:
                _write_before_bad(a, d, idx, source, n, alpha)
            raise hinted(RuntimeError, f"index {bad} is out of bounds for dimension {d} with size {n}", hint)
    else:
        bad = first_outside(idx, 0, n if a.ndim > 1 else a.numel())
        if bad is not None:
            if in_place:
                _write_before_bad(a, d, idx, source, n if a.ndim > 1 else a.numel(), alpha)
            raise hinted(IndexError, "index out of range in self", f"index {bad}: {hint}")
    return d, idx, common.to_device_of(source, a._device), alpha


def _write_before_bad(a, d, idx, source, n, alpha=None):
    """PyTorch's index_copy_ / index_add_ kernels write as they go, in order, and stop at the first
    index out of range: the slices before it, of the first row of the outer dims, are written by
    then (added, times alpha, for index_add_)."""
    if not (source.ndim and a.ndim):
        return
    xp = a._device.xp
    p = int(xp.argmax((idx < 0) | (idx >= n)))
    src = common.to_device_of(source, a._device)._data
    with _fp_quiet():
        for j in range(p):
            at, part = (0,) * d + (int(idx[j]),), src[(0,) * d + (j,)]
            if alpha is None:
                a._data[at] = part
            else:
                a._data[at] = a._data[at] + part * alpha


def _flat_range(a, idx, op):
    """take's and put_'s range check: every index in [-numel, numel)."""
    n = a.numel()
    bad = first_outside(idx, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return idx % n if n else idx


def _take_args(a, index):
    _need_tensor(index, "take", "index", 1)
    if index.dtype is not _dtype.int64:
        raise hinted(RuntimeError, f"take(): Expected a long tensor for index, but got {index.dtype._short}",
                     _long_hint(index))
    if a.numel() == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    return _flat_range(a, _index_of(a, index), "take")


def _put_args(a, index, source, in_place=False):
    """put_: the index's dtype (int64 only); source's dtype; the element counts; an empty self; the range."""
    _need_tensor(index, "put", "index", 1)
    _need_tensor(source, "put", "source", 2)
    if index.dtype is not _dtype.int64:
        raise hinted(RuntimeError, f"put_(): Expected a long tensor for index, but got {index.dtype._short}",
                     _long_hint(index))
    if source.dtype is not a.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{a.dtype._short} and source.dtype = {source.dtype._short}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if a.numel() == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if in_place:
        _no_overlap(a, index, source)
    return _flat_range(a, _index_of(a, index), "put_"), common.to_device_of(source, a._device)


def _index_put_args(a, indices, values, accumulate, op):
    """index_put_: the number of indices; an in-place write's overlap with its arguments; the indices'
    dtypes (int64, int32, bool or uint8) and mask shapes; one bool mask and one value (PyTorch then
    runs masked_fill_, converting the value: the third result says so); an index into a size-0 dim;
    the value's shape, then its dtype. The range is checked as the write runs."""
    from .index import _check_mask, _classify_tensor
    T = common.tensor_cls()
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, T):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(i).__name__}")
    _need_tensor(values, op, "values", 2)
    if len(indices) > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (got {len(indices)})")
    if not indices:
        raise hinted(RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype nullptr "
                     "(uninitialized)" if a.ndim == 0 else "sym_strides() called on an undefined Tensor",
                     f"{op} needs at least one index tensor")
    masked = not accumulate and len(indices) == 1 and indices[0].dtype in (_dtype.bool, _dtype.uint8) \
        and values.numel() == 1
    if not masked and op == "index_put_":
        _no_overlap(a, values, *indices)
    for i in indices:
        if i.dtype not in (_dtype.int64, _dtype.int32, _dtype.bool, _dtype.uint8):
            raise hinted(IndexError, "tensors used as indices must be long, int, byte or bool tensors",
                         _long_hint(i))
    key, dim = [], 0
    for i in indices:
        kind, val, n = _classify_tensor(a, i)
        if kind == "mask":
            _check_mask(a, val, dim)
            key.append(val._data)
        elif kind == "bool":
            key.append(val)
        else:
            key.append(a._device.xp.asarray(val, dtype=a._device.xp.int64) if kind == "int" else
                       val.astype(a._device.xp.int64, copy=False))
        dim += n if kind in ("mask", "bool") else 1
    key = tuple(key)
    if masked:
        if indices[0].dtype is _dtype.uint8:  # (the masked_fill_ it hands over to takes bool masks only)
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
        return key, common.to_device_of(values, a._device).reshape(()).to(a.dtype), True
    shape, safe = _indexed_shape(a, key)
    if not _expandable(tuple(values.shape), shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")
    if values.dtype is not a.dtype:
        raise hinted(RuntimeError, f"Index put requires the source and destination dtypes match, got "
                     f"{a.dtype._short} for the destination and {values.dtype._short} for the source.",
                     f"convert the values first, e.g. values.to({a.dtype!r})")
    if 0 in shape:  # nothing is written, and no index is checked
        key = safe
    return key, common.to_device_of(values, a._device), False


def _indexed_shape(a, key):
    """The shape of a[key] (the region index_put_ writes) and a key of the same shape with every index
    in range; an index into a size-0 dim is PyTorch's error here."""
    xp = a._device.xp
    safe, dim = [], 0
    for k in key:
        if getattr(k, "dtype", None) is not None and k.dtype.kind == "b" or isinstance(k, bool):
            safe.append(k)
            dim += getattr(k, "ndim", 0)
            continue
        n = a.shape[dim]
        if n == 0 and k.size:
            raise IndexError("index is out of bounds for dimension with size 0")
        safe.append(xp.clip(k, -n, n - 1) if n else k)
        dim += 1
    return tuple(xp.zeros(a.shape, dtype=bool)[tuple(safe)].shape), tuple(safe)


def _expandable(shape, target):
    """PyTorch's is_expandable_to: shape broadcasts to target without growing it."""
    if len(shape) > len(target):
        return False
    return all(m == n or m == 1 for m, n in zip(reversed(shape), reversed(target)))


def _masked_scatter_args(a, mask, source, in_place):
    """masked_scatter: the shapes (out of place, self and mask broadcast together; in place, the mask
    to self); source's dtype; the mask's dtype."""
    op = "masked_scatter_" if in_place else "masked_scatter"
    _need_tensor(mask, op, "mask", 1)
    _need_tensor(source, op, "source", 2)
    if in_place:
        mask.detach().expand(a.shape)  # PyTorch's expand error, word for word
    else:
        common.broadcast_shapes(mask.shape, a.shape, op="masked_scatter")  # (PyTorch's order: mask, then self)
    if source.dtype is not a.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{a.dtype._short} and {source.dtype._short}")
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype._short}")
    return common.to_device_of(mask, a._device)._data, common.to_device_of(source, a._device)


# ---- public functions -------------------------------------------------------------------

def scatter(a, dim, index, src=None, *, value=None, reduce=None):
    T = common.tensor_cls()
    if src is None:
        src = value
    d, idx, src = _scatter_args(a, dim, index, src, "scatter", _reduce_arg(reduce))
    src = _scatter_value(a, src, idx)
    if reduce is not None:
        if isinstance(src, T):
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=2)
        else:
            src = a.new_full(idx.shape, src)
        return ScatterReduce.apply(a, src, dim=d, index=idx, reduce="sum" if reduce == "add" else "prod",
                                   include_self=True)
    if isinstance(src, T):
        return Scatter.apply(a, src, dim=d, index=idx)
    return ScatterValue.apply(a, src, dim=d, index=idx)


def scatter_add(input, dim, index, src):
    _need_tensor(src, "scatter_add", "src", 3)
    d, idx, src = _scatter_args(input, dim, index, src, "scatter_add")
    return ScatterAdd.apply(input, src, dim=d, index=idx)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    _need_tensor(src, "scatter_reduce", "src", 3)
    d, idx, src = _scatter_args(input, dim, index, src, "scatter_reduce", _scatter_reduce_arg(reduce))
    _no_bool_mean(input, reduce)
    return ScatterReduce.apply(input, src, dim=d, index=idx, reduce=_REDUCE_NAMES[reduce], include_self=include_self)


def index_add(input, dim, index, source, *, alpha=1):
    d, idx, source, alpha = _index_add_args(input, dim, index, source, alpha)
    return IndexAdd.apply(input, source, dim=d, index=idx, alpha=alpha)


def index_fill(input, dim, index, value):
    d, idx, value = _index_fill_args(input, dim, index, value)
    cls = IndexFillTensor if isinstance(value, common.tensor_cls()) else IndexFill
    return cls.apply(input, value, dim=d, index=idx)


def index_copy(input, dim, index, source):
    d, idx, source = _index_copy_args(input, dim, index, source)
    return IndexCopy.apply(input, source, dim=d, index=idx)


def index_put(input, indices, values, accumulate=False):
    from .index import IndexPut
    key, values, _ = _index_put_args(input, indices, values, accumulate, "index_put")
    try:
        if accumulate:
            return IndexPutAccumulate.apply(input, values, key=key)
        return IndexPut.apply(input, values, key=key)
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None


def masked_select(input, mask):
    if mask.dtype is not _dtype.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    common.same_device("masked_select", input, mask)
    return MaskedSelect.apply(input, mask=common.to_device_of(mask, input._device)._data)


def masked_scatter(input, mask, source):
    mask, source = _masked_scatter_args(input, mask, source, in_place=False)
    shape = common.broadcast_shapes(input.shape, mask.shape, op="masked_scatter")
    return MaskedScatter.apply(input.expand(shape) if shape != input.shape else input, source, mask=mask)


def take(input, index):
    return Take.apply(input, index=_take_args(input, index))


def put(a, index, source, accumulate=False):
    idx, source = _put_args(a, index, source)
    return Put.apply(a, source, index=idx, accumulate=bool(accumulate))


def take_along_dim(input, indices, dim=None):
    """With no dim, gather from the flattened input (a view: PyTorch refuses a layout that can't be
    flattened without a copy). With a dim, PyTorch 2.13 takes each index modulo the size along dim
    (so -1 and size + 1 both work; a size-0 dim is its ZeroDivisionError), after broadcasting the
    input and the indices against each other off `dim`."""
    from .index import gather
    _need_tensor(indices, "take_along_dim", "indices", 2)
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if indices.ndim != input.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if indices.dtype is not _dtype.int64:
        raise hinted(RuntimeError, f"torch.take_along_dim(): dtype of indices should be Long but got "
                     f"{indices.dtype._short}", _long_hint(indices))
    d = common.wrap_dim(dim, input.ndim, "take_along_dim")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    shape_a, shape_i = list(input.shape), list(indices.shape)
    shape_a[d] = shape_i[d] = 1
    b = list(common.broadcast_shapes(shape_a, shape_i))
    ea, ei = list(b), list(b)
    ea[d], ei[d] = input.shape[d], indices.shape[d]
    n = input.shape[d]
    total = 1
    for s in ei:
        total *= s
    if n == 0 and total:
        raise hinted(RuntimeError, "ZeroDivisionError", f"take_along_dim: dim {d} of the input has size 0")
    idx = indices.expand(ei) if tuple(ei) != indices.shape else indices
    if n:
        idx = common.tensor_cls()._make(_index_of(input, idx) % n, input._device)
    return gather(input.expand(ea) if tuple(ea) != input.shape else input, d, idx)


# ---- in-place forms ---------------------------------------------------------------------
#
# PyTorch checks the autograd side of an in-place op (a leaf that requires grad, a view of one)
# before it looks at the arguments: so does each of these.

def _run_(self, cls, others, kw, op, overlap_checked=True):
    return write_inplace(self, cls, others, kw, op, overlap_checked=overlap_checked)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    T = common.tensor_cls()
    inplace.check_inplace(self, "scatter_")
    if src is None:
        src = value
    d, idx, src = _scatter_args(self, dim, index, src, "scatter_", _reduce_arg(reduce), in_place=True)
    src = _scatter_value(self, src, idx)
    if reduce is not None:
        if not isinstance(src, T):
            src = self.new_full(idx.shape, src)
        kw = dict(dim=d, index=idx, reduce="sum" if reduce == "add" else "prod", include_self=True)
        return _run_(self, ScatterReduce, (src,), kw, "scatter_")
    if isinstance(src, T):
        return _run_(self, Scatter, (src,), dict(dim=d, index=idx), "scatter_")
    return _run_(self, ScatterValue, (src,), dict(dim=d, index=idx), "scatter_")


def scatter_add_(self, dim, index, src):
    inplace.check_inplace(self, "scatter_add_")
    _need_tensor(src, "scatter_add_", "src", 3)
    d, idx, src = _scatter_args(self, dim, index, src, "scatter_add_", in_place=True)
    return _run_(self, ScatterAdd, (src,), dict(dim=d, index=idx), "scatter_add_")


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    inplace.check_inplace(self, "scatter_reduce_")
    _need_tensor(src, "scatter_reduce_", "src", 3)
    d, idx, src = _scatter_args(self, dim, index, src, "scatter_reduce_", _scatter_reduce_arg(reduce),
                                in_place=True)
    _no_bool_mean(self, reduce)
    kw = dict(dim=d, index=idx, reduce=_REDUCE_NAMES[reduce], include_self=include_self)
    return _run_(self, ScatterReduce, (src,), kw, "scatter_reduce_")


def _no_bool_mean(a, reduce):
    if reduce == "mean" and a.dtype is _dtype.bool:  # (the other reductions take bool, as PyTorch's kernels)
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")


def index_add_(self, dim, index, source, *, alpha=1):
    inplace.check_inplace(self, "index_add_")
    d, idx, source, alpha = _index_add_args(self, dim, index, source, alpha, in_place=True)
    return _run_(self, IndexAdd, (source,), dict(dim=d, index=idx, alpha=alpha), "index_add_")


def _warn_if_expanded(self, op, example, stacklevel=3):
    """PyTorch's warning for an indexed write into an expanded tensor."""
    from .index import _overlapping
    if _overlapping(self._data):
        warnings.warn(f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      f"this operation. This also applies to advanced indexing e.g. {example}", UserWarning,
                      stacklevel=stacklevel)


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
    inplace.check_inplace(self, "index_fill_")
    d, idx, value = _index_fill_args(self, dim, index, value, in_place=True)
    if _into_expanded(self, value):
        v = value._data if isinstance(value, T) else value
        key = (slice(None),) * d + (idx,)
        return _write_expanded(self, lambda arr: arr.__setitem__(key, v) if idx.size else None)
    cls = IndexFillTensor if isinstance(value, T) else IndexFill
    return _run_(self, cls, (value,), dict(dim=d, index=idx), "index_fill_")


def index_copy_(self, dim, index, source):
    inplace.check_inplace(self, "index_copy_")
    d, idx, source = _index_copy_args(self, dim, index, source, in_place=True)
    return _run_(self, IndexCopy, (source,), dict(dim=d, index=idx), "index_copy_")


def index_put_(self, indices, values, accumulate=False):
    from .index import IndexPut, write_until_out_of_range
    inplace.check_inplace(self, "index_put_")
    if isinstance(indices, (tuple, list)) and len(indices) <= self.ndim:
        _warn_if_expanded(self, "index_put_", "tensor[indices] = tensor")
    key, values, masked = _index_put_args(self, indices, values, accumulate, "index_put_")
    if masked:  # (PyTorch hands one value through one mask to masked_fill_, which converts the value)
        if _into_expanded(self, values):
            return _write_expanded(self, lambda arr: arr.__setitem__(key, values._data))
        return _run_(self, IndexPut, (values,), dict(key=key), "index_put_")
    try:
        _indexed_shape(self, key)
        self._data[key]  # the range check, before anything is recorded
    except IndexError as e:
        if not (STATE.enabled and (self.requires_grad or values.requires_grad)):
            write_until_out_of_range(self._device.xp, self._data, key, values._data, accumulate)
        raise IndexError(str(e).replace("axis", "dimension")) from None
    if _into_expanded(self, values):
        xp = self._device.xp
        return _write_expanded(self, lambda arr: (
            index_add_flat(xp, arr, key, values._data) if accumulate else arr.__setitem__(key, values._data)))
    cls = IndexPutAccumulate if accumulate else IndexPut
    return _run_(self, cls, (values,), dict(key=key), "index_put_")


def masked_scatter_(self, mask, source):
    inplace.check_inplace(self, "masked_scatter_")
    mask, source = _masked_scatter_args(self, mask, source, in_place=True)
    # (PyTorch's masked_scatter_ does not check its source for overlap with self)
    return _run_(self, MaskedScatter, (source,), dict(mask=mask, in_place=True), "masked_scatter_",
                 overlap_checked=False)


def put_(self, index, source, accumulate=False):
    inplace.check_inplace(self, "put_")
    idx, source = _put_args(self, index, source, in_place=True)
    return _run_(self, Put, (source,), dict(index=idx, accumulate=bool(accumulate)), "put_")
