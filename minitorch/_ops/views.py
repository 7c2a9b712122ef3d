"""Views: new shapes and strides over the same memory.

A view's array is a NumPy/CuPy view of its base's array, so writes through one show in the
other, and `stride()` / `data_ptr()` are the real ones. Every view shares its base's storage
record (and so its version counter) and remembers its base in `_base`.
"""
from __future__ import annotations

import math
import operator

from .. import parts as _parts
from .._errors import hinted
from ..autograd.grad_mode import STATE
from . import common
from . import _prim
from ._prim import MultiOutputPrimitive, Primitive


class ViewPrimitive(Primitive):
    """A primitive whose output aliases its input's memory."""

    @classmethod
    def apply(cls, a, **kw):
        out = super().apply(a, **kw)
        st = out._storage = a._storage
        out._base = a if a._base is None else a._base
        out._seen_version = st.version  # see autograd.function.refresh_view
        if a._no_grad_view or not STATE.enabled:
            out._no_grad_view = True
            if a._requires_grad and not STATE.enabled:
                # PyTorch: a view of a tensor that requires grad does too, even under no_grad (its
                # gradient goes nowhere: it has no history, and in-place ops on it are refused), when
                # the memory's owner (the base) does: a view of a leaf that is itself a view may not
                out._requires_grad = out._base._requires_grad
        elif a._multi_view is not None and (out.grad_fn is not None or a._multi_view is False):
            out._multi_view = a._multi_view
        return out


class MultiViewPrimitive(MultiOutputPrimitive):
    """A primitive whose outputs are several views of its input (split, unbind). As in PyTorch,
    in-place ops on them are refused while they are in the graph: one node owns them all."""

    @classmethod
    def apply(cls, a, **kw):
        outs = super().apply(a, **kw)
        base = a if a._base is None else a._base
        quiet = a._no_grad_view or not STATE.enabled
        for o in outs:
            o._storage, o._base, o._seen_version = a._storage, base, a._storage.version
            if quiet:
                o._no_grad_view = True
                o._requires_grad = a._requires_grad and not STATE.enabled and base._requires_grad or o._requires_grad
            elif o.grad_fn is not None:
                o._multi_view = o
            else:  # (not in the graph: False, for the error an in-place op on it gets once its base requires grad)
                o._multi_view = False
        return outs


def _as_strided(xp, arr, shape, strides_bytes):
    return xp.lib.stride_tricks.as_strided(arr, shape=shape, strides=strides_bytes)


def _part_view(a, shape, strides, part, offset=0):
    """The view of `a` with the shape, strides and offset (in elements, from a's first element)
    a course part computed (minitorch/parts.py). It may reach only the memory `a` reaches: strides
    that would read outside it are refused, before NumPy would read whatever lies there."""
    def extent(sh, st):
        if not all(sh):
            return 0, 0
        return (sum(min(0, (n - 1) * s) for n, s in zip(sh, st)), sum(max(0, (n - 1) * s) for n, s in zip(sh, st)))
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    (lo, hi), (a_lo, a_hi) = extent(shape, strides), extent(a.shape, a.stride())
    if len(shape) != len(strides) or offset + lo < a_lo or offset + hi > a_hi:
        raise RuntimeError(f"{part} gave strides {list(strides)} (offset {offset}) for shape {list(shape)}: that "
                           f"view would read outside the memory of the tensor (shape {list(a.shape)}, strides "
                           f"{list(a.stride())})")
    if offset:
        return _strided_from_storage(a, shape, strides, a.storage_offset() + offset)
    item = a._data.itemsize
    return _as_strided(a._device.xp, a._data, shape, tuple(s * item for s in strides))


