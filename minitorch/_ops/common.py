"""Shared checks of op arguments: device agreement, result dtype, broadcast shapes, dims."""
from __future__ import annotations

import warnings

from .. import _dtype
from .. import parts as _parts
from .._errors import hinted
from .._dtype import _PROMOTE, combine, scalar_dtype

# NumPy warns about overflow, 0/0, log(0), inf - inf, ... where PyTorch gives inf and nan without
# a word: a RuntimeWarning raised inside minitorch's own code is not the learner's business.
# (Warnings their own NumPy code raises are untouched; hot spots also silence NumPy directly.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"minitorch\.")


_TENSOR = None


def tensor_cls():
    # cached: ops call this several times each, and a function-level import costs ~1 us a call
    global _TENSOR
    if _TENSOR is None:
        from .._tensor import Tensor
        _TENSOR = Tensor
    return _TENSOR


def same_device(op, *tensors):
    """PyTorch's rule: all tensors on one device, except that a 0-d CPU tensor may join any."""
    dev = None
    for t in tensors:
        d = t._device
        if dev is None or dev == d:
            dev = d
            continue
        if d.type == "cpu" and t.ndim == 0:
            continue
        if dev.type == "cpu" and _first_is_scalar(tensors, dev):
            dev = d
            continue
        raise hinted(RuntimeError,
                     f"Expected all tensors to be on the same device, but found at least two devices, "
                     f"{_order(dev, d)}!", f"in {op}: move them to one device first, e.g. `b = b.to(a.device)`")
    return dev


def _first_is_scalar(tensors, dev):
    return all(t.ndim == 0 for t in tensors if t._device == dev)


def _order(a, b):
    # PyTorch names the accelerator first
    return f"{b} and {a}" if a.type == "cpu" else f"{a} and {b}"


def result_dtype(*args):
    """The dtype of an op on tensors and Python scalars, by PyTorch's three-tier rule."""
    T = tensor_cls()
    dim_dt = zero_dt = wrap_dt = None
    for x in args:
        if isinstance(x, T):
            d = x.dtype
            if x._data.ndim:
                dim_dt = d if dim_dt is None else _PROMOTE[dim_dt, d]
            else:
                zero_dt = d if zero_dt is None else _PROMOTE[zero_dt, d]
        else:
            d = scalar_dtype(x)
            wrap_dt = d if wrap_dt is None else _PROMOTE[wrap_dt, d]
    return combine(dim_dt, combine(zero_dt, wrap_dt))


def to_device_of(t, dev):
    """A 0-d CPU tensor joining a GPU op is moved there (PyTorch does this implicitly)."""
    return t if t._device == dev else t.to(dev)


def broadcast_shapes(*shapes, op="broadcast_shapes"):
    """The shape all `shapes` broadcast to: align them from the right; each pair of sizes
    must be equal, or one of them 1. Shapes are folded in pairwise, so an error names the
    two that disagree, at the rightmost dim where they do (as PyTorch does)."""
    from .._size import Size
    if _parts.broadcast_shapes is not None:  # a course part (minitorch/parts.py)
        return Size(_parts.broadcast_shapes(*(tuple(s) for s in shapes)))
    out = ()
    for s in shapes:
        out = _broadcast_pair(out, tuple(s), op)
    return Size(out)


def check_fits(shape, *others):
    """An in-place op writes a tensor of `shape`: the broadcast with `others` may not grow it."""
    full = broadcast_shapes(shape, *others)
    if tuple(full) != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def shapes_first(op, *operands):
    """PyTorch broadcasts an op's tensors before it looks for a kernel for their dtypes: a size
    mismatch is the error it reports, even when the dtypes would be refused too."""
    shapes = [t.shape for t in operands if isinstance(t, tensor_cls())]
    if len(shapes) > 1 and any(s != shapes[0] for s in shapes):
        broadcast_shapes(*shapes, op=op)


