"""Indexing: reading (`t[key]`) and writing (`t[key] = v`), gather/scatter and friends.

Basic keys (ints, slices, None, Ellipsis) give views, as in PyTorch and NumPy; keys with a
boolean mask or an integer tensor give copies. Out-of-range indices get PyTorch's wording.
"""
from __future__ import annotations

from .. import _dtype
from .. import parts as _parts
from .._errors import hinted
from ..autograd.grad_mode import STATE
from . import common
from ._prim import Primitive
from .views import ViewPrimitive


def index_add_flat(xp, buf, idx, vals):
    """buf[idx] += vals, adding repeated indices up (NumPy's add.at; CuPy's scatter_add)."""
    import numpy as np
    if xp is not np and buf.dtype.itemsize < 4 and buf.dtype.kind in "iub":
        # CuPy's add.at has no 8- and 16-bit loops: add in int64, then wrap back, as PyTorch's integers do
        wide = buf.astype(xp.int64)
        index_add_flat(xp, wide, idx, vals.astype(xp.int64))
        buf[...] = wide.astype(buf.dtype)
        return
    if hasattr(xp, "add") and hasattr(xp.add, "at"):
        xp.add.at(buf, idx, vals)
    else:
        import cupyx
        cupyx.scatter_add(buf, idx, vals)


def _check_mask(a, k, dim):
    if k.dtype is not _dtype.bool:
        return
    for i, n in enumerate(k.shape):
        if dim + i >= a.ndim or a.shape[dim + i] != n:
            have = a.shape[dim + i] if dim + i < a.ndim else "nothing"
            raise hinted(IndexError, f"The shape of the mask {list(k.shape)} at index {i} does not match the shape "
                         f"of the indexed tensor {list(a.shape)} at index {dim + i}",
                         f"the mask's dim {i} has size {n}, the tensor's dim {dim + i} {have}")


def _zero_dim_error(key):
    """PyTorch's error for indexing a 0-d tensor with `key`: a bare int (or slice) has its own; any
    other key counts its indexed dims first ("too many indices")."""
    import numpy as np
    if key.__class__ is slice:
        return IndexError("slice() cannot be applied to a 0-dim tensor.")
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        if key != 0:
            return IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
        return IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                          "C++ to convert a 0-dim tensor to a number")
    return IndexError("too many indices for tensor of dimension 0")


def _numpy_index_error(e, a, key=0):
    msg = str(e)
    if "out of bounds for axis" in msg:
        msg = msg.replace("axis", "dimension")
    elif a.ndim == 0:
        return _zero_dim_error(key)
    elif "too many indices" in msg:
        return hinted(IndexError, f"too many indices for tensor of dimension {a.ndim}", f"its shape is {list(a.shape)}")
    return IndexError(msg)


# ---- reading: t[key] --------------------------------------------------------------------
#
# PyTorch indexes in two steps, and so does minitorch: the basic part of the key (ints,
# slices, None, ...) first, as a view, then the advanced part (index tensors, lists, masks)
# on that view. The step order decides the result's dims: `x[0, :, [0, 1]]` of a (2, 3, 4)
# tensor is x[0] (3, 4) indexed by [:, [0, 1]], shape (3, 2). (NumPy, indexing in one step,
# counts the 0 as an advanced index too and gives (2, 3).) Advanced indices that are not
# side by side put their dims first, in both.

_FULL = slice(None)