def infer_shape(shape, numel, op="view"):
    """Resolve one -1 in a requested shape, or raise PyTorch's error."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_fmt(shape)}")
    if neg:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // rest
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def view_strides(shape, strides, new_shape):
    """Strides that let `new_shape` reinterpret memory laid out as (shape, strides), or None.

    The rule PyTorch uses: a group of old dims can be re-split only if it is contiguous
    within itself (each dim's stride = next stride * next size).
    """
    if not shape:
        return [1] * len(new_shape)
    if math.prod(shape) == 0:  # any stride would do: PyTorch keeps the old ones, or takes row-major ones
        if tuple(shape) == tuple(new_shape):
            return list(strides)
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1] if strides else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return new_strides


def contiguous_strides(shape):
    """Row-major strides as PyTorch computes them (a size-0 or size-1 dim counts as size 1)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


class View(ViewPrimitive):
    _node_name = "ViewBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a.shape
        arr = a._data
        if arr.flags.c_contiguous and _parts.contiguous_strides is not None:  # a course part (minitorch/parts.py)
            return _part_view(a, shape, _parts.contiguous_strides(shape), "contiguous_strides")
        if arr.size and common.canonical(arr) or _parts.view_strides is not None and (
                arr.flags.c_contiguous or not arr.size):
            return arr.reshape(shape)  # row-major stays row-major: NumPy's strides are PyTorch's
        # (size-1 dims of a row-major tensor may carry any stride: PyTorch's rule decides the view's)
        strides = (_parts.view_strides or view_strides)(a.shape, a.stride(), shape)  # (a part: parts.py)
        if strides is None:
            raise hinted(RuntimeError,
                         "view size is not compatible with input tensor's size and stride (at least one dimension "
                         "spans across two contiguous subspaces). Use .reshape(...) instead.",
                         f"view{_fmt(shape)} on a tensor of shape {_fmt(a.shape)} with stride {_fmt(a.stride())}; "
                         ".contiguous().view(...) also works, by copying")
        if _parts.view_strides is not None:
            return _part_view(a, shape, strides, "view_strides")
        item = arr.itemsize
        return _as_strided(a._device.xp, arr, shape, tuple(s * item for s in strides))

    @staticmethod
    def backward(ctx, grad):
        if _parts.view_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.view_backward("view", (tuple(grad.shape),), ctx.in_shape, grad),)
        return (grad.reshape(ctx.in_shape),)


class ReshapeAlias(View):
    """reshape of a tensor that is not row-major but can still be viewed (PyTorch's _reshape_alias)."""
    _node_name = "ReshapeAliasBackward0"


class UnsafeView(Primitive):
    """reshape of a fresh contiguous copy: the copy is the result's own memory, not a view (PyTorch's
    _unsafe_view), so the result has no _base."""
    _node_name = "UnsafeViewBackward0"
    reads_input_in_backward = False
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a.shape
        return a._data.reshape(shape)

    backward = View.backward


class _StridedUnsafeView(UnsafeView):
    """PyTorch's _unsafe_view of a tensor that is not a fresh copy: view()'s strides, and its error
    where there are none, in a result that is not recorded as a view."""
    _node_name = "UnsafeViewBackward0"
    forward = View.forward


def unsafe_view(a, shape):
    return _StridedUnsafeView.apply(a, shape=tuple(shape))


class Permute(ViewPrimitive):
    _node_name = "PermuteBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.dims = dims
        return a._data.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        inv = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inv[d] = i
        if _parts.view_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.view_backward("permute", (tuple(ctx.dims),), tuple(grad.shape[i] for i in inv), grad),)
        return (_prim.permute(grad, tuple(inv)),)


class Transpose(Permute):
    _node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.dims = dims
        if _parts.transpose_strides is None or not dims:  # (a 0-d tensor has no dims to swap)
            return a._data.transpose(dims)
        # a course part (minitorch/parts.py) computes the swapped shape and strides
        swapped = [i for i, d in enumerate(dims) if d != i] or [0, 0]
        shape, strides = _parts.transpose_strides(a.shape, a.stride(), *swapped)
        return _part_view(a, shape, strides, "transpose_strides")


class MatrixT(Permute):
    _node_name = "TBackward0"  # t() of a matrix; PyTorch gives it its own node name


class Expand(ViewPrimitive):
    _node_name = "ExpandBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a.shape
        arr = a._data
        if _parts.expand_strides is not None:  # a course part (minitorch/parts.py)
            return _part_view(a, shape, _parts.expand_strides(a.shape, a.stride(), shape), "expand_strides")
        lead = len(shape) - arr.ndim
        strides = [0] * lead + [0 if (n == 1 and s != 1) else st
                                for n, s, st in zip(arr.shape, shape[lead:], arr.strides)]
        return _as_strided(a._device.xp, arr, shape, tuple(strides))

    @staticmethod
    def backward(ctx, grad):
        if _parts.view_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.view_backward("expand", (tuple(grad.shape),), ctx.in_shape, grad),)
        return (grad,)  # the engine sums it back to the input's shape


class Squeeze(ViewPrimitive):
    _node_name = "SqueezeBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.in_shape = a.shape
        return a._data.squeeze(dims) if dims else a._data.view()

    @staticmethod
    def backward(ctx, grad):
        if _parts.view_backward is not None:  # a course part (minitorch/parts.py)
            return (_parts.view_backward("squeeze", (tuple(grad.shape),), ctx.in_shape, grad),)
        return (grad.reshape(ctx.in_shape),)


