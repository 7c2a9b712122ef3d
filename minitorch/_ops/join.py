"""Joining and splitting: cat, stack, split, chunk, unbind, repeat, flip."""
from __future__ import annotations

import math

from . import common
from ._prim import Primitive
from .convert import preserved
from .views import MultiViewPrimitive


class Cat(Primitive):
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, *tensors, dim, dtype):
        # legacy rule kept by PyTorch: 1-D empty tensors are skipped (but stay inputs of the node)
        keep = [not (t.ndim == 1 and t.shape[0] == 0) for t in tensors]
        keep[0] = keep[0] or not any(keep)
        ctx.dim, ctx.keep, ctx.shapes = dim, keep, [t.shape for t in tensors]
        ctx.dtypes = [t.dtype for t in tensors]  # inputs of other dtypes are cast here, not by a node of their own
        xp = tensors[0]._device.xp
        parts = [t._data.astype(dtype.np, copy=False) for t, k in zip(tensors, keep) if k]
        out = xp.concatenate(parts, axis=dim)
        # PyTorch's result is contiguous, or channels-last when every input is a channels-last image
        # or volume (NumPy would follow the inputs' layout)
        if out.ndim in (4, 5) and all(common.suggests_channels_last(p.shape, common.elem_strides(p)) for p in parts):
            return common.relayout(out, common.channels_last_strides(out.shape), xp)
        return xp.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        pieces = iter(grad.split([s[ctx.dim] for s, k in zip(ctx.shapes, ctx.keep) if k], ctx.dim))
        return tuple((next(pieces) if k else grad.new_zeros(s)).to(dt)
                     for s, k, dt in zip(ctx.shapes, ctx.keep, ctx.dtypes))


def cat(tensors, dim=0, *, axis=None):
    dim = dim if axis is None else axis
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dev = common.same_device("cat", *tensors)
    # legacy rule kept by PyTorch: 1-D empty tensors are skipped, dim is checked against the others
    # (when all are skipped, any dim goes: the result is an empty 1-D tensor)
    parts = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    dt = common.result_dtype(*tensors)  # (a skipped empty tensor's dtype still takes part)
    if not parts:
        return Cat.apply(*(common.to_device_of(t, dev) for t in tensors), dim=0, dtype=dt)
    ref = parts[0]
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = common.wrap_dim(dim, ref.ndim, "cat")
    for i, t in enumerate(parts):
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim} "
                f"(cat of shapes {[list(x.shape) for x in parts]})")
        for j in range(ref.ndim):
            if j != d and t.shape[j] != ref.shape[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref.shape[j]} but got "
                    f"size {t.shape[j]} for tensor number {i} in the list.")
    return Cat.apply(*(common.to_device_of(t, dev) for t in tensors), dim=d, dtype=dt)


concat = concatenate = cat


class Stack(Primitive):
    """Tensors of one shape joined along a new dim (StackBackward0): the gradient of each is its slice."""
    _node_name = "StackBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, *tensors, dim):
        ctx.dim = dim
        return tensors[0]._device.xp.stack([t._data for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad.select(ctx.dim, i) for i in range(grad.shape[ctx.dim]))


def stack(tensors, dim=0, *, axis=None):
    dim = dim if axis is None else axis
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}")
    d = common.wrap_dim(dim, len(shape) + 1, "stack")
    dev = common.same_device("stack", *tensors)
    dt = common.result_dtype(*tensors) if any(t.dtype is not tensors[0].dtype for t in tensors) else None
    parts = [common.to_device_of(t, dev) if dt is None else common.to_device_of(t, dev).to(dt) for t in tensors]
    return Stack.apply(*parts, dim=d)


def hstack(tensors):
    tensors = [t if t.ndim else t.reshape(1) for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


class Split(MultiViewPrimitive):
    """Consecutive pieces along a dim, each a view (one node for all: SplitBackward0); the
    gradient is the pieces' gradients joined back (zeros for a piece that got none)."""
    _node_name = "SplitBackward0"

    @staticmethod
    def forward(ctx, a, *, dim, sizes):
        ctx.dim = dim
        out, start = [], 0
        lead = (slice(None),) * dim
        for n in sizes:
            out.append(a._data[lead + (slice(start, start + n),)])
            start += n
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        return (cat(grads, ctx.dim),)


class SplitWithSizes(Split):
    _node_name = "SplitWithSizesBackward0"


class Unbind(MultiViewPrimitive):
    """Every index along a dim, each a view one dim smaller (UnbindBackward0)."""
    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        lead = (slice(None),) * dim
        return tuple(a._data[lead + (i, Ellipsis)] for i in range(a.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return (stack(grads, ctx.dim),)


def split(tensor, split_size_or_sections, dim=0):
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = common.wrap_dim(dim, tensor.ndim, "split")
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, float):
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not float")
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(size, n - s) for s in range(0, n, size)] if n else [0]
        return Split.apply(tensor, dim=d, sizes=tuple(sizes))
    sizes = list(split_size_or_sections)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension "
            f"{d}), but got split_sizes={sizes}")
    return SplitWithSizes.apply(tensor, dim=d, sizes=tuple(sizes))


