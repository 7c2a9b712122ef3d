"""More shape ops: roll, tril/triu, diagonal and diag, trace, unfold, broadcast_to and
broadcast_tensors, meshgrid, repeat_interleave, diff, ravel, and the in-place view ops
(unsqueeze_, squeeze_, transpose_) and resize_.

diagonal and unfold are views (strided windows onto the same memory), as in PyTorch; the rest
copy, or are compositions of views (expand, reshape) that keep their own grad_fn names.
"""
from __future__ import annotations

import math
import warnings

from ..amp import autocast_mode as _amp  # (autocast: the ops that run in float16 / float32)
from .. import _dtype
from ..autograd.grad_mode import STATE
from . import common, views
from ._prim import Primitive
from .index import index_add_flat
from .inplace import check_inplace
from .views import ViewPrimitive, _as_strided


class Roll(Primitive):
    _node_name = "RollBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        out = a._device.xp.roll(a._data, shifts, axis=dims)
        return out if out.flags.c_contiguous else out.copy(order="C")  # (a new row-major tensor, as PyTorch's)

    @staticmethod
    def backward(ctx, grad):
        back = -ctx.shifts if ctx.dims is None else tuple(-s for s in ctx.shifts)
        return (Roll.apply(grad, shifts=back, dims=ctx.dims),)


class Tril(Primitive):
    _node_name = "TrilBackward0"
    reads_input_in_backward = False
    fn = "tril"

    @classmethod
    def forward(cls, ctx, a, *, k):
        ctx.k = k
        return getattr(a._device.xp, cls.fn)(a._data, k)  # the last two dims, batched

    @classmethod
    def backward(cls, ctx, grad):
        return (cls.apply(grad, k=ctx.k),)


class Triu(Tril):
    _node_name = "TriuBackward0"
    fn = "triu"


