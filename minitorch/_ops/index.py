"""Indexing: reading (`t[key]`) and writing (`t[key] = v`), gather/scatter and friends.

Basic keys (ints, slices, None, Ellipsis) give views, as in PyTorch and NumPy; keys with a
boolean mask or an integer tensor give copies. Out-of-range indices get PyTorch's wording.
"""
from __future__ import annotations

from .. import _dtype
from . import common
from ._prim import Primitive
from .views import ViewPrimitive


def index_add_flat(xp, buf, idx, vals):
    """buf[idx] += vals, adding repeated indices up (NumPy's add.at; CuPy's scatter_add)."""
    if hasattr(xp, "add") and hasattr(xp.add, "at"):
        xp.add.at(buf, idx, vals)
    else:
        import cupyx
        cupyx.scatter_add(buf, idx, vals)


def _convert_key(a, key, op="index"):
    """Turn a user key into one NumPy/CuPy understands; report whether it is basic (a view)."""
    T = common.tensor_cls()
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    basic = True
    dim = 0
    for k in key:
        if isinstance(k, T):
            if k.dtype is _dtype.uint8:
                k = k.bool()  # PyTorch's legacy byte mask
            if k.dtype.is_floating_point:
                raise IndexError(
                    f"tensors used as indices must be long, int, byte or bool tensors (got {k.dtype}); "
                    "convert the index with .long()")
            arr = k._data
            if k._device != a._device:
                if k._device.type != "cpu" and a._device.type == "cpu":
                    raise RuntimeError(
                        f"indices should be either on cpu or on the same device as the indexed tensor "
                        f"({a._device}), got indices on {k._device}")
                arr = a._device._xp_backend.from_host(k._device._xp_backend.to_host(arr), a._device.index)
            if k.ndim == 0 and k.dtype is not _dtype.bool:
                out.append(int(arr))
                dim += 1
                continue
            basic = False
            _check_mask(a, k, dim)
            out.append(arr)
            dim += k.ndim if k.dtype is _dtype.bool else 1
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
            dim += 1
        elif k is None or k is Ellipsis:
            out.append(k)
            if k is Ellipsis:
                dim = a.ndim - sum(1 for x in key[key.index(k) + 1:] if x is not None)
        elif isinstance(k, bool):
            basic = False
            out.append(k)
        elif isinstance(k, int):
            out.append(k)
            dim += 1
        elif isinstance(k, (list, tuple)):
            basic = False
            xp = a._device.xp
            arr = xp.asarray(k)
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
            dim += 1
        else:
            import numpy as np
            if isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__"):
                basic = False
                out.append(a._device.xp.asarray(k))
                dim += 1
            elif isinstance(k, np.integer):
                out.append(int(k))
                dim += 1
            else:
                raise IndexError(
                    f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                    f"valid indices (got {type(k).__name__})")
    return tuple(out), basic


def _check_mask(a, k, dim):
    if k.dtype is not _dtype.bool:
        return
    for i, n in enumerate(k.shape):
        if dim + i >= a.ndim or a.shape[dim + i] != n:
            have = a.shape[dim + i] if dim + i < a.ndim else "nothing"
            raise IndexError(
                f"The shape of the mask {list(k.shape)} at index {i} does not match the shape of the "
                f"indexed tensor {list(a.shape)} at index {dim + i} (size {have})")


def _numpy_index_error(e, a):
    msg = str(e)
    if "out of bounds for axis" in msg:
        msg = msg.replace("axis", "dimension")
    elif "too many indices" in msg:
        msg = f"too many indices for tensor of dimension {a.ndim} (shape {list(a.shape)})"
    return IndexError(msg)


class Select(ViewPrimitive):
    """Basic indexing with an int: a view one dimension smaller."""
    _node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        if Ellipsis not in key:
            key = key + (Ellipsis,)  # NumPy then returns a 0-d *view* instead of a copied scalar
        try:
            return a._data[key]
        except IndexError as e:
            raise _numpy_index_error(e, a) from None

    @staticmethod
    def backward(ctx, grad):
        return (IndexPutInto.apply(grad, key=ctx.key, shape=ctx.shape, accumulate=False),)


class Slice(Select):
    _node_name = "SliceBackward0"


class IndexUnsqueeze(Select):
    _node_name = "UnsqueezeBackward0"


class Alias(Select):
    _node_name = "AliasBackward0"


_FULL = slice(None)


def _basic_cls(k):
    """The node PyTorch's indexing ends with (so grad_fn prints the same): the last select (int),
    slice or unsqueeze (None) in the key; full slices count only as a lone `t[:]`."""
    cls = None
    for x in k:
        if x is None:
            cls = IndexUnsqueeze
        elif x.__class__ is slice:
            if x != _FULL:
                cls = Slice
        elif x is not Ellipsis:
            cls = Select
    return cls or (Slice if len(k) == 1 and k[0].__class__ is slice else Alias)


class Index(Primitive):
    """Advanced indexing (masks, integer tensors): a copy."""
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        try:
            out = a._data[key]
        except IndexError as e:
            raise _numpy_index_error(e, a) from None
        # NumPy may lay the result out transposed (index dims first in memory); PyTorch's is row-major
        return out if out.flags.c_contiguous else a._device.xp.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        return (IndexPutInto.apply(grad, key=ctx.key, shape=ctx.shape, accumulate=True),)


