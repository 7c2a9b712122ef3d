"""Fractional max pooling (Graham, 2014): windows of a fixed size whose starts step by a random,
non-integer stride, so an image shrinks by any ratio (say 1/sqrt(2)) instead of a whole factor.

Along a dim of n inputs pooled by windows of k to `out` outputs, with a sample u in [0, 1) drawn
per (batch, channel) plane and dim, the windows start at

    alpha = (n - k) / (out - 1)
    start[i] = int((i + u) * alpha) - int(u * alpha)     for i < out - 1
    start[out - 1] = n - k                               (the last window ends at the edge)

computed, as in PyTorch's kernel, in the input's dtype (float32 rounding decides some `int`s).
The samples are drawn by F.fractional_max_pool2d with torch.rand, so a seed gives PyTorch's
windows. The gradient flows to each window's maximum, as max pooling's does.
"""
from __future__ import annotations

import itertools
import math

from .._ops._prim import MultiOutputPrimitive, check_saved_outputs
from ._conv import PoolScatter, _batch_of_one, _flat


def interval_starts(xp, u, n, out, k):
    """The starts of the `out` windows of size k along a dim of n, for samples u (any shape):
    an int64 array of shape u.shape + (out,)."""
    starts = xp.empty(u.shape + (out,), dtype=xp.int64)
    if out > 1:
        alpha = u.dtype.type(n - k) / u.dtype.type(out - 1)
        i = xp.arange(out - 1, dtype=u.dtype)
        starts[..., :-1] = (((i + u[..., None]) * alpha).astype(xp.int64)
                            - (u * alpha).astype(xp.int64)[..., None])
    if out > 0:
        starts[..., -1] = n - k
    return starts


class FractionalMaxPool2d(MultiOutputPrimitive):
    """The maximum of every window and its flat position h*W + w in the plane (as PyTorch's
    return_indices). `samples` (N, C, 2) gives each plane its u for W (sample 0) and H (sample 1),
    PyTorch's order; the 3-D version's (N, C, 3) are for T, H, W."""
    _node_name = "FractionalMaxPool2DBackward0"
    reads_input_in_backward = False
    saved_outputs = (1,)

    @staticmethod
    def forward(ctx, x, *, kernel, out_size, samples):
        xp, nd = x._device.xp, len(kernel)
        a = _batch_of_one(x, kernel)
        n, c, size = a.shape[0], a.shape[1], a.shape[2:]
        u = samples[:n]
        u = u[..., ::-1] if nd == 2 else u
        # each dim's window starts, shaped to broadcast to (N, C, *out_size)
        starts = [interval_starts(xp, u[..., q], size[q], out_size[q], kernel[q])
                  .reshape((n, c) + tuple(o if p == q else 1 for p, o in enumerate(out_size))) for q in range(nd)]
        corner = _flat(starts, size)
        planes = a.reshape(n, c, math.prod(size))
        # PyTorch's loop over the window: take an entry when it is larger than the best so far, or NaN
        best = xp.full(corner.shape, -xp.inf, dtype=a.dtype)
        index = corner
        for offset in itertools.product(*map(range, kernel)):
            pos = corner + _flat(offset, size)
            v = xp.take_along_axis(planes, pos.reshape(n, c, math.prod(out_size)), axis=2).reshape(pos.shape)
            take = (v > best) | xp.isnan(v)
            best, index = xp.where(take, v, best), xp.where(take, pos, index)
        ctx.index, ctx.in_shape, ctx.x_shape = index, a.shape, tuple(x.shape)
        ctx._keeps_values = True  # (PyTorch's node keeps the input: a second backward is refused)
        shape = tuple(x.shape[:-nd]) + tuple(out_size)
        return best.reshape(shape), index.reshape(shape)

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        ctx.saved_tensors  # noqa: B018  (refused once freed)
        check_saved_outputs(ctx)
        nd = len(ctx.in_shape) - 2
        out = PoolScatter.apply(grad, index=ctx.index, pads=(0,) * nd, in_shape=ctx.in_shape)
        return (out.reshape(ctx.x_shape),)


class FractionalMaxPool3d(FractionalMaxPool2d):
    _node_name = "FractionalMaxPool3DBackward0"