def split_key(a, key):
    """`key` as PyTorch's two steps: (basic, adv). `basic` is a NumPy key of ints, slices, None and
    Ellipsis (None when it would select all of `a`); `adv` a NumPy key of slices and index arrays
    over the dims of `a[basic]` (None when the key has no advanced part)."""
    items, consumed = _classify(a, _as_tuple(key))
    if consumed > a.ndim:
        if a.ndim == 0:
            raise _zero_dim_error(key)
        raise hinted(IndexError, f"too many indices for tensor of dimension {a.ndim}", f"its shape is {list(a.shape)}")
    for kind, val, n in items:
        if kind == "badkey":  # (PyTorch's slicing step refuses it, before any index tensor is checked)
            raise val
    basic, adv = [], []
    trivial, advanced, src, ellipsis = True, False, 0, False
    xp = a._device.xp
    for kind, val, n in items:
        if kind == "bad":
            raise val
        if kind == "int":
            basic.append(val)
            trivial = False
            src += 1
        elif kind == "slice":
            basic.append(val)
            adv.append(_FULL)
            trivial = trivial and val == _FULL
            src += 1
        elif kind == "none":
            basic.append(None)
            adv.append(_FULL)
            trivial = False
        elif kind == "ellipsis":
            if not ellipsis:  # PyTorch lets a second `...` stand for no dims
                basic.append(Ellipsis)
                adv.append(Ellipsis)
                src += a.ndim - consumed
                ellipsis = True
        elif kind == "mask":
            _check_mask(a, val, src)
            basic.extend([_FULL] * n)
            adv.append(val._data if n else None)
            advanced = True
            src += n
        elif kind == "bool":  # a new dim of size 1 (True) or 0 (False), indexed as an advanced index
            basic.append(None)
            adv.append(xp.zeros(1 if val else 0, dtype=xp.int64))
            trivial, advanced = False, True
        else:  # an index array
            basic.append(_FULL)
            adv.append(val)
            advanced = True
            src += 1
    if not advanced:
        return tuple(basic), None
    return (None if trivial else tuple(basic)), tuple(adv)


def _as_tuple(key):
    if key.__class__ is tuple:
        return key
    if key.__class__ is list and len(key) < 32 and any(
            isinstance(k, (common.tensor_cls(), list, tuple, slice)) or k is None or k is Ellipsis for k in key):
        import warnings
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                      "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                      "tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result", UserWarning, stacklevel=4)
        return tuple(key)
    return (key,)


def _classify(a, key):
    """Each element of the key as (kind, value, dims it consumes), and the dims consumed in all."""
    T = common.tensor_cls()
    items, consumed = [], 0
    for k in key:
        if k.__class__ is int or (isinstance(k, int) and not isinstance(k, bool)):
            items.append(("int", int(k), 1))
        elif k.__class__ is slice:
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            items.append(("slice", k, 1))
        elif k is None:
            items.append(("none", None, 0))
        elif k is Ellipsis:
            items.append(("ellipsis", None, 0))
        elif isinstance(k, T):
            items.append(_classify_tensor(a, k))
        elif isinstance(k, bool):
            items.append(("bool", k, 0))
        else:
            items.append(_classify_other(a, k))
        consumed += items[-1][2]
    return items, consumed


def _classify_tensor(a, k):
    if k.dtype is _dtype.uint8:
        import warnings
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                      UserWarning, stacklevel=5)
        k = k.bool()  # PyTorch's legacy byte mask
    if k.dtype.is_floating_point:  # (raised once the key's dims are counted, as in PyTorch)
        return ("bad", hinted(IndexError, "tensors used as indices must be long, int, byte or bool tensors",
                              f"got {k.dtype}: convert the index with .long()"), 1)
    if k._device != a._device:
        if k._device.type != "cpu" and a._device.type == "cpu":
            raise RuntimeError(
                f"indices should be either on cpu or on the same device as the indexed tensor "
                f"({a._device}), got indices on {k._device}")
        k = common.tensor_cls()._make(
            a._device._xp_backend.from_host(k._device._xp_backend.to_host(k._data), a._device.index), a._device)
    if k.dtype is _dtype.bool:
        return ("bool", bool(k._data), 0) if k.ndim == 0 else ("mask", k, k.ndim)
    if k.ndim == 0:
        return ("int", int(k._data), 1)
    return ("index", k._data, 1)


def _classify_other(a, k):
    """Lists, ranges, NumPy and CuPy arrays and scalars: as the tensor PyTorch would make of them."""
    import numpy as np
    if isinstance(k, np.bool_):
        return ("bool", bool(k), 0)
    if isinstance(k, np.integer):
        return ("int", int(k), 1)
    if isinstance(k, (list, tuple, range)) or isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__"):
        xp = a._device.xp
        arr = xp.asarray(np.asarray(k) if isinstance(k, (list, tuple, range)) else k)
        if arr.dtype.kind == "f" and arr.size == 0:
            arr = arr.astype(xp.int64)  # x[[]]: an empty index, not a float one
        if arr.dtype.kind not in "biu":
            return ("bad", IndexError("tensors used as indices must be long, int, byte or bool tensors"), 1)
        if arr.dtype.kind == "b":
            return _classify_tensor(a, common.tensor_cls()._make(arr, a._device))
        if arr.ndim == 0:
            return ("int", int(arr), 1)
        return ("index", arr.astype(xp.int64, copy=False), 1)
    return ("badkey", IndexError(  # (raised once the key's dims are counted, as in PyTorch)
        f"only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(k).__name__})"), 1)