class SqueezeDim(Squeeze):
    _node_name = "SqueezeBackward1"  # squeeze(dim); squeeze(dims) is SqueezeBackward2, as in PyTorch


class SqueezeDims(Squeeze):
    _node_name = "SqueezeBackward2"


class Unsqueeze(ViewPrimitive):
    _node_name = "UnsqueezeBackward0"
    array_backward = True  # the formula below also runs on arrays (see _prim.py)

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        arr = a._data
        # the new dim's stride, as PyTorch's: the extent of the dim it precedes, or 1 at the end
        step = arr.shape[dim] * arr.strides[dim] if dim < arr.ndim else arr.itemsize
        return _as_strided(a._device.xp, arr, arr.shape[:dim] + (1,) + arr.shape[dim:],
                           arr.strides[:dim] + (step,) + arr.strides[dim:])

    @staticmethod
    def backward(ctx, grad):
        if _parts.view_backward is not None:  # a course part (minitorch/parts.py)
            shape = grad.shape[:ctx.dim] + grad.shape[ctx.dim + 1:]
            return (_parts.view_backward("unsqueeze", (ctx.dim,), tuple(shape), grad),)
        return (grad.squeeze(ctx.dim),)


class AsStrided(ViewPrimitive):
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, a, *, size, stride, offset):
        ctx.in_geometry = (a.shape, a.stride(), a.storage_offset())
        ctx.geometry = (size, stride, offset)
        ctx.numel = _root_array(a).size
        return _strided_from_storage(a, size, stride, offset)

    @staticmethod
    def backward(ctx, grad):
        # Scatter-add into a buffer shaped like the whole storage (an element may be read
        # twice), then read the input's own elements back out: two recorded ops, so that a
        # second derivative goes through too.
        from .index import Index, IndexPutInto
        xp = grad._device.xp
        buf = IndexPutInto.apply(grad.reshape(-1), key=(storage_index(*ctx.geometry, xp).reshape(-1),),
                                 shape=(ctx.numel,), accumulate=True)
        return (Index.apply(buf, key=(storage_index(*ctx.in_geometry, xp),)),)


def storage_index(size, stride, offset, xp):
    """The position in storage of every element of a (size, stride, offset) view."""
    idx = xp.asarray(offset, dtype=xp.int64)
    for n, s in zip(size, stride):
        idx = idx[..., None] + xp.arange(n, dtype=xp.int64) * s
    return idx


def _strided_from_storage(a, size, stride, offset):
    """A view of the storage under `a` with the given size, stride and offset (in elements)."""
    root = _root_array(a)
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if offset < 0 or any(s < 0 for s in stride) or need > root.size:
        raise RuntimeError(
            f"as_strided: sizes {_fmt(size)}, strides {_fmt(stride)} and storage offset {offset} need a "
            f"storage of {need} elements, which is out of bounds for storage of size {root.size}")
    flat = memory_order(root)  # (the elements as they lie in memory: a view, since a root is dense)
    if flat is None:
        flat = root.reshape(-1)
    item = root.itemsize
    return _as_strided(a._device.xp, flat[offset:], tuple(size), tuple(s * item for s in stride))


def memory_order(arr):
    """A dense array's elements as they lie in memory (a 1-D view), or None if it is not dense."""
    order = sorted(range(arr.ndim), key=lambda d: -arr.strides[d])
    dense = arr.transpose(order)
    return dense.reshape(-1) if dense.flags.c_contiguous else None


def data_ptr(arr):
    if hasattr(arr, "__array_interface__"):
        return arr.__array_interface__["data"][0]
    return arr.data.ptr


def _root_array(t):
    """The array owning t's memory: storage_offset() counts from its first element."""
    root = t._storage.root if t._storage.root is not None else t._base._data if t._base is not None else t._data
    if root is not t._data:  # t got new memory of its own (a resize_ that grew, a resized out=)
        start, end = data_ptr(root), data_ptr(root) + root.nbytes
        if not start <= data_ptr(t._data) < max(end, start + 1):
            return t._data
    return root


# ---- public functions -----------------------------------------------------------------

def _shape_args(shape, op="view", name="size"):
    from .._factories import int_list
    return int_list(shape, op, name)


def _needs_args(args, op, name, a):
    # (PyTorch refuses no arguments even for a 0-d tensor; an empty tuple, t.permute(()), is fine there)
    if not args:
        raise TypeError(f"{op}() missing 1 required positional arguments: \"{name}\"")


