"""Where the elements of an nn result go in memory, as in PyTorch.

Elementwise ops keep any layout of their input (a transposed input gives a transposed
result). PyTorch's nn kernels (convolution, pooling, batch and group norm, interpolate, pad,
the pixel shuffles) know only two layouts, and give their result, and the input's gradient,
the one `input.suggest_memory_format()` names:

    channels_last   the input's strides say it is an image stored pixel by pixel, each
                    pixel's channels side by side (NHWC; NDHWC for a 5-D volume)
    contiguous      anything else, row-major (a transposed image comes out row-major)

So an image read from a NHWC array through `.permute(0, 3, 1, 2)` stays NHWC through a CNN.
"""
from __future__ import annotations

from .._ops._prim import Primitive
from .._ops.common import channels_last_order, relayout, suggests_channels_last

CHANNELS_LAST, CONTIGUOUS = "channels_last", "contiguous"


def suggest_memory_format(x):
    """CHANNELS_LAST or CONTIGUOUS: the layout PyTorch's nn kernels give a result computed from x."""
    return CHANNELS_LAST if suggests_channels_last(tuple(x.shape), x.stride()) else CONTIGUOUS


def format_strides(shape, fmt):
    """The element strides of a tensor of `shape` laid out as `fmt`."""
    order = channels_last_order(len(shape)) if fmt == CHANNELS_LAST and len(shape) in (4, 5) else \
        range(len(shape) - 1, -1, -1)
    strides, step = [0] * len(shape), 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_in_format(t, fmt):
    """Whether t is laid out as `fmt` as PyTorch's is_contiguous sees it: a size-1 dim's stride does
    not matter (so PyTorch's .contiguous() leaves t as it is)."""
    return all(n == 1 or s == w for n, s, w in zip(t.shape, t.stride(), format_strides(t.shape, fmt)))


def in_format(arr, fmt, xp):
    """A result array (fresh, or any view) laid out as `fmt`: itself when it already is."""
    return relayout(arr, format_strides(arr.shape, fmt), xp)


class _InFormat(Primitive):
    """A copy laid out as `fmt` (for a gradient a backward builds from tensor ops); the copy's
    gradient passes through."""
    _node_name = "CloneBackward0"
    reads_input_in_backward = False

    @staticmethod
    def forward(ctx, t, *, fmt):
        return relayout(t._data, format_strides(t.shape, fmt), t._device.xp, copy=True)

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


def to_format(t, fmt):
    """Tensor t laid out as `fmt` (itself when it already is)."""
    if t.numel() == 0 or t.stride() == format_strides(t.shape, fmt):
        return t
    return _InFormat.apply(t, fmt=fmt)