def refuse_unbroadcastable(op, *operands):
    """Called when NumPy refused an op's operands (a ValueError): raise PyTorch's RuntimeError if
    the tensors' shapes do not broadcast (NumPy's own error is re-raised otherwise)."""
    shapes = [t.shape for t in operands if isinstance(t, tensor_cls())]
    if len(shapes) > 1:
        broadcast_shapes(*shapes, op=op)


def _broadcast_pair(a, b, op):
    ndim = max(len(a), len(b))
    a1 = (1,) * (ndim - len(a)) + a
    b1 = (1,) * (ndim - len(b)) + b
    for i in range(ndim - 1, -1, -1):
        if a1[i] != b1[i] and a1[i] != 1 and b1[i] != 1:
            raise hinted(RuntimeError,
                         f"The size of tensor a ({a1[i]}) must match the size of tensor b ({b1[i]}) at "
                         f"non-singleton dimension {i}",
                         f"{op} could not broadcast shapes {_fmt(a)} and {_fmt(b)}: sizes must be equal or one of "
                         "them 1 (align shapes from the right; add a dimension with unsqueeze() or None-indexing)")
    return tuple(x if x != 1 else y for x, y in zip(a1, b1))


def _fmt(shape):
    return f"[{', '.join(str(n) for n in shape)}]"


def wrap_dim(dim, ndim, op=""):
    """A dim in [-ndim, ndim) made non-negative, or PyTorch's IndexError."""
    n = max(ndim, 1)  # a 0-d tensor accepts dim 0 and -1
    if not -n <= dim < n:
        message = f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        raise hinted(IndexError, message, f"in {op}") if op else IndexError(message)
    return dim % n


def wrap_dims(dim, ndim, op=""):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(wrap_dim(d, ndim, op) for d in dim)
        if len(set(dims)) != len(dims):
            repeated = next(d for i, d in enumerate(dims) if d in dims[:i])
            raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
        return dims if ndim else ()
    d = wrap_dim(dim, ndim, op)  # (a 0-d tensor takes dims -1 and 0, as PyTorch checks them)
    return (d,) if ndim else ()


def check_float_for_grad(dt, op):
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}: only Tensors of floating point dtype can require gradients, got {dt}")


default_float = _dtype.get_default_dtype


# ---- the memory layout of a result: PyTorch's rules -------------------------------------
#
# An elementwise op over tensors that are not all row-major (a transpose, a permute, a step
# slice) lays its result out as PyTorch's TensorIterator does: like its inputs, dense; a copy
# made "like" a tensor (clone, .to(), the *_like factories) keeps that tensor's strides when
# it is dense. NumPy's own choice (order "K") often agrees, but not always (a transposed plus
# a row-major input, size-1 dims): the functions below give PyTorch's answer, and `relayout`
# moves a result there when the two differ. Row-major inputs never need either.