class Select(ViewPrimitive):
    """Basic indexing with an int: a view one dimension smaller."""
    _node_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        try:
            return basic_view(a._data, key, a._device.xp)
        except IndexError as e:
            raise _numpy_index_error(e, a, key[0]) from None

    @staticmethod
    def backward(ctx, grad):
        return (IndexPutInto.apply(grad, key=ctx.key, shape=ctx.shape, accumulate=False),)


def basic_view(arr, key, xp):
    if Ellipsis not in key:
        key = key + (Ellipsis,)  # NumPy then returns a 0-d *view* instead of a copied scalar
    out = arr[key]
    return out if None not in key else _new_dim_strides(arr, key, out, xp)


def _new_dim_strides(arr, key, out, xp):
    """A dim that None adds has size 1, so its stride never matters; PyTorch gives it the extent of
    the dim it precedes (size * stride), or 1 at the end, and NumPy 0: make it PyTorch's."""
    shape, strides = arr.shape, arr.strides
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    fixed = list(out.strides)
    src = pos = 0
    for k in key:
        if k is None:
            fixed[pos] = shape[src] * strides[src] if src < len(shape) else arr.itemsize
            pos += 1
        elif k is Ellipsis:
            src += len(shape) - consumed
            pos += len(shape) - consumed
        elif k.__class__ is slice:
            src += 1
            pos += 1
        else:
            src += 1
    fixed = tuple(fixed)
    return out if out.strides == fixed else xp.lib.stride_tricks.as_strided(out, strides=fixed)


class Slice(Select):
    _node_name = "SliceBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        if _parts.slice_view is not None and _plain_slices(a, key):  # a course part (minitorch/parts.py)
            return _slice_by_part(a, key)
        try:
            return basic_view(a._data, key, a._device.xp)
        except IndexError as e:
            raise _numpy_index_error(e, a, key) from None


def _slice_by_part(a, key):
    """The view that the slice_view part computes: each sliced dim's size and stride, and the offset."""
    from .views import _part_view
    shape, strides, offset = tuple(a.shape), a.stride(), 0
    for dim, k in enumerate(key):
        if k != _FULL:
            shape, strides, offset = _parts.slice_view(shape, strides, offset, dim, k.start, k.stop, k.step)
    return _part_view(a, shape, strides, "slice_view", int(offset))


def _plain_slices(a, key):
    """Only slices, one per leading dim, none of them empty (the cases the slice_view part covers)."""
    return len(key) <= a.ndim and all(k.__class__ is slice and (k.step or 1) > 0 and
                                      len(range(a.shape[d])[k]) for d, k in enumerate(key))


class IndexUnsqueeze(Select):
    _node_name = "UnsqueezeBackward0"


class Alias(Select):
    _node_name = "AliasBackward0"


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
    """Advanced indexing (masks, integer tensors) with a key of slices and index arrays: a copy."""
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        try:
            out = a._data[key]
        except IndexError as e:
            raise _numpy_index_error(e, a) from None
        # NumPy may lay the result out transposed (index dims first in memory); PyTorch's is row-major
        return common.row_major(out, a._device.xp)

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)  # the indices are saved for backward, as in PyTorch
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
        check_alive(ctx)
        return (grad[ctx.key],)


def check_alive(ctx):
    """A backward that reads what forward kept outside save_for_backward (indices) gives PyTorch's
    "backward through the graph a second time" error once the graph has been freed."""
    if ctx._freed:
        from ..autograd.function import freed_error
        raise freed_error()


_BASIC = frozenset((int, slice, type(None), type(Ellipsis)))