def view(a, *shape, dtype=None, **kw):
    from .. import _dtype
    if kw:  # view(size=(2, 3)), as PyTorch names it
        from .._factories import sizes_by_keyword
        shape = sizes_by_keyword(shape, kw, "view")
    if dtype is not None or len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(a, _dtype.as_dtype(dtype or shape[0], "view"))
    if not shape and a.ndim:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of: "
                        "(torch.dtype dtype) or (tuple of ints size)")
    shape = infer_shape(_shape_args(shape), a.numel())
    return View.apply(a, shape=shape)


def _view_dtype(a, dt):
    """Reinterpret the bytes as another dtype (records no gradient). With another element size
    the last dim is rescaled, which needs it contiguous: PyTorch's rules."""
    from .._tensor import Tensor
    old, new = a.dtype.itemsize, dt.itemsize
    if old != new:
        what = f"to view {a.dtype._short} as {dt._short} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if a.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {a.stride(-1)}")
        k = new // old
        if new > old:
            if a.shape[-1] % k:
                raise RuntimeError(f"self.size(-1) must be divisible by {k} {what}, but got {a.shape[-1]}")
            if a.storage_offset() % k:
                raise RuntimeError(f"self.storage_offset() must be divisible by {k} {what}, but got "
                                   f"{a.storage_offset()}")
            for i, st in enumerate(a.stride()[:-1]):
                if st % k:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {k} {what}, but got {st}")
    # NumPy reinterprets an array whose last axis is contiguous, rescaling that axis
    a._storage.root = _root_array(a)  # (not a view in autograd's sense, as in PyTorch: no _base)
    return Tensor._make(a._data.view(dt.np), a._device, a._storage)


def reshape(input, *shape, **kw):
    if kw:  # reshape(shape=(2, 3)), as PyTorch names it
        from .._factories import sizes_by_keyword
        shape = sizes_by_keyword(shape, kw, "reshape", "shape")
    _needs_args(shape, "reshape", "shape", input)
    shape = infer_shape(_shape_args(shape, "reshape", "shape"), input.numel(), "reshape")
    if input._data.flags.c_contiguous:
        return View.apply(input, shape=shape)
    if view_strides(input.shape, input.stride(), shape) is not None:
        return ReshapeAlias.apply(input, shape=shape)
    return UnsafeView.apply(input.contiguous(), shape=shape)


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        common.wrap_dim(start_dim, 0, "flatten"), common.wrap_dim(end_dim, 0, "flatten")  # only 0 and -1 name a dim
        return reshape(input, 1)
    s = common.wrap_dim(start_dim, input.ndim, "flatten")
    e = common.wrap_dim(end_dim, input.ndim, "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input.shape[:s] + (math.prod(input.shape[s:e + 1]),) + input.shape[e + 1:]
    return reshape(input, shape)


def unflatten(input, dim, sizes):
    d = common.wrap_dim(dim, input.ndim, "unflatten")
    if input.ndim == 0:  # (PyTorch wraps the size(dim) error of a 0-d tensor in this message)
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    if not len(sizes):
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = infer_shape(sizes, input.shape[d], "unflatten")
    except RuntimeError as e:  # (PyTorch rewords a size mismatch, and wraps any other error)
        if "is invalid for input of size" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {_fmt(sizes)} don't multiply up to the size of dim {d} "
                               f"({input.shape[d]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return view(input, input.shape[:d] + tuple(sizes) + input.shape[d + 1:])  # splitting one dim is always a view


def permute(input, *dims, **kw):
    if kw:  # permute(dims=(1, 0)), as PyTorch names it
        from .._factories import sizes_by_keyword
        dims = sizes_by_keyword(dims, kw, "permute", "dims")
    _needs_args(dims, "permute", "dims", input)
    dims = _shape_args(dims, "permute", "dims")
    if len(dims) != input.ndim:
        raise hinted(RuntimeError,  # (PyTorch's wording, its odd "sparse_coo" included)
                     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                     f"the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to len(dims) = "
                     f"{len(dims)}",
                     f"the tensor has shape {_fmt(input.shape)}; {len(dims)} dims were given: {_fmt(dims)}")
    dims = tuple(common.wrap_dim(d, input.ndim, "permute") for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims=dims)


def transpose(input, dim0, dim1):
    n = input.ndim
    if n == 0:
        common.wrap_dim(dim0, 0, "transpose")
        common.wrap_dim(dim1, 0, "transpose")
        return Transpose.apply(input, dims=())  # still a TransposeBackward0, as PyTorch records it
    d0, d1 = common.wrap_dim(dim0, n, "transpose"), common.wrap_dim(dim1, n, "transpose")
    dims = list(range(n))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Transpose.apply(input, dims=tuple(dims))


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    # (TBackward0 at every ndim)
    return MatrixT.apply(input, dims=(1, 0) if input.ndim == 2 else tuple(range(input.ndim)))


def expand(a, *shape, implicit=False, **kw):
    if kw:  # expand(size=(2, 3)), as PyTorch names it (`implicit` only marks a broadcast for its tracer)
        from .._factories import sizes_by_keyword
        shape = sizes_by_keyword(shape, kw, "expand")
    if not shape:
        _needs_args(shape, "expand", "size", a)
    shape = list(_shape_args(shape, "expand"))
    if len(shape) < a.ndim:
        raise RuntimeError(
            f"expand({a._type_name()}{{{_fmt(a.shape)}}}, size={_fmt(shape)}): the number of sizes provided "
            f"({len(shape)}) must be greater or equal to the number of dimensions in the tensor ({a.ndim})")
    lead = len(shape) - a.ndim
    for i in reversed(range(a.ndim)):  # (PyTorch checks from the last dim: its error names the rightmost)
        n, want = a.shape[i], shape[lead + i]
        if want == -1:
            shape[lead + i] = n
        elif n != 1 and want != n:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({n}) at non-singleton "
                f"dimension {lead + i}.  Target sizes: {_fmt(shape)}.  Tensor sizes: {_fmt(a.shape)}")
    return Expand.apply(a, shape=tuple(shape))  # ExpandBackward0 even when nothing grows, as in PyTorch


