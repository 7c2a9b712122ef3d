"""Memory formats: the order in which a new tensor's elements lie in memory.

    contiguous_format   row-major: the last dim's neighbours are next to each other
    channels_last       a 4-D image batch stored pixel by pixel (NHWC): each pixel's channels together
    channels_last_3d    the same for a 5-D volume (NDHWC)
    preserve_format     like the tensor it copies (the default of clone, .to() and the *_like factories)

The shape does not change, only the strides: `x.to(memory_format=channels_last)` still has shape
(N, C, H, W), with strides (H*W*C, 1, W*C, C).
"""
from __future__ import annotations


class memory_format:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minitorch.{self.name}"


memory_format.__module__ = "minitorch"
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

_RANK = {"channels_last": 4, "channels_last_3d": 5}


def checked(fmt, op):
    """fmt itself, after PyTorch's argument check (None means preserve, as in PyTorch's signatures)."""
    if fmt is None:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")
    return fmt


def order(fmt, ndim):
    """The dims from outermost to innermost in memory for a tensor of `ndim` dims laid out as fmt
    (None for preserve_format: the caller keeps the source's layout)."""
    if fmt is preserve_format:
        return None
    if fmt is contiguous_format:
        return tuple(range(ndim))
    rank = _RANK[fmt.name]
    if ndim != rank:
        from ._errors import hinted
        raise hinted(RuntimeError, f"required rank {rank} tensor to use {fmt.name} format",
                     f"a channels-last layout is for {'N, C, H, W images' if rank == 4 else 'N, C, D, H, W volumes'};"
                     f" this tensor has {ndim} dims")
    from ._ops.common import channels_last_order  # (fastest first: C, W, (D,) H, N)
    return tuple(reversed(channels_last_order(ndim)))


def strides(fmt, shape):
    """The element strides of a tensor of `shape` laid out as fmt (None for preserve_format)."""
    from ._ops.common import _strides_from
    dims = order(fmt, len(shape))
    return None if dims is None else _strides_from(tuple(reversed(dims)), tuple(shape), False)


def is_in(shape, st, fmt):
    """Whether (shape, strides) lies in memory as fmt does; size-1 dims may have any stride."""
    if fmt.name in _RANK:
        if len(shape) != _RANK[fmt.name]:
            return False
        dims = order(fmt, len(shape))
    else:
        dims = tuple(range(len(shape)))
    if 0 in shape:
        return True
    need = 1
    for d in reversed(dims):
        if shape[d] != 1:
            if st[d] != need:
                return False
            need *= shape[d]
    return True