def getitem(a, key):
    if key.__class__ is int:  # t[i], the commonest key
        return Select.apply(a, key=(key,))
    if key.__class__ is tuple and a._data.ndim:  # t[i, j:k]: only basic parts, the next commonest
        for k in key:
            if k.__class__ not in _BASIC or k.__class__ is slice and k.step is not None:
                break
        else:
            if key.count(Ellipsis) <= 1:
                return _basic_cls(key).apply(a, key=key)
    basic, adv = split_key(a, key)
    if adv is None:
        return _basic_cls(basic).apply(a, key=basic)
    if basic is not None:
        a = _basic_cls(basic).apply(a, key=basic)
    return Index.apply(a, key=adv)


# ---- writing: t[key] = value ------------------------------------------------------------

class IndexPut(Primitive):
    """`a[key] = v` computed out of place, `key` of slices and index arrays: the record an
    indexed assignment leaves."""
    _node_name = "IndexPutBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, v, *, key):
        ctx.key = key
        ctx.v_ndim = v.ndim if isinstance(v, common.tensor_cls()) else 0
        r = a._data.copy()
        r[key] = v._data if isinstance(v, common.tensor_cls()) else v
        return r

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)
        keep = grad._device.xp.ones(grad.shape, dtype=bool)
        keep[ctx.key] = False  # what was overwritten gets no gradient
        gv = grad[ctx.key]
        if gv.ndim < ctx.v_ndim:  # the value had leading size-1 dims (allowed, as in PyTorch)
            gv = gv.reshape((1,) * (ctx.v_ndim - gv.ndim) + tuple(gv.shape))
        return grad * common.tensor_cls()._make(keep, grad._device), gv


def setitem(a, key, value):
    """`a[key] = value`. Unrecorded, a write into the memory; recorded (grad mode, something
    requires grad), PyTorch's steps: fill_/copy_ of the view `a[basic]` (the base's history
    becomes CopySlices), or index_put_ of the advanced part into that view."""
    from .inplace import partial_overlap, partial_overlap_error, run_inplace
    T = common.tensor_cls()
    if not isinstance(value, T):  # (PyTorch converts a Python number first, checked: 300 does not fit uint8)
        value = _setitem_value(a, value, False)
    if key is False:  # PyTorch: `a[False] = v` selects nothing and writes nothing (no check, no new version)
        return a
    if key is True:  # and `a[True] = v` is `a[None] = v`, a copy into a.unsqueeze(0) (casting, as copy_ does)
        key = None
    try:
        basic, adv = split_key(a, key)
    except IndexError as e:  # (an index tensor's own checks, index_put_'s, come after autograd's)
        if str(e).startswith(("The shape of the mask", "tensors used as indices")):
            _refuse_leaf_write(a, key)
        raise
    if adv is not None:
        if basic is not None:  # (PyTorch's slicing step checks the ints of the key before autograd looks)
            try:
                basic_view(a._data, basic, a._device.xp)
            except IndexError as e:
                raise _numpy_index_error(e, a) from None
        _refuse_leaf_write(a, key)
    masked = adv is not None and _masked_fill_key(adv, value)
    value = _setitem_value(a, value, adv is not None and not masked)
    if not (STATE.enabled and (a._requires_grad or isinstance(value, T) and value._requires_grad) or STATE.dual):
        # (forward-mode AD takes the steps below too: copy_ and index_put_ carry the tangents)
        try:
            arr = a._data if basic is None else basic_view(a._data, basic, a._device.xp)
        except IndexError as e:
            raise _numpy_index_error(e, a) from None
        if isinstance(value, T) and value._storage is a._storage and not masked and partial_overlap(arr, value._data):
            raise partial_overlap_error()  # (as PyTorch's copy_ / index_put_)
        _write(a, arr, adv, value, masked)
        a._storage.version += 1
        return a
    whole = basic is None or all(k is Ellipsis or k == _FULL for k in basic)  # x[:] = v writes x itself
    target = a if whole else _basic_cls(basic).apply(a, key=basic)
    if adv is None:
        _check_region(target._data)
        if isinstance(value, T):
            _check_shape(target, value)
            if value.shape != target.shape and value.ndim:  # PyTorch's steps (copy_to), as its graph shows them:
                value = value.view(_without_leading_ones(value.shape))  # the value without leading size-1 dims,
                if value.shape != target.shape:
                    value = value.expand(target.shape)  # broadcast to the region
            target.copy_(value)
        else:
            target.fill_(_scalar_tensor(value, target))
        return a

    def fast():
        _write(target, target._data, adv, value, masked)
    try:
        run_inplace(target, IndexPut, (value,), {"key": adv}, fast, "index_put_", overlap_ok=True)
    except ValueError as e:  # from NumPy's write in IndexPut.forward
        raise _shape_mismatch(target._data, adv, value) from e
    return a