def _dense(shape, strides):
    """PyTorch's is_non_overlapping_and_dense: the elements fill a block of memory exactly once."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    perm = sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d] if shape[d] >= 2 else 0))
    need = 1
    for d in perm:
        if shape[d] < 2:
            return True
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def _contiguous(shape, strides):
    need = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != need:
                return False
            need *= n
    return True


def _channels_last(shape, strides):
    need = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != need:
                return False
            need *= shape[d]
    return True


def channels_last_order(ndim):
    """The dims from fastest to slowest in channels-last memory: C, the spatial dims from the
    last, then N."""
    return (1,) + tuple(range(ndim - 1, 1, -1)) + (0,)


def suggests_channels_last(shape, strides):
    """PyTorch's test (is_channels_last_strides_2d / _3d) that a 4-D or 5-D tensor is an image
    (volume) stored pixel by pixel, what cat and the nn kernels keep: the strides grow along C,
    W, (D,) H, N. Ambiguous layouts, a trivial C or an N111 tensor, count as contiguous."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return False
    low = 0
    for d in channels_last_order(len(shape)):
        if shape[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * shape[d]
    return True


def channels_last_strides(shape):
    return _strides_from(channels_last_order(len(shape)), shape, False)


def _sorted_dims(ndim, swap):
    """The dims from fastest to slowest in memory: insertion sort of ndim-1 .. 0 by `swap(d0, d1)`
    (1: d0 goes after d1, -1: before, 0: ambiguous, keep), as PyTorch sorts them."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _strides_from(perm, shape, skip_ones):
    out = [0] * len(shape)
    step = 1
    for d in perm:
        out[d] = step
        if not skip_ones or shape[d] > 1:
            step *= shape[d]
    return tuple(out)


def like_strides(shape, strides):
    """The strides of a copy of a (shape, strides) tensor made with memory_format=preserve."""
    if _dense(shape, strides):
        return tuple(strides)

    def swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        return -1 if s0 < s1 else 1 if s0 > s1 or shape[d0] > shape[d1] else 0
    return _strides_from(_sorted_dims(len(shape), swap), shape, True)


def result_strides(shape, operands):
    """The strides PyTorch gives the result (of `shape`) of an elementwise op over `operands`:
    (shape, strides) pairs in argument order, a Python number counting as a 0-d one."""
    if all(tuple(s) == tuple(shape) for s, _ in operands):
        if all(_contiguous(s, st) for s, st in operands):
            return _strides_from(range(len(shape) - 1, -1, -1), shape, False)
        if len(shape) == 4 and all(_channels_last(s, st) for s, st in operands):  # images stored NHWC
            return _strides_from((1, 3, 2, 0), shape, False)
        first = tuple(operands[0][1])
        if all(_dense(s, st) and tuple(st) == first for s, st in operands):
            return first
    ndim = len(shape)
    bcast = []
    for s, st in operands:  # broadcast dims get stride 0, as they do in PyTorch
        lead = ndim - len(s)
        full = [0] * lead + [0 if n == 1 and shape[lead + i] != 1 else x for i, (n, x) in enumerate(zip(s, st))]
        bcast.append(full)

    def swap(d0, d1):
        for st in bcast:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0
    return _strides_from(_sorted_dims(ndim, swap), shape, False)


def relayout(arr, strides, xp, copy=False):
    """`arr` with the given element strides (a copy when its own differ, or when `copy`)."""
    if not copy and (arr.size == 0 or tuple(s // arr.itemsize for s in arr.strides) == tuple(strides)):
        return arr
    if arr.size == 0:  # (no element to place: any strides will do)
        return arr.copy()
    span = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides))
    out = xp.lib.stride_tricks.as_strided(xp.empty(span, dtype=arr.dtype), shape=arr.shape,
                                          strides=tuple(s * arr.itemsize for s in strides))
    out[...] = arr
    return out


def elem_strides(arr):
    item = arr.itemsize
    return tuple(s // item for s in arr.strides)


def canonical(arr):
    """Row-major with the strides PyTorch gives a contiguous tensor, size-1 dims included (NumPy's
    c_contiguous flag ignores those, and a view can carry any stride there)."""
    if not arr.flags.c_contiguous:
        return False
    if 1 not in arr.shape or not arr.size:
        return True
    step = arr.itemsize
    for n, st in zip(reversed(arr.shape), reversed(arr.strides)):
        if st != step:
            return False
        step *= n
    return True


def c_ordered(arr):
    """The dims that move in memory (size > 1, stride not 0) go from outer to inner, left to right:
    then PyTorch lays an elementwise result over this operand out row-major."""
    last = None
    for n, st in zip(arr.shape, arr.strides):
        if n != 1 and st != 0:
            if last is not None and not 0 < st < last:
                return False
            last = st
    return True


def row_major(arr, xp):
    """`arr` row-major, with the strides PyTorch reports for it (size-1 dims too: NumPy may give
    those any stride, and NumPy's fancy indexing may lay a result out transposed)."""
    if arr.ndim <= 1 or canonical(arr):
        return arr
    if not arr.flags.c_contiguous:
        arr = xp.ascontiguousarray(arr)
        if canonical(arr):
            return arr
    want, step = [], arr.itemsize
    for n in reversed(arr.shape):
        want.append(step)
        step *= max(n, 1)
    return xp.lib.stride_tricks.as_strided(arr, strides=tuple(reversed(want)))  # only size-1 dims differ