def expand_as(a, other):
    return expand(a, other.shape)


def squeeze(input, dim=None, *, axis=None):
    dim = dim if axis is None else axis
    if dim is None:
        dims = tuple(i for i, n in enumerate(input.shape) if n == 1)
    else:
        dims = tuple(d for d in common.wrap_dims(dim, input.ndim, "squeeze") if input.shape[d] == 1)
    cls = Squeeze if dim is None else SqueezeDims if isinstance(dim, (tuple, list)) else SqueezeDim
    return cls.apply(input, dims=dims)


def unsqueeze(input, dim=None, *, axis=None):
    dim = dim if axis is None else axis
    if dim is None:
        raise TypeError("unsqueeze() missing 1 required positional arguments: \"dim\"")
    d = common.wrap_dim(dim, input.ndim + 1, "unsqueeze")
    return Unsqueeze.apply(input, dim=d)


def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    return input[_narrowed(input, dim, start, length)]


def _narrowed(a, dim, start, length):
    """The key of narrow's rows, after PyTorch's checks."""
    d = common.wrap_dim(dim, a.ndim, "narrow")
    n, start, length = a.shape[d], operator.index(start), operator.index(length)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return (slice(None),) * d + (slice(start, start + length),)


class NarrowCopy(Primitive):
    _node_name = "NarrowCopyBackward0"

    @staticmethod
    def forward(ctx, a, *, key):
        ctx.shape, ctx.key = a.shape, key
        return a._device.xp.ascontiguousarray(a._data[key])

    @staticmethod
    def backward(ctx, grad):
        from .index import IndexPutInto
        return (IndexPutInto.apply(grad, key=ctx.key, shape=ctx.shape, accumulate=False),)


def narrow_copy(input, dim, start, length, *, out=None):
    """narrow's rows as a new (contiguous) tensor rather than a view."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    result = NarrowCopy.apply(input, key=_narrowed(input, dim, start, length))
    if out is None:
        return result
    from .out import write_out
    return write_out("narrow_copy", result, out)


def as_strided(input, size, stride, storage_offset=None):
    """A view of a's storage with the given geometry; without storage_offset it starts where a does."""
    offset = input.storage_offset() if storage_offset is None else storage_offset
    return AsStrided.apply(input, size=tuple(size), stride=tuple(stride), offset=offset)


def movedim(input, source, destination):
    src = [common.wrap_dim(s, input.ndim) for s in ((source,) if isinstance(source, int) else source)]
    dst = [common.wrap_dim(s, input.ndim) for s in ((destination,) if isinstance(destination, int) else destination)]
    if input.ndim == 0:  # (dims -1 and 0 name the 0-d tensor's one "dim": nothing moves, an alias)
        from .index import Alias
        return Alias.apply(input, key=())
    order = [d for d in range(input.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, tuple(order))