def _masked_fill_key(adv, value):
    """PyTorch writes one value through one bool mask with masked_fill_: then a value of another
    dtype is converted, not refused."""
    T = common.tensor_cls()
    if isinstance(value, T) and value.numel() != 1:
        return False
    arrays = [k for k in adv if k.__class__ is not slice and k is not Ellipsis]
    return len(arrays) == 1 and arrays[0].dtype.kind == "b"


def _scalar_tensor(value, like):
    return common.tensor_cls()._make(like._device.xp.asarray(value, dtype=like._data.dtype), like._device)


def _refuse_leaf_write(a, key):
    """An advanced-index write is index_put_ on `a` (or on a view of it, when the key has basic
    parts too): PyTorch's autograd refuses it for a leaf that requires grad before the index is
    looked at."""
    from .inplace import check_inplace
    if not (STATE.enabled and a._requires_grad):
        return
    T = common.tensor_cls()
    basic = any(k is None or k.__class__ in (int, bool)
                or isinstance(k, T) and k.ndim == 0 and not k.is_floating_point()
                or k.__class__ is slice and k != _FULL for k in _as_tuple(key))
    if basic and a._grad_fn is None and a._base is None:
        raise hinted(RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                     "index_put_: modify a .clone() of the leaf instead, or do it under `with minitorch.no_grad():`")
    check_inplace(a, "index_put_")


def _setitem_value(a, value, strict_dtype):
    """The value ready to write: a tensor on a's device (of a's dtype, where PyTorch converts), or
    a Python number checked against a's dtype."""
    T = common.tensor_cls()
    if isinstance(value, T):
        if value._device != a._device and not (value.ndim == 0 and value._device.type == "cpu"):
            common.same_device("index_put_", a, value)
        value = common.to_device_of(value, a._device)
        if value.dtype is not a.dtype:
            if strict_dtype:
                raise hinted(RuntimeError, f"Index put requires the source and destination dtypes match, got "
                             f"{a.dtype._short} for the destination and {value.dtype._short} for the source.",
                             f"convert the value first, e.g. value.to({a.dtype!r})")
            value = value.to(a.dtype)
        return value
    import numbers
    import numpy as np
    if isinstance(value, (bool, float, complex)) or (isinstance(value, numbers.Integral)
                                                     and not isinstance(value, np.bool_)):
        return _dtype.fill_scalar(value, a.dtype, 1)  # (PyTorch writes a number through a one-element tensor)
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"can't assign a {name} to a {a._type_name()} (assign a number or a tensor: "
                    "wrap lists and arrays with minitorch.tensor(...))")


def _overlapping(arr):
    return arr.size > 1 and any(s == 0 and n > 1 for n, s in zip(arr.shape, arr.strides))


def _check_region(arr):
    if _overlapping(arr):
        raise hinted(RuntimeError,
                     "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                     "location. Please clone() the tensor before performing the operation.",
                     "the indexed region of an expanded tensor; write into a .clone() of it")


def _without_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _strip_leading_ones(value):
    shape = _without_leading_ones(value.shape)
    return value if shape == tuple(value.shape) else value.view(shape)


def _check_shape(target, value):
    """A value must broadcast to the indexed region (after dropping leading size-1 dims): else
    PyTorch's expand error."""
    if isinstance(value, common.tensor_cls()):
        _strip_leading_ones(value.detach()).expand(target.shape)