class IndexPutInto(Primitive):
    """zeros(shape) with `values` put at `key` (added up where indices repeat): the backward of
    indexing, and itself differentiable (its backward is indexing again)."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, values, *, key, shape, accumulate):
        ctx.key = key
        xp = values._device.xp
        z = xp.zeros(shape, dtype=values._data.dtype)
        if accumulate:
            target = z[key]
            flat_idx = xp.arange(z.size).reshape(shape)[key]
            index_add_flat(xp, z.reshape(-1), flat_idx.reshape(-1),
                           xp.broadcast_to(values._data, target.shape).reshape(-1))
        else:
            z[key] = values._data
        return z

    @staticmethod
    def backward(ctx, grad):
        return (grad[ctx.key],)


def getitem(a, key):
    if isinstance(key, common.tensor_cls()) and key.dtype is _dtype.bool and key.shape == a.shape and a.ndim:
        key = (key,)
    k, basic = _convert_key(a, key)
    if basic:
        return _basic_cls(k).apply(a, key=k)
    return Index.apply(a, key=k)


# ---- writing: t[key] = value ------------------------------------------------------------

class IndexPut(Primitive):
    """`a[key] = v` computed out of place: the record an indexed assignment leaves."""
    _node_name = "IndexPutBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, v, *, key):
        ctx.key = key
        r = a._data.copy()
        r[key] = v._data if isinstance(v, common.tensor_cls()) else v
        return r

    @staticmethod
    def backward(ctx, grad):
        keep = grad._device.xp.ones(grad.shape, dtype=bool)
        keep[ctx.key] = False  # what was overwritten gets no gradient
        return grad * common.tensor_cls()._make(keep, grad._device), grad[ctx.key]


def setitem(a, key, value):
    from .inplace import run_inplace
    T = common.tensor_cls()
    k, _ = _convert_key(a, key, "index_put_")
    if isinstance(value, T):
        if value._device != a._device and not (value.ndim == 0 and value._device.type == "cpu"):
            common.same_device("index_put_", a, value)
        value = common.to_device_of(value, a._device)
        if value.dtype is not a.dtype:
            value = value.to(a.dtype)
    elif not isinstance(value, (int, float, bool)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a {a._type_name()} (assign a number or a tensor: "
                        "wrap lists and arrays with minitorch.tensor(...))")

    def fast():
        try:
            a._data[k] = value._data if isinstance(value, T) else value
        except IndexError as e:
            raise _numpy_index_error(e, a) from None
        except ValueError as e:
            vs = list(value.shape) if isinstance(value, T) else []
            target = list(a._data[k].shape)
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {vs} cannot be broadcast to indexing result of "
                f"shape {target}") from e

    run_inplace(a, IndexPut, (value,), {"key": k}, fast, "index_put_")
    return a


# ---- gather / scatter / select ---------------------------------------------------------

class Gather(Primitive):
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, *, dim, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index
        src = a._data
        if index.shape != src.shape:  # PyTorch lets the index be smaller than the input off `dim`
            src = src[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))]
        return a._device.xp.take_along_axis(src, index, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return (scatter_along(grad, ctx.index, ctx.dim, ctx.shape, add=True),)


class ScatterAlong(Primitive):
    """zeros(shape) with grad placed along `dim` at `index` (the backward of gather and max)."""
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, *, index, dim, shape, add):
        ctx.index, ctx.dim = index, dim
        xp = g._device.xp
        z = xp.zeros(shape, dtype=g._data.dtype)
        if add:
            idx = _flat_positions(xp, index, dim, shape)
            index_add_flat(xp, z.reshape(-1), idx.reshape(-1), g._data.reshape(-1))
        else:
            xp.put_along_axis(z, index, g._data, axis=dim)
        return z

    @staticmethod
    def backward(ctx, grad):
        return (Gather.apply(grad, dim=ctx.dim, index=ctx.index),)


def _flat_positions(xp, index, dim, shape):
    """For an index array along `dim`, the flat position in `shape` of every entry."""
    grids = xp.indices(index.shape, sparse=True)
    pos = 0
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        coord = index if d == dim else grids[d]
        pos = pos + coord * stride
        stride *= shape[d]
    return xp.broadcast_to(pos, index.shape)


def scatter_along(grad, index, dim, shape, add=False):
    return ScatterAlong.apply(grad, index=index, dim=dim, shape=tuple(shape), add=add)


def gather(a, dim, index):
    d = common.wrap_dim(dim, a.ndim, "gather")
    if index.dtype is not _dtype.int64 and index.dtype.is_floating_point:
        raise RuntimeError(f"gather(): Expected dtype int64 for index, got {index.dtype}")
    if index.ndim != a.ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as input tensor "
                           f"(index has {index.ndim}, input has {a.ndim})")
    for i, (n, m) in enumerate(zip(index.shape, a.shape)):
        if i != d and n > m:
            raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index.shape)} to be no "
                               f"larger than self {list(a.shape)} apart from dimension {d}")
    try:
        return Gather.apply(a, dim=d, index=index._data)
    except IndexError as e:
        raise RuntimeError(str(_numpy_index_error(e, a))) from None


def index_select(a, dim, index):
    d = common.wrap_dim(dim, a.ndim, "index_select")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    key = (slice(None),) * d + (index,)
    return getitem(a, key)


def masked_fill(a, mask, value):
    from .pointwise import where
    T = common.tensor_cls()
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if isinstance(value, T):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
        value = value.to(a.dtype)
    else:
        value = a.new_full((), value)
    return where(mask, value, a)


def nonzero(a, as_tuple=False):
    from .._tensor import Tensor
    xp = a._device.xp
    idx = xp.nonzero(a._data)
    if as_tuple:
        return tuple(Tensor._make(i.astype(xp.int64), a._device) for i in idx)
    return Tensor._make(xp.stack(idx, axis=1).astype(xp.int64) if idx else xp.zeros((1, 0), xp.int64), a._device)