def _diagonal_of(xp, arr, offset, d1, d2):
    """A writable view of arr's diagonal: dims d1 and d2 removed, the diagonal appended last
    (NumPy's own diagonal() is read-only)."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    keep = [d for d in range(arr.ndim) if d not in (d1, d2)]
    shape = tuple(arr.shape[d] for d in keep) + (length,)
    strides = tuple(arr.strides[d] for d in keep) + (arr.strides[d1] + arr.strides[d2],)
    if offset and length:  # start at the first diagonal element: slicing keeps it a view
        d, k = (d2, offset) if offset > 0 else (d1, -offset)
        arr = arr[(slice(None),) * d + (slice(k, None),)]
    return _as_strided(xp, arr, shape, strides)


class Diagonal(ViewPrimitive):
    _node_name = "DiagonalBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, offset, d1, d2):
        ctx.shape, ctx.offset, ctx.d1, ctx.d2 = a.shape, offset, d1, d2
        return _diagonal_of(a._device.xp, a._data, offset, d1, d2)

    @staticmethod
    def backward(ctx, grad):
        return (DiagonalScatter.apply(grad, shape=ctx.shape, offset=ctx.offset, d1=ctx.d1, d2=ctx.d2),)


class DiagonalScatter(Primitive):
    """zeros(shape) with `src` on the diagonal (offset, d1, d2): diag_embed, and the backward
    of diagonal (whose backward is diagonal again)."""
    _node_name = "DiagEmbedBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, src, *, shape, offset, d1, d2):
        ctx.offset, ctx.d1, ctx.d2 = offset, d1, d2
        xp = src._device.xp
        z = xp.zeros(shape, dtype=src._data.dtype)
        _diagonal_of(xp, z, offset, d1, d2)[...] = src._data
        return z

    @staticmethod
    def backward(ctx, grad):
        return (diagonal(grad, ctx.offset, ctx.d1, ctx.d2),)


class DiagonalCopy(Primitive):
    _node_name = "DiagonalBackward0_copy"  # diag() of a matrix: a copy of its diagonal
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, offset):
        ctx.shape, ctx.offset = a.shape, offset
        return _diagonal_of(a._device.xp, a._data, offset, 0, 1).copy()

    @staticmethod
    def backward(ctx, grad):
        return (DiagonalScatter.apply(grad, shape=ctx.shape, offset=ctx.offset, d1=0, d2=1),)


class Trace(Primitive):
    _node_name = "TraceBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, dtype):
        ctx.shape = a.shape
        return a._device.xp.trace(a._data, dtype=dtype.np)

    @staticmethod
    def backward(ctx, grad):
        n = min(ctx.shape)
        return (DiagonalScatter.apply(grad.expand(n), shape=ctx.shape, offset=0, d1=0, d2=1),)


def _windows(xp, arr, dim, size, step):
    """Windows of `size` every `step` along `dim`, as a new last dim: a strided view of arr."""
    if arr.ndim == 0:
        return arr.reshape(1)
    shape, strides = list(arr.shape), list(arr.strides)
    shape[dim] = (shape[dim] - size) // step + 1
    shape.append(size)
    strides.append(strides[dim])
    strides[dim] *= step
    return _as_strided(xp, arr, tuple(shape), tuple(strides))


class Unfold(ViewPrimitive):
    _node_name = "UnfoldBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, dim, size, step):
        ctx.shape, ctx.dim, ctx.size, ctx.step = a.shape, dim, size, step
        return _windows(a._device.xp, a._data, dim, size, step)

    @staticmethod
    def backward(ctx, grad):
        return (UnfoldSum.apply(grad, shape=ctx.shape, dim=ctx.dim, size=ctx.size, step=ctx.step),)


class UnfoldSum(Primitive):
    """Overlapping windows added back into a tensor of the input's shape (unfold's backward)."""
    _node_name = "UnfoldBackwardBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, g, *, shape, dim, size, step):
        ctx.dim, ctx.size, ctx.step = dim, size, step
        xp = g._device.xp
        z = xp.zeros(shape, dtype=g._data.dtype)
        pos = xp.arange(z.size).reshape(shape)  # where each element of z sits, row-major
        index_add_flat(xp, z.reshape(-1), _windows(xp, pos, dim, size, step).reshape(-1), g._data.reshape(-1))
        return z

    @staticmethod
    def backward(ctx, grad):
        return (unfold(grad, ctx.dim, ctx.size, ctx.step),)


# ---- public functions ------------------------------------------------------------------

def roll(input, shifts, dims=None):
    single = isinstance(shifts, int)
    shifts_t = (shifts,) if single else tuple(shifts)
    if dims is None or dims == () or dims == []:  # (no dims, PyTorch's default []: roll the flattened tensor)
        if len(shifts_t) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts_t)}, dims:0")
        return Roll.apply(input, shifts=int(shifts_t[0]), dims=None)
    dims_t = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts_t:
        raise RuntimeError("`shifts` required")
    if len(shifts_t) != len(dims_t):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts_t)}, dims:{len(dims_t)}")
    if not input.numel():  # (PyTorch's kernel copies an empty tensor before it looks at the dims)
        return Roll.apply(input, shifts=tuple(int(s) for s in shifts_t), dims=(0,) * len(dims_t))
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims_t[0]} but tensor has no dimensions")
    dims_t = tuple(common.wrap_dim(d, input.ndim, "roll") for d in dims_t)
    return Roll.apply(input, shifts=tuple(int(s) for s in shifts_t), dims=dims_t)


def _tri(cls, a, diagonal, op):
    if a.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    return cls.apply(a, k=int(diagonal))


def tril(input, diagonal=0):
    return _tri(Tril, input, diagonal, "tril")


def triu(input, diagonal=0):
    return _tri(Triu, input, diagonal, "triu")


def _diag_dims(a_ndim, dim1, dim2, op="diagonal"):
    d1, d2 = common.wrap_dim(dim1, a_ndim, op), common.wrap_dim(dim2, a_ndim, op)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):
    d1, d2 = _diag_dims(input.ndim, dim1, dim2)
    return Diagonal.apply(input, offset=int(offset), d1=d1, d2=d2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.ndim + 1
    d1, d2 = _diag_dims(n, dim1, dim2)
    size = input.shape[-1] + abs(offset) if input.ndim else 1 + abs(offset)
    shape, rest = [], iter(input.shape[:-1])
    for d in range(n):
        shape.append(size if d in (d1, d2) else next(rest))
    src = input if input.ndim else input.reshape(1)
    return DiagonalScatter.apply(src, shape=tuple(shape), offset=int(offset), d1=d1, d2=d2)


def diag(input, diagonal=0):
    if input.ndim == 1:
        n = input.shape[0] + abs(diagonal)
        return DiagonalScatter.apply(input, shape=(n, n), offset=int(diagonal), d1=0, d2=1)
    if input.ndim == 2:
        return DiagonalCopy.apply(input, offset=int(diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@_amp.float32_cpu
def trace(input):
    if input.dtype is _dtype.bool:  # (PyTorch checks the dtype first)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    dt = input.dtype if input.dtype.is_floating_point else _dtype.int64  # integers add up in int64
    return Trace.apply(input, dtype=dt)


def unfold(a, dimension, size, step):
    d = common.wrap_dim(dimension, a.ndim, "unfold")
    n = a.shape[d] if a.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(a, dim=d, size=int(size), step=int(step))


def _expand(a, size):
    """expand, recorded as ExpandBackward0 even when nothing grows (as PyTorch records it)."""
    out = views.expand(a, tuple(size))  # the checks, and -1 resolved
    return out if out.shape != a.shape else views.Expand.apply(a, shape=tuple(out.shape))


def broadcast_to(input, size):
    return _expand(input, size)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = common.broadcast_shapes(*(t.shape for t in tensors))
    # a tensor that already has the shape is returned as it is, as PyTorch does
    return tuple(t if t.shape == shape else _expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t._device != tensors[0]._device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    # "xy" (Cartesian) indexing: the first two inputs vary along dims 1 and 0
    n = len(tensors)
    along = list(range(n))
    if indexing == "xy" and n >= 2:
        along[0], along[1] = 1, 0
    shape = [0] * n
    for t, d in zip(tensors, along):
        shape[d] = t.numel()
    outs = []
    for t, d in zip(tensors, along):
        view_shape = [1] * n
        view_shape[d] = -1
        outs.append(_expand(views.reshape(t, view_shape), tuple(shape)))
    return tuple(outs)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    from .._factories import arange
    from .._tensor import contiguous_format
    T = common.tensor_cls()
    if repeats is None:  # repeat_interleave(counts): arange(len) with each index repeated
        if input.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(arange(input.shape[0], device=input.device), input, 0)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = common.wrap_dim(dim, input.ndim, "repeat_interleave")
        if input.ndim == 0:  # PyTorch's kernel then reads a dim the 0-d tensor does not have
            if isinstance(repeats, T):
                raise IndexError("Dimension specified as 0 but tensor has no dimensions")
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if isinstance(repeats, T):
        return _repeat_by_counts(input, d, repeats, output_size)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # one count for all: each element becomes a new dim of size `repeats`, copied, then flattened in
    # (a view of that copy, as in PyTorch)
    shape = list(input.shape)
    shape.insert(d + 1, repeats)
    out_shape = list(input.shape)
    out_shape[d] *= repeats
    copy = views.expand(views.unsqueeze(input, d + 1), shape).clone(memory_format=contiguous_format)
    return views.reshape(copy, out_shape)


def _repeat_by_counts(a, d, repeats, output_size):
    """Element i along d repeated repeats[i] times: an index_select with each index repeated."""
    from .index import index_select
    T = common.tensor_cls()
    if repeats.dtype.is_floating_point or repeats.dtype is _dtype.bool:
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{repeats.dtype._short}'")
    if repeats.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.numel() == 1:  # one count for every element
        repeats = repeats.reshape(1).expand(a.shape[d])
    if repeats.shape[0] != a.shape[d]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats.shape[0]} and input.size({d}) = {a.shape[d]}")
    if bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    xp = a._device.xp
    ends = xp.cumsum(common.to_device_of(repeats, a._device)._data)
    total = int(ends[-1]) if ends.size else 0
    if output_size is not None and output_size != total:
        raise RuntimeError(f"allocated size does not match required size (output_size={output_size}, needed {total})")
    # output position k repeats the element whose run of repeats covers k
    idx = xp.searchsorted(ends, xp.arange(total), side="right")
    return index_select(a, d, T._make(idx.astype(xp.int64), a._device))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    from .join import cat
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = common.wrap_dim(dim, input.ndim, "diff")
    parts = [p for p in (prepend, input, append) if p is not None]
    parts = [p if p.ndim else p.expand(*input.shape[:d], 1, *input.shape[d + 1:]) for p in parts]
    out = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = out.shape[d]
        if length == 0:
            break
        hi, lo = out.narrow(d, 1, length - 1), out.narrow(d, 0, length - 1)
        out = (hi ^ lo) if out.dtype is _dtype.bool else hi - lo
    return out


def ravel(input):
    return views.reshape(input.contiguous(), -1)  # PyTorch's: a view of the contiguous tensor (of a copy if need be)


# ---- in-place view ops: the tensor object itself becomes the view ------------------------

class UnsqueezeInplace(views.Unsqueeze):
    _node_name = "UnsqueezeBackward1"


class SqueezeInplace(views.Squeeze):
    _node_name = "SqueezeBackward3"


class SqueezeDimInplace(views.Squeeze):
    _node_name = "SqueezeBackward4"


class SqueezeDimsInplace(views.Squeeze):
    _node_name = "SqueezeBackward5"


class TransposeInplace(views.Permute):
    _node_name = "TransposeBackward1"


def _become(self, cls, op, **kw):
    """Make `self` the result of view op `cls` on itself: same object, new shape and strides,
    history rebased onto the view's node (PyTorch's in-place view ops)."""
    check_inplace(self, op)  # (a leaf, or a view of one, that requires grad is refused)
    v = cls.apply(self, **kw)
    self._data = v._data
    self._storage.version += 1
    if v._grad_fn is not None:
        self._grad_fn, self._output_nr = v._grad_fn, 0
        if self._base is not None:
            self._seen_version = self._storage.version  # (its new grad_fn is the view op's, not a renewal)
    return self


def unsqueeze_(self, dim):
    check_inplace(self, "unsqueeze_")  # (before the dim is checked, as in PyTorch)
    return _become(self, UnsqueezeInplace, "unsqueeze_", dim=common.wrap_dim(dim, self.ndim + 1, "unsqueeze_"))


def squeeze_(self, dim=None):
    check_inplace(self, "squeeze_")
    if dim is None:
        dims, cls = tuple(i for i, n in enumerate(self.shape) if n == 1), SqueezeInplace
    else:
        cls = SqueezeDimsInplace if isinstance(dim, (tuple, list)) else SqueezeDimInplace
        dims = tuple(d for d in common.wrap_dims(dim, self.ndim, "squeeze_") if self.shape[d] == 1)
    return _become(self, cls, "squeeze_", dims=dims)


class AsStridedInplace(views.AsStrided):
    _node_name = "AsStridedBackward1"


def as_strided_(self, size, stride, storage_offset=None):
    offset = self.storage_offset() if storage_offset is None else storage_offset
    return _become(self, AsStridedInplace, "as_strided_", size=tuple(size), stride=tuple(stride), offset=offset)


def transpose_(self, dim0, dim1):
    check_inplace(self, "transpose_")
    n = self.ndim
    d0, d1 = common.wrap_dim(dim0, n, "transpose_"), common.wrap_dim(dim1, n, "transpose_")
    dims = list(range(n))
    if n:
        dims[d0], dims[d1] = dims[d1], dims[d0]
    return _become(self, TransposeInplace, "transpose_", dims=tuple(dims))


def resize_(self, *sizes, memory_format=None, **kw):
    """Give the tensor a new shape in place, keeping its first elements (row-major); new
    elements, when it grows, are uninitialised (zeros here)."""
    if kw:  # resize_(size=(2, 3)), as PyTorch names it
        from .._factories import sizes_by_keyword
        sizes = sizes_by_keyword(sizes, kw, "resize_")
    shape = views._shape_args(sizes, "resize_")
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if tuple(shape) == tuple(self.shape):
        return self
    xp = self._device.xp
    n = math.prod(shape)
    root = views._root_array(self)
    start = self.storage_offset() if self._data.size else 0
    flat = self._data.reshape(-1) if self._data.flags.c_contiguous else None
    memory = views.memory_order(root)
    if self._storage.root is None and self._base is None:
        self._storage.root = root  # (a resize_ that shrinks keeps the rest of the memory, for one that grows back)
    if flat is not None and n <= flat.size:
        self._data = flat[:n].reshape(shape)
    elif memory is not None and start + n <= memory.size:
        # the memory read as row-major from the tensor's offset (whatever its strides were), as in PyTorch
        self._data = memory[start:start + n].reshape(shape)
    else:
        if not self._storage.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")
        grown = xp.zeros(n, dtype=self._data.dtype)
        old = self._data.reshape(-1) if memory is None else memory[start:]
        grown[:min(n, old.size)] = old[:n]
        self._data = grown.reshape(shape)
    self._storage.version += 1
    return self