def _write(a, arr, adv, value, masked):
    """The unrecorded write of `value` into `arr` (a's memory, or a view of it)."""
    T = common.tensor_cls()
    v = value._data if isinstance(value, T) else value
    if adv is None:
        _check_region(arr)
        if isinstance(value, T):
            _check_shape(T._make(arr, a._device), value)
            v = _strip_leading_ones(value)._data
        arr[...] = v
        return
    if _overlapping(arr):
        import warnings
        kinds = [("index_put_", "tensor[indices] = tensor")] + ([("masked_fill_", "tensor[mask] = scalar")]
                                                                if masked else [])
        for name, example in kinds:  # index_put_ warns, then the masked_fill_ it hands over to does
            warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor before "
                          f"performing this operation. This also applies to advanced indexing e.g. {example}",
                          UserWarning, stacklevel=4)
    try:
        arr[adv] = v
    except IndexError as e:
        write_until_out_of_range(a._device.xp, arr, adv, v)
        raise _numpy_index_error(e, a) from None
    except ValueError as e:
        raise _shape_mismatch(arr, adv, value) from e


def write_until_out_of_range(xp, arr, key, v, accumulate=False):
    """PyTorch's index_put_ kernel checks each index as it writes them, in order: the positions
    before the first index out of range are written when it raises. So they are here, for a key of
    index arrays (NumPy checks them all first, and writes nothing)."""
    if not isinstance(key, tuple) or not key or not all(getattr(k, "dtype", None) is not None and k.dtype.kind in "iu"
                                             for k in key):
        return
    try:
        idx = xp.broadcast_arrays(*key)
        vals = xp.broadcast_to(v, idx[0].shape + arr.shape[len(key):])
    except ValueError:
        return  # a shape error comes first
    idx = [i.reshape(-1) for i in idx]
    ok = xp.ones(idx[0].shape, bool)
    for i, n in zip(idx, arr.shape):
        ok &= (i >= -n) & (i < n)
    first = int(xp.argmin(ok)) if idx[0].size else 0
    if first == 0:
        return
    at = tuple(i[:first] for i in idx)
    if accumulate:
        index_add_flat(xp, arr, at, vals.reshape((-1,) + arr.shape[len(key):])[:first])
    else:
        arr[at] = vals.reshape((-1,) + arr.shape[len(key):])[:first]


def _shape_mismatch(arr, adv, value):
    vs = list(value.shape) if isinstance(value, common.tensor_cls()) else []
    return RuntimeError(f"shape mismatch: value tensor of shape {vs} cannot be broadcast to indexing result of "
                        f"shape {list(arr[adv].shape)}")


# ---- gather / scatter / select ---------------------------------------------------------

class Gather(Primitive):
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, *, dim, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index
        if index.size == 0:  # (an empty index may have any rank)
            return a._device.xp.zeros(index.shape, dtype=a._data.dtype)
        src, ix = at_least_1d(a._data), at_least_1d(index)  # (PyTorch counts a 0-d tensor as one element)
        if ix.shape != src.shape:  # PyTorch lets the index be smaller than the input off `dim`
            src = src[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(ix.shape))]
        return a._device.xp.take_along_axis(src, ix, axis=dim).reshape(index.shape)

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)
        return (scatter_along(grad, ctx.index, ctx.dim, ctx.shape, add=True),)


def at_least_1d(arr):
    """A 0-d array as the 1-element 1-d one PyTorch's gather and scatter take it for."""
    return arr.reshape(1) if arr.ndim == 0 else arr


class ScatterAlong(Primitive):
    """zeros(shape) with grad placed along `dim` at `index` (the backward of gather and max)."""
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, *, index, dim, shape, add):
        ctx.index, ctx.dim = index, dim
        xp = g._device.xp
        ix = at_least_1d(index)
        z = xp.zeros(tuple(shape) or (1,), dtype=g._data.dtype)
        vals = g._data.reshape(ix.shape)
        if ix.size == 0:
            pass
        elif add:
            idx = _flat_positions(xp, ix, dim, z.shape)
            index_add_flat(xp, z.reshape(-1), idx.reshape(-1), vals.reshape(-1))
        else:
            xp.put_along_axis(z, ix, vals, axis=dim)
        return z.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)
        return (Gather.apply(grad, dim=ctx.dim, index=ctx.index),)