def split_with_sizes(input, split_sizes, dim=0):
    """split into pieces of the given sizes (SplitWithSizesBackward0)."""
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
                        f"{type(split_sizes).__name__}")
    return split(input, list(split_sizes), dim)


def chunk(input, chunks, dim=0):
    if not isinstance(chunks, int) or isinstance(chunks, bool):
        raise TypeError(f"chunk(): argument 'chunks' (position 1) must be int, not {type(chunks).__name__}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = common.wrap_dim(dim, input.ndim, "chunk")
    size = math.ceil(input.shape[d] / chunks) if input.shape[d] else 0
    if size == 0:
        # (an empty dim: PyTorch splits it with sizes, SplitWithSizesBackward0)
        return SplitWithSizes.apply(input, dim=d, sizes=(0,) * chunks) if input.shape[d] == 0 else ()
    return split(input, size, d)


def unbind(input, dim=0):
    d = common.wrap_dim(dim, input.ndim, "unbind")
    return Unbind.apply(input, dim=d)


class Repeat(Primitive):
    """The tensor tiled `sizes` times along each dim (RepeatBackward0); a copy, as in PyTorch. The
    gradient sums the copies: view it as (r0, n0, r1, n1, ...) and sum over the r's."""
    _node_name = "RepeatBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, a, *, sizes):
        ctx.in_shape = a.shape
        shape = (1,) * (len(sizes) - a.ndim) + tuple(a.shape)
        ctx.sizes, ctx.shape = sizes, shape
        out = a._device.xp.tile(a._data.reshape(shape), sizes)
        return out if out.flags.c_contiguous else out.copy(order="C")  # (row-major, as PyTorch's)

    @staticmethod
    def backward(ctx, grad):
        inter = []
        for r, n in zip(ctx.sizes, ctx.shape):
            inter += [r, n]
        g = grad.reshape(inter).sum(dim=tuple(range(0, len(inter), 2)))
        return (g.reshape(ctx.in_shape),)


def repeat(a, *sizes, **kw):
    if kw:  # repeat(repeats=(2, 1)), as PyTorch names it
        from .._factories import sizes_by_keyword
        sizes = sizes_by_keyword(sizes, kw, "repeat", "repeats")
    if not sizes and a.ndim:
        raise TypeError("repeat() missing 1 required positional arguments: \"repeats\"")
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    if len(sizes) < a.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor "
            f"(repeat{list(sizes)} on a tensor of shape {list(a.shape)})")
    if any(r < 0 for r in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
    return Repeat.apply(a, sizes=tuple(int(r) for r in sizes))


class Flip(Primitive):
    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.dims = dims
        # PyTorch's flip copies (no negative strides), into memory laid out like a's (empty_like)
        return preserved(a, a._device.xp.flip(a._data, axis=dims).copy())

    @staticmethod
    def backward(ctx, grad):
        return (grad.flip(ctx.dims),)


def flip(input, *dims, **kw):
    if kw:  # flip(dims=(0,)), as PyTorch names it
        from .._factories import sizes_by_keyword
        dims = sizes_by_keyword(dims, kw, "flip", "dims")
    if not dims and input.ndim:
        raise TypeError("flip() missing 1 required positional arguments: \"dims\"")
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    return Flip.apply(input, dims=common.wrap_dims(dims, input.ndim, "flip"))


def tile(input, *sizes, **kw):
    if kw:  # tile(dims=(2, 1)), as PyTorch names it
        from .._factories import sizes_by_keyword
        sizes = sizes_by_keyword(sizes, kw, "tile", "dims")
    if not sizes and input.ndim:
        raise TypeError("tile() missing 1 required positional arguments: \"dims\"")
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    sizes = (1,) * (input.ndim - len(sizes)) + sizes
    return repeat(input, *sizes)