def _flat_positions(xp, index, dim, shape):
    """For an index array along `dim`, the flat position in `shape` of every entry."""
    k = index.ndim  # the open grids of indices(sparse=True), which CuPy lacks: arange per dim
    grids = [xp.arange(n).reshape((1,) * d + (n,) + (1,) * (k - d - 1)) for d, n in enumerate(index.shape)]
    pos = 0
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        coord = index if d == dim else grids[d]
        pos = pos + coord * stride
        stride *= shape[d]
    return xp.broadcast_to(pos, index.shape)


def scatter_along(grad, index, dim, shape, add=False):
    return ScatterAlong.apply(grad, index=index, dim=dim, shape=tuple(shape), add=add)


def gather(input, dim=None, index=None, *, axis=None, sparse_grad=False):
    """PyTorch's checks in its order: the dim, the index's dtype (an empty index may have any), then
    its shape (ranks equal, a 0-d tensor counting as 1-d; no larger than the input off `dim`), then
    every index in range."""
    dim = dim if axis is None else axis
    d = common.wrap_dim(dim, input.ndim, "gather")
    if index.numel() == 0:
        return Gather.apply(input, dim=d, index=index._data.astype(input._device.xp.int64))
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise hinted(RuntimeError, "gather(): Expected dtype int32/int64 for index",
                     f"got {index.dtype}: convert the index with .long()")
    check_no_larger(input, d, index, "gather")
    idx = common.to_device_of(index, input._device)._data.astype(input._device.xp.int64, copy=False)
    check_along(idx, input.shape[d] if input.ndim else 1, d, "gather")
    return Gather.apply(input, dim=d, index=idx)


def check_no_larger(a, d, index, op, src=None):
    """gather's and scatter's shape rule: index, input (and src) of one rank, a 0-d tensor counting as
    1-d; the index no larger than the input off `dim` (and than src along every dim)."""
    def rank(t):
        return max(t.ndim, 1)

    def size(t, i):
        return t.shape[i] if t.ndim else 1
    what = "input" if op == "gather" else "self"
    if rank(index) != rank(a):
        raise hinted(RuntimeError, f"Index tensor must have the same number of dimensions as {what} tensor",
                     f"{op}: index has {index.ndim} dims, {what} {a.ndim}")
    if op == "gather":
        for i in range(rank(a)):
            if i != d and size(index, i) > size(a, i):
                raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index.shape)} to be "
                                   f"no larger than self {list(a.shape)} apart from dimension {d}")
        return
    wrong = False
    for i in range(rank(a)):  # PyTorch's loop: it asks src for its size along each dim of self
        if i != d and size(index, i) > size(a, i):
            wrong = True
            break
        if src is not None:
            if src.ndim and i >= src.ndim:
                raise hinted(IndexError, f"Dimension out of range (expected to be in range of [{-src.ndim}, "
                             f"{src.ndim - 1}], but got {i})", f"{op}: src has {src.ndim} dims, self {a.ndim}")
            if size(index, i) > size(src, i):
                wrong = True
                break
    if src is not None:
        if rank(src) != rank(index):
            raise hinted(RuntimeError, "Index tensor must have the same number of dimensions as src tensor",
                         f"{op}: index has {index.ndim} dims, src {src.ndim}")
    if wrong:
        also = f" and to be no larger size than src {list(src.shape)}" if src is not None else ""
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} apart "
                           f"from dimension {d}{also}")


def first_outside(idx, low, high):
    """The first index, in order, outside [low, high), or None."""
    flat = idx.reshape(-1)
    bad = (flat < low) | (flat >= high)
    if not flat.size or not bool(bad.any()):
        return None
    return int(flat[int(bad.argmax())])


def check_along(idx, n, d, op):
    """gather's and scatter's range check: every index in [0, n) (no negative ones, unlike t[idx])."""
    bad = first_outside(idx, 0, n)
    if bad is not None:
        raise hinted(RuntimeError, f"index {bad} is out of bounds for dimension {d} with size {n}",
                     f"{op} takes indices in [0, {n}) along dim {d}, no negative ones")


def index_select(input, dim=None, index=None, *, axis=None):
    """PyTorch's checks in its order: the dim, the index's rank, one index for a 0-d input, the
    index's dtype, then the range, with the error PyTorch's kernel for that case raises."""
    from .scatter import IndexSelect  # (scatter.py builds on this module)
    dim = dim if axis is None else axis
    T = common.tensor_cls()
    if not isinstance(index, T):
        raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    d = common.wrap_dim(dim, input.ndim, "index_select")
    if index.ndim > 1:
        raise hinted(IndexError, "index_select(): Index is supposed to be a vector",
                     f"got an index of shape {list(index.shape)}: flatten it first")
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise hinted(RuntimeError, "index_select(): Expected dtype int32 or int64 for index",
                     f"got {index.dtype}: convert the index with .long()")
    idx = common.to_device_of(index, input._device)._data.reshape(-1).astype(input._device.xp.int64, copy=False)
    _check_select_range(input, d, idx)
    return IndexSelect.apply(input, dim=d, index=idx)


def _check_select_range(a, d, idx):
    """index_select's range check takes one of three forms in PyTorch's kernels: an input of 2 or more
    dims that is empty, or selected along dim 1, gets a RuntimeError naming the index; the rest an
    IndexError that does not."""
    n = a.shape[d] if a.ndim else 1
    hint = f"index_select takes indices in [0, {n}) along dim {d}, no negative ones"
    if a.ndim > 1 and idx.size == 0:
        return
    if a.ndim > 1 and a.numel() == 0 and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = first_outside(idx, 0, n)
    if bad is None:
        return
    if a.ndim > 1 and (a.numel() == 0 or d == 1):
        raise hinted(RuntimeError, f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}", hint)
    raise hinted(IndexError, "index out of range in self", f"index {bad}: {hint}")


class MaskedFill(Primitive):
    """`a` with `value` where `mask` is True (MaskedFillBackward0): the gradient passes where the
    mask is False; a tensor value gets the sum of the rest."""
    _node_name = "MaskedFillBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, value, *, mask):
        ctx.mask = mask
        xp = a._device.xp
        v = value._data if isinstance(value, common.tensor_cls()) else value
        return common.row_major(xp.where(mask, xp.asarray(v, dtype=a._data.dtype), a._data), xp)

    @staticmethod
    def backward(ctx, grad):
        check_alive(ctx)
        m = common.tensor_cls()._make(ctx.mask, grad._device)
        gv = grad.masked_fill(~m, 0.0).sum() if ctx.needs_input_grad[1] else None
        return (grad.masked_fill(m, 0.0) if ctx.needs_input_grad[0] else None), gv


class MaskedFillTensor(MaskedFill):
    _node_name = "MaskedFillBackward1"  # PyTorch's name when the value is a tensor


def masked_fill(input, mask, value, *, _in_place=False):
    T = common.tensor_cls()
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if isinstance(value, T):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.ndim} dimension(s).")
        original_value, value = value, common.to_device_of(value, input._device).to(input.dtype)
    else:
        value = _dtype.checked_scalar(value, input.dtype)
    mask = common.to_device_of(mask, input._device)
    shape = common.broadcast_shapes(input.shape, mask.shape, op="masked_fill")
    if shape != input.shape:  # in place, the mask may broadcast over a, never a over the mask
        if _in_place:
            raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}")
        input = input.expand(shape)
    if isinstance(value, T):  # (PyTorch's kernel writes value.item(), converted checked: -2. does not fit uint8)
        _dtype.checked_scalar(original_value.item(), input.dtype)
    return (MaskedFillTensor if isinstance(value, T) else MaskedFill).apply(input, value, mask=mask._data)


def nonzero(input, as_tuple=False):
    from .._tensor import Tensor
    xp = input._device.xp
    if input.ndim == 0:  # PyTorch treats a 0-d tensor as a 1-element 1-d one, with no index columns
        n = int(bool(input._data))
        if as_tuple:  # (a view of the (n, 1) column PyTorch makes, as for any other input)
            return Tensor._make(xp.zeros((n, 1), xp.int64), input._device).unbind(1)
        return Tensor._make(xp.zeros((n, 0), xp.int64), input._device)
    # one (n, ndim) tensor laid out column by column (strides (1, n)), as PyTorch's is; as_tuple
    # gives views of its columns
    cols = Tensor._make(xp.stack(xp.nonzero(input._data)).astype(xp.int64).T, input._device)
    return cols.unbind(1) if as_tuple else cols
